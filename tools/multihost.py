#!/usr/bin/env python3
"""Real multi-host runs against the simulator: 2 hosts x 1 rank x 1 worker
on a heist-cluster (network namespaces over TCP, one-way delay D injected on
every link), and `heist sim` of the same machine at the same delay.

  tools/multihost.py --build build-ci/release [--delays 10,50,200] [--repeat 3]
                     [--csv docs/results/sim/multihost.csv]

Nothing is fitted to the apps' times. The simulator gets:
  * the task costs of each app, calibrated on one worker of this machine
    (`heist sim --calibrate-only`);
  * the network: one blocking round trip between the two hosts, measured at
    each delay by `heist bench stealbench --protocol sws` on the cluster (its
    median steal over its blocking operations), as `--latency-us network=`;
  * the machine's shape: 2 nodes of one core, one rank each.
The real runs use heist-cluster's defaults (osc pt2pt over TCP, a progress
thread per rank, MPI_THREAD_SERIALIZED).

Writes the CSV (columns app,delay_us,real_s,sim_s) and prints a Markdown table
with the round trip and the relative error of each row. Needs root (network
namespaces); exit 77 when heist-cluster cannot run here.
"""
import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

import heistbench

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "cluster", "heist-cluster")
APPS = ["fib --n 35", "nqueens --n 13", "uts --tree T1L", "uts --tree T3L"]
TOOL = "multihost"


def run_json(cmd, verified=True):
    return heistbench.run_json(cmd, TOOL, verified=verified, echo=True, tail=3000)


def int_list(text):
    return [int(x) for x in text.split(",") if x]


def cluster_up(build, delay):
    netdelay = os.path.join(os.path.abspath(build), "tools", "cluster", "heist-netdelay")
    out = subprocess.run([CLUSTER, "up", "--hosts", "2", "--delay-us", str(delay), "--netdelay", netdelay],
                         capture_output=True, text=True)
    if out.returncode == 77:
        sys.exit(77)
    if out.returncode != 0:
        sys.exit(f"{TOOL}: heist-cluster up failed: {out.stderr[-2000:]}")
    return out.stdout.strip()


def on_cluster(name, cmd):
    return [CLUSTER, "exec", "--name", name, "--ranks-per-host", "1", "--timeout", "600", "--", *cmd]


def round_trip_us(report):
    """One blocking RMA round trip between the hosts, from a stealbench report."""
    extra = report["extra"]
    return extra["median_s"] / extra["blocking_per_steal"] * 1e6


def work_inflation(real, sim):
    """The ranks' summed time in tasks, real over simulated: how much slower
    the same tasks ran on the loaded machine (the switch, the progress
    threads and TCP share its cores) than the calibration's one worker."""
    work = real.get("stats", {}).get("time_work_s")
    model = sim.get("time_breakdown_s", {}).get("work")
    return work / model if work and model else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--apps", nargs="+", default=APPS, help='app and its options, e.g. "uts --tree T1L"')
    ap.add_argument("--delays", type=int_list, default=[10, 50, 200], help="one-way delays, microseconds")
    ap.add_argument("--repeat", type=int, default=3, help="runs per real measurement (median)")
    ap.add_argument("--steals", type=int, default=2000, help="stealbench's timed steals per delay")
    ap.add_argument("--csv", default="", help="write app,delay_us,real_s,sim_s here")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print(f"{TOOL}: needs root (network namespaces)", file=sys.stderr)
        return 77
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    heist = os.path.abspath(os.path.join(args.build, "cli", "heist"))
    rep = ["--workers", "1", "--repeat", str(args.repeat), "--no-spawn-probe", "--json"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        costs = {}
        for app_text in args.apps:
            app, *opts = shlex.split(app_text)
            costs[app_text] = os.path.join(tmp, f"{len(costs)}.costs.json")
            run_json([heist, "sim", app, *opts, "--calibrate", "--calibrate-repeat", str(args.repeat),
                      "--calibrate-only", "--costs-out", costs[app_text], "--json"], verified=False)
        for delay in args.delays:
            name = cluster_up(args.build, delay)
            try:
                steal = run_json(on_cluster(name, [heist, "bench", "stealbench", "--protocol", "sws", "--steals", str(args.steals),
                                                   "--warmup", str(max(1, args.steals // 20)), "--json"]),
                                 verified=False)
                rtt = round_trip_us(steal)
                real = {a: run_json(on_cluster(name, [heist, "bench", *shlex.split(a), *rep])) for a in args.apps}
            finally:
                subprocess.run([CLUSTER, "down", "--name", name], check=False, capture_output=True)
            for app_text in args.apps:
                app, *opts = shlex.split(app_text)
                sim = run_json([heist, "sim", app, *opts, "--costs", costs[app_text], "--nodes", "2", "--sockets",
                                "1", "--cores-per-socket", "1", "--latency-us", f"network={rtt:.2f},self=0.1",
                                "--no-baseline", "--json"], verified=False)
                rows.append({"app": app_text, "delay_us": delay, "real_s": real[app_text]["time_s"],
                             "sim_s": sim["time_s"], "rtt_us": rtt,
                             "inflation": work_inflation(real[app_text], sim)})
    print("| app | one-way delay (us) | round trip (us) | real (s) | simulated (s) | error | work, real / sim |")
    print("|---|---|---|---|---|---|---|")
    errors = []
    for r in rows:
        err = (r["sim_s"] - r["real_s"]) / r["real_s"]
        errors.append(abs(err))
        print(f"| {r['app']} | {r['delay_us']} | {r['rtt_us']:.1f} | {r['real_s']:.4f} | {r['sim_s']:.4f} "
              f"| {err:+.1%} | {r['inflation']:.2f} |")
    print(f"\nmedian |error| {statistics.median(errors):.1%}, largest {max(errors):.1%}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, ["app", "delay_us", "real_s", "sim_s"], extrasaction="ignore",
                                    lineterminator="\n")
            writer.writeheader()
            for r in rows:
                writer.writerow({**r, "real_s": f"{r['real_s']:.6g}", "sim_s": f"{r['sim_s']:.6g}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
