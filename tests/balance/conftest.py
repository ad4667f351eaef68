"""The Duel ruleset (tests/balance/ruleset.py) routed through the runner."""

from __future__ import annotations

import pytest

from deepsim import runner
from deepsim.errors import InputError
from deepsim.rulesets.base import check_ruleset
from tests.balance.ruleset import DuelRuleset, load_scenario


@pytest.fixture
def duel(monkeypatch, tmp_path):
    """A scenario of the Duel ruleset in a temporary working directory."""
    ruleset = DuelRuleset()
    assert check_ruleset(ruleset) == []

    def get_ruleset(name):
        if name != "duel":
            raise InputError(f"unknown ruleset {name!r}; available: duel", key="ruleset")
        return ruleset

    from deepsim import rulesets

    monkeypatch.setattr(runner, "load_scenario", load_scenario)
    monkeypatch.setattr(runner, "get_ruleset", get_ruleset)
    monkeypatch.setattr(rulesets, "get", get_ruleset)
    monkeypatch.chdir(tmp_path)
    scen = tmp_path / "duel.yaml"
    scen.write_text("name: duel\nruleset: duel\ngames: 6000\nseed: 7\nplayers: [3]\n")
    return scen
