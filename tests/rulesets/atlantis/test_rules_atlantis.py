"""Atlantis rules, one test per rule (AT-*) or reading (AMB-T*), on hand-built states.

Each test places units on a small map (a state from the ``new_state`` fixture of this
folder's conftest.py), fixes the d6 results the kernel will roll (``State.dice``) and checks
the rulebook's outcome, usually with a roll that must succeed and one that must fail, so a
wrong threshold or a missing rule fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from deepsim.rulesets.atlantis import RULESET, bots
from deepsim.rulesets.atlantis import board as B
from deepsim.rulesets.atlantis import kernel as K
from deepsim.rulesets.atlantis import layout as L

HIT56 = ("combat.hit_faces=[5,6]",)

# computed from the layout exactly as conftest.py computes them (test modules import no
# test helpers): terrain index by name, and the knobs of the bot of every new_state (all
# zero: tests switch on what they need)
TERRAIN = {name: i for i, name in enumerate(L.TERRAINS)}
STILL = {k: 0.0 for k in L.KNOBS}


def attack(s, i: int, j: int) -> None:
    K.do_attack(s.scr, s.dat, s.kn, i, j)


def attacks(s) -> np.ndarray:
    return s.kinds(L.EV_ATTACK)


# ---------------------------------------------------------------------------------------
# movement (AT-M1..M8)
# ---------------------------------------------------------------------------------------

def test_move_costs_and_impassable_hexes(new_state):
    """AT-M1 each hex costs its terrain's moves; AT-M8 Mountain/Land/Shoreline are closed."""
    s = new_state(7, 3)
    i = s.add("sea_knights", "king", (0, 1))             # MV 4
    s.terrain((1, 1), "kelp_forest")                     # cost 2
    s.terrain((2, 1), "mountain_peaks")
    s.terrain((2, 0), "land")
    s.terrain((2, 2), "shoreline")
    r = s.reach(i, 4)
    assert r[(0, 1)] == 0
    assert r[(1, 1)] == 2                                # kelp costs 2
    assert r[(1, 0)] == 1 and r[(1, 2)] == 1
    for closed in ((2, 1), (2, 0), (2, 2)):
        assert closed not in r
    assert all(cost <= 4 for cost in r.values())
    assert (3, 1) not in r                               # the wall of closed hexes
    r2 = s.reach(i, 1)
    assert (1, 1) not in r2                              # 2-cost hex needs 2 moves


def test_entry_keys_follow_the_terrain_table(new_state):
    """AT-M1, M5, M7, M8 as ``reach`` reads them: each terrain's entry key for a small and
    a Large unit is -1 where it may not enter, else its cost with the entry effects."""
    s = new_state(7, 3)
    terrain = s.dat[B.D_TERRAIN]
    for name, t in TERRAIN.items():
        for large in (0, 1):
            e = B.entry_key(terrain, t, large)
            closed = (terrain[t, L.T_PASSABLE] == 0
                      or (large == 1 and terrain[t, L.T_LARGE_OK] == 0))
            assert (e < 0) == closed, name
            if not closed:
                assert e >> B.E_SHIFT == terrain[t, L.T_COST], name
                assert bool(e & B.E_DEATH) == (terrain[t, L.T_ENTRY_DEATH] == 1), name
                assert bool(e & B.E_ATTACK) == (terrain[t, L.T_ENTRY_ATTACK] > 0), name
    assert B.entry_key(terrain, TERRAIN["kelp_forest"], 1) == -1        # AT-M5
    assert B.entry_key(terrain, TERRAIN["lava_flow"], 0) & B.E_DEATH        # AT-M7
    s.terrain((3, 1), "kelp_forest")
    assert entry_is_fresh(s)
    assert s.scr[B.X_ENTRY][0, s.cell((3, 1))] >> B.E_SHIFT == 2
    assert s.scr[B.X_ENTRY][1, s.cell((3, 1))] == -1
    # AT-E1 hazards next door, as the bots score a hex: each neighbour of a Lava hex has
    # the attack bit of its direction towards it, of a Vortex the death-face bit
    adj = s.scr[B.X_ENTRY][B.ER_ADJ]
    assert (adj == 0).all()
    s.terrain((3, 1), "lava_flow")
    s.terrain((5, 1), "vortex")
    assert entry_is_fresh(s)
    for pos, bit in (((3, 1), 1), ((5, 1), 0)):
        for d in range(6):
            n = s.neighbor(pos, d)
            back = [e for e in range(6) if s.neighbor(n, e) == pos]
            assert len(back) == 1
            assert (adj[s.cell(n)] >> (2 * back[0] + bit)) & 1, (pos, d)
    assert adj[s.cell((0, 1))] == 0 and adj[s.cell((3, 1))] == 0
    s.terrain((3, 1), "open_ocean")
    assert entry_is_fresh(s) and adj[s.cell((2, 1))] == 0


def entry_is_fresh(s) -> bool:
    """Does ``X_ENTRY`` equal a rebuild from ``X_TER`` (what every writer must keep)?"""
    kept = s.scr[B.X_ENTRY].copy()
    B.rebuild_entry(s.scr, s.dat)
    return bool(np.array_equal(kept, s.scr[B.X_ENTRY]))


def test_unused_moves_are_saved_for_the_second_swim(new_state):
    """AT-M1: the moves a unit does not use in the First Swim are its Second Swim budget."""
    s = new_state(9, 3)
    i = s.add("sword_fish", "king", (0, 1))              # MV 5
    s.add("sea_witch", "witch", (4, 1))
    s.set_knobs(dict(STILL, advance=1.0))
    K.swim_phase(s.scr, s.dat, s.kn, L.KING, 1)
    moved = s.kinds(L.EV_MOVE)
    assert len(moved) == 1
    cost = moved[0, 7]
    assert s.at(i) == (3, 1)                             # adjacent to the enemy leader
    assert cost == 3 and s.u[i, B.UC_SAVED] == 5 - cost
    r = s.reach(i, int(s.u[i, B.UC_SAVED]))
    assert max(r.values()) <= 2
    # a unit that does not move keeps its whole MV for the Second Swim
    s2 = new_state(9, 3)
    j = s2.add("sword_fish", "king", (0, 1))
    K.swim_phase(s2.scr, s2.dat, s2.kn, L.KING, 1)
    assert s2.u[j, B.UC_SAVED] == 5


def test_no_moving_through_units_and_no_stacking(new_state):
    """AT-M2: friends and foes block paths and their hexes cannot be entered."""
    s = new_state(5, 3)
    i = s.add("sea_knights", "king", (0, 1))
    for pos in ((1, 0), (1, 1), (1, 2)):                 # a wall: friend, foe, friend
        s.add("mermen" if pos != (1, 1) else "locathah",
              "king" if pos != (1, 1) else "witch", pos)
    r = s.reach(i, 4)
    assert set(r) == {(0, 0), (0, 1), (0, 2)}
    assert (1, 1) not in r


def test_large_units_and_shallow_two_cost_terrain(new_state):
    """AT-M5: Large units may not enter shallow 2-cost hexes; deep 2-cost is allowed."""
    s = new_state(7, 1)
    i = s.add("sperm_whale", "king", (0, 0))             # Large, MV 4
    s.terrain((1, 0), "pack_ice")                        # deep, cost 2
    r = s.reach(i, 4)
    assert r[(1, 0)] == 2 and r[(2, 0)] == 3
    for shallow in ("kelp_forest", "sandy_surf", "coral_reef", "sea_temple", "sunken_ship"):
        s.terrain((1, 0), shallow)
        assert (1, 0) not in s.reach(i, 4), shallow
    s.terrain((1, 0), "sargasso")                        # deep 2-cost: allowed
    assert s.reach(i, 4)[(1, 0)] == 2
    s.terrain((1, 0), "mud_flats")                       # shallow 1-cost: allowed
    assert s.reach(i, 4)[(1, 0)] == 1
    j = s.add("sea_knights", "king", (6, 0))
    s.terrain((5, 0), "kelp_forest")
    assert s.reach(j, 4)[(5, 0)] == 2                    # small units may enter


def test_paralyzed_units_neither_move_nor_attack(new_state):
    """AT-M3 / AT-X10 / AT-A1: a Paralyzation counter stops moving and attacking."""
    s = new_state(7, 3)
    i = s.add("sea_knights", "king", (0, 1))
    s.add("locathah", "witch", (1, 1))
    j = s.add("sword_fish", "king", (3, 2))
    s.add("sea_witch", "witch", (6, 1))
    s.u[i, B.UC_PARA] = 1
    s.u[j, B.UC_PARA] = 1
    s.set_knobs(dict(STILL, advance=1.0))
    K.swim_phase(s.scr, s.dat, s.kn, L.KING, 1)
    assert s.at(j) == (3, 2) and len(s.kinds(L.EV_MOVE)) == 0
    s.dice(1, 1, 1, 1)
    K.attack_phase(s.scr, s.dat, s.kn, L.KING)
    assert len(attacks(s)) == 0
    s.u[i, B.UC_PARA] = 0                                # control: unparalyzed it attacks
    s.u[i, B.UC_ACTED] = 0
    K.attack_phase(s.scr, s.dat, s.kn, L.KING)
    assert len(attacks(s)) == 1


def test_moving_discards_the_hide_marker(new_state):
    """AT-M6: a unit that moves loses its Hide marker."""
    s = new_state(5, 1)
    i = s.add("merman_assassin", "king", (0, 0), hidden=True)
    s.reach(i, 3)
    K.move_along(s.scr, s.dat, i, s.cell((2, 0)))
    assert s.at(i) == (2, 0) and not s.hidden(i)


def test_entering_vortex_or_lava_destroys_the_unit(new_state):
    """AT-M7: a Vortex or Lava hex destroys a unit entering it (map hazard vs spell)."""
    s = new_state(5, 1)
    i = s.add("sea_knights", "king", (0, 0))
    s.terrain((2, 0), "vortex")
    r = s.reach(i, 4)
    assert (2, 0) in r and (3, 0) not in r               # may end there, not pass through
    K.move_along(s.scr, s.dat, i, s.cell((2, 0)))
    assert not s.alive(i)
    d = s.kinds(L.EV_DESTROYED)
    assert d[0, 6] == L.END_HAZARD and s.stat("king", L.S_HAZARD_LOSSES) == 1
    # Lava made by a Sea Witch spell: the loss is the spell's, credited to its caster
    s2 = new_state(5, 1)
    caster = s2.add("sea_hag", "witch", (4, 0))
    k = s2.add("sea_knights", "king", (0, 0))
    s2.terrain((1, 0), "lava_flow", spell_by=caster)
    s2.reach(k, 4)
    K.move_along(s2.scr, s2.dat, k, s2.cell((1, 0)))
    assert not s2.alive(k)
    assert s2.kinds(L.EV_DESTROYED)[0, 6] == L.END_SPELL
    assert s2.stat("witch", L.S_KILLS) == 1


def test_entering_whirl_pool_or_vent_triggers_a_one_die_attack(new_state):
    """AT-M7: Whirl Pool and Hydrothermal Vent attack an entering unit with 1 AD."""
    for terr in ("whirl_pool", "hydrothermal_vent"):
        s = new_state(4, 1)
        i = s.add("sea_knights", "king", (0, 0))             # DR 2
        s.terrain((1, 0), terr)
        s.reach(i, 4)
        s.dice(1)                                            # hit (face 1)
        K.move_along(s.scr, s.dat, i, s.cell((1, 0)))
        assert s.damage_of(i) == 1, terr
        s.reach(i, 4)
        K.move_along(s.scr, s.dat, i, s.cell((0, 0)))
        s.reach(i, 4)
        s.dice(2)                                            # miss
        K.move_along(s.scr, s.dat, i, s.cell((1, 0)))
        assert s.damage_of(i) == 1 and s.dice_left() == 0, terr


def test_siren_countered_unit_must_move_toward_the_siren(new_state):
    """AT-M4 / AMB-T8: every step closes on the Siren unit, full MV until adjacent."""
    s = new_state(9, 3)
    siren = s.add("siren", "king", (8, 1))
    i = s.add("barracuda", "witch", (1, 1))
    s.u[i, B.UC_SIREN] = 1
    s.u[i, B.UC_SIREN_SRC] = siren
    s.set_knobs(dict(STILL, advance=-5.0))                # the bot would rather flee
    K.swim_phase(s.scr, s.dat, s.kn, L.WITCH, 1)
    path = s.kinds(L.EV_MOVE)
    dist = s.dat[B.D_DIST]
    sc = s.cell((8, 1))
    d_prev = dist[s.cell((1, 1)), sc]
    for ev in path:
        assert dist[ev[6], sc] < d_prev
        d_prev = dist[ev[6], sc]
        assert ev[9] % 10 == 1
    assert len(path) == 4                                 # Barracuda MV 4, all used
    assert dist[s.cell(s.at(i)), sc] == 3
    # with the Siren adjacent the unit stays; it may not attack at all
    t = new_state(5, 1)
    sir = t.add("siren", "king", (1, 0))
    j = t.add("sea_troll", "witch", (0, 0))
    t.u[j, B.UC_SIREN] = 1
    t.u[j, B.UC_SIREN_SRC] = sir
    K.swim_phase(t.scr, t.dat, t.kn, L.WITCH, 1)
    assert t.at(j) == (0, 0)
    t.dice(1, 1, 1)
    K.attack_phase(t.scr, t.dat, t.kn, L.WITCH)
    assert len(attacks(t)) == 0


# ---------------------------------------------------------------------------------------
# attacks (AT-A1..A8)
# ---------------------------------------------------------------------------------------

def test_hit_faces_mask(new_state):
    """AT-A5 / AMB-T1: literal rule hits on 1 only; the alternative hits on 5-6."""
    s = new_state()
    s.dice(1, 5, 6, 2, 3, 1)
    hits, packed = K.roll_hits(s.scr, s.dat, 6)
    assert hits == 2
    s5 = new_state(overrides=HIT56)
    s5.dice(1, 5, 6, 2, 3, 1)
    hits5, _ = K.roll_hits(s5.scr, s5.dat, 6)
    assert hits5 == 2 and packed & 7 == 1
    s5.dice(5, 5, 6, 4)
    assert K.roll_hits(s5.scr, s5.dat, 4)[0] == 3


def test_damage_destroys_at_dr_and_attack_rolls_ad_dice(new_state):
    """AT-A4/A5: AD dice; damage markers stay; destroyed when damage >= DR."""
    s = new_state()
    a = s.add("sea_knights", "king", (2, 2))              # AD 4
    d = s.add("crab_men_raiders", "witch", (3, 2))        # DR 2
    s.dice(1, 3, 4, 6)
    attack(s, a, d)
    assert attacks(s)[-1, 7] == 4 and s.damage_of(d) == 1 and s.alive(d)
    s.dice(1, 2, 3, 4)
    attack(s, a, d)
    assert not s.alive(d)
    assert s.stat("king", L.S_KILLS) == 1 and s.stat("witch", L.S_UNITS_LOST) == 1


def test_adjacent_only_and_ranged_attacks(new_state):
    """AT-A1 adjacent targets; AT-X5 / AMB-T4 Ranged reaches 1-2 (or only 2)."""
    s = new_state(7, 1)
    x = s.add("mer_crossbowmen", "king", (0, 0))
    m = s.add("mermen", "king", (4, 0))
    t1 = s.add("locathah", "witch", (1, 0))
    t2 = s.add("locathah", "witch", (2, 0))
    t3 = s.add("locathah", "witch", (3, 0))
    n, _ = K.legal_targets(s.scr, s.dat, x, False)
    assert set(s.scr[B.X_ITMP][:n]) == {t1, t2}
    n, _ = K.legal_targets(s.scr, s.dat, m, False)
    assert set(s.scr[B.X_ITMP][:n]) == {t3}
    s2 = new_state(7, 1, overrides=("combat.ranged_min=2",))
    x2 = s2.add("mer_crossbowmen", "king", (0, 0))
    s2.add("locathah", "witch", (1, 0))
    u2 = s2.add("locathah", "witch", (2, 0))
    n, _ = K.legal_targets(s2.scr, s2.dat, x2, False)
    assert list(s2.scr[B.X_ITMP][:n]) == [u2]


def test_line_of_sight_option(new_state):
    """AMB-T5: with los on, an impassable hex or a unit between blocks a range-2 attack."""
    for los, expect in (("false", True), ("true", False)):
        s = new_state(5, 1, overrides=(f"combat.los={los}",))
        x = s.add("mer_crossbowmen", "king", (0, 0))
        t = s.add("locathah", "witch", (2, 0))
        s.terrain((1, 0), "mountain_peaks")
        n, _ = K.legal_targets(s.scr, s.dat, x, False)
        assert (t in s.scr[B.X_ITMP][:n]) == expect


def test_martyr_forces_adjacent_attackers(new_state):
    """AT-X6 / AMB-T20: an adjacent enemy Martyr is the only legal target."""
    s = new_state(5, 5)
    a = s.add("sea_serpent", "witch", (2, 2))
    g = s.add("mermen_honor_guard", "king", (3, 2))
    s.add("sea_king", "king", (1, 2))
    n, forced = K.legal_targets(s.scr, s.dat, a, False)
    assert forced and list(s.scr[B.X_ITMP][:n]) == [g]
    # a ranged attacker 2 hexes from the Martyr is free (martyr_forces_ranged off)
    s2 = new_state(6, 1)
    hg = s2.add("mermen_honor_guard", "king", (2, 0))
    cb = s2.add("sahuagin", "witch", (0, 0))
    tgt = s2.add("mermen", "king", (1, 0))
    n, forced = K.legal_targets(s2.scr, s2.dat, cb, False)
    assert not forced and list(s2.scr[B.X_ITMP][:n]) == [tgt]
    assert hg not in s2.scr[B.X_ITMP][:n]


def test_search_roll_against_hidden_units(new_state):
    """AT-A3: a hidden target is attacked only after a 5-6; AMB-T2 a failed search ends it."""
    s = new_state()
    a = s.add("sea_knights", "king", (2, 2))
    h = s.add("locathah", "witch", (3, 2), hidden=True)
    s.dice(4)                                             # search fails
    attack(s, a, h)
    assert len(attacks(s)) == 0 and s.kinds(L.EV_SEARCH)[0, 7] == 0
    s.u[a, B.UC_SEARCHED] = 0
    s.dice(5, 1, 1, 1, 1)                                 # search succeeds, then 4 dice
    attack(s, a, h)
    assert len(attacks(s)) == 1 and not s.alive(h)
    # one search per unit per turn
    s3 = new_state()
    a3 = s3.add("sea_knights", "king", (2, 2))
    h3 = s3.add("locathah", "witch", (3, 2), hidden=True)
    s3.dice(6, 2, 2, 2, 2)
    attack(s3, a3, h3)
    s3.dice(6, 1, 1, 1, 1)
    attack(s3, a3, h3)
    assert len(s3.kinds(L.EV_SEARCH)) == 1 and s3.alive(h3)


def test_failed_search_may_free_the_attack_when_configured(new_state):
    """AMB-T2 off: after a failed search the unit attacks a visible target instead."""
    s = new_state(overrides=("combat.failed_search_consumes_attack=false",))
    a = s.add("sea_knights", "king", (2, 2))
    h = s.add("locathah", "witch", (3, 2), hidden=True)
    v = s.add("locathah", "witch", (1, 2))
    s.dice(3, 1, 2, 2, 2)
    attack(s, a, h)
    att = attacks(s)
    assert len(att) == 1 and att[0, 5] == v and not s.alive(v) and s.alive(h)


def test_search_does_not_reveal_unless_configured(new_state):
    """AMB-T3: a successful search leaves the Hide marker (search_reveals true removes it)."""
    for rev, still_hidden in (("false", True), ("true", False)):
        s = new_state(overrides=(f"combat.search_reveals={rev}",))
        a = s.add("sea_knights", "king", (2, 2))
        h = s.add("leviathan", "witch", (3, 2), hidden=True)
        s.dice(6, 2, 2, 2, 2)
        attack(s, a, h)
        assert s.hidden(h) == still_hidden


def test_attack_dice_modifiers(new_state):
    """AT-A4: +2 vs paralyzed, +2 (+1 Assassin) hidden attacker, who then loses the marker."""
    s = new_state()
    a = s.add("merman_assassin", "king", (2, 2), hidden=True)   # AD 2, hidden_ad +1
    t = s.add("leviathan", "witch", (3, 2))
    assert K.attack_pool(s.scr, s.dat, a) == 5
    s.u[t, B.UC_PARA] = 1
    assert K.attack_dice(s.scr, s.dat, a, t, 5) == 7
    s.dice(*([2] * 7))
    attack(s, a, t)
    assert attacks(s)[-1, 7] == 7 and not s.hidden(a)
    k = s.add("sea_knights", "king", (3, 3), hidden=True)        # no hidden_ad
    assert K.attack_pool(s.scr, s.dat, k) == 6


def test_temple_and_spawning_bed_bonus(new_state):
    """AMB-T9: +1 AD for a Sea King unit in a Sea Temple / Sea Witch unit on a Spawning Bed
    (attacker in the hex by default; target_in_hex and either as options)."""
    s = new_state()
    k = s.add("sea_knights", "king", (2, 2))
    w = s.add("locathah", "witch", (3, 2))
    s.terrain((2, 2), "sea_temple")
    s.terrain((3, 2), "spawning_bed")
    assert K.attack_pool(s.scr, s.dat, k) == 5
    assert K.attack_pool(s.scr, s.dat, w) == 3            # a Witch unit on its bed
    s.terrain((2, 2), "spawning_bed")
    assert K.attack_pool(s.scr, s.dat, k) == 4            # not the King's bonus hex
    t = new_state(overrides=("combat.temple_bonus_scope=target_in_hex",))
    k2 = t.add("sea_knights", "king", (2, 2))
    w2 = t.add("locathah", "witch", (3, 2))
    t.terrain((3, 2), "sea_temple")
    assert K.attack_pool(t.scr, t.dat, k2) == 4
    assert K.attack_dice(t.scr, t.dat, k2, w2, 4) == 5


def test_upwelling_penalty_and_its_floor(new_state):
    """AT-A4 / AMB-T24: -1 AD into or out of Upwelling/Whirl Pool, never below 1 (floor only
    against the penalty by default; 'all' floors the final dice)."""
    s = new_state()
    a = s.add("siren", "king", (2, 2))                     # AD 1
    b = s.add("sea_knights", "king", (1, 1))               # AD 4
    t = s.add("leviathan", "witch", (3, 2))
    s.terrain((3, 2), "upwelling")
    assert K.attack_dice(s.scr, s.dat, a, t, 1) == 1       # floored at 1
    assert K.attack_dice(s.scr, s.dat, b, t, 4) == 3
    s.terrain((3, 2), "open_ocean")
    s.terrain((2, 2), "whirl_pool")                        # out of the hex
    assert K.attack_dice(s.scr, s.dat, a, t, 3) == 2
    s.u[t, B.UC_PARA] = 1
    assert K.attack_dice(s.scr, s.dat, a, t, 1) == 3       # max(1, 1-1) + 2
    s2 = new_state(overrides=("combat.penalty_floor_scope=all",))
    a2 = s2.add("siren", "king", (2, 2))
    t2 = s2.add("leviathan", "witch", (3, 2))
    s2.terrain((2, 2), "whirl_pool")
    s2.u[t2, B.UC_PARA] = 1
    assert K.attack_dice(s2.scr, s2.dat, a2, t2, 1) == 2   # max(1, 1 + 2 - 1)


def test_hide_roll_with_hide_factor_and_terrain(new_state):
    """AT-A7: 1d6 + HF + terrain bonus (+ own terrain bonus) >= 5; AMB-T6 HF '-'."""
    s = new_state()
    m = s.add("mermen", "king", (2, 2))                   # HF +1
    s.terrain((2, 2), "kelp_forest")                      # +2
    s.dice(1)
    K.do_hide(s.scr, s.dat, m)                            # 1 + 3 = 4: fails
    assert not s.hidden(m)
    s.dice(2)
    K.do_hide(s.scr, s.dat, m)                            # 2 + 3 = 5: hides
    assert s.hidden(m)
    c = s.add("coral_warriors", "king", (4, 4))           # HF +1, +2 more in Coral
    s.terrain((4, 4), "coral_reef")                       # +1
    s.dice(1)
    K.do_hide(s.scr, s.dat, c)                            # 1 + 4 = 5
    assert s.hidden(c)
    assert s.stat("king", L.S_HIDES_TRIED) == 3 and s.stat("king", L.S_HIDES_OK) == 2
    k = s.add("sea_knights", "king", (0, 0))              # HF "-"
    assert B.can_hide(s.scr, s.dat, k)
    s2 = new_state(overrides=("hide.dash_can_hide=false",))
    k2 = s2.add("sea_knights", "king", (0, 0))
    assert not B.can_hide(s2.scr, s2.dat, k2)


def test_hide_odds_match_the_rulebook_over_many_rolls(new_state):
    """AT-A7 odds with total modifier m: 1/3, 1/2, 2/3 for m = 0, 1, 2 (random dice)."""
    s = new_state(3, 1)
    knight = s.add("sea_knights", "king", (0, 0))        # m = 0
    merman = s.add("mermen", "king", (1, 0))             # m = 1
    elf = s.add("aquatic_elves", "king", (2, 0))         # m = 2
    n = 6000
    ok = {knight: 0, merman: 0, elf: 0}
    for _ in range(n):
        for i in ok:
            s.u[i, B.UC_HIDDEN] = 0
            K.do_hide(s.scr, s.dat, i)
            ok[i] += s.hidden(i)
    for i, p in ((knight, 1 / 3), (merman, 1 / 2), (elf, 2 / 3)):
        assert abs(ok[i] / n - p) < 4 * np.sqrt(p * (1 - p) / n)


# ---------------------------------------------------------------------------------------
# special effects (AT-X1..X9)
# ---------------------------------------------------------------------------------------

def test_poison_destroys_whatever_the_dr(new_state):
    """AT-X1: one point of damage from a poisonous unit destroys the target."""
    s = new_state()
    p = s.add("sea_snakes", "witch", (2, 2))              # AD 1, Poison
    lev = s.add("sea_dragon", "king", (3, 2))             # DR 5
    s.dice(2)
    attack(s, p, lev)
    assert s.alive(lev)
    s.dice(1)
    attack(s, p, lev)
    assert not s.alive(lev)
    d = s.kinds(L.EV_DESTROYED)
    assert d[0, 6] == L.END_POISON and s.stat("witch", L.S_POISON_KILLS) == 1


def test_sting_and_shock_paralyze_on_a_hit(new_state):
    """AT-X2 / AMB-T18: a hitting Sting/Shock attack also gives one Paralyzation counter."""
    for name in ("manta_rays", "moray_eels"):
        s = new_state()
        a = s.add(name, "witch", (2, 2))
        t = s.add("giant_sea_turtle", "king", (3, 2))
        ad = s.dat[B.D_UNITS][s.type_of(name), L.U_AD]
        s.dice(*([2] * ad))
        attack(s, a, t)
        assert s.paralysis(t) == 0, name
        s.dice(*([1] * ad))
        attack(s, a, t)
        assert s.damage_of(t) >= 1 and s.paralysis(t) == 1, name


def test_entangle_paralyzes_and_releases_when_the_entangler_moves_away(new_state):
    """AT-X3 / AMB-T21: Entangle on 1-4; only that entangler's counter goes when it leaves."""
    s = new_state(7, 3)
    o = s.add("giant_octopus", "witch", (2, 1))           # Entangle, Split, AD 3
    t = s.add("sea_knights", "king", (3, 1))
    s.dice(5)                                             # Entangle fails
    K.do_specials(s.scr, s.dat, s.kn, o, -1)
    assert s.paralysis(t) == 0
    s.dice(4)                                             # Entangle succeeds
    K.do_specials(s.scr, s.dat, s.kn, o, -1)
    assert s.paralysis(t) == 1 and s.u[t, B.UC_NENT] == 1
    s.u[t, B.UC_PARA] += 1                                # a Net counter from elsewhere
    assert s.dat[B.D_DIST][s.cell((3, 0)), s.cell((3, 1))] == 1
    K.step_to(s.scr, s.dat, o, s.cell((3, 0)))            # still adjacent: stays
    assert s.paralysis(t) == 2
    K.step_to(s.scr, s.dat, o, s.cell((2, 0)))            # moved away
    assert s.paralysis(t) == 1 and s.u[t, B.UC_NENT] == 0
    # entangle_release=all: every counter of the target goes
    s2 = new_state(7, 3, overrides=("specials.entangle_release=all",))
    o2 = s2.add("giant_octopus", "witch", (2, 1))
    t2 = s2.add("sea_knights", "king", (3, 1))
    s2.dice(1)
    K.do_specials(s2.scr, s2.dat, s2.kn, o2, -1)
    s2.u[t2, B.UC_PARA] += 1
    K.step_to(s2.scr, s2.dat, o2, s2.cell((1, 1)))
    assert s2.paralysis(t2) == 0


def test_mesmerize_reaches_two_hexes(new_state):
    """AT-X4: Mesmerize targets one enemy within 2 hexes, counter on 1-4."""
    s = new_state(7, 1)
    n = s.add("giant_nautilus", "king", (0, 0))
    t = s.add("locathah", "witch", (2, 0))
    s.dice(4)
    K.do_specials(s.scr, s.dat, s.kn, n, -1)
    assert s.paralysis(t) == 1
    s2 = new_state(7, 1)
    n2 = s2.add("giant_nautilus", "king", (0, 0))
    t2 = s2.add("locathah", "witch", (3, 0))             # 3 hexes: out of range
    s2.dice(1)
    K.do_specials(s2.scr, s2.dat, s2.kn, n2, -1)
    assert s2.paralysis(t2) == 0 and s2.dice_left() == 1
    s3 = new_state(7, 1)
    n3 = s3.add("giant_nautilus", "king", (0, 0))
    t3 = s3.add("locathah", "witch", (1, 0))
    s3.dice(5)
    K.do_specials(s3.scr, s3.dat, s3.kn, n3, -1)
    assert s3.paralysis(t3) == 0


def test_net_paralyzes_adjacent_on_one_to_three(new_state):
    """AT-X8: Net gives an adjacent enemy a Paralyzation counter on 1-3."""
    for die, expect in ((3, 1), (4, 0)):
        s = new_state(5, 1)
        r = s.add("mermen_retaria", "king", (0, 0))
        t = s.add("locathah", "witch", (1, 0))
        s.dice(die)
        K.do_specials(s.scr, s.dat, s.kn, r, -1)
        assert s.paralysis(t) == expect
    s = new_state(5, 1)
    r = s.add("sahuagin", "witch", (0, 0))
    t = s.add("mermen", "king", (2, 0))                  # not adjacent
    s.dice(1)
    K.do_specials(s.scr, s.dat, s.kn, r, -1)
    assert s.paralysis(t) == 0


def test_sirens_call_gives_siren_counters_within_two(new_state):
    """AT-X7: each enemy within 2 hexes rolls; 1-3 gives a Siren counter from this unit."""
    s = new_state(7, 1)
    m = s.add("morkoth", "witch", (3, 0))
    a = s.add("mermen", "king", (1, 0))                   # 2 hexes
    b = s.add("mermen", "king", (4, 0))                   # adjacent
    c = s.add("mermen", "king", (6, 0))                   # 3 hexes: no roll
    s.dice(3, 4)
    K.do_specials(s.scr, s.dat, s.kn, m, -1)
    assert s.u[a, B.UC_SIREN] == 1 and s.u[a, B.UC_SIREN_SRC] == m
    assert s.u[b, B.UC_SIREN] == 0 and s.u[c, B.UC_SIREN] == 0
    assert s.dice_left() == 0
    assert not B.can_attack(s.scr, s.dat, a)


def test_split_divides_the_dice_among_adjacent_enemies(new_state):
    """AT-A6 / AMB-T19: a Split unit may share its AD among several adjacent enemies."""
    s = new_state(overrides=HIT56)
    s.set_knobs(dict(STILL, focus_value=1.0))
    k = s.add("kraken", "witch", (2, 2))                  # AD 6, Split
    t1 = s.add("mermen", "king", (3, 2))                  # DR 1
    t2 = s.add("mermen", "king", (1, 2))
    s.dice(*([2] * 6))
    attack(s, k, t1)
    att = attacks(s)
    assert len(att) == 2 and set(att[:, 5]) == {t1, t2}
    assert att[:, 7].sum() == 6
    # a unit without Split puts all its dice on one target
    s2 = new_state(overrides=HIT56)
    a = s2.add("leviathan", "witch", (2, 2))
    u1 = s2.add("mermen", "king", (3, 2))
    s2.add("mermen", "king", (1, 2))
    s2.dice(*([2] * 5))
    attack(s2, a, u1)
    assert len(attacks(s2)) == 1 and attacks(s2)[0, 7] == 5


# ---------------------------------------------------------------------------------------
# End phase (AT-E1..E3)
# ---------------------------------------------------------------------------------------

def test_current_pushes_once_and_blocked_stays(new_state):
    """AT-E1 / AMB-T17: a Current moves a unit 1 hex along its arrow once per turn."""
    s = new_state(6, 1)
    s.terrain((1, 0), "current", current=0)               # east
    s.terrain((2, 0), "current", current=0)
    i = s.add("mermen", "king", (1, 0), hidden=True)
    s.active("king")
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.at(i) == (2, 0) and not s.hidden(i)          # one push only; hide lost
    s.g[B.GS_TURN] += 1
    s.add("locathah", "witch", (3, 0))                    # blocks the next push
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.at(i) == (2, 0)
    # pushed into a Vortex: destroyed
    s2 = new_state(6, 1)
    s2.terrain((1, 0), "river_outflow", current=0)
    s2.terrain((2, 0), "vortex")
    j = s2.add("mermen", "king", (1, 0))
    s2.dice(6, 6)
    K.end_phase(s2.scr, s2.dat, s2.kn, L.KING)
    assert not s2.alive(j)


def test_bots_do_not_stay_where_a_current_pushes_them_next_to_a_vortex(new_state):
    """AT-E1 (bots): a unit left on a Current is pushed in the End phase; the heuristic
    bots score the hex it will be pushed to (Vortex/Lava entry, Vortex/Lava next door),
    so they do not park on a current that carries them into or next to a Vortex."""
    for target, vortex in (((3, 1), (4, 1)), ((3, 1), (3, 1))):
        s = new_state(7, 3)
        s.terrain((2, 1), "current", current=0)           # east, to (3,1)
        s.terrain(vortex, "vortex")
        i = s.add("mermen", "king", (2, 1))
        s.add("sea_witch", "witch", (6, 2))
        s.active("king")
        K.swim_phase(s.scr, s.dat, s.kn, L.KING, 1)       # moves left: may stay for now
        K.swim_phase(s.scr, s.dat, s.kn, L.KING, 2)       # last chance to step off
        assert s.alive(i) and s.at(i) != (2, 1)


def test_vortex_adjacency_and_lava_attacks_in_the_end_phase(new_state):
    """AT-E1: next to a Vortex destroyed on a 1; next to Lava a 1 AD attack."""
    for die, dead in ((1, True), (2, False)):
        s = new_state(5, 1)
        s.terrain((2, 0), "vortex")
        i = s.add("leviathan", "witch", (1, 0))
        s.dice(die)
        K.end_phase(s.scr, s.dat, s.kn, L.WITCH)
        assert s.alive(i) != dead
    s = new_state(5, 1)
    s.terrain((2, 0), "lava_flow")
    i = s.add("leviathan", "witch", (1, 0))
    j = s.add("leviathan", "witch", (3, 0))
    s.dice(1, 4)
    K.end_phase(s.scr, s.dat, s.kn, L.WITCH)
    assert s.damage_of(i) == 1 and s.damage_of(j) == 0


def test_end_phase_terrain_scope(new_state):
    """AMB-T7: by default only the active side's units suffer End-phase terrain."""
    for scope, expect_rolls in (("active", 0), ("all", 1)):
        s = new_state(5, 1, overrides=(f"end.terrain_scope={scope}",))
        s.terrain((2, 0), "vortex")
        i = s.add("mermen", "king", (1, 0))
        s.dice(1)
        K.end_phase(s.scr, s.dat, s.kn, L.WITCH)
        assert len(s.kinds(L.EV_TERRAIN_END)) == expect_rolls
        assert s.alive(i) == (expect_rolls == 0)


def test_recovery_removes_one_counter_on_one_to_four(new_state):
    """AT-E3: each active unit with counters may remove one on a d6 of 1-4."""
    s = new_state(5, 1)
    i = s.add("mermen", "king", (0, 0))
    j = s.add("mermen", "king", (2, 0))
    e = s.add("locathah", "witch", (4, 0))
    s.u[i, B.UC_PARA] = 2
    s.u[j, B.UC_SIREN] = 1
    s.u[e, B.UC_PARA] = 1
    s.dice(4, 5)
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.paralysis(i) == 1 and s.u[j, B.UC_SIREN] == 1
    assert s.paralysis(e) == 1                            # not the active player's
    assert s.dice_left() == 0


# ---------------------------------------------------------------------------------------
# spells (§1.14)
# ---------------------------------------------------------------------------------------

def cast(s, i: int, spell: str, target) -> bool:
    k = [L.SPELLS[int(x)] for x in s.scr[B.X_CHITS][i, :s.u[i, B.UC_NCHITS]]].index(spell)
    tg = s.cell(target) if isinstance(target, tuple) else target
    return K.cast(s.scr, s.dat, s.kn, i, k, tg)


def test_creation_spell_makes_a_unit_for_the_caster(new_state):
    """Oyster: a Giant Oyster under the caster's control on an empty Clam Bed within 4."""
    s = new_state(7, 3)
    c = s.add("sea_hag", "witch", (0, 1), chits=("oyster",))
    s.terrain((4, 1), "clam_bed")
    s.terrain((6, 1), "clam_bed")
    assert not B.spell_cell_ok(s.scr, s.dat, c, L.SP_OYSTER, s.cell((6, 1)))   # 6 away
    assert not B.spell_cell_ok(s.scr, s.dat, c, L.SP_OYSTER, s.cell((3, 1)))   # not a bed
    n0 = s.g[B.GS_NSLOTS]
    assert cast(s, c, "oyster", (4, 1))
    j = n0
    assert s.g[B.GS_NSLOTS] == n0 + 1 and s.alive(j)
    assert s.names[s.u[j, B.UC_TYPE]] == "giant_oyster" and s.u[j, B.UC_SIDE] == L.WITCH
    assert s.scr[B.X_OCC][s.cell((4, 1))] == j
    assert s.u[c, B.UC_NCHITS] == 0                       # AMB-T10 chit spent
    s.add("mermen", "king", (6, 1))
    s.terrain((2, 1), "clam_bed")
    s.add("mermen", "king", (2, 1), hidden=True)          # AMB-T26: hidden still occupies
    assert not B.spell_cell_ok(s.scr, s.dat, c, L.SP_OYSTER, s.cell((2, 1)))


def test_terrain_spells_change_hexes(new_state):
    """Eruption (empty shallow -> Lava), Vortex (empty deep), Freeze (-> Pack Ice + 2)."""
    s = new_state(7, 3, fill="mud_flats")
    c = s.add("sea_witch", "witch", (0, 1), chits=("eruption", "vortex", "freeze"))
    t = s.add("sea_knights", "king", (3, 1))
    assert not B.spell_cell_ok(s.scr, s.dat, c, L.SP_ERUPTION, s.cell((3, 1)))  # occupied
    assert not B.spell_cell_ok(s.scr, s.dat, c, L.SP_VORTEX, s.cell((2, 1)))    # shallow
    assert cast(s, c, "eruption", (2, 1))
    assert s.scr[B.X_TER][s.cell((2, 1))] == L.TR_LAVA
    assert s.scr[B.X_TSRC][s.cell((2, 1))] == c
    s.terrain((2, 2), "open_ocean")
    assert cast(s, c, "vortex", (2, 2))
    assert s.scr[B.X_TER][s.cell((2, 2))] == L.TR_VORTEX
    assert entry_is_fresh(s)
    assert entry_is_fresh(s)                              # reach reads X_ENTRY
    lava = s.scr[B.X_ENTRY][0, s.cell((2, 1))]
    assert lava >= 0 and lava & B.E_DEATH                 # AT-M7: entering destroys
    assert cast(s, c, "freeze", (3, 1))
    assert s.scr[B.X_TER][s.cell((3, 1))] == L.TR_PACK_ICE and s.paralysis(t) == 2
    assert entry_is_fresh(s)


def test_tangle_kelp_gives_two_counters(new_state):
    s = new_state(7, 1)
    c = s.add("seamancer", "king", (0, 0), chits=("tangle_kelp",))
    t = s.add("kraken", "witch", (4, 0))
    assert cast(s, c, "tangle_kelp", (4, 0))
    assert s.paralysis(t) == 2 and s.stat("king", L.S_PARALYSES) == 2


def test_healing_pool_removes_damage_and_paralysis(new_state):
    """AMB-T16: 1d6 removals shared among friendly units within 3."""
    s = new_state(7, 1)
    c = s.add("sea_king", "king", (0, 0), damage=2, chits=("healing",))
    a = s.add("sea_knights", "king", (2, 0), damage=1)
    s.u[a, B.UC_PARA] = 1
    far = s.add("sea_knights", "king", (5, 0), damage=1)  # 5 hexes: out of range
    s.dice(3)
    assert cast(s, c, "healing", -1)
    assert s.damage_of(c) == 0                            # the leader first
    assert s.damage_of(a) + s.paralysis(a) == 1
    assert s.damage_of(far) == 1


def test_resurrection_returns_a_destroyed_unit_next_to_the_caster(new_state):
    """AMB-T15: full health, no chits, adjacent to the caster."""
    s = new_state(5, 3)
    c = s.add("nixies", "king", (2, 1), chits=("resurrection",))
    d = s.add("sea_dragon", "king", (4, 2), damage=3)
    K.destroy(s.scr, s.dat, d, L.END_ATTACK, -1)
    assert not s.alive(d)
    assert cast(s, c, "resurrection", d)
    assert s.alive(d) and s.damage_of(d) == 0
    assert s.dat[B.D_DIST][s.cell(s.at(d)), s.cell((2, 1))] == 1
    assert s.stat("king", L.S_RESURRECTIONS) == 1


def test_murky_depths_and_luminescence(new_state):
    """Murky Depths hides up to 3 friends within 3 (AMB-T13); Luminescence reveals within 4."""
    s = new_state(9, 1)
    c = s.add("sea_hag", "witch", (0, 0), chits=("murky_depths",))
    f = [s.add("locathah", "witch", (k, 0)) for k in (1, 2, 3, 4)]
    e = s.add("mermen", "king", (5, 0))
    assert cast(s, c, "murky_depths", -1)
    hidden = [s.hidden(x) for x in [c] + f]
    assert sum(hidden) == 3 and not s.hidden(e)
    t = new_state(9, 1)
    lc = t.add("sea_witch", "witch", (0, 0), chits=("luminescence",))
    near = t.add("mermen", "king", (4, 0), hidden=True)
    far = t.add("mermen", "king", (5, 0), hidden=True)
    assert cast(t, lc, "luminescence", -1)
    assert not t.hidden(near) and t.hidden(far)


def test_sirens_song_lasts_three_plus_d3_own_turns(new_state):
    """Sirens Song: Siren's Call for 3 + 1d3 of the caster's turns (AMB-T27)."""
    s = new_state(7, 1)
    c = s.add("aquatic_elves", "king", (0, 0), chits=("sirens_song",))
    t = s.add("locathah", "witch", (2, 0))
    s.dice(5)                                             # 1d3 = 3
    assert cast(s, c, "sirens_song", -1)
    assert s.u[c, B.UC_SONG] == 6
    s.dice(1)
    K.do_specials(s.scr, s.dat, s.kn, c, -1)              # now has Siren's Call
    assert s.u[t, B.UC_SIREN] == 1
    K.end_phase(s.scr, s.dat, s.kn, L.WITCH)              # not its turn: no countdown
    assert s.u[c, B.UC_SONG] == 6
    s.dice(6)                                             # locathah recovery roll unused
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.u[c, B.UC_SONG] == 5


def test_sirens_song_cast_in_the_end_phase_counts_from_the_next_turn(new_state):
    """Sirens Song cast in the End phase (AT-E2): the 3 + 1d3 turns are the caster's next
    own turns, in which it can use Siren's Call; the casting turn (its attack phase
    already over) does not count (AMB-T27)."""
    s = new_state(7, 1)
    s.set_knobs(dict(STILL, spell_aggr=1.0))
    c = s.add("aquatic_elves", "king", (0, 0), chits=("sirens_song",))
    s.add("locathah", "witch", (2, 0))
    s.dice(5)                                             # 1d3 = 3: 6 turns
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.stat("king", L.S_CAST0 + L.SP_SIRENS_SONG) == 1
    assert s.u[c, B.UC_SONG] == 6
    for _ in range(6):                                    # six own turns with the call
        K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.u[c, B.UC_SONG] == 0


def test_spells_are_cast_once_per_caster_and_not_when_paralyzed(new_state):
    """AT-E2 / AMB-T10: one spell per caster per End phase; paralyzed casters cannot."""
    s = new_state(7, 1)
    s.set_knobs(dict(STILL, spell_aggr=1.0))
    c = s.add("seamancer", "king", (0, 0), chits=("tangle_kelp", "tangle_kelp"))
    t = s.add("kraken", "witch", (3, 0))
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.u[c, B.UC_NCHITS] == 1 and s.paralysis(t) == 2
    s.u[c, B.UC_PARA] = 1
    s.dice(6)                                             # its recovery roll fails
    K.end_phase(s.scr, s.dat, s.kn, L.KING)
    assert s.u[c, B.UC_NCHITS] == 1


# ---------------------------------------------------------------------------------------
# victory, turn cap, setup
# ---------------------------------------------------------------------------------------

def test_killing_the_leader_ends_the_game_at_once(new_state):
    """AT-V1: the other side wins immediately; no further attack is made."""
    s = new_state(7, 3)
    a = s.add("sea_knights", "king", (2, 1))
    w = s.add("sea_witch", "witch", (3, 1), damage=4)
    b = s.add("sea_knights", "king", (5, 1))
    s.add("locathah", "witch", (6, 1))
    s.dice(1, 2, 2, 2, 1, 1, 1, 1)
    K.attack_phase(s.scr, s.dat, s.kn, L.KING)
    assert not s.alive(w) and s.g[B.GS_OVER] == 1 and s.g[B.GS_WINNER] == L.KING
    att = attacks(s)
    assert len(att) == 1 and att[0, 3] == a and b not in att[:, 3]
    gi = np.zeros((1, K.N_GAME_INT), np.int64)
    gf = np.zeros((1, K.N_GAME_FLT), np.float64)
    si = np.zeros((1, 2, len(L.SEAT_INT)), np.int64)
    sf = np.zeros((1, 2, K.N_SEAT_FLT), np.float64)
    K.write_outputs(s.scr, s.dat, 0, gi, gf, si, sf)
    assert gi[0, L.G_WINNER_SIDE] == L.KING and gi[0, L.G_END_CAUSE] == L.END_ATTACK
    assert gi[0, L.G_KILLER_TYPE] == s.type_of("sea_knights")


def _outputs(s):
    gi = np.zeros((1, K.N_GAME_INT), np.int64)
    gf = np.zeros((1, K.N_GAME_FLT), np.float64)
    si = np.zeros((1, 2, len(L.SEAT_INT)), np.int64)
    sf = np.zeros((1, 2, K.N_SEAT_FLT), np.float64)
    K.write_outputs(s.scr, s.dat, 0, gi, gf, si, sf)
    return gi[0], sf[0]


def test_the_safety_cap_leaves_the_game_unresolved(new_state):
    """AMB-T23: the rules have no turn limit and no draw (AT-V1: a game ends when a leader
    dies); the engine's invented cap end.max_turns stops a game the bots cannot finish: it
    has no winner and no seat wins (the Python side makes its wins NaN), and it is marked
    truncated, not adjudicated."""
    s = new_state(9, 9, overrides=("end.max_turns=6",))
    s.add("sea_witch", "witch", (0, 0))
    s.add("sea_king", "king", (8, 8))
    K.run_turns(s.scr, s.dat)
    assert s.g[B.GS_TURN] == 6 and s.g[B.GS_WINNER] == -1
    assert s.g[B.GS_CAUSE] == L.END_TURN_CAP and s.g[B.GS_ADJUDICATED] == 0
    gi, sf = _outputs(s)
    assert gi[L.G_TRUNCATED] == 1 and gi[L.G_ADJUDICATED] == 0 and gi[L.G_WINNER_SIDE] == -1
    assert (sf[:, L.SF_WIN] == 0).all()                    # never 0.5: it is no draw


def test_material_adjudication_is_opt_in_and_needs_a_leader_in_material(new_state):
    """AMB-T23 end.at_cap=material: the stopped game goes to the side with more material
    (AD x DR left of its survivors); equal material stays unresolved."""
    s = new_state(9, 9, overrides=("end.max_turns=4", "end.at_cap=material"))
    s.add("sea_witch", "witch", (0, 0))                      # 3 x 5 = 15
    s.add("sea_king", "king", (8, 8), damage=2)              # 5 x 3 = 15
    s.add("mermen", "king", (7, 8))                          # + 2 x 1: the King ahead
    K.run_turns(s.scr, s.dat)
    assert s.g[B.GS_CAUSE] == L.END_TURN_CAP and s.g[B.GS_WINNER] == L.KING
    gi, sf = _outputs(s)
    assert gi[L.G_TRUNCATED] == 1 and gi[L.G_ADJUDICATED] == 1
    assert sorted(sf[:, L.SF_WIN].tolist()) == [0.0, 1.0]
    level = new_state(9, 9, overrides=("end.max_turns=4", "end.at_cap=material"))
    level.add("sea_witch", "witch", (0, 0))
    level.add("sea_king", "king", (8, 8), damage=2)
    K.run_turns(level.scr, level.dat)
    assert level.g[B.GS_WINNER] == -1 and level.g[B.GS_ADJUDICATED] == 0


def test_stopped_games_are_unresolved_in_the_tables():
    """The contract (deepsim.rulesets.base.UNRESOLVED): a game the cap stops has win NaN on
    both seats, winner 'unresolved', outcome 'unresolved'; with end.at_cap=material the
    same games are adjudicated (win 1/0, adjudicated True, still truncated)."""
    sc = {"name": "cap", "ruleset": "atlantis", "players": 2, "seed": 3, "games": 20,
          "sides": {"sea_witch": {"bot": "defensive"}, "sea_king": {"bot": "defensive"}}}
    prep = RULESET.prepare(dict(sc), overrides=["end.max_turns=8"])
    games, seats = RULESET.run_chunk(prep, 0, 20)
    assert games["truncated"].all() and not games["adjudicated"].any()
    assert seats["win"].isna().all() and (games["winner"] == "unresolved").all()
    assert (seats["outcome"] == "unresolved").all()
    prep = RULESET.prepare(dict(sc), overrides=["end.max_turns=8", "end.at_cap=material"])
    g2, s2 = RULESET.run_chunk(prep, 0, 20)
    decided = g2["adjudicated"].to_numpy()
    assert g2["truncated"].all() and decided.any()
    assert (g2.loc[decided, "winner"] != "unresolved").all()
    per = s2.groupby("game")["win"].sum()
    assert (per[g2.loc[decided, "game"]] == 1.0).all()
    assert s2[s2["game"].isin(g2.loc[~decided, "game"])]["win"].isna().all()
    # the same games, the same material: adjudication decides who was ahead
    mat = g2.loc[decided]
    king = (mat["material_king"] > mat["material_witch"]).to_numpy()
    assert ((mat["winner"] == "Sea King").to_numpy() == king).all()


def test_a_hidden_unit_using_a_special_discards_its_hide_marker(new_state):
    """AMB-T28: the rulebook calls Net, Entangle, Mesmerize and Siren's Call attacks ("Net
    attack", "the unit that made the Siren attack"), and a hidden unit that attacks must
    discard its Hide marker (AT-A8): with specials.special_discards_hide (the default) a
    hidden Morkoth that calls the Sea King (no regular target in reach) is no longer hidden;
    with the reading off it keeps the marker."""
    for discards, still_hidden in (("true", False), ("false", True)):
        s = new_state(6, 3, overrides=(f"specials.special_discards_hide={discards}",))
        m = s.add("morkoth", "witch", (1, 1), hidden=True)       # Siren Song, AD 2
        king = s.add("sea_king", "king", (3, 1))                  # 2 hexes: no regular attack
        s.dice(1)                                                 # AT-X7: Siren on 1-3
        K.attack_phase(s.scr, s.dat, s.kn, L.WITCH)
        assert len(attacks(s)) == 0 and s.u[king, B.UC_SIREN] == 1
        assert s.hidden(m) == still_hidden
    # a regular attack after the special: it still gets the hidden bonus, then the marker
    # goes (AT-A4, AT-A8) whatever the reading
    for discards in ("true", "false"):
        s = new_state(5, 3, overrides=(f"specials.special_discards_hide={discards}",))
        net = s.add("sahuagin", "witch", (1, 1), hidden=True)   # AD 3, Nets
        s.add("sea_knights", "king", (2, 1))
        s.dice(2, 6, 6, 6, 6, 6, 6, 6)                           # Net on 1-3: paralyzed
        K.attack_phase(s.scr, s.dat, s.kn, L.WITCH)
        att = attacks(s)
        assert len(att) == 1 and att[0, 7] == 3 + 2 + 2 and not s.hidden(net)


def test_bots_keep_hiding_rather_than_use_a_special_without_an_attack(new_state):
    """Bots (not a rule), AMB-T28: a hidden heuristic unit that has no regular attack keeps
    its marker instead of using a special on an ordinary enemy (the special would discard
    it), but calls an enemy leader in reach; with the reading off nothing is lost and it
    uses the special."""
    for discards, used in (("true", False), ("false", True)):
        s = new_state(6, 3, overrides=(f"specials.special_discards_hide={discards}",))
        m = s.add("morkoth", "witch", (1, 1), hidden=True)
        s.add("sea_knights", "king", (3, 1))
        s.dice(1)
        K.attack_phase(s.scr, s.dat, s.kn, L.WITCH)
        assert (len(s.kinds(L.EV_SPECIAL)) > 0) == used and s.hidden(m)
        assert bots.keep_hidden(s.scr, s.dat, s.kn, m)
        s.add("sea_king", "king", (1, 2))                        # a leader within 2
        assert not bots.keep_hidden(s.scr, s.dat, s.kn, m)


def test_deployment_along_each_edge(new_state):
    """AT-S2 / AMB-T22: each side within its first deploy_rows rows, Large units on
    hexes they may enter, the leader on the back row; spill inward when the zone is full."""
    s = new_state(18, 14)
    for col in range(18):
        s.arrays.fixed_terrain[s.cell((col, 1))] = L.TR_KELP      # small units only
    for col in range(9):
        s.arrays.fixed_terrain[s.cell((col, 0))] = L.TR_LAND      # 9 + 18 hexes < 33
    K.setup(s.scr, s.dat)
    u = s.u
    units = s.dat[B.D_UNITS]
    ter = s.scr[B.X_TER]
    rows = {L.WITCH: [], L.KING: []}
    for i in range(s.g[B.GS_NSLOTS]):
        assert u[i, B.UC_ALIVE] == 1
        r = s.at(i)[1]
        rows[int(u[i, B.UC_SIDE])].append(r)
        t = u[i, B.UC_TYPE]
        if units[t, L.U_LARGE]:
            assert s.dat[B.D_TERRAIN][ter[u[i, B.UC_CELL]], L.T_LARGE_OK] == 1
        if units[t, L.U_LEADER]:
            assert r == (0 if u[i, B.UC_SIDE] == L.WITCH else 13)
    assert max(rows[L.KING]) == 13 and min(rows[L.KING]) == 12
    assert min(rows[L.WITCH]) == 0 and max(rows[L.WITCH]) == 2   # Large ones spill to row 2
    assert len(set(u[:s.g[B.GS_NSLOTS], B.UC_CELL])) == s.g[B.GS_NSLOTS]


def test_neutrals_only_defend(new_state):
    """AMB-T14: optional uncontrolled Brain Coral / Island Fish between the zones."""
    s = new_state(18, 14, overrides=("setup.neutrals_in_scenario=true",))
    K.setup(s.scr, s.dat)
    u = s.u
    neutral = [i for i in range(s.g[B.GS_NSLOTS]) if u[i, B.UC_SIDE] == L.NEUTRAL]
    assert len(neutral) == 2
    for i in neutral:
        assert 2 <= s.at(i)[1] <= 11
    k = s.add("sea_knights", "king", (0, 6))
    assert B.is_foe(u, k, neutral[0]) and not B.is_opponent(u, k, neutral[0])


def test_chits_drawn_from_the_common_pool(new_state):
    """AT-S3 / AT-C4: casters draw their chits from 2 of each spell; 20 of 28 drawn."""
    s = new_state(18, 14)
    K.setup(s.scr, s.dat)
    drawn = s.u[:s.g[B.GS_NSLOTS], B.UC_NCHITS].sum()
    assert drawn == 20
    left = s.scr[B.X_POOL]
    assert left.sum() == 8 and (left >= 0).all() and (left <= 2).all()
    counts = np.zeros(L.N_SPELLS, int)
    for i in range(s.g[B.GS_NSLOTS]):
        for k in range(s.u[i, B.UC_NCHITS]):
            counts[s.scr[B.X_CHITS][i, k]] += 1
    assert ((counts + left) == 2).all()


@pytest.mark.parametrize("faces,p", [("[1]", 1 / 6), ("[5,6]", 1 / 3)])
def test_damage_rate_matches_the_hit_rule(faces, p, new_state):
    """AMB-T1 statistically: mean hits per die is |faces| / 6 (random dice, many rolls)."""
    s = new_state(overrides=(f"combat.hit_faces={faces}",))
    n = 20000
    hits = sum(K.roll_hits(s.scr, s.dat, 5)[0] for _ in range(n // 5))
    assert abs(hits / n - p) < 4 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("style", ["aggressive", "defensive"])
def test_threatened_leader_backs_off_rather_than_hides_in_place(style, new_state):
    """Bots (both heuristic styles): a leader next to a strong enemy, with its moves saved
    for the Second Swim phase (AT-M1) and a free hex out of that enemy's reach, does not
    hide in place (the enemy could still find and strike it, AT-A3) but backs off out of
    reach. Here the Kraken (MV 3: reach 4 hexes) sits next to a damaged Sea King (MV 4, 4
    moves saved) on a Sunken Ship (+2 hide); the hexes east are out of its reach."""
    s = new_state(12, 3)
    row = s.arrays.knobs[list(s.prepared.compiled["bot_labels"]).index(style)]
    s.set_knobs({k: float(row[n]) for n, k in enumerate(L.KNOBS)})
    s.terrain((4, 1), "sunken_ship")
    s.add("sea_witch", "witch", (0, 0))
    kraken = s.add("kraken", "witch", (3, 1))
    king = s.add("sea_king", "king", (4, 1), damage=2)
    s.active("king")
    s.u[king, B.UC_SAVED] = 4                 # did not move in the First Swim phase
    K.compute_fields(s.scr, s.dat, L.KING)
    K.attack_phase(s.scr, s.dat, s.kn, L.KING)
    assert len(s.kinds(L.EV_HIDE)) == 0, s.log()
    K.swim_phase(s.scr, s.dat, s.kn, L.KING, 2)
    assert s.alive(king)
    # out of reach: no hex the Kraken can swim to next turn (the kernel's own path search)
    # is next to the Sea King
    here = s.at(king)
    assert here != (4, 1)
    nbrs = {s.pos(int(c)) for c in s.dat[B.D_NB][s.cell(here)] if c >= 0}
    assert not nbrs & set(s.reach(kraken, 3)), s.log()


def test_standoff_breaker_walks_around_a_wall_to_the_enemy_leader(new_state):
    """Bots (not a rule): after ``standoff_turns`` player-turns without an attack a unit
    advances on the enemy leader along passable water. Here a wall of Mountain Peaks
    (AT-M8) stands between a Sword Fish and the Sea Witch but for a gap at its east end:
    pressing on the hex distance keeps the fish at the wall; the breaker steers it to the
    gap (for Large units a shallow gap is closed). A side ahead on material
    (``standoff_lead``) breaks at once."""
    def game(quiet_turns, **knobs):
        s = new_state(9, 5)
        for col in range(8):
            s.terrain((col, 2), "mountain_peaks")
        fish = s.add("sword_fish", "king", (3, 4))        # MV 5
        s.add("sea_witch", "witch", (3, 0))
        s.g[B.GS_TURN] = 1 + quiet_turns                   # no attack yet (turn 0)
        s.set_knobs(dict(STILL, advance=1.0, **knobs))
        return s, fish

    s, fish = game(6, standoff_turns=8)                   # not yet a standoff
    assert not bots.breaking(s.scr, s.dat, s.kn, L.KING)
    K.swim_phase(s.scr, s.dat, s.kn, L.KING, 1)
    assert s.at(fish)[1] == 3 and s.g[B.GS_BREAKING] == 0  # pressed against the wall
    s, fish = game(8, standoff_turns=8)
    assert bots.breaking(s.scr, s.dat, s.kn, L.KING)
    K.swim_phase(s.scr, s.dat, s.kn, L.KING, 1)
    assert s.g[B.GS_BREAKING] == 1
    lead = s.scr[B.X_LEAD]                                # the Sword Fish is not Large
    assert lead[s.cell((3, 0))] == 0 and lead[s.cell((3, 3))] > 6   # round the wall
    assert lead[s.u[fish, B.UC_CELL]] < lead[s.cell((3, 4))]        # steps saved
    assert s.at(fish)[0] >= 6                                       # towards the gap
    s.terrain((8, 2), "kelp_forest")              # shallow, cost 2: closed to Large (AT-M5)
    bots.leader_paths(s.scr, s.dat, L.KING)
    assert lead[s.cell((3, 4))] > 0 and s.scr[B.X_LEAD_L][s.cell((3, 4))] == -1
    # ahead on material (AD x DR left): a side whose material over the other's has grown to
    # 1.25 x what it was when play began breaks at once; here both began at 100
    s, fish = game(0, standoff_turns=8, standoff_lead=0.25)
    s.g[B.GS_MAT0_W], s.g[B.GS_MAT0_K] = 100 * 100, 100 * 100
    assert not bots.breaking(s.scr, s.dat, s.kn, L.KING)     # the Sword Fish: 3 vs 15
    for col in (0, 1):
        s.add("sea_knights", "king", (col, 4))               # 3 + 2 x 8 = 19 vs 15
    assert bots.material(s.scr, s.dat, L.KING) == 19 and \
        bots.material(s.scr, s.dat, L.WITCH) == 15
    assert bots.breaking(s.scr, s.dat, s.kn, L.KING)
    assert not bots.breaking(s.scr, s.dat, s.kn, L.WITCH)
    s.g[B.GS_MAT0_K] = 130 * 100                             # the King began further ahead
    assert not bots.breaking(s.scr, s.dat, s.kn, L.KING)


def _full_leader_threat(s, i: int) -> tuple[np.ndarray, np.ndarray]:
    """``bots.leader_threat``'s two fields by their definition, searching every enemy's
    whole reach (plain Python): AD x hit chance once per hex an enemy free to act could
    attack after up to MV steps over passable, empty hexes (slot i's own counts as empty,
    Vortex/Lava never passed; AT-M2, M5, M7, M8); Ranged ones within MV + range. Poison
    units (AT-X1: one hit kills) in the second field, the rest in the first."""
    u, dat = s.u, s.dat
    units, nb, dist = dat[B.D_UNITS], dat[B.D_NB], dat[B.D_DIST]
    terrain, ter, occ = dat[B.D_TERRAIN], s.scr[B.X_TER], s.scr[B.X_OCC]
    mask = int(dat[B.D_RULES][L.R_HIT_MASK])
    p = sum((mask >> f) & 1 for f in range(1, 7)) / 6.0
    rmax = int(dat[B.D_RULES][L.R_RANGED_MAX])
    ci = u[i, B.UC_CELL]
    lmv = units[u[i, B.UC_TYPE], L.U_MV]
    fields = (np.zeros(len(ter)), np.zeros(len(ter)))
    for j in range(s.g[B.GS_NSLOTS]):
        t = u[j, B.UC_TYPE]
        if (not u[j, B.UC_ALIVE] or u[j, B.UC_SIDE] in (u[i, B.UC_SIDE], L.NEUTRAL)
                or s.paralysis(j) or u[j, B.UC_SIREN] or units[t, L.U_AD] <= 0):
            continue
        w = units[t, L.U_AD] * p
        thr = fields[1 if units[t, L.U_POISON] else 0]
        cj, mv = u[j, B.UC_CELL], units[t, L.U_MV]
        if dist[cj, ci] > mv + lmv + 1 + (rmax if units[t, L.U_RANGED] else 1):
            continue
        if units[t, L.U_RANGED]:
            thr[dist[cj] <= mv + rmax] += w
            continue
        hops, frontier, hit = {cj: 0}, [cj], set()
        while frontier:
            nxt = []
            for c in frontier:
                for d in range(6):
                    nc = nb[c, d]
                    if nc < 0:
                        continue
                    hit.add(nc)
                    tr = ter[nc]
                    if (hops[c] >= mv or nc in hops or not terrain[tr, L.T_PASSABLE]
                            or terrain[tr, L.T_ENTRY_DEATH]
                            or (units[t, L.U_LARGE] and not terrain[tr, L.T_LARGE_OK])
                            or occ[nc] not in (-1, i)):
                        continue
                    hops[nc] = hops[c] + 1
                    nxt.append(nc)
            frontier = nxt
        for c in sorted(hit):
            thr[c] += w
    return fields


def test_leader_danger_field_is_exact_within_the_leaders_reach(new_state):
    """Bots (not a rule): ``leader_threat`` stops an enemy's search where nothing it could
    reach or strike lies within the leader's MV + 1 (docs/performance.md, Atlantis third
    pass); there the field equals the whole search's, term for term, with near and far
    enemies, a Ranged and a Poison one, a paralyzed one, a wall, a shallow hex closed to
    Large units and the leader's own units in the way."""
    s = new_state(15, 11)
    for row in range(2, 9):
        s.terrain((9, row), "mountain_peaks")              # AT-M8 wall east of the leader
    for col in (4, 5, 6):
        s.terrain((col, 2), "kelp_forest")                 # AT-M5 shallow: no Large units
    s.terrain((3, 7), "vortex")                             # AT-M7 never passed
    leader = s.add("sea_witch", "witch", (6, 5))            # MV 3: read within 4 hexes
    s.add("giant_crab", "witch", (5, 4))
    s.add("hammerhead_sharks", "witch", (7, 6))
    for name, pos in (("sword_fish", (11, 5)), ("dolphin_riders", (1, 1)),
                      ("sea_dragon", (5, 0)), ("sperm_whale", (13, 9)),
                      ("mer_crossbowmen", (2, 8)), ("giant_lion_fish", (6, 8)),
                      ("sea_knights", (0, 5)), ("hippocampus_riders", (14, 0)),
                      ("mermen", (3, 6)), ("narwhale", (10, 1))):
        s.add(name, "king", pos)
    stuck = s.add("sea_knights", "king", (8, 3))
    s.u[stuck, B.UC_PARA] = 1                               # AT-X10: no attack next turn
    bots.leader_threat(s.scr, s.dat, leader)
    got, got_p = s.scr[B.X_LTHR], s.scr[B.X_LPOI]
    want, want_p = _full_leader_threat(s, leader)
    near = s.dat[B.D_DIST][s.u[leader, B.UC_CELL]] <= 3 + 1
    assert near.sum() > 40 and (want[near] > 0).sum() > 10 and (want_p[near] > 0).sum() > 3
    assert (got[near] == want[near]).all()                  # the same sums, bit for bit
    assert (got_p[near] == want_p[near]).all()              # the Lion Fish's, apart
    assert (got[~near] != want[~near]).any()                # the far part was cut short


def test_edge_moves_knob_scores_every_hex_off_and_the_edge_and_foes_on(new_state):
    """Bots (not a rule): the ``edge_moves`` approximation (issue 28; docs/performance.md,
    Atlantis fourth pass). Off (0, the exact bot) ``choose_move`` takes the first best of
    every reachable hex's ``cell_score``; on (1) the first best of the unit's own hex, the
    hexes at the edge of its reach (cost + the cheapest terrain's cost > budget) and those
    next to an enemy (within range for a Ranged unit), the leader still scoring every hex.
    Random positions of both armies on a map with shallow hexes and rocks, both styles'
    knobs, both Swim phases; the move chosen on is always among the hexes it scored, and on
    some moves the two differ (so the test fails if 0 pruned or 1 did not)."""
    rng = np.random.default_rng(28)
    names = {"witch": ("sea_witch", "sea_knights", "mer_crossbowmen", "mermen",
                       "sword_fish", "giant_sea_turtle", "dolphin_riders"),
             "king": ("sea_king", "hammerhead_sharks", "giant_crab", "leviathan",
                      "moray_eels", "sea_snakes", "barracuda")}
    styles = ({"advance": 1.0, "focus_damaged": 1.0, "focus_value": 0.5, "leader_hunt": 1.0,
               "leader_keep_back": 2, "hide": 0.1, "caution": 0.1},
              {"advance": 0.3, "focus_damaged": 0.5, "focus_value": 0.5, "leader_hunt": 0.5,
               "screen": 1.0, "leader_keep_back": 4, "hide": 0.7, "caution": 0.2})
    moves = differ = pruned = 0
    for trial in range(24):
        s = new_state(9, 9)
        cells = rng.permutation(81)
        for k in cells[:6]:
            s.terrain(s.pos(int(k)), "kelp_forest" if k % 2 else "mountain_peaks")
        k = 6
        for side in ("witch", "king"):
            for name in names[side]:
                s.add(name, side, s.pos(int(cells[k])))
                k += 1
        side = L.WITCH if trial % 2 else L.KING
        phase = 1 + (trial // 2) % 2
        style = styles[(trial // 4) % 2]
        s.g[B.GS_PHASE] = phase
        K.compute_fields(s.scr, s.dat, side)
        for i in range(int(s.g[B.GS_NSLOTS])):
            if s.u[i, B.UC_SIDE] != side:
                continue
            t = s.u[i, B.UC_TYPE]
            budget = int(s.dat[B.D_UNITS][t, L.U_MV]) if phase == 1 else 2
            s.u[i, B.UC_SAVED] = budget
            n = K.reach(s.scr, s.dat, i, budget)
            if n <= 1:
                continue
            lst = s.scr[B.X_PLIST][:n].copy()
            pk = s.scr[B.X_PKEY]
            start = int(lst[0])
            kn = s.set_knobs(dict(STILL, **style))
            if s.dat[B.D_UNITS][t, L.U_LEADER] == 1:
                bots.leader_threat(s.scr, s.dat, i)
            score = np.array([bots.cell_score(s.scr, s.dat, kn, i, c, phase, start)
                              - 0.01 * (pk[c] >> 3) - 0.1 * (pk[c] & 7) for c in lst])
            exact = int(lst[np.argmax(score)])
            assert bots.choose_move(s.scr, s.dat, kn, i, n, phase) == exact
            kn = s.set_knobs(dict(STILL, **style, edge_moves=1))
            inner, by_foe = bots.edge_limits(s.scr, s.dat, kn, i, phase)
            near = s.scr[B.X_NEAR]
            keep = np.array([k == 0 or (pk[c] >> 3) > inner or near[c] <= by_foe
                             for k, c in enumerate(lst)])
            if s.dat[B.D_UNITS][t, L.U_LEADER] == 1:
                assert keep.all()
            got = bots.choose_move(s.scr, s.dat, kn, i, n, phase)
            assert got == int(lst[keep][np.argmax(score[keep])])
            assert got in set(lst[keep].tolist())
            moves += 1
            differ += got != exact
            pruned += int((~keep).sum())
    assert moves > 100 and pruned > 100 and differ > 0


# ---------------------------------------------------------------------------------------
# bots: the blind spots fixed with the safety cap (each also measured on paired games,
# docs/RULES.md, Atlantis "Bots")
# ---------------------------------------------------------------------------------------

def test_a_breaking_leader_with_no_pursuer_left_goes_in(new_state):
    """Bots: with the armies spent (no unit of its own that could hunt the enemy leader),
    a leader breaking a standoff drops its keep-back distance and closes in; with a
    pursuer left it stays back and lets the pursuer go (leaders alone never ended)."""
    def game(pursuer: bool):
        s = new_state(9, 3)
        s.set_knobs(dict(STILL, caution=0.2, leader_keep_back=4, leader_hunt=0.5,
                         standoff_turns=10))
        w = s.add("sea_witch", "witch", (1, 1))
        s.add("sea_king", "king", (6, 1), damage=4)             # one hit point left
        if pursuer:
            s.add("barracuda", "witch", (0, 0))
        s.g[B.GS_TURN] = 30                                     # 29 quiet player-turns
        s.active("witch")
        K.swim_phase(s.scr, s.dat, s.kn, L.WITCH, 1)
        return s, w

    s, w = game(False)
    assert s.g[B.GS_BREAKING] == 1 and s.g[B.GS_PURSUERS] == 0
    assert s.at(w)[0] >= 4, s.log()                             # next to the Sea King
    s, w = game(True)
    assert s.g[B.GS_BREAKING] == 1 and s.g[B.GS_PURSUERS] == 1
    assert s.at(w)[0] <= 2, s.log()                             # kept back


def test_breaking_pursuers_pass_a_vortex_to_reach_the_leader(new_state):
    """Bots: a side breaking a standoff weighs a Vortex or Lava next to the hex it ends on
    at a quarter (as it weighs the enemy's attacks), so it goes into a pocket whose only
    approach passes one, instead of watching it from the edge for the rest of the game."""
    s = new_state(9, 3, fill="mountain_peaks")
    for col in range(9):
        s.terrain((col, 1), "open_ocean")                       # a corridor
    s.terrain((4, 0), "vortex")                                 # next to (3,1), (4,1)
    s.set_knobs(dict(STILL, caution=0.1, standoff_turns=2))
    fish = s.add("great_white_sharks", "witch", (0, 1))          # MV 3
    s.add("sea_king", "king", (8, 1))
    s.g[B.GS_TURN] = 10
    s.active("witch")
    K.swim_phase(s.scr, s.dat, s.kn, L.WITCH, 1)
    assert s.g[B.GS_BREAKING] == 1 and s.at(fish) == (3, 1), s.log()


def test_leader_danger_counts_a_poison_hit_as_a_kill():
    """Bots: AT-X1 a poisonous attacker's hit destroys whatever the DR, so the own leader's
    danger counts an expected poison hit as its whole DR left and P(killed) as 1 - P(no
    poison hit) x P(fewer ordinary hits than its DR left); three times as many ordinary
    hits (the old weight) are far less dangerous to a healthy leader."""
    kn = np.zeros(L.N_KNOBS)
    kn[L.KNOBS.index("caution")] = 0.2
    lam = 0.5
    poison = bots.leader_danger(kn, 0.0, lam, 5)
    three = bots.leader_danger(kn, 3 * lam, 0.0, 5)
    dead = 1.0 - np.exp(-lam)
    assert poison == pytest.approx(bots.LEADER_RISK * 0.2 * (lam + 4 * dead))
    assert poison > 2 * three
    # equal to ordinary hits on the last hit point (one hit kills either way)
    assert bots.leader_danger(kn, 0.0, lam, 1) == pytest.approx(
        bots.leader_danger(kn, lam, 0.0, 1))


def test_a_leader_on_its_last_hit_point_stays_out_of_whirl_pools(new_state):
    """Bots: AT-M7 a Whirl Pool / Vent attacks a unit entering it (1 AD): a leader it could
    destroy neither passes through one (kernel.reach with bots.avoid_entry) nor ends on
    one for a small gain (bots.entry_cost weighs the chance of losing the game); with DR
    to spare, or for the random baseline, the path is the cheapest as before."""
    s = new_state(7, 3, fill="sargasso")                             # cost 2 everywhere
    s.terrain((2, 1), "whirl_pool")                              # cost 1: the cheap way
    for pos in ((3, 1), (3, 0)):
        s.terrain(pos, "open_ocean")                             # the way round: 2 + 1 + 1
    king = s.add("sea_king", "king", (1, 1), damage=4)           # one hit point left
    s.set_knobs(dict(STILL, caution=0.1))
    assert bots.avoid_entry(s.scr, s.dat, s.kn, king)
    n = K.reach(s.scr, s.dat, king, 4, True)
    r = {s.pos(int(c)): int(s.scr[B.X_PKEY][c] >> 3) for c in s.scr[B.X_PLIST][:n]}
    assert r[(2, 1)] == 1 and r[(3, 1)] == 4                     # may end there; around it
    assert s.reach(king, 4)[(3, 1)] == 2                         # through it, unguarded
    t = s.type_of("sea_king")
    assert bots.entry_cost(s.dat, t, 1, 1, 1 / 6) > 4 * bots.LEADER_RISK / 6 - 1e-9
    assert bots.entry_cost(s.dat, t, 5, 1, 1 / 6) < 1.0
    s.u[king, B.UC_DMG] = 0
    assert not bots.avoid_entry(s.scr, s.dat, s.kn, king)
    s.u[king, B.UC_DMG] = 4
    s.set_knobs(dict(STILL, random=1))
    assert not bots.avoid_entry(s.scr, s.dat, s.kn, king)


def test_a_unit_that_hid_stays_hidden_in_the_second_swim_phase(new_state):
    """Bots: a hidden unit weighs its Hide marker (AT-M6: a move discards it) before moving
    in the Second Swim phase: with moves saved and a small pull toward the enemy it stays
    hidden; not hidden it takes the pull. It does not hide on a Current hex whose End-phase
    push (AT-E1) would take the marker anyway."""
    def second_swim(hidden: bool):
        s = new_state(9, 3)
        s.set_knobs(dict(STILL, advance=0.3, caution=0.2, hide=0.7))
        m = s.add("mermen", "king", (2, 1), hidden=hidden)
        s.add("sea_witch", "witch", (8, 1))
        s.active("king")
        s.u[m, B.UC_SAVED] = 2
        K.swim_phase(s.scr, s.dat, s.kn, L.KING, 2)
        return s, m

    s, m = second_swim(True)
    assert s.at(m) == (2, 1) and s.hidden(m)
    s, m = second_swim(False)
    assert s.at(m) != (2, 1)
    c = new_state(5, 3)
    c.terrain((2, 1), "current", current=0)
    u = c.add("mermen", "king", (2, 1))
    assert bots._pushed(c.scr, c.dat, u, c.cell((2, 1)))
    c.add("mermen", "king", (3, 1))                              # the push is blocked
    assert not bots._pushed(c.scr, c.dat, u, c.cell((2, 1)))


def test_no_terrain_spell_on_a_hex_that_already_has_its_terrain(new_state):
    """Bots: a Whirlpool cast on a Whirl Pool hex changes nothing (a spell-made terrain
    does not attack the unit already there): the heuristic picks another target or none;
    the random baseline still draws among every legal target."""
    s = new_state(7, 3, fill="mud_flats")
    caster = s.add("sea_witch", "witch", (1, 1), chits=("whirlpool",))
    on_pool = s.add("sea_knights", "king", (3, 1))
    s.terrain((3, 1), "whirl_pool")
    s.set_knobs(dict(STILL, spell_aggr=1.0))
    v, target = bots.spell_option(s.scr, s.dat, s.kn, caster, L.SP_WHIRLPOOL, False)
    assert v < 0 and target == -1                                # nothing worth it
    other = s.add("sea_knights", "king", (4, 1))
    v, target = bots.spell_option(s.scr, s.dat, s.kn, caster, L.SP_WHIRLPOOL, False)
    assert target == s.u[other, B.UC_CELL] and target != s.u[on_pool, B.UC_CELL]
