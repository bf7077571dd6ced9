"""Locality experiments as Markdown tables: victim x chunk on virtual nodes
(locality; mpirun runs) and heist-cluster runs per network delay (cluster):
medians over the rounds and the steals per level of the median run."""
import json

from .common import markdown, median_row, numeric, ok_rows, with_case


def level_text(levels, name):
    lv = json.loads(levels).get(name, {}) if levels else {}
    return f"{lv.get('successes', '?')}/{lv.get('attempts', '?')}"


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
