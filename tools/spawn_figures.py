#!/usr/bin/env python3
"""The spawn-cost and 2-core efficiency figures in one command.

Runs, in interleaved rounds (every variant once a round, the order reversed
every other round, so no variant always runs on a warmer machine):

  fib(N) sequentially, on 1 and 2 workers and on 2 ranks x 1 worker
  (`mpirun -n 2 --bind-to core`), Lace's shape (`--style value-call`)
  and both shapes with a heist::Context (`--style context`, `context-call`)
  on 1 worker, each `--repeat R`;
  for each UTS tree: the sequential code pinned to core 0, 2 workers, and
  2 ranks x 1 worker.

Every run must verify its result (tools/heistbench.py runs them). Prints,
as Markdown, the medians of each variant and the medians over rounds of the per-round ratios: T1/Tseq,
T1/T2, Lace's shape T1/Tseq, 2 ranks / 2 workers, and Tseq/(2 T) for each
tree on 2 workers and on 2 ranks. Ratios are meaningful within one run of
this script only: this machine's speed drifts between runs.

  tools/spawn_figures.py --build build --rounds 5
  tools/spawn_figures.py --build build --fib-n 30 --trees T3 --rounds 3 --json out.json
"""
import argparse
import json
import os
import statistics

import heistbench


def variants(heist, mpirun, fib_n, repeat, trees):
    flags = ["--no-spawn-probe", "--json"]
    fib = [heist, "bench", "fib", "--n", str(fib_n), "--repeat", str(repeat)]
    two_ranks = [*mpirun, "-n", "2", "--bind-to", "core"]
    v = {
        "fib seq": [*fib, "--seq", *flags],
        "fib 1 worker": [*fib, "--workers", "1", *flags],
        "fib 2 workers": [*fib, "--workers", "2", *flags],
        "fib 2 ranks x 1": [*two_ranks, *fib, "--workers", "1", *flags],
        "fib Lace's shape, 1 worker": [*fib, "--style", "value-call", "--workers", "1", *flags],
        "fib with a Context, 1 worker": [*fib, "--style", "context", "--workers", "1", *flags],
        "fib Lace's shape with a Context, 1 worker": [*fib, "--style", "context-call", "--workers", "1", *flags],
    }
    for tree in trees:
        uts = [heist, "bench", "uts", "--tree", tree]
        v[f"uts {tree} seq"] = ["taskset", "-c", "0", *uts, "--seq", *flags]
        v[f"uts {tree} 2 workers"] = [*uts, "--workers", "2", *flags]
        v[f"uts {tree} 2 ranks x 1"] = [*two_ranks, *uts, "--workers", "1", *flags]
    return v


def figures(times, trees):
    """(name, per-round ratio) for every figure: numerator over denominator."""
    f = [
        ("fib: T1/Tseq", "fib 1 worker", "fib seq", 1),
        ("fib: T1/T2", "fib 1 worker", "fib 2 workers", 1),
        ("fib, Lace's shape: T1/Tseq", "fib Lace's shape, 1 worker", "fib seq", 1),
        ("fib with a Context: T1/Tseq", "fib with a Context, 1 worker", "fib seq", 1),
        ("fib, Lace's shape with a Context: T1/Tseq", "fib Lace's shape with a Context, 1 worker", "fib seq", 1),
        ("fib: 2 ranks x 1 / 2 workers", "fib 2 ranks x 1", "fib 2 workers", 1),
    ]
    for tree in trees:
        f.append((f"uts {tree}, 2 workers: Tseq/(2 T)", f"uts {tree} seq", f"uts {tree} 2 workers", 2))
        f.append((f"uts {tree}, 2 ranks x 1: Tseq/(2 T)", f"uts {tree} seq", f"uts {tree} 2 ranks x 1", 2))
    return [(name, heistbench.round_ratios(times, a, b, k)) for name, a, b, k in f]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5, help="--repeat of each fib run (UTS runs once a round)")
    ap.add_argument("--fib-n", type=int, default=35)
    ap.add_argument("--trees", nargs="*", default=["T1L", "T3L"], help="UTS trees (names or parameter strings)")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe")
    ap.add_argument("--json", help="also write every time and figure to this file")
    args = ap.parse_args()
    heist = os.path.join(args.build, "cli", "heist")
    v = variants(heist, args.mpirun.split(), args.fib_n, args.repeat, args.trees)
    times = heistbench.run_rounds(v, args.rounds, "spawn_figures")
    figs = figures(times, args.trees)
    print(f"{args.rounds} interleaved rounds; medians\n")
    print("| run | median (s) | range (s) |\n|---|---|---|")
    for name, t in times.items():
        print(f"| {name} | {statistics.median(t):.4g} | {min(t):.4g}-{max(t):.4g} |")
    print("\n| figure | median of the per-round ratios | range |\n|---|---|---|")
    for name, ratios in figs:
        print(f"| {name} | {statistics.median(ratios):.3f} | {min(ratios):.3f}-{max(ratios):.3f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"commands": {k: " ".join(c) for k, c in v.items()}, "times_s": times,
                       "figures": {name: ratios for name, ratios in figs}}, f, indent=1)


if __name__ == "__main__":
    main()
