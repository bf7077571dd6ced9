"""What every kind of tools/plot.py shares: the CSV readers (verified rows,
numeric columns, the `case` column), subplot grids and colours, and the writers
of a figure (PNG) or a Markdown table."""
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def load(path):
    """The verified rows of a sweep's CSV, with numeric columns and a `case` column."""
    return with_case(ok_rows(pd.read_csv(path, keep_default_na=False)))


def number(text, flag):
    m = re.search(re.escape(flag) + r"\s+(\d+)", text)
    return int(m.group(1)) if m else None


def numeric(df, *cols):
    df = df.copy()
    for c in cols:
        if c in df:
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def ok_rows(df):
    if "verified" not in df:
        return df
    return df[df["verified"].astype(str) == "True"]


def with_case(df):
    df = numeric(df, "time_s", "workers", "ranks")
    return df.assign(case=(df["app"] + " " + df["app_args"]).str.strip())


def median_row(g):
    ordered = g.sort_values("time_s")
    return ordered.iloc[(len(ordered) - 1) // 2]


def subplots(n, width=4.2, height=3.4):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


_COLORS = {}


def color_of(label):
    """One colour per series label across every subplot."""
    return _COLORS.setdefault(label, plt.get_cmap("tab10")(len(_COLORS) % 10))


def write_png(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def save(fig, path):
    """write_png, and say so on stdout (between the tables of a multi-figure kind)."""
    write_png(fig, path)
    print(f"<!-- wrote {path} -->")


def derived(out, suffix):
    """DIR/stem.png -> DIR/stem-SUFFIX.png: the figures of a multi-figure kind."""
    stem, ext = os.path.splitext(out)
    return f"{stem}-{suffix}{ext or '.png'}"


def geomean(values):
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def markdown(lines, out):
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    print(text, end="")
