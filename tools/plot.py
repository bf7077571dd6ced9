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

The configs that make each committed figure live beside it (docs/results/*.toml,
docs/results/sim/*.toml; tools/sweep.py runs them).

Only verified rows are plotted; --label LABEL keeps one grid of a sweep.
"""
import argparse
import json
import math
import os
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


# ---------------------------------------------------------------- whole-CSV kinds
# These read the sweep's CSV as written (every round a row, failed runs
# included) and take medians themselves; the simulator kinds read the rows of
# `impl = "sim"` grids (series: the variant's name, name: the app's).

HOTSLAW_APPS = ["FIB", "NQueens", "UTS(T1L)", "UTS(T2L)", "UTS(T3L)"]
# HotSLAW §5.2-5.3 (256 cores): speedups the paper gives in its text.
PAPER_HVS = dict(zip(HOTSLAW_APPS, [179.5, 247.8, 200.1, 222.5, 98.8]))
PAPER_HCS = dict(zip(HOTSLAW_APPS, [172.2, 240.1, 194.2, 202.9, 68.3]))
PAPER_RANDOM_HALF = dict(zip(HOTSLAW_APPS, [82.7, 222.5, 121.0, 159.2, 64.9]))
CHUNKS = [1, 2, 4, 8, 16]


def numeric(df, *cols):
    df = df.copy()
    for c in cols:
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def ok_rows(df):
    if "verified" not in df:
        return df
    return df[df["verified"].astype(str) == "True"]


def sim_rows(df):
    """Simulation rows with a display name (the app table's name, or the app)."""
    if "impl" in df:
        df = df[df["impl"] == "sim"]
    df = numeric(ok_rows(df), "workers", "nodes", "speedup", "time_s", "steals", "steal_s", "search_s",
                 "internode_failed")
    names = df["name"] if "name" in df else pd.Series([""] * len(df), index=df.index)
    return df.assign(name=[n or a for n, a in zip(names, df["app"])])


def with_case(df):
    df = numeric(df, "time_s", "workers", "ranks")
    return df.assign(case=(df["app"] + " " + df["app_args"]).str.strip())


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"<!-- wrote {path} -->")


def derived(out, suffix):
    """DIR/stem.png -> DIR/stem-SUFFIX.png: the figures of a multi-figure kind."""
    stem, ext = os.path.splitext(out)
    return f"{stem}-{suffix}{ext or '.png'}"


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def markdown(lines, out):
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    print(text, end="")


def plot_table(df, out):
    df = with_case(ok_rows(df))
    keys = [k for k in ("label", "case", "impl", "workers", "ranks", "policy", "series", "variant") if k in df]
    lines = ["| " + " | ".join(keys) + " | runs | median (s) |", "|" + "---|" * (len(keys) + 2)]
    for key, g in df.groupby(keys, sort=False):
        lines.append("| " + " | ".join(str(k) for k in key) + f" | {len(g)} | {g['time_s'].median():.4g} |")
    markdown(lines, out)


def cutoff_of(args):
    m = re.search(r"--cutoff\s+(\d+)", args)
    return int(m.group(1)) if m else None


def plot_fib_threshold(df, out):
    df = with_case(ok_rows(df))
    df = df[(df["app"] == "fib") & df["app_args"].str.contains("--cutoff")]
    if df.empty:
        sys.exit("plot: fib-threshold needs fib rows with --cutoff")
    df = df.assign(threshold=[cutoff_of(a) - 1 for a in df["app_args"]])
    thresholds = sorted(df["threshold"].unique())
    policies = [p for p in dict.fromkeys(df[df["impl"] == "heist"]["policy"])]
    fig, ax = plt.subplots(figsize=(6, 4))
    width = 0.8 / max(1, len(policies))
    for i, policy in enumerate(policies):
        g = df[(df["impl"] == "heist") & (df["policy"] == policy)].groupby("threshold")["time_s"].median()
        ax.bar([x + (i - (len(policies) - 1) / 2) * width for x in range(len(thresholds))],
               [g.get(t, float("nan")) for t in thresholds], width, label=policy)
    ax.set_xticks(range(len(thresholds)), [str(t) for t in thresholds])
    ax.set_xlabel("threshold T (calls with n <= T are sequential)")
    ax.set_ylabel("time (s), median, log scale")
    ax.set_yscale("log")
    ax.set_title(f"{df['case'].iloc[0].split(' --cutoff')[0]}, HelpFirst Fig. 12")
    ax.legend()
    save(fig, out)


def vertices_of(args):
    m = re.search(r"--vertices\s+(\d+)", args)
    return int(m.group(1)) if m else None


def plot_spantree(df, out):
    df = numeric(df[df["app"] == "spantree"], "time_s", "workers")
    if df.empty:
        sys.exit("plot: spantree needs spantree rows")
    df = df.assign(vertices=[vertices_of(a) for a in df["app_args"]])
    edges = {}
    for _, r in df.iterrows():
        if r.get("extra"):
            edges[r["vertices"]] = json.loads(r["extra"]).get("undirected_edges", edges.get(r["vertices"]))
    good = df[df["verified"].astype(str) == "True"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for (impl, policy, w), g in df.groupby(["impl", "policy", "workers"]):
        label = "sequential" if impl == "seq" else f"{policy}, {w} worker{'s' if w > 1 else ''}"
        style = "k:" if impl == "seq" else ("s" if policy == "work-first" else "o") + ("-" if w > 1 else "--")
        ok = good[(good["impl"] == impl) & (good["policy"] == policy) & (good["workers"] == w)]
        med = ok.groupby("vertices")["time_s"].median()
        pts = [(v, edges[v] / t / 1e6) for v, t in med.items() if v in edges]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        failed = set(g["vertices"]) - set(med.index)
        for v in sorted(failed):
            ax.annotate("failed", (v, 0), textcoords="offset points", xytext=(0, 8 + 12 * (w - 1)), ha="center",
                        fontsize=7, color="tab:red")
            ax.plot([v], [0], "rx")
    ax.set_xscale("log")
    ax.set_xlabel("vertices")
    ax.set_ylabel("MEdges/s")
    ax.set_title("spanning tree throughput (HelpFirst Fig. 13)")
    ax.legend(fontsize=8)
    save(fig, out)


def plot_sor(df, out):
    df = with_case(ok_rows(df))
    df = df[df["app"] == "sor"]
    seq = df[df["impl"] == "seq"]["time_s"].median()
    if df.empty or not seq == seq:
        sys.exit("plot: sor needs sor rows with a seq run")
    heist = df[df["impl"] == "heist"]
    fig, ax = plt.subplots(figsize=(5, 4))
    for policy, g in heist.groupby("policy"):
        med = g.groupby("workers")["time_s"].median()
        ax.plot(med.index, seq / med.values, "o-" if policy == "help-first" else "s-", label=policy)
    top = int(heist["workers"].max())
    ax.plot([1, top], [1, top], "k:", label="linear")
    ax.set_xticks(range(1, top + 1))
    ax.set_xlabel("workers (P chunks per colour)")
    ax.set_ylabel("speedup over the sequential SOR")
    ax.set_title("SOR (HelpFirst Fig. 7)")
    ax.legend()
    save(fig, out)


def level_text(levels, name):
    lv = json.loads(levels).get(name, {}) if levels else {}
    return f"{lv.get('successes', '?')}/{lv.get('attempts', '?')}"


def median_row(g):
    ordered = g.sort_values("time_s")
    return ordered.iloc[(len(ordered) - 1) // 2]


def plot_locality(df, out):
    df = numeric(with_case(ok_rows(df)), "hosts")
    df = df[(df["ranks"] > 1) & (df["hosts"].fillna(0) == 0)]  # mpirun runs; a cluster's are `cluster`'s
    lines = ["| configuration (protocol) | runs | time s (median) | min..max | node steals ok/tried | "
             "machine steals ok/tried | failed inter-node | tasks pushed | RMA ops across nodes |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (series, protocol), g in df.groupby(["series", "protocol"], sort=False):
        mid = median_row(g)
        lines.append(f"| {series or mid['variant']} ({protocol}) | {len(g)} | {g['time_s'].median():.3f} | "
                     f"{g['time_s'].min():.2f}..{g['time_s'].max():.2f} | {level_text(mid['levels'], 'node')} | "
                     f"{level_text(mid['levels'], 'machine')} | {mid['failed_steals_inter_node']} | "
                     f"{mid['tasks_pushed'] or 0} | {mid['rma_inter_node']} |")
    markdown(lines, out)


def plot_cluster(df, out):
    df = numeric(with_case(ok_rows(df)), "hosts")
    df = df[df["hosts"] > 0]
    lines = ["| app | hosts | delay (us) | config | runs | time (s) | inter-node steals | failed inter-node | "
             "tasks stolen across nodes | tasks executed per rank |", "|---|---|---|---|---|---|---|---|---|---|"]
    for (case, hosts, delay, series), g in df.groupby(["case", "hosts", "delay_us", "series"], sort=False):
        mid = median_row(g)
        machine = json.loads(mid["levels"]).get("machine", {}) if mid["levels"] else {}
        per_rank = " / ".join(str(r["tasks_executed"]) for r in json.loads(mid["per_rank"] or "[]"))
        lines.append(f"| {case} | {hosts} | {delay} | {series or mid['variant']} | {len(g)} | "
                     f"{g['time_s'].median():.4f} | {machine.get('successes', '?')} | "
                     f"{mid['failed_steals_inter_node']} | {machine.get('tasks', '?')} | {per_rank} |")
    markdown(lines, out)


def plot_sim_sweep(df, out):
    df = numeric(df, "workers", "speedup", "efficiency")
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(df["workers"], df["speedup"], "o-", label="simulated")
    ax[0].plot(df["workers"], df["workers"], "k:", label="ideal")
    ax[0].set_xscale("log", base=2)
    ax[0].set_yscale("log", base=2)
    ax[0].set_xlabel("workers")
    ax[0].set_ylabel("speedup over one worker")
    ax[0].legend()
    ax[1].plot(df["workers"], df["efficiency"], "o-")
    ax[1].set_xscale("log", base=2)
    ax[1].set_ylim(0, 1.05)
    ax[1].set_xlabel("workers")
    ax[1].set_ylabel("efficiency")
    save(fig, out)


def plot_hotslaw(df, out):
    df = sim_rows(df)
    by = {(r.name, r.series): r for r in df.itertuples()}
    apps = [a for a in dict.fromkeys(df["name"]) if (a, "hvs+half") in by]
    if not apps:
        sys.exit("plot: hotslaw needs sim rows with series fixed:K, hcs:K, hvs+half, random+half, random:K, intra-node:K")
    chunks = [k for k in CHUNKS if any((a, f"fixed:{k}") in by for a in apps)]

    # Figure 10: Random / HVS / Intra-Node at HVS's best fixed chunk, normalised to Random.
    print("\n#### Figure 10: victim selection, speedup normalised to Random\n")
    print("| app | best chunk | Random | HVS | Intra-Node | HVS speedup (sim) | HVS speedup (paper) |")
    print("|---|---|---|---|---|---|---|")
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.27
    for i, app in enumerate(apps):
        k = max(chunks, key=lambda c: by[(app, f"fixed:{c}")].speedup if (app, f"fixed:{c}") in by else -1)
        rnd, hvs, intra = by[(app, f"random:{k}")], by[(app, f"fixed:{k}")], by[(app, f"intra-node:{k}")]
        values = [1.0, hvs.speedup / rnd.speedup, intra.speedup / rnd.speedup]
        for j, v in enumerate(values):
            ax.bar(i + (j - 1) * width, v, width, color=f"C{j}",
                   label=["Random", "HVS", "Intra-Node"][j] if i == 0 else None)
        print(f"| {app} | {k} | 1.00 | {values[1]:.2f} | {values[2]:.2f} | {hvs.speedup:.1f} | "
              f"{PAPER_HVS.get(app, '')} |")
    ax.set_xticks(range(len(apps)), apps)
    ax.set_ylabel("speedup / Random's")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)
    ax.legend(loc="upper left", ncol=3, fontsize=8)
    ax.set_title("HotSLAW Figure 10 (simulated): victim selection")
    save(fig, derived(out, "fig10"))

    # Figures 11 and 12: speedup vs chunk size, fixed and HCS.
    for fig_no, prefix, title in ((11, "fixed", "Fixed-Chunk (HVS)"), (12, "hcs", "HCS (HVS)")):
        print(f"\n#### Figure {fig_no}: {title}, speedup by chunk size\n")
        print("| app | " + " | ".join(f"chunk {k}" for k in chunks) + " |")
        print("|---|" + "---|" * len(chunks))
        fig, ax = plt.subplots(figsize=(6, 4))
        for app in apps:
            ys = [by[(app, f"{prefix}:{k}")].speedup for k in chunks]
            ax.plot(chunks, ys, "o-", label=app)
            print(f"| {app} | " + " | ".join(f"{y:.1f}" for y in ys) + " |")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("chunk size")
        ax.set_ylabel("speedup over one worker")
        ax.set_title(f"HotSLAW Figure {fig_no} (simulated): {title}")
        ax.legend(fontsize=8)
        save(fig, derived(out, f"fig{fig_no}"))

    # Figure 13: Fixed-Chunk (best), StealHalf, HCS (chunk 1), Random+StealHalf.
    print("\n#### Figure 13: chunk selection methods, simulated [paper]\n")
    print("| app | Fixed-Chunk (best) | StealHalf (HVS) | HCS (1) | Random+StealHalf |")
    print("|---|---|---|---|---|")
    series = {"Fixed-Chunk (best)": [], "StealHalf": [], "HCS": [], "Random+StealHalf": []}
    for app in apps:
        best = max(by[(app, f"fixed:{k}")].speedup for k in chunks)
        half, hcs, rnd = by[(app, "hvs+half")].speedup, by[(app, "hcs:1")].speedup, by[(app, "random+half")].speedup
        for key, v in zip(series, (best, half, hcs, rnd)):
            series[key].append(v)
        print(f"| {app} | {best:.1f} | {half:.1f} | {hcs:.1f} [{PAPER_HCS.get(app, '')}] | "
              f"{rnd:.1f} [{PAPER_RANDOM_HALF.get(app, '')}] |")
    print("| geometric mean | " + " | ".join(f"{geomean(v):.1f}" for v in series.values()) + " |")
    fig, ax = plt.subplots(figsize=(8, 3.5))
    width = 0.2
    for j, (key, values) in enumerate(series.items()):
        ax.bar([i + (j - 1.5) * width for i in range(len(apps))], values, width, label=key)
    for j, paper, label in ((2, PAPER_HCS, "paper (HCS, Random+StealHalf)"), (3, PAPER_RANDOM_HALF, None)):
        known = [(i, paper[a]) for i, a in enumerate(apps) if a in paper]
        if known:
            ax.plot([i + (j - 1.5) * width for i, _ in known], [v for _, v in known], "k_", ms=14, mew=2, label=label)
    ax.set_xticks(range(len(apps)), apps)
    ax.set_ylabel("speedup over one worker")
    ax.set_title("HotSLAW Figure 13 (simulated): chunk selection")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)
    ax.legend(fontsize=8, ncol=3, loc="upper right")
    save(fig, derived(out, "fig13"))


def plot_sws(df, out):
    df = sim_rows(df)
    if df.empty:
        sys.exit("plot: sws needs sim rows with series sdc and sws")
    df = df.assign(steal_us=df["steal_s"] / df["steals"].clip(lower=1) * 1e6)
    for app in dict.fromkeys(df["name"]):
        d = df[df["name"] == app]
        print(f"\n#### {app}: SDC vs SWS\n")
        print("| nodes | cores | time SDC (s) | time SWS (s) | SWS/SDC time | steal us/steal SDC | SWS | SWS/SDC | "
              "search s SDC | SWS |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for n in sorted(d["nodes"].unique()):
            sdc = d[(d["nodes"] == n) & (d["series"] == "sdc")]
            sws = d[(d["nodes"] == n) & (d["series"] == "sws")]
            if sdc.empty or sws.empty:
                continue
            sdc, sws = sdc.iloc[0], sws.iloc[0]
            print(f"| {n} | {sdc.workers} | {sdc.time_s:.4f} | {sws.time_s:.4f} | {sws.time_s / sdc.time_s:.3f} | "
                  f"{sdc.steal_us:.1f} | {sws.steal_us:.1f} | {sws.steal_us / sdc.steal_us:.2f} | "
                  f"{sdc.search_s:.2f} | {sws.search_s:.2f} |")
        fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
        for proto in ("sdc", "sws"):
            p = d[d["series"] == proto].sort_values("workers")
            ax[0].plot(p["workers"], p["steal_us"], "o-", label=proto.upper())
            ax[1].plot(p["workers"], p["search_s"], "o-", label=proto.upper())
            ax[2].plot(p["workers"], p["speedup"] / p["workers"], "o-", label=proto.upper())
        for a, label in zip(ax, ("time per successful steal (us)", "search time, all workers (s)", "efficiency")):
            a.set_xscale("log", base=2)
            a.set_xlabel("processes")
            a.set_ylabel(label)
            a.legend()
        fig.suptitle(f"SWS (simulated): {app}")
        save(fig, derived(out, re.sub(r"[^a-z0-9]", "", app.lower())))


def plot_habanero(df, out):
    df = sim_rows(df)
    if df.empty:
        sys.exit("plot: habanero needs sim rows with series hvs and success-only")
    print("\n#### BaselineWS (HVS) vs SuccessOnlyWS\n")
    print("| app | nodes | cores | inter-node failed steals, baseline | SuccessOnly | speedup baseline | SuccessOnly | "
          "SuccessOnly / baseline |")
    print("|---|---|---|---|---|---|---|---|")
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
    for app in dict.fromkeys(df["name"]):
        d = df[df["name"] == app]
        xs, fails, gains = [], [], []
        for n in sorted(d["nodes"].unique()):
            base = d[(d["nodes"] == n) & (d["series"] == "hvs")]
            so = d[(d["nodes"] == n) & (d["series"] == "success-only")]
            if base.empty or so.empty:
                continue
            base, so = base.iloc[0], so.iloc[0]
            print(f"| {app} | {n} | {base.workers} | {base.internode_failed} | {so.internode_failed} | "
                  f"{base.speedup:.1f} | {so.speedup:.1f} | {so.speedup / base.speedup:.3f} |")
            xs.append(base.workers)
            fails.append(base.internode_failed)
            gains.append(so.speedup / base.speedup)
        ax[0].plot(xs, fails, "o-", label=app)
        ax[1].plot(xs, gains, "o-", label=app)
    ax[0].set_ylabel("inter-node failed steals, baseline")
    ax[1].set_ylabel("SuccessOnly speedup / baseline's")
    ax[1].axhline(1.0, color="k", lw=0.5)
    for a in ax:
        a.set_xscale("log", base=2)
        a.set_xlabel("cores")
        a.legend(fontsize=8)
    save(fig, out)


RAW_KINDS = {"table": plot_table, "fib-threshold": plot_fib_threshold, "spantree": plot_spantree, "sor": plot_sor,
             "locality": plot_locality, "cluster": plot_cluster, "sim-sweep": plot_sim_sweep,
             "hotslaw": plot_hotslaw, "sws": plot_sws, "habanero": plot_habanero}
PLOT_KINDS = {"fib-threshold", "spantree", "sor", "sim-sweep", "hotslaw", "sws", "habanero"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["speedup", "breakdown", "policies", "cutoff", "best", "queue", "timeline",
                                         "table1", *RAW_KINDS])
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
    if args.kind in RAW_KINDS:  # CSVs read whole: failed rows, rounds and simulations included
        df = pd.read_csv(args.input, keep_default_na=False)
        if args.label:
            df = df[df["label"] == args.label]
        if args.kind in PLOT_KINDS and not args.output:
            sys.exit("plot: -o PNG required")
        return RAW_KINDS[args.kind](df, args.output)
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
