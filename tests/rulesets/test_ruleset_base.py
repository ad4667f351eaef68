"""The ruleset base: hooks declared with their defaults, the kernel ruleset base's tables,
and the deprecated names that moved."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from deepsim import rulesets
from deepsim.rulesets.base import KernelTables, Ruleset, check_ruleset

SCENARIO = {"name": "t", "ruleset": "abyss", "players": [2, 3, 4], "seed": 11, "games": 60}


@pytest.fixture(scope="module")
def abyss():
    rs = rulesets.get("abyss")
    return rs, rs.prepare(dict(SCENARIO))


def test_the_default_run_games_gives_the_kernels_listed_rows(abyss):
    """Ruleset.run_games (a ruleset whose kernel cannot play a list: the chunk, filtered)
    gives exactly the rows of the kernel ruleset's listed games."""
    rs, prep = abyss
    idx = np.array([3, 4, 17, 40], np.int64)
    g1, s1 = Ruleset.run_games(rs, prep, idx)
    g2, s2 = rs.run_games(prep, idx)
    pd.testing.assert_frame_equal(g1, g2)
    pd.testing.assert_frame_equal(s1, s2)
    assert list(g1["game"]) == idx.tolist()


def test_kernel_tables_number_the_seat_columns_and_the_trace_replays_a_batch_row(abyss):
    rs, prep = abyss
    assert rs.tables.seat_numbers == ("winner_seat", "trigger_seat")
    games, seats = rs.run_chunk(prep, 0, 20)
    assert set(games["winner_seat"]) <= set(range(-1, 5)) - {0}      # seats from 1, -1 none
    assert seats.groupby("game")["seat"].min().eq(1).all()
    tg, ts = rs.trace_result(prep, 7)
    pd.testing.assert_frame_equal(tg.reset_index(drop=True),
                                  games[games["game"] == 7].reset_index(drop=True))
    pd.testing.assert_frame_equal(ts.reset_index(drop=True),
                                  seats[seats["game"] == 7].reset_index(drop=True))
    assert KernelTables(("a_seat", "players", "truncated"), (), ("bot",), ("win",)
                        ).seat_numbers == ("a_seat",)


def test_optional_hooks_have_declared_defaults(dice_only):
    """Shared code calls the hooks; a ruleset that leaves them out gets the base's."""
    assert dice_only.plays is False         # odds-only: no kernel hooks at all
    deepfall = rulesets.get("deepfall")
    assert deepfall.trace_formats == ("text", "json")
    assert rulesets.get("atlantis").trace_formats == ("text",)
    assert Ruleset.factions(deepfall) is None          # the base's: not named ahead of play
    assert Ruleset.trace_formats == ("text",)
    assert deepfall.headline_groups()[:3] == [("company", "company"), ("lineage", "lineage"),
                                             ("calling", "calling")]


def test_json_in_trace_formats_needs_trace_records(fake_ruleset):
    class Claims(fake_ruleset):
        trace_formats = ("text", "json")

    assert any("trace_records" in p for p in check_ruleset(Claims()))
    assert not any("trace_records" in p for p in check_ruleset(fake_ruleset()))


def test_moved_names_still_work_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="deepsim.report.config.ReportOption"):
        from deepsim.rulesets.base import ReportOption
    from deepsim.report.config import ReportOption as Kit
    assert ReportOption is Kit
    with pytest.warns(DeprecationWarning, match="deepsim.reporting.report_runs"):
        from deepsim.report import report_runs
    from deepsim import reporting
    assert report_runs is reporting.report_runs
    with pytest.warns(DeprecationWarning, match="deepsim.rulesets.golden.load_cases"):
        from deepsim.testing.golden import load_cases
    from deepsim.rulesets import golden
    assert load_cases is golden.load_cases
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from deepsim.report import ReportConfig, build_report  # the kit's own: no warning
    assert ReportConfig and build_report


def test_parameters_flag_placeholder_data():
    """Every parameter row carries the placeholder flag; the flagged rows are exactly
    the paths under the ruleset's placeholder_paths()."""
    from deepsim import rulesets
    from deepsim.rulesets.base import mark_placeholders

    for name in rulesets.builtin():
        rs = rulesets.get(name)
        rows = rs.parameters()
        assert all(isinstance(r["placeholder"], bool) for r in rows), name
        marks = rs.placeholder_paths()
        for r in rows:
            under = any(r["path"] == p or r["path"].startswith(p + ".") for p in marks)
            assert r["placeholder"] == under, (name, r["path"])
    flagged = [r["path"] for r in rulesets.get("deepfall").parameters() if r["placeholder"]]
    assert "dungeon.floor_weights.1" in flagged
    rows = [{"path": "a.b"}, {"path": "a.bc"}, {"path": "a"}]
    assert [r["placeholder"] for r in mark_placeholders(rows, ["a.b"])] == [True, False, False]


def test_set_overrides_apply_in_the_order_given_the_last_wins():
    from deepsim.params import apply_overrides
    from deepsim.rulesets.common import merge_overrides

    base = {"turn": {"hand_size": 5, "moves": 2}, "maw": {"steps": 3}}
    paths = {"turn.hand_size": 5, "turn.moves": 2, "maw.steps": 3}
    ov = merge_overrides({"turn.hand_size": 4, "maw.steps": 1},
                         ["turn.hand_size=6", "turn={hand_size: 7, moves: 1}",
                          "turn.hand_size=8", "maw.steps=2"], source="s.yaml", lines={})
    # a path given again is applied at its last place, after the whole turn that came
    # between (at its first place, the whole turn overwrote it: 7, not 8)
    assert list(ov.merged) == ["turn", "turn.hand_size", "maw.steps"]
    out = apply_overrides(base, ov.merged, valid_paths=paths, source="s.yaml")
    assert out == {"turn": {"hand_size": 8, "moves": 1}, "maw": {"steps": 2}}


def test_later_wins_merges_layers_in_order():
    from deepsim.params import later_wins

    # what balance writes (the scenario's overrides, --set, the patch) and tune, meta and
    # the studio merge the same way: a path given again goes to its last place
    merged = later_wins({"turn.hand_size": 4, "turn": {"hand_size": 5}},
                        ["maw.steps=2", "turn.hand_size=6"], {"maw.steps": 3})
    assert list(merged.items()) == [("turn", {"hand_size": 5}), ("turn.hand_size", 6),
                                    ("maw.steps", 3)]
    assert later_wins() == {} and later_wins([]) == {}
