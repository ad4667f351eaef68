"""DEEPFALL rule tests: one test per rulebook rule, on hand-built states.

Each test names the rulebook section (§) it checks and, where the rulebook is silent, the
gap (A..) of the designers' notes whose default it checks. Tests call the kernel's own rule
functions (``collapse``, ``maw_phase``, ``taken``, ``cash_out``, ``do_claim``,
``claim_cost``, ``trinity_ok``, ``try_claim``, ``last_stand_price``, ``muster``,
``setup``) on a state built by the ``new_state`` fixture (this folder's ``conftest.py``);
turn-level rules go through ``play_turn`` with dice whose faces all show one symbol (the
roll is certain) and a bot whose knobs make its decisions certain (see ``STILL`` in the
conftest). The module's helpers (``two``, ``dice_state``, ``run_games``) take the
fixture they build with as their first argument.

The last group changes one ruleset parameter and checks the outcome changes: the kernel
reads the data, not constants.

Numbers used below (ruleset defaults = the rulebook): Depth Values 1,2,2,3,3,4 (§3.2);
tile value / threat / lock (§7.2): Threshold 1/0/0, Stone 2/1/0, Cistern 3/1/1, Den 3/3/0,
Crypt 3/2/1, Hall 4/1/1, Library 4/1/2, Forge 5/4/1, Vault 6/2/2, Throne 7/5/2.
"""

from __future__ import annotations

import numpy as np
import pytest

from deepsim.rulesets.deepfall import board as B
from deepsim.rulesets.deepfall import kernel as K
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.schema import CALLINGS, DICE, LINEAGES, ROOMS

# the kernel's die-type and room-theme codes, numbered as the conftest's State numbers them
DIE = {name: i for i, name in enumerate(DICE)}
ROOM = {name: i for i, name in enumerate(ROOMS)}

DEPTH = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4}          # §3.2
VALUE = {"threshold": 1, "stone": 2, "cistern": 3, "den": 3, "crypt": 3, "hall": 4,
         "library": 4, "forge": 5, "vault": 6, "throne": 7}
THREAT_LOCK = {"threshold": (0, 0), "stone": (1, 0), "cistern": (1, 1), "den": (3, 0),
               "crypt": (2, 1), "hall": (1, 1), "library": (1, 2), "forge": (4, 1),
               "vault": (2, 2), "throne": (5, 2)}
COMBAT = {"den", "crypt", "forge", "throne"}          # §4 Gnoll: Den/Forge/Crypt/Throne

# Company halves chosen so that nothing but the rule under test acts.
PLAIN = ("wisp", "lorekeeper")       # only +1 hand size and solo Vaults
PLAIN2 = ("golem_born", "warden")    # a second seat (effects irrelevant unless stated)
RIVAL = ("dvergar", "reaver")


def two(new_state, first=PLAIN, second=RIVAL, overrides=()):
    """A 2-player state with an empty dungeon (every room closed)."""
    st = new_state([first, second], overrides=overrides)
    st.empty_dungeon()
    return st


def dice_state(new_state, company=PLAIN, overrides=(), players=2, **bag):
    """Seat 0 on Floor 1 with a bag of one-symbol dice: ``faith=2, dread=4`` etc.

    Die types are used as carriers of one symbol each: Recruit = Faith, Warrior = Dread,
    Scholar = Mettle, Rogue = Greed, Champion = Steel, Priest = Cunning. The hand size is
    raised to 8 so the whole bag is drawn (no draw luck) unless ``hand`` is given.
    """
    carriers = {"faith": "recruit", "dread": "warrior", "mettle": "scholar",
                "greed": "rogue", "steel": "champion", "cunning": "priest"}
    comps = [company] + [c for c in (PLAIN2, RIVAL, ("sylphid", "hierophant"),
                                     ("revenant", "wardancer"), ("gnoll", "prospector"))
                         if c[0] != company[0] and c[1] != company[1]][: players - 1]
    st = new_state(comps, overrides=overrides)
    st.empty_dungeon()
    for sym, die in carriers.items():
        st.die_faces(die, sym)
    st.set_rule("hand_size", bag.pop("hand", 8))
    st.set_bag(0, **{carriers[k]: v for k, v in bag.items()})
    st.put_crew(0, 1)
    return st


def dread_event(st, p=0):
    """(total Dread, canceled, uncanceled) of seat p's last Dread resolution."""
    ev = st.events(L.EV_DREAD)
    ev = ev[ev[:, 1] == p]
    assert len(ev) >= 1, "no Dread resolution traced"
    return tuple(int(x) for x in ev[-1, 3:6])


def run_games(prepared, count=200, overrides=(), **scenario):
    prep = prepared(overrides, **scenario)
    return K.play_games(np.int64(prep.scenario["seed"]), np.int64(0), np.int64(count),
                        *prep.compiled["arrays"].kernel_args())


# =========================================================================================
# §3 Setup
# =========================================================================================

@pytest.mark.parametrize("n, rooms, track", [(2, 4, 5), (3, 4, 6), (4, 4, 7), (5, 5, 8),
                                             (6, 6, 9)])
def test_3_A2_scaling_table_rooms_per_floor_and_dread_track(n, rooms, track, new_state):
    """§3.1 / §9 scaling table (A2: the §9 table wins): rooms per floor and Dread track."""
    st = new_state(list(zip(LINEAGES, CALLINGS))[:n])
    assert st.slots == rooms
    assert st.g[B.GS_DREAD_LEN] == track
    assert (st.gone[:, :rooms] == 0).all()          # every floor has `rooms` open slots
    assert (st.gone[:, rooms:] == 1).all()


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_3_1_floor_6_holds_the_throne_and_a_vault(n, new_state):
    """§3.1: Floor 6 holds the Throne and the Vaults (whatever the dungeon draw)."""
    for seed in range(1, 21):
        st = new_state(list(zip(LINEAGES, CALLINGS))[:n], seed=seed)
        floor6 = list(st.theme[5, :st.slots])
        assert ROOM["throne"] in floor6, (seed, floor6)
        assert ROOM["vault"] in floor6, (seed, floor6)


def test_3_3_to_3_5_setup_maw_below_floor_6_dread_zero_crews_on_floor_1(new_state):
    """§3.3 the Maw starts below Floor 6, Dread track 0; §3.4-3.5 starting bag, 0 Glory."""
    st = new_state([("dvergar", "reaver"), ("golem_born", "warden"), ("wisp", "hierophant")])
    assert st.g[B.GS_STEPS] == 0 and st.g[B.GS_COLLAPSED] == 0 and st.g[B.GS_DREAD] == 0
    assert (st.gone[:, :st.slots] == 0).all()
    for p, lin in enumerate(("dvergar", "golem_born", "wisp")):
        assert st.sd[p, B.SD_FLOOR] == 1                 # A13 the frontier
        assert st.glory[p] == 0 and st.loot[p] == 0
        assert list(st.bag[p]) == list(st.a.lin_bag[LINEAGES.index(lin)])


# =========================================================================================
# §3.2 / §6B.2 Collapse scoring
# =========================================================================================

@pytest.mark.parametrize("floor", [1, 2, 3, 4, 5, 6])
def test_3_2_collapse_glory_is_tile_value_times_depth_value(floor, new_state):
    """§3.2: a room's Glory at collapse = tile value x its floor's Depth Value."""
    st = two(new_state)
    st.set_floor(floor, ["hall"])
    st.place(floor, 0, 0, 1.0)
    st.collapse(floor)
    assert st.glory[0] == 4 * DEPTH[floor]
    assert st.glory[1] == 0


def test_3_2_vault_on_floor_6_is_worth_24(new_state):
    """§3.2: "A Vault, value 6, on Floor 6 is worth 6 x 4 = 24"."""
    st = two(new_state)
    st.set_floor(6, ["vault"])
    st.place(6, 0, 1, 1.0)
    st.collapse(6)
    assert st.glory[1] == 24


def test_6B2_majority_takes_the_glory(new_state):
    """§6B.2: whoever has the most marker strength takes the room's Glory."""
    st = two(new_state)
    st.set_floor(4, ["hall", "den"])
    st.place(4, 0, 0, 3.0)
    st.place(4, 0, 1, 2.0)
    st.place(4, 1, 0, 1.0)
    st.place(4, 1, 1, 4.0)
    st.collapse(4)
    assert st.glory[0] == 4 * 3          # Hall to seat 0
    assert st.glory[1] == 3 * 3          # Den to seat 1


def test_6B2_ties_split_rounding_down(new_state):
    """§6B.2: ties split, rounding down (Den on Floor 4 = 9 -> 4 each; Throne 28 / 3 -> 9)."""
    st = new_state([PLAIN, RIVAL, PLAIN2])
    st.empty_dungeon()
    st.set_floor(4, ["den"])
    st.set_floor(6, ["throne"])
    st.place(4, 0, 0, 2.0)
    st.place(4, 0, 1, 2.0)
    for p in range(3):
        st.place(6, 0, p, 3.0)
    st.collapse(6)
    assert list(st.glory[:3]) == [9, 9, 9]
    st.collapse(4)
    assert list(st.glory[:3]) == [13, 13, 9]


def test_6B2_warden_markers_count_double(new_state):
    """§4 / §6B.2: Warden control markers count double for the majority."""
    st = two(new_state, first=("golem_born", "warden"), second=PLAIN)
    st.set_floor(2, ["stone"])
    st.do_claim(2, 0, 0)                  # Warden marker, strength 1 -> counts 2
    st.do_claim(2, 0, 1)                  # plain marker, strength 1
    assert st.act_str[1, 0, 0] == 2.0
    assert st.act_str[1, 0, 1] == 1.0
    st.collapse(2)
    assert st.glory[0] == 2 * 2 and st.glory[1] == 0


def test_6B2_fallen_markers_count_as_one(new_state):
    """§6B.2 / §7.3: a Fallen marker counts 1, whatever strength its marker had."""
    st = two(new_state)
    st.set_floor(3, ["hall", "hall"])
    st.do_claim(3, 0, 0, surplus_s=2)     # strength 3
    st.do_claim(3, 1, 0, surplus_s=2)     # strength 3
    st.cash_out(0)                        # both markers become Fallen
    st.do_claim(3, 0, 1, surplus_s=1)     # rival strength 2 beats the Fallen 1
    st.do_claim(3, 1, 1)                  # rival strength 1 ties the Fallen 1
    glory_before = st.glory[0]
    st.collapse(3)
    assert st.glory[1] == 8 + 4           # Hall 8 + half of the tied Hall 8
    assert st.glory[0] - glory_before == 4


def test_A35_warden_fallen_markers_count_one_not_two(new_state):
    """§6B.2 "Fallen markers count as 1" (A35: Warden's double is for active markers)."""
    st = two(new_state, first=("golem_born", "warden"), second=PLAIN)
    st.set_floor(2, ["stone"])
    st.do_claim(2, 0, 0)                  # Warden: active strength 2
    st.cash_out(0)                        # -> one Fallen marker
    st.do_claim(2, 0, 1)                  # plain strength 1: a tie with the Fallen 1
    g0 = st.glory[0]
    st.collapse(2)
    assert st.glory[0] - g0 == 2 and st.glory[1] == 2


def test_6B2_A10_unclaimed_half_value_rises_to_same_slot_above_rounded_down(new_state):
    """§6B.2 value rises: half of each unclaimed room's value (rounded down, A10) goes to
    the room in the same slot on the floor above, and scores there."""
    st = two(new_state)
    st.set_floor(3, ["hall", "den", "threshold", "library"])
    st.set_floor(2, ["stone", "stone", "stone", "stone"])
    st.set_floor(1, ["threshold", "threshold", "threshold", "threshold"])
    st.collapse(3)
    assert list(st.plunder[1, :4]) == [2, 1, 0, 2]
    assert st.glory[0] == 0 and st.glory[1] == 0
    st.place(2, 1, 0, 1.0)
    st.collapse(2)
    assert st.glory[0] == (2 + 1) * 2     # (tile 2 + plunder 1) x Depth 2
    # the three unclaimed Floor 2 rooms rise again: (2+2)//2, (2+0)//2, (2+2)//2
    assert list(st.plunder[0, :4]) == [2, 0, 1, 2]


def test_6B2_claimed_rooms_do_not_rise(new_state):
    """§6B.2: only *unclaimed* rooms send value up."""
    st = two(new_state)
    st.set_floor(4, ["forge"])
    st.set_floor(3, ["stone"])
    st.place(4, 0, 1, 1.0)
    st.collapse(4)
    assert st.plunder[2, 0] == 0


def test_6B2_A30_rising_value_includes_plunder(new_state):
    """A30: the half that rises includes plunder already risen into the room."""
    st = two(new_state)
    st.set_floor(4, ["den"])
    st.set_floor(3, ["stone"])
    st.plunder[3, 0] = 5
    st.collapse(4)
    assert st.plunder[2, 0] == (3 + 5) // 2


# =========================================================================================
# §6B.2 / §7.3 The Maw Takes
# =========================================================================================

def test_6B2_A14_A16_taken_without_last_stand_loses_loot_and_markers(new_state):
    """§7.3 / A14 / A16: a crew Taken without a Last Stand loses its unbanked Loot and all
    its markers (a rival then inherits the room); crews on other floors are not Taken."""
    st = two(new_state)
    st.set_floor(2, ["hall"])
    st.put_crew(0, 3, deepest=4)
    st.loot[0] = 10.0
    st.place(2, 0, 0, 3.0)                # seat 0 leads the Hall above
    st.place(2, 0, 1, 1.0)
    st.put_crew(1, 2)
    st.loot[1] = 6.0
    st.collapse(3)
    assert st.glory[0] == 0 and st.loot[0] == 0
    assert st.act_cnt[:, :, 0].sum() == 0 and st.act_str[:, :, 0].sum() == 0
    assert st.fallen[:, :, 0].sum() == 0
    assert st.seat_int(0, L.S_TAKEN_NO_STAND) == 1
    assert st.seat_flt(0, L.SF_LOOT_LOST) == 10.0
    assert st.sd[0, B.SD_FLOOR] == 1                      # mustered afresh (A13)
    assert st.sd[1, B.SD_FLOOR] == 2 and st.loot[1] == 6.0  # not on the floor: untouched
    st.collapse(2)                                        # seat 1 takes the Hall
    assert st.glory[1] == 4 * 2 and st.glory[0] == 0


def test_6B2_rooms_of_the_collapsing_floor_score_before_the_crew_is_taken(new_state):
    """§6B.2 order: score the floor, then the Maw takes it and anyone on it."""
    st = two(new_state)
    st.set_floor(4, ["den"])
    st.put_crew(0, 4)
    st.place(4, 0, 0, 1.0)
    st.collapse(4)
    assert st.glory[0] == 3 * 3
    assert st.seat_int(0, L.S_TAKEN_NO_STAND) == 1


def test_7_3_A6_worthy_end_pays_deepest_floor_x_2_5_plus_loot(new_state):
    """§7.3 Worthy End = deepest floor x 2.5 (A6: floor number; unbanked Loot kept)."""
    st = two(new_state, first=("dvergar", "reaver"), second=PLAIN)
    st.g[B.GS_COLLAPSED] = 1
    st.put_crew(0, 5, deepest=6)
    st.sd[0, B.SD_STAND] = 1
    st.loot[0] = 7.0
    st.collapse(5)
    assert st.glory[0] == pytest.approx(6 * 2.5 + 7)
    assert st.seat_flt(0, L.SF_WORTHY) == pytest.approx(22.0)
    assert st.seat_int(0, L.S_WORTHY_ENDS) == 1 and st.seat_int(0, L.S_TAKEN_NO_STAND) == 0


def test_4_A20_wardancer_worthy_end_x2_2_on_top_of_x2_5(new_state):
    """§4 Wardancer Worthy End x2.2, on top of x2.5 (A20): deepest 6 -> 6 x 2.5 x 2.2."""
    st = two(new_state, first=("wisp", "wardancer"), second=PLAIN2)
    st.g[B.GS_COLLAPSED] = 1
    st.put_crew(0, 5, deepest=6)
    st.sd[0, B.SD_STAND] = 1
    st.loot[0] = 3.0
    st.collapse(5)
    assert st.glory[0] == pytest.approx(6 * 2.5 * 2.2 + 3)


def test_7_3_A29_last_stand_consumes_held_rooms_so_no_rival_inherits(new_state):
    """§7.3 / A29: at a Worthy End the Maw consumes every room where the crew has the
    majority, unscored (no rival inherits, nothing rises); other rooms stay."""
    st = two(new_state)
    st.set_floor(4, [])
    st.set_floor(3, ["hall", "library"])
    st.set_floor(2, ["forge", "cistern"])
    st.put_crew(0, 4)
    st.sd[0, B.SD_STAND] = 1
    st.place(2, 0, 0, 3.0)                # held by seat 0 (rival 1)
    st.place(2, 0, 1, 1.0)
    st.place(3, 1, 0, 2.0)                # held by seat 0 alone
    st.place(2, 1, 0, 1.0)                # seat 0 trails here: not held, not consumed
    st.place(2, 1, 1, 3.0)
    st.collapse(4)
    assert st.gone[1, 0] == 1 and st.gone[2, 1] == 1
    assert st.gone[1, 1] == 0 and st.gone[2, 0] == 0
    assert st.seat_int(0, L.S_CONSUMED) == 2
    assert st.act_cnt[:, :, 0].sum() == 0
    g0 = st.glory[0]
    st.collapse(3)
    assert st.plunder[1, 1] == 0          # the consumed Library did not rise
    st.collapse(2)
    assert st.glory[1] == 3 * 2           # only the Cistern: the Forge was consumed
    assert st.glory[0] == g0


@pytest.mark.parametrize("via", ["cash_out", "taken"])
def test_6B_A13_fresh_crew_musters_on_floor_1_with_the_starting_bag(via, new_state):
    """A13: a fresh company musters at Floor 1 with its Lineage's starting bag again
    (after a Cash Out §7.3 or after being Taken §6B)."""
    st = two(new_state, first=("golem_born", "hierophant"))
    st.set_floor(4, [])
    st.put_crew(0, 4, deepest=5)
    st.set_bag(0, relic=3, champion=2)
    st.loot[0] = 5.0
    st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT] = 3, 1
    st.sd[0, B.SD_PROG_STEEL], st.sd[0, B.SD_PROG_CUNNING] = 2, 1
    crews = st.seat_int(0, L.S_CREWS)
    if via == "cash_out":
        st.cash_out(0)
    else:
        st.collapse(4)
    assert st.sd[0, B.SD_FLOOR] == 1 and st.sd[0, B.SD_DEEPEST] == 1
    assert st.sd[0, B.SD_STAND] == 0
    assert st.sd[0, B.SD_PROG_SLOT] == -1 and st.sd[0, B.SD_PROG_STEEL] == 0
    assert st.bag_of(0) == {"recruit": 4, "warrior": 2, "priest": 2}
    assert st.loot[0] == 0
    assert st.seat_int(0, L.S_CREWS) == crews + 1
    assert st.sd[0, B.SD_LIN] == LINEAGES.index("golem_born")       # same company
    assert st.sd[0, B.SD_CAL] == CALLINGS.index("hierophant")


@pytest.mark.parametrize("via", ["cash_out", "taken"])
def test_param_muster_bag_current_keeps_the_players_dice(via, new_state):
    """turn.muster_bag=current (A13's other reading): the fresh company takes the player's
    dice as they are (recruits kept, lost dice gone), not the starting bag; the game's first
    crews still take the starting bag."""
    st = two(new_state, first=("golem_born", "hierophant"), overrides=["turn.muster_bag=current"])
    assert st.bag_of(0) == {"recruit": 4, "warrior": 2, "priest": 2}
    st.set_floor(4, [])
    st.put_crew(0, 4, deepest=5)
    st.set_bag(0, relic=3, champion=2)
    crews = st.seat_int(0, L.S_CREWS)
    if via == "cash_out":
        st.cash_out(0)
    else:
        st.collapse(4)
    assert st.bag_of(0) == {"relic": 3, "champion": 2}
    assert st.sd[0, B.SD_FLOOR] == 1 and st.seat_int(0, L.S_CREWS) == crews + 1


# =========================================================================================
# §6B.1 / §9 The Maw
# =========================================================================================

def test_6B1_A1_maw_advances_one_step_per_round_two_steps_per_floor(new_state):
    """§6B.1 the Maw rises each round; A1: 1 step per round, 2 steps per floor."""
    st = two(new_state)
    st.set_floor(6, ["forge", "den"])
    st.maw_phase()
    assert st.g[B.GS_STEPS] == 1 and st.g[B.GS_COLLAPSED] == 0
    assert len(st.events(L.EV_MAW)) == 0 and st.gone[5, 0] == 0   # Floor 6 threatened
    st.maw_phase()
    assert st.g[B.GS_STEPS] == 2 and st.g[B.GS_COLLAPSED] == 1
    assert [int(e[3]) for e in st.events(L.EV_MAW)] == [6]       # ... then collapsed
    assert (st.gone[5] == 1).all()


def test_6B1_A15_full_dread_track_adds_a_step_then_resets_to_zero(new_state):
    """§6B.1 +1 step when the Dread track is full, then reset (A15: overflow lost)."""
    st = two(new_state)
    st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN] + 3
    st.maw_phase()
    assert st.g[B.GS_STEPS] == 2
    assert st.g[B.GS_DREAD] == 0
    assert st.g[B.GS_COLLAPSED] == 1
    assert st.gi[L.G_DREAD_FILLS] == 1


def test_6B1_dread_track_not_full_adds_no_step(new_state):
    """§6B.1: below full, the track adds nothing and keeps its Dread."""
    st = two(new_state)
    st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN] - 1
    st.maw_phase()
    assert st.g[B.GS_STEPS] == 1
    assert st.g[B.GS_DREAD] == st.g[B.GS_DREAD_LEN] - 1


def test_9_A31_never_more_than_one_collapse_per_round_extra_step_deferred(new_state):
    """§9 / B8: the Maw never collapses more than one floor a round; A31: the step held
    back is deferred (kept), not lost, and counted."""
    st = two(new_state)
    st.g[B.GS_STEPS] = 3                  # a backlog: Floor 6 due after 2 steps
    st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN]
    st.set_floor(5, ["hall"])
    st.maw_phase()                        # 3 + 1 + 1 = 5 steps: Floors 6 and 5 due
    assert st.g[B.GS_COLLAPSED] == 1
    assert [int(e[3]) for e in st.events(L.EV_MAW)] == [6]
    assert st.gone[4, 0] == 0             # Floor 5 still stands
    assert st.g[B.GS_STEPS] == 5          # deferred, not lost
    assert st.gi[L.G_DEFERRED] == 1
    st.maw_phase()                        # 6 steps: Floor 5 (and 4) due, one collapses
    assert st.g[B.GS_COLLAPSED] == 2
    assert [int(e[3]) for e in st.events(L.EV_MAW)] == [6, 5]
    assert st.gi[L.G_DEFERRED] == 1    # docs/RULES.md A31: a held-back collapse counts once


def test_6B_game_ends_when_floor_1_collapses_final_crews_not_remustered(new_state):
    """§6B: the game ends the instant Floor 1 collapses; crews still on it are Taken
    (A14) and no fresh company is mustered."""
    st = two(new_state)
    st.g[B.GS_COLLAPSED] = 5
    st.g[B.GS_STEPS] = 11
    st.loot[0] = 4.0
    st.put_crew(0, 1)
    st.put_crew(1, 1)
    crews = st.seat_int(0, L.S_CREWS)
    st.maw_phase()
    assert st.g[B.GS_COLLAPSED] == 6
    assert st.seat_int(0, L.S_TAKEN_FINAL) == 1 and st.seat_int(1, L.S_TAKEN_FINAL) == 1
    assert st.seat_int(0, L.S_CREWS) == crews
    assert st.loot[0] == 0


def test_B4_a_crew_taken_before_its_first_turn_is_counted_apart(new_state):
    """B4 measurement: a crew mustered after a Cash Out in the last round and Taken when
    Floor 1 collapses never had a turn to declare a Last Stand; it counts in
    ``taken_unplayed``, not in ``taken_no_stand`` (nor its final-collapse part)."""
    st = two(new_state)
    st.g[B.GS_COLLAPSED] = 5
    st.g[B.GS_STEPS] = 11
    st.put_crew(0, 1)                                 # seat 0 has played this crew
    st.cash_out(1)                                    # seat 1 retires: a fresh crew
    assert st.sd[1, B.SD_CREW_TURNS] == 0 and st.sd[1, B.SD_FLOOR] == 1
    st.maw_phase()
    assert (st.seat_int(0, L.S_TAKEN_NO_STAND), st.seat_int(0, L.S_TAKEN_FINAL),
            st.seat_int(0, L.S_TAKEN_UNPLAYED)) == (1, 1, 0)
    assert (st.seat_int(1, L.S_TAKEN_NO_STAND), st.seat_int(1, L.S_TAKEN_FINAL),
            st.seat_int(1, L.S_TAKEN_UNPLAYED)) == (0, 0, 1)
    taken = st.events(L.EV_TAKEN)
    assert list(taken[taken[:, 1] == 1][:, 7]) == [0]       # traced: no turn played


def test_6B_whole_games_end_at_floor_1_collapse(prepared):
    """§6B / §9: every game plays until Floor 1 collapses, then stops (traced game)."""
    gi, _, _, _ = run_games(prepared, 100)
    assert (gi[:, L.G_COLLAPSED] == 6).all()
    assert (gi[:, L.G_TRUNCATED] == 0).all()
    prep = prepared()
    a = prep.compiled["arrays"]
    *_, ev = K.trace_game(np.int64(1), np.int64(0), 200_000, *a.kernel_args())
    kinds = ev[:, 2]
    maws = np.nonzero(kinds == L.EV_MAW)[0]
    assert [int(ev[i, 3]) for i in maws] == [6, 5, 4, 3, 2, 1]
    after = kinds[maws[-1]:]
    assert L.EV_ROUND not in after and L.EV_ROLL not in after
    assert kinds[-1] == L.EV_END


def test_6A_6B3_turns_go_clockwise_and_the_first_player_marker_passes(prepared):
    """§6A players take turns clockwise; §3.5 / §6B.3 the first-player marker passes each
    round (traced 4-player game: round r starts with seat (r - 1) mod 4)."""
    prep = prepared()
    *_, ev = K.trace_game(np.int64(1), np.int64(3), 200_000,
                          *prep.compiled["arrays"].kernel_args())
    rounds = sorted({int(r) for r in ev[ev[:, 2] == L.EV_ROUND][:, 0]})
    assert len(rounds) >= 6
    for r in rounds:
        start = ev[(ev[:, 2] == L.EV_ROUND) & (ev[:, 0] == r)]
        assert int(start[0, 1]) == (r - 1) % 4
        turns = [int(x) for x in ev[(ev[:, 2] == L.EV_DREAD) & (ev[:, 0] == r)][:, 1]]
        assert turns == [(r - 1 + i) % 4 for i in range(4)], (r, turns)


# =========================================================================================
# §7.3 Exits
# =========================================================================================

def test_7_3_cash_out_banks_loot_plus_deepest_x2_and_markers_become_fallen(new_state):
    """§7.3 Cash Out: bank Loot + deepest floor x 2 (A17 1 Loot = 1 Glory); the markers
    become Fallen markers (strength 1 each)."""
    st = two(new_state)
    st.set_floor(2, ["hall"])
    st.set_floor(3, ["stone", "stone"])
    st.put_crew(0, 2, deepest=4)
    st.loot[0] = 9.0
    st.place(2, 0, 0, 5.0, count=2)
    st.place(3, 1, 0, 2.0, count=1)
    st.cash_out(0)
    assert st.glory[0] == 9 + 4 * 2
    assert st.act_cnt[:, :, 0].sum() == 0
    assert st.fallen[1, 0, 0] == 2 and st.fallen[2, 1, 0] == 1
    def strength(fi, s, q):
        return st.call(B.strength_of, fi=np.int64(fi), s=np.int64(s), q=np.int64(q))

    assert strength(1, 0, 0) == 2.0
    assert strength(2, 1, 0) == 1.0
    assert st.seat_int(0, L.S_CASH_OUTS) == 1


def test_7_3_fallen_markers_still_score_at_later_collapses(new_state):
    """§7.3: Fallen markers "still score at every future collapse"."""
    st = two(new_state)
    st.set_floor(3, ["library"])
    st.place(3, 0, 0, 1.0)
    st.cash_out(0)
    g0 = st.glory[0]
    st.collapse(3)
    assert st.glory[0] - g0 == 4 * 2


def test_7_3_A7_last_stand_costs_2_mettle_without_a_held_vault_or_throne(new_state):
    """§7.3 / A7: a Last Stand costs 2 Mettle unless free."""
    st = two(new_state)
    st.set_floor(6, ["vault", "throne"])
    st.set_floor(5, ["forge"])
    st.place(5, 0, 0, 3.0)                # a held Forge does not make it free
    assert st.last_stand_price(0) == 2


@pytest.mark.parametrize("room", ["vault", "throne"])
def test_7_3_A29_last_stand_free_when_holding_a_vault_or_throne(room, new_state):
    """§7.3: free if you hold a Throne/Vault (A29: holding = strict majority)."""
    st = two(new_state)
    st.set_floor(6, ["stone", room])
    st.place(6, 1, 0, 2.0)
    st.place(6, 1, 1, 1.0)
    assert st.last_stand_price(0) == 0
    st.place(6, 1, 1, 1.0)                # a tie is not holding
    assert st.last_stand_price(0) == 2


def test_4_wardancer_last_stand_is_free(new_state):
    """§4 / §7.3: a Wardancer's Last Stand is free (by card: price -1)."""
    st = two(new_state, first=("gnoll", "wardancer"))
    assert st.last_stand_price(0) == -1


def test_7_3_A7_declaring_a_last_stand_in_a_turn_pays_2_mettle(new_state):
    """§7.3 / A7: the Last Stand is declared at the exit for 2 Mettle; with 1 it cannot."""
    for mettle, declared in ((2, 1), (1, 0)):
        st = dice_state(new_state, mettle=mettle, greed=2)
        st.knob(0, last_stand=2)
        st.play_turn(0)
        assert st.sd[0, B.SD_STAND] == declared, mettle
        assert st.seat_int(0, L.S_LAST_STANDS) == declared
        if declared:
            assert st.events(L.EV_LAST_STAND)[-1, 5] == 2          # paid 2 Mettle


def test_4_wardancer_declares_a_last_stand_without_mettle(new_state):
    """§4 / §7.3: a Wardancer's Last Stand is free."""
    st = dice_state(new_state, company=("wisp", "wardancer"), greed=4)
    st.knob(0, last_stand=2)
    st.play_turn(0)
    assert st.sd[0, B.SD_STAND] == 1
    assert st.events(L.EV_LAST_STAND)[-1, 5] == 0


def test_7_3_cash_out_at_the_end_of_a_turn(new_state):
    """§7.3: Cash Out at the exit banks this turn's Loot + deepest x 2 and musters afresh."""
    st = dice_state(new_state, greed=4)
    st.put_crew(0, 4)
    st.knob(0, cash_loot=0)
    st.play_turn(0)
    assert st.glory[0] == 4 * 3 + 4 * 2
    assert st.sd[0, B.SD_FLOOR] == 1 and st.loot[0] == 0
    assert st.seat_int(0, L.S_CASH_OUTS) == 1


def test_7_3_A29_no_cash_out_after_a_last_stand(new_state):
    """A29: a Last Stand lasts until the crew is Taken; it can no longer Cash Out."""
    st = dice_state(new_state, greed=4)
    st.put_crew(0, 4)
    st.sd[0, B.SD_STAND] = 1
    st.knob(0, cash_loot=0)
    st.play_turn(0)
    assert st.seat_int(0, L.S_CASH_OUTS) == 0
    assert st.glory[0] == 0 and st.loot[0] == 12 and st.sd[0, B.SD_STAND] == 1


# =========================================================================================
# §7.1 Claims
# =========================================================================================

@pytest.mark.parametrize("room", list(THREAT_LOCK))
def test_7_1_claim_cost_is_threat_and_lock(room, new_state):
    """§7.1 / §7.2: claiming needs Steel >= threat and Cunning >= lock."""
    st = two(new_state)
    st.set_floor(2, [room])
    assert st.claim_cost(2, 0, 0) == THREAT_LOCK[room]


@pytest.mark.parametrize("room, steel, cunning, ok", [
    ("den", 3, 0, True), ("den", 2, 5, False),
    ("library", 1, 2, True), ("library", 1, 1, False),
    ("forge", 4, 1, True), ("forge", 4, 0, False), ("forge", 3, 1, False),
    ("throne", 5, 2, True), ("throne", 4, 2, False),
    ("threshold", 0, 0, True),
])
def test_7_1_claim_needs_steel_ge_threat_and_cunning_ge_lock(room, steel, cunning, ok, new_state):
    """§7.1: a marker is placed only with Steel >= threat and Cunning >= lock."""
    st = two(new_state)
    st.set_floor(3, [room])
    st.put_crew(0, 3)
    assert st.try_claim(0, steel=steel, cunning=cunning) is ok
    assert st.act_cnt[2, 0, 0] == (1 if ok else 0)


def test_4_dvergar_ignores_one_point_of_threat(new_state):
    """§4 Dvergar: ignore 1 point of a room's threat (never below 0)."""
    st = two(new_state, first=("dvergar", "warden"))
    st.set_floor(3, ["den", "threshold", "forge"])
    assert st.claim_cost(3, 0, 0) == (2, 0)
    assert st.claim_cost(3, 1, 0) == (0, 0)
    assert st.claim_cost(3, 2, 0) == (3, 1)
    st.set_floor(3, ["den"])
    st.put_crew(0, 3)
    assert st.try_claim(0, steel=2) is True


def test_7_1_vault_needs_the_trinity(new_state):
    """§7.1: a Vault also demands a rolled Steel, Cunning and Faith this turn."""
    st = two(new_state, first=("gnoll", "warden"))
    assert st.trinity_ok(0, "vault", 1, 1, 0) == (False, False)
    assert st.trinity_ok(0, "vault", 1, 1, 1) == (True, False)
    assert st.trinity_ok(0, "forge", 0, 0, 0) == (True, False)
    st.set_floor(6, ["vault"])
    st.put_crew(0, 6)
    assert st.try_claim(0, steel=2, cunning=2, trinity=(2, 2, 0)) is False
    assert st.try_claim(0, steel=2, cunning=2, trinity=(1, 1, 1)) is True


def test_4_lorekeeper_opens_vaults_solo(new_state):
    """§4 Lorekeeper: open Vaults solo, no trinity needed."""
    st = two(new_state, first=("gnoll", "lorekeeper"))
    assert st.trinity_ok(0, "vault", 0, 0, 0) == (True, True)
    st.set_floor(6, ["vault"])
    st.put_crew(0, 6)
    assert st.try_claim(0, steel=2, cunning=2, trinity=(0, 0, 0)) is True


def test_7_1_A9_marker_strength_is_1_plus_surplus_steel_and_cunning(new_state):
    """§7.1 / A9: marker strength = 1 + the surplus Steel and Cunning poured in."""
    st = two(new_state, first=("gnoll", "lorekeeper"))
    st.set_floor(2, ["stone"])
    st.put_crew(0, 2)
    assert st.try_claim(0, steel=4, cunning=2)        # Stone needs 1 Steel: surplus 3 + 2
    assert st.act_str[1, 0, 0] == 1 + 3 + 2
    assert st.sym[L.STEEL] == 0 and st.sym[L.CUNNING] == 0


def test_4_wardancer_plus_one_marker_strength(new_state):
    """§4 Wardancer: +1 marker strength."""
    st = two(new_state, first=("gnoll", "wardancer"))
    st.set_floor(2, ["stone", "hall"])
    st.do_claim(2, 0, 0)
    st.do_claim(2, 1, 0, surplus_c=2)
    assert st.act_str[1, 0, 0] == 2.0
    assert st.act_str[1, 1, 0] == 4.0


def test_7_1_A25_assault_progress_carries_over_on_the_same_room(new_state):
    """§7.1 / A25: a near miss carries Steel/Cunning over as progress on that room."""
    st = two(new_state)
    st.set_floor(3, ["forge"])
    st.put_crew(0, 3)
    assert st.try_claim(0, steel=2, allow_assault=True) is False
    assert st.sd[0, B.SD_PROG_FLOOR] == 2 and st.sd[0, B.SD_PROG_SLOT] == 0
    assert st.sd[0, B.SD_PROG_STEEL] == 2
    st.set_floor(3, ["forge", "den"])
    assert st.claim_cost(3, 0, 0) == (2, 1)           # Forge 4/1 minus progress
    assert st.claim_cost(3, 1, 0) == (3, 0)           # another room: no benefit
    st.gone[2, 1] = 1
    assert st.try_claim(0, steel=2, cunning=1) is True  # next turn: 2 + 2 >= 4
    assert st.act_cnt[2, 0, 0] == 1
    assert st.sd[0, B.SD_PROG_SLOT] == -1             # progress used up


def test_7_1_A25_an_attempt_that_pours_nothing_keeps_the_target_and_its_progress(new_state):
    """§7.1 / A25: progress carries over on the same room; an assault attempt on another
    room that pours nothing (it needs only Cunning, the crew has only Steel) neither moves
    the target nor resets its progress. Pouring into another room starts afresh there."""
    st = two(new_state, first=("dvergar", "lorekeeper"))         # Dvergar: Library threat 1 - 1 = 0
    st.set_floor(3, ["forge", "library"])
    st.put_crew(0, 3)
    st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT] = 2, 0
    st.sd[0, B.SD_PROG_STEEL], st.sd[0, B.SD_PROG_CUNNING] = 2, 0
    assert st.claim_cost(3, 1, 0) == (0, 2)
    st.sym[:] = 0
    st.sym[L.STEEL] = 3

    def pour(s, need, avail_c):
        return int(st.call(K.pour_assault, p=np.int64(0), fi=np.int64(2), s=np.int64(s),
                           need_s=np.int64(need[0]), need_c=np.int64(need[1]),
                           avail_c=np.int64(avail_c)))

    assert pour(1, (0, 2), 0) == 0
    assert (st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT]) == (2, 0)
    assert (st.sd[0, B.SD_PROG_STEEL], st.sd[0, B.SD_PROG_CUNNING]) == (2, 0)
    assert st.sym[L.STEEL] == 3 and len(st.events(L.EV_ASSAULT)) == 0
    st.sym[L.CUNNING] = 1
    assert pour(1, (0, 2), 1) == 1
    assert (st.sd[0, B.SD_PROG_SLOT], st.sd[0, B.SD_PROG_STEEL],
            st.sd[0, B.SD_PROG_CUNNING]) == (1, 0, 1)
    assert st.sym[L.STEEL] == 3 and st.sym[L.CUNNING] == 0


def test_7_1_A25_assault_progress_is_lost_when_the_crew_moves(new_state):
    """A25: progress lasts only while the crew stays on that floor."""
    st = dice_state(new_state, greed=4)
    st.set_floor(3, ["forge"])
    st.put_crew(0, 3)
    st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT] = 2, 0
    st.sd[0, B.SD_PROG_STEEL], st.sd[0, B.SD_PROG_CUNNING] = 3, 1
    st.set_bag(0, rogue=4)
    st.play_turn(0)                                   # stays on Floor 3: progress kept
    assert st.sd[0, B.SD_PROG_FLOOR] == 2 and st.sd[0, B.SD_PROG_STEEL] == 3
    st.knob(0, target_depth=4)
    st.play_turn(0)                                   # moves to Floor 4: progress lost
    assert st.sd[0, B.SD_FLOOR] == 4
    assert st.sd[0, B.SD_PROG_FLOOR] == -1 and st.sd[0, B.SD_PROG_STEEL] == 0
    assert st.claim_cost(3, 0, 0) == (4, 1)


def test_A8_markers_stack_and_every_claim_pays_full_cost(new_state):
    """A8: a crew's markers stack in a room; holding it gives no discount on the next."""
    st = two(new_state)
    st.set_floor(2, ["stone"])
    st.do_claim(2, 0, 0)
    assert st.claim_cost(2, 0, 0) == (1, 0)
    st.do_claim(2, 0, 0, surplus_s=1)
    assert st.act_cnt[1, 0, 0] == 2 and st.act_str[1, 0, 0] == 1 + 2


@pytest.mark.parametrize("per_turn", [1, 2])
def test_A22_one_claim_per_turn(per_turn, new_state):
    """A22: one claim per turn (claims.per_turn), however much Steel is rolled."""
    st = dice_state(new_state, steel=8, overrides=[f"claims.per_turn={per_turn}"])
    st.set_floor(2, ["stone", "threshold", "threshold"])
    st.put_crew(0, 2)
    st.play_turn(0)
    assert st.act_cnt[1, :, 0].sum() == per_turn


def test_A23_unspent_symbols_are_lost_at_end_of_turn(new_state):
    """A23: unspent Mettle does not carry to the next turn."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), mettle=4, hand=4)
    st.play_turn(0)                                   # 4 Mettle, nothing bought
    assert (st.sym == 0).all()
    st.set_bag(0, rogue=4)
    st.knob(0, recruit_max=10)
    st.play_turn(0)                                   # Greed only: nothing to recruit with
    assert len(st.events(L.EV_RECRUIT)) == 0


def test_4_reaver_pillage_one_loot_per_claim(new_state):
    """§4 Reaver: gain Loot every time you claim a room (A11: +1)."""
    st = two(new_state, first=("sylphid", "reaver"))
    st.set_floor(2, ["stone", "threshold"])
    st.do_claim(2, 0, 0)
    st.do_claim(2, 1, 0)
    assert st.loot[0] == 2.0


@pytest.mark.parametrize("room", list(VALUE))
def test_4_gnoll_combat_claim_loot_times_depth(room, new_state):
    """§4 Gnoll: +Loot claiming a combat room (Den/Forge/Crypt/Throne), A11: 1 x Depth."""
    st = two(new_state, first=("gnoll", "lorekeeper"))
    st.set_floor(4, [room])
    st.do_claim(4, 0, 0)
    assert st.loot[0] == (DEPTH[4] if room in COMBAT else 0)


def test_4_gnoll_reaver_loot_adds_up(new_state):
    """§4: the two halves add (Reaver +1 and Gnoll +1 x Depth on a Floor 6 Throne)."""
    st = two(new_state, first=("gnoll", "reaver"), second=PLAIN)
    st.set_floor(6, ["throne"])
    st.do_claim(6, 0, 0)
    assert st.loot[0] == 1 + DEPTH[6]


def test_A24_production_does_not_count_for_the_trinity(new_state):
    """§7.1 "you must have *rolled*" / A24: a held Crypt's Faith does not open a Vault."""
    st = dice_state(new_state, company=("wisp", "warden"), steel=2, cunning=2)
    st.set_floor(2, ["crypt"])
    st.place(2, 0, 0, 1.0)
    st.set_floor(3, ["vault"])
    st.put_crew(0, 3)
    st.play_turn(0)
    assert st.events(L.EV_PRODUCE)[-1, 5] == 1        # the Crypt produced one Faith
    assert st.act_cnt[2, 0, 0] == 0                   # but the Vault was not claimed


def test_param_production_counts_for_trinity(new_state):
    """production.counts_for_trinity=true: the held Crypt's Faith now opens the Vault."""
    st = dice_state(new_state, company=("wisp", "warden"), steel=2, cunning=2,
                    overrides=["production.counts_for_trinity=true"])
    st.set_floor(2, ["crypt"])
    st.place(2, 0, 0, 1.0)
    st.set_floor(3, ["vault"])
    st.put_crew(0, 3)
    st.play_turn(0)
    assert st.act_cnt[2, 0, 0] == 1


@pytest.mark.parametrize("counts", [False, True])
def test_A33_sylphid_bonus_cunning_counts_for_the_trinity_only_when_read_so(counts, new_state):
    """§7.1 "you must have *rolled*" / A33: Sylphid's +1 Cunning (§4) is in its symbols
    but not among the trinity's (claims.trinity_counts_bonus false, the default); read
    the other way (true, searched by the reconstruction) it counts."""
    st = new_state([("sylphid", "warden"), RIVAL],
               overrides=[f"claims.trinity_counts_bonus={str(counts).lower()}"])
    st.rolled[:] = 0
    st.sym[:] = 0
    st.trin[:] = 0
    st.call(K.step3_dread, p=np.int64(0))
    assert st.sym[L.CUNNING] == 1
    assert st.trin[L.CUNNING] == (1 if counts else 0)


# =========================================================================================
# §6A.2 / §6A.3 Press On and Dread
# =========================================================================================

def test_6A2_press_on_adds_one_dread_to_the_track(new_state):
    """§6A.2: every Press On adds a Dread to the shared track (no Dread rolled here)."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), mettle=8, hand=4)
    st.knob(0, press_max=1)
    st.play_turn(0)
    assert st.seat_int(0, L.S_PRESS_ONS) == 1
    assert len(st.events(L.EV_ROLL)) == 2
    assert st.g[B.GS_DREAD] == 1


def test_A18_stay_without_press_on_adds_no_dread(new_state):
    """A18: the exit "Stay" adds nothing; only rolling another hand adds Dread."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), mettle=8, hand=4)
    st.play_turn(0)
    assert st.seat_int(0, L.S_PRESS_ONS) == 0
    assert st.g[B.GS_DREAD] == 0


def test_A4_press_on_impossible_when_the_bag_is_empty(new_state):
    """A4: dice are drawn without replacement; no Press On once the bag is empty."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), mettle=6, hand=4)
    st.knob(0, press_max=5)
    st.play_turn(0)
    rolls = st.events(L.EV_ROLL)
    assert [int(r[3]) for r in rolls] == [4, 2]
    assert st.seat_int(0, L.S_PRESS_ONS) == 1
    assert st.bag_of(0) == {"scholar": 6}             # all drawn dice came back (A4)


def test_6A3_faith_cancels_dread_one_for_one(new_state):
    """§6A.3: cancel Dread with Faith one-for-one."""
    st = dice_state(new_state, faith=2, dread=4)
    st.play_turn(0)
    assert dread_event(st) == (4, 2, 2)
    assert st.seat_int(0, L.S_SETBACKS) == 0
    assert st.bag_of(0) == {"recruit": 2, "warrior": 4}


def test_6A3_three_uncanceled_dread_is_a_setback(new_state):
    """§6A.3: 3 or more Dread left = Setback: one die returned to the box."""
    st = dice_state(new_state, faith=1, dread=4)
    st.play_turn(0)
    assert dread_event(st) == (4, 1, 3)
    assert st.seat_int(0, L.S_SETBACKS) == 1
    assert st.seat_int(0, L.S_DICE_LOST) == 1
    assert sum(st.bag_of(0).values()) == 4


def test_6A3_two_uncanceled_dread_is_not_a_setback(new_state):
    """§6A.3: fewer than 3 Dread left: no Setback."""
    st = dice_state(new_state, dread=2, greed=2)
    st.play_turn(0)
    assert st.seat_int(0, L.S_SETBACKS) == 0
    assert sum(st.bag_of(0).values()) == 4


@pytest.mark.parametrize("bag, lost", [
    ({"rogue": 1, "recruit": 1, "champion": 1, "relic": 1}, "recruit"),
    ({"rogue": 1, "warrior": 1, "champion": 1, "relic": 1}, "warrior"),
    ({"relic": 2, "champion": 1, "priest": 1}, "priest"),
    ({"relic": 3, "scholar": 1}, "scholar"),
])
def test_6A3_A28_setback_returns_the_lowest_die(bag, lost, new_state):
    """§6A.3 / A28: the Setback returns the lowest die (Recruit < Warrior < Scholar <
    Priest < Rogue < Champion < Relic)."""
    st = dice_state(new_state)
    for d in DICE:
        st.die_faces(d, "dread")
    st.set_bag(0, **bag)
    st.play_turn(0)
    expect = dict(bag)
    expect[lost] -= 1
    assert st.bag_of(0) == {k: v for k, v in expect.items() if v}


def test_4_golem_born_never_loses_dice_to_a_setback(new_state):
    """§4 Golem-born: never lose dice to a Setback."""
    st = dice_state(new_state, company=("golem_born", "lorekeeper"), dread=5)
    st.play_turn(0)
    assert dread_event(st) == (5, 0, 5)
    assert st.seat_int(0, L.S_DICE_LOST) == 0
    assert st.bag_of(0) == {"warrior": 5}


def test_4_sylphid_setback_sheds_an_extra_die(new_state):
    """§4 Sylphid: fragile, a Setback sheds an extra die (the two lowest go)."""
    st = dice_state(new_state, company=("sylphid", "lorekeeper"))
    for d in DICE:
        st.die_faces(d, "dread")
    st.set_bag(0, recruit=1, warrior=1, scholar=1, priest=1)
    st.play_turn(0)
    assert st.seat_int(0, L.S_DICE_LOST) == 2
    assert st.bag_of(0) == {"scholar": 1, "priest": 1}


def test_4_hierophant_cancels_one_extra_dread(new_state):
    """§4 / §6A.3 Hierophant: cancels one extra Dread (A26: once per turn)."""
    st = dice_state(new_state, company=("wisp", "hierophant"), dread=3)
    st.play_turn(0)
    assert dread_event(st) == (3, 1, 2)
    assert st.seat_int(0, L.S_SETBACKS) == 0
    assert st.g[B.GS_DREAD] == 2
    st2 = dice_state(new_state, company=("wisp", "hierophant"), faith=1, dread=4)
    st2.play_turn(0)
    assert dread_event(st2) == (4, 2, 2)


def test_4_A27_hierophant_heals_one_setback_die(new_state):
    """§6A.3 Hierophant heals one (A27: the lost die comes back): no die lost."""
    st = dice_state(new_state, company=("wisp", "hierophant"), dread=4)
    st.play_turn(0)
    assert dread_event(st) == (4, 1, 3)
    assert st.seat_int(0, L.S_SETBACKS) == 1
    assert st.seat_int(0, L.S_DICE_LOST) == 0
    assert st.bag_of(0) == {"warrior": 4}
    heal = st.events(L.EV_SETBACK)[-1]
    assert heal[3] == 0 and heal[4] == 1


def test_4_sylphid_hierophant_heal_leaves_one_die_lost(new_state):
    """§4: Sylphid's extra loss (2 dice) minus Hierophant's heal (1) = 1 die lost."""
    st = dice_state(new_state, company=("sylphid", "hierophant"))
    for d in DICE:
        st.die_faces(d, "dread")
    st.set_bag(0, recruit=1, warrior=1, scholar=1, priest=1, rogue=1)
    st.play_turn(0)
    assert st.seat_int(0, L.S_DICE_LOST) == 1
    assert "recruit" not in st.bag_of(0)


def test_4_revenant_cannot_cancel_dread_with_faith(new_state):
    """§4 Revenant: cannot cancel Dread with Faith."""
    st = dice_state(new_state, company=("revenant", "lorekeeper"), faith=3, dread=2)
    st.play_turn(0)
    assert dread_event(st) == (2, 0, 2)
    assert st.g[B.GS_DREAD] == 2


def test_4_A27_revenant_converts_leftover_dread_to_mettle(new_state):
    """§4 Revenant / A27: leftover Dread becomes Mettle 1:1 (and still feeds the track):
    2 Dread -> 2 Mettle -> 2 Warriors at the Reaver's 1 Mettle each."""
    st = dice_state(new_state, company=("revenant", "reaver"), faith=2, dread=2)
    st.knob(0, recruit_max=10)
    st.play_turn(0)
    assert st.g[B.GS_DREAD] == 2
    rec = st.events(L.EV_RECRUIT)
    assert len(rec) == 1 and rec[0, 3] == 2 and rec[0, 4] == DIE["warrior"]
    assert st.bag_of(0) == {"recruit": 2, "warrior": 4}


def test_4_A27_revenant_converted_dread_still_triggers_the_setback(new_state):
    """A27: conversion comes after the Setback check (3 Dread left = Setback)."""
    st = dice_state(new_state, company=("revenant", "lorekeeper"), dread=3, faith=1)
    st.play_turn(0)
    assert st.seat_int(0, L.S_SETBACKS) == 1
    assert st.seat_int(0, L.S_DICE_LOST) == 1


@pytest.mark.parametrize("lineage, canceled", [("dvergar", 1), ("gnoll", 1), ("wisp", 2)])
def test_4_A11_dvergar_and_gnoll_lose_one_faith(lineage, canceled, new_state):
    """§4 Dvergar / Gnoll: -1 Faith per turn (A11), so one less Dread is canceled."""
    st = dice_state(new_state, company=(lineage, "lorekeeper"), faith=2, dread=3)
    st.play_turn(0)
    assert dread_event(st) == (3, canceled, 3 - canceled)


def test_A12_each_uncanceled_dread_adds_one_to_the_track(new_state):
    """§9 / A12: one Dread track step per uncanceled Dread."""
    st = dice_state(new_state, company=("golem_born", "lorekeeper"), faith=1, dread=5)
    st.play_turn(0)
    assert st.g[B.GS_DREAD] == 4


# =========================================================================================
# §6A.1 / §6A.4 Hand, Moves, Loot, Recruit, Production
# =========================================================================================

@pytest.mark.parametrize("company, hand", [
    (("dvergar", "lorekeeper"), 4), (("wisp", "lorekeeper"), 5),
    (("golem_born", "lorekeeper"), 3), (("dvergar", "prospector"), 5),
    (("wisp", "prospector"), 6),
])
def test_6A1_hand_of_4_with_lineage_and_calling_modifiers(company, hand, new_state):
    """§6A.1 default hand 4; §4 Wisp +1, Golem-born -1, Prospector +1."""
    st = dice_state(new_state, company=company, greed=10, hand=4)
    st.play_turn(0)
    assert st.events(L.EV_ROLL)[0, 3] == hand


@pytest.mark.parametrize("bag, floor", [({"greed": 4}, 2), ({"mettle": 4}, 3),
                                        ({"cunning": 4}, 3)])
def test_6A4_one_free_move_extra_moves_cost_cunning_or_mettle(bag, floor, new_state):
    """§6A.4: 1 free Move; extra Moves cost 1 Cunning or Mettle each."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), **bag)
    st.knob(0, target_depth=3)
    st.play_turn(0)
    assert st.sd[0, B.SD_FLOOR] == floor


@pytest.mark.parametrize("company", [("sylphid", "lorekeeper"), ("dvergar", "wardancer")])
def test_4_sylphid_and_wardancer_plus_one_move(company, new_state):
    """§4 Sylphid / Wardancer: +1 Move (two free Moves)."""
    st = dice_state(new_state, company=company, greed=4)
    st.knob(0, target_depth=3)
    st.play_turn(0)
    assert st.sd[0, B.SD_FLOOR] == 3


def test_4_sylphid_plus_one_cunning(new_state):
    """§4 Sylphid: +1 Cunning (A26: once per turn) opens a Cistern (lock 1) on Steel."""
    for company, claimed in ((("sylphid", "lorekeeper"), 1), (("wisp", "lorekeeper"), 0)):
        st = dice_state(new_state, company=company, steel=4)
        st.set_floor(2, ["cistern"])
        st.put_crew(0, 2)
        st.play_turn(0)
        assert st.act_cnt[1, 0, 0] == claimed, company


@pytest.mark.parametrize("floor", [1, 2, 3, 4, 5, 6])
def test_6A4_A5_loot_is_greed_times_depth_value(floor, new_state):
    """§6A.4 / A5: each Greed banks Loot = Greed x Depth Value; A17 it stays unbanked."""
    st = dice_state(new_state, greed=4)
    st.put_crew(0, floor)
    st.play_turn(0)
    assert st.loot[0] == 4 * DEPTH[floor]
    assert st.glory[0] == 0


@pytest.mark.parametrize("calling, die, cost", [
    ("lorekeeper", "scholar", 2), ("wardancer", "champion", 2), ("hierophant", "priest", 2),
    ("warden", "champion", 2), ("reaver", "warrior", 1), ("prospector", "relic", 1),
])
def test_8_A26_recruit_adds_the_callings_die_for_2_mettle(calling, die, cost, new_state):
    """§8: spend 2 Mettle to add the Calling's die; A26 Reaver/Prospector pay 1."""
    st = dice_state(new_state, company=("dvergar", calling), hand=4)
    st.die_faces("rogue", "mettle")
    st.set_bag(0, rogue=4)
    st.knob(0, recruit_max=10)
    st.play_turn(0)
    rec = st.events(L.EV_RECRUIT)
    assert len(rec) == 1
    assert (int(rec[0, 3]), DICE[rec[0, 4]], int(rec[0, 5])) == (4 // cost, die, cost)
    assert st.bag[0, DIE[die]] == 4 // cost


def test_7_1_A24_held_rooms_produce_their_symbol_at_start_of_turn(new_state):
    """§7.1 / A24: 1 symbol per room where the crew has the majority, at the start of its
    turn; a tied room and a room held only by Fallen markers produce nothing."""
    st = dice_state(new_state, greed=4)
    st.set_floor(3, ["forge", "crypt", "threshold"])
    st.set_floor(2, ["library", "cistern", "hall"])
    st.place(3, 0, 0, 2.0)                # Forge: held (2 vs 1) -> Steel
    st.place(3, 0, 1, 1.0)
    st.fallen[2, 1, 0] = 3                # Crypt: only Fallen markers -> nothing
    st.place(3, 2, 0, 1.0)                # Threshold: produces nothing
    st.place(2, 0, 0, 1.0)                # Library: held -> Cunning
    st.place(2, 1, 0, 1.0)                # Cistern: tied -> nothing
    st.place(2, 1, 1, 1.0)
    st.place(2, 2, 1, 1.0)                # Hall: the rival's -> nothing for seat 0
    st.play_turn(0)
    prod = st.events(L.EV_PRODUCE)
    assert len(prod) == 1 and prod[0, 1] == 0
    assert [int(x) for x in prod[0, 3:9]] == [1, 1, 0, 0, 0, 2]


@pytest.mark.parametrize("mult, produced", [(1.5, 6), (1.2476, 4)])
def test_4_A11_hierophant_production_multiplier_read_off_its_printed_value(mult, produced,
                                                                             new_state):
    """§4 "+25%" read as the rounding of another multiplier (the rounding space searches
    callings.hierophant.production_multiplier in [1.245, 1.255]): 4 held Forges produce
    4 x 1.5 = 6 Steel at 1.5, and 4 x 1.2476 = 4.99 -> 4 now (the 0.99 carried) at 1.2476."""
    st = dice_state(new_state, company=("wisp", "hierophant"), greed=4,
                    overrides=[f"callings.hierophant.production_multiplier={mult}"])
    st.set_floor(3, ["forge", "forge", "forge", "forge"])
    for s in range(4):
        st.place(3, s, 0, 1.0)
    st.play_turn(0)
    assert st.events(L.EV_PRODUCE)[0, 3] == produced


def test_4_A11_hierophant_production_plus_25_percent(new_state):
    """§4 Hierophant: +25% held-room production (A11: x1.25 with fractional carry)."""
    st = dice_state(new_state, company=("wisp", "hierophant"), greed=4)
    st.set_floor(3, ["forge", "forge", "forge", "forge"])
    for s in range(4):
        st.place(3, s, 0, 1.0)
    st.play_turn(0)
    assert st.events(L.EV_PRODUCE)[0, 3] == 5
    st2 = dice_state(new_state, company=("wisp", "hierophant"), greed=4)
    st2.set_floor(3, ["forge"])
    st2.place(3, 0, 0, 1.0)
    steel = 0
    for _ in range(4):
        st2.g[B.GS_EV] = 0
        st2.set_bag(0, rogue=4)
        st2.play_turn(0)
        steel += int(st2.events(L.EV_PRODUCE)[0, 3])
    assert steel == 5


def test_A51_any_claim_ends_the_assault_on_another_room(new_state):
    """A25 / A51: progress is for one target room; claiming another room ends it."""
    st = two(new_state)
    st.set_floor(3, ["forge"])
    st.put_crew(0, 3)
    st.try_claim(0, steel=2, allow_assault=True)
    assert st.sd[0, B.SD_PROG_STEEL] == 2
    st.set_floor(3, ["forge", "threshold"])
    assert st.try_claim(0) is True                    # the Threshold (free) is claimed
    assert st.act_cnt[2, 1, 0] == 1
    assert st.sd[0, B.SD_PROG_SLOT] == -1 and st.claim_cost(3, 0, 0) == (4, 1)


def test_A47_value_rising_into_a_consumed_room_is_lost(new_state):
    """A47: plunder rising into a room a Last Stand consumed is lost."""
    st = two(new_state)
    st.set_floor(3, ["den"])
    st.set_floor(2, ["hall"])
    st.gone[1, 0] = 1                                 # consumed earlier
    st.collapse(3)
    assert st.plunder[1, 0] == 0 and st.plunder.sum() == 0


def test_A42_revenant_hierophant_extra_cancel_needs_no_faith(new_state):
    """A42: Hierophant's extra cancel needs no Faith, also for a Revenant (its Mettle
    conversion shrinks by one): 3 Dread -> 1 canceled, 2 converted -> 1 Priest."""
    st = dice_state(new_state, company=("revenant", "hierophant"), dread=3, faith=1)
    st.knob(0, recruit_max=10)
    st.play_turn(0)
    assert dread_event(st) == (3, 1, 2)
    rec = st.events(L.EV_RECRUIT)
    assert len(rec) == 1 and rec[0, 3] == 1 and rec[0, 4] == DIE["priest"]


def test_A48_faith_lost_to_the_dvergar_penalty_still_counts_for_the_trinity(new_state):
    """A48: any Faith *rolled* this turn counts for the trinity, even one removed by
    Dvergar's -1 Faith (the Vault is claimed with 2 Steel, 2 Cunning, 1 Faith rolled)."""
    st = dice_state(new_state, company=("dvergar", "warden"), steel=2, cunning=2, faith=1)
    st.set_floor(3, ["vault"])
    st.put_crew(0, 3)
    st.play_turn(0)
    assert st.act_cnt[2, 0, 0] == 1


@pytest.mark.parametrize("best, loot", [("true", 4 * 3), ("false", 4 * 2)])
def test_A52_loot_valued_at_the_deeper_floor_of_the_turn(best, loot, new_state):
    """A5 / A52: Greed is valued at the deeper of the turn's start and end floors
    (spend order is free); loot.best_floor_of_turn=false: at the end floor."""
    st = dice_state(new_state, greed=4, overrides=[f"loot.best_floor_of_turn={best}"])
    st.put_crew(0, 4)
    st.knob(0, target_depth=3)                        # climbs one floor (free Move)
    st.play_turn(0)
    assert st.sd[0, B.SD_FLOOR] == 3
    assert st.loot[0] == loot


# =========================================================================================
# §9 End of game
# =========================================================================================

def test_9_most_glory_wins(prepared):
    """§1 / §9: most Glory wins (checked on 200 whole games)."""
    gi, gf, _, sf = run_games(prepared, 200)
    for r in range(gi.shape[0]):
        n = gi[r, L.G_PLAYERS]
        glory = sf[r, :n, L.SF_GLORY]
        top = glory.max()
        winners = np.nonzero(glory == top)[0]
        assert gi[r, L.G_N_WINNERS] == len(winners)
        assert gi[r, L.G_WINNER] == winners[0]
        assert np.allclose(sf[r, :n, L.SF_WIN], np.where(glory == top, 1 / len(winners), 0))
        assert gf[r, L.GF_TOP] == top


ZERO_GLORY = [f"rooms.{r}.value=0" for r in VALUE] + [
    "exits.cash_out_dividend=0", "exits.worthy_end_multiplier=0", "loot.glory_per_loot=0"]


def test_9_A38_tied_leaders_share_the_win(prepared):
    """A38: tied leaders share the win (a rule set where nobody can score: all tie)."""
    gi, _, _, sf = run_games(prepared, 20, overrides=ZERO_GLORY)
    assert (gi[:, L.G_N_WINNERS] == 4).all()
    assert np.allclose(sf[:, :4, L.SF_WIN], 0.25)
    assert np.allclose(sf[:, :4, L.SF_GLORY], 0.0)


# =========================================================================================
# Parameters change the outcome (the kernel reads the data, not constants)
# =========================================================================================

def test_param_worthy_end_basis_depth_value(new_state):
    """exits.worthy_end_basis=depth_value: deepest Floor 6 pays Depth 4 x 2.5 = 10."""
    for basis, expect in (("floor", 15.0), ("depth_value", 10.0)):
        st = two(new_state, first=("dvergar", "reaver"), second=PLAIN,
                 overrides=[f"exits.worthy_end_basis={basis}"])
        st.g[B.GS_COLLAPSED] = 1
        st.put_crew(0, 5, deepest=6)
        st.sd[0, B.SD_STAND] = 1
        st.collapse(5)
        assert st.glory[0] == pytest.approx(expect), basis


def test_param_worthy_end_keeps_loot_false(new_state):
    """exits.worthy_end_keeps_loot=false: the unbanked Loot is lost at a Worthy End."""
    st = two(new_state, first=("dvergar", "reaver"),
             overrides=["exits.worthy_end_keeps_loot=false"])
    st.g[B.GS_COLLAPSED] = 1
    st.put_crew(0, 5, deepest=6)
    st.sd[0, B.SD_STAND] = 1
    st.loot[0] = 7.0
    st.collapse(5)
    assert st.glory[0] == pytest.approx(15.0)


def test_param_wardancer_worthy_multiplier_from_data(new_state):
    """callings.wardancer.worthy_end_multiplier=3: 6 x 2.5 x 3 = 45."""
    st = two(new_state, first=("wisp", "wardancer"), second=PLAIN2,
             overrides=["callings.wardancer.worthy_end_multiplier=3"])
    st.g[B.GS_COLLAPSED] = 1
    st.put_crew(0, 5, deepest=6)
    st.sd[0, B.SD_STAND] = 1
    st.collapse(5)
    assert st.glory[0] == pytest.approx(45.0)


def test_param_steps_per_floor_1_collapses_floor_6_in_round_1_and_games_last_6_rounds(
        new_state, prepared):
    """maw.steps_per_floor=1: a floor falls every round (A1 read literally): 6 rounds."""
    st = two(new_state, overrides=["maw.steps_per_floor=1"])
    st.maw_phase()
    assert st.g[B.GS_COLLAPSED] == 1
    gi, *_ = run_games(prepared, 50, overrides=["maw.steps_per_floor=1"])
    assert (gi[:, L.G_ROUNDS] == 6).all()
    gi2, *_ = run_games(prepared, 50)
    assert gi2[:, L.G_ROUNDS].mean() > 6.5


def _collapse_rounds(st, rounds, full=()):
    """Run ``rounds`` Maw phases (the Dread track full in the rounds listed in ``full``,
    1-based); the round numbers in which a floor collapsed."""
    out = []
    for r in range(1, rounds + 1):
        if r in full:
            st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN]
        before = int(st.g[B.GS_COLLAPSED])
        st.maw_phase()
        out += [r] * (int(st.g[B.GS_COLLAPSED]) - before)
    return out


def test_6B1_A1_reading_full_dread_track_adds_a_whole_floor(new_state):
    """A1 read as 'threatened, then collapsed' with §6B.1's '+1 more' a whole floor
    (maw.dread_full_steps = steps_per_floor = 2): a full track in round 1 brings Floor 6
    down at once and Floor 5 a round later; with +1 step (the default) only Floor 6."""
    st = two(new_state, overrides=["maw.steps_per_floor=2", "maw.dread_full_steps=2"])
    assert _collapse_rounds(st, 2, full=(1,)) == [1, 2]
    assert int(st.g[B.GS_STEPS]) == 4
    st = two(new_state)
    assert _collapse_rounds(st, 2, full=(1,)) == [1]


def test_6B1_A1_reading_three_steps_per_floor_a_floor_every_third_round(new_state):
    """A1 read as three stages a floor (threatened, breached, collapsed:
    maw.steps_per_floor=3): with no Dread a floor falls every third round, so 6 floors
    last 18 rounds; a full track speeds it by a step, or by a floor when read so."""
    st = two(new_state, overrides=["maw.steps_per_floor=3"])
    assert _collapse_rounds(st, 9) == [3, 6, 9]
    st = two(new_state, overrides=["maw.steps_per_floor=3"])
    assert _collapse_rounds(st, 3, full=(1,)) == [2]
    # with a whole-floor Dread step (maw.dread_full_steps 3): a full track in round 1
    # brings Floor 6 down at once (1 + 3 >= 3 steps), Floor 5 at 6 steps in round 3
    st = two(new_state, overrides=["maw.steps_per_floor=3", "maw.dread_full_steps=3"])
    assert _collapse_rounds(st, 3, full=(1,)) == [1, 3]


def test_6B1_A1_continuous_pace_in_fine_steps(new_state):
    """§6B.1's '1 floor' read as the rounding of a continuous pace (the rounding search),
    played at 10 steps per step of the default reading: 20 steps a floor, a pace of 0.6
    (steps_per_round 6) brings Floor 6 down in round 4 (24 >= 20 steps) and Floor 5 in
    round 7 (42 >= 40); a full track in round 1 (+10 steps, '+1 more' at its printed
    value) brings Floor 6 down in round 2 (6 + 10 + 6 = 22)."""
    ov = ["maw.steps_per_floor=20", "maw.steps_per_round=6", "maw.dread_full_steps=10"]
    st = two(new_state, overrides=ov)
    assert _collapse_rounds(st, 7) == [4, 7]
    st = two(new_state, overrides=ov)
    assert _collapse_rounds(st, 2, full=(1,)) == [2]


@pytest.mark.parametrize("size", [5, 12])
def test_3_4_A3_bag_size_sets_what_the_hand_size_abilities_draw(size, new_state):
    """§3.4 / A3: the starting bag's size is placeholder data searched beside its mix. A
    Wisp (+1 hand, §4) draws 5 of a 12-dice bag and leaves 7 for a Press On; from a 5-dice
    bag its first hand empties the bag (A4: no Press On); a Golem-born (-1) draws 3."""
    bag = {"recruit": size, "warrior": 0, "scholar": 0, "priest": 0, "rogue": 0}
    ov = [f"lineages.{lin}.start_bag.{d}={c}" for lin in ("wisp", "golem_born")
          for d, c in bag.items()]
    st = new_state([("wisp", "lorekeeper"), ("golem_born", "warden")], overrides=ov)
    for p, hand in ((0, 5), (1, 3)):
        assert st.bag_of(p) == {"recruit": size}
        h = int(st.call(K.hand_size, p=np.int64(p)))
        assert h == hand
        st.call(K.draw_hand, p=np.int64(p), h=np.int64(h), hand=np.int64(0))   # the roll
        assert int(st.call(B.bag_size, p=np.int64(p))) == max(size - hand, 0)


def test_param_defer_extra_steps_false_loses_the_capped_step(new_state):
    """maw.defer_extra_steps=false: the step held back by the one-collapse cap is lost."""
    steps = {}
    for defer in ("true", "false"):
        st = two(new_state, overrides=["maw.steps_per_floor=1", f"maw.defer_extra_steps={defer}"])
        st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN]
        st.maw_phase()                        # 2 steps: Floors 6 and 5 due, cap 1
        assert st.g[B.GS_COLLAPSED] == 1
        assert st.gi[L.G_DEFERRED] == 1
        steps[defer] = int(st.g[B.GS_STEPS])
    assert steps == {"true": 2, "false": 1}


def test_param_max_collapses_per_round_2(new_state):
    """maw.max_collapses_per_round=2: two floors can fall in one Maw phase."""
    st = two(new_state, overrides=["maw.steps_per_floor=1", "maw.max_collapses_per_round=2"])
    st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN]
    st.maw_phase()
    assert st.g[B.GS_COLLAPSED] == 2


def test_param_dread_overflow_carries(new_state):
    """maw.dread_overflow_carries=true: the track keeps its overflow after filling."""
    st = two(new_state, overrides=["maw.dread_overflow_carries=true"])
    st.g[B.GS_DREAD] = st.g[B.GS_DREAD_LEN] + 3
    st.maw_phase()
    assert st.g[B.GS_DREAD] == 3


def test_param_depth_values_change_collapse_glory(new_state):
    """floors.depth_values: the Vault on Floor 6 scores 6 x the new Depth Value."""
    st = two(new_state, overrides=["floors.depth_values=[1, 1, 1, 1, 1, 10]"])
    st.set_floor(6, ["vault"])
    st.place(6, 0, 0, 1.0)
    st.collapse(6)
    assert st.glory[0] == 60


def test_param_rise_fraction_and_plunder(new_state):
    """maw.rise_fraction=1 and maw.rise_includes_plunder=false change what rises."""
    st = two(new_state, overrides=["maw.rise_fraction=1.0", "maw.rise_includes_plunder=false"])
    st.set_floor(4, ["den"])
    st.set_floor(3, ["stone"])
    st.plunder[3, 0] = 5
    st.collapse(4)
    assert st.plunder[2, 0] == 3


def test_param_cash_out_dividend(new_state):
    """exits.cash_out_dividend=3: Loot 9 + deepest 4 x 3."""
    st = two(new_state, overrides=["exits.cash_out_dividend=3"])
    st.put_crew(0, 2, deepest=4)
    st.loot[0] = 9.0
    st.cash_out(0)
    assert st.glory[0] == 9 + 12


def test_param_last_stand_cost(new_state):
    """exits.last_stand_cost=5 and last_stand_free_rooms=[forge]."""
    st = two(new_state,
             overrides=["exits.last_stand_cost=5", "exits.last_stand_free_rooms=[forge]"])
    st.set_floor(6, ["vault"])
    st.place(6, 0, 0, 2.0)
    assert st.last_stand_price(0) == 5
    st.set_floor(5, ["forge"])
    st.place(5, 0, 0, 2.0)
    assert st.last_stand_price(0) == 0


def test_param_taken_loses_markers_false(new_state):
    """exits.taken_loses_markers=false: a crew Taken without Last Stand leaves Fallen."""
    st = two(new_state, overrides=["exits.taken_loses_markers=false"])
    st.set_floor(2, ["hall"])
    st.put_crew(0, 3)
    st.place(2, 0, 0, 3.0, count=2)
    st.collapse(3)
    assert st.fallen[1, 0, 0] == 2 and st.act_cnt[1, 0, 0] == 0


def test_param_last_stand_consumes_false(new_state):
    """exits.last_stand_consumes=false: held rooms stay in play after a Worthy End."""
    st = two(new_state, overrides=["exits.last_stand_consumes=false"])
    st.set_floor(2, ["hall"])
    st.put_crew(0, 3)
    st.sd[0, B.SD_STAND] = 1
    st.place(2, 0, 0, 3.0)
    st.collapse(3)
    assert st.gone[1, 0] == 0


def test_param_warden_doubles_fallen(new_state):
    """claims.warden_doubles_fallen=true: a Warden's Fallen marker counts 2."""
    st = two(new_state, first=("golem_born", "warden"), second=PLAIN,
             overrides=["claims.warden_doubles_fallen=true"])
    st.set_floor(2, ["stone"])
    st.do_claim(2, 0, 0)
    st.cash_out(0)
    st.do_claim(2, 0, 1)
    g0 = st.glory[0]
    st.collapse(2)
    assert st.glory[0] - g0 == 4 and st.glory[1] == 0


def test_param_setback_threshold_and_dread_per_turn(new_state):
    """turn.setback_threshold=4 (3 Dread no Setback); turn.dread_per_uncanceled=0 (+1)."""
    st = dice_state(new_state, dread=3, overrides=["turn.setback_threshold=4",
                                        "turn.dread_per_uncanceled=0"])
    st.play_turn(0)
    assert st.seat_int(0, L.S_SETBACKS) == 0
    assert st.g[B.GS_DREAD] == 1


def test_param_press_on_dread(new_state):
    """turn.press_on_dread=2: each Press On adds 2 to the track."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), mettle=8, hand=4,
                    overrides=["turn.press_on_dread=2"])
    st.knob(0, press_max=1)
    st.play_turn(0)
    assert st.g[B.GS_DREAD] == 2


def test_param_loot_per_greed(new_state):
    """loot.per_greed=2: 4 Greed on Floor 4 = 4 x 2 x 3."""
    st = dice_state(new_state, greed=4, overrides=["loot.per_greed=2"])
    st.put_crew(0, 4)
    st.play_turn(0)
    assert st.loot[0] == 24


def test_param_recruit_cost(new_state):
    """recruit.cost=4: 4 Mettle buy one Scholar."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), hand=4, mettle=4,
                    overrides=["recruit.cost=4"])
    st.knob(0, recruit_max=10)
    st.play_turn(0)
    assert st.bag[0, DIE["scholar"]] == 4 + 1


def test_param_max_surplus_caps_marker_strength(new_state):
    """claims.max_surplus=2 (A32): 1 + at most 2 surplus."""
    st = two(new_state, overrides=["claims.max_surplus=2"])
    st.set_floor(2, ["stone"])
    st.put_crew(0, 2)
    assert st.try_claim(0, steel=6, cunning=3)
    assert st.act_str[1, 0, 0] == 3


def test_param_scaling_table(new_state):
    """scaling.4.rooms_per_floor=6 / dread_track_length=12 reach setup."""
    st = new_state(list(zip(LINEAGES, CALLINGS))[:4],
               overrides=["scaling.4.rooms_per_floor=6", "scaling.4.dread_track_length=12"])
    assert st.slots == 6 and st.g[B.GS_DREAD_LEN] == 12


def test_param_tie_rule_none(prepared):
    """end.tie_rule=none: tied leaders do not win."""
    *_, sf = run_games(prepared, 10, overrides=ZERO_GLORY + ["end.tie_rule=none"])
    assert np.allclose(sf[:, :4, L.SF_WIN], 0.0)


def test_param_die_faces_from_data(new_state):
    """dice.recruit.faces: a Recruit die with six Dread faces always rolls Dread."""
    st = new_state([PLAIN, RIVAL], overrides=[
        "dice.recruit.faces={steel: 0, cunning: 0, faith: 0, greed: 0, mettle: 0, dread: 6}"])
    st.empty_dungeon()
    st.set_rule("hand_size", 8)
    st.set_bag(0, recruit=4)
    st.play_turn(0)
    assert dread_event(st) == (4, 0, 4)


def test_param_unspent_symbols_carry_when_not_lost(new_state):
    """turn.unspent_symbols_lost=false (A23 alternative): last turn's Mettle recruits."""
    st = dice_state(new_state, company=("dvergar", "lorekeeper"), mettle=4, hand=4,
                    overrides=["turn.unspent_symbols_lost=false"])
    st.play_turn(0)
    st.set_bag(0, rogue=4)
    st.knob(0, recruit_max=10)
    st.play_turn(0)
    rec = st.events(L.EV_RECRUIT)
    assert len(rec) == 1 and rec[0, 3] == 2


@pytest.mark.parametrize("returns", ["true", "false"])
def test_6A_A4_drawn_dice_return_or_go_to_a_discard_refilled_when_the_bag_is_empty(returns,
                                                                                   new_state):
    """§6A / A4: by default the dice drawn return to the bag at the end of the turn;
    read as a deck (turn.bag_returns=false, a reading the reconstruction searches) they
    go to a discard, and an empty bag is refilled from the discard at the start of a
    turn: 8 dice and hands of h (the rule's 4, +1 for the Lineage) -> 8 - h in the bag and
    h in the discard, then the last 8 - h drawn (0 + 8), then refilled: 8 - h + h again."""
    st = dice_state(new_state, hand=4, overrides=[f"turn.bag_returns={returns}"], greed=8)
    h = int(st.call(K.hand_size, p=np.int64(0)))
    assert 0 < 8 - h < h                      # the second hand empties the bag
    seen = []
    for _ in range(3):
        st.play_turn(0)
        seen.append((st.bag_of(0).get("rogue", 0), int(st.st.disc[0, DIE["rogue"]])))
    if returns == "true":
        assert seen == [(8, 0)] * 3
    else:
        assert seen == [(8 - h, h), (0, 8), (8 - h, h)]


def test_param_setback_from_bag(new_state):
    """turn.setback_from_bag=true (A43): the lowest die of the whole bag is returned."""
    st = dice_state(new_state, hand=4, overrides=["turn.setback_from_bag=true"])
    for d in DICE:
        st.die_faces(d, "dread")
    st.set_bag(0, champion=4, recruit=1)
    st.play_turn(0)
    assert st.bag_of(0) == {"champion": 4}


@pytest.mark.parametrize("must_beat, claimed", [("false", 1), ("true", 0)])
def test_param_must_beat_leader(must_beat, claimed, new_state):
    """claims.must_beat_leader (A8): by default a weaker marker may still be placed."""
    st = two(new_state, overrides=[f"claims.must_beat_leader={must_beat}"])
    st.set_floor(2, ["stone"])
    st.place(2, 0, 1, 5.0)
    st.put_crew(0, 2)
    st.knob(0, contest=1)
    st.try_claim(0, steel=2)
    assert st.act_cnt[1, 0, 0] == claimed


@pytest.mark.parametrize("reinforce, count", [("true", 2), ("false", 1)])
def test_param_reinforce_own(reinforce, count, new_state):
    """claims.reinforce_own (A34): a crew may (or not) claim a room it already holds."""
    st = two(new_state, overrides=[f"claims.reinforce_own={reinforce}"])
    st.set_floor(2, ["stone"])
    st.place(2, 0, 0, 2.0)
    st.place(2, 0, 1, 1.0)
    st.put_crew(0, 2)
    st.knob(0, reinforce=1)
    st.try_claim(0, steel=3)
    assert st.act_cnt[1, 0, 0] == count
