#!/usr/bin/python3
"""Run a grid of heist benchmarks (apps x implementations x workers x ranks x
policies x protocols) described by a small TOML file, with a progress bar,
and write one CSV row per run.

  tools/sweep.py CONFIG.toml [-o out.csv] [--build build] [--resume] [--dry-run]

A config holds [sweep] settings and one or more [[grid]] tables; each grid is
the cartesian product of its lists (see docs/benchmarks.md and the files in
docs/results/):

  [sweep]
  repeat = 5                 # runs per configuration; the CSV keeps the median and all times
  timeout = 300              # seconds per command
  output = "docs/results/speedup.csv"

  [[grid]]
  apps = ["uts --tree T1", "nqueens --n 13"]   # app name and its own options
  impls = ["seq", "heist", "tbb", "omp"]       # heist, seq (heist --seq), tbb, omp (bench/peers)
  workers = [1, 2]
  ranks = [1, 2]            # > 1: mpirun -n R (heist only)
  policies = ["bounded"]    # heist --policy
  protocols = ["sws"]       # heist --protocol (only with ranks > 1)
  variants = [""]           # extra heist flags, e.g. "--queue-bound 8 --queue-demand off"
  label = "speedup"         # free text, copied to every row

Runs that do not apply are skipped (seq and the peers run once per worker
count on one rank, protocols only matter with several ranks; seq runs once).
Every row records the exact command, the median time, all times, the
result, `verified`, the table1 columns and a per-rank time breakdown
(work/search/steal/comm, summed over the rank's workers) as JSON.
"""
import argparse
import csv
import itertools
import json
import os
import shlex
import subprocess
import sys
import tomllib

import pandas as pd
from tqdm import tqdm

FIELDS = ["label", "app", "app_args", "impl", "workers", "ranks", "policy", "protocol", "variant", "repeat",
          "time_s", "times_s", "result", "verified", "tasks_created", "tasks_executed", "tasks_inlined", "steals",
          "remote_steals", "avg_task_time_us", "task_creation_overhead_us", "inline_overhead_us",
          "tasks_serialized_share", "task_io",
          "per_rank", "error", "command"]
KEY = ["label", "app", "app_args", "impl", "workers", "ranks", "policy", "protocol", "variant", "repeat"]


def expand(grid):
    """The runs of one grid: dicts of the KEY fields (repeat added later)."""
    lists = {k: grid.get(k, d) for k, d in [("apps", []), ("impls", ["heist"]), ("workers", [1]), ("ranks", [1]),
                                             ("policies", ["bounded"]), ("protocols", ["sws"]), ("variants", [""])]}
    seen = set()
    for app, impl, w, r, pol, proto, var in itertools.product(*lists.values()):
        name, _, args = app.partition(" ")
        if impl == "heist":
            run = (name, args, impl, w, r, pol, proto if r > 1 else "", var)
        elif impl == "seq":
            run = (name, args, impl, 1, 1, "", "", "")
        else:  # peers: threads of one process
            run = (name, args, impl, w, 1, "", "", "")
        if run in seen:
            continue
        seen.add(run)
        yield dict(zip(["app", "app_args", "impl", "workers", "ranks", "policy", "protocol", "variant"], run),
                   label=grid.get("label", ""))


def command(run, build, repeat, mpirun):
    args = shlex.split(run["app_args"])
    if run["impl"] in ("heist", "seq"):
        cmd = [os.path.join(build, "cli", "heist"), "bench", run["app"], *args, "--repeat", str(repeat), "--json"]
        if run["impl"] == "seq":
            return cmd + ["--seq"]
        cmd += ["--workers", str(run["workers"]), "--policy", run["policy"], *shlex.split(run["variant"])]
        if run["ranks"] > 1:
            cmd = [*shlex.split(mpirun), "-n", str(run["ranks"]), *cmd, "--protocol", run["protocol"]]
        return cmd
    peer = os.path.join(build, "bench", "peers", f"heist-peer-{run['impl']}")
    return [peer, run["app"], *args, "--workers", str(run["workers"]), "--repeat", str(repeat), "--json"]


def per_rank(stats):
    ranks = {}
    for w in stats.get("workers", []):
        r = ranks.setdefault(w.get("rank", 0), {"rank": w.get("rank", 0), "workers": 0, "work_s": 0.0,
                                                "search_s": 0.0, "steal_s": 0.0, "comm_s": 0.0, "active_s": 0.0})
        r["workers"] += 1
        r["work_s"] += w.get("time_work_s", 0.0)
        r["search_s"] += w.get("time_search_s", 0.0)
        r["steal_s"] += w.get("time_steal_s", 0.0)
        r["comm_s"] += w.get("time_comm_s", 0.0)
        r["active_s"] += w.get("time_active_s", 0.0)
    return [ranks[k] for k in sorted(ranks)]


def run_one(run, build, repeat, mpirun, timeout):
    cmd = command(run, build, repeat, mpirun)
    row = dict(run, repeat=repeat, command=shlex.join(cmd), error="")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(row, verified=False, error=f"timeout after {timeout} s")
    lines = out.stdout.strip().splitlines()
    if not lines:
        return dict(row, verified=False, error=f"exit {out.returncode}: {out.stderr.strip()[-300:]}")
    try:
        report = json.loads(lines[-1])
    except json.JSONDecodeError:
        return dict(row, verified=False, error=f"exit {out.returncode}: no JSON: {lines[-1][:200]}")
    row.update(time_s=report["time_s"], times_s=json.dumps(report["times_s"]), result=report["result"],
               verified=report["verified"], error="" if out.returncode == 0 else f"exit {out.returncode}")
    if "stats" in report:
        s, t1 = report["stats"], report.get("table1", {})
        row.update(tasks_created=s["tasks_created"], tasks_executed=s["tasks_executed"],
                   tasks_inlined=s["tasks_inlined"], steals=s["steals"], remote_steals=s.get("remote_steals", 0),
                   avg_task_time_us=t1.get("avg_task_time_us"),
                   task_creation_overhead_us=t1.get("task_creation_overhead_us"),
                   inline_overhead_us=t1.get("inline_spawn_overhead_us"), task_io=json.dumps(t1.get("task_io", [])),
                   tasks_serialized_share=t1.get("tasks_serialized_share"),
                   per_rank=json.dumps(per_rank(s)))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="TOML file with [sweep] and [[grid]] tables")
    parser.add_argument("-o", "--output", help="CSV to write (default: the config's sweep.output)")
    parser.add_argument("--build", default="build", help="build directory with cli/heist and bench/peers")
    parser.add_argument("--repeat", type=int, help="override sweep.repeat")
    parser.add_argument("--resume", action="store_true", help="keep the rows already in the CSV; run the rest")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = parser.parse_args()
    with open(args.config, "rb") as f:
        config = tomllib.load(f)
    settings = config.get("sweep", {})
    output = args.output or settings.get("output")
    if not output:
        sys.exit("sweep: no output CSV (-o or sweep.output)")
    repeat = args.repeat or settings.get("repeat", 5)
    timeout = settings.get("timeout", 300)
    mpirun = settings.get("mpirun", "mpirun --oversubscribe")
    runs = [r for grid in config.get("grid", []) for r in expand(grid)]
    if not runs:
        sys.exit("sweep: the config has no [[grid]] with apps")
    if args.dry_run:
        for r in runs:
            print(shlex.join(command(r, args.build, repeat, mpirun)))
        return
    done = set()
    if args.resume and os.path.exists(output):
        old = pd.read_csv(output, dtype=str, keep_default_na=False)
        done = {tuple(str(row[k]) for k in KEY) for _, row in old.iterrows()}
    else:
        os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
        with open(output, "w", newline="") as f:
            csv.DictWriter(f, FIELDS).writeheader()
    todo = [r for r in runs if tuple(str(dict(r, repeat=repeat)[k]) for k in KEY) not in done]
    env_note = "OMPI_ALLOW_RUN_AS_ROOT" if os.geteuid() == 0 else None
    if env_note:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    failures = 0
    with open(output, "a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        bar = tqdm(todo, unit="run", dynamic_ncols=True)
        for run in bar:
            bar.set_description(f"{run['impl']} {run['app']} {run['app_args']} w{run['workers']} r{run['ranks']}"[:60])
            row = run_one(run, args.build, repeat, mpirun, timeout)
            if row.get("verified") is not True:
                failures += 1
                tqdm.write(f"FAILED: {row['command']}: {row['error']}")
            writer.writerow(row)
            f.flush()
    print(f"{output}: {len(todo)} runs ({len(runs) - len(todo)} kept), {failures} failed or unverified")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
