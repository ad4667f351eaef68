"""The Rivals engine end to end: invariants along whole games, what bots may read, the
designer's data files and maps, the trace, and the placeholders named everywhere."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

from deepsim.errors import InputError
from deepsim.rulesets.rivals import RULESET, bots, kernel
from deepsim.rulesets.rivals import layout as L
from deepsim.rulesets.rivals import state as S

BOTS = ["random", "brawler", "sniper", "looter"]


def prep(players=(2, 3, 4), overrides=(), **scenario):
    sc = {"name": "t", "ruleset": "rivals", "players": list(players), "seed": 11,
          "games": 100, "bots": BOTS, **scenario}
    return RULESET.prepare(sc, source="<test>", overrides=["map.pool=32", *overrides])


def checked_games(p, count):
    a = p.compiled["arrays"].kernel_args()
    return kernel.play_games(np.int64(p.scenario["seed"]), 0, count, *a, checks=True)


def _assert_no_violation(gi, viol):
    bad = np.nonzero(viol)[0]
    assert bad.size == 0, (f"{bad.size} games broke an invariant, first game {bad[0]}: "
                           f"{L.INVARIANTS[int(viol[bad[0]])]}")
    assert gi.shape[0] > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariants_hold_along_games(players):
    """Tile capacity, one attack per model per turn, wounds below hearts, Aether conserved,
    tokens and counts (kernel.check_state after every activation and phase), on 150 games
    of every style and build (2,000 per player count: the slow test below)."""
    gi, _, _si, _sf, viol = checked_games(prep([players]), 150)
    _assert_no_violation(gi, viol)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariants_hold_over_2000_games(players):
    gi, _, _si, _sf, viol = checked_games(prep([players]), 2000)
    _assert_no_violation(gi, viol)


def test_the_checks_can_fail(new_state):
    """A state with a broken invariant is reported (the instrument works)."""
    s = new_state()
    assert kernel.check_state(s.scr, s.dat) == L.INV_NONE
    s.pl[0, S.PL_AETHER] += 1                              # Aether out of nowhere
    assert kernel.check_state(s.scr, s.dat) == L.INV_AETHER
    s.pl[0, S.PL_AETHER] -= 1
    m = int(np.nonzero(s.models[:, S.MD_TILE] >= 0)[0][0])
    s.models[m, S.MD_WOUNDS] = s.models[m, S.MD_HEARTS]
    assert kernel.check_state(s.scr, s.dat) == L.INV_WOUNDS


def test_bots_read_only_the_public_view():
    """The bots never name the hidden arrays (the decks, hence unrevealed dens), and the
    view the kernel hands them holds none of them."""
    src = Path(inspect.getfile(bots)).read_text()
    tree = ast.parse(src)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    hidden = {"X_HS", "X_LDECK", "X_LDISC", "X_LOOT", "X_EVDECK", "X_EVDISC", "K_DICE",
              "E_CTR", "scr"}
    assert not names & hidden
    scr = S.new_scratch(np.int64(1), np.int64(61), np.int64(3))
    pub = kernel.view(scr)
    hidden_ids = {id(scr[i]) for i in (S.X_HS, S.X_LDECK, S.X_LDISC, S.X_LOOT, S.X_EVDECK,
                                       S.X_EVDISC)}
    assert not {id(x) for x in pub} & hidden_ids


def test_bot_coins_never_move_the_dice():
    """The bots draw from their own stream: the same game with the random baseline in one
    seat or the other keeps the map and the builds (both drawn from the dice stream)."""
    a = prep([2], seats=[{"bot": "random"}, {"bot": "brawler"}], rotate=False)
    b = prep([2], seats=[{"bot": "brawler"}, {"bot": "random"}], rotate=False)
    ga, sa = RULESET.run_chunk(a, 0, 20)
    gb, sb = RULESET.run_chunk(b, 0, 20)
    assert (ga["map"].to_numpy() == gb["map"].to_numpy()).all()
    assert (sa["build"].astype(str).to_numpy() == sb["build"].astype(str).to_numpy()).all()


# ---- data files, maps, placeholders ----------------------------------------------------------

def test_designer_data_replaces_groups_and_clears_their_flags(tmp_path):
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        "roster:\n"
        "  units:\n"
        "    grunt: {role: minion, size: small, cost: 10, attack: [red], defence: [white],"
        " speed: 2, range: 1, hearts: 2, ability_cost: 1}\n"
        "  builds:\n"
        "    grunts: {teams: {2: {grunt: 6}}}\n"
        "colours:\n"
        "  red: {rank: 1, faces: [hit, hit, hit, shield, aether, blank]}\n")
    scen = tmp_path / "s.yaml"
    scen.write_text("name: s\nruleset: rivals\nplayers: 2\ndata: roster.yaml\n")
    from deepsim.scenario import load_scenario
    p = RULESET.prepare(load_scenario(scen), source=str(scen), overrides=["map.pool=4"])
    assert "roster.units" not in p.placeholders and "colours.red.faces" not in p.placeholders
    assert "colours.black.faces" in p.placeholders
    assert p.compiled["builds"] == ["grunts"]
    default = prep([2])
    assert p.params_hash != default.params_hash
    _g, s = RULESET.run_chunk(p, 0, 5)
    assert set(s["build"].astype(str)) == {"grunts"}
    # errors name the file and the key
    roster.write_text("roster:\n  units:\n    grunt: {role: boss}\n")
    with pytest.raises(InputError) as e:
        RULESET.prepare(load_scenario(scen), source=str(scen), overrides=["map.pool=4"])
    assert str(roster) in str(e.value)
    roster.write_text("rooster: {}\n")
    with pytest.raises(InputError, match="unknown data group") as e:
        RULESET.prepare(load_scenario(scen), source=str(scen), overrides=["map.pool=4"])
    assert e.value.line == 1


def test_fixed_map_from_a_scenario(tmp_path):
    grid = ("S1 S1 s  c  s  S2 S2\n"
            " s  r  s  d  s  r  s\n"
            "s  s  c  s  c  s  s\n")
    (tmp_path / "m.txt").write_text(grid)
    scen = tmp_path / "s.yaml"
    scen.write_text("name: s\nruleset: rivals\nplayers: 2\nmap: m.txt\n")
    from deepsim.scenario import load_scenario
    p = RULESET.prepare(load_scenario(scen), source=str(scen))
    assert "map.generator" not in p.placeholders and p.params["map"]["grid"] == grid
    g, _ = RULESET.run_chunk(p, 0, 4)
    assert (g["map"] == 0).all() and (g["mulligans"] == 0).all()
    scen.write_text("name: s\nruleset: rivals\nplayers: 3\nmap: m.txt\n")
    with pytest.raises(InputError, match="spawns of 2 players"):
        RULESET.prepare(load_scenario(scen), source=str(scen))


def test_placeholders_and_skipped_rules_are_named():
    p = prep([2])
    for ph in ("colours.red.faces", "roster.units", "lurkers.deck", "loot.deck",
               "map.generator", "abilities.focus"):
        assert ph in p.placeholders
    assert any(r.startswith("RV-E1") for r in p.skipped_rules)
    with_events = prep([2], overrides=["events.deck=[{effect: none}]"])
    assert not any(r.startswith("RV-E1") for r in with_events.skipped_rules)
    assert "events.deck" in with_events.placeholders


def test_trace_shows_activations_pools_dice_and_the_result():
    p = prep([3])
    g, _s = RULESET.run_chunk(p, 0, 12)
    k = int(g["lurker_attacks"].to_numpy().argmax())
    lines = RULESET.trace(p, k)
    text = "\n".join(lines)
    for needle in ("activation: move", "attack pool of", "defence pool of", "dice: ",
                   "result: ", "PLACEHOLDER data", "skipped rule: RV-S6"):
        assert needle in text, needle
    if g["lurker_attacks"].iloc[k] > 0:
        assert "attacks the" in text and "Lurker phase" in text
    winner = int(g["winner_seat"].iloc[k])
    assert lines[-1].startswith("Result: ") and (f"seat {winner} wins" in lines[-1]
                                                 or "share the win" in lines[-1])
    recs = RULESET.trace_records(p, k)
    assert recs[0]["type"] == "header" and recs[-1]["type"] == "result"


def test_the_round_cap_leaves_a_game_unresolved_unless_adjudicated():
    """AMB-26: the round cap is an engine limit; a game it stops has no result (win NaN on
    every seat), and ``end.cap_result=cost_left`` adjudicates it by the cost standing (ties
    share first place; ``adjudicated`` True)."""
    g, s = RULESET.run_chunk(prep([3], ["end.max_rounds=1"]), 0, 20)
    stopped = g["truncated"].to_numpy(bool)
    assert stopped.all() and not g["adjudicated"].any()
    assert (g["n_winners"] == 0).all()
    assert s["win"].isna().all()
    g, s = RULESET.run_chunk(prep([3], ["end.max_rounds=1", "end.cap_result=cost_left"]), 0, 20)
    assert g["truncated"].all() and g["adjudicated"].all()
    sums = s.groupby("game")["win"].sum()
    assert np.allclose(sums, 1.0)
    for _, seats in s.groupby("game"):
        alive = seats[seats["place"] > 0]
        best = alive["cost_left"].max()
        assert (seats.loc[seats["win"] > 0, "cost_left"] == best).all()


def test_the_report_leaves_unresolved_games_out_of_every_share(tmp_path):
    """The Rivals report sections on a run where the round cap stops most games (AMB-26):
    every section is computed, the capped games are in no win share (no NaN share, and
    the build shares count only resolved seat-games)."""
    from typer.testing import CliRunner

    from deepsim.cli import app
    from deepsim.reporting import report_runs
    from deepsim.rulesets.rivals.report import builds_by_players

    scen = tmp_path / "s.yaml"
    scen.write_text("name: capped\nruleset: rivals\ngames: 80\nseed: 3\nplayers: [2, 3]\n"
                    "bots: [brawler, sniper]\noverrides: {end.max_rounds: 4, map.pool: 4}\n")
    res = CliRunner().invoke(app, ["run", str(scen), "--out", str(tmp_path / "run"),
                                   "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    rep, _ = report_runs([tmp_path / "run"], out_dir=tmp_path / "rep", formats=("md",))
    ours = [s for s in rep.sections if s.key.startswith("rivals-")]
    assert ours and not [s.key for s in ours if s.missing]
    from deepsim.output import read_run
    games, seats = read_run(tmp_path / "run")
    assert games["truncated"].mean() > 0.2          # the instrument: many games capped
    t = builds_by_players(seats)
    assert np.isfinite(t["share"]).all()
    assert t["games"].sum() == seats["win"].notna().sum()
