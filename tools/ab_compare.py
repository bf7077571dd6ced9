#!/usr/bin/env python3
"""Compare two commits of heist side by side: build both, interleave runs.

Builds each revision (Release, in a git worktree under --work) and runs the
same benchmark cases alternately — round r runs every case on A then on B
(the order flips every round, so neither build always runs on a warmer
machine; tools/heistbench.py) — and prints a Markdown table of median times and the ratio B/A.
A ratio is only meaningful inside one run of this script: the machine's
load changes between runs, and both builds see the same load here.

  tools/ab_compare.py --a HEAD~1 --b HEAD --rounds 5
  tools/ab_compare.py --a main --b my-branch --cases fib,nqueens --json out.json
  tools/ab_compare.py --a HEAD --b HEAD --a-mpi openmpi --b-mpi mpich --layouts 2r

--a-mpi/--b-mpi build a side against one of the MPIs installed side by side
(HEIST_MPI_FLAVOUR) and launch its multi-rank runs with that MPI's launcher:
the same revision against two MPIs. --a-build/--b-build take a side's heist
from an existing build tree (BUILD/cli/heist) instead of building a revision:

  tools/ab_compare.py --a-build build/dev --a-mpi openmpi --b-build build/mpich --b-mpi mpich \
      --cases fib,nqueens,uts-T1L --layouts 2r --rounds 7

Every run must verify its result; a run that fails or does not verify stops
the comparison (a faster wrong answer is not a result).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys

import heistbench

ROOT = pathlib.Path(__file__).resolve().parent.parent

# name, app arguments. Sizes: each case runs in about 0.05-2 s on 2 cores.
CASES = {
    "fib": ["fib", "--n", "35", "--cutoff", "0"],
    "nqueens": ["nqueens", "--n", "13", "--cutoff", "0"],
    "uts-T1L": ["uts", "--tree", "T1L"],
    "uts-T3L": ["uts", "--tree", "T3L"],
    "matmul": ["matmul", "--size", "150", "--tasks", "400"],
    "sparselu": ["sparselu"],
    "sor": ["sor"],
    "spantree": ["spantree"],
}
# label, launcher prefix (None: no mpirun), workers per process
LAYOUTS = {
    "1w": (None, 1),
    "2w": (None, 2),
    "2r": (2, 1),
}
# The launcher of each MPI flavour ("": the default mpirun). Neither binds
# ranks to cores: MPICH's Hydra does not by default, and OpenMPI's
# --bind-to core fails on a machine whose cores other programs load.
MPIRUN = {
    "": ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n"],
    "openmpi": ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-n"],
    "mpich": ["mpiexec.mpich", "-n"],
}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def build(rev: str, work: pathlib.Path, jobs: int, mpi: str) -> pathlib.Path:
    """A Release build of `rev` (against MPI flavour `mpi`) in its own worktree; returns the heist binary."""
    sha = sh(["git", "-C", str(ROOT), "rev-parse", rev], capture_output=True).stdout.strip()
    tree = work / sha[:12]
    if not tree.exists():
        sh(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha], capture_output=True)
    out = tree / ("build-ab" + (f"-{mpi}" if mpi else ""))
    env = dict(os.environ)
    if shutil.which("ccache"):
        env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
        env.setdefault("CMAKE_C_COMPILER_LAUNCHER", "ccache")
    sh(["cmake", "-S", str(tree), "-B", str(out), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
        "-DHEIST_BUILD_TESTS=OFF", "-DHEIST_BUILD_PEERS=OFF", f"-DHEIST_MPI_FLAVOUR={mpi}"], env=env,
       capture_output=True)
    sh(["cmake", "--build", str(out), "-j", str(jobs), "--target", "heist-cli"], env=env, capture_output=True)
    binary = out / "cli" / "heist"
    if not binary.exists():
        sys.exit(f"ab_compare: {binary} was not built")
    return binary


def case_command(binary: pathlib.Path, app_args, layout, mpi: str):
    ranks, workers = layout
    cmd = [str(binary), "bench", *app_args, "--workers", str(workers), "--json"]
    if ranks is not None:
        cmd = MPIRUN[mpi] + [str(ranks)] + cmd
    return cmd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="HEAD~1", help="the baseline revision")
    ap.add_argument("--b", default="HEAD", help="the revision measured against it")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ",".join(CASES))
    ap.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated: " + ",".join(LAYOUTS))
    ap.add_argument("--work", default=str(ROOT / "build-ab"), help="where the worktrees and builds go")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    for side in "ab":
        ap.add_argument(f"--{side}-mpi", default="", choices=list(MPIRUN),
                        help=f"build {side.upper()} against this MPI and launch it with its launcher (default: the system's)")
        ap.add_argument(f"--{side}-build", help=f"take {side.upper()}'s heist from this build tree, not a new build")
    ap.add_argument("--json", help="also write every time to this file")
    args = ap.parse_args()

    cases = [c for c in args.cases.split(",") if c]
    layouts = [l for l in args.layouts.split(",") if l]
    for c in cases:
        if c not in CASES:
            sys.exit(f"ab_compare: unknown case '{c}' (known: {', '.join(CASES)})")
    for l in layouts:
        if l not in LAYOUTS:
            sys.exit(f"ab_compare: unknown layout '{l}' (known: {', '.join(LAYOUTS)})")
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    mpi = {"a": args.a_mpi, "b": args.b_mpi}
    binaries = {}
    for s in "ab":
        tree = getattr(args, f"{s}_build")
        if tree:
            binaries[s] = pathlib.Path(tree).resolve() / "cli" / "heist"
            if not binaries[s].exists():
                sys.exit(f"ab_compare: {binaries[s]} does not exist")
        else:
            binaries[s] = build(getattr(args, s), work, args.jobs, mpi[s])

    commands = {(c, l, s): case_command(binaries[s], CASES[c], LAYOUTS[l], mpi[s])
                for c in cases for l in layouts for s in "ab"}
    times = heistbench.run_rounds(
        commands, args.rounds, "ab_compare", timeout=600, echo=False,
        on_round=lambda r: print(f"round {r + 1}/{args.rounds} done", file=sys.stderr))

    names = {s: (getattr(args, f"{s}_build") or getattr(args, s)) + (f" ({mpi[s]})" if mpi[s] else "")
             for s in "ab"}
    print(f"A = {names['a']}, B = {names['b']}; medians of {args.rounds} interleaved rounds\n")
    print("| case | layout | A (s) | B (s) | B/A |")
    print("|---|---|---|---|---|")
    for c in cases:
        for l in layouts:
            a = statistics.median(times[(c, l, "a")])
            b = statistics.median(times[(c, l, "b")])
            print(f"| {c} | {l} | {a:.4g} | {b:.4g} | {b / a:.3f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"a": names["a"], "b": names["b"], "rounds": args.rounds,
                       "times": {f"{c}/{l}/{s}": v for (c, l, s), v in times.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
