#!/usr/bin/env python3
"""CMakePresets.json's quick path builds every unit test it runs.

    check_presets.py ROOT           ROOT/CMakePresets.json against ROOT/tests/**/CMakeLists.txt
    check_presets.py --self-test    a preset that misses a unit test must fail

README.md's quick path is `cmake --build --preset unit && ctest --preset unit`:
the build preset names the test executables, the test preset selects the
label `unit`. A unit test added with heist_add_gtest(NAME ... LABELS unit)
but missing from the build preset's targets would not be built, and ctest
would report it as not run; this check names it instead. Also checks that
the file is JSON of a version CMake 3.25 reads (<= 6) and that the presets
the README uses exist. Exit 1 on any problem.
"""
import json
import pathlib
import re
import sys
import tempfile

from checker import expect, run

# Targets that unit-labelled tests other than GoogleTest executables read.
ARCHIVES = {"heist_stats_json": "layers.no_upward_symbol reads every layer's archive, the stats layer's included"}
GTEST = re.compile(r"heist_add_gtest\(\s*([A-Za-z0-9_]+)\b(.*?)\)\s*$", re.S | re.M)
LABELS = re.compile(r"LABELS\s+(\"[^\"]*\"|\S+)")


def unit_tests(root):
    names = set()
    for cml in sorted((root / "tests").rglob("CMakeLists.txt")):
        text = re.sub(r"#[^\n]*", "", cml.read_text(encoding="utf-8"))
        for m in GTEST.finditer(text):
            if m.group(1) == "name":  # the function's own definition
                continue
            labels = LABELS.search(m.group(2))
            if labels and "unit" in labels.group(1).strip('"').split(";"):
                names.add(m.group(1))
    return names


def check(root):
    root = pathlib.Path(root)
    errors = []
    try:
        presets = json.loads((root / "CMakePresets.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"CMakePresets.json: {e}"], "CMakePresets.json unreadable"
    if presets.get("version", 99) > 6:
        errors.append(f"CMakePresets.json: version {presets.get('version')} is newer than CMake 3.25 reads (6)")
    def named(kind, name):
        return next((p for p in presets.get(kind, []) if p.get("name") == name), None)
    for kind, name in [("configurePresets", "dev"), ("buildPresets", "dev"), ("buildPresets", "unit"),
                       ("testPresets", "unit"), ("testPresets", "docs")]:
        if named(kind, name) is None:
            errors.append(f"CMakePresets.json: no {kind[:-7]} preset '{name}' (README.md uses it)")
    build = named("buildPresets", "unit") or {}
    targets = set(build.get("targets", []))
    needed = unit_tests(root)
    if not needed:
        errors.append("found no heist_add_gtest(... LABELS unit) in tests/: the parser is out of date")
    for name in sorted(needed - targets):
        errors.append(f"CMakePresets.json: build preset 'unit' lacks target '{name}' (a unit test)")
    # Unit tests that read build outputs no unit test executable links.
    for name, why in ARCHIVES.items():
        if name not in targets:
            errors.append(f"CMakePresets.json: build preset 'unit' lacks target '{name}' ({why})")
    return errors, f"unit tests in tests/: {sorted(needed)}; {len(errors)} problems"


def self_test():
    ok = True
    cml = ("heist_add_gtest(test_a SOURCES a.cpp LIBS heist LABELS unit)\n"
           "heist_add_gtest(test_b SOURCES b.cpp LIBS heist\n  LABELS \"unit;concurrency\")\n"
           "heist_add_gtest(test_c SOURCES c.cpp LIBS heist LABELS api)\n")
    base = {"version": 6, "configurePresets": [{"name": "dev"}],
            "buildPresets": [{"name": "dev"}, {"name": "unit", "targets": ["test_a", "test_b", *ARCHIVES]}],
            "testPresets": [{"name": "unit"}, {"name": "docs"}]}
    missing = json.loads(json.dumps(base))
    missing["buildPresets"][1]["targets"] = ["test_a", *ARCHIVES]
    no_archive = json.loads(json.dumps(base))
    no_archive["buildPresets"][1]["targets"] = ["test_a", "test_b"]
    too_new = dict(base, version=10)
    for name, presets, expect_ok in [("complete", base, True), ("missing test_b", missing, False),
                                     ("missing heist_stats_json", no_archive, False),
                                     ("version 10", too_new, False)]:
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "tests").mkdir()
            (root / "tests" / "CMakeLists.txt").write_text(cml, encoding="utf-8")
            (root / "CMakePresets.json").write_text(json.dumps(presets), encoding="utf-8")
            errors, _ = check(root)
            ok = expect(name, errors, expect_ok) and ok
    return ok


if __name__ == "__main__":
    sys.exit(run(__doc__, check, self_test, "check_presets"))
