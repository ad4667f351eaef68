"""The instruments the DEEPFALL claims are measured with: pure numpy over arrays.

Each instrument turns arrays of a run (one value per game or per seat-game) into an
estimate with an interval and a verdict against the region the claim asserts:

- ``holds``: the interval lies inside the region;
- ``fails``: the interval lies outside it;
- ``inconclusive``: it straddles a border at this sample size.

An instrument judged over groups (player counts, companies) uses intervals simultaneous
over the groups (Bonferroni: each at ``alpha / k``), so that its verdict errs with
probability at most ``alpha`` however many groups it reads. The error rates are checked by
simulation on synthetic data in ``tests/rulesets/deepfall/test_claim_instruments.py`` (a planted effect
found in at least 80% of replicates, none found where none was planted in at most
``alpha`` plus Monte Carlo error) and each instrument is calibrated on games whose answer
is known (:mod:`deepsim.rulesets.deepfall.calibration`).

References: Wilson score intervals (Wilson 1927; statsmodels ``proportion_confint``);
ratio estimators and the delta method with clusters (Cochran, *Sampling Techniques*, 3rd
ed., 1977, ch. 6; the linearised variance of a ratio of sums over independent clusters);
the coefficient of variation's influence function (Hampel et al., *Robust Statistics*,
1986, §2.1); Bonferroni's inequality for simultaneous intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

__all__ = ["FAILS", "HOLDS", "INCONCLUSIVE", "Estimate", "band_means", "constant_ratio",
           "crossover", "cv_ratio", "floor_verdict", "never", "rare_rate", "ratio_counts",
           "ratio_table",
           "region_verdict", "tight_share", "wilson"]

HOLDS, FAILS, INCONCLUSIVE = "holds", "fails", "inconclusive"


@dataclass(frozen=True)
class Estimate:
    """A point estimate, its interval and the instrument's verdict; ``detail`` carries the
    per-group numbers an instrument read (lists of equal length, one per group)."""

    value: float
    low: float
    high: float
    verdict: str
    detail: dict = field(default_factory=dict)


def region_verdict(low: float, high: float, lo: float = -math.inf, hi: float = math.inf,
                   *, lo_open: bool = False) -> str:
    """The verdict of ``[low, high]`` against the region ``[lo, hi]`` (``(lo, hi]`` when
    ``lo_open``): inside -> holds, disjoint -> fails, else inconclusive (NaN: inconclusive).
    """
    if math.isnan(low) or math.isnan(high):
        return INCONCLUSIVE
    inside_lo = low > lo if lo_open else low >= lo
    if inside_lo and high <= hi:
        return HOLDS
    below = high <= lo if lo_open else high < lo
    if below or low > hi:
        return FAILS
    return INCONCLUSIVE


def _z(alpha: float) -> float:
    return float(sps.norm.isf(alpha / 2))


def wilson(k, n, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``k`` successes in ``n`` trials, elementwise.

    ``k`` may be fractional (a k-way tie for first counts 1/k of a win). Where ``n`` is 0
    the interval is (0, 1).
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    safe = np.where(n > 0, n, 1.0)
    lo, hi = proportion_confint(np.minimum(k, safe), safe, alpha=alpha, method="wilson")
    lo = np.where(n > 0, lo, 0.0)
    hi = np.where(n > 0, hi, 1.0)
    return np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


def _groups(groups) -> tuple[np.ndarray, np.ndarray]:
    """(sorted unique labels, integer code per element)."""
    labels, codes = np.unique(np.asarray(groups), return_inverse=True)
    return labels, codes.ravel()


def combine(verdicts) -> str:
    """``fails`` if any fails, ``holds`` if all hold, else ``inconclusive``."""
    verdicts = list(verdicts)
    if any(v == FAILS for v in verdicts):
        return FAILS
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    return INCONCLUSIVE


# --- B1: a mean per group inside a band ------------------------------------------------------

def band_means(values, groups, lo: float, hi: float, alpha: float = 0.05) -> Estimate:
    """Is the mean of ``values`` inside ``[lo, hi]`` in every group?

    Parameters
    ----------
    values : float array, shape (n,)
        One value per game (e.g. rounds).
    groups : array, shape (n,)
        The group of each value (e.g. the player count).
    lo, hi : float
        The band the claim asserts (e.g. 11 +- 1 rounds).
    alpha : float
        Family-wise error: each group's t interval is at ``alpha / k``.

    Returns
    -------
    Estimate
        ``value``/``low``/``high``: the mean, interval low and high of the group whose mean
        lies farthest from the band's centre; verdict: holds when every group's interval is
        inside the band, fails when any lies outside it. ``detail``: ``group``, ``n``,
        ``mean``, ``low``, ``high`` per group.
    """
    x = np.asarray(values, dtype=np.float64)
    labels, codes = _groups(groups)
    k = len(labels)
    n = np.bincount(codes, minlength=k).astype(np.float64)
    s1 = np.bincount(codes, weights=x, minlength=k)
    s2 = np.bincount(codes, weights=x * x, minlength=k)
    mean = s1 / np.maximum(n, 1)
    var = np.maximum(s2 - n * mean ** 2, 0.0) / np.maximum(n - 1, 1)
    t = sps.t.isf(alpha / (2 * max(k, 1)), np.maximum(n - 1, 1))
    half = t * np.sqrt(var / np.maximum(n, 1))
    low, high = mean - half, mean + half
    verdicts = [region_verdict(a, b, lo, hi) for a, b in zip(low, high, strict=True)]
    worst = int(np.argmax(np.abs(mean - (lo + hi) / 2))) if k else 0
    return Estimate(float(mean[worst]) if k else math.nan,
                    float(low[worst]) if k else math.nan,
                    float(high[worst]) if k else math.nan, combine(verdicts),
                    {"group": labels.tolist(), "n": n.tolist(), "mean": mean.tolist(),
                     "low": low.tolist(), "high": high.tolist(), "verdict": verdicts})


# --- B2, B3: win share over fair share per group ---------------------------------------------

def ratio_table(win, fair, groups, alpha: float = 0.05, *, simultaneous: bool = True
                ) -> dict:
    """Each group's win share over its fair share, with Wilson intervals.

    Parameters
    ----------
    win : float array, shape (n,)
        Per seat-game: 1 for a win, 1/k for a k-way tie for first, else 0.
    fair : float array, shape (n,)
        Per seat-game: the fair share (1/players, or the kept seats' mean win when seats
        are left out).
    groups : array, shape (n,)
        The group of each seat-game (a company, Lineage, Calling or label).
    alpha : float
        Error rate; with ``simultaneous`` each interval is at ``alpha / k`` (k groups), so
        all k intervals hold together with probability at least ``1 - alpha``.

    Returns
    -------
    dict
        Arrays by group: ``group``, ``n`` (seat-games), ``wins``, ``fair`` (the mean fair
        share), ``ratio``, ``low``, ``high`` (ratio interval: the Wilson interval of the
        win share over the mean fair share).
    """
    w = np.asarray(win, dtype=np.float64)
    f = np.asarray(fair, dtype=np.float64)
    labels, codes = _groups(groups)
    k = len(labels)
    n = np.bincount(codes, minlength=k).astype(np.float64)
    wins = np.bincount(codes, weights=w, minlength=k)
    fair_mean = np.bincount(codes, weights=f, minlength=k) / np.maximum(n, 1)
    return ratio_counts(labels, wins, n, fair_mean, alpha, simultaneous=simultaneous)


def ratio_counts(labels, wins, n, fair_mean, alpha: float = 0.05, *,
                 simultaneous: bool = True) -> dict:
    """:func:`ratio_table` from per-group totals: ``wins`` (float, ties fractional) in
    ``n`` seat-games whose mean fair share is ``fair_mean`` (arrays of one length)."""
    labels = np.asarray(labels)
    wins = np.asarray(wins, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    fair_mean = np.asarray(fair_mean, dtype=np.float64)
    k = labels.size
    a = alpha / k if simultaneous and k else alpha
    lo, hi = wilson(wins, n, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = wins / n / fair_mean
        low, high = lo / fair_mean, hi / fair_mean
    return {"group": labels, "n": n, "wins": wins, "fair": fair_mean, "ratio": ratio,
            "low": low, "high": high}


def floor_verdict(table: dict, line: float) -> Estimate:
    """"Every group wins at least ``line`` x its fair share": holds when every interval's
    low end is at or above ``line``, fails when any interval's high end is below it.

    Returns
    -------
    Estimate
        The weakest group's ratio and interval (by high end); ``detail``: ``below``
        (groups whose high end is under the line), ``unsure`` (groups straddling it),
        ``weakest`` (its name).
    """
    if len(table["group"]) == 0:
        return Estimate(math.nan, math.nan, math.nan, INCONCLUSIVE,
                        {"below": [], "unsure": [], "weakest": ""})
    low, high = table["low"], table["high"]
    below = high < line
    unsure = ~below & (low < line)
    verdict = FAILS if below.any() else (INCONCLUSIVE if unsure.any() else HOLDS)
    i = int(np.nanargmin(high))
    return Estimate(float(table["ratio"][i]), float(low[i]), float(high[i]), verdict,
                    {"below": [str(g) for g in table["group"][below]],
                     "unsure": [str(g) for g in table["group"][unsure]],
                     "weakest": str(table["group"][i])})


# --- B3: swing, scale-free ---------------------------------------------------------------------

def _log_cv_influence(x: np.ndarray) -> tuple[float, np.ndarray]:
    """log of the coefficient of variation of ``x`` and each element's influence on it
    (divided by n: the elements' influences sum to the estimator's linearised error)."""
    n = x.size
    m1 = x.mean()
    m2 = (x * x).mean()
    var = m2 - m1 * m1
    if n < 2 or var <= 0 or m1 <= 0:
        return math.nan, np.zeros(n)
    # log CV = 0.5 log(m2 - m1^2) - log m1
    infl = (0.5 * ((x * x - m2) - 2 * m1 * (x - m1)) / var - (x - m1) / m1) / n
    return 0.5 * math.log(var) - math.log(m1), infl


def cv_ratio(x, in_group, cluster, alpha: float = 0.05) -> Estimate:
    """Coefficient of variation (sd / mean) of ``x`` in the group over the rest's.

    Scale-free: multiplying every value by a constant leaves it unchanged, so a group that
    scores more is not called swingier for its larger numbers alone (unlike the variance of
    Glory, which grows with its mean, or the variance of finishing place, which shrinks for
    a group that usually wins).

    Parameters
    ----------
    x : float array, shape (n,)
        One positive value per seat-game (e.g. Glory over the game's mean Glory).
    in_group : bool array, shape (n,)
        Seat-games of the group (e.g. Wardancer seats).
    cluster : int array, shape (n,)
        The game of each seat-game: seats of one game are not independent, so the interval
        of log(CV ratio) sums the delta-method influences per game.

    Returns
    -------
    Estimate
        The ratio with its interval; verdict against "larger than 1" (holds: the group is
        swingier, fails: it is steadier). ``detail``: ``cv_group``, ``cv_rest``,
        ``n_group``, ``n_rest``.
    """
    x = np.asarray(x, dtype=np.float64)
    g = np.asarray(in_group, dtype=bool)
    _, codes = _groups(cluster)
    a, ia = _log_cv_influence(x[g])
    b, ib = _log_cv_influence(x[~g])
    detail = {"cv_group": math.exp(a) if not math.isnan(a) else math.nan,
              "cv_rest": math.exp(b) if not math.isnan(b) else math.nan,
              "n_group": int(g.sum()), "n_rest": int((~g).sum())}
    if math.isnan(a) or math.isnan(b):
        return Estimate(math.nan, math.nan, math.nan, INCONCLUSIVE, detail)
    infl = np.zeros(x.size)
    infl[g] = ia
    infl[~g] = -ib
    per = np.bincount(codes, weights=infl)
    m = per.size
    se = math.sqrt(m / max(m - 1, 1) * float(((per - per.mean()) ** 2).sum()))
    est = a - b
    z = _z(alpha)
    lo, hi = math.exp(est - z * se), math.exp(est + z * se)
    return Estimate(math.exp(est), lo, hi, region_verdict(lo, hi, 1.0, lo_open=True), detail)


# --- B4: a rare event -------------------------------------------------------------------------

def rare_rate(k: float, n: float, cap: float, alpha: float = 0.05) -> Estimate:
    """A share ``k / n`` against "at most ``cap``" ("almost never"): holds when the Wilson
    interval's high end is at or below ``cap``, fails when its low end is above it."""
    lo, hi = wilson(k, n, alpha)
    lo, hi = float(lo), float(hi)
    return Estimate(k / n if n else math.nan, lo, hi, region_verdict(lo, hi, 0.0, cap))


# --- B5: paired games, two halves of the seats ------------------------------------------------

def crossover(win_x, fair_x, win_y, fair_y, deal, alpha: float = 0.05) -> dict:
    """Two behaviours X and Y played against each other on paired games: each deal (the
    same game index and seed: the same player count, dungeon and companies) is played
    twice, the seats of X in the first arm playing Y in the second and the other way round,
    so seat, company and deal effects cancel between the arms.

    Parameters
    ----------
    win_x, fair_x, win_y, fair_y : float arrays, shape (n,)
        Per deal and arm: the wins of the X (Y) seats and the sum of their fair shares.
    deal : int array, shape (n,)
        The deal of each row (both arms of a deal share it): the cluster of the intervals.

    Returns
    -------
    dict of Estimate
        ``x``: X's win share over its fair share; ``y``: Y's; ``ratio``: X's over Y's
        (delta method on the log, deals as clusters; verdicts left ``inconclusive``: the
        claim sets the region).
    """
    _, codes = _groups(deal)
    per = [np.bincount(codes, weights=np.asarray(v, dtype=np.float64))
           for v in (win_x, fair_x, win_y, fair_y)]
    wx, fx, wy, fy = per
    sw, sfx, swy, sfy = wx.sum(), fx.sum(), wy.sum(), fy.sum()
    m = wx.size
    z = _z(alpha)

    def est(terms):
        # log of a product of sums (sign +1 numerator, -1 denominator) and its delta se
        val = sum(s * math.log(t.sum()) for s, t in terms if t.sum() > 0)
        infl = sum(s * t / t.sum() for s, t in terms if t.sum() > 0)
        se = math.sqrt(m / max(m - 1, 1) * float(((infl - infl.mean()) ** 2).sum()))
        return Estimate(math.exp(val), math.exp(val - z * se), math.exp(val + z * se),
                        INCONCLUSIVE)

    if min(sw, sfx, swy, sfy) <= 0:
        nan = Estimate(math.nan, math.nan, math.nan, INCONCLUSIVE)
        return {"x": nan, "y": nan, "ratio": nan}
    return {"x": est([(1, wx), (-1, fx)]), "y": est([(1, wy), (-1, fy)]),
            "ratio": est([(1, wx), (-1, fx), (-1, wy), (1, fy)])}


# --- B6: margins -----------------------------------------------------------------------------

def tight_share(margin_rel, threshold: float, alpha: float = 0.05) -> Estimate:
    """"Most games are decided by at most ``threshold`` of the winner's score": the share
    of games with ``margin_rel <= threshold``; holds when its Wilson interval lies above 1/2
    (the median relative margin is at most the threshold), fails when below."""
    m = np.asarray(margin_rel, dtype=np.float64)
    n = m.size
    k = float((m <= threshold).sum())
    lo, hi = wilson(k, n, alpha)
    lo, hi = float(lo), float(hi)
    return Estimate(k / n if n else math.nan, lo, hi,
                    region_verdict(lo, hi, 0.5, 1.0, lo_open=True),
                    {"median": float(np.median(m)) if n else math.nan})


# --- B7: a ratio constant across groups ------------------------------------------------------

def constant_ratio(y, x, groups, tol: float, alpha: float = 0.05) -> Estimate:
    """Is ``sum(y) / sum(x)`` the same in every group, within a factor ``1 + tol``?

    Parameters
    ----------
    y, x : float arrays, shape (n,)
        One row per game (e.g. contested rooms and rooms scored): each game is a cluster
        (the linearised variance of a ratio of sums over independent games, with the
        small-sample factor n / (n - 1)).
    groups : array, shape (n,)
        The group of each game (e.g. its player count).
    tol : float
        "Constant": the largest group's ratio is at most ``1 + tol`` times the smallest.

    Returns
    -------
    Estimate
        The spread (largest / smallest ratio) with bounds from the intervals' ends (each
        at ``alpha / k``: low = largest low end / smallest high end, high = largest high end
        / smallest low end); holds when high <= 1 + tol, fails when low > 1 + tol.
        ``detail``: ``group``, ``ratio``, ``low``, ``high`` per group.
    """
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    labels, codes = _groups(groups)
    k = len(labels)
    z = _z(alpha / max(k, 1))
    ratio, low, high = np.full(k, np.nan), np.full(k, np.nan), np.full(k, np.nan)
    for j in range(k):
        yy, xx = y[codes == j], x[codes == j]
        keep = xx > 0
        yy, xx = yy[keep], xx[keep]
        if xx.size < 2:
            continue
        r = yy.sum() / xx.sum()
        resid = yy - r * xx
        se = math.sqrt(xx.size / (xx.size - 1) * float((resid ** 2).sum())) / xx.sum()
        ratio[j], low[j], high[j] = r, r - z * se, r + z * se
    ok = ~np.isnan(ratio)
    detail = {"group": labels.tolist(), "ratio": ratio.tolist(), "low": low.tolist(),
              "high": high.tolist()}
    if ok.sum() < 2:
        return Estimate(math.nan, math.nan, math.nan, INCONCLUSIVE, detail)
    r, lo, hi = ratio[ok], low[ok], high[ok]
    spread = float(r.max() / r.min())
    best = float(lo.max() / hi.min())
    worst = float(hi.max() / max(lo.min(), 1e-300))
    limit = 1.0 + tol
    verdict = HOLDS if worst <= limit else (FAILS if best > limit else INCONCLUSIVE)
    return Estimate(spread, max(best, 1.0), worst, verdict, detail)


# --- B8: an event that never happens ---------------------------------------------------------

def never(games_with: int, n: int, alpha: float = 0.05) -> Estimate:
    """"Never": holds when none of ``n`` games had the event, fails on the first one.

    Parameters
    ----------
    games_with : int
        Games with at least one event (e.g. a crew Taken unwarned).
    n : int
        Games played.

    Returns
    -------
    Estimate
        The share of games with one and its exact (Clopper-Pearson) interval: with none in
        n games its high end is ``1 - (alpha / 2) ** (1 / n)`` (about 3.7 / n at alpha
        0.05), what "never" can mean after n games.
    """
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, INCONCLUSIVE)
    lo, hi = proportion_confint(games_with, n, alpha=alpha, method="beta")
    return Estimate(games_with / n, float(np.nan_to_num(lo)), float(hi),
                    HOLDS if games_with == 0 else FAILS)
