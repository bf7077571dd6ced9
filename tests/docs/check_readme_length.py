#!/usr/bin/env python3
"""README.md stays a front page: at most MAX lines (default 220).

    check_readme_length.py README.md [--max N]
    check_readme_length.py --self-test     a file one line too long must fail

Results, runbooks and write-ups belong in docs/. Exit 1 when too long.
"""
import argparse
import pathlib
import sys
import tempfile


def check(path, limit):
    lines = len(pathlib.Path(path).read_text(encoding="utf-8").splitlines())
    return lines, lines <= limit


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        f = pathlib.Path(tmp) / "README.md"
        f.write_text("line\n" * 11, encoding="utf-8")
        long_ok = check(f, 10)[1]
        f.write_text("line\n" * 10, encoding="utf-8")
        short_ok = check(f, 10)[1]
    ok = not long_ok and short_ok
    print("check_readme_length self-test:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readme", nargs="?")
    ap.add_argument("--max", type=int, default=220)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.readme:
        ap.error("README path required")
    lines, ok = check(args.readme, args.max)
    print(f"{args.readme}: {lines} lines (at most {args.max})")
    if not ok:
        print("move results, runbooks and write-ups to docs/")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
