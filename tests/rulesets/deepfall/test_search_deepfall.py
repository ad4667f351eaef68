"""The DEEPFALL search bot (issue 21): rollouts from a scratch copy of the state.

- ``rollouts: 0`` is the heuristic, bit for bit; a search whose choice is always the
  heuristic's (every option among the best) replays the heuristic game bit for bit, through
  the search's own split of the turn (stop before the seat's turn, each Press On, the
  target floor, the room on arrival, the exit);
- the option means read only the rollouts' own streams: changing the game's own stream
  (its key and counter) leaves them unchanged, changing the rollout key changes them, at
  each kind of decision;
- the rollouts are paired: two options of one decision roll the same dice for every later
  hand whose bag is the same (one stream per hand), where one running stream per rollout
  does not;
- a rollout's value is the rules' win (``end.tie_rule``) plus the Glory-margin tie-break,
  the opponents are played as the knob says;
- the override rule's error rate, simulated on synthetic rollouts (the kernel's own test
  and batch loop): under the null it overrides the heuristic at most as often as its
  bound says, and it finds a better option when there is one;
- the room options are exactly the rooms where the crew can claim or pour in (§7.1), and
  a searched room or Press On is taken as the option mask says;
- a game with search seats is the same on 1 and 2 threads and in any chunking;
- the trace shows each searched decision's options and means.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest
from numba import njit

from deepsim import warmup
from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall import kernel as K
from deepsim.rulesets.deepfall.board import (
    GS_CLAIMS_LEFT,
    GS_CTR,
    GS_EXIT_MASK,
    GS_FLOOR_MASK,
    GS_N,
    GS_PRESS_MASK,
    GS_PRESS_OVER,
    GS_PRESSES,
    GS_ROOM_MASK,
    GS_ROUND,
    GS_TURN_I,
    bag_size,
    copy_state,
    new_quiet_state,
)
from deepsim.rulesets.deepfall.kernel import new_tables, write_row

# every test here compiles the search bot's kernels (about 190 s of CPU from an empty
# cache; no golden case plays a search bot): the slow tier (make test-slow, .ci/run)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _search_kernel():
    """While the slow tier's background warm-up compiles the search bot's batch kernel
    (tests/conftest.py), wait for it before the first test plays it, so that two
    processes do not compile it at once (deepsim.warmup.wait); its traced kernel likewise,
    in the one test that traces."""
    warmup.wait("deepfall", "run")


def scenario(first: dict, **kw) -> dict:
    sc = {"name": "t-search", "ruleset": "deepfall", "players": 2, "seed": 21, "games": 1,
          "companies": {"unique": False},
          "seats": [dict({"lineage": "wisp", "calling": "reaver"}, **first),
                    {"lineage": "wisp", "calling": "reaver", "bot": "balanced"}]}
    sc.update(kw)
    return sc


def frames(sc: dict, count: int, start: int = 0):
    p = RULESET.prepare(sc, source="<test>")
    return RULESET.run_chunk(p, start, count)


def _no_bot(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=[c for c in ("bot",) if c in df.columns]).reset_index(drop=True)


def test_rollouts_zero_is_the_heuristic_bit_for_bit():
    g0, s0 = frames(scenario({"bot": "greedy"}), 40)
    g1, s1 = frames(scenario({"bot": "search", "knobs": {"rollouts": 0}}), 40)
    pd.testing.assert_frame_equal(g0, g1)
    pd.testing.assert_frame_equal(_no_bot(s0), _no_bot(s1))


@njit(cache=True)
def _agreeing_game(seed, game, st, dat):
    """Play a game as kernel.play_block does, but with every searched decision's best set
    holding every option: the search's turn split and its fallback to the heuristic."""
    K.reset(st, seed, game, np.int64(0))
    K.setup(st, dat)
    g = st.g
    while not K.play_rounds(st, dat, np.int64(-1)):
        p = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]
        g[GS_TURN_I] += 1
        K.turn_part(st, dat, p, K.STEP_START, K.STEP_PRESS_PLAN)
        while g[GS_PRESS_OVER] == 0 and bag_size(st, p) > 0:
            g[GS_PRESS_MASK] = 0b11
            K.step2_press_on(st, dat, p, 1)
        K.turn_part(st, dat, p, K.STEP_PRESS, K.STEP_DREAD)
        g[GS_FLOOR_MASK] = 0b1111110
        K.turn_part(st, dat, p, K.STEP_MOVE, K.STEP_MOVE)
        if g[GS_CLAIMS_LEFT] > 0:
            g[GS_ROOM_MASK] = (1 << (K.MAX_SLOTS + 1)) - 1
        K.turn_part(st, dat, p, K.STEP_CLAIM, K.STEP_CLAIM)
        g[GS_EXIT_MASK] = 0b111
        K.turn_part(st, dat, p, K.STEP_EXIT, K.STEP_EXIT)
    K.end_game(st, dat)


def _row(st):
    tab = new_tables(1)
    write_row(st, tab, np.int64(0))
    return tuple(x.copy() for x in tab)


def test_the_search_capable_path_plays_a_heuristic_field_unchanged():
    """kernel.play_game (play_block for one game) with a scratch state (the search-capable
    path: compiled with the search bot's code) plays a field where no seat searches
    exactly as the batch kernel, which compiles without it (``scr`` None;
    test_deepfall_engine.py's test_batch_without_the_search_code_plays_the_same_games
    checks the traced path)."""
    sc = {"name": "t-mixed", "ruleset": "deepfall", "players": [2, 3, 4, 5, 6], "seed": 13,
          "games": 1, "bots": ["random", "cautious", "balanced", "greedy", "martyr"]}
    dat = RULESET.prepare(sc, source="<test>").compiled["arrays"].kernel_data()
    assert not K.searches(dat)
    want = K.play_games(np.int64(13), np.int64(0), np.int64(40), dat)
    st = new_quiet_state()
    for game in range(40):
        K.play_game(np.int64(13), np.int64(game), st, new_quiet_state(), dat)
        got = _row(st)
        assert all(np.array_equal(x, y[game:game + 1]) for x, y in zip(got, want, strict=True)), game


def test_a_search_that_always_agrees_replays_the_heuristic_game():
    heur = RULESET.prepare(scenario({"bot": "greedy"}), source="<t>")
    srch = RULESET.prepare(scenario({"bot": "search", "knobs": {"rollouts": 1}}), source="<t>")
    dh = heur.compiled["arrays"].kernel_data()
    ds = srch.compiled["arrays"].kernel_data()
    a, b, scr = new_quiet_state(), new_quiet_state(), new_quiet_state()
    for game in range(25):
        K.play_game(np.int64(21), np.int64(game), a, scr, dh)
        _agreeing_game(np.int64(21), np.int64(game), b, ds)
        ra, rb = _row(a), _row(b)
        ra[2][:, :, K.S_BOT] = 0
        rb[2][:, :, K.S_BOT] = 0
        assert all(np.array_equal(x, y) for x, y in zip(ra, rb, strict=True)), game
        assert b.g[K.GS_DECISIONS] == 0          # no rollout was played


def _at_decision(dat, game, last, turns=0):
    """A state stopped inside the search seat's first turn after ``turns`` more player-turns,
    parts STEP_START .. ``last`` played, and the seat; (None, None) when the game ends first."""
    st = new_quiet_state()
    K.reset(st, np.int64(21), np.int64(game), np.int64(0))
    K.setup(st, dat)
    for i in range(turns + 1):
        if K.play_rounds(st, dat, np.int64(-1)):
            return None, None
        g = st.g
        p = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]
        g[GS_TURN_I] += 1
        if i < turns:
            K.play_turn(st, dat, p)
    K.turn_part(st, dat, p, K.STEP_START, last)
    return st, p


#: each kind of decision: the last part played before it, and its options (a bit set)
DECISIONS = {K.EXIT_DECISION: (K.STEP_CLAIM, 0b11), K.PRESS_DECISION: (K.STEP_PRESS_PLAN, 0b11),
             K.FLOOR_DECISION: (K.STEP_DREAD, 0b1110), K.ROOM_DECISION: (K.STEP_MOVE, None)}


@pytest.mark.parametrize("kind", sorted(DECISIONS))
def test_option_means_read_only_the_rollouts_streams(kind):
    dat = RULESET.prepare(scenario({"bot": "search", "knobs": {"rollouts": 16}}),
                          source="<t>").compiled["arrays"].kernel_data()
    scr = new_quiet_state()
    last, options = DECISIONS[kind]
    changed = checked = 0
    for game in range(12):
        st, p = _at_decision(dat, game, last, turns=game % 3)
        if st is None:
            continue
        opts = options if options is not None else K.room_options(
            st, dat, p, st.sd[p, K.SD_FLOOR] - 1)
        if opts & (opts - 1) == 0:
            continue                      # one option: nothing to search
        heur = K.heuristic_option(st, scr, dat, p, kind)
        m0 = np.zeros(K.SEARCH_WORK)
        k0 = K.option_means(st, scr, dat, p, kind, opts, heur, m0)
        # the game's own future stream: another key, another counter
        st.key[0] ^= np.uint64(0x5DEECE66D)
        st.g[GS_CTR] += 17
        m1 = np.zeros(K.SEARCH_WORK)
        k1 = K.option_means(st, scr, dat, p, kind, opts, heur, m1)
        assert k0 == k1 and np.array_equal(m0, m1), game
        # the rollouts' own key does matter (the test can fail)
        st.key[1] ^= np.uint64(0x5DEECE66D)
        m2 = np.zeros(K.SEARCH_WORK)
        K.option_means(st, scr, dat, p, kind, opts, heur, m2)
        changed += not np.array_equal(m0, m2)
        checked += 1
    assert checked >= 4 and changed >= checked // 2


def test_search_margin_keeps_the_heuristic_unless_the_rollouts_say_otherwise_clearly():
    """``search_margin`` m: the options returned are the best ones (as with m = 0) when the
    heuristic's option is among them or the first best beats it by more than m standard
    errors of the paired differences over the rollouts, else the heuristic's alone."""
    def dat_of(margin):
        sc = scenario({"bot": "search", "knobs": {"rollouts": 12, "search_margin": margin,
                                                   "search_extra": 0}})
        return RULESET.prepare(sc, source="<t>").compiled["arrays"].kernel_data()
    d0, d2 = dat_of(0.0), dat_of(2.0)
    scr = new_quiet_state()
    n = K.SEARCH_OPTIONS
    kept = overridden = 0
    # games until both cases were met (about 1 in 20 decisions is overridden)
    for game in range(200):
        if kept and overridden and game >= 40:
            break
        st, p = _at_decision(d0, game, K.STEP_DREAD, turns=game % 5)
        if st is None:
            continue
        cur, reach = int(st.sd[p, K.SD_FLOOR]), 1
        opts = sum(1 << f for f in range(max(1, cur - reach), min(6, cur + reach) + 1))
        heur = K.heuristic_option(st, scr, d0, p, K.FLOOR_DECISION)
        w0, w2 = np.zeros(K.SEARCH_WORK), np.zeros(K.SEARCH_WORK)
        m0 = K.option_means(st, scr, d0, p, K.FLOOR_DECISION, opts, heur, w0)
        m2 = K.option_means(st, scr, d2, p, K.FLOOR_DECISION, opts, heur, w2)
        assert np.array_equal(w0, w2)                   # the same rollouts
        if not (opts >> heur) & 1 or (m0 >> heur) & 1:
            assert m2 == m0
            continue
        first = next(o for o in range(n) if (m0 >> o) & 1)
        mean_d = w0[n + first] / 12
        sd = np.sqrt(max(w0[2 * n + first] - 12 * mean_d ** 2, 0.0) / 11)
        clear = mean_d > 2.0 * sd / np.sqrt(12)
        assert m2 == (m0 if clear else 1 << heur), game
        overridden += clear
        kept += not clear
    assert kept > 0 and overridden > 0, (kept, overridden)


def test_room_options_are_the_rooms_the_crew_can_claim_or_pour_into():
    """§7.1 with A25, A34: a room is an option of the room search exactly when the crew can
    claim it or pour something in; taking it (GS_ROOM_MASK) places a marker or pours; the
    "no claim" option and the other rooms change nothing."""
    dat = RULESET.prepare(scenario({"bot": "search", "knobs": {"rollouts": 1}}),
                          source="<t>").compiled["arrays"].kernel_data()
    seen = {"claim": 0, "pour": 0, "none": 0}
    for game in range(60):
        if game >= 10 and min(seen.values()) > 0:
            break
        for turns in range(0, 12, 3):
            st, p = _at_decision(dat, game, K.STEP_MOVE, turns)
            if st is None:
                continue
            fi = st.sd[p, K.SD_FLOOR] - 1
            opts = K.room_options(st, dat, p, fi)
            assert opts & 1 == 1                        # no claim is always an option
            kn_p = dat.knobs[st.sd[p, K.SD_BOT]]
            for s in range(-1, int(st.g[K.GS_SLOTS])):
                cp = new_quiet_state()
                copy_state(st, cp)
                cp.g[GS_ROOM_MASK] = 1 << (s + 1)
                marks = int(cp.act_cnt[fi].sum())
                assaults = int(cp.si[p, K.S_ASSAULTS])
                claimed = K.try_claim(cp, dat, kn_p, p, True, 0)
                poured = int(cp.si[p, K.S_ASSAULTS]) > assaults
                assert cp.g[GS_ROOM_MASK] == 0                # the mask is used once
                if (opts >> (s + 1)) & 1 and s >= 0:
                    assert claimed or poured, (game, turns, s)
                    assert not claimed or cp.act_cnt[fi, s, p] == st.act_cnt[fi, s, p] + 1
                    seen["claim" if claimed else "pour"] += 1
                else:
                    assert not claimed and not poured, (game, turns, s)
                    assert int(cp.act_cnt[fi].sum()) == marks
                    seen["none"] += 1
    assert min(seen.values()) > 0, seen


def test_a_searched_press_on_is_taken_as_the_mask_says():
    """§6A.2: with GS_PRESS_MASK the next Press On is the mask's choice whatever the
    heuristic says (press: one more Press On, +Dread, A18; stop: step 2 is over)."""
    dat = RULESET.prepare(scenario({"bot": "search", "knobs": {"rollouts": 1}}),
                          source="<t>").compiled["arrays"].kernel_data()
    checked = 0
    for game in range(8):
        st, p = _at_decision(dat, game, K.STEP_PRESS_PLAN, turns=game % 4)
        if st is None or bag_size(st, p) == 0:
            continue
        for option in (0, 1):
            cp = new_quiet_state()
            copy_state(st, cp)
            cp.g[GS_PRESS_MASK] = 1 << option
            dread = int(cp.g[K.GS_DREAD])
            K.step2_press_on(cp, dat, p, 1)
            assert cp.g[GS_PRESS_MASK] == 0
            assert cp.g[GS_PRESSES] == option
            assert cp.g[K.GS_DREAD] == dread + option * int(dat.book.rules[K.R_PRESS_DREAD])
            if option == 0:
                assert cp.g[GS_PRESS_OVER] == 1
        checked += 1
    assert checked >= 4


def test_search_games_are_the_same_on_1_and_2_threads_and_in_any_chunking():
    sc = scenario({"bot": "search", "knobs": {"rollouts": 3}}, players=[2, 3],
                  seats=[{"bot": "search", "knobs": {"rollouts": 3}}, {"bot": "greedy"},
                         {"bot": "martyr"}], companies={"unique": True})
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        g1, s1 = frames(sc, 16)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        g2, s2 = frames(sc, 16)
        ga, sa = frames(sc, 7)
        gb, sb = frames(sc, 9, start=7)
    finally:
        numba.set_num_threads(before)
    pd.testing.assert_frame_equal(g1, g2)
    pd.testing.assert_frame_equal(s1, s2)
    pd.testing.assert_frame_equal(g1, pd.concat([ga, gb], ignore_index=True))
    pd.testing.assert_frame_equal(s1, pd.concat([sa, sb], ignore_index=True))


def test_the_trace_shows_each_searched_decision():
    warmup.wait("deepfall", "trace")
    sc = scenario({"bot": "search", "knobs": {"rollouts": 2, "search_press": 1}})
    p = RULESET.prepare(sc, source="<t>")
    lines = RULESET.trace(p, 0)
    searched = [ln for ln in lines if "searches its" in ln]
    assert any("searches its exit (2 rollouts per option, mean value): Stay" in ln
               for ln in searched)
    assert any("searches its target floor" in ln for ln in searched)
    assert any("searches its next Press On (2 rollouts per option, mean value): stop" in ln
               for ln in searched)
    assert any("searches its room on arrival (2 rollouts per option, mean value): no claim"
               in ln and "slot " in ln for ln in searched)
    # the bot's own line after a search that overrode it says so
    marked = [ln for game in range(6) for ln in RULESET.trace(p, game)
              if "(heuristic, overridden by the search above): " in ln]
    assert marked
    # JSON: an option that was not one is null, not a number
    recs = [r for r in RULESET.trace_records(p, 0) if r.get("event") == "search"]
    assert recs and all(r["mean_6"] is None or r["mean_6"] >= 0 for r in recs)
    assert any(r["mean_6"] is None for r in recs)
    # the traced game is the batch's game
    _g, s = frames(sc, 1)
    _tg, ts = RULESET.trace_result(p, 0)
    assert float(ts["glory"].sum()) == pytest.approx(float(s["glory"].sum()))


# ---------------------------------------------------------------------------------------
# paired rollouts, the rollout's value, the opponents, the override rule
# ---------------------------------------------------------------------------------------

@njit(cache=True)
def _later_first_hands(st, scr, dat, p, kind, option, key, rec):
    """Play a rollout of ``option`` as kernel.rollout_value does, recording the first hand
    of every later turn in ``rec`` (int64[k, 3 + 3 * N_DICE... ]: round, seat, then the
    bag before the draw, the dice drawn and the symbols rolled); returns the rows."""
    kn = dat.knobs[st.sd[p, K.SD_BOT]]
    copy_state(st, scr)
    g = scr.g
    g[K.GS_SEARCH] = 0
    g[K.GS_ROLLOUT] = 1 if kn[K.K_SEARCH_PAIRED] > 0.5 else 2
    scr.key[0] = key
    scr.key[1] = key
    g[GS_CTR] = 0
    if kn[K.K_SEARCH_OPPONENTS] < 0.5:
        for q in range(g[GS_N]):
            scr.sd[q, K.SD_BOT] = st.sd[p, K.SD_BOT]
    g[GS_FLOOR_MASK + kind] = np.int64(1) << option
    K.turn_part(scr, dat, p, K.decision_part(kind), np.int64(K.STEP_EXIT))
    k = 0
    nd = scr.bag.shape[1]
    while not K.play_rounds(scr, dat, g[K.GS_TURNS]):
        q = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]
        g[GS_TURN_I] += 1
        K.turn_part(scr, dat, q, np.int64(K.STEP_START), np.int64(K.STEP_START))
        if k < rec.shape[0]:
            rec[k, 0] = g[GS_ROUND]
            rec[k, 1] = q
            for t in range(nd):
                rec[k, 2 + t] = scr.bag[q, t]
        K.turn_part(scr, dat, q, np.int64(K.STEP_ROLL), np.int64(K.STEP_ROLL))
        if k < rec.shape[0]:
            for t in range(nd):
                rec[k, 2 + nd + t] = scr.drawn[q, t]
            for t in range(scr.rolled.shape[0]):
                rec[k, 2 + 2 * nd + t] = scr.rolled[t]
            k += 1
        K.turn_part(scr, dat, q, np.int64(K.STEP_PRESS_PLAN), np.int64(K.STEP_EXIT))
    K.end_game(scr, dat)
    return k


def _hands(st, dat, p, kind, option, key):
    rec = np.zeros((400, 2 + 2 * K.N_DICE + K.N_SYMBOLS), np.int64)
    k = _later_first_hands(st, new_quiet_state(), dat, p, kind, np.int64(option),
                           np.uint64(key), rec)
    nd = K.N_DICE
    return {(int(r[0]), int(r[1])): (tuple(r[2:2 + nd]), tuple(r[2 + nd:]))
            for r in rec[:k]}


def _pairing(paired: int):
    """(later hands compared, hands with the same bag but other dice) over decisions where
    two options of one decision draw a different number of dice this turn (press or
    stop a Press On) or move to different floors."""
    sc = scenario({"bot": "search", "knobs": {"rollouts": 1, "search_paired": paired}})
    dat = RULESET.prepare(sc, source="<t>").compiled["arrays"].kernel_data()
    same = differ = 0
    for game in range(6):
        for kind, last, a, b in ((K.PRESS_DECISION, K.STEP_PRESS_PLAN, 0, 1),
                                 (K.FLOOR_DECISION, K.STEP_DREAD, 1, 2)):
            st, p = _at_decision(dat, game, last, turns=2 * game % 5)
            if st is None or (kind == K.PRESS_DECISION and bag_size(st, p) == 0):
                continue
            key = int(K.rollout_key(st.key[1], np.int64(0), np.int64(game)))
            ha = _hands(st, dat, p, kind, a, key)
            hb = _hands(st, dat, p, kind, b, key)
            for turn, (bag, dice) in ha.items():
                if turn in hb and hb[turn][0] == bag:
                    same += hb[turn][1] == dice
                    differ += hb[turn][1] != dice
    return same, differ


def test_two_options_see_the_same_later_dice():
    """Paired rollouts: an option that presses on once more (or moves elsewhere) does not
    shift the later dice: every later hand drawn from the same bag rolls the same dice in
    both options' rollouts of one key. With one running stream per rollout
    (``search_paired: 0``, the search as it was) they do shift: the test can fail."""
    same, differ = _pairing(1)
    assert differ == 0 and same >= 100, (same, differ)
    same0, differ0 = _pairing(0)
    assert differ0 > same0 // 4, (same0, differ0)


def test_a_hands_stream_is_its_round_seat_and_hand():
    """kernel.hand_stream: in a paired rollout a hand's stream depends on (rollout key,
    round, seat, hand of the turn) alone, not on what was drawn before; in a game (and a
    rollout with one running stream) the stream is left as it was."""
    st = new_quiet_state()
    st.key[1] = np.uint64(77)
    st.g[GS_ROUND] = 3
    st.g[K.GS_ROLLOUT] = 1
    keys = set()
    for p in range(3):
        for hand in range(3):
            st.key[0] = np.uint64(5)
            st.g[GS_CTR] = 41
            K.hand_stream(st, np.int64(p), np.int64(hand))
            assert st.g[GS_CTR] == 0
            keys.add(int(st.key[0]))
    assert len(keys) == 9
    st.g[GS_ROUND] = 4
    K.hand_stream(st, np.int64(0), np.int64(0))
    assert int(st.key[0]) not in keys
    for mode in (0, 2):
        st.g[K.GS_ROLLOUT] = mode
        st.key[0] = np.uint64(5)
        st.g[GS_CTR] = 41
        K.hand_stream(st, np.int64(1), np.int64(1))
        assert int(st.key[0]) == 5 and st.g[GS_CTR] == 41


def test_a_rollouts_value_is_the_rules_win_plus_the_glory_margin():
    """kernel.outcome_value: the win as end_game counts it (a tie for first shared 1/k, or
    nothing with end.tie_rule: none) plus search_glory x the relative Glory margin."""
    st = new_quiet_state()
    st.g[GS_N] = 3
    for glory, win, p, w, want in (
            ((30.0, 20.0, 10.0), (1.0, 0.0, 0.0), 0, 0.1, 1.0 + 0.1 * 10 / 30),
            ((30.0, 20.0, 10.0), (1.0, 0.0, 0.0), 2, 0.1, 0.1 * -20 / 30),
            ((30.0, 30.0, 10.0), (0.5, 0.5, 0.0), 1, 0.2, 0.5),
            ((30.0, 30.0, 10.0), (0.0, 0.0, 0.0), 1, 0.2, 0.0),      # tie_rule none
            ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0, 0.5, 0.0),
            ((0.5, 0.0, 0.0), (1.0, 0.0, 0.0), 0, 1.0, 1.5)):        # scale at least 1
        st.glory[:3] = glory
        st.sf[:3, K.SF_WIN] = win
        assert K.outcome_value(st, np.int64(p), w) == pytest.approx(want)


def test_the_rollouts_follow_the_tie_rule():
    """end.tie_rule none: a rollout's tie for first is worth nothing (the rules' win), so
    the option means differ from the shared rule's wherever a rollout ties."""
    diff = 0
    sc = scenario({"bot": "search", "knobs": {"rollouts": 32}})
    dats = {rule: RULESET.prepare(sc, source="<t>", overrides=[f"end.tie_rule={rule}"]
                                  ).compiled["arrays"].kernel_data()
            for rule in ("share", "none")}
    for game in range(30):     # ties for first are rare (~0.5% of 2-player games)
        means = []
        for rule in ("share", "none"):
            dat = dats[rule]
            st, p = _at_decision(dat, game, K.STEP_CLAIM, turns=game % 3)
            if st is None:
                break
            w = np.zeros(K.SEARCH_WORK)
            heur = K.heuristic_option(st, new_quiet_state(), dat, p, K.EXIT_DECISION)
            K.option_means(st, new_quiet_state(), dat, p, K.EXIT_DECISION, 0b11, heur, w)
            means.append(w[:2].copy())
        if len(means) == 2:
            assert np.all(means[1] <= means[0] + 1e-12)
            diff += not np.array_equal(means[0], means[1])
    assert diff > 0


def test_the_opponent_model_is_a_knob():
    """search_opponents 0: every other seat of a rollout plays the searcher's heuristic;
    1: its own bot's (as seated). Against a seat whose bot differs, the option means
    differ; they are the same when the other seat plays the searcher's own style."""
    def means(opp_bot, model, game):
        sc = scenario({"bot": "search", "knobs": {"rollouts": 6, "search_opponents": model}})
        sc["seats"][1]["bot"] = opp_bot
        dat = RULESET.prepare(sc, source="<t>").compiled["arrays"].kernel_data()
        st, p = _at_decision(dat, game, K.STEP_CLAIM, turns=2)
        if st is None:
            return None
        w = np.zeros(K.SEARCH_WORK)
        heur = K.heuristic_option(st, new_quiet_state(), dat, p, K.EXIT_DECISION)
        K.option_means(st, new_quiet_state(), dat, p, K.EXIT_DECISION, 0b11, heur, w)
        return w[:2].copy()
    differ = 0
    for game in range(10):
        a, b = means("martyr", 0, game), means("martyr", 1, game)
        if a is None:
            continue
        differ += not np.array_equal(a, b)
        assert np.array_equal(means("search", 0, game), means("search", 1, game))
    assert differ > 0


def _simulate(m, per, extra, z, delta, decisions, rng, rho=0.6, glory=0.1):
    """Override rate of kernel.search_verdict driven as kernel.option_means drives it,
    on synthetic rollouts: option o's value in rollout r is a win (a latent normal
    rho Z_r + sqrt(1 - rho^2) E_or + delta_o above 0; Z shared by the options, as common
    random numbers make it) plus ``glory`` x a margin in [-1, 1] from the same latent.
    Option 0 is the heuristic's; ``delta`` (per option) their true advantage over it."""
    n = K.SEARCH_OPTIONS
    options = (1 << m) - 1
    overrides = 0
    for _ in range(decisions):
        work = np.zeros(K.SEARCH_WORK)
        done = 0
        for _b in range(extra + 1):
            zr = rng.standard_normal(per)[:, None]
            lat = rho * zr + np.sqrt(1 - rho * rho) * rng.standard_normal((per, m)) + delta
            v = (lat > 0) + glory * np.tanh(lat)
            d = v - v[:, :1]
            work[:m] += v.sum(axis=0)
            work[n:n + m] += d.sum(axis=0)
            work[2 * n:2 * n + m] += (d * d).sum(axis=0)
            done += per
            mask, settled = K.search_verdict(work, np.int64(options), np.int64(0),
                                             np.int64(done), z)
            if settled:
                break
        overrides += (mask & 1) == 0
    return overrides / decisions


@pytest.mark.parametrize("m,per,extra,z", [(2, 32, 0, 1.0), (3, 32, 0, 1.645),
                                           (4, 32, 2, 1.645), (6, 16, 1, 2.0)])
def test_the_override_rule_keeps_its_error_rate(m, per, extra, z):
    """Under the null (no option better than the heuristic's) the search overrides the
    heuristic at most (m - 1) x (extra + 1) x P(T_{n-1} > z) of the time (a one-sided
    paired t test of the best option only, after each of the extra + 1 batches:
    Bonferroni over options and looks), within 3 Monte Carlo standard errors; with one
    option clearly better it finds it."""
    from scipy import stats as sps

    rng = np.random.default_rng(4601 + m)
    decisions = 3000
    rate = _simulate(m, per, extra, z, np.zeros(m), decisions, rng)
    bound = min(1.0, (m - 1) * (extra + 1) * sps.t.sf(z, per - 1))
    assert rate <= bound + 3 * np.sqrt(bound * (1 - bound) / decisions), (rate, bound)
    assert rate > 0.1 * bound                # the rule does override under the null
    better = np.zeros(m)
    better[-1] = 1.0                         # the last option wins ~34 points more often
    assert _simulate(m, per, extra, z, better, 400, rng) > 0.8


def test_z_zero_is_the_best_mean_and_the_heuristic_breaks_exact_ties():
    """search_margin 0: the best mean is taken whenever it beats the heuristic's by more
    than TIE_EPS (the old rule); an exact tie keeps the heuristic's option."""
    n = K.SEARCH_OPTIONS
    work = np.zeros(K.SEARCH_WORK)
    work[0], work[1], work[2] = 10.0, 10.0, 9.0          # sums over 20 rollouts
    mask, settled = K.search_verdict(work, np.int64(0b111), np.int64(0), np.int64(20), 0.0)
    assert settled and mask == 0b011
    work[1] = 10.5
    work[n + 1], work[2 * n + 1] = 0.5, 0.5               # one rollout better by 0.5
    mask, settled = K.search_verdict(work, np.int64(0b111), np.int64(0), np.int64(20), 0.0)
    assert settled and mask == 0b010
    mask, settled = K.search_verdict(work, np.int64(0b111), np.int64(0), np.int64(20), 1.5)
    assert not settled and mask == 0b001                  # t = 1 is not above 1.5
