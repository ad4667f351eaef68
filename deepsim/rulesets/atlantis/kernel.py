"""The Atlantis game kernel: whole games in numba, one output row per game.

Every rule carries its rule id (AT-*) and, where the rulebook is silent or unclear, the
ambiguity id (AMB-T*) of ``../shared/digests/atlantis_sea_king_vs_sea_witch.md`` with the
parameter that settles it (docs/RULES.md, "Atlantis"). All numbers come in through the
arrays of :mod:`deepsim.rulesets.atlantis.compile`; the kernel has no rule constants of its
own. Decisions (where to move, whom to attack, when to hide, which spell) are delegated to
:mod:`deepsim.rulesets.atlantis.bots`; legality is decided here and in ``board``.

Sides: 0 Sea Witch, 1 Sea King, 2 neutral (AMB-T14). Seat 0 is the side that moves first.
A turn is one player's turn (AT-T2): First Swim, Attack, Second Swim, End.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.blocks import run_blocks
from deepsim.factionmix import faction_bot
from deepsim.rng import game_key
from deepsim.rulesets.atlantis import bots
from deepsim.rulesets.atlantis.board import (
    D_BOT_POOL,
    D_DIST,
    D_FIXED_CUR,
    D_FIXED_TER,
    D_FMIX,
    D_GEN,
    D_KNOBS,
    D_NB,
    D_ROSTER,
    D_RULES,
    D_SIDE_BOT,
    D_SPECIAL,
    D_SPELLS,
    D_TERRAIN,
    D_UNITS,
    E_ATTACK,
    E_DEATH,
    E_SHIFT,
    G_N,
    GS_ACTIVE,
    GS_ADJUDICATED,
    GS_BOT_K,
    GS_BOT_W,
    GS_BREAKING,
    GS_C,
    GS_CAUSE,
    GS_CTR,
    GS_EV,
    GS_FIRST,
    GS_H,
    GS_KILLER,
    GS_KILLER_SLOT,
    GS_LAST_ATTACK,
    GS_LEADER_K,
    GS_LEADER_W,
    GS_MAT0_K,
    GS_MIN_COST,
    GS_MAT0_W,
    GS_NSLOTS,
    GS_OVER,
    GS_PHASE,
    GS_PN,
    GS_TRACE,
    GS_TURN,
    GS_W,
    GS_WINNER,
    INF,
    MAX_ENT,
    UC_ACTED,
    UC_ALIVE,
    UC_CAST,
    UC_CELL,
    UC_CREATED,
    UC_CUR_TURN,
    UC_DMG,
    UC_ENT_OUT,
    UC_HIDDEN,
    UC_MOVED,
    UC_N,
    UC_NCHITS,
    UC_NENT,
    UC_PARA,
    UC_SAVED,
    UC_SEARCHED,
    UC_SIDE,
    UC_SIREN,
    UC_SIREN_SRC,
    UC_SONG,
    UC_TYPE,
    UC_USED,
    X_ALLOC,
    X_CHITS,
    X_CUR,
    X_ENT,
    X_ENTRY,
    X_EV,
    X_G,
    X_GSTAT,
    X_ITMP,
    X_KEY,
    X_NEAR,
    X_OCC,
    X_ORDER,
    X_PATH,
    X_PDONE,
    X_PKEY,
    X_PLIST,
    X_POOL,
    X_PPREV,
    X_SSTAT,
    X_TER,
    X_THREAT,
    X_TMP,
    X_TSRC,
    X_U,
    can_attack,
    can_enter,
    can_hide,
    d6,
    emit,
    hide_modifier,
    hit_prob,
    is_foe,
    is_opponent,
    los_clear,
    material,
    new_scratch,
    paralysis,
    rand_below,
    rebuild_entry,
    set_terrain,
)
from deepsim.rulesets.atlantis.layout import (
    END_ATTACK,
    END_HAZARD,
    END_POISON,
    END_SPELL,
    END_TURN_CAP,
    EV_ATTACK,
    EV_CHITS,
    EV_CURRENT,
    EV_DAMAGE,
    EV_DEPLOY,
    EV_DESTROYED,
    EV_END,
    EV_ENTER_HAZARD,
    EV_HIDE,
    EV_MOVE,
    EV_RECOVER,
    EV_SEARCH,
    EV_SETUP,
    EV_SPECIAL,
    EV_SPELL,
    EV_TERRAIN_END,
    EV_TURN,
    G_ADJUDICATED,
    G_ATTACKS,
    G_CREATED,
    G_END_CAUSE,
    G_FIRST_SIDE,
    G_HAZARD_LOSSES,
    G_HIDES,
    G_KILLER_TYPE,
    G_KILLS,
    G_PARALYSIS,
    G_RNG_DRAWS,
    G_ROUNDS,
    G_SEARCHES,
    G_SIREN,
    G_SPELLS_CAST,
    G_TRUNCATED,
    G_TURNS,
    G_UNITS_LEFT_KING,
    G_UNITS_LEFT_WITCH,
    G_WINNER_SIDE,
    GAME_FLT,
    GAME_INT,
    GF_MATERIAL_KING,
    GF_MATERIAL_MARGIN,
    GF_MATERIAL_WITCH,
    K_DEPLOY_RANDOM,
    K_RANDOM,
    KING,
    MAX_CHITS,
    MAX_UNITS,
    N_DIRS,
    NEUTRAL,
    N_SEAT_INT,
    N_SPELLS,
    R_AT_CAP,
    R_BRAIN_CORAL,
    R_CHIT_SINGLE_USE,
    R_DEPLOY_ROWS,
    R_ENTANGLE_MAX,
    R_ENTANGLE_RELEASE,
    R_FAILED_SEARCH_CONSUMES,
    R_FIRST_SIDE,
    R_HEALING_POOL,
    R_HIDDEN_BONUS,
    R_HIDE_MIN,
    R_HIT_MASK,
    R_ISLAND_FISH,
    R_LUMINESCENCE_TIMING,
    R_MAP_HEIGHT,
    R_MAP_SOURCE,
    R_MAP_WIDTH,
    R_MARTYR_RANGED,
    R_MARTYR_SPECIALS,
    R_MAX_TURNS,
    R_MESMERIZE_MAX,
    R_MESMERIZE_RANGE,
    R_MURKY_FRIENDLY,
    R_NET_MAX,
    R_NEUTRALS,
    R_PARALYZED_BONUS,
    R_PENALTY_FLOOR,
    R_PENALTY_FLOOR_SCOPE,
    R_RANGED_MAX,
    R_RANGED_MIN,
    R_RECOVERY_MAX,
    R_RESURRECT_CHITS,
    R_RESURRECT_FULL,
    R_SEARCH_MIN,
    R_SEARCH_REVEALS,
    R_SIREN_FULL_MOVE,
    R_SIREN_KEEP,
    R_SIREN_MAX,
    R_SIREN_RANGE,
    R_SIRENS_SONG_TURNS,
    R_SPECIAL_DISCARDS_HIDE,
    R_SPECIALS_ANY_TARGET,
    R_SPECIALS_WITHOUT_ATTACK,
    R_SPELLS_PER_CASTER,
    R_SPLIT_ONE_SEARCH,
    R_STING_COUNTERS,
    R_TEMPLE_SCOPE,
    R_TERRAIN_SCOPE,
    S_ATTACKS,
    S_BOT,
    S_CAST0,
    S_CREATED,
    S_DAMAGE,
    S_HAZARD_LOSSES,
    S_HIDES_OK,
    S_HIDES_TRIED,
    S_KILLS,
    S_LEADER_DAMAGE,
    S_PARALYSES,
    S_POISON_KILLS,
    S_RESURRECTIONS,
    S_SEARCHES,
    S_SEARCHES_OK,
    S_SIDE,
    S_SIRENS,
    S_SPELLS_CAST,
    S_TURNS,
    S_UNITS_LEFT,
    S_UNITS_LOST,
    S_UNITS_START,
    SEAT_FLT,
    SF_MATERIAL,
    SF_WIN,
    SP_FREEZE,
    SP_HEALING,
    SP_LUMINESCENCE,
    SP_MURKY_DEPTHS,
    SP_RESURRECTION,
    SP_SIRENS_SONG,
    SP_TANGLE_KELP,
    SPC_AMOUNT,
    SPC_BASE,
    SPC_CHITS,
    SPC_CREATES,
    SPC_RANGE,
    SPC_SETS_TERRAIN,
    T_ADJ_ATTACK,
    T_ADJ_DEATH_FACES,
    T_ATTACK_PENALTY,
    T_BONUS_AD,
    T_BONUS_SIDE,
    T_COST,
    T_CURRENT,
    T_ENTRY_ATTACK,
    T_ENTRY_DEATH,
    U_AD,
    U_DR,
    U_ENTANGLE,
    U_HIDDEN_AD,
    U_LARGE,
    U_LEADER,
    U_MARTYR,
    U_MESMERIZE,
    U_MV,
    U_NET,
    U_POISON,
    U_RANGED,
    U_SIREN,
    U_SPELLS,
    U_SPLIT,
    U_STING,
    WITCH,
)
from deepsim.rulesets.atlantis.maps import generate_map

N_GAME_INT = len(GAME_INT)
N_GAME_FLT = len(GAME_FLT)
N_SEAT_FLT = len(SEAT_FLT)

# special effect codes in EV_SPECIAL events (trace.py names them)
SPX_ENTANGLE, SPX_NET, SPX_MESMERIZE, SPX_SIREN, SPX_STING = range(5)
# current event results
CUR_MOVED, CUR_BLOCKED = 0, 1


# ---------------------------------------------------------------------------------------
# bookkeeping
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, inline="always")
def add_stat(scr, side, col, v):
    """Add v to a per-side counter (neutrals, side 2, keep none)."""
    if side < 2:
        scr[X_SSTAT][side, col] += v


@njit(cache=True, _nrt=False)
def destroy(scr, dat, i, cause, src):
    """Remove slot i from the map (AT-A5 damage >= DR, AT-X1, AT-M7, AT-E1, spells).

    ``cause`` is an END_* code (attack, poison, hazard, spell); ``src`` the slot whose
    action destroyed it (attacker, or caster of the spell / spell-made terrain), -1 for the
    map's own hazards. Destroying a leader ends the game at once (AT-V1).
    """
    u = scr[X_U]
    g = scr[X_G]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    c = u[i, UC_CELL]
    u[i, UC_ALIVE] = 0
    scr[X_OCC][c] = -1
    u[i, UC_HIDDEN] = 0
    u[i, UC_PARA] = 0
    u[i, UC_NENT] = 0
    u[i, UC_SIREN] = 0
    u[i, UC_SONG] = 0
    ent = scr[X_ENT]
    for k in range(MAX_ENT):
        s = ent[i, k]
        if s >= 0:
            u[s, UC_ENT_OUT] -= 1
            ent[i, k] = -1
    # AMB-T21: Entangle counters this unit placed stay when it dies (it did not move away).
    # AMB-T8: Siren counters it gave stay (siren_counter_on_source_death = keep) or go.
    if rules[R_SIREN_KEEP] > 0.5:
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 1 and u[j, UC_SIREN] > 0 and u[j, UC_SIREN_SRC] == i:
                u[j, UC_SIREN] = 0
                u[j, UC_SIREN_SRC] = -1
    side = u[i, UC_SIDE]
    add_stat(scr, side, S_UNITS_LOST, 1)
    gs = scr[X_GSTAT]
    gs[G_KILLS] += 1
    if cause == END_HAZARD:
        add_stat(scr, side, S_HAZARD_LOSSES, 1)
        gs[G_HAZARD_LOSSES] += 1
    src_type = -1
    if src >= 0:
        src_type = u[src, UC_TYPE]
        if u[src, UC_SIDE] != side:
            add_stat(scr, u[src, UC_SIDE], S_KILLS, 1)
            if cause == END_POISON:
                add_stat(scr, u[src, UC_SIDE], S_POISON_KILLS, 1)
    emit(scr, EV_DESTROYED, i, u[i, UC_TYPE], c, cause, src, src_type, 0)
    if units[u[i, UC_TYPE], U_LEADER] == 1 and side < 2 and g[GS_OVER] == 0:
        g[GS_OVER] = 1                                        # AT-V1 immediate victory
        g[GS_WINNER] = 1 - side
        g[GS_CAUSE] = cause
        g[GS_KILLER] = src_type
        g[GS_KILLER_SLOT] = src


@njit(cache=True, _nrt=False)
def damage(scr, dat, i, hits, src, poison, cause):
    """AT-A5: put ``hits`` damage markers on slot i; destroyed when damage >= DR.

    AT-X1: any damage from a poisonous unit destroys it outright. ``cause`` is the END_*
    code used if this destroys the unit (poison overrides it).
    """
    if hits <= 0:
        return
    u = scr[X_U]
    units = dat[D_UNITS]
    t = u[i, UC_TYPE]
    u[i, UC_DMG] += hits
    if src >= 0 and u[src, UC_SIDE] != u[i, UC_SIDE]:
        add_stat(scr, u[src, UC_SIDE], S_DAMAGE, hits)
        if units[t, U_LEADER] == 1:
            add_stat(scr, u[src, UC_SIDE], S_LEADER_DAMAGE, hits)
    emit(scr, EV_DAMAGE, i, t, u[i, UC_DMG], units[t, U_DR], src, hits, poison)
    if poison == 1:
        destroy(scr, dat, i, np.int64(END_POISON), src)
    elif u[i, UC_DMG] >= units[t, U_DR]:
        destroy(scr, dat, i, cause, src)


@njit(cache=True, _nrt=False)
def roll_hits(scr, dat, n):
    """Roll n d6 (AT-A5); a die hits when its face is in the hit mask (AMB-T1).

    Returns (hits, faces packed 3 bits per die, first 20 dice).
    """
    mask = np.int64(dat[D_RULES][R_HIT_MASK])
    hits = 0
    packed = 0
    for k in range(n):
        f = d6(scr)
        if (mask >> f) & 1:
            hits += 1
        if k < 20:
            packed |= f << (3 * k)
    return hits, packed


@njit(cache=True, _nrt=False, inline="always")
def terrain_cause(scr, c):
    """(END_* cause, source slot) of a hazard in cell c: a spell's terrain names its caster."""
    s = scr[X_TSRC][c]
    if s >= 0:
        return END_SPELL, s
    return END_HAZARD, -1


@njit(cache=True, _nrt=False)
def add_paralysis(scr, i, n, src):
    """Give slot i n Paralyzation counters (AT-X10); src >= 0 marks Entangle ones (AMB-T21)."""
    u = scr[X_U]
    if src >= 0:
        ent = scr[X_ENT]
        for _ in range(n):
            placed = False
            for k in range(MAX_ENT):
                if ent[i, k] < 0:
                    ent[i, k] = src
                    u[i, UC_NENT] += 1
                    u[src, UC_ENT_OUT] += 1
                    placed = True
                    break
            if not placed:
                u[i, UC_PARA] += 1
    else:
        u[i, UC_PARA] += n
    scr[X_GSTAT][G_PARALYSIS] += n


@njit(cache=True, _nrt=False)
def remove_one_paralysis(scr, i):
    """Take one Paralyzation counter off slot i (plain first, then Entangle ones)."""
    u = scr[X_U]
    if u[i, UC_PARA] > 0:
        u[i, UC_PARA] -= 1
        return True
    if u[i, UC_NENT] > 0:
        ent = scr[X_ENT]
        for k in range(MAX_ENT):
            s = ent[i, k]
            if s >= 0:
                ent[i, k] = -1
                u[i, UC_NENT] -= 1
                u[s, UC_ENT_OUT] -= 1
                return True
    return False


@njit(cache=True, _nrt=False)
def release_entangle(scr, dat, i):
    """AT-X3 / AMB-T21: counters slot i placed by Entangle go when it is no longer adjacent.

    ``entangle_release`` 0: only the counters this entangler placed; 1: every
    Paralyzation counter of the target.
    """
    u = scr[X_U]
    if u[i, UC_ENT_OUT] <= 0:
        return
    g = scr[X_G]
    ent = scr[X_ENT]
    dist = dat[D_DIST]
    ci = u[i, UC_CELL]
    release_all = dat[D_RULES][R_ENTANGLE_RELEASE] > 0.5
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or u[j, UC_NENT] == 0:
            continue
        if dist[ci, u[j, UC_CELL]] <= 1:
            continue
        hit = False
        for k in range(MAX_ENT):
            if ent[j, k] == i:
                ent[j, k] = -1
                u[j, UC_NENT] -= 1
                u[i, UC_ENT_OUT] -= 1
                hit = True
        if hit and release_all:
            while remove_one_paralysis(scr, j):
                pass


# ---------------------------------------------------------------------------------------
# movement (AT-M1..M8)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def reach(scr, dat, i, budget, avoid=False):
    """Cells slot i can reach this Swim phase with ``budget`` moves (AT-M1, M2, M5, M8).

    A path may not pass through units (AT-M2), impassable hexes (AT-M8) or, for a Large
    unit, shallow 2-cost hexes (AT-M5); each hex costs its terrain cost. A Vortex or Lava
    hex (AT-M7) may end a path but not be passed through. Among paths of equal cost the
    one entering fewer Whirl Pool / Vent hexes is kept. ``avoid`` (the bot's choice,
    :func:`bots.avoid_entry`: a leader an entry attack could destroy) treats a Whirl Pool /
    Vent hex like a Vortex: it may end the path but is not passed through. Fills
    ``plist[0:n]`` (the unit's own cell first) and ``pkey[c] = cost * 8 + hazard
    entries``, ``pprev`` for the path.

    Each step settles the open cell of least key, the first found among equals; the open
    cells are kept apart in ``X_PATH`` (in the order found; :func:`move_along` reuses
    that array only after the search), so a step scans the frontier rather than every
    cell reached; a cell from which even the cheapest terrain (``GS_MIN_COST``) is over
    budget is settled without looking at its neighbours; a neighbour's terrain is read
    from the unit's row of ``X_ENTRY`` (cost, may enter, entry effects: one load instead
    of four; docs/performance.md, Atlantis).

    Returns
    -------
    n : int
        Number of cells in ``plist`` (1 = only the unit's own cell).
    """
    g = scr[X_G]
    u = scr[X_U]
    pk = scr[X_PKEY]
    prev = scr[X_PPREV]
    lst = scr[X_PLIST]
    done = scr[X_PDONE]
    opn = scr[X_PATH]
    occ = scr[X_OCC]
    nb = dat[D_NB]
    for k in range(g[GS_PN]):             # reset the cells the last search touched
        pk[lst[k]] = INF
    start = u[i, UC_CELL]
    ent = scr[X_ENTRY][dat[D_UNITS][u[i, UC_TYPE], U_LARGE]]     # AT-M1, M5, M7, M8
    min_cost = g[GS_MIN_COST]
    pk[start] = 0
    prev[start] = -1
    done[start] = 0
    lst[0] = start
    n = 1
    opn[0] = start
    m = 1
    while m > 0:
        q = 0
        best = opn[0]
        bk = pk[best]
        for k in range(1, m):
            c = opn[k]
            if pk[c] < bk:
                bk = pk[c]
                best = c
                q = k
        for k in range(q, m - 1):
            opn[k] = opn[k + 1]
        m -= 1
        done[best] = 1
        if best != start and (ent[best] & E_DEATH or (avoid and ent[best] & E_ATTACK)):
            continue                        # AT-M7: a unit entering is destroyed there
        cost_b = bk >> 3
        if cost_b + min_cost > budget:
            continue                        # no hex is cheap enough to enter from here
        haz_b = bk & 7
        for d in range(N_DIRS):
            c = nb[best, d]
            if c < 0:
                continue
            e = ent[c]
            if e < 0 or occ[c] >= 0:        # AT-M8 / AT-M5, AT-M2
                continue
            cc = cost_b + (e >> E_SHIFT)
            if cc > budget:
                continue
            hz = haz_b
            if e & E_ATTACK and hz < 7:
                hz += 1
            key = cc * 8 + hz
            if pk[c] == INF:
                lst[n] = c
                n += 1
                opn[m] = c
                m += 1
                pk[c] = key
                prev[c] = best
                done[c] = 0
            elif done[c] == 0 and key < pk[c]:
                pk[c] = key
                prev[c] = best
    g[GS_PN] = n
    return n


@njit(cache=True, _nrt=False)
def enter_effects(scr, dat, i, c):
    """AT-M7: entering a Vortex / Lava destroys the unit; a Whirl Pool / Vent attacks it.

    Returns True while the unit is still alive.
    """
    terrain = dat[D_TERRAIN]
    u = scr[X_U]
    t = scr[X_TER][c]
    if terrain[t, T_ENTRY_DEATH] == 1:
        cause, src = terrain_cause(scr, c)
        emit(scr, EV_ENTER_HAZARD, i, u[i, UC_TYPE], c, t, 1, 0, 0)
        destroy(scr, dat, i, cause, src)
        return False
    ad = terrain[t, T_ENTRY_ATTACK]
    if ad > 0:
        hits, packed = roll_hits(scr, dat, ad)
        emit(scr, EV_ENTER_HAZARD, i, u[i, UC_TYPE], c, t, 0, hits, packed)
        cause, src = terrain_cause(scr, c)
        damage(scr, dat, i, hits, src, np.int64(0), cause)
        return u[i, UC_ALIVE] == 1
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def step_to(scr, dat, i, c):
    """Move slot i one hex into cell c (already checked enterable). True if it survives.

    Inlined where it is called (docs/performance.md, Atlantis: a call passes every array
    of the game state); it calls out only for Entangle counters to release and for a hex
    with an entry effect.
    """
    u = scr[X_U]
    occ = scr[X_OCC]
    occ[u[i, UC_CELL]] = -1
    occ[c] = i
    u[i, UC_CELL] = c
    u[i, UC_MOVED] = 1
    u[i, UC_HIDDEN] = 0                     # AT-M6 / AT-A8: moving discards the Hide marker
    if u[i, UC_ENT_OUT] > 0:
        release_entangle(scr, dat, i)       # AT-X3 / AMB-T21
    terrain = dat[D_TERRAIN]
    t = scr[X_TER][c]
    if terrain[t, T_ENTRY_DEATH] == 1 or terrain[t, T_ENTRY_ATTACK] > 0:
        return enter_effects(scr, dat, i, c)     # AT-M7
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def move_along(scr, dat, i, dest):
    """Walk slot i along the path found by :func:`reach` to ``dest``; stops if it dies."""
    prev = scr[X_PPREV]
    path = scr[X_PATH]
    u = scr[X_U]
    start = u[i, UC_CELL]
    k = 0
    c = dest
    while c != start and c >= 0:
        path[k] = c
        k += 1
        c = prev[c]
    for m in range(k - 1, -1, -1):
        if not step_to(scr, dat, i, path[m]):
            return
        if scr[X_G][GS_OVER] == 1:
            return


@njit(cache=True, _nrt=False)
def siren_move(scr, dat, i, budget):
    """AT-M4 / AMB-T8: a Siren-countered unit moves toward the unit that gave the counter.

    Every step must reduce the hex distance to the Siren unit; it keeps stepping (full MV,
    ``siren_full_move`` = 1) until adjacent, out of moves or blocked, or makes exactly one
    step (0). Among closing steps it takes the nearest, then the cheapest; it never steps
    into a Vortex or Lava (that hex counts as blocked). Returns the moves spent.
    """
    u = scr[X_U]
    terrain = dat[D_TERRAIN]
    nb = dat[D_NB]
    dist = dat[D_DIST]
    ter = scr[X_TER]
    occ = scr[X_OCC]
    src = u[i, UC_SIREN_SRC]
    large = dat[D_UNITS][u[i, UC_TYPE], U_LARGE]
    full = dat[D_RULES][R_SIREN_FULL_MOVE] > 0.5
    spent = 0
    steps = 0
    while True:
        if steps >= 1 and not full:
            break
        if u[src, UC_ALIVE] == 0:
            break
        s = u[src, UC_CELL]
        cur = u[i, UC_CELL]
        dcur = dist[cur, s]
        if dcur <= 1:
            break
        best = np.int64(-1)   # int64 from the start: a literal -1 would compile step_to twice
        bestd = dcur
        bestcost = 1 << 20
        for d in range(N_DIRS):
            c = nb[cur, d]
            if not can_enter(ter, occ, terrain, large, c):
                continue
            t = ter[c]
            if terrain[t, T_ENTRY_DEATH] == 1:
                continue
            cost = terrain[t, T_COST]
            if spent + cost > budget:
                continue
            dd = dist[c, s]
            if dd < bestd or (dd == bestd and dd < dcur and cost < bestcost):
                best = c
                bestd = dd
                bestcost = cost
        if best < 0:
            break
        spent += bestcost
        steps += 1
        emit(scr, EV_MOVE, i, u[i, UC_TYPE], cur, best, bestcost, budget - spent,
             10 * scr[X_G][GS_PHASE] + 1)
        if not step_to(scr, dat, i, best) or scr[X_G][GS_OVER] == 1:
            break
    return spent


@njit(cache=True, _nrt=False)
def compute_fields(scr, dat, side):
    """Per-cell summaries of the other side for the bots: nearest hexes and expected hits.

    ``near[c]`` = hex distance from c to the nearest living unit of the other player;
    ``threat[c]`` = expected hits the other side's units that are free to act (not
    paralyzed, no Siren counter) could deal to a unit in c next turn (AD x hit chance,
    counted when c is within MV + attack range, terrain ignored).
    """
    g = scr[X_G]
    u = scr[X_U]
    near = scr[X_NEAR]
    threat = scr[X_THREAT]
    units = dat[D_UNITS]
    dist = dat[D_DIST]
    rules = dat[D_RULES]
    ph = hit_prob(rules)
    C = g[GS_C]
    for c in range(C):
        near[c] = 1 << 20
        threat[c] = 0.0
    rmax = np.int64(rules[R_RANGED_MAX])
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or u[j, UC_SIDE] == side or u[j, UC_SIDE] == 2:
            continue
        cj = u[j, UC_CELL]
        t = u[j, UC_TYPE]
        free = paralysis(u, j) == 0 and u[j, UC_SIREN] == 0 and units[t, U_AD] > 0
        reachj = units[t, U_MV] + (rmax if units[t, U_RANGED] == 1 else 1)
        w = units[t, U_AD] * ph
        if units[t, U_POISON] == 1:
            w *= 3.0
        # dist is symmetric: read row cj (contiguous) rather than column cj, and keep the
        # two passes branch-free so LLVM vectorises them (docs/performance.md, Atlantis)
        drow = dist[cj]
        for c in range(C):
            near[c] = min(near[c], drow[c])
        if free:
            for c in range(C):
                if drow[c] <= reachj:
                    threat[c] += w


# ---------------------------------------------------------------------------------------
# attack phase (AT-A1..A8, AT-X1..X9)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def legal_targets(scr, dat, i, split_only):
    """Targets slot i may attack (AT-A1, AT-X5, AT-X6; AMB-T4, T5, T20) into ``itmp``.

    Adjacent foes (neutrals included), and for Ranged units any at ``ranged_min ..
    ranged_max`` hexes in sight. When an enemy Martyr is adjacent (or, with
    ``martyr_forces_ranged``, within a ranged attacker's range) only Martyrs are legal.
    ``split_only``: only adjacent targets (the sub-attacks of Split, AT-A6).

    Returns (n, forced): the count in ``itmp[0:n]`` and whether a Martyr forced it.
    Inlined at its call sites, like :func:`step_to` (once per unit per Attack phase).
    """
    g = scr[X_G]
    u = scr[X_U]
    out = scr[X_ITMP]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    dist = dat[D_DIST]
    ci = u[i, UC_CELL]
    t = u[i, UC_TYPE]
    ranged = units[t, U_RANGED] == 1 and not split_only
    rmin = 1
    rmax = 1
    if ranged:
        rmin = np.int64(rules[R_RANGED_MIN])
        rmax = np.int64(rules[R_RANGED_MAX])
    force_ranged = ranged and rules[R_MARTYR_RANGED] > 0.5
    n = 0
    if not ranged:
        # adjacent targets only: the units on the 6 neighbouring hexes (a living unit is
        # the one occ names on its cell), in slot order as the scan below would list them
        nb = dat[D_NB]
        occ = scr[X_OCC]
        martyrs = 0
        for d in range(N_DIRS):
            c = nb[ci, d]
            if c < 0:
                continue
            j = occ[c]
            if j < 0 or not is_foe(u, i, j):
                continue
            k = n
            while k > 0 and out[k - 1] > j:
                out[k] = out[k - 1]
                k -= 1
            out[k] = j
            n += 1
            martyrs += units[u[j, UC_TYPE], U_MARTYR]
        if martyrs > 0:
            m = 0                           # AT-X6: only the adjacent Martyrs
            for k in range(n):
                j = out[k]
                if units[u[j, UC_TYPE], U_MARTYR] == 1:
                    out[m] = j
                    m += 1
            return m, True
        return n, False
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or not is_foe(u, i, j):
            continue
        if units[u[j, UC_TYPE], U_MARTYR] == 0:
            continue
        dd = dist[ci, u[j, UC_CELL]]
        if dd == 1 or (force_ranged and dd >= rmin and dd <= rmax
                       and los_clear(scr, dat, ci, u[j, UC_CELL])):
            out[n] = j
            n += 1
    if n > 0:
        # only Martyrs the unit can actually reach with its attack
        m = 0
        for k in range(n):
            j = out[k]
            dd = dist[ci, u[j, UC_CELL]]
            if dd >= rmin and dd <= rmax:
                out[m] = j
                m += 1
        return m, True
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or not is_foe(u, i, j):
            continue
        cj = u[j, UC_CELL]
        dd = dist[ci, cj]
        if dd < rmin or dd > rmax:
            continue
        if dd >= 2 and not los_clear(scr, dat, ci, cj):
            continue
        out[n] = j
        n += 1
    return n, False


@njit(cache=True, _nrt=False)
def special_targets(scr, dat, i, rng, T):
    """Enemies (other player's side) a pre-attack special of slot i may target (AT-A2).

    Visible units (no Hide marker) within ``rng`` hexes in sight; with
    ``specials.any_target`` off (AMB-T11) only the regular target T; with
    ``martyr_forces_specials`` (AMB-T20) an adjacent Martyr must be chosen for adjacent
    specials. Fills ``itmp``; returns the count.
    """
    g = scr[X_G]
    u = scr[X_U]
    out = scr[X_ITMP]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    dist = dat[D_DIST]
    ci = u[i, UC_CELL]
    any_target = rules[R_SPECIALS_ANY_TARGET] > 0.5
    n = 0
    if rng == 1 and rules[R_MARTYR_SPECIALS] > 0.5:
        for j in range(g[GS_NSLOTS]):
            if (u[j, UC_ALIVE] == 1 and is_opponent(u, i, j)
                    and units[u[j, UC_TYPE], U_MARTYR] == 1 and u[j, UC_HIDDEN] == 0
                    and dist[ci, u[j, UC_CELL]] == 1):
                if any_target or j == T:
                    out[n] = j
                    n += 1
        if n > 0:
            return n
        for j in range(g[GS_NSLOTS]):
            if (u[j, UC_ALIVE] == 1 and is_opponent(u, i, j)
                    and units[u[j, UC_TYPE], U_MARTYR] == 1
                    and dist[ci, u[j, UC_CELL]] == 1):
                return 0                    # a hidden Martyr still forces: no legal target
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or not is_opponent(u, i, j) or u[j, UC_HIDDEN] == 1:
            continue
        if not any_target and j != T:
            continue
        cj = u[j, UC_CELL]
        dd = dist[ci, cj]
        if dd > rng:
            continue
        if dd >= 2 and not los_clear(scr, dat, ci, cj):
            continue
        out[n] = j
        n += 1
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def do_specials(scr, dat, kn, i, T):
    """AT-A2: Entangle, Net, Mesmerize and Siren's Call, rolled before the regular attack.

    Returns True when the unit used one (rolled for at least one target): the rulebook
    calls these attacks ("Net attack", "the unit that made the Siren attack"), so with
    ``specials.special_discards_hide`` (AMB-T28) the caller then discards its Hide marker
    (AT-A8), after the regular attack's hidden bonus if one follows.
    """
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    dist = dat[D_DIST]
    g = scr[X_G]
    t = u[i, UC_TYPE]
    used = False
    for kind in range(4):
        if g[GS_OVER] == 1 or u[i, UC_ALIVE] == 0:
            return used
        if kind == SPX_ENTANGLE:
            if units[t, U_ENTANGLE] == 0:
                continue
            rng = 1
            mx = np.int64(rules[R_ENTANGLE_MAX])
        elif kind == SPX_NET:
            if units[t, U_NET] == 0:
                continue
            rng = 1
            mx = np.int64(rules[R_NET_MAX])
        elif kind == SPX_MESMERIZE:
            if units[t, U_MESMERIZE] == 0:
                continue
            rng = np.int64(rules[R_MESMERIZE_RANGE])
            mx = np.int64(rules[R_MESMERIZE_MAX])
        else:
            # AT-X7 Siren's Call (Siren, Morkoth; Sirens Song spell, AMB-T27): a roll for
            # every enemy within range, Hide marker or not
            if units[t, U_SIREN] == 0 and u[i, UC_SONG] <= 0:
                continue
            rng = np.int64(rules[R_SIREN_RANGE])
            mx = np.int64(rules[R_SIREN_MAX])
            ci = u[i, UC_CELL]
            for j in range(g[GS_NSLOTS]):
                if u[j, UC_ALIVE] == 0 or not is_opponent(u, i, j):
                    continue
                cj = u[j, UC_CELL]
                if dist[ci, cj] > rng or not los_clear(scr, dat, ci, cj):
                    continue
                r = d6(scr)
                used = True
                ok = r <= mx
                if ok:
                    u[j, UC_SIREN] += 1
                    u[j, UC_SIREN_SRC] = i
                    add_stat(scr, u[i, UC_SIDE], S_SIRENS, 1)
                    scr[X_GSTAT][G_SIREN] += 1
                emit(scr, EV_SPECIAL, i, t, j, SPX_SIREN, r, 1 if ok else 0, u[j, UC_TYPE])
            continue
        n = special_targets(scr, dat, i, rng, T)
        if n == 0:
            continue
        j = bots.special_target(scr, dat, kn, i, n)
        if j < 0:
            continue
        r = d6(scr)
        used = True
        ok = r <= mx
        if ok:
            # AT-X3 Entangle counters remember their source (AMB-T21); Net, Mesmerize plain
            add_paralysis(scr, j, np.int64(1), i if kind == SPX_ENTANGLE else np.int64(-1))
            add_stat(scr, u[i, UC_SIDE], S_PARALYSES, 1)
        emit(scr, EV_SPECIAL, i, t, j, kind, r, 1 if ok else 0, u[j, UC_TYPE])
    return used


@njit(cache=True, _nrt=False, forceinline=True)
def attack_dice(scr, dat, i, j, alloc):
    """AT-A4: dice of one (sub-)attack of slot i on slot j with ``alloc`` dice of its pool.

    The pool (AD + hidden-attacker and temple bonuses) is split by Split units; each
    sub-attack adds +paralyzed_bonus against a paralyzed target and the temple bonus of a
    target in the bonus hex (AMB-T9 target/either), and loses the terrain penalty of
    the attacker's or the target's hex (Upwelling, Whirl Pool; one penalty per attack).
    AMB-T24: ``terrain_only`` floors only the penalty (AD - penalty >= floor, bonuses
    added after); ``all`` floors the final dice.
    """
    u = scr[X_U]
    ter = scr[X_TER]
    terrain = dat[D_TERRAIN]
    rules = dat[D_RULES]
    side = u[i, UC_SIDE]
    bonus = 0
    if paralysis(u, j) > 0:
        bonus += np.int64(rules[R_PARALYZED_BONUS])
    scope = np.int64(rules[R_TEMPLE_SCOPE])
    tt = ter[u[j, UC_CELL]]
    ta = ter[u[i, UC_CELL]]
    if scope == 1 and terrain[tt, T_BONUS_SIDE] == side or scope == 2 and terrain[ta, T_BONUS_SIDE] != side and terrain[tt, T_BONUS_SIDE] == side:
        bonus += terrain[tt, T_BONUS_AD]
    pen = max(terrain[ta, T_ATTACK_PENALTY], terrain[tt, T_ATTACK_PENALTY])
    floor = np.int64(rules[R_PENALTY_FLOOR])
    if rules[R_PENALTY_FLOOR_SCOPE] > 0.5:
        n = alloc + bonus - pen
        if pen > 0 and n < floor:
            n = floor
    else:
        b = alloc - pen
        if pen > 0 and b < floor:
            b = min(alloc, floor)
        n = b + bonus
    return max(n, 0)


@njit(cache=True, _nrt=False, forceinline=True)
def attack_pool(scr, dat, i):
    """AT-A4 attacker-side dice: AD, +hidden bonus (+Assassin's), temple/bed (AMB-T9)."""
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    terrain = dat[D_TERRAIN]
    t = u[i, UC_TYPE]
    pool = units[t, U_AD]
    if u[i, UC_HIDDEN] == 1:
        pool += np.int64(rules[R_HIDDEN_BONUS]) + units[t, U_HIDDEN_AD]
    scope = np.int64(rules[R_TEMPLE_SCOPE])
    ta = scr[X_TER][u[i, UC_CELL]]
    if scope != 1 and terrain[ta, T_BONUS_SIDE] == u[i, UC_SIDE]:
        pool += terrain[ta, T_BONUS_AD]
    return pool


@njit(cache=True, _nrt=False, forceinline=True)
def resolve_attack(scr, dat, i, j, n):
    """AT-A5 roll n dice of slot i at slot j; AT-X1 poison, AT-X2 sting (AMB-T18)."""
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    t = u[i, UC_TYPE]
    hits, packed = roll_hits(scr, dat, n)
    add_stat(scr, u[i, UC_SIDE], S_ATTACKS, 1)
    scr[X_GSTAT][G_ATTACKS] += 1
    emit(scr, EV_ATTACK, i, t, j, u[j, UC_TYPE], n, hits, packed)
    if hits <= 0:
        return
    damage(scr, dat, j, hits, i, units[t, U_POISON], np.int64(END_ATTACK))
    if units[t, U_STING] == 1 and u[j, UC_ALIVE] == 1:
        k = np.int64(rules[R_STING_COUNTERS])
        if k <= 0:
            k = hits                      # AMB-T18 alternative: one counter per damage
        add_paralysis(scr, j, k, np.int64(-1))
        add_stat(scr, u[i, UC_SIDE], S_PARALYSES, k)
        emit(scr, EV_SPECIAL, i, t, j, SPX_STING, 0, k, u[j, UC_TYPE])


@njit(cache=True, _nrt=False)
def search(scr, dat, i, j):
    """AT-A3 search roll of slot i against hidden slot j (one per unit per turn)."""
    u = scr[X_U]
    rules = dat[D_RULES]
    if u[i, UC_SEARCHED] == 1:
        return False
    u[i, UC_SEARCHED] = 1
    r = d6(scr)
    ok = r >= np.int64(rules[R_SEARCH_MIN])
    add_stat(scr, u[i, UC_SIDE], S_SEARCHES, 1)
    scr[X_GSTAT][G_SEARCHES] += 1
    if ok:
        add_stat(scr, u[i, UC_SIDE], S_SEARCHES_OK, 1)
        if rules[R_SEARCH_REVEALS] > 0.5:
            u[j, UC_HIDDEN] = 0           # AMB-T3 alternative: the marker is removed
    emit(scr, EV_SEARCH, i, u[i, UC_TYPE], j, r, 1 if ok else 0, u[j, UC_TYPE], 0)
    return ok


@njit(cache=True, _nrt=False, forceinline=True)
def do_attack(scr, dat, kn, i, T):
    """The regular attack of slot i on target T (AT-A3..A6), Split dice per AMB-T19."""
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    alloc = scr[X_ALLOC]
    g = scr[X_G]
    t = u[i, UC_TYPE]
    g[GS_LAST_ATTACK] = g[GS_TURN]           # the bots' standoff clock (bots.breaking)
    if u[T, UC_HIDDEN] == 1:
        if not search(scr, dat, i, T):
            if rules[R_FAILED_SEARCH_CONSUMES] > 0.5:
                return                      # AMB-T2: the failed search used the attack
            n, forced = legal_targets(scr, dat, i, np.bool_(False))
            T = bots.visible_target(scr, dat, kn, i, n)
            if T < 0:
                return
    pool = attack_pool(scr, dat, i)
    for k in range(g[GS_NSLOTS]):
        alloc[k] = 0
    alloc[T] = pool
    if units[t, U_SPLIT] == 1 and pool > 1:
        # AT-A6 / AMB-T19: divide the dice among adjacent enemies; one search in all
        n, forced = legal_targets(scr, dat, i, np.bool_(True))
        if n > 1:
            bots.split_dice(scr, dat, kn, i, T, pool, n)
    # a Split sub-target with a Hide marker needs its own search (split_one_search off) or
    # is dropped (on: the unit's one search went to T)
    for k in range(g[GS_NSLOTS]):
        if alloc[k] > 0 and k != T and u[k, UC_HIDDEN] == 1:
            if rules[R_SPLIT_ONE_SEARCH] > 0.5 or not search(scr, dat, i, k):
                alloc[k] = 0
    u[i, UC_HIDDEN] = 0                   # AT-A8: a hidden attacker discards its marker
    order = T
    for _ in range(g[GS_NSLOTS] + 1):
        if order >= 0 and alloc[order] > 0:
            j = order
            n_dice = attack_dice(scr, dat, i, j, alloc[j])
            alloc[j] = 0
            if u[j, UC_ALIVE] == 1:
                resolve_attack(scr, dat, i, j, n_dice)
            if g[GS_OVER] == 1:
                return
        order = -1
        for k in range(g[GS_NSLOTS]):
            if alloc[k] > 0:
                order = k
                break
        if order < 0:
            break


@njit(cache=True, _nrt=False)
def do_hide(scr, dat, i):
    """AT-A7: 1d6 + HF + terrain hide bonus (+ unit terrain bonus) >= success_min hides."""
    u = scr[X_U]
    rules = dat[D_RULES]
    t = u[i, UC_TYPE]
    c = u[i, UC_CELL]
    tr = scr[X_TER][c]
    mod = hide_modifier(dat, t, tr)
    r = d6(scr)
    ok = r + mod >= np.int64(rules[R_HIDE_MIN])
    add_stat(scr, u[i, UC_SIDE], S_HIDES_TRIED, 1)
    if ok:
        u[i, UC_HIDDEN] = 1
        add_stat(scr, u[i, UC_SIDE], S_HIDES_OK, 1)
        scr[X_GSTAT][G_HIDES] += 1
    emit(scr, EV_HIDE, i, t, c, r, mod, 1 if ok else 0, 0)


@njit(cache=True, _nrt=False)
def attack_phase(scr, dat, kn, side):
    """AT-A1: each of the active side's units attacks, hides or does nothing, once.

    Units with a pre-attack special act first (their counters give later attackers the
    +2 AD against paralyzed targets), then the rest in slot order.
    """
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    order = scr[X_ORDER]
    m = 0
    for rnd in range(2):
        for i in range(g[GS_NSLOTS]):
            if u[i, UC_ALIVE] == 0 or u[i, UC_SIDE] != side:
                continue
            t = u[i, UC_TYPE]
            sp = (units[t, U_ENTANGLE] + units[t, U_NET] + units[t, U_MESMERIZE]
                  + units[t, U_SIREN] + (1 if u[i, UC_SONG] > 0 else 0)) > 0
            if sp == (rnd == 0):
                order[m] = i
                m += 1
    without = rules[R_SPECIALS_WITHOUT_ATTACK] > 0.5
    for k in range(m):
        i = order[k]
        if u[i, UC_ALIVE] == 0 or u[i, UC_ACTED] == 1:
            continue
        u[i, UC_ACTED] = 1
        ok_attack = can_attack(scr, dat, i)
        n = 0
        if ok_attack:
            n, forced = legal_targets(scr, dat, i, np.bool_(False))
        action, T = bots.attack_plan(scr, dat, kn, i, n, ok_attack, can_hide(scr, dat, i))
        if action == 2:
            do_hide(scr, dat, i)
            continue
        if not ok_attack:
            continue
        used = False
        discards = rules[R_SPECIAL_DISCARDS_HIDE] > 0.5
        if action == 1 or (without and not (discards and u[i, UC_HIDDEN] == 1
                                            and bots.keep_hidden(scr, dat, kn, i))):
            # AT-A2 / AMB-T11 specials before and in addition to the regular attack
            used = do_specials(scr, dat, kn, i, T if action == 1 else -1)
            if g[GS_OVER] == 1:
                return
        if action == 1 and u[T, UC_ALIVE] == 1 and u[i, UC_ALIVE] == 1:
            do_attack(scr, dat, kn, i, T)
        if used and discards:
            u[i, UC_HIDDEN] = 0             # AMB-T28 / AT-A8: a special is an attack
        if g[GS_OVER] == 1:
            return


# ---------------------------------------------------------------------------------------
# swim phases (AT-M1..M8)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def swim_phase(scr, dat, kn, side, phase):
    """First (phase 1) or Second (2) Swim phase of the active side (AT-M1, AT-M3, AT-M4).

    Phase 1 budgets MV and saves what is unused; phase 2 spends the saved moves. Units
    nearest the enemy move first so the front does not block the rear.
    """
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    near = scr[X_NEAR]
    order = scr[X_ORDER]
    g[GS_PHASE] = phase
    compute_fields(scr, dat, side)
    g[GS_BREAKING] = 0
    if bots.breaking(scr, dat, kn, side):
        g[GS_BREAKING] = 1
        bots.leader_paths(scr, dat, side)
    m = 0
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 1 and u[i, UC_SIDE] == side:
            key = near[u[i, UC_CELL]] * MAX_UNITS + i
            k = m
            while k > 0:
                o = order[k - 1]
                if near[u[o, UC_CELL]] * MAX_UNITS + o <= key:
                    break
                order[k] = o
                k -= 1
            order[k] = i
            m += 1
    for k in range(m):
        i = order[k]
        if u[i, UC_ALIVE] == 0:
            continue
        t = u[i, UC_TYPE]
        budget = units[t, U_MV] if phase == 1 else u[i, UC_SAVED]
        if phase == 1:
            u[i, UC_SAVED] = 0
        if budget <= 0 or paralysis(u, i) > 0:
            continue                        # AT-M3: paralyzed units cannot move
        if u[i, UC_SIREN] > 0 and u[i, UC_SIREN_SRC] >= 0 and \
                u[u[i, UC_SIREN_SRC], UC_ALIVE] == 1:
            spent = siren_move(scr, dat, i, budget)     # AT-M4 / AMB-T8
            if u[i, UC_ALIVE] == 1:
                u[i, UC_SAVED] = budget - spent
            if g[GS_OVER] == 1:
                return
            continue
        n = reach(scr, dat, i, budget, bots.avoid_entry(scr, dat, kn, i))
        if n <= 1:
            if phase == 1:
                u[i, UC_SAVED] = budget
            continue
        dest = bots.choose_move(scr, dat, kn, i, n, phase)
        start = u[i, UC_CELL]
        cost = 0
        if dest != start and dest >= 0:
            cost = scr[X_PKEY][dest] >> 3
            emit(scr, EV_MOVE, i, t, start, dest, cost, budget - cost, 10 * phase)
            move_along(scr, dat, i, dest)
        if u[i, UC_ALIVE] == 1:
            u[i, UC_SAVED] = budget - cost      # AT-M1: unused moves are saved
        if g[GS_OVER] == 1:
            return


# ---------------------------------------------------------------------------------------
# spells (AT-SP0, §1.14)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def new_unit(scr, dat, t, side, c):
    """Put a new unit of type t for ``side`` on cell c (spell creations); -1 if no slot."""
    g = scr[X_G]
    u = scr[X_U]
    i = g[GS_NSLOTS]
    if i >= MAX_UNITS:
        return -1
    g[GS_NSLOTS] = i + 1
    for k in range(UC_N):
        u[i, k] = 0
    u[i, UC_TYPE] = t
    u[i, UC_SIDE] = side
    u[i, UC_CELL] = c
    u[i, UC_ALIVE] = 1
    u[i, UC_USED] = 1
    u[i, UC_SIREN_SRC] = -1
    u[i, UC_CUR_TURN] = -1
    for k in range(MAX_CHITS):
        scr[X_CHITS][i, k] = -1
    for k in range(MAX_ENT):
        scr[X_ENT][i, k] = -1
    scr[X_OCC][c] = i
    return i


@njit(cache=True, _nrt=False)
def draw_chits(scr, i, n):
    """AT-S3 / AT-C4: draw n spell chits for slot i at random from the common pool."""
    pool = scr[X_POOL]
    u = scr[X_U]
    chits = scr[X_CHITS]
    for _ in range(n):
        total = 0
        for s in range(N_SPELLS):
            total += pool[s]
        if total <= 0 or u[i, UC_NCHITS] >= MAX_CHITS:
            return
        r = rand_below(scr, total)
        s = 0
        while r >= pool[s]:
            r -= pool[s]
            s += 1
        pool[s] -= 1
        chits[i, u[i, UC_NCHITS]] = s
        u[i, UC_NCHITS] += 1


@njit(cache=True, _nrt=False)
def cast(scr, dat, kn, i, k, target):
    """Cast chit k of slot i (AT-SP0) at ``target`` (a cell, a dead slot, or -1).

    Returns True if the spell was cast (the chit is then spent, AMB-T10).
    """
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    spells = dat[D_SPELLS]
    rules = dat[D_RULES]
    dist = dat[D_DIST]
    occ = scr[X_OCC]
    side = u[i, UC_SIDE]
    t = u[i, UC_TYPE]
    ci = u[i, UC_CELL]
    sp = scr[X_CHITS][i, k]
    extra = 0
    if spells[sp, SPC_CREATES] >= 0:
        # Oyster, Anemone, Strangle Weed, Water Elemental: a unit under the caster's side
        o = occ[target]
        if o >= 0:
            extra = -1                      # AMB-T26 off: a hidden unit was there; fizzles
        else:
            j = new_unit(scr, dat, spells[sp, SPC_CREATES], side, target)
            if j < 0:
                return False
            extra = j
            u[j, UC_CREATED] = 1
            add_stat(scr, side, S_CREATED, 1)
            scr[X_GSTAT][G_CREATED] += 1
            emit(scr, EV_DEPLOY, j, u[j, UC_TYPE], target, 1, side, 0, 0)
    elif sp == SP_SIRENS_SONG:
        # 3 + 1d3 of the caster's turns (AMB-T27)
        a = spells[sp, SPC_AMOUNT]
        if a == 3:
            roll = (d6(scr) + 1) // 2
        elif a == 6:
            roll = d6(scr)
        else:
            roll = 1 + rand_below(scr, max(a, 1))
        u[i, UC_SONG] = spells[sp, SPC_BASE] + roll
        extra = u[i, UC_SONG]
    elif spells[sp, SPC_SETS_TERRAIN] >= 0:
        # Freeze, Whirlpool, Vortex, Eruption: the hex changes terrain
        extra = -1
        set_terrain(scr, dat, target, spells[sp, SPC_SETS_TERRAIN])
        scr[X_CUR][target] = -1
        scr[X_TSRC][target] = i
        o = occ[target]
        if sp == SP_FREEZE and o >= 0:
            add_paralysis(scr, o, spells[sp, SPC_AMOUNT], np.int64(-1))  # 2 Paralyzation counters
            if u[o, UC_SIDE] != side:
                add_stat(scr, side, S_PARALYSES, spells[sp, SPC_AMOUNT])
            extra = o
    elif sp == SP_TANGLE_KELP:
        o = occ[target]
        add_paralysis(scr, o, spells[sp, SPC_AMOUNT], np.int64(-1))
        if u[o, UC_SIDE] != side:
            add_stat(scr, side, S_PARALYSES, spells[sp, SPC_AMOUNT])
        extra = o
    elif sp == SP_HEALING:
        # AMB-T16: 1d6 removals of damage and/or Paralyzation markers among friendly
        # units within range (the pool), or all on one unit (healing_pool off)
        left = d6(scr)
        extra = left
        rng = spells[sp, SPC_RANGE]
        one = rules[R_HEALING_POOL] < 0.5
        first = np.int64(-1)
        while left > 0:
            j = bots.heal_pick(scr, dat, kn, i, rng, first if one else np.int64(-1))
            if j < 0:
                break
            if first < 0:
                first = j
            if u[j, UC_DMG] > 0 and (units[u[j, UC_TYPE], U_LEADER] == 1
                                     or paralysis(u, j) == 0) or not remove_one_paralysis(scr, j):
                u[j, UC_DMG] -= 1
            left -= 1
    elif sp == SP_RESURRECTION:
        # AMB-T15: a destroyed unit of the caster's side back adjacent to the caster, at
        # full health (or 1 point left), without chits unless resurrection_gets_chits
        j = target
        c = bots.resurrect_cell(scr, dat, kn, i, j)
        if c < 0:
            return False
        jt = u[j, UC_TYPE]
        u[j, UC_ALIVE] = 1
        u[j, UC_CELL] = c
        occ[c] = j
        u[j, UC_DMG] = 0 if rules[R_RESURRECT_FULL] > 0.5 else units[jt, U_DR] - 1
        u[j, UC_HIDDEN] = 0
        u[j, UC_SAVED] = 0
        u[j, UC_ACTED] = 1
        u[j, UC_NCHITS] = 0
        u[j, UC_SIREN_SRC] = -1
        for q in range(MAX_CHITS):
            scr[X_CHITS][j, q] = -1
        if rules[R_RESURRECT_CHITS] > 0.5:
            draw_chits(scr, j, units[jt, U_SPELLS])
        add_stat(scr, side, S_RESURRECTIONS, 1)
        extra = c
    elif sp == SP_MURKY_DEPTHS:
        # AMB-T13: Hide markers on up to 3 (friendly) units within range
        extra = 0
        for _ in range(spells[sp, SPC_AMOUNT]):
            j = bots.murky_pick(scr, dat, kn, i, spells[sp, SPC_RANGE],
                                rules[R_MURKY_FRIENDLY] > 0.5)
            if j < 0:
                break
            u[j, UC_HIDDEN] = 1
            extra += 1
    elif sp == SP_LUMINESCENCE:
        extra = 0
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 1 and u[j, UC_HIDDEN] == 1 and \
                    dist[ci, u[j, UC_CELL]] <= spells[sp, SPC_RANGE]:
                u[j, UC_HIDDEN] = 0
                extra += 1
    add_stat(scr, side, S_SPELLS_CAST, 1)
    add_stat(scr, side, S_CAST0 + sp, 1)
    scr[X_GSTAT][G_SPELLS_CAST] += 1
    emit(scr, EV_SPELL, i, t, sp, target, extra, 0, 0)
    if rules[R_CHIT_SINGLE_USE] > 0.5:      # AMB-T10: the chit is spent
        chits = scr[X_CHITS]
        nch = u[i, UC_NCHITS]
        chits[i, k] = chits[i, nch - 1]
        chits[i, nch - 1] = -1
        u[i, UC_NCHITS] = nch - 1
    return True


@njit(cache=True, _nrt=False)
def cast_spells(scr, dat, kn, side):
    """AT-E2: each unparalyzed caster of the active side casts up to spells_per_caster."""
    g = scr[X_G]
    u = scr[X_U]
    per = np.int64(dat[D_RULES][R_SPELLS_PER_CASTER])
    lum_end = dat[D_RULES][R_LUMINESCENCE_TIMING] > 0.5
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 0 or u[i, UC_SIDE] != side or u[i, UC_NCHITS] == 0:
            continue
        for _ in range(per):
            if u[i, UC_ALIVE] == 0 or paralysis(u, i) > 0 or u[i, UC_NCHITS] == 0:
                break
            k, target = bots.choose_spell(scr, dat, kn, i, lum_end)
            if k < 0:
                break
            cast(scr, dat, kn, i, k, target)
            if g[GS_OVER] == 1:
                return


@njit(cache=True, _nrt=False)
def luminescence_any_time(scr, dat, kn, side):
    """AMB-T25: Luminescence cast before the side's attacks (outside the End phase)."""
    g = scr[X_G]
    u = scr[X_U]
    chits = scr[X_CHITS]
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 0 or u[i, UC_SIDE] != side or paralysis(u, i) > 0:
            continue
        for k in range(u[i, UC_NCHITS]):
            if chits[i, k] == SP_LUMINESCENCE:
                if bots.want_luminescence(scr, dat, kn, i):
                    cast(scr, dat, kn, i, k, np.int64(-1))
                break


# ---------------------------------------------------------------------------------------
# End phase (AT-E1..E3)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def end_phase(scr, dat, kn, side):
    """AT-E1 terrain (currents, Vortex, Lava), AT-E2 spells, AT-E3 recovery."""
    g = scr[X_G]
    u = scr[X_U]
    ter = scr[X_TER]
    cur = scr[X_CUR]
    occ = scr[X_OCC]
    terrain = dat[D_TERRAIN]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    nb = dat[D_NB]
    g[GS_PHASE] = 4
    every = rules[R_TERRAIN_SCOPE] > 0.5          # AMB-T7: 'all' or the active side only
    turn = g[GS_TURN]
    # currents and River Outflows: one push per unit per turn; AMB-T17 blocked -> stays
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 0 or not (every or u[i, UC_SIDE] == side):
            continue
        c = u[i, UC_CELL]
        if terrain[ter[c], T_CURRENT] == 0 or cur[c] < 0 or u[i, UC_CUR_TURN] == turn:
            continue
        u[i, UC_CUR_TURN] = turn
        nc = nb[c, cur[c]]
        large = units[u[i, UC_TYPE], U_LARGE]
        if can_enter(ter, occ, terrain, large, nc):
            emit(scr, EV_CURRENT, i, u[i, UC_TYPE], c, nc, CUR_MOVED, 0, 0)
            step_to(scr, dat, i, nc)        # hide lost; Vortex/Lava/Whirl Pool apply
        else:
            emit(scr, EV_CURRENT, i, u[i, UC_TYPE], c, nc, CUR_BLOCKED, 0, 0)
        if g[GS_OVER] == 1:
            return
    # Vortex: each adjacent unit sucked in on d6 <= adj_death_faces (a roll per Vortex)
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 0 or not (every or u[i, UC_SIDE] == side):
            continue
        c = u[i, UC_CELL]
        for d in range(N_DIRS):
            nc = nb[c, d]
            if nc < 0:
                continue
            f = terrain[ter[nc], T_ADJ_DEATH_FACES]
            if f <= 0:
                continue
            r = d6(scr)
            dead = r <= f
            emit(scr, EV_TERRAIN_END, i, u[i, UC_TYPE], nc, ter[nc], r, 1 if dead else 0, 0)
            if dead:
                cause, src = terrain_cause(scr, nc)
                destroy(scr, dat, i, cause, src)
                break
        if g[GS_OVER] == 1:
            return
    # Lava: each adjacent unit receives a 1 AD attack (one per adjacent Lava hex)
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 0 or not (every or u[i, UC_SIDE] == side):
            continue
        c = u[i, UC_CELL]
        for d in range(N_DIRS):
            nc = nb[c, d]
            if nc < 0 or u[i, UC_ALIVE] == 0:
                continue
            ad = terrain[ter[nc], T_ADJ_ATTACK]
            if ad <= 0:
                continue
            hits, packed = roll_hits(scr, dat, ad)
            emit(scr, EV_TERRAIN_END, i, u[i, UC_TYPE], nc, ter[nc], hits, 2, packed)
            cause, src = terrain_cause(scr, nc)
            damage(scr, dat, i, hits, src, np.int64(0), cause)
            if g[GS_OVER] == 1:
                return
    # AMB-T27 Sirens Song lasts the caster's own turns (or every player-turn): one turn
    # used up at each End phase, counted BEFORE this End phase's casts, so a Song cast now
    # is not charged for the turn in which it was cast (its attack phase is over): it
    # gives Siren's Call in exactly 3 + 1d3 later attack phases of the caster
    all_turns = rules[R_SIRENS_SONG_TURNS] > 0.5
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 1 and u[i, UC_SONG] > 0 and (all_turns or u[i, UC_SIDE] == side):
            u[i, UC_SONG] -= 1
    # AT-E2 spells
    cast_spells(scr, dat, kn, side)
    if g[GS_OVER] == 1:
        return
    # AT-E3 recovery: one counter per unit on d6 <= recovery_max (Paralyzation first)
    mx = np.int64(rules[R_RECOVERY_MAX])
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 0 or u[i, UC_SIDE] != side:
            continue
        if paralysis(u, i) == 0 and u[i, UC_SIREN] == 0:
            continue
        r = d6(scr)
        ok = r <= mx
        which = 0 if paralysis(u, i) > 0 else 1
        if ok:
            if which == 0:
                remove_one_paralysis(scr, i)
            else:
                u[i, UC_SIREN] -= 1
                if u[i, UC_SIREN] == 0:
                    u[i, UC_SIREN_SRC] = -1
        emit(scr, EV_RECOVER, i, u[i, UC_TYPE], r, 1 if ok else 0, which, 0, 0)


# ---------------------------------------------------------------------------------------
# setup (AT-S1..S4, AMB-T14, AMB-T22)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def deploy_ok(scr, dat, t, c):
    """A unit of type t may be set up on cell c: passable, empty, no entry hazard, AT-M5."""
    terrain = dat[D_TERRAIN]
    tr = scr[X_TER][c]
    if not can_enter(scr[X_TER], scr[X_OCC], terrain, dat[D_UNITS][t, U_LARGE], c):
        return False
    return terrain[tr, T_ENTRY_DEATH] == 0 and terrain[tr, T_ENTRY_ATTACK] == 0


@njit(cache=True, _nrt=False)
def deploy_cell(scr, dat, side, t, depth_lo, ref, randomize):
    """A set-up cell for a unit of type t on ``side``'s edge (AT-S2, AMB-T22).

    Rows are counted from the side's own edge (0 = the edge row). The zone is the first
    ``deploy_rows`` rows; when it holds no legal cell the search spills inward row by row.
    ``randomize``: uniform over the legal cells of the first rows that have one. Otherwise
    the legal cell of the lowest row index >= ``depth_lo`` (walking toward the front when
    depth_lo is the zone's front row, see below) nearest ``ref`` (a cell) or the centre.
    """
    g = scr[X_G]
    W = g[GS_W]
    H = g[GS_H]
    rows = np.int64(dat[D_RULES][R_DEPLOY_ROWS])
    rows = max(rows, 1)
    dist = dat[D_DIST]
    lo = 0
    hi = min(rows, H)
    while lo < H:
        if randomize:
            cnt = 0
            for k in range(lo, hi):
                r = k if side == WITCH else H - 1 - k
                for col in range(W):
                    if deploy_ok(scr, dat, t, r * W + col):
                        cnt += 1
            if cnt > 0:
                pick = rand_below(scr, cnt)
                for k in range(lo, hi):
                    r = k if side == WITCH else H - 1 - k
                    for col in range(W):
                        c = r * W + col
                        if deploy_ok(scr, dat, t, c):
                            if pick == 0:
                                return c
                            pick -= 1
        else:
            best = -1
            bs = 1 << 40
            for k in range(lo, hi):
                r = k if side == WITCH else H - 1 - k
                # preferred row first: rows scored by distance from depth_lo
                for col in range(W):
                    c = r * W + col
                    if not deploy_ok(scr, dat, t, c):
                        continue
                    if ref >= 0:
                        s = dist[c, ref] * 4 * H + abs(k - depth_lo)
                    else:
                        s = abs(k - depth_lo) * 4 * W + abs(2 * col - (W - 1))
                    if s < bs:
                        bs = s
                        best = c
            if best >= 0:
                return best
        lo = hi
        hi = hi + 1
    return -1


@njit(cache=True, _nrt=False)
def deploy_side(scr, dat, side, kn):
    """AT-S2: set up every unit of ``side`` along its edge, by heuristic or at random.

    Heuristic: the leader on the back row nearest the centre; Martyrs next to it; casters,
    Ranged units and Sirens on the back rows near the leader; the rest on the front row,
    Large and high-DR units first (they screen and need Large-friendly hexes).
    """
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    rows = max(np.int64(dat[D_RULES][R_DEPLOY_ROWS]), 1)
    randomize = kn[K_RANDOM] > 0.5 or kn[K_DEPLOY_RANDOM] > 0.5
    order = scr[X_ORDER]
    tmp = scr[X_TMP]
    m = 0
    leader_cell = -1
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_SIDE] != side:
            continue
        t = u[i, UC_TYPE]
        if randomize:
            pri = np.float64(i)
        elif units[t, U_LEADER] == 1:
            pri = -1e6
        elif units[t, U_MARTYR] == 1:
            pri = -1e5
        elif units[t, U_SPELLS] > 0 or units[t, U_RANGED] == 1 or units[t, U_SIREN] == 1:
            pri = 1e5 - units[t, U_DR]
        else:
            pri = -(units[t, U_LARGE] * 100 + units[t, U_DR] * 10 + units[t, U_AD])
        k = m
        while k > 0 and tmp[k - 1] > pri:
            tmp[k] = tmp[k - 1]
            order[k] = order[k - 1]
            k -= 1
        tmp[k] = pri
        order[k] = i
        m += 1
    for k in range(m):
        i = order[k]
        t = u[i, UC_TYPE]
        # (np.int64/np.bool_ arguments: one compile of deploy_cell, not one per literal)
        if randomize:
            c = deploy_cell(scr, dat, side, t, np.int64(0), np.int64(-1), np.bool_(True))
        elif units[t, U_LEADER] == 1:
            c = deploy_cell(scr, dat, side, t, np.int64(0), np.int64(-1), np.bool_(False))
        elif units[t, U_MARTYR] == 1 or units[t, U_SPELLS] > 0 or units[t, U_RANGED] == 1 \
                or units[t, U_SIREN] == 1:
            c = deploy_cell(scr, dat, side, t, np.int64(0), np.int64(leader_cell),
                            np.bool_(False))
        else:
            c = deploy_cell(scr, dat, side, t, np.int64(rows - 1), np.int64(-1),
                            np.bool_(False))
        if c < 0:
            u[i, UC_ALIVE] = 0                  # no legal hex on the whole map: lost
            continue
        u[i, UC_CELL] = c
        scr[X_OCC][c] = i
        if units[t, U_LEADER] == 1 and leader_cell < 0:
            leader_cell = c
        emit(scr, EV_DEPLOY, i, t, c, 0, side, 0, 0)


@njit(cache=True, _nrt=False)
def place_neutrals(scr, dat, t, copies):
    """AMB-T14: uncontrolled neutrals on random empty hexes between the deployment zones."""
    g = scr[X_G]
    W = g[GS_W]
    H = g[GS_H]
    rows = max(np.int64(dat[D_RULES][R_DEPLOY_ROWS]), 1)
    for _ in range(copies):
        cnt = 0
        for r in range(rows, H - rows):
            for col in range(W):
                if deploy_ok(scr, dat, t, r * W + col):
                    cnt += 1
        if cnt == 0:
            return
        pick = rand_below(scr, cnt)
        for r in range(rows, H - rows):
            for col in range(W):
                c = r * W + col
                if deploy_ok(scr, dat, t, c):
                    if pick == 0:
                        i = new_unit(scr, dat, t, np.int64(NEUTRAL), c)
                        if i >= 0:
                            emit(scr, EV_DEPLOY, i, t, c, 2, 2, 0, 0)
                    pick -= 1


@njit(cache=True, _nrt=False)
def reset(scr):
    """Clear the per-game state of the scratch arrays."""
    g = scr[X_G]
    for k in range(G_N):
        g[k] = 0
    scr[X_U][:, :] = 0
    scr[X_CHITS][:, :] = -1
    scr[X_ENT][:, :] = -1
    scr[X_OCC][:] = -1
    scr[X_CUR][:] = -1
    scr[X_TSRC][:] = -1
    scr[X_PKEY][:] = INF
    scr[X_GSTAT][:] = 0
    scr[X_SSTAT][:, :] = 0


@njit(cache=True, _nrt=False)
def setup(scr, dat):
    """AT-S1 map, bots, AT-S2 deployment, AT-S3 spell chits, AMB-T14 neutrals."""
    g = scr[X_G]
    u = scr[X_U]
    rules = dat[D_RULES]
    units = dat[D_UNITS]
    roster = dat[D_ROSTER]
    W = np.int64(rules[R_MAP_WIDTH])
    H = np.int64(rules[R_MAP_HEIGHT])
    C = dat[D_NB].shape[0]
    g[GS_W] = W
    g[GS_H] = H
    g[GS_C] = C
    terrain = dat[D_TERRAIN]
    min_cost = terrain[0, T_COST]
    for r in range(terrain.shape[0]):
        min_cost = min(min_cost, terrain[r, T_COST])
    g[GS_MIN_COST] = min_cost                 # reach's bound (AT-M1 move costs)
    ter = scr[X_TER]
    cur = scr[X_CUR]
    if rules[R_MAP_SOURCE] > 0.5:
        for c in range(C):
            ter[c] = dat[D_FIXED_TER][c]
            cur[c] = dat[D_FIXED_CUR][c]
    else:
        g[GS_CTR] = generate_map(scr[X_KEY][0], g[GS_CTR], dat[D_GEN], W, H, dat[D_NB], ter,
                                 cur)
    rebuild_entry(scr, dat)                   # X_ENTRY follows the map laid
    first = np.int64(rules[R_FIRST_SIDE])
    g[GS_FIRST] = first
    pool = dat[D_BOT_POOL]
    for side in range(2):
        b = dat[D_SIDE_BOT][side]
        if b < 0:
            b = pool[rand_below(scr, pool.shape[0])]
        # a side with bots of its own (faction_bots) replaces the bot drawn: same stream
        b = faction_bot(dat[D_FMIX], np.int64(side), b, scr[X_KEY][0])
        if side == WITCH:
            g[GS_BOT_W] = b
        else:
            g[GS_BOT_K] = b
    emit(scr, EV_SETUP, W, H, np.int64(rules[R_MAP_SOURCE]), first, g[GS_BOT_W],
         g[GS_BOT_K], 0)
    n = 0
    for side in range(2):
        for k in range(roster.shape[1]):
            t = roster[side, k]
            if t < 0 or n >= MAX_UNITS:
                break
            u[n, UC_TYPE] = t
            u[n, UC_SIDE] = side
            u[n, UC_ALIVE] = 1
            u[n, UC_USED] = 1
            u[n, UC_SIREN_SRC] = -1
            u[n, UC_CUR_TURN] = -1
            n += 1
    g[GS_NSLOTS] = n
    knobs = dat[D_KNOBS]
    for side in range(2):
        deploy_side(scr, dat, side, knobs[g[GS_BOT_W] if side == WITCH else g[GS_BOT_K]])
    for i in range(n):
        if u[i, UC_ALIVE] == 1:
            add_stat(scr, u[i, UC_SIDE], S_UNITS_START, 1)
    # AT-C4 / AT-S3: 2 chits of each spell in a common pool, drawn at random
    sp = dat[D_SPELLS]
    for s in range(N_SPELLS):
        scr[X_POOL][s] = sp[s, SPC_CHITS]
    for i in range(n):
        t = u[i, UC_TYPE]
        if units[t, U_SPELLS] > 0 and u[i, UC_ALIVE] == 1:
            draw_chits(scr, i, units[t, U_SPELLS])
            ch = scr[X_CHITS]
            emit(scr, EV_CHITS, i, t, ch[i, 0], ch[i, 1], ch[i, 2], ch[i, 3], ch[i, 4])
    if rules[R_NEUTRALS] > 0.5:
        special = dat[D_SPECIAL]
        place_neutrals(scr, dat, special[0], np.int64(rules[R_BRAIN_CORAL]))
        place_neutrals(scr, dat, special[1], np.int64(rules[R_ISLAND_FISH]))
    g[GS_LEADER_W] = -1
    g[GS_LEADER_K] = -1
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 1 and units[u[i, UC_TYPE], U_LEADER] == 1:
            if u[i, UC_SIDE] == WITCH and g[GS_LEADER_W] < 0:
                g[GS_LEADER_W] = i
            elif u[i, UC_SIDE] == KING and g[GS_LEADER_K] < 0:
                g[GS_LEADER_K] = i


# ---------------------------------------------------------------------------------------
# the game
# ---------------------------------------------------------------------------------------
# play_turn, run_turns and play_game are inlined in numba IR into play_block (and
# trace_game): as functions of their own, each linked every callee's module and ran LLVM
# over the whole game again, about 5 s of CPU each in a cold compile (docs/performance.md)

@njit(cache=True, _nrt=False, inline="always")
def play_turn(scr, dat):
    """One player-turn of the active side (AT-T2: Swim, Attack, Swim, End)."""
    g = scr[X_G]
    u = scr[X_U]
    side = g[GS_ACTIVE]
    kn = dat[D_KNOBS][g[GS_BOT_W] if side == WITCH else g[GS_BOT_K]]
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_SIDE] == side:
            u[i, UC_ACTED] = 0
            u[i, UC_SEARCHED] = 0
            u[i, UC_MOVED] = 0
            u[i, UC_SAVED] = 0
            u[i, UC_CAST] = 0
    add_stat(scr, side, S_TURNS, 1)
    swim_phase(scr, dat, kn, side, np.int64(1))   # int64, not literals: one compile
    if g[GS_OVER] == 1:
        return
    g[GS_PHASE] = 2
    if dat[D_RULES][R_LUMINESCENCE_TIMING] < 0.5:
        luminescence_any_time(scr, dat, kn, side)      # AMB-T25
    attack_phase(scr, dat, kn, side)
    if g[GS_OVER] == 1:
        return
    swim_phase(scr, dat, kn, side, np.int64(2))
    if g[GS_OVER] == 1:
        return
    end_phase(scr, dat, kn, side)


@njit(cache=True, _nrt=False, inline="always")
def play_game(seed, game, row, scr, dat, gi, gf, si, sf, trace):
    """Play game number ``game`` of the run ``seed`` into output row ``row``.

    The game depends only on (seed, game): its stream key is ``game_key(seed, game)``.
    """
    g = scr[X_G]
    reset(scr)
    g[GS_TRACE] = trace
    scr[X_KEY][0] = game_key(seed, game)
    setup(scr, dat)
    run_turns(scr, dat)
    write_outputs(scr, dat, row, gi, gf, si, sf)


@njit(cache=True, _nrt=False, inline="always")
def run_turns(scr, dat):
    """Alternate player-turns until a leader dies (AT-V1) or the safety cap stops the game
    (AMB-T23, ``end.max_turns``: unresolved, or adjudicated by material with
    ``end.at_cap``)."""
    g = scr[X_G]
    first = g[GS_FIRST]
    max_turns = np.int64(dat[D_RULES][R_MAX_TURNS])
    g[GS_WINNER] = -1
    g[GS_MAT0_W] = np.int64(100.0 * material(scr, dat, np.int64(WITCH)))   # the bots' reference
    g[GS_MAT0_K] = np.int64(100.0 * material(scr, dat, np.int64(KING)))
    turn = g[GS_TURN]
    while g[GS_OVER] == 0:
        if turn >= max_turns:
            # AMB-T23: the safety cap (invented; the rules end a game only by a leader's
            # death, AT-V1) stops the game: unresolved, no winner, unless end.at_cap =
            # material adjudicates it for the side with more material (equal: unresolved)
            g[GS_OVER] = 1
            g[GS_WINNER] = -1
            g[GS_CAUSE] = END_TURN_CAP
            g[GS_KILLER] = -1
            if dat[D_RULES][R_AT_CAP] > 0.5:
                mw = material(scr, dat, np.int64(WITCH))
                mk = material(scr, dat, np.int64(KING))
                if mw != mk:
                    g[GS_WINNER] = WITCH if mw > mk else KING
                    g[GS_ADJUDICATED] = 1
            break
        turn += 1
        g[GS_TURN] = turn
        g[GS_ACTIVE] = first if turn % 2 == 1 else 1 - first     # AT-T1 alternate
        emit(scr, EV_TURN, turn, count_alive(scr, WITCH), count_alive(scr, KING), 0, 0, 0, 0)
        play_turn(scr, dat)


@njit(cache=True, _nrt=False, inline="always")
def count_alive(scr, side):
    g = scr[X_G]
    u = scr[X_U]
    n = 0
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 1 and u[i, UC_SIDE] == side:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def write_outputs(scr, dat, row, gi, gf, si, sf):
    """Fill one output row (layout GAME_INT/GAME_FLT/SEAT_INT/SEAT_FLT)."""
    g = scr[X_G]
    gs = scr[X_GSTAT]
    ss = scr[X_SSTAT]
    turn = g[GS_TURN]
    first = g[GS_FIRST]
    for k in range(N_GAME_INT):
        gi[row, k] = gs[k]
    gi[row, G_TURNS] = turn
    gi[row, G_ROUNDS] = (turn + 1) // 2
    gi[row, G_WINNER_SIDE] = g[GS_WINNER]
    gi[row, G_FIRST_SIDE] = first
    gi[row, G_END_CAUSE] = g[GS_CAUSE]
    gi[row, G_TRUNCATED] = 1 if g[GS_CAUSE] == END_TURN_CAP else 0
    gi[row, G_ADJUDICATED] = g[GS_ADJUDICATED]
    gi[row, G_KILLER_TYPE] = g[GS_KILLER]
    nw = count_alive(scr, WITCH)
    nk = count_alive(scr, KING)
    gi[row, G_UNITS_LEFT_WITCH] = nw
    gi[row, G_UNITS_LEFT_KING] = nk
    gi[row, G_RNG_DRAWS] = g[GS_CTR]
    mw = material(scr, dat, np.int64(WITCH))
    mk = material(scr, dat, np.int64(KING))
    gf[row, GF_MATERIAL_WITCH] = mw
    gf[row, GF_MATERIAL_KING] = mk
    gf[row, GF_MATERIAL_MARGIN] = (mw - mk) if first == WITCH else (mk - mw)
    for seat in range(2):
        side = first if seat == 0 else 1 - first
        for k in range(N_SEAT_INT):
            si[row, seat, k] = ss[side, k]
        si[row, seat, S_SIDE] = side
        si[row, seat, S_BOT] = g[GS_BOT_W] if side == WITCH else g[GS_BOT_K]
        si[row, seat, S_UNITS_LEFT] = nw if side == WITCH else nk
        if g[GS_WINNER] == side:
            sf[row, seat, SF_WIN] = 1.0
        else:
            sf[row, seat, SF_WIN] = 0.0
        sf[row, seat, SF_MATERIAL] = mw if side == WITCH else mk
    emit(scr, EV_END, g[GS_WINNER], g[GS_CAUSE], g[GS_KILLER], turn, np.int64(mw),
         np.int64(mk), g[GS_KILLER_SLOT])


@njit(cache=True, nogil=True)
def play_block(seed, games, lo, hi, rules, gen, terrain, spells, units, roster, neighbors,
               dist, fixed_terrain, fixed_current, knobs, side_bot, bot_pool, special_types,
               fmix, gi, gf, si, sf):
    """Play games ``games[lo] .. games[hi-1]`` of run ``seed`` into rows ``lo .. hi-1``.

    One thread's share of :func:`play_listed` (it releases the GIL); the game state is
    allocated once and reset by each game. ``games``: int64 game indices, one per row.
    """
    dat = (rules, gen, terrain, spells, units, roster, neighbors, dist, fixed_terrain,
           fixed_current, knobs, side_bot, bot_pool, special_types, fmix)
    scr = new_scratch(neighbors.shape[0], 1)
    for r in range(lo, hi):
        play_game(seed, games[r], r, scr, dat, gi, gf, si, sf, np.int64(0))


def play_games(seed, start, count, *args):
    """Play games ``start .. start+count-1`` of run ``seed`` (:func:`play_listed`)."""
    return play_listed(seed, np.arange(int(start), int(start) + int(count), dtype=np.int64),
                       *args)


def play_listed(seed, games, rules, gen, terrain, spells, units, roster, neighbors, dist,
                fixed_terrain, fixed_current, knobs, side_bot, bot_pool, special_types, fmix):
    """Play the games of index ``games`` (int64[count]) of run ``seed`` on numba's thread
    count.

    Blocks of games go to :func:`play_block` on ``numba.get_num_threads()`` threads
    (:func:`deepsim.blocks.run_blocks`); the tables do not depend on the thread count, and
    a game's row is the same whatever other games are listed with it.

    Returns
    -------
    gi : int64[count, N_GAME_INT]
    gf : float64[count, N_GAME_FLT]
    si : int64[count, 2, N_SEAT_INT]
    sf : float64[count, 2, N_SEAT_FLT]
        Row r is game ``games[r]``; seat 0 is the side that moved first.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    count = int(games.shape[0])
    gi = np.zeros((count, N_GAME_INT), np.int64)
    gf = np.zeros((count, N_GAME_FLT), np.float64)
    si = np.zeros((count, 2, N_SEAT_INT), np.int64)
    sf = np.zeros((count, 2, N_SEAT_FLT), np.float64)
    args = (rules, gen, terrain, spells, units, roster, neighbors, dist, fixed_terrain,
            fixed_current, knobs, side_bot, bot_pool, special_types, fmix, gi, gf, si, sf)
    seed = np.int64(seed)
    run_blocks(lambda lo, hi: play_block(seed, games, np.int64(lo), np.int64(hi), *args),
               count)
    return gi, gf, si, sf


@njit(cache=True)
def trace_game(seed, game, max_events, rules, gen, terrain, spells, units, roster,
               neighbors, dist, fixed_terrain, fixed_current, knobs, side_bot, bot_pool,
               special_types, fmix):
    """Play one game with the event buffer on: the same code path as :func:`play_games`.

    Returns (gi, gf, si, sf, events[:k]) for that single game (row 0); events are
    int64[k, EVENT_WIDTH] rows (turn, active side, kind, a..g; see trace.py).
    """
    gi = np.zeros((1, N_GAME_INT), np.int64)
    gf = np.zeros((1, N_GAME_FLT), np.float64)
    si = np.zeros((1, 2, N_SEAT_INT), np.int64)
    sf = np.zeros((1, 2, N_SEAT_FLT), np.float64)
    dat = (rules, gen, terrain, spells, units, roster, neighbors, dist, fixed_terrain,
           fixed_current, knobs, side_bot, bot_pool, special_types, fmix)
    scr = new_scratch(neighbors.shape[0], max_events)
    # row and trace as int64 values, not literals: the batch's play_game is reused
    play_game(seed, game, np.int64(0), scr, dat, gi, gf, si, sf, np.int64(1))
    k = scr[X_G][GS_EV]
    return gi, gf, si, sf, scr[X_EV][:k].copy()
