"""What the docs checkers share: their command line and their report.

    CHECKER ROOT           run the check on the repository at ROOT
    CHECKER --self-test    run the checker on inputs it must reject (and
                           accept), so that the check itself can fail

run() calls check(root) -> (errors, summary) and exits 1 on any error, 77
(CTest's skip) when check raises Skip; expect() is the self-tests' verdict
on one case.
"""
import sys


class Skip(Exception):
    """The check does not apply here (for example, not a git checkout)."""


def expect(name, errors, expect_ok):
    """One self-test case: True when `errors` is what the case expects."""
    if (not errors) == expect_ok:
        return True
    print(f"self-test '{name}': expected {'no error' if expect_ok else 'an error'}, got {errors}")
    return False


def run(doc, check, self_test, name):
    if sys.argv[1:] == ["--self-test"]:
        ok = self_test()
        print(f"{name} self-test:", "ok" if ok else "FAILED")
        return 0 if ok else 1
    if len(sys.argv) != 2:
        print(doc, file=sys.stderr)
        return 2
    try:
        errors, summary = check(sys.argv[1])
    except Skip as e:
        print(f"skipped: {e}")
        return 77
    for e in errors:
        print(e)
    print(summary)
    return 1 if errors else 0
