"""The oracle: the DEEPFALL kernel's own dice code against `deepsim odds`'s exact values.

Hands are rolled through ``kernel.draw_hand`` (and claims checked with
``kernel.claim_cost`` / ``kernel.trinity_ok``) by ``deepsim.rulesets.deepfall.oracle``;
their empirical face and symbol frequencies and the chance to claim a Vault are compared
with the exact distributions of :mod:`deepsim.rulesets.deepfall.odds` by chi-square and binomial
tests at a fixed seed. The last tests show the comparison has the power to catch a kernel
that rolls wrong (a wrong face, dice drawn with replacement).
"""

from __future__ import annotations

from collections import Counter

import icepool
import numpy as np
import pytest
from scipy import stats

from deepsim.odds.common import probs
from deepsim.rulesets.deepfall import compile as comp
from deepsim.rulesets.deepfall import odds as OD
from deepsim.rulesets.deepfall.layout import KNOBS, MAX_SEATS
from deepsim.rulesets.deepfall.oracle import roll_hands
from deepsim.rulesets.deepfall.schema import DICE, EFFECTS, ROOMS, SYMBOLS

SEED = 20_240_508
N = 200_000
ALPHA = 1e-3          # a correct kernel passes at this seed; a wrong one gives p ~ 0


def _arrays(data):
    return comp.build(data, players=[4], seat_spec=-np.ones((MAX_SEATS, 3), np.int64),
                      bot_pool=[0], unique=True, knobs=np.zeros((1, len(KNOBS))))


def roll(setup: OD.Setup, presses: int = 0, *, room: str = "vault", n: int = N,
         faces: np.ndarray | None = None, seed: int = SEED):
    """(symbols[n, 6], claimable[n]) from the kernel's dice code."""
    a = _arrays(setup.data)
    bag = np.zeros(len(DICE), np.int64)
    for t, c in setup.bag.items():
        bag[DICE.index(t)] = c
    eff = np.array([setup.eff[e] for e in EFFECTS], np.float64)
    if faces is not None:
        a.faces = faces
    dat = a.kernel_data()
    return roll_hands(np.int64(seed), np.int64(n), np.int64(setup.hand), np.int64(presses),
                      bag, eff, np.int64(ROOMS.index(room)), dat)


def chi2_pvalue(samples: np.ndarray, exact: dict) -> float:
    """Chi-square goodness of fit of sampled outcomes (rows) to an exact distribution.

    Cells expecting fewer than 5 are pooled; an outcome the exact law forbids gives 0.
    """
    n = samples.shape[0]
    seen = Counter(map(tuple, samples.tolist()))
    law = {tuple(k): float(p) for k, p in exact.items()}
    if any(k not in law or law[k] == 0 for k in seen):
        return 0.0
    obs, exp, pool_o, pool_e = [], [], 0, 0.0
    for k, p in law.items():
        if n * p >= 5:
            obs.append(seen.get(k, 0))
            exp.append(n * p)
        else:
            pool_o += seen.get(k, 0)
            pool_e += n * p
    if pool_e > 0:
        obs.append(pool_o)
        exp.append(pool_e)
    if len(obs) < 2:
        return 1.0
    exp = np.asarray(exp)
    exp *= sum(obs) / exp.sum()
    return float(stats.chisquare(obs, exp).pvalue)


@pytest.mark.parametrize("die", DICE)
def test_face_frequencies_of_each_die_type(die):
    s = OD.setup(dice=f"{die}=1", hand=1)
    sym, _ = roll(s, n=60_000)
    exact = probs(OD.hand_die(s.data, s.bag, 1))
    assert chi2_pvalue(sym, exact) > ALPHA


@pytest.mark.parametrize("bag,lineage,presses", [
    (None, "dvergar", 0),                                   # start bag, hand 4
    (None, "wisp", 1),                                      # hand 5, one Press On
    ("warrior=2,scholar=2,priest=2,champion=1,relic=1,rogue=2,recruit=2", None, 2),
])
@pytest.mark.slow
def test_hand_symbols_joint_and_marginals(bag, lineage, presses):
    s = OD.setup(dice=bag, lineage=lineage)
    sym, _ = roll(s, presses)
    n = s.drawn(presses)
    assert (sym.sum(axis=1) == n).all()                      # every drawn die rolled once
    joint = probs(OD.hand_die(s.data, s.bag, n))
    assert chi2_pvalue(sym, joint) > ALPHA
    for k, name in enumerate(SYMBOLS):
        marg = probs(OD.hand_die(s.data, s.bag, n, (k,)))
        assert chi2_pvalue(sym[:, [k]], marg) > ALPHA, name


@pytest.mark.parametrize("bag,lineage,calling,presses", [
    ("warrior=2,scholar=2,priest=2,recruit=2", None, None, 1),
    ("warrior=3,scholar=3,priest=3,recruit=3", None, None, 2),
    (None, "dvergar", None, 0),                              # threat_ignore via claim_cost
    (None, "dvergar", None, 1),
    ("warrior=3,scholar=3,recruit=2", None, "lorekeeper", 0),   # solo Vault via trinity_ok
])
def test_chance_to_claim_a_vault(bag, lineage, calling, presses):
    s = OD.setup(dice=bag, lineage=lineage, calling=calling)
    _, claim = roll(s, presses)
    exact = float(OD.claim(s, room="vault", max_press=presses).rows[presses]["claim"])
    assert exact > 0.001
    test = stats.binomtest(int(claim.sum()), claim.shape[0], exact)
    assert test.pvalue > ALPHA, (claim.mean(), exact)


def test_a_vault_is_never_claimed_when_the_odds_say_never():
    s = OD.setup(dice="warrior=2,scholar=2,priest=2,recruit=2")   # 5 symbols from 4 dice
    _, claim = roll(s, 0, n=20_000)
    assert OD.claim(s, room="vault", max_press=0).rows[0]["claim"] == 0
    assert claim.sum() == 0


def test_a_die_with_a_wrong_face_fails_the_oracle():
    s = OD.setup(dice="warrior=1", hand=1)
    a = _arrays(s.data)
    faces = a.faces.copy()
    w = DICE.index("warrior")
    faces[w, list(faces[w]).index(SYMBOLS.index("dread"))] = SYMBOLS.index("steel")
    sym, _ = roll(s, n=60_000, faces=faces)
    assert chi2_pvalue(sym, probs(OD.hand_die(s.data, s.bag, 1))) < 1e-9


def test_drawing_with_replacement_would_fail_the_oracle():
    """The kernel's draws match 'without replacement' and reject 'with replacement'."""
    s = OD.setup(dice="warrior=1,relic=1,recruit=1", hand=2)
    sym, _ = roll(s, n=60_000)
    without = probs(OD.hand_die(s.data, s.bag, 2))
    one = icepool.Die([OD.die_of(s.data, t, tuple(range(6))) for t in s.bag])
    with_repl = probs(one + one)
    assert chi2_pvalue(sym, without) > ALPHA
    assert chi2_pvalue(sym, with_repl) < 1e-9


def test_an_override_reaches_both_the_kernel_and_the_odds():
    sets = ["dice.warrior.faces.steel=2", "dice.warrior.faces.dread=2"]
    s = OD.setup(dice="warrior=3,recruit=3", sets=sets)
    sym, claim = roll(s, 0, room="den")
    assert chi2_pvalue(sym, probs(OD.hand_die(s.data, s.bag, s.hand))) > ALPHA
    base = OD.setup(dice="warrior=3,recruit=3")
    assert chi2_pvalue(sym, probs(OD.hand_die(base.data, base.bag, base.hand))) < 1e-9
    exact = float(OD.claim(s, room="den", max_press=0).rows[0]["claim"])
    assert stats.binomtest(int(claim.sum()), claim.shape[0], exact).pvalue > ALPHA
