"""Shared test setup for deepsim's suite.

The tests mirror the source tree: ``tests/rulesets/<game>/`` for one game's kernel, data,
rules and traces (with ``state.py``, the hand-built game state its rule tests use),
``tests/rulesets/`` for the contract every ruleset meets (conformance, golden digests),
``tests/<package>/`` for ``deepsim/<package>/`` (report, gate, tune, ...), ``tests/docs/``
for the documents' own checks, and ``tests/test_<module>.py`` for the top-level modules.

``tests`` is a package, so shared helpers are imported by their package path
(``from tests.rulesets.deepfall.state import State``, ``from tests.golden import ...``)
and ``python -m tests.golden`` runs from the repository root. The helpers' ``assert``
statements are rewritten by pytest like the tests' own (registered below, before any test
module imports them), so a failing check inside a helper shows its values.
"""

import pytest

pytest.register_assert_rewrite(
    "tests.golden",
    "tests.rulesets.abyss.state",
    "tests.rulesets.atlantis.state",
    "tests.rulesets.deepfall.state",
    "tests.rulesets.rivals.state",
)
