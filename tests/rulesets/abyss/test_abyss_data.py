"""Abyss inputs: the data file and its placeholders, bots.yaml, scenarios, lord files (with
their errors and their place in the parameters hash), and the CLI on the ruleset."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepsim import runner as R
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.rulesets.abyss import RULESET, botconf, load_data
from deepsim.rulesets.abyss.schema import ENUMS

cli = CliRunner()
LORDS = Path("scenarios/abyss-lords/example.yaml")


def scenario(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text("name: t\nruleset: abyss\ngames: 40\nseed: 1\nchunk_size: 20\n" + text)
    return p


def error(path: Path, sets=()) -> str:
    with pytest.raises(InputError) as exc:
        R.resolve(path, overrides=list(sets))
    return str(exc.value)


# ---- the data file ------------------------------------------------------------------------

def test_defaults_and_placeholders():
    d = load_data()
    assert d.explore.row_length == 5 and d.keys.token_supply == 10
    prep = RULESET.prepare({"name": "t", "ruleset": "abyss"})
    assert prep.placeholders == ["depth.ally_counts", "explore.row_length", "threat.track",
                                 "keys.token_supply", "locations.vp", "lords.deck"]
    assert prep.skipped_rules and "AB-L5" in prep.skipped_rules[0]
    prep = RULESET.prepare({"name": "t", "ruleset": "abyss"},
                           overrides=["locations.placeholder=false",
                                      "explore.placeholder=false"])
    assert "locations.vp" not in prep.placeholders
    assert "explore.row_length" not in prep.placeholders


def test_every_ambiguity_with_a_default_is_a_parameter():
    """AMB-A1..A8, A10, A14..A16, A19 are parameters named in ruleset.yaml's comments."""
    rows = {r["path"]: r for r in RULESET.parameters()}
    want = {"AMB-A1": "explore.last_slot_monster", "AMB-A2": "explore.bought_frees_slot",
            "AMB-A3": "end.final_affiliation", "AMB-A4": "court.plot_timing",
            "AMB-A5": "threat.track", "AMB-A6": "depth.reshuffle",
            "AMB-A7": "explore.row_length", "AMB-A8": "explore.must_continue_after_monster",
            "AMB-A10": "keys.spend_policy", "AMB-A14": "hand_limit",
            "AMB-A15": "end.tiebreak_lord_metric", "AMB-A16": "pearl_supply",
            "AMB-A19": "players.min"}
    for amb, path in want.items():
        hits = [r for p, r in rows.items() if p == path or p.startswith(path + ".")]
        assert hits and any(amb in r["section"] for r in hits), (amb, path)
    assert rows["keys.multi_location"]["section"].startswith("AMB-A10")
    assert "choice" == rows["explore.last_slot_monster"]["type"]
    assert set(ENUMS["end.final_affiliation"]) == {"lowest", "highest"}


@pytest.mark.parametrize("override,needle", [
    ("court.refill_slot=7", "refill_slot"),
    ("explore.row_length=0", "row_length"),
    ("court.plot_timing=sometimes", "pre_action"),
    ("lords.deck.0.races=6", "races"),
    ("lords.deck.3.required=[crab, crab]", "listed twice"),
    ("lords.deck.0.required=[crab, kraken]", "required races"),
    ("depth.ally_counts=[0, 0]", "at least one ally"),
    ("players.max=5", "players.max"),
    ("threat.track=[]", "threat.track"),
    ("court.slots=40", "court.slots"),
])
def test_bad_parameters(tmp_path, override, needle):
    msg = error(scenario(tmp_path, "players: 3\n"), [override])
    assert needle in msg and "--set" in msg


# ---- bots.yaml -----------------------------------------------------------------------------

def test_bots_file_declares_bounds_and_a_baseline():
    f = botconf.load()
    assert botconf.baseline() == "random" and f.styles["random"].baseline
    assert {"courtier", "merchant", "hunter"} <= set(f.styles)
    for name, spec in f.knobs.items():
        assert spec.low <= spec.default <= spec.high, name
    for style in botconf.styles().values():
        for k, v in style.items():
            spec = f.knobs[k]
            assert spec.low <= v <= spec.high
            if spec.type == "int":
                assert v == int(v)


@pytest.mark.parametrize("seats,needle", [
    ("  - {bot: hunter, knobs: {fight_min: 11}}", "fight_min must lie in [1, 10]"),
    ("  - {bot: hunter, knobs: {fight_min: 2.5}}", "whole number"),
    ("  - {bot: hunter, knobs: {fight_mn: 2}}", "fight_min"),
    ("  - {bot: huntr}", "hunter"),
    ("  - {bot: any, knobs: {fight_min: 2}}", "fixed bot style"),
])
def test_bad_seats(tmp_path, seats, needle):
    text = "players: 2\nseats:\n" + seats + "\n  - {bot: merchant}\n"
    msg = error(scenario(tmp_path, text))
    assert needle in msg and "s.yaml" in msg


def test_bad_scenario_keys(tmp_path):
    assert "2-4 players" in error(scenario(tmp_path, "players: 5\n"))
    assert "one seat per player" in error(scenario(
        tmp_path, "players: 3\nseats:\n  - {bot: hunter}\n"))
    assert "rotat" in error(scenario(tmp_path, "rotat: true\n"))


def test_knobbed_seats_are_labelled_by_their_knobs(tmp_path):
    p = scenario(tmp_path, "players: 2\nseats:\n  - {bot: hunter, knobs: {fight_min: 3}}\n"
                           "  - {bot: hunter}\n")
    _, _, prep = R.resolve(p)
    assert "hunter[fight_min=3]" in prep.compiled["bot_labels"]
    p2 = scenario(tmp_path, "players: 2\nseats:\n  - {bot: hunter, knobs: {fight_min: 3, "
                            "take_min: 4}}\n  - {bot: hunter}\n", "s2.yaml")
    _, _, prep = R.resolve(p2)
    label = "hunter[fight_min=3 take_min=4]"
    assert label in prep.compiled["bot_labels"]
    from deepsim.gate.expect import parse_metric_spec
    sel = parse_metric_spec(f"win_share[bot={label}, players=2]", group_columns=("bot", "seat"))
    assert sel.group == label and sel.players == 2


# ---- lord files ----------------------------------------------------------------------------

def test_a_lord_file_replaces_the_deck_and_enters_the_hash(tmp_path):
    shutil.copy(LORDS, tmp_path / "lords.yaml")
    p = scenario(tmp_path, "players: 3\nlords: lords.yaml\n")
    _, _, prep = R.resolve(p)
    base = RULESET.prepare({"name": "t", "ruleset": "abyss", "players": 3})
    assert prep.params["lords"]["deck"][0]["cost"] == 5
    assert prep.params_hash != base.params_hash
    assert prep.compiled["lords_file"].endswith("lords.yaml")
    assert prep.scenario["lords"] == "lords.yaml"
    assert "lords.deck" in prep.placeholders                   # the file says placeholder
    text = (tmp_path / "lords.yaml").read_text().replace("placeholder: true\n", "")
    (tmp_path / "lords.yaml").write_text(text.replace("vp: 4,", "vp: 5,", 1))
    _, _, prep2 = R.resolve(p)
    assert prep2.params_hash != prep.params_hash
    assert "lords.deck" not in prep2.placeholders


def test_resume_and_from_refuse_a_changed_lord_file(tmp_path):
    shutil.copy(LORDS, tmp_path / "lords.yaml")
    p = scenario(tmp_path, "players: 3\nlords: lords.yaml\n")
    out = tmp_path / "run"
    res = cli.invoke(app, ["run", str(p), "--out", str(out), "--quiet", "--no-report"])
    assert res.exit_code == 0, res.output
    f = tmp_path / "lords.yaml"
    f.write_text(f.read_text().replace("vp: 4,", "vp: 6,", 1))
    res = cli.invoke(app, ["run", "--from", str(out), "--out", str(tmp_path / "again")])
    assert res.exit_code == 2 and "parameters changed" in res.output
    # an interrupted run (manifest running) refuses to resume for the same reason
    man = json.loads((out / "manifest.json").read_text())
    man["status"] = "running"
    man["chunks"] = man["chunks"][:1]
    (out / "manifest.json").write_text(json.dumps(man))
    res = cli.invoke(app, ["run", "--resume", str(out)])
    assert res.exit_code == 2 and "parameters changed" in res.output


@pytest.mark.parametrize("body,needle", [
    ("lords:\n  - {name: a, colour: teal, vp: 1, cost: 2, races: 1}\n", "teal"),
    ("lords:\n  - {name: a, colour: red, vp: 1, cost: 2, races: 1, required: [crab, kraken]}\n",
     "required"),
    ("lords:\n  - {name: a, colour: red, vp: 1, cost: 2}\n", "races"),
    ("lords: []\n", "lords"),
    ("- 1\n", "mapping"),
    ("lords:\n  - {name: a, colour: red, vp: 1, cost: 2, races: 1}\n",
     "the lord deck holds only 1"),
])
def test_bad_lord_files(tmp_path, body, needle):
    (tmp_path / "lords.yaml").write_text(body)
    msg = error(scenario(tmp_path, "players: 3\nlords: lords.yaml\n"))
    assert needle in msg and "lords.yaml" in msg


def test_lord_file_missing_or_fighting_an_override(tmp_path):
    msg = error(scenario(tmp_path, "lords: nowhere.yaml\n"))
    assert "no such lord file" in msg and "relative to the scenario" in msg
    shutil.copy(LORDS, tmp_path / "lords.yaml")
    msg = error(scenario(tmp_path, "lords: lords.yaml\n"), ["lords.deck.0.vp=3"])
    assert "do not also set lords.deck.0.vp" in msg


# ---- the CLI -------------------------------------------------------------------------------

@pytest.mark.slow
def test_run_trace_and_report_on_the_cli(tmp_path):
    out = tmp_path / "run"
    res = cli.invoke(app, ["run", "scenarios/abyss.yaml", "--games", "300", "--chunk-size",
                           "128", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Win share per bot style" in res.output and "Placeholder data" in res.output
    assert "lords.deck" in res.output and "AB-L5" in res.output
    info = json.loads((out / "run.json").read_text())
    assert "threat.track" in info["placeholders"]
    md = (out / "report" / "report.md").read_text()
    for title in ("§E1", "§E2", "§E3", "§E4", "§E5", "§E6", "§E8", "§E9", "§E10"):
        assert title in md
    assert "Depends on placeholder data" in md and "Not available" not in md
    res = cli.invoke(app, ["trace", str(out), "--game", "7"])
    assert res.exit_code == 0 and "offer " in res.output and "Result:" in res.output
    res = cli.invoke(app, ["params", "abyss", "--match", "last_slot_monster"])
    assert res.exit_code == 0 and "AMB-A1" in res.output


def test_findings_readme_is_written_from_the_runs(tmp_path):
    """make abyss-findings' last step: every answer's numbers come from the four runs."""
    from deepsim.studies import abyss_findings as findings
    for key, name, games in (("mixed", "abyss", 150), ("4p", "abyss-4p", 80),
                             ("threat", "abyss-threat", 80), ("auction", "abyss-auction", 80)):
        res = cli.invoke(app, ["run", f"scenarios/{name}.yaml", "--games", str(games),
                               "--out", str(tmp_path / key), "--quiet", "--no-report"])
        assert res.exit_code == 0, res.output
    out = tmp_path / "README.md"
    assert findings.main([str(tmp_path), "--out", str(out)]) == 0
    text = out.read_text()
    for q in ("§E1", "§E2", "§E3", "§E4", "§E5", "§E6", "§E8", "§E9", "§E10"):
        assert f"## {q} " in text
    assert text.count("*Rests on placeholder data:") == 9
    assert "150 games" in text and "hunter[fight_min=2]" in text
    assert "merchant[buy_value=0]" in text
