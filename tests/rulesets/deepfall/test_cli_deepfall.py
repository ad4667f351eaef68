"""`deepsim run` and `deepsim trace` on the real DEEPFALL ruleset, a few hundred games."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.output import read_run

runner = CliRunner()


def test_run_then_trace_a_game_of_it(tmp_path):
    out = tmp_path / "run"
    res = runner.invoke(app, ["run", "scenarios/deepfall-4p.yaml", "--games", "300",
                              "--chunk-size", "128", "--seed", "4", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Win share per company" in res.output
    assert "Placeholder data" in res.output
    games, seats = read_run(out)
    assert len(games) == 300 and len(seats) == 1200
    assert sorted(games["game"]) == list(range(300))
    k = 123
    res = runner.invoke(app, ["trace", str(out), "--game", str(k)])
    assert res.exit_code == 0, res.output
    text = res.output
    assert text.count("COLLAPSES") == 6
    # the trace's final Glory per seat equals the batch's row for game k
    final = re.findall(r"^  S(\d) .*?: ([0-9.]+) Glory \(rooms", text, flags=re.MULTILINE)
    row = seats[seats["game"] == k].sort_values("seat")
    assert [float(g) for _, g in final] == list(row["glory"])


@pytest.mark.slow
def test_run_with_overrides_changes_results_and_records_them(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    base = ["run", "scenarios/deepfall-4p.yaml", "--games", "200", "--seed", "1", "--quiet"]
    assert runner.invoke(app, base + ["--out", str(a)]).exit_code == 0
    res = runner.invoke(app, base + ["--out", str(b), "--set", "exits.cash_out_dividend=6"])
    assert res.exit_code == 0, res.output
    ga, sa = read_run(a)
    gb, sb = read_run(b)
    assert not sa["glory"].equals(sb["glory"])
    import json
    info = json.loads((b / "run.json").read_text())
    assert info["params"]["exits"]["cash_out_dividend"] == 6
    assert info["overrides"] == ["exits.cash_out_dividend=6"]
    pd.testing.assert_series_equal(ga["players"], gb["players"])


def test_params_lists_every_path():
    res = runner.invoke(app, ["params", "deepfall", "--match", "dvergar.threat_ignore"])
    assert res.exit_code == 0, res.output
    assert "lineages.dvergar.threat_ignore" in res.output
    res = runner.invoke(app, ["params", "deepfal"])
    assert res.exit_code == 2 and "deepfall" in res.output
