"""DEEPFALL's plots of the balance report (matplotlib, Agg backend): each returns PNG bytes,
with the run's provenance footer (see :mod:`deepsim.report.plots`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm

from deepsim.report.plots import new_figure, to_png

__all__ = ["bradley_terry_bars", "exit_bars", "margin_histogram", "share_heatmap"]


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
    fig = new_figure(figsize=(1.1 * mat.shape[1] + 2.6, 0.55 * mat.shape[0] + 1.8))
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
    return to_png(fig, footer)


def exit_bars(exits: pd.DataFrame, by: str, *, title: str, footer: str = "") -> bytes:
    """Exits per player-game by group: Cash Outs, Worthy Ends (a Last Stand crew Taken),
    Taken without Last Stand mid-game and at the final collapse of Floor 1."""
    d = exits.copy()
    d["taken_mid_pg"] = d["taken_ns_pg"] - d["taken_final_pg"]
    series = [("cash_outs_pg", "Cash Out"), ("worthy_ends_pg", "Worthy End"),
              ("taken_mid_pg", "Taken, no Last Stand (mid-game)"),
              ("taken_final_pg", "Taken, no Last Stand (final collapse)")]
    fig = new_figure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    x = np.arange(len(d))
    width = 0.8 / len(series)
    for i, (col, label) in enumerate(series):
        ax.bar(x - 0.4 + width * (i + 0.5), d[col], width, label=label)
    ax.set_xticks(x, d[by].astype(str))
    ax.set_ylabel("per player-game")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return to_png(fig, footer)


def margin_histogram(games: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Distribution of the relative margin (winner minus runner-up over winner's Glory) by
    player count, as step histograms of the share of games."""
    fig = new_figure(figsize=(7.2, 3.4))
    ax = fig.add_subplot()
    bins = np.linspace(0, 1, 41)
    for p, d in games.groupby("players", sort=True):
        h, _ = np.histogram(d["margin_rel"].to_numpy(dtype=float), bins=bins)
        ax.step(bins[:-1], h / max(len(d), 1), where="post", label=f"{p} players")
    ax.set_xlabel("relative margin (winner minus runner-up) / winner's Glory")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return to_png(fig, footer)


def bradley_terry_bars(bt: pd.DataFrame, *, title: str, footer: str = "") -> bytes:
    """Bradley-Terry strength per company (chance to beat an average company)."""
    d = bt.sort_values("p_vs_average").reset_index(drop=True)
    fig = new_figure(figsize=(7.2, 0.2 * len(d) + 1.4))
    ax = fig.add_subplot()
    ax.barh(np.arange(len(d)), d["p_vs_average"] - 0.5, left=0.5,
            color=np.where(d["p_vs_average"] >= 0.5, "#c0392b", "#2b7bba"))
    ax.axvline(0.5, color="k", lw=1)
    ax.set_yticks(np.arange(len(d)), d["item"], fontsize=7)
    ax.set_xlabel("P(beat an average company) in 2-player games (Bradley-Terry)")
    ax.set_ylim(-0.7, len(d) - 0.3)
    ax.set_title(title, fontsize=10)
    return to_png(fig, footer)
