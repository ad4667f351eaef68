"""Statistics over a run's frames: pure functions, no I/O, no printing.

The inputs are the ``games`` and ``seats`` frames of :func:`deepsim.output.read_run`
(or any frames with the columns each function names).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

__all__ = [
    "UNRESOLVED_WARN",
    "Paired",
    "game_overview",
    "holm_adjust",
    "paired_difference",
    "resolved_seats",
    "rounds_by_players",
    "unresolved_flags",
    "wilson_interval",
    "win_shares",
]

#: share of unresolved games (stopped by a safety cap) above which the summary and the
#: report warn that the win shares describe only the games that ended
UNRESOLVED_WARN = 0.01


def unresolved_flags(games: pd.DataFrame) -> np.ndarray:
    """Per game: True when a safety cap stopped it and no adjudication decided it.

    The contract (:mod:`deepsim.rulesets.base`): ``truncated`` marks a game an engine cap
    stopped before the rules ended it; such a game is *unresolved* (its seats' ``win`` is
    NaN) unless the ruleset's optional ``adjudicated`` column says a documented, opt-in
    adjudication decided it.

    Parameters
    ----------
    games : DataFrame
        One row per game; reads ``truncated`` (bool) and ``adjudicated`` (bool) when
        present.

    Returns
    -------
    ndarray of bool, shape (len(games),)
        All False when the frame has no ``truncated`` column.
    """
    if "truncated" not in games.columns:
        return np.zeros(len(games), bool)
    out = games["truncated"].to_numpy().astype(bool)
    if "adjudicated" in games.columns:
        out &= ~games["adjudicated"].to_numpy().astype(bool)
    return out


def resolved_seats(seats: pd.DataFrame) -> pd.DataFrame:
    """The seat rows of games that have a result: ``win`` is a number (not NaN).

    An unresolved game's seats hold ``win`` = NaN (:func:`unresolved_flags`); every win
    share, ratio and test leaves them out, so a game a safety cap stopped counts neither as
    a win, a loss nor a draw. Returns ``seats`` itself when nothing is left out.

    Raises
    ------
    KeyError
        ``seats`` has no ``win`` column.
    """
    win = seats["win"].to_numpy(dtype=np.float64)
    keep = ~np.isnan(win)
    if keep.all():
        return seats
    return seats.loc[keep]


def wilson_interval(successes, n, alpha: float = 0.05):
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes : float or array_like of float
        Number of successes; may be fractional (tie wins counted as ``1/k``).
    n : int or array_like of int
        Number of trials, same shape as ``successes``.
    alpha : float, default 0.05
        1 - confidence level (0.05 gives a 95% interval).

    Returns
    -------
    low, high : float or ndarray of float64
        Interval bounds in [0, 1], shaped like the inputs; NaN where ``n == 0``.

    Raises
    ------
    ValueError
        ``alpha`` not in (0, 1), a negative count, or ``successes > n``.

    Notes
    -----
    Uses ``statsmodels.stats.proportion.proportion_confint(method="wilson")``. Textbook
    check: 81 successes of 263 trials give (0.2553, 0.3662).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    scalar = np.ndim(successes) == 0 and np.ndim(n) == 0
    s = np.atleast_1d(np.asarray(successes, dtype=np.float64))
    t = np.atleast_1d(np.asarray(n, dtype=np.float64))
    s, t = np.broadcast_arrays(s, t)
    if (s < 0).any() or (t < 0).any():
        raise ValueError("counts must be non-negative")
    if (s > t + 1e-9).any():
        raise ValueError("successes must not exceed trials")
    low = np.full(s.shape, np.nan)
    high = np.full(s.shape, np.nan)
    ok = t > 0
    if ok.any():
        lo, hi = proportion_confint(np.minimum(s[ok], t[ok]), t[ok], alpha=alpha,
                                    method="wilson")
        low[ok] = np.clip(lo, 0.0, 1.0)
        high[ok] = np.clip(hi, 0.0, 1.0)
    if scalar:
        return float(low[0]), float(high[0])
    return low, high


def win_shares(seats: pd.DataFrame, by: str, alpha: float = 0.05) -> pd.DataFrame:
    """Win share per group with a Wilson interval and the fair share.

    Parameters
    ----------
    seats : DataFrame
        One row per seat per game, with columns ``by``, ``win`` (float: 1, ``1/k`` for a
        k-way tie for first, else 0; NaN for an unresolved game, whose rows are left out:
        :func:`resolved_seats`) and ``fair`` (float: ``1/players``).
    by : str
        Grouping column (a ruleset's faction column, ``"bot"``, ``"seat"``, ...).
    alpha : float, default 0.05
        1 - confidence level of the interval.

    Returns
    -------
    DataFrame
        One row per group, sorted by ``win_share`` descending, RangeIndex, columns:

        - ``<by>`` : group label
        - ``games`` : int64, seat-games with a result (a company twice in one game counts
          twice; unresolved games left out)
        - ``wins`` : float64, sum of ``win``
        - ``win_share`` : float64, ``wins / games``
        - ``ci_low``, ``ci_high`` : float64, Wilson interval of ``win_share``
          (``wins`` as successes, fractional tie wins included)
        - ``fair_share`` : float64, mean of ``fair`` over the group's rows
        - ``ratio`` : float64, ``win_share / fair_share`` (1.0 is balanced)

    Raises
    ------
    KeyError
        A required column is missing.
    """
    for col in (by, "win", "fair"):
        if col not in seats.columns:
            raise KeyError(f"seats frame has no column {col!r}")
    cols = [by, "games", "wins", "win_share", "ci_low", "ci_high", "fair_share", "ratio"]
    seats = resolved_seats(seats)
    if seats.empty:
        return pd.DataFrame(columns=cols)
    g = seats.groupby(by, observed=True, sort=False)
    out = pd.DataFrame({
        "games": g["win"].size().astype("int64"),
        "wins": g["win"].sum().astype("float64"),
        "fair_share": g["fair"].mean().astype("float64"),
    })
    out["win_share"] = out["wins"] / out["games"]
    low, high = wilson_interval(out["wins"].to_numpy(), out["games"].to_numpy(), alpha=alpha)
    out["ci_low"] = low
    out["ci_high"] = high
    out["ratio"] = out["win_share"] / out["fair_share"]
    out = out.reset_index()
    out[by] = out[by].astype(str)
    out = out.sort_values(["win_share", by], ascending=[False, True], kind="stable")
    return out[cols].reset_index(drop=True)


def rounds_by_players(games: pd.DataFrame) -> pd.DataFrame:
    """Distribution of game length (rounds) per player count.

    Parameters
    ----------
    games : DataFrame
        One row per game with integer columns ``players`` and ``rounds``.

    Returns
    -------
    DataFrame
        One row per player count, ascending, RangeIndex, columns ``players`` (int64),
        ``games`` (int64), ``mean``, ``sd`` (sample standard deviation, NaN for one game),
        ``median``, ``p5``, ``p95`` (float64, in rounds).

    Raises
    ------
    KeyError
        A required column is missing.
    """
    for col in ("players", "rounds"):
        if col not in games.columns:
            raise KeyError(f"games frame has no column {col!r}")
    cols = ["players", "games", "mean", "sd", "median", "p5", "p95"]
    if games.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for players, r in games.groupby("players", sort=True, observed=True)["rounds"]:
        x = r.to_numpy(dtype=np.float64)
        p5, med, p95 = np.percentile(x, [5, 50, 95])
        rows.append({
            "players": int(players), "games": int(x.size), "mean": float(x.mean()),
            "sd": float(x.std(ddof=1)) if x.size > 1 else float("nan"),
            "median": float(med), "p5": float(p5), "p95": float(p95),
        })
    return pd.DataFrame(rows, columns=cols)


def game_overview(games: pd.DataFrame) -> dict:
    """Run-wide numbers for the summary.

    Parameters
    ----------
    games : DataFrame
        One row per game; uses ``margin`` (Glory, winner minus runner-up), ``margin_rel``,
        ``truncated`` (bool) and ``adjudicated`` (bool) when present.

    Returns
    -------
    dict
        ``games`` (int), ``truncated`` (int, games a safety cap stopped, or None when the
        column is absent), ``unresolved`` (int, those no adjudication decided:
        :func:`unresolved_flags`; None without the column), ``unresolved_share`` (float,
        of all games, or None), ``mean_margin`` and ``mean_margin_rel`` (float or None;
        over the games with a result).
    """
    flags = unresolved_flags(games)
    ended = games.loc[~flags] if flags.any() else games

    def mean_of(col: str) -> float | None:
        if col not in ended.columns or ended.empty:
            return None
        return float(ended[col].astype("float64").mean())

    truncated = unresolved = share = None
    if "truncated" in games.columns:
        truncated = int(games["truncated"].astype(bool).sum())
        unresolved = int(flags.sum())
        share = unresolved / len(games) if len(games) else 0.0
    return {
        "games": len(games),
        "truncated": truncated,
        "unresolved": unresolved,
        "unresolved_share": share,
        "mean_margin": mean_of("margin"),
        "mean_margin_rel": mean_of("margin_rel"),
    }


@dataclass
class Paired:
    """The difference ``B - A`` of a metric on paired games.

    ``est``/``se``: the difference and its (linearised) standard error in the metric's unit;
    ``n``: the independent paired units behind it (games, or deals when seats rotate): ``est``
    is the mean of ``n`` per-unit linearised differences (0 for a unit without a selected
    row), which is what :func:`glr_llr` models.
    """

    est: float
    se: float
    value_a: float
    value_b: float
    n_games: int
    n: int = 0

    def interval(self, alpha: float = 0.05) -> tuple[float, float]:
        """Two-sided ``1 - alpha`` normal interval of the difference (fixed-sample)."""
        z = float(norm.isf(alpha / 2.0))
        return self.est - z * self.se, self.est + z * self.se


def _ratio(y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """Ratio of sums and each game's linearised influence on it (games as clusters)."""
    n = y.size
    sw = float(w.sum())
    if sw <= 0:
        return math.nan, np.zeros(n)
    r = float(y.sum()) / sw
    return r, (y - r * w) / (sw / n)


def paired_difference(ya: np.ndarray, wa: np.ndarray, yb: np.ndarray, wb: np.ndarray,
                      scale: float = 1.0, paired: bool = True) -> Paired:
    """Difference of ``sum(y) / sum(w)`` between variant B and variant A.

    Parameters
    ----------
    ya, wa, yb, wb : ndarray of float64, shape (games,)
        Per game: the metric's numerator and denominator for each variant (``w == 0`` when
        the game does not count). When ``paired``, index ``i`` is the same game (seed and
        game index) in both variants.
    scale : float
        Unit factor (100 for percent).
    paired : bool
        Games are paired: the standard error uses the per-game differences of the
        linearised influences (common random numbers cancel); otherwise the two variances
        add.

    Returns
    -------
    Paired
    """
    ra, ua = _ratio(ya, wa)
    rb, ub = _ratio(yb, wb)
    est = scale * (rb - ra)
    if paired:
        v = ub - ua
        se = scale * float(np.std(v, ddof=1)) / math.sqrt(v.size) if v.size > 1 else math.nan
    else:
        var = (np.var(ua, ddof=1) / ua.size if ua.size > 1 else math.nan) + (
            np.var(ub, ddof=1) / ub.size if ub.size > 1 else math.nan)
        se = scale * math.sqrt(var)
    return Paired(est=est, se=se, value_a=scale * ra, value_b=scale * rb,
                  n_games=int(ya.size), n=int(min(ya.size, yb.size)))


def holm_adjust(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979, Scand. J. Statist. 6:65-70).

    Parameters
    ----------
    pvalues : float64[m]
        Raw p-values; NaN ones are left out of the family and stay NaN.

    Returns
    -------
    float64[m]
        ``p_(i)`` adjusted to ``max_{j <= i} min(1, (k - j + 1) p_(j))`` over the k
        non-NaN p-values in ascending order; rejecting where it is below ``alpha`` keeps
        the family-wise error rate at ``alpha``. The same as statsmodels'
        ``multipletests(p, method="holm")[1]``, which is not called because its "holm"
        branch runs ``gc.collect()`` on every call: a quarter to half a second in a process
        holding numba's kernels, for each table that tests its groups.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    k = ok.size
    if k == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    steps = np.minimum(1.0, (k - np.arange(k)) * p[order])
    out[order] = np.maximum.accumulate(steps)
    return out
