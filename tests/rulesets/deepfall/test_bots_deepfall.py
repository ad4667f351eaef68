"""DEEPFALL bot decisions on hand-built states (issue 15: the heuristics' blind spots).

Each test builds a state with the ``new_state`` fixture (this folder's ``conftest.py``: the
kernel's own setup, then the parts a test needs rewritten), asks one decision of
``deepsim.rulesets.deepfall.bots`` and checks the choice. The bots are heuristics, not
rules: these tests pin what each fix of ``docs/RULES.md`` (Bots) promises.
"""

from __future__ import annotations

import numpy as np

from deepsim.rulesets.deepfall import board as B
from deepsim.rulesets.deepfall import bots
from deepsim.rulesets.deepfall import layout as L

PLAIN = ("wisp", "lorekeeper")
RIVAL = ("golem_born", "warden")


def state(new_state, first=PLAIN, second=RIVAL, players=2):
    comps = [first, second, ("sylphid", "hierophant"), ("revenant", "wardancer")][:players]
    st = new_state(comps)
    st.empty_dungeon()
    return st


def choose_room(st, p, floor, steel=0, cunning=0, allow_assault=True, keep_c=0):
    st.sym[:] = 0
    st.sym[L.STEEL] = steel
    st.sym[L.CUNNING] = cunning
    s, assault = st.call(bots.choose_room, p=np.int64(p), fi=np.int64(floor - 1),
                         keep_c=np.int64(keep_c), kn=st.a.knobs[p],
                         allow_assault=bool(allow_assault))
    return int(s), bool(assault)


def test_assault_skips_a_room_it_cannot_pour_into(new_state):
    """A Dvergar crew with only Steel keeps chipping at its Forge rather than targeting a
    richer Library that needs only Cunning (nothing it could pour; the kernel would leave
    the target as it is, §7.1 A25)."""
    st = state(new_state, first=("dvergar", "lorekeeper"))
    st.set_floor(3, ["forge", "library"])
    st.plunder[2, 1] = 10                              # the Library is worth far more
    st.put_crew(0, 3)
    st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT] = 2, 0
    st.sd[0, B.SD_PROG_STEEL] = 1
    assert choose_room(st, 0, 3, steel=1) == (0, True)    # the Forge still needs (2, 1)
    # with Cunning to pour, the Library is worth the switch
    assert choose_room(st, 0, 3, steel=1, cunning=1) == (1, True)
    # through the kernel: the progress on the Forge grows
    assert st.try_claim(0, steel=1, allow_assault=True) is False
    assert (st.sd[0, B.SD_PROG_SLOT], st.sd[0, B.SD_PROG_STEEL]) == (0, 2)


FOUR = [PLAIN, RIVAL, ("sylphid", "hierophant"), ("revenant", "wardancer")]


def doomed(st, p, margin=0.0, own=False, floor=6):
    return bool(st.call(B.doomed_this_round, fl=np.int64(floor), p=np.int64(p),
                        margin=float(margin), own=bool(own)))


def test_maw_forecast_reads_the_observed_dread_rate(new_state):
    """4 players: Floor 6 needs 2 more Maw steps, so it falls this round only if the Dread
    track (length 7) is full in the Maw phase (§6B.1, A1). With the track at 2, the old
    forecast (one Dread per player a round: 2 + 4 < 7) called it safe for everyone. The
    forecast reads the Dread added per player-turn so far: at 2.5 a turn the three turns
    after the round's first player bring 7.5 and fill it; at 0.5 a turn they do not, unless
    the bot asks for a margin. The last player of the round sees the track as it will be."""
    st = new_state(FOUR)
    st.g[B.GS_ROUND] = 1                               # seat 0 plays first
    st.g[B.GS_DREAD] = 2
    assert st.g[B.GS_DREAD_LEN] == 7
    st.g[B.GS_TURNS], st.g[B.GS_DREAD_ADDED] = 8, 26  # (26 + 4) / (8 + 4) = 2.5 a turn
    assert doomed(st, 0) and doomed(st, 1)            # 3 and 2 turns to come: 7.5, 5
    assert not doomed(st, 2)                          # 1 turn to come: 2.5 < 5 left
    assert doomed(st, 2, own=True)                    # and its own Dread still to come
    assert not doomed(st, 3)                          # last of the round: track stays 2
    st.g[B.GS_DREAD_ADDED] = 2                        # (2 + 4) / 12 = 0.5 a turn
    assert not doomed(st, 0)                          # 1.5 expected < 5 left
    assert doomed(st, 0, margin=3.0)                  # 1.5 + 3 x 1.22 >= 5
    st.g[B.GS_DREAD] = 7                              # full already
    assert doomed(st, 3)
    st.g[B.GS_STEPS] = 1                              # one step left: falls for sure
    st.g[B.GS_DREAD] = 0
    assert doomed(st, 3) and not doomed(st, 3, floor=5)
    # round 2: seat 1 plays first, so seat 0 is last
    st.g[B.GS_STEPS], st.g[B.GS_ROUND], st.g[B.GS_DREAD] = 0, 2, 2
    st.g[B.GS_DREAD_ADDED] = 26
    assert not doomed(st, 0) and doomed(st, 1)


def test_exit_cashes_out_when_the_observed_rate_dooms_the_floor(new_state):
    """A greedy crew on Floor 6 with loot below its Cash Out mark and no Mettle for a Last
    Stand: it Cashes Out when the forecast fills the track this round, else it stays."""
    from deepsim.rulesets.deepfall import bot_styles
    st = new_state(FOUR)
    st.a.knobs[0] = [bot_styles()["greedy"][k] for k in L.KNOBS]
    st.put_crew(0, 6)
    st.loot[0] = 5.0
    st.g[B.GS_ROUND], st.g[B.GS_DREAD] = 1, 2
    st.g[B.GS_TURNS], st.g[B.GS_DREAD_ADDED] = 8, 26

    def exit_choice():
        return int(st.call(bots.exit_choice, p=np.int64(0),
                           kn=st.a.knobs[0]))

    assert exit_choice() == 1                          # Cash Out
    st.g[B.GS_DREAD_ADDED] = 0                         # a quiet table: 1/3 a turn
    assert exit_choice() == 0                          # Stay


def test_keeps_assaulting_the_throne_on_the_next_floor_to_fall_when_progress_allows(new_state):
    """Floor 6 (Throne: 5 Steel, 2 Cunning) needs 2 more Maw steps: it stands this round
    unless the Dread track fills, so a crew there gets one more turn. The old rule refused
    any assault on a floor falling within 2 rounds (no Throne was ever assaulted); now the
    crew pours its Steel when the rest is within reach of that turn (``assault_reach`` x
    the expected yield of its draws: 8 dice, 6 Warriors and 2 Scholars here), not when
    the floor falls this round or the rest is out of reach."""
    st = new_state(FOUR)
    st.empty_dungeon()
    st.set_floor(6, ["throne"])
    st.put_crew(0, 6)
    st.knob(0, press_max=4, assault_reach=1.5)
    st.set_bag(0, warrior=6, scholar=2)
    st.g[B.GS_ROUND] = 1
    assert not doomed(st, 0) and st.call(B.rounds_until, fl=np.int64(6)) < 2
    es, ec = st.call(bots.turn_yield, p=np.int64(0), kn=st.a.knobs[0])
    assert np.isclose(es, 3.0) and np.isclose(ec, 2 / 3)        # 8 dice a turn
    st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT] = 5, 0
    st.sd[0, B.SD_PROG_STEEL], st.sd[0, B.SD_PROG_CUNNING] = 2, 1
    assert choose_room(st, 0, 6, steel=2) == (0, True)           # leaves (1, 1) to do
    st.g[B.GS_DREAD] = 7                                         # the track is full
    assert choose_room(st, 0, 6, steel=2) == (-1, False)
    st.g[B.GS_DREAD] = 0
    st.sd[0, B.SD_PROG_STEEL], st.sd[0, B.SD_PROG_CUNNING] = 0, 0
    assert choose_room(st, 0, 6, steel=2) == (-1, False)         # (3, 2) left: too much


def test_room_score_counts_surplus_cunning_as_marker_strength(new_state):
    """A crew that does not contest (cautious) weighs whether its marker would lead. The
    kernel pours surplus Steel and Cunning into strength (§7.1, A9): with 1 Steel and 3
    Cunning on a Hall (1/1) where a rival holds strength 2, the marker is 1 + 2 = 3 and
    leads, so the crew claims (it used to count the Steel only, 1 <= 2, and pass)."""
    st = state(new_state)
    st.set_floor(2, ["hall"])
    st.put_crew(0, 2)
    st.place(2, 0, 1, 2.0)
    assert choose_room(st, 0, 2, steel=1, cunning=3) == (0, False)
    assert choose_room(st, 0, 2, steel=1, cunning=2) == (-1, False)   # 1 + 1: a tie
    assert st.try_claim(0, steel=1, cunning=3) is True
    assert st.act_str[1, 0, 0] == 3.0


def claim_here_first(st, p, target):
    return int(st.call(bots.claim_here_first, p=np.int64(p), target_floor=np.int64(target),
                       kn=st.a.knobs[p]))


def test_a_claim_here_first_when_it_beats_what_the_crew_can_do_on_arrival(new_state):
    """Going down two floors with one free Move costs one extra Move; with no spare Mettle
    it takes a Cunning. The crew used to move first and claim on arrival with what was
    left. Now it claims here first, leaving that Cunning for the Move (it still reaches
    its target), when the best claim here beats the best it can do on arrival: a Hall
    here (worth 9) against a Stone below (6); not against a Hall below (13), nor against
    an assault on the Throne. Leaving upward it claims first and keeps the Cunning its
    Moves need."""
    st = state(new_state)
    st.set_floor(2, ["hall"])
    st.set_floor(4, ["stone"])
    st.put_crew(0, 2)
    st.sym[:] = 0
    st.sym[L.STEEL], st.sym[L.CUNNING] = 1, 2
    assert claim_here_first(st, 0, 4) == 1             # claim here, keep 1 for the Move
    st.set_floor(4, ["hall"])
    assert claim_here_first(st, 0, 4) == -1            # the Hall below is worth more
    st.set_floor(4, [])
    st.set_floor(6, ["throne"])
    st.knob(0, press_max=4)
    st.set_bag(0, warrior=6, scholar=2)
    st.sym[L.STEEL], st.sym[L.CUNNING] = 4, 5            # 3 extra Moves: 3 Cunning
    assert claim_here_first(st, 0, 6) == -1            # an assault on the Throne below
    st.sd[0, B.SD_FLOOR] = 4
    st.set_floor(4, ["library"])
    st.sym[L.STEEL], st.sym[L.CUNNING] = 1, 3
    assert claim_here_first(st, 0, 1) == 2             # 3 Moves up: 2 extra, 2 Cunning
    st.sym[L.METTLE] = 1                               # Mettle pays one of them
    assert claim_here_first(st, 0, 1) == 1
    # the whole turn: the crew claims the Hall on Floor 2 and still reaches Floor 4
    st = state(new_state)
    st.set_floor(2, ["hall"])
    st.set_floor(4, ["stone"])
    st.put_crew(0, 2)
    st.knob(0, target_depth=4)
    for die, sym in (("champion", "steel"), ("priest", "cunning")):
        st.die_faces(die, sym)
    st.set_rule("hand_size", 3)
    st.set_bag(0, champion=1, priest=2)
    st.play_turn(0)
    assert st.act_cnt[1, 0, 0] == 1 and st.sd[0, B.SD_FLOOR] == 4
    assert st.act_cnt[3, 0, 0] == 0


def setback_chance(st, p, net):
    return float(st.call(bots.setback_chance, p=np.int64(p), net=float(net)))


def test_press_on_weighs_the_setback_chance_of_the_next_hand(new_state):
    """§6A.3: 3 uncanceled Dread is a Setback. With 2 uncanceled and 4 Recruit dice left
    (one Dread and one Faith face each), another hand brings a Setback when its Dread beat
    its Faith: 0.3248 (exact, below). A greedy bot (``press_risk`` 0.25) stops; with 1
    uncanceled Dread the chance is 0.0903 and it presses; with ``press_risk`` 1 (no check)
    it presses at 2 as it used to."""
    from itertools import product
    st = new_state([PLAIN, RIVAL])
    st.empty_dungeon()
    st.put_crew(0, 1)
    st.set_bag(0, recruit=4)
    st.knob(0, press_max=4, dread_stop=0, press_risk=0.25)

    def exact(need):                    # face 1 = Dread, face 2 = Faith of each Recruit
        return sum(faces.count(1) - faces.count(2) >= need
                   for faces in product(range(6), repeat=4)) / 6 ** 4

    assert np.isclose(setback_chance(st, 0, 2), exact(1))
    assert np.isclose(setback_chance(st, 0, 1), exact(2))
    assert np.isclose(exact(1), 0.3248, atol=1e-4) and np.isclose(exact(2), 0.0903, atol=1e-4)

    def press(dread, faith=0):
        st.sym[:] = 0
        st.sym[L.DREAD], st.sym[L.FAITH] = dread, faith
        return bool(st.call(bots.press_on, p=np.int64(0), presses=np.int64(0),
                            target_floor=np.int64(1), kn=st.a.knobs[0]))

    assert not press(2) and press(1) and press(3, faith=2)
    st.knob(0, press_risk=1.0)
    assert press(2) and not press(3)
    # a Golem-born crew never suffers a Setback: the chance is not asked
    golem = new_state([("golem_born", "reaver"), RIVAL])
    golem.set_bag(0, recruit=4)
    golem.knob(0, press_max=4, press_risk=0.0)
    golem.sym[:] = 0
    golem.sym[L.DREAD] = 2
    assert bool(golem.call(bots.press_on, p=np.int64(0), presses=np.int64(0),
                           target_floor=np.int64(1), kn=golem.a.knobs[0]))
