"""`deepsim respond` and the scenario key `faction_bots` it plays with.

Covers: a faction's own bots replace exactly its seats' bots with the deals and dice kept
(common random numbers) in every ruleset, mixtures drawn by weight, bad `faction_bots`
input (exit 2, file/key named); faction names in any spelling; the family correction of
the gains (simulated coverage and family-wise error) and the verdict rule; and a real
search that, from deliberately crippled knobs, finds a gain whose confirmed interval
excludes 0, the same on one thread and two.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from deepsim import runner
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.factionbots import match_name, norm_name
from deepsim.respond import Settings, run_respond
from deepsim.respond.play import Field
from deepsim.respond.search import resolve_factions
from deepsim.respond.verdict import family_gains, holm_adjust, verdict

cli = CliRunner()

CRIPPLED = {"base": "greedy", "press_max": 0, "recruit_max": 0, "target_depth": 1,
            "cash_loot": 0, "cash_depth": 0, "contest": 0, "last_stand": 0}


def write(tmp_path, name, body: dict) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(body, sort_keys=False))
    return str(p)


def deepfall(tmp_path, name="s.yaml", **extra) -> str:
    body = {"name": "t", "ruleset": "deepfall", "players": 4, "games": 200, "seed": 3,
            "chunk_size": 200, "bots": ["balanced", "greedy", "martyr"], **extra}
    return write(tmp_path, name, body)


def play(path, games=300):
    ruleset, _scenario, prepared = runner.resolve(path)
    return ruleset.run_chunk(prepared, 0, games)


# --- faction_bots ------------------------------------------------------------------------------

def test_faction_bots_replace_only_that_companys_bots_on_the_same_deals(tmp_path):
    base = deepfall(tmp_path)
    own = deepfall(tmp_path, "own.yaml", faction_bots={
        "styles": {"bad": CRIPPLED}, "factions": {"wisp_WARDEN": "bad"}})
    _g0, s0 = play(base)
    _g1, s1 = play(own)
    assert (s0[["game", "seat", "company"]].to_numpy() == s1[["game", "seat", "company"]]
            .to_numpy()).all()                      # the same deals
    mine = (s1["company"] == "Wisp Warden").to_numpy()
    assert mine.sum() > 10
    assert (s1.loc[mine, "bot"] == "bad").all()
    others = ~mine
    assert (s0.loc[others, "bot"].astype(str).to_numpy()
            == s1.loc[others, "bot"].astype(str).to_numpy()).all()
    # games without the company are the same games, to the last column
    with_f = set(s1.loc[mine, "game"])
    keep = ~s0["game"].isin(with_f)
    pd.testing.assert_frame_equal(s0[keep].reset_index(drop=True),
                                  s1[keep].reset_index(drop=True), check_categorical=False)
    # run_games plays listed games as run_chunk does
    ruleset, _, prepared = runner.resolve(own)
    idx = np.array(sorted(with_f)[:40], np.int64)
    _gl, sl = ruleset.run_games(prepared, idx)
    want = s1[s1["game"].isin(idx)].reset_index(drop=True)
    pd.testing.assert_frame_equal(sl.reset_index(drop=True), want, check_categorical=False)


def test_a_mixture_is_drawn_per_game_by_weight(tmp_path):
    path = deepfall(tmp_path, faction_bots={"factions": {
        "Dvergar Reaver": {"greedy": 1, "martyr": 3}}})
    _, s = play(path, games=3000)
    bots = s.loc[s["company"] == "Dvergar Reaver", "bot"].astype(str)
    n, k = len(bots), int((bots == "martyr").sum())
    assert set(bots) == {"greedy", "martyr"}
    assert abs(k - 0.75 * n) < 4 * math.sqrt(n * 0.75 * 0.25)
    _ruleset, _, prepared = runner.resolve(path)
    assert prepared.scenario["faction_bots"]["factions"]["Dvergar Reaver"] == [
        ["greedy", 0.25], ["martyr", 0.75]]


def test_faction_bots_in_atlantis_and_abyss(tmp_path):
    at = write(tmp_path, "a.yaml", {"name": "a", "ruleset": "atlantis", "games": 20,
                                    "seed": 2, "bots": ["aggressive", "defensive"]})
    at_own = write(tmp_path, "a2.yaml", {"name": "a", "ruleset": "atlantis", "games": 20,
                                         "seed": 2, "bots": ["aggressive", "defensive"],
                                         "faction_bots": {"factions": {"sea-king": "defensive"}}})
    _, s0 = play(at, 20)
    _, s1 = play(at_own, 20)
    king = (s1["faction"] == "Sea King").to_numpy()
    assert (s1.loc[king, "bot"] == "defensive").all()
    assert (s0.loc[~king, "bot"].astype(str).to_numpy()
            == s1.loc[~king, "bot"].astype(str).to_numpy()).all()
    ab = {"name": "b", "ruleset": "abyss", "games": 40, "seed": 4, "players": 3,
          "bots": ["courtier", "hunter"]}
    ab_own = dict(ab, faction_bots={"styles": {"h2": {"base": "hunter", "fight_min": 6}},
                                    "factions": {"Hunter": "h2"}})
    g0, s0 = play(write(tmp_path, "b.yaml", ab), 40)
    g1, s1 = play(write(tmp_path, "b2.yaml", ab_own), 40)
    assert list(s1["bot"].cat.categories) == list(s0["bot"].cat.categories)  # label kept
    assert (s0["bot"].astype(str) == s1["bot"].astype(str)).all()
    assert not g0.equals(g1)                           # the hunters played otherwise


@pytest.mark.parametrize("value, needle", [
    ({"factions": {"Wisp Wardn": "greedy"}}, "did you mean 'Wisp Warden'"),
    ({"factions": {"Wisp Warden": "gredy"}}, "unknown style 'gredy'"),
    ({"styles": {"x": {"press_max": 12}}, "factions": {"Wisp Warden": "x"}},
     "press_max 12 is outside its bounds [0, 8]"),
    ({"styles": {"x": {"presss_max": 1}}, "factions": {"Wisp Warden": "x"}}, "unknown knob"),
    ({"styles": {"greedy": {"press_max": 1}}, "factions": {"Wisp Warden": "greedy"}},
     "is a style of"),
    ({"factions": {"Wisp Warden": {"greedy": 0}}}, "a weight is a positive number"),
    ({"factions": {"Wisp Warden": "greedy", "wisp-warden": "martyr"}}, "a second time"),
    ({"factions": {}}, "faction_bots.factions"),
    ("missing.yaml", "no such faction bots file"),
    ("x" * 5000 + ".yaml", "no such faction bots file"),     # longer than a file name may be
])
def test_bad_faction_bots_exit_2_naming_the_key(tmp_path, value, needle):
    path = deepfall(tmp_path, faction_bots=value)
    res = cli.invoke(app, ["run", path, "--games", "5", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert needle in text and "s.yaml" in text, text
    assert "Traceback" not in text
    assert not (tmp_path / "o").exists()


def test_a_faction_bots_file_relative_to_the_scenario(tmp_path):
    (tmp_path / "fb.yaml").write_text("factions:\n  Wisp Warden: martyr\n  wisp reaver: {x: 1}\n"
                                      "styles:\n  x: {base: greedy, press_max: 9}\n")
    path = deepfall(tmp_path, faction_bots="fb.yaml")
    with pytest.raises(InputError) as e:
        runner.resolve(path)
    assert "fb.yaml:5" in str(e.value) and "styles.x.press_max" in str(e.value)


# --- names -------------------------------------------------------------------------------------

def test_faction_names_resolve_in_any_spelling():
    assert norm_name("Golem-Born Hierophant") == norm_name("golem_born hierophant")
    names = Field("scenarios/deepfall-4p.yaml").factions
    for spelling in ("golem_born hierophant", "Golem-Born Hierophant", "GOLEMBORN-hierophant",
                     " golem born  Hierophant "):
        assert match_name(spelling, names) == "Golem-born Hierophant"
    with pytest.raises(InputError, match="did you mean 'Golem-born Hierophant'"):
        match_name("golem-born hierofant", names, key="--faction")
    at = Field("scenarios/atlantis.yaml")
    assert resolve_factions(at, ["SEA_witch"], False) == ["Sea Witch"]
    assert resolve_factions(at, None, True) == ["Sea Witch", "Sea King"]
    ab = Field("scenarios/abyss-4p.yaml")
    assert "random" not in resolve_factions(ab, None, True)      # a baseline style
    assert resolve_factions(ab, ["Hunter"], False) == ["hunter"]


def test_bad_respond_input_exits_2_before_any_game(tmp_path):
    out = tmp_path / "o"
    for args, needle in ((["--faction", "wisp wardenn"], "unknown company"),
                         ([], "--faction NAME"),
                         (["--all", "--faction", "wisp warden"], "not both"),
                         (["--all", "--style", "random"], "baseline style"),
                         (["--all", "--style", "gready"], "unknown style"),
                         (["--all", "--trials", "0"], "--trials"),
                         (["--all", "--max-ratio", "0.5"], "--max-ratio")):
        res = cli.invoke(app, ["respond", "scenarios/deepfall-4p.yaml", *args, "--out",
                               str(out)])
        text = " ".join(res.output.split())
        assert res.exit_code == 2, (args, text)
        assert needle in text, (args, text)
        assert not out.exists()


def test_a_faction_the_field_never_seats_is_refused_early(tmp_path):
    """Two fixed companies; asking for a third is refused once its absence shows (here
    1,200 games of 200-game blocks, the 95% rule-of-three bound), not after the 80,000
    games of the cap."""
    seats = [{"lineage": "wisp", "calling": "warden", "bot": "greedy"},
             {"lineage": "gnoll", "calling": "reaver", "bot": "greedy"}]
    path = deepfall(tmp_path, players=2, seats=seats)
    out = tmp_path / "o"
    res = cli.invoke(app, ["respond", path, "--faction", "dvergar reaver", "--games", "200",
                           "--trials", "2", "--out", str(out)])
    text = " ".join(res.output.split())
    assert res.exit_code == 2, text
    assert "never seated in the first 1,200 games" in text
    info = json.loads((out / "respond.json").read_text())
    assert info["status"] == "failed" and "never seated" in info["error"]


# --- statistics --------------------------------------------------------------------------------

def test_family_intervals_and_holm_keep_their_error_rates():
    """Simulated: m gains with true value 0 (and two clearly not): the simultaneous
    intervals hold every true gain together, and Holm rejects a true null, in at least
    95% / at most 5% of 4,000 families (binomial margin)."""
    rng = np.random.default_rng(7)
    _m, reps, alpha = 6, 4000, 0.05
    truth = np.array([0, 0, 0, 0, 0.5, -0.4])
    se = np.array([0.05, 0.1, 0.02, 0.08, 0.1, 0.1])
    cover = false_rej = 0
    for _ in range(reps):
        est = truth + rng.normal(0, se)
        gains = family_gains(est, se, alpha=alpha)
        cover += all(g.low <= t <= g.high for g, t in zip(gains, truth, strict=True))
        false_rej += any(g.p_holm < alpha for g, t in zip(gains, truth, strict=True)
                         if t == 0)
    margin = 3 * math.sqrt(alpha * (1 - alpha) / reps)
    assert cover / reps >= 1 - alpha - margin
    assert false_rej / reps <= alpha + margin
    g = family_gains([0.0], [0.0])[0]
    assert (g.low, g.high, g.p) == (0.0, 0.0, 1.0)   # the start style was best


def test_holm_adjust_is_statsmodels_holm():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    for m in (1, 4, 9):
        p = rng.uniform(0, 0.2, m)
        p[0] = p[-1]                                   # a tie
        np.testing.assert_allclose(holm_adjust(p), multipletests(p, method="holm")[1])
    got = holm_adjust([0.01, np.nan, 0.04])
    assert np.isnan(got[1]) and np.allclose(got[[0, 2]], [0.02, 0.04])


@pytest.mark.parametrize("shipped, best, want", [
    ((0.3, 0.5), (0.4, 0.7), "not viable under any play"),
    ((0.3, 0.5), (0.85, 0.95), "not viable only with its default knobs"),
    ((1.3, 1.4), (1.5, 1.6), "too strong under any play"),
    ((1.0, 1.1), (1.3, 1.4), "too strong under best response"),
    ((1.2, 1.3), (1.26, 1.4), "too strong under best response"),
    ((0.9, 1.0), (1.0, 1.1), "viable under any play"),
    ((0.7, 0.9), (0.85, 0.95), "inconclusive"),
    ((0.3, 0.5), (0.7, 0.9), "inconclusive"),
])
def test_verdict_rule(shipped, best, want):
    v, width = verdict(shipped, best)
    assert v == want
    assert width == pytest.approx(max(shipped[1] - shipped[0], best[1] - best[0]))


# --- the search --------------------------------------------------------------------------------

SMALL = {"trials": 6, "games": 250, "confirm_games": 2500, "sampler_seed": 1}


@pytest.fixture(scope="module")
def crippled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("respond")
    path = deepfall(tmp, faction_bots={"styles": {"bad": CRIPPLED},
                                       "factions": {"Wisp Warden": "bad"}})
    res = run_respond(path, factions=["wisp-WARDEN"], settings=Settings(**SMALL), threads=2,
                      out=tmp / "out")
    return path, tmp, res


def test_a_search_from_crippled_knobs_finds_a_confirmed_gain(crippled):
    _, _, res = crippled
    t = res.search.table.iloc[0]
    assert t["faction"] == "Wisp Warden" and t["style"] == "bad"    # starts from its own
    trials = res.search.trials
    assert trials.loc[0, "start"] and trials.loc[0, "press_max"] == 0
    assert t["best_trial"] > 0
    assert t["gain_low"] > 0, t                 # the confirmed interval excludes 0
    assert t["best_low"] > t["default_high"]
    files = {p.name for p in res.out_dir.iterdir()}
    assert {"respond.md", "respond.html", "respond.png", "styles.yaml", "trials.parquet",
            "confirm.parquet", "respond.json"} <= files
    styles = yaml.safe_load((res.out_dir / "styles.yaml").read_text())
    assert styles["factions"] == {"Wisp Warden": "wisp_warden_br"}
    assert styles["styles"]["wisp_warden_br"]["press_max"] == trials.loc[
        t["best_trial"], "press_max"]
    assert "wisp_warden_br:" in (res.out_dir / "respond.md").read_text()
    assert pd.read_parquet(res.out_dir / "trials.parquet").shape[0] == SMALL["trials"]


def test_styles_yaml_plays_the_best_response(crippled, tmp_path):
    path, _, res = crippled
    scen = yaml.safe_load(Path(path).read_text())
    (tmp_path / "styles.yaml").write_text((res.out_dir / "styles.yaml").read_text())
    scen["faction_bots"] = "styles.yaml"
    _, s = play(write(tmp_path, "x.yaml", scen), 200)
    assert (s.loc[s["company"] == "Wisp Warden", "bot"] == "wisp_warden_br").all()


def test_same_seed_same_result_on_one_thread_and_from_the_cli(crippled, tmp_path):
    path, _, res = crippled
    out = tmp_path / "cli"
    r = cli.invoke(app, ["respond", path, "--faction", "Wisp Warden", "--trials",
                         str(SMALL["trials"]), "--games", str(SMALL["games"]),
                         "--confirm-games", str(SMALL["confirm_games"]), "--sampler-seed",
                         "1", "--threads", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "Wisp Warden" in r.output
    a = res.search.trials.drop(columns="seconds")
    b = pd.read_parquet(out / "trials.parquet").drop(columns="seconds")
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(res.search.table, pd.read_parquet(out / "confirm.parquet"))
