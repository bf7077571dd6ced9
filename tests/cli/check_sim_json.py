#!/usr/bin/env python3
"""Runs `heist sim ... --json` and checks its contract (docs/simulator.md):
the last stdout line is one JSON object with the fields docs/simulator.md names, the
task count is the one expected, and the steal counters add up.

  check_sim_json.py [--expect-result N] [--expect-workers W] [--expect-costs-source S]
                    [--expect-busy-profile N] [--expect-whole-breakdown TOL] -- CMD...

--expect-whole-breakdown TOL: every worker's time is work, search or steal:
their sum is time x workers, within TOL of it (relative). Exact (1e-6) in
fib and nqueens runs; UTS between ranks is within 0.2 % (docs/simulator.md).

--expect-busy-profile N: the run had --busy-profile N: busy_profile holds
N/2 to N shares in [0, 1] whose busy time is the run's time less its search
and steals, a remote share per bucket within its idle share (none in one
process), and a count of suspended stacks per bucket, never negative
(without it, the report has no busy_profile).
"""
import sys

from json_report import run_report

REQUIRED = ["app", "params", "machine", "workers", "ranks", "costs", "time_s", "result", "t1_s",
            "speedup", "efficiency", "steals", "steal_totals", "messages", "time_breakdown_s", "simulator"]
LEVELS = ["cache", "numa", "socket", "process", "node", "machine"]


def fail(msg):
    sys.exit(f"check_sim_json: {msg}")


def main():
    expect, report = run_report(sys.argv[1:], REQUIRED, fail)
    if "--expect-result" in expect and report["result"] != int(expect["--expect-result"]):
        fail(f"result {report['result']} != {expect['--expect-result']}")
    if "--expect-workers" in expect and report["workers"] != int(expect["--expect-workers"]):
        fail(f"workers {report['workers']} != {expect['--expect-workers']}")
    if "--expect-costs-source" in expect and report["costs"].get("source") != expect["--expect-costs-source"]:
        fail(f"costs.source {report['costs'].get('source')!r} != {expect['--expect-costs-source']!r}")
    for k in ("policy", "victim", "chunk", "queue_demand", "protocol", "seed", "backoff"):
        if k not in report["params"]:
            fail(f"params.{k} missing (the options belong in params)")
    if not (report["time_s"] > 0 and report["t1_s"] > 0):
        fail(f"time_s {report['time_s']}, one worker's {report['t1_s']}: not positive")
    if report["t1_s"] > report["time_s"] * report["workers"] * 1.001 + 1e-12:
        fail(f"faster than perfect speedup: {report['t1_s']} on one worker, {report['time_s']} on {report['workers']}")
    if abs(report["efficiency"] - report["speedup"] / report["workers"]) > 1e-9:
        fail("efficiency != speedup / workers")
    total = {"attempts": 0, "steals": 0, "failed": 0, "tasks": 0}
    for level in LEVELS:
        counts = report["steals"][level]
        for key in total:
            total[key] += counts[key]
            if counts[key] != counts["in_process"][key] + counts["between_processes"][key]:
                fail(f"steals.{level}.{key} is not in_process + between_processes")
    if "--expect-whole-breakdown" in expect:
        check_whole_breakdown(report, float(expect["--expect-whole-breakdown"]))
    check_busy_profile(report, int(expect.get("--expect-busy-profile", 0)))
    if total != report["steal_totals"]:
        fail("steal_totals is not the sum over the levels")
    if total["steals"] + total["failed"] > total["attempts"] or total["attempts"] - total["steals"] - total["failed"] > report["workers"]:
        fail("attempts, steals and failed do not add up (at most one attempt per worker in flight at the end)")


def check_whole_breakdown(report, tolerance):
    parts = report["time_breakdown_s"]
    machine_time = report["time_s"] * report["workers"]
    if abs(parts["work"] + parts["search"] + parts["steal"] - machine_time) > tolerance * machine_time:
        fail(f"work + search + steal {parts['work'] + parts['search'] + parts['steal']} != time x workers {machine_time}")


def check_busy_profile(report, buckets):
    if buckets == 0:
        if "busy_profile" in report:
            fail("busy_profile without --busy-profile")
        return
    profile = report.get("busy_profile")
    if profile is None:
        fail("busy_profile missing")
    shares, width, t = profile["busy"], profile["bucket_s"], report["time_s"]
    if not (buckets // 2 <= len(shares) <= buckets) and t > width * buckets / 2:
        fail(f"{len(shares)} buckets for --busy-profile {buckets}")
    if any(not 0 <= b <= 1 for b in shares):
        fail("a busy share outside [0, 1]")
    remote, suspended = profile["remote"], profile["suspended"]
    if len(remote) != len(shares) or len(suspended) != len(shares):
        fail("busy_profile's remote and suspended do not have one value per bucket")
    if any(not 0 <= r <= 1 - b + 1e-9 for r, b in zip(remote, shares)):
        fail("a remote share outside [0, 1 - busy]")
    if report["ranks"] == 1 and any(remote):
        fail("a remote share in a run of one process")
    if any(s < 0 for s in suspended):
        fail("a negative count of suspended stacks")
    busy = sum(b * min(width, t - i * width) for i, b in enumerate(shares)) * report["workers"]
    idle = report["time_s"] * report["workers"] - busy
    parts = report["time_breakdown_s"]
    if abs(idle - parts["search"] - parts["steal"]) > 1e-6 * t * report["workers"]:
        fail(f"busy profile's idle time {idle} != search + steal {parts['search'] + parts['steal']}")


if __name__ == "__main__":
    main()
