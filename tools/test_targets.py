#!/usr/bin/env python3
"""Prints the build targets that the CTest tests selected by CTEST_ARGS run,
one per line, so a build can compile only what those tests need:

  tools/test_targets.py BUILD_DIR [CTEST_ARGS...]     e.g.  build-ci/tsan -L concurrency
  cmake --build BUILD_DIR $(tools/test_targets.py BUILD_DIR -L concurrency | sed 's/^/--target /')

A test needs every file of the build tree that its command names, as an
argument or inside one (`sh -c "..."`), and its working directory: each such
path that the build system knows how to make is a target (the build makes
what it links to, e.g. libheist.so). A test whose command names no path of
the tree builds nothing. Needs a configured Ninja tree (ninja -t targets)
whose tests need no build to be listed (GoogleTest binaries registered one
test each, HEIST_TEST_PER_CASE=OFF, or discovered ones already built).
Commands are read from ctest and from the CTestTestfile.cmake files, which
name a test's binary before it exists.
"""
import json
import os
import re
import subprocess
import sys


def buildable(build):
    out = subprocess.run(["ninja", "-C", build, "-t", "targets", "all"], capture_output=True, text=True,
                         check=True).stdout
    return {line.rsplit(": ", 1)[0] for line in out.splitlines() if ": " in line}


def commands(build):
    """Each test's command words and working directory, from the CTestTestfile.cmake
    files (ctest --show-only omits the command of a test whose binary is not built yet)."""
    words = {}
    for directory, _, files in os.walk(build):
        if "CTestTestfile.cmake" not in files:
            continue
        with open(os.path.join(directory, "CTestTestfile.cmake"), encoding="utf-8") as listing:
            for line in listing:
                m = re.match(r"(add_test|set_tests_properties)\(\[=\[(.*?)\]=\](.*)", line)
                if m:
                    words.setdefault(m.group(2), []).extend(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(3)))
    return words


def named_paths(build, words):
    """Paths under BUILD that a test's words name."""
    root = os.path.realpath(build) + os.sep
    for word in words:
        for token in re.split(r"[\s'\";:=]+", word):
            path = os.path.realpath(token) if token.startswith("/") else None
            if path and path.startswith(root):
                yield path[len(root):]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build, ctest_args = sys.argv[1], sys.argv[2:]
    listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1", *ctest_args],
                             capture_output=True, text=True, check=True).stdout
    tests = json.loads(listing)["tests"]
    if not tests:
        sys.exit(f"test_targets: no test in {build} matches {' '.join(ctest_args)}")
    known, words = buildable(build), commands(build)
    wanted = set()
    for test in tests:
        named = list(words.get(test["name"], [])) + list(test.get("command") or [])
        named += [p["value"] for p in test.get("properties", []) if p["name"] == "WORKING_DIRECTORY"]
        wanted |= {path for path in named_paths(build, named) if path in known}
    wanted = sorted(wanted)
    print("\n".join(wanted))


if __name__ == "__main__":
    main()
