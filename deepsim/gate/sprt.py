"""The sequential probability ratio test of ``deepsim compare``, as chess-engine testing
runs it (fishtest, cutechess-cli ``-sprt elo0=E0 elo1=E1 alpha=A beta=B``).

Wald's SPRT (Wald, A. (1945), "Sequential tests of statistical hypotheses", *Annals of
Mathematical Statistics* 16(2):117-186) adds observations until the log-likelihood ratio
``LLR = log L(H1) - log L(H0)`` leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``:
above the upper bound H1 is accepted, below the lower one H0. The error rates are then
about ``alpha`` (accepting H1 when H0 is true) and ``beta`` (accepting H0 when H1 is true).

H0 and H1 are values of one number, the difference ``B - A`` of a metric between the
variants (e.g. 0 and 2 percentage points of a company's win share), so both hypotheses
are composite: the rest of the distribution of a paired outcome is unknown. Like fishtest,
the test is a *generalized* SPRT (GSPRT): each likelihood is maximised over the unknown
distribution under its hypothesis. fishtest models the outcome of a game pair as a
pentanomial (or a single game as a trinomial) distribution and maximises the multinomial
likelihood subject to the expected score (M. Van den Bergh, "Comments on Normalized Elo"
and "MLE of a multinomial distribution with given expectation value", the notes behind
fishtest's ``LLRcalc``). Here a paired game gives the difference ``d`` of the metric between
the two variants on the same seed and game index; its distribution is a multinomial over
the values ``d`` takes (for a win share: -1, -1/2, 0, 1/2, 1, like the pentanomial), and the
multinomial maximum likelihood subject to a mean ``theta`` is Owen's empirical likelihood
(Owen, A. B. (1988), "Empirical likelihood ratio confidence intervals for a single
functional", *Biometrika* 75(2):237-249), computed by ``statsmodels.emplike``
(``DescStatUV.test_mean``). So ``LLR = log R(theta1) - log R(theta0)`` with ``-2 log R`` from
statsmodels.

When the variants do not select the same games with the same weight (e.g. an override that
changes which companies are drawn) or the metric is a ratio with a varying denominator
(rooms, crews), each variant's estimate is linearised per game and the GSPRT uses the
normal approximation that fishtest used before the exact multinomial one:
``LLR = (theta1 - theta0) * (2 * est - theta0 - theta1) / (2 * se**2)``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

__all__ = ["Paired", "gsprt_llr", "llr_multinomial", "llr_normal", "paired_difference",
           "wald_bounds"]


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    >>> [round(x, 4) for x in wald_bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1 (got {alpha}, {beta})")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _log_el(d: np.ndarray, theta: float) -> float:
    """log of the empirical likelihood ratio of mean ``theta`` (0 at the sample mean,
    ``-inf`` outside the open range of the data)."""
    lo, hi = float(d.min()), float(d.max())
    if lo == hi:
        return 0.0 if math.isclose(theta, lo, abs_tol=1e-12) else -math.inf
    if not lo < theta < hi:
        return -math.inf
    from statsmodels.emplike.descriptive import DescStatUV

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FutureWarning about the return type
        res = DescStatUV(d).test_mean(theta)
    return -0.5 * float(res[0])


def llr_multinomial(d: np.ndarray, theta0: float, theta1: float) -> float:
    """GSPRT log-likelihood ratio of mean ``theta1`` against ``theta0`` for iid observations
    ``d``, each hypothesis' likelihood maximised over multinomials on the observed values
    (empirical likelihood, statsmodels). ``0.0`` when neither mean is attainable yet."""
    d = np.asarray(d, dtype=np.float64)
    if d.size < 2:
        return 0.0
    l1, l0 = _log_el(d, theta1), _log_el(d, theta0)
    if math.isinf(l1) and math.isinf(l0):
        return 0.0
    return l1 - l0


def llr_normal(est: float, se: float, theta0: float, theta1: float) -> float:
    """Normal-approximation GSPRT LLR of an estimate ``est`` with standard error ``se``."""
    if not se > 0 or math.isnan(est):
        return 0.0
    return (theta1 - theta0) * (2.0 * est - theta0 - theta1) / (2.0 * se * se)


@dataclass
class Paired:
    """The difference ``B - A`` of a metric on paired games.

    ``est``/``se``: the difference and its (linearised) standard error; ``d``: the per-game
    differences when both variants select the same games with one constant weight (then
    ``mean(d) == est`` and the multinomial GSPRT applies), else ``None``.
    """

    est: float
    se: float
    value_a: float
    value_b: float
    n_games: int
    d: np.ndarray | None

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
    ya, wa, yb, wb : ndarray
        Per game: the metric's numerator and denominator for each variant (``w == 0`` when
        the game does not count). When ``paired``, index ``i`` is the same game (seed and
        game index) in both variants.
    scale : float
        Unit factor (100 for percent).
    paired : bool
        Games are paired: the standard error uses the per-game differences (common random
        numbers cancel); otherwise the two variances add.
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
    d = None
    if paired:
        sel = wa > 0
        if sel.any() and np.array_equal(sel, wb > 0):
            c = wa[sel]
            if np.allclose(c, c[0]) and np.allclose(wb[sel], c[0]):
                d = scale * (yb[sel] - ya[sel]) / float(c[0])
    return Paired(est=est, se=se, value_a=scale * ra, value_b=scale * rb,
                  n_games=int(ya.size), d=d)


def gsprt_llr(p: Paired, theta0: float, theta1: float) -> tuple[float, str]:
    """The GSPRT LLR of ``p`` and the model used: ``'multinomial'`` (empirical likelihood
    of the paired differences) or ``'normal'`` (linearised estimate)."""
    if p.d is not None and p.d.size >= 2:
        return llr_multinomial(p.d, theta0, theta1), "multinomial"
    return llr_normal(p.est, p.se, theta0, theta1), "normal"
