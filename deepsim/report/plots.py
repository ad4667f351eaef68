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
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

__all__ = [
    "bradley_terry_bars",
    "company_forest",
    "exit_bars",
    "length_histogram",
    "margin_histogram",
    "seat_bars",
    "share_heatmap",
]

DPI = 90


def _figure(figsize) -> Figure:
    return Figure(figsize=figsize, layout="constrained")


def _png(fig: Figure, footer: str) -> bytes:
    if footer:  # below everything: constrained layout keeps the axes inside [0, 1]
        fig.text(0.0, -0.01, footer, fontsize=6.5, color="0.35", ha="left", va="top")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.1,
                metadata={"Software": None})
    return buf.getvalue()


def share_heatmap(ws_company: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Lineage x Calling heatmap of win share / fair share, diverging colours centred on 1
    (fair share); each cell is annotated with the ratio.

    ``ws_company`` needs ``company`` ("Lineage Calling"), ``ratio`` and ideally
    ``lineage``/``calling`` columns (else split from ``company`` at the last space).
    """
    d = ws_company.copy()
    if "lineage" not in d.columns or "calling" not in d.columns:
        split = d["company"].astype(str).str.rsplit(" ", n=1, expand=True)
        d["lineage"], d["calling"] = split[0], split[1]
    mat = d.pivot_table(index="lineage", columns="calling", values="ratio", aggfunc="mean")
    mat = mat.loc[mat.mean(axis=1).sort_values(ascending=False).index,
                  mat.mean(axis=0).sort_values(ascending=False).index]
    vals = mat.to_numpy(dtype=float)
    finite = vals[np.isfinite(vals)]
    vmin = min(float(finite.min()) if finite.size else 0.9, 0.95)
    vmax = max(float(finite.max()) if finite.size else 1.1, 1.05)
    norm = TwoSlopeNorm(vcenter=1.0, vmin=vmin, vmax=vmax)
    fig = _figure(figsize=(1.1 * mat.shape[1] + 2.6, 0.55 * mat.shape[0] + 1.8))
    ax = fig.add_subplot()
    im = ax.imshow(vals, cmap="RdBu_r", norm=norm, aspect="auto")
    ax.set_xticks(range(mat.shape[1]), mat.columns, rotation=30, ha="right")
    ax.set_yticks(range(mat.shape[0]), mat.index)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            v = vals[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if norm(v) < 0.2 or norm(v) > 0.8 else "black")
    cb = fig.colorbar(im, ax=ax, shrink=0.85)
    cb.set_label("win share / fair share (1 = fair)")
    ax.set_title(title, fontsize=10)
    return _png(fig, footer)


def company_forest(ws: pd.DataFrame, by: str, *, min_ratio: float, title: str,
                   footer: str = "") -> bytes:
    """Win share / fair share per group with its 95% interval, sorted, with lines at 1
    (fair) and ``min_ratio`` (the viability threshold); colour = viability verdict."""
    d = ws.sort_values("ratio").reset_index(drop=True)
    colours = {"viable": "#2b7bba", "not viable": "#c0392b", "inconclusive": "#999999"}
    fig = _figure(figsize=(7.2, 0.2 * len(d) + 1.4))
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
    ax.set_yticks(y, d[by], fontsize=7)
    ax.set_xlabel(f"win share / fair share (dashed: viability threshold {min_ratio:g})")
    ax.set_ylim(-0.7, len(d) - 0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig, footer)


def length_histogram(hist: pd.DataFrame, *, target: float | None = None, title: str,
                     footer: str = "") -> bytes:
    """Share of games by rounds, one bar group per rounds value and one bar per player
    count (``hist`` from :func:`deepsim.report.metrics.rounds_histogram`)."""
    share = hist / hist.sum(axis=0).replace(0, np.nan)
    fig = _figure(figsize=(7.2, 3.8))
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
    return _png(fig, footer)


def seat_bars(seat: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Win share / fair share by seat for each player count, with 95% intervals."""
    fig = _figure(figsize=(7.2, 3.6))
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
        labels += [str(int(s) + 1) for s in d["seat"]]
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
    return _png(fig, footer)


def exit_bars(exits: pd.DataFrame, by: str, *, title: str, footer: str = "") -> bytes:
    """Exits per player-game by group: Cash Outs, Worthy Ends (a Last Stand crew Taken),
    Taken without Last Stand mid-game and at the final collapse of Floor 1."""
    d = exits.copy()
    d["taken_mid_pg"] = d["taken_ns_pg"] - d["taken_final_pg"]
    series = [("cash_outs_pg", "Cash Out"), ("worthy_ends_pg", "Worthy End"),
              ("taken_mid_pg", "Taken, no Last Stand (mid-game)"),
              ("taken_final_pg", "Taken, no Last Stand (final collapse)")]
    fig = _figure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    x = np.arange(len(d))
    width = 0.8 / len(series)
    for i, (col, label) in enumerate(series):
        ax.bar(x - 0.4 + width * (i + 0.5), d[col], width, label=label)
    ax.set_xticks(x, d[by].astype(str))
    ax.set_ylabel("per player-game")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return _png(fig, footer)


def margin_histogram(games: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Distribution of the relative margin (winner minus runner-up over winner's Glory) by
    player count, as step histograms of the share of games."""
    fig = _figure(figsize=(7.2, 3.4))
    ax = fig.add_subplot()
    bins = np.linspace(0, 1, 41)
    for p, d in games.groupby("players", sort=True):
        h, _ = np.histogram(d["margin_rel"].to_numpy(dtype=float), bins=bins)
        ax.step(bins[:-1], h / max(len(d), 1), where="post", label=f"{p} players")
    ax.set_xlabel("relative margin (winner minus runner-up) / winner's Glory")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return _png(fig, footer)


def bradley_terry_bars(bt: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Bradley-Terry strength per company (chance to beat an average company)."""
    d = bt.sort_values("p_vs_average").reset_index(drop=True)
    fig = _figure(figsize=(7.2, 0.2 * len(d) + 1.4))
    ax = fig.add_subplot()
    ax.barh(np.arange(len(d)), d["p_vs_average"] - 0.5, left=0.5,
            color=np.where(d["p_vs_average"] >= 0.5, "#c0392b", "#2b7bba"))
    ax.axvline(0.5, color="k", lw=1)
    ax.set_yticks(np.arange(len(d)), d["item"], fontsize=7)
    ax.set_xlabel("P(beat an average company) in 2-player games (Bradley-Terry)")
    ax.set_ylim(-0.7, len(d) - 0.3)
    ax.set_title(title, fontsize=10)
    return _png(fig, footer)
