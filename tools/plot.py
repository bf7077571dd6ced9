#!/usr/bin/python3
"""Plots of heist benchmark results (CSV from tools/sweep.py, traces from --trace).

  tools/plot.py speedup   CSV -o speedup.png     speedup over the sequential version vs workers (and ranks)
  tools/plot.py breakdown CSV -o breakdown.png   stacked work/search/steal/comm time per rank
  tools/plot.py policies  CSV -o policies.png    time per spawn policy, per app
  tools/plot.py cutoff    CSV -o fig7.png        runtime bounded queue vs tree-depth cutoff (HotSLAW Fig. 7)
  tools/plot.py best      CSV -o fig8.png        unbounded vs bounded queue, each at its best cutoff (Fig. 8)
  tools/plot.py queue     TRACE -o queue.png     queue length over time, per worker (HotSLAW Fig. 6)
  tools/plot.py timeline  TRACE -o trace.png     the trace's timeline: task spans, steals, queue lengths
  tools/plot.py table1    CSV [-o table1.md]     HotSLAW Table 1 as a Markdown table
  tools/plot.py table     CSV [-o FILE.md]       median time of every configuration (over rounds), Markdown
  tools/plot.py fib-threshold CSV -o FIG.png     fib by sequential threshold, per policy (HelpFirst Fig. 12)
  tools/plot.py spantree  CSV -o FIG.png         spanning-tree MEdges/s by graph size; failed runs marked (Fig. 13)
  tools/plot.py sor       CSV -o FIG.png         SOR speedup over the sequential version (HelpFirst Fig. 7)
  tools/plot.py locality  CSV [-o FILE.md]       victim x chunk on virtual nodes: medians and steals per level
  tools/plot.py cluster   CSV [-o FILE.md]       heist-cluster runs: medians and inter-node steals per delay
  tools/plot.py sim-sweep CSV -o FIG.png         simulated speedup and efficiency vs workers (heist sim --csv)
  tools/plot.py hotslaw   CSV -o DIR/hotslaw.png HotSLAW Figures 10-13, simulated (hotslaw-fig10.png ...); tables
  tools/plot.py sws       CSV -o DIR/sws.png     SDC vs SWS steal time, search time, efficiency (sws-<app>.png)
  tools/plot.py habanero  CSV -o FIG.png         BaselineWS vs SuccessOnlyWS: inter-node failures, speedup
  tools/plot.py busy      JSON... -o FIG.png     share of workers running tasks over time (heist sim --busy-profile N --json)

The configs that make each committed figure live beside it (docs/results/*.toml,
docs/results/sim/*.toml; tools/sweep.py runs them).

Only verified rows are plotted; --label LABEL keeps one grid of a sweep.
"""
import argparse
import sys

import pandas as pd

from plotkinds import common, helpfirst, locality, runtime, sim, traces

# Kinds that read the verified rows (plus --label's grid and the seq rows).
VERIFIED_KINDS = {"speedup": runtime.plot_speedup, "breakdown": runtime.plot_breakdown,
                  "policies": runtime.plot_policies, "cutoff": runtime.plot_cutoff, "best": runtime.plot_best}
# Kinds that read the CSV whole (failed rows, rounds and simulations) and take medians themselves.
RAW_KINDS = {"table": runtime.plot_table, "fib-threshold": helpfirst.plot_fib_threshold,
             "spantree": helpfirst.plot_spantree, "sor": helpfirst.plot_sor, "locality": locality.plot_locality,
             "cluster": locality.plot_cluster, "sim-sweep": sim.plot_sim_sweep, "hotslaw": sim.plot_hotslaw,
             "sws": sim.plot_sws, "habanero": sim.plot_habanero}
PLOT_KINDS = {"fib-threshold", "spantree", "sor", "sim-sweep", "hotslaw", "sws", "habanero"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["speedup", "breakdown", "policies", "cutoff", "best", "queue", "timeline",
                                         "table1", "busy", *RAW_KINDS])
    parser.add_argument("input", nargs="+", help="CSV from tools/sweep.py, a --trace file, or (busy) heist sim JSON files")
    parser.add_argument("-o", "--output", help="PNG (or .md for table1)")
    parser.add_argument("--start-ms", type=float, help="timeline: first millisecond shown")
    parser.add_argument("--span-ms", type=float, help="timeline: milliseconds shown")
    parser.add_argument("--label", help="CSV plots: only rows with this sweep label (and the seq rows)")
    args = parser.parse_args()
    if args.kind == "busy":
        if not args.output:
            sys.exit("plot: -o PNG required")
        return sim.plot_busy(args.input, args.output)
    if len(args.input) > 1:
        sys.exit(f"plot {args.kind}: one input file")
    args.input = args.input[0]
    if args.kind in ("queue", "timeline"):
        if not args.output:
            sys.exit("plot: -o PNG required")
        if args.kind == "queue":
            traces.plot_queue(args.input, args.output)
        else:
            traces.plot_timeline(args.input, args.output, args.start_ms, args.span_ms)
        return
    if args.kind in RAW_KINDS:  # CSVs read whole: failed rows, rounds and simulations included
        df = pd.read_csv(args.input, keep_default_na=False)
        if args.label:
            df = df[df["label"] == args.label]
        if args.kind in PLOT_KINDS and not args.output:
            sys.exit("plot: -o PNG required")
        return RAW_KINDS[args.kind](df, args.output)
    df = common.load(args.input)
    if args.label:
        df = df[(df["label"] == args.label) | (df["impl"] == "seq")]
    if args.kind == "table1":
        return runtime.table1(df, args.output)
    if not args.output:
        sys.exit("plot: -o PNG required")
    VERIFIED_KINDS[args.kind](df, args.output)


if __name__ == "__main__":
    main()
