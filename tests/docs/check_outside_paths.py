#!/usr/bin/env python3
"""No tracked file names a path outside the repository.

    check_outside_paths.py ROOT        every file `git ls-files` lists under ROOT
    check_outside_paths.py --self-test a file with each forbidden mention must fail

A clone holds only the repository, so no file may point at the workspace
around it: the parent's shared folder, its folder of source documents, or
those documents by number. The papers are cited by short name instead
(docs/references.md). Binary files (a NUL byte in the first 8 KiB) are
skipped. Exit 1 on any mention, 77 (skipped) when ROOT is not a git checkout.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

from checker import Skip, run

# Spelled so that this file does not match itself.
FORBIDDEN = re.compile(r"\.\./shared\b|\bseeds/|\bseed\s+00\d", re.IGNORECASE)


def is_binary(data):
    return b"\0" in data[:8192]


def scan(root, names):
    hits = []
    for name in names:
        path = root / name
        if not path.is_file():
            continue  # deleted in the work tree, or a submodule
        data = path.read_bytes()
        if is_binary(data):
            continue
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            m = FORBIDDEN.search(line)
            if m:
                hits.append(f"{name}:{number}: '{m.group(0)}': {line.strip()[:120]}")
    return hits


def tracked(root):
    out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True)
    return [n for n in out.stdout.decode("utf-8", errors="replace").split("\0") if n]


def self_test():
    ok = True
    bad_lines = ["see ../" + "shared/DESIGN.md", "in the seed" + "s/ folder", "as Seed " + "001 says"]
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "good.md").write_text("HotSLAW §3 and sim-seeds.md and --seed 2024\n", encoding="utf-8")
        (root / "blob.bin").write_bytes(b"\0" + ("../" + "shared").encode())
        if scan(root, ["good.md", "blob.bin"]):
            print("self-test: a clean file or a binary one was reported")
            ok = False
        for i, line in enumerate(bad_lines):
            (root / f"bad{i}.md").write_text(f"text\n{line}\n", encoding="utf-8")
            if len(scan(root, [f"bad{i}.md"])) != 1:
                print(f"self-test: '{line}' was not reported")
                ok = False
    return ok


def check(root):
    root = pathlib.Path(root)
    try:
        names = tracked(root)
    except (OSError, subprocess.CalledProcessError) as e:
        raise Skip(f"not a git checkout ({e})") from e
    hits = scan(root, names)
    return hits, f"{len(names)} tracked files, {len(hits)} mentions of paths outside the repository"


if __name__ == "__main__":
    sys.exit(run(__doc__, check, self_test, "check_outside_paths"))
