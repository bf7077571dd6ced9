#!/usr/bin/env python3
"""Runs `heist bench ... --json --trace FILE` and checks the trace against the
run's own statistics: a well-formed Chrome trace-event file, one task span
per queued task executed (with --trace-min-us 0), one steal span per steal,
each steal with a victim mark and a flow whose two ends share an id, and
queue-length counters. Under mpirun (--ranks R) every rank's file is read.

  check_trace.py [--ranks R] TRACE -- CMD...
"""
import json
import os
import subprocess
import sys


def fail(msg):
    sys.exit(f"check_trace: {msg}")


def rank_paths(path, ranks):
    if ranks == 1:
        return [path]
    stem, ext = os.path.splitext(path)
    return [f"{stem}.rank{r}{ext}" for r in range(ranks)]


def main():
    args = sys.argv[1:]
    split = args.index("--")
    opts, cmd = args[:split], args[split + 1:]
    ranks = 1
    if opts[0] == "--ranks":
        ranks, opts = int(opts[1]), opts[2:]
    trace = opts[0]
    paths = rank_paths(trace, ranks)
    for p in paths:
        if os.path.exists(p):
            os.remove(p)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"exit {out.returncode}: {out.stderr}")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    stats = report["stats"]
    events = []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        if doc["otherData"]["dropped_events"] != 0:
            fail(f"{p}: events dropped")
        events += doc["traceEvents"]
    for e in events:
        if e["ph"] not in "MXsfC" or "pid" not in e:
            fail(f"unexpected event {e}")
        if e["ph"] == "X" and e["dur"] < 0:
            fail(f"negative duration {e}")
    tasks = [e for e in events if e["ph"] == "X" and e["cat"] == "task"]
    queued_executed = stats["tasks_executed"] - stats["tasks_inlined"]
    if len(tasks) != queued_executed:
        fail(f"{len(tasks)} task spans, {queued_executed} queued tasks executed")
    steal_spans = [e for e in events if e["ph"] == "X" and e["cat"] == "steal" and e["name"].startswith("steal ")]
    marks = [e for e in events if e["ph"] == "X" and e["cat"] == "steal" and e["name"].startswith("stolen by ")]
    steals = stats["steals"] + stats.get("remote_steals", 0)
    if len(steal_spans) != steals or len(marks) != steals:
        fail(f"{len(steal_spans)} steal spans and {len(marks)} victim marks, {steals} steals")
    taken = sum(e["args"]["tasks"] for e in steal_spans)
    if taken != stats["tasks_stolen"] + stats.get("remote_tasks_stolen", 0):
        fail(f"steal spans carry {taken} tasks, stats say {stats['tasks_stolen']} + remote")
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = {e["id"]: e for e in events if e["ph"] == "f"}
    if len(starts) != steals or starts.keys() != ends.keys():
        fail("every steal needs one flow start and one flow end with the same id")
    for fid, s in starts.items():
        f = ends[fid]
        if f.get("bp") != "e" or (s["pid"], s["tid"]) == (f["pid"], f["tid"]):
            fail(f"flow {fid} must go from the victim's track to the thief's")
    if steals > 0 and not any(e["ph"] == "C" for e in events):
        fail("no queue-length counter samples")
    if ranks > 1 and stats.get("remote_steals", 0) > 0:
        if not any(e["ph"] == "s" and e["tid"] == 100000 for e in events):
            fail("no flow from another rank's public queue")


if __name__ == "__main__":
    main()
