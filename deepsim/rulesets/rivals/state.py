"""The Rivals kernel's game state: what each array holds, who may read it, small helpers.

A game's state is a flat tuple of fixed-size arrays (:func:`new_scratch`), allocated once
per block of games and reset between games. Three parts:

- **public** (``X_PS`` .. ``X_PL``): what every player sees: the round, whose turn, the
  activation tokens, the Aether bank; every tile (type, spawn owner, searched coral, den
  state, who stands there); every model (owner, unit, tile, wounds, hearts, swimming,
  whether it acted, charges, equipped loot); every revealed Lurker; every player's Aether,
  models and Loot Supply. Bots read only these (``bots.py``).
- **hidden** (``X_HS`` .. ``X_EVDISC``): the order of the Lurker, loot and event decks and
  their discard piles. Only the rules (``kernel.py``) read them.
- **engine** (``X_E`` ..): the game's two random streams (dice and decks; the bots' own
  coins, so a bot change does not move the dice), the trace buffer, the output counters
  and work buffers.

Model tiles: a tile index on the board, :data:`RESERVE` in reserve (RV-S8), :data:`DEAD`
destroyed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import below, uniform
from deepsim.rulesets.events import append_event
from deepsim.rulesets.rivals.dice import MAX_ROLLED, RR_N
from deepsim.rulesets.rivals.layout import (
    EVENT_WIDTH,
    MAX_DENS,
    MAX_EVENTS,
    MAX_LOOT,
    MAX_LURKER_CARDS,
    MAX_MODELS,
    MAX_P,
    MAX_PER_TILE,
    N_GAME_INT,
    N_SEAT_INT,
    N_SIT,
)

RESERVE, DEAD = -1, -2

#: typed constants for flags and counts passed between compiled functions: a Python
#: literal (True, 0) makes numba compile the callee once per literal value
TRUE = np.bool_(True)
FALSE = np.bool_(False)
ZERO = np.int64(0)
ONE = np.int64(1)
NONE = np.int64(-1)

# ---- public scalars: int64[PS_N] -------------------------------------------------------
(PS_PLAYERS, PS_ROUND, PS_TURN, PS_ACTIVE, PS_TOK_M, PS_TOK_A, PS_TOK_E, PS_BANK, PS_OVER,
 PS_QUIET, PS_ATTACKED, PS_NMODELS, PS_MAP, PS_NTILES, PS_NLURK, PS_NELIM,
 PS_COLUMN_A_USED) = range(17)
PS_N = 17
# PS_TOK_M/A/E: activation tokens in the Movement, Attack and End columns (RV-A1; with
# activation.model budgets: movement and attack activations left); PS_QUIET: full rounds
# since an attack last wounded (the bots' standoff breaker); PS_ATTACKED: a wound this round;
# PS_NLURK: Lurker slots used; PS_NELIM: players eliminated so far

# ---- tiles: int64[MAX_TILES, TL_N] -----------------------------------------------------
TL_TYPE, TL_OWNER, TL_SEARCHED, TL_DEN, TL_OCC_OWNER, TL_OCC_SMALL, TL_OCC_LARGE = range(7)
TL_N = 7
# TL_OWNER: the player whose spawn it is (-1); TL_DEN: layout.DEN_* or a Lurker slot;
# TL_OCC_OWNER: the player whose models stand there (-1 empty)

# ---- models: int64[MAX_MODELS, MD_N] ---------------------------------------------------
(MD_OWNER, MD_UNIT, MD_TILE, MD_WOUNDS, MD_HEARTS, MD_SWIM, MD_ACTED, MD_CHARGES, MD_MOVES,
 MD_SLOT_W, MD_SLOT_A, MD_SLOT_I, MD_UP_ATT, MD_UP_DEF, MD_COST, MD_LARGE, MD_MINION,
 MD_ATTACKS_TURN) = range(18)
MD_N = 18
# MD_ACTED: used in the Attack column this turn (RV-A6); MD_CHARGES: Charges that degrade
# its attack now (AMB-12/30); MD_MOVES: movement activations this turn (AMB-06);
# MD_SLOT_*: loot held per slot (AMB-23); MD_UP_*: upgrades its loot gives

# ---- revealed Lurkers: int64[MAX_DENS, LR_N] -------------------------------------------
LR_CARD, LR_WOUNDS, LR_TILE, LR_ALIVE = range(4)
LR_N = 4

# ---- players: int64[MAX_P, PL_N] -------------------------------------------------------
(PL_AETHER, PL_ALIVE, PL_ON_BOARD, PL_RESERVE, PL_MINION_PAID, PL_SUPPLY, PL_BOT, PL_BUILD,
 PL_ELIM_ROUND, PL_PLACE, PL_COST_LEFT) = range(11)
PL_N = 11
# PL_MINION_PAID: bit u set once a minion of unit u paid for its ability this player-turn
# (RV-C9, AMB-41)

# ---- hidden scalars: int64[HS_N] --------------------------------------------------------
HS_LDECK_N, HS_LDISC_N, HS_LOOT_N, HS_EV_N, HS_EVDISC_N = range(5)
HS_N = 5

# ---- engine scalars: int64[E_N] ---------------------------------------------------------
E_CTR, E_BCTR, E_TRACE, E_EVN, E_CHECK, E_VIOL = range(6)
E_N = 6
# E_CHECK: the invariant checks run after every activation and phase (a test-only switch,
# not a rule parameter); E_VIOL: the first invariant broken (layout.INVARIANTS, 0 none)
#: the stream keys: X_KEY[0] dice and decks, X_KEY[1] the bots' own coins
K_DICE, K_BOT = 0, 1

# ---- the bot's plan of one activation: int64[PLAN_N] -----------------------------------
PLAN_ACT, PLAN_TILE, PLAN_N_MODELS = range(3)
PLAN_HEAD = 3
PLAN_STRIDE = 4
# then per model: (model, destination or target kind, movement action or target, focus)
PLAN_N = PLAN_HEAD + PLAN_STRIDE * MAX_PER_TILE

# ---- the bots' work buffers -------------------------------------------------------------
#: int64: BFS layers (entries and parent per step count and tile), masks, the turn's cache
#: (bots.py lays it out and checks it fits)
WI_N = 10_000
#: float64: per-tile values and the position fields of up to 64 models (bots.py)
WF_N = 40_000

# ---- positions in the scratch tuple ----------------------------------------------------
(X_PS, X_TILE, X_MOD, X_LUR, X_PL,                                  # public
 X_HS, X_LDECK, X_LDISC, X_LOOT, X_EVDECK, X_EVDISC,                # hidden
 X_E, X_KEY, X_EV, X_GST, X_SST, X_RR, X_FB, X_POOL, X_SIT, X_PLAN,  # engine
 X_WI, X_WF, X_KILLERS) = range(24)


@njit(cache=True)
def new_scratch(max_events, n_tiles, n_colours):
    """Allocate one block's per-game arrays (reset, not reallocated, between games).

    Parameters
    ----------
    max_events : int
        Rows of the trace event buffer (1 when not tracing).
    n_tiles, n_colours : int
        Tiles of the run's map geometry; dice colours.
    """
    return (np.zeros(PS_N, np.int64),                          # public scalars
            np.zeros((n_tiles, TL_N), np.int64),                # tiles
            np.zeros((MAX_MODELS, MD_N), np.int64),             # models
            np.zeros((MAX_DENS, LR_N), np.int64),               # revealed Lurkers
            np.zeros((MAX_P, PL_N), np.int64),                  # players
            np.zeros(HS_N, np.int64),                           # hidden scalars
            np.full(MAX_LURKER_CARDS, -1, np.int64),            # Lurker deck (top = last)
            np.full(MAX_LURKER_CARDS, -1, np.int64),            # defeated Lurkers
            np.full(MAX_LOOT, -1, np.int64),                    # loot deck (top = last)
            np.full(MAX_EVENTS, -1, np.int64),                  # event deck (top = last)
            np.full(MAX_EVENTS, -1, np.int64),                  # event discard
            np.zeros(E_N, np.int64),                            # engine scalars
            np.zeros(2, np.uint64),                             # stream keys
            np.zeros((max_events, EVENT_WIDTH), np.int64),      # trace events
            np.zeros(N_GAME_INT, np.int64),                     # game counters
            np.zeros((MAX_P, N_SEAT_INT), np.int64),            # per-seat counters
            np.zeros((2, RR_N), np.int64),                      # the two rolls' totals
            np.zeros((2, MAX_ROLLED), np.int64),                # the two rolls' faces
            np.zeros((4, n_colours), np.int64),                 # pools being built
            np.zeros((2, N_SIT), np.int64),                     # situations of a roll
            np.zeros(PLAN_N, np.int64),                         # the bot's plan
            np.zeros(WI_N, np.int64),                           # bots' int work buffer
            np.zeros(WF_N, np.float64),                         # bots' float work buffer
            np.zeros((MAX_P, MAX_P), np.int64))                 # kills by seat of seat


@njit(cache=True, inline="always")
def dice_below(scr, n):
    """Next uniform integer in [0, n) of the game's dice-and-decks stream."""
    eng = scr[X_E]
    v = below(scr[X_KEY][K_DICE], np.uint64(eng[E_CTR]), n)
    eng[E_CTR] += 1
    return v


@njit(cache=True, inline="always")
def bot_below(scr, n):
    """Next uniform integer in [0, n) of the bots' own stream (their coins only)."""
    eng = scr[X_E]
    v = below(scr[X_KEY][K_BOT], np.uint64(eng[E_BCTR]), n)
    eng[E_BCTR] += 1
    return v


@njit(cache=True, inline="always")
def bot_uniform(scr):
    """Next uniform float in [0, 1) of the bots' own stream."""
    eng = scr[X_E]
    v = uniform(scr[X_KEY][K_BOT], np.uint64(eng[E_BCTR]))
    eng[E_BCTR] += 1
    return v


@njit(cache=True, inline="always")
def emit(scr, kind, a, b, c, d, e, f, g, h):
    """Append one trace event (round, active player, kind, a .. h; no-op unless traced)."""
    if scr[X_E][E_TRACE] == 0:     # a quiet game evaluates none of the row
        return
    ps = scr[X_PS]
    append_event(scr[X_EV], scr[X_E], E_TRACE, E_EVN,
                 (np.int64(ps[PS_ROUND]), np.int64(ps[PS_ACTIVE]), np.int64(kind),
                  np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e),
                  np.int64(f), np.int64(g), np.int64(h)))


@njit(cache=True, inline="always")
def tracing(scr):
    """Whether this game writes trace events."""
    return scr[X_E][E_TRACE] != 0
