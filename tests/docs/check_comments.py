#!/usr/bin/env python3
"""Comments state rules, not measurements; no text points at an issue number.

    check_comments.py ROOT           check the repository at ROOT
    check_comments.py --self-test    bad inputs must fail, good ones pass

Two rules:

1. No measurement in a comment of the public headers (include/heist/**):
   a number with a unit of time (ns, µs, us, ms, s, seconds), of work
   (cycles, instructions, Mops), a percentage, or a ratio (`3.3 x`,
   `0.78×`, `2x faster`). What a header promises holds on every machine; the
   figure that decided it belongs in docs/design/ (and the record in
   docs/results/journal/), which the comment names. Not measurements: sizes
   and counts (`64-bit`, `1,024 credits`, `16 bytes`), machine shapes (`2 x 12`,
   `32 x 2 x 4`), hexadecimal (`0x1F`), `C++20`, `x86-64`.

2. No "issue N" / "issue #N" in docs/, include/, src/, sim/, apps/, cli/,
   tools/, tests/, bench/, examples/, models/ and README.md: a clone does not
   have the tracker those numbers index, so a text says what it means.
   docs/results/journal/ is exempt: its entries are records of their day,
   kept as they were written (docs/results/journal/README.md says so).
"""
import pathlib
import re
import sys
import tempfile

from checker import expect, run

_NUM = r"(?<![\w.])\d+(?:[.,]\d+)*"
MEASUREMENT = re.compile(
    _NUM + r"\s?(?:ns|µs|us|ms|s|sec|seconds|Mops|Gops|cycles|instructions)(?!\w)"  # 5 ns, 3.1 us, 20.1 instructions
    r"|" + _NUM + r"\s?%"                                                              # 23 %, 7-31 %
    r"|" + _NUM + r"\s?[x×](?!\w)(?!\s*\d)"                                            # 3.3 x, 0.78×; not 2 x 12
)
ISSUE = re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE)
HEADERS = "include/heist"
ISSUE_DIRS = ["docs", "include", "src", "sim", "apps", "cli", "tools", "tests", "bench", "examples", "models"]
ISSUE_FILES = ["README.md", "CMakeLists.txt", "CMakePresets.json"]
EXEMPT = ["docs/results/journal/"]
SKIP_SUFFIXES = {".png", ".svg", ".pdf", ".gz", ".tgz"}


def comments(text):
    """(line number, comment text) of every C/C++ comment: // to the end of
    the line, and each line of a /* */ block. String literals are skipped."""
    out = []
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        i = 0
        in_string = None
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                out.append((number, line[i:] if end < 0 else line[i:end]))
                if end < 0:
                    break
                in_block = False
                i = end + 2
                continue
            c = line[i]
            if in_string:
                if c == "\\":
                    i += 2
                    continue
                if c == in_string:
                    in_string = None
            elif c in "\"'":
                in_string = c
            elif line.startswith("//", i):
                out.append((number, line[i + 2:]))
                break
            elif line.startswith("/*", i):
                in_block = True
                i += 2
                continue
            i += 1
    return out


def check_headers(root):
    errors = []
    base = root / HEADERS
    for path in sorted(base.rglob("*")) if base.exists() else []:
        if path.suffix not in (".h", ".hpp") or not path.is_file():
            continue
        for number, text in comments(path.read_text(encoding="utf-8", errors="replace")):
            for m in MEASUREMENT.finditer(text):
                errors.append(f"{path.relative_to(root)}:{number}: a measurement in a comment, '{m.group(0)}' "
                              f"(state the rule; the figure goes to docs/design/): {text.strip()[:100]}")
    return errors


def text_files(root):
    for name in ISSUE_FILES:
        if (root / name).is_file():
            yield root / name
    for d in ISSUE_DIRS:
        base = root / d
        if not base.exists():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_file() and path.suffix not in SKIP_SUFFIXES:
                yield path


def check_issues(root):
    errors = []
    for path in text_files(root):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(e) for e in EXEMPT):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for m in ISSUE.finditer(line):
                errors.append(f"{rel}:{number}: '{m.group(0)}' names an issue a clone cannot resolve; "
                              f"say what is meant: {line.strip()[:100]}")
    return errors


def check(root):
    root = pathlib.Path(root)
    errors = check_headers(root) + check_issues(root)
    return errors, f"{len(errors)} measurements in header comments or issue references"


def self_test():
    issue = "iss" + "ue"  # so that this file does not trip its own check
    bad_headers = {
        "ns": "// a spawn takes 2.5 ns here\nint f();\n",
        "percent": "int g(); // cost fib 7-31 %: GCC no longer unrolled\n",
        "ratio": "/* fib(35) with a Context:\n * 3.3 x the sequential time */\n",
        "unicode ratio": "// 0.78× the time of the TLS load's test\n",
        "x faster": "// 2x faster than before\n",
        "instructions": "// 20.1 instructions a task\n",
        "us": "// the poll took 20 us\n",
    }
    good_headers = {
        "sizes and shapes": "// 64-bit words, C++20, x86-64, 1,024 credits, 16 bytes, nodes of 2 x 12, 32 x 2 x 4\n",
        "hex and code": "int h = 0x1F; // mask 0xff\nconst char* s = \"5 ms\"; // a string is not a comment\n",
        "design reference": "// see docs/design/spawn-fast-path-and-context.md for the figures\n",
    }
    ok = True
    for name, header in list(bad_headers.items()) + list(good_headers.items()):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / HEADERS).mkdir(parents=True)
            (root / HEADERS / "x.hpp").write_text(header, encoding="utf-8")
            errors, _ = check(root)
            ok = expect(f"header: {name}", errors, name in good_headers) and ok
    issue_cases = {
        "in src": ("src/a.cpp", f"// {issue} 14: the drivers\n", False),
        "with #": ("docs/a.md", f"See {issue} #16.\n", False),
        "plural, capital": ("tools/a.py", f"# {issue.capitalize()}s 15 and 16\n", False),
        "journal is exempt": ("docs/results/journal/2026-01-01-x.md", f"{issue} 16's figures\n", True),
        "no number": ("docs/b.md", f"the {issue}'s targets; {issue}s/123 in a URL\n", True),
        "outside the checked folders": ("build/x.txt", f"{issue} 3\n", True),
    }
    for name, (rel, text, expect_ok) in issue_cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
            errors, _ = check(root)
            ok = expect(f"issues: {name}", errors, expect_ok) and ok
    return ok


if __name__ == "__main__":
    sys.exit(run(__doc__, check, self_test, "check_comments"))
