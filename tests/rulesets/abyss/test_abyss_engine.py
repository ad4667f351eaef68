"""Abyss engine: determinism, traces, invariants over whole games, hidden information, and
every rule and action exercised in mixed games."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from deepsim.rulesets.abyss import RULESET
from deepsim.rulesets.abyss import bots as B
from deepsim.rulesets.abyss import kernel as K
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.abyss import state as S

BOTS = ["random", "courtier", "merchant", "hunter"]


def prepared(players=(2, 3, 4), overrides=(), seed=11, pool=BOTS, **extra):
    sc = {"name": "t-engine", "ruleset": "abyss", "players": list(players), "seed": seed,
          "games": 1, "bots": list(pool), **extra}
    return RULESET.prepare(sc, source="<test>", overrides=list(overrides))


def sort(df: pd.DataFrame) -> pd.DataFrame:
    keys = ["game", "seat"] if "seat" in df else ["game"]
    return df.sort_values(keys).reset_index(drop=True)


@pytest.fixture(scope="module")
def mixed():
    """3,000 games, 2-4 players, every style drawn per seat."""
    return RULESET.run_chunk(prepared(seed=2025), 0, 3000)


@pytest.fixture(scope="module")
def long_games():
    """1,500 4-player games to 10 lords: long enough for the Court to run dry (AB-G1)."""
    return RULESET.run_chunk(prepared(players=(4,), overrides=("end.lords_to_end=10",),
                                      seed=7), 0, 1500)


@pytest.fixture(scope="module")
def readings():
    """1,500 games with every switchable reading switched (the golden case `readings`)."""
    over = ("explore.bought_frees_slot=false", "explore.last_slot_monster=may_leave",
            "explore.must_continue_after_monster=false", "court.plot_timing=with_recruit",
            "keys.spend_policy=lords_first", "keys.multi_location=false",
            "end.final_affiliation=highest", "end.tiebreak_lord_metric=vp", "hand_limit=8",
            "pearl_supply=25", "depth.reshuffle=false")
    return RULESET.run_chunk(prepared(overrides=over, seed=5), 0, 1500)


# ---- traces (determinism: tests/rulesets/test_conformance.py) --------------------------------------------------------------

def test_trace_shows_every_offer():
    """(That a traced game equals its batch row is the conformance suite's.)"""
    p = prepared(seed=3)
    g, s = RULESET.run_chunk(p, 0, 30)
    for k in (0, 13, 29):
        lines = RULESET.trace(p, k)
        offers = [ln for ln in lines if ln.strip().startswith("offer ")]
        row = g[g["game"] == k].iloc[0]
        assert sum(": buys" in ln for ln in offers) == row["buys"]
        assert any(": refuses" in ln for ln in offers)
        assert all(" for " in ln and " pearl" in ln for ln in offers)
        assert lines[-1].startswith("Result:")
        winners = s[(s["game"] == k) & (s["win"] > 0)]
        assert f"place 1, win {winners['win'].iloc[0]:g}" in "\n".join(lines)


# ---- invariants ---------------------------------------------------------------------------

def test_whole_games_keep_every_component(mixed):
    """Cards, lords, locations, Key and Monster tokens are conserved; pearls stay >= 0."""
    p = prepared(seed=77)
    a = p.compiled["arrays"]
    dat = a.kernel_args()
    scr = S.new_scratch(1)
    gi, gf = np.zeros((1, L.N_GAME_INT), np.int64), np.zeros((1, L.N_GAME_FLT))
    si = np.zeros((1, L.MAX_P, L.N_SEAT_INT), np.int64)
    sf = np.zeros((1, L.MAX_P, L.N_SEAT_FLT))
    for game in range(60):
        K.play_game(np.int64(77), np.int64(game), 0, scr, dat, gi, gf, si, sf, 0)
        ps, pl = scr[S.X_PS], scr[S.X_PL]
        n = int(ps[S.PS_PLAYERS])
        cards = (scr[S.X_HAND][:n].sum() + scr[S.X_AFF][:n].sum() + scr[S.X_CNCL].sum()
                 + ps[S.PS_DEPTH_N] + ps[S.PS_DISC_N] + ps[S.PS_ROW_N])
        assert cards == a.depth.size
        assert ps[S.PS_COURT_N] + ps[S.PS_LDECK_N] + pl[:n, S.PL_LORDS].sum() == 35
        assert ps[S.PS_LVIS_N] + ps[S.PS_LSTACK_N] + pl[:n, S.PL_LOCS].sum() == 20
        assert ps[S.PS_KEY_SUPPLY] + pl[:n, S.PL_KEYTOK].sum() == 10
        assert ps[S.PS_TOKENS_LEFT] + pl[:n, S.PL_MTOK].sum() == 20
        assert (pl[:n, S.PL_PEARLS] >= 0).all()
        owned = [int(x) for q in range(n) for x in scr[S.X_PLORD][q, :pl[q, S.PL_LORDS]]]
        court = scr[S.X_COURT][:ps[S.PS_COURT_N]].tolist()
        assert len(set(owned + court)) == len(owned) + len(court)
    g, s = mixed
    assert np.allclose(s.groupby("game")["win"].sum(), 1.0)
    comp = s["lord_vp"] + s["loc_vp"] + s["ally_vp"] + s["monster_vp"]
    assert (comp == s["score"]).all()
    assert ((s["place"] == 1) == (s["win"] > 0)).all()
    assert (g["margin"] >= 0).all() and (s["turns"] >= 1).all()
    assert (s.groupby("game").size() == g.set_index("game")["players"]).all()
    assert (g["turns"] == s.groupby("game")["turns"].sum().to_numpy()).all()
    assert (g["recruits"] == s.groupby("game")["lords"].sum().to_numpy()).all()
    assert (s["lords"] <= 7).all()


# ---- hidden information ---------------------------------------------------------------------

def decisions(scr, dat, p):
    """Every decision player ``p`` could be asked now, as comparable values."""
    kn = dat[S.D_KNOBS][scr[S.X_PH][p, S.PH_BOT]]
    out = []

    def call(fn, *args):
        scr[S.X_E][S.E_CTR] = 1000                 # the same random draws every time
        v = fn(S.view(scr), scr[S.X_HAND][p], dat, kn, S.bot_rng(scr), p, *args)
        out.append(v)
        return v

    call(B.choose_action)
    out.append(int(scr[S.X_WI][S.WI_CHOICE]))
    i, _ = call(B.choose_recruit)
    if i >= 0:
        out.append(tuple(scr[S.X_WI][S.WI_BEST:S.WI_BEST + L.N_RACES * L.NV]))
    for code in (1 * 16 + 2, 3 * 16 + 5, 2 * 16 + 1):
        for price in (1, 2, 3):
            if scr[S.X_PL][p, S.PL_PEARLS] >= price:
                call(B.choose_buy, code, price)
        call(B.choose_take, code)
    call(B.choose_fight)
    call(B.choose_plot, 0)
    if scr[S.X_CN].sum() > 0:
        call(B.choose_council)
    if scr[S.X_PS][S.PS_LVIS_N] + scr[S.X_PS][S.PS_LSTACK_N] > 0:
        call(B.choose_location)
    call(B.choose_affiliation, 0b10110, 2)
    return out


def perturb(scr, rng, p):
    """Change what player ``p`` may not see: the other hands, the Council stacks' contents
    (same sizes), the order and contents of the Depth deck (same size), the order of the
    lord deck, location stack and Monster tokens, the discard pile."""
    n = int(scr[S.X_PS][S.PS_PLAYERS])
    for q in range(n):
        if q != p:
            h = scr[S.X_HAND][q]
            h[:, :] = 0
            for _ in range(int(rng.integers(0, 12))):
                h[rng.integers(0, 5), rng.integers(1, 6)] += 1
    c = scr[S.X_CNCL]
    for r in range(L.N_RACES):
        c[r, :] = 0
        for _ in range(int(scr[S.X_CN][r])):
            c[r, rng.integers(1, 6)] += 1
    dn = int(scr[S.X_PS][S.PS_DEPTH_N])
    scr[S.X_DECK][:dn] = rng.choice([L.MONSTER, 17, 35, 66, 4, 50], size=dn)
    for x, kind in ((S.X_LDECK, S.PS_LDECK_N), (S.X_LSTACK, S.PS_LSTACK_N),
                    (S.X_TOK, S.PS_TOKENS_LEFT), (S.X_DISC, S.PS_DISC_N)):
        k = int(scr[S.X_PS][kind])
        scr[x][:k] = rng.permutation(scr[x][:k])


def snapshot(scr):
    return [x.copy() for x in scr]


def restore(scr, snap):
    for x, y in zip(scr, snap, strict=True):
        x[...] = y


def test_bots_decide_from_what_they_may_see():
    """Changing other players' hands, the Council stacks' contents or the order of any deck
    leaves every decision of every bot unchanged (all styles, whole games, every turn)."""
    rng = np.random.default_rng(0)
    p = prepared(players=(3, 4), seed=99)
    dat = p.compiled["arrays"].kernel_args()
    scr = S.new_scratch(1)
    checked = 0
    for game in range(6):
        K.reset(scr)
        scr[S.X_KEY][0] = np.uint64(555 + game)
        K.setup(scr, dat, game)
        n = int(scr[S.X_PS][S.PS_PLAYERS])
        for turn in range(60):
            snap = snapshot(scr)
            for q in range(n):
                before = decisions(scr, dat, q)
                perturb(scr, rng, q)
                after = decisions(scr, dat, q)
                assert before == after, (game, turn, q)
                restore(scr, snap)
                checked += 1
            scr[S.X_PS][S.PS_TURN] += 1
            K.play_turn(scr, dat, turn % n)
            if K.end_trigger(scr, dat):
                break
    assert checked > 500


# ---- every rule exercised -----------------------------------------------------------------

def test_every_action_and_rule_occurs_in_mixed_games(mixed, long_games, readings):
    """Every main action, the auction at every price, monster fights and leaves (also in
    the last slot), the Council, recruits with a pearl top-up, plots, the slot-4 refill,
    locations face up and drawn, both end triggers and both tie-breaks occur in play."""
    g, s = mixed
    total = g.sum(numeric_only=True)
    for col in ("explores", "councils", "recruits", "plots", "offers", "buys_p1", "buys_p2",
                "buys_p3", "takes", "last_slot_takes", "declined", "fights", "leaves",
                "last_slot_fights", "refill_bonuses", "topups", "loc_face_up", "loc_drawn",
                "reshuffles", "fights_pos1", "fights_pos4", "winner_differs_other_reading"):
        assert total[col] > 0, col
    four = g[g["players"] == 4]
    assert four["buys_p3"].sum() > 0                      # every price of 3 opponents
    by = g["decided_by"].astype(str).value_counts()
    assert by.get("score", 0) > 0 and by.get("pearls", 0) > 0 and by.get("lords", 0) > 0
    assert (s.groupby("bot", observed=True)["recruits"].sum() > 0).all()
    draws = [total[f"loc_draw{i}"] for i in (1, 4)]
    assert min(draws) > 0
    ends = pd.concat([g["end"], long_games[0]["end"]]).astype(str).value_counts()
    assert ends.get("lords", 0) > 0 and ends.get("court", 0) + ends.get("both", 0) > 0
    assert long_games[0]["refill_failed"].sum() > 0
    rg, rs = readings
    assert rg["depth_exhausted"].sum() > 0
    assert rs["key_tokens_used"].sum() > 0 and rs["lords_covered"].sum() > 0


def test_styles_differ_and_random_is_the_weakest(mixed):
    _, s = mixed
    ws = s.groupby("bot", observed=True)["win"].mean()
    assert ws["random"] < min(ws["courtier"], ws["merchant"], ws["hunter"])
    mix = s.groupby("bot", observed=True)[["explores", "councils", "recruits", "fights",
                                           "buys"]].mean()
    assert mix.loc["hunter", "fights"] > mix.loc["courtier", "fights"]
    assert mix.loc["merchant", "buys"] > mix.loc["courtier", "buys"]


def test_shipped_scenarios_prepare():
    from pathlib import Path

    from deepsim import runner
    for path in sorted(Path("scenarios").glob("abyss*.yaml")):
        _, _, prep = runner.resolve(path)
        assert prep.ruleset == "abyss"
        assert "lords.deck" in prep.placeholders
