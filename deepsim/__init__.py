"""deepsim: Monte Carlo balance simulator for tabletop games."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def _keyed_numba_cache() -> None:
    """Point numba's on-disk cache at a folder named by a hash of deepsim's kernel sources.

    numba decides whether a cached function is stale from the timestamp of the function's
    own file only: after an edit to ``bots.py`` or ``board.py`` alone, ``kernel.play_games``
    (which inlines them) would load stale machine code. Keying the folder on the compiled
    sources makes any such edit start a fresh cache. The base folder is ``NUMBA_CACHE_DIR``
    (the Makefile sets ``.numba_cache/``) or ``~/.cache/deepsim/numba``.
    """
    here = Path(__file__).parent
    h = hashlib.sha256()
    # the compiled sources: every module with jitted code, and the layouts (with the name
    # tuples they take from schema.py) whose constants numba freezes into it; editing the
    # runner or a report must not cost a recompile
    for p in sorted(here.rglob("*.py")):
        text = p.read_bytes()
        if b"njit" in text or p.name in ("layout.py", "schema.py"):
            h.update(p.relative_to(here).as_posix().encode())
            h.update(text)
    leaf = f"src-{h.hexdigest()[:16]}"
    base = os.environ.get("NUMBA_CACHE_DIR") or str(Path.home() / ".cache/deepsim/numba")
    # a worker handed an already keyed folder by its client keeps it
    target = base if Path(base).name == leaf else str(Path(base) / leaf)
    os.environ["NUMBA_CACHE_DIR"] = target
    if "numba" in sys.modules:   # numba read the variable at import: set its config too
        sys.modules["numba"].config.CACHE_DIR = target


_keyed_numba_cache()


#: the Python API (deepsim/api.py), imported on first use so ``import deepsim`` stays light
_API = ("simulate", "load", "trace", "win_shares", "seat_advantage", "game_length",
        "Simulation")


def __getattr__(name: str):
    if name in _API:
        from deepsim import api
        return getattr(api, name)
    raise AttributeError(f"module 'deepsim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_API))
