"""docs/RULES.md stays true: every parameter path it names exists in some ruleset."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from deepsim.rulesets import builtin

DOC = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"
#: a backticked dotted name, optionally followed by =value or : value
TOKEN = re.compile(r"`([a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_\[\]]+)+)(?:[=:][^`]*)?`")


def _paths() -> set[str]:
    out: set[str] = set()
    for name in builtin():     # docs/RULES.md covers the shipped rulesets
        mod = importlib.import_module(f"deepsim.rulesets.{name}")
        if hasattr(mod, "parameter_paths"):
            out |= set(mod.parameter_paths())
    return out


def named_paths(text: str, tops: set[str]) -> list[tuple[int, str]]:
    """(line, token) of every backticked dotted name whose first part is a parameter group."""
    return [(text[:m.start()].count("\n") + 1, m.group(1)) for m in TOKEN.finditer(text)
            if m.group(1).split(".")[0] in tops]


def test_every_parameter_path_named_in_rules_md_exists():
    paths = _paths()
    prefixes = {".".join(p.split(".")[:i]) for p in paths for i in range(1, p.count(".") + 2)}
    tops = {p.split(".")[0] for p in paths}
    named = named_paths(DOC.read_text(), tops)
    assert len(named) > 100            # the check reads the file's paths at all
    # a file name (`events.py`, `dice.py:roll_pool`) is never a parameter
    missing = [(line, tok) for line, tok in named
               if tok not in prefixes and not tok.endswith(".py")]
    assert not missing, "docs/RULES.md names parameters that do not exist: " + ", ".join(
        f"line {line}: {tok}" for line, tok in missing)


def test_the_check_catches_a_misspelt_path():
    paths = _paths()
    tops = {p.split(".")[0] for p in paths}
    named = named_paths("x `maw.steps_per_flor` y `bots.choose_room` z", tops)
    assert named == [(1, "maw.steps_per_flor")] and "maw.steps_per_flor" not in paths
