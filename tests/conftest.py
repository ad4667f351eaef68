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

#: the files whose tests take the most CPU (measured with a warm numba cache under `make
#: test` and `make test-slow`: docs/ci.md), heaviest first. They are collected first, and
#: the Makefile's `--no-loadscope-reorder` keeps that order for pytest-xdist, which deals
#: whole files (`--dist loadfile`) to its workers: started first, none of them is the last
#: file left running on one worker while the other waits (xdist's own order, most tests
#: first, put the one-test 150 s file last). Only the order changes; a file not listed
#: keeps its place after these.
HEAVY_FIRST = (
    "tests/rulesets/deepfall/test_properties.py",
    "tests/gate/test_gate.py",
    "tests/rulesets/rivals/test_rivals_competence.py",
    "tests/test_hostile_input.py",
    "tests/docs/test_docs_site.py",
    "tests/rulesets/test_conformance.py",
    "tests/rulesets/deepfall/test_search_deepfall.py",
    "tests/report/test_report.py",
    "tests/rulesets/test_golden.py",
    "tests/balance/test_balance.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    root = config.rootpath

    def key(item):
        try:
            rel = item.path.relative_to(root).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(rel, len(rank))

    items[:] = sorted(items, key=key)          # stable: each file's own order is kept
