"""Statistics: Wilson interval, win shares, rounds, overview (deepsim.stats)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from deepsim import stats


def test_wilson_textbook_value():
    # 81 successes of 263 trials: Wilson 95% interval (0.2553, 0.3662).
    low, high = stats.wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4)
    assert high == pytest.approx(0.3662, abs=1e-4)


def test_wilson_closed_form_and_arrays():
    s = np.array([0.0, 5.5, 10.0, 0.0])
    n = np.array([10, 10, 10, 0])
    low, high = stats.wilson_interval(s, n)
    z = 1.959963984540054
    for i in range(3):
        p, m = s[i] / n[i], n[i]
        centre = (p + z * z / (2 * m)) / (1 + z * z / m)
        half = z / (1 + z * z / m) * math.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
        assert low[i] == pytest.approx(max(0.0, centre - half), abs=1e-9)
        assert high[i] == pytest.approx(min(1.0, centre + half), abs=1e-9)
    assert math.isnan(low[3]) and math.isnan(high[3])
    assert low[0] == 0.0 and high[2] == 1.0


@pytest.mark.parametrize("s,n", [(5, 3), (-1, 3)])
def test_wilson_rejects_bad_counts(s, n):
    with pytest.raises(ValueError):
        stats.wilson_interval(s, n)


def _seats():
    # Game 0 (2 players): A wins. Game 1 (2 players): A and B tie. Game 2 (4 players): C wins.
    rows = [
        (0, 0, 2, "A", 1.0), (0, 1, 2, "B", 0.0),
        (1, 0, 2, "A", 0.5), (1, 1, 2, "B", 0.5),
        (2, 0, 4, "C", 1.0), (2, 1, 4, "B", 0.0), (2, 2, 4, "A", 0.0), (2, 3, 4, "D", 0.0),
    ]
    df = pd.DataFrame(rows, columns=["game", "seat", "players", "company", "win"])
    df["fair"] = 1.0 / df["players"]
    df["company"] = df["company"].astype("category")
    return df


def test_win_shares():
    out = stats.win_shares(_seats(), by="company")
    assert list(out.columns) == ["company", "games", "wins", "win_share", "ci_low", "ci_high",
                                 "fair_share", "ratio"]
    assert list(out["company"]) == ["C", "A", "B", "D"]  # sorted by win share, descending
    a = out.set_index("company").loc["A"]
    assert a["games"] == 3
    assert a["wins"] == pytest.approx(1.5)
    assert a["win_share"] == pytest.approx(0.5)
    assert a["fair_share"] == pytest.approx((0.5 + 0.5 + 0.25) / 3)
    assert a["ratio"] == pytest.approx(0.5 / ((0.5 + 0.5 + 0.25) / 3))
    lo, hi = stats.wilson_interval(1.5, 3)
    assert a["ci_low"] == pytest.approx(lo) and a["ci_high"] == pytest.approx(hi)
    # Win shares of all seat-games add up to the number of games.
    assert out["wins"].sum() == pytest.approx(3.0)


def test_win_shares_other_grouping_and_empty():
    seats = _seats()
    seats["lineage"] = seats["company"].astype(str).str.lower()
    out = stats.win_shares(seats, by="lineage")
    assert set(out["lineage"]) == {"a", "b", "c", "d"}
    empty = stats.win_shares(seats.iloc[:0], by="company")
    assert empty.empty
    with pytest.raises(KeyError):
        stats.win_shares(seats.drop(columns=["fair"]), by="company")


def test_rounds_by_players():
    games = pd.DataFrame({"players": [2, 2, 2, 4], "rounds": [10, 12, 14, 20]})
    out = stats.rounds_by_players(games)
    assert list(out["players"]) == [2, 4]
    two = out.iloc[0]
    assert two["games"] == 3
    assert two["mean"] == pytest.approx(12.0)
    assert two["sd"] == pytest.approx(2.0)
    assert two["median"] == pytest.approx(12.0)
    assert two["p5"] == pytest.approx(np.percentile([10, 12, 14], 5))
    assert two["p95"] == pytest.approx(np.percentile([10, 12, 14], 95))
    assert math.isnan(out.iloc[1]["sd"])


def test_game_overview():
    games = pd.DataFrame({"players": [2, 3], "rounds": [5, 6], "margin": [2, 4],
                          "margin_rel": [0.1, 0.3], "truncated": [False, True]})
    ov = stats.game_overview(games)
    # the truncated game is unresolved: counted, and left out of the margins
    assert ov == {"games": 2, "truncated": 1, "unresolved": 1, "unresolved_share": 0.5,
                  "mean_margin": 2.0, "mean_margin_rel": pytest.approx(0.1)}
    adjudicated = games.assign(adjudicated=[False, True])
    ov = stats.game_overview(adjudicated)
    assert (ov["truncated"], ov["unresolved"], ov["mean_margin"]) == (1, 0, 3.0)
    assert stats.game_overview(pd.DataFrame({"rounds": [1]}))["truncated"] is None


def test_unresolved_seats_are_left_out_of_win_shares():
    """A game a safety cap stopped has win NaN on its seats: neither won nor lost."""
    seats = pd.DataFrame({"game": [0, 0, 1, 1, 2, 2], "faction": list("ABABAB"),
                          "win": [1.0, 0.0, np.nan, np.nan, 0.0, 1.0], "fair": [0.5] * 6})
    ws = stats.win_shares(seats, by="faction").set_index("faction")
    assert ws.loc["A", "games"] == 2 and ws.loc["A", "wins"] == 1.0
    assert ws.loc["B", "win_share"] == 0.5
    assert len(stats.resolved_seats(seats)) == 4
    games = pd.DataFrame({"game": [0, 1, 2], "truncated": [False, True, True],
                          "adjudicated": [False, False, True]})
    assert stats.unresolved_flags(games).tolist() == [False, True, False]


def test_holm_adjust_is_statsmodels_holm_without_its_gc_collect(monkeypatch):
    """Holm's adjusted p-values are statsmodels' to the last digit (ties, NaN left out of the
    family, values capped at 1), and neither they nor the viability table's over/under tests
    run ``gc.collect()``, which statsmodels' Holm does on every call (a quarter to half a
    second in a process holding numba's kernels: a compare of one run called it twice per
    metric)."""
    import gc

    from statsmodels.stats.multitest import multipletests

    from deepsim.report import viability as V

    rng = np.random.default_rng(11)
    for m in (1, 2, 5, 12, 40):
        p = rng.uniform(0, 0.3, m)
        p[rng.integers(m)] = p[0]                      # a tie
        np.testing.assert_allclose(stats.holm_adjust(p),
                                   multipletests(p, method="holm")[1], rtol=0, atol=1e-15)
    got = stats.holm_adjust([0.5, np.nan, 0.01, 0.3])
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], multipletests([0.5, 0.01, 0.3],
                                                             method="holm")[1])
    assert np.isnan(stats.holm_adjust([np.nan])).all() and stats.holm_adjust([]).size == 0

    def refuse():
        raise AssertionError("gc.collect() called")

    monkeypatch.setattr(gc, "collect", refuse)
    wins, games, fair = [40.0, 12.0, 18.0], [100, 100, 100], [0.2, 0.2, 0.2]
    tests = V.holm_tests(wins, games, fair)
    monkeypatch.undo()
    raw = np.concatenate([tests["p_over"], tests["p_under"]])
    adj = multipletests(raw, method="holm")[1]
    np.testing.assert_allclose(tests["p_over_holm"], adj[:3])
    np.testing.assert_allclose(tests["p_under_holm"], adj[3:])
    assert tests["test"].tolist()[0] == V.OVER
