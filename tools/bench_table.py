#!/usr/bin/env python3
"""Measure heist against oneTBB, OpenMP and the sequential versions.

Runs each configuration with --repeat R (median reported by the binaries
themselves), one process at a time, and prints a Markdown table. Ratios are
only compared inside one run of this script.

  tools/bench_table.py --build build --repeat 5 [--json out.json]
"""
import argparse
import json
import sys

import heistbench

CASES = [
    ("fib", ["--n", "35", "--cutoff", "0"], "fib(35), every call a task"),
    ("fib", ["--n", "40", "--cutoff", "20"], "fib(40), cutoff 20"),
    ("nqueens", ["--n", "13", "--cutoff", "0"], "nqueens(13), no cutoff"),
    ("nqueens", ["--n", "13", "--cutoff", "3"], "nqueens(13), cutoff 3"),
]


def run(cmd):
    return heistbench.run_json(cmd, "bench_table")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--policies", default="bounded,help-first")
    ap.add_argument("--json", help="also write every report to this file")
    args = ap.parse_args()
    heist = f"{args.build}/cli/heist"
    peers = {"oneTBB": f"{args.build}/bench/peers/heist-peer-tbb", "OpenMP": f"{args.build}/bench/peers/heist-peer-omp"}
    workers = [int(w) for w in args.workers.split(",")]
    reports = []
    print("| benchmark | implementation | " + " | ".join(f"{w} worker{'s' if w > 1 else ''} (s)" for w in workers) + " |")
    print("|---|---|" + "---|" * len(workers))
    for app, opts, title in CASES:
        rep = ["--repeat", str(args.repeat), "--json"]
        seq = run([heist, "bench", app, *opts, "--seq", *rep])
        reports.append(seq)
        rows = [("sequential", [seq["time_s"]] + [None] * (len(workers) - 1))]
        for policy in args.policies.split(","):
            times = []
            for w in workers:
                r = run([heist, "bench", app, *opts, "--workers", str(w), "--policy", policy, *rep])
                reports.append(r)
                times.append(r["time_s"])
            rows.append((f"heist ({policy})", times))
        for name, exe in peers.items():
            times = []
            for w in workers:
                r = run([exe, app, *opts, "--workers", str(w), *rep])
                reports.append(r)
                times.append(r["time_s"])
            rows.append((name, times))
        for name, times in rows:
            cells = " | ".join("" if t is None else f"{t:.4f}" for t in times)
            print(f"| {title} | {name} | {cells} |")
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(reports, f, indent=1)


if __name__ == "__main__":
    main()
