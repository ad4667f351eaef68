"""The conformance suite (deepsim.testing.conformance) on every installed ruleset with a
kernel: invariants, determinism, trace, declared columns, --set, and the commands on a
tiny run. A new ruleset folder is checked here without a line of test code of its own."""

from __future__ import annotations

from typing import ClassVar

import pytest

from deepsim import rulesets
from deepsim.cli import app
from deepsim.testing.conformance import CHECKS, Conformance

PLAYABLE = rulesets.playable()


@pytest.fixture(scope="module", params=PLAYABLE)
def suite(request, tmp_path_factory):
    return Conformance(rulesets.get(request.param), tmp_path_factory.mktemp(request.param),
                       cli=app)


@pytest.mark.parametrize("check", CHECKS)
def test_conformance(suite, check):
    suite.run(check)


def test_every_shipped_game_is_checked():
    assert {"deepfall", "atlantis", "abyss", "rivals"} <= set(PLAYABLE)


# --- the suite itself: a ruleset that breaks a rule fails the check that guards it -------------

@pytest.fixture
def fake_classes(fake_ruleset):
    """(Good, {check: broken class}): the fake ruleset keeping the contract, and one
    subclass per check that breaks what that check guards."""
    from deepsim.rulesets.golden import GoldenCase

    class Good(fake_ruleset):
        def golden_cases(self):
            return [GoldenCase("fake", "mixed", {"name": "t", "ruleset": "fake",
                                                 "players": [2, 4], "seed": 3})]

    class GhostColumn(Good):
        seats_columns: ClassVar = {**Good.seats_columns, "ghost": "int64"}

    class TiesWinTwice(Good):
        def run_chunk(self, prepared, start, count):
            games, seats = super().run_chunk(prepared, start, count)
            seats["win"] = (seats["win"] > 0).astype(float)     # a 2-way tie sums to 2
            return games, seats

    class ChunkDependent(Good):
        def run_chunk(self, prepared, start, count):
            games, seats = super().run_chunk(prepared, start, count)
            seats["glory"] += start % 5
            return games, seats

    class SeedBlind(Good):
        def prepare(self, scenario, **kw):
            return super().prepare({**scenario, "seed": 0}, **kw)

    class TraceOffByOne(Good):
        def trace_result(self, prepared, game_index):
            games, seats = self.run_chunk(prepared, game_index + 1, 1)
            return games.assign(game=game_index), seats.assign(game=game_index)

    return Good, {"columns": GhostColumn, "invariants": TiesWinTwice,
                  "chunks": ChunkDependent, "seeds": SeedBlind, "trace": TraceOffByOne}


_CORE = ("contract", "columns", "invariants", "threads", "chunks", "seeds", "trace",
         "parameters")


def test_a_ruleset_keeping_the_contract_passes_the_core_checks(tmp_path, fake_classes):
    good, _ = fake_classes
    suite = Conformance(good(), tmp_path, games=120, cli=app)
    for check in _CORE:
        if check != "contract":           # the fake is not in the registry
            suite.run(check)


@pytest.mark.parametrize("check", ["columns", "invariants", "chunks", "seeds", "trace"])
def test_a_broken_ruleset_fails_the_check_that_guards_it(tmp_path, check, fake_classes):
    _, broken = fake_classes
    suite = Conformance(broken[check](), tmp_path, games=120, cli=app)
    with pytest.raises(AssertionError, match="fake"):
        suite.run(check)


def test_missing_metadata_is_named(tmp_path, fake_classes):
    from deepsim.rulesets.base import check_ruleset
    good, _ = fake_classes
    lacking = type("Lacking", (good,), {"seats_columns": {"game": "int64"}})()
    problems = check_ruleset(lacking)
    assert any("'seat' as int64" in p for p in problems), problems
    assert any("faction_column 'company'" in p for p in problems), problems


def test_bot_data_out_of_its_bounds_fails_the_bots_check(tmp_path, fake_classes):
    from deepsim.botdata import BotData, Knob, Style
    good, _ = fake_classes

    def data(press: float) -> BotData:
        knob = Knob("press", "int", 0, 3)
        return BotData("bots.yaml", {"press": knob},
                       {"base": Style("base", {"press": 0}, baseline=True),
                        "bold": Style("bold", {"press": press})})

    class Plain(good):                       # styles as a bare mapping: not the contract's
        pass

    class InBounds(good):
        def bot_data(self):
            return data(3)

    class OutOfBounds(good):
        def bot_data(self):
            return data(5)

    with pytest.raises(AssertionError, match="not a deepsim.botdata.BotData"):
        Conformance(Plain(), tmp_path, games=40).run("bots")
    Conformance(InBounds(), tmp_path, games=40).run("bots")
    with pytest.raises(AssertionError, match=r"'bold': press 5 is outside its bounds \[0, 3\]"):
        Conformance(OutOfBounds(), tmp_path, games=40).run("bots")


def _capped_classes(fake_classes):
    """A fake with a safety cap ``max_rounds`` (games longer than it are stopped), one that
    keeps the unresolved rule and one that scores a stopped game as a win."""
    from deepsim.rulesets import common

    good, _ = fake_classes

    class Capped(good):
        safety_caps: ClassVar = {"max_rounds": "round"}

        def prepare(self, scenario, *, source="<scenario>", overrides=None):
            cap, rest = 100, []
            for o in overrides or []:
                if o.startswith("max_rounds="):
                    cap = int(o.split("=", 1)[1])
                else:
                    rest.append(o)
            p = super().prepare(scenario, source=source, overrides=rest)
            p.params["max_rounds"] = cap
            return p

        def parameters(self):
            return [*super().parameters(), {"path": "max_rounds", "default": 100,
                                            "type": "int", "bounds": ">= 1", "section": ""}]

        def _capped(self, prepared, start, count):
            games, seats = good.run_chunk(self, prepared, start, count)
            cap = prepared.params["max_rounds"]
            games["truncated"] = games["rounds"] > cap
            games["rounds"] = games["rounds"].clip(upper=cap)
            return games, seats

        def run_chunk(self, prepared, start, count):
            games, seats = self._capped(prepared, start, count)
            return games, common.mark_unresolved(games, seats)

    class CapWinner(Capped):
        def run_chunk(self, prepared, start, count):
            return self._capped(prepared, start, count)     # the stopped game has a winner

    class Uncapped(good):
        def run_chunk(self, prepared, start, count):
            games, seats = super().run_chunk(prepared, start, count)
            games["truncated"] = games["game"] % 7 == 0      # stopped by a cap it hides
            return games, common.mark_unresolved(games, seats)

    return Capped, CapWinner, Uncapped


def test_the_unresolved_check_holds_a_ruleset_to_the_one_rule(tmp_path, fake_classes):
    """The contract's rule for a game a safety cap stops (deepsim.rulesets.base.UNRESOLVED):
    a ruleset that marks it unresolved passes; one that gives it a winner fails
    (invariants and unresolved), as does one whose games are truncated by a cap it does not
    declare."""
    capped, winner, uncapped = _capped_classes(fake_classes)
    Conformance(capped(), tmp_path, games=60, cli=app).run("unresolved")
    Conformance(capped(), tmp_path, games=60, cli=app).run("invariants")
    with pytest.raises(AssertionError, match="unresolved .* but a seat has a win"):
        Conformance(winner(), tmp_path, games=60, cli=app).run("unresolved")
    with pytest.raises(AssertionError, match="declares no safety_caps"):
        Conformance(uncapped(), tmp_path, games=60, cli=app).run("unresolved")
