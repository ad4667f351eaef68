"""deepsim: Monte Carlo balance simulator for tabletop games."""

from __future__ import annotations

__version__ = "0.1.0"

# numba's compile cache: one per user, keyed by the kernel sources' content, found by any
# copy of them (deepsim/jitcache.py). Set before numba is imported; does not import it.
from deepsim.jitcache import configure as _configure_numba_cache

_configure_numba_cache()
