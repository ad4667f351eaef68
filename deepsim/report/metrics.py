"""The report's numbers: pure functions over a run's ``games`` and ``seats`` frames.

No I/O, no printing, no plotting. Every interval and test comes from a library:
Wilson intervals (``statsmodels`` ``proportion_confint``, via :mod:`deepsim.stats`),
exact binomial tests (``scipy.stats.binomtest``), Holm's correction
(:func:`deepsim.stats.holm_adjust`: statsmodels' ``multipletests`` numbers without its
``gc.collect()`` per call), t intervals of a mean (``statsmodels`` ``DescrStatsW``), ratio-of-sums
intervals with games as clusters (``statsmodels`` WLS with a heteroskedasticity-robust
covariance), Brown-Forsythe tests (``scipy.stats.levene``), the ratio of two proportions
(``statsmodels`` ``confint_proportions_2indep``) and Bradley-Terry strengths (``choix``).

Frames are those of :func:`deepsim.output.read_run`; each function names the columns it
needs and raises ``KeyError`` when one is missing (the report then skips that section).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from statsmodels.regression.linear_model import WLS
from statsmodels.stats.proportion import confint_proportions_2indep
from statsmodels.stats.weightstats import DescrStatsW

from deepsim import stats
from deepsim.report import viability as V

__all__ = [
    "bradley_terry",
    "draw_flags",
    "first_against_last",
    "game_length",
    "holm",
    "margins",
    "matchup_matrix",
    "mean_ci",
    "mean_text",
    "normalized_place",
    "proportion_diff_ci",
    "proportion_ratio_ci",
    "ratio_of_sums",
    "require",
    "rounds_histogram",
    "seat_advantage",
    "share_text",
    "viability_verdict",
    "wilson",
    "win_share_table",
]


def require(df: pd.DataFrame, columns, what: str = "frame") -> None:
    """Raise ``KeyError`` naming the first of ``columns`` missing from ``df``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{what} has no column(s) {', '.join(missing)}")


def draw_flags(games: pd.DataFrame) -> np.ndarray:
    """Per game: True when the game ended and no seat won outright (a draw, or a tie for
    first). An unresolved game (a safety cap stopped it: :func:`deepsim.stats.
    unresolved_flags`) is never a draw.

    Reads ``winner_side`` (-1 = no winner; Atlantis) or else ``n_winners`` (> 1 = a tie for
    first; DEEPFALL), and ``truncated`` / ``adjudicated`` when present.
    """
    if "winner_side" in games.columns:
        flags = games["winner_side"].to_numpy(dtype=np.int64) < 0
    elif "n_winners" in games.columns:
        flags = games["n_winners"].to_numpy(dtype=np.int64) > 1
    else:
        raise KeyError("games has no column(s) winner_side or n_winners")
    return flags & ~stats.unresolved_flags(games)


# --- generic statistics ---------------------------------------------------------------------

def wilson(successes, n, alpha: float = 0.05):
    """Wilson score interval (statsmodels); see :func:`deepsim.stats.wilson_interval`."""
    return stats.wilson_interval(successes, n, alpha=alpha)


def holm(pvalues, alpha: float = 0.05) -> np.ndarray:
    """Holm-adjusted p-values (:func:`deepsim.stats.holm_adjust`, the same numbers as
    statsmodels' ``multipletests(method="holm")``); ``alpha`` does not change them.

    NaN p-values are left out of the family and stay NaN.
    """
    return stats.holm_adjust(pvalues)


def mean_ci(x, alpha: float = 0.05) -> tuple[float, float, float]:
    """Mean of ``x`` and its t interval (``DescrStatsW.tconfint_mean``); NaN if < 2 values."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    if x.size < 2 or np.all(x == x[0]):
        m = float(x.mean())
        return m, m, m
    lo, hi = DescrStatsW(x).tconfint_mean(alpha=alpha)
    return float(x.mean()), float(lo), float(hi)


def share_text(k: float, n: int, alpha: float = 0.05) -> str:
    """A share of ``k`` in ``n`` with its Wilson interval, for a report cell:
    ``12.3% (11.0% - 13.6%)``; ``-`` when ``n`` is 0."""
    from deepsim.report.fmt import pci, pct

    if n <= 0:
        return "-"
    lo, hi = wilson(k, n, alpha)
    return f"{pct(k / n)} ({pci(lo, hi)})"


def mean_text(x, alpha: float = 0.05, spec: str = ".2f") -> str:
    """The mean of ``x`` (1-D, any real dtype) with its t interval (:func:`mean_ci`), for a
    report cell: ``7.24 (7.20 - 7.28)``; the mean alone for one value, ``-`` for none."""
    from deepsim.report.fmt import num

    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return "-"
    if x.size < 2:
        return num(float(x.mean()), spec)
    m, lo, hi = mean_ci(x, alpha)
    return f"{num(m, spec)} ({num(lo, spec)} - {num(hi, spec)})"


def ratio_of_sums(y, x, alpha: float = 0.05) -> tuple[float, float, float]:
    """``sum(y) / sum(x)`` with an interval that treats each row (a game) as a cluster.

    The estimate is the slope of a no-intercept weighted least squares fit of ``y`` on ``x``
    with weights ``1/x`` (rows with ``x > 0``), which equals ``sum(y) / sum(x)``; its interval
    uses the heteroskedasticity-robust (HC1) covariance, i.e. the usual linearised variance
    of a ratio estimator over independent rows.

    Returns
    -------
    estimate, low, high : float
        NaN when no row has ``x > 0``.
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    keep = x > 0
    if not keep.any():
        return math.nan, math.nan, math.nan
    y, x = y[keep], x[keep]
    est = float(y.sum() / x.sum())
    resid = y - est * x
    if x.size < 2 or not np.any(resid):
        return est, est, est
    fit = WLS(y, x[:, None], weights=1.0 / x).fit(cov_type="HC1")
    lo, hi = fit.conf_int(alpha=alpha)[0]
    return float(fit.params[0]), float(lo), float(hi)


def proportion_ratio_ci(count1, n1, count2, n2, alpha: float = 0.05
                        ) -> tuple[float, float, float]:
    """Ratio of two independent proportions and its interval (statsmodels, log-adjusted)."""
    if n1 <= 0 or n2 <= 0 or count2 <= 0:
        return math.nan, math.nan, math.nan
    lo, hi = confint_proportions_2indep(count1, n1, count2, n2, compare="ratio", alpha=alpha)
    return float((count1 / n1) / (count2 / n2)), float(lo), float(hi)


def proportion_diff_ci(count1, n1, count2, n2, alpha: float = 0.05
                       ) -> tuple[float, float, float]:
    """Difference of two independent proportions ``count1/n1 - count2/n2`` and Newcombe's
    hybrid score interval (statsmodels ``confint_proportions_2indep``, ``method="newcomb"``;
    Newcombe 1998, *Statistics in Medicine* 17, method 10). NaNs when either ``n`` is 0."""
    if n1 <= 0 or n2 <= 0:
        return math.nan, math.nan, math.nan
    lo, hi = confint_proportions_2indep(count1, n1, count2, n2, method="newcomb",
                                        compare="diff", alpha=alpha)
    return float(count1 / n1 - count2 / n2), float(lo), float(hi)


def first_against_last(per_seat: pd.DataFrame, alpha: float = 0.05, *, wins: str = "wins",
                       games: str = "games") -> pd.DataFrame:
    """Seat 1 against the last seat, per player count: the seat advantage in one number.

    Parameters
    ----------
    per_seat : DataFrame
        One row per (``players``, ``seat``) with win counts in column ``wins`` and games
        in column ``games`` (e.g. :func:`seat_advantage`'s frame), seats in play order.
    alpha : float
        1 - confidence of the interval.

    Returns
    -------
    DataFrame
        One row per player count: ``players`` (int64), ``first_share``, ``last_share``,
        ``diff`` (first minus last, a proportion) and Newcombe's ``diff_low``/``diff_high``
        (:func:`proportion_diff_ci`). The seats of one game are not independent (one
        winner); the interval treats them as independent samples, as its tables say.
    """
    require(per_seat, ["players", "seat", wins, games], "per-seat")
    rows = []
    for n, g in per_seat.sort_values(["players", "seat"]).groupby("players", sort=True):
        first, last = g.iloc[0], g.iloc[-1]
        k1, n1, k2, n2 = first[wins], int(first[games]), last[wins], int(last[games])
        diff, lo, hi = proportion_diff_ci(k1, n1, k2, n2, alpha)
        rows.append({"players": int(n), "first_share": k1 / n1 if n1 else math.nan,
                     "last_share": k2 / n2 if n2 else math.nan,
                     "diff": diff, "diff_low": lo, "diff_high": hi})
    return pd.DataFrame(rows, columns=["players", "first_share", "last_share", "diff",
                                       "diff_low", "diff_high"])


def normalized_place(seats: pd.DataFrame) -> np.ndarray:
    """Finishing place scaled to [0, 1]: ``(place - 1) / (players - 1)`` (0 = first)."""
    require(seats, ["place", "players"], "seats")
    n = seats["players"].to_numpy(dtype=np.float64)
    return (seats["place"].to_numpy(dtype=np.float64) - 1.0) / np.maximum(n - 1.0, 1.0)


# --- win shares -----------------------------------------------------------------------------

def viability_verdict(ci_low, ci_high, fair_share, *, min_ratio: float = V.DEFAULT.min_ratio,
                      max_rel_width: float = V.DEFAULT.max_rel_width,
                      max_ratio: float | None = V.DEFAULT.max_ratio) -> np.ndarray:
    """The viability verdict, element-wise: :func:`deepsim.report.viability.verdict` with
    these lines (``max_ratio=None``: no "too strong" end)."""
    lines = V.Lines(min_ratio=min_ratio, max_rel_width=max_rel_width,
                    max_ratio=math.inf if max_ratio is None else max_ratio)
    return V.verdict(ci_low, ci_high, fair_share, lines)


def win_share_table(seats: pd.DataFrame, by: str, *, alpha: float = V.DEFAULT.alpha,
                    min_ratio: float = V.DEFAULT.min_ratio,
                    max_rel_width: float = V.DEFAULT.max_rel_width,
                    max_ratio: float = V.DEFAULT.max_ratio) -> pd.DataFrame:
    """Win share per group against its fair share, with the viability verdict and the Holm
    tests: :func:`deepsim.report.viability.table` with these lines (shares as fractions;
    every column is described there)."""
    require(seats, [by, "win", "fair"], "seats")
    return V.table(seats, by, V.Lines(alpha=alpha, min_ratio=min_ratio,
                                      max_ratio=max_ratio, max_rel_width=max_rel_width))


def seat_advantage(seats: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Win share by seat position for each player count (seat 1 plays first in round 1).

    Returns
    -------
    DataFrame
        One row per (players, seat): ``players``, ``seat``, ``games`` (with a result:
        unresolved games left out), ``wins``, ``win_share``, Wilson ``ci_low``/``ci_high``,
        ``fair_share`` (the mean of the ``fair`` column when there is one, else 1/players),
        ``ratio``.
    """
    require(seats, ["players", "seat", "win"], "seats")
    seats = stats.resolved_seats(seats)
    g = seats.groupby(["players", "seat"], observed=True)
    cols = {"games": g.size(), "wins": g["win"].sum()}
    if "fair" in seats.columns:
        cols["fair_share"] = g["fair"].mean()
    out = pd.DataFrame(cols).reset_index()
    out["players"] = out["players"].astype("int64")
    out["seat"] = out["seat"].astype("int64")
    out["win_share"] = out["wins"] / out["games"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["games"].to_numpy(),
                                           alpha)
    if "fair_share" not in out.columns:
        out["fair_share"] = 1.0 / out["players"]
    out["ratio"] = out["win_share"] / out["fair_share"]
    return out.sort_values(["players", "seat"]).reset_index(drop=True)


# --- game length and margins ----------------------------------------------------------------

def game_length(games: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Rounds per game by player count: :func:`deepsim.stats.rounds_by_players` plus the
    t interval of the mean (``mean_low``, ``mean_high``) and ``truncated`` games."""
    require(games, ["players", "rounds"], "games")
    out = stats.rounds_by_players(games)
    lows, highs, trunc = [], [], []
    for p in out["players"]:
        sel = games["players"] == p
        _, lo, hi = mean_ci(games.loc[sel, "rounds"].to_numpy(), alpha)
        lows.append(lo)
        highs.append(hi)
        trunc.append(int(games.loc[sel, "truncated"].astype(bool).sum())
                     if "truncated" in games.columns else 0)
    out["mean_low"], out["mean_high"], out["truncated"] = lows, highs, trunc
    return out


def rounds_histogram(games: pd.DataFrame) -> pd.DataFrame:
    """Games per (rounds, players): index ``rounds`` (every value seen), one column per
    player count, counts as int64."""
    require(games, ["players", "rounds"], "games")
    tab = pd.crosstab(games["rounds"], games["players"])
    full = range(int(tab.index.min()), int(tab.index.max()) + 1) if len(tab) else []
    return tab.reindex(full, fill_value=0).astype("int64")


def margins(games: pd.DataFrame) -> pd.DataFrame:
    """Winner's Glory minus runner-up's, absolute (``margin``) and relative (``margin_rel``,
    over the winner's Glory), by player count and for all games (``players`` = ``"all"``).

    Columns: ``players``, ``games``, ``ties`` (share of games with margin 0), and
    ``mean``/``median``/``p5``/``p95`` of each of ``margin`` and ``margin_rel`` (prefixed
    ``abs_`` and ``rel_``).
    """
    require(games, ["players", "margin", "margin_rel"], "games")
    rows = []
    groups = [(str(int(p)), d) for p, d in games.groupby("players", sort=True)]
    groups.append(("all", games))
    for label, d in groups:
        row = {"players": label, "games": len(d),
               "ties": float((d["margin"] == 0).mean()) if len(d) else math.nan}
        for col, pre in (("margin", "abs"), ("margin_rel", "rel")):
            x = d[col].to_numpy(dtype=np.float64)
            p5, med, p95 = np.percentile(x, [5, 50, 95]) if x.size else (math.nan,) * 3
            row.update({f"{pre}_mean": float(x.mean()) if x.size else math.nan,
                        f"{pre}_median": float(med), f"{pre}_p5": float(p5),
                        f"{pre}_p95": float(p95)})
        rows.append(row)
    return pd.DataFrame(rows)


# --- head to head ---------------------------------------------------------------------------

def matchup_matrix(seats: pd.DataFrame, by: str
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Head-to-head results of 2-player games.

    Returns
    -------
    wins, games : DataFrame
        Square, indexed and columned by the groups (sorted): ``wins.loc[a, b]`` = wins of
        ``a`` against ``b`` (ties count 1/2 each), ``games.loc[a, b]`` = games between them
        that have a result (unresolved games left out). Empty frames when there is no
        2-player game.
    """
    require(seats, ["game", "seat", "players", by, "win"], "seats")
    seats = stats.resolved_seats(seats)      # both rows of an unresolved game go
    two = seats.loc[seats["players"] == 2, ["game", "seat", by, "win"]]
    if two.empty:
        return pd.DataFrame(), pd.DataFrame()
    two = two.sort_values(["game", "seat"])
    a = two.iloc[0::2].reset_index(drop=True)
    b = two.iloc[1::2].reset_index(drop=True)
    if not (a["game"].to_numpy() == b["game"].to_numpy()).all():
        raise ValueError("2-player games must have exactly two seat rows")
    codes, uniques = pd.factorize(pd.concat([a[by], b[by]], ignore_index=True), sort=True)
    labels = [str(u) for u in uniques]
    ia, ib = codes[:len(a)], codes[len(a):]
    k = len(labels)
    wins = np.zeros((k, k))
    cnt = np.zeros((k, k))
    np.add.at(wins, (ia, ib), a["win"].to_numpy(dtype=np.float64))
    np.add.at(wins, (ib, ia), b["win"].to_numpy(dtype=np.float64))
    np.add.at(cnt, (ia, ib), 1.0)
    np.add.at(cnt, (ib, ia), 1.0)
    np.fill_diagonal(cnt, np.diag(cnt) / 2.0)  # a mirror game was counted twice
    return (pd.DataFrame(wins, index=labels, columns=labels),
            pd.DataFrame(cnt, index=labels, columns=labels))


def bradley_terry(wins: pd.DataFrame, alpha_reg: float = 0.0) -> pd.DataFrame:
    """Bradley-Terry strengths from a head-to-head wins matrix (``choix.ilsr_pairwise_dense``).

    Parameters
    ----------
    wins : DataFrame
        Square, ``wins.loc[a, b]`` = times ``a`` beat ``b`` (fractional ties allowed).
    alpha_reg : float, default 0
        choix's regularisation; 0 is the maximum-likelihood fit (the comparison graph must
        be connected). A tiny value is used automatically if the plain fit fails.

    Returns
    -------
    DataFrame
        One row per item, sorted by strength descending: ``item``, ``strength`` (log
        scale, mean 0: P(a beats b) = 1 / (1 + exp(strength_b - strength_a))) and
        ``p_vs_average`` (chance to beat an item of strength 0).
    """
    import choix

    if wins.empty:
        return pd.DataFrame(columns=["item", "strength", "p_vs_average"])
    mat = wins.to_numpy(dtype=np.float64).copy()
    np.fill_diagonal(mat, 0.0)
    # an item that never lost (or never won) takes choix through log(0): its strength is
    # then infinite or regularised, not a warning on the designer's terminal
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            theta = choix.ilsr_pairwise_dense(mat, alpha=alpha_reg, max_iter=1000)
        except (RuntimeError, ValueError, np.linalg.LinAlgError):
            theta = choix.ilsr_pairwise_dense(mat, alpha=max(alpha_reg, 1e-6), max_iter=1000)
    theta = theta - theta.mean()
    out = pd.DataFrame({"item": list(wins.index), "strength": theta,
                        "p_vs_average": 1.0 / (1.0 + np.exp(-theta))})
    return out.sort_values("strength", ascending=False).reset_index(drop=True)
