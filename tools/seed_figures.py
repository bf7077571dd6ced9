#!/usr/bin/env python3
"""The seeds' measured figures against the simulator's predictions: reads
docs/results/sim/seed-figures.toml (each figure a paper reports, where, and
the sweep CSV cell that predicts it), writes
docs/results/sim/seed-figures.csv with the columns
paper,figure,measured,predicted,fitted and prints a Markdown table with each
figure's relative error, the median |error| and the largest.

  tools/seed_figures.py [--sweep] [--build build] [--config FILE] [--csv FILE]

--sweep runs each config's sweep first (tools/sweep.py CONFIG --build B),
which keeps the rows a CSV already has: delete a CSV to recompute it.
`fitted` is "yes" only for a figure the config marks fitted = true (a
figure used to fit a model parameter; at most one per paper).
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tomllib
from fnmatch import fnmatchcase

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOOL = "seed_figures"


def rows_of(path, cache):
    if path not in cache:
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            sys.exit(f"{TOOL}: {path}: no such CSV (run with --sweep, or tools/sweep.py on its config)")
        with open(full, newline="") as f:
            cache[path] = list(csv.DictReader(f))
    return cache[path]


def matching(sel, cache):
    """The rows of sel's CSV that match its series (a glob), app and workers."""
    out = []
    for r in rows_of(sel["csv"], cache):
        if not fnmatchcase(r["series"], sel["series"]):
            continue
        if "app" in sel and r["app"] != sel["app"]:
            continue
        if "workers" in sel and int(r["workers"]) != int(sel["workers"]):
            continue
        out.append(r)
    return out


def cell(sel, cache):
    """One value: the selected cell, or the largest over the rows a series glob matches."""
    rows = matching(sel, cache)
    if not rows:
        sys.exit(f"{TOOL}: no row of {sel['csv']} matches {sel}")
    values = [float(r[sel["column"]]) for r in rows]
    if len(values) > 1 and not any(c in sel["series"] for c in "*?["):
        sys.exit(f"{TOOL}: {len(values)} rows of {sel['csv']} match {sel}; name the app and workers")
    return max(values)


def best_ratio(a, b, cache):
    """The smallest a/b over the (app, workers) pairs both selections have."""
    bs = {(r["app"], r["workers"]): float(r[b["column"]]) for r in matching(b, cache)}
    ratios = [float(r[a["column"]]) / bs[(r["app"], r["workers"])]
              for r in matching(a, cache) if (r["app"], r["workers"]) in bs]
    if not ratios:
        sys.exit(f"{TOOL}: {a} and {b} share no (app, workers)")
    return min(ratios)


def predicted(spec, cache):
    if "ratio" in spec:
        a, b = spec["ratio"]
        return cell(a, cache) / cell(b, cache)
    if "best_ratio" in spec:
        return best_ratio(*spec["best_ratio"], cache)
    return cell(spec, cache)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default=os.path.join(ROOT, "docs/results/sim/seed-figures.toml"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs/results/sim/seed-figures.csv"))
    ap.add_argument("--sweep", action="store_true", help="run each config's sweep first")
    ap.add_argument("--build", default="build", help="with --sweep: the build whose heist simulates")
    args = ap.parse_args()
    try:
        with open(args.config, "rb") as f:
            config = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        sys.exit(f"{TOOL}: {args.config}: {e}")
    if args.sweep:
        for c in config.get("config", []):
            subprocess.run([sys.executable, os.path.join(HERE, "sweep.py"), os.path.join(ROOT, c["config"]),
                            "--build", args.build, "-o", os.path.join(ROOT, c["csv"])], check=True)
    fitted_per_paper = {}
    cache, rows = {}, []
    for fig in config["figure"]:
        fitted = bool(fig.get("fitted", False))
        if fitted:
            fitted_per_paper[fig["paper"]] = fitted_per_paper.get(fig["paper"], 0) + 1
            if fitted_per_paper[fig["paper"]] > 1:
                sys.exit(f"{TOOL}: {fig['paper']}: more than one figure marked fitted")
        rows.append({"paper": fig["paper"], "figure": fig["figure"], "measured": float(fig["measured"]),
                     "predicted": predicted(fig["predicted"], cache), "fitted": "yes" if fitted else "no"})
    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, ["paper", "figure", "measured", "predicted", "fitted"], lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({**r, "measured": f"{r['measured']:g}", "predicted": f"{r['predicted']:.4g}"})
    print("| paper | figure | measured | predicted | error | fitted |\n|---|---|---|---|---|---|")
    errors = []
    for r in rows:
        err = (r["predicted"] - r["measured"]) / r["measured"]
        if r["fitted"] == "no":
            errors.append(abs(err))
        print(f"| {r['paper']} | {r['figure']} | {r['measured']:g} | {r['predicted']:.4g} | {err:+.1%} | {r['fitted']} |")
    if errors:
        within = sum(e <= 0.20 for e in errors)
        print(f"\npredicted figures: {len(errors)}; median |error| {statistics.median(errors):.1%}, "
              f"largest {max(errors):.1%}, {within} within 20 %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
