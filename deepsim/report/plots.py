"""The report's plots (matplotlib, Agg backend): each function returns PNG bytes.

Figures are built with :class:`matplotlib.figure.Figure` (no pyplot state), kept small
(about 700 px wide) and carry a footer naming the run (seed, games, rules hash, placeholder
data) so a PNG copied elsewhere still says where it came from.
"""

from __future__ import annotations

import io
import sys

import matplotlib

# Files only, no window: the Agg backend, unless the caller already chose one (a notebook's
# inline backend must survive importing deepsim).
if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = [
    "company_forest",
    "length_histogram",
    "new_figure",
    "seat_bars",
    "to_png",
]

DPI = 90


def new_figure(figsize) -> Figure:
    """A matplotlib Figure with constrained layout (no pyplot state)."""
    return Figure(figsize=figsize, layout="constrained")


def to_png(fig: Figure, footer: str) -> bytes:
    """``fig`` as PNG bytes with ``footer`` (the run's provenance) below it."""
    if footer:  # below everything: constrained layout keeps the axes inside [0, 1]
        fig.text(0.0, -0.01, footer, fontsize=6.5, color="0.35", ha="left", va="top")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.1,
                metadata={"Software": None})
    return buf.getvalue()


def company_forest(ws: pd.DataFrame, by: str, *, min_ratio: float, title: str,
                   footer: str = "", max_ratio: float | None = None) -> bytes:
    """Win share / fair share per group with its 95% interval, sorted, with lines at 1
    (fair), ``min_ratio`` (the viability threshold) and ``max_ratio`` (too strong);
    colour = verdict (both ends of the scale stand out)."""
    d = ws.sort_values("ratio").reset_index(drop=True)
    colours = {"viable": "#2b7bba", "too strong": "#d35400", "not viable": "#c0392b",
               "inconclusive": "#999999"}
    fig = new_figure(figsize=(7.2, 0.2 * len(d) + 1.4))
    ax = fig.add_subplot()
    y = np.arange(len(d))
    # clipped at 0: a Wilson bound of 0 wins can come out a rounding error above 0
    err = np.clip(np.vstack([d["ratio"] - d["ratio_low"], d["ratio_high"] - d["ratio"]]),
                  0.0, None)
    for verdict, colour in colours.items():
        m = (d["verdict"] == verdict).to_numpy()
        if m.any():
            ax.errorbar(d["ratio"][m], y[m], xerr=err[:, m], fmt="o", ms=3.5, color=colour,
                        ecolor=colour, elinewidth=1, capsize=2, label=verdict)
    ax.axvline(1.0, color="0.3", lw=1, ls="-")
    ax.axvline(min_ratio, color="#c0392b", lw=1, ls="--")
    label = f"win share / fair share (dashed: not viable below {min_ratio:g}"
    if max_ratio is not None:
        ax.axvline(max_ratio, color="#d35400", lw=1, ls="--")
        label += f", too strong above {max_ratio:g}"
    ax.set_yticks(y, d[by], fontsize=7)
    ax.set_xlabel(label + "; solid: fair share)")
    ax.set_ylim(-0.7, len(d) - 0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return to_png(fig, footer)


def length_histogram(hist: pd.DataFrame, *, target: float | None = None, title: str,
                     footer: str = "") -> bytes:
    """Share of games by rounds, one bar group per rounds value and one bar per player
    count (``hist`` from :func:`deepsim.report.metrics.rounds_histogram`)."""
    share = hist / hist.sum(axis=0).replace(0, np.nan)
    fig = new_figure(figsize=(7.2, 3.8))
    ax = fig.add_subplot()
    k = max(len(share.columns), 1)
    width = 0.8 / k
    x = np.arange(len(share.index))
    for i, p in enumerate(share.columns):
        ax.bar(x - 0.4 + width * (i + 0.5), share[p].fillna(0), width, label=f"{p} players")
    ax.set_xticks(x, [str(r) for r in share.index])
    if target is not None and len(share.index):
        pos = np.interp(target, share.index.to_numpy(dtype=float), x)
        ax.axvline(pos, color="k", ls="--", lw=1)
        ax.text(pos, ax.get_ylim()[1] * 0.95, f" rulebook ~{target:g}", fontsize=8, va="top")
    ax.set_xlabel("rounds per game")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return to_png(fig, footer)


def seat_bars(seat: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Win share / fair share by seat for each player count, with 95% intervals."""
    fig = new_figure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    counts = sorted(seat["players"].unique())
    pos = 0.0
    ticks, labels = [], []
    cmap = matplotlib.colormaps["tab10"]
    for p in counts:
        d = seat[seat["players"] == p].sort_values("seat")
        xs = pos + np.arange(len(d))
        r = d["ratio"].to_numpy()
        err = np.vstack([r - d["ci_low"] / d["fair_share"], d["ci_high"] / d["fair_share"] - r])
        ax.bar(xs, r, 0.8, yerr=err, capsize=2, color=[cmap(int(s) % 10) for s in d["seat"]],
               error_kw={"elinewidth": 0.8})
        ticks += list(xs)
        labels += [str(int(s)) for s in d["seat"]]
        ax.text(xs.mean(), 0.97, f"{p} players", ha="center", va="top", fontsize=8,
                transform=ax.get_xaxis_transform())
        pos = xs[-1] + 2
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_xlabel("seat (1 = first player in round 1), grouped by player count")
    ax.set_ylabel("win share / fair share")
    lo = float(np.nanmin(seat["ci_low"] / seat["fair_share"])) if len(seat) else 0.9
    hi = float(np.nanmax(seat["ci_high"] / seat["fair_share"])) if len(seat) else 1.1
    ax.set_ylim(min(lo, 0.9) - 0.02, max(hi, 1.1) + 0.06)
    ax.set_title(title, fontsize=10)
    return to_png(fig, footer)
