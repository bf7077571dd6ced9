"""The kinds of tools/plot.py that read a --trace file (Chrome trace JSON):
queue lengths over time (HotSLAW Fig. 6) and the timeline of task spans,
steals and queue lengths."""
import json
import sys

from .common import plt, write_png


def read_trace(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def draw_queue_lengths(ax, events, t0, lo=float("-inf"), hi=float("inf")):
    """One step line per sampled queue (counter events), from lo to hi (trace microseconds)."""
    samples = [e for e in events if e["ph"] == "C"]
    for pid, name in sorted({(e["pid"], e["name"]) for e in samples}):
        s = sorted((e["ts"], e["args"]["tasks"]) for e in samples if e["name"] == name and e["pid"] == pid
                   and lo <= e["ts"] <= hi)
        if s:
            ax.step([(t - t0) / 1000 for t, _ in s], [v for _, v in s], where="post",
                    label=f"rank {pid}, " + name.replace("queue length, ", ""))


def plot_queue(path, out):
    events = [e for e in read_trace(path) if e["ph"] == "C"]
    if not events:
        sys.exit("plot: the trace has no queue-length samples")
    t0 = min(e["ts"] for e in events)
    fig, ax = plt.subplots(figsize=(8, 3.5))
    draw_queue_lengths(ax, events, t0)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("tasks in the queue")
    ax.set_title("queue length over time (sampled)")
    ax.legend(fontsize=7)
    write_png(fig, out)


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
    draw_queue_lengths(axq, events, t0, lo, hi)
    axq.set_ylabel("queue length")
    axq.set_xlabel("time (ms)")
    axq.legend(fontsize=7)
    axq.set_xlim((lo - t0) / 1000, (hi - t0) / 1000)
    write_png(fig, out)
