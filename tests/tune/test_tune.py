"""`deepsim sweep` and `deepsim tune` on the real DEEPFALL ruleset, with tiny game counts.

Covers VALUES parsing and its errors (exit 2, one clear line), overrides the ruleset
refuses (with its reason), unknown paths (nearest valid ones named), common random numbers
(a parameter that cannot change a game gives identical metrics at every point), the tidy
parquet's rows, a dice change moving results the expected way, tune's determinism for a
sampler seed and its outputs, and tune finding a known optimum.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.tune.grid import build_grid, parse_param, parse_search, parse_values
from deepsim.tune.objectives import parse_objective, probe_universe
from deepsim.tune.play import Player
from deepsim.tune.settings import Settings
from deepsim.tune.sweep import run_sweep
from deepsim.tune.tune import run_tune

runner = CliRunner()
# the field with every bot style (deepfall-4p.yaml seats only the shipped heuristics since
# issue 18); the same games as deepfall-4p.yaml had before
SCENARIO = "scenarios/deepfall-ladder.yaml"


@pytest.fixture(scope="module")
def table():
    from deepsim.rulesets.deepfall import RULESET
    from deepsim.tune.grid import parameter_table

    return parameter_table(RULESET)


# --- VALUES ---------------------------------------------------------------------------------

def test_values_lists_and_ranges():
    assert parse_values("1,2", path="p", kind="int") == [1, 2]
    assert parse_values("2.0:3.0:0.25", path="p", kind="float") == [2.0, 2.25, 2.5, 2.75, 3.0]
    assert parse_values("2.0:3.0:0.1", path="p", kind="float")[3] == 2.3  # decimal steps
    assert parse_values("1:4", path="p", kind="int") == [1, 2, 3, 4]
    assert parse_values("0:10:4", path="p", kind="int") == [0, 4, 8]
    assert parse_values("2.0, 3", path="p", kind="int") == [2, 3]
    assert parse_values("1,2.5", path="p", kind="float") == [1.0, 2.5]
    assert parse_values("true,false", path="p", kind="bool") == [True, False]
    assert parse_values("{a: 1},{a: 2}", path="p", kind="mapping") == [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize("text,kind,message", [
    ("", "float", "has no values"),
    ("3.0:2.0:0.5", "float", "LOW must not exceed HIGH"),
    ("1:2:0", "float", "step must be > 0"),
    ("1:2:-1", "float", "step must be > 0"),
    ("a:2:1", "float", "'a' is not a number"),
    ("1:2:3:4", "float", "LOW:HIGH:STEP"),
    ("2.0:3.0", "float", "give the range a step"),
    ("0:1:0.00001", "float", "at most 10,000 grid points"),
    ("1,,2", "int", "empty value"),
    ("1,2,", "int", "empty value"),
    ("2.5", "int", "takes an integer"),
    ("0:2:0.5", "int", "not whole numbers"),
    ("true", "float", "takes a number"),
    ("yes_please", "bool", "takes true or false"),
    ("true:false", "bool", "list its values"),
    ("1,2,1", "int", "listed twice"),
])
def test_values_errors(text, kind, message):
    with pytest.raises(InputError, match=message):
        parse_values(text, path="p", kind=kind)


def test_param_types_come_from_the_ruleset(table):
    spec = parse_param("turn.hand_size=3:5", table)
    assert spec.values == (3, 4, 5) and spec.kind == "int"
    assert parse_param("end.tie_rule=share,none", table).values == ("share", "none")
    with pytest.raises(InputError, match="one of share, none"):
        parse_param("end.tie_rule=share,nne", table)
    with pytest.raises(InputError, match="expected PATH=VALUES"):
        parse_param("turn.hand_size", table)
    with pytest.raises(InputError, match="both swept"):
        build_grid([parse_param("turn.hand_size=3,4", table)], fixed=["turn.hand_size=5"])
    grid = build_grid([parse_param("turn.hand_size=3,4", table),
                       parse_param("exits.cash_out_dividend=1.0,2.0,3.0", table)])
    assert len(grid) == 6 and grid[1] == {"turn.hand_size": 3, "exits.cash_out_dividend": 2.0}


def test_search_spaces(table):
    s = parse_search("turn.hand_size=2:6", table)
    assert (s.kind, s.low, s.high, s.step, s.default) == ("int", 2, 6, 1, 4)
    assert s.contains(4) and not s.contains(7)
    f = parse_search("exits.worthy_end_multiplier=2.0:3.0", table)
    assert f.step == 0.01 and f.contains(2.5)  # a round default step keeps tuned numbers round
    c = parse_search("end.tie_rule=share,none", table)
    assert c.categorical and c.choices == ("share", "none")
    for bad, message in (("turn.hand_size=6:2", "LOW must be below HIGH"),
                         ("turn.hand_size=1.5:3", "whole numbers"),
                         ("claims.must_beat_leader=0:1", "list the values"),
                         ("exits.worthy_end_multiplier=2.0:3.0:0.3", "does not divide"),
                         ("dice.warrior.faces={steel: 3},{steel: 2}", "group of parameters")):
        with pytest.raises(InputError, match=message):
            parse_search(bad, table)


def test_objective_parsing():
    obj = parse_objective("company_spread + 0.5*seat_advantage")
    assert obj.terms == ((1.0, "company_spread"), (0.5, "seat_advantage"))
    # any single number of the metric language; '+' inside brackets pools members
    obj = parse_objective("faction_spread+2*win_share[bot=greedy+martyr, players=4]")
    assert obj.terms == ((1.0, "faction_spread"),
                         (2.0, "win_share[bot=greedy+martyr, players=4]"))
    player = Player(SCENARIO, games=10)
    uni = probe_universe(player.ruleset, player.prepare({}).prepared)
    with pytest.raises(InputError, match="did you mean 'company_spread'"):
        parse_objective("compnay_spread").bind(uni)
    with pytest.raises(InputError, match="names 6 numbers; an objective term is one number"):
        parse_objective("win_share[bot]").bind(uni)
    assert [i.spec for i in obj.bind(uni).instances] == [
        "faction_spread", "win_share[bot=greedy+martyr, players=4]"]
    with pytest.raises(InputError, match="must be > 0"):
        parse_objective("0*company_spread")
    with pytest.raises(InputError, match="cannot read the term"):
        parse_objective("company_spread+-seat_advantage")
    with pytest.raises(InputError, match="appears twice"):
        parse_objective("company_spread+company_spread")


# --- CLI: bad input exits 2 with the reason -------------------------------------------------

@pytest.mark.parametrize("args,message", [
    (["sweep", SCENARIO, "--param", "exits.worthy_end_multiplier=3.0:2.0:0.5"],
     "LOW must not exceed HIGH"),
    (["sweep", SCENARIO, "--param", "exits.worthy_end_multiplier=2.0:x:0.5"],
     "not a number"),
    (["sweep", SCENARIO, "--param", "exits.worthy_end_multipler=2,3"],
     "did you mean 'exits.worthy_end_multiplier'"),
    (["sweep", SCENARIO, "--param", "lineages.dvergr.threat_ignore=0,1"],
     "did you mean 'lineages.dvergar.threat_ignore'"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=3,4", "--set", "exits.cash_out_dividnd=3"],
     "did you mean 'exits.cash_out_dividend'"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=3,4", "--set", "recruit.cost=true"],
     "'recruit.cost' takes an integer; got 'true'"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=3,true"], "takes an integer"),
    # the ruleset's own checks, with its reason
    (["sweep", SCENARIO, "--param", "dice.warrior.faces.steel=3,4"],
     "a die has six faces; these face counts sum to 7"),
    (["sweep", SCENARIO, "--param", "recruit.cost=2,-1"],
     "recruit.cost=-1: .*greater than or equal to 0"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=4", "--metric", "win_share:bots"],
     "did you mean 'bot'"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=4", "--metric", "win_share[bots]"],
     "did you mean 'bot'"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=4", "--metric", "rounds[bot]"],
     "per-game number: only 'players' selects it"),
    (["sweep", SCENARIO, "--param", "turn.hand_size=4", "--metric", "worthy_endz"],
     "did you mean 'worthy_ends'"),
    (["tune", SCENARIO, "--param", "recruit.cost=-1:3"], "greater than or equal to 0"),
    (["tune", SCENARIO, "--param", "turn.hand_size=2:6", "--objective", "lineage_sprd"],
     "did you mean 'lineage_spread'"),
    (["tune", SCENARIO, "--param", "turn.hand_size=2:6", "--trials", "0"], "at least 1 trial"),
])
def test_cli_bad_input_exits_2(args, message, tmp_path):
    res = runner.invoke(app, [*args, "--games", "10", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "error:" in text and "Traceback" not in text
    import re

    assert re.search(message, text), text
    assert not (tmp_path / "o").exists()  # refused before any folder is made


def test_existing_out_needs_force(tmp_path):
    (tmp_path / "o").mkdir()
    res = runner.invoke(app, ["sweep", SCENARIO, "--param", "turn.hand_size=4", "--games", "5",
                              "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "--force" in res.output


# --- sweeps ---------------------------------------------------------------------------------

def test_sweep_common_random_numbers_and_rows(tmp_path):
    """end.max_rounds=500 vs 1000 (and the default 60, played beside the grid as the
    baseline): no game lasts that long, so every metric is identical at every point (same
    seed, same game indices) although the rules hash differs, and every paired change from
    the baseline is exactly 0. Old spellings still work, with a deprecation line."""
    out = tmp_path / "sweep"
    res = runner.invoke(app, ["sweep", SCENARIO, "--param", "end.max_rounds=500,1000",
                              "--metric", "company_spread", "--metric", "win_share:bot",
                              "--metric", "worthy_ends", "--metric", "mean_rounds",
                              "--games", "300", "--seed", "5", "--out", str(out)],
                         env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "win_share[bot] (%)" in text and "Common random numbers" in text
    assert "'win_share:bot' is now written 'win_share[bot]'" in text
    assert "'mean_rounds' is now called 'rounds'" in text
    assert "played beside the grid" in text
    df = pd.read_parquet(out / "sweep.parquet")
    bots = ["balanced", "cautious", "greedy", "martyr", "random", "search"]  # bots.yaml
    assert len(df) == 3 * (1 + len(bots) + 1 + 1)  # one row per point, metric and group
    assert set(df.columns) >= {"point", "baseline", "end.max_rounds", "metric", "group",
                               "label", "unit", "value", "low", "high", "fair", "delta",
                               "delta_low", "delta_high", "n", "games", "seed",
                               "params_hash"}
    assert sorted(df.loc[df["metric"] == "win_share[bot]", "group"].unique()) == bots
    assert set(df["metric"]) == {"company_spread", "win_share[bot]", "worthy_ends", "rounds"}
    # a style of bots.yaml nobody plays here (search) has no number (n 0, value NaN)
    unplayed = df["value"].isna()
    assert set(df.loc[unplayed, "group"]) == {"search"} and (df.loc[unplayed, "n"] == 0).all()
    played = df[~unplayed]
    assert (played["low"] <= played["value"] + 1e-12).all() and (
        played["value"] <= played["high"] + 1e-12).all()
    assert (df["games"] == 300).all() and (df["seed"] == 5).all()
    assert df.loc[df["baseline"], "point"].unique().tolist() == [-1]
    assert (played["delta"] == 0).all() and (played["delta_low"] == 0).all()
    shares = played[played["metric"] == "win_share[bot]"]
    assert (shares["unit"] == "%").all() and (shares["value"] > 1).any()  # percent
    assert (shares["fair"] == 25.0).all()                         # 4 players: 1/4
    a = df[df["point"] == 0].reset_index(drop=True)
    b = df[df["point"] == 1].reset_index(drop=True)
    assert a["params_hash"][0] != b["params_hash"][0]
    pd.testing.assert_frame_equal(a[["metric", "group", "value", "low", "high", "n"]],
                                  b[["metric", "group", "value", "low", "high", "n"]])
    info = json.loads((out / "sweep.json").read_text())
    assert info["status"] == "complete" and info["seed"] == 5 and len(info["points"]) == 2
    assert info["baseline"] == {"point": -1, "params_hash": df.loc[df["baseline"],
                                                                   "params_hash"].iloc[0],
                                "in_grid": False}
    assert {p.name for p in (out / "plots").iterdir()} == {
        "company_spread.png", "win_share-bot.png", "worthy_ends.png", "rounds.png"}


def test_sweep_dice_faces_move_results_the_expected_way(tmp_path):
    """A Recruit die without its Dread face (a second Steel instead) means fewer Setbacks
    and fewer Dread fills; a Warrior die with more Dread means more."""
    plain = "{steel: 1, cunning: 1, faith: 1, greed: 1, mettle: 1, dread: 1}"
    calm = "{steel: 2, cunning: 1, faith: 1, greed: 1, mettle: 1, dread: 0}"
    grim = "{steel: 1, cunning: 1, faith: 1, greed: 1, mettle: 0, dread: 2}"
    result = run_sweep(SCENARIO, [f"dice.recruit.faces={plain},{calm},{grim}"],
                       metrics=["setbacks", "dread_fills"],
                       settings=Settings(games=400, seed=3, out=tmp_path / "dice",
                                         make_plots=False))
    df = result.frame.set_index(["metric", "point"])["value"]
    assert df[("setbacks", 1)] < df[("setbacks", 0)] < df[("setbacks", 2)]
    assert df[("dread_fills", 1)] < df[("dread_fills", 0)] < df[("dread_fills", 2)]


def test_two_parameter_sweep_draws_a_heatmap(tmp_path):
    result = run_sweep(SCENARIO, ["exits.cash_out_dividend=1.0,3.0", "turn.hand_size=3:4"],
                       metrics=["lineage_spread"],
                       settings=Settings(games=100, out=tmp_path / "grid"))
    assert len(result.frame) == 5                   # the 4 points and the baseline beside
    assert result.frame["baseline"].sum() == 1
    png = tmp_path / "grid" / "plots" / "lineage_spread.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- tunes ----------------------------------------------------------------------------------

def _tune(out, **kw):
    args = {"objective": "company_spread+seat_advantage", "trials": 4, "sampler_seed": 7,
            "confirm_games": 200}
    args.update(kw)
    return run_tune(SCENARIO, ["exits.worthy_end_multiplier=1.5:3.5",
                               "turn.hand_size=3:5"],
                    settings=Settings(games=150, seed=2, out=out), **args)


@pytest.mark.slow
def test_tune_is_deterministic_and_writes_its_outputs(tmp_path):
    a = _tune(tmp_path / "a")
    b = _tune(tmp_path / "b", report=False)
    cols = ["trial", "state", "baseline", "exits.worthy_end_multiplier", "turn.hand_size",
            "value", "low", "high", "company_spread", "seat_advantage"]
    pd.testing.assert_frame_equal(a.trials[cols], b.trials[cols])
    assert a.best == b.best and a.yaml_block == b.yaml_block
    # the first trial is the baseline (the defaults lie in the space)
    assert a.trials["baseline"].iloc[0] and a.trials["trial"].iloc[0] == 0
    assert a.trials["exits.worthy_end_multiplier"].iloc[0] == 2.5
    out = tmp_path / "a"
    trials = pd.read_parquet(out / "trials.parquet")
    assert len(trials) == 4 and set(trials["state"]) == {"COMPLETE"}
    block = yaml.safe_load((out / "best.yaml").read_text())
    assert set(block) == {"overrides"}
    assert block["overrides"] == a.best
    assert (out / "objective.png").read_bytes()[:4] == b"\x89PNG"
    info = json.loads((out / "tune.json").read_text())
    assert info["status"] == "complete" and info["sampler_seed"] == 7
    conf = info["confirm"]
    assert conf["seed"] == 3 and conf["games"] == 200
    assert conf["change_low"] <= conf["change"] <= conf["change_high"]
    assert (out / "confirm-best" / "report" / "report.md").is_file()
    assert (out / "confirm-baseline" / "run.json").is_file()
    run_info = json.loads((out / "confirm-best" / "run.json").read_text())
    assert run_info["games"] == 200 and run_info["seed"] == 3


def test_tune_finds_a_known_optimum(tmp_path):
    """length_error with the target set to the mean length at a 4-player Dread track of 5
    (same seed and games; the default is 7): with common random numbers that point scores
    exactly 0 and every other track length a positive error (games grow longer with the
    track), so the search must find 5."""
    path = "scaling.4.dread_track_length"
    player = Player(SCENARIO, games=200, seed=4)
    means = {}
    for k in (4, 5, 6):
        g, _ = player.play(player.prepare({path: k}), games_columns={"rounds"})
        means[k] = float(g["rounds"].mean())
    assert means[4] < means[5] < means[6]
    res = run_tune(SCENARIO, [f"{path}=2:9"], objective="length_error", trials=12,
                   sampler_seed=1, confirm_games=0,
                   settings=Settings(target_rounds=means[5], games=200, seed=4,
                                     out=tmp_path / "t", make_plots=False))
    assert res.best == {path: 5}
    assert res.best_value == pytest.approx(0.0, abs=1e-12)
    assert res.baseline_value > 0 and res.trials["baseline"].iloc[0]
    assert res.confirm is None
    assert f"{path}: 5" in res.yaml_block


def test_tune_cli_prints_the_block(tmp_path):
    out = tmp_path / "cli"
    res = runner.invoke(app, ["tune", SCENARIO, "--param", "turn.hand_size=3:5",
                              "--objective", "lineage_spread", "--trials", "3", "--games", "100",
                              "--confirm-games", "100", "--no-report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "overrides:" in res.output and "turn.hand_size:" in res.output
    assert "confirm: 100 games, seed" in " ".join(res.output.split())
