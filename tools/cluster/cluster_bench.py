#!/usr/bin/env python3
"""Runs `heist bench` on a heist-cluster for a matrix of host counts, network
delays, apps and configurations (heist options), and prints a Markdown table:
median time, and the steal counters of the median run (from the JSON stats).

Every run's result must verify (`heist bench` checks it): otherwise this exits
with status 1 after the table. One cluster is brought up per (hosts, delay)
and torn down afterwards, also on error. Rounds interleave the configurations
so that a slow period of a shared machine hits them all alike.

Example (the benchmark of docs/results/cluster.md):
  tools/cluster/cluster_bench.py --hosts 2 --delays 0 20 100 --repeat 7 \\
      --app "uts --tree T1" --app "nqueens --n 13" \\
      --config "random+half=--victim random --chunk half" --config "hvs+hcs=--victim hvs --chunk hcs" \\
      --config "success-only=--victim success-only"
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "heist-cluster")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"), help="heist build directory")
    p.add_argument("--hosts", type=int, nargs="+", default=[2], help="host counts")
    p.add_argument("--ranks-per-host", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="workers per rank")
    p.add_argument("--delays", type=int, nargs="+", default=[20], help="one-way delays, microseconds")
    p.add_argument("--rate-mbit", type=int, default=0, help="rate limit per link (0: none)")
    p.add_argument("--net", default="auto", choices=["auto", "netem", "switch"])
    p.add_argument("--app", action="append", required=True, help='an app and its options, e.g. "uts --tree T1"')
    p.add_argument("--config", action="append", default=None,
                   help='NAME=heist options, e.g. "sdc=--protocol sdc" (default: one config, no options)')
    p.add_argument("--repeat", type=int, default=1, help="runs per launch (heist bench --repeat)")
    p.add_argument("--rounds", type=int, default=1, help="launches per configuration, interleaved")
    p.add_argument("--timeout", type=int, default=300, help="seconds per launch")
    p.add_argument("--raw", help="write every launch's JSON report here (one per line)")
    return p.parse_args()


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def launch(args, name, app, options):
    heist = os.path.join(args.build, "cli", "heist")
    cmd = [CLUSTER, "exec", "--name", name, "--ranks-per-host", str(args.ranks_per_host),
           "--timeout", str(args.timeout), "--", heist, "bench", *app.split(), "--workers", str(args.workers),
           "--repeat", str(args.repeat), "--json", *options.split()]
    proc = subprocess.run(cmd, text=True, capture_output=True, env={**os.environ, "HEIST_CLUSTER_QUIET": "1"})
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError(f"no JSON report from: {' '.join(cmd)} (exit {proc.returncode})")
    report = json.loads(lines[-1])
    report["exit_status"] = proc.returncode
    return report


def median_launch(reports):
    """The launch whose (median) time is the median of the launches'."""
    ordered = sorted(reports, key=lambda r: r["time_s"])
    return ordered[(len(ordered) - 1) // 2]


def main():
    args = parse_args()
    configs = []
    for text in args.config or ["default="]:
        name, _, options = text.partition("=")
        configs.append((name, options))
    build = os.path.abspath(args.build)
    netdelay = os.path.join(build, "tools", "cluster", "heist-netdelay")
    results = {}  # (app, hosts, delay, config) -> list of reports
    raw = open(args.raw, "w") if args.raw else None
    for hosts in args.hosts:
        for delay in args.delays:
            up = [CLUSTER, "up", "--hosts", str(hosts), "--delay-us", str(delay), "--rate-mbit", str(args.rate_mbit),
                  "--net", args.net, "--netdelay", netdelay]
            name = run(up, capture_output=True).stdout.strip()
            try:
                for _ in range(args.rounds):
                    for app in args.app:
                        for config, options in configs:
                            report = launch(args, name, app, options)
                            report["cluster"] = {"hosts": hosts, "delay_us": delay, "config": config,
                                                 "ranks_per_host": args.ranks_per_host}
                            if raw:
                                raw.write(json.dumps(report) + "\n")
                                raw.flush()
                            results.setdefault((app, hosts, delay, config), []).append(report)
                            print(f"# {app} | {hosts} hosts | {delay} us | {config}: {report['time_s']:.4f} s, "
                                  f"verified {report['verified']}", file=sys.stderr)
            finally:
                run([CLUSTER, "down", "--name", name])
    print_table(args, configs, results)
    bad = [k for k, reports in results.items() for r in reports if not r["verified"] or r["exit_status"] != 0]
    if bad:
        print(f"NOT VERIFIED (or failed): {bad}", file=sys.stderr)
        return 1
    return 0


def print_table(args, configs, results):
    print(f"{args.ranks_per_host} rank(s) per host x {args.workers} worker(s); time: median of "
          f"{args.rounds} launch(es) x {args.repeat} run(s); counters (all ranks): the median run of the "
          "median launch; inter-node: between hosts (stats.levels.machine)")
    print()
    print("| app | hosts | delay (us) | config | time (s) | remote steals | failed remote steals | "
          "inter-node steals | failed inter-node | tasks stolen across nodes | tasks executed per rank | verified |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for app in args.app:
        for hosts in args.hosts:
            for delay in args.delays:
                for config, _ in configs:
                    reports = results.get((app, hosts, delay, config), [])
                    if not reports:
                        continue
                    times = [t for r in reports for t in r["times_s"]]
                    mid = median_launch(reports)
                    s = mid.get("stats", {})
                    machine = s.get("levels", {}).get("machine", {})
                    per_rank = per_rank_executed(mid, hosts * args.ranks_per_host)
                    verified = all(r["verified"] and r["exit_status"] == 0 for r in reports)
                    print(f"| {app} | {hosts} | {delay} | {config} | {statistics.median(times):.4f} | "
                          f"{s.get('remote_steals', 0)} | {s.get('remote_failed_steals', 0)} | "
                          f"{machine.get('successes', '?')} | {s.get('failed_steals_inter_node', '?')} | "
                          f"{machine.get('tasks', '?')} | {per_rank} | {'yes' if verified else 'NO'} |")


def per_rank_executed(report, ranks):
    totals = [0] * ranks
    for w in report.get("stats", {}).get("workers", []):
        rank = w.get("rank", 0)
        if rank < ranks:
            totals[rank] += w.get("tasks_executed", 0)
    return " / ".join(str(t) for t in totals)


if __name__ == "__main__":
    sys.exit(main())
