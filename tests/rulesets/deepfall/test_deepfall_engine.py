"""DEEPFALL engine: determinism, invariants, every rule exercised in play, bot styles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall import kernel as K
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.board import (
    GS_N,
    GS_ROUND,
    GS_TURN_I,
    TRACE_EVENTS,
    copy_state,
    new_quiet_state,
    new_state,
    traced,
)
from deepsim.rulesets.deepfall.kernel import new_tables, play_game, trace_game, write_row
from deepsim.rulesets.deepfall.schema import EFFECTS, ROOMS

MIXED = {"name": "t-mixed", "ruleset": "deepfall", "players": [2, 3, 4, 5, 6], "seed": 11,
         "games": 1, "bots": ["random", "cautious", "balanced", "greedy", "martyr"]}


def prepared(**kw):
    sc = dict(MIXED)
    overrides = kw.pop("overrides", None)
    sc.update(kw)
    return RULESET.prepare(sc, source="<test>", overrides=overrides)


def sort(df: pd.DataFrame) -> pd.DataFrame:
    keys = ["game", "seat"] if "seat" in df else ["game"]
    return df.sort_values(keys).reset_index(drop=True)


@pytest.fixture(scope="module")
def mixed_10k():
    p = prepared(seed=2024)
    return RULESET.run_chunk(p, 0, 10_000)


def _row(st):
    """The game's output row (gi, gf, si, sf) as copies."""
    tab = new_tables(1)
    write_row(st, tab, np.int64(0))
    return tuple(x.copy() for x in tab)


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("mid_turn", [False, True])
def test_a_copied_state_plays_on_exactly_as_the_game(mid_turn):
    """board.copy_state: a game stopped after k player-turns (kernel.play_rounds'
    ``stop_turns``; mid_turn: and then seat p's §6A start and step 1 played), copied into a
    scratch state and played on from the copy (kernel.finish_turn from step 2, then
    kernel.play_rest) gives exactly the row of the same game played straight through; the
    original, played on after the copy, too (copying changes nothing in it). Mixed player
    counts and bots, several stop points per game, the first one before any turn."""
    p = prepared(seed=7)                               # 2-6 players, five bot styles
    dat = p.compiled["arrays"].kernel_data()
    seed = np.int64(7)
    whole, st, cp = new_quiet_state(), new_quiet_state(), new_quiet_state()
    checked = 0
    for game in range(12):
        # scr None: the batch kernel (no seat searches), already compiled
        play_game(seed, np.int64(game), whole, None, dat)
        want = _row(whole)
        turns = int(whole.g[K.GS_TURNS])
        for k in (0, 1, turns // 3, turns - 1):
            K.reset(st, seed, np.int64(game), np.int64(0))
            K.setup(st, dat)
            assert not K.play_rounds(st, dat, np.int64(k))
            step = 1
            if mid_turn:
                g = st.g
                if g[GS_TURN_I] < 0:
                    K.begin_round(st)
                seat = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]
                g[GS_TURN_I] += 1
                K.turn_start(st, dat, seat)
                K.step1_roll(st, dat, seat)
                step = 2
            for x in cp:                                # stale scratch contents
                x[...] = 3
            copy_state(st, cp)
            for state in (cp, st):
                if mid_turn:
                    K.finish_turn(state, dat, seat, np.int64(step))
                K.play_rest(state, dat)
                assert _same(_row(state), want), (game, k, mid_turn)
            checked += 1
    assert checked == 48


def test_batch_without_the_search_code_plays_the_same_games():
    """kernel.play_block compiles and plays without the search bot when no seat's bot
    searches (kernel.searches False, ``scr`` None); a traced state plays those games too
    (the trace hooks change nothing). The search-capable path (a scratch state given)
    plays them the same: test_search_deepfall.py (slow tier: it compiles that path)."""
    p = prepared(seed=13)
    dat = p.compiled["arrays"].kernel_data()
    assert not K.searches(dat)
    gi, gf, si, sf = K.play_games(np.int64(13), np.int64(0), np.int64(40), dat)
    quiet, traced_st = new_quiet_state(), new_state()
    assert not traced(quiet) and not traced(traced_st)
    for game in range(40):
        play_game(np.int64(13), np.int64(game), quiet, None, dat)
        want = (gi[game:game + 1], gf[game:game + 1], si[game:game + 1], sf[game:game + 1])
        assert _same(_row(quiet), want), game
        play_game(np.int64(13), np.int64(game), traced_st, None, dat)
        assert traced(traced_st) and traced_st.g[K.GS_EV] > 0
        assert _same(_row(traced_st), want), game
    assert quiet.ev.shape[0] == 0                   # a quiet state never holds events


def test_searches_sees_every_way_a_seat_gets_a_searching_bot():
    """kernel.searches: a seat given the search bot, a pool it may draw from with it, or a
    company whose faction_bots include it; not the search style merely defined."""
    def dat(**kw):
        sc = {"name": "t", "ruleset": "deepfall", "players": 2, "seed": 1, "games": 1}
        sc.update(kw)
        return RULESET.prepare(sc, source="<t>").compiled["arrays"].kernel_data()
    assert not K.searches(dat(bots=["greedy", "martyr"]))
    assert K.searches(dat(bots=["greedy", "search"]))
    assert K.searches(dat(seats=[{"bot": "search"}, {"bot": "greedy"}]))
    assert K.searches(dat(seats=[{"bot": "greedy", "knobs": {"rollouts": 2}},
                                 {"bot": "greedy"}]))
    assert not K.searches(dat(seats=[{"bot": "search", "knobs": {"rollouts": 0}},
                                     {"bot": "greedy"}]))
    assert K.searches(dat(bots=["greedy"],
                          faction_bots={"factions": {"Wisp Reaver": "search"}}))


def test_invariants_on_every_game_of_a_batch():
    """Glory, dice and markers never negative; the game ends with Floor 1 (no truncation)."""
    p = prepared(seed=5)
    dat = p.compiled["arrays"].kernel_data()
    st = new_quiet_state()
    n = 300
    tab = new_tables(n)
    for r in range(n):
        play_game(np.int64(5), np.int64(r), st, None, dat)
        write_row(st, tab, np.int64(r))
        for x in (st.bag, st.drawn, st.disc, st.act_cnt, st.fallen):
            assert (x >= 0).all()
        assert (st.glory >= 0).all()
    gi, sf = tab.gi, tab.sf
    assert (gi[:, L.G_TRUNCATED] == 0).all()
    assert (gi[:, L.G_COLLAPSED] == 6).all()
    assert (gi[:, L.G_ROUNDS] >= 6).all()          # at most one floor per round (§9)
    assert (sf[:, :, L.SF_GLORY] >= 0).all()


def test_maw_never_collapses_two_floors_in_a_round():
    """§9 / B8: at most one collapse event per round, checked on traced games."""
    p = prepared(seed=9)
    args = p.compiled["arrays"].kernel_args()
    for game in range(25):
        *_, ev = trace_game(np.int64(9), np.int64(game), 50_000, *args)
        maw = ev[ev[:, 2] == L.EV_MAW]
        _, counts = np.unique(maw[:, 0], return_counts=True)
        assert counts.max() == 1
        assert list(maw[:, 3]) == [6, 5, 4, 3, 2, 1]   # bottom up


def test_trace_keeps_at_most_max_events_and_rejects_more_than_its_buffer():
    """kernel.trace_game: the first ``max_events`` events of the game (the buffer holds
    board.TRACE_EVENTS rows), the same game whatever the cap; a cap above it is an error."""
    args = prepared(seed=9).compiled["arrays"].kernel_args()
    *row, ev = trace_game(np.int64(9), np.int64(0), 50_000, *args)
    *row5, ev5 = trace_game(np.int64(9), np.int64(0), 5, *args)
    assert len(ev) > 5 and np.array_equal(ev5, ev[:5])
    assert all(np.array_equal(a, b) for a, b in zip(row, row5))
    with pytest.raises(ValueError, match="max_events"):
        trace_game(np.int64(9), np.int64(0), TRACE_EVENTS + 1, *args)


def test_no_truncated_games_at_default_rules(mixed_10k):
    games, _ = mixed_10k
    assert not games["truncated"].any()
    assert (games["floors_collapsed"] == 6).all()


def test_every_rule_and_ability_happens_in_play(mixed_10k):
    """Every Lineage/Calling ability, every exit, every room theme, recruiting, depth."""
    _, seats = mixed_10k
    for e in EFFECTS:
        assert seats[f"use_{e}"].sum() > 0, f"ability {e} never used"
    for r in ROOMS:
        assert seats[f"claims_{r}"].sum() > 0, f"room {r} never claimed"
    for col in ("cash_outs", "last_stands", "worthy_ends", "taken_no_stand", "dice_recruited",
                "setbacks", "dice_lost", "press_ons", "assaults", "rooms_consumed"):
        assert seats[col].sum() > 0, col
    assert (seats["deepest"] == 6).any()
    by_lin = seats.groupby("lineage", observed=True)["lineage_ability"].sum()
    by_cal = seats.groupby("calling", observed=True)["calling_ability"].sum()
    assert (by_lin > 0).all() and len(by_lin) == 6
    assert (by_cal > 0).all() and len(by_cal) == 6


def test_bot_styles_differ_as_named(mixed_10k):
    _, seats = mixed_10k
    m = seats.groupby("bot", observed=True).mean(numeric_only=True)
    assert m.loc["greedy", "press_ons"] > m.loc["cautious", "press_ons"]
    # martyr dives deepest for its Worthy End; balanced declares its Last Stand once at
    # Floor 4, so more often, shallower
    assert m.loc["martyr", "deepest"] > max(m.loc[b, "deepest"]
                                            for b in ("cautious", "balanced", "greedy"))
    assert m.loc["martyr", "last_stands"] > max(m.loc[b, "last_stands"]
                                                for b in ("cautious", "greedy"))
    assert m.loc["balanced", "deepest"] < m.loc["martyr", "deepest"]
    assert m.loc["cautious", "deepest"] < m.loc["greedy", "deepest"]
    assert m.loc["greedy", "deepest"] <= m.loc["martyr", "deepest"] + 0.5


def test_trace_log_shows_the_six_collapses():
    """(That a traced game equals its batch row is the conformance suite's.)"""
    p = prepared(seed=3)
    for k in (0, 17, 39):
        lines = RULESET.trace(p, k)
        assert any("Game over" in ln for ln in lines)
        assert sum("COLLAPSES" in ln for ln in lines) == 6


def test_wins_and_places_are_consistent(mixed_10k):
    games, seats = mixed_10k
    per_game = seats.groupby("game")["win"].sum()
    assert np.allclose(per_game, 1.0)             # A38: ties share one win
    assert (seats.loc[seats["win"] > 0, "place"] == 1).all()
    assert ((games["margin"] >= 0) & (games["margin_rel"] <= 1)).all()


def _takings(games, seats):
    per = (seats["taken_no_stand"] + seats["worthy_ends"] + seats["taken_unplayed"])
    return per.groupby(seats["game"]).sum().reindex(games["game"]).to_numpy()


def test_every_taking_is_warned_moved_in_mustered_or_blindsided(mixed_10k):
    """B8's accounting: each Taking is counted once in one of the four game columns (the
    crew stood on the floor when the round began, moved onto it, was mustered onto it, or
    stood on a floor that was not the next to fall); with the one-collapse cap nobody is
    blindsided."""
    games, seats = mixed_10k
    cls = games[["taken_after_warning", "taken_moved_in", "taken_mustered",
                 "taken_blindsided"]].to_numpy().sum(axis=1)
    assert np.array_equal(cls, _takings(games, seats))
    assert (games["taken_blindsided"] == 0).all()
    assert (games["taken_after_warning"] <= games["warned"]).all()
    assert games["taken_mustered"].sum() > 0 and games["taken_moved_in"].sum() > 0


def test_without_the_one_collapse_cap_crews_are_taken_unwarned():
    """§9 the cap is what makes "one floor away" honest: at one Maw step a floor, a full
    Dread track eats two floors in a round when the cap is lifted, and the crews on the
    second floor were never on the next floor to fall."""
    p = prepared(seed=4, overrides=["maw.steps_per_floor=1", "maw.max_collapses_per_round=2"])
    games, seats = RULESET.run_chunk(p, 0, 2000)
    cls = games[["taken_after_warning", "taken_moved_in", "taken_mustered",
                 "taken_blindsided"]].to_numpy().sum(axis=1)
    assert np.array_equal(cls, _takings(games, seats))
    assert games["taken_blindsided"].sum() > 0
    assert (games["rounds"] < 6).any()                  # two floors in a round happened


def test_mirror_games_seat_one_company_and_bot_everywhere():
    """companies.mirror: every seat plays the company and bot seat 1 draws, per game."""
    p = prepared(seed=6, companies={"unique": False, "mirror": True},
                 bots=["balanced", "greedy", "martyr"])
    _, seats = RULESET.run_chunk(p, 0, 3000)
    per = seats.groupby("game").agg(c=("company", "nunique"), b=("bot", "nunique"))
    assert (per["c"] == 1).all() and (per["b"] == 1).all()
    assert seats["company"].nunique() == 36
    assert set(seats["bot"].astype(str)) == {"balanced", "greedy", "martyr"}


@pytest.mark.parametrize("companies, seats, match", [
    ({"unique": True, "mirror": True}, None, "companies.unique: false"),
    ({"unique": False, "mirror": True},
     [{"lineage": "wisp"}, {"lineage": "gnoll"}, {}, {}, {}, {}], "seats.1"),
])
def test_mirror_games_refuse_contradictions(companies, seats, match):
    from deepsim.errors import InputError
    kw = {"companies": companies}
    if seats:
        kw["seats"] = seats
    with pytest.raises(InputError, match=match):
        prepared(**kw)
