"""Placeholder data (DEEPFALL A3 starting bags, A21 floor weights): per-die bag overrides,
the flag cleared for data the designer supplies, and a banner naming only what the run can
use (issue 26)."""

from __future__ import annotations

import pytest

from deepsim.errors import InputError
from deepsim.rulesets import get
from deepsim.rulesets.deepfall import load_data, parameter_paths

WEIGHTS = "[1, 1, 1, 1, 1, 1, 1, 1, 1, 0]"


def _prepare(seats=None, overrides=None, players=4):
    sc = {"name": "t", "ruleset": "deepfall", "players": players, "games": 10, "seed": 1}
    if seats:
        sc["seats"] = seats
    return get("deepfall").prepare(sc, source="<test>", overrides=overrides)


def test_one_die_of_a_bag_can_be_set_and_the_rest_is_kept():
    assert "lineages.wisp.start_bag.warrior" in parameter_paths()
    d = load_data(["lineages.wisp.start_bag.warrior=2"])
    shipped = load_data().lineages["wisp"].start_bag
    assert d.lineages["wisp"].start_bag == {**shipped, "warrior": 2}
    # only one die was supplied: the rest of the bag is still the placeholder's
    assert d.lineages["wisp"].start_bag_placeholder


def test_an_unknown_die_is_refused_with_the_nearest_name():
    with pytest.raises(InputError, match="warrior"):
        load_data(["lineages.wisp.start_bag.warior=2"])


def test_a_bag_supplied_whole_is_no_longer_a_placeholder():
    d = load_data(["lineages.wisp.start_bag={recruit: 5, rogue: 3}"])
    assert d.lineages["wisp"].start_bag == {"recruit": 5, "rogue": 3}
    assert not d.lineages["wisp"].start_bag_placeholder
    assert d.lineages["dvergar"].start_bag_placeholder          # not supplied: still flagged
    # a whole Lineage mapping that holds the bag counts too
    whole = load_data({"lineages.wisp": {**load_data().lineages["wisp"].model_dump(
        exclude={"start_bag_placeholder"})}})
    assert not whole.lineages["wisp"].start_bag_placeholder


def test_the_designers_own_flag_stands():
    d = load_data(["lineages.wisp.start_bag={recruit: 5, rogue: 3}",
                   "lineages.wisp.start_bag_placeholder=true"])
    assert d.lineages["wisp"].start_bag_placeholder


def test_floor_weights_supplied_whole_clear_the_dungeon_flag_one_floor_does_not():
    six = {str(f): [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] for f in range(1, 7)}
    assert not load_data({"dungeon.floor_weights": six}).dungeon.placeholder
    assert load_data([f"dungeon.floor_weights.3={WEIGHTS}"]).dungeon.placeholder


def test_the_banner_names_only_the_bags_the_run_can_deal():
    seats = [{"lineage": lin, "calling": "random"}
             for lin in ("wisp", "dvergar", "sylphid", "revenant")]
    names = _prepare(seats).placeholders
    assert {p for p in names if p.startswith("lineages.")} == {
        f"lineages.{n}.start_bag" for n in ("wisp", "dvergar", "sylphid", "revenant")}
    # a random Lineage can deal any of them
    every = _prepare(seats[:3] + [{"lineage": "random"}]).placeholders
    assert sum(p.startswith("lineages.") for p in every) == len(load_data().lineages)
    # a bag the designer supplied is not named
    sup = _prepare(seats, ["lineages.wisp.start_bag={recruit: 5, rogue: 3}"]).placeholders
    assert "lineages.wisp.start_bag" not in sup and "lineages.dvergar.start_bag" in sup
    assert "dungeon.floor_weights" in sup
