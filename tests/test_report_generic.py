"""The shared report, gate and tune on a ruleset other than DEEPFALL.

Synthetic run directories carry Atlantis-shaped frames (written with
:class:`deepsim.output.RunWriter`, ruleset name ``atlantis``) and a stand-in ruleset
object gives the shared code Atlantis's metadata (faction column ``faction``, group columns
``faction, bot, seat``), so these tests do not need the Atlantis engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from deepsim import rulesets
from deepsim.output import RunWriter, hash_json, write_run_json
from deepsim.report import build_report, report_runs
from deepsim.report.load import load_run, ruleset_meta
from deepsim.report.render import to_html, to_markdown

SIDES = ("Sea Witch", "Sea King")
CAUSES = ("attack", "poison", "hazard", "spell", "turn_cap")
UNITS = ("Sea Snake", "Kraken", "Merman Assassin", "Water Naga")
FAKE = SimpleNamespace(
    name="atlantis", title="Atlantis (fake)", faction_column="faction",
    faction_label="faction", group_columns=("faction", "bot", "seat"),
    default_metrics=("faction_spread", "draw_share", "seat_advantage"))


@pytest.fixture(autouse=True)
def fake_atlantis(monkeypatch):
    """``deepsim.rulesets.get('atlantis')`` returns the stand-in; other names as usual."""
    real = rulesets.get

    def get(name):
        return FAKE if name == "atlantis" else real(name)

    monkeypatch.setattr(rulesets, "get", get)
    return FAKE


def atlantis_frames(n: int, *, seed: int = 0, first_side: int = 0, p_king: float = 0.45,
                    p_draw: float = 0.15, bots=("aggressive",), start: int = 0
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games and seats frames shaped like the Atlantis ruleset's (layout.py)."""
    rng = np.random.default_rng(seed)
    game = np.arange(start, start + n, dtype=np.int64)
    u = rng.random(n)
    winner = np.where(u < p_draw, -1, np.where(u < p_draw + p_king, 1, 0)).astype(np.int64)
    cause = np.where(winner < 0, 4, rng.choice([0, 0, 0, 1, 2, 3], n)).astype(np.int64)
    turns = np.where(winner < 0, 200, rng.integers(10, 120, n)).astype(np.int64)
    killer_type = np.where(winner < 0, -1, rng.integers(0, len(UNITS), n)).astype(np.int64)
    killer = np.where(killer_type < 0, "", np.array(UNITS, dtype=object)[killer_type % 4])
    mk = rng.normal(60, 20, n).round()
    mw = rng.normal(55, 20, n).round()
    first = np.full(n, first_side, dtype=np.int64)
    games = pd.DataFrame({
        "game": game, "seed": np.full(n, seed, dtype=np.int64), "turns": turns,
        "rounds": (turns + 1) // 2, "winner_side": winner, "first_side": first,
        "end_cause": cause, "truncated": winner < 0, "killer_type": killer_type,
        "units_left_witch": rng.integers(0, 30, n), "units_left_king": rng.integers(0, 30, n),
        "material_witch": mw, "material_king": mk,
        "material_margin": np.where(first == 1, mk - mw, mw - mk),
        "winner": pd.Categorical(np.where(winner < 0, "draw", np.where(winner == 1, SIDES[1],
                                                                         SIDES[0])),
                                 categories=[*SIDES, "draw"]),
        "end": pd.Categorical(np.array(CAUSES, dtype=object)[cause], categories=CAUSES),
        "first": pd.Categorical(np.array(SIDES, dtype=object)[first], categories=SIDES),
        "killer": pd.Categorical(killer, categories=["", *UNITS]),
    })
    seat = np.tile([0, 1], n)
    sgame = np.repeat(game, 2)
    side = np.where(seat == 0, np.repeat(first, 2), 1 - np.repeat(first, 2))
    w = np.repeat(winner, 2)
    win = np.where(w < 0, 0.5, (w == side).astype(float))
    bot_codes = rng.integers(0, len(bots), 2 * n)
    seats = pd.DataFrame({
        "game": sgame, "seat": seat.astype(np.int64), "players": np.full(2 * n, 2, np.int64),
        "faction": pd.Categorical(np.array(SIDES, dtype=object)[side], categories=SIDES),
        "bot": pd.Categorical(np.array(bots, dtype=object)[bot_codes], categories=list(bots)),
        "side": side.astype(np.int64), "win": win, "fair": np.full(2 * n, 0.5),
        "outcome": pd.Categorical(np.where(win == 1, "win", np.where(win == 0, "loss", "draw")),
                                  categories=["win", "loss", "draw"]),
        "first": seat == 0, "kills": rng.integers(0, 10, 2 * n),
    })
    return games, seats


def write_atlantis_run(out: Path, *, games: int = 3000, seed: int = 7, chunk: int = 1000,
                       params: dict | None = None, **kw) -> Path:
    """A complete run directory of Atlantis-shaped frames with its run.json."""
    params = params or {"combat": {"hit_faces": [1]}, "setup": {"first_side": "sea_witch"},
                        "end": {"max_turns": 200}}
    scenario = {"name": "atlantis-fake", "ruleset": "atlantis", "games": games, "seed": seed,
                "chunk_size": chunk, "players": 2}
    w = RunWriter(out, ruleset="atlantis", scenario_name="atlantis-fake",
                  scenario_hash=hash_json(scenario), params_hash=hash_json(params), seed=seed,
                  games=games, chunk_size=chunk)
    for i, start in enumerate(range(0, games, chunk)):
        count = min(chunk, games - start)
        g, s = atlantis_frames(count, seed=seed * 1000 + i, start=start, **kw)
        w.write_chunk(i, start, count, g, s)
    w.complete()
    write_run_json(out, {"ruleset": "atlantis", "scenario_name": "atlantis-fake",
                         "scenario": scenario, "scenario_hash": hash_json(scenario),
                         "params_hash": hash_json(params), "params": params, "seed": seed,
                         "games": games, "overrides": [], "placeholders": [],
                         "skipped_rules": []})
    return out


@pytest.fixture(scope="module")
def atl_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("atlantis-runs")
    hit1 = write_atlantis_run(root / "hit1", bots=("aggressive", "defensive"))
    hit56 = write_atlantis_run(
        root / "hit56", seed=8, p_king=0.4, p_draw=0.02,
        params={"combat": {"hit_faces": [5, 6]}, "setup": {"first_side": "sea_witch"},
                "end": {"max_turns": 200}})
    king_first = write_atlantis_run(
        root / "king_first", seed=9, first_side=1, p_king=0.55,
        params={"combat": {"hit_faces": [1]}, "setup": {"first_side": "sea_king"},
                "end": {"max_turns": 200}})
    return {"hit1": hit1, "hit56": hit56, "king_first": king_first, "root": root}


# --- metadata -------------------------------------------------------------------------------

def test_ruleset_meta_reads_the_contract():
    deepfall = ruleset_meta("deepfall")
    assert (deepfall.faction_column, deepfall.faction_label) == ("company", "company")
    assert deepfall.group_columns == ("company", "lineage", "calling", "bot", "seat")
    assert deepfall.factions_label == "companies"
    atl = ruleset_meta("atlantis")
    assert (atl.faction_column, atl.faction_label, atl.factions_label) == (
        "faction", "faction", "factions")
    assert ruleset_meta("no-such-ruleset").faction_column == "faction"  # generic fallback


# --- the report -----------------------------------------------------------------------------

def test_report_of_an_atlantis_run_speaks_of_factions(atl_runs):
    rep, paths = report_runs([atl_runs["hit1"]])
    keys = [s.key for s in rep.sections]
    assert rep.claims == []
    for deepfall_only in ("claims", "exits", "swing", "contention", "maw", "matchups",
                          "exercise", "variations", "margins", "length"):
        assert deepfall_only not in keys, deepfall_only
    for key in ("win-share", "seats", "atlantis-sides", "atlantis-first-move",
                "atlantis-length", "atlantis-endings", "atlantis-material", "atlantis-bots",
                "method"):
        assert key in keys, key
    missing = {s.key: s.missing for s in rep.sections if s.missing}
    assert not missing, missing
    md = (Path(atl_runs["hit1"]) / "report" / "report.md").read_text()
    assert "Win share per faction" in md
    assert "compan" not in md.lower() and "lineage" not in md.lower()
    assert "Sea King" in md and "Sea Witch" in md
    assert "claims.rounds_target" not in md  # DEEPFALL's claim settings stay out
    names = {p.name for p in paths}
    assert {"report.md", "report.html", "report.json", "atlantis_sides.png",
            "atlantis_turns.png", "atlantis_endings.png", "win_share_factions.png"} <= names
    html = to_html(rep)
    assert html.count("<section") == len(rep.sections)


def test_side_shares_sum_to_one_and_match_the_frames(atl_runs):
    from deepsim.rulesets.atlantis.report import end_causes, first_move, side_shares

    run = load_run(atl_runs["hit1"])
    t = side_shares(run.games)
    assert list(t["outcome"]) == ["Sea King", "Sea Witch", "draw"]
    assert t["share"].sum() == pytest.approx(1.0)
    assert (t["ci_low"] <= t["share"]).all() and (t["share"] <= t["ci_high"]).all()
    w = run.games["winner_side"]
    assert t.loc[2, "count"] == int((w < 0).sum())
    ec = end_causes(run.games)
    assert list(ec["cause"]) == ["attack", "poison", "hazard", "spell", "turn_cap"]
    assert ec["count"].sum() == run.n_games
    assert ec.loc[ec["cause"] == "turn_cap", "count"].iloc[0] == int((w < 0).sum())
    assert ec["king"].sum() == int((w == 1).sum())
    assert ec.loc[ec["cause"] != "turn_cap", "king_of_wins"].sum() == pytest.approx(1.0)
    fm = first_move(run.games)  # the Sea Witch moves first here
    assert fm["first_wins"] == int((w == 0).sum())
    assert fm["first_wins"] + fm["second_wins"] + fm["draws"] == run.n_games
    assert fm["score"][0] == pytest.approx((fm["first_wins"] + fm["draws"] / 2) / run.n_games)


def test_several_atlantis_runs_side_by_side_labelled_by_their_rules(atl_runs):
    runs = [load_run(atl_runs[k]) for k in ("hit1", "hit56", "king_first")]
    rep = build_report(runs)
    by = {s.key: s for s in rep.sections}
    sides = by["atlantis-sides"].tables[0].frame
    assert len(sides) == 3
    labels = list(sides["Run"])
    assert any("combat.hit_faces=[5, 6]" in lbl for lbl in labels)
    assert any("setup.first_side=sea_king" in lbl for lbl in labels)
    # first move per side: hit1 and king_first differ only in setup.first_side
    first = by["atlantis-first-move"]
    assert len(first.tables) == 2
    per_side = first.tables[1].frame
    assert set(per_side["Side"]) == {"Sea King", "Sea Witch"}
    assert "combat.hit_faces=[1]" in set(per_side["Rules"])
    assert all("side-by-side" in r for r in rep.roles)
    md = to_markdown(rep)
    assert "How games end" in md and "turn cap (draw)" in md
    ends = by["atlantis-endings"].tables[0].frame
    assert len(ends) == 3 * 5


def test_first_move_without_swapped_runs_says_what_to_run(atl_runs):
    rep = build_report([load_run(atl_runs["hit1"])])
    first = next(s for s in rep.sections if s.key == "atlantis-first-move")
    assert len(first.tables) == 1
    assert any("setup.first_side=sea_king" in p for p in first.paragraphs)


def test_cli_report_of_an_atlantis_run(atl_runs, tmp_path):
    from typer.testing import CliRunner

    from deepsim.cli import app

    res = CliRunner(env={"COLUMNS": "200"}).invoke(
        app, ["report", str(atl_runs["hit1"]), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert "Side win shares" in res.output and "Claim" not in res.output
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert data["claims"] == []


def test_summary_of_an_atlantis_run(atl_runs):
    from rich.console import Console

    from deepsim.output import read_run
    from deepsim.summary import render_summary

    games, seats = read_run(atl_runs["hit1"], games_columns=["rounds", "truncated",
                                                             "winner_side"],
                            seats_columns=["faction", "win", "fair", "players"])
    console = Console(width=160, record=True)
    render_summary(console, games, seats, by="faction", label="faction")
    text = console.export_text()
    assert "Win share per faction" in text and "Sea King" in text
    assert "Rounds per game" in text and "Draws:" in text
