"""Counter-based random numbers for kernels: one independent stream per game.

Every draw is a pure function of ``(seed, game index, counter)``, so a game's dice do not
depend on which thread plays it, on the chunk it falls in, or on the games before it. The
mixer is SplitMix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), applied to ``key + counter * golden_gamma``: a counter-based
generator in the sense of Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"
(SC 2011).

All constants are ``np.uint64`` so numba never promotes the arithmetic to float64.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_ONE = np.uint64(1)
_STREAM_SALT = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser: a bijective 64-bit mix. ``z`` and result are uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def game_key(seed, game):
    """Stream key of one game (uint64) from the run seed and the game index (both int64)."""
    s = mix64(np.uint64(seed) ^ _STREAM_SALT)
    return mix64(s + np.uint64(game) * GOLDEN_GAMMA)


@njit(cache=True, inline="always")
def draw(key, ctr):
    """The ``ctr``-th 64-bit draw (uint64) of the stream ``key``; ``ctr`` is uint64."""
    return mix64(key + (ctr + _ONE) * GOLDEN_GAMMA)


@njit(cache=True, inline="always")
def below(key, ctr, n):
    """Uniform integer in ``[0, n)`` (int64) from draw ``ctr`` by multiply-shift.

    Lemire's multiply-shift on the top 32 bits; bias is at most ``n / 2**32``, far below
    what any balance statistic can see.
    """
    hi = draw(key, ctr) >> _S32
    return np.int64((hi * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def uniform(key, ctr):
    """Uniform float64 in ``[0, 1)`` with 53 random bits from draw ``ctr``."""
    return np.float64(draw(key, ctr) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


_CHILD_SALT = np.uint64(0x8CB92BA72F3D8DD7)


@njit(cache=True, inline="always")
def child_key(key, index):
    """Key of the ``index``-th child stream of stream ``key`` (uint64 from uint64, int64).

    A counter-based split: the child keys of one key are SplitMix64 outputs of a salted
    copy of it, so a child's draws share no counter sequence with its parent's (``draw``
    mixes ``key + (ctr + 1) * gamma``; a child mixes ``mix64(key ^ salt) + (index + 1) *
    gamma`` first). Used for a search bot's rollouts, whose streams must not be the game's.
    """
    return mix64(mix64(key ^ _CHILD_SALT) + (np.uint64(index) + _ONE) * GOLDEN_GAMMA)
