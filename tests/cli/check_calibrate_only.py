#!/usr/bin/env python3
"""heist sim --calibrate-only: writes the calibration, simulates nothing, and
the file it writes drives a later simulation (--costs) to the right result,
with the machine's measured slowdown under load unless --loaded-slowdown is given.

  check_calibrate_only.py HEIST DIR
"""
import json
import os
import subprocess
import sys


def main():
    heist, out_dir = sys.argv[1], sys.argv[2]
    costs = os.path.join(out_dir, "calibrate_only.json")
    if os.path.exists(costs):
        os.remove(costs)
    app = ["nqueens", "--n", "9"]
    run = subprocess.run([heist, "sim", *app, "--calibrate", "--calibrate-repeat", "1", "--calibrate-only",
                          "--costs-out", costs, "--json"], capture_output=True, text=True, check=True)
    printed = json.loads(run.stdout.strip().splitlines()[-1])
    written = json.load(open(costs))
    if printed != written:
        sys.exit("the printed calibration differs from the file")
    if "time_s" in printed or "steal_totals" in printed:
        sys.exit("--calibrate-only simulated")
    c = written["costs"]
    if not (c["inline_ns"] > 0 and c["queued_ns"] > 0):
        sys.exit(f"costs not measured: {c}")
    measured = written["measured"]["bounded"]
    if measured["tasks_inlined"] + measured["tasks_queued"] != 8394:
        sys.exit(f"calibration ran the wrong app: {written['measured']}")
    sim = subprocess.run([heist, "sim", *app, "--costs", costs, "--cores-per-socket", "2", "--sockets", "1", "--json"],
                         capture_output=True, text=True, check=True)
    report = json.loads(sim.stdout.strip().splitlines()[-1])
    if report["result"] != 8394 or report["costs"]["source"] != "file":
        sys.exit(f"simulation from the file: result {report['result']}, costs {report['costs']}")
    if abs(report["costs"]["inline_ns"] - c["inline_ns"]) > 1e-9:
        sys.exit("the simulation did not use the calibrated costs")
    # The machine under load: measured with one copy per usable CPU, a factor
    # in [1, 100], and the simulation from the file uses it unless told otherwise.
    machine = written["machine"]
    if machine["copies"] != len(os.sched_getaffinity(0)) or not 1.0 <= machine["loaded_slowdown"] <= 100.0:
        sys.exit(f"loaded slowdown not measured: {machine}")
    if written["measured"]["loaded"]["copies"] != machine["copies"]:
        sys.exit(f"loaded run: {written['measured']['loaded']}")
    if abs(report["machine"]["loaded_slowdown"] - machine["loaded_slowdown"]) > 1e-12:
        sys.exit(f"the simulation did not use the calibrated slowdown: {report['machine']}")
    given = subprocess.run([heist, "sim", *app, "--costs", costs, "--loaded-slowdown", "1.7", "--cores-per-socket",
                            "2", "--sockets", "1", "--json"], capture_output=True, text=True, check=True)
    if json.loads(given.stdout.strip().splitlines()[-1])["machine"]["loaded_slowdown"] != 1.7:
        sys.exit("--loaded-slowdown did not override the file's")
    print(f"ok: calibrated {c}, slowdown {machine['loaded_slowdown']:.3f}, simulated {report['time_s']:.6f} s")


if __name__ == "__main__":
    main()
