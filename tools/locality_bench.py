#!/usr/bin/env python3
"""Locality-aware stealing, measured: every victim x chunk x protocol (plus
push balancing and sequential remote steals) on R ranks grouped into virtual
nodes, with an inter-node delay, on one app.

Rounds are interleaved (every variant once per round, --rounds rounds), so
load changes hit every variant alike; a variant's time is the median over the
rounds, and the ratio of two variants is the median of their per-round
ratios. Prints a Markdown table (steal counts per level from the median run)
and writes every report to --json.

  tools/locality_bench.py --build build --rounds 5 --json locality.json
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys


def variants(args):
    out = []
    for victim, chunk, protocol in itertools.product(args.victims.split(","), args.chunks.split(","),
                                                     args.protocols.split(",")):
        out.append({"victim": victim, "chunk": chunk, "protocol": protocol, "balance": "steal",
                    "remote_steal": "parallel", "hvs_attempts": "default"})
    for extra in args.extra:
        v = dict(zip(["victim", "chunk", "protocol", "balance", "remote_steal", "hvs_attempts"], extra.split(":")))
        v.setdefault("hvs_attempts", "default")
        out.append(v)
    return out


def name(v):
    label = f"{v['victim']} + {v['chunk']} ({v['protocol']})"
    if v["balance"] != "steal":
        label += f", {v['balance']}"
    if v["remote_steal"] != "parallel":
        label += f", {v['remote_steal']}"
    if v["hvs_attempts"] != "default":
        label += f", hvs-attempts {v['hvs_attempts']}"
    return label


def run(args, v):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(args.ranks),
           os.path.join(args.build, "cli", "heist"), "bench", args.app, *args.app_args.split(),
           "--workers", str(args.workers), "--ranks-per-node", str(args.ranks_per_node),
           "--inter-node-delay-us", str(args.delay_us), "--victim", v["victim"], "--chunk", v["chunk"],
           "--protocol", v["protocol"], "--balance", v["balance"], "--remote-steal", v["remote_steal"],
           "--hvs-attempts", v["hvs_attempts"], "--json"]
    out = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=args.timeout)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    if not report["verified"]:
        sys.exit(f"not verified: {' '.join(cmd)}")
    report["load_average"] = os.getloadavg()[0]
    return report


def level(s, name):
    lv = s["levels"][name]
    return f"{lv['successes']}/{lv['attempts']}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--app", default="uts")
    ap.add_argument("--app-args", default="--tree T3")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--ranks-per-node", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--delay-us", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--victims", default="random,hvs,success-only")
    ap.add_argument("--chunks", default="1,half,hcs")
    ap.add_argument("--protocols", default="sws,sdc")
    ap.add_argument("--extra", nargs="*", default=["hvs:hcs:sws:push:parallel", "random:hcs:sws:push:parallel",
                                                   "hvs:hcs:sws:steal:sequential",
                                                   "random:half:sws:steal:sequential",
                                                   "hvs:hcs:sws:steal:parallel:node=4,machine=2"],
                    help="more variants, victim:chunk:protocol:balance:remote_steal[:hvs_attempts]")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--json", help="write every report to this file")
    args = ap.parse_args()

    vs = variants(args)
    reports = {name(v): [] for v in vs}
    for r in range(args.rounds):
        for v in vs:
            rep = run(args, v)
            reports[name(v)].append(rep)
            print(f"round {r + 1}/{args.rounds} {name(v)}: {rep['time_s']:.3f} s (load {rep['load_average']:.1f})",
                  file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "reports": reports}, f)

    def median_time(label):
        return statistics.median(r["time_s"] for r in reports[label])

    print(f"{args.app} {args.app_args}, {args.ranks} ranks x {args.workers} worker(s) as "
          f"{args.ranks // args.ranks_per_node} virtual nodes x {args.ranks_per_node}, inter-node delay "
          f"{args.delay_us} us, median of {args.rounds} interleaved rounds\n")
    print("| victim + chunk (protocol) | time s (median) | min..max | node steals ok/tried | "
          "machine steals ok/tried | failed inter-node | tasks moved node / machine | RMA ops across nodes |")
    print("|---|---|---|---|---|---|---|---|")
    for label, reps in reports.items():
        times = sorted(r["time_s"] for r in reps)
        mid = sorted(reps, key=lambda r: r["time_s"])[(len(reps) - 1) // 2]
        s = mid["stats"]
        moved = f"{s['levels']['node']['tasks']} / {s['levels']['machine']['tasks']}"
        if s.get("tasks_pushed", 0):
            moved += f" (+{s['tasks_pushed']} pushed)"
        print(f"| {label} | {statistics.median(times):.3f} | {times[0]:.2f}..{times[-1]:.2f} | "
              f"{level(s, 'node')} | {level(s, 'machine')} | {s['failed_steals_inter_node']} | {moved} | "
              f"{s['rma']['inter_node']} |")

    def ratio(a, b):
        rs = [ra["time_s"] / rb["time_s"] for ra, rb in zip(reports[a], reports[b])]
        return statistics.median(rs)

    pairs = [("hvs + hcs (sws)", "random + half (sws)"), ("hvs + hcs (sdc)", "random + half (sdc)"),
             ("success-only + hcs (sws)", "random + hcs (sws)"), ("success-only + half (sws)", "random + half (sws)")]
    print("\n| ratio (median of per-round ratios) | value |\n|---|---|")
    for a, b in pairs:
        if a in reports and b in reports:
            print(f"| {a} / {b} | {ratio(a, b):.3f} |")
    loads = [r["load_average"] for reps in reports.values() for r in reps]
    print(f"\nload average (1 min) during the runs: {min(loads):.1f}..{max(loads):.1f}")


if __name__ == "__main__":
    main()
