"""What the JSON checkers share: split `[--expect-KEY VALUE ...] -- CMD...`,
run CMD, and return the expectations and the report on its last stdout line
(every listed field present), or exit with `fail`'s message."""
import json
import subprocess


def run_report(argv, required, fail):
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    expect = dict(zip(opts[::2], opts[1::2]))
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"exit {out.returncode}: {out.stderr}")
    report = json.loads(out.stdout.strip().splitlines()[-1])
    for key in required:
        if key not in report:
            fail(f"missing field {key}")
    return expect, report
