"""Rove's rules on hand-built states: the rulebook's worked examples (scope part B, §B3.12
item 1), each set up as the rulebook draws it and checked against the outcome it states."""

from __future__ import annotations

import numpy as np

from deepsim.rulesets import hexgrid
from deepsim.rulesets.rove import kernel as K
from deepsim.rulesets.rove import layout as L
from deepsim.rulesets.rove.compile import compile_data, merge_content, parse_map
from deepsim.rulesets.rove.odds import data

OPEN = (". . . . . . .\n . . . . . . .\n. . . . . . .\n . . . . . . .\n"
        ". . . . . . .")
KN = np.zeros(len(L.KNOBS), np.float64)
KN[L.K_WEAKEST] = 1.0


def _reach(st, name, op, x):
    nc = len(st.gm.terrain)
    rc = np.empty(nc, np.int64)
    pc = np.empty((x + 1, nc), np.int64)
    pk = np.empty((x + 1, nc), np.int64)
    best = K.reach(st.U, st.u(name), st.occ, st.gm.terrain, st.trap, st.gm.nbr, L.OP[op], x,
                   rc, pc, pk)
    return rc, best, pc, pk


# ---- Actions: Dash, Teleport; Line-of-Sight; Range; Target -----------------------------------

def test_dash_detours_around_an_enemy_and_passes_an_ally(build):
    """Dash, Example 2: the enemy (Nahoot) blocks the path; the Rover moves three spaces a
    different way. An ally in the same space is passed (a dash enters allies' spaces)."""
    text = ". . . . .\n . . . . ."
    st = build(text, [("piercer", "rover", (0, 0), 10, 10, 0, False),
                      ("nahoot", "adv", (1, 0), 3, 3, 0, False)])
    rc, best, pc, pk = _reach(st, "piercer", "dash", 3)
    goal = st.cell(2, 0)
    assert rc[goal] == 3                           # around: three points, not two
    path = np.empty(4, np.int64)
    n = K.path_of(best, pc, pk, goal, path)
    assert n == 3 and st.cell(1, 0) not in path[:n]
    st2 = build(text, [("piercer", "rover", (0, 0), 10, 10, 0, False),
                       ("flash", "rover", (1, 0), 9, 9, 0, False)])
    rc2, *_ = _reach(st2, "piercer", "dash", 3)
    assert rc2[goal] == 2                          # straight through the ally


def test_teleport_passes_a_barrier_a_dash_cannot(build, action):
    """Teleport, Example: the Flash teleports 3 past barriers (not a movement action)."""
    text = ". # . .\n . # . .\n. # . ."
    st = build(text, [("flash", "rover", (0, 1), 9, 9, 0, False),
                      ("nahoot", "adv", (3, 1), 3, 3, 0, False)])
    rc, *_ = _reach(st, "flash", "dash", 3)
    assert rc[st.cell(2, 1)] >= K.BIG               # sealed off for a dash
    ctr = np.zeros(2, np.uint64)
    moved = K.rover_move(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist,
                         st.gm.los, st.u("flash"), action("teleport", 3), 1, 1, KN,
                         np.uint64(1), ctr, st.G, st.gi, st.si, st.ev, st.rules,
                         np.zeros(0, np.int64), False)
    assert moved == 1 and st.at("flash")[0] == 2     # across the wall, next to the Nahoot
    assert st.gm.dist[st.U[0, L.U_CELL], st.U[1, L.U_CELL]] == 1


def test_line_of_sight_is_blocked_by_a_barrier_only():
    """Line-of-Sight, Example: the Flash sees enemy A but not B behind a barrier; units do
    not block (only barrier spaces do)."""
    gm = parse_map(". . # . .\n . . . . .", need_flag=False)
    a, b = gm.index[(0, 0)], gm.index[(4, 0)]
    assert gm.los[a, b] == 0                      # the straight line crosses the barrier
    assert gm.los[a, gm.index[(1, 0)]] == 1
    assert gm.los[gm.index[(0, 1)], gm.index[(4, 1)]] == 1   # the row below is clear
    clear = parse_map(". . . . .\n . . . . .", need_flag=False)
    assert clear.los[clear.index[(0, 0)], clear.index[(4, 0)]] == 1


def test_center_los_grazing_is_a_parameter():
    """AMB-R29: a centre line along a barrier's edge is blocked with ``los.graze_blocks``
    and clear without it (it crosses no interior)."""
    coords = np.array([hexgrid.axial_from_offset(c, r) for r in range(2) for c in range(3)],
                      np.int64)
    # (0,0) -> (1,1): the centre line passes the corner shared with (1,0) and (0,1)
    blocking = np.zeros(6, np.uint8)
    blocking[1] = 1                                # (1, 0)
    grazed = hexgrid.center_los(coords, blocking, graze_blocks=True)
    clean = hexgrid.center_los(coords, blocking, graze_blocks=False)
    assert (grazed <= clean).all()                 # grazing can only block more
    # (0,0) -> (1,1) runs along the edge (1,0) shares with (0,1): grazed, not crossed
    assert grazed[0, 4] == 0 and clean[0, 4] == 1


def test_range_two_to_three_cannot_hit_at_one(build, action):
    """Range, Example: True Scale's Damage 2 Range 2-3 targets enemy A two spaces away, not
    enemy B one space away."""
    st = build(OPEN, [("scale", "rover", (1, 2), 14, 14, 0, False),
                      ("a", "adv", (3, 2), 3, 3, 0, False),
                      ("b", "adv", (2, 2), 3, 3, 0, False)])
    here = st.U[0, L.U_CELL]
    assert K.can_hit(st.U, st.gm.dist, st.gm.los, here, st.u("a"), 2, 3)
    assert not K.can_hit(st.U, st.gm.dist, st.gm.los, here, st.u("b"), 2, 3)
    out = np.empty(8, np.int64)
    n = K.rover_targets(st.U, st.gm.dist, st.gm.los, 0, action("r_attack", 2, 2, 3), 0, 0, KN,
                        np.uint64(1), np.zeros(2, np.uint64), st.G, out)
    assert n == 1 and out[0] == st.u("a")


def test_stripped_axe_gives_a_second_target(build, action):
    """Target, Example: Strike targets one enemy; with the Stripped Axe (+1 target) both."""
    st = build(OPEN, [("scale", "rover", (2, 2), 14, 14, 0, False),
                      ("a", "adv", (3, 2), 3, 3, 0, False),
                      ("b", "adv", (1, 2), 3, 3, 0, False)])
    out = np.empty(8, np.int64)
    strike = action("m_attack", 2, 1, 1)
    args = (st.U, st.gm.dist, st.gm.los, 0, strike, 0)
    assert K.rover_targets(*args, 0, KN, np.uint64(1), np.zeros(2, np.uint64), st.G, out) == 1
    assert K.rover_targets(*args, 1, KN, np.uint64(1), np.zeros(2, np.uint64), st.G, out) == 2
    assert {int(out[0]), int(out[1])} == {st.u("a"), st.u("b")}
    d = data()
    assert d.items["stripped_axe"].bonus == "target" and d.items["stripped_axe"].value == 1


# ---- Push, Pull, Impact Damage, Falling --------------------------------------------------------

def _push(st, perf, target, x, d, pull=False):
    return K.push_sim(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist,
                      st.U[st.u(perf), L.U_CELL], st.u(target), x, pull, d, 1, 2)


def _do_push(st, perf, target, x, d):
    K.do_push(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist, st.u(perf),
              st.u(target), x, False, d, st.G, st.gi, st.si, st.ev, st.rules)


EAST = 0


def test_push_three_reaches_three(build):
    """Push, Example 1: Push 3 on the adjacent Nahoot moves it the maximum, three spaces."""
    st = build(". . . . . .", [("sophist", "rover", (0, 0), 12, 12, 0, False),
                                ("nahoot", "adv", (1, 0), 3, 3, 0, False)])
    r = _push(st, "sophist", "nahoot", 3, EAST)
    assert r[0] == 3 and r[2] == 0 and r[5] == 1
    _do_push(st, "sophist", "nahoot", 3, EAST)
    assert st.at("nahoot") == (4, 0) and st.hp("nahoot") == 3


def test_push_into_an_ally_stops_without_damage(build):
    """Push, Example 2: the Nahadir blocks the direction; the Nahoot moves one space and
    stops, no damage (a unit is not impassable terrain)."""
    st = build(". . . . . .", [("sophist", "rover", (0, 0), 12, 12, 0, False),
                                ("nahoot", "adv", (1, 0), 3, 3, 0, False),
                                ("nahadir", "adv", (3, 0), 6, 6, 0, False)])
    _do_push(st, "sophist", "nahoot", 3, EAST)
    assert st.at("nahoot") == (2, 0) and st.hp("nahoot") == 3


def test_push_two_target_three_full_impact_edge(build):
    """Impact Damage, Example (Push 2, Range 1-3, Target 3): A is pushed the full 2 with no
    damage; B cannot move for a barrier and suffers 2; C stops at the map edge after one
    space with no damage."""
    st = build(". . . . . .\n . . . . . .\n. . . # . .\n . . . . . .",
               [("sophist", "rover", (1, 1), 12, 12, 0, False),
                ("a", "adv", (2, 1), 5, 5, 0, False),
                ("b", "adv", (2, 2), 5, 5, 0, False),
                ("c", "adv", (0, 1), 5, 5, 0, False)])
    _do_push(st, "sophist", "a", 2, EAST)
    assert st.at("a") == (4, 1) and st.hp("a") == 5
    _do_push(st, "sophist", "b", 2, EAST)           # (3, 2) is a barrier
    assert st.at("b") == (2, 2) and st.hp("b") == 3
    W = 3
    r = _push(st, "sophist", "c", 2, W)             # off the map west of (0, 1): no step
    assert r[5] == 0 or r[2] == 0
    st2 = build(". . . .\n . . . .", [("sophist", "rover", (2, 1), 12, 12, 0, False),
                                      ("c", "adv", (1, 1), 5, 5, 0, False)])
    _do_push(st2, "sophist", "c", 2, W)
    assert st2.at("c") == (0, 1) and st2.hp("c") == 5      # one space, then the edge


def test_falling_slays_a_two_hp_nahoot_and_spares_a_three_hp_one(build):
    """Falling, Examples 1-2: Push 3 moves the Nahoot one space toward open air; with 2 HP
    the would-be impact 2 slays it; with 3 HP it stops there, undamaged."""
    for hp, slain in ((2, True), (3, False)):
        st = build(". . . o .", [("sophist", "rover", (0, 0), 12, 12, 0, False),
                                 ("nahoot", "adv", (1, 0), hp, hp, 0, False)])
        _do_push(st, "sophist", "nahoot", 3, EAST)
        if slain:
            assert st.U[st.u("nahoot"), L.U_STATE] == L.ST_GONE and st.gi[L.G_FALLS] == 1
        else:
            assert st.at("nahoot") == (2, 0) and st.hp("nahoot") == 3
            assert st.gi[L.G_FALLS] == 0


def test_a_rover_pushed_toward_open_air_only_stops(build):
    """Falling applies to adversaries only; AMB-R27: a Rover stops as at the map edge."""
    st = build(". . . o .", [("zinix", "adv", (0, 0), 5, 5, 0, False),
                             ("flash", "rover", (1, 0), 1, 9, 0, False)])
    _do_push(st, "zinix", "flash", 3, EAST)
    assert st.at("flash") == (2, 0) and st.hp("flash") == 1


# ---- Skill cards: Coordinated Assault -----------------------------------------------------------

def _pay(pers, inf, comp, f, aug, *, gi=None, si=None, drain_first=0, dim=10):
    """Play face ``f`` for Rover 0 (:func:`kernel.pay_face`); returns the rules array."""
    rules = np.zeros(L.N_RULES, np.int64)
    rules[L.R_DRAIN_FIRST] = drain_first
    rules[L.R_DIM] = dim
    gi = np.zeros(len(L.GAME_INT), np.int64) if gi is None else gi
    si = np.zeros((L.MAX_R, len(L.SEAT_INT)), np.int64) if si is None else si
    K.pay_face(pers, inf, 0, comp.faces, f, KN, np.uint64(1), np.zeros(2, np.uint64), aug,
               rules, np.zeros(K.GS_N, np.int64), gi, si, np.zeros((0, L.EV_COLS), np.int64))
    return gi, si


def _assault():
    d = data()
    comp = compile_data(merge_content(d, None), "skirmish")
    ts = comp.classes.index("true_scale")
    first = int(comp.cls_card[ts, 0])
    return comp, first


def test_coordinated_assault_costs_three_and_meets_fire_and_morph():
    """Skill Cards, Example: Coordinated Assault costs 3 ether; a Fire die spent gives the
    melee attack Push 1, a Morph die gives the ranged attack Ignore Defense; it flips to
    Settling Groundwork."""
    comp, f = _assault()
    assert comp.face_names[f] == "Coordinated Assault"
    assert comp.face_names[f + 1] == "Settling Groundwork"       # the other side
    assert comp.faces[f, L.F_COST] == 3 and comp.faces[f, L.F_TYPE] == L.FACE_RAVE
    E = {e: i for i, e in enumerate(("water", "earth", "fire", "air", "crux", "morph"))}
    gi = np.zeros(len(L.GAME_INT), np.int64)
    si = np.zeros((L.MAX_R, len(L.SEAT_INT)), np.int64)
    aug = np.zeros((8, 7), np.int64)
    for pool, push, ign in (({"fire": 1, "morph": 1, "water": 1}, 1, 1),
                            ({"fire": 1, "water": 2}, 1, 0),
                            ({"water": 3}, 0, 0)):
        pers = np.zeros((L.MAX_R, 7), np.int64)
        inf = np.zeros((L.MAX_R, 7), np.int64)
        for e, n in pool.items():
            pers[0, E[e]] = n
        _pay(pers, inf, comp, f, aug, gi=gi, si=si)
        assert pers.sum() == 0 and inf.sum() == 3             # three dice infused
        assert aug[0, L.B_PUSH] == push and aug[1, L.B_IGNORE] == ign


def test_dim_dice_pay_a_rave():
    """Ether Cost: "a number of ether and or dim dice" (errata O1): Dim pays; it meets no
    ether check."""
    comp, f = _assault()
    pers = np.zeros((L.MAX_R, 7), np.int64)
    inf = np.zeros((L.MAX_R, 7), np.int64)
    pers[0, 6] = 3
    aug = np.zeros((8, 7), np.int64)
    _pay(pers, inf, comp, f, aug)
    assert inf[0, 6] == 3 and aug.sum() == 0


# ---- Skill cards: Drain ------------------------------------------------------------------------

E = {e: i for i, e in enumerate(("water", "earth", "fire", "air", "crux", "morph"))}


def _face(name):
    comp = compile_data(merge_content(data(), None), "skirmish")
    return comp, comp.face_names.index(name)


def _pools(**dice):
    pers = np.zeros((L.MAX_R, 7), np.int64)
    for e, n in dice.items():
        pers[0, 6 if e == "dim" else E[e]] = n
    return pers, np.zeros((L.MAX_R, 7), np.int64)


def test_drain_turns_an_element_die_into_dim_for_its_augment():
    """Drain: "return that dice to the general pool, then take a Dim dice and add it to
    your personal pool": True Scale's Heat Rally (drain Fire: +2 damage) with Fire and
    Water in the pool leaves Water and a Dim die; nothing is infused."""
    comp, f = _face("Heat Rally")
    pers, inf = _pools(fire=1, water=1)
    aug = np.zeros((8, 7), np.int64)
    gi, si = _pay(pers, inf, comp, f, aug)
    assert pers[0, E["fire"]] == 0 and pers[0, E["water"]] == 1 and pers[0, 6] == 1
    assert inf.sum() == 0 and aug[1, L.B_DAMAGE] == 2
    assert gi[L.G_DRAINS] == 1 and si[0, L.S_DRAINS] == 1 and gi[L.G_AUGMET] == 1


def test_drain_with_no_dim_left_still_drains():
    """Drain: "If there are no Dim dice available in the general pool, the element may
    still be drained, but no Dim dice is gained" (the 10 Dim dice: those in every Rover's
    pools are not in the general pool)."""
    comp, f = _face("Heat Rally")
    for dim, held, gain in ((0, 0, 0), (2, 2, 0), (2, 1, 1)):
        pers, inf = _pools(fire=1)
        pers[1, 6] = held                         # another Rover holds Dim dice
        aug = np.zeros((8, 7), np.int64)
        _pay(pers, inf, comp, f, aug, dim=dim)
        assert pers[0, E["fire"]] == 0 and pers[0, 6] == gain
        assert aug[1, L.B_DAMAGE] == 2


def test_drain_needs_a_die_of_its_element():
    """No die of the element: the augment is not met and the pool is unchanged; a Dim die
    cannot be drained (Drain: "from a non-Dim dice")."""
    comp, f = _face("Heat Rally")
    pers, inf = _pools(water=1, dim=1)
    aug = np.zeros((8, 7), np.int64)
    gi, _ = _pay(pers, inf, comp, f, aug)
    assert aug.sum() == 0 and pers[0, E["water"]] == 1 and pers[0, 6] == 1
    assert gi[L.G_AUGMISS] == 1 and gi[L.G_DRAINS] == 0


def test_drain_on_a_rave_before_or_after_its_cost():
    """AMB-R33 (``ether.drain_first``): a rave with a Drain augment, cost 2, Fire + Water in
    the pool. Drained after the cost: both dice paid it, nothing left to drain. Drained
    first: the Fire die becomes Dim, which then pays the cost with the Water die."""
    comp, f = _face("Heat Rally")
    faces = comp.faces.copy()
    faces[f, L.F_TYPE] = L.FACE_RAVE
    faces[f, L.F_COST] = 2
    comp.faces = faces
    for first, met in ((0, 0), (1, 2)):
        pers, inf = _pools(fire=1, water=1)
        aug = np.zeros((8, 7), np.int64)
        _pay(pers, inf, comp, f, aug, drain_first=first)
        assert pers.sum() == 0 and inf.sum() == 2
        assert aug[1, L.B_DAMAGE] == met
        assert inf[0, 6] == first                # the Dim die gained paid the cost


# ---- Reactions (RO-R5) ---------------------------------------------------------------------------

def _react_state(build, action, face, zinix_hp=9, tokens=1):
    """A Rover (the True Scale's reaction cards) next to a Zinix whose block is one melee
    attack, Damage 3 Range 1; the reaction card showing ``face``."""
    comp, f = _face(face)
    st = build(OPEN, [("true_scale", "rover", (2, 2), 10, 14, 0, False),
                      ("zinix", "adv", (3, 2), zinix_hp, 9, 0, False)])
    st.rules[L.R_REACT] = tokens
    r = st.u("true_scale")
    st.U[r, L.U_REACT0] = f
    st.U[r, L.U_REACT1] = -1
    st.U[r, L.U_RTOK] = tokens
    actions = np.vstack([comp.actions, action("m_attack", 3, 1, 1)[None, :]])
    blocks = np.vstack([comp.blocks, [[len(actions) - 1, len(actions)]]])
    return st, comp, f, actions, blocks


def _adversary_attacks(st, comp, actions, blocks):
    K.adversary_block(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist,
                      st.gm.los, st.aff, st.damage_die, actions, blocks, comp.faces,
                      np.int64(len(blocks) - 1), st.u("zinix"), st.rules, np.uint64(7),
                      np.zeros(2, np.uint64), np.uint64(8), st.G, st.gi, st.si, st.ev)


def test_a_defense_reaction_comes_before_the_damage(build, action):
    """RO-R5 / Defense: Brace (Defense 2) played when the Zinix's Damage 3 attack targets
    the Rover: defence 2 is subtracted, the Rover suffers 1; the token is spent and the card
    flips to Riposte."""
    st, comp, f, actions, blocks = _react_state(build, action, "Brace")
    _adversary_attacks(st, comp, actions, blocks)
    r = st.u("true_scale")
    assert st.hp("true_scale") == 9
    assert st.U[r, L.U_RTOK] == 0 and st.U[r, L.U_REACT0] == comp.faces[f, L.F_OTHER]
    assert comp.face_names[st.U[r, L.U_REACT0]] == "Riposte"
    assert st.gi[L.G_REACTS] == 1 and st.si[r, L.S_REACTS] == 1
    # no token left: the next attack has no reaction (the Defense tokens stay until the
    # Rover's next turn: 9 - (3 - 2))
    _adversary_attacks(st, comp, actions, blocks)
    assert st.hp("true_scale") == 8 and st.gi[L.G_REACTS] == 1


def test_a_counter_reaction_that_slays_the_attacker_stops_its_attack(build, action):
    """Riposte (a melee attack 2 on the attacker, before its damage die): a Zinix with 2 HP
    is slain and removed (Slaying Rover Enemies), so its attack never lands."""
    st, comp, _f, actions, blocks = _react_state(build, action, "Riposte", zinix_hp=2)
    _adversary_attacks(st, comp, actions, blocks)
    assert st.U[st.u("zinix"), L.U_STATE] == L.ST_GONE and st.hp("true_scale") == 10
    # a Zinix it does not slay still attacks: 10 - 3
    st, comp, _f, actions, blocks = _react_state(build, action, "Riposte", zinix_hp=9)
    _adversary_attacks(st, comp, actions, blocks)
    assert st.hp("zinix") == 7 and st.hp("true_scale") == 7


def test_no_reaction_window_without_tokens(build, action):
    """``turn.reactions: 0``: no reaction token, so the attack lands in full."""
    st, comp, _f, actions, blocks = _react_state(build, action, "Brace", tokens=0)
    _adversary_attacks(st, comp, actions, blocks)
    assert st.hp("true_scale") == 7 and st.gi[L.G_REACTS] == 0


# ---- the adversary AI (Primary Action Logic) ----------------------------------------------------

def test_zinix_iron_jaw_targets_the_sophist_with_more_hp(build, action):
    """Example 1: both Rovers are two spaces from the Zinix; the Sophist has more current
    HP; the Zinix moves and attacks the Sophist."""
    st = build(OPEN, [("flash", "rover", (1, 2), 6, 9, 0, False),
                      ("sophist", "rover", (5, 2), 10, 12, 0, False),
                      ("zinix", "adv", (3, 2), 5, 5, 0, False)])
    blk = np.stack([action("dash", 3), action("m_attack", 3, 1, 1)])
    focus = K.ai_move(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist, st.gm.los,
                      st.aff, st.damage_die, st.u("zinix"), blk[0], blk, 1, st.rules, st.G,
                      st.gi, st.si, st.ev, np.uint64(1), np.zeros(2, np.uint64))
    assert focus == st.u("sophist")
    z = st.U[st.u("zinix"), L.U_CELL]
    assert st.gm.dist[z, st.U[st.u("sophist"), L.U_CELL]] == 1
    # Hard Mode: the fewest HP instead
    st.rules[L.R_FEWEST] = 1
    st2 = build(OPEN, [("flash", "rover", (1, 2), 6, 9, 0, False),
                       ("sophist", "rover", (5, 2), 10, 12, 0, False),
                       ("zinix", "adv", (3, 2), 5, 5, 0, False)], fewest=1)
    focus = K.ai_move(st2.U, st2.occ, st2.trap, st2.gm.terrain, st2.gm.nbr, st2.gm.dist,
                      st2.gm.los, st2.aff, st2.damage_die, st2.u("zinix"), blk[0], blk, 1,
                      st2.rules, st2.G, st2.gi, st2.si, st2.ev, np.uint64(1),
                      np.zeros(2, np.uint64))
    assert focus == st2.u("flash")


def test_ashemak_takes_the_only_target_in_range(build, action):
    """Example 2: Ashemak's Damage 1 Range 2-4: the Sophist has more HP but is not in range;
    it attacks the Flash, the only valid target."""
    st = build(OPEN, [("flash", "rover", (0, 2), 4, 9, 0, False),
                      ("sophist", "rover", (4, 2), 12, 12, 0, False),
                      ("ashemak", "adv", (3, 2), 4, 4, 0, False)])
    out = np.empty(8, np.int64)
    n = K.ai_targets(st.U, st.gm.dist, st.gm.los, st.aff, st.damage_die, st.u("ashemak"),
                     action("r_attack", 1, 2, 4), -1, st.rules, st.G, st.gi, st.ev, out)
    assert n == 1 and out[0] == st.u("flash")


def test_wrathbone_moves_two_to_hit_three(build, action):
    """Multi-target example: the Wrathbone could attack the adjacent Flash, but moving two
    spaces reaches three targets (the Shadow Piercer, the Dune Dancer and a third unit); it
    moves two and attacks those three."""
    st = build(OPEN, [("flash", "rover", (0, 2), 9, 9, 0, False),
                      ("piercer", "rover", (4, 2), 10, 10, 0, False),
                      ("dancer", "rover", (3, 1), 11, 11, 0, False),
                      ("ardorok", "rover", (3, 3), 5, 5, 0, False),
                      ("wrathbone", "adv", (1, 2), 10, 10, 0, False)])
    blk = np.stack([action("dash", 2), action("m_attack", 2, 1, 1, targets=3)])
    K.ai_move(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist, st.gm.los, st.aff,
              st.damage_die, st.u("wrathbone"), blk[0], blk, 1, st.rules, st.G, st.gi, st.si,
              st.ev, np.uint64(1), np.zeros(2, np.uint64))
    assert st.at("wrathbone") == (3, 2)
    out = np.empty(8, np.int64)
    n = K.ai_targets(st.U, st.gm.dist, st.gm.los, st.aff, st.damage_die, st.u("wrathbone"),
                     blk[1], -1, st.rules, st.G, st.gi, st.ev, out)
    assert n == 3 and set(out[:3].tolist()) == {st.u("piercer"), st.u("dancer"),
                                                st.u("ardorok")}


def test_onisski_heals_the_damaged_zinix_in_range(build, action):
    """Healing Example 1: Recover 2, Range 0-3; the Onisski is unhurt; Zinix B is more
    damaged but out of range; it heals Zinix A."""
    st = build(OPEN, [("flash", "rover", (6, 4), 9, 9, 0, False),
                      ("onisski", "adv", (0, 2), 4, 4, 0, False),
                      ("zinix_a", "adv", (2, 2), 3, 5, 0, False),
                      ("zinix_b", "adv", (6, 2), 1, 5, 0, False)])
    out = np.empty(8, np.int64)
    n = K.ai_heal_targets(st.U, st.gm.dist, st.gm.los, st.u("onisski"),
                          action("heal", 2, 0, 3), st.G, st.ev, out)
    assert n == 1 and out[0] == st.u("zinix_a")


def test_nahadir_heals_itself_and_the_zinix(build, action):
    """Healing Example 2: Ariose Incantation heals self and one ally within range 0-5: the
    Nahadir heals itself and the Zinix."""
    st = build(OPEN, [("flash", "rover", (6, 4), 9, 9, 0, False),
                      ("nahadir", "adv", (1, 2), 4, 6, 0, False),
                      ("zinix", "adv", (4, 2), 2, 5, 0, False),
                      ("nahoot", "adv", (2, 2), 3, 3, 0, False)])
    out = np.empty(8, np.int64)
    n = K.ai_heal_targets(st.U, st.gm.dist, st.gm.los, st.u("nahadir"),
                          action("heal", 2, 0, 5, targets=2), st.G, st.ev, out)
    assert n == 2 and set(out[:2].tolist()) == {st.u("nahadir"), st.u("zinix")}


def test_players_decide_a_tie_rover_favoured_or_worst_case(build, action):
    """Primary Action Logic: a tie left after distance and HP is the players' to decide
    (AMB-R1): ``rover_favoured`` sends the attack where it does the least damage (the
    Rover with more defence), ``adversarial`` where it does the most."""
    for tie, expect in ((L.TIE_ROVER, "guarded"), (L.TIE_ADVERSARIAL, "bare")):
        st = build(OPEN, [("bare", "rover", (1, 2), 9, 9, 0, False),
                          ("guarded", "rover", (5, 2), 9, 9, 2, False),
                          ("zinix", "adv", (3, 2), 5, 5, 0, False)], tiebreak=tie)
        blk = np.stack([action("dash", 3), action("m_attack", 2, 1, 1)])
        focus = K.ai_move(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist,
                          st.gm.los, st.aff, st.damage_die, st.u("zinix"), blk[0], blk, 1,
                          st.rules, st.G, st.gi, st.si, st.ev, np.uint64(1),
                          np.zeros(2, np.uint64))
        assert focus == st.u(expect)
        assert st.gi[L.G_TIES] == 1 and st.gi[L.G_TIECHOICE] == 1


def test_adversaries_path_around_dangerous_spaces_when_they_can(build, action):
    """Movement and Primary Action Logic: dangerous spaces count as difficult; an
    adversary prefers a normal space at the same reach."""
    st = build(". . . . .\n . ! . . .\n. . . . .",
               [("flash", "rover", (3, 1), 9, 9, 0, False),
                ("nahoot", "adv", (0, 1), 3, 3, 0, False)])
    blk = np.stack([action("dash", 3), action("m_attack", 1, 1, 1)])
    K.ai_move(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist, st.gm.los, st.aff,
              st.damage_die, st.u("nahoot"), blk[0], blk, 1, st.rules, st.G, st.gi, st.si,
              st.ev, np.uint64(1), np.zeros(2, np.uint64))
    assert st.gm.dist[st.U[1, L.U_CELL], st.U[0, L.U_CELL]] == 1
    assert st.gi[L.G_DANGER] == 0 and st.hp("nahoot") == 3


def test_expected_damage_follows_the_damage_order(build):
    """Damage Resolution: base + the die's affinity (Dim +0) - defence, at least 0: base 2,
    fire +2, water -2, defence 1 over the d8 (6 elements + 2 Dim) averages 9/8."""
    st = build(OPEN, [("flash", "rover", (0, 0), 9, 9, 0, False),
                      ("zinix", "adv", (1, 0), 5, 5, 1, False)])
    st.aff[0, 2] = 2                              # fire
    st.aff[0, 0] = -2                             # water
    e = K.expected_damage(st.U, st.aff, 0, 1, 2, False, st.damage_die, 1)
    assert abs(e - 9 / 8) < 1e-12
    assert abs(K.expected_damage(st.U, st.aff, 0, 1, 2, True, st.damage_die, 1) - 16 / 8) < 1e-12


# ---- Ether fields (Tiles, RO-TI4 / RO-TI5) -------------------------------------------------------

def _tile(kind, value=0):
    return kind + 16 * (value + 64)


def _field_state(build, rovers=(("flash", (2, 2)),), zinix=(3, 2), hp=20):
    """Rovers with ``hp`` HP and no reaction token, next to a Zinix (defence 0)."""
    units = [(n, "rover", at, hp, hp, 0, False) for n, at in rovers]
    units.append(("zinix", "adv", zinix, 9, 9, 0, False))
    return build(OPEN, units)


def _zinix_attacks(action, st, x=3, targets=1, field=0):
    """The Zinix performs one block: a melee attack Damage ``x`` Range 1 Target
    ``targets`` (with a field effect ``field``, a tile kind)."""
    row = action("m_attack", x, 1, 1, targets=targets)
    row[L.A_FIELD] = field
    actions = row[None, :]
    blocks = np.array([[0, 1]], np.int64)
    faces = np.zeros((0, L.F_N), np.int64)
    K.adversary_block(st.U, st.occ, st.trap, st.gm.terrain, st.gm.nbr, st.gm.dist,
                      st.gm.los, st.aff, st.damage_die, actions, blocks, faces, np.int64(0),
                      st.u("zinix"), st.rules, np.uint64(7), np.zeros(2, np.uint64),
                      np.uint64(8), st.G, st.gi, st.si, st.ev)


def test_an_adversary_aura_adds_two_to_its_first_attack_then_goes(build, action):
    """Aura: "the first attack made by a unit occupying the space gets a bonus, then the
    tile is removed"; +2 when the adversaries own it (AMB-R19). Miasma: -2 likewise."""
    for kind, val, hp_after in ((L.TL_AURA, 2, 15), (L.TL_MIASMA, -2, 19)):
        st = _field_state(build)
        z = st.U[st.u("zinix"), L.U_CELL]
        st.trap[z] = _tile(kind, val)
        _zinix_attacks(action, st)
        assert st.hp("flash") == hp_after and st.trap[z] == 0
        _zinix_attacks(action, st)                 # the tile is gone: 3 damage
        assert st.hp("flash") == hp_after - 3


def test_an_aura_on_a_multi_target_attack_follows_fields_scope(build, action):
    """AMB-R30 ``fields.scope``: each target of the first attack action (default), or the
    first target only."""
    for scope, second in ((0, 15), (1, 17)):
        st = _field_state(build, rovers=(("flash", (2, 2)), ("sophist", (3, 1))))
        st.rules[L.R_FSCOPE] = scope
        st.trap[st.U[st.u("zinix"), L.U_CELL]] = _tile(L.TL_AURA, 2)
        _zinix_attacks(action, st, targets=2)
        hps = sorted([st.hp("flash"), st.hp("sophist")])
        assert hps == sorted([15, second])


def test_a_windscreen_takes_two_off_the_damage_then_goes(build, action):
    """Windscreen: "when the occupant suffers >= 1 damage, reduce that damage by 2, then
    remove the tile" (after the clamp, AMB-R3): 3 - 2 = 1; the next attack deals 3."""
    st = _field_state(build)
    st.rules[L.R_WINDSCREEN] = 2
    f = st.U[st.u("flash"), L.U_CELL]
    st.trap[f] = _tile(L.TL_WINDSCREEN)
    _zinix_attacks(action, st)
    assert st.hp("flash") == 19 and st.trap[f] == 0
    _zinix_attacks(action, st)
    assert st.hp("flash") == 16


def test_snapfrost_takes_two_points_from_a_move_starting_on_it_or_entering_it(build):
    """Snapfrost: "a unit that begins a movement action here, or tries to move into here,
    loses 2 movement points, then the tile is removed" (AMB-R9: even moving away)."""
    text = ". . . . . . ."
    st = build(text, [("flash", "rover", (0, 0), 9, 9, 0, False)])
    st.trap[st.cell(0, 0)] = _tile(L.TL_SNAPFROST, 2)
    rc, *_ = _reach(st, "flash", "dash", 3)
    assert rc[st.cell(1, 0)] == 1 and rc[st.cell(2, 0)] >= K.BIG   # 3 - 2 = 1 point
    st = build(text, [("flash", "rover", (0, 0), 9, 9, 0, False)])
    st.trap[st.cell(1, 0)] = _tile(L.TL_SNAPFROST, 2)
    rc, best, pc, pk = _reach(st, "flash", "dash", 4)
    assert rc[st.cell(1, 0)] == 3 and rc[st.cell(2, 0)] == 4        # 1 + 2, then 1
    path = np.empty(5, np.int64)
    n = K.path_of(best, pc, pk, st.cell(2, 0), path)
    K.move_to(st.U, st.occ, st.trap, st.gm.terrain, st.u("flash"), path, n, False, st.G,
              st.gi, st.si, st.ev, st.rules)
    assert st.at("flash") == (2, 0) and st.trap[st.cell(1, 0)] == 0  # removed


def test_wildfire_burns_at_turn_start_and_everbloom_heals_at_turn_end(build):
    """Wildfire: "a unit beginning its turn here suffers 1"; Everbloom: "a unit ending its
    turn here recovers 1"; both tiles persist."""
    st = _field_state(build, hp=10)
    st.rules[L.R_WILDFIRE] = 1
    st.rules[L.R_EVERBLOOM] = 1
    u = st.u("flash")
    c = st.U[u, L.U_CELL]
    st.trap[c] = _tile(L.TL_WILDFIRE)
    K.turn_fields(st.U, st.occ, st.trap, u, True, st.rules, st.G, st.gi, st.si, st.ev)
    K.turn_fields(st.U, st.occ, st.trap, u, False, st.rules, st.G, st.gi, st.si, st.ev)
    assert st.hp("flash") == 9 and st.trap[c] == _tile(L.TL_WILDFIRE)
    st.trap[c] = _tile(L.TL_EVERBLOOM)
    K.turn_fields(st.U, st.occ, st.trap, u, True, st.rules, st.G, st.gi, st.si, st.ev)
    K.turn_fields(st.U, st.occ, st.trap, u, False, st.rules, st.G, st.gi, st.si, st.ev)
    assert st.hp("flash") == 10 and st.trap[c] == _tile(L.TL_EVERBLOOM)


def test_a_field_effect_goes_into_the_target_space_and_replaces_a_trap(build, action):
    """RO-TI5: "When a field is an effect of an action, it goes into each target's space"
    (after the damage, RO-D5); RO-TI4: one tile a space, an incoming field replaces a
    trap. A Miasma the adversaries place carries -2."""
    st = _field_state(build)
    st.U[st.u("zinix"), L.U_MIASMA] = -2
    f = st.U[st.u("flash"), L.U_CELL]
    st.trap[f] = L.TL_TRAP
    _zinix_attacks(action, st, field=L.TL_MIASMA)
    assert st.hp("flash") == 17
    assert K.tile_kind(st.trap[f]) == L.TL_MIASMA and K.tile_value(st.trap[f]) == -2
    assert st.gi[L.G_FPLACED] == 1
