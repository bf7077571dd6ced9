#!/usr/bin/env python3
"""Work-first (continuation stealing) against help-first: the measurements of
issue 9 and HelpFirst §5.2.

  /usr/bin/python3 tools/bench_workfirst.py --build build --repeat 7 --out docs/results [--only fib35,fig12,fig13,fig7]

(Debian's python3 has matplotlib: python3-matplotlib.)

Sections:
  fib35  fib(35) without cutoff: T1/Tseq for work-first, help-first and inline,
         and T1/T2 (the issue's targets); also the cost of exposing every spawn
  fig12  HelpFirst Figure 12: fib(40) with thresholds 5, 10, 15, 20 (calls with
         n <= T are sequential: --cutoff T+1), work-first vs help-first, 2 workers
  fig13  HelpFirst Figure 13: spanning-tree throughput (MEdges/s) for graphs up
         to 9M vertices, work-first vs help-first, 1 and 2 workers; a run that
         fails (work-first out of stack) is recorded with its message
  fig7   HelpFirst Figure 7: SOR speedup over the sequential version, P chunks
         per colour for P workers, under both policies
  depth  work-first, 2 workers, by --expose-depth (0: only on request) for
         fib(35), nqueens(13) and uts T1: the choice of the default

Timings are medians. fib35, fig12 and fig7 run their configurations in
rounds (each round runs every configuration once, --repeat 1), so slow
periods of a shared machine hit all of them alike; fig13 builds each graph
once per process and uses the binary's median of --repeat runs. Writes
workfirst.json and the figures (PNG, matplotlib) to --out and prints
Markdown tables.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run(cmd, allow_fail=False):
    out = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if out.returncode != 0:
        if allow_fail:
            return {"failed": True, "error": (out.stderr.strip().splitlines() or ["?"])[-1]}
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    if not report["verified"]:
        sys.exit(f"not verified: {' '.join(cmd)}")
    return report


def rounds(heist, configs, repeat):
    """configs: name -> argument list for `heist bench`; returns name -> list of times."""
    times = {name: [] for name in configs}
    last = {}
    for _ in range(repeat):
        for name, args in configs.items():
            r = run([heist, "bench", *args, "--repeat", "1", "--json"])
            times[name].append(r["time_s"])
            last[name] = r
    return times, last


def med(xs):
    return statistics.median(xs)


def fib35(heist, repeat):
    base = ["fib", "--n", "35", "--cutoff", "0"]
    configs = {
        "seq": base + ["--seq"],
        "work-first 1w": base + ["--policy", "work-first", "--workers", "1"],
        "work-first 2w": base + ["--policy", "work-first", "--workers", "2"],
        "help-first 1w": base + ["--policy", "help-first", "--workers", "1"],
        "help-first 2w": base + ["--policy", "help-first", "--workers", "2"],
        "inline 1w": base + ["--policy", "inline", "--workers", "1"],
        "adaptive 1w": base + ["--policy", "adaptive", "--workers", "1"],
        "adaptive 2w": base + ["--policy", "adaptive", "--workers", "2"],
    }
    times, last = rounds(heist, configs, repeat)
    # Exposing every spawn (Cilk without a compiler): fib(30), 2 workers.
    eager_cfg = {
        "fib(30) inline-or-exposed as needed": ["fib", "--n", "30", "--cutoff", "0", "--policy", "work-first",
                                                "--workers", "2"],
        "fib(30) every spawn exposed": ["fib", "--n", "30", "--cutoff", "0", "--policy", "work-first", "--workers",
                                        "2", "--expose-depth", "1000000"],
    }
    eager_times, eager_last = rounds(heist, eager_cfg, max(3, repeat // 2))
    return {"times": times, "stats": {k: v.get("stats", {}) for k, v in last.items()},
            "eager_times": eager_times,
            "eager_stats": {k: v.get("stats", {}) for k, v in eager_last.items()}}


def fig12(heist, repeat):
    configs = {}
    for t in (5, 10, 15, 20):
        for policy in ("work-first", "help-first"):
            configs[f"{policy} T={t}"] = ["fib", "--n", "40", "--cutoff", str(t + 1), "--policy", policy,
                                          "--workers", "2"]
        configs[f"seq T={t}"] = ["fib", "--n", "40", "--cutoff", str(t + 1), "--seq"]
    times, last = rounds(heist, configs, repeat)
    return {"times": times, "stats": {k: v.get("stats", {}) for k, v in last.items()}}


def fig13(heist, repeat, sizes):
    rows = []
    for v in sizes:
        seq = run([heist, "bench", "spantree", "--vertices", str(v), "--seq", "--repeat", str(repeat), "--json"])
        edges = seq["extra"]["undirected_edges"]
        rows.append({"vertices": v, "edges": edges, "impl": "seq", "workers": 1, "time_s": seq["time_s"],
                     "medges_s": edges / seq["time_s"] / 1e6})
        for policy in ("work-first", "help-first"):
            for w in (1, 2):
                r = run([heist, "bench", "spantree", "--vertices", str(v), "--policy", policy, "--workers", str(w),
                         "--repeat", str(repeat), "--json"], allow_fail=True)
                row = {"vertices": v, "edges": edges, "impl": policy, "workers": w}
                if r.get("failed"):
                    row.update({"failed": True, "error": r["error"]})
                else:
                    row.update({"time_s": r["time_s"], "medges_s": edges / r["time_s"] / 1e6})
                rows.append(row)
                print(f"  spantree {v} {policy} {w}w: " + (row.get("error") or f"{row['medges_s']:.2f} MEdges/s"),
                      file=sys.stderr)
    return {"rows": rows}


def fig7(heist, repeat):
    configs = {"seq": ["sor", "--seq"]}
    for w in (1, 2):
        for policy in ("work-first", "help-first"):
            configs[f"{policy} {w}w"] = ["sor", "--chunks", str(w), "--policy", policy, "--workers", str(w)]
    times, last = rounds(heist, configs, repeat)
    return {"times": times, "stats": {k: v.get("stats", {}) for k, v in last.items()}}


def depth(heist, repeat):
    apps = {"fib(35)": ["fib", "--n", "35", "--cutoff", "0"], "nqueens(13)": ["nqueens", "--n", "13", "--cutoff", "0"],
            "uts T1": ["uts", "--tree", "T1"]}
    configs = {}
    for name, args in apps.items():
        configs[f"{name} seq"] = args + ["--seq"]
        configs[f"{name} 1w"] = args + ["--policy", "work-first", "--workers", "1"]
        for d in (0, 1, 2, 4, 8):
            configs[f"{name} D={d}"] = args + ["--policy", "work-first", "--workers", "2", "--expose-depth", str(d)]
    times, last = rounds(heist, configs, repeat)
    return {"times": times, "stats": {k: v.get("stats", {}) for k, v in last.items()}}


def plots(results, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if "fig12" in results:
        t = results["fig12"]["times"]
        thresholds = [5, 10, 15, 20]
        fig, ax = plt.subplots(figsize=(6, 4))
        width = 0.38
        xs = range(len(thresholds))
        for i, policy in enumerate(("work-first", "help-first")):
            ax.bar([x + (i - 0.5) * width for x in xs], [med(t[f"{policy} T={th}"]) for th in thresholds], width,
                   label=policy)
        ax.set_xticks(list(xs), [str(th) for th in thresholds])
        ax.set_xlabel("threshold T (calls with n <= T are sequential)")
        ax.set_ylabel("time (s), median, log scale")
        ax.set_yscale("log")
        ax.set_title("fib(40), 2 workers (HelpFirst Fig. 12)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "workfirst_fig12_fib.png"), dpi=120)
        plt.close(fig)

    if "fig13" in results:
        rows = results["fig13"]["rows"]
        fig, ax = plt.subplots(figsize=(6, 4))
        for impl, w, style in (("help-first", 1, "o--"), ("help-first", 2, "o-"), ("work-first", 1, "s--"),
                               ("work-first", 2, "s-"), ("seq", 1, "k:")):
            pts = [(r["vertices"], r["medges_s"]) for r in rows
                   if r["impl"] == impl and r["workers"] == w and not r.get("failed")]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                        label=f"{impl}" + ("" if impl == "seq" else f", {w} worker{'s' if w > 1 else ''}"))
            failed = [r["vertices"] for r in rows if r["impl"] == impl and r["workers"] == w and r.get("failed")]
            for v in failed:
                ax.annotate("out of stack", (v, 0), textcoords="offset points", xytext=(0, 8 + 12 * (w - 1)),
                            ha="center", fontsize=7, color="tab:red")
                ax.plot([v], [0], "rx")
        ax.set_xscale("log")
        ax.set_xlabel("vertices")
        ax.set_ylabel("MEdges/s")
        ax.set_title("spanning tree throughput (HelpFirst Fig. 13)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "workfirst_fig13_spantree.png"), dpi=120)
        plt.close(fig)

    if "fig7" in results:
        t = results["fig7"]["times"]
        seq = med(t["seq"])
        fig, ax = plt.subplots(figsize=(5, 4))
        for policy, style in (("help-first", "o-"), ("work-first", "s-")):
            ax.plot([1, 2], [seq / med(t[f"{policy} {w}w"]) for w in (1, 2)], style, label=policy)
        ax.plot([1, 2], [1, 2], "k:", label="linear")
        ax.set_xticks([1, 2])
        ax.set_xlabel("workers (P chunks per colour)")
        ax.set_ylabel("speedup over the sequential SOR")
        ax.set_title("SOR (HelpFirst Fig. 7)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "workfirst_fig7_sor.png"), dpi=120)
        plt.close(fig)


def tables(results):
    lines = []
    if "fib35" in results:
        t = {k: med(v) for k, v in results["fib35"]["times"].items()}
        seq = t["seq"]
        lines += ["### fib(35), no cutoff", "", "| configuration | median (s) | T/Tseq |", "|---|---|---|"]
        for k, v in t.items():
            lines.append(f"| {k} | {v:.4f} | {v / seq:.1f} |")
        lines += ["", f"work-first T1/T2 = {t['work-first 1w'] / t['work-first 2w']:.2f}, "
                      f"help-first T1/T2 = {t['help-first 1w'] / t['help-first 2w']:.2f}, "
                      f"adaptive T1/T2 = {t['adaptive 1w'] / t['adaptive 2w']:.2f}", ""]
        e = {k: med(v) for k, v in results["fib35"]["eager_times"].items()}
        lines += ["| fib(30), work-first, 2 workers | median (s) | continuations exposed |", "|---|---|---|"]
        for k, v in e.items():
            lines.append(f"| {k} | {v:.4f} | {results['fib35']['eager_stats'][k].get('continuations_exposed')} |")
        lines.append("")
    if "fig12" in results:
        t = {k: med(v) for k, v in results["fig12"]["times"].items()}
        lines += ["### fib(40) by threshold, 2 workers (Figure 12)", "",
                  "| threshold | sequential (s) | work-first (s) | help-first (s) | help-first / work-first |",
                  "|---|---|---|---|---|"]
        for th in (5, 10, 15, 20):
            wf, hf = t[f"work-first T={th}"], t[f"help-first T={th}"]
            lines.append(f"| {th} | {t[f'seq T={th}']:.4f} | {wf:.4f} | {hf:.4f} | {hf / wf:.2f} |")
        lines.append("")
    if "fig13" in results:
        lines += ["### Spanning tree (Figure 13)", "",
                  "| vertices | undirected edges | impl | workers | time (s) | MEdges/s |", "|---|---|---|---|---|---|"]
        for r in results["fig13"]["rows"]:
            if r.get("failed"):
                lines.append(f"| {r['vertices']} | {r['edges']} | {r['impl']} | {r['workers']} | failed: "
                             f"{r['error']} | — |")
            else:
                lines.append(f"| {r['vertices']} | {r['edges']} | {r['impl']} | {r['workers']} | {r['time_s']:.4f} | "
                             f"{r['medges_s']:.2f} |")
        lines.append("")
    if "fig7" in results:
        t = {k: med(v) for k, v in results["fig7"]["times"].items()}
        seq = t["seq"]
        lines += ["### SOR speedup (Figure 7)", "", "| configuration | median (s) | speedup over sequential |",
                  "|---|---|---|"]
        for k, v in t.items():
            lines.append(f"| {k} | {v:.4f} | {seq / v:.2f} |")
        lines.append("")
    if "depth" in results:
        t = {k: med(v) for k, v in results["depth"]["times"].items()}
        st = results["depth"]["stats"]
        lines += ["### work-first, 2 workers, by --expose-depth", "",
                  "| app | sequential (s) | 1 worker (s) | D=0 | D=1 | D=2 | D=4 | D=8 |", "|---|---|---|---|---|---|---|---|"]
        for name in ("fib(35)", "nqueens(13)", "uts T1"):
            cells = [f"{t[f'{name} D={d}']:.4f} ({st[f'{name} D={d}'].get('continuations_exposed')} exp.)"
                     for d in (0, 1, 2, 4, 8)]
            lines.append(f"| {name} | {t[f'{name} seq']:.4f} | {t[f'{name} 1w']:.4f} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", default="docs/results")
    ap.add_argument("--only", default="fib35,fig12,fig13,fig7,depth")
    ap.add_argument("--sizes", default="62500,250000,1000000,4000000,9000000", help="fig13 graph sizes")
    ap.add_argument("--from-json", help="only redraw the tables and figures from this workfirst.json")
    args = ap.parse_args()
    heist = f"{args.build}/cli/heist"
    os.makedirs(args.out, exist_ok=True)
    if args.from_json:
        results = json.load(open(args.from_json))
    else:
        results = {"started": time.strftime("%Y-%m-%d %H:%M:%S"), "repeat": args.repeat,
                   "loadavg_before": os.getloadavg()}
        only = args.only.split(",")
        if "fib35" in only:
            results["fib35"] = fib35(heist, args.repeat)
        if "fig12" in only:
            results["fig12"] = fig12(heist, args.repeat)
        if "fig7" in only:
            results["fig7"] = fig7(heist, args.repeat)
        if "depth" in only:
            results["depth"] = depth(heist, args.repeat)
        if "fig13" in only:
            results["fig13"] = fig13(heist, max(5, args.repeat // 2 + 1), [int(v) for v in args.sizes.split(",")])
        results["loadavg_after"] = os.getloadavg()
        with open(os.path.join(args.out, "workfirst.json"), "w") as f:
            json.dump(results, f, indent=1)
    plots(results, args.out)
    print(tables(results))


if __name__ == "__main__":
    main()
