"""The sequential probability ratio test of ``deepsim compare``, as chess-engine testing
runs it (fishtest, cutechess-cli ``-sprt elo0=E0 elo1=E1 alpha=A beta=B``).

Wald's SPRT (Wald, A. (1945), "Sequential tests of statistical hypotheses", *Annals of
Mathematical Statistics* 16(2):117-186) adds observations until the log-likelihood ratio
``LLR = log L(H1) - log L(H0)`` leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``:
above the upper bound H1 is accepted, below the lower one H0. The error rates are then
about ``alpha`` (accepting H1 when H0 is true) and ``beta`` (accepting H0 when H1 is true);
looking only after each batch of games makes both a little smaller (the LLR overshoots the
bound it crosses).

H0 and H1 are values ``theta0``, ``theta1`` of one number, the difference ``B - A`` of a
metric between two variants played on the same games (common random numbers), so both
hypotheses are composite: the rest of the distribution of a paired outcome is unknown.
The test is a *generalized* SPRT (GSPRT): each likelihood is maximised over the unknown
nuisance. The model is the normal one fishtest uses for its normalized-Elo tests
(M. Van den Bergh, "A practical introduction to normalized Elo", section 4.2, and
"Comments on the GSPRT approximation"; fishtest ``LLRcalc.LLR_alt`` /
``LLR_normalized_alt``): ``n`` paired observations with mean ``est`` and unknown variance,
profiled out under each hypothesis::

    LLR = n/2 * (log(1 + z0**2 / n) - log(1 + z1**2 / n)),   z_i = (est - theta_i) / se

where ``se`` is the standard error of ``est`` estimated from the pairs (``sd / sqrt(n)``
for a plain mean; the linearised ratio-of-sums variance, games as clusters, for a share or
a per-crew rate). It equals ``n/2 * log(s2(theta0) / s2(theta1))`` with ``s2(theta)`` the
mean squared deviation of the paired differences from ``theta``.

Why not the empirical likelihood (a multinomial over the values the paired differences
take, which the first version of this module used)? Its support is the *observed* values:
when every paired difference has one sign (a nerf makes exactly that happen) a hypothesis
on or beyond the edge of the data has likelihood 0 and the LLR is infinite, so a -20 point
H1 was accepted on a measured -1.8 points. fishtest avoids that by regularising a fixed,
known support (its pentanomial); a metric's per-game differences have no known support.
The normal GSPRT is finite whenever the pairs vary, and only data near H1 can push it up.

Its error rates are measured by simulation in ``tests/gate/test_sprt.py`` (synthetic paired
data: symmetric, rare, skewed and one-signed differences) and stated in ``docs/ci.md``.

A minimum number of pairs (``min_n``) comes before any stop and a cap (``max_n``) ends an
undecided test as inconclusive (a truncated SPRT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# the paired difference is a statistic of its own (the metric language estimates it too);
# re-exported here, where the test reads it
from deepsim.stats import Paired, paired_difference

__all__ = ["H0", "H1", "INCONCLUSIVE", "Paired", "SequentialTest", "glr_llr",
           "paired_difference", "wald_bounds"]

H0, H1, INCONCLUSIVE = "H0", "H1", ""


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    Raises
    ------
    ValueError
        Unless ``0 < alpha, beta`` and ``alpha + beta < 1``.

    >>> [round(x, 4) for x in wald_bounds(0.05, 0.05)]
    [-2.9444, 2.9444]
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1 (got {alpha}, {beta})")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def glr_llr(est, se, n, theta0: float, theta1: float):
    """GSPRT log-likelihood ratio of ``B - A = theta1`` against ``theta0`` (normal model,
    variance profiled out under each hypothesis; see the module docstring).

    Parameters
    ----------
    est, se : float or ndarray of float64
        The paired difference and its standard error (same unit as the thetas).
    n : int or ndarray
        Independent paired units behind them (games, or deals of rotated seats), >= 2.
    theta0, theta1 : float
        H0 and H1.

    Returns
    -------
    float or ndarray of float64
        ``0`` where nothing is known (``n < 2`` or NaN). With ``se == 0`` (every pair the
        same) the limit ``n * log(|est - theta0| / |est - theta1|)``: ``-inf`` when
        ``est == theta0``, ``+inf`` when ``est == theta1``.
    """
    est = np.asarray(est, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z0 = (est - theta0) / se
        z1 = (est - theta1) / se
        out = 0.5 * n * (np.log1p(z0 * z0 / n) - np.log1p(z1 * z1 / n))
        exact = n * (np.log(np.abs(est - theta0)) - np.log(np.abs(est - theta1)))
    out = np.where(se == 0, exact, out)
    out = np.where((n < 2) | np.isnan(est) | np.isnan(se), 0.0, out)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class SequentialTest:
    """A truncated GSPRT of ``B - A``: H0 ``theta0`` against H1 ``theta1``.

    ``min_n`` paired units come before any decision; at ``max_n`` an undecided test is
    inconclusive. ``alpha`` is P(accept H1 | H0), ``beta`` P(accept H0 | H1).
    """

    theta0: float
    theta1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_n: int = 2000
    max_n: int = 200_000

    def __post_init__(self):
        if self.theta0 == self.theta1:
            raise ValueError("H0 and H1 must differ")
        wald_bounds(self.alpha, self.beta)
        if not 1 <= self.min_n <= self.max_n:
            raise ValueError(f"need 1 <= min_n <= max_n (got {self.min_n}, {self.max_n})")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds (Wald)."""
        return wald_bounds(self.alpha, self.beta)

    def llr(self, est, se, n):
        """:func:`glr_llr` of this test's hypotheses."""
        return glr_llr(est, se, n, self.theta0, self.theta1)

    def decide(self, llr: float, n: int) -> str:
        """``"H1"`` (LLR at or above the upper bound), ``"H0"`` (at or below the lower) or
        ``""`` (go on; also before ``min_n``)."""
        if n < self.min_n:
            return INCONCLUSIVE
        lower, upper = self.bounds
        if llr >= upper:
            return H1
        if llr <= lower:
            return H0
        return INCONCLUSIVE

    def decide_many(self, llr: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`decide`: int8 codes, 1 = H1, -1 = H0, 0 = go on."""
        lower, upper = self.bounds
        ok = np.asarray(n) >= self.min_n
        return np.where(ok & (llr >= upper), 1, np.where(ok & (llr <= lower), -1, 0)
                        ).astype(np.int8)
