#!/usr/bin/env python3
"""Validates the simulator against real runs: for each app, calibrate the task
costs on one worker (`heist sim --calibrate`), measure the real app
sequentially, on W workers for each W of --workers and on R ranks x 1 worker
for each R of --ranks (`heist bench`, `mpirun -n R`), simulate the same
machines with the calibrated costs, and print a Markdown table of measured vs
simulated time, speedup and efficiency.

  tools/sim_validate.py [--build build] [--repeat 7] [--latency self=0.1,socket=0.2]

On a bigger machine lent for a short while, measure only (no simulation
there) and keep everything in a folder; simulate later, on any machine:

  tools/sim_validate.py --workers 1,2,4,8,16 --ranks 16 --compare-policy help-first \\
      --apps "uts --tree T1L" "fib --n 38" --measure-only --save DIR
  tools/sim_validate.py --from DIR [--markdown DIR/table.md]

A machine whose cores slow each other (shared caches and memory, a VM's
hidden hyperthreads, turbo) runs the same tasks slower on P cores than on
one; tools/core_throughput.sh measures that with independent copies, and
--throughput FILE (with --from: DIR/throughput.jsonl) hands it to the
simulator (`heist sim --loaded-slowdown`), point by point. Likewise
DIR/stealbench.json (`heist bench stealbench --protocol sws --json` on two
ranks there) sets the round trip between two cores (`--latency-us`).

The machine of a simulation is the measured machine's shape (`heist info`:
cores per socket), filled socket by socket as the runtime places workers.
Speedup and efficiency are against the sequential code (Tseq / (P T_P)) and
against heist on one worker (T1 / (P T_P)), for the measurement and for the
simulation alike. --compare-policy P also measures and simulates policy P
on the largest worker count (its one-worker time is the calibration's).
Exit status 1 when a simulated time is off by more than --tolerance.
"""
import argparse
import json
import math
import os
import re
import shlex
import sys
import tempfile

import heistbench

APPS = ["fib --n 35", "nqueens --n 13", "uts --tree T1"]
# The project's 2-core VM: `heist bench stealbench` took ~0.37 us for an SWS
# steal's 2 blocking operations; a process's own window ~0.1 us.
DEFAULT_LATENCY = "self=0.1,socket=0.2"


def run_json(cmd, log=None):
    """The JSON report of `cmd`; a bench run must also verify its result."""
    return heistbench.run_json(cmd, "sim_validate", verified="bench" in cmd, log=log, echo=True, tail=3000)


def int_list(text):
    return [int(x) for x in text.split(",") if x]


def slug(app):
    return re.sub(r"[^A-Za-z0-9]+", "-", app).strip("-")


def cores_per_socket(info):
    """Cores of one socket of the measured machine, from `heist info --json`."""
    topo = info.get("topology", {})
    m = re.search(r"(\d+) PUs.* (\d+) sockets", topo.get("detail", ""))
    pus, sockets = (int(m.group(1)), int(m.group(2))) if m else (info.get("usable_cpus", 1), 1)
    return max(1, pus // max(1, sockets))


def measure(args, heist, save):
    """Calibrations and real runs, written to save/validation.json as they come."""
    os.makedirs(save, exist_ok=True)
    log = open(os.path.join(save, "commands.log"), "a")
    info = run_json([heist, "info", "--json"], log)
    data = {"info": {k: info.get(k) for k in ("version", "build_type", "compiler", "hardware_threads",
                                              "usable_cpus", "topology")},
            "cores_per_socket": args.cores_per_socket or cores_per_socket(info),
            "repeat": args.repeat, "latency": args.latency or DEFAULT_LATENCY, "apps": []}
    for cpu in ("/proc/cpuinfo",):
        if os.path.exists(cpu):
            names = {line.split(":", 1)[1].strip() for line in open(cpu) if line.startswith("model name")}
            data["info"]["cpu"] = sorted(names)

    def dump():
        with open(os.path.join(save, "validation.json"), "w") as f:
            json.dump(data, f, indent=1)

    rep = ["--repeat", str(args.repeat), "--no-spawn-probe", "--json"]
    for app_text in args.apps:
        app, *opts = shlex.split(app_text)
        entry = {"app": app_text, "costs": f"{slug(app_text)}.costs.json", "real": {}}
        data["apps"].append(entry)
        costs = os.path.join(save, entry["costs"])
        print(f"== {app_text}: calibrating", file=sys.stderr, flush=True)
        run_json([heist, "sim", app, *opts, "--calibrate", "--calibrate-repeat", str(args.calibrate_repeat),
                  "--calibrate-only", "--costs-out", costs, "--json"], log)
        entry["seq"] = run_json([heist, "bench", app, *opts, "--seq", "--repeat", str(args.repeat), "--json"], log)
        dump()
        for w in args.workers:
            entry["real"][f"{w}w"] = run_json([heist, "bench", app, *opts, "--workers", str(w), *rep], log)
            dump()
        for r in args.ranks:
            entry["real"][f"{r}r"] = run_json([*args.mpirun.split(), "-n", str(r), heist, "bench", app, *opts,
                                               "--workers", "1", *rep], log)
            dump()
        if args.compare_policy:
            w = max(args.workers)
            entry["real"][f"{w}w:{args.compare_policy}"] = run_json(
                [heist, "bench", app, *opts, "--workers", str(w), "--policy", args.compare_policy, *rep], log)
            dump()
    return data


def machine_flags(label, cps):
    """heist sim flags for a measured shape: '8w' (one process) or '16r' (ranks x 1)."""
    n = int(re.match(r"\d+", label).group(0))
    flags = ["--nodes", "1", "--sockets", str(math.ceil(n / cps)), "--cores-per-socket", str(min(n, cps))]
    if label.split(":")[0].endswith("r"):
        flags += ["--ranks-per-node", str(n)]
    if ":" in label:
        flags += ["--policy", label.split(":", 1)[1]]
    return flags


def describe(label):
    n = int(re.match(r"\d+", label).group(0))
    shape = f"{n} worker{'s' if n > 1 else ''}" if label.split(":")[0].endswith("w") else f"{n} ranks x 1"
    return shape + (f", {label.split(':', 1)[1]}" if ":" in label else "")


def stealbench_latency(path):
    """--latency-us from `heist bench stealbench --protocol sws --json` on the measured machine:
    the median steal over its blocking operations is one round trip between two cores."""
    extra = json.load(open(path))["extra"]
    return f"self=0.1,socket={extra['median_s'] / extra['blocking_per_steal'] * 1e6:.3f}"


def read_throughput(path):
    """tools/core_throughput.sh's JSON lines: {app: {copies: median seconds of one copy}}."""
    medians = {}
    for line in open(path):
        if line.strip():
            row = json.loads(line)
            medians.setdefault(row["app"], {})[int(row["copies"])] = float(row["median_s"])
    return medians


def loaded_slowdown(throughput, app_text, n):
    """The machine's own slowdown with n cores busy (one copy's median time with n copies over
    its time alone), linear between the measured copy counts: from the copies of this app
    (same options first, then the same app), else from the first app measured."""
    if not throughput or n <= 1:
        return 1.0
    name = app_text.split()[0]
    runs = next((t for a, t in throughput.items() if a.startswith(app_text)), None) or \
        next((t for a, t in throughput.items() if a.split()[0] == name), None) or next(iter(throughput.values()))
    if 1 not in runs:
        return 1.0
    counts = sorted(runs)
    ratio = {c: runs[c] / runs[1] for c in counts}
    if n >= counts[-1]:
        return max(1.0, ratio[counts[-1]])
    hi = next(c for c in counts if c >= n)
    lo = max(c for c in counts if c <= n)
    s = ratio[lo] if hi == lo else ratio[lo] + (ratio[hi] - ratio[lo]) * (n - lo) / (hi - lo)
    return max(1.0, s)


def simulate(data, heist, folder, latency, throughput=None, log=None):
    """Adds entry['sim'][label] (the simulated report) for every measured label; with
    `throughput` (read_throughput), each machine slows its tasks as the real one did."""
    cps = data["cores_per_socket"]
    for entry in data["apps"]:
        app, *opts = shlex.split(entry["app"])
        costs = os.path.join(folder, entry["costs"])
        entry["calibration"] = json.load(open(costs))
        entry["sim"] = {}
        for label in entry["real"]:
            n = int(re.match(r"\d+", label).group(0))
            slowdown = loaded_slowdown(throughput, entry["app"], n)
            print(f"== {entry['app']}: simulating {describe(label)}", file=sys.stderr, flush=True)
            entry["sim"][label] = run_json([heist, "sim", app, *opts, "--costs", costs, *machine_flags(label, cps),
                                            "--latency-us", latency, "--loaded-slowdown", f"{slowdown:.4f}",
                                            "--no-baseline", "--json"], log)


def work_split(real, one):
    """The workers' own split of a measured run (`stats` of heist bench): their summed time in
    tasks over the one-worker run's (how much slower the same tasks ran: the machine under load,
    which the simulator models only when given --throughput) and the share of their active time spent in tasks (the
    rest is searching and stealing: the scheduler's loss)."""
    stats, base = real.get("stats", {}), (one or {}).get("stats", {})
    work, active = stats.get("time_work_s"), stats.get("time_active_s")
    inflation = f"{work / base['time_work_s']:.2f}" if work and base.get("time_work_s") else "—"
    in_tasks = f"{work / active:.2%}" if work and active else "—"
    return inflation, in_tasks


def table(data):
    """Markdown rows and the largest relative error of simulated time."""
    lines = ["| app | machine | measured (s) | simulated (s) | error | speedup vs seq (measured / sim) "
             "| efficiency vs seq (measured / sim) | efficiency vs 1 worker (measured / sim) "
             "| work × 1 worker's | in tasks | machine's slowdown |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    worst = 0.0
    for entry in data["apps"]:
        tseq = entry["seq"]["time_s"]
        cal = entry["calibration"]["measured"]
        one = entry["sim"].get("1w", {}).get("time_s")
        for label, real in entry["real"].items():
            n = int(re.match(r"\d+", label).group(0))
            measured, simulated = real["time_s"], entry["sim"][label]["time_s"]
            err = (simulated - measured) / measured
            worst = max(worst, abs(err))
            policy = label.split(":", 1)[1] if ":" in label else None
            if policy == "help-first":  # one worker of this policy: the calibration's own run
                t1_real, t1_sim = cal["help_first"]["time_s"], None
            else:
                t1_real, t1_sim = entry["real"].get("1w", {}).get("time_s"), one
            eff1 = (f"{t1_real / (n * measured):.2f}" if t1_real else "—") + " / " + \
                   (f"{t1_sim / (n * simulated):.2f}" if t1_sim else "—")
            inflation, in_tasks = work_split(real, entry["real"].get("1w"))
            lines.append(f"| {entry['app']} | {describe(label)} | {measured:.4f} | {simulated:.4f} | {err:+.1%} "
                         f"| {tseq / measured:.2f} / {tseq / simulated:.2f} "
                         f"| {tseq / (n * measured):.2f} / {tseq / (n * simulated):.2f} | {eff1} "
                         f"| {inflation} | {in_tasks} "
                         f"| {entry['sim'][label].get('machine', {}).get('loaded_slowdown', 1.0):.2f} |")
    return lines, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--calibrate-repeat", type=int, default=0, help="runs per calibration (default: --repeat)")
    ap.add_argument("--apps", nargs="+", default=APPS, help='app and its options, e.g. "uts --tree T1L"')
    ap.add_argument("--workers", type=int_list, default=[1, 2], help="worker counts of one process, e.g. 1,2,4,8")
    ap.add_argument("--ranks", type=int_list, default=[2], help="rank counts of 1 worker each under mpirun")
    ap.add_argument("--compare-policy", default="", help="also this --policy on the largest worker count")
    ap.add_argument("--cores-per-socket", type=int, default=0, help="the machine's (default: heist info's)")
    ap.add_argument("--latency", default="",
                    help="--latency-us for this machine (default: with --from, from DIR/stealbench.json if it "
                         f"exists, else what was measured with; measuring: {DEFAULT_LATENCY})")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe --bind-to none")
    ap.add_argument("--save", default="", help="keep calibrations and measurements in this folder")
    ap.add_argument("--measure-only", action="store_true", help="measure and --save, simulate nothing")
    ap.add_argument("--from", dest="source", default="", help="simulate what an earlier --save measured")
    ap.add_argument("--throughput", default="",
                    help="tools/core_throughput.sh's output on the measured machine: simulate its per-core slowdown "
                         "under load (default with --from: DIR/throughput.jsonl if it exists; none: do not)")
    ap.add_argument("--markdown", default="", help="also write the table to this file")
    ap.add_argument("--tolerance", type=float, default=0.20, help="largest acceptable relative error")
    args = ap.parse_args()
    args.calibrate_repeat = args.calibrate_repeat or args.repeat
    heist = os.path.join(args.build, "cli", "heist")
    if args.measure_only and not args.save:
        sys.exit("sim_validate: --measure-only needs --save DIR")
    if 1 not in args.workers:
        sys.exit("sim_validate: --workers must include 1 (the efficiency baseline)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.source or args.save or tmp
        if args.source:
            data = json.load(open(os.path.join(folder, "validation.json")))
        else:
            data = measure(args, heist, folder)
        if args.measure_only:
            print(f"measured: {os.path.join(folder, 'validation.json')}")
            return 0
        bench = os.path.join(folder, "stealbench.json")
        latency = args.latency or (stealbench_latency(bench) if args.source and os.path.exists(bench)
                                   else data.get("latency", DEFAULT_LATENCY))
        print(f"latency: {latency}", file=sys.stderr, flush=True)
        path = args.throughput or os.path.join(folder, "throughput.jsonl")
        if args.throughput not in ("", "none") and not os.path.exists(path):
            sys.exit(f"sim_validate: no {path}")
        throughput = read_throughput(path) if path != "none" and os.path.exists(path) else None
        simulate(data, heist, folder, latency, throughput)
    lines, worst = table(data)
    lines.append(f"\nlargest error: {worst:.1%}")
    lines.append(f"latency: {latency}")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
