"""The oracle for Atlantis: the kernel's own dice code against `deepsim odds atlantis`.

Each test builds a small game state (the ``new_state`` fixture of this folder's
conftest.py: the ruleset compiled by ``RULESET.prepare`` with the same ``--set`` overrides
the odds read) and calls the kernel's rule functions many times at a fixed seed:
``kernel.roll_hits`` (AT-A5 hit faces, AMB-T1), ``kernel.attack_pool`` /
``kernel.attack_dice`` / ``kernel.resolve_attack`` (AT-A4 modifiers), ``kernel.search``
(AT-A3), ``kernel.do_attack`` on a hidden target (search then damage, AMB-T2/T3) and
``kernel.do_hide`` (AT-A7). The empirical frequencies are compared with the exact answers
of :mod:`deepsim.rulesets.atlantis.odds` (chi-square for distributions, binomial for
chances). The last tests show the comparison has the power to catch a kernel that rolls
wrong (a planted hit face, a search threshold off by one).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from deepsim.api import dice_odds as answer
from deepsim.rulesets.atlantis import board as B
from deepsim.rulesets.atlantis import kernel as K
from deepsim.rulesets.atlantis import layout as L

SEED = 20_240_508
N = 60_000
ALPHA = 1e-3          # a correct kernel passes at this seed; a wrong one gives p ~ 0

HIT_RULES = ["[1]", "[5,6]"]


def chi2_pvalue(samples, exact: dict) -> float:
    """Chi-square goodness of fit of sampled outcomes to an exact {outcome: P} law.

    Cells expecting fewer than 5 are pooled; an outcome the exact law forbids gives 0.
    """
    n = len(samples)
    seen = Counter(int(x) for x in samples)
    law = {int(k): float(p) for k, p in exact.items()}
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


def binom_pvalue(successes: int, n: int, p) -> float:
    p = float(p)
    if p in (0.0, 1.0):
        return 1.0 if successes == round(p * n) else 0.0
    return float(stats.binomtest(successes, n, p).pvalue)


def damage_law(res, column: str = "ruleset") -> dict[int, Fraction]:
    """{damage: P} of a `damage` answer's column."""
    return {r["k"]: r[f"{column}_eq"] for r in res.rows}


def hits(s, n_dice: int, n: int = N) -> list[int]:
    """Hits of ``n`` rolls of ``n_dice`` dice through ``kernel.roll_hits``."""
    return [K.roll_hits(s.scr, s.dat, n_dice)[0] for _ in range(n)]


# ---- AT-A5 / AMB-T1: the attack roll ----------------------------------------------------

@pytest.mark.parametrize("faces", HIT_RULES)
@pytest.mark.parametrize("ad", [1, 4])
def test_attack_roll_matches_the_damage_die(faces, ad, new_state):
    sets = [f"combat.hit_faces={faces}"]
    s = new_state(overrides=sets, seed=SEED)
    res = answer("atlantis", "damage", ad=ad, sets=sets)
    assert chi2_pvalue(hits(s, ad), damage_law(res)) > ALPHA


def test_default_ruleset_and_hit56_columns_match_the_kernel(new_state):
    """The side-by-side columns of one answer are the kernel with and without the
    scenarios/atlantis-hit56.yaml override."""
    res = answer("atlantis", "damage", ad=3)
    s1 = new_state(seed=SEED)
    s56 = new_state(overrides=("combat.hit_faces=[5,6]",), seed=SEED + 1)
    assert chi2_pvalue(hits(s1, 3), damage_law(res, "ruleset")) > ALPHA
    assert chi2_pvalue(hits(s56, 3), damage_law(res, "hit56")) > ALPHA


# ---- AT-A4: attack dice after modifiers, rolled by resolve_attack -----------------------

@pytest.mark.parametrize("unit,hidden,paralyzed,faces", [
    ("sea_knights", False, True, "[1]"),        # 4 + 2 (paralyzed target)
    ("sea_knights", False, True, "[5,6]"),
    ("merman_assassin", True, True, "[5,6]"),   # 2 + 2 hidden + 1 Assassin + 2 paralyzed
    ("sea_dragon", True, False, "[1]"),         # 5 + 2 hidden
])
def test_modified_attack_matches_the_odds(unit, hidden, paralyzed, faces, new_state):
    sets = [f"combat.hit_faces={faces}"]
    s = new_state(overrides=sets, seed=SEED)
    a = s.add(unit, "king", (2, 2), hidden=hidden)
    t = s.add("leviathan", "witch", (3, 2))           # DR 10: never destroyed here
    s.u[t, B.UC_PARA] = int(paralyzed)
    n_dice = K.attack_dice(s.scr, s.dat, a, t, K.attack_pool(s.scr, s.dat, a))
    res = answer("atlantis", "damage", attacker=unit, hidden_attacker=hidden,
                 paralyzed=paralyzed, sets=sets)
    assert n_dice == len(res.rows) - 1                # same number of dice
    dealt = []
    u = s.u
    for _ in range(N):
        K.resolve_attack(s.scr, s.dat, a, t, n_dice)
        dealt.append(int(u[t, B.UC_DMG]))
        u[t, B.UC_DMG] = 0
    assert chi2_pvalue(dealt, damage_law(res)) > ALPHA


def test_paralyzed_bonus_override_reaches_both(new_state):
    sets = ["combat.paralyzed_bonus=3"]
    s = new_state(overrides=sets, seed=SEED)
    a = s.add("sea_knights", "king", (2, 2))
    t = s.add("leviathan", "witch", (3, 2))
    s.u[t, B.UC_PARA] = 1
    res = answer("atlantis", "damage", attacker="sea_knights", paralyzed=True, sets=sets)
    assert K.attack_dice(s.scr, s.dat, a, t, 4) == len(res.rows) - 1 == 7


# ---- AT-A3: the search roll, and a whole attack on a hidden target -----------------------

@pytest.mark.parametrize("sets", [[], ["combat.search_min=4"], ["combat.search_min=6"]])
def test_search_roll_matches_the_odds(sets, new_state):
    s = new_state(overrides=sets, seed=SEED)
    a = s.add("sea_knights", "king", (2, 2))
    t = s.add("locathah", "witch", (3, 2), hidden=True)
    u = s.u
    ok = 0
    for _ in range(N):
        u[a, B.UC_SEARCHED] = 0                       # one search per unit per turn
        ok += bool(K.search(s.scr, s.dat, a, t))
    exact = next(r["p"] for r in answer("atlantis", "specials", sets=sets).rows
                 if r["roll"].startswith("search"))
    assert exact == Fraction(7 - int(s.dat[B.D_RULES][L.R_SEARCH_MIN]), 6)
    assert binom_pvalue(ok, N, exact) > ALPHA


@pytest.mark.parametrize("faces", HIT_RULES)
def test_attacks_on_a_hidden_target_match_the_destroy_chain(faces, new_state):
    """kernel.do_attack twice on a hidden target (search, then damage; AMB-T2 a failed
    search spends the attack, AMB-T3 the marker stays) against `destroy --hidden-target`."""
    sets = [f"combat.hit_faces={faces}"]
    s = new_state(overrides=sets, seed=SEED)
    a = s.add("sea_knights", "king", (2, 2))
    t = s.add("leviathan", "witch", (3, 2), hidden=True)
    u = s.u
    n = N // 2
    dmg = np.zeros((n, 2), np.int64)
    for g in range(n):
        u[t, B.UC_DMG] = 0
        for k in range(2):
            u[a, B.UC_SEARCHED] = 0                   # a new turn
            K.do_attack(s.scr, s.dat, s.kn, a, t)
            dmg[g, k] = u[t, B.UC_DMG]
        assert u[t, B.UC_HIDDEN] == 1
    for dr in (1, 2, 3):
        res = answer("atlantis", "destroy", attacker="sea_knights", dr=dr,
                     hidden_target=True, attacks=2, sets=sets)
        for k in range(2):
            killed = int((dmg[:, k] >= dr).sum())
            assert binom_pvalue(killed, n, res.rows[k]["ruleset"]) > ALPHA, (dr, k)


# ---- AT-A7: the hide roll --------------------------------------------------------------

@pytest.mark.parametrize("unit,terrain,sets", [
    ("sea_knights", "open_ocean", []),                              # HF '-' at +0: 1/3
    ("mermen", "coral_reef", []),                                   # 1 + 1: 2/3
    ("coral_warriors", "coral_reef", ["hide.success_min=8"]),       # 1 + 1 + own 2: 1/2
    ("tritons_on_seahorses", "kelp_forest", ["hide.success_min=9"]),  # 1 + 2 + own 1: 1/3
    ("merman_assassin", "ruins", ["hide.success_min=9"]),           # 3 + 1: 1/3
])
def test_hide_roll_matches_the_odds(unit, terrain, sets, new_state):
    s = new_state(overrides=sets, fill=terrain, seed=SEED)
    i = s.add(unit, "king", (2, 2))
    u = s.u
    ok = 0
    for _ in range(N):
        u[i, B.UC_HIDDEN] = 0
        K.do_hide(s.scr, s.dat, i)
        ok += int(u[i, B.UC_HIDDEN])
    exact = answer("atlantis", "hide", unit=unit, terrain=terrain, sets=sets).rows[0]["p"]
    assert 0 < exact < 1
    assert binom_pvalue(ok, N, exact) > ALPHA


# ---- the oracle has power ----------------------------------------------------------------

def test_a_planted_hit_face_fails_the_oracle(new_state):
    """A kernel that also hit on a 2 (mask {1,2}) is caught against the odds' {1}."""
    s = new_state(seed=SEED)
    s.rule("hit_mask", float((1 << 1) | (1 << 2)))
    res = answer("atlantis", "damage", ad=4)
    assert chi2_pvalue(hits(s, 4), damage_law(res)) < 1e-9


def test_a_search_threshold_off_by_one_fails_the_oracle(new_state):
    s = new_state(overrides=("combat.search_min=4",), seed=SEED)
    a = s.add("sea_knights", "king", (2, 2))
    t = s.add("locathah", "witch", (3, 2), hidden=True)
    ok = 0
    for _ in range(N):
        s.u[a, B.UC_SEARCHED] = 0
        ok += bool(K.search(s.scr, s.dat, a, t))
    default = next(r["p"] for r in answer("atlantis", "specials").rows
                   if r["roll"].startswith("search"))
    assert binom_pvalue(ok, N, default) < 1e-9
