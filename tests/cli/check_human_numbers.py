#!/usr/bin/env python3
"""Every number with a fractional part that `heist bench` and `heist sim`
print for people has at most 4 significant digits (stats::human_number),
while their --json output keeps full precision.

  check_human_numbers.py HEIST
"""
import re
import subprocess
import sys

NUMBER = re.compile(r"(?<![\w.])-?(\d+\.\d+)(?:e[+-]\d+)?")
RUNS = [
    ["bench", "fib", "--n", "20", "--workers", "2", "--policy", "help-first", "--warmup-s", "0"],
    ["bench", "bpc", "--depth", "20", "--consumers", "10", "--consumer-us", "0.5", "--workers", "2", "--warmup-s", "0"],
    ["sim", "fib", "--n", "18", "--cores-per-socket", "2", "--sockets", "2"],
    ["sim", "bpc", "--depth", "20", "--consumers", "10", "--cores-per-socket", "2", "--sockets", "1",
     "--sweep-nodes", "1,2"],
]


def significant(mantissa):
    return len(mantissa.replace(".", "").lstrip("0"))


def main():
    heist = sys.argv[1]
    for args in RUNS:
        out = subprocess.run([heist, *args], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"check_human_numbers: heist {' '.join(args)}: exit {out.returncode}: {out.stderr}")
        seen = NUMBER.findall(out.stdout)
        if not seen:
            sys.exit(f"check_human_numbers: heist {' '.join(args)} printed no fractional number:\n{out.stdout}")
        for line in out.stdout.splitlines():
            for m in NUMBER.finditer(line):
                if significant(m.group(1)) > 4:
                    sys.exit(f"check_human_numbers: heist {' '.join(args)}: {m.group(0)} has more than 4 "
                             f"significant digits in: {line}")
    # The JSON keeps full precision: its times are not rounded to 4 digits.
    out = subprocess.run([heist, "sim", "fib", "--n", "18", "--task-ns", "7.123456,106.654321", "--json"],
                         capture_output=True, text=True, check=True)
    if "7.123456" not in out.stdout:
        sys.exit("check_human_numbers: heist sim --json rounded its costs")


if __name__ == "__main__":
    main()
