"""`deepsim new-ruleset NAME --cooperative`: the co-operative scaffold (a small co-op dice
game with an exact answer) passes the conformance suite, its golden digests are current,
its kernel matches its exact win probability, and its game files are Bank's (made by
tools/coop_template.py, so they never drift from the game tests/rulesets/bank/test_bank.py proves)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deepsim import rulesets
from deepsim.cli import app
from deepsim.testing.conformance import CHECKS, Conformance

NAME = "coopscaffold"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scaffold(scaffold_root):
    """The co-operative scaffold's package (at a stable path: conftest's ``scaffold_root``)."""
    sc = scaffold_root(NAME, cooperative=True)
    src = str(sc.root / "src")
    sys.path.insert(0, src)
    rulesets.register(NAME, f"{sc.package}:RULESET", package=sc.dist, version="(test)")
    yield sc
    rulesets.unregister(NAME)
    sys.path.remove(src)
    for m in [m for m in sys.modules if m.split(".")[0] == sc.package]:
        del sys.modules[m]


def test_the_template_is_current():
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "coop_template.py"),
                          "--check"], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout + res.stderr


def test_it_is_cooperative_and_complete(scaffold):
    rs = rulesets.get(NAME)
    assert rs.cooperative and rs.target_path == "party.target_win_rate"
    assert {"src/deepsim_coopscaffold/exact.py", "tests/test_exact.py",
            "tests/golden.json", "pyproject.toml"} <= set(scaffold.files)


@pytest.fixture(scope="module")
def suite(scaffold, tmp_path_factory):
    return Conformance(rulesets.get(NAME), tmp_path_factory.mktemp("conf"), cli=app)


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS)
def test_the_coop_scaffold_passes_conformance(suite, check):
    suite.run(check)


def test_its_own_tests_pass(scaffold):
    """The scaffold's golden digests and exact-value test, run in this process."""
    from deepsim.testing.golden import check_case
    rs = rulesets.get(NAME)
    for case in rs.golden_cases():
        assert check_case(rs, case, scaffold.root / "tests" / "golden.json") is None
    sys.path.insert(0, str(scaffold.root / "tests"))
    try:
        import test_exact
        test_exact.test_win_rate_matches_the_exact_value()
    finally:
        sys.path.remove(str(scaffold.root / "tests"))
        sys.modules.pop("test_exact", None)
