"""Rivals rules, one test per rule (RV-*) or reading (AMB-*), on hand-built states.

Each test builds a state with the ``new_state`` fixture (conftest.py: a hand-drawn map, models
where the test needs them, decks in a known order, dice whose faces are fixed by overrides
so a roll is certain), writes the activation's plan or calls one rule function of the kernel,
and checks the outcome the rulebook (``../shared/rulebooks/000_22dabda40dfb512e.txt``)
describes, usually with a case where the rule applies and one where it must not.
"""

from __future__ import annotations

import numpy as np
import pytest

from deepsim.errors import InputError
from deepsim.rulesets.rivals import RULESET
from deepsim.rulesets.rivals import dice as D
from deepsim.rulesets.rivals import kernel as K
from deepsim.rulesets.rivals import layout as L
from deepsim.rulesets.rivals import state as S

ALL_HIT = ("colours.black.faces=[hit]", "colours.red.faces=[hit]",
           "colours.white.faces=[hit]")
ALL_SHIELD = ("colours.black.faces=[shield]", "colours.red.faces=[shield]",
              "colours.white.faces=[shield]")
ALL_BLANK = ("colours.black.faces=[blank]", "colours.red.faces=[blank]",
             "colours.white.faces=[blank]")
ALL_AETHER = ("colours.black.faces=[aether]", "colours.red.faces=[aether]",
              "colours.white.faces=[aether]")
ONE = np.int64(1)
ZERO = np.int64(0)


def i64(x):
    return np.int64(x)


# ---- setup (RV-S) ---------------------------------------------------------------------------

def test_budget_and_start_aether(new_state):
    """RV-S1 a build over its budget is refused; RV-S3 three Aether each from the box's 30."""
    with pytest.raises(InputError, match="over the 2-player budget of 125"):
        RULESET.prepare({"name": "t", "ruleset": "rivals", "players": 2},
                        overrides=["roster.builds.swarm.teams.2.minion_melee=9"])
    s = new_state()
    assert list(s.pl[:2, S.PL_AETHER]) == [3, 3] and s.ps[S.PS_BANK] == 24


def test_deployment_fills_own_spawns_then_reserve(new_state):
    """RV-S8: models go onto their own spawn tiles up to the room (1 Large or 3 Small), the
    rest wait in reserve (RV-A8); RV-S6 (characters only): the build's team is what enters
    (the swarm build's 14 models)."""
    s = new_state(builds=("swarm", "elite"))
    m = s.models
    for p in (0, 1):
        mine = m[m[:, S.MD_OWNER] == p]
        on = mine[mine[:, S.MD_TILE] >= 0]
        for t in set(on[:, S.MD_TILE].tolist()):
            assert s.tiles[t, S.TL_TYPE] == L.TT_SPAWN and s.tiles[t, S.TL_OWNER] == p
    swarm = m[m[:, S.MD_OWNER] == 0]
    assert len(swarm) == 14                               # 8 minion_melee + 6 minion_ranged
    assert (swarm[:, S.MD_TILE] >= 0).sum() == 6           # 2 spawns x 3 small
    assert (swarm[:, S.MD_TILE] == S.RESERVE).sum() == 8
    elite = m[m[:, S.MD_OWNER] == 1]
    # 2 spawns: one brute alone on each (Large first); the small ones wait
    assert (elite[:, S.MD_TILE] >= 0).sum() == 2 and (elite[elite[:, S.MD_TILE] >= 0,
                                                             S.MD_LARGE] == 1).all()


# ---- tiles and movement (RV-T, RV-M) -----------------------------------------------------------

def _move(s, m, dest, ma=L.MA_NONE):
    return int(K.move_model(s.scr, s.dat, i64(s.models[m, S.MD_OWNER]), i64(m),
                            i64(s.t(*dest)), i64(ma)))


def test_capacity_and_passing(new_state):
    """RV-T2: 3 Small or 1 Large per tile, never with Rivals; RV-M2: through empty or
    friendly tiles only, stop only with room."""
    s = new_state().clear()
    a = s.add(0, "minion_melee", (2, 0))
    for _ in range(3):
        s.add(0, "minion_melee", (3, 0))
    assert _move(s, a, (3, 0)) == -1                      # full: cannot stop there
    assert _move(s, a, (4, 0)) == s.t(4, 0)               # passes through friends
    s.add(1, "minion_melee", (5, 0))
    b = s.add(0, "minion_melee", (4, 1))
    assert _move(s, b, (5, 0)) == -1                      # never with a Rival
    big = s.add(0, "brute", (1, 1))
    c = s.add(0, "minion_melee", (0, 1))
    assert _move(s, c, (1, 1)) == -1                      # not with a Large model
    assert _move(s, big, (1, 2)) == s.t(1, 2)


def test_speed_swim_and_charge(new_state):
    """RV-M1/M4: SPEED tiles; Swim and Charge each one more (speed 2 -> 3)."""
    s = new_state().clear()
    a = s.add(0, "minion_melee", (0, 2))                  # SPEED 2
    assert _move(s, a, (3, 2)) == -1
    assert _move(s, a, (3, 2), L.MA_CHARGE) == s.t(3, 2)
    assert s.models[a, S.MD_CHARGES] == 1
    b = s.add(0, "minion_melee", (0, 1))
    assert _move(s, b, (3, 1), L.MA_SWIM) == s.t(3, 1)
    assert s.models[b, S.MD_SWIM] == 1
    # AMB-11: still swimming in the next activation: +1 again, no new Swim
    assert _move(s, b, (6, 1)) == s.t(6, 1)
    assert _move(s, b, (4, 1), L.MA_SWIM) == -1
    # RV-M4 Land (AMB-28 after the move: it still moves at swimming speed)
    c = s.add(0, "minion_melee", (0, 2), swim=1)
    assert _move(s, c, (3, 2), L.MA_LAND) == s.t(3, 2) and s.models[c, S.MD_SWIM] == 0


def test_charge_degrades_attack_and_stacks(new_state):
    """RV-M4 Charge degrades the weakest attack die for the turn; AMB-30 twice, twice."""
    s = new_state().clear()
    a = s.add(0, "hero_melee", (0, 2))                    # attack B R
    pool = np.zeros(3, np.int64)
    sit = np.zeros(L.N_SIT, np.int64)
    from deepsim.rulesets.rivals import board as B
    B.current_pool(s.models, s.tiles, s.a.units, s.a.modtab, s.a.dr, i64(a), False, ZERO,
                   sit, pool)
    assert list(pool) == [1, 1, 0]
    _move(s, a, (1, 2), L.MA_CHARGE)
    _move(s, a, (2, 2), L.MA_CHARGE)
    B.current_pool(s.models, s.tiles, s.a.units, s.a.modtab, s.a.dr, i64(a), False, ZERO,
                   sit, pool)
    assert list(pool) == [1, 0, 0]                        # R -> W -> removed


ROCKS = ("S1 s  r  r  s  S2\n"
         " s  s  s  s  s  s\n")


def test_rock_entry_needs_swim_and_a_hit(new_state):
    """RV-T1, RV-M3 / AMB-08 (errata R1): only a swimming model may enter a rock, on a Red
    hit; a miss ends its move; rock to rock needs no roll."""
    s = new_state(ROCKS, ALL_HIT).clear()
    a = s.add(0, "minion_melee", (1, 0))
    assert _move(s, a, (2, 0)) == -1                      # not swimming
    assert _move(s, a, (3, 0), L.MA_SWIM) == s.t(3, 0)     # entered, then rock to rock
    assert len(s.events(L.EV_ROCK)) == 1                  # one roll only
    s2 = new_state(ROCKS, ("colours.red.faces=[shield]",)).clear()
    b = s2.add(0, "minion_melee", (1, 0))
    assert _move(s2, b, (3, 0), L.MA_SWIM) == s2.t(1, 0)   # the roll missed: stays
    s3 = new_state(ROCKS, ("movement.rock_entry_requires_swim=false", *ALL_HIT)).clear()
    c = s3.add(0, "minion_melee", (1, 0))
    assert _move(s3, c, (2, 0)) == s3.t(2, 0)              # the digest's reading


def test_terrain_modifiers_of_pools(new_state):
    """RV-T1, RV-C3 (the defence pool): coral degrades the lowest defence die; a cave adds a
    Red defence die; a rock gives one automatic shield (AMB-07); Swim degrades the weakest
    defence die."""
    grid = ("S1 c  r  d  S2\n"
            " s  s  s  s  s\n")
    s = new_state(grid).clear()
    from deepsim.rulesets.rivals import board as B
    pool = np.zeros(3, np.int64)
    sit = np.zeros(L.N_SIT, np.int64)

    def dpool(m):
        auto = B.current_pool(s.models, s.tiles, s.a.units, s.a.modtab, s.a.dr, i64(m),
                              True, ZERO, sit, pool)
        return list(pool), int(auto)
    h = s.add(0, "hero_melee", (1, 0))                    # defence R W, on coral
    assert dpool(h) == ([0, 1, 0], 0)
    r = s.add(0, "hero_melee", (2, 0))
    assert dpool(r) == ([0, 1, 1], 1)
    s.tiles[s.t(3, 0), S.TL_DEN] = L.DEN_CAVE
    c = s.add(0, "hero_melee", (3, 0))
    assert dpool(c) == ([0, 2, 1], 0)
    w = s.add(0, "hero_melee", (0, 1), swim=1)
    assert dpool(w) == ([0, 1, 0], 0)


# ---- activations (RV-A) -------------------------------------------------------------------------

def test_movement_activation_moves_models_of_one_tile_apart(new_state):
    """RV-A5 (FAQ): models activated on one tile may go separate ways, each its SPEED."""
    s = new_state().clear()
    a = s.add(0, "minion_melee", (2, 1))
    b = s.add(0, "minion_melee", (2, 1))
    far = s.add(0, "minion_melee", (0, 2))
    s.plan(L.ACT_MOVE, (2, 1), [(a, s.t(0, 1), L.MA_NONE), (b, s.t(4, 1), L.MA_NONE),
                                (far, s.t(1, 2), L.MA_NONE)])
    K.do_move(s.scr, s.dat, ZERO)
    assert s.tile_of_model(a) == (0, 1) and s.tile_of_model(b) == (4, 1)
    assert s.tile_of_model(far) == (0, 2)                 # not on the activated tile


def test_attack_once_per_turn_and_tokens(new_state):
    """RV-A6: each model attacks at most once a turn; RV-A2/A3 tokens M -> A -> E."""
    s = new_state(overrides=ALL_HIT).clear()
    a = s.add(0, "minion_melee", (2, 1))
    t = s.add(1, "brute", (3, 1))
    s.plan(L.ACT_ATTACK, (2, 1), [(a, 0, t, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    w = int(s.models[t, S.MD_WOUNDS])
    assert w == 2                                         # R W all hits, B R all hits...
    K.do_attack(s.scr, s.dat, ZERO)
    assert s.models[t, S.MD_WOUNDS] == w                  # acted already
    assert len(s.events(L.EV_ATTACK)) == 1


def test_reinforcement_enters_on_own_spawn(new_state):
    """RV-A8: a movement activation brings a tile's worth of reserve onto an own spawn."""
    s = new_state().clear()
    r = [s.add(0, "minion_melee", None) for _ in range(4)]
    s.plan(L.ACT_REINFORCE, (0, 0), [(m,) for m in r])
    K.do_reinforce(s.scr, s.dat, ZERO)
    on = [m for m in r if s.models[m, S.MD_TILE] >= 0]
    assert len(on) == 3 and s.pl[0, S.PL_RESERVE] == 1
    s.plan(L.ACT_REINFORCE, (5, 0), [(r[3],)])            # the rival's spawn
    K.do_reinforce(s.scr, s.dat, ZERO)
    assert s.models[r[3], S.MD_TILE] == S.RESERVE


# ---- attacks (RV-C) ------------------------------------------------------------------------------

def test_attack_wounds_destroys_and_aether(new_state):
    """RV-C5..C8: net hits = hits - shields, a wound each; wounds >= hearts destroys;
    RV-C7 each side gains its own Aether faces (the book's example: the defender too)."""
    s = new_state(overrides=("colours.red.faces=[hit]", "colours.white.faces=[shield]")).clear()
    a = s.add(0, "hero_ranged", (1, 1))                   # R R
    d = s.add(1, "hero_ranged", (3, 1))                   # defence W, 2 hearts
    s.plan(L.ACT_ATTACK, (1, 1), [(a, 0, d, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    assert s.models[d, S.MD_WOUNDS] == 1                  # 2 hits - 1 shield
    s2 = new_state(overrides=ALL_HIT).clear()
    a2 = s2.add(0, "hero_ranged", (1, 1))
    d2 = s2.add(1, "hero_ranged", (3, 1))
    s2.plan(L.ACT_ATTACK, (1, 1), [(a2, 0, d2, 0)])
    K.do_attack(s2.scr, s2.dat, ZERO)
    assert s2.models[d2, S.MD_TILE] == S.DEAD and s2.sst[0, L.S_KILLS] == 1
    s3 = new_state(overrides=ALL_AETHER).clear()
    a3 = s3.add(0, "hero_ranged", (1, 1))
    d3 = s3.add(1, "hero_melee", (3, 1))                  # defence R W
    bank = int(s3.ps[S.PS_BANK])
    s3.plan(L.ACT_ATTACK, (1, 1), [(a3, 0, d3, 0)])
    K.do_attack(s3.scr, s3.dat, ZERO)
    assert s3.pl[0, S.PL_AETHER] == 5 and s3.pl[1, S.PL_AETHER] == 5
    assert s3.ps[S.PS_BANK] == bank - 4
    assert s3.models[d3, S.MD_WOUNDS] == 0


def test_range_and_line_of_sight_gate_attacks(new_state):
    """RV-C1 / RV-L1: beyond RANGE or behind a rock, no attack."""
    grid = ("S1 s  r  s  S2\n"
            " s  s  s  s  s\n")
    s = new_state(grid, ALL_HIT).clear()
    a = s.add(0, "hero_ranged", (1, 0))                   # RANGE 4
    d = s.add(1, "minion_melee", (3, 0))                  # behind the rock
    s.plan(L.ACT_ATTACK, (1, 0), [(a, 0, d, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    assert len(s.events(L.EV_ATTACK)) == 0
    m = s.add(0, "minion_melee", (1, 1))                  # RANGE 1
    e = s.add(1, "minion_melee", (3, 1))
    s.plan(L.ACT_ATTACK, (1, 1), [(m, 0, e, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    assert len(s.events(L.EV_ATTACK)) == 0


def test_focus_and_minions_pay_once(new_state):
    """RV-C4/C9 (Focus, placeholder): a hero pays each time; a minion type pays once a
    player-turn; Aether returns to the bank."""
    s = new_state(overrides=ALL_BLANK).clear()
    ms = [s.add(0, "minion_melee", (2, 1)) for _ in range(3)]
    t = s.add(1, "brute", (3, 1))
    s.plan(L.ACT_ATTACK, (2, 1), [(m, 0, t, 1) for m in ms])
    bank = int(s.ps[S.PS_BANK])
    K.do_attack(s.scr, s.dat, ZERO)
    assert s.pl[0, S.PL_AETHER] == 3 - 1 and s.ps[S.PS_BANK] >= bank + 1
    assert s.sst[0, L.S_FOCUS] == 3                       # used 3 times, paid once
    s2 = new_state(overrides=ALL_BLANK).clear()
    hs = [s2.add(0, "hero_melee", (2, 1)) for _ in range(2)]
    t2 = s2.add(1, "brute", (3, 1))
    s2.plan(L.ACT_ATTACK, (2, 1), [(h, 0, t2, 1) for h in hs])
    K.do_attack(s2.scr, s2.dat, ZERO)
    assert s2.pl[0, S.PL_AETHER] == 3 - 2                 # 2, then 1 left: cannot pay


def test_explosions_roll_extra_red_dice_up_to_the_cap():
    """RV-D3/D4, AMB-01: each exploding face adds a Red die; a Red die that always explodes
    would chain forever, so the data is refused."""
    with pytest.raises(InputError, match="always explodes"):
        RULESET.prepare({"name": "t", "ruleset": "rivals", "players": 2},
                        overrides=["colours.red.faces=[exploding_hit]"])


def test_explosion_cap_and_unchained(new_state):
    """AMB-01: at most ``explode.cap`` extra dice per roll; unchained, each exploding face
    of the pool's own dice adds one die and the extra dice never explode."""
    s = new_state(overrides=("colours.red.faces=[exploding_hit, hit]",)).clear()
    pool = np.array([0, 1, 0], np.int64)
    res = np.zeros(D.RR_N, np.int64)
    buf = np.zeros(D.MAX_ROLLED, np.int64)
    eng = np.zeros(1, np.int64)
    dr = s.a.dr.copy()
    dr[D.DR_CAP] = 2
    for k in range(200):
        D.roll_pool(pool, True, s.a.faces, s.a.nfaces, dr, np.uint64(k + 1), eng, ZERO, res,
                    buf)
        assert res[D.RR_EXTRA] <= 2
    dr[D.DR_RECURSIVE] = 0.0
    for k in range(200):
        D.roll_pool(pool, True, s.a.faces, s.a.nfaces, dr, np.uint64(k + 1), eng, ZERO, res,
                    buf)
        assert res[D.RR_EXTRA] <= 1


# ---- searches, Lurkers, loot (RV-X, RV-P, RV-I) -------------------------------------------------

DEN = ("S1 s  d  s  S2\n"
       " s  c  s  s  s\n")


def test_search_coral_finds_loot_and_flips(new_state):
    """RV-X2: on an unsearched coral, a Red hit draws loot; AMB-20 flipped either way."""
    s = new_state(DEN, ALL_HIT).clear()
    m = s.add(0, "hero_melee", (1, 1))
    s.deck("loot", [0])                                   # a weapon
    s.plan(L.ACT_CORAL, (1, 1), [(m,)])
    K.do_search(s.scr, s.dat, ZERO, i64(L.ACT_CORAL))
    assert s.models[m, S.MD_UP_ATT] == 1 and s.tiles[s.t(1, 1), S.TL_SEARCHED] == 1
    s.models[m, S.MD_ACTED] = 0
    K.do_search(s.scr, s.dat, ZERO, i64(L.ACT_CORAL))     # searched: nothing more
    assert s.sst[0, L.S_CORAL_SEARCHES] == 1
    s2 = new_state(DEN, ALL_SHIELD).clear()
    m2 = s2.add(0, "hero_melee", (1, 1))
    s2.plan(L.ACT_CORAL, (1, 1), [(m2,)])
    K.do_search(s2.scr, s2.dat, ZERO, i64(L.ACT_CORAL))
    assert s2.gst[L.G_LOOT_FOUND] == 0 and s2.tiles[s2.t(1, 1), S.TL_SEARCHED] == 1


def test_search_den_reveals_a_lurker_and_treasure(new_state):
    """RV-X3: a model beside an unsearched den draws the Lurker card; errata R2 / AMB-34
    treasure pays the searcher and leaves a cave."""
    s = new_state(DEN).clear()
    m = s.add(0, "hero_melee", (1, 0))
    s.deck("lurker", [0])                                 # lurker_small
    s.plan(L.ACT_DEN, (1, 0), [(m, s.t(2, 0))])
    K.do_search(s.scr, s.dat, ZERO, i64(L.ACT_DEN))
    assert s.tiles[s.t(2, 0), S.TL_DEN] == 0 and s.scr[S.X_LUR][0, S.LR_ALIVE] == 1
    s2 = new_state(DEN).clear()
    m2 = s2.add(0, "hero_melee", (1, 0))
    s2.deck("lurker", [4])                                # treasure: 2 loot + 2 Aether
    s2.deck("loot", [0, 20])                              # a weapon, an armour
    s2.plan(L.ACT_DEN, (1, 0), [(m2, s2.t(2, 0))])
    K.do_search(s2.scr, s2.dat, ZERO, i64(L.ACT_DEN))
    assert s2.tiles[s2.t(2, 0), S.TL_DEN] == L.DEN_CAVE
    assert s2.pl[0, S.PL_AETHER] == 5
    assert s2.models[m2, S.MD_UP_ATT] == 1 and s2.models[m2, S.MD_UP_DEF] == 1
    s3 = new_state(DEN).clear()
    m3 = s3.add(0, "hero_melee", (0, 1))                  # not beside the den
    s3.plan(L.ACT_DEN, (0, 1), [(m3, s3.t(2, 0))])
    K.do_search(s3.scr, s3.dat, ZERO, i64(L.ACT_DEN))
    assert s3.tiles[s3.t(2, 0), S.TL_DEN] == L.DEN_HIDDEN


def test_lurker_phase_one_roll_every_neighbour_defends(new_state):
    """RV-P3 (FAQ): the Lurker rolls once and every model beside its den defends."""
    s = new_state(DEN, ALL_HIT).clear()
    a = s.add(0, "minion_melee", (1, 0))
    b = s.add(1, "minion_melee", (3, 0))
    far = s.add(1, "minion_melee", (4, 1))
    s.deck("lurker", [0])
    K.reveal_den(s.scr, s.dat, i64(s.t(2, 0)), i64(-1), i64(-1))
    K.lurker_phase(s.scr, s.dat)
    assert s.gst[L.G_LURKER_ATTACKS] == 1
    assert s.models[a, S.MD_TILE] == S.DEAD and s.models[b, S.MD_TILE] == S.DEAD
    assert s.models[far, S.MD_TILE] >= 0
    assert s.sst[0, L.S_LOST_TO_LURKERS] == 1


def test_unrevealed_dens_do_nothing_unless_the_reading_says_so(new_state):
    """AMB-15: an unsearched den is inert by default; `reveal` reveals it at the phase."""
    s = new_state(DEN, ALL_HIT).clear()
    s.add(0, "minion_melee", (1, 0))
    K.lurker_phase(s.scr, s.dat)
    assert s.gst[L.G_LURKER_ATTACKS] == 0
    s2 = new_state(DEN, ("lurkers.unrevealed_dens=reveal", *ALL_HIT)).clear()
    a = s2.add(0, "minion_melee", (1, 0))
    s2.deck("lurker", [0])
    K.lurker_phase(s2.scr, s2.dat)
    assert s2.gst[L.G_LURKER_ATTACKS] == 1 and s2.models[a, S.MD_TILE] == S.DEAD


def test_killing_a_lurker_pays_and_leaves_a_cave(new_state):
    """RV-P4: the killer's player takes the Lurker's loot and Aether; a cave is left."""
    s = new_state(DEN, ALL_HIT).clear()
    m = s.add(0, "hero_melee", (1, 0))
    s.deck("lurker", [0])                                 # 2 hearts, 1 loot, 2 Aether
    s.deck("loot", [0])
    K.reveal_den(s.scr, s.dat, i64(s.t(2, 0)), i64(-1), i64(-1))
    s.plan(L.ACT_ATTACK, (1, 0), [(m, 1, 0, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    assert s.scr[S.X_LUR][0, S.LR_ALIVE] == 0
    assert s.tiles[s.t(2, 0), S.TL_DEN] == L.DEN_CAVE
    assert s.pl[0, S.PL_AETHER] >= 5 and s.models[m, S.MD_UP_ATT] == 1


def test_loot_slots_and_overflow(new_state):
    """RV-I1 / AMB-23 / AMB-37: one per slot; a second weapon is sold (default), dropped,
    or kept in the Loot Supply."""
    for reading, aether, supply in (("sell", 6, 0), ("drop", 3, 0), ("supply", 3, 1)):
        s = new_state(overrides=(f"loot.overflow={reading}",)).clear()
        m = s.add(0, "hero_melee", (2, 1))
        s.deck("loot", [0, 1])                            # two weapons
        K.draw_loot(s.scr, s.dat, ZERO, i64(m))
        K.draw_loot(s.scr, s.dat, ZERO, i64(m))
        assert s.models[m, S.MD_UP_ATT] == 1
        assert s.pl[0, S.PL_AETHER] == aether and s.pl[0, S.PL_SUPPLY] == supply


# ---- events (RV-E1) ------------------------------------------------------------------------------

def test_designer_events_are_resolved(new_state):
    """RV-E1: after a player's turn the top Event card is done (a designer's deck)."""
    evs = ("events.deck=[{effect: aether_each, value: 2}, {effect: wound_random, value: 9}]",)
    s = new_state(overrides=evs).clear()
    a = s.add(0, "minion_melee", (2, 1))
    s.deck("event", [0, 1])
    K.draw_event(s.scr, s.dat, ZERO)
    assert list(s.pl[:2, S.PL_AETHER]) == [5, 5]
    K.draw_event(s.scr, s.dat, ZERO)
    assert s.models[a, S.MD_TILE] == S.DEAD               # the only model: wounded out


# ---- victory (RV-V) ------------------------------------------------------------------------------

def test_elimination_and_reserve(new_state):
    """RV-V1: the last player with models wins; AMB-22 reserve models keep a player in."""
    s = new_state(overrides=ALL_HIT).clear()
    a = s.add(0, "hero_ranged", (1, 1))
    d = s.add(1, "minion_melee", (3, 1))
    s.add(1, "minion_melee", None)
    s.plan(L.ACT_ATTACK, (1, 1), [(a, 0, d, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    assert s.pl[1, S.PL_ALIVE] == 1 and s.ps[S.PS_OVER] == 0
    s2 = new_state(overrides=("end.reserve_counts_alive=false", *ALL_HIT)).clear()
    a2 = s2.add(0, "hero_ranged", (1, 1))
    d2 = s2.add(1, "minion_melee", (3, 1))
    s2.add(1, "minion_melee", None)
    s2.plan(L.ACT_ATTACK, (1, 1), [(a2, 0, d2, 0)])
    K.do_attack(s2.scr, s2.dat, ZERO)
    assert s2.pl[1, S.PL_ALIVE] == 0 and s2.ps[S.PS_OVER] == 1
    assert s2.pl[0, S.PL_PLACE] == 1 and s2.pl[1, S.PL_PLACE] == 2


def test_simultaneous_elimination_shares_the_win(new_state):
    """AMB-38: the last players lose their last models in one step: they share the win."""
    s = new_state(DEN, ALL_HIT).clear()
    s.add(0, "minion_melee", (1, 0))
    s.add(1, "minion_melee", (3, 0))
    s.deck("lurker", [0])
    K.reveal_den(s.scr, s.dat, i64(s.t(2, 0)), i64(-1), i64(-1))
    K.lurker_phase(s.scr, s.dat)
    assert s.ps[S.PS_OVER] == 1 and s.gst[L.G_END_CAUSE] == L.END_SIMUL
    assert list(s.pl[:2, S.PL_PLACE]) == [1, 1]


# ---- rules by id that the tests above do not name ------------------------------------------

def test_colour_strength_order(new_state):
    """RV-D1: White < Red < Black. Pools list the strongest colour first (black, red,
    white), and data whose ranks contradict the degrade order is refused."""
    s = new_state()
    assert int(s.a.dr[D.DR_BEYOND_TOP]) == 2             # White: the weakest, last
    with pytest.raises(InputError, match="falling rank"):
        RULESET.prepare({"name": "t", "ruleset": "rivals", "players": 2},
                        overrides=["colours.white.rank=5"])


def test_face_types(new_state):
    """RV-D2/D3: the six face types and nothing else; an exploding Aether face gives one
    Aether and one extra Red die, a blank nothing."""
    with pytest.raises(InputError, match="colours"):
        RULESET.prepare({"name": "t", "ruleset": "rivals", "players": 2},
                        overrides=["colours.red.faces=[hit, wild]"])
    s = new_state(overrides=("colours.black.faces=[exploding_aether]",
                         "colours.red.faces=[blank]")).clear()
    pool = np.array([1, 0, 0], np.int64)
    res = np.zeros(D.RR_N, np.int64)
    buf = np.zeros(D.MAX_ROLLED, np.int64)
    eng = np.zeros(1, np.int64)
    D.roll_pool(pool, True, s.a.faces, s.a.nfaces, s.a.dr, np.uint64(7), eng, ZERO, res,
                buf)
    assert res[D.RR_AETHER] == 1 and res[D.RR_EXTRA] == 1
    assert res[D.RR_HITS] == 0 and res[D.RR_SHIELDS] == 0


def test_degrade_and_upgrade_the_weakest_die():
    """RV-D5/D6: degrade Black->Red->White->removed, upgrade White->Red->Black, a Black
    keeps and adds a White; always the weakest die of the pool."""
    p = np.array([1, 1, 1], np.int64)                     # black, red, white
    steps = []
    for _ in range(4):
        D.degrade_weakest(p)
        steps.append(list(p))
    assert steps == [[1, 1, 0], [1, 0, 1], [1, 0, 0], [0, 1, 0]]
    p = np.array([0, 0, 1], np.int64)
    steps = []
    for _ in range(4):
        D.upgrade_weakest(p, np.int64(2))
        steps.append(list(p))
    assert steps == [[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]]


def test_attack_pool_after_degrades_and_upgrades(new_state):
    """RV-C2: the attacker rolls its ATTACK pool after upgrades (a weapon) and degrades
    (Charge): B R, upgraded -> B B, then charged -> B R."""
    from deepsim.rulesets.rivals import board as B
    s = new_state().clear()
    a = s.add(0, "hero_melee", (0, 2))
    pool = np.zeros(3, np.int64)
    sit = np.zeros(L.N_SIT, np.int64)
    B.current_pool(s.models, s.tiles, s.a.units, s.a.modtab, s.a.dr, i64(a), False, ONE,
                   sit, pool)
    assert list(pool) == [2, 0, 0]
    _move(s, a, (1, 2), L.MA_CHARGE)
    B.current_pool(s.models, s.tiles, s.a.units, s.a.modtab, s.a.dr, i64(a), False, ONE,
                   sit, pool)
    assert list(pool) == [1, 1, 0]


def test_decks_are_shuffled_at_setup(new_state):
    """RV-S2: the Loot, Lurker and Event decks are shuffled, each separately: every card
    once, in an order that changes with the seed."""
    cards = ", ".join(f"{{effect: none, value: {v}}}" for v in range(4))
    evs = (f"events.deck=[{cards}]",)
    orders = {"loot": set(), "lurker": set(), "event": set()}
    for seed in range(1, 7):
        s = new_state(overrides=evs, seed=seed)
        hs = s.scr[S.X_HS]
        for name, arr, n_at in (("loot", S.X_LOOT, S.HS_LOOT_N),
                                ("lurker", S.X_LDECK, S.HS_LDECK_N),
                                ("event", S.X_EVDECK, S.HS_EV_N)):
            deck = s.scr[arr][:int(hs[n_at])]
            size = {"loot": 50, "lurker": 5, "event": 4}[name]
            assert sorted(deck.tolist()) == list(range(size))
            orders[name].add(tuple(deck.tolist()))
    assert all(len(o) > 1 for o in orders.values())


def test_loot_supply_holds_five(new_state):
    """RV-S4: a player holds at most 5 unequipped items (AMB-37 ``supply``); the sixth
    extra item is sold (its Aether value) instead."""
    s = new_state(overrides=("loot.overflow=supply",)).clear()
    m = s.add(0, "hero_melee", (2, 1))
    s.deck("loot", [0] * 7)                               # seven weapons
    for _ in range(7):
        K.draw_loot(s.scr, s.dat, ZERO, i64(m))
    assert s.models[m, S.MD_UP_ATT] == 1                  # one equipped
    assert s.pl[0, S.PL_SUPPLY] == 5
    assert s.pl[0, S.PL_AETHER] == 3 + 3                  # the seventh sold (value 3)


def _tokens(s):
    return int(s.ps[S.PS_TOK_M]), int(s.ps[S.PS_TOK_A]), int(s.ps[S.PS_TOK_E])


def test_three_tokens_start_in_movement(new_state):
    """RV-A1: 3 activation tokens per player, starting in the Movement column; a turn
    moves them M -> A -> E (RV-A2/A3), so attack-column activations never outnumber the
    movement ones (RV-A4)."""
    s = new_state(overrides=ALL_BLANK).clear()
    s.add(0, "minion_melee", (0, 2))
    s.add(1, "minion_melee", (6, 0))
    K.play_turn(s.scr, s.dat, ZERO)
    m, a, e = _tokens(s)
    acts = s.events(L.EV_ACTIVATION)[:, 4].tolist()
    passes = s.events(L.EV_PASS)[:, 4].tolist()
    in_m = sum(x in (L.ACT_MOVE, L.ACT_REINFORCE) for x in acts) + passes.count(0)
    in_a = len(acts) + passes.count(1) - sum(x in (L.ACT_MOVE, L.ACT_REINFORCE)
                                             for x in acts)
    assert m + a + e == 3 and in_m == 3 - m and in_a == e and in_a <= in_m
    s1 = new_state(overrides=("activation.tokens=1", *ALL_BLANK)).clear()
    s1.add(0, "minion_melee", (0, 2))
    s1.add(1, "minion_melee", (6, 0))
    K.play_turn(s1.scr, s1.dat, ZERO)
    assert sum(_tokens(s1)) == 1


def test_turn_ends_when_every_model_has_acted_or_none_is_left(new_state):
    """RV-A7: the turn ends once every model has attacked (the tokens left are forfeited)
    or when the player has no model to activate."""
    s = new_state(overrides=ALL_HIT).clear()
    a = s.add(0, "minion_melee", (2, 1))
    b = s.add(1, "brute", (3, 1))                         # 5 hearts: survives 2 hits
    K.play_turn(s.scr, s.dat, ZERO)
    assert s.models[a, S.MD_ACTED] == 1 and s.models[b, S.MD_WOUNDS] == 2
    assert len(s.events(L.EV_ATTACK)) == 1
    m, a_col, e = _tokens(s)
    assert e == 1 and m + a_col == 2                      # ended early: 2 tokens forfeited
    s2 = new_state().clear()
    s2.add(1, "minion_melee", (3, 1))                     # player 0 has nothing
    K.play_turn(s2.scr, s2.dat, ZERO)
    assert _tokens(s2) == (3, 0, 0)


def test_round_order_turns_events_then_lurkers(new_state):
    """RV-R: each round every player's turn in seat order, an Event after each turn
    (RV-E1), then the Lurker phase; the next round starts with the first player."""
    evs = ("events.deck=[{effect: none, value: 0}]", "end.max_rounds=2", *ALL_BLANK)
    s = new_state(overrides=evs).clear()
    s.add(0, "minion_melee", (0, 2))
    s.add(1, "minion_melee", (6, 0))
    s.ps[S.PS_ROUND] = 0
    K.run_rounds(s.scr, s.dat)
    ev = s.events()
    keep = np.isin(ev[:, 2], [L.EV_TURN, L.EV_EVENT, L.EV_LURKER_PHASE])
    seq = [(int(r[0]), int(r[2]), int(r[1])) for r in ev[keep]]
    one = [(L.EV_TURN, 0), (L.EV_EVENT, 0), (L.EV_TURN, 1), (L.EV_EVENT, 1),
           (L.EV_LURKER_PHASE, 1)]
    assert seq == [(1, k, p) for k, p in one] + [(2, k, p) for k, p in one]


def test_rock_entry_miss_ends_the_move(new_state):
    """RV-M3 (rock entry follows RV-T1): a missed rock roll ends the move at once, on the
    tile it had reached; the model never stands on the rock."""
    s = new_state(ROCKS, ("colours.red.faces=[shield]",)).clear()
    a = s.add(0, "minion_melee", (0, 1))
    got = _move(s, a, (3, 0), L.MA_SWIM)
    assert got != s.t(3, 0) and s.tiles[got, S.TL_TYPE] != L.TT_ROCK
    assert s.models[a, S.MD_TILE] == got
    assert len(s.events(L.EV_ROCK)) == 1


def test_lurker_card_stats(new_state):
    """RV-P1: a Lurker attacks and defends with its card's dice and dies at its HEARTS
    (lurker_large: attack B B, defence B R, 4 hearts, 2 loot, 4 Aether). Its ABILITY is
    skipped (the card texts are missing)."""
    s = new_state(DEN, ALL_HIT).clear()
    lk = s.dat[K.D_LURK]
    out = np.zeros(3, np.int64)
    K.lurker_pool(s.dat, i64(2), False, out)
    assert list(out) == [2, 0, 0]
    K.lurker_pool(s.dat, i64(2), True, out)
    assert list(out) == [1, 1, 0]
    assert (lk[2, L.LK_HEARTS], lk[2, L.LK_LOOT], lk[2, L.LK_AETHER]) == (4, 2, 4)
    m = s.add(0, "hero_melee", (1, 0))                    # B R: 2 hits, no shields
    s.deck("lurker", [2])
    K.reveal_den(s.scr, s.dat, i64(s.t(2, 0)), i64(-1), i64(-1))
    s.plan(L.ACT_ATTACK, (1, 0), [(m, 1, 0, 0)])
    K.do_attack(s.scr, s.dat, ZERO)
    lur = s.scr[S.X_LUR]
    assert lur[0, S.LR_WOUNDS] == 2 and lur[0, S.LR_ALIVE] == 1


def test_lurkers_never_move(new_state):
    """RV-P2: a Lurker stays in its den through the Lurker phase, and no model may stop
    on its tile (RV-T2)."""
    s = new_state(DEN, ALL_BLANK).clear()
    a = s.add(0, "minion_melee", (1, 0))
    s.deck("lurker", [3])                                 # lurker_huge: 6 hearts
    K.reveal_den(s.scr, s.dat, i64(s.t(2, 0)), i64(-1), i64(-1))
    K.lurker_phase(s.scr, s.dat)
    K.lurker_phase(s.scr, s.dat)
    lur = s.scr[S.X_LUR]
    assert lur[0, S.LR_TILE] == s.t(2, 0) and lur[0, S.LR_ALIVE] == 1
    assert _move(s, a, (2, 0)) == -1


def test_events_affect_revealed_lurkers(new_state):
    """RV-P5: an Event that wounds a random model may hit a revealed Lurker too (here the
    only target): it dies and leaves a cave."""
    evs = ("events.deck=[{effect: wound_random, value: 9}]",)
    s = new_state(DEN, evs).clear()
    s.deck("lurker", [0])
    K.reveal_den(s.scr, s.dat, i64(s.t(2, 0)), i64(-1), i64(-1))
    s.deck("event", [0])
    K.draw_event(s.scr, s.dat, ZERO)
    assert s.scr[S.X_LUR][0, S.LR_ALIVE] == 0
    assert s.tiles[s.t(2, 0), S.TL_DEN] == L.DEN_CAVE
