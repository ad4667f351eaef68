"""The claims' instruments on synthetic data (pure numpy, no kernel): a planted effect is
found in at least 80% of replicates, and none is found where none was planted in at most
alpha of them, plus Monte Carlo error (three standard errors of a share over the
replicates). Each null is put on the border of the claimed region where the instrument
has a border, where its error is largest.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from deepsim.rulesets.deepfall import instruments as I

ALPHA = 0.05
REPS = 300
POWER = 0.80


def _mc(rate: float = ALPHA, reps: int = REPS) -> float:
    """alpha + three Monte Carlo standard errors of a share estimated from ``reps``."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / reps)


def _share(flags) -> float:
    return float(np.mean(flags))


# --- B1 ----------------------------------------------------------------------------------------

def _rounds(rng, means, n=300, sd=0.7):
    groups = np.repeat(np.arange(2, 2 + len(means)), n)
    return rng.normal(np.repeat(means, n), sd), groups


def test_band_means_error_rates():
    rng = np.random.default_rng(1)
    edge = [I.band_means(*_rounds(rng, [12.0] * 5), 10, 12, ALPHA).verdict == "fails"
            for _ in range(REPS)]
    assert _share(edge) <= _mc()                  # every mean on the border: a true claim
    planted = [I.band_means(*_rounds(rng, [11, 11, 11, 11.8, 12.3]), 10, 12,
                            ALPHA).verdict == "fails" for _ in range(REPS)]
    assert _share(planted) >= POWER               # one player count 0.3 rounds over
    held = [I.band_means(*_rounds(rng, [11.0] * 5), 10, 12, ALPHA).verdict == "holds"
            for _ in range(REPS)]
    assert _share(held) >= POWER


# --- B2, B3: ratio to fair, tiers --------------------------------------------------------------

def _labels(rng, ratios, n=4000, fair=0.25, simultaneous=True):
    """Per label: wins in n seat-games at ``ratio`` x the fair share (binomial draws)."""
    k = len(ratios)
    wins = rng.binomial(n, np.asarray(ratios) * fair).astype(float)
    return I.ratio_counts(np.arange(k), wins, np.full(k, n), np.full(k, fair), ALPHA,
                          simultaneous=simultaneous)


def test_ratio_table_from_seat_games():
    rng = np.random.default_rng(20)
    groups = np.repeat(np.arange(3), 1000)
    win = (rng.random(3000) < np.repeat([0.2, 0.25, 0.3], 1000)).astype(float)
    t = I.ratio_table(win, np.full(3000, 0.25), groups)
    assert t["n"].tolist() == [1000, 1000, 1000]
    assert t["ratio"] == pytest.approx(win.reshape(3, -1).mean(axis=1) / 0.25)
    assert (t["low"] < t["ratio"]).all() and (t["ratio"] < t["high"]).all()


def test_ratio_table_tiers_error_rates():
    rng = np.random.default_rng(2)
    false_weak, false_strong, border = [], [], []
    for _ in range(REPS):
        t = _labels(rng, [1.0] * 36)
        false_weak.append(I.floor_verdict(t, 0.8).verdict == "fails")
        false_strong.append(bool((t["low"] > 1.25).any()))
        t = _labels(rng, [0.5] * 36)               # every label on the dead line
        border.append(I.floor_verdict(t, 0.5).verdict == "fails")
    assert _share(false_weak) <= _mc() and _share(false_strong) <= _mc()
    assert _share(border) <= _mc()
    dead = [I.floor_verdict(_labels(rng, [1.0] * 35 + [0.38]), 0.5).verdict == "fails"
            for _ in range(REPS)]
    assert _share(dead) >= POWER                  # one dead pick among 36
    viable = [I.floor_verdict(_labels(rng, [1.0] * 36), 0.8).verdict == "holds"
              for _ in range(REPS)]
    assert _share(viable) >= POWER


def test_touch_strong_region_error_rates():
    """'A touch strong' = ratio in (1, 1.2]: a label exactly at fair is not (the border)."""
    rng = np.random.default_rng(3)

    def verdict(r, n):
        t = _labels(rng, [r], n=n, simultaneous=False)
        return I.region_verdict(t["low"][0], t["high"][0], 1.0, 1.2, lo_open=True)

    assert _share([verdict(1.0, 20000) == "holds" for _ in range(REPS)]) <= _mc()
    assert _share([verdict(1.2, 20000) == "holds" for _ in range(REPS)]) <= _mc()
    assert _share([verdict(1.1, 20000) == "holds" for _ in range(REPS)]) >= POWER


# --- B3: swing ----------------------------------------------------------------------------------

def _glory(rng, games=2000, seats=4, cv_group=0.5, cv_rest=0.5):
    """Gamma Glory (shape 1/cv^2) times a game effect; seat 0 is the group; the value read
    is Glory over the game's mean Glory, as the claim reads it."""
    shape = np.full((games, seats), 1 / cv_rest ** 2)
    shape[:, 0] = 1 / cv_group ** 2
    g = rng.gamma(shape, 1 / shape) * rng.lognormal(0, 0.3, (games, 1))
    rel = g / g.mean(axis=1, keepdims=True)
    grp = np.zeros((games, seats), bool)
    grp[:, 0] = True
    cluster = np.repeat(np.arange(games), seats)
    return rel.ravel(), grp.ravel(), cluster


def test_cv_ratio_error_rates():
    rng = np.random.default_rng(4)
    null = [I.cv_ratio(*_glory(rng), ALPHA).verdict for _ in range(REPS)]
    assert _share([v != "inconclusive" for v in null]) <= _mc()
    planted = [I.cv_ratio(*_glory(rng, cv_group=0.6), ALPHA).verdict == "holds"
               for _ in range(REPS)]
    assert _share(planted) >= POWER


def test_cv_ratio_is_scale_free():
    rng = np.random.default_rng(5)
    x, g, c = _glory(rng)
    a = I.cv_ratio(x, g, c)
    b = I.cv_ratio(np.where(g, 3 * x, x), g, c)     # the group scores 3x as much
    assert b.value == pytest.approx(a.value) and b.low == pytest.approx(a.low)


# --- B4 -----------------------------------------------------------------------------------------

def test_rare_rate_error_rates():
    rng = np.random.default_rng(6)
    n = 20000
    border = [I.rare_rate(rng.binomial(n, 0.05), n, 0.05, ALPHA).verdict == "fails"
              for _ in range(REPS)]
    assert _share(border) <= _mc()
    planted = [I.rare_rate(rng.binomial(n, 0.056), n, 0.05, ALPHA).verdict == "fails"
               for _ in range(REPS)]
    assert _share(planted) >= POWER
    held = [I.rare_rate(rng.binomial(n, 0.044), n, 0.05, ALPHA).verdict == "holds"
            for _ in range(REPS)]
    assert _share(held) >= POWER


# --- B5: the crossover --------------------------------------------------------------------------

def _crossover(rng, strength=1.0, deals=3000):
    """Deals of 2-6 players; each seat has a deal effect (its company and seat) that both
    arms share; X seats are the odd seats in arm 0 and the even seats in arm 1, and win in
    proportion to ``strength`` x the seat's effect. Rows: one per deal and arm."""
    out = [[] for _ in range(5)]
    sizes = rng.integers(2, 7, deals)
    for n in range(2, 7):
        d = np.flatnonzero(sizes == n)
        eff = rng.lognormal(0, 0.6, (d.size, n))
        for arm in (0, 1):
            x = (np.arange(n) % 2) == arm
            w = eff * np.where(x, strength, 1.0)
            cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
            winner = np.minimum((cum < rng.random((d.size, 1))).sum(axis=1), n - 1)
            for lst, v in zip(out, (d, x[winner].astype(float), np.full(d.size, x.sum() / n),
                                    (~x[winner]).astype(float),
                                    np.full(d.size, (~x).sum() / n)), strict=True):
                lst.append(v)
    d, wx, fx, wy, fy = (np.concatenate(v) for v in out)
    return wx, fx, wy, fy, d


def test_crossover_error_rates():
    rng = np.random.default_rng(7)
    null = []
    for _ in range(REPS):
        r = I.crossover(*_crossover(rng), alpha=ALPHA)["ratio"]
        null.append(r.low > 1 or r.high < 1)
    assert _share(null) <= _mc()
    planted = [I.crossover(*_crossover(rng, 1.25), alpha=ALPHA)["ratio"].low > 1
               for _ in range(REPS)]
    assert _share(planted) >= POWER


# --- B6 -----------------------------------------------------------------------------------------

def test_tight_share_error_rates():
    rng = np.random.default_rng(8)
    n = 4000
    # relative margins with median 0.1 (the border of "median <= 0.1")
    border = [I.tight_share(rng.exponential(0.1 / math.log(2), n), 0.1, ALPHA).verdict
              for _ in range(REPS)]
    assert _share([v != "inconclusive" for v in border]) <= _mc()
    planted = [I.tight_share(rng.exponential(0.09 / math.log(2), n), 0.1, ALPHA).verdict
               == "holds" for _ in range(REPS)]
    assert _share(planted) >= POWER


# --- B7 -----------------------------------------------------------------------------------------

def _contention(rng, shares, games=1500):
    scored = rng.poisson(12, games * len(shares)) + 1
    groups = np.repeat(np.arange(len(shares)), games)
    contested = rng.binomial(scored, np.repeat(shares, games))
    return contested, scored, groups


def test_constant_ratio_error_rates():
    rng = np.random.default_rng(9)
    tol = 0.25
    border = [I.constant_ratio(*_contention(rng, [0.32, 0.34, 0.36, 0.38, 0.40]), tol,
                               ALPHA).verdict == "fails" for _ in range(REPS)]
    assert _share(border) <= _mc()                # spread exactly 1.25: still constant
    planted = [I.constant_ratio(*_contention(rng, [0.30, 0.34, 0.38, 0.40, 0.42]), tol,
                                ALPHA).verdict == "fails" for _ in range(REPS)]
    assert _share(planted) >= POWER               # spread 1.4
    held = [I.constant_ratio(*_contention(rng, [0.36] * 5), tol, ALPHA).verdict == "holds"
            for _ in range(REPS)]
    assert _share(held) >= POWER


# --- B8 -----------------------------------------------------------------------------------------

def test_never_error_rates():
    rng = np.random.default_rng(10)
    n = 10000
    planted = [I.never(int((rng.random(n) < 3e-4).sum()), n).verdict == "fails"
               for _ in range(REPS)]
    assert _share(planted) >= POWER               # one game in ~3,300
    assert all(I.never(0, n).verdict == "holds" for _ in range(REPS))
    assert I.never(0, n).high == pytest.approx(1 - 0.025 ** (1 / n))
