"""The Atlantis kernel's game state layout and the small queries rules and bots both need.

A game's state is a tuple of fixed-size arrays (:func:`new_scratch`), allocated once per
block of games and reset between games (no allocation per game). Every function that only
reads and writes these arrays is compiled with ``_nrt=False`` (no reference counting of
array arguments, as in DEEPFALL); the small helpers are also inlined.

Units live in slots ``0 .. g[GS_NSLOTS]-1`` of ``u`` (int64[MAX_UNITS, UC_N]): the Sea
Witch's roster, then the Sea King's, then neutrals (AMB-T14) and units created by spells. A
slot is never reused by another unit; Resurrection (AMB-T15) revives the dead unit's own
slot. ``occ`` (int64[C]) maps a cell to the slot standing on it, -1 when empty.

Paralyzation counters (AT-X10) are ``u[i, UC_PARA]`` plain counters plus one entry per
Entangle counter in ``ent[i, :]`` naming the entangler's slot (AMB-T21 tracks the source);
``paralysis(u, i)`` is their sum.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import below
from deepsim.rulesets.events import append_event
from deepsim.rulesets.atlantis.layout import (
    EVENT_WIDTH,
    GAME_INT,
    MAX_CHITS,
    MAX_UNITS,
    N_SEAT_INT,
    N_SPELLS,
    R_DASH_CAN_HIDE,
    R_HIDDEN_OCCUPIES,
    R_HIT_MASK,
    R_LOS,
    SPC_CREATES,
    SPC_NEEDS_DEPTH,
    SPC_NEEDS_EMPTY,
    SPC_RANGE,
    SPC_TARGET_TERRAIN,
    T_ADJ_ATTACK,
    T_ADJ_DEATH_FACES,
    T_DEEP,
    T_COST,
    T_ENTRY_ATTACK,
    T_ENTRY_DEATH,
    T_HIDE,
    T_LARGE_OK,
    T_PASSABLE,
    U_AD,
    U_DR,
    U_HF,
    U_HF_DASH,
    U_HF_TERRAIN,
    U_HF_TERRAIN_BONUS,
    U_LARGE,
)

# ---- game scalars: int64[G_N] ----------------------------------------------------------
(GS_CTR, GS_EV, GS_TRACE, GS_TURN, GS_ACTIVE, GS_W, GS_H, GS_C, GS_NSLOTS, GS_OVER,
 GS_WINNER, GS_CAUSE, GS_KILLER, GS_FORCED_N, GS_FORCED_POS, GS_PHASE, GS_LEADER_W,
 GS_LEADER_K, GS_BOT_W, GS_BOT_K, GS_PN, GS_FIRST, GS_KILLER_SLOT, GS_LAST_ATTACK,
 GS_BREAKING, GS_MAT0_W, GS_MAT0_K, GS_MIN_COST, GS_ADJUDICATED, GS_PURSUERS) = range(30)
G_N = 30
# GS_LAST_ATTACK: the player-turn of the last attack made (0: none yet); GS_BREAKING: 1
# while the active side's bot breaks a standoff (bots.breaking) this turn; GS_MAT0_W/K:
# each side's material (AD x DR, x 100) when play begins, the breaker's reference.
# GS_MIN_COST: the least move cost of any terrain row (AT-M1), set by setup; 0 (a state
# built by hand) makes kernel.reach expand every cell, as it would with free hexes.
# GS_ADJUDICATED: 1 when end.at_cap = material decided a game the safety cap stopped.
# GS_PURSUERS: while a side breaks a standoff, its units other than the leader that can
# attack and swim and have a path to the enemy leader (bots.leader_paths).

# ---- unit slot columns: int64[MAX_UNITS, UC_N] -----------------------------------------
(UC_TYPE, UC_SIDE, UC_CELL, UC_DMG, UC_ALIVE, UC_HIDDEN, UC_PARA, UC_NENT, UC_SIREN,
 UC_SIREN_SRC, UC_SAVED, UC_ACTED, UC_SEARCHED, UC_SONG, UC_NCHITS, UC_CAST, UC_CUR_TURN,
 UC_USED, UC_MOVED, UC_CREATED, UC_ENT_OUT) = range(21)
UC_N = 21
# UC_ALIVE 1 = on the map; UC_USED 1 = the slot holds a unit (alive or destroyed);
# UC_ENT_OUT = Entangle counters this unit has on others (AMB-T21 release check);
# UC_CUR_TURN = turn of its last current move (one per turn, AT-E1); UC_SONG = Sirens
# Song turns left (AMB-T27); UC_CREATED 1 = made by a spell.

#: Entangle counters one unit can carry (AMB-T21 sources); more are kept as plain counters
MAX_ENT = 6
#: forced d6 results a test may queue (see :func:`d6`)
MAX_FORCED = 256
#: cost key of an unreached cell in the path search
INF = 1 << 40

# ---- positions in the scratch tuple ----------------------------------------------------
(X_G, X_U, X_CHITS, X_ENT, X_OCC, X_TER, X_CUR, X_TSRC, X_POOL, X_PKEY, X_PPREV, X_PLIST,
 X_PDONE, X_PATH, X_ORDER, X_NEAR, X_THREAT, X_TMP, X_FORCED, X_KEY, X_EV, X_GSTAT, X_SSTAT,
 X_ALLOC, X_ITMP, X_LTHR, X_LQ, X_LM, X_LH, X_LEAD, X_LEAD_L, X_ENTRY, X_LPOI) = range(33)
# X_LTHR..X_LH: the bots' leader-danger field (bots.leader_threat): expected hits per cell
# of non-poisonous attackers (X_LTHR) and of poisonous ones (X_LPOI: one of those kills,
# AT-X1)
# from enemies that can reach it past units and impassable hexes, a BFS queue, hops, marks;
# X_LEAD / X_LEAD_L: the standoff breaker's steps from each cell to the enemy leader for
# units that may enter shallow 2-cost hexes and for Large ones (bots.leader_paths)
# X_ENTRY: int64[3, C], per cell the entry key of its terrain (:func:`entry_key`) for a
# unit that is not Large (row 0) and for a Large one (row 1), and (row ER_ADJ) the mask of
# its neighbours with an End-phase effect on adjacent units (:func:`adj_mask`); kept with
# X_TER by :func:`set_terrain` and :func:`rebuild_entry` (docs/performance.md, Atlantis
# third pass)
ER_ADJ = 2

#: X_ENTRY bits: move cost << E_SHIFT | E_DEATH (destroys on entry, AT-M7) | E_ATTACK
#: (attacks on entry, AT-M7); -1 where the unit may not enter (AT-M8; AT-M5 for Large)
E_SHIFT = 2
E_DEATH = 2
E_ATTACK = 1

# ---- positions in the data tuple (the compiled arrays, see kernel.data_tuple) ----------
# D_FMIX: per side, its own bot profiles (scenario key faction_bots; deepsim.factionmix)
(D_RULES, D_GEN, D_TERRAIN, D_SPELLS, D_UNITS, D_ROSTER, D_NB, D_DIST, D_FIXED_TER,
 D_FIXED_CUR, D_KNOBS, D_SIDE_BOT, D_BOT_POOL, D_SPECIAL, D_FMIX) = range(15)


@njit(cache=True)
def new_scratch(n_cells, max_events):
    """Allocate one block's per-game work arrays (reset, not reallocated, between games).

    Parameters
    ----------
    n_cells : int
        Cells of the map (width * height).
    max_events : int
        Rows of the trace event buffer (1 when not tracing).
    """
    return (np.zeros(G_N, np.int64),                        # game scalars
            np.zeros((MAX_UNITS, UC_N), np.int64),          # unit slots
            np.full((MAX_UNITS, MAX_CHITS), -1, np.int64),  # spell chits carried (AT-S3)
            np.full((MAX_UNITS, MAX_ENT), -1, np.int64),    # Entangle counter sources
            np.full(n_cells, -1, np.int64),                 # cell -> slot
            np.zeros(n_cells, np.int64),                    # cell terrain row
            np.full(n_cells, -1, np.int64),                 # cell current direction
            np.full(n_cells, -1, np.int64),                 # slot whose spell made the terrain
            np.zeros(N_SPELLS, np.int64),                   # chit pool left (AT-C4)
            np.full(n_cells, INF, np.int64),                # path: cost key
            np.full(n_cells, -1, np.int64),                 # path: previous cell
            np.zeros(n_cells, np.int64),                    # path: cells reached
            np.zeros(n_cells, np.int64),                    # path: settled flag
            np.zeros(n_cells + 1, np.int64),                # path: cells of one move
            np.zeros(MAX_UNITS, np.int64),                  # unit order of a phase
            np.zeros(n_cells, np.int64),                    # hexes to the nearest enemy
            np.zeros(n_cells, np.float64),                  # expected enemy hits per cell
            np.zeros(MAX_UNITS, np.float64),                # bot scores
            np.zeros(MAX_FORCED, np.int64),                 # forced d6 results (tests)
            np.zeros(1, np.uint64),                         # the game's stream key
            np.zeros((max_events, EVENT_WIDTH), np.int64),  # trace events
            np.zeros(len(GAME_INT), np.int64),              # game counters
            np.zeros((2, N_SEAT_INT), np.int64),            # per-side counters
            np.zeros(MAX_UNITS, np.int64),                  # Split dice per target slot
            np.zeros(MAX_UNITS, np.int64),                  # int temp (targets)
            np.zeros(n_cells, np.float64),                  # bots: leader danger per cell
            np.zeros(n_cells, np.int64),                    # bots: BFS queue
            np.full(n_cells, -1, np.int64),                 # bots: BFS hops (-1 unseen)
            np.full(n_cells, -1, np.int64),                 # bots: attacker mark per cell
            np.full(n_cells, -1, np.int64),                 # bots: steps to the enemy leader
            np.full(n_cells, -1, np.int64),                 # ... for Large units (AT-M5)
            np.full((3, n_cells), -1, np.int64),            # entry keys, adjacent hazards
            np.zeros(n_cells, np.float64))                  # bots: poison hits per cell


@njit(cache=True, _nrt=False, inline="always")
def rand_below(scr, n):
    """Next uniform integer in [0, n) of this game's stream (advances the counter)."""
    g = scr[X_G]
    v = below(scr[X_KEY][0], np.uint64(g[GS_CTR]), n)
    g[GS_CTR] += 1
    return v


@njit(cache=True, _nrt=False, inline="always")
def d6(scr):
    """One six-sided die (AT-C1). A test may queue results in ``forced`` to fix the dice."""
    g = scr[X_G]
    if g[GS_FORCED_POS] < g[GS_FORCED_N]:
        v = scr[X_FORCED][g[GS_FORCED_POS]]
        g[GS_FORCED_POS] += 1
        return v
    return rand_below(scr, 6) + 1


@njit(cache=True, _nrt=False, inline="always")
def emit(scr, kind, a, b, c, d, e, f, h):
    """Append one trace event (turn, active side, kind, a .. f, h; no-op unless traced)."""
    g = scr[X_G]
    if g[GS_TRACE] == 0:           # a quiet game evaluates none of the row
        return
    append_event(scr[X_EV], g, GS_TRACE, GS_EV,
                 (np.int64(g[GS_TURN]), np.int64(g[GS_ACTIVE]), np.int64(kind),
                  np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e),
                  np.int64(f), np.int64(h)))


@njit(cache=True, _nrt=False, inline="always")
def paralysis(u, i):
    """Paralyzation counters on slot i: plain ones plus Entangle ones (AT-X10)."""
    return u[i, UC_PARA] + u[i, UC_NENT]


@njit(cache=True, _nrt=False, inline="always")
def is_foe(u, i, j):
    """True when slot j is a unit i may attack: another side's (neutrals included)."""
    return u[j, UC_SIDE] != u[i, UC_SIDE]


@njit(cache=True, _nrt=False, inline="always")
def is_opponent(u, i, j):
    """True when slot j belongs to the other player's side (neutrals excluded)."""
    sj = u[j, UC_SIDE]
    return sj != u[i, UC_SIDE] and sj < 2


@njit(cache=True, _nrt=False, inline="always")
def can_enter(ter, occ, terrain, large, c):
    """AT-M2/M5/M8: cell c is on the map, passable, empty, and open to a Large unit."""
    if c < 0:
        return False
    t = ter[c]
    if terrain[t, T_PASSABLE] == 0:
        return False
    if large == 1 and terrain[t, T_LARGE_OK] == 0:
        return False
    return occ[c] < 0


@njit(cache=True, _nrt=False, inline="always")
def entry_key(terrain, t, large):
    """Entry key of terrain row t for a unit (``large`` = 1: a Large one), int64.

    -1 when the unit may not enter (AT-M8 impassable; AT-M5 a Large unit and a shallow
    2-cost hex); else the move cost (AT-M1) ``<< E_SHIFT``, plus ``E_DEATH`` when entering
    destroys the unit (Vortex, Lava) and ``E_ATTACK`` when the hex attacks it (Whirl Pool,
    Vent; AT-M7). Units on the hex are not part of it (AT-M2 is checked on ``occ``).
    """
    if terrain[t, T_PASSABLE] == 0:
        return np.int64(-1)
    if large == 1 and terrain[t, T_LARGE_OK] == 0:
        return np.int64(-1)
    k = terrain[t, T_COST] << E_SHIFT
    if terrain[t, T_ENTRY_DEATH] == 1:
        k |= E_DEATH
    if terrain[t, T_ENTRY_ATTACK] > 0:
        k |= E_ATTACK
    return k


@njit(cache=True, _nrt=False, inline="always")
def adj_mask(ter, terrain, nb, c):
    """Neighbours of cell c whose terrain acts on adjacent units in the End phase (AT-E1),
    int64: bit 2d set when the neighbour in direction d has death faces (Vortex), bit
    2d + 1 when it attacks (Lava); 0 for most cells."""
    m = np.int64(0)
    for d in range(nb.shape[1]):
        nc = nb[c, d]
        if nc >= 0:
            if terrain[ter[nc], T_ADJ_DEATH_FACES] > 0:
                m |= np.int64(1) << (2 * d)
            if terrain[ter[nc], T_ADJ_ATTACK] > 0:
                m |= np.int64(1) << (2 * d + 1)
    return m


@njit(cache=True, _nrt=False)
def rebuild_entry(scr, dat):
    """Recompute ``X_ENTRY`` (int64[3, C]) from ``X_TER`` for every cell.

    Called once the map is laid (``kernel.setup``) and by anything that writes ``X_TER``
    directly instead of through :func:`set_terrain` (the tests' hand-built states).
    """
    ter = scr[X_TER]
    ent = scr[X_ENTRY]
    terrain = dat[D_TERRAIN]
    nb = dat[D_NB]
    for c in range(ter.shape[0]):
        ent[0, c] = entry_key(terrain, ter[c], 0)
        ent[1, c] = entry_key(terrain, ter[c], 1)
        ent[ER_ADJ, c] = adj_mask(ter, terrain, nb, c)


@njit(cache=True, _nrt=False, inline="always")
def set_terrain(scr, dat, c, t):
    """Make cell c terrain row t, keeping ``X_ENTRY`` with it (spells, AT-SP0): the keys
    of c and the adjacent-hazard masks of its neighbours."""
    ter = scr[X_TER]
    ter[c] = t
    terrain = dat[D_TERRAIN]
    nb = dat[D_NB]
    ent = scr[X_ENTRY]
    ent[0, c] = entry_key(terrain, t, 0)
    ent[1, c] = entry_key(terrain, t, 1)
    for d in range(nb.shape[1]):
        nc = nb[c, d]
        if nc >= 0:
            ent[ER_ADJ, nc] = adj_mask(ter, terrain, nb, nc)


@njit(cache=True, _nrt=False, inline="always")
def hit_prob(rules):
    """Chance one die hits under the hit-face mask (AMB-T1)."""
    m = np.int64(rules[R_HIT_MASK])
    k = 0
    for f in range(1, 7):
        if (m >> f) & 1:
            k += 1
    return k / 6.0


# ---------------------------------------------------------------------------------------
# line of sight (AMB-T5, off by default)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, inline="always")
def _cube(cell, w):
    """Cube coordinates (x, z) of an odd-r offset cell (y = -x - z)."""
    row = cell // w
    col = cell - row * w
    return col - (row - (row & 1)) // 2, row


@njit(cache=True, _nrt=False, inline="always")
def _round_cell(fx, fz, w, h):
    """Cell of the hex containing the fractional cube point (fx, -fx-fz, fz); -1 off-map."""
    fy = -fx - fz
    rx = np.floor(fx + 0.5)
    ry = np.floor(fy + 0.5)
    rz = np.floor(fz + 0.5)
    dx = abs(rx - fx)
    dy = abs(ry - fy)
    dz = abs(rz - fz)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        pass
    else:
        rz = -rx - ry
    x = np.int64(rx)
    z = np.int64(rz)
    col = x + (z - (z & 1)) // 2
    if z < 0 or z >= h or col < 0 or col >= w:
        return -1
    return z * w + col


@njit(cache=True, _nrt=False, inline="always")
def los_clear(scr, dat, a, b):
    """AMB-T5: is the hex line from cell a to cell b free of blocking hexes?

    A hex between the two (not a or b) blocks when it is impassable (AT-M8) or holds a
    unit. The line is drawn through hex centres; where it runs exactly along a hex edge it
    is nudged both ways and sight is clear if either side is clear. Always True when the
    ``los`` rule is off.
    """
    if dat[D_RULES][R_LOS] < 0.5:
        return True
    return _los_line(scr[X_G], scr[X_TER], scr[X_OCC], dat[D_TERRAIN], dat[D_DIST], a, b)


@njit(cache=True, _nrt=False)
def _los_line(g, ter, occ, terrain, distt, a, b):
    """The hex-line check of :func:`los_clear` (arrays passed singly: a cheap call)."""
    w = g[GS_W]
    h = g[GS_H]
    n = distt[a, b]
    if n <= 1:
        return True
    ax, az = _cube(a, w)
    bx, bz = _cube(b, w)
    for side in range(2):
        eps = 1e-6 if side == 0 else -1e-6
        clear = True
        for k in range(1, n):
            f = k / n
            fx = ax + (bx - ax) * f + eps
            fz = az + (bz - az) * f + eps
            c = _round_cell(fx, fz, w, h)
            if c < 0 or c == a or c == b:
                continue
            if terrain[ter[c], T_PASSABLE] == 0 or occ[c] >= 0:
                clear = False
                break
        if clear:
            return True
    return False


@njit(cache=True, _nrt=False)
def spell_cell_ok(scr, dat, i, sp, c):
    """Is cell c a legal target hex of spell ``sp`` cast by slot i (§1.14; AMB-T26)?"""
    spells = dat[D_SPELLS]
    terrain = dat[D_TERRAIN]
    u = scr[X_U]
    ter = scr[X_TER]
    ci = u[i, UC_CELL]
    dd = dat[D_DIST][ci, c]
    rng = spells[sp, SPC_RANGE]
    if dd > rng or (rng > 0 and dd == 0):
        return False
    tr = ter[c]
    tt = spells[sp, SPC_TARGET_TERRAIN]
    if tt >= 0 and tr != tt:
        return False
    nd = spells[sp, SPC_NEEDS_DEPTH]
    if nd >= 0 and terrain[tr, T_DEEP] != nd:
        return False
    if spells[sp, SPC_NEEDS_EMPTY] == 1:
        o = scr[X_OCC][c]
        if o >= 0 and (u[o, UC_HIDDEN] == 0 or dat[D_RULES][R_HIDDEN_OCCUPIES] > 0.5):
            return False
        if spells[sp, SPC_CREATES] >= 0:
            if terrain[tr, T_PASSABLE] == 0 or terrain[tr, T_ENTRY_DEATH] == 1:
                return False
            if dat[D_UNITS][spells[sp, SPC_CREATES], U_LARGE] == 1 and \
                    terrain[tr, T_LARGE_OK] == 0:
                return False
    if dd >= 2 and not los_clear(scr, dat, ci, c):
        return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def hide_modifier(dat, t, tr):
    """AT-A7 modifier: HF + terrain hide bonus + the unit's own terrain bonus."""
    units = dat[D_UNITS]
    mod = units[t, U_HF] + dat[D_TERRAIN][tr, T_HIDE]
    if units[t, U_HF_TERRAIN] == tr:
        mod += units[t, U_HF_TERRAIN_BONUS]
    return mod


@njit(cache=True, _nrt=False, inline="always")
def can_hide(scr, dat, i):
    """AT-A7 / AMB-T6: may slot i try to hide now (not already hidden; HF '-' rule)?"""
    u = scr[X_U]
    if u[i, UC_HIDDEN] == 1:
        return False
    t = u[i, UC_TYPE]
    if dat[D_UNITS][t, U_HF_DASH] == 1 and dat[D_RULES][R_DASH_CAN_HIDE] < 0.5:
        return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def can_attack(scr, dat, i):
    """AT-A1 / AT-X10: no attack with a Paralyzation or Siren counter (or no dice)."""
    u = scr[X_U]
    return (paralysis(u, i) == 0 and u[i, UC_SIREN] == 0
            and dat[D_UNITS][u[i, UC_TYPE], U_AD] > 0)


@njit(cache=True, _nrt=False)
def material(scr, dat, side):
    """AMB-T23 tiebreak: sum over the side's surviving units of AD x (DR - damage)."""
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    m = 0.0
    for i in range(g[GS_NSLOTS]):
        if u[i, UC_ALIVE] == 1 and u[i, UC_SIDE] == side:
            t = u[i, UC_TYPE]
            m += units[t, U_AD] * (units[t, U_DR] - u[i, UC_DMG])
    return m
