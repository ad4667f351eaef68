"""A game a safety cap stops is unresolved (the contract's one rule, deepsim.rulesets.base).

On DEEPFALL's round cap (``end.max_rounds``, A39): the cap only stops a game early (a game
that ends within it is played exactly as without it); a game that would go on is stopped
after ``end.max_rounds`` rounds, flagged ``truncated``, has ``win`` NaN on every seat (no
win, loss or draw), is counted in the run summary's headline and left out of its win
shares; the cap is flagged as invented data in the banner and ``run.json``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.output import read_run

ROOT = Path(__file__).resolve().parents[2]
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
    found = re.search(r"Stopped by a safety cap: ([\d,]+) \(([\d,]+) unresolved\)", output)
    assert found, output
    assert found.group(1) == found.group(2)          # DEEPFALL adjudicates nothing
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


def test_a_capped_game_is_unresolved_everywhere(tmp_path):
    """win NaN on its seats, left out of the win shares and the margins, counted in the
    headline with its cap, the cap flagged as invented in the banner and run.json."""
    import json

    import numpy as np

    from deepsim import stats
    from deepsim.reporting import report_runs

    free_out, free = _run(tmp_path / "free")
    cap = int(free["rounds"].median())
    out, games = _run(tmp_path / "mixed", f"end.max_rounds={cap}")
    _, seats = read_run(tmp_path / "mixed", require_complete=True)
    stopped = games.index[games["truncated"]]
    assert 0 < len(stopped) < len(games)
    win = seats.set_index("game")["win"]
    assert win.loc[stopped].isna().all()
    assert win.drop(index=stopped).notna().all()
    sums = seats[~seats["game"].isin(stopped)].groupby("game")["win"].sum()
    assert np.allclose(sums, 1.0)
    # the shares count only the games that ended
    ws = stats.win_shares(seats, by="company")
    assert int(ws["games"].sum()) == int(seats["game"].isin(games.index[~games["truncated"]])
                                         .sum())
    share = len(stopped) / len(games)
    assert f"Unresolved: {100 * share:.1f}% of games ({len(stopped)} of 60)" in out
    assert f"the {cap} round cap (end.max_rounds)" in out
    assert "Invented safety caps" in out and f"end.max_rounds = {cap} rounds" in out
    info = json.loads((tmp_path / "mixed" / "run.json").read_text())
    assert info["safety_caps"] == [{"path": "end.max_rounds", "value": cap, "unit": "round",
                                    "invented": True}]
    # the report's headline counts them too, and warns above 1%
    rep, _ = report_runs([tmp_path / "mixed"], out_dir=tmp_path / "rep", formats=("md",))
    head = next(s for s in rep.sections if s.key == "headline")
    text = " ".join(head.paragraphs)
    assert f"Unresolved: {100 * share:.1f}% of games" in text and "Warning" in text
    # a run without a stopped game says none and warns of nothing
    assert "Unresolved: 0.0% of games (0 of 60)" in free_out
