"""Bot data (deepsim.botdata): knob bounds, baseline styles, seats without baselines."""

from __future__ import annotations

import textwrap

import numpy as np
import optuna
import pandas as pd
import pytest

from deepsim.botdata import load_bot_data, split_baseline
from deepsim.errors import InputError
from deepsim.rulesets import atlantis, deepfall
from deepsim.rulesets.atlantis import layout as AL
from deepsim.rulesets.deepfall import layout as DL


@pytest.mark.parametrize("mod, layout, baseline", [
    (deepfall, DL, ("random", "cautious")),
    (atlantis, AL, ("random",)),
])
def test_shipped_bot_data_bounds_every_knob_and_marks_the_baselines(mod, layout, baseline):
    data = mod.bot_data()
    assert tuple(data.knobs) == layout.KNOBS              # every knob the kernel reads
    assert data.baseline_styles == baseline
    for style in data.styles.values():
        for name, value in style.knobs.items():
            assert data.knobs[name].problem(value) is None, (style.name, name, value)
    assert not data.knobs["random"].search               # the switch is not a setting
    assert "random" not in [k.name for k in data.searchable()]
    assert mod.RULESET.bot_data() is data
    # a search draws from the bounds
    for k in data.searchable():
        d = k.distribution()
        if k.type == "float":
            assert (d.low, d.high) == (k.low, k.high)
        elif k.type == "int":
            assert isinstance(d, optuna.distributions.IntDistribution)
        else:
            assert d.choices == (0, 1)
    with pytest.raises(ValueError, match="not searchable"):
        data.knobs["random"].distribution()


def _write(tmp_path, text):
    p = tmp_path / "bots.yaml"
    p.write_text(textwrap.dedent(text))
    return p


GOOD = """\
knobs:
  a: {type: int, low: 0, high: 4}
  b: {type: float, low: 0.5, high: 2, default: 1}
  c: {type: bool}
styles:
  base: {baseline: true, doc: yardstick, c: 1}
  x: {a: 3, b: 0.5}
"""


def test_load_fills_defaults_and_reads_baseline(tmp_path):
    data = load_bot_data(_write(tmp_path, GOOD), ("a", "b", "c"))
    assert data.values() == {"base": {"a": 0.0, "b": 1.0, "c": 1.0},
                             "x": {"a": 3.0, "b": 0.5, "c": 0.0}}
    assert data.baseline_styles == ("base",)
    assert data.styles["base"].doc == "yardstick"
    assert [r["knob"] for r in data.table()] == ["a", "b", "c"]


@pytest.mark.parametrize("text, knobs, fragment", [
    (GOOD, ("a", "b", "c", "d"), "the bots read knobs d, which the knobs: block"),
    (GOOD, ("a", "b"), "key 'knobs.c': unknown knob"),
    (GOOD.replace("high: 4}", "high: -1}"), ("a", "b", "c"), "low 0 is above high -1"),
    (GOOD.replace("high: 4}", "high: 4.5}"), ("a", "b", "c"), "whole-number bounds"),
    (GOOD.replace("{type: bool}", "{type: bool, low: 0, high: 2}"), ("a", "b", "c"),
     "a bool knob is 0 or 1"),
    (GOOD.replace("{type: int, low: 0, high: 4}", "{type: int, low: 0}"), ("a", "b", "c"),
     "needs both low and high"),
    (GOOD.replace("default: 1}", "default: 3}"), ("a", "b", "c"),
     "key 'knobs.b.default'"),
    (GOOD.replace("a: 3,", "a: 5,"), ("a", "b", "c"),
     "key 'styles.x.a': a 5 is outside its bounds [0, 4] (int knob"),
    (GOOD.replace("a: 3,", "a: 2.5,"), ("a", "b", "c"), "expected a whole number, got 2.5"),
    (GOOD.replace("c: 1}", "c: 0.5}"), ("a", "b", "c"), "expected 0 or 1"),
    (GOOD.replace("a: 3,", "e: 3,"), ("a", "b", "c"), "key 'styles.x.e': unknown knob"),
    (GOOD.replace("baseline: true", "baseline: 2"), ("a", "b", "c"),
     "baseline is true or false"),
    (GOOD.replace("type: float", "type: real"), ("a", "b", "c"), "knobs.b.type"),
])
def test_bad_bot_data_is_refused_with_file_line_and_key(tmp_path, text, knobs, fragment):
    p = _write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_bot_data(p, knobs)
    assert fragment in str(err.value) and str(p) in str(err.value)


def test_check_names_the_scenario_line_and_bounds(tmp_path):
    data = load_bot_data(_write(tmp_path, GOOD), ("a", "b", "c"))
    assert data.check({"a": 2, "b": 0.75}, file="s.yaml", key="seats.0.knobs") == \
        {"a": 2.0, "b": 0.75}
    with pytest.raises(InputError) as err:
        data.check({"b": 9}, file="s.yaml", key="seats.1.knobs",
                   lines={"seats.1.knobs.b": 12})
    assert str(err.value).startswith("s.yaml:12, key 'seats.1.knobs.b' (seat 2): b 9 is outside "
                                     "its bounds [0.5, 2] (float knob)")


def _seats(rows):
    return pd.DataFrame(rows, columns=["game", "players", "bot", "company", "win", "fair"])


def test_split_baseline_renormalises_the_fair_share_among_the_seats_kept():
    # 3-player games: random seats lose, so the kept seats win more than 1/3 on average
    rows = []
    for g in range(6):
        winner = g % 2                       # seats 0 and 1 share the wins, seat 2 never
        for s, bot in enumerate(("greedy", "martyr", "random")):
            rows.append((g, 3, bot, f"C{s}", float(s == winner), 1 / 3))
    # 2-player games without a baseline seat keep their fair share
    for g in range(6, 8):
        rows += [(g, 2, "greedy", "C0", 1.0, 0.5), (g, 2, "martyr", "C1", 0.0, 0.5)]
    seats = _seats(rows)
    kept, left_out = split_baseline(seats, ("random", "cautious"))
    assert left_out == 6 and (kept["bot"] != "random").all()
    three = kept[kept["players"] == 3]
    assert np.allclose(three["fair"], 0.5)            # mean win of the kept seats
    assert three["fair"].sum() == pytest.approx(three["win"].sum())
    assert np.allclose(kept.loc[kept["players"] == 2, "fair"], 0.5)
    assert seats["fair"].eq(seats["fair"]).all() and np.allclose(
        seats.loc[seats["players"] == 3, "fair"], 1 / 3)       # the input is not changed
    same, none = split_baseline(seats, ())
    assert same is seats and none == 0
    # a style with knob overrides ("random*") is not the baseline
    starred = seats.assign(bot=seats["bot"].replace({"random": "random*"}))
    assert split_baseline(starred, ("random",))[1] == 0


def test_run_summary_leaves_baseline_seats_out_of_the_win_share_table():
    from rich.console import Console

    from deepsim.summary import render_summary
    rows = []
    for g in range(40):
        for s, bot in enumerate(("greedy", "random", "balanced")):
            rows.append((g, 3, bot, f"C{(g + s) % 3}", float(s == g % 2 * 2), 1 / 3))
    seats = _seats(rows)
    games = pd.DataFrame({"game": range(40), "players": 3, "rounds": 8})
    console = Console(record=True, width=80)
    render_summary(console, games, seats, by="company",
                   baseline_bots=("random", "cautious"))
    text = console.export_text()
    assert "Baseline bots (random, cautious) left out: 40 seat-games" in text
    kept = split_baseline(seats, ("random",))[0]
    for company, n in kept.groupby("company").size().items():
        assert f"{company} " in text and f"{n:,}" in text
    assert max(len(line) for line in text.splitlines()) <= 80
