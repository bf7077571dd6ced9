#!/usr/bin/env python3
"""Extract the example programs of a Markdown file (README.md by default).

A code block is an example when the line before its opening fence is an
HTML comment naming the file it becomes:

    <!-- example: threads.cpp -->
    ```cpp
    ...
    ```

`readme_examples.py [FILE] --out DIR` writes every such block to DIR/NAME
and prints the names; `--list` prints the names only. The docs tests build
and run what this extracts from README.md (docs.readme.*) and docs/api.md
(docs.api.*), and the install test README.md's, so the documents' code is
the code that is tested. Exits 1 when the file has no example or a marked block
is malformed (no fence after the comment, no closing fence, a name twice).
"""
import argparse
import pathlib
import re
import sys

MARKER = re.compile(r"^<!--\s*example:\s*([A-Za-z0-9_.-]+)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def extract(text: str, source: str) -> dict:
    lines = text.splitlines()
    examples = {}
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group(1)
        if name in examples:
            raise ValueError(f"{source}:{i + 1}: example '{name}' is named twice")
        if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
            raise ValueError(f"{source}:{i + 1}: example '{name}' is not followed by a code fence")
        fence = FENCE.match(lines[i + 1]).group(1)
        body = []
        j = i + 2
        while j < len(lines) and not lines[j].startswith(fence):
            body.append(lines[j])
            j += 1
        if j >= len(lines):
            raise ValueError(f"{source}:{i + 2}: example '{name}' has no closing fence")
        examples[name] = "\n".join(body) + "\n"
        i = j + 1
    return examples


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("markdown", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent / "README.md"))
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", help="folder to write the examples to")
    group.add_argument("--list", action="store_true", help="print the example names only")
    args = ap.parse_args()
    path = pathlib.Path(args.markdown)
    try:
        examples = extract(path.read_text(encoding="utf-8"), str(path))
    except ValueError as e:
        print(f"readme_examples: {e}", file=sys.stderr)
        return 1
    if not examples:
        print(f"readme_examples: {path} has no '<!-- example: NAME -->' block", file=sys.stderr)
        return 1
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, body in examples.items():
            target = out / name
            if not target.exists() or target.read_text(encoding="utf-8") != body:
                target.write_text(body, encoding="utf-8")  # unchanged files keep their time: no rebuild
    for name in examples:
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
