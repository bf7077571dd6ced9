#!/usr/bin/env python3
"""Reproduces the seeds' load-balancing findings with the simulator
(`heist sim`) and writes CSV files next to Markdown tables that put the
simulated numbers beside the papers' (docs/results/sim-*.md; plots with
tools/sim_plot.py).

  tools/sim_seeds.py seed000 [--build build] [--out docs/results/sim]   Figures 10-13 (HotSLAW, 256 cores)
  tools/sim_seeds.py seed001 ...                                         SDC vs SWS steal and search time
  tools/sim_seeds.py seed003 ...                                         SuccessOnly vs baseline, inter-node failures

Every run prints its command; the CSV has one row per simulation.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

# ---------------------------------------------------------------- HotSLAW

# Table 1 of HotSLAW (8-core Nehalem): the workloads' tasks, their average
# time and the task-creation overhead. The problem sizes reproduce its task
# counts exactly: fib(30) = 2,692,537 tasks, nqueens(14) with the rows from 6
# counted sequentially = 306,719 tasks, UTS T1L = 102,181,082 nodes.
SEED000_APPS = [
    # name, app args, average task time (us), creation overhead (us)
    ("FIB", ["fib", "--n", "30"], 1.163, 0.172),
    ("NQueens", ["nqueens", "--n", "14", "--cutoff", "6"], 23.270, 0.174),
    ("UTS(T1L)", ["uts", "--tree", "T1L"], 0.089, 0.162),
    ("UTS(T2L)", ["uts", "--tree", "T2L"], 0.114, 0.161),
    ("UTS(T3L)", ["uts", "--tree", "T3L"], 0.075, 0.159),
]
NQUEENS14_TASKS = 306_719
NQUEENS14_SEQUENTIAL_NODES = 27_293_318  # count_sequential calls of all row-6 tasks of nqueens(14)

# HotSLAW on Carver (HotSLAW §4-5): nodes of 2 sockets x 4 cores, 32 nodes;
# UPC threads with a lock-based steal; bounded queues of 40, no tree-depth
# cutoff; threads do not back off. heist runs it as one process per node of 8
# threads (so HVS sees socket, node and machine levels, as HotSLAW's default
# hierarchy) and SDC between nodes. The latencies make one in-process steal
# (one round trip) cost HotSLAW's measured empty steal, 2 us inside a
# socket and 3.8 us across sockets, and one SDC steal between nodes (5
# blocking round trips) its 36 us.
HOTSLAW_SPAWN = ["--policy", "bounded", "--queue-bound", "40", "--queue-demand", "off"]
CARVER = ["--cores-per-socket", "4", "--sockets", "2", "--nodes", "32", "--ranks-per-node", "1",
          "--latency-us", "socket=2.0,node=3.8,network=7.2", "--protocol", "sdc", "--backoff", "none",
          *HOTSLAW_SPAWN]

# The papers' numbers (HotSLAW §5.2-5.3), per app in SEED000_APPS order.
PAPER_HVS_SPEEDUP = [179.5, 247.8, 200.1, 222.5, 98.8]          # Figure 10 text, HVS, 256 cores
PAPER_HCS_SPEEDUP = [172.2, 240.1, 194.2, 202.9, 68.3]          # Figure 13 text
PAPER_RANDOM_HALF_SPEEDUP = [82.7, 222.5, 121.0, 159.2, 64.9]   # Figure 13 text
CHUNKS = [1, 2, 4, 8, 16]


def costs_for(name, avg_us, overhead_us):
    """--task-ns (and --sequential-ns) for a Table 1 workload: a task inlined
    by the bounded queue costs its average time, a queued one the creation
    overhead on top; NQueens's tasks below its cutoff spend the rest of the
    average in the sequential kernel."""
    inline_ns = avg_us * 1000
    queued_ns = (avg_us + overhead_us) * 1000
    if name == "NQueens":
        per_task = overhead_us * 1000
        seq_ns = (NQUEENS14_TASKS * avg_us * 1000 - NQUEENS14_TASKS * per_task) / NQUEENS14_SEQUENTIAL_NODES
        return ["--task-ns", f"{per_task:.3f},{per_task + overhead_us * 1000:.3f}", "--sequential-ns", f"{seq_ns:.4f}"]
    return ["--task-ns", f"{inline_ns:.3f},{queued_ns:.3f}"]


# ---------------------------------------------------------------- running

class Runner:
    def __init__(self, build, extra=()):
        self.heist = os.path.join(build, "cli", "heist")
        self.extra = list(extra)  # appended to every simulation (e.g. --queue-demand off)
        self.count = 0
        self.start = time.time()

    def sim(self, args):
        cmd = [self.heist, "sim", *args, *self.extra, "--no-baseline", "--json"]
        self.count += 1
        print(f"[{self.count} | {time.time() - self.start:6.0f} s] {' '.join(cmd)}", file=sys.stderr, flush=True)
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"sim_seeds: failed ({out.returncode}): {out.stderr}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def one_worker(runner, app_args, cost_args, spawn_args=()):
    """The same workload and spawn policy on one worker: the speedups' base."""
    return runner.sim([*app_args, *cost_args, *spawn_args, "--cores-per-socket", "1", "--sockets", "1",
                       "--nodes", "1"])["time_s"]


def level(report, name, key):
    return report["steals"][name][key]


def row(label, app, report, t1):
    return {
        "series": label, "app": app, "workers": report["workers"], "time_s": report["time_s"],
        "speedup": t1 / report["time_s"], "tasks": report["result"],
        "steals": report["steal_totals"]["steals"], "failed": report["steal_totals"]["failed"],
        "internode_attempts": level(report, "machine", "attempts"),
        "internode_failed": level(report, "machine", "failed"),
        "steal_s": report["time_breakdown_s"]["steal"], "search_s": report["time_breakdown_s"]["search"],
        "messages": report["messages"]["blocking"], "wall_s": report["simulator"]["wall_s"],
    }


def write_csv(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path}", file=sys.stderr)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def seed000(runner, out):
    rows = []
    for (name, app, avg, ovh) in SEED000_APPS:
        cost = costs_for(name, avg, ovh)
        t1 = one_worker(runner, app, cost, HOTSLAW_SPAWN)
        for k in CHUNKS:  # Figure 11: HVS, one fixed chunk at every level
            rows.append(row(f"fixed:{k}", name, runner.sim([*app, *cost, *CARVER, "--victim", "hvs",
                                                            "--chunk", str(k)]), t1))
        for k in CHUNKS:  # Figure 12: HCS, k inside a node, half across nodes
            rows.append(row(f"hcs:{k}", name, runner.sim([*app, *cost, *CARVER, "--victim", "hvs",
                                                          "--chunk", f"hcs:{k}"]), t1))
        # Figure 13: StealHalf with HVS, and Random + StealHalf (Dinan et al.)
        rows.append(row("hvs+half", name, runner.sim([*app, *cost, *CARVER, "--victim", "hvs", "--chunk", "half"]), t1))
        rows.append(row("random+half", name, runner.sim([*app, *cost, *CARVER, "--victim", "random", "--chunk", "half"]),
                        t1))
        # Figure 10 at HVS's best fixed chunk: Random, and Intra-Node (work
        # never leaves the root's node: the other 31 nodes stay idle, so it
        # is one node's run).
        best = max((r for r in rows if r["app"] == name and r["series"].startswith("fixed:")),
                   key=lambda r: r["speedup"])
        k = best["series"].split(":")[1]
        rows.append(row(f"random:{k}", name, runner.sim([*app, *cost, *CARVER, "--victim", "random", "--chunk", k]), t1))
        intra = runner.sim([*app, *cost, *CARVER[:4], "--nodes", "1", *CARVER[6:], "--victim", "hvs", "--chunk", k])
        rows.append(row(f"intra-node:{k}", name, intra, t1))
    write_csv(os.path.join(out, "seed000.csv"), rows)


# ---------------------------------------------------------------- SWS

# Lotus (SWS §5): 44 nodes of 2 x 24 cores, one OpenSHMEM process per
# core, steal-half queues. UTS with T1L standing in for T1WL (2.7e11 nodes),
# BPC as configured there but with a depth of 200 (a producer makes 8192
# consumers of 5 ms, producers take 1 ms). Latencies: HotSLAW's defaults.
# Scioto puts every task it creates into its queue: no lazy task creation,
# so `--queue-demand off` (the default's queue-on-demand is not Scioto's, and
# its failed steals make a 2,112-process UTS run take over 6 CPU minutes
# (stopped) instead of 24 s: docs/results/sim-performance.md).
SCIOTO_SPAWN = ["--queue-demand", "off"]
LOTUS = ["--cores-per-socket", "24", "--sockets", "2", "--ranks-per-node", "48", "--backoff", "none",
         "--victim", "random", "--chunk", "half", *SCIOTO_SPAWN]
SEED001_NODES = [1, 2, 4, 8, 16, 32, 44]
NODES = {}  # --nodes: overrides the lists above


def seed001(runner, out):
    rows = []
    apps = [("UTS(T1L)", ["uts", "--tree", "T1L"], ["--task-ns", "110,150"]),
            ("BPC", ["bpc", "--depth", "200", "--consumers", "8192", "--consumer-us", "5000", "--producer-us", "1000"],
             ["--task-ns", "200,300"])]
    for name, app, cost in apps:
        t1 = one_worker(runner, app, cost, SCIOTO_SPAWN)
        for nodes in NODES.get("seed001", SEED001_NODES):
            for protocol in ("sdc", "sws"):
                r = runner.sim([*app, *cost, *LOTUS, "--nodes", str(nodes), "--protocol", protocol])
                x = row(protocol, name, r, t1)
                x["nodes"] = nodes
                steals = max(1, r["steal_totals"]["steals"])
                x["steal_us_per_steal"] = r["time_breakdown_s"]["steal"] / steals * 1e6
                rows.append(x)
    write_csv(os.path.join(out, "seed001.csv"), rows)


# ---------------------------------------------------------------- HabaneroUPC++

# Edison (HabaneroUPC++): nodes of 2 x 12 cores, one process per node with a
# thread pool; BaselineWS (random victims, HVS inside the node) vs
# SuccessOnlyWS. UTS T1L and T3L stand in for T1WL/T3WL; NQueens(15), cutoff 6.
EDISON = ["--cores-per-socket", "12", "--sockets", "2", "--ranks-per-node", "1", "--backoff", "none",
          "--protocol", "sws", "--chunk", "hcs:1"]
SEED003_NODES = [4, 16, 64, 256]


def seed003(runner, out):
    rows = []
    apps = [("UTS(T1L)", ["uts", "--tree", "T1L"], ["--task-ns", "110,150"]),
            ("UTS(T3L)", ["uts", "--tree", "T3L"], ["--task-ns", "110,150"]),
            ("NQueens", ["nqueens", "--n", "15", "--cutoff", "6"], ["--task-ns", "200,300", "--sequential-ns", "8"])]
    for name, app, cost in apps:
        t1 = one_worker(runner, app, cost)
        for nodes in NODES.get("seed003", SEED003_NODES):
            for victim in ("hvs", "success-only"):
                r = runner.sim([*app, *cost, *EDISON, "--nodes", str(nodes), "--victim", victim])
                x = row(victim, name, r, t1)
                x["nodes"] = nodes
                so = r.get("success_only", {})
                x["requests"] = so.get("requests", 0)
                x["declines"] = so.get("declines", 0)
                rows.append(x)
    write_csv(os.path.join(out, "seed003.csv"), rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("experiment", choices=["seed000", "seed001", "seed003"])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="docs/results/sim")
    ap.add_argument("--nodes", help="node counts for seed001/seed003, e.g. 4,16,64 (default: the papers')")
    ap.add_argument("--sim-args", default="", help="options added to every simulation, e.g. '--queue-demand off'")
    args = ap.parse_args()
    runner = Runner(args.build, args.sim_args.split())
    if args.nodes:
        NODES[args.experiment] = [int(n) for n in args.nodes.split(",")]
    {"seed000": seed000, "seed001": seed001, "seed003": seed003}[args.experiment](runner, args.out)


if __name__ == "__main__":
    main()
