"""The admissible-play study (deepsim/studies/deepfall_fields.py): the settings each
knob is tried at, the admissibility rule on synthetic wins whose answer is known (and its
error rates by simulation), how a claim reads over the fields (fabricated frames), bad
input, and a tiny real run's determinism."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from deepsim.errors import InputError
from deepsim.studies.deepfall_fields import (
    BEST,
    FIXED_FIELDS,
    admissible_fields,
    claim_reading,
    draw_fields,
    fields_md,
    joint_draws,
    judge_settings,
    one_at_a_time,
    rejudge_found,
)

KNOBS = [SimpleNamespace(name="press_max", type="int", low=0, high=8),
         SimpleNamespace(name="contest", type="bool", low=0, high=1),
         SimpleNamespace(name="maw_margin", type="float", low=0.0, high=3.0),
         SimpleNamespace(name="cash_loot", type="float", low=0.0, high=1000.0)]
BEST_KNOBS = {"press_max": 2.0, "contest": 1.0, "maw_margin": 1.0, "cash_loot": 1000.0,
              "random": 0.0}


def test_one_knob_at_a_time_covers_each_knob_within_its_bounds():
    got = one_at_a_time(BEST_KNOBS, KNOBS)
    by = {}
    for label, knob, values in got:
        moved = [k for k in BEST_KNOBS if values[k] != BEST_KNOBS[k]]
        assert moved == [knob]                       # exactly the one knob moves
        assert label == f"{knob}={values[knob]:g}"
        by.setdefault(knob, []).append(values[knob])
    assert by["press_max"] == [0, 1, 3, 4, 5, 6, 7, 8]      # every whole value but 2
    assert by["contest"] == [0]
    assert by["maw_margin"] == [0.0, 0.5, 2.0, 3.0]          # bounds and the midpoints
    assert by["cash_loot"] == [0.0, 500.0]                   # the best is the top bound


def test_joint_draws_are_a_seeded_latin_hypercube_inside_the_ranges():
    ranges = {"press_max": (1, 4), "contest": (0, 1), "maw_margin": (0.5, 2.0)}
    a = joint_draws(BEST_KNOBS, KNOBS, ranges, 8, seed=3)
    assert a == joint_draws(BEST_KNOBS, KNOBS, ranges, 8, seed=3)
    assert a != joint_draws(BEST_KNOBS, KNOBS, ranges, 8, seed=4)
    assert [label for label, _ in a] == [f"joint {i}" for i in range(1, 9)]
    pm = sorted(v["press_max"] for _, v in a)
    assert pm == [1, 1, 2, 2, 3, 3, 4, 4]            # each whole value an equal stratum
    assert sorted(v["contest"] for _, v in a) == [0] * 4 + [1] * 4
    mm = sorted(v["maw_margin"] for _, v in a)
    assert all(0.5 <= x <= 2.0 for x in mm)
    assert all(0.5 + i * 0.1875 <= x < 0.5 + (i + 1) * 0.1875 for i, x in enumerate(mm))
    assert all(v["cash_loot"] == 1000.0 for _, v in a)       # not in ranges: kept
    assert joint_draws(BEST_KNOBS, KNOBS, ranges, 0, seed=3) == []


def test_admissibility_on_synthetic_wins_with_a_known_answer():
    rng = np.random.default_rng(0)
    ref = (rng.random(1000) < 0.3).astype(float)
    won = np.flatnonzero(ref == 1)
    lost = np.flatnonzero(ref == 0)

    def minus(k):          # the reference with k of its wins turned into losses
        w = ref.copy()
        w[won[:k]] = 0
        return w

    plus = ref.copy()
    plus[lost[:50]] = 1
    t = judge_settings({BEST: ref, "same": ref.copy(), "-20": minus(20), "-21": minus(21),
                        "-60": minus(60), "+50": plus}).set_index("label")
    assert t.loc["-20", "diff"] == pytest.approx(-0.020)
    assert t.loc["-21", "diff"] == pytest.approx(-0.021)
    assert list(t["admissible"]) == [True, True, True, False, False, True]
    assert t.loc[BEST, "diff"] == 0 and t.loc["same", "diff_low"] == 0
    # the interval decides the strict and lenient counts, the point estimate admissibility
    assert not t.loc["-20", "strict"] and t.loc["-21", "lenient"]
    assert not t.loc["-60", "lenient"] and t.loc["+50", "strict"]
    with pytest.raises(InputError, match="no setting named"):
        judge_settings({"x": ref})
    with pytest.raises(InputError, match="the reference has 1000"):
        judge_settings({BEST: ref, "short": ref[:10]})


def test_admissibility_error_rates_by_simulation():
    """At 2,000 paired seat-games a setting as good as the best response is refused, and
    one 5 points worse admitted, in under 1% of 400 synthetic runs each (paired wins with
    a shared component, win rate ~0.3)."""
    rng = np.random.default_rng(1)
    n, reps = 2000, 400
    wrong_refused = wrong_admitted = 0
    for _ in range(reps):
        u = rng.random(n)
        ref = (u < 0.30).astype(float)
        same = ((u + rng.normal(0, 0.1, n)) < 0.30).astype(float)
        worse = ((u + rng.normal(0, 0.1, n)) < 0.25).astype(float)
        t = judge_settings({BEST: ref, "same": same, "worse": worse}).set_index("label")
        wrong_refused += not t.loc["same", "admissible"]
        wrong_admitted += bool(t.loc["worse", "admissible"])
    assert wrong_refused / reps < 0.01 and wrong_admitted / reps < 0.01


def test_against_the_best_setting_found_the_rule_is_stricter():
    t = pd.DataFrame({"faction": ["A"] * 4 + ["B"] * 3,
                      "label": [BEST, "x", "y", "z", BEST, "x", "y"],
                      "diff": [0.0, 0.05, 0.035, 0.02, 0.0, -0.01, -0.03]})
    t["admissible"] = t["diff"] >= -0.02
    r = rejudge_found(t)
    # A: its best setting is +0.05, so the best response (0) and z (+0.02) drop out
    assert list(r["admissible"]) == [False, True, True, False, True, True, False]
    assert list(r["top"]) == [0.05] * 4 + [0.0] * 3     # B: nothing beat the response
    assert list(t["admissible"]) == [True] * 6 + [False]  # the input is not changed


def test_fields_are_drawn_from_the_admissible_settings_seeded():
    adm = {"A": [BEST, "press_max=3", "joint 2"], "B": [BEST]}
    a = draw_fields(adm, 20, seed=5)
    assert a == draw_fields(adm, 20, seed=5) and len(a) == 20
    assert {p["A"] for p in a} == {"press_max=3", "joint 2"}    # never the best itself
    assert {p["B"] for p in a} == {BEST}                         # unless it is the only one
    assert draw_fields(adm, 0, seed=5) == []


def test_claim_reading_names_the_fields_that_break_it():
    rates = {"least": 0.8, "most": 1.2, "field 1": 0.9, "field 2": 1.1}
    every = dict.fromkeys(rates, True)
    assert claim_reading(every, rates).startswith(
        "holds for fields whose every company plays within 2 points of its best response "
        "(4 of 4 tried)")
    assert claim_reading(dict.fromkeys(rates, False), rates, shipped=True) == (
        "holds in no admissible field tried (only with the shipped styles)")
    low = {"least": True, "most": False, "field 1": True, "field 2": False}
    assert claim_reading(low, rates) == (
        "holds in 2 of 4; breaks in most, field 2 (holds for admissible fields pressing on "
        "at most 0.900 Press Ons per player-turn)")
    mixed = {"least": True, "most": True, "field 1": False, "field 2": True}
    assert claim_reading(mixed, rates) == "holds in 3 of 4; breaks in field 1"


def _frames():
    knobs = {"press_max": 2.0, "contest": 1.0}
    settings = pd.DataFrame([
        {"faction": f, "label": lab, "kind": kind, "knob": knob, **knobs, **over,
         "win": 0.3 + d, "press_per_turn": 1.0, "diff": d, "diff_low": d - 0.01,
         "diff_high": d + 0.01, "admissible": d >= -0.02, "strict": d - 0.01 >= -0.02,
         "lenient": True, "seat_games": 20}
        for f in ("Wisp Reaver", "Gnoll Warden")
        for lab, kind, knob, over, d in (
            (BEST, "best", "", {}, 0.0),
            ("press_max=0", "alone", "press_max", {"press_max": 0.0}, -0.10),
            ("contest=0", "alone", "contest", {"contest": 0.0}, -0.015),
            ("joint 1", "joint", "", {"press_max": 3.0, "contest": 0.0}, -0.03))])
    verdicts = {  # claim -> verdict per field (shipped, BR, least, most, field 1, field 2)
        "B1": ("fails", "fails", "holds", "fails", "holds", "fails"),
        "B4": ("holds",) * 6,
        "B6": ("holds", "fails", "fails", "fails", "fails", "fails"),
        "B7": ("fails", "holds", "holds", "holds", "inconclusive", "holds")}
    names = [*FIXED_FIELDS, "field 1", "field 2"]
    rate = dict(zip(names, (0.9, 0.8, 0.3, 1.1, 0.5, 1.0), strict=True))
    claims = pd.DataFrame([
        {"field": f, "claim": c, "verdict": v[i], "distance": 0.0 if v[i] == "holds" else 1.0,
         "press_per_turn": rate[f], "rounds_2p": 8.0 + i, "rounds_6p": 6.0 + i}
        for c, v in verdicts.items() for i, f in enumerate(names)])
    members = pd.DataFrame([{"field": f, "faction": "Wisp Reaver", "label": BEST}
                            for f in names[2:]])
    budget = {"trials": 2, "search_games": 10, "eval_games": 20, "joint": 1, "fields": 2,
              "sample_seed": 0, "confirm_games": 60, "seed": 7, "confirm_seed": 8,
              "knobs": ["press_max", "contest"],
              "bounds": {"press_max": [0, 8], "contest": [0, 1]},
              "games_played": 1000, "wall_s": 60.0, "cpu_s": 30.0}
    return settings, members, claims, budget


def test_fields_md_reads_each_claim_over_the_admissible_fields():
    settings, members, claims, budget = _frames()
    md = fields_md(settings, members, claims, budget=budget)
    assert "| press_max | 0-8 | 1.0 a company | 0 of 2 | 0 of 2 |" in md
    assert "| contest | 0-1 | 1.0 a company | 2 of 2 | 2 of 2 |" in md
    assert "Joint settings admissible: 0 of 2" in md
    assert "admissible for 0 of 2 companies" in md
    rows = {line.split(" | ")[0][2:]: line for line in md.splitlines()
            if line.startswith("| B")}
    assert rows["B4"].endswith("(4 of 4 tried) |") and "| 4 of 4 |" in rows["B4"]
    assert "| 2 of 4 | holds in 2 of 4; breaks in most pressing admissible, field 2 " \
           "(holds for admissible fields pressing on at most 0.500" in rows["B1"]
    assert "holds in no admissible field tried (only with the shipped styles)" in rows["B6"]
    assert "breaks in field 1 [inconclusive: 1]" in rows["B7"]
    assert "| least pressing admissible | 0.300 | 10.00 | 8.00 |" in md
    assert "| 2 drawn fields (range) | 0.500-1.000 | 12.00-13.00 | 10.00-11.00 |" in md


def test_bad_input_exits_2_before_any_game(tmp_path, capsys):
    from deepsim.studies.deepfall_fields import main

    out = str(tmp_path / "o")
    for args, message in ((["--tune", str(tmp_path)], "give --tune and --trial together"),
                          (["--tune", str(tmp_path), "--trial", "best"],
                           "not a finished claims tune"),
                          (["--trials", "0"], "expected a whole number >= 1"),
                          (["--eval-games", "0"], "expected a whole number >= 1"),
                          (["--joint", "-1"], "expected a whole number >= 0"),
                          (["--fields", "-2"], "expected a whole number >= 0"),
                          (["--md-only"], "not a finished fields run"),
                          (["--reuse-settings", str(tmp_path)], "not a finished fields run")):
        assert main([*args, "--out", out]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    run = tmp_path / "run"                  # settings of another budget are refused
    run.mkdir()
    pd.DataFrame({"faction": ["A"]}).to_parquet(run / "fields_settings.parquet")
    (run / "fields.json").write_text('{"sets": [], "trials": 20, "search_games": 500, '
                                     '"eval_games": 2000, "joint": 24, "sample_seed": 0}')
    assert main(["--reuse-settings", str(run), "--eval-games", "100", "--out", out]) == 2
    assert "made with another eval_games (eval_games=2000)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--reference", "worst", "--out", out])
    assert not (tmp_path / "o").exists()


def test_a_tiny_run_is_the_same_twice():
    kw = {"trials": 1, "search_games": 10, "eval_games": 30, "joint": 2, "fields": 2,
          "confirm_games": 40, "companies": ["wisp reaver"]}
    a = admissible_fields(**kw)
    b = admissible_fields(**kw)
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x, y)
    settings, members, claims = a
    assert set(settings["faction"]) == {"Wisp Reaver"}
    assert (settings["kind"] == "best").sum() == 1 and (settings["kind"] == "joint").sum() == 2
    assert settings.loc[settings["kind"] == "best", "diff"].eq(0).all()
    assert settings["admissible"].eq(settings["diff"] >= -0.02 - 1e-12).all()
    assert set(claims["field"]) == {*FIXED_FIELDS, "field 1", "field 2"}
    ok = set(settings.loc[settings["admissible"], "label"])
    assert set(members.loc[members["faction"] == "Wisp Reaver", "label"]) <= ok
    assert set(members["faction"]) == {"Wisp Reaver"}    # the others: best responses
