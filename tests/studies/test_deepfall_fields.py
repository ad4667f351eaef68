"""The admissible-pressing study (deepsim/studies/deepfall_fields.py): how a claim reads
over the fields (fabricated frames), and a tiny real run's tables."""

from __future__ import annotations

import pandas as pd
import pytest

from deepsim.studies.deepfall_fields import FIELDS, admissible_fields, fields_md

BUDGET = {"trials": 2, "search_games": 10, "eval_games": 20, "confirm_games": 60, "seed": 7,
          "confirm_seed": 8, "grid": [0, 8], "games_played": 1000, "wall_s": 60.0,
          "cpu_s": 30.0}


def _frames():
    press = pd.DataFrame([
        {"faction": f, "press_max": p, "found": p == 2, "win": w, "press_per_turn": p / 8,
         "diff": d, "diff_low": d - 0.01, "diff_high": d + 0.01, "admissible": d >= -0.02,
         "seat_games": 20}
        for f, rows in (("Wisp Reaver", ((0, 0.20, -0.10), (2, 0.30, 0.0), (8, 0.29, -0.01))),
                        ("Gnoll Warden", ((0, 0.25, -0.01), (2, 0.26, 0.0), (8, 0.22, -0.04))))
        for p, w, d in rows])
    verdicts = {  # claim -> verdict per field (shipped, BR, least, most)
        "B1": ("fails", "fails", "holds", "fails"),
        "B4": ("holds", "holds", "holds", "holds"),
        "B6": ("holds", "fails", "fails", "fails"),
        "B7": ("fails", "holds", "fails", "holds")}
    rate = dict(zip(FIELDS, (0.9, 0.8, 0.3, 1.1), strict=True))
    claims = pd.DataFrame([
        {"field": f, "claim": c, "verdict": v[i], "distance": 0.0 if v[i] == "holds" else 1.0,
         "press_per_turn": rate[f], "rounds_2p": 8.0 + i, "rounds_6p": 6.0 + i}
        for c, v in verdicts.items() for i, f in enumerate(FIELDS)])
    return press, claims


def test_fields_md_reads_each_claim_over_the_admissible_fields():
    press, claims = _frames()
    md = fields_md(press, claims, budget=BUDGET)
    assert "| 0-8 | 1: Wisp Reaver | 2 |" not in md   # Wisp Reaver's 0 is not admissible
    assert "| 2-8 | 1: Wisp Reaver | 2 |" in md and "| 0-2 | 1: Gnoll Warden | 2 |" in md
    assert "admissible for 1 of 2 companies" in md
    rows = {line.split(" | ")[0][2:]: line for line in md.splitlines()
            if line.startswith("| B")}
    assert rows["B4"].endswith("holds for every admissible field tried |")
    assert "press on little (at most 0.30 Press Ons per player-turn)" in rows["B1"]
    assert "holds in no admissible field tried (only with the shipped styles)" in rows["B6"]
    assert "press on much (1.10" in rows["B7"]
    assert "| least pressing admissible | 0.300 | 10.00 | 8.00 |" in md


@pytest.mark.slow
def test_a_tiny_run_tries_every_value_for_every_company():
    press, claims = admissible_fields(trials=1, search_games=10, eval_games=20,
                                      confirm_games=60, grid=(0, 8))
    assert press["faction"].nunique() == 36
    per = press.groupby("faction")
    assert (per["admissible"].any()).all()            # the best value always is
    assert (per["found"].sum() == 1).all()
    assert (per["diff"].max() == 0).all()
    assert set(press["press_max"]) >= {0, 8}
    assert set(claims["field"]) == set(FIELDS)
    assert claims.groupby("field")["claim"].nunique().nunique() == 1
    md = fields_md(press, claims, budget=BUDGET)
    assert md.count("| B") >= 8


def test_bad_input_exits_2_before_any_game(tmp_path, capsys):
    from deepsim.studies.deepfall_fields import main

    out = str(tmp_path / "o")
    for args, message in ((["--tune", str(tmp_path)], "give --tune and --trial together"),
                          (["--tune", str(tmp_path), "--trial", "best"],
                           "not a finished claims tune"),
                          (["--trials", "0"], "expected a whole number >= 1")):
        assert main([*args, "--out", out]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()

