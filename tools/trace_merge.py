#!/usr/bin/python3
"""Merge the per-rank traces of an mpirun job into one Chrome trace-event file.

  tools/trace_merge.py trace.json [-o merged.json]

`heist bench ... --trace trace.json` under mpirun writes trace.rank0.json,
trace.rank1.json, ...; each rank is one process (pid = rank) and steals
between ranks appear as flows from the victim rank's "public queue" track
to the thief. Timestamps are the node's monotonic clock, so ranks on one
node line up; ranks on different nodes are not aligned.
"""
import argparse
import glob
import json
import os
import re
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", help="the --trace FILE given to heist (its .rank<r> files are read)")
    parser.add_argument("-o", "--output", help="merged file (default: FILE with .merged before the extension)")
    args = parser.parse_args()
    stem, ext = os.path.splitext(args.trace)
    pattern = re.compile(re.escape(stem) + r"\.rank(\d+)" + re.escape(ext) + "$")
    files = sorted((int(m.group(1)), p) for p in glob.glob(f"{glob.escape(stem)}.rank*{ext}")
                   if (m := pattern.match(p)))
    if not files:
        sys.exit(f"trace_merge: no {stem}.rank<r>{ext} files")
    events, seen, other = [], set(), {"ranks": len(files), "dropped_events": 0}
    for _, path in files:
        with open(path) as f:
            doc = json.load(f)
        other["dropped_events"] += doc.get("otherData", {}).get("dropped_events", 0)
        for e in doc["traceEvents"]:
            if e["ph"] == "M":  # a track may be named by several ranks (victim marks)
                key = (e["name"], e["pid"], e.get("tid"))
                if key in seen:
                    continue
                seen.add(key)
            events.append(e)
    out = args.output or f"{stem}.merged{ext}"
    with open(out, "w") as f:
        json.dump({"displayTimeUnit": "ns", "traceEvents": events, "otherData": other}, f)
    print(f"{out}: {len(files)} ranks, {len(events)} events")


if __name__ == "__main__":
    main()
