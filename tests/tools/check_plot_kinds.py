#!/usr/bin/python3
"""tools/plot.py draws every whole-CSV kind from a tiny CSV that
tools/sweep.py's own row code (sweep.fill) writes from made-up JSON reports
of heist bench and heist sim: the columns one writes are the ones the other
reads. Each figure (PNG) and table (Markdown) must come out non-empty.

  check_plot_kinds.py REPO_ROOT WORK_DIR
"""
import csv
import os
import subprocess
import sys

ROOT, WORK = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "tools"))
import sweep  # noqa: E402


def bench_report(time_s, ranks=1, failed=False, edges=None):
    worker = {"rank": 0, "time_work_s": time_s, "time_search_s": 0.0, "time_steal_s": 0.0, "time_comm_s": 0.0,
              "time_active_s": time_s, "tasks_executed": 10}
    stats = {"tasks_created": 10, "tasks_executed": 10, "tasks_inlined": 2, "steals": 3, "steal_attempts": 5,
             "remote_steals": 1, "continuations_exposed": 4, "failed_steals_inter_node": 1, "tasks_pushed": 0,
             "rma": {"inter_node": 7},
             "levels": {"node": {"attempts": 2, "successes": 1, "tasks": 1},
                        "machine": {"attempts": 3, "successes": 2, "tasks": 2}},
             "workers": [dict(worker, rank=r) for r in range(ranks)]}
    report = {"time_s": time_s, "times_s": [time_s], "result": 1, "verified": not failed, "stats": stats,
              "table1": {"avg_task_time_us": 0.1}}
    if edges:
        report["extra"] = {"undirected_edges": edges}
    return report


def sim_report(time_s, workers, nodes, speedup):
    counts = {"attempts": 10, "steals": 6, "failed": 4, "tasks": 6}
    return {"time_s": time_s, "result": 100, "workers": workers, "ranks": nodes, "speedup": speedup,
            "efficiency": speedup / workers, "t1_s": time_s * speedup, "steal_totals": counts,
            "steals": {"machine": counts}, "time_breakdown_s": {"steal": 0.01, "search": 0.02},
            "messages": {"blocking": 5}, "between_processes": {"requests": 2}, "simulator": {"wall_s": 0.1},
            "machine": {"nodes": nodes}}


def row(report, **run):
    base = {"label": "", "name": "", "series": "", "app": "", "app_args": "", "impl": "heist", "workers": 1,
            "ranks": 1, "policy": "", "protocol": "", "variant": "", "nodes": 0, "hosts": 0, "delay_us": 0,
            "repeat": 1, "round": 0}
    base.update(run)
    return sweep.fill(base, report)


def write(name, rows):
    path = os.path.join(WORK, name)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, sweep.FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return path


def main():
    os.makedirs(WORK, exist_ok=True)
    bench = []
    for t in (6, 11):
        bench.append(row(bench_report(1.0), app="fib", app_args=f"--n 30 --cutoff {t}", impl="seq"))
        for p, k in (("work-first", 0.6), ("help-first", 0.8)):
            bench.append(row(bench_report(k), app="fib", app_args=f"--n 30 --cutoff {t}", workers=2, policy=p))
    for v in (1000, 4000):
        bench.append(row(bench_report(0.01 * v / 1000, edges=2 * v), app="spantree", app_args=f"--vertices {v}",
                         impl="seq"))
        for p in ("work-first", "help-first"):
            for w in (1, 2):
                bench.append(row(bench_report(0.01, failed=(p == "work-first" and v == 4000)), app="spantree",
                                 app_args=f"--vertices {v}", workers=w, policy=p))
    bench.append(row(bench_report(1.0), app="sor", impl="seq"))
    for w in (1, 2):
        for p in ("work-first", "help-first"):
            bench.append(row(bench_report(1.0 / w), app="sor", app_args=f"--chunks {w}", workers=w, policy=p))
    for rnd in range(3):
        for series in ("random + half", "hvs + hcs"):
            bench.append(row(bench_report(0.5 + rnd * 0.1, ranks=4), app="uts", app_args="--tree T3", ranks=4,
                             protocol="sws", series=series, round=rnd))
            for delay in (0, 20):
                bench.append(row(bench_report(0.5 + delay / 100, ranks=2), app="uts", app_args="--tree T1", ranks=2,
                                 protocol="sws", series=series, hosts=2, delay_us=delay, round=rnd))
    bench_csv = write("bench.csv", bench)
    hotslaw = []
    for app in ("FIB", "UTS(T1L)"):
        for k in (1, 2):
            for series, s in ((f"fixed:{k}", 100 + k), (f"hcs:{k}", 90 + k), (f"random:{k}", 50 + k),
                              (f"intra-node:{k}", 8)):
                hotslaw.append(row(sim_report(0.1, 256, 32, s), impl="sim", app="fib", name=app, series=series))
        for series, s in (("hvs+half", 80), ("random+half", 60)):
            hotslaw.append(row(sim_report(0.1, 256, 32, s), impl="sim", app="fib", name=app, series=series))
    nodes_rows = [row(sim_report(1.0 / n, 48 * n, n, 40 * n), impl="sim", app="uts", name=app, series=series,
                      nodes=n) for app in ("UTS(T1L)", "BPC") for series in ("sdc", "sws", "hvs", "success-only")
                  for n in (1, 2)]
    sweep_csv = os.path.join(WORK, "sim_sweep.csv")
    with open(sweep_csv, "w") as f:
        f.write("nodes,workers,speedup,efficiency\n1,16,14,0.875\n2,32,26,0.8125\n")
    cases = [("table", bench_csv, "table.md"), ("fib-threshold", bench_csv, "fib.png"),
             ("spantree", bench_csv, "spantree.png"), ("sor", bench_csv, "sor.png"),
             ("locality", bench_csv, "locality.md"), ("cluster", bench_csv, "cluster.md"),
             ("sim-sweep", sweep_csv, "sweep.png"), ("hotslaw", write("hotslaw.csv", hotslaw), "hotslaw.png"),
             ("sws", write("sws.csv", nodes_rows), "sws.png"), ("habanero", write("habanero.csv", nodes_rows),
                                                                "habanero.png")]
    expected = {"hotslaw.png": [f"hotslaw-fig{n}.png" for n in (10, 11, 12, 13)],
                "sws.png": ["sws-utst1l.png", "sws-bpc.png"]}
    for kind, data, out in cases:
        path = os.path.join(WORK, out)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "plot.py"), kind, data, "-o", path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"check_plot_kinds: plot.py {kind}: exit {r.returncode}\n{r.stderr}")
        for name in expected.get(out, [out]):
            produced = os.path.join(WORK, name)
            if not os.path.exists(produced) or os.path.getsize(produced) == 0:
                sys.exit(f"check_plot_kinds: plot.py {kind} did not write {name}")
    # The locality table has both configurations, the medians over 3 rounds.
    table = open(os.path.join(WORK, "locality.md")).read()
    if "| random + half (sws) | 3 | 0.600 |" not in table or "hvs + hcs (sws)" not in table:
        sys.exit(f"check_plot_kinds: locality table lacks the median rows:\n{table}")


if __name__ == "__main__":
    main()
