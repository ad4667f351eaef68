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


def test_every_reading_the_reconstruction_searches_is_documented_and_rule_tested():
    """Each gap of DEEPFALL's search.yaml has a row in docs/RULES.md's gaps table, every
    parameter its readings (and the rounding space's numbers and Maw paces) set is named
    there, and every such parameter is set by a rule test on a hand-built state."""
    import yaml

    root = DOC.parents[1]
    search = yaml.safe_load((root / "deepsim/rulesets/deepfall/search.yaml").read_text())
    text = DOC.read_text()
    tests = (root / "tests/rulesets/deepfall/test_rules_deepfall.py").read_text()
    paths = {}
    for r in search["readings"]:
        assert f"| {r['gap']} |" in text, f"{r['gap']} has no row in docs/RULES.md"
        for alt in r["alternatives"].values():
            for p in alt or {}:
                paths[p] = r["gap"]
    for r in search["rounding"]:
        paths[r.get("path") or r["pace"]] = r["section"]
    assert len(paths) > 20
    # named as it is, or per player count as `scaling.{2..6}.rooms_per_floor`
    undocumented = [p for p in paths if not re.search(
        rf"`{re.escape(p.split('.')[0])}\.([^`]*\.)?{re.escape(p.split('.')[-1])}[`=: ]", text)]
    assert not undocumented, f"not in docs/RULES.md: {undocumented}"
    untested = [p for p in paths if p.split(".")[-1] not in tests]
    assert not untested, f"no rule test sets: {untested}"
