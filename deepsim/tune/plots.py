"""Plots of sweeps and tunes (matplotlib, Agg backend): each function returns PNG bytes.

- one swept parameter: each metric against it, one line per group, with its 95% interval
  as a band and the fair value of a win metric dashed; below it, the paired change from the
  baseline point with its interval;
- two swept parameters: a heatmap per metric (and group), each cell annotated with the
  value, the half-width of its interval and its paired change from the baseline (Δ);
- a tune: the objective of every trial with its interval, the best so far as a step line
  and the baseline as a dashed line.
"""

from __future__ import annotations

import io
import math
import sys

import matplotlib

# Files only, no window: the Agg backend, unless the caller already chose one (a notebook's
# inline backend must survive importing deepsim).
if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["sweep_heatmap", "sweep_line", "trials_plot"]

DPI = 90
MAX_PANELS = 12


def figure_png(fig: Figure, footer: str) -> bytes:
    """A matplotlib figure as PNG bytes, with a provenance ``footer`` line under it (none
    when empty); the figure is closed."""
    if footer:
        fig.text(0.0, -0.01, footer, fontsize=6.5, color="0.35", ha="left", va="top")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.1,
                metadata={"Software": None})
    return buf.getvalue()


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float, np.integer, np.floating))
               and not isinstance(v, (bool, np.bool_)) for v in values)


def _hashable(d: pd.DataFrame, *params: str) -> pd.DataFrame:
    """Parameter values that are lists or mappings (``combat.hit_faces=[5, 6]``) as text,
    so they can label a point."""
    out = d
    for p in params:
        if out[p].map(lambda v: isinstance(v, (list, tuple, dict, np.ndarray))).any():
            out = out.assign(**{p: out[p].map(
                lambda v: str(list(v)) if isinstance(v, (tuple, np.ndarray)) else str(v)
                if isinstance(v, (list, dict)) else v)})
    return out


def _fmt(v: float) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.3g}" if abs(v) >= 1 else f"{v:.3f}"


def sweep_line(frame: pd.DataFrame, param: str, metric: str, *, title: str,
               footer: str = "") -> bytes:
    """``metric`` (rows of the tidy sweep frame) against ``param``: a line per group with
    its interval as a band and, for a win metric, its fair value as a dashed line (above);
    the paired change from the baseline point with its interval (below)."""
    d = _hashable(frame[frame["metric"] == metric], param)
    xs = list(dict.fromkeys(d[param].tolist()))
    numeric = _numeric(xs)
    has_delta = "delta" in d.columns and d["delta"].notna().any()
    fig = Figure(figsize=(7.5, 6.4 if has_delta else 4.2), layout="constrained")
    if has_delta:
        ax, axd = fig.subplots(2, 1, sharex=True, height_ratios=[3, 2])
    else:
        ax, axd = fig.add_subplot(), None
    groups = list(dict.fromkeys(d["group"].tolist()))
    unit = str(d["unit"].iloc[0]) if "unit" in d.columns and len(d) else ""
    fairs = []
    for group in groups:
        g = d[d["group"] == group]
        if numeric:
            g = g.sort_values(param)
            x = g[param].to_numpy(dtype=np.float64)
        else:
            x = np.array([xs.index(v) for v in g[param]], dtype=np.float64)
        line, = ax.plot(x, g["value"], marker="o", ms=3.5, lw=1.4,
                        label=group if group else metric)
        ax.fill_between(x, g["low"].to_numpy(dtype=np.float64),
                        g["high"].to_numpy(dtype=np.float64), color=line.get_color(),
                        alpha=0.18, lw=0)
        if "fair" in g.columns and g["fair"].notna().any():
            fair = g["fair"].to_numpy(dtype=np.float64)
            fairs.append((x, fair, line.get_color()))
        if axd is not None:
            axd.plot(x, g["delta"], marker="o", ms=3.0, lw=1.2, color=line.get_color())
            axd.fill_between(x, g["delta_low"].to_numpy(dtype=np.float64),
                             g["delta_high"].to_numpy(dtype=np.float64),
                             color=line.get_color(), alpha=0.18, lw=0)
    if fairs:
        values = np.concatenate([f for _, f, _ in fairs])
        if np.nanmax(values) - np.nanmin(values) < 1e-9:   # one fair value: one line
            ax.axhline(float(values[0]), color="0.3", ls="--", lw=1.0,
                       label=f"fair ({_fmt(float(values[0]))})")
        else:
            for x, f, color in fairs:
                ax.plot(x, f, ls="--", lw=0.9, color=color)
            ax.plot([], [], ls="--", color="0.3", lw=0.9, label="fair share (dashed)")
    if axd is not None:
        axd.axhline(0.0, color="0.3", lw=0.9)
        axd.set_ylabel(f"change from baseline{f' ({_dunit(unit)})' if unit else ''}",
                       fontsize=8)
        axd.grid(alpha=0.3)
        axd.set_xlabel(param)
    else:
        ax.set_xlabel(param)
    if not numeric:
        (axd or ax).set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_ylabel(f"{metric}{f' ({unit})' if unit else ''}")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if len(groups) > 1 or groups[0] or fairs:
        ax.legend(fontsize=7, ncols=2 if len(groups) > 8 else 1, loc="best")
    return figure_png(fig, footer)


def _dunit(unit: str) -> str:
    return "pp" if unit == "%" else unit


def sweep_heatmap(frame: pd.DataFrame, p1: str, p2: str, metric: str, *, title: str,
                  footer: str = "") -> bytes:
    """``metric`` over the ``p1`` x ``p2`` grid: one heatmap per group (at most 12), each
    cell annotated with the value and ``±`` half its interval's width."""
    d = _hashable(frame[frame["metric"] == metric], p1, p2)
    groups = list(dict.fromkeys(d["group"].tolist()))[:MAX_PANELS]
    ys = list(dict.fromkeys(d[p1].tolist()))
    xs = list(dict.fromkeys(d[p2].tolist()))
    if _numeric(ys):
        ys = sorted(ys)
    if _numeric(xs):
        xs = sorted(xs)
    ncols = min(len(groups), 3)
    nrows = math.ceil(len(groups) / ncols)
    cell = 0.55 if len(xs) * len(ys) > 30 else 0.9
    fig = Figure(figsize=(max(4.0, ncols * (1.6 + cell * len(xs))),
                          max(3.0, nrows * (1.2 + cell * len(ys)))), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for k, group in enumerate(groups):
        ax = axes[k // ncols][k % ncols]
        g = d[d["group"] == group]
        val = np.full((len(ys), len(xs)), np.nan)
        half = np.full((len(ys), len(xs)), np.nan)
        delta = np.full((len(ys), len(xs)), np.nan)
        dcol = g["delta"] if "delta" in g.columns else pd.Series(np.nan, index=g.index)
        for a, b, v, lo, hi, dv in zip(g[p1], g[p2], g["value"], g["low"], g["high"], dcol,
                                       strict=True):
            i, j = ys.index(a), xs.index(b)
            val[i, j] = v
            half[i, j] = (hi - lo) / 2
            delta[i, j] = dv
        im = ax.imshow(val, origin="lower", aspect="auto", cmap="viridis")
        fig.colorbar(im, ax=ax, shrink=0.8)
        finite = val[np.isfinite(val)]
        mid = (finite.min() + finite.max()) / 2 if finite.size else 0.0
        fs = 6.5 if len(xs) * len(ys) > 30 else 7.5
        for i in range(len(ys)):
            for j in range(len(xs)):
                if np.isfinite(val[i, j]):
                    text = f"{_fmt(val[i, j])}\n±{_fmt(half[i, j])}"
                    if np.isfinite(delta[i, j]):
                        text += f"\nΔ{delta[i, j]:+.3g}"
                    ax.text(j, i, text, ha="center", va="center", fontsize=fs,
                            color="white" if val[i, j] < mid else "black")
        ax.set_xticks(range(len(xs)), [str(v) for v in xs], fontsize=7, rotation=45)
        ax.set_yticks(range(len(ys)), [str(v) for v in ys], fontsize=7)
        ax.set_xlabel(p2, fontsize=8)
        ax.set_ylabel(p1, fontsize=8)
        if group:
            ax.set_title(str(group), fontsize=8)
    for k in range(len(groups), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    fig.suptitle(title, fontsize=10)
    return figure_png(fig, footer)


def trials_plot(trials: pd.DataFrame, objective: str, *, title: str, footer: str = "",
                baseline: float | None = None) -> bytes:
    """Objective per trial with its interval, the best so far, and the baseline."""
    fig = Figure(figsize=(7.5, 4.0), layout="constrained")
    ax = fig.add_subplot()
    ok = trials[trials["state"] == "COMPLETE"].sort_values("trial")
    x = ok["trial"].to_numpy()
    y = ok["value"].to_numpy(dtype=np.float64)
    lo = ok["low"].to_numpy(dtype=np.float64)
    hi = ok["high"].to_numpy(dtype=np.float64)
    ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], fmt="o", ms=3.5,
                lw=0.8, capsize=0, ecolor=(0.2, 0.4, 0.8, 0.25),
                label="trial (95% interval)")
    if len(y):
        ax.step(x, np.minimum.accumulate(y), where="post", color="C3", lw=1.6,
                label="best so far")
    if baseline is not None and math.isfinite(baseline):
        ax.axhline(baseline, color="0.4", ls="--", lw=1.0, label="baseline (defaults)")
    failed = trials[trials["state"] != "COMPLETE"]
    if len(failed):
        ax.plot(failed["trial"], np.full(len(failed), np.nanmax(y) if len(y) else 0.0), "x",
                color="0.5", label="refused by the ruleset")
    ax.set_xlabel("trial")
    ax.set_ylabel(objective)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return figure_png(fig, footer)
