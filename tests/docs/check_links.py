#!/usr/bin/env python3
"""Every relative Markdown link resolves inside the repository.

    check_links.py ROOT              check README.md and docs/**/*.md under ROOT
    check_links.py --self-test       a broken link, a broken anchor and a link
                                     out of the repository must each fail

A link is `[text](target)` or `![alt](target)` outside code (fenced blocks
and inline code spans are skipped). Targets with a scheme (https:, mailto:)
are not checked; a relative target must name a file or folder inside ROOT,
and a `#anchor` into a Markdown file must name one of its headings (GitHub's
slugs: lower case, punctuation dropped, spaces to '-'). Exit 1 on any bad link.
"""
import pathlib
import re
import sys
import tempfile

from checker import expect, run

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```+|~~~+)")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text):
    """(line number, line) of the text outside fenced code, code spans blanked."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
                continue
            if line.strip().startswith(fence):
                fence = None
                continue
        if fence is None:
            yield number, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)  # GitHub keeps letters, digits, '_', '-', spaces
    return s.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(re.sub(r"[*_`]", "", m.group(1)))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


def check_file(md, root):
    errors = []
    for number, line in prose_lines(md.read_text(encoding="utf-8")):
        for m in LINK.finditer(line):
            target = m.group(1)
            if SCHEME.match(target):
                continue
            path_part, _, anchor = target.partition("#")
            dest = md if path_part == "" else (md.parent / path_part)
            where = f"{md.relative_to(root)}:{number}: link '{target}'"
            try:
                resolved = dest.resolve()
                resolved.relative_to(root.resolve())
            except ValueError:
                errors.append(f"{where} leaves the repository")
                continue
            if not resolved.exists():
                errors.append(f"{where}: no such file")
                continue
            if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                errors.append(f"{where}: no heading '#{anchor}' in {resolved.relative_to(root.resolve())}")
    return errors


def check(root):
    root = pathlib.Path(root)
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    errors = []
    for md in files:
        if md.exists():
            errors += check_file(md, root)
    return errors, f"{len(files)} Markdown files, {len(errors)} bad links"


def self_test():
    ok = True
    cases = {
        "good": ("[a](docs/x.md) [b](docs/x.md#a-heading) ![c](docs/x.md) [web](https://example.org) `[no](nowhere.md)`\n"
                 "```\n[no](nowhere.md)\n```\n", True),
        "missing file": ("see [x](docs/nowhere.md)\n", False),
        "missing anchor": ("see [x](docs/x.md#no-such-heading)\n", False),
        "outside": ("see [x](../outside.md)\n", False),
    }
    for name, (readme, expect_ok) in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp) / "repo"
            (root / "docs").mkdir(parents=True)
            (root / "docs" / "x.md").write_text("# X\n\n## A heading\n", encoding="utf-8")
            (pathlib.Path(tmp) / "outside.md").write_text("# out\n", encoding="utf-8")
            (root / "README.md").write_text(readme, encoding="utf-8")
            errors, _ = check(root)
            ok = expect(name, errors, expect_ok) and ok
    return ok


if __name__ == "__main__":
    sys.exit(run(__doc__, check, self_test, "check_links"))
