"""The GSPRT of ``deepsim compare`` (deepsim.gate.sprt) on synthetic paired data: its
error rates by simulation (no kernel, a few seconds).

Each simulated test plays batches of paired games whose per-game differences ``d`` are
drawn from a known distribution, looks at the LLR after every batch (as ``deepsim
compare`` does: first look at ``min_n``, then every ``batch``) and stops at a bound or at
the cap. A batch is drawn as multinomial counts of the values ``d`` takes, so thousands of
tests take well under a second each; the LLR and the decision are the production
functions (``glr_llr``, ``SequentialTest.decide_many``), and
``test_the_compare_loop_is_the_simulated_procedure`` checks that ``sequential_test`` (the
loop ``deepsim compare`` runs on kernel games) decides exactly as the simulation does.

Measured here and quoted in docs/ci.md (alpha = beta = 0.05, looks every 2,000 games from
2,000 to 200,000): the false-accept rate under H0 and the power under H1 for symmetric,
rare, skewed and pentanomial differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from deepsim.gate.compare import sequential_test
from deepsim.gate.sprt import H0, H1, SequentialTest, glr_llr, paired_difference, wald_bounds

ALPHA = BETA = 0.05
MIN_N, BATCH, MAX_N = 2000, 2000, 200_000

# (name, values of d, their probabilities under H0, theta0, theta1, probabilities under H1)
# in units of one seat's win share (a paired difference of -1 .. 1)
CASES = [
    ("symmetric", [-1, 0, 1], [0.10, 0.80, 0.10], 0.0, 0.01, [0.095, 0.80, 0.105]),
    ("pentanomial", [-1, -0.5, 0, 0.5, 1], [0.05, 0.05, 0.80, 0.05, 0.05], 0.0, 0.01,
     [0.05 - 1 / 300, 0.05 - 1 / 300, 0.80, 0.05 + 1 / 300, 0.05 + 1 / 300]),
    ("rare", [-1, 0, 1], [0.005, 0.99, 0.005], 0.0, 0.002, [0.004, 0.99, 0.006]),
    ("skewed", [-1, 0, 3], [0.06, 0.92, 0.02], 0.0, 0.01,
     [0.06, 0.92 - 1 / 300, 0.02 + 1 / 300]),
    ("skewed, H1 below H0", [-3, 0, 1], [0.02, 0.92, 0.06], 0.0, -0.01,
     [0.02 + 1 / 300, 0.92 - 1 / 300, 0.06]),
]


def simulate(test: SequentialTest, values, probs, *, m: int, batch: int = BATCH,
             seed: int = 0) -> dict:
    """``m`` independent sequential tests on iid paired differences: the share that
    accepts H1, H0, neither (cap), and the mean games played."""
    rng = np.random.default_rng(seed)
    values = np.asarray(values, dtype=np.float64)
    looks = math.ceil(test.max_n / batch)
    counts = rng.multinomial(batch, probs, size=(m, looks))
    s1 = np.cumsum(counts @ values, axis=1)
    s2 = np.cumsum(counts @ values ** 2, axis=1)
    n = np.broadcast_to(batch * np.arange(1, looks + 1), s1.shape)
    mean = s1 / n
    se = np.sqrt(np.maximum(s2 - n * mean ** 2, 0.0) / (n - 1) / n)
    code = test.decide_many(test.llr(mean, se, n), n)
    decided = code != 0
    first = np.where(decided.any(axis=1), decided.argmax(axis=1), looks - 1)
    final = code[np.arange(m), first]
    return {"h1": int((final == 1).sum()), "h0": int((final == -1).sum()),
            "none": int((final == 0).sum()), "m": m,
            "games": float(((first + 1) * batch).mean())}


def _upper(p: float, m: int) -> int:
    """Largest count of m tests consistent with a true rate p (one-sided 0.1%)."""
    return int(binom.ppf(0.999, m, p))


def _test(theta0, theta1) -> SequentialTest:
    return SequentialTest(theta0, theta1, ALPHA, BETA, MIN_N, MAX_N)


# --- the statistic ----------------------------------------------------------------------------

def test_wald_bounds():
    lo, hi = wald_bounds(0.05, 0.05)
    assert hi == pytest.approx(math.log(19)) and lo == pytest.approx(-math.log(19))
    with pytest.raises(ValueError):
        wald_bounds(0.6, 0.5)


def test_llr_is_the_profile_normal_likelihood_ratio():
    rng = np.random.default_rng(1)
    d = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], p=[0.1, 0.1, 0.5, 0.15, 0.15], size=3000)
    n = d.size
    est, se = d.mean(), d.std(ddof=0) / math.sqrt(n)
    t0, t1 = 0.0, 0.05
    direct = n / 2 * math.log(np.mean((d - t0) ** 2) / np.mean((d - t1) ** 2))
    assert glr_llr(est, se, n, t0, t1) == pytest.approx(direct, rel=1e-12)
    # antisymmetric in the hypotheses, 0 half-way
    assert glr_llr(est, se, n, t1, t0) == pytest.approx(-direct)
    assert glr_llr(0.025, 0.01, n, t0, t1) == pytest.approx(0.0, abs=1e-12)
    # no information: 0; no variation: the limit
    assert glr_llr(0.3, 0.1, 1, t0, t1) == 0.0
    assert glr_llr(0.0, 0.0, 100, 0.0, 0.05) == -math.inf
    assert glr_llr(0.05, 0.0, 100, 0.0, 0.05) == math.inf
    assert glr_llr(0.04, 0.0, 100, 0.0, 0.05) > 0


def test_one_signed_differences_never_support_a_far_hypothesis():
    """The bug of the empirical-likelihood GSPRT: a nerf makes every paired difference
    <= 0, H0 (0) sat on the edge of the data and the LLR was +inf, so H1 = -20 points was
    accepted on a measured -1.8 points. The normal GSPRT says H0, firmly."""
    d = np.zeros(2000)
    d[:36] = -100.0                                   # -1.8 points on average
    p = paired_difference(np.zeros(2000), np.ones(2000), d / 100, np.ones(2000), scale=100)
    assert p.est == pytest.approx(-1.8)
    test = _test(0.0, -20.0)
    llr = test.llr(p.est, p.se, p.n)
    assert llr < test.bounds[0] and test.decide(llr, p.n) == H0
    # ... and a hypothesis the data do support is accepted: -1 point, beyond which it lies
    near = _test(0.0, -1.0)
    assert near.decide(near.llr(p.est, p.se, p.n), p.n) == H1


# --- error rates ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, values, p0, theta0, theta1, p1", CASES,
                         ids=[c[0] for c in CASES])
def test_false_accept_rate_under_h0(name, values, p0, theta0, theta1, p1):
    assert float(np.dot(values, p0)) == pytest.approx(theta0)
    r = simulate(_test(theta0, theta1), values, p0, m=3000, seed=11)
    assert r["h1"] <= _upper(ALPHA, r["m"]), r
    assert r["none"] <= 0.01 * r["m"], r       # the cap is rarely reached


@pytest.mark.parametrize("name, values, p0, theta0, theta1, p1", CASES,
                         ids=[c[0] for c in CASES])
def test_power_under_h1(name, values, p0, theta0, theta1, p1):
    assert float(np.dot(values, p1)) == pytest.approx(theta1)
    r = simulate(_test(theta0, theta1), values, p1, m=3000, seed=12)
    # P(accept H0 | H1) <= beta, up to Monte Carlo noise: power >= 1 - beta
    assert r["h0"] + r["none"] <= _upper(BETA, r["m"]), r


def test_an_effect_far_from_h1_never_accepts_h1():
    # the Wardancer nerf's shape: differences only <= 0 (-1.8 points), H1 -20 points
    r = simulate(_test(0.0, -0.20), [-1, 0], [0.018, 0.982], m=3000, seed=13)
    assert r["h1"] == 0 and r["h0"] == r["m"] and r["games"] == MIN_N
    # an effect of the other sign than H1, at twice its size
    r = simulate(_test(0.0, 0.01), [-1, 0, 1], [0.11, 0.80, 0.09], m=3000, seed=14)
    assert r["h1"] == 0
    # rare one-signed differences, far below a positive H1
    r = simulate(_test(0.0, 0.05), [-1, 0], [0.001, 0.999], m=3000, seed=15)
    assert r["h1"] == 0


def test_min_games_and_the_cap():
    test = SequentialTest(0.0, 0.01, min_n=4000, max_n=10_000)
    assert test.decide(50.0, 3999) == "" and test.decide(50.0, 4000) == H1
    # an effect half-way between the hypotheses cannot be decided in 10,000 games
    r = simulate(test, [-1, 0, 1], [0.0975, 0.80, 0.1025], m=500, seed=16)
    assert r["none"] > 0.5 * r["m"]
    with pytest.raises(ValueError):
        SequentialTest(0.0, 0.0)
    with pytest.raises(ValueError):
        SequentialTest(0.0, 1.0, min_n=10, max_n=5)


def test_the_compare_loop_is_the_simulated_procedure():
    """``sequential_test`` (compare's loop over kernel batches) on synthetic batches makes
    the decision, at the game count, that the vectorised simulation makes."""
    values, probs = np.array([-1.0, 0.0, 1.0]), [0.10, 0.80, 0.10]
    test = SequentialTest(0.0, 0.01, ALPHA, BETA, MIN_N, 40_000)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        d = rng.choice(values, p=probs, size=test.max_n)

        def play(start, count, d=d):
            one = np.ones(count)
            return np.zeros(count), one, d[start:start + count].copy(), one

        decision, diff, llr, history, games = sequential_test(test, play, batch=BATCH)
        n = np.arange(BATCH, test.max_n + 1, BATCH)
        cs = np.cumsum(d)[n - 1]
        cs2 = np.cumsum(d * d)[n - 1]
        mean = cs / n
        se = np.sqrt((cs2 - n * mean ** 2) / (n - 1) / n)
        code = test.decide_many(test.llr(mean, se, n), n)
        k = int(np.argmax(code != 0)) if (code != 0).any() else len(n) - 1
        assert games == n[k] and len(history) == k + 1
        assert decision == {1: H1, -1: H0, 0: ""}[int(code[k])]
        assert llr == pytest.approx(float(test.llr(mean[k], se[k], n[k])), rel=1e-9)
        assert diff.est == pytest.approx(mean[k])
