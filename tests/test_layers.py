"""The package's import structure: no import cycle between any two modules.

``lint-imports`` (.ci/run) checks the layers contract of pyproject.toml and cycles between
the sub-packages of one package; this test checks every module, so a cycle between a
package's ``__init__`` and one of its own modules is caught as well. The graph is grimp's
(every import statement, those inside functions included).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import grimp

AUDIT = Path(__file__).resolve().parents[1] / "tools" / "import_audit.py"

#: cycles not yet broken (each a sorted tuple of modules); this list only shrinks
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def _audit():
    spec = importlib.util.spec_from_file_location("import_audit", AUDIT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_no_import_cycles():
    graph = grimp.build_graph("deepsim", cache_dir=None)
    cycles = {tuple(c) for c in _audit().strongly_connected(graph)}
    new = cycles - KNOWN_CYCLES
    assert not new, "import cycles: " + "; ".join(" <-> ".join(c) for c in sorted(new))
    gone = KNOWN_CYCLES - cycles
    assert not gone, f"broken cycles still listed in KNOWN_CYCLES: {sorted(gone)}"
