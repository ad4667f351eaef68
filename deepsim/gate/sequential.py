"""Repeated looks for ``deepsim check --sequential``: a look schedule and alpha spending.

``--sequential`` plays games in looks (``--min-games``, then doubling, up to
``--max-games``) and judges every undecided expectation at each look. Intervals recomputed
at every look with the full alpha would be wrong: with enough looks some interval of a true
expectation would eventually leave its bounds. The error rate is spent over the looks with
an alpha-spending function of the information fraction ``t = games / max_games``
(Lan, K.K.G. & DeMets, D.L. (1983), "Discrete sequential boundaries for clinical trials",
*Biometrika* 70(3):659-663):

- ``pocock`` (default), Pocock-type: ``alpha(t) = alpha * ln(1 + (e - 1) * t)``; spends
  early, so clear expectations are decided after few games;
- ``obf``, O'Brien-Fleming-type: ``alpha(t) = 2 - 2 * Phi(z_{1 - alpha/2} / sqrt(t))``;
  spends almost nothing early and keeps nearly all of alpha for the last look.

Look ``j`` gets the increment ``alpha(t_j) - alpha(t_{j-1})``, split equally over the ``k``
expectations of the family (Bonferroni), and each interval at that look has level
``1 - alpha_j / k``. The looks are combined by the union bound rather than the exact
recursive group-sequential boundaries (Armitage, McPherson & Rowe 1969): the probability
that any interval, at any look, misses its true value is at most
``sum_j sum_i alpha_j / k = alpha``. That holds whatever the correlation between looks and
expectations and whatever interval method each metric uses; it is conservative because the
looks are positively correlated. So with probability at least ``1 - alpha`` no expectation
that truly holds is ever failed and none that truly fails is ever passed, and a decision
taken at any look can be kept (decided expectations are not looked at again).

The schedule depends only on ``min_games`` and ``max_games``, and the games of a look only
on (seed, game index), so the verdicts are the same on any machine and thread count.
"""

from __future__ import annotations

import math

from scipy.stats import norm

from deepsim.errors import InputError

__all__ = ["SPENDING", "look_alphas", "schedule", "spend"]

SPENDING = ("pocock", "obf")


def spend(t: float, alpha: float, kind: str = "pocock") -> float:
    """Cumulative alpha spent by information fraction ``t`` in [0, 1] (Lan-DeMets).

    >>> round(spend(1.0, 0.05, "obf"), 6), round(spend(1.0, 0.05, "pocock"), 6)
    (0.05, 0.05)
    """
    if kind not in SPENDING:
        raise InputError(f"unknown spending function {kind!r}; choose {' or '.join(SPENDING)}",
                         key="--spending")
    t = min(max(float(t), 0.0), 1.0)
    if t == 0.0:
        return 0.0
    if kind == "pocock":
        return alpha * math.log1p((math.e - 1.0) * t)
    z = norm.isf(alpha / 2.0)
    return float(2.0 * norm.sf(z / math.sqrt(t)))


def schedule(max_games: int, min_games: int | None = None, factor: float = 2.0) -> list[int]:
    """Game counts at which to look: ``min_games``, then x ``factor``, ending at ``max_games``.

    The default ``min_games`` is ``max_games / 32`` (at least 1,000 games, at most
    ``max_games``): six looks when ``max_games`` allows.
    """
    if max_games < 1:
        raise InputError(f"expected --max-games >= 1, got {max_games}", key="--max-games")
    if min_games is None:
        min_games = min(max_games, max(1000, math.ceil(max_games / 32)))
    if not 1 <= min_games <= max_games:
        raise InputError(f"expected 1 <= --min-games <= --max-games ({max_games}), got "
                         f"{min_games}", key="--min-games")
    looks = [int(min_games)]
    while looks[-1] < max_games:
        looks.append(min(max_games, math.ceil(looks[-1] * factor)))
    return looks


def look_alphas(looks: list[int], max_games: int, alpha: float,
                kind: str = "pocock") -> list[float]:
    """Alpha of each look: the spending function's increment at ``looks[j] / max_games``.

    They sum to ``alpha`` when the last look is ``max_games``.
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"expected 0 < alpha < 1, got {alpha}", key="--alpha")
    out, spent = [], 0.0
    for n in looks:
        total = spend(n / max_games, alpha, kind)
        out.append(max(total - spent, 0.0))
        spent = total
    return out
