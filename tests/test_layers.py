"""The package's import structure: no import cycle between any two modules; and the
suite's: tests share fixtures from conftest.py files, not helper modules.

``lint-imports`` (.ci/run) checks the layers contract of pyproject.toml and cycles between
the sub-packages of one package; this test checks every module, so a cycle between a
package's ``__init__`` and one of its own modules is caught as well. The graph is grimp's
(every import statement, those inside functions included).
"""

from __future__ import annotations

import ast
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


# --- the suite: shared things are conftest.py fixtures, never helper modules --------------------

def _suite_offences(root: Path) -> list[str]:
    """Every file under ``root`` (a tests folder) that is not a test module, a conftest.py
    or a package's __init__.py, and every import of ``tests``, of a conftest or a relative
    import in them (``path:line: what``)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        if not (path.name.startswith("test_") or path.name in ("conftest.py", "__init__.py")):
            out.append(f"{rel}: a helper module (give what it holds as a conftest.py fixture)")
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = ["." * node.level + (node.module or "")]
            else:
                continue
            out += [f"{rel}:{node.lineno}: imports {n}" for n in names
                    if n.startswith((".", "tests.")) or n == "tests"
                    or n.rsplit(".", 1)[-1] == "conftest"]
    return out


def test_tests_share_conftest_fixtures_not_helper_modules():
    """What several test files use comes from conftest.py fixtures (tests/conftest.py for
    the whole suite, a folder's conftest.py for that folder), so no test module imports
    another module of the suite."""
    offences = _suite_offences(Path(__file__).resolve().parent)
    assert not offences, "\n".join(offences)


def test_the_suite_check_finds_helper_modules_and_their_imports(tmp_path):
    root = tmp_path / "tests"
    (root / "game").mkdir(parents=True)
    (root / "conftest.py").write_text("import pytest\n")
    (root / "game" / "state.py").write_text("X = 1\n")
    (root / "game" / "test_a.py").write_text(
        "import os\nfrom tests.game.state import X\nfrom . import conftest\n"
        "def test_x():\n    import tests\n")
    assert _suite_offences(root) == [
        "tests/game/state.py: a helper module (give what it holds as a conftest.py fixture)",
        "tests/game/test_a.py:2: imports tests.game.state",
        "tests/game/test_a.py:3: imports .",
        "tests/game/test_a.py:5: imports tests",
    ]
