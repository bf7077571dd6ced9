#!/usr/bin/env python3
"""Validates the simulator against real runs on this machine: for each app,
calibrate the task costs on one worker (`heist sim --calibrate`), measure the
real app on 1 worker, 2 workers and 2 ranks x 1 worker (`heist bench`,
`mpirun -n 2`), simulate the same three machines, and print a Markdown table
of measured vs simulated time (issue 6: within 20%).

  tools/sim_validate.py [--build build] [--repeat 7] [--latency self=0.1,socket=0.2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

APPS = [
    ("fib", ["--n", "35"]),
    ("nqueens", ["--n", "13"]),
    ("uts", ["--tree", "T1"]),
]


def last_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sim_validate: {' '.join(cmd)} failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--latency", default="self=0.1,socket=0.2",
                    help="--latency-us for this machine (stealbench: ~0.2 us per blocking operation)")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe")
    args = ap.parse_args()
    heist = os.path.join(args.build, "cli", "heist")
    rep = ["--repeat", str(args.repeat)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for app, opts in APPS:
            costs = os.path.join(tmp, f"{app}.json")
            print(f"== {app} {' '.join(opts)}: calibrating", file=sys.stderr)
            last_json([heist, "sim", app, *opts, "--calibrate", "--calibrate-repeat", str(args.repeat),
                       "--costs-out", costs, "--no-baseline", "--cores-per-socket", "1", "--sockets", "1",
                       "--nodes", "1", "--json"])
            print(f"== {app}: real runs", file=sys.stderr)
            real = {
                "1 worker": last_json([heist, "bench", app, *opts, "--workers", "1", *rep, "--json"]),
                "2 workers": last_json([heist, "bench", app, *opts, "--workers", "2", *rep, "--json"]),
                "2 ranks x 1": last_json([*args.mpirun.split(), "-n", "2", heist, "bench", app, *opts,
                                          "--workers", "1", *rep, "--json"]),
            }
            shapes = {
                "1 worker": ["--cores-per-socket", "1"],
                "2 workers": ["--cores-per-socket", "2"],
                "2 ranks x 1": ["--cores-per-socket", "2", "--ranks-per-node", "2"],
            }
            for shape, machine in shapes.items():
                sim = last_json([heist, "sim", app, *opts, "--costs", costs, "--sockets", "1", "--nodes", "1",
                                 *machine, "--latency-us", args.latency, "--no-baseline", "--json"])
                measured = real[shape]["time_s"]
                rows.append((f"{app} {' '.join(opts)}", shape, measured, sim["time_s"],
                             (sim["time_s"] - measured) / measured))
    print("| app | machine | measured (s) | simulated (s) | error |")
    print("|---|---|---|---|---|")
    for app, shape, measured, simulated, err in rows:
        print(f"| {app} | {shape} | {measured:.4f} | {simulated:.4f} | {err:+.1%} |")
    worst = max(abs(r[4]) for r in rows)
    print(f"\nlargest error: {worst:.1%}")
    return 0 if worst <= 0.20 else 1


if __name__ == "__main__":
    sys.exit(main())
