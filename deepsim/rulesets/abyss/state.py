"""The Abyss kernel's game state: what each array holds, who may read it, small helpers.

A game's state is a flat tuple of fixed-size arrays (:func:`new_scratch`), allocated once
per block of games and reset between games. The tuple has three parts:

- **public** (``X_PS`` .. ``X_AFF``): what every player sees: the Depth row, the Court,
  the size of each Council stack, the face-up locations, every player's pearls, lords
  (covered or not), locations, Key tokens, Monster token count and affiliated allies, the
  Threat position and the size of every deck and pile. :func:`view` returns exactly these
  arrays; a bot function receives them, its own hand and its knobs, nothing else.
- **hidden** (``X_HAND`` .. ``X_TOK``): hands, the contents of the Council stacks, the
  order of the Depth deck, discard, lord deck, location stack and Monster tokens, and each
  player's Monster token VP. Only the rules (kernel.py) read them.
- **engine** (``X_E`` ..): the game's random stream (key and counter), the trace buffer,
  the output counters and the bots' work buffer.

Cards are coded as in ``layout``: an ally is ``race * 16 + value``, a monster ``MONSTER``.
Hands and Council stacks are counts ``[race, value]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import below
from deepsim.rulesets.abyss.layout import (
    CODE_RACE_MUL,
    EVENT_WIDTH,
    MAX_COURT,
    MAX_DEPTH,
    MAX_LOCS,
    MAX_LORDS,
    MAX_OWN,
    MAX_P,
    MAX_ROW,
    MAX_TOKENS,
    N_GAME_INT,
    N_RACES,
    N_SEAT_INT,
    NV,
)
from deepsim.rulesets.events import append_event

# ---- public scalars: int64[PS_N] -------------------------------------------------------
(PS_PLAYERS, PS_TURN, PS_ACTIVE, PS_THREAT, PS_KEY_SUPPLY, PS_TOKENS_LEFT, PS_DEPTH_N,
 PS_DISC_N, PS_LDECK_N, PS_LSTACK_N, PS_LVIS_N, PS_COURT_N, PS_ROW_N, PS_ROW_POS,
 PS_END_TRIG, PS_TRIGGER_SEAT, PS_FINAL, PS_BOUGHT_N, PS_BANK, PS_OVER, PS_ROUND,
 PS_REFILL_FAILED) = range(22)
PS_N = 22
# PS_THREAT: 0-based Threat position; PS_ROW_N: cards in the row; PS_ROW_POS: slots used this
# turn (AMB-A2 false); PS_END_TRIG: 0, or 1 + an END_* cause; PS_FINAL: 1 in the final turns;
# PS_BOUGHT_N: allies bought this turn (AB-E2 price); PS_BANK: pearls in the bank (-1 =
# unlimited, AMB-A16)

# ---- public per-player scalars: int64[MAX_P, PL_N] -------------------------------------
(PL_PEARLS, PL_LORDS, PL_LOCS, PL_KEYTOK, PL_MTOK, PL_BOUGHT, PL_KEYS, PL_LORD_VP,
 PL_LOC_VP, PL_DONE) = range(10)
PL_N = 10
# PL_BOUGHT: allies bought this turn; PL_KEYS: keys on uncovered lords; PL_DONE: 1 once the
# player has played its final turn (or triggered the end)

# ---- hidden per-player scalars: int64[MAX_P, PH_N] -------------------------------------
PH_HAND_N, PH_MVP, PH_BOT = range(3)
PH_N = 3
# PH_MVP: VP of the player's face-down Monster tokens; PH_BOT: its bot profile row

# ---- engine scalars: int64[E_N] ---------------------------------------------------------
E_CTR, E_TRACE, E_EVN = range(3)
E_N = 3

#: the bots' int64 work buffer (offsets): payments of N_RACES x NV counts (a candidate,
#: the best so far, a temporary), the race sets of a random payment, the unseen location
#: values, the ids of drawn locations, the hand's race totals and the chosen Court index
WI_PAY = 0
WI_BEST = WI_PAY + N_RACES * NV
WI_TMP = WI_BEST + N_RACES * NV
WI_SETS = WI_TMP + N_RACES * NV
WI_LOCS = WI_SETS + 32
WI_DRAWN = WI_LOCS + MAX_LOCS
WI_TOT = WI_DRAWN + MAX_LOCS
WI_CHOICE = WI_TOT + N_RACES
WI_N = WI_CHOICE + 1

# ---- positions in the scratch tuple ----------------------------------------------------
(X_PS, X_ROW, X_COURT, X_CN, X_LVIS, X_PL, X_PLORD, X_PCOV, X_PLOC, X_AFF,   # public
 X_HAND, X_PH, X_CNCL, X_DECK, X_DISC, X_LDECK, X_LSTACK, X_TOK,            # hidden
 X_E, X_KEY, X_EV, X_GST, X_SST, X_WI) = range(24)                          # engine
N_PUBLIC = 10

# ---- positions in the data tuple (the compiled arrays, compile.AbyssArrays) ------------
# D_FMIX: per bot style (the faction), its own bot profiles (scenario key faction_bots;
# deepsim.factionmix)
(D_RULES, D_DEPTH, D_LORDS, D_LOCS, D_THREAT, D_TOKENS, D_KNOBS, D_SEAT_BOT, D_BOT_POOL,
 D_PLAYER_OPTS, D_FMIX) = range(11)


@njit(cache=True)
def new_scratch(max_events):
    """Allocate one block's per-game arrays (reset, not reallocated, between games).

    Parameters
    ----------
    max_events : int
        Rows of the trace event buffer (1 when not tracing).
    """
    return (np.zeros(PS_N, np.int64),                       # public scalars
            np.full(MAX_ROW, -1, np.int64),                 # Depth row: card codes
            np.full(MAX_COURT, -1, np.int64),               # Court: lord ids
            np.zeros(N_RACES, np.int64),                    # Council stack sizes
            np.full(MAX_LOCS, -1, np.int64),                # face-up locations: ids
            np.zeros((MAX_P, PL_N), np.int64),              # per-player public scalars
            np.full((MAX_P, MAX_OWN), -1, np.int64),        # lords owned: ids
            np.zeros((MAX_P, MAX_OWN), np.int64),           # ... covered (AB-K3)
            np.full((MAX_P, MAX_LOCS), -1, np.int64),       # locations owned: ids
            np.zeros((MAX_P, N_RACES, NV), np.int64),       # affiliated allies (AB-L3)
            np.zeros((MAX_P, N_RACES, NV), np.int64),       # hands (hidden)
            np.zeros((MAX_P, PH_N), np.int64),              # hidden per-player scalars
            np.zeros((N_RACES, NV), np.int64),              # Council stack contents
            np.full(MAX_DEPTH, -1, np.int64),               # Depth deck (top = last)
            np.full(MAX_DEPTH, -1, np.int64),               # Depth discard
            np.full(MAX_LORDS, -1, np.int64),               # lord deck (top = last)
            np.full(MAX_LOCS, -1, np.int64),                # location stack (top = last)
            np.full(MAX_TOKENS, -1, np.int64),              # Monster tokens (top = last)
            np.zeros(E_N, np.int64),                        # engine scalars
            np.zeros(1, np.uint64),                         # the game's stream key
            np.zeros((max_events, EVENT_WIDTH), np.int64),  # trace events
            np.zeros(N_GAME_INT, np.int64),                 # game counters
            np.zeros((MAX_P, N_SEAT_INT), np.int64),        # per-seat counters
            np.zeros(WI_N, np.int64))                       # bots' work buffer


@njit(cache=True, inline="always")
def view(scr):
    """The public arrays of the state: all a bot may read besides its own hand.

    (ps, row, court, council_sizes, face_up_locations, pl, lords_owned, covered,
    locations_owned, affiliated).
    """
    return (scr[X_PS], scr[X_ROW], scr[X_COURT], scr[X_CN], scr[X_LVIS], scr[X_PL],
            scr[X_PLORD], scr[X_PCOV], scr[X_PLOC], scr[X_AFF])


@njit(cache=True, inline="always")
def bot_rng(scr):
    """(engine scalars, stream key, work buffer): the bots' random stream and scratch."""
    return (scr[X_E], scr[X_KEY], scr[X_WI])


@njit(cache=True, inline="always")
def rand_below(R, n):
    """Next uniform integer in [0, n) of this game's stream (advances the counter).

    ``R`` is :func:`bot_rng`'s tuple (or any tuple whose items 0 and 1 are the engine
    scalars and the key).
    """
    eng = R[0]
    v = below(R[1][0], np.uint64(eng[E_CTR]), n)
    eng[E_CTR] += 1
    return v


@njit(cache=True, inline="always")
def emit(scr, kind, a, b, c, d, e, f):
    """Append one trace event (turn, active player, kind, a .. f; no-op unless traced)."""
    if scr[X_E][E_TRACE] == 0:     # a quiet game evaluates none of the row
        return
    ps = scr[X_PS]
    append_event(scr[X_EV], scr[X_E], E_TRACE, E_EVN,
                 (np.int64(ps[PS_TURN]), np.int64(ps[PS_ACTIVE]), np.int64(kind),
                  np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e),
                  np.int64(f)))


@njit(cache=True, inline="always")
def card_race(code):
    """Race index of an ally code."""
    return code // CODE_RACE_MUL


@njit(cache=True, inline="always")
def card_value(code):
    """Value of an ally code."""
    return code % CODE_RACE_MUL


@njit(cache=True, inline="always")
def ally_code(r, v):
    """The code of an ally of race ``r`` and value ``v``."""
    return r * CODE_RACE_MUL + v
