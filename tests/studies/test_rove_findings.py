"""The Rove study's page writer (deepsim/studies/rove_findings.py): paired differences on
synthetic runs whose answer is known, the Rover-count verdict both ways, and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from deepsim.errors import InputError
from deepsim.report.load import RunData
from deepsim.studies import rove_findings as F


def _run(won, rovers, seed=1, name="base") -> RunData:
    n = len(won)
    games = pd.DataFrame({"game": np.arange(n), "won": np.asarray(won, bool),
                          "rovers": np.asarray(rovers, np.int64),
                          "placed": np.asarray(rovers, np.int64) + 1,
                          "outcome": pd.Categorical(np.where(won, "victory", "round_limit"))})
    return RunData(path=Path(name), info={}, manifest={"seed": seed}, games=games,
                   seats=pd.DataFrame(), params={"party.target_win_rate": 0.5})


def test_paired_difference_of_identical_and_shifted_runs():
    """Same games: 0 with a zero-width interval. A variant that wins 10% more of the same
    games (paired): +10 points, an interval around it far narrower than unpaired."""
    rng = np.random.default_rng(3)
    n = 4000
    won = rng.random(n) < 0.4
    rovers = rng.integers(2, 5, n)
    base = _run(won, rovers)
    assert F.paired(base, _run(won, rovers, name="same"))[:3] == (0.0, 0.0, 0.0)
    flip = (~won) & (np.arange(n) % 6 == 0)           # a sixth of the losses become wins
    est, lo, hi, games = F.paired(base, _run(won | flip, rovers, name="up"))
    assert games == n
    assert est == pytest.approx(100 * flip.mean())
    assert lo < est < hi and hi - lo < 3.0
    e3, *_ , n3 = F.paired(base, _run(won | flip, rovers, name="up"), rovers=3)
    assert n3 == int((rovers == 3).sum()) and e3 > 0


def test_paired_refuses_runs_that_are_not_the_same_games():
    rng = np.random.default_rng(4)
    won, rovers = rng.random(100) < 0.5, rng.integers(2, 5, 100)
    with pytest.raises(InputError, match="not paired"):
        F.paired(_run(won, rovers), _run(won, rovers, seed=2, name="other"))
    with pytest.raises(InputError, match="other Rover counts"):
        F.paired(_run(won, rovers), _run(won, np.roll(rovers, 1), name="other"))


def test_rover_count_verdict_reads_level_only_when_it_is():
    """Equal rates at 2-4 Rovers: level; 20% against 50%: not level."""
    rng = np.random.default_rng(5)
    n = 6000
    rovers = np.repeat([2, 3, 4], n // 3)
    level = F.q_rovers(_run(rng.random(n) < 0.5, rovers))
    assert any("it keeps the encounter level" in line for line in level)
    p = np.where(rovers == 2, 0.2, 0.5)
    steep = F.q_rovers(_run(rng.random(n) < p, rovers))
    assert any("does not keep this encounter level" in line for line in steep)


def test_the_page_writer_refuses_a_missing_run(tmp_path, capsys):
    (tmp_path / "base").mkdir()
    assert F.main([str(tmp_path), "--out", str(tmp_path / "p.md")]) == 2
    assert not (tmp_path / "p.md").exists()
    assert "error: " in capsys.readouterr().err


def test_the_page_is_written_from_the_runs(tmp_path):
    """make rove-findings in small: the base run and every variant (paired, one --set
    each), then the page: every question's section, each run listed with its override,
    every answer with its caveat line, the adversaries named from the run's content."""
    from typer.testing import CliRunner

    from deepsim.cli import app
    cli = CliRunner()
    runs = [("base", None)] + [(key, over) for key, over, *_ in F.VARIANTS]
    for key, over in runs:
        args = ["run", "scenarios/rove.yaml", "--games", "240", "--out", str(tmp_path / key),
                "--quiet", "--no-report"] + (["--set", over] if over else [])
        res = cli.invoke(app, args)
        assert res.exit_code == 0, res.output
    out = tmp_path / "README.md"
    assert F.main([str(tmp_path), "--out", str(out)]) == 0
    text = out.read_text()
    for head in ("## Q1", "## Q2", "## Q4", "## Q5", "## Q6", "## Q9", "## Response checks",
                 "## Skipped rules"):
        assert head in text
    for key, over, *_ in F.VARIANTS:
        assert f"`{key}`" in text and f"--set {over}" in text
    assert text.count("*Rests on ") == 7 and "`encounters.skirmish`" in text
    assert "Iron Jaw" in text and "zinix" in text
