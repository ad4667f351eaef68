"""Kernel helper: the bot profile of a seat whose faction has bots of its own.

A scenario's ``faction_bots`` (:mod:`deepsim.factionbots`) gives every seat that plays a
faction F one bot style, or a mixture of styles with weights. The ruleset compiles it into
one table, ``fmix`` (float64[n_factions, 2, M]):

- ``fmix[f, 0, j]``: the bot profile row (a row of the kernel's knob table) of F's j-th
  style, ``-1`` past the last one (``fmix[f, 0, 0] == -1``: F keeps the seat's own bot);
- ``fmix[f, 1, j]``: the cumulative weight of styles ``0 .. j`` (the last one 1).

:func:`faction_bot` is called by each kernel's setup once a seat's faction and bot are
known (the bot already drawn from the scenario's pool, so the game's own random stream is
the same with or without ``faction_bots``: common random numbers). A mixture is drawn
once per (game, faction) from a stream of its own, keyed on the game's stream key and the
faction code (counter-based, Salmon et al. 2011, as :mod:`deepsim.rng`): the same style on
any thread count, chunking or seat rotation, and every seat of F in one game plays it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import mix64, uniform

#: salt of the faction-style stream (the fractional bits of sqrt(2), as SHA-512's first IV)
_FACTION_SALT = np.uint64(0x6A09E667F3BCC908)


@njit(cache=True, inline="always")
def faction_bot(fmix, f, b, key):
    """The bot profile row of a seat of faction ``f`` whose own bot is ``b``.

    Parameters
    ----------
    fmix : float64[n_factions, 2, M]
        See the module docstring; a faction code outside ``0 .. n_factions-1`` keeps ``b``.
    f, b : int64
        The seat's faction code and its bot profile row (drawn or fixed by the scenario).
    key : uint64
        The game's stream key (``deepsim.rng.game_key``).

    Returns
    -------
    int64
        ``b`` when F has no bots of its own, else the row of F's style (drawn by weight).
    """
    if f < 0 or f >= fmix.shape[0]:
        return b
    first = np.int64(fmix[f, 0, 0])
    if first < 0:
        return b
    m = fmix.shape[2]
    if m == 1 or fmix[f, 0, 1] < 0:
        return first
    u = uniform(mix64(key ^ _FACTION_SALT), np.uint64(f))
    j = 0
    while j + 1 < m and fmix[f, 0, j + 1] >= 0 and u >= fmix[f, 1, j]:
        j += 1
    return np.int64(fmix[f, 0, j])
