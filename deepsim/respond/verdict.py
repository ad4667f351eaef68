"""Verdicts of a best-response search, and the multiplicity correction of its gains.

For each faction the confirmation gives two win-share-over-fair ratios on the same games,
the start style's with its default knobs ``A`` and the best response's ``B``, each with a
95% interval, and
their paired difference ``B - A`` with a standard error (:func:`deepsim.measure.paired`).

- The gains of the m factions of one run form one family: each is tested against 0
  (two-sided, normal) with Holm's step-down correction (Holm 1979; :func:`holm_adjust`,
  checked against statsmodels' ``multipletests(method="holm")`` in the tests, which is not
  called here because it runs ``gc.collect()`` on every call: half a second in a process
  holding numba's kernels), which keeps the family-wise error rate at ``alpha``; each gain's interval
  is at level ``1 - alpha/m`` (Bonferroni), so the m intervals hold their true gains
  together with probability at least ``1 - alpha``, and an interval that excludes 0 is a
  gain Holm's test also finds (Holm rejects at least what Bonferroni rejects).
- The verdict, in the words of every balance table (:mod:`deepsim.report.viability`:
  viability line ``L``, the report's ``min_ratio``; too-strong line ``H``, its
  ``max_ratio``), says what a better bot changes:

  ``not viable under any play``: the best response's interval and the default knobs' both
  end below ``L`` (the best play found, and the style's default, stay not viable);
  ``not viable only with its default knobs``: the default knobs' interval ends below ``L``
  while the best response's starts at or above it (the weakness is the bot's);
  ``too strong under any play``: both intervals start above ``H``;
  ``too strong under best response``: the best response's interval starts above ``H``
  while the default knobs' does not (the faction's strength shows under better play);
  ``viable under any play``: both intervals lie within ``[L, H]``;
  otherwise ``inconclusive``, with the wider interval's width (x fair) reached.
- On a co-operative game (every seat's win is the party's result, fair share = the
  designer's target ``t``) the ratios are the party's win rate in the faction's games over
  ``t``, and :func:`coop_verdict` says the same in the words of the party's headline
  (:func:`deepsim.report.party.verdict`, band ``b`` = ``coop.band``): each interval
  ``[lo t, hi t]`` is *too easy*, *too hard*, *on target* or *unclear* against
  ``t +- b``, and the respond verdict is ``too hard under any play`` (both too hard),
  ``too hard only with its default knobs`` (the default knobs' too hard, the best
  response's interval starts at or above ``t - b``), ``too easy under any play`` (both
  too easy), ``too easy under best response`` (only the best response's), ``on target
  under any play`` (both on target), otherwise ``unclear`` with the wider interval's width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from deepsim.report.party import verdict as party_verdict
from deepsim.stats import holm_adjust

__all__ = ["COOP_VERDICTS", "VERDICTS", "Gain", "coop_verdict", "family_gains", "holm_adjust",
           "verdict"]

NOT_VIABLE_ANY = "not viable under any play"
NOT_VIABLE_BOT = "not viable only with its default knobs"
TOO_STRONG_ANY = "too strong under any play"
TOO_STRONG_BEST = "too strong under best response"
VIABLE_ANY = "viable under any play"
VERDICTS = (NOT_VIABLE_ANY, NOT_VIABLE_BOT, TOO_STRONG_ANY, TOO_STRONG_BEST, VIABLE_ANY,
            "inconclusive")
TOO_HARD_ANY = "too hard under any play"
TOO_HARD_BOT = "too hard only with its default knobs"
TOO_EASY_ANY = "too easy under any play"
TOO_EASY_BEST = "too easy under best response"
ON_TARGET_ANY = "on target under any play"
COOP_VERDICTS = (TOO_HARD_ANY, TOO_HARD_BOT, TOO_EASY_ANY, TOO_EASY_BEST, ON_TARGET_ANY,
                 "unclear")


@dataclass
class Gain:
    """A paired gain ``B - A`` corrected for the family: interval at ``1 - alpha/m``,
    Holm-adjusted p-value of ``gain = 0``."""

    est: float
    se: float
    low: float
    high: float
    p: float
    p_holm: float
    level: float


def family_gains(est, se, alpha: float = 0.05) -> list[Gain]:
    """Intervals and Holm tests of the gains of one run's factions.

    Parameters
    ----------
    est, se : sequence of float
        Each faction's paired gain and its standard error (x fair). A standard error of 0
        (the best response is the start style: identical games) gives the point
        interval and p = 1.
    alpha : float
        Family-wise error rate.

    Returns
    -------
    list of Gain
        In the order given.
    """
    est = np.asarray(est, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    m = max(int(est.size), 1)
    level = 1.0 - alpha / m
    z = float(sps.norm.ppf(1.0 - alpha / (2 * m)))
    ok = np.isfinite(se) & (se > 0) & np.isfinite(est)
    p = np.where(np.isfinite(se) & ~np.isnan(est), 1.0, math.nan)
    p[ok] = 2.0 * sps.norm.sf(np.abs(est[ok]) / se[ok])
    adj = holm_adjust(p)
    s = np.where(np.isfinite(se), se, math.nan)
    low, high = est - z * s, est + z * s
    return [Gain(float(est[i]), float(s[i]), float(low[i]), float(high[i]), float(p[i]),
                 float(adj[i]), level) for i in range(est.size)]


def verdict(default: tuple[float, float], best: tuple[float, float], *,
            min_ratio: float = 0.8, max_ratio: float = 1.25) -> tuple[str, float]:
    """The verdict of one faction from the 95% intervals ``(low, high)`` (x fair) of the
    start style's default knobs and of the best response; returns ``(verdict, width)``
    where ``width`` is the wider interval's width (see the module docstring)."""
    (a_lo, a_hi), (b_lo, b_hi) = default, best
    width = max(a_hi - a_lo, b_hi - b_lo)
    if any(math.isnan(x) for x in (a_lo, a_hi, b_lo, b_hi)):
        return "inconclusive", math.nan
    if b_hi < min_ratio and a_hi < min_ratio:
        return NOT_VIABLE_ANY, width
    if a_hi < min_ratio <= b_lo:
        return NOT_VIABLE_BOT, width
    if a_lo > max_ratio and b_lo > max_ratio:
        return TOO_STRONG_ANY, width
    if b_lo > max_ratio:
        return TOO_STRONG_BEST, width
    if min_ratio <= a_lo and a_hi <= max_ratio and min_ratio <= b_lo and b_hi <= max_ratio:
        return VIABLE_ANY, width
    return "inconclusive", width


def coop_verdict(default: tuple[float, float], best: tuple[float, float], *, target: float,
                 band: float) -> tuple[str, float]:
    """The verdict of one class of a co-operative game, in the party's words, from the 95%
    intervals ``(low, high)`` (x target: the party's win rate in the class's games over the
    designer's ``target``, a share) of the start style's default knobs and of the best
    response, with ``band`` (a share, ``coop.band`` / 100); returns ``(verdict, width)``,
    ``width`` the wider interval's width (x target). See the module docstring."""
    (a_lo, a_hi), (b_lo, b_hi) = default, best
    if any(math.isnan(x) for x in (a_lo, a_hi, b_lo, b_hi, target)):
        return "unclear", math.nan
    width = max(a_hi - a_lo, b_hi - b_lo)
    a = party_verdict(a_lo * target, a_hi * target, target, band)
    b = party_verdict(b_lo * target, b_hi * target, target, band)
    if a == b == "too hard":
        return TOO_HARD_ANY, width
    if a == "too hard" and b_lo * target >= target - band:
        return TOO_HARD_BOT, width
    if a == b == "too easy":
        return TOO_EASY_ANY, width
    if b == "too easy":
        return TOO_EASY_BEST, width
    if a == b == "on target":
        return ON_TARGET_ANY, width
    return "unclear", width
