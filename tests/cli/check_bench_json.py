#!/usr/bin/env python3
"""Runs a command that prints a heist bench JSON report and checks the CLI
contract: the last stdout line is one JSON object with the documented fields,
the result is verified, and (for heist runs) the statistics add up.

  check_bench_json.py [--expect-result N] [--expect-workers W] [--expect-ranks R] [--expect-tasks T]
                      [--expect-work-leaves-rank0 1] [--expect-warmup S] [--expect-stat NAME=N]
                      [--expect-uncounted T] [--expect-nodes N] -- CMD...

--expect-uncounted T: the run took the store-free path of a body's Context
(stats.uncounted_grants > 0), so it counted fewer than the T tasks it ran.
--expect-nodes N: the per-worker rows name N distinct nodes (the launcher's
nodes, as MPI_COMM_TYPE_SHARED groups the ranks), each rank on one node.
"""
import sys

from json_report import run_report

REQUIRED = ["app", "params", "ranks", "workers", "time_s", "times_s", "warmup_s", "result", "verified"]
STATS = ["tasks_created", "tasks_executed", "tasks_inlined", "steals", "steal_attempts", "failed_steals"]
PER_WORKER = ["time_work_s", "time_search_s", "time_steal_s", "time_comm_s"]
TABLE1 = ["tasks_created", "avg_task_time_us", "task_io", "task_creation_overhead_us", "inline_spawn_overhead_us",
          "steals", "tasks_serialized", "tasks_serialized_share"]


def fail(msg):
    sys.exit(f"check_bench_json: {msg}")


def check_table1(report):
    """The HotSLAW Table 1 columns agree with the statistics they summarise."""
    t1, stats = report.get("table1"), report["stats"]
    if t1 is None:
        fail("missing table1")
    for key in TABLE1:
        if key not in t1:
            fail(f"missing table1.{key}")
    if t1["tasks_created"] != stats["tasks_created"] or t1["tasks_serialized"] != stats["tasks_inlined"]:
        fail("table1 task counts differ from stats")
    if t1["steals"] != stats["steals"] + stats.get("remote_steals", 0):
        fail("table1.steals != stats.steals + stats.remote_steals")
    share = t1["tasks_serialized"] / t1["tasks_created"] if t1["tasks_created"] else 0.0
    if abs(t1["tasks_serialized_share"] - share) > 1e-9:
        fail("table1.tasks_serialized_share is not tasks_serialized / tasks_created")
    if not t1["task_io"] or any(t["input_bytes"] <= 0 for t in t1["task_io"]):
        fail("table1.task_io must list the app's tasks with their input bytes")
    if t1["avg_task_time_us"] < 0:
        fail("negative table1.avg_task_time_us")
    for key in ("task_creation_overhead_us", "inline_spawn_overhead_us"):
        if t1[key] is not None and t1[key] < 0:
            fail(f"negative table1.{key}")


def main():
    expect, report = run_report(sys.argv[1:], REQUIRED, fail)
    if report["verified"] is not True:
        fail("result not verified")
    if len(report["times_s"]) < 1 or report["time_s"] not in report["times_s"]:
        fail("time_s is not one of times_s")
    if "--expect-result" in expect and report["result"] != int(expect["--expect-result"]):
        fail(f"result {report['result']} != {expect['--expect-result']}")
    if "--expect-workers" in expect and report["workers"] != int(expect["--expect-workers"]):
        fail(f"workers {report['workers']} != {expect['--expect-workers']}")
    if "--expect-ranks" in expect and report["ranks"] != int(expect["--expect-ranks"]):
        fail(f"ranks {report['ranks']} != {expect['--expect-ranks']}")
    if "--expect-warmup" in expect and report["warmup_s"] != float(expect["--expect-warmup"]):
        fail(f"warmup_s {report['warmup_s']} != {expect['--expect-warmup']}")
    if report.get("impl") == "heist":
        stats = report["stats"]
        for key in STATS:
            if key not in stats:
                fail(f"missing stats.{key}")
        if stats["tasks_created"] != stats["tasks_executed"]:
            fail("tasks_created != tasks_executed")
        if stats["steal_attempts"] != stats["steals"] + stats["failed_steals"]:
            fail("steal_attempts != steals + failed_steals")
        if len(stats["workers"]) != report["workers"] * report["ranks"]:
            fail("one stats.workers entry per worker of every rank expected")
        for w in stats["workers"]:
            for key in PER_WORKER:
                if key not in w:
                    fail(f"missing stats.workers[].{key}")
        check_table1(report)
        if "--expect-tasks" in expect and stats["tasks_created"] != int(expect["--expect-tasks"]):
            fail(f"tasks_created {stats['tasks_created']} != {expect['--expect-tasks']}")
        if "--expect-uncounted" in expect:
            if stats.get("uncounted_grants", 0) <= 0:
                fail("stats.uncounted_grants is 0: the store-free path was not taken")
            if stats["tasks_created"] >= int(expect["--expect-uncounted"]):
                fail(f"tasks_created {stats['tasks_created']} counts every task, store-free spawns included")
        if "--expect-stat" in expect:
            name, value = expect["--expect-stat"].split("=")
            if stats.get(name) != int(value):
                fail(f"stats.{name} {stats.get(name)} != {value}")
        if "--expect-work-leaves-rank0" in expect:
            # Every task starts on rank 0 (the root's): each other rank must
            # have run some. Rank 0 itself may run none: on a loaded machine
            # its process can lose the core while rank 1 steals it all (ASan,
            # ctest -j4: {0: 0, 1: 3193}), which still tests the spreading.
            ran = {}
            for w in stats["workers"]:
                ran[w["rank"]] = ran.get(w["rank"], 0) + w["tasks_executed"]
            idle = [r for r in range(1, report["ranks"]) if ran.get(r, 0) == 0]
            if idle:
                fail(f"ranks {idle} executed no task: work did not spread ({ran})")
        if "--expect-nodes" in expect:
            node_of = {}
            for w in stats["workers"]:
                if node_of.setdefault(w["rank"], w["node"]) != w["node"]:
                    fail(f"rank {w['rank']}'s workers name different nodes")
            if len(set(node_of.values())) != int(expect["--expect-nodes"]):
                fail(f"ranks on nodes {node_of}, expected {expect['--expect-nodes']} nodes")


if __name__ == "__main__":
    main()
