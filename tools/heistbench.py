"""What the tools that time heist share: one run of `heist ... --json`, the
report it prints, and interleaved rounds.

    report_of(stdout)                 the last JSON line a run printed (a dict)
    failure_reason(stderr)            the line of a failed run's stderr that says why
    run_json(cmd, tool, ...)          run, return the report; exit naming `tool` when
                                      the run fails, and when it did not verify
                                      its result if verified=True (a faster wrong
                                      answer is not a result)
    interleaved(items, rounds)        (round, item) for every item once a round, the
                                      order reversed every other round, so no item
                                      always runs on a warmer (or busier) machine
    run_rounds(commands, rounds, ...) every command once a round, interleaved:
                                      {name: [time_s of each round]}
    round_ratios(times, a, b, k)      the per-round ratios times[a] / (k * times[b])
    median_ratio(...)                 their median: a ratio of two runs of one round
                                      sees one machine speed, medians of ratios
                                      are steadier than ratios of medians

Used by sweep.py, ab_compare.py, spawn_figures.py, bench_table.py and
sim_validate.py. Ratios are meaningful within one run of a tool only: the
machine's speed drifts between runs.
"""
import json
import shlex
import statistics
import subprocess
import sys


def report_of(stdout):
    """The report of a `--json` run: its last line that starts with '{'.

    Raises ValueError when there is none or it is not JSON."""
    lines = [line for line in stdout.strip().splitlines() if line.startswith("{")]
    if not lines:
        raise ValueError("no JSON line in the output")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise ValueError(f"no JSON: {lines[-1][:200]}") from e


def failure_reason(stderr):
    """The line of a failed run's stderr that says why: the last one that is
    not the CLI's usage hint ("(run 'heist --help' ...)") nor mpirun's
    boilerplate, preferring heist's own "heist..." messages."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("(run ") and not set(line) <= set("-=*")]
    own = [line for line in lines if line.startswith("heist")]
    return ((own or lines or ["?"])[-1])[-300:]


def run_json(cmd, tool, *, verified=True, timeout=None, env=None, log=None, echo=False, tail=2000):
    """Run `cmd` (a list), return its JSON report.

    Exits with "TOOL: ..." when the run fails (status, or no report) or, with
    verified=True, when its report does not say `verified: true`. `log`, a
    file, gets the command and its stderr; `echo` prints the command to
    stderr first."""
    text = shlex.join(str(c) for c in cmd)
    if echo:
        print("$ " + " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    try:
        out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        sys.exit(f"{tool}: {text} timed out after {timeout} s")
    except OSError as e:
        sys.exit(f"{tool}: {text}: {e.strerror}")
    if log is not None:
        log.write(f"$ {' '.join(str(c) for c in cmd)}\n{out.stderr}\n")
        log.flush()
    if out.returncode != 0:
        sys.exit(f"{tool}: {text} failed ({out.returncode}): {out.stderr[-tail:]}")
    try:
        report = report_of(out.stdout)
    except ValueError as e:
        sys.exit(f"{tool}: {text}: {e}")
    if verified and report.get("verified") is not True:
        sys.exit(f"{tool}: {text} did not verify its result")
    return report


def interleaved(items, rounds):
    """[(round, item)]: every item once a round, in order on even rounds and
    reversed on odd ones."""
    items = list(items)
    return [(r, item) for r in range(rounds) for item in (items if r % 2 == 0 else items[::-1])]


def run_rounds(commands, rounds, tool, *, timeout=None, echo=True, on_round=None):
    """Every command of `commands` ({name: argv}) once a round, interleaved;
    each must verify. Returns {name: [time_s, one a round]}. `on_round(r)` is
    called after round r (from 0)."""
    times = {name: [] for name in commands}
    last = 0
    for r, name in interleaved(commands, rounds):
        if r != last and on_round:
            on_round(last)
        last = r
        times[name].append(float(run_json(commands[name], tool, timeout=timeout, echo=echo)["time_s"]))
    if on_round and rounds:
        on_round(rounds - 1)
    return times


def round_ratios(times, a, b, k=1):
    """The ratio times[a] / (k * times[b]) of every round."""
    return [x / (k * y) for x, y in zip(times[a], times[b], strict=True)]


def median_ratio(times, a, b, k=1):
    return statistics.median(round_ratios(times, a, b, k))
