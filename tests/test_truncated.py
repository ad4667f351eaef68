"""A DEEPFALL game stopped by the round cap (``end.max_rounds``, A39) is counted as truncated.

The cap only stops a game early: a game that ends within it is played exactly as without
it, and a game that would go on is stopped after ``end.max_rounds`` rounds, flagged
``truncated`` in the games table and counted in the run summary.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.output import read_run

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "deepfall-4p.yaml"
cli = CliRunner(env={"COLUMNS": "200"})


def _run(out: Path, *sets: str) -> tuple[str, pd.DataFrame]:
    args = ["run", str(SCENARIO), "--games", "60", "--chunk-size", "25", "--threads", "1",
            "--out", str(out), "--no-report"]
    for s in sets:
        args += ["--set", s]
    res = cli.invoke(app, args)
    assert res.exit_code == 0, res.output
    games, _ = read_run(out, require_complete=True)
    return res.output, games.set_index("game")


def _summary_count(output: str) -> int:
    found = re.search(r"Truncated games \(stopped by the game-length cap\): ([\d,]+)", output)
    assert found, output
    return int(found.group(1).replace(",", ""))


def test_round_cap_truncates_and_is_counted(tmp_path):
    out, free = _run(tmp_path / "free")
    assert not free["truncated"].any() and (free["floors_collapsed"] == 6).all()
    assert _summary_count(out) == 0

    # a cap below every game's length: every game is truncated at the cap
    out, capped = _run(tmp_path / "cap3", "end.max_rounds=3")
    assert capped["truncated"].all()
    assert (capped["rounds"] == 3).all() and (capped["floors_collapsed"] < 6).all()
    assert _summary_count(out) == len(capped) == 60

    # a cap inside the range of game lengths: exactly the longer games are truncated
    cap = int(free["rounds"].max()) - 1
    assert free["rounds"].min() <= cap
    out, mixed = _run(tmp_path / "mixed", f"end.max_rounds={cap}")
    longer = free["rounds"] > cap
    assert 0 < longer.sum() < len(free)
    pd.testing.assert_series_equal(mixed["truncated"], longer, check_names=False)
    assert (mixed.loc[longer, "rounds"] == cap).all()
    assert (mixed.loc[longer, "floors_collapsed"] < 6).all()
    # games that end within the cap are the very same games
    pd.testing.assert_frame_equal(mixed.loc[~longer], free.loc[~longer])
    assert _summary_count(out) == int(longer.sum())
