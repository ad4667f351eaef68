"""deepsim: Monte Carlo balance simulator for tabletop games."""

from __future__ import annotations

# numba's compile cache: one per user, keyed by the kernel sources' content, found by any
# copy of them (deepsim/jitcache.py). Set before numba is imported; does not import it.
from deepsim.jitcache import configure as _configure_numba_cache
from deepsim.version import __version__ as __version__

_configure_numba_cache()


#: the Python API (deepsim/api.py), imported on first use so ``import deepsim`` stays light
_API = ("simulate", "load", "trace", "estimate", "paired_change", "win_shares",
        "seat_advantage", "game_length", "dice_odds", "Simulation")


def __getattr__(name: str):
    if name in _API:
        from deepsim import api
        return getattr(api, name)
    raise AttributeError(f"module 'deepsim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_API))
