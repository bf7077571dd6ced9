#!/usr/bin/env python3
"""Runs a command that must FAIL in a bounded time, loudly:
  expect_failure.py [--timeout S] [--status N] --regex RE [--regex RE ...] -- command...
Passes iff the command ends within S seconds (default 120) with a non-zero
exit status (or exactly N with --status) and its combined stdout+stderr
matches every RE (Python regex, searched, multi-line). A hang is a failure:
the command's process group is killed at the timeout."""
import argparse
import os
import re
import signal
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--timeout", type=float, default=120)
parser.add_argument("--status", type=int)
parser.add_argument("--regex", action="append", default=[])
parser.add_argument("command", nargs=argparse.REMAINDER)
args = parser.parse_args()
command = args.command[1:] if args.command[:1] == ["--"] else args.command
if not command:
    parser.error("no command")

proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                        start_new_session=True)
try:
    output, _ = proc.communicate(timeout=args.timeout)
except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    output, _ = proc.communicate()
    print(output)
    print(f"FAIL: still running after {args.timeout:g} s (a hang)")
    sys.exit(1)
print(output)
ok = True
if proc.returncode == 0 or (args.status is not None and proc.returncode != args.status):
    print(f"FAIL: exit status {proc.returncode}, expected {args.status if args.status is not None else 'non-zero'}")
    ok = False
for pattern in args.regex:
    if not re.search(pattern, output, re.MULTILINE):
        print(f"FAIL: the output does not match /{pattern}/")
        ok = False
if ok:
    print(f"PASS: failed as expected (status {proc.returncode})")
sys.exit(0 if ok else 1)
