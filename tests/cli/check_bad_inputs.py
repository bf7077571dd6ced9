#!/usr/bin/env python3
"""Bad input to the heist command: every case must exit with status 2 and a
message on stderr that names what was wrong (and never run a benchmark).

  check_bad_inputs.py HEIST_EXECUTABLE

1. Every runtime option of the option table (read from `heist info --json`,
   so options added later are covered too), given as its command-line flag
   with each of several values no option accepts, and as its HEIST_*
   environment variable (the same parser behind it) with one of them.
2. The apps' own options, command structure, and unsupported combinations:
   the explicit list CASES below.
3. The environment itself, for every command that reads it (ENV_CASES): a
   HEIST_* variable that names no option (with the nearest name suggested),
   and one that is set but empty.
4. Cases whose message must also NOT hold something (NOT_IN: e.g. the
   300-digit bound of an unbounded range).
Prints every failing case and exits 1 if there is one.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

# Values that no runtime option accepts (integers have ranges >= 0, choices
# are words, kill-rank needs R:MS), except those taking a file name.
GENERIC_BAD = ["abc", "-1", "1.5", "99999999999999999999"]
FILE_OPTIONS = {"--trace"}

# (arguments, regex the message must match)
CASES = [
    # command structure
    ([], r"subcommand"),
    (["frobnicate"], r"frobnicate|subcommand"),
    (["bench"], r"subcommand"),
    (["bench", "nosuchapp"], r"nosuchapp|subcommand"),
    (["bench", "fib", "extra"], r"extra"),
    (["bench", "fib", "--frobnicate"], r"--frobnicate"),
    (["info", "--frob"], r"--frob"),
    (["bench", "fib", "--workers"], r"--workers"),
    # bench's own options and combinations
    (["bench", "fib", "--repeat", "0"], r"--repeat"),
    (["bench", "fib", "--repeat", "x"], r"--repeat"),
    (["bench", "fib", "--mode", "fork"], r"--mode"),
    (["bench", "fib", "--n", "10", "--mode", "pool"], r"no task-pool mode"),
    (["bench", "fib", "--seq", "--workers", "2"], r"--seq.*--workers"),
    (["bench", "fib", "--seq", "--mode", "pool"], r"--seq.*--mode pool"),
    # runtime options: ranges and combinations the table itself rejects
    (["bench", "fib", "--workers", "-1"], r"--workers"),
    (["bench", "fib", "--workers", "5000"], r"--workers"),
    (["bench", "fib", "--chunk", "0"], r"--chunk"),
    (["bench", "fib", "--queue-bound", "0"], r"--queue-bound"),
    (["bench", "fib", "--task-input-bytes", "8"], r"--task-input-bytes"),
    (["bench", "fib", "--stack-bytes", "1K"], r"--stack-bytes"),
    (["bench", "fib", "--public-queue-slots", "1"], r"--public-queue-slots"),
    (["bench", "fib", "--public-queue-slots", "1G"], r"--public-queue-slots"),
    (["bench", "fib", "--deque-tasks", "64", "--deque-max-tasks", "32"], r"--deque-max-tasks"),
    (["bench", "fib", "--policy", "help-first", "--queue-bound", "8"], r"--queue-bound.*--policy bounded"),
    (["bench", "fib", "--policy", "work-first", "--queue-demand", "off"], r"--queue-demand.*--policy bounded"),
    (["bench", "fib", "--policy", "bounded", "--slaw-s", "8"], r"--slaw-s.*--policy slaw"),
    (["bench", "fib", "--balance", "steal", "--push-share", "0.3"], r"--push-share.*--balance push"),
    (["bench", "fib", "--victim", "success-only", "--balance", "push"], r"success-only.*push"),
    (["bench", "fib", "--protocol", "sdc", "--sws-empty-threshold", "5"], r"--sws-empty-threshold.*--protocol sws"),
    (["bench", "fib", "--progress", "poll", "--progress-interval-us", "50"], r"--progress-interval-us.*--progress thread"),
    (["bench", "fib", "--n", "10", "--kill-rank-after-ms", "1:100"], r"rank 1 does not exist"),
    (["bench", "fib", "--kill-rank-after-ms", "1"], r"--kill-rank-after-ms"),
    (["bench", "fib", "--kill-rank-after-ms", "1:-5"], r"--kill-rank-after-ms"),
    (["bench", "fib", "--kill-rank-after-ms", ":5"], r"--kill-rank-after-ms"),
    # the apps' options
    (["bench", "fib", "--n", "-1"], r"--n"),
    (["bench", "fib", "--n", "93"], r"--n"),
    (["bench", "fib", "--cutoff", "-1"], r"--cutoff"),
    (["bench", "fib", "--style", "loop"], r"--style"),
    (["bench", "nqueens", "--n", "0"], r"--n"),
    (["bench", "nqueens", "--n", "21"], r"--n"),
    (["bench", "nqueens", "--cutoff", "-1"], r"--cutoff"),
    (["bench", "nqueens", "--seed-depth", "99"], r"--seed-depth"),
    (["bench", "nqueens", "--seed-ranks", "2"], r"--seed-ranks"),
    (["bench", "uts", "--tree", "T9"], r"--tree"),
    (["bench", "uts", "--tree", ""], r"--tree"),
    (["bench", "uts", "--tree", "-t 9"], r"-t 9"),
    (["bench", "uts", "--tree", "-t 1 -d -5"], r"-d -5"),
    (["bench", "uts", "--tree", "-t 1 -z 3"], r"-z"),
    (["bench", "uts", "--tree", "-t 1 -d"], r"-d"),
    (["bench", "spantree", "--vertices", "0"], r"--vertices"),
    (["bench", "spantree", "--degree", "-1"], r"--degree"),
    (["bench", "sor", "--n", "2"], r"--n"),
    (["bench", "sor", "--iterations", "-1"], r"--iterations"),
    (["bench", "sor", "--chunks", "-1"], r"--chunks"),
    (["bench", "sor", "--omega", "2"], r"--omega"),
    (["bench", "sor", "--omega", "nan"], r"--omega"),
    (["bench", "bpc", "--depth", "-1"], r"--depth"),
    (["bench", "bpc", "--consumers", "-1"], r"--consumers"),
    (["bench", "bpc", "--consumer-us", "-1"], r"--consumer-us"),
    (["bench", "bpc", "--producer-us", "nan"], r"--producer-us"),
    (["bench", "matmul", "--size", "0"], r"--size"),
    (["bench", "matmul", "--tasks", "-1"], r"--tasks"),
    (["bench", "sparselu", "--blocks", "0"], r"--blocks"),
    (["bench", "sparselu", "--block-size", "0"], r"--block-size"),
    (["bench", "stealbench", "--payload", "4"], r"--payload"),
    (["bench", "stealbench", "--steals", "0"], r"--steals"),
    # a command that needs what this run lacks
    (["bench", "stealbench", "--steals", "10"], r"stealbench: run with mpirun -n 2"),
    # a file the run cannot write: refused before any work
    (["bench", "fib", "--n", "5", "--trace", "/nonexistent-folder/trace.json"],
     r"--trace: cannot write '/nonexistent-folder/trace.json': its folder does not exist"),
    (["bench", "fib", "--n", "5", "--trace", "/"], r"--trace: cannot write '/': it is a folder"),
    # an app that does not exist: named, with the apps there are
    (["bench", "foo"], r"no app 'foo'.*fib.*nqueens"),
    (["bench", "foo", "--n", "3"], r"no app 'foo'.*fib.*nqueens"),
    (["bench", "--workers", "2", "foo"], r"no app 'foo'"),
]

# (environment, arguments, regex): for `heist bench`, `heist info`, `heist sim`.
ENV_CASES = []
for command in (["bench", "fib", "--n", "5"], ["info"], ["sim", "fib", "--n", "5"]):
    ENV_CASES += [
        ({"HEIST_WORKER": "4"}, command, r"HEIST_WORKER: no such variable; did you mean HEIST_WORKERS\?"),
        ({"HEIST_POLCY": "inline"}, command, r"HEIST_POLCY: no such variable; did you mean HEIST_POLICY\?"),
        ({"HEIST_WORKERS": ""}, command, r"HEIST_WORKERS is set but empty"),
        ({"HEIST_TRACE": ""}, command, r"HEIST_TRACE is set but empty"),
    ]

# (arguments, what the message must not contain)
NOT_IN = [
    (["bench", "fib", "--repeat", "0"], r"[0-9]{12}"),  # no 300-digit range bound
    (["bench", "foo"], r"A subcommand is required"),
]


def run(heist, args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEIST_")}
    env.update(env_extra or {})
    try:
        out = subprocess.run([heist] + args, capture_output=True, text=True, env=env, timeout=60)
    except subprocess.TimeoutExpired:
        return None, ""
    return out.returncode, out.stderr


def main():
    heist = sys.argv[1]

    def expect_usage_error(case):
        what, args, pattern, env = case
        status, stderr = run(heist, args, env)
        if status != 2:
            return f"{what}: exit status {status}, expected 2; stderr: {stderr.strip()[:200]}"
        if not re.search(pattern, stderr):
            return f"{what}: the message does not match /{pattern}/: {stderr.strip()[:200]}"
        return None

    info = subprocess.run([heist, "info", "--json"], capture_output=True, text=True, check=True)
    options = json.loads(info.stdout)["options"]
    cases = []
    for opt in options:
        if opt["flag"] in FILE_OPTIONS:
            continue
        for value in GENERIC_BAD:
            cases.append((f"{opt['flag']} {value!r}", ["bench", "fib", "--n", "5", opt["flag"], value],
                          re.escape(opt["flag"]), None))
        cases.append((f"{opt['env']}=abc", ["bench", "fib", "--n", "5"], re.escape(opt["env"]), {opt["env"]: "abc"}))
    for args, pattern in CASES:
        cases.append(("heist " + " ".join(repr(a) if " " in a or not a else a for a in args), args, pattern, None))
    for env, args, pattern in ENV_CASES:
        cases.append((" ".join(f"{k}={v!r}" for k, v in env.items()) + " heist " + " ".join(args), args, pattern, env))
    # Independent processes: run a few at a time (sanitizer builds start slowly).
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        failures = [f for f in pool.map(expect_usage_error, cases) if f is not None]
    checked = len(cases)
    for args, forbidden in NOT_IN:
        status, stderr = run(heist, args)
        checked += 1
        if re.search(forbidden, stderr):
            failures.append(f"heist {' '.join(args)}: the message holds /{forbidden}/: {stderr.strip()[:300]}")

    for f in failures:
        print("FAIL:", f)
    print(f"{checked - len(failures)} of {checked} bad inputs rejected with status 2 and a message naming them "
          f"({len(options) - len(FILE_OPTIONS)} runtime options x ({len(GENERIC_BAD)} values as a flag + 1 as a variable), {len(CASES)} listed cases, {len(ENV_CASES)} environments, {len(NOT_IN)} messages checked for what they must not say)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
