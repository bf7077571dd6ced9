#!/usr/bin/env python3
"""`heist sim --help` lists exactly the runtime options the simulator models
(the option table's `simulated` field, from `heist info --json`), and an
option it does not model is an unknown option there (exit 2), not accepted.

  check_sim_help.py HEIST
"""
import json
import re
import subprocess
import sys


def main():
    heist = sys.argv[1]
    info = json.loads(subprocess.run([heist, "info", "--json"], check=True, capture_output=True, text=True).stdout)
    simulated = {o["flag"] for o in info["options"] if o["simulated"]}
    others = {o["flag"] for o in info["options"] if not o["simulated"]}
    if not simulated or not others:
        sys.exit("check_sim_help: expected both simulated and unmodelled options in the table")
    help_text = subprocess.run([heist, "sim", "--help"], check=True, capture_output=True, text=True).stdout
    listed = set(re.findall(r"^\s+(--[a-z0-9-]+)", help_text, re.M))
    if missing := simulated - listed:
        sys.exit(f"check_sim_help: simulated options missing from heist sim --help: {sorted(missing)}")
    if extra := others & listed:
        sys.exit(f"check_sim_help: heist sim --help lists options the simulator does not model: {sorted(extra)}")
    for flag in sorted(others):
        r = subprocess.run([heist, "sim", "fib", "--n", "10", "--task-ns", "5", flag, "1"], capture_output=True,
                           text=True)
        if r.returncode != 2 or flag not in r.stderr:
            sys.exit(f"check_sim_help: heist sim ... {flag} 1: exit {r.returncode}, stderr {r.stderr!r}")


if __name__ == "__main__":
    main()
