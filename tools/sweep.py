#!/usr/bin/python3
"""Run any heist experiment described by a small TOML file — benchmarks in one
process, under mpirun or on a heist-cluster, and simulations — with a
progress bar, and write one CSV row per run (tools/plot.py draws it).

  tools/sweep.py CONFIG.toml [-o out.csv] [--build build] [--resume] [--dry-run]

A config holds [sweep] settings and one or more [[grid]] tables; each grid is
the cartesian product of its lists (docs/benchmarks.md; every figure in
docs/results/ has the config that made it beside it):

  [sweep]
  repeat = 5                 # runs per launch (heist bench --repeat); the CSV keeps the median and all times
  rounds = 1                 # launches per run, interleaved: every run once per round, the order reversed every
                             # other round, so a slow period of a shared machine hits them all alike (one CSV
                             # row per launch; plots take medians)
  timeout = 300              # seconds per command
  output = "docs/results/speedup.csv"
  mpirun = "mpirun --oversubscribe"

  [[grid]]
  apps = ["uts --tree T1", "nqueens --n 13"]   # app name and its own options; or a table
                                               # {name = "UTS(T1L)", app = "uts --tree T1L --task-ns 110,150"}
  impls = ["seq", "heist", "tbb", "omp"]       # heist, seq (heist --seq), tbb, omp (bench/peers),
                                               # sim (heist sim: the variant carries the machine)
  workers = [1, 2]
  ranks = [1, 2]            # > 1: mpirun -n R (heist only)
  policies = ["bounded"]    # heist --policy ("" leaves it to the default / the variant)
  protocols = ["sws"]       # heist --protocol (only with ranks > 1)
  variants = [""]           # extra flags, e.g. "--queue-bound 8 --queue-demand off"; or a table
                            # {name = "hvs+half", args = "--victim hvs --chunk half"} (name: the CSV's series)
  nodes = [1, 2]            # sim: --nodes N for each (default: the variant's)
  label = "speedup"         # free text, copied to every row
  allow_fail = false        # true: a failed run (e.g. out of stack) is a row with its error, not a failure

  # heist bench on a heist-cluster (tools/cluster/heist-cluster, root only):
  # one cluster per (hosts, delay) is brought up, used and torn down.
  launcher = "cluster"
  hosts = [2]
  delays_us = [0, 20, 100]
  ranks_per_host = 1

Runs that do not apply are skipped (seq and the peers run once per worker
count on one rank, protocols only matter with several ranks; seq runs once).
Every row records the exact command, the median time, all times, the
result, `verified`, the table1 columns, the steal counters per level, a
per-rank time breakdown (work/search/steal/comm, summed over the rank's
workers) and, for simulations, speedup, steal and search time and messages.
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

import heistbench

FIELDS = ["label", "name", "series", "app", "app_args", "impl", "workers", "ranks", "policy", "protocol", "variant",
          "nodes", "hosts", "delay_us", "repeat", "round",
          "time_s", "times_s", "result", "verified", "tasks_created", "tasks_executed", "tasks_inlined", "steals",
          "steal_attempts", "remote_steals", "continuations_exposed", "failed_steals_inter_node", "tasks_pushed",
          "rma_inter_node", "levels", "extra",
          "avg_task_time_us", "task_creation_overhead_us", "inline_overhead_us", "tasks_serialized_share", "task_io",
          "speedup", "efficiency", "t1_s", "failed", "internode_attempts", "internode_failed", "steal_s", "search_s",
          "messages", "requests", "wall_s",
          "per_rank", "error", "command"]
KEY = ["label", "name", "series", "app", "app_args", "impl", "workers", "ranks", "policy", "protocol", "variant",
       "nodes", "hosts", "delay_us", "repeat", "round"]
HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "cluster", "heist-cluster")
LAUNCHERS = ("local", "cluster")
IMPLS = ("heist", "seq", "tbb", "omp", "sim")


def named(entry, key):
    """(name, text) of an apps/variants entry: a string, or a table {name, <key>}."""
    if isinstance(entry, str):
        return "", entry
    if not isinstance(entry, dict) or key not in entry:
        raise ValueError(f"expected a string or a table with '{key}', got {entry!r}")
    return str(entry.get("name", "")), str(entry[key])


def check_grid(grid, index):
    known = {"apps", "impls", "workers", "ranks", "policies", "protocols", "variants", "nodes", "label", "allow_fail",
             "launcher", "hosts", "delays_us", "ranks_per_host"}
    if unknown := set(grid) - known:
        raise ValueError(f"grid {index}: unknown keys {sorted(unknown)} (known: {sorted(known)})")
    if not grid.get("apps"):
        raise ValueError(f"grid {index}: no apps")
    if bad := set(grid.get("impls", ["heist"])) - set(IMPLS):
        raise ValueError(f"grid {index}: unknown impls {sorted(bad)} (known: {', '.join(IMPLS)})")
    if grid.get("launcher", "local") not in LAUNCHERS:
        raise ValueError(f"grid {index}: launcher must be one of {', '.join(LAUNCHERS)}")
    if grid.get("launcher") == "cluster" and set(grid.get("impls", ["heist"])) != {"heist"}:
        raise ValueError(f"grid {index}: the cluster launcher runs heist bench only")
    for app in grid["apps"]:
        named(app, "app")
    for variant in grid.get("variants", [""]):
        named(variant, "args")


def expand(grid):
    """The runs of one grid: dicts of the KEY fields (repeat and round added later)."""
    lists = {k: grid.get(k, d) for k, d in [("apps", []), ("impls", ["heist"]), ("workers", [1]), ("ranks", [1]),
                                             ("policies", ["bounded"]), ("protocols", ["sws"]), ("variants", [""]),
                                             ("nodes", [0]), ("hosts", [0]), ("delays_us", [0])]}
    cluster = grid.get("launcher", "local") == "cluster"
    seen = set()
    for app, impl, w, r, pol, proto, var, nodes, hosts, delay in itertools.product(*lists.values()):
        name, app = named(app, "app")
        series, var = named(var, "args")
        app_name, _, args = app.partition(" ")
        if not cluster:
            hosts, delay = 0, 0
        if impl == "heist":
            ranks = hosts * grid.get("ranks_per_host", 1) if cluster else r
            run = (name, series, app_name, args, impl, w, ranks, pol, proto if ranks > 1 else "", var, 0, hosts, delay)
        elif impl == "seq":
            run = (name, "", app_name, args, impl, 1, 1, "", "", "", 0, 0, 0)
        elif impl == "sim":
            run = (name, series, app_name, args, impl, 0, 0, pol, "", var, nodes, 0, 0)
        else:  # peers: threads of one process
            run = (name, "", app_name, args, impl, w, 1, "", "", "", 0, 0, 0)
        if run in seen:
            continue
        seen.add(run)
        yield dict(zip(["name", "series", "app", "app_args", "impl", "workers", "ranks", "policy", "protocol",
                        "variant", "nodes", "hosts", "delay_us"], run),
                   label=grid.get("label", ""), allow_fail=bool(grid.get("allow_fail", False)),
                   launcher="cluster" if cluster else "local", ranks_per_host=grid.get("ranks_per_host", 1))


def command(run, build, repeat, mpirun, cluster_name="CLUSTER", timeout=300):
    args = shlex.split(run["app_args"])
    heist = os.path.join(build, "cli", "heist")
    policy = ["--policy", run["policy"]] if run["policy"] else []
    if run["impl"] == "sim":
        nodes = ["--nodes", str(run["nodes"])] if run["nodes"] else []
        return [heist, "sim", run["app"], *args, *policy, *shlex.split(run["variant"]), *nodes, "--json"]
    if run["impl"] in ("heist", "seq"):
        cmd = [heist, "bench", run["app"], *args, "--repeat", str(repeat), "--json"]
        if run["impl"] == "seq":
            return cmd + ["--seq"]
        cmd += ["--workers", str(run["workers"]), *policy, *shlex.split(run["variant"])]
        if run["launcher"] == "cluster":
            return [CLUSTER, "exec", "--name", cluster_name, "--ranks-per-host", str(run["ranks_per_host"]),
                    "--timeout", str(timeout), "--", *cmd]
        if run["ranks"] > 1:
            cmd = [*shlex.split(mpirun), "-n", str(run["ranks"]), *cmd, "--protocol", run["protocol"]]
        return cmd
    peer = os.path.join(build, "bench", "peers", f"heist-peer-{run['impl']}")
    return [peer, run["app"], *args, "--workers", str(run["workers"]), "--repeat", str(repeat), "--json"]


def cluster_up(build, hosts, delay):
    return [CLUSTER, "up", "--hosts", str(hosts), "--delay-us", str(delay),
            "--netdelay", os.path.join(os.path.abspath(build), "tools", "cluster", "heist-netdelay")]


def per_rank(stats):
    ranks = {}
    for w in stats.get("workers", []):
        r = ranks.setdefault(w.get("rank", 0), {"rank": w.get("rank", 0), "workers": 0, "work_s": 0.0,
                                                "search_s": 0.0, "steal_s": 0.0, "comm_s": 0.0, "active_s": 0.0,
                                                "tasks_executed": 0})
        r["workers"] += 1
        for k in ("work", "search", "steal", "comm", "active"):
            r[f"{k}_s"] += w.get(f"time_{k}_s", 0.0)
        r["tasks_executed"] += w.get("tasks_executed", 0)
    return [ranks[k] for k in sorted(ranks)]


def fill(row, report):
    """The CSV columns of one JSON report (heist bench, a peer, or heist sim)."""
    row.update(time_s=report["time_s"], result=report["result"], verified=report.get("verified", True))
    if "times_s" in report:
        row["times_s"] = json.dumps(report["times_s"])
    if "extra" in report:
        row["extra"] = json.dumps(report["extra"])
    if row["impl"] == "sim":
        totals, machine = report["steal_totals"], report["steals"]["machine"]
        row.update(workers=report["workers"], ranks=report["ranks"], speedup=report.get("speedup"),
                   efficiency=report.get("efficiency"), t1_s=report.get("t1_s"), steals=totals["steals"],
                   steal_attempts=totals["attempts"], failed=totals["failed"],
                   internode_attempts=machine["attempts"], internode_failed=machine["failed"],
                   steal_s=report["time_breakdown_s"]["steal"], search_s=report["time_breakdown_s"]["search"],
                   messages=report["messages"]["blocking"],
                   requests=report.get("between_processes", {}).get("requests", 0),
                   wall_s=report["simulator"]["wall_s"], nodes=report["machine"]["nodes"])
        return row
    if "stats" in report:
        s, t1 = report["stats"], report.get("table1", {})
        row.update(tasks_created=s["tasks_created"], tasks_executed=s["tasks_executed"],
                   tasks_inlined=s["tasks_inlined"], steals=s["steals"], steal_attempts=s.get("steal_attempts"),
                   remote_steals=s.get("remote_steals", 0), continuations_exposed=s.get("continuations_exposed"),
                   failed_steals_inter_node=s.get("failed_steals_inter_node"), tasks_pushed=s.get("tasks_pushed"),
                   rma_inter_node=s.get("rma", {}).get("inter_node"), levels=json.dumps(s.get("levels", {})),
                   avg_task_time_us=t1.get("avg_task_time_us"),
                   task_creation_overhead_us=t1.get("task_creation_overhead_us"),
                   inline_overhead_us=t1.get("inline_spawn_overhead_us"), task_io=json.dumps(t1.get("task_io", [])),
                   tasks_serialized_share=t1.get("tasks_serialized_share"),
                   per_rank=json.dumps(per_rank(s)))
    return row


def run_one(run, build, repeat, mpirun, timeout, cluster_name=None):
    cmd = command(run, build, repeat, mpirun, cluster_name or "CLUSTER", timeout)
    row = {k: run[k] for k in KEY if k in run}
    row.update(repeat=repeat, round=run["round"], command=shlex.join(cmd), error="")
    env = dict(os.environ, HEIST_CLUSTER_QUIET="1") if run["launcher"] == "cluster" else None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return dict(row, verified=False, error=f"timeout after {timeout} s")
    if not any(line.startswith("{") for line in out.stdout.splitlines()):
        return dict(row, verified=False, error=f"exit {out.returncode}: {heistbench.failure_reason(out.stderr)}")
    try:
        report = heistbench.report_of(out.stdout)
    except ValueError as e:
        return dict(row, verified=False, error=f"exit {out.returncode}: {e}")
    fill(row, report)
    if out.returncode != 0:
        row["error"] = f"exit {out.returncode}"
    return row


def load_config(path):
    with open(path, "rb") as f:
        config = tomllib.load(f)
    if unknown := set(config) - {"sweep", "grid"}:
        raise ValueError(f"unknown tables {sorted(unknown)}")
    settings = config.get("sweep", {})
    if unknown := set(settings) - {"repeat", "rounds", "timeout", "output", "mpirun"}:
        raise ValueError(f"[sweep]: unknown keys {sorted(unknown)}")
    for i, grid in enumerate(config.get("grid", [])):
        check_grid(grid, i)
    return config


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="TOML file with [sweep] and [[grid]] tables")
    parser.add_argument("-o", "--output", help="CSV to write (default: the config's sweep.output)")
    parser.add_argument("--build", default="build", help="build directory with cli/heist and bench/peers")
    parser.add_argument("--repeat", type=int, help="override sweep.repeat")
    parser.add_argument("--rounds", type=int, help="override sweep.rounds")
    parser.add_argument("--resume", action="store_true", help="keep the rows already in the CSV; run the rest")
    parser.add_argument("--dry-run", action="store_true", help="check the config and print the commands only")
    args = parser.parse_args()
    try:
        config = load_config(args.config)
    except OSError as e:
        sys.exit(f"sweep: {args.config}: {e.strerror}")
    except (ValueError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"sweep: {args.config}: {e}")
    settings = config.get("sweep", {})
    output = args.output or settings.get("output")
    if not output:
        sys.exit("sweep: no output CSV (-o or sweep.output)")
    repeat = args.repeat or settings.get("repeat", 5)
    rounds = args.rounds or settings.get("rounds", 1)
    timeout = settings.get("timeout", 300)
    mpirun = settings.get("mpirun", "mpirun --oversubscribe")
    runs = [r for grid in config.get("grid", []) for r in expand(grid)]
    if not runs:
        sys.exit("sweep: the config has no [[grid]] with apps")
    # Rounds outermost: every run once per round. Cluster runs come after,
    # grouped by (hosts, delay) with their rounds inside, so each group needs
    # one cluster brought up.
    local = [r for r in runs if r["launcher"] != "cluster"]
    groups = sorted({(r["hosts"], r["delay_us"]) for r in runs if r["launcher"] == "cluster"})
    # Within each, the order is reversed every other round (tools/heistbench.py).
    todo = [dict(r, round=k) for k, r in heistbench.interleaved(local, rounds)]
    todo += [dict(r, round=k) for g in groups for k, r in heistbench.interleaved(
        [r for r in runs if r["launcher"] == "cluster" and (r["hosts"], r["delay_us"]) == g], rounds)]
    if args.dry_run:
        last = None
        for r in todo:
            group = (r["hosts"], r["delay_us"]) if r["launcher"] == "cluster" else None
            if group != last and group:
                print("# " + shlex.join(cluster_up(args.build, *group)) + "  (then 'down --name CLUSTER')")
            last = group
            print(shlex.join(command(r, args.build, repeat, mpirun, "CLUSTER", timeout)))
        return
    import pandas as pd
    from tqdm import tqdm
    done = set()
    if args.resume and os.path.exists(output):
        old = pd.read_csv(output, dtype=str, keep_default_na=False)
        done = {tuple(str(row.get(k, "")) for k in KEY) for _, row in old.iterrows()}
    else:
        os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
        with open(output, "w", newline="") as f:
            csv.DictWriter(f, FIELDS).writeheader()
    todo = [r for r in todo if tuple(str(dict(r, repeat=repeat).get(k, "")) for k in KEY) not in done]
    if os.geteuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    failures = 0
    cluster, cluster_group = None, None
    try:
        with open(output, "a", newline="") as f:
            writer = csv.DictWriter(f, FIELDS, extrasaction="ignore")
            bar = tqdm(todo, unit="run", dynamic_ncols=True)
            for run in bar:
                group = (run["hosts"], run["delay_us"]) if run["launcher"] == "cluster" else None
                if group != cluster_group and cluster:
                    subprocess.run([CLUSTER, "down", "--name", cluster], check=False)
                    cluster = None
                if group and not cluster:
                    cluster = subprocess.run(cluster_up(args.build, *group), check=True, capture_output=True,
                                             text=True).stdout.strip()
                cluster_group = group
                bar.set_description(f"{run['impl']} {run['app']} {run['app_args']} {run['series']}"[:60])
                row = run_one(run, args.build, repeat, mpirun, timeout, cluster)
                if row.get("verified") is not True and not run["allow_fail"]:
                    failures += 1
                    tqdm.write(f"FAILED: {row['command']}: {row['error']}")
                writer.writerow(row)
                f.flush()
    finally:
        if cluster:
            subprocess.run([CLUSTER, "down", "--name", cluster], check=False)
    print(f"{output}: {len(todo)} runs ({len(runs) * rounds - len(todo)} kept), {failures} failed or unverified")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
