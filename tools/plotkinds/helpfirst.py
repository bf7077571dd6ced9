"""The HelpFirst paper's figures from a whole sweep CSV (every round, failed
runs included): fib by sequential threshold (Fig. 12), spanning-tree
throughput (Fig. 13) and SOR speedup (Fig. 7)."""
import json
import sys

from .common import numeric, number, ok_rows, plt, save, with_case


def plot_fib_threshold(df, out):
    df = with_case(ok_rows(df))
    df = df[(df["app"] == "fib") & df["app_args"].str.contains("--cutoff")]
    if df.empty:
        sys.exit("plot: fib-threshold needs fib rows with --cutoff")
    df = df.assign(threshold=[number(a, "--cutoff") - 1 for a in df["app_args"]])
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


def plot_spantree(df, out):
    df = numeric(df[df["app"] == "spantree"], "time_s", "workers")
    if df.empty:
        sys.exit("plot: spantree needs spantree rows")
    df = df.assign(vertices=[number(a, "--vertices") for a in df["app_args"]])
    edges = {}
    for _, r in df.iterrows():
        if r.get("extra"):
            edges[r["vertices"]] = json.loads(r["extra"]).get("undirected_edges", edges.get(r["vertices"]))
    good = ok_rows(df)
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
