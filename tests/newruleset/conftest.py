"""Shared fixtures of the scaffold tests: where ``deepsim new-ruleset``'s packages are written.

A scaffold's kernel is not part of the ``deepsim`` package, so numba files its cache under
a folder named after the absolute path of the kernel's source and stamps it with the
file's time (numba's own locator). A scaffold written to a fresh temporary folder (or to a
fresh clone's ``.pytest_cache``) therefore compiles cold at every session, several seconds
of CPU per template. :func:`scaffold_root` writes each template's package once to a path
named only by the generator's and the template's contents, inside deepsim's cache folder
of these sources (:func:`deepsim.jitcache.cache_dir`, which ``deepsim warmup --prune``
trims with it): every checkout of the same sources and every later session finds the same
files at the same path, and numba's cache of their kernel holds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest


def _template_hash(template: Path) -> str:
    import deepsim.newruleset as gen

    h = hashlib.sha256()
    for p in [Path(gen.__file__), *sorted(template.rglob("*.tmpl"))]:
        h.update(p.relative_to(p.parents[1]).as_posix().encode() + p.read_bytes())
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def scaffold_root(tmp_path_factory):
    """``make(name, cooperative=False) -> Scaffold``: ``write_ruleset(name, ...)``'s package
    at a stable path (see the module docstring), written on first use. A concurrent session
    writing the same one is harmless: each writes into its own temporary folder and renames
    it into place; the loser keeps the winner's (identical) files."""
    from deepsim import jitcache
    from deepsim.newruleset import TEMPLATE, TEMPLATE_COOP, Scaffold, write_ruleset

    def make(name: str, cooperative: bool = False) -> Scaffold:
        kind = "coop" if cooperative else "plain"
        try:
            base = jitcache.cache_dir() / "test-scaffolds"
            base.mkdir(parents=True, exist_ok=True)
        except OSError:                                  # a read-only cache: a session's own
            return write_ruleset(name, tmp_path_factory.mktemp(kind) / name,
                                 cooperative=cooperative)
        final = base / f"{name}-{kind}-{_template_hash(TEMPLATE_COOP if cooperative else TEMPLATE)}"
        if not (final / name / "pyproject.toml").exists():
            tmp = base / f".{final.name}-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            write_ruleset(name, tmp / name, cooperative=cooperative)
            try:
                tmp.rename(final)
            except OSError:                              # written meanwhile by another session
                shutil.rmtree(tmp, ignore_errors=True)
        root = final / name
        files = tuple(sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                             if p.is_file() and "__pycache__" not in p.parts))
        return Scaffold(root, name, f"deepsim_{name}", f"deepsim-{name}", files)

    return make
