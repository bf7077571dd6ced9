"""What the JSON checkers share: split `[--expect-KEY VALUE ...] -- CMD...`,
run CMD, and return the expectations and the report: the last stdout line
that begins with "{" (every listed field present), or exit with `fail`'s
message. The last such line, not the last line: a library may write after
heist's report (UCX logs to stdout, e.g. a flush error while MPI finalizes)."""
import json
import subprocess


def run_report(argv, required, fail):
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    expect = dict(zip(opts[::2], opts[1::2]))
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"exit {out.returncode}: {out.stderr}")
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        fail(f"no JSON report on stdout: {out.stdout[-2000:]}")
    report = json.loads(lines[-1])
    for key in required:
        if key not in report:
            fail(f"missing field {key}")
    return expect, report
