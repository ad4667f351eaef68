"""The Python API (deepsim.simulate / load / trace and the report's statistics)."""

from __future__ import annotations

import pandas as pd
import pytest

import deepsim
from deepsim.errors import InputError

SCENARIO = {"ruleset": "deepfall", "players": 3, "seed": 5, "games": 300,
            "bots": ["balanced", "greedy", "martyr"]}


def test_simulate_a_file_returns_two_frames_of_the_asked_games():
    g, s = deepsim.simulate("scenarios/deepfall-4p.yaml", games=400, seed=3)
    assert len(g) == 400 and g["game"].tolist() == list(range(400))
    assert len(s) == 4 * 400 and {"company", "win", "fair", "seat"} <= set(s.columns)
    assert (s.groupby("game")["win"].sum().round(9) == 1).all()


def test_mapping_equals_the_same_scenario_run_by_the_ruleset_and_ignores_chunking():
    sim = deepsim.simulate(SCENARIO, chunk_size=64, threads=1)
    from deepsim.rulesets import get
    rs = get("deepfall")
    prepared = rs.prepare({**SCENARIO, "name": "x"}, source="<t>")
    g, s = rs.run_chunk(prepared, 0, 300)
    pd.testing.assert_frame_equal(sim.games, g)
    pd.testing.assert_frame_equal(sim.seats, s)
    assert sim.ruleset == "deepfall" and sim.params_hash == prepared.params_hash
    assert sim.out_dir is None


def test_overrides_as_mapping_or_list_are_the_same_and_change_the_games():
    a = deepsim.simulate(SCENARIO, overrides={"maw.steps_per_floor": 1})
    b = deepsim.simulate(SCENARIO, overrides=["maw.steps_per_floor=1"])
    c = deepsim.simulate(SCENARIO)
    pd.testing.assert_frame_equal(a.games, b.games)
    assert a.params_hash != c.params_hash
    assert not a.games["rounds"].equals(c.games["rounds"])
    assert a.scenario["resolved_overrides"] == {"maw.steps_per_floor": 1}


def test_out_writes_a_run_that_load_reads_back(tmp_path):
    sim = deepsim.simulate(SCENARIO, out=tmp_path / "run")
    g, _ = deepsim.load(tmp_path / "run")
    pd.testing.assert_frame_equal(g, sim.games)
    g2, _ = deepsim.load(tmp_path / "run", games_columns=["rounds"])
    assert list(g2.columns) == ["game", "rounds"]
    with pytest.raises(InputError, match="already exists"):
        deepsim.simulate(SCENARIO, out=tmp_path / "run")


def test_trace_ends_with_the_batch_rows_glory():
    sim = deepsim.simulate(SCENARIO, games=5)
    lines = deepsim.trace(SCENARIO, 4)
    glory = sim.seats.loc[sim.seats["game"] == 4, "glory"].tolist()
    tail = [ln for ln in lines if " Glory (rooms" in ln]
    assert [float(t.split(": ")[1].split(" Glory")[0]) for t in tail] == glory


def test_trace_records_are_the_json_trace_and_end_with_the_batch_row():
    sim = deepsim.simulate(SCENARIO, games=5)
    recs = deepsim.trace(SCENARIO, 4, records=True)
    assert recs[0]["type"] == "header" and recs[-1]["type"] == "result"
    assert {r["type"] for r in recs[1:-1]} == {"event"}
    glory = sim.seats.loc[sim.seats["game"] == 4, "glory"].tolist()
    assert [s["glory"] for s in recs[-1]["seats"]] == pytest.approx(glory)
    with pytest.raises(InputError, match="no record trace"):
        deepsim.trace({"ruleset": "abyss", "players": 3, "games": 1}, 0, records=True)


def test_trace_of_a_run_folder_replays_its_recorded_overrides(tmp_path):
    sim = deepsim.simulate(SCENARIO, games=5, out=tmp_path / "run",
                           overrides={"maw.steps_per_floor": 1})
    assert deepsim.trace(tmp_path / "run", 3) == deepsim.trace(
        SCENARIO, 3, overrides={"maw.steps_per_floor": 1})
    assert deepsim.trace(tmp_path / "run", 3) != deepsim.trace(SCENARIO, 3)
    recs = deepsim.trace(str(tmp_path / "run"), 4, records=True)
    glory = sim.seats.loc[sim.seats["game"] == 4, "glory"].tolist()
    assert [s["glory"] for s in recs[-1]["seats"]] == pytest.approx(glory)
    with pytest.raises(InputError, match="not in this run"):
        deepsim.trace(tmp_path / "run", 5)
    with pytest.raises(InputError, match="run directory replays its own"):
        deepsim.trace(tmp_path / "run", 0, seed=3)


def test_statistics_are_the_reports():
    _, s = deepsim.simulate(SCENARIO)
    t = deepsim.win_shares(s, by="calling")
    assert {"win_share", "ci_low", "ci_high", "ratio", "verdict"} <= set(t.columns)
    assert (t["ci_low"] <= t["win_share"]).all() and (t["win_share"] <= t["ci_high"]).all()
    assert set(deepsim.seat_advantage(s)["seat"]) == {1, 2, 3}


@pytest.mark.parametrize("bad,match", [
    ({"players": 3}, "ruleset"),
    ({**SCENARIO, "players": 9}, "players"),
    ({**SCENARIO, "bots": ["greedyy"]}, "greedy"),
    (42, "file path or a mapping"),
])
def test_bad_input_raises_input_error(bad, match):
    with pytest.raises(InputError, match=match):
        deepsim.simulate(bad)


def test_bad_override_and_game_index():
    with pytest.raises(InputError, match="maw.steps_per_flor|steps_per_floor"):
        deepsim.simulate(SCENARIO, overrides={"maw.steps_per_flor": 1})
    with pytest.raises(InputError, match="game index"):
        deepsim.trace(SCENARIO, -1)


def test_estimate_and_paired_change_speak_the_metric_language():
    a = deepsim.simulate(SCENARIO, games=600)
    b = deepsim.simulate(SCENARIO, games=600,
                         overrides={"callings.wardancer.worthy_end_multiplier": 1.5})
    est = deepsim.estimate(a, "win_share[calling]")
    assert len(est) == 6 and (est["unit"] == "%").all()
    assert ((est["low"] <= est["value"]) & (est["value"] <= est["high"])).all()
    ch = deepsim.paired_change(a, b, "win_share[calling=Wardancer]")
    assert len(ch) == 1 and bool(ch["paired"].iloc[0]) and ch["unit"].iloc[0] == "pp"
    row = ch.iloc[0]
    assert row["change"] == pytest.approx(row["b"] - row["a"])
    assert row["low"] < row["change"] < row["high"] < 0   # a nerf: paired games see it
    # bare frames need the ruleset; an unknown member names the known ones
    with pytest.raises(InputError, match="ruleset"):
        deepsim.estimate((a.games, a.seats), "rounds")
    assert len(deepsim.estimate((a.games, a.seats), "rounds", ruleset="deepfall")) == 1
    with pytest.raises(InputError, match="Wardancer"):
        deepsim.estimate(a, "win_share[calling=Wardancr]")
    # different seeds: compared unpaired
    c = deepsim.simulate(SCENARIO, games=600, seed=6)
    assert not bool(deepsim.paired_change(a, c, "rounds")["paired"].iloc[0])
