"""Shared code names no game.

Every module of deepsim outside the game folders (``deepsim/rulesets/<game>/``) is shared:
the runner, output, report, gate, tune, odds command, bench, API and the ruleset contract
(the studies of one game in ``deepsim/studies/`` are not shared: each names its game).
A game reaches them only through its ``RULESET`` object (``deepsim/rulesets/base.py``), so
this test walks each shared module's syntax tree and fails on

- an import of ``deepsim.rulesets.<game>`` (or ``from deepsim.rulesets import <game>``);
- an identifier naming a game (a variable, attribute, function, class, argument or import
  alias with a game's name as one of its words: ``is_deepfall``, ``AtlantisReport``);
- a string naming a game, other than a docstring (a comment is not in the tree either):
  help texts and error messages give a placeholder name (``RULESET``, ``mygame``).

The games are the folders under ``deepsim/rulesets/`` (playable and odds-only); a word
matches a game's name case-insensitively and whole (``improve`` does not name ``rove``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "deepsim"
RULESETS = ROOT / "rulesets"
GAMES = sorted(p.name for p in RULESETS.iterdir()
               if p.is_dir() and (p / "__init__.py").exists())


#: the studies (faces layer): each is a study of one game (its findings, its calibration),
#: run with ``python -m deepsim.studies.NAME``; they may name their game, as a game folder
#: does, and nothing else imports them
STUDIES = ROOT / "studies"


def shared_modules() -> list[Path]:
    """Every ``.py`` file of deepsim outside the game folders and the studies of one game
    (``deepsim/studies/``, apart from its ``__init__.py`` and the game-free
    ``sidebyside.py``)."""
    games = {RULESETS / g for g in GAMES}
    return sorted(p for p in ROOT.rglob("*.py")
                  if not any(d in p.parents for d in games)
                  and not (p.parent == STUDIES and p.name not in ("__init__.py",
                                                                 "sidebyside.py")))


def _words(text: str) -> set[str]:
    """Lower-case words of an identifier or a string (``isDeepfall`` and ``is_deepfall``
    give ``is``, ``deepfall``)."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value,
                                                                     ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword):
        return [node.arg] if node.arg else []
    if isinstance(node, ast.alias):
        return [node.asname] if node.asname else []
    return []


def game_references(path: Path, games: list[str] = GAMES) -> list[str]:
    """``file:line: what`` for every reference to a game in one module (empty when none)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docs = _docstrings(tree)
    names = set(games)
    rel = path.relative_to(ROOT.parent) if ROOT.parent in path.parents else path.name
    out = []

    def hit(node: ast.AST, what: str) -> None:
        out.append(f"{rel}:{getattr(node, 'lineno', '?')}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[:2] == ["deepsim", "rulesets"] and len(parts) > 2 \
                        and parts[2] in names:
                    hit(node, f"imports {a.name}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[:2] == ["deepsim", "rulesets"]:
                if len(parts) > 2 and parts[2] in names:
                    hit(node, f"imports from {node.module}")
                elif len(parts) == 2:
                    for a in node.names:
                        if a.name in names:
                            hit(node, f"imports deepsim.rulesets.{a.name}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs:
            found = _words(node.value) & names
            if found:
                hit(node, f"string naming {', '.join(sorted(found))}: {node.value[:60]!r}")
        for ident in _identifiers(node):
            found = _words(ident) & names
            if found:
                hit(node, f"identifier {ident!r} names {', '.join(sorted(found))}")
    return out


def test_the_games_are_found():
    assert {"deepfall", "atlantis", "abyss", "rivals", "rove"} <= set(GAMES)
    shared = [p.relative_to(ROOT).as_posix() for p in shared_modules()]
    assert "rulesets/base.py" in shared and "report/build.py" in shared
    assert not any(p.startswith("rulesets/deepfall/") for p in shared)


@pytest.mark.parametrize("path", shared_modules(),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_shared_module_names_no_game(path):
    refs = game_references(path)
    assert not refs, "shared code names a game (move it into the game's folder or reach " \
                     "the game through its RULESET):\n  " + "\n  ".join(refs)


def test_the_walk_finds_each_kind_of_reference(tmp_path):
    """The checker itself: an import, an identifier, a string and an f-string part naming a
    game are found; docstrings, comments, placeholders and longer words are not."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        '"""Module docstring may say DEEPFALL."""\n'
        "import deepsim.rulesets.deepfall.kernel\n"
        "from deepsim.rulesets import atlantis\n"
        "from deepsim.rulesets.abyss.report import sections\n"
        "def is_deepfall(x):\n"
        '    """A docstring naming Rivals is fine."""\n'
        "    return x  # a comment naming rove is fine\n"
        "class AtlantisThing: pass\n"
        'HELP = "Ruleset name, e.g. deepfall."\n'
        'PATH = f"scenarios/{1}-abyss.yaml"\n'
        'OK = "Ruleset name, e.g. mygame; improve the rover"\n')
    refs = game_references(bad, GAMES)
    text = "\n".join(refs)
    assert len(refs) == 7, text
    for needle in ("imports deepsim.rulesets.deepfall.kernel", "deepsim.rulesets.atlantis",
                   "imports from deepsim.rulesets.abyss.report", "'is_deepfall'",
                   "'AtlantisThing'", "e.g. deepfall", "-abyss.yaml"):
        assert needle in text, needle
    assert "Rivals" not in text and "rove" not in text and "mygame" not in text
