"""A numba entry point that rolls DEEPFALL hands through the kernel's own dice code.

``roll_hands`` draws and rolls hands exactly as a turn does (``kernel.draw_hand``: draws
from the bag without replacement, the game's counter-based random stream, the die faces
array the kernel plays with) and checks a claim with ``kernel.claim_cost`` and
``kernel.trinity_ok``. Nothing about the dice is re-implemented here: the test
``tests/rulesets/deepfall/test_odds_oracle.py`` compares these empirical frequencies with the exact values of
``deepsim odds deepfall`` (chi-square and binomial tests at a fixed seed), so a kernel
that rolls wrong fails it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import game_key
from deepsim.rulesets.deepfall import kernel
from deepsim.rulesets.deepfall.board import (
    SD_PROG_CUNNING,
    SD_PROG_FLOOR,
    SD_PROG_SLOT,
    SD_PROG_STEEL,
    bag_size,
    new_quiet_state,
)
from deepsim.rulesets.deepfall.layout import CUNNING, FAITH, N_DICE, N_SYMBOLS, STEEL


def roll_hands(seed, count, hand, presses, bag0, eff_row, theme, dat):
    """Roll ``count`` turns' hands; return (symbols[count, 6], claimable[count]).

    Each trial is one turn of a fresh bag ``bag0`` (int64[N_DICE]): a hand of ``hand``
    dice, then up to ``presses`` more hands while the bag lasts, all through
    ``kernel.draw_hand`` with the stream of game ``i`` of ``seed`` and the die faces of
    ``dat`` (board.Data). ``claimable[i]`` is 1 when the rolled Steel and Cunning meet
    ``kernel.claim_cost`` for a room of ``theme`` and ``kernel.trinity_ok`` accepts the
    rolled symbols (company effects ``eff_row``, float64[N_EFFECTS]).
    """
    st = new_quiet_state()            # tracing off (g[GS_TRACE] == 0)
    st.eff[0, :] = eff_row
    st.theme[0, 0] = theme
    return _roll_hands(st, seed, count, hand, presses, bag0, dat)


@njit(cache=True)
def _roll_hands(st, seed, count, hand, presses, bag0, dat):
    """:func:`roll_hands` compiled, in the quiet state ``st`` (board.new_quiet_state) with
    seat 0's company effects and the theme of room (0, 0) set."""
    theme = st.theme[0, 0]
    sd = st.sd
    bag = st.bag
    drawn = st.drawn
    g = st.g
    sym = st.sym
    rolled = st.rolled
    trin = st.trin
    sd[0, SD_PROG_SLOT] = -1
    sd[0, SD_PROG_FLOOR] = -1
    sd[0, SD_PROG_STEEL] = 0
    sd[0, SD_PROG_CUNNING] = 0
    res = np.zeros((count, N_SYMBOLS), np.int64)
    claim = np.zeros(count, np.int64)
    for i in range(count):
        st.key[0] = game_key(seed, np.int64(i))
        for k in range(g.shape[0]):
            g[k] = 0
        for k in range(N_DICE):
            bag[0, k] = bag0[k]
            drawn[0, k] = 0
        for k in range(N_SYMBOLS):
            sym[k] = 0
            rolled[k] = 0
        kernel.draw_hand(st, dat, 0, hand, np.int64(0))
        for j in range(presses):
            if bag_size(st, 0) == 0:
                break
            kernel.draw_hand(st, dat, 0, hand, np.int64(j + 1))
        for k in range(N_SYMBOLS):
            res[i, k] = sym[k]
        trin[STEEL] = rolled[STEEL]
        trin[CUNNING] = rolled[CUNNING]
        trin[FAITH] = rolled[FAITH]
        need_s, need_c = kernel.claim_cost(st, dat, 0, 0, 0)
        ok, _solo = kernel.trinity_ok(st, dat, 0, theme)
        if ok and sym[STEEL] >= need_s and sym[CUNNING] >= need_c:
            claim[i] = 1
    return res, claim
