"""Golden results: every ruleset's frozen scenarios still produce the stored digests.

A failure means the games changed. If that was intended (a rule, data or bot change),
refresh them with ``make golden`` (``deepsim golden --digests tests/golden.json --update
RULESET|RULESET/CASE ...``, which prints which digests changed) and say why in the commit
message.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from deepsim.rulesets import builtin, get
from deepsim.testing.golden import check_case, compare, digest_table, read_digests

DIGEST_FILE = Path(__file__).resolve().parents[1] / "golden.json"
#: (ruleset, case) for every built-in ruleset that declares golden cases (a plugin keeps
#: its digests in its own package: deepsim new-ruleset's tests/test_golden.py)
CASES = [(get(name), case) for name in builtin()
         for case in (get(name).golden_cases() if hasattr(get(name), "golden_cases") else [])]


def test_every_shipped_ruleset_declares_golden_cases():
    names = {rs.name for rs, _ in CASES}
    assert {"deepfall", "atlantis"} <= names


def test_no_stale_digests():
    """Every stored digest belongs to a case that still exists (a renamed case is refreshed)."""
    keys = {case.key for _, case in CASES}
    stale = sorted(set(read_digests(DIGEST_FILE)) - keys)
    assert not stale, (f"digests of cases that no longer exist: {stale}; delete them from "
                       f"{DIGEST_FILE}")


@pytest.mark.parametrize("rs,case", CASES, ids=[c.key for _, c in CASES])
def test_golden(rs, case):
    msg = check_case(rs, case, DIGEST_FILE)
    assert msg is None, msg


def test_digest_ignores_row_order_and_names_changed_columns():
    df = pd.DataFrame({"game": [0, 1, 2], "x": [1.0, 2.0, 3.0],
                       "c": pd.Categorical(["a", "b", "a"])})
    a = digest_table(df, ["game"])
    assert digest_table(df.iloc[::-1], ["game"]) == a
    df2 = df.copy()
    df2.loc[1, "x"] = 2.5
    b = digest_table(df2, ["game"])
    assert b["sha256"] != a["sha256"]
    msg = compare({"games": a, "seats": a}, {"games": b, "seats": a})
    assert msg == ["games: changed: x"]
    df3 = df.assign(y=0)
    assert compare({"games": a, "seats": a},
                   {"games": digest_table(df3, ["game"]), "seats": a}) == ["games: new: y"]
    # -0.0 and 0.0 are one result; a category's label, not its code, is hashed
    z = pd.DataFrame({"game": [0], "x": [-0.0], "c": pd.Categorical(["a"], ["b", "a"])})
    z2 = pd.DataFrame({"game": [0], "x": [0.0], "c": pd.Categorical(["a"], ["a", "b"])})
    assert digest_table(z, ["game"]) == digest_table(z2, ["game"])


def test_one_changed_number_fails_naming_the_case_and_the_command(monkeypatch):
    """One number of the ruleset data changed: the case fails, naming itself and the fix."""
    from deepsim.rulesets import deepfall
    rs, case = next((r, c) for r, c in CASES if c.key == "deepfall/4p")
    data = deepfall.load_data().model_dump()
    changed = {**data, "maw": {**data["maw"], "steps_per_round": 2}}
    monkeypatch.setattr(deepfall.DATA, "_defaults", changed)
    msg = check_case(rs, case, DIGEST_FILE)
    assert msg is not None
    assert "deepfall/4p" in msg and "games: " in msg
    assert f"deepsim golden --digests {DIGEST_FILE} --update deepfall/4p" in msg
