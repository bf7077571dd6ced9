#!/usr/bin/env python3
"""One schema for the options of `heist bench --json` and `heist sim --json`:
run both for the same app and options and check that
  - bench's `params` holds every option of the option table (`heist info
    --json`), keyed by its long flag with '-' -> '_';
  - sim's `params` holds every option the simulator models, the same way;
  - every key the two share has the same value (the app's parameters and the
    options, given or defaulted), and sim adds only its own `backoff`;
  - the options given on the command line show their given values.

  check_params_schema.py HEIST
"""
import json
import subprocess
import sys

APP = ["fib", "--n", "16", "--cutoff", "4"]
# Behaviour options the simulator models too, with non-default values.
GIVEN = {"--policy": "bounded", "--queue-bound": "12", "--queue-demand": "off", "--chunk": "half",
         "--victim": "random", "--seed": "7", "--balance": "push", "--push-share": "0.25"}
SIM_ONLY = {"backoff"}


def fail(msg):
    sys.exit(f"check_params_schema: {msg}")


def report(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def key(flag):
    return flag.lstrip("-").replace("-", "_")


def main():
    heist = sys.argv[1]
    table = json.loads(subprocess.run([heist, "info", "--json"], check=True, capture_output=True,
                                      text=True).stdout)["options"]
    flags = [x for kv in GIVEN.items() for x in kv]
    bench = report([heist, "bench", *APP, "--workers", "2", "--no-spawn-probe", *flags, "--json"])["params"]
    sim = report([heist, "sim", *APP, "--task-ns", "10,50", "--cores-per-socket", "2", "--sockets", "1", *flags,
                  "--json"])["params"]
    for o in table:
        if key(o["flag"]) not in bench:
            fail(f"bench params lack {key(o['flag'])} ({o['flag']})")
        if o["simulated"] and key(o["flag"]) not in sim:
            fail(f"sim params lack {key(o['flag'])} ({o['flag']}, which the simulator models)")
        if not o["simulated"] and key(o["flag"]) in sim:
            fail(f"sim params hold {key(o['flag'])}, which the simulator does not model")
    if extra := set(sim) - set(bench) - SIM_ONLY:
        fail(f"sim params keys bench does not have: {sorted(extra)}")
    for k in set(sim) & set(bench):
        if sim[k] != bench[k]:
            fail(f"params.{k}: bench {bench[k]!r}, sim {sim[k]!r}")
    for flag, value in GIVEN.items():
        got = bench[key(flag)]
        if str(got) != value and not (isinstance(got, (int, float)) and float(value) == got):
            fail(f"params.{key(flag)} is {got!r}, given {flag} {value}")
    for app_key in ("n", "cutoff"):
        if app_key not in sim or app_key not in bench:
            fail(f"app parameter {app_key} missing")


if __name__ == "__main__":
    main()
