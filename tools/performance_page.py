#!/usr/bin/env python3
"""Write docs/performance.md, the current figures, from committed data.

    tools/performance_page.py [ROOT]            (re)write ROOT/docs/performance.md
    tools/performance_page.py [ROOT] --check    exit 1 when the committed page differs
                                                from what the data gives (a test)
    tools/performance_page.py --self-test       the check must fail on a changed CSV
                                                and on a missing source

The page is one table per benchmark, each row a figure with its value, its
baseline, the command that measured it, the commit, the date and the
machine. docs/performance.toml lists the tables, in order. A table takes its
rows either

  - from docs/results/current.csv (`figures = "KEY"`: the rows whose `table`
    column is KEY; every column is copied as it is), for figures that
    scripts without a sweep CSV measured, each row naming the journal entry
    or results page it was taken from (`source`); or
  - from a sweep CSV (`sweep = "docs/results/X.csv"`, with the table's
    `commit`, `date`, `machine` and `source`): each [[table.row]] selects
    rows by column values (`select`), takes the fastest verified one
    (`pick = "min"`) or the only one (`pick = "one"`; a selected value that
    ends in '*' matches as a prefix), and shows its
    `time_s` and `command`, with its `baselines` selected the same way.

Machine keys name an entry of [machines]. Nothing on the page is typed in
it: a number changes only when a committed CSV does.
"""
import csv
import difflib
import pathlib
import re
import shutil
import sys
import tempfile
import tomllib

CONFIG = "docs/performance.toml"
PAGE = "docs/performance.md"
CURRENT_FIELDS = ["table", "figure", "value", "baseline", "command", "commit", "date", "machine", "source"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


class DataError(Exception):
    pass


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        raise DataError(f"{path}: {e.strerror}") from e


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def code(text):
    return f"`{text}`" if text else ""


def matches(row, select):
    """Every selected column equal; a value ending in '*' matches as a prefix."""
    return all(str(row.get(k, "")).startswith(str(v)[:-1]) if str(v).endswith("*") else str(row.get(k, "")) == str(v)
               for k, v in select.items())


def pick(rows, spec, where):
    chosen = [r for r in rows if matches(r, spec["select"])]
    if not chosen:
        raise DataError(f"{where}: no row matches {spec['select']}")
    bad = [r for r in chosen if r.get("verified") != "True"]
    if bad:
        raise DataError(f"{where}: {len(bad)} selected rows did not verify (first: {bad[0].get('command')})")
    how = spec.get("pick", "one")
    if how == "one":
        if len(chosen) != 1:
            raise DataError(f"{where}: {len(chosen)} rows match {spec['select']}, expected one")
        return chosen[0]
    if how == "min":
        return min(chosen, key=lambda r: float(r["time_s"]))
    raise DataError(f"{where}: pick must be 'one' or 'min', not '{how}'")


def what(row, spec):
    """The selected row's own settings beyond the selection: its variant and app arguments."""
    sel = spec["select"]
    parts = [row[k] for k in ("app_args", "variant") if row.get(k) and (k not in sel or str(sel[k]).endswith("*"))]
    return f" ({code(' '.join(parts))})" if parts else ""


def link(source):
    return f"[{pathlib.PurePosixPath(source).stem}](results/{source})" if source else ""


def check_meta(where, commit, date, machine, machines):
    if not COMMIT.match(commit):
        raise DataError(f"{where}: commit '{commit}' is not a hash")
    if not DATE.match(date):
        raise DataError(f"{where}: date '{date}' is not YYYY-MM-DD")
    if machine not in machines:
        raise DataError(f"{where}: machine '{machine}' is not in [machines]")


def table_rows(root, table, machines, current):
    where = f"table '{table['title']}'"
    out = []
    if "figures" in table:
        rows = [r for r in current if r["table"] == table["figures"]]
        if not rows:
            raise DataError(f"{where}: no row of current.csv has table = '{table['figures']}'")
        for r in rows:
            check_meta(f"{where}, '{r['figure']}'", r["commit"], r["date"], r["machine"], machines)
            if r["source"] and not (root / "docs/results" / r["source"]).exists():
                raise DataError(f"{where}, '{r['figure']}': source {r['source']} does not exist")
            out.append([r["figure"], r["value"], r["baseline"], code(r["command"]), code(r["commit"]),
                        r["date"], r["machine"], link(r["source"])])
        return out
    sweep = read_csv(root / table["sweep"])
    check_meta(where, table["commit"], table["date"], table["machine"], machines)
    for spec in table["row"]:
        w = f"{where}, '{spec['figure']}'"
        r = pick(sweep, spec, w)
        bases = []
        for b in spec.get("baselines", []):
            br = pick(sweep, b, w + " baseline")
            bases.append(f"{b['text']}: {float(br['time_s']):.4g} s{what(br, b)}")
        out.append([spec["figure"], f"{float(r['time_s']):.4g} s{what(r, spec)}", "; ".join(bases),
                    code(r["command"]), code(table["commit"]), table["date"], table["machine"],
                    link(table.get("source", ""))])
    return out


def render(root):
    root = pathlib.Path(root)
    try:
        with open(root / CONFIG, "rb") as f:
            config = tomllib.load(f)
    except OSError as e:
        raise DataError(f"{CONFIG}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise DataError(f"{CONFIG}: {e}") from e
    machines = config.get("machines", {})
    current = read_csv(root / "docs/results/current.csv")
    if current and list(current[0]) != CURRENT_FIELDS:
        raise DataError(f"docs/results/current.csv: columns {list(current[0])}, expected {CURRENT_FIELDS}")
    page = config["page"]
    lines = ["<!-- Generated by tools/performance_page.py from docs/performance.toml and the CSVs it names:",
             "     edit those and rerun it. The test docs.performance_page fails when this page is stale. -->",
             f"# {page['title']}", "", page["intro"].strip(), ""]
    used = set()
    for table in config["table"]:
        rows = table_rows(root, table, machines, current)
        used.update(r[6] for r in rows)
        lines += [f"## {table['title']}", "", table["about"].strip(), "",
                  "| figure | value | baseline | command | commit | date | machine | record |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
        lines.append("")
    lines += ["## Machines", ""]
    lines += [f"- **{key}**: {machines[key].strip()}" for key in machines if key in used]
    if page.get("outro"):
        lines += ["", page["outro"].strip()]
    return "\n".join(lines) + "\n"


def check(root):
    root = pathlib.Path(root)
    try:
        want = render(root)
    except (DataError, KeyError) as e:
        return [f"performance page: {e}"]
    page = root / PAGE
    have = page.read_text(encoding="utf-8") if page.exists() else ""
    if have == want:
        return []
    diff = difflib.unified_diff(have.splitlines(), want.splitlines(), PAGE, "generated", lineterm="", n=1)
    return [f"{PAGE} is not what tools/performance_page.py makes of the data; rerun it:"] + list(diff)[:40]


def self_test():
    """Copies of the real inputs: as committed they pass; a changed figure, a
    missing source file and a row that did not verify must each fail."""
    real = pathlib.Path(__file__).resolve().parent.parent
    ok = True

    def case(name, change, expect_ok):
        nonlocal ok
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            for rel in (CONFIG, PAGE):
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(real / rel, root / rel)
            shutil.copytree(real / "docs/results", root / "docs/results")
            change(root)
            errors = check(root)
            if (not errors) != expect_ok:
                print(f"self-test '{name}': expected {'no error' if expect_ok else 'an error'}, got {errors[:3]}")
                ok = False

    def edit(rel, old, new):
        def change(root):
            p = root / rel
            text = p.read_text(encoding="utf-8")
            if old not in text:
                raise SystemExit(f"self-test: '{old}' not in {rel}")
            p.write_text(text.replace(old, new, 1), encoding="utf-8")
        return change

    case("as committed", lambda root: None, True)
    case("a figure of current.csv changed", edit("docs/results/current.csv", "6.038", "5.038"), False)
    case("a time of a sweep CSV changed", edit("docs/results/fig7.csv", "0.036000935", "0.046000935"), False)
    case("a source that does not exist", edit("docs/results/current.csv", "journal/2026-12-06-paced", "journal/gone"), False)
    case("a selected row did not verify", edit("docs/results/fig7.csv", "True", "False"), False)
    return ok


def main(argv):
    if argv == ["--self-test"]:
        ok = self_test()
        print("performance_page self-test:", "ok" if ok else "FAILED")
        return 0 if ok else 1
    check_only = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    if check_only:
        errors = check(root)
        for e in errors:
            print(e)
        print(f"{PAGE}: {'stale' if errors else 'up to date'}")
        return 1 if errors else 0
    try:
        text = render(root)
    except (DataError, KeyError) as e:
        print(f"performance_page: {e}", file=sys.stderr)
        return 1
    (root / PAGE).write_text(text, encoding="utf-8")
    print(f"wrote {root / PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
