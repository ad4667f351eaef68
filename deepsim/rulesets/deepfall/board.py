"""The kernel's game state layout and the small queries rules and bots both need.

A game's state is a tuple of fixed-size arrays (:func:`new_scratch`), allocated once per
block of games and reset between games. Floors are 0-based inside (index 0 = Floor 1).

Every function that only reads and writes these arrays (all of the rules and the bots)
is compiled with ``_nrt=False``: numba then emits no reference counting for its array
arguments. With it on, each call paid two atomic operations per array argument, and the
rules pass several arrays to small helpers in inner loops: switching it off measured
2.8x more games/s (docs/performance.md). Only the functions that allocate (``new_scratch``
and the entry points in kernel.py) keep numba's runtime. The small helpers are also
inlined in numba IR (``inline="always"``), a further 1.3x.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import below
from deepsim.rulesets.deepfall.layout import (
    E_MARKER_WEIGHT, MAX_SEATS, MAX_SLOTS, N_DICE, N_EFFECTS, N_FLOORS, N_SYMBOLS,
    R_DREAD_FULL_STEPS, R_FALLEN_STR, R_STEPS_PER_FLOOR, R_STEPS_PER_ROUND, R_WARDEN_FALLEN,
)

# Per-seat crew state columns (int64[MAX_SEATS, SD_N]). SD_MARKS is a bit set of the rooms
# where the seat's active crew has markers (bit fi * MAX_SLOTS + s set iff act_cnt > 0), kept
# in step with act_cnt so that scans for held rooms visit only those rooms.
(SD_FLOOR, SD_DEEPEST, SD_STAND, SD_PROG_SLOT, SD_PROG_FLOOR, SD_PROG_STEEL, SD_PROG_CUNNING,
 SD_LIN, SD_CAL, SD_BOT, SD_WARNED, SD_CREW_TURNS, SD_MARKS) = range(13)
SD_N = 13
FLOOR_BITS = (1 << MAX_SLOTS) - 1   # one floor's slots in SD_MARKS

# Shared game scalars (int64[G_N]).
(GS_N, GS_SLOTS, GS_DREAD_LEN, GS_DREAD, GS_STEPS, GS_COLLAPSED, GS_ROUND, GS_CTR, GS_EV,
 GS_TRACE, GS_BACKLOG, GS_DREAD_ADDED, GS_TURNS) = range(13)
G_N = 13
# GS_DREAD_ADDED: Dread added to the track so far this game (Press Ons and uncanceled
# Dread, before any reset); GS_TURNS: player-turns played so far. The bots' Maw forecast
# reads the observed rate (dread_rate).

# Positions in the scratch tuple.
(X_THEME, X_PLUNDER, X_GONE, X_ACT_STR, X_ACT_CNT, X_FALLEN, X_SD, X_BAG, X_OUT, X_DISC,
 X_EFF, X_HAS_LIN, X_HAS_CAL, X_GLORY, X_LOOT, X_CARRY, X_POOL, X_G, X_SYM, X_ROLLED, X_TMP,
 X_TRIN, X_KEPT) = range(23)


@njit(cache=True)
def new_scratch():
    """Allocate one block's per-game work arrays (reset, not reallocated, between games)."""
    return (np.zeros((N_FLOORS, MAX_SLOTS), np.int64),               # theme
            np.zeros((N_FLOORS, MAX_SLOTS), np.int64),               # plunder (A10)
            np.zeros((N_FLOORS, MAX_SLOTS), np.int64),               # gone (collapsed/consumed)
            np.zeros((N_FLOORS, MAX_SLOTS, MAX_SEATS), np.float64),  # active marker strength
            np.zeros((N_FLOORS, MAX_SLOTS, MAX_SEATS), np.int64),    # active marker count
            np.zeros((N_FLOORS, MAX_SLOTS, MAX_SEATS), np.int64),    # Fallen markers
            np.zeros((MAX_SEATS, SD_N), np.int64),                   # crew state
            np.zeros((MAX_SEATS, N_DICE), np.int64),                 # bag
            np.zeros((MAX_SEATS, N_DICE), np.int64),                 # drawn this turn
            np.zeros((MAX_SEATS, N_DICE), np.int64),                 # discard (A4 off)
            np.zeros((MAX_SEATS, N_EFFECTS), np.float64),            # company effects
            np.zeros((MAX_SEATS, N_EFFECTS), np.int64),              # effect from Lineage
            np.zeros((MAX_SEATS, N_EFFECTS), np.int64),              # effect from Calling
            np.zeros(MAX_SEATS, np.float64),                         # Glory
            np.zeros(MAX_SEATS, np.float64),                         # unbanked Loot
            np.zeros((MAX_SEATS, N_SYMBOLS), np.float64),            # production carry
            np.zeros(N_DICE, np.int64),                              # Recruit Pool
            np.zeros(G_N, np.int64),                                 # game scalars
            np.zeros(N_SYMBOLS, np.int64),                           # symbols to spend
            np.zeros(N_SYMBOLS, np.int64),                           # symbols rolled
            np.zeros(MAX_SEATS, np.float64),                         # temp
            np.zeros(N_SYMBOLS, np.int64),                           # trinity symbols
            np.zeros((MAX_SEATS, N_SYMBOLS), np.int64))              # unspent, kept (A23)


@njit(cache=True, _nrt=False, inline="always")
def rand_below(key, g, n):
    """Next uniform integer in [0, n) of this game's stream (advances the counter)."""
    v = below(key, np.uint64(g[GS_CTR]), n)
    g[GS_CTR] += 1
    return v


@njit(cache=True, _nrt=False, inline="always")
def strength_of(fi, s, q, act_str, fallen, eff, rules):
    """Weighted marker strength of player q in room (fi, s) (§6B.2; §4 Warden)."""
    fw = rules[R_FALLEN_STR]
    if rules[R_WARDEN_FALLEN] > 0.5:
        fw *= eff[q, E_MARKER_WEIGHT]
    return act_str[fi, s, q] + fallen[fi, s, q] * fw


@njit(cache=True, _nrt=False, inline="always")
def rival_best(fi, s, p, n, act_str, fallen, eff, rules):
    """Strongest other player's weighted strength in room (fi, s)."""
    best = 0.0
    for q in range(n):
        if q != p:
            st = strength_of(fi, s, q, act_str, fallen, eff, rules)
            if st > best:
                best = st
    return best


@njit(cache=True, _nrt=False, inline="always")
def holds(fi, s, p, n, act_str, act_cnt, fallen, eff, rules):
    """True when p's active crew has markers in the room and p has the strict majority.

    "Holding" a room (production §7.1, Last Stand §7.3) = strict majority (A24, A29).
    """
    if act_cnt[fi, s, p] == 0:
        return False
    mine = strength_of(fi, s, p, act_str, fallen, eff, rules)
    return mine > rival_best(fi, s, p, n, act_str, fallen, eff, rules)


@njit(cache=True, _nrt=False, inline="always")
def mark_bit(fi, s):
    """SD_MARKS bit of room (fi, s)."""
    return np.int64(1) << (fi * MAX_SLOTS + s)


@njit(cache=True, _nrt=False, inline="always")
def floor_marks(marks, fi):
    """Slots of floor index ``fi`` in an SD_MARKS bit set (bit s = slot s)."""
    return (marks >> (fi * MAX_SLOTS)) & FLOOR_BITS


@njit(cache=True, _nrt=False, inline="always")
def bag_size(bag, p):
    """Dice left in p's bag."""
    t = 0
    for k in range(N_DICE):
        t += bag[p, k]
    return t


@njit(cache=True, _nrt=False, inline="always")
def next_floor(g):
    """Floor number (1..6) the Maw collapses next."""
    return N_FLOORS - g[GS_COLLAPSED]


@njit(cache=True, _nrt=False, inline="always")
def steps_needed(fl, g, rules):
    """Maw steps still needed before floor number ``fl`` collapses (A1)."""
    return (N_FLOORS + 1 - fl) * np.int64(rules[R_STEPS_PER_FLOOR]) - g[GS_STEPS]


@njit(cache=True, _nrt=False, inline="always")
def dread_rate(g, n):
    """Dread added to the track per player-turn so far this game, as observed (a bot's
    estimate; prior: one per player-turn over one round, so the first turns lean on it)."""
    return (g[GS_DREAD_ADDED] + n) / np.float64(g[GS_TURNS] + n)


@njit(cache=True, _nrt=False, inline="always")
def turns_to_come(p, n, g, own):
    """Player-turns of this round still to add Dread after seat p's decision: the seats
    after p in turn order (§6A, first player = (round - 1) mod n), plus p's own when its
    Dread is still to come (``own``)."""
    first = (g[GS_ROUND] - 1) % n
    pos = (p - first) % n
    return n - 1 - pos + (1 if own else 0)


@njit(cache=True, _nrt=False, inline="always")
def doomed_this_round(fl, p, n, g, rules, margin, own):
    """Would floor ``fl`` likely collapse in this round's Maw phase? (a bot's estimate)

    The Maw gains ``maw.steps_per_round`` steps and ``maw.dread_full_steps`` more when the
    Dread track is full in the Maw phase (§6B.1, A1). The track's fill is forecast from the
    Dread the turns still to come this round add at the rate observed so far
    (:func:`dread_rate`): it fills when track + expected + ``margin`` x sqrt(expected)
    reaches its length (``margin``: the bot's safety in standard deviations of a Poisson
    count). ``own``: seat p's own Dread of this turn is still to come.
    """
    if fl != next_floor(g):
        return False
    need = steps_needed(fl, g, rules)
    gain = rules[R_STEPS_PER_ROUND]
    if need <= gain:
        return True
    if need > gain + rules[R_DREAD_FULL_STEPS]:
        return False
    left = g[GS_DREAD_LEN] - g[GS_DREAD]
    if left <= 0:
        return True
    mu = turns_to_come(p, n, g, own) * dread_rate(g, n)
    return mu + margin * np.sqrt(mu) >= left


@njit(cache=True, _nrt=False, inline="always")
def rounds_until(fl, g, rules, n):
    """Estimated rounds before floor ``fl`` collapses (>= 1; one collapse per round), with
    the Dread track filling at the rate observed so far (at most once a round)."""
    k = next_floor(g) - fl + 1
    fills = min(1.0, dread_rate(g, n) * n / g[GS_DREAD_LEN])
    rate = rules[R_STEPS_PER_ROUND] + fills * rules[R_DREAD_FULL_STEPS]
    est = steps_needed(fl, g, rules) / rate
    return est if est > k else np.float64(k)
