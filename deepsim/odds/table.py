"""The answer of one ``deepsim odds`` question and its renderings: rich, csv, json, md, SVG.

Every question returns one :class:`Result`: a table (columns, rows, optional footer rows
such as means), the inputs it was asked with, the method (exact through icepool, or Monte
Carlo where a mechanic has no closed form), the placeholder data it used, and notes.
"""

from __future__ import annotations

import csv
import io
import json
import math
import textwrap
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from deepsim.errors import InputError

FORMATS = ("table", "csv", "json", "md")


@dataclass
class Column:
    """One column: ``key`` in each row, ``label`` shown, ``kind`` in int|prob|float|text."""

    key: str
    label: str
    kind: str = "prob"


@dataclass
class Result:
    """One answered question."""

    ruleset: str
    question: str
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    footer: list[dict[str, Any]] = field(default_factory=list)
    method: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)
    placeholders: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    plot_x: str | None = None                 # column key on the x axis
    plot_y: list[str] = field(default_factory=list)   # probability columns to draw

    def column(self, key: str) -> Column:
        for c in self.columns:
            if c.key == key:
                return c
        raise KeyError(key)


def as_float(v: Any) -> Any:
    """Fractions (icepool's exact probabilities) to float; other values unchanged."""
    if isinstance(v, Fraction):
        return float(v)
    return v


def fmt_cell(v: Any, kind: str) -> str:
    """A cell as text for the rich and markdown tables."""
    if v is None:
        return ""
    v = as_float(v)
    if kind == "prob" and isinstance(v, (int, float)):
        if v == 0:
            return "0"
        if v >= 1 - 5e-7 and v <= 1:
            return "100%"
        if v < 0.00005:
            return "<0.01%" if v > 0 else "0"
        return f"{100 * v:.2f}%"
    if kind == "float" and isinstance(v, (int, float)):
        return f"{v:.3f}"
    if kind == "int" and isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _notes_lines(res: Result) -> list[str]:
    out = []
    if res.method:
        out.append(f"Method: {res.method}")
    if res.inputs:
        out.append("Inputs: " + "; ".join(f"{k} = {_inline(v)}" for k, v in res.inputs.items()))
    if res.placeholders:
        out.append("PLACEHOLDER data (not in the rulebook; replace it in the data file): "
                   + ", ".join(res.placeholders))
    out += res.notes
    return out


def _inline(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}={_inline(x)}" for k, x in v.items()) or "-"
    if isinstance(v, (list, tuple)):
        return ", ".join(_inline(x) for x in v) or "-"
    return str(as_float(v))


def render_rich(res: Result, console) -> None:
    """Print the table and its notes with rich."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(res.title), title_justify="left")
    for c in res.columns:
        table.add_column(escape(c.label), justify="left" if c.kind == "text" else "right",
                         overflow="fold")   # an 80-column log folds, never cuts
    for row in res.rows:
        table.add_row(*(escape(fmt_cell(row.get(c.key), c.kind)) for c in res.columns))
    if res.footer:
        table.add_section()
        for row in res.footer:
            table.add_row(*(escape(fmt_cell(row.get(c.key), "float" if c.kind == "prob"
                                             else c.kind)) for c in res.columns),
                          style="bold")
    console.print(table)
    for line in _notes_lines(res):
        style = "yellow" if line.startswith("PLACEHOLDER") else "dim"
        console.print(f"[{style}]{escape(line)}[/{style}]", highlight=False)


def to_csv(res: Result) -> str:
    """The rows (not the footer) as CSV with the column keys as header; floats unrounded."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([c.key for c in res.columns])
    for row in res.rows:
        w.writerow([_csv_value(as_float(row.get(c.key))) for c in res.columns])
    return buf.getvalue()


def _csv_value(v: Any) -> Any:
    if isinstance(v, float):
        return repr(v)
    return "" if v is None else v


def _json_value(v: Any) -> Any:
    v = as_float(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return v


def to_json(res: Result) -> str:
    """Everything: inputs, method, placeholders, notes, columns, rows, footer."""
    obj = {
        "ruleset": res.ruleset,
        "question": res.question,
        "title": res.title,
        "method": res.method,
        "inputs": _json_value(res.inputs),
        "placeholders": res.placeholders,
        "notes": res.notes,
        "columns": [{"key": c.key, "label": c.label, "kind": c.kind} for c in res.columns],
        "rows": [{c.key: _json_value(r.get(c.key)) for c in res.columns} for r in res.rows],
        "footer": [{c.key: _json_value(r.get(c.key)) for c in res.columns}
                   for r in res.footer],
    }
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def to_markdown(res: Result) -> str:
    """A GitHub markdown table with the title above and the notes below."""
    def esc(s: str) -> str:
        return s.replace("|", "\\|")
    lines = [f"**{esc(res.title)}**", ""]
    lines.append("| " + " | ".join(esc(c.label) for c in res.columns) + " |")
    lines.append("|" + "|".join(":---" if c.kind == "text" else "---:" for c in res.columns)
                 + "|")
    for row in res.rows:
        lines.append("| " + " | ".join(esc(fmt_cell(row.get(c.key), c.kind))
                                       for c in res.columns) + " |")
    for row in res.footer:
        lines.append("| " + " | ".join(
            f"**{esc(fmt_cell(row.get(c.key), 'float' if c.kind == 'prob' else c.kind))}**"
            if row.get(c.key) is not None else "" for c in res.columns) + " |")
    lines.append("")
    lines += [f"- {esc(n)}" for n in _notes_lines(res)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# plot: a small grouped bar chart (matplotlib)
# ---------------------------------------------------------------------------------------

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def write_plot(res: Result, path: Path) -> None:
    """Draw the question's probability columns as grouped bars over its x column.

    The format follows the suffix of ``path`` (.png, .svg or .pdf).

    Raises
    ------
    InputError
        Nothing to plot for this question, an unknown suffix, or an unwritable path.
    """
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise InputError(f"give a plot path ending in {', '.join(PLOT_SUFFIXES)}",
                         key="--plot", file=str(path))
    if not res.plot_x or not res.plot_y:
        raise InputError(f"the {res.ruleset} question '{res.question}' has nothing to plot")
    import sys

    import matplotlib
    if "matplotlib.pyplot" not in sys.modules:   # a caller's backend (a notebook's) stays
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import PercentFormatter

    xkind = res.column(res.plot_x).kind
    rows = [r for r in res.rows                  # e.g. a '>=1' summary row is not a k
            if xkind != "int" or isinstance(r.get(res.plot_x), int)]
    xs = [fmt_cell(r.get(res.plot_x), xkind) for r in rows]
    x = np.arange(len(xs))
    width = 0.8 / max(1, len(res.plot_y))
    fig, ax = plt.subplots(figsize=(max(5.0, 0.5 * len(xs) * len(res.plot_y) + 2), 3.5))
    for j, key in enumerate(res.plot_y):
        vals = [float(as_float(r.get(key)) or 0.0) for r in rows]
        ax.bar(x + (j - (len(res.plot_y) - 1) / 2) * width, vals, width,
               label=res.column(key).label)
    ax.set_xticks(x, xs)
    ax.set_xlabel(res.column(res.plot_x).label)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_title("\n".join(textwrap.wrap(res.title, 60)), fontsize=10)
    if len(res.plot_y) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise InputError(f"cannot write the plot: {exc.strerror}", file=str(path)) from None
    finally:
        plt.close(fig)
