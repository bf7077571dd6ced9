"""The runtime's benchmark kinds of tools/plot.py, from a sweep's verified
rows: speedup, time breakdown per rank, spawn policies, HotSLAW Figures 7
(cutoff) and 8 (best), Table 1, and the medians of every configuration
(table)."""
import json
import re
import sys

import pandas as pd

from .common import color_of, markdown, number, ok_rows, plt, subplots, with_case, write_png


IMPL_NAMES = {"heist": "heist", "tbb": "oneTBB", "omp": "OpenMP", "seq": "sequential"}


def seq_time(df, case):
    seq = df[(df["case"] == case) & (df["impl"] == "seq")]
    return seq["time_s"].median() if len(seq) else None


def plot_speedup(df, out):
    cases = [c for c in dict.fromkeys(df["case"]) if seq_time(df, c)]
    if not cases:
        sys.exit("plot: speedup needs seq rows")
    fig, axes = subplots(len(cases))
    for ax, case in zip(axes, cases):
        tseq = seq_time(df, case)
        sub = df[(df["case"] == case) & (df["impl"] != "seq")]
        top = 1
        for (impl, policy, ranks_gt1, protocol), g in sub.groupby(
                [sub["impl"], sub["policy"], sub["ranks"] > 1, sub["protocol"]]):
            x = (g["workers"] * g["ranks"])
            label = IMPL_NAMES.get(impl, impl) + (f" ({policy})" if policy else "")
            if ranks_gt1:
                label += f", ranks x 1 worker, {protocol.upper()}" if (g["workers"] == 1).all() else f", ranks, {protocol}"
            g = g.assign(x=x).groupby("x")["time_s"].median()
            ax.plot(g.index, tseq / g.values, marker="o", label=label, color=color_of(label))
            top = max(top, g.index.max())
        ax.plot([1, top], [1, top], ls=":", color="grey", label="ideal")
        ax.set_title(case, fontsize=9)
        ax.set_xlabel("workers (x ranks)")
        ax.set_ylabel("speedup over sequential")
        ax.set_xticks(range(1, int(top) + 1))
        ax.legend(fontsize=7)
    write_png(fig, out)


def plot_breakdown(df, out):
    sub = df[(df["impl"] == "heist") & (df["per_rank"] != "")]
    if sub.empty:
        sys.exit("plot: breakdown needs heist rows with statistics")
    labels, parts = [], {"work_s": [], "search_s": [], "steal_s": [], "comm_s": []}
    for _, row in sub.iterrows():
        for r in json.loads(row["per_rank"]):
            tag = f"{row['case']}\n{row['ranks']}x{row['workers']} {row['protocol'] or row['policy']} r{r['rank']}"
            labels.append(tag)
            for k in parts:
                parts[k].append(r[k])
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(labels)), 4.5))
    bottom = [0.0] * len(labels)
    colors = {"work_s": "tab:green", "search_s": "tab:orange", "steal_s": "tab:red", "comm_s": "tab:blue"}
    for k, values in parts.items():
        ax.bar(range(len(labels)), values, bottom=bottom, label=k[:-2], color=colors[k])
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=70, ha="right", fontsize=6)
    ax.set_ylabel("seconds (summed over the rank's workers)")
    ax.set_title("time per rank: work / search / steal / communication (median run)")
    ax.legend()
    write_png(fig, out)


def plot_policies(df, out):
    sub = df[(df["impl"] == "heist") & (df["ranks"] == 1)]
    sub = sub[sub["workers"] == sub["workers"].max()]
    cases = list(dict.fromkeys(sub["case"]))
    policies = list(dict.fromkeys(sub["policy"]))
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(cases)), 4))
    width = 0.8 / max(1, len(policies))
    for i, policy in enumerate(policies):
        ys = []
        for case in cases:
            g = sub[(sub["case"] == case) & (sub["policy"] == policy)]
            tseq = seq_time(df, case)
            t = g["time_s"].median() if len(g) else float("nan")
            ys.append(t / tseq if tseq else t)
        ax.bar([c + i * width for c in range(len(cases))], ys, width, label=policy)
    ax.set_xticks([c + width * (len(policies) - 1) / 2 for c in range(len(cases))])
    ax.set_xticklabels(cases, rotation=20, ha="right", fontsize=7)
    ax.set_ylabel("time / sequential time" if all(seq_time(df, c) for c in cases) else "time (s)")
    ax.axhline(0.5, ls=":", color="grey")
    ax.set_yscale("log")  # fib's help-first is ~100x its sequential time; sor's ~0.5x
    ax.set_title(f"spawn policies, {int(sub['workers'].max())} workers (lower is better; dotted: ideal)")
    ax.legend(fontsize=8)
    write_png(fig, out)


def base_case(r):
    """The row's case without its --cutoff: the cases a cutoff sweep compares."""
    return r["app"] + " " + re.sub(r"\s*--cutoff\s+\d+", "", r["app_args"]).strip()


def cutoff_series(df):
    """(case, series, x, time): BoundedQ rows give x = --queue-bound, TreeDepth rows x = tree depth."""
    rows = []
    for _, r in df[df["impl"] == "heist"].iterrows():
        case = base_case(r).strip()
        if r["label"].endswith("boundedq"):
            rows.append((case, "BoundedQ", number(r["variant"], "--queue-bound"), r["time_s"]))
        elif r["label"].endswith("treedepth"):
            cutoff = number(r["app_args"], "--cutoff")
            if r["app"] == "fib":  # fib --cutoff C stops spawning at n < C: tree depth n - C
                cutoff = number(r["app_args"], "--n") - cutoff
            rows.append((case, "TreeDepth", cutoff, r["time_s"]))
    return pd.DataFrame(rows, columns=["case", "series", "x", "time_s"])


def plot_cutoff(df, out):
    s = cutoff_series(df)
    cases = list(dict.fromkeys(s["case"]))
    fig, axes = subplots(len(cases), 5, 3.6)
    for ax, case in zip(axes, cases):
        for series, g in s[s["case"] == case].groupby("series"):
            g = g.groupby("x")["time_s"].median()
            ax.plot(g.index, g.values, marker="o", label=series)
        ax.set_xscale("log", base=2)
        ax.set_title(case, fontsize=9)
        ax.set_xlabel("depth of task queue (BoundedQ) / of task tree (TreeDepth)")
        ax.set_ylabel("time (s)")
        ax.legend(fontsize=8)
    fig.suptitle("runtime bounded queue vs application tree-depth cutoff (HotSLAW Fig. 7)", fontsize=10)
    write_png(fig, out)


FIG8_SERIES = {"fig8-unbounded": "unbounded queue (help-first)", "fig8-bounded": "bounded queue (40, HotSLAW)",
               "fig8-heist": "heist default (bounded + demand)"}


def plot_best(df, out):
    """Fig. 8: per case, the best time over its cutoffs, per series (sweep label), over the sequential time."""
    df = df.assign(base=df.apply(base_case, axis=1))
    sub = df[df["label"].isin(FIG8_SERIES)].copy()
    sub["series"] = sub["label"].map(FIG8_SERIES)
    best = sub.groupby(["base", "series"])["time_s"].min().unstack()[[v for v in FIG8_SERIES.values()
                                                                      if v in set(sub["series"])]]
    seqs = {b: df[(df["base"] == b) & (df["impl"] == "seq")]["time_s"].median() for b in best.index}
    norm = best.apply(lambda col: [v / seqs[b] if seqs[b] == seqs[b] else v for b, v in col.items()])
    ax = norm.plot.bar(figsize=(max(6, 1.3 * len(best)), 4))
    ax.set_ylabel("best time / sequential time")
    ax.axhline(0.5, ls=":", color="grey")
    ax.set_xlabel("")
    ax.set_xticklabels(best.index, rotation=20, ha="right", fontsize=7)
    ax.set_title("each at its best tree-depth cutoff, 2 workers (HotSLAW Fig. 8; dotted: ideal)", fontsize=9)
    ax.legend(fontsize=7)
    write_png(ax.figure, out)


def table1(df, out):
    sub = df[(df["impl"] == "heist") & (df["tasks_created"] != "")]
    lines = ["| benchmark | tasks created | avg. task time | input / output bytes | task creation ovhd. "
             "(inline) | steals | tasks serialized (%) |", "|---|---|---|---|---|---|---|"]
    for _, r in sub.iterrows():
        io = json.loads(r["task_io"]) if "task_io" in r and r["task_io"] else []
        sizes = ", ".join(f"{t['input_bytes']}/{t['output_bytes']}" for t in io)
        created = int(r["tasks_created"])
        share = float(r["tasks_serialized_share"])
        steals = int(r["steals"]) + int(r["remote_steals"] or 0)
        lines.append(f"| {r['case']} | {created:,} | {float(r['avg_task_time_us']):.3f} us | {sizes} | "
                     f"{float(r['task_creation_overhead_us']):.3f} us ({float(r['inline_overhead_us']):.4f} us) | "
                     f"{steals:,} | {int(r['tasks_inlined']):,} ({100 * share:.1f}%) |")
    markdown(lines, out)


def plot_table(df, out):
    df = with_case(ok_rows(df))
    keys = [k for k in ("label", "case", "impl", "workers", "ranks", "policy", "series", "variant") if k in df]
    lines = ["| " + " | ".join(keys) + " | runs | median (s) |", "|" + "---|" * (len(keys) + 2)]
    for key, g in df.groupby(keys, sort=False):
        lines.append("| " + " | ".join(str(k) for k in key) + f" | {len(g)} | {g['time_s'].median():.4g} |")
    markdown(lines, out)
