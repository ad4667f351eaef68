"""Atlantis engine: invariants over whole games, determinism, traces, bot styles, hit rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from deepsim.rulesets.atlantis import RULESET
from deepsim.rulesets.atlantis import board as B
from deepsim.rulesets.atlantis import kernel as K
from deepsim.rulesets.atlantis import layout as L

BOTS = ["random", "aggressive", "defensive"]


def prepared(w="any", k="any", overrides=(), seed=11, pool=BOTS):
    sc = {"name": "t-engine", "ruleset": "atlantis", "players": 2, "seed": seed, "games": 1,
          "sides": {"sea_witch": {"bot": w}, "sea_king": {"bot": k}}, "bots": list(pool)}
    return RULESET.prepare(sc, source="<test>", overrides=list(overrides))


def sort(df: pd.DataFrame) -> pd.DataFrame:
    keys = ["game", "seat"] if "seat" in df else ["game"]
    return df.sort_values(keys).reset_index(drop=True)


@pytest.fixture(scope="module")
def mixed():
    """1,000 games, each side's bot drawn per game from all three styles, hit on 5-6."""
    p = prepared(overrides=("combat.hit_faces=[5,6]",), seed=2024)
    return RULESET.run_chunk(p, 0, 1000)


def test_trace_log_has_one_block_per_turn():
    """(That a traced game equals its batch row is the conformance suite's.)"""
    p = prepared(seed=3)
    g, _ = RULESET.run_chunk(p, 0, 30)
    for k in (0, 13, 29):
        row = g[g["game"] == k].reset_index(drop=True)
        lines = RULESET.trace(p, k)
        assert any("Game over" in ln for ln in lines)
        assert sum("== Turn" in ln for ln in lines) == row["turns"].iloc[0]


def test_invariants_on_every_game_of_a_batch():
    """Games end; one unit per hex; damage < DR while alive; counts add up; the winner
    killed the other leader (AT-V1), and a game without a winner is one the safety cap
    stopped (AMB-T23: unresolved, no seat wins)."""
    p = prepared(seed=5, overrides=("combat.hit_faces=[5,6]",))
    a = p.compiled["arrays"]
    dat = a.kernel_args()
    units = a.units
    n = 300
    scr = B.new_scratch(a.neighbors.shape[0], 1)
    gi = np.zeros((n, K.N_GAME_INT), np.int64)
    gf = np.zeros((n, K.N_GAME_FLT), np.float64)
    si = np.zeros((n, 2, len(L.SEAT_INT)), np.int64)
    sf = np.zeros((n, 2, K.N_SEAT_FLT), np.float64)
    max_turns = int(a.rules[L.R_MAX_TURNS])
    for r in range(n):
        K.play_game(np.int64(5), np.int64(r), r, scr, dat, gi, gf, si, sf, 0)
        u = scr[B.X_U][:scr[B.X_G][B.GS_NSLOTS]]
        occ = scr[B.X_OCC]
        alive = u[:, B.UC_ALIVE] == 1
        cells = u[alive, B.UC_CELL]
        assert len(set(cells)) == len(cells)                       # AT-M2 no stacking
        assert (occ[cells] == np.flatnonzero(alive)).all()
        assert (occ >= 0).sum() == alive.sum()
        t = u[alive, B.UC_TYPE]
        assert (u[alive, B.UC_DMG] < units[t, L.U_DR]).all()       # AT-A5
        assert (u[alive, B.UC_DMG] >= 0).all()
        assert (u[:, B.UC_PARA] >= 0).all() and (u[:, B.UC_NENT] >= 0).all()
        assert (u[:, B.UC_ENT_OUT] >= 0).all()
        ter = scr[B.X_TER]
        assert (a.terrain[ter[cells], L.T_PASSABLE] == 1).all()
        kept = scr[B.X_ENTRY].copy()             # setup and spells kept it with X_TER
        B.rebuild_entry(scr, dat)
        assert (kept == scr[B.X_ENTRY]).all()
        large = units[t, L.U_LARGE] == 1
        assert (a.terrain[ter[cells[large]], L.T_LARGE_OK] == 1).all()   # AT-M5
        w = gi[r, L.G_WINNER_SIDE]
        leaders_dead = [((u[:, B.UC_SIDE] == s) & (units[u[:, B.UC_TYPE], L.U_LEADER] == 1)
                         & ~alive).any() for s in (0, 1)]
        if w < 0:
            assert gi[r, L.G_END_CAUSE] == L.END_TURN_CAP and gi[r, L.G_TURNS] == max_turns
            assert not any(leaders_dead)
        else:
            assert leaders_dead[1 - w] and not leaders_dead[w]
            assert gi[r, L.G_END_CAUSE] != L.END_TURN_CAP
    assert (gi[:, L.G_TURNS] <= max_turns).all() and (gi[:, L.G_TURNS] >= 1).all()
    for seat in range(2):
        left = si[:, seat, L.S_UNITS_LEFT]
        assert (si[:, seat, L.S_UNITS_START] + si[:, seat, L.S_CREATED]
                + si[:, seat, L.S_RESURRECTIONS] - si[:, seat, L.S_UNITS_LOST] == left).all()
        assert (si[:, seat, L.S_SEARCHES_OK] <= si[:, seat, L.S_SEARCHES]).all()
        assert (si[:, seat, L.S_HIDES_OK] <= si[:, seat, L.S_HIDES_TRIED]).all()
    side0 = si[:, 0, L.S_SIDE]
    left_w = np.where(side0 == L.WITCH, si[:, 0, L.S_UNITS_LEFT], si[:, 1, L.S_UNITS_LEFT])
    assert (left_w == gi[:, L.G_UNITS_LEFT_WITCH]).all()
    won = (gi[:, L.G_WINNER_SIDE] >= 0).astype(float)          # no draw in the rules
    assert np.allclose(sf[:, :, L.SF_WIN].sum(axis=1), won)
    assert (si[:, 0, L.S_SIDE] == gi[:, L.G_FIRST_SIDE]).all()


def test_results_in_frames_are_consistent(mixed):
    games, seats = mixed
    assert (games["winner"] == "unresolved").eq(games["end"] == "turn_cap").all()
    assert games["truncated"].eq(games["end"] == "turn_cap").all()
    assert not games["adjudicated"].any()                     # end.at_cap: unresolved
    ended = games.loc[~games["truncated"], "game"]
    per_game = seats[seats["game"].isin(ended)].groupby("game")["win"].sum()
    assert np.allclose(per_game, 1.0)
    assert seats[~seats["game"].isin(ended)]["win"].isna().all()
    assert (games["killer"] != "").eq(games["end"].isin(["attack", "poison", "spell"])
                                       & (games["killer"] != "")).all()


def test_every_rule_happens_in_play(mixed):
    """Every spell is cast, every special fires and every way a leader dies occurs in mixed
    play (the safety cap, not a rule, is tested on its own)."""
    games, seats = mixed
    for sp in L.SPELLS:
        assert seats[f"cast_{sp}"].sum() > 0, f"spell {sp} never cast"
    for col in ("paralyses_given", "sirens_given", "poison_kills", "hazard_losses",
                "created_units", "resurrections", "searches_ok", "hides_ok"):
        assert seats[col].sum() > 0, col
    for end in ("attack", "poison", "hazard", "spell"):
        assert (games["end"] == end).any(), end


def _style_runs(hit):
    out = {}
    for w, k in (("aggressive", "aggressive"), ("defensive", "defensive")):
        p = prepared(w, k, overrides=(f"combat.hit_faces={hit}",), seed=17)
        out[w] = RULESET.run_chunk(p, 0, 120)
    return out


@pytest.mark.parametrize("hit", ["[1]", "[5,6]"])
def test_bot_styles_differ_as_named(hit):
    """aggressive deals more damage per turn and ends games sooner; defensive hides more."""
    runs = _style_runs(hit)
    ga, sa = runs["aggressive"]
    gd, sd = runs["defensive"]
    dpt_a = sa["damage_dealt"].sum() / sa["turns"].sum()
    dpt_d = sd["damage_dealt"].sum() / sd["turns"].sum()
    assert dpt_a > 1.5 * dpt_d
    assert ga["turns"].mean() < gd["turns"].mean() - 10
    # defensive units prefer hiding to attacking: hides are a larger share of their actions
    # (a hidden unit that stays still keeps its marker, so raw hide counts undersell it)
    hides_a = sa["hides_tried"].sum() / (sa["hides_tried"].sum() + sa["attacks"].sum())
    hides_d = sd["hides_tried"].sum() / (sd["hides_tried"].sum() + sd["attacks"].sum())
    assert hides_d > hides_a + 0.1
    # neither style is a strawman: aggressive-vs-aggressive games end by a leader kill
    assert (ga["end"] != "turn_cap").mean() > 0.6


def test_defensive_is_not_a_strawman():
    """Against aggressive, defensive wins a fair share of the games that end."""
    p = prepared("aggressive", "defensive", overrides=("combat.hit_faces=[5,6]",), seed=23)
    _, s = RULESET.run_chunk(p, 0, 150)
    d = s[s["bot"] == "defensive"]["win"].mean()
    assert 0.25 < d < 0.75


def test_random_bot_is_uniform_baseline(mixed):
    """The random style deals less damage per turn than either heuristic style."""
    _, seats = mixed
    dpt = seats.groupby("bot", observed=True).apply(
        lambda x: x["damage_dealt"].sum() / x["turns"].sum(), include_groups=False)
    assert dpt["random"] < dpt["aggressive"] and dpt["random"] < dpt["defensive"]
