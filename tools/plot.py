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

Only verified rows are plotted; --label LABEL keeps one grid of a sweep.
"""
import argparse
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

IMPL_NAMES = {"heist": "heist", "tbb": "oneTBB", "omp": "OpenMP", "seq": "sequential"}


def load(path):
    df = pd.read_csv(path, keep_default_na=False)
    df = df[df["verified"].astype(str) == "True"].copy()
    for col in ("time_s", "workers", "ranks"):
        df[col] = pd.to_numeric(df[col])
    df["case"] = (df["app"] + " " + df["app_args"]).str.strip()
    return df


def number(text, flag):
    m = re.search(re.escape(flag) + r"\s+(\d+)", text)
    return int(m.group(1)) if m else None


def subplots(n, width=4.2, height=3.4):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


_COLORS = {}


def color_of(label):
    """One colour per series label across every subplot."""
    return _COLORS.setdefault(label, plt.get_cmap("tab10")(len(_COLORS) % 10))


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
    fig.tight_layout()
    fig.savefig(out, dpi=110)


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
    fig.tight_layout()
    fig.savefig(out, dpi=110)


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
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def cutoff_series(df):
    """(case, series, x, time): BoundedQ rows give x = --queue-bound, TreeDepth rows x = tree depth."""
    rows = []
    for _, r in df[df["impl"] == "heist"].iterrows():
        app_base = re.sub(r"\s*--cutoff\s+\d+", "", r["app_args"]).strip()
        case = f"{r['app']} {app_base}".strip()
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
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def base_case(r):
    return f"{r['app']} " + re.sub(r"\s*--cutoff\s+\d+", "", r["app_args"]).strip()


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
    ax.figure.tight_layout()
    ax.figure.savefig(out, dpi=110)


def read_trace(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def plot_queue(path, out):
    events = [e for e in read_trace(path) if e["ph"] == "C"]
    if not events:
        sys.exit("plot: the trace has no queue-length samples")
    t0 = min(e["ts"] for e in events)
    fig, ax = plt.subplots(figsize=(8, 3.5))
    for pid, name in sorted({(e["pid"], e["name"]) for e in events}):
        s = sorted((e["ts"], e["args"]["tasks"]) for e in events if e["name"] == name and e["pid"] == pid)
        ax.step([(t - t0) / 1000 for t, _ in s], [v for _, v in s], where="post",
                label=f"rank {pid}, " + name.replace("queue length, ", ""))
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("tasks in the queue")
    ax.set_title("queue length over time (sampled)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_timeline(path, out, start_ms=None, span_ms=None):
    events = read_trace(path)
    tracks = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            tracks[(e["pid"], e["tid"])] = f"rank {e['pid']} {e['args']['name']}"
    order = sorted(tracks)
    row = {k: i for i, k in enumerate(order)}
    timed = [e for e in events if e["ph"] in "XC"]
    t0 = min(e["ts"] for e in timed)
    lo = (start_ms or 0.0) * 1000 + t0
    hi = lo + span_ms * 1000 if span_ms else max(e["ts"] + e.get("dur", 0) for e in timed)
    fig, (ax, axq) = plt.subplots(2, 1, figsize=(12, 1.0 + 0.6 * len(order) + 2.2), sharex=True,
                                  gridspec_kw={"height_ratios": [max(1, len(order)), 2]})
    colors = plt.get_cmap("tab10")
    names = {}
    for e in events:
        if e["ph"] != "X" or e["cat"] != "task" or e["ts"] + e["dur"] < lo or e["ts"] > hi:
            continue
        c = names.setdefault(e["name"], colors(len(names) % 10))
        ax.broken_barh([((e["ts"] - t0) / 1000, e["dur"] / 1000)], (row[(e["pid"], e["tid"])] - 0.35, 0.7),
                       facecolors=c, edgecolors="black", linewidth=0.2, alpha=0.75)
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    for e in events:
        if e["ph"] == "f" and e["id"] in starts and lo <= e["ts"] <= hi:
            s = starts[e["id"]]
            ax.annotate("", xy=((e["ts"] - t0) / 1000, row[(e["pid"], e["tid"])]),
                        xytext=((s["ts"] - t0) / 1000, row[(s["pid"], s["tid"])]),
                        arrowprops=dict(arrowstyle="->", color="crimson", lw=0.8))
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels([tracks[k] for k in order], fontsize=8)
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, alpha=0.75) for c in names.values()]
    handles.append(plt.Line2D([0], [0], color="crimson", marker=">", lw=0.8))
    ax.legend(handles, list(names) + ["steal (victim -> thief)"], fontsize=7, loc="upper right")
    ax.set_title(f"{path}: task spans and steals")
    for pid, name in sorted({(e["pid"], e["name"]) for e in events if e["ph"] == "C"}):
        s = sorted((e["ts"], e["args"]["tasks"]) for e in events if e["ph"] == "C" and e["name"] == name
                   and e["pid"] == pid and lo <= e["ts"] <= hi)
        if s:
            axq.step([(t - t0) / 1000 for t, _ in s], [v for _, v in s], where="post",
                     label=f"rank {pid}, " + name.replace("queue length, ", ""))
    axq.set_ylabel("queue length")
    axq.set_xlabel("time (ms)")
    axq.legend(fontsize=7)
    axq.set_xlim((lo - t0) / 1000, (hi - t0) / 1000)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


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
    text = "\n".join(lines) + "\n"
    if out:
        open(out, "w").write(text)
    print(text, end="")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["speedup", "breakdown", "policies", "cutoff", "best", "queue", "timeline",
                                         "table1"])
    parser.add_argument("input", help="CSV from tools/sweep.py, or a --trace file")
    parser.add_argument("-o", "--output", help="PNG (or .md for table1)")
    parser.add_argument("--start-ms", type=float, help="timeline: first millisecond shown")
    parser.add_argument("--span-ms", type=float, help="timeline: milliseconds shown")
    parser.add_argument("--label", help="CSV plots: only rows with this sweep label (and the seq rows)")
    args = parser.parse_args()
    if args.kind in ("queue", "timeline"):
        if not args.output:
            sys.exit("plot: -o PNG required")
        if args.kind == "queue":
            plot_queue(args.input, args.output)
        else:
            plot_timeline(args.input, args.output, args.start_ms, args.span_ms)
        return
    df = load(args.input)
    if args.label:
        df = df[(df["label"] == args.label) | (df["impl"] == "seq")]
    if args.kind == "table1":
        return table1(df, args.output)
    if not args.output:
        sys.exit("plot: -o PNG required")
    {"speedup": plot_speedup, "breakdown": plot_breakdown, "policies": plot_policies, "cutoff": plot_cutoff,
     "best": plot_best}[args.kind](df, args.output)


if __name__ == "__main__":
    main()
