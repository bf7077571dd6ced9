"""Simulator kinds of tools/plot.py (rows of `impl = "sim"` grids; series: the
variant's name, name: the app's): a node sweep, HotSLAW Figures 10-13, SWS
(SDC vs SWS) and HabaneroUPC++ (BaselineWS vs SuccessOnlyWS), each with its
tables on stdout."""
import json
import re
import sys

import pandas as pd

from .common import derived, geomean, numeric, ok_rows, plt, save

HOTSLAW_APPS = ["FIB", "NQueens", "UTS(T1L)", "UTS(T2L)", "UTS(T3L)"]
# HotSLAW §5.2-5.3 (256 cores): speedups the paper gives in its text.
PAPER_HVS = dict(zip(HOTSLAW_APPS, [179.5, 247.8, 200.1, 222.5, 98.8]))
PAPER_HCS = dict(zip(HOTSLAW_APPS, [172.2, 240.1, 194.2, 202.9, 68.3]))
PAPER_RANDOM_HALF = dict(zip(HOTSLAW_APPS, [82.7, 222.5, 121.0, 159.2, 64.9]))
CHUNKS = [1, 2, 4, 8, 16]


def sim_rows(df):
    """Simulation rows with a display name (the app table's name, or the app)."""
    if "impl" in df:
        df = df[df["impl"] == "sim"]
    df = numeric(ok_rows(df), "workers", "nodes", "speedup", "time_s", "steals", "steal_s", "search_s",
                 "internode_failed")
    names = df["name"] if "name" in df else pd.Series([""] * len(df), index=df.index)
    return df.assign(name=[n or a for n, a in zip(names, df["app"])])


def paired_by_nodes(d, first, second):
    """(nodes, row of series `first`, row of series `second`) for every node
    count that has both, in increasing node count."""
    for n in sorted(d["nodes"].unique()):
        a = d[(d["nodes"] == n) & (d["series"] == first)]
        b = d[(d["nodes"] == n) & (d["series"] == second)]
        if not a.empty and not b.empty:
            yield n, a.iloc[0], b.iloc[0]


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
        for n, sdc, sws in paired_by_nodes(d, "sdc", "sws"):
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
        for n, base, so in paired_by_nodes(d, "hvs", "success-only"):
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


def busy_reports(paths):
    """The `heist sim --json --busy-profile N` reports in these files (one
    JSON object a line; lines that are not reports with a profile are
    skipped), each with a label: app, machine, victim."""
    reports = []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if "busy_profile" not in r:
                    continue
                m, p = r["machine"], r["params"]
                label = (f"{r['app']}, {m['nodes']} x {m['sockets']} x {m['cores_per_socket']}, "
                         f"{p.get('victim', '')}")
                reports.append((label, r))
    return reports


def plot_busy(paths, out):
    """The share of workers running tasks over simulated time, one line per
    report (`heist sim --busy-profile N --json`), and dashed in the same
    colour the share inside steals from another process (`remote`) where the
    run had several."""
    reports = busy_reports(paths)
    if not reports:
        sys.exit("plot busy: no report with a busy_profile (run heist sim with --busy-profile N --json)")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for label, r in reports:
        width_ms = r["busy_profile"]["bucket_s"] * 1e3
        shares = r["busy_profile"]["busy"]
        xs = [i * width_ms for i in range(len(shares) + 1)]
        line, = ax.step(xs, shares + shares[-1:], where="post", label=f"{label}: {r['time_s'] * 1e3:.3g} ms")
        remote = r["busy_profile"].get("remote", [])
        if any(remote):
            ax.step(xs, remote + remote[-1:], where="post", linestyle="--", color=line.get_color(),
                    label=f"{label}: stealing from another process")
        print(f"{label}: {r['time_s'] * 1e3:.4g} ms simulated, mean busy share "
              f"{sum(shares) / len(shares):.2f}"
              + (f", mean share stealing across processes {sum(remote) / len(remote):.2f}" if remote else ""))
    ax.set_xlabel("simulated time (ms)")
    ax.set_ylabel("share of workers")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    save(fig, out)
