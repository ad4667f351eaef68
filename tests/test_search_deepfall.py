"""The DEEPFALL search bot (issue 21): rollouts from a scratch copy of the state.

- ``rollouts: 0`` is the heuristic, bit for bit; a search whose choice is always the
  heuristic's (every option among the best) replays the heuristic game bit for bit, through
  the search's own split of the turn (stop before the seat's turn, steps 0-3, 4, 5);
- the option means read only the rollouts' own streams: changing the game's own stream
  (its key and counter) leaves them unchanged, changing the rollout key changes them;
- a game with search seats is the same on 1 and 2 threads and in any chunking;
- the trace shows each searched decision's options and means.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest
from numba import njit

from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall import kernel as K
from deepsim.rulesets.deepfall.board import (
    GS_CTR,
    GS_EXIT_MASK,
    GS_FLOOR_MASK,
    GS_N,
    GS_ROUND,
    GS_TURN_I,
    new_state,
)
from deepsim.rulesets.deepfall.kernel import new_tables, write_row


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
    """Play a game as kernel.play_game does, but with every searched decision's best set
    holding every option: the search's turn split and its fallback to the heuristic."""
    K.reset(st, seed, game, np.int64(0))
    K.setup(st, dat)
    g = st.g
    while not K.play_rounds(st, dat, np.int64(-1)):
        p = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]
        g[GS_TURN_I] += 1
        K.turn_part(st, dat, p, 0, 3)
        g[GS_FLOOR_MASK] = 0b1111110
        K.turn_part(st, dat, p, 4, 4)
        g[GS_EXIT_MASK] = 0b111
        K.turn_part(st, dat, p, 5, 5)
    K.end_game(st, dat)


def _row(st):
    tab = new_tables(1)
    write_row(st, tab, np.int64(0))
    return tuple(x.copy() for x in tab)


def test_a_search_that_always_agrees_replays_the_heuristic_game():
    heur = RULESET.prepare(scenario({"bot": "greedy"}), source="<t>")
    srch = RULESET.prepare(scenario({"bot": "search", "knobs": {"rollouts": 1}}), source="<t>")
    dh = heur.compiled["arrays"].kernel_data()
    ds = srch.compiled["arrays"].kernel_data()
    a, b, scr = new_state(1), new_state(1), new_state(1)
    for game in range(25):
        K.play_game(np.int64(21), np.int64(game), a, scr, np.zeros(6), dh, np.int64(0))
        _agreeing_game(np.int64(21), np.int64(game), b, ds)
        ra, rb = _row(a), _row(b)
        ra[2][:, :, K.S_BOT] = 0
        rb[2][:, :, K.S_BOT] = 0
        assert all(np.array_equal(x, y) for x, y in zip(ra, rb, strict=True)), game
        assert b.g[K.GS_DECISIONS] == 0          # no rollout was played


def _at_exit_decision(dat, game):
    """A state stopped at the search seat's exit (steps 0-4 played) and the seat."""
    st = new_state(1)
    K.reset(st, np.int64(21), np.int64(game), np.int64(0))
    K.setup(st, dat)
    assert not K.play_rounds(st, dat, np.int64(-1))
    g = st.g
    p = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]
    g[GS_TURN_I] += 1
    K.turn_part(st, dat, p, 0, 4)
    return st, p


def test_option_means_read_only_the_rollouts_streams():
    dat = RULESET.prepare(scenario({"bot": "search", "knobs": {"rollouts": 16}}),
                          source="<t>").compiled["arrays"].kernel_data()
    scr = new_state(1)
    changed = 0
    for game in range(6):
        st, p = _at_exit_decision(dat, game)
        m0 = np.zeros(6)
        k0 = K.option_means(st, scr, dat, p, K.EXIT_DECISION, 0, 2, m0)
        # the game's own future stream: another key, another counter
        st.key[0] ^= np.uint64(0x5DEECE66D)
        st.g[GS_CTR] += 17
        m1 = np.zeros(6)
        k1 = K.option_means(st, scr, dat, p, K.EXIT_DECISION, 0, 2, m1)
        assert k0 == k1 and np.array_equal(m0, m1), game
        # the rollouts' own key does matter (the test can fail)
        st.key[1] ^= np.uint64(0x5DEECE66D)
        m2 = np.zeros(6)
        K.option_means(st, scr, dat, p, K.EXIT_DECISION, 0, 2, m2)
        changed += not np.array_equal(m0, m2)
    assert changed >= 3


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
    sc = scenario({"bot": "search", "knobs": {"rollouts": 2}})
    p = RULESET.prepare(sc, source="<t>")
    lines = RULESET.trace(p, 0)
    searched = [ln for ln in lines if "searches its" in ln]
    assert any("searches its exit (2 rollouts per option, mean win): Stay" in ln
               for ln in searched)
    assert any("searches its target floor" in ln for ln in searched)
    # the traced game is the batch's game
    _g, s = frames(sc, 1)
    _tg, ts = RULESET.trace_result(p, 0)
    assert float(ts["glory"].sum()) == pytest.approx(float(s["glory"].sum()))
