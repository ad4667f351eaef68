"""The Rivals game kernel: whole games in numba, one output row per game.

Every rule carries its rule id (RV-*) and, where the text is silent or unclear, the
ambiguity id (AMB-*) with the parameter that settles it (docs/RULES.md, "Rivals"). All
numbers come in through the arrays of :mod:`deepsim.rulesets.rivals.compile`; the kernel
has no rule constants of its own. Decisions are delegated to
:mod:`deepsim.rulesets.rivals.bots`, which receive the public view (:func:`view`) and
their knobs only; legality is decided here and in :mod:`board`.

Seat 0 is the first player (RV-S9: seats rotate over games instead of a roll for first
player, the ``rotate`` scenario key); turns pass clockwise, seat p, p+1, ... (RV-R).

Rules the engine does not play are listed in ``SKIPPED_RULES`` (the ruleset class),
docs/RULES.md and every banner.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.blocks import run_blocks
from deepsim.factionmix import faction_bot
from deepsim.rng import game_key, mix64
from deepsim.rulesets.rivals import bots
from deepsim.rulesets.rivals.board import (
    D_BOT_POOL,
    D_BUILD_HEARTS,
    D_BUILD_POOL,
    D_DIST,
    D_DR,
    D_EVENTS,
    D_FACES,
    D_FMIX,
    D_LOOT,
    D_LURK,
    D_MLOS,
    D_MMULL,
    D_MODTAB,
    D_MOWNER,
    D_MTYPE,
    D_NB,
    D_NFACES,
    D_PLAYER_OPTS,
    D_POOL_COUNT,
    D_POOL_FIRST,
    D_RULES,
    D_SEAT_BOT,
    D_SEAT_BUILD,
    D_TEAMS,
    D_UNITS,
    can_stop,
    current_pool,
    path_to,
    target_ok,
)
from deepsim.rulesets.rivals.dice import (
    DR_DEF_EXPLODES,
    FACE_MUL,
    RR_AETHER,
    RR_BASE_HITS,
    RR_DICE,
    RR_EXPLOSIONS,
    RR_EXTRA,
    RR_HITS,
    RR_SHIELDS,
    roll_pool,
)
from deepsim.rulesets.rivals.layout import (
    G_RNG_DRAWS,
    INV_ATTACKS,
    INV_AETHER,
    INV_CAPACITY,
    INV_COUNTS,
    INV_NONE,
    INV_OCCUPANCY,
    INV_RIVALS_SHARE,
    INV_TILE,
    INV_TOKENS,
    INV_WOUNDS,
    TT_VOID,
    R_SMALL_PER_TILE,
    ACT_ATTACK,
    ACT_CORAL,
    ACT_DEN,
    ACT_END,
    ACT_MOVE,
    ACT_PASS_M,
    ACT_REINFORCE,
    BY_EVENT,
    BY_LURKER,
    BY_NONE,
    DEN_CAVE,
    DEN_HIDDEN,
    DEN_INERT,
    EE_AETHER_EACH,
    EE_LOOT,
    EE_LURKER_PHASE,
    EE_REVEAL_DEN,
    EE_WOUND_RANDOM,
    EFF_HEART,
    EFF_UP_ATT,
    EFF_UP_DEF,
    END_CAP,
    END_ELIM,
    END_SIMUL,
    EV_ACTIVATION,
    EV_ATTACK,
    EV_BANK_EMPTY,
    EV_CHARGE,
    EV_DEPLOY,
    EV_DIE,
    EV_ELIMINATED,
    EV_END,
    EV_EVENT,
    EV_FOCUS,
    EV_KILL,
    EV_LAND,
    EV_LOOT,
    EV_LURKER_ATTACK,
    EV_LURKER_PHASE,
    EV_LURKER_REVEAL,
    EV_MOVE,
    EV_PASS,
    EV_POOL,
    EV_REINFORCE,
    EV_RESHUFFLE,
    EV_RESULT,
    EV_ROCK,
    EV_SEARCH,
    EV_SEAT,
    EV_SETUP,
    EV_SWIM,
    EV_TURN,
    F_HIT,
    F_XHIT,
    G_AETHER_GAINED,
    G_AETHER_SPENT,
    G_ATTACKS,
    G_BANK_EMPTY,
    G_CHARGES,
    G_CORAL_SEARCHES,
    G_DEN_SEARCHES,
    G_END_CAUSE,
    G_EVENTS,
    G_EXPLOSIONS,
    G_FIRST_ELIM,
    G_FOCUS,
    G_KILLS,
    G_KILLS_EXTRA,
    G_LANDS,
    G_LONGEST_QUIET,
    G_LOOT_FOUND,
    G_LOOT_SOLD,
    G_LURKER_ATTACKS,
    G_LURKER_KILLS,
    G_LURKER_WOUNDS,
    G_LURKERS_KILLED,
    G_LURKERS_REVEALED,
    G_MAP,
    G_MAX_EXTRA,
    G_MULLIGANS,
    G_N_WINNERS,
    G_PASSES,
    G_PLAYERS,
    G_REINFORCEMENTS,
    G_ROCK_FAILS,
    G_ROCK_TRIES,
    G_ROUNDS,
    G_SWIMS,
    G_TREASURES,
    G_TRUNCATED,
    G_TURNS,
    G_WINNER_COST_LEFT,
    G_WINNER_SEAT,
    G_WOUNDS,
    LK_AETHER,
    LK_HEARTS,
    LK_LOOT,
    LK_N,
    LK_TREASURE,
    LT_EFFECT,
    LT_SLOT,
    LT_VALUE,
    MA_CHARGE,
    MA_LAND,
    MA_NONE,
    MA_SWIM,
    MAX_P,
    MAX_PER_TILE,
    MAX_SPEED,
    N_GAME_INT,
    N_SEAT_FLT,
    N_SEAT_INT,
    OVERFLOW_DROP,
    OVERFLOW_SELL,
    R_ACT_MODEL,
    R_AETHER_BANK,
    R_ATTACKERS,
    R_CAP_RESULT,
    R_CHARGE_BONUS,
    R_CHARGE_SCOPE,
    R_CHARGE_STACKS,
    R_CORAL_DIE,
    R_CORAL_FLIP,
    R_FOCUS_UPGRADES,
    R_LAND_ON_ROCK,
    R_LAND_TIMING,
    R_LOOT_SUPPLY,
    R_LURKER_DEF_AETHER,
    R_LURKER_RESHUFFLE,
    R_LURKERS,
    R_MAX_ROUNDS,
    R_MINION_PAY_ONCE,
    R_MOVE_REPEAT,
    R_OVERFLOW,
    R_REINFORCE_MOVE,
    R_RESERVE_ALIVE,
    R_ROCK_DIE,
    R_ROCK_NEEDS_SWIM,
    R_ROTATE,
    R_SLOT_ARMOUR,
    R_SLOT_ITEM,
    R_SLOT_WEAPON,
    R_START_AETHER,
    R_SWIM_BONUS,
    R_SWIM_PERSISTENT,
    R_TOKENS,
    R_UNREVEALED_DENS,
    R_WOUNDS_PER_HIT,
    S_ACTION_ACTS,
    S_AETHER_END,
    S_AETHER_GAINED,
    S_AETHER_SPENT,
    S_ATTACK_ACTS,
    S_ATTACKS,
    S_BOT,
    S_BUILD,
    S_CHARGES,
    S_CORAL_SEARCHES,
    S_COST_LEFT,
    S_COST_START,
    S_DENS_SEARCHED,
    S_ELIM_BY,
    S_ELIM_ROUND,
    S_FOCUS,
    S_KILL_COST,
    S_KILLERS,
    S_KILLS,
    S_LANDS,
    S_LOOT_FOUND,
    S_LOOT_SOLD,
    S_LOST_TO_LURKERS,
    S_LURKER_KILLS_MADE,
    S_LURKER_LOOT,
    S_LURKER_WOUNDS,
    S_LURKERS_KILLED,
    S_MODELS_LEFT,
    S_MODELS_START,
    S_MOVE_ACTS,
    S_NET_HITS,
    S_PASSES,
    S_PLACE,
    S_REINFORCEMENTS,
    S_RESERVE_START,
    S_ROCK_OK,
    S_ROCK_ROUNDS,
    S_ROCK_TRIES,
    S_SWIMS,
    S_TURNS,
    S_WOUNDS_DEALT,
    S_WOUNDS_TAKEN,
    SF_WIN,
    SLOT_ARMOUR,
    SLOT_ITEM,
    SLOT_WEAPON,
    TT_CORAL,
    TT_DEN,
    TT_ROCK,
    TT_SAND,
    TT_SPAWN,
    U_ABILITY,
    U_COST,
    U_HEARTS,
    U_LARGE,
    U_MINION,
    U_RANGE,
    U_SPEED,
)
from deepsim.rulesets.rivals.state import (
    E_CHECK,
    E_VIOL,
    DEAD,
    FALSE,
    NONE,
    ONE,
    TRUE,
    ZERO,
    E_BCTR,
    E_CTR,
    E_EVN,
    E_TRACE,
    HS_EV_N,
    HS_EVDISC_N,
    HS_LDECK_N,
    HS_LDISC_N,
    HS_LOOT_N,
    K_BOT,
    K_DICE,
    LR_ALIVE,
    LR_CARD,
    LR_TILE,
    LR_WOUNDS,
    MD_ACTED,
    MD_ATTACKS_TURN,
    MD_CHARGES,
    MD_COST,
    MD_HEARTS,
    MD_LARGE,
    MD_MINION,
    MD_MOVES,
    MD_OWNER,
    MD_SLOT_A,
    MD_SLOT_I,
    MD_SLOT_W,
    MD_SWIM,
    MD_TILE,
    MD_UNIT,
    MD_UP_ATT,
    MD_UP_DEF,
    MD_WOUNDS,
    PL_AETHER,
    PL_ALIVE,
    PL_BOT,
    PL_BUILD,
    PL_COST_LEFT,
    PL_ELIM_ROUND,
    PL_MINION_PAID,
    PL_ON_BOARD,
    PL_PLACE,
    PL_RESERVE,
    PL_SUPPLY,
    PLAN_ACT,
    PLAN_HEAD,
    PLAN_N_MODELS,
    PLAN_STRIDE,
    PLAN_TILE,
    PS_ATTACKED,
    PS_BANK,
    PS_MAP,
    PS_NELIM,
    PS_NLURK,
    PS_NMODELS,
    PS_NTILES,
    PS_OVER,
    PS_PLAYERS,
    PS_QUIET,
    PS_ROUND,
    PS_ACTIVE,
    PS_TOK_A,
    PS_TOK_E,
    PS_TOK_M,
    PS_TURN,
    RESERVE,
    TL_DEN,
    TL_OCC_LARGE,
    TL_OCC_OWNER,
    TL_OCC_SMALL,
    TL_OWNER,
    TL_SEARCHED,
    TL_TYPE,
    X_E,
    X_EV,
    X_EVDECK,
    X_EVDISC,
    X_FB,
    X_GST,
    X_HS,
    X_KEY,
    X_KILLERS,
    X_LDECK,
    X_LDISC,
    X_LOOT,
    X_LUR,
    X_MOD,
    X_PL,
    X_PLAN,
    X_POOL,
    X_PS,
    X_RR,
    X_SIT,
    X_SST,
    X_TILE,
    X_WF,
    X_WI,
    bot_below,
    dice_below,
    emit,
    new_scratch,
    tracing,
)

#: salt of the bots' own stream (the bots' coins never move the dice)
_BOT_SALT = np.uint64(0x9E6C63D0676A9A99)
#: offsets of the kernel's own use of the int work buffer (the bots use it between calls)
_W_LAY = 0
_W_PAR = (MAX_SPEED + 1) * 128
_W_PATH = _W_PAR + (MAX_SPEED + 2) * 128


@njit(cache=True, inline="always")
def view(scr):
    """The public arrays and the bots' own working parts: all a bot may read.

    (ps, tiles, models, lurkers, players, plan, work ints, work floats, pools, situations,
    engine scalars, stream keys). A bot draws only from the bots' stream (key ``K_BOT``,
    counter ``E_BCTR``); the decks (``X_LDECK`` ..) are not in the view.
    """
    return (scr[X_PS], scr[X_TILE], scr[X_MOD], scr[X_LUR], scr[X_PL], scr[X_PLAN],
            scr[X_WI], scr[X_WF], scr[X_POOL], scr[X_SIT], scr[X_E], scr[X_KEY])


@njit(cache=True, inline="always")
def pack_pool(pool):
    """A pool as one integer for the trace: 6 bits of count per colour, strongest first."""
    v = 0
    for c in range(pool.shape[0]):
        v += min(pool[c], 63) << (6 * c)
    return v


@njit(cache=True)
def shuffle(scr, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` with the dice-and-decks stream (RV-S2)."""
    for i in range(n - 1, 0, -1):
        j = dice_below(scr, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


# ---- invariants (tests only: E_CHECK) ----------------------------------------------------

@njit(cache=True)
def check_state(scr, dat):
    """The invariants a legal state keeps; 0 or the first broken one (``layout.INV_*``):
    each tile's occupancy matches its models, holds one Large or at most
    ``small_per_tile`` Small models of one player (RV-T2) and is a tile a model may stand
    on; no model attacked twice this turn (RV-A6); every model in play has wounds below
    its hearts (RV-C8); the players' Aether and the bank add up to the box's tokens
    (AMB-24); the activation tokens add up during a turn (RV-A1; before the first turn
    there are none); each player's counts match its models."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    tiles = scr[X_TILE]
    models = scr[X_MOD]
    pl = scr[X_PL]
    nm = ps[PS_NMODELS]
    nt = ps[PS_NTILES]
    small_cap = np.int64(rules[R_SMALL_PER_TILE])
    for t in range(nt):
        small = 0
        big = 0
        owner = -1
        for i in range(nm):
            if models[i, MD_TILE] == t:
                if models[i, MD_LARGE]:
                    big += 1
                else:
                    small += 1
                if owner >= 0 and models[i, MD_OWNER] != owner:
                    return INV_RIVALS_SHARE
                owner = models[i, MD_OWNER]
        if small != tiles[t, TL_OCC_SMALL] or big != tiles[t, TL_OCC_LARGE]:
            return INV_OCCUPANCY
        if (small + big > 0) != (tiles[t, TL_OCC_OWNER] >= 0):
            return INV_OCCUPANCY
        if big > 1 or (big > 0 and small > 0) or small > small_cap:
            return INV_CAPACITY
        if small + big > 0:
            ty = tiles[t, TL_TYPE]
            if ty == TT_VOID or (ty == TT_DEN and tiles[t, TL_DEN] != DEN_CAVE):
                return INV_TILE
    total = ps[PS_BANK]
    for q in range(ps[PS_PLAYERS]):
        total += pl[q, PL_AETHER]
        on = 0
        res = 0
        for i in range(nm):
            if models[i, MD_OWNER] == q:
                if models[i, MD_TILE] >= 0:
                    on += 1
                elif models[i, MD_TILE] == RESERVE:
                    res += 1
        if on != pl[q, PL_ON_BOARD] or res != pl[q, PL_RESERVE]:
            return INV_COUNTS
    if total != np.int64(rules[R_AETHER_BANK]):
        return INV_AETHER
    for i in range(nm):
        if models[i, MD_TILE] >= 0:
            if models[i, MD_WOUNDS] >= models[i, MD_HEARTS]:
                return INV_WOUNDS
            if models[i, MD_ATTACKS_TURN] > 1:
                return INV_ATTACKS
    tokens = np.int64(rules[R_TOKENS])
    used = ps[PS_TOK_M] + ps[PS_TOK_A] + ps[PS_TOK_E]
    if ps[PS_TOK_M] < 0 or ps[PS_TOK_A] < 0 or ps[PS_TOK_E] < 0:
        return INV_TOKENS
    if rules[R_ACT_MODEL] < 0.5 and used != 0 and used != tokens:
        return INV_TOKENS                   # RV-A1: the tokens only move between columns
    return INV_NONE


@njit(cache=True)
def checkpoint(scr, dat):
    """Run :func:`check_state` when the checks are on; keep the first broken invariant."""
    eng = scr[X_E]
    if eng[E_CHECK] != 0 and eng[E_VIOL] == 0:
        eng[E_VIOL] = check_state(scr, dat)


# ---- tiles and models --------------------------------------------------------------------

@njit(cache=True, inline="always")
def place(scr, m, t):
    """Put model ``m`` on tile ``t`` (its occupancy)."""
    models = scr[X_MOD]
    tiles = scr[X_TILE]
    models[m, MD_TILE] = t
    tiles[t, TL_OCC_OWNER] = models[m, MD_OWNER]
    if models[m, MD_LARGE]:
        tiles[t, TL_OCC_LARGE] += 1
    else:
        tiles[t, TL_OCC_SMALL] += 1


@njit(cache=True, inline="always")
def lift(scr, m):
    """Take model ``m`` off its tile (its tile's occupancy)."""
    models = scr[X_MOD]
    tiles = scr[X_TILE]
    t = models[m, MD_TILE]
    if t < 0:
        return
    if models[m, MD_LARGE]:
        tiles[t, TL_OCC_LARGE] -= 1
    else:
        tiles[t, TL_OCC_SMALL] -= 1
    if tiles[t, TL_OCC_LARGE] == 0 and tiles[t, TL_OCC_SMALL] == 0:
        tiles[t, TL_OCC_OWNER] = -1


@njit(cache=True, inline="always")
def gain_aether(scr, p, n):
    """Player ``p`` takes ``n`` Aether from the bank, fewer if it runs dry (RV-C7, AMB-24).
    Returns what was taken."""
    ps = scr[X_PS]
    if n > ps[PS_BANK]:
        n = ps[PS_BANK]
    if n <= 0:
        return 0
    ps[PS_BANK] -= n
    scr[X_PL][p, PL_AETHER] += n
    scr[X_GST][G_AETHER_GAINED] += n
    scr[X_SST][p, S_AETHER_GAINED] += n
    return n


@njit(cache=True, inline="always")
def pay_aether(scr, p, n):
    """Player ``p`` pays ``n`` Aether back to the bank (an ability's cost, RV-C4)."""
    scr[X_PL][p, PL_AETHER] -= n
    scr[X_PS][PS_BANK] += n
    scr[X_GST][G_AETHER_SPENT] += n
    scr[X_SST][p, S_AETHER_SPENT] += n


@njit(cache=True, inline="always")
def any_hit(scr, dat, colour):
    """Roll one die of ``colour``; whether it shows a hit (AMB-40: an exploding hit is a
    hit, its extra die does nothing). Returns the face."""
    faces = dat[D_FACES]
    return faces[colour, dice_below(scr, dat[D_NFACES][colour])]


# ---- loot (RV-I1, AMB-23, AMB-37) -------------------------------------------------------------

@njit(cache=True)
def draw_loot(scr, dat, p, m):
    """Player ``p``'s model ``m`` finds the top loot card: equipped at once if a slot is
    free (RV-I1, AMB-23), else sold, dropped or kept in the Loot Supply (AMB-37).
    Returns the card (-1: the deck is empty)."""
    hs = scr[X_HS]
    if hs[HS_LOOT_N] == 0:
        return -1
    hs[HS_LOOT_N] -= 1
    card = scr[X_LOOT][hs[HS_LOOT_N]]
    scr[X_LOOT][hs[HS_LOOT_N]] = -1
    loot = dat[D_LOOT]
    rules = dat[D_RULES]
    models = scr[X_MOD]
    slot = loot[card, LT_SLOT]
    eff = loot[card, LT_EFFECT]
    scr[X_GST][G_LOOT_FOUND] += 1
    scr[X_SST][p, S_LOOT_FOUND] += 1
    equipped = False
    if slot == SLOT_WEAPON and models[m, MD_SLOT_W] < rules[R_SLOT_WEAPON]:
        models[m, MD_SLOT_W] += 1
        equipped = True
    elif slot == SLOT_ARMOUR and models[m, MD_SLOT_A] < rules[R_SLOT_ARMOUR]:
        models[m, MD_SLOT_A] += 1
        equipped = True
    elif slot == SLOT_ITEM and models[m, MD_SLOT_I] < rules[R_SLOT_ITEM]:
        models[m, MD_SLOT_I] += 1
        equipped = True
    how = 0
    if equipped:
        if eff == EFF_UP_ATT:
            models[m, MD_UP_ATT] += 1
        elif eff == EFF_UP_DEF:
            models[m, MD_UP_DEF] += 1
        elif eff == EFF_HEART:
            models[m, MD_HEARTS] += 1
    else:
        ov = np.int64(rules[R_OVERFLOW])
        pl = scr[X_PL]
        if ov == OVERFLOW_DROP:
            how = 2
        elif ov == OVERFLOW_SELL or pl[p, PL_SUPPLY] >= rules[R_LOOT_SUPPLY]:
            how = 1
            gain_aether(scr, p, loot[card, LT_VALUE])
            scr[X_GST][G_LOOT_SOLD] += 1
            scr[X_SST][p, S_LOOT_SOLD] += 1
        else:
            how = 3
            pl[p, PL_SUPPLY] += 1
    emit(scr, EV_LOOT, p, m, card, how, 0, 0, 0, 0)
    return card


# ---- setup (RV-S1..S9) --------------------------------------------------------------------

@njit(cache=True)
def reset(scr):
    """Empty the state for a new game (the trace flag is kept by the caller)."""
    for x in (scr[X_PS], scr[X_HS], scr[X_GST]):
        x[:] = 0
    scr[X_TILE][:, :] = 0
    scr[X_MOD][:, :] = 0
    scr[X_MOD][:, MD_TILE] = DEAD
    scr[X_MOD][:, MD_OWNER] = -1
    scr[X_LUR][:, :] = 0
    scr[X_PL][:, :] = 0
    scr[X_SST][:, :] = 0
    scr[X_KILLERS][:, :] = 0
    for x in (scr[X_LDECK], scr[X_LDISC], scr[X_LOOT], scr[X_EVDECK], scr[X_EVDISC]):
        x[:] = -1
    scr[X_E][E_CTR] = 0
    scr[X_E][E_BCTR] = 0
    scr[X_E][E_EVN] = 0
    # the bots' caches start empty: a game never depends on the games before it in a block
    scr[X_WI][:] = 0
    scr[X_WF][:] = 0.0


@njit(cache=True)
def setup(scr, dat, game):
    """RV-S1..S9 for game number ``game`` (its seat rotation)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    tiles = scr[X_TILE]
    models = scr[X_MOD]
    gst = scr[X_GST]
    sst = scr[X_SST]
    opts = dat[D_PLAYER_OPTS]
    n = opts[dice_below(scr, opts.shape[0])] if opts.shape[0] > 1 else opts[0]
    ps[PS_PLAYERS] = n
    gst[G_PLAYERS] = n
    gst[G_FIRST_ELIM] = -1
    # seats: a build (the faction column; RV-S5/S6 with a roster of builds) and a bot per
    # seat, the seat specs rotated by the game index so each plays each seat equally often
    rotate = rules[R_ROTATE] > 0.5
    sb = dat[D_SEAT_BUILD]
    bp = dat[D_BUILD_POOL]
    sbot = dat[D_SEAT_BOT]
    bpool = dat[D_BOT_POOL]
    for i in range(n):
        spec = (i + game) % n if rotate else i
        b = sb[spec]
        if b < 0:
            b = bp[dice_below(scr, bp.shape[0])]
        bot = sbot[spec]
        if bot < 0:
            bot = bpool[bot_below(scr, bpool.shape[0])]     # the bots' stream
        # a build with bots of its own (faction_bots) plays them; the stream is unchanged
        bot = faction_bot(dat[D_FMIX], b, bot, scr[X_KEY][K_DICE])
        pl[i, PL_BUILD] = b
        pl[i, PL_BOT] = bot
        pl[i, PL_ALIVE] = 1
        pl[i, PL_ELIM_ROUND] = -1
        sst[i, S_BOT] = bot
        sst[i, S_BUILD] = b
        sst[i, S_ELIM_ROUND] = -1
        sst[i, S_ELIM_BY] = BY_NONE
        emit(scr, EV_SEAT, i, b, bot, spec, 0, 0, 0, 0)
    # RV-S7 the map: one of the run's pool for this player count (maps.py), mulligans done
    m = dat[D_POOL_FIRST][n] + dice_below(scr, dat[D_POOL_COUNT][n])
    ps[PS_MAP] = m
    gst[G_MAP] = m - dat[D_POOL_FIRST][n]
    gst[G_MULLIGANS] = dat[D_MMULL][m]
    mt = dat[D_MTYPE][m]
    mo = dat[D_MOWNER][m]
    nt = mt.shape[0]
    ps[PS_NTILES] = nt
    lurkers_on = rules[R_LURKERS] > 0.5
    for t in range(nt):
        ty = mt[t]
        if ty == TT_DEN and not lurkers_on:
            ty = TT_SAND            # lurkers.enabled false: dens are plain tiles
        tiles[t, TL_TYPE] = ty
        tiles[t, TL_OWNER] = mo[t]
        tiles[t, TL_OCC_OWNER] = -1
        tiles[t, TL_DEN] = DEN_HIDDEN if ty == TT_DEN else 0
    # RV-S6 the models of each build's team for this player count
    units = dat[D_UNITS]
    teams = dat[D_TEAMS]
    hb = dat[D_BUILD_HEARTS]
    k = 0
    for i in range(n):
        b = pl[i, PL_BUILD]
        for u in range(units.shape[0]):
            for _ in range(teams[b, n, u]):
                models[k, MD_OWNER] = i
                models[k, MD_UNIT] = u
                models[k, MD_TILE] = RESERVE
                models[k, MD_HEARTS] = units[u, U_HEARTS] + hb[b]
                models[k, MD_COST] = units[u, U_COST]
                models[k, MD_LARGE] = units[u, U_LARGE]
                models[k, MD_MINION] = units[u, U_MINION]
                pl[i, PL_RESERVE] += 1
                pl[i, PL_COST_LEFT] += units[u, U_COST]
                sst[i, S_MODELS_START] += 1
                sst[i, S_COST_START] += units[u, U_COST]
                k += 1
    ps[PS_NMODELS] = k
    # RV-S8 deployment onto the player's own spawn tiles (the bot orders its models and
    # spawns); what does not fit waits in reserve (RV-A8)
    wi = scr[X_WI]
    for i in range(n):
        cnt = bots.deploy(view(scr), dat, i)
        for j in range(cnt):
            mm = wi[j]
            placed = False
            for s in range(cnt, wi.shape[0]):
                t = wi[s]
                if t < 0:
                    break
                if can_stop(tiles, rules, i, models[mm, MD_LARGE] != 0, t, NONE):
                    place(scr, mm, t)
                    pl[i, PL_RESERVE] -= 1
                    pl[i, PL_ON_BOARD] += 1
                    emit(scr, EV_DEPLOY, i, mm, t, 0, 0, 0, 0, 0)
                    placed = True
                    break
            if not placed:
                emit(scr, EV_DEPLOY, i, mm, -1, 0, 0, 0, 0, 0)
        sst[i, S_RESERVE_START] = pl[i, PL_RESERVE]
    # RV-S3 / AMB-24: 3 Aether each from the box's tokens; the rest is the bank
    bank = np.int64(rules[R_AETHER_BANK])
    start = np.int64(rules[R_START_AETHER])
    for i in range(n):
        got = min(start, bank)
        bank -= got
        pl[i, PL_AETHER] = got
    ps[PS_BANK] = bank
    # RV-S2 the decks, shuffled
    hs = scr[X_HS]
    nl = dat[D_LURK].shape[0]
    for i in range(nl):
        scr[X_LDECK][i] = i
    shuffle(scr, scr[X_LDECK], nl)
    hs[HS_LDECK_N] = nl
    nloot = dat[D_LOOT].shape[0]
    for i in range(nloot):
        scr[X_LOOT][i] = i
    shuffle(scr, scr[X_LOOT], nloot)
    hs[HS_LOOT_N] = nloot
    ne = dat[D_EVENTS].shape[0]
    for i in range(ne):
        scr[X_EVDECK][i] = i
    shuffle(scr, scr[X_EVDECK], ne)
    hs[HS_EV_N] = ne
    emit(scr, EV_SETUP, n, m, gst[G_MAP], gst[G_MULLIGANS], ps[PS_BANK], nl, nloot, ne)


# ---- eliminations and the end (RV-V1, AMB-22, AMB-38) -----------------------------------

@njit(cache=True, inline="always")
def in_game(scr, dat, p):
    """RV-V1: player ``p`` still has models (on the board; in reserve too with AMB-22)."""
    pl = scr[X_PL]
    if pl[p, PL_ON_BOARD] > 0:
        return True
    # (bool & bool, not `and`: numba's `and` as a value is slow)
    return (dat[D_RULES][R_RESERVE_ALIVE] > 0.5) & (pl[p, PL_RESERVE] > 0)


@njit(cache=True)
def check_eliminations(scr, dat):
    """Players who lost their last model in this step are out (RV-V1); several at once
    share the better of the places left (AMB-38); when one player is left the game is won,
    when none is left the last ones share the win."""
    ps = scr[X_PS]
    pl = scr[X_PL]
    sst = scr[X_SST]
    n = ps[PS_PLAYERS]
    alive = 0
    newly = 0
    for p in range(n):
        if pl[p, PL_ALIVE]:
            alive += 1
            if not in_game(scr, dat, p):
                newly += 1
    if newly == 0:
        return
    left = alive - newly
    for p in range(n):
        if pl[p, PL_ALIVE] and not in_game(scr, dat, p):
            pl[p, PL_ALIVE] = 0
            pl[p, PL_ELIM_ROUND] = ps[PS_ROUND]
            pl[p, PL_PLACE] = left + 1 if left > 0 else 1
            sst[p, S_ELIM_ROUND] = ps[PS_ROUND]
            ps[PS_NELIM] += 1
            if scr[X_GST][G_FIRST_ELIM] < 0:
                scr[X_GST][G_FIRST_ELIM] = ps[PS_ROUND]
            emit(scr, EV_ELIMINATED, p, sst[p, S_ELIM_BY], left + 1, 0, 0, 0, 0, 0)
            if left == 0:
                # AMB-38: nobody left; the players of this step share the win
                pl[p, PL_PLACE] = 1
    if left <= 1:
        ps[PS_OVER] = 1
        scr[X_GST][G_END_CAUSE] = END_ELIM if left == 1 else END_SIMUL
        for p in range(n):
            if pl[p, PL_ALIVE]:
                pl[p, PL_PLACE] = 1


@njit(cache=True)
def destroy(scr, dat, m, by, extra_needed):
    """RV-C8: model ``m`` is destroyed (removed from its tile). ``by``: the seat whose
    attack destroyed it, or layout.BY_LURKER / BY_EVENT; ``extra_needed``: the kill needed
    the extra dice of explosions."""
    models = scr[X_MOD]
    pl = scr[X_PL]
    sst = scr[X_SST]
    gst = scr[X_GST]
    q = models[m, MD_OWNER]
    lift(scr, m)
    models[m, MD_TILE] = DEAD
    pl[q, PL_ON_BOARD] -= 1
    pl[q, PL_COST_LEFT] -= models[m, MD_COST]
    gst[G_KILLS] += 1
    if extra_needed:
        gst[G_KILLS_EXTRA] += 1
    if by >= 0:
        sst[by, S_KILLS] += 1
        sst[by, S_KILL_COST] += models[m, MD_COST]
        scr[X_KILLERS][q, by] = 1
    elif by == BY_LURKER:
        sst[q, S_LOST_TO_LURKERS] += 1
        gst[G_LURKER_KILLS] += 1
    sst[q, S_ELIM_BY] = by
    emit(scr, EV_KILL, q, m, by, models[m, MD_COST], extra_needed, 0, 0, 0)


# ---- abilities (RV-C4, RV-C9; the placeholder Focus) ------------------------------------

@njit(cache=True)
def try_focus(scr, dat, q, m):
    """Model ``m`` of player ``q`` uses Focus on this roll if the player can pay: heroes pay
    ``ability_cost`` each time; minions once per player-turn per unit type (RV-C9, AMB-41).
    Returns the upgrades it gives (0 when not paid)."""
    rules = dat[D_RULES]
    models = scr[X_MOD]
    pl = scr[X_PL]
    u = models[m, MD_UNIT]
    cost = dat[D_UNITS][u, U_ABILITY]
    bit = np.int64(1) << u
    free = ((models[m, MD_MINION] != 0) & (rules[R_MINION_PAY_ONCE] > 0.5)
            & ((pl[q, PL_MINION_PAID] & bit) != 0))
    if not free:
        if pl[q, PL_AETHER] < cost:
            return 0
        pay_aether(scr, q, cost)
        if models[m, MD_MINION] != 0:
            pl[q, PL_MINION_PAID] |= bit
    scr[X_GST][G_FOCUS] += 1
    scr[X_SST][q, S_FOCUS] += 1
    emit(scr, EV_FOCUS, q, m, 0 if free else cost, 0, 0, 0, 0, 0)
    return np.int64(rules[R_FOCUS_UPGRADES])


# ---- rolls --------------------------------------------------------------------------------

@njit(cache=True)
def roll(scr, dat, pool, explodes, side):
    """Roll ``pool`` into the side's result row (0 attack, 1 defence) of ``X_RR``, with its
    faces in ``X_FB`` (dice.roll_pool on the dice stream); each die is traced."""
    rr = scr[X_RR][side]
    fb = scr[X_FB][side]
    roll_pool(pool, explodes, dat[D_FACES], dat[D_NFACES], dat[D_DR], scr[X_KEY][K_DICE],
              scr[X_E], np.int64(E_CTR), rr, fb)
    gst = scr[X_GST]
    gst[G_EXPLOSIONS] += rr[RR_EXPLOSIONS]
    if rr[RR_EXTRA] > gst[G_MAX_EXTRA]:
        gst[G_MAX_EXTRA] = rr[RR_EXTRA]
    if tracing(scr):
        for i in range(min(rr[RR_DICE], fb.shape[0])):
            code = fb[i]
            emit(scr, EV_DIE, side, (code % 64) // FACE_MUL, code % FACE_MUL,
                 1 if code >= 64 else 0, i, 0, 0, 0)
    return rr


# ---- attacks (RV-C1..C9) -----------------------------------------------------------------

@njit(cache=True)
def attack_model(scr, dat, p, m, j, focus):
    """Model ``m`` of player ``p`` attacks rival model ``j`` (RV-C1..C8): both pools where
    the models stand (board.model_pool), Focus if chosen and paid, the rolls, wounds,
    Aether to each side from its own faces (RV-C7), destruction."""
    rules = dat[D_RULES]
    models = scr[X_MOD]
    sst = scr[X_SST]
    gst = scr[X_GST]
    pools = scr[X_POOL]
    sit = scr[X_SIT]
    q = models[j, MD_OWNER]
    up_a = try_focus(scr, dat, p, m) if focus else 0
    current_pool(models, scr[X_TILE], dat[D_UNITS], dat[D_MODTAB], dat[D_DR], m, FALSE, up_a,
                 sit[0], pools[0])
    # the defender's player decides on its own Focus, seeing the attack pool (RV-C4)
    up_d = 0
    if bots.defend_focus(view(scr), dat, q, j, pools[0]):
        up_d = try_focus(scr, dat, q, j)
    auto = current_pool(models, scr[X_TILE], dat[D_UNITS], dat[D_MODTAB], dat[D_DR], j,
                        TRUE, up_d, sit[1], pools[1])
    emit(scr, EV_ATTACK, p, m, 0, j, dat[D_DIST][models[m, MD_TILE], models[j, MD_TILE]],
         models[m, MD_TILE], models[j, MD_TILE], 0)
    emit(scr, EV_POOL, 0, m, pack_pool(pools[0]), up_a, models[m, MD_CHARGES],
         models[m, MD_SWIM], 0, 0)
    emit(scr, EV_POOL, 1, j, pack_pool(pools[1]), up_d, auto, models[j, MD_SWIM], 0, 0)
    ra = roll(scr, dat, pools[0], TRUE, ZERO)
    rd = roll(scr, dat, pools[1], dat[D_DR][DR_DEF_EXPLODES] > 0.5, ONE)
    net = ra[RR_HITS] - rd[RR_SHIELDS] - auto
    net = max(net, 0)
    wounds = net * np.int64(rules[R_WOUNDS_PER_HIT])
    left = models[j, MD_HEARTS] - models[j, MD_WOUNDS]
    models[j, MD_WOUNDS] += wounds
    gst[G_ATTACKS] += 1
    gst[G_WOUNDS] += wounds
    sst[p, S_ATTACKS] += 1
    sst[p, S_NET_HITS] += net
    sst[p, S_WOUNDS_DEALT] += wounds
    sst[q, S_WOUNDS_TAKEN] += wounds
    ga = gain_aether(scr, p, ra[RR_AETHER])
    gd = gain_aether(scr, q, rd[RR_AETHER])
    emit(scr, EV_RESULT, ra[RR_HITS], rd[RR_SHIELDS], auto, net, wounds, ga, gd,
         ra[RR_EXTRA] + rd[RR_EXTRA])
    if wounds > 0:
        scr[X_PS][PS_ATTACKED] = 1                  # a wound this round (the standoff clock)
    if models[j, MD_WOUNDS] >= models[j, MD_HEARTS]:
        base = max(ra[RR_BASE_HITS] - rd[RR_SHIELDS] - auto, 0)
        extra_needed = 1 if base * np.int64(rules[R_WOUNDS_PER_HIT]) < left else 0
        destroy(scr, dat, j, p, extra_needed)


@njit(cache=True, inline="always")
def lurker_pool(dat, card, defending, out):
    """A Lurker card's printed attack or defence dice (RV-P1; no situations, no loot)."""
    c = out.shape[0]
    lk = dat[D_LURK]
    off = LK_N + c if defending else LK_N
    for k in range(c):
        out[k] = lk[card, off + k]


@njit(cache=True)
def attack_lurker(scr, dat, p, m, slot, focus):
    """Model ``m`` of player ``p`` attacks the revealed Lurker in ``slot`` (RV-C1, RV-P1):
    the Lurker defends with its card's dice; its Aether faces go nowhere. Killing it gives
    its loot and Aether to the attacker's player (RV-P4) and leaves a cave (RV-T1 FAQ)."""
    rules = dat[D_RULES]
    models = scr[X_MOD]
    lur = scr[X_LUR]
    pools = scr[X_POOL]
    sit = scr[X_SIT]
    card = lur[slot, LR_CARD]
    up_a = try_focus(scr, dat, p, m) if focus else 0
    current_pool(models, scr[X_TILE], dat[D_UNITS], dat[D_MODTAB], dat[D_DR], m, FALSE, up_a,
                 sit[0], pools[0])
    lurker_pool(dat, card, TRUE, pools[1])
    t = lur[slot, LR_TILE]
    emit(scr, EV_ATTACK, p, m, 1, slot, dat[D_DIST][models[m, MD_TILE], t],
         models[m, MD_TILE], t, card)
    emit(scr, EV_POOL, 0, m, pack_pool(pools[0]), up_a, models[m, MD_CHARGES],
         models[m, MD_SWIM], 0, 0)
    emit(scr, EV_POOL, 1, -1 - slot, pack_pool(pools[1]), 0, 0, 0, 0, 0)
    ra = roll(scr, dat, pools[0], TRUE, ZERO)
    rd = roll(scr, dat, pools[1], dat[D_DR][DR_DEF_EXPLODES] > 0.5, ONE)
    net = max(ra[RR_HITS] - rd[RR_SHIELDS], 0)
    wounds = net * np.int64(rules[R_WOUNDS_PER_HIT])
    lur[slot, LR_WOUNDS] += wounds
    scr[X_GST][G_ATTACKS] += 1
    scr[X_SST][p, S_ATTACKS] += 1
    scr[X_SST][p, S_NET_HITS] += net
    ga = gain_aether(scr, p, ra[RR_AETHER])
    emit(scr, EV_RESULT, ra[RR_HITS], rd[RR_SHIELDS], 0, net, wounds, ga, 0,
         ra[RR_EXTRA] + rd[RR_EXTRA])
    if wounds > 0:
        scr[X_PS][PS_ATTACKED] = 1                  # a wound this round (the standoff clock)
    lk = dat[D_LURK]
    if lur[slot, LR_WOUNDS] >= lk[card, LK_HEARTS]:
        lur[slot, LR_ALIVE] = 0
        scr[X_TILE][t, TL_DEN] = DEN_CAVE
        hs = scr[X_HS]
        scr[X_LDISC][hs[HS_LDISC_N]] = card
        hs[HS_LDISC_N] += 1
        scr[X_GST][G_LURKERS_KILLED] += 1
        scr[X_SST][p, S_LURKERS_KILLED] += 1
        scr[X_SST][p, S_LURKER_KILLS_MADE] += 1
        emit(scr, EV_KILL, -1, -1 - slot, p, card, 0, 0, 0, 0)
        for _ in range(lk[card, LK_LOOT]):
            if draw_loot(scr, dat, p, m) >= 0:
                scr[X_SST][p, S_LURKER_LOOT] += 1
        gain_aether(scr, p, lk[card, LK_AETHER])


# ---- Lurkers: revealing and the Lurker phase (RV-X3, RV-P) -------------------------------

@njit(cache=True)
def reveal_den(scr, dat, t, p, m):
    """RV-X3: the den on tile ``t`` gets the top Lurker card (searched by player ``p``'s
    model ``m``; ``p`` -1: an event or the Lurker phase). A creature now lives there
    (a new Lurker slot); a treasure (errata R2, AMB-34) gives its loot and Aether to the
    searcher and leaves a cave. An empty deck takes back the defeated Lurkers (AMB-16),
    else the den stays inert."""
    hs = scr[X_HS]
    rules = dat[D_RULES]
    tiles = scr[X_TILE]
    if hs[HS_LDECK_N] == 0 and rules[R_LURKER_RESHUFFLE] > 0.5 and hs[HS_LDISC_N] > 0:
        for i in range(hs[HS_LDISC_N]):
            scr[X_LDECK][i] = scr[X_LDISC][i]
            scr[X_LDISC][i] = -1
        hs[HS_LDECK_N] = hs[HS_LDISC_N]
        hs[HS_LDISC_N] = 0
        shuffle(scr, scr[X_LDECK], hs[HS_LDECK_N])
        emit(scr, EV_RESHUFFLE, 0, hs[HS_LDECK_N], 0, 0, 0, 0, 0, 0)
    if hs[HS_LDECK_N] == 0:
        tiles[t, TL_DEN] = DEN_INERT
        emit(scr, EV_LURKER_REVEAL, t, -1, p, 0, 0, 0, 0, 0)
        return
    hs[HS_LDECK_N] -= 1
    card = scr[X_LDECK][hs[HS_LDECK_N]]
    scr[X_LDECK][hs[HS_LDECK_N]] = -1
    lk = dat[D_LURK]
    gst = scr[X_GST]
    if lk[card, LK_TREASURE]:
        tiles[t, TL_DEN] = DEN_CAVE
        gst[G_TREASURES] += 1
        scr[X_LDISC][hs[HS_LDISC_N]] = card
        hs[HS_LDISC_N] += 1
        emit(scr, EV_LURKER_REVEAL, t, card, p, 1, 0, 0, 0, 0)
        if p >= 0:
            for _ in range(lk[card, LK_LOOT]):
                draw_loot(scr, dat, p, m)
            gain_aether(scr, p, lk[card, LK_AETHER])
        return
    ps = scr[X_PS]
    slot = ps[PS_NLURK]
    ps[PS_NLURK] += 1
    lur = scr[X_LUR]
    lur[slot, LR_CARD] = card
    lur[slot, LR_WOUNDS] = 0
    lur[slot, LR_TILE] = t
    lur[slot, LR_ALIVE] = 1
    tiles[t, TL_DEN] = slot
    gst[G_LURKERS_REVEALED] += 1
    emit(scr, EV_LURKER_REVEAL, t, card, p, 0, slot, 0, 0, 0)


@njit(cache=True)
def lurker_attack(scr, dat, slot):
    """RV-P3: the Lurker in ``slot`` makes one attack roll and every model beside its den
    defends against it separately (FAQ), each with its own dice where it stands; defenders
    gain their Aether faces (AMB-32); kills count for the Lurker."""
    rules = dat[D_RULES]
    models = scr[X_MOD]
    lur = scr[X_LUR]
    nb = dat[D_NB]
    pools = scr[X_POOL]
    sit = scr[X_SIT]
    gst = scr[X_GST]
    sst = scr[X_SST]
    t = lur[slot, LR_TILE]
    card = lur[slot, LR_CARD]
    nm = scr[X_PS][PS_NMODELS]
    targets = 0
    for i in range(nm):
        mt = models[i, MD_TILE]
        if mt >= 0 and dat[D_DIST][mt, t] == 1:
            targets += 1
    if targets == 0:
        return
    lurker_pool(dat, card, FALSE, pools[0])
    emit(scr, EV_LURKER_ATTACK, slot, card, t, targets, pack_pool(pools[0]), 0, 0, 0)
    ra = roll(scr, dat, pools[0], TRUE, ZERO)
    hits = ra[RR_HITS]
    gst[G_LURKER_ATTACKS] += 1
    wph = np.int64(rules[R_WOUNDS_PER_HIT])
    for d in range(6):
        u = nb[t, d]
        if u < 0:
            continue
        for j in range(nm):
            if models[j, MD_TILE] != u:
                continue
            q = models[j, MD_OWNER]
            up_d = 0
            if bots.defend_focus(view(scr), dat, q, j, pools[0]):
                up_d = try_focus(scr, dat, q, j)
            auto = current_pool(models, scr[X_TILE], dat[D_UNITS], dat[D_MODTAB], dat[D_DR],
                                j, TRUE, up_d, sit[1], pools[1])
            emit(scr, EV_POOL, 1, j, pack_pool(pools[1]), up_d, auto, models[j, MD_SWIM], 0,
                 0)
            rd = roll(scr, dat, pools[1], dat[D_DR][DR_DEF_EXPLODES] > 0.5, ONE)
            net = max(hits - rd[RR_SHIELDS] - auto, 0)
            wounds = net * wph
            models[j, MD_WOUNDS] += wounds
            gst[G_LURKER_WOUNDS] += wounds
            sst[q, S_WOUNDS_TAKEN] += wounds
            sst[q, S_LURKER_WOUNDS] += wounds
            gd = gain_aether(scr, q, rd[RR_AETHER]) if rules[R_LURKER_DEF_AETHER] > 0.5 else 0
            emit(scr, EV_RESULT, hits, rd[RR_SHIELDS], auto, net, wounds, 0, gd,
                 ra[RR_EXTRA] + rd[RR_EXTRA])
            if models[j, MD_WOUNDS] >= models[j, MD_HEARTS]:
                destroy(scr, dat, j, np.int64(BY_LURKER), ZERO)
    check_eliminations(scr, dat)


@njit(cache=True)
def lurker_phase(scr, dat):
    """RV-P3: after all players' turns each revealed Lurker attacks, dens in tile order
    (AMB-38). With AMB-15 ``reveal``, an unsearched den with a model beside it is revealed
    first ("All Models that are beside Lurker den tiles are in danger")."""
    rules = dat[D_RULES]
    if rules[R_LURKERS] < 0.5:
        return
    tiles = scr[X_TILE]
    models = scr[X_MOD]
    ps = scr[X_PS]
    emit(scr, EV_LURKER_PHASE, 0, 0, 0, 0, 0, 0, 0, 0)
    nt = ps[PS_NTILES]
    for t in range(nt):
        if ps[PS_OVER]:
            return
        if tiles[t, TL_TYPE] != TT_DEN:
            continue
        if tiles[t, TL_DEN] == DEN_HIDDEN and rules[R_UNREVEALED_DENS] > 0.5:
            beside = False
            for i in range(ps[PS_NMODELS]):
                mt = models[i, MD_TILE]
                if mt >= 0 and dat[D_DIST][mt, t] == 1:
                    beside = True
                    break
            if beside:
                reveal_den(scr, dat, t, NONE, NONE)
        slot = tiles[t, TL_DEN]
        if slot >= 0 and scr[X_LUR][slot, LR_ALIVE]:
            lurker_attack(scr, dat, slot)


# ---- activations (RV-A, RV-M, RV-X) ------------------------------------------------------

@njit(cache=True)
def move_model(scr, dat, p, m, dest, ma):
    """One model's move of a movement activation (RV-A5, RV-M1..M4, RV-T1): its movement
    action, then the path with the fewest rock entries to ``dest`` (board.path_to), each
    rock entered by a roll (a miss ends the move where it is). Returns the tile it ends on
    (-1: the move was not legal and nothing happened)."""
    rules = dat[D_RULES]
    models = scr[X_MOD]
    tiles = scr[X_TILE]
    sst = scr[X_SST]
    gst = scr[X_GST]
    u = models[m, MD_UNIT]
    start = models[m, MD_TILE]
    if rules[R_MOVE_REPEAT] > 0.5 and models[m, MD_MOVES] >= 2:
        return -1                                   # AMB-06 "twice"
    swimming = models[m, MD_SWIM] != 0
    steps = dat[D_UNITS][u, U_SPEED]
    bonus_swim = np.int64(rules[R_SWIM_BONUS])
    swim_during = swimming
    land_after = False
    if ma == MA_SWIM:
        if swimming:
            return -1
        swim_during = True
    elif ma == MA_LAND:
        if not swimming:
            return -1
        if rules[R_LAND_TIMING] < 0.5:
            land_after = True                       # AMB-28 after_move: swims this move
        else:
            swim_during = False
    elif ma == MA_CHARGE:
        steps += np.int64(rules[R_CHARGE_BONUS])    # RV-M4 Charge
    if swim_during:
        steps += bonus_swim                         # RV-M4 Swim (AMB-11 while swimming)
    steps = min(steps, MAX_SPEED)
    rock_ok = swim_during | (rules[R_ROCK_NEEDS_SWIM] < 0.5)     # AMB-08
    large = models[m, MD_LARGE] != 0
    if (land_after and tiles[dest, TL_TYPE] == TT_ROCK and rules[R_LAND_ON_ROCK] > 0.5):
        return -1                                   # AMB-29 not_allowed
    wi = scr[X_WI]
    lay = wi[_W_LAY:_W_PAR]
    par = wi[_W_PAR:_W_PATH]
    path = wi[_W_PATH:]
    n = path_to(tiles, rules, dat[D_NB], p, large, start, steps, rock_ok, dest, lay, par,
                path)
    if n == 0:
        return -1
    # the movement action
    if ma == MA_SWIM:
        models[m, MD_SWIM] = 1
        sst[p, S_SWIMS] += 1
        gst[G_SWIMS] += 1
        emit(scr, EV_SWIM, p, m, 0, 0, 0, 0, 0, 0)
    elif ma == MA_LAND and not land_after:
        models[m, MD_SWIM] = 0
        sst[p, S_LANDS] += 1
        gst[G_LANDS] += 1
        emit(scr, EV_LAND, p, m, start, 0, 0, 0, 0, 0)
    elif ma == MA_CHARGE:
        if rules[R_CHARGE_STACKS] > 0.5 or models[m, MD_CHARGES] == 0:
            models[m, MD_CHARGES] += 1              # AMB-30
        sst[p, S_CHARGES] += 1
        gst[G_CHARGES] += 1
        emit(scr, EV_CHARGE, p, m, models[m, MD_CHARGES], 0, 0, 0, 0, 0)
    models[m, MD_MOVES] += 1
    end = start
    rock_die = np.int64(rules[R_ROCK_DIE])
    for k in range(1, n):
        t = path[k]
        if tiles[t, TL_TYPE] == TT_ROCK and tiles[end, TL_TYPE] != TT_ROCK:
            f = any_hit(scr, dat, rock_die)
            ok = (f == F_HIT) | (f == F_XHIT)
            sst[p, S_ROCK_TRIES] += 1
            gst[G_ROCK_TRIES] += 1
            emit(scr, EV_ROCK, p, m, t, rock_die, f, 1 if ok else 0, 0, 0)
            if not ok:
                gst[G_ROCK_FAILS] += 1
                break                               # RV-T1 the move ends at once
            sst[p, S_ROCK_OK] += 1
        end = t
    if end != start:
        lift(scr, m)
        place(scr, m, end)
    emit(scr, EV_MOVE, p, m, start, end, dest, ma, n - 1, 0)
    if land_after:
        models[m, MD_SWIM] = 0
        sst[p, S_LANDS] += 1
        gst[G_LANDS] += 1
        emit(scr, EV_LAND, p, m, end, 0, 0, 0, 0, 0)
    if rules[R_SWIM_PERSISTENT] < 0.5 and ma == MA_SWIM:
        models[m, MD_SWIM] = 0                      # AMB-11: swimming ends with the move
    return end


@njit(cache=True)
def do_move(scr, dat, p):
    """RV-A5: the models of the plan's tile move one at a time, each to its destination."""
    plan = scr[X_PLAN]
    models = scr[X_MOD]
    t = plan[PLAN_TILE]
    k = plan[PLAN_N_MODELS]
    emit(scr, EV_ACTIVATION, p, ACT_MOVE, t, k, 0, 0, 0, 0)
    for i in range(min(k, MAX_PER_TILE)):
        m = plan[PLAN_HEAD + i * PLAN_STRIDE]
        dest = plan[PLAN_HEAD + i * PLAN_STRIDE + 1]
        ma = plan[PLAN_HEAD + i * PLAN_STRIDE + 2]
        if m < 0 or models[m, MD_OWNER] != p or models[m, MD_TILE] != t:
            continue
        if dest == t and ma == MA_NONE:
            continue
        move_model(scr, dat, p, m, dest, ma)
    if dat[D_RULES][R_CHARGE_SCOPE] > 0.5:
        # AMB-12 "activation": Charge's degrade ends with the movement activation
        for i in range(min(k, MAX_PER_TILE)):
            m = plan[PLAN_HEAD + i * PLAN_STRIDE]
            if m >= 0:
                models[m, MD_CHARGES] = 0
    scr[X_SST][p, S_MOVE_ACTS] += 1


@njit(cache=True)
def do_reinforce(scr, dat, p):
    """RV-A8: reserve models enter onto one of the player's own spawn tiles, up to its
    room, for one movement activation."""
    plan = scr[X_PLAN]
    models = scr[X_MOD]
    tiles = scr[X_TILE]
    pl = scr[X_PL]
    rules = dat[D_RULES]
    t = plan[PLAN_TILE]
    k = plan[PLAN_N_MODELS]
    emit(scr, EV_ACTIVATION, p, ACT_REINFORCE, t, k, 0, 0, 0, 0)
    if tiles[t, TL_TYPE] != TT_SPAWN or tiles[t, TL_OWNER] != p:
        return
    for i in range(min(k, MAX_PER_TILE)):
        m = plan[PLAN_HEAD + i * PLAN_STRIDE]
        if m < 0 or models[m, MD_OWNER] != p or models[m, MD_TILE] != RESERVE:
            continue
        if not can_stop(tiles, rules, p, models[m, MD_LARGE] != 0, t, NONE):
            continue
        place(scr, m, t)
        pl[p, PL_RESERVE] -= 1
        pl[p, PL_ON_BOARD] += 1
        emit(scr, EV_REINFORCE, p, m, t, 0, 0, 0, 0, 0)
    scr[X_SST][p, S_REINFORCEMENTS] += 1
    scr[X_GST][G_REINFORCEMENTS] += 1
    scr[X_SST][p, S_MOVE_ACTS] += 1
    if rules[R_REINFORCE_MOVE] > 0.5:
        # AMB-35: the models brought in may move in the same activation
        if bots.plan_tile_move(view(scr), dat, p, t):
            do_move(scr, dat, p)
            scr[X_SST][p, S_MOVE_ACTS] -= 1


@njit(cache=True)
def do_attack(scr, dat, p):
    """RV-A6(a): models of the plan's tile attack, each its own target (AMB-14), each at
    most once this turn."""
    plan = scr[X_PLAN]
    models = scr[X_MOD]
    lur = scr[X_LUR]
    rules = dat[D_RULES]
    t = plan[PLAN_TILE]
    k = plan[PLAN_N_MODELS]
    if rules[R_ATTACKERS] > 0.5:
        k = min(k, 1)                                # AMB-14 "one"
    emit(scr, EV_ACTIVATION, p, ACT_ATTACK, t, k, 0, 0, 0, 0)
    los = dat[D_MLOS][scr[X_PS][PS_MAP]]
    dist = dat[D_DIST]
    for i in range(min(k, MAX_PER_TILE)):
        if scr[X_PS][PS_OVER]:
            break
        m = plan[PLAN_HEAD + i * PLAN_STRIDE]
        kind = plan[PLAN_HEAD + i * PLAN_STRIDE + 1]
        tgt = plan[PLAN_HEAD + i * PLAN_STRIDE + 2]
        focus = plan[PLAN_HEAD + i * PLAN_STRIDE + 3] != 0
        if m < 0 or models[m, MD_OWNER] != p or models[m, MD_TILE] != t or models[m, MD_ACTED]:
            continue
        rng = dat[D_UNITS][models[m, MD_UNIT], U_RANGE]
        if kind == 0:
            if tgt < 0 or models[tgt, MD_TILE] < 0 or models[tgt, MD_OWNER] == p:
                continue
            if not target_ok(dist, los, t, models[tgt, MD_TILE], rng):
                continue
            models[m, MD_ACTED] = 1
            models[m, MD_ATTACKS_TURN] += 1
            attack_model(scr, dat, p, m, tgt, focus)
            check_eliminations(scr, dat)
        else:
            if tgt < 0 or lur[tgt, LR_ALIVE] == 0:
                continue
            if not target_ok(dist, los, t, lur[tgt, LR_TILE], rng):
                continue
            models[m, MD_ACTED] = 1
            models[m, MD_ATTACKS_TURN] += 1
            attack_lurker(scr, dat, p, m, tgt, focus)
    scr[X_SST][p, S_ATTACK_ACTS] += 1


@njit(cache=True)
def do_search(scr, dat, p, act):
    """RV-A6(b) an attack action by one model: search the coral it stands on (RV-X2: a
    Red die, a hit draws loot; AMB-20 flip) or a den beside it (RV-X3)."""
    plan = scr[X_PLAN]
    models = scr[X_MOD]
    tiles = scr[X_TILE]
    rules = dat[D_RULES]
    m = plan[PLAN_HEAD]
    emit(scr, EV_ACTIVATION, p, act, plan[PLAN_TILE], 1, m, 0, 0, 0)
    if m < 0 or models[m, MD_OWNER] != p or models[m, MD_TILE] < 0 or models[m, MD_ACTED]:
        return
    mt = models[m, MD_TILE]
    if act == ACT_CORAL:
        if tiles[mt, TL_TYPE] != TT_CORAL or tiles[mt, TL_SEARCHED]:
            return
        models[m, MD_ACTED] = 1
        die = np.int64(rules[R_CORAL_DIE])
        f = any_hit(scr, dat, die)
        ok = (f == F_HIT) | (f == F_XHIT)
        scr[X_SST][p, S_CORAL_SEARCHES] += 1
        scr[X_GST][G_CORAL_SEARCHES] += 1
        emit(scr, EV_SEARCH, p, m, mt, 0, die, f, 1 if ok else 0, 0)
        if ok or rules[R_CORAL_FLIP] > 0.5:
            tiles[mt, TL_SEARCHED] = 1
        if ok:
            draw_loot(scr, dat, p, m)
    else:
        d = plan[PLAN_HEAD + 1]
        if d < 0 or tiles[d, TL_TYPE] != TT_DEN or tiles[d, TL_DEN] != DEN_HIDDEN:
            return
        if dat[D_DIST][mt, d] != 1:
            return
        models[m, MD_ACTED] = 1
        scr[X_SST][p, S_DENS_SEARCHED] += 1
        scr[X_GST][G_DEN_SEARCHES] += 1
        emit(scr, EV_SEARCH, p, m, d, 1, 0, 0, 0, 0)
        reveal_den(scr, dat, d, p, m)
    scr[X_SST][p, S_ACTION_ACTS] += 1


@njit(cache=True)
def all_acted(scr, p):
    """RV-A7: every model of ``p`` on the board has attacked or taken an attack action."""
    models = scr[X_MOD]
    nm = scr[X_PS][PS_NMODELS]
    for i in range(nm):
        if models[i, MD_OWNER] == p and models[i, MD_TILE] >= 0 and models[i, MD_ACTED] == 0:
            return False
    return True


@njit(cache=True)
def play_turn(scr, dat, p):
    """One player's turn (RV-R, RV-A1..A7): activations until its tokens are all in the
    End column, every model has acted, or it chooses to end (AMB-13)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    models = scr[X_MOD]
    pl = scr[X_PL]
    ps[PS_ACTIVE] = p
    ps[PS_TURN] += 1
    scr[X_GST][G_TURNS] += 1
    scr[X_SST][p, S_TURNS] += 1
    tokens = np.int64(rules[R_TOKENS])
    budgets = rules[R_ACT_MODEL] > 0.5                  # AMB-27
    ps[PS_TOK_M] = tokens
    ps[PS_TOK_A] = tokens if budgets else 0
    ps[PS_TOK_E] = 0
    for i in range(ps[PS_NMODELS]):
        if models[i, MD_OWNER] == p:
            models[i, MD_ACTED] = 0
            models[i, MD_MOVES] = 0
            models[i, MD_CHARGES] = 0                   # AMB-12 "for that turn"
            models[i, MD_ATTACKS_TURN] = 0
    for q in range(MAX_P):
        pl[q, PL_MINION_PAID] = 0                       # AMB-41 per player-turn
    emit(scr, EV_TURN, p, ps[PS_TURN], pl[p, PL_AETHER], pl[p, PL_ON_BOARD],
         pl[p, PL_RESERVE], 0, 0, 0)
    plan = scr[X_PLAN]
    for _ in range(4 * tokens + 8):
        if ps[PS_OVER] or not pl[p, PL_ALIVE]:
            break
        if budgets:
            if ps[PS_TOK_M] == 0 and ps[PS_TOK_A] == 0:
                break
        elif ps[PS_TOK_E] >= tokens:
            break
        if pl[p, PL_ON_BOARD] > 0 and all_acted(scr, p):
            break                                       # RV-A7
        if pl[p, PL_ON_BOARD] == 0 and pl[p, PL_RESERVE] == 0:
            break
        checkpoint(scr, dat)
        bots.choose(view(scr), dat, p)
        act = plan[PLAN_ACT]
        if act == ACT_END:
            emit(scr, EV_PASS, p, 2, ps[PS_TOK_M], ps[PS_TOK_A], 0, 0, 0, 0)
            scr[X_SST][p, S_PASSES] += 1
            scr[X_GST][G_PASSES] += 1
            break
        if act == ACT_MOVE or act == ACT_REINFORCE or act == ACT_PASS_M:
            if ps[PS_TOK_M] <= 0:
                break                                   # a bot error: end the turn
            if act == ACT_MOVE:
                do_move(scr, dat, p)
            elif act == ACT_REINFORCE:
                do_reinforce(scr, dat, p)
            else:
                emit(scr, EV_PASS, p, 0, 0, 0, 0, 0, 0, 0)
                scr[X_SST][p, S_PASSES] += 1
                scr[X_GST][G_PASSES] += 1
            ps[PS_TOK_M] -= 1
            if not budgets:
                ps[PS_TOK_A] += 1                       # RV-A2 the token moves to A
        else:
            if ps[PS_TOK_A] <= 0:
                break
            if act == ACT_ATTACK:
                do_attack(scr, dat, p)
            elif act == ACT_CORAL or act == ACT_DEN:
                do_search(scr, dat, p, act)
            else:
                emit(scr, EV_PASS, p, 1, 0, 0, 0, 0, 0, 0)
                scr[X_SST][p, S_PASSES] += 1
                scr[X_GST][G_PASSES] += 1
            ps[PS_TOK_A] -= 1
            ps[PS_TOK_E] += 1                           # RV-A3 the token moves to E
    checkpoint(scr, dat)


# ---- events (RV-E1) ------------------------------------------------------------------------

@njit(cache=True)
def draw_event(scr, dat, p):
    """RV-E1: after player ``p``'s turn the top Event card is resolved (a designer's deck in
    the vocabulary of docs/RULES.md; the shipped deck is empty). An empty deck takes back
    its discards."""
    hs = scr[X_HS]
    ev = dat[D_EVENTS]
    if ev.shape[0] == 0:
        return
    if hs[HS_EV_N] == 0:
        for i in range(hs[HS_EVDISC_N]):
            scr[X_EVDECK][i] = scr[X_EVDISC][i]
        hs[HS_EV_N] = hs[HS_EVDISC_N]
        hs[HS_EVDISC_N] = 0
        shuffle(scr, scr[X_EVDECK], hs[HS_EV_N])
    if hs[HS_EV_N] == 0:
        return
    hs[HS_EV_N] -= 1
    card = scr[X_EVDECK][hs[HS_EV_N]]
    scr[X_EVDISC][hs[HS_EVDISC_N]] = card
    hs[HS_EVDISC_N] += 1
    eff = ev[card, 0]
    val = ev[card, 1]
    scr[X_GST][G_EVENTS] += 1
    emit(scr, EV_EVENT, p, card, eff, val, 0, 0, 0, 0)
    ps = scr[X_PS]
    pl = scr[X_PL]
    models = scr[X_MOD]
    n = ps[PS_PLAYERS]
    if eff == EE_LURKER_PHASE:
        lurker_phase(scr, dat)
    elif eff == EE_AETHER_EACH:
        for q in range(n):
            if pl[q, PL_ALIVE]:
                if val >= 0:
                    gain_aether(scr, q, val)
                else:
                    pay = min(-val, pl[q, PL_AETHER])
                    pl[q, PL_AETHER] -= pay
                    ps[PS_BANK] += pay
    elif eff == EE_WOUND_RANDOM:
        # RV-P5: events affect revealed Lurkers too
        nm = ps[PS_NMODELS]
        lur = scr[X_LUR]
        cands = 0
        for i in range(nm):
            if models[i, MD_TILE] >= 0:
                cands += 1
        for s in range(ps[PS_NLURK]):
            if lur[s, LR_ALIVE]:
                cands += 1
        if cands > 0:
            pick = dice_below(scr, cands)
            for i in range(nm):
                if models[i, MD_TILE] >= 0:
                    if pick == 0:
                        models[i, MD_WOUNDS] += val
                        if models[i, MD_WOUNDS] >= models[i, MD_HEARTS]:
                            destroy(scr, dat, i, np.int64(BY_EVENT), ZERO)
                            check_eliminations(scr, dat)
                        return
                    pick -= 1
            for s in range(ps[PS_NLURK]):
                if lur[s, LR_ALIVE]:
                    if pick == 0:
                        lur[s, LR_WOUNDS] += val
                        card_l = lur[s, LR_CARD]
                        if lur[s, LR_WOUNDS] >= dat[D_LURK][card_l, LK_HEARTS]:
                            lur[s, LR_ALIVE] = 0
                            scr[X_TILE][lur[s, LR_TILE], TL_DEN] = DEN_CAVE
                            scr[X_LDISC][hs[HS_LDISC_N]] = card_l
                            hs[HS_LDISC_N] += 1
                        return
                    pick -= 1
    elif eff == EE_REVEAL_DEN:
        tiles = scr[X_TILE]
        for t in range(ps[PS_NTILES]):
            if tiles[t, TL_TYPE] == TT_DEN and tiles[t, TL_DEN] == DEN_HIDDEN:
                reveal_den(scr, dat, t, NONE, NONE)
                break
    elif eff == EE_LOOT:
        nm = ps[PS_NMODELS]
        own = 0
        for i in range(nm):
            if models[i, MD_OWNER] == p and models[i, MD_TILE] >= 0:
                own += 1
        if own > 0:
            pick = dice_below(scr, own)
            for i in range(nm):
                if models[i, MD_OWNER] == p and models[i, MD_TILE] >= 0:
                    if pick == 0:
                        for _ in range(val):
                            draw_loot(scr, dat, p, i)
                        break
                    pick -= 1


# ---- rounds and the end ----------------------------------------------------------------------

@njit(cache=True)
def end_of_round(scr, dat):
    """Round bookkeeping: rounds without a wound dealt by an attack (the bots' standoff
    breaker reads it),
    model-rounds on rocks, rounds the bank spent empty."""
    ps = scr[X_PS]
    gst = scr[X_GST]
    if ps[PS_ATTACKED]:
        ps[PS_QUIET] = 0
    else:
        ps[PS_QUIET] += 1
        if ps[PS_QUIET] > gst[G_LONGEST_QUIET]:
            gst[G_LONGEST_QUIET] = ps[PS_QUIET]
    ps[PS_ATTACKED] = 0
    models = scr[X_MOD]
    tiles = scr[X_TILE]
    for i in range(ps[PS_NMODELS]):
        t = models[i, MD_TILE]
        if t >= 0 and tiles[t, TL_TYPE] == TT_ROCK:
            scr[X_SST][models[i, MD_OWNER], S_ROCK_ROUNDS] += 1
    if ps[PS_BANK] == 0:
        gst[G_BANK_EMPTY] += 1
        emit(scr, EV_BANK_EMPTY, 0, 0, 0, 0, 0, 0, 0, 0)


@njit(cache=True, inline="always")
def run_rounds(scr, dat):
    """RV-R: rounds of every player's turn (each followed by an Event, RV-E1), then the
    Lurker phase (RV-P3), until one player is left (RV-V1) or the round cap (AMB-26)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    n = ps[PS_PLAYERS]
    cap = np.int64(rules[R_MAX_ROUNDS])
    while ps[PS_ROUND] < cap and not ps[PS_OVER]:
        ps[PS_ROUND] += 1
        for p in range(n):
            if ps[PS_OVER]:
                break
            if not pl[p, PL_ALIVE]:
                continue                                # AMB-39 skipped
            play_turn(scr, dat, p)
            if not ps[PS_OVER]:
                draw_event(scr, dat, p)
                checkpoint(scr, dat)
        if not ps[PS_OVER]:
            lurker_phase(scr, dat)
        checkpoint(scr, dat)
        end_of_round(scr, dat)
    scr[X_GST][G_ROUNDS] = ps[PS_ROUND]


@njit(cache=True)
def finish(scr, dat, row, gi, si, sf):
    """The game's output rows: the winner(s) (RV-V1), places, and every counter.

    A game the round cap stopped (AMB-26, an engine limit) is unresolved: no survivor gets
    a place and nobody wins (``end.cap_result`` = ``unresolved``), unless the opt-in
    adjudication ``cost_left`` ranks the survivors by the cost of their models standing
    (ties share first place)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    gst = scr[X_GST]
    sst = scr[X_SST]
    models = scr[X_MOD]
    n = ps[PS_PLAYERS]
    if not ps[PS_OVER]:
        gst[G_TRUNCATED] = 1
        gst[G_END_CAUSE] = END_CAP
        if rules[R_CAP_RESULT] > 0.5:
            # rank the survivors by the cost of their models standing (reserve included)
            for p in range(n):
                if pl[p, PL_ALIVE]:
                    better = 0
                    for q in range(n):
                        if pl[q, PL_ALIVE] and pl[q, PL_COST_LEFT] > pl[p, PL_COST_LEFT]:
                            better += 1
                    pl[p, PL_PLACE] = better + 1
    nw = 0
    winner = -1
    for p in range(n):
        if pl[p, PL_PLACE] == 1:
            nw += 1
            winner = p
    gst[G_N_WINNERS] = nw
    gst[G_WINNER_SEAT] = winner if nw == 1 else -1
    gst[G_WINNER_COST_LEFT] = pl[winner, PL_COST_LEFT] if nw == 1 else -1
    gst[G_RNG_DRAWS] = scr[X_E][E_CTR] + scr[X_E][E_BCTR]
    for k in range(N_GAME_INT):
        gi[row, k] = gst[k]
    nm = ps[PS_NMODELS]
    for p in range(MAX_P):
        for k in range(N_SEAT_INT):
            si[row, p, k] = sst[p, k] if p < n else 0
        for k in range(N_SEAT_FLT):
            sf[row, p, k] = 0.0
        if p >= n:
            si[row, p, S_BOT] = -1
            si[row, p, S_BUILD] = -1
            continue
        left = 0
        for i in range(nm):
            if models[i, MD_OWNER] == p and models[i, MD_TILE] != DEAD:
                left += 1
        si[row, p, S_MODELS_LEFT] = left
        si[row, p, S_COST_LEFT] = pl[p, PL_COST_LEFT]
        si[row, p, S_PLACE] = pl[p, PL_PLACE]
        si[row, p, S_AETHER_END] = pl[p, PL_AETHER]
        killers = 0
        for q in range(MAX_P):
            killers += scr[X_KILLERS][p, q]
        si[row, p, S_KILLERS] = killers
        if pl[p, PL_ALIVE] or pl[p, PL_ELIM_ROUND] < 0:
            si[row, p, S_ELIM_BY] = BY_NONE
        sf[row, p, SF_WIN] = (1.0 / nw) if (nw > 0) & (pl[p, PL_PLACE] == 1) else 0.0
    emit(scr, EV_END, gst[G_END_CAUSE], nw, winner if nw == 1 else -1, ps[PS_ROUND],
         ps[PS_TURN], 0, 0, 0)


# ---- games --------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def play_game(seed, game, row, scr, dat, gi, si, sf, flags, viol):
    """Play game number ``game`` of the run ``seed`` into output row ``row``.

    ``flags``: bit 0 the trace, bit 1 the invariant checks (tests; the first broken
    invariant goes to ``viol[row]``). The game depends only on (seed, game): its dice
    stream's key is ``game_key(seed, game)``, the bots' stream's key a salted mix of it.
    """
    reset(scr)
    scr[X_E][E_TRACE] = flags & 1
    scr[X_E][E_CHECK] = (flags >> 1) & 1
    scr[X_E][E_VIOL] = 0
    key = game_key(seed, game)
    scr[X_KEY][K_DICE] = key
    scr[X_KEY][K_BOT] = mix64(key ^ _BOT_SALT)
    setup(scr, dat, game)
    checkpoint(scr, dat)
    run_rounds(scr, dat)
    finish(scr, dat, row, gi, si, sf)
    viol[row] = scr[X_E][E_VIOL]


@njit(cache=True, nogil=True)
def play_block(seed, games, lo, hi, flags, rules, dr, faces, nfaces, modtab, units, teams,
               build_hearts, lurk, loot, events, nb, dist, mtype, mowner, mlos, mmull,
               pool_first, pool_count, seat_build, build_pool, seat_bot, bot_pool,
               player_opts, fmix, knobs, evtab, pidx, evmeta, gi, si, sf, viol):
    """Play games ``games[lo] .. games[hi-1]`` of run ``seed`` into rows ``lo .. hi-1``.

    One thread's share of :func:`play_listed` (it releases the GIL); the game state is
    allocated once and reset by each game. ``games``: int64 game indices, one per row;
    ``flags``: 0, or 2 for the invariant checks (``viol``: per row, the first broken).
    """
    dat = (rules, dr, faces, nfaces, modtab, units, teams, build_hearts, lurk, loot, events,
           nb, dist, mtype, mowner, mlos, mmull, pool_first, pool_count, seat_build,
           build_pool, seat_bot, bot_pool, player_opts, fmix, knobs, evtab, pidx, evmeta)
    scr = new_scratch(ONE, nb.shape[0], faces.shape[0])
    for r in range(lo, hi):
        play_game(seed, games[r], r, scr, dat, gi, si, sf, flags, viol)


def play_games(seed, start, count, *args, checks: bool = False):
    """Play games ``start .. start+count-1`` of run ``seed`` (:func:`play_listed`)."""
    return play_listed(np.int64(seed),
                       np.arange(int(start), int(start) + int(count), dtype=np.int64), *args,
                       checks=checks)


def play_listed(seed, games, *args, checks: bool = False):
    """Play the games of index ``games`` (int64[count]) of run ``seed`` on numba's thread
    count; ``args`` are the kernel arrays (compile.RivalsArrays.kernel_args). With
    ``checks`` (tests) the invariants are checked along every game and the per-row codes
    of the first broken one (``layout.INVARIANTS``) are returned too.

    Blocks of games go to :func:`play_block` on ``numba.get_num_threads()`` threads
    (:func:`deepsim.blocks.run_blocks`); the tables do not depend on the thread count, and
    a game's row is the same whatever other games are listed with it.

    Returns
    -------
    gi : int64[count, N_GAME_INT]
    gf : float64[count, 0]
        No float games columns (the contract's four tables).
    si : int64[count, MAX_P, N_SEAT_INT]
    sf : float64[count, MAX_P, N_SEAT_FLT]
        Row r is game ``games[r]``; seat 0 moved first; seats >= players are zero with
        ``bot`` and ``build`` -1.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    count = int(games.shape[0])
    gi = np.zeros((count, N_GAME_INT), np.int64)
    si = np.zeros((count, MAX_P, N_SEAT_INT), np.int64)
    sf = np.zeros((count, MAX_P, N_SEAT_FLT), np.float64)
    viol = np.zeros(count, np.int64)
    seed = np.int64(seed)
    flags = np.int64(2 if checks else 0)
    run_blocks(lambda lo, hi: play_block(seed, games, np.int64(lo), np.int64(hi), flags,
                                         *args, gi, si, sf, viol), count)
    gf = np.zeros((count, 0), np.float64)
    if checks:
        return gi, gf, si, sf, viol
    return gi, gf, si, sf


@njit(cache=True)
def trace_game(seed, game, max_events, rules, dr, faces, nfaces, modtab, units, teams,
               build_hearts, lurk, loot, events, nb, dist, mtype, mowner, mlos, mmull,
               pool_first, pool_count, seat_build, build_pool, seat_bot, bot_pool,
               player_opts, fmix, knobs, evtab, pidx, evmeta):
    """Play one game with the event buffer on: the same code path as :func:`play_listed`.

    Returns (gi, gf, si, sf, events[:k]) for that single game (row 0; ``gf`` has no
    columns); events are int64[k, EVENT_WIDTH] rows (round, active player, kind, a..h; see
    trace.py).
    """
    gi = np.zeros((1, N_GAME_INT), np.int64)
    si = np.zeros((1, MAX_P, N_SEAT_INT), np.int64)
    sf = np.zeros((1, MAX_P, N_SEAT_FLT), np.float64)
    dat = (rules, dr, faces, nfaces, modtab, units, teams, build_hearts, lurk, loot, events,
           nb, dist, mtype, mowner, mlos, mmull, pool_first, pool_count, seat_build,
           build_pool, seat_bot, bot_pool, player_opts, fmix, knobs, evtab, pidx, evmeta)
    scr = new_scratch(max_events, nb.shape[0], faces.shape[0])
    viol = np.zeros(1, np.int64)
    play_game(seed, game, ZERO, scr, dat, gi, si, sf, ONE, viol)
    k = scr[X_E][E_EVN]
    return gi, np.zeros((1, 0), np.float64), si, sf, scr[X_EV][:k].copy()
