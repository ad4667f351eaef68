"""The shared report, gate and tune on a ruleset other than DEEPFALL.

Synthetic run directories carry Atlantis-shaped frames (written with
:class:`deepsim.output.RunWriter`, ruleset name ``atlantis``) and a stand-in ruleset
object (Atlantis's own class, whose metadata a test may change) answers for ``atlantis``,
so these tests do not need the Atlantis engine (its report code reads only the frames).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from deepsim import rulesets
from deepsim.errors import InputError
from deepsim.output import RunWriter, hash_json, write_run_json
from deepsim.report import build_report
from deepsim.report.render import to_html, to_markdown
from deepsim.reporting import load_run, report_runs
from deepsim.rulesets.atlantis import AtlantisRuleset

SIDES = ("Sea Witch", "Sea King")
CAUSES = ("attack", "poison", "hazard", "spell", "turn_cap")
UNITS = ("Sea Snake", "Kraken", "Merman Assassin", "Water Naga")
FAKE = type("FakeAtlantis", (AtlantisRuleset,), {"title": "Atlantis (fake)"})()


@pytest.fixture(autouse=True)
def fake_atlantis(monkeypatch):
    """``deepsim.rulesets.get('atlantis')`` returns the stand-in; other names as usual."""
    real = rulesets.get

    def get(name):
        return FAKE if name == "atlantis" else real(name)

    monkeypatch.setattr(rulesets, "get", get)
    return FAKE


def atlantis_frames(n: int, *, seed: int = 0, first_side: int = 0, p_king: float = 0.45,
                    p_open: float = 0.15, bots=("aggressive",), start: int = 0
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games and seats frames shaped like the Atlantis ruleset's (layout.py): a share
    ``p_open`` of games the safety cap stopped (unresolved: win NaN)."""
    rng = np.random.default_rng(seed)
    game = np.arange(start, start + n, dtype=np.int64)
    u = rng.random(n)
    winner = np.where(u < p_open, -1, np.where(u < p_open + p_king, 1, 0)).astype(np.int64)
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
        "end_cause": cause, "truncated": winner < 0, "adjudicated": np.zeros(n, bool),
        "killer_type": killer_type,
        "units_left_witch": rng.integers(0, 30, n), "units_left_king": rng.integers(0, 30, n),
        "material_witch": mw, "material_king": mk,
        "material_margin": np.where(first == 1, mk - mw, mw - mk),
        "winner": pd.Categorical(np.where(winner < 0, "unresolved",
                                          np.where(winner == 1, SIDES[1], SIDES[0])),
                                 categories=[*SIDES, "unresolved"]),
        "end": pd.Categorical(np.array(CAUSES, dtype=object)[cause], categories=CAUSES),
        "first": pd.Categorical(np.array(SIDES, dtype=object)[first], categories=SIDES),
        "killer": pd.Categorical(killer, categories=["", *UNITS]),
    })
    seat = np.tile([0, 1], n)
    sgame = np.repeat(game, 2)
    side = np.where(seat == 0, np.repeat(first, 2), 1 - np.repeat(first, 2))
    w = np.repeat(winner, 2)
    win = np.where(w < 0, np.nan, (w == side).astype(float))
    bot_codes = rng.integers(0, len(bots), 2 * n)
    seats = pd.DataFrame({
        "game": sgame, "seat": seat.astype(np.int64) + 1, "players": np.full(2 * n, 2, np.int64),
        "faction": pd.Categorical(np.array(SIDES, dtype=object)[side], categories=SIDES),
        "bot": pd.Categorical(np.array(bots, dtype=object)[bot_codes], categories=list(bots)),
        "side": side.astype(np.int64), "win": win, "fair": np.full(2 * n, 0.5),
        "outcome": pd.Categorical(np.where(w < 0, "unresolved",
                                           np.where(win == 1, "win", "loss")),
                                  categories=["win", "loss", "unresolved"]),
        "first": seat == 0, "kills": rng.integers(0, 10, 2 * n),
    })
    return games, seats


def write_atlantis_run(out: Path, *, games: int = 3000, seed: int = 7, chunk: int = 1000,
                       params: dict | None = None, baseline: tuple[str, ...] | None = None,
                       **kw) -> Path:
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
                         "skipped_rules": [],
                         **({} if baseline is None else {"baseline_bots": list(baseline)})})
    return out


@pytest.fixture(scope="module")
def atl_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("atlantis-runs")
    hit1 = write_atlantis_run(root / "hit1", bots=("aggressive", "defensive"))
    hit56 = write_atlantis_run(
        root / "hit56", seed=8, p_king=0.4, p_open=0.02,
        params={"combat": {"hit_faces": [5, 6]}, "setup": {"first_side": "sea_witch"},
                "end": {"max_turns": 200}})
    king_first = write_atlantis_run(
        root / "king_first", seed=9, first_side=1, p_king=0.55,
        params={"combat": {"hit_faces": [1]}, "setup": {"first_side": "sea_king"},
                "end": {"max_turns": 200}})
    return {"hit1": hit1, "hit56": hit56, "king_first": king_first, "root": root}


# --- metadata -------------------------------------------------------------------------------

def test_the_report_reads_the_rulesets_metadata(atl_runs, tmp_path):
    deepfall = rulesets.get("deepfall")
    assert (deepfall.faction_column, deepfall.faction_label) == ("company", "company")
    assert deepfall.group_columns == ("company", "lineage", "calling", "bot", "seat")
    assert deepfall.factions_label == "companies"
    run = load_run(atl_runs["hit1"])
    assert run.rs is FAKE
    assert (run.rs.faction_column, run.rs.factions_label) == ("faction", "factions")
    # a run of a ruleset not installed here: one clear error, no guessed metadata
    other = write_atlantis_run(tmp_path / "other", games=100, chunk=100)
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["ruleset"] = "no-such-game"
    (other / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="cannot be loaded.*no-such-game"):
        load_run(other)


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


def test_bot_styles_are_not_repeated_when_they_are_the_factions(atl_runs, monkeypatch):
    """A ruleset whose faction column is ``bot`` (players alike) gets one win-share table per
    bot style, not a second "Bot styles" section with the same numbers."""
    rep = build_report([load_run(atl_runs["hit1"])])          # two bot styles
    assert "bots" in [s.key for s in rep.sections]
    monkeypatch.setattr(FAKE, "faction_column", "bot")
    monkeypatch.setattr(FAKE, "faction_label", "bot style")
    rep = build_report([load_run(atl_runs["hit1"])])
    keys = [s.key for s in rep.sections]
    assert "bots" not in keys and "win-share" in keys
    ws = next(s for s in rep.sections if s.key == "win-share")
    assert ws.title == "Win share per bot style"


def test_side_shares_sum_to_one_and_match_the_frames(atl_runs):
    from deepsim.rulesets.atlantis.report import end_causes, first_move, side_shares

    run = load_run(atl_runs["hit1"])
    t = side_shares(run.games)
    assert list(t["outcome"]) == ["Sea King", "Sea Witch", "unresolved"]
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
    assert fm["first_wins"] + fm["second_wins"] + fm["unresolved"] == run.n_games
    assert fm["score"][0] == pytest.approx(
        fm["first_wins"] / (fm["first_wins"] + fm["second_wins"]))   # of the games that ended


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
    assert "How games end" in md and "stopped by the safety cap" in md
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
                                                             "adjudicated", "winner_side"],
                            seats_columns=["faction", "win", "fair", "players"])
    console = Console(width=160, record=True)
    render_summary(console, games, seats, by="faction", label="faction",
                   caps=[{"path": "end.max_turns", "value": 200, "unit": "player-turn",
                          "invented": True}])
    text = console.export_text()
    assert "Win share per faction" in text and "Sea King" in text
    assert "Rounds per game" in text and "Draws: 0" in text
    share = games["truncated"].mean()
    assert (f"Unresolved: {100 * share:.1f}% of games" in text
            and "the 200 player-turn cap (end.max_turns)" in text and "over 1%" in text)
    assert "Invented safety caps" in text and "end.max_turns = 200 player-turns" in text


# --- the gate -------------------------------------------------------------------------------

class _FakeEngine(AtlantisRuleset):
    """A ruleset object that plays Atlantis-shaped frames (no engine)."""

    def run_chunk(self, prepared, start, count):
        return atlantis_frames(count, seed=1000 + start, start=start, p_king=0.45,
                               p_open=0.15, bots=("aggressive", "defensive"))


ENGINE = _FakeEngine()
PREPARED = SimpleNamespace(ruleset="atlantis", placeholders=[], params_hash="x",
                           scenario={"name": "atl", "seed": 1, "chunk_size": 2000,
                                     "games": 4000})


def test_gate_metric_spec_with_the_rulesets_group_columns():
    from deepsim.errors import InputError
    from deepsim.gate.expect import (
        estimate,
        expand,
        observe,
        parse_metric_spec,
        player_counts,
        universe_from_frames,
    )

    games, seats = ENGINE.run_chunk(PREPARED, 0, 4000)
    uni = universe_from_frames(games, seats, player_counts(PREPARED.scenario, seats),
                               FAKE.group_columns, FAKE.faction_column)
    assert uni.players == [2] and uni.groups["faction"] == ["Sea Witch", "Sea King"]
    sel = parse_metric_spec("win_share[faction=sea king]", group_columns=FAKE.group_columns)
    (inst,) = expand([sel], uni, key_prefix="")
    assert inst.spec == "win_share[faction=Sea King]"
    est = estimate(inst.metric, *observe(inst, games, seats), 0.05)
    king = seats[seats["faction"] == "Sea King"]["win"].mean()
    assert est.value == pytest.approx(100 * king) and est.method == "Wilson"
    assert est.low < est.value < est.high
    (draw,) = expand([parse_metric_spec("draw_share", group_columns=FAKE.group_columns)],
                     uni, key_prefix="")
    est = estimate(draw.metric, *observe(draw, games, seats), 0.05)
    # a game the turn cap stopped is unresolved, never a draw: the draw share is over the
    # games that ended (Atlantis has no draw by its rules)
    ended = ~games["truncated"].to_numpy()
    assert est.value == pytest.approx(
        100 * ((games["winner_side"] < 0).to_numpy() & ended).sum() / ended.sum())
    with pytest.raises(InputError, match="unknown key 'company'"):
        parse_metric_spec("win_share[company=X]", group_columns=FAKE.group_columns)
    with pytest.raises(InputError, match="unknown group column 'company'"):
        expand([parse_metric_spec("win_share[company=X]")], uni, key_prefix="")
    with pytest.raises(InputError, match="glory"):
        expand([parse_metric_spec("glory")], uni, key_prefix="")


def test_gate_check_on_an_atlantis_scenario():
    from deepsim.gate.check import check_prepared
    from deepsim.gate.expect import FAIL, PASS, parse_expect

    exp = parse_expect({"expect": [
        {"name": "both sides viable", "metric": "win_ratio", "by": "faction",
         "within": [0.8, 1.25]},
        {"metric": "unresolved", "within": ["5%", "30%"]},
        {"metric": "win_share", "by": "faction", "group": "Sea King", "above": 60},
        {"metric": "win_edge", "by": "seat", "group": 1, "within": [-10, 10]},
    ]}, source="atl.yaml")
    res = check_prepared(ENGINE, PREPARED, exp, source="atl.yaml", lines={}, looks=[4000],
                         alphas=[0.05], alpha=0.05, sequential=False, spending="pocock",
                         overrides=[])
    verdicts = {r.instance.spec: r.verdict for r in res.rows}
    assert verdicts["win_ratio[faction=Sea Witch]"] == PASS  # fair share 0.5
    assert verdicts["win_ratio[faction=Sea King]"] == PASS
    assert verdicts["unresolved"] == PASS
    assert verdicts["win_share[faction=Sea King]"] == FAIL
    assert verdicts["win_edge[seat=1]"] == PASS
    ratio = next(r for r in res.rows if r.instance.spec == "win_ratio[faction=Sea King]")
    assert ratio.estimate.method == "Wilson / fair"


def test_gate_compare_two_atlantis_runs(atl_runs):
    from deepsim.gate.compare import compare_runs

    res = compare_runs(atl_runs["hit1"], atl_runs["hit56"], metric="unresolved")
    assert res.metric == "unresolved" and not res.paired
    assert res.diff.est < -5  # about 15% of games unresolved against 2%
    res = compare_runs(atl_runs["hit1"], atl_runs["hit56"],
                       metric="win_share[faction=Sea King]")
    assert res.metric == "win_share[faction=Sea King]"


# --- tune -----------------------------------------------------------------------------------

def test_tune_faction_spread_and_unresolved():
    """The metric language on an Atlantis-shaped ruleset: tune's objective terms and
    sweep's numbers (in percentage points / percent)."""
    from deepsim.errors import InputError
    from deepsim.measure.spec import expand, parse_metric_spec, universe_from_frames
    from deepsim.measure.values import estimate_obs, measure
    from deepsim.tune.objectives import parse_objective

    games, seats = ENGINE.run_chunk(PREPARED, 0, 4000)
    uni = universe_from_frames(games, seats, [2], FAKE.group_columns, "faction")
    obj = parse_objective("faction_spread+unresolved").bind(uni)
    assert {"faction", "win", "fair"} <= obj.seats_columns
    value, parts = obj.evaluate(games, seats)
    shares = seats.groupby("faction", observed=True)["win"].mean()   # NaN (unresolved) skipped
    assert parts["faction_spread"].value == pytest.approx(100 * (shares - 0.5).abs().max())
    assert parts["unresolved"].value == pytest.approx(100 * (games["winner_side"] < 0).mean())
    assert value.value == pytest.approx(parts["faction_spread"].value
                                        + parts["unresolved"].value)
    assert parts["faction_spread"].low <= parts["faction_spread"].value
    boot = obj.bootstrap_change((games, seats), (games, seats), reps=20)
    assert boot["change"] == 0 and boot["low"] == boot["high"] == 0
    assert FAKE.default_objective == "faction_spread"
    assert rulesets.get("deepfall").default_objective == "company_spread"
    (inst,) = expand([parse_metric_spec("faction_spread")], uni)
    assert estimate_obs(measure(inst, games, seats), 0.05).value == pytest.approx(
        parts["faction_spread"].value)
    ws = expand([parse_metric_spec("win_share:faction", group_columns=FAKE.group_columns)],
                uni)
    assert [i.member for i in ws] == ["Sea Witch", "Sea King"]
    with pytest.raises(InputError, match="lineage"):
        expand([parse_metric_spec("lineage_spread")], uni, key="--metric")
    with pytest.raises(InputError, match="unknown group 'company'"):
        parse_metric_spec("win_share:company", group_columns=FAKE.group_columns)


def test_warm_up_prepares_the_scenarios_own_ruleset(monkeypatch):
    from deepsim import distributed, runner

    seen = []
    real = runner.resolve

    def resolve(path, **kw):
        out = real(path, **kw)
        seen.append(out[0].name)
        return out

    monkeypatch.setattr(runner, "resolve", resolve)
    assert distributed.warm_up("scenarios/deepfall-2p.yaml") >= 0
    assert seen == ["deepfall"]


def test_baseline_bots_are_left_out_of_the_side_tables(tmp_path):
    """A run with a baseline bot (run.json baseline_bots): the faction table reads the other
    seats (fair share renormalised), the side, first-move and length tables the games with
    no baseline bot on either side, and each says how many were left out."""
    from deepsim.rulesets.atlantis.report import balance_games, side_shares
    path = write_atlantis_run(tmp_path / "base", bots=("aggressive", "random"),
                              baseline=("random",))
    run = load_run(path)
    assert run.baseline_bots == ("random",)
    games, left = balance_games(run)
    bad = set(run.seats.loc[run.seats["bot"] == "random", "game"])
    assert left == len(bad) > 0 and not set(games["game"]) & bad
    assert len(games) + left == run.n_games
    rep = build_report([load_run(path)])
    md = to_markdown(rep)
    sides = md.split("## Side win shares")[1].split("\n## ")[0]
    assert f"Games with a baseline bot (random) on either side are left out: {left:,}" in sides
    t = side_shares(games)
    assert f"{len(games):,}" in sides and t["count"].sum() == len(games)
    _kept, n_out = run.balance_seats()
    assert n_out == int((run.seats["bot"] == "random").sum())
    win = md.split("## Win share per faction")[1].split("\n## ")[0]
    assert f"aseline bots (random) left out: {n_out:,} seat-games" in win
    # without the record (an older run) and without bot data: nothing is left out
    old = write_atlantis_run(tmp_path / "old", bots=("aggressive", "random"))
    assert load_run(old).baseline_bots == () and load_run(old).balance_seats()[1] == 0
