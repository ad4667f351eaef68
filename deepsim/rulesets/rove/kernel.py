"""Rove's kernel: one encounter of the co-operative rules engine played by numba, one game
per call of :func:`play_game`: the Rovers' turns (their bots), the adversary AI step by
step as the rulebook writes it, damage with affinity and defence, push, pull, impact and
falling, downed and revive, the round limit and the objective.

Every rule carries the rulebook section it implements (the rulebook does not number its
sections: its headings are cited, with the digest's RO-* / AMB-R* ids); every number comes
from the data (``rove.yaml`` and the content, compiled by ``compile.py``) through the input
arrays. Randomness is counter-based (:mod:`deepsim.rng`): a game's deal, dice and bot coins
are pure functions of (seed, game index), in three streams so that a bot's decisions never
shift the dice (common random numbers between bot variants and rule variants):

- the game key, draws ``0 .. 63``: the Rover count, the classes, the bots;
- the game key, draws from ``DICE_CTR`` on: ability die, damage die, ether dice, in order;
- the bot key (the game key mixed with a salt): the random bot's and the party's coins.

State lives in named arrays (``layout``): ``U`` the units (Rovers are units 0..R-1, the
adversaries R.. in placement order), ``occ`` the unit on each space, ``trap`` the trap
tiles, ``pers``/``inf`` each Rover's personal and infusion pools (6 elements + Dim),
``up`` the face up of each skill card, ``itm`` the items' state, ``track`` each adversary
type's ability-track position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.blocks import run_blocks
from deepsim.factionmix import faction_bot
from deepsim.rng import below, game_key, mix64, uniform
from deepsim.rulesets.events import append_event
from deepsim.rulesets.rove.layout import (
    A_DEF,
    A_ELEM,
    A_FIELD,
    A_FLOW,
    A_IGN,
    A_OP,
    A_PULL,
    A_PUSH,
    A_RMAX,
    A_RMIN,
    A_TGT,
    A_X,
    AD_BOSS,
    AD_DEF,
    AD_FLY,
    AD_HP,
    AD_HPR,
    AD_IGN,
    AD_NBLK,
    ADVERSARY,
    AUG_N,
    B_DAMAGE,
    B_IGNORE,
    B_PULL,
    B_PUSH,
    B_RANGE,
    B_TARGET,
    B_X,
    CL_HP,
    CL_AURA,
    CL_MIASMA,
    CL_LIMIT,
    CL_NCARDS,
    CL_START,
    EV_ABILITY,
    EV_ATTACK,
    EV_BLOCK,
    EV_CARD,
    EV_COLS,
    EV_DEFENSE,
    EV_DOWNED,
    EV_DRAIN,
    EV_END,
    EV_FALL,
    EV_FIELD,
    EV_FOCUS,
    EV_GENERATE,
    EV_HEAL,
    EV_ITEM,
    EV_MOVE,
    EV_PLACE,
    EV_PUSH,
    EV_REACT,
    EV_REVIVE,
    EV_ROUND,
    EV_SETUP,
    EV_SLAIN,
    EV_TERRAIN,
    EV_TRACK,
    EV_TURN,
    EV_WASTE,
    F_ABCOST,
    F_AUG0,
    F_BLOCK,
    F_COST,
    F_NAUG,
    F_OTHER,
    F_TYPE,
    FACE_RAVE,
    G_ADMG,
    G_ADV_DMG,
    G_ADV_DOWNS,
    G_ADV_LEFT,
    G_ADV_TRACK,
    G_BLK_DMG,
    G_AUGMET,
    G_AUGMISS,
    G_DANGER,
    G_DOWNS,
    G_DRAINS,
    G_ETHER,
    G_FALLS,
    G_FPLACED,
    G_FTRIG,
    G_IMPACT,
    G_ITEMS,
    G_LIMIT,
    G_MAXDOWN,
    G_OBJ_ROUND,
    G_OUTCOME,
    G_PLACED,
    G_PLAYERS,
    G_PUSHES,
    G_RALLIES,
    G_RAVES,
    G_RDMG,
    G_REACTS,
    G_REVIVES,
    G_ROUNDS,
    G_ROVERS,
    G_SLAIN,
    G_TIECHOICE,
    G_TIES,
    G_TRAPS,
    G_TRUNC,
    G_WASTED,
    G_ZERO,
    GAME_FLT,
    GAME_INT,
    IB_DAMAGE,
    IB_RANGE,
    IB_TARGET,
    IT_ATTACK,
    IT_BLOCK,
    IT_BONUS,
    IT_CONS,
    IT_COST,
    IT_VALUE,
    K_CAUTION,
    K_HEAL_BELOW,
    K_RANDOM,
    K_RUNNER,
    K_REVIVE,
    K_WEAKEST,
    MAX_CARDS,
    CARD_COLS,
    MAX_ITEMS,
    MAX_R,
    MAX_TYPES,
    MAX_BLOCKS,
    MAX_UNITS,
    O_DOWNED,
    O_LIMIT,
    O_VICTORY,
    OBJ_EXIT,
    OBJ_SLAY_TYPE,
    OP_DASH,
    OP_DEFENSE,
    OP_GENERATE,
    OP_HEAL,
    OP_JUMP,
    OP_MATTACK,
    OP_PULL,
    OP_PUSH,
    OP_RATTACK,
    OP_RECOVER,
    OP_RETREAT,
    OP_REVIVE,
    OP_SUFFER,
    OP_TELEPORT,
    PL_CELL,
    PL_MIN,
    PL_TYPE,
    R_ABIL,
    R_AHP,
    R_CARDS,
    R_CLAMP,
    R_CLOSEST,
    R_DIM,
    R_DRAIN_FIRST,
    R_DANGER,
    R_AURA_ADV,
    R_EVERBLOOM,
    R_FSCOPE,
    R_MIASMA_ADV,
    R_SNAPFROST,
    R_WILDFIRE,
    R_WINDSCREEN,
    R_FEWEST,
    R_LIMIT,
    R_LIMIT_ADD,
    R_NPLACED,
    R_NTYPES,
    R_OBJ_TYPE,
    R_OBJECTIVE,
    R_REACT,
    R_RHP,
    R_START_HP,
    R_STORY_I,
    R_STORY_P,
    R_TIE,
    R_TRAP,
    R_UNREACH,
    ROVER,
    S_ABIL,
    S_AUGMET,
    S_BOT,
    S_CLASS,
    S_DEALT,
    S_DOWNED,
    S_DOWNS,
    S_DRAINS,
    S_DRAKAEN,
    S_ETHER,
    S_FIRSTDOWN,
    S_HEALS,
    S_HP,
    S_ITEMS,
    S_KILLS,
    S_MOVED,
    S_RALLIES,
    S_RAVES,
    S_REACTS,
    S_REVIVED,
    S_SPENT,
    S_TAKEN,
    S_TURNS,
    S_WASTED,
    SEAT_FLT,
    SEAT_INT,
    SF_WIN,
    ST_ACTIVE,
    ST_DOWNED,
    ST_GONE,
    T_BARRIER,
    T_DANGEROUS,
    T_DIFFICULT,
    T_OBJECT,
    T_OPEN,
    TL_AURA,
    TL_EVERBLOOM,
    TL_MIASMA,
    TL_SNAPFROST,
    TL_TRAP,
    TL_WILDFIRE,
    TL_WINDSCREEN,
    TIE_ADVERSARIAL,
    TIE_ROVER,
    TRACK_ROUNDS,
    U_AFF,
    U_AURA,
    U_MIASMA,
    U_BASEDEF,
    U_CELL,
    U_DEFTOK,
    U_RCOIN,
    U_REACT0,
    U_RTOK,
    U_FACTION,
    U_FLY,
    U_HP,
    U_IGN,
    U_KIND,
    U_MAXHP,
    U_N,
    U_STATE,
    U_TURNCELL,
    WHY_APPROACH,
    WHY_CLOSEST,
    WHY_HEAL_MOST,
    WHY_HEAL_SELF,
    WHY_HP,
    WHY_MOST,
    WHY_ONLY,
    WHY_TIE,
)

# Calls between kernel functions pass typed values (np.int64(-1), np.bool_(False)), never a
# bare constant: numba compiles a callee once per literal type it is called with, so a
# literal argument would compile that function (and all it calls) a second time.
DICE_CTR = np.uint64(64)
_BOT_SALT = np.uint64(0x243F6A8885A308D3)
BIG = 1 << 40
DIM = 6                   # the pools' Dim slot (after the six elements)

# the game-wide bundle of small int64 state: G[...]
# GS_SLOT: the track slot of the adversary block being performed (-1: none, or On Advance)
(GS_ROUND, GS_R, GS_NU, GS_OVER, GS_OUTCOME, GS_NEV, GS_TRACE, GS_PHASE,
 GS_SLOT) = range(9)
GS_N = 9


# ---- randomness ----------------------------------------------------------------------------

@njit(cache=True)
def _dice(key, ctr, n):
    """A uniform integer in [0, n) from the dice stream (ctr[0] advances)."""
    v = below(key, ctr[0], n)
    ctr[0] += np.uint64(1)
    return v


@njit(cache=True)
def _coin(bkey, ctr, n):
    """A uniform integer in [0, n) from the bot stream (ctr[1] advances)."""
    v = below(bkey, ctr[1], n)
    ctr[1] += np.uint64(1)
    return v


@njit(cache=True)
def _ufloat(bkey, ctr):
    v = uniform(bkey, ctr[1])
    ctr[1] += np.uint64(1)
    return v


@njit(cache=True)
def stable_order(keys, n):
    """The indices that sort ``keys[:n]`` (int64) ascending, ties in index order: an
    insertion sort (n <= MAX_UNITS; ``np.argsort(kind="mergesort")`` gives the same order
    but compiles a sort of its own)."""
    idx = np.empty(n, np.int64)
    for i in range(n):
        idx[i] = i
        j = i
        while j > 0 and keys[idx[j - 1]] > keys[idx[j]]:
            t = idx[j]
            idx[j] = idx[j - 1]
            idx[j - 1] = t
            j -= 1
    return idx


# ---- the trace -----------------------------------------------------------------------------

@njit("void(int64[:, ::1], int64[::1], int64, int64, int64, int64, int64)", cache=True)
def _ev(ev, G, code, a, b, c, d):
    """Append (round, code, a, b, c, d) to the trace's event table when the game is traced
    (the shared writer, :func:`deepsim.rulesets.events.append_event`). Compiled once for
    its one signature (every argument int64: a literal argument converts), and called, not
    inlined: its 46 call sites would each carry a copy of the row's stores through LLVM."""
    append_event(ev, G, GS_TRACE, GS_NEV, (G[GS_ROUND], np.int64(code), np.int64(a),
                                           np.int64(b), np.int64(c), np.int64(d)))


# ---- geometry and movement (Actions: Dash, Jump, Teleport, Flying; Map Spaces) --------------

@njit(cache=True)
def can_end(U, u, cell, occ, terrain):
    """RO-M1..M4: a unit ends a move or teleport only in an unoccupied space it may stand
    in: never a barrier; open air and objects only when flying (Map Spaces)."""
    t = terrain[cell]
    if t == T_BARRIER:
        return False
    if occ[cell] >= 0 and occ[cell] != u:
        return False
    return not (U[u, U_FLY] == 0 and (t == T_OPEN or t == T_OBJECT))


@njit(cache=True)
def reach(U, u, occ, terrain, trap, nbr, op, x, rc, pc, pk):
    """Spaces a dash or jump of ``x`` points can reach, with the path the AI would take.

    Fills ``rc`` int64[C] with each space's preference cost (BIG: unreachable) and the
    parent tables ``pc``/``pk`` int64[x + 1, C] (the previous space and its points spent)
    for :func:`path_of`. Real points: 1 a space, +1 for a non-flyer dashing into difficult
    terrain (Map Spaces, Difficult; a jump ignores it). Preference: the AI "treats
    dangerous terrain and traps as difficult terrain" (Movement and Primary Action Logic),
    so each dangerous space or trap a dash enters (a jump only where it ends) adds 1 to the
    preference, never to the points. A dash passes allies, not enemies (Dash); a jump or a
    flyer passes any unit (Jump, Flying); nothing passes a barrier; a non-flyer may dash
    into neither open air nor an object, and may jump over them (Map Spaces). A Snapfrost
    (Tiles, RO-TI4) takes its points from a unit starting here or moving into it.
    Returns the best preference cost per space in ``rc`` (the unit's own space: 0).
    """
    nc = terrain.shape[0]
    fly = U[u, U_FLY] != 0
    ign = U[u, U_IGN] != 0
    fac = U[u, U_FACTION]
    start = U[u, U_CELL]
    if tile_kind(trap[start]) == TL_SNAPFROST:
        # Snapfrost (RO-TI4; AMB-R9): a unit beginning a movement action here loses points
        x = max(0, x - tile_value(trap[start]))
    best = np.full((x + 1, nc), BIG, np.int64)
    best[0, start] = 0
    pc[:, :] = -1
    pk[:, :] = -1
    for k in range(x + 1):
        for c in range(nc):
            b = best[k, c]
            if b >= BIG:
                continue
            # a non-flyer on open air or an object is mid-jump: it may continue (jump only)
            for d in range(6):
                n = nbr[c, d]
                if n < 0:
                    continue
                t = terrain[n]
                if t == T_BARRIER:
                    continue
                o = occ[n]
                step = 1
                pref = 1
                if op == OP_DASH and not fly:
                    if t == T_OPEN or t == T_OBJECT:
                        continue
                    if o >= 0 and U[o, U_FACTION] != fac and U[o, U_STATE] != ST_GONE:
                        continue
                    if t == T_DIFFICULT:
                        step = 2
                        pref = 2
                    if not ign and (t == T_DANGEROUS or tile_kind(trap[n]) == TL_TRAP):
                        pref += 1
                elif op == OP_DASH and fly:
                    pass
                if tile_kind(trap[n]) == TL_SNAPFROST:
                    # Snapfrost: moving into it costs its points too (any unit, dash or jump)
                    step += tile_value(trap[n])
                    pref += tile_value(trap[n])
                k2 = k + step
                if k2 > x:
                    continue
                if b + pref < best[k2, n]:
                    best[k2, n] = b + pref
                    pc[k2, n] = c
                    pk[k2, n] = k
    for c in range(nc):
        m = BIG
        for k in range(x + 1):
            if best[k, c] < m:
                m = best[k, c]
        rc[c] = m
    if op == OP_JUMP and not fly and not ign:
        # a jump triggers only where it ends (Map Spaces, Dangerous)
        for c in range(nc):
            if rc[c] < BIG and c != start and (terrain[c] == T_DANGEROUS
                                               or tile_kind(trap[c]) == TL_TRAP):
                rc[c] += 1
    # the best k for each cell is recovered in path_of through best's argmin
    return best


@njit(cache=True)
def path_of(best, pc, pk, dest, out):
    """The spaces entered on the preferred path to ``dest`` (in order) into ``out``;
    returns how many."""
    x1 = best.shape[0]
    kb = -1
    m = BIG
    for k in range(x1):
        if best[k, dest] < m:
            m = best[k, dest]
            kb = k
    n = 0
    c = dest
    k = kb
    tmp = np.empty(x1 + 1, np.int64)
    while k > 0 and pc[k, c] >= 0:
        tmp[n] = c
        n += 1
        c2 = pc[k, c]
        k = pk[k, c]
        c = c2
    for i in range(n):
        out[i] = tmp[n - 1 - i]
    return n


# ---- tiles: traps and ether fields (Tiles; RO-TI1, RO-TI4, RO-TI5) ---------------------------

@njit(cache=True)
def tile_kind(t):
    """The tile's kind (``layout.TL_*``) from a ``tile`` entry."""
    return t & 15


@njit(cache=True)
def tile_value(t):
    """An Aura's or Miasma's value (a Snapfrost's points) from a ``tile`` entry."""
    return (t >> 4) - 64


@njit(cache=True)
def place_field(U, trap, cell, kind, u, rules, G, gi, ev):
    """RO-TI4/TI5: ``u`` places an ether field of ``kind`` into ``cell`` (the effect of
    its action, into a target's space): one tile a space, so it replaces a field or trap
    there. An Aura or Miasma carries its owner's value (a Rover's class value; the
    adversaries' ``damage.aura_adversary``/``miasma_adversary``, AMB-R19); a Snapfrost
    its ``fields.snapfrost`` points."""
    val = 0
    if kind == TL_AURA:
        val = U[u, U_AURA]
    elif kind == TL_MIASMA:
        val = U[u, U_MIASMA]
    elif kind == TL_SNAPFROST:
        val = rules[R_SNAPFROST]
    trap[cell] = kind + 16 * (val + 64)
    gi[G_FPLACED] += 1
    _ev(ev, G, EV_FIELD, u, cell, kind, 0)


@njit(cache=True)
def take_aura(U, trap, u, G, gi, ev):
    """Aura / Miasma (RO-TI4): the first attack made by a unit occupying the space gets the
    field's bonus (a Miasma's penalty); then the tile is removed. Returns the bonus."""
    c = U[u, U_CELL]
    k = tile_kind(trap[c])
    if k != TL_AURA and k != TL_MIASMA:
        return 0
    v = tile_value(trap[c])
    trap[c] = 0
    gi[G_FTRIG] += 1
    _ev(ev, G, EV_FIELD, u, c, k, 1)
    return v


@njit(cache=True)
def turn_fields(U, occ, trap, u, start, rules, G, gi, si, ev):
    """The fields of ``u``'s space at the start of its turn (Wildfire: it suffers
    ``fields.wildfire``) or at its end (Everbloom: it recovers ``fields.everbloom``); both
    tiles stay (RO-TI4; the digest's per-unit timing)."""
    if U[u, U_STATE] != ST_ACTIVE:
        return
    c = U[u, U_CELL]
    k = tile_kind(trap[c])
    if start and k == TL_WILDFIRE:
        gi[G_FTRIG] += 1
        _ev(ev, G, EV_FIELD, u, c, k, 1)
        hurt(U, occ, u, rules[R_WILDFIRE], np.int64(-1), G, gi, si, ev, rules)
    elif not start and k == TL_EVERBLOOM:
        gi[G_FTRIG] += 1
        _ev(ev, G, EV_FIELD, u, c, k, 1)
        heal(U, u, rules[R_EVERBLOOM], np.int64(-1), G, si, ev)


# ---- damage (Damage; Damage Resolution; Defense; Heal; Suffer; Downed) -----------------------

@njit(cache=True)
def defence(U, v):
    """RO-D3: base defence plus one per Defense token (Defense)."""
    return U[v, U_BASEDEF] + U[v, U_DEFTOK]


@njit(cache=True)
def damage_value(x, mod, dv, clamp):
    """RO-D1..D3: base damage (with its augments) + the die's affinity modifier - defence,
    at least 0 when ``clamp`` (AMB-R3, ``damage.clamp_at_zero``)."""
    dmg = x + mod - dv
    if clamp != 0 and dmg < 0:
        dmg = 0
    return dmg


@njit(cache=True)
def sample_damage(seed, n, x, aff_row, dv, damage_die, clamp):
    """``n`` attacks' damage (int64[n]) drawn the way :func:`attack_one` draws one: the
    damage die from the dice stream, the attacker's affinity ``aff_row`` (int64[6]) for an
    element face, Dim +0, minus ``dv``. For the odds-agreement check."""
    key = game_key(seed, 0)
    ctr = np.zeros(2, np.uint64)
    ctr[0] = DICE_CTR
    out = np.empty(n, np.int64)
    for i in range(n):
        e = damage_die[_dice(key, ctr, damage_die.shape[0])]
        out[i] = damage_value(x, aff_row[e] if e >= 0 else 0, dv, clamp)
    return out


@njit(cache=True)
def sample_ether(seed, n, dice, ether_die):
    """``n`` draws of ``dice`` generated wild ether dice (int64[n, 6]: each element's count)
    the way :func:`gen_ether` draws them. For the odds-agreement check."""
    key = game_key(seed, 0)
    ctr = np.zeros(2, np.uint64)
    ctr[0] = DICE_CTR
    out = np.zeros((n, 6), np.int64)
    for i in range(n):
        for _ in range(dice):
            out[i, ether_die[_dice(key, ctr, ether_die.shape[0])]] += 1
    return out


@njit(cache=True)
def expected_damage(U, aff, a, v, x, ign, damage_die, clamp):
    """The attack's mean damage on ``v`` over the damage die's faces (RO-D1..D3)."""
    tot = 0.0
    nf = damage_die.shape[0]
    dv = 0 if ign else defence(U, v)
    for f in range(nf):
        e = damage_die[f]
        tot += damage_value(x, aff[U[a, U_AFF], e] if e >= 0 else 0, dv, clamp)
    return tot / nf


@njit(cache=True)
def hurt(U, occ, v, amount, src, G, gi, si, ev, rules):
    """``v`` suffers ``amount`` (already after defence): a Rover at 0 HP is downed and keeps
    its space; an adversary at 0 HP is slain and removed (The Downed State; Slaying Rover
    Enemies). ``src``: the unit that dealt it (-1: terrain). Returns the HP lost."""
    if amount <= 0 or U[v, U_STATE] != ST_ACTIVE:
        return 0
    lost = min(amount, U[v, U_HP])
    U[v, U_HP] -= lost
    if U[v, U_FACTION] == ROVER:
        si[v, S_TAKEN] += lost
        gi[G_ADMG] += lost if src >= 0 else 0
        by = U[src, U_KIND] if src >= 0 and U[src, U_FACTION] == ADVERSARY else -1
        if by >= 0:
            gi[G_ADV_DMG + by] += lost
            if G[GS_SLOT] >= 0:
                gi[G_BLK_DMG + by * MAX_BLOCKS + G[GS_SLOT]] += lost
        if U[v, U_HP] == 0:
            U[v, U_STATE] = ST_DOWNED
            si[v, S_DOWNS] += 1
            gi[G_DOWNS] += 1
            if by >= 0:
                gi[G_ADV_DOWNS + by] += 1
            if si[v, S_FIRSTDOWN] < 0:
                si[v, S_FIRSTDOWN] = G[GS_ROUND]
            _ev(ev, G, EV_DOWNED, v, src, 0, 0)
            nd = 0
            for r in range(G[GS_R]):
                if U[r, U_STATE] == ST_DOWNED:
                    nd += 1
            if nd > gi[G_MAXDOWN]:
                gi[G_MAXDOWN] = nd
            if nd == G[GS_R]:                 # Losing an Encounter: all Rovers downed
                G[GS_OVER] = 1
                G[GS_OUTCOME] = O_DOWNED
    else:
        if src >= 0 and U[src, U_FACTION] == ROVER:
            si[src, S_DEALT] += lost
            gi[G_RDMG] += lost
        if U[v, U_HP] == 0:
            U[v, U_STATE] = ST_GONE
            occ[U[v, U_CELL]] = -1
            gi[G_SLAIN] += 1
            if src >= 0 and U[src, U_FACTION] == ROVER:
                si[src, S_KILLS] += 1
            _ev(ev, G, EV_SLAIN, v, src, 0, 0)
            check_slay(U, G, gi, rules)
    return lost


@njit(cache=True)
def check_slay(U, G, gi, rules):
    """RO-E2 / AMB-R32: a slay objective is met the moment its last adversary falls."""
    if G[GS_OVER] != 0 or rules[R_OBJECTIVE] == OBJ_EXIT:
        return
    for v in range(G[GS_R], G[GS_NU]):
        if U[v, U_STATE] == ST_ACTIVE:
            if rules[R_OBJECTIVE] != OBJ_SLAY_TYPE or U[v, U_KIND] == rules[R_OBJ_TYPE]:
                return
    G[GS_OVER] = 1
    G[GS_OUTCOME] = O_VICTORY
    gi[G_OBJ_ROUND] = G[GS_ROUND]


@njit(cache=True)
def enter(U, occ, trap, terrain, u, cell, dash, G, gi, si, ev, rules):
    """Unit ``u`` enters ``cell`` (a move step, a jump's or teleport's end, or a forced
    step): a non-flyer without the trait that enters a dangerous space suffers the
    encounter's value (Map Spaces, Dangerous: a jump triggers only where it ends: the
    caller passes ``dash`` False for the spaces a jump passes); any unit entering a trap
    triggers it and the trap is removed (Tiles, Traps; AMB-R28 like dangerous)."""
    if U[u, U_FLY] != 0 or not dash:
        return
    if terrain[cell] == T_DANGEROUS and U[u, U_IGN] == 0:
        gi[G_DANGER] += 1
        _ev(ev, G, EV_TERRAIN, u, cell, 0, rules[R_DANGER])
        hurt(U, occ, u, rules[R_DANGER], np.int64(-1), G, gi, si, ev, rules)
    if tile_kind(trap[cell]) == TL_TRAP and U[u, U_STATE] == ST_ACTIVE:
        trap[cell] = 0
        gi[G_TRAPS] += 1
        _ev(ev, G, EV_TERRAIN, u, cell, 1, rules[R_TRAP])
        hurt(U, occ, u, rules[R_TRAP], np.int64(-1), G, gi, si, ev, rules)


@njit(cache=True)
def move_to(U, occ, trap, terrain, u, path, n, jump, G, gi, si, ev, rules):
    """Walk ``u`` along ``path[:n]`` (spaces entered, in order), triggering each as it is
    entered (a jump: only its last space); stops if ``u`` falls."""
    start = U[u, U_CELL]
    occ[start] = -1
    if n > 0 and tile_kind(trap[start]) == TL_SNAPFROST:
        trap[start] = 0                      # Snapfrost: its points taken (reach), removed
        gi[G_FTRIG] += 1
        _ev(ev, G, EV_FIELD, u, start, TL_SNAPFROST, 1)
    for i in range(n):
        c = path[i]
        last = i == n - 1
        if tile_kind(trap[c]) == TL_SNAPFROST:
            trap[c] = 0
            gi[G_FTRIG] += 1
            _ev(ev, G, EV_FIELD, u, c, TL_SNAPFROST, 1)
        U[u, U_CELL] = c
        enter(U, occ, trap, terrain, u, c, (not jump) or last, G, gi, si, ev, rules)
        if U[u, U_STATE] == ST_GONE:
            return
        if U[u, U_STATE] == ST_DOWNED:
            break                    # a downed Rover stays where it fell
    occ[U[u, U_CELL]] = u
    if U[u, U_FACTION] == ROVER:
        si[u, S_MOVED] += n
    _ev(ev, G, EV_MOVE, u, start, U[u, U_CELL], n)


@njit(cache=True)
def teleport_to(U, occ, trap, terrain, u, cell, G, gi, si, ev, rules):
    """RO-M3 Teleport: removed and placed; ending in a dangerous space or trap triggers."""
    start = U[u, U_CELL]
    occ[start] = -1
    U[u, U_CELL] = cell
    enter(U, occ, trap, terrain, u, cell, np.bool_(True), G, gi, si, ev, rules)
    if U[u, U_STATE] != ST_GONE:
        occ[cell] = u
    _ev(ev, G, EV_MOVE, u, start, cell, -1)


# ---- push and pull (Push; Pull; Impact Damage; Falling) --------------------------------------

@njit(cache=True)
def push_sim(U, occ, trap, terrain, nbr, dist, perf_cell, v, x, pull, d, danger, trapv):
    """Simulate pushing (or pulling) ``v`` ``x`` spaces in hex direction ``d`` from
    ``perf_cell``. Each space entered must be further from (closer to) the performer
    (Push; Pull); the push stops at the map edge or a unit without damage (Impact Damage),
    at a barrier or (non-flyer) an object with impact damage = the distance left; a
    non-flying adversary meeting open air falls (slain) if that impact would bring it to 0,
    else stops with no damage (Falling); a Rover stops there (AMB-R27: like the map
    edge). Forced moves ignore difficult terrain and trigger dangerous spaces and traps.

    Returns (steps, final space, impact, terrain damage, fall 0/1, valid 0/1): ``valid``
    0 when the first step does not move away from (toward) the performer.
    """
    cur = U[v, U_CELL]
    fly = U[v, U_FLY] != 0
    hp = U[v, U_HP]
    steps = 0
    impact = 0
    tdmg = 0
    fall = 0
    for k in range(x):
        n = nbr[cur, d]
        if n < 0:
            if k == 0:
                return 0, cur, 0, 0, 0, 0
            break
        if pull:
            ok = dist[perf_cell, n] < dist[perf_cell, cur]
        else:
            ok = dist[perf_cell, n] > dist[perf_cell, cur]
        if not ok:
            if k == 0:
                return 0, cur, 0, 0, 0, 0
            break
        t = terrain[n]
        left = x - k
        if t == T_BARRIER or (t == T_OBJECT and not fly):
            impact = left
            break
        if t == T_OPEN and not fly:
            if U[v, U_FACTION] == ADVERSARY and left >= hp - tdmg:
                fall = 1
            break
        if occ[n] >= 0 and occ[n] != v:
            break
        cur = n
        steps += 1
        if not fly and U[v, U_IGN] == 0 and t == T_DANGEROUS:
            tdmg += danger
        if not fly and tile_kind(trap[n]) == TL_TRAP:
            tdmg += trapv
    return steps, cur, impact, tdmg, fall, 1


@njit(cache=True)
def push_value(U, v, r):
    """The damage a push outcome deals (a fall counts as the target's HP)."""
    impact, tdmg, fall = r[2], r[3], r[4]
    if fall:
        return U[v, U_HP]
    return min(U[v, U_HP], impact + tdmg)


@njit(cache=True)
def do_push(U, occ, trap, terrain, nbr, dist, perf, v, x, pull, d, G, gi, si, ev, rules):
    """Carry out a push/pull of ``v`` in direction ``d`` (:func:`push_sim`'s rules)."""
    perf_cell = U[perf, U_CELL]
    cur = U[v, U_CELL]
    fly = U[v, U_FLY] != 0
    gi[G_PUSHES] += 1
    start = cur
    for k in range(x):
        if U[v, U_STATE] != ST_ACTIVE:
            return
        n = nbr[cur, d]
        if n < 0:
            break
        if pull:
            ok = dist[perf_cell, n] < dist[perf_cell, cur]
        else:
            ok = dist[perf_cell, n] > dist[perf_cell, cur]
        if not ok:
            break
        t = terrain[n]
        left = x - k
        if t == T_BARRIER or (t == T_OBJECT and not fly):
            gi[G_IMPACT] += min(left, U[v, U_HP])
            _ev(ev, G, EV_PUSH, v, start, cur, 100 + left)
            hurt(U, occ, v, left, perf, G, gi, si, ev, rules)       # Impact Damage
            return
        if t == T_OPEN and not fly:
            if U[v, U_FACTION] == ADVERSARY and left >= U[v, U_HP]:   # Falling
                gi[G_FALLS] += 1
                _ev(ev, G, EV_FALL, v, cur, n, left)
                hurt(U, occ, v, U[v, U_HP], perf, G, gi, si, ev, rules)
                return
            break
        if occ[n] >= 0 and occ[n] != v:
            break
        occ[cur] = -1
        cur = n
        U[v, U_CELL] = cur
        occ[cur] = v
        if not fly:
            enter(U, occ, trap, terrain, v, cur, np.bool_(True), G, gi, si, ev, rules)
    _ev(ev, G, EV_PUSH, v, start, U[v, U_CELL], 0)


@njit(cache=True)
def best_push_dir(U, occ, trap, terrain, nbr, dist, perf_cell, v, x, pull, rules, want_max):
    """The direction whose push deals the most damage (Adversary Pushing and Pulling),
    first such direction on a tie; ``want_max`` False: the least. -1 when none moves."""
    bd = -1
    bv = -1
    for d in range(6):
        r = push_sim(U, occ, trap, terrain, nbr, dist, perf_cell, v, x, pull, d,
                     rules[R_DANGER], rules[R_TRAP])
        if r[5] == 0:
            continue
        val = push_value(U, v, r)
        if bd < 0 or (want_max and val > bv) or (not want_max and val < bv):
            bd = d
            bv = val
    return bd


# ---- attacks ---------------------------------------------------------------------------------

@njit(cache=True)
def can_hit(U, dist, los, cell, v, rmin, rmax):
    """RO-L1/L2: ``v`` is within range a-b of ``cell`` and in its line of sight."""
    c = U[v, U_CELL]
    dd = dist[cell, c]
    return dd >= rmin and dd <= rmax and los[cell, c] != 0


@njit(cache=True)
def attack_one(U, occ, trap, terrain, nbr, dist, aff, damage_die, a, v, x, ign, push, pull,
               key, ctr, bkey, G, gi, si, ev, rules, rover_push_random):
    """One target of an attack (Damage Resolution): base damage with its augments, the
    damage die with the attacker's ether affinity (Dim +0), minus defence unless Ignore
    Defense, at least 0 (AMB-R3), less a Windscreen's 2 on its space; then, if the target
    lives, its push or pull (Effect
    Resolution): the Rover chooses the direction (its bot), an adversary the most damaging
    one (Adversary Pushing and Pulling)."""
    f = _dice(key, ctr, damage_die.shape[0])
    e = damage_die[f]
    mod = aff[U[a, U_AFF], e] if e >= 0 else 0
    dv = 0 if ign else defence(U, v)
    dmg = damage_value(x, mod, dv, rules[R_CLAMP])
    if dmg == 0:
        gi[G_ZERO] += 1
    _ev(ev, G, EV_ATTACK, a, v, x * 1000 + (e + 1) * 100 + (mod + 50), dv * 1000 + dmg)
    c = U[v, U_CELL]
    if dmg >= 1 and tile_kind(trap[c]) == TL_WINDSCREEN:
        # Windscreen (RO-TI4, RO-D4): the occupant suffers 2 less (after the clamp, AMB-R3);
        # then the tile is removed
        cut = min(dmg, rules[R_WINDSCREEN])
        dmg -= cut
        trap[c] = 0
        gi[G_FTRIG] += 1
        _ev(ev, G, EV_FIELD, v, c, TL_WINDSCREEN, cut)
    hurt(U, occ, v, dmg, a, G, gi, si, ev, rules)
    force = push if push > 0 else pull
    if force > 0 and U[v, U_STATE] == ST_ACTIVE:
        forced(U, occ, trap, terrain, nbr, dist, a, v, force, pull > 0 and push == 0, bkey,
               ctr, G, gi, si, ev, rules, rover_push_random)


@njit(cache=True)
def forced(U, occ, trap, terrain, nbr, dist, a, v, x, pull, bkey, ctr, G, gi, si, ev, rules,
           rover_push_random):
    """A push or pull by ``a`` on ``v``: the direction per who performs it (Push; Pull)."""
    perf_cell = U[a, U_CELL]
    if U[a, U_FACTION] == ADVERSARY or not rover_push_random:
        d = best_push_dir(U, occ, trap, terrain, nbr, dist, perf_cell, v, x, pull, rules, True)
    else:
        nd = np.int64(0)
        dirs = np.empty(6, np.int64)
        for dd in range(6):
            r = push_sim(U, occ, trap, terrain, nbr, dist, perf_cell, v, x, pull, dd,
                         rules[R_DANGER], rules[R_TRAP])
            if r[5] != 0:
                dirs[nd] = dd
                nd += 1
        d = -1 if nd == 0 else dirs[_coin(bkey, ctr, nd)]
    if d >= 0:
        do_push(U, occ, trap, terrain, nbr, dist, a, v, x, pull, d, G, gi, si, ev, rules)


# ---- the adversary AI (Primary Action Logic) ---------------------------------------------------

@njit(cache=True)
def closeness(U, dist, u, v, rc, nbr, rules):
    """AMB-R20 "closest enemy": ``path`` the movement cost to a space next to ``v`` plus
    one (``rc``: this turn's :func:`reach` costs; BIG beyond them: then the hex distance
    plus a large constant keeps the order), or ``hex`` the straight distance."""
    h = dist[U[u, U_CELL], U[v, U_CELL]]
    if rules[R_CLOSEST] == 1:
        return h
    m = BIG
    for d in range(6):
        n = nbr[U[v, U_CELL], d]
        if n >= 0 and rc[n] < m:
            m = rc[n] + 1
    if U[v, U_CELL] == U[u, U_CELL]:
        return 0
    if m >= BIG:
        return 1000 + h
    return m if h > 1 else 1


@njit(cache=True)
def ai_focus(U, dist, los, aff, damage_die, u, cands, nc, row_x, row_ign, rules, rc, nbr,
             G, gi, ev):
    """Single-target attack logic: among ``cands`` (enemies it can attack this turn), the
    closest; a tie goes to the most current HP (Hard Mode: the fewest); a tie left is the
    players' to decide (AMB-R1, ``ai.tiebreak``): ``rover_favoured`` takes the target
    that would suffer the least expected damage, ``adversarial`` the most, ``first`` the
    lowest unit. Returns the focus and records why."""
    best = BIG
    for i in range(nc):
        c = closeness(U, dist, u, cands[i], rc, nbr, rules)
        if c < best:
            best = c
    tied = np.empty(nc, np.int64)
    nt = 0
    for i in range(nc):
        if closeness(U, dist, u, cands[i], rc, nbr, rules) == best:
            tied[nt] = cands[i]
            nt += 1
    why = WHY_ONLY if nc == 1 else WHY_CLOSEST
    if nt > 1:
        hb = -BIG
        for i in range(nt):
            h = U[tied[i], U_HP]
            key = -h if rules[R_FEWEST] != 0 else h
            if key > hb:
                hb = key
        n2 = 0
        for i in range(nt):
            h = U[tied[i], U_HP]
            key = -h if rules[R_FEWEST] != 0 else h
            if key == hb:
                tied[n2] = tied[i]
                n2 += 1
        if n2 < nt:
            why = WHY_HP
        nt = n2
    pick = tied[0]
    if nt > 1:
        why = WHY_TIE
        gi[G_TIES] += 1
        tie = rules[R_TIE]
        if tie != 2:
            bv = 0.0
            differs = False
            for i in range(nt):
                e = expected_damage(U, aff, u, tied[i], row_x, row_ign, damage_die,
                                    rules[R_CLAMP])
                if i == 0:
                    bv = e
                    pick = tied[i]
                else:
                    if e != bv:
                        differs = True
                    if (tie == TIE_ROVER and e < bv) or (tie == TIE_ADVERSARIAL and e > bv):
                        bv = e
                        pick = tied[i]
            if differs:
                gi[G_TIECHOICE] += 1
    _ev(ev, G, EV_FOCUS, u, pick, best, why)
    return pick


@njit(cache=True)
def enemies_of(U, u, G, out):
    """Units ``u`` may target with a negative action: standing units of the other faction
    (a downed Rover is out of the fight: The Downed State)."""
    n = 0
    for v in range(G[GS_NU]):
        if U[v, U_STATE] == ST_ACTIVE and U[v, U_FACTION] != U[u, U_FACTION]:
            out[n] = v
            n += 1
    return n


@njit(cache=True)
def allies_of(U, u, G, out):
    n = 0
    for v in range(G[GS_NU]):
        if U[v, U_STATE] == ST_ACTIVE and U[v, U_FACTION] == U[u, U_FACTION]:
            out[n] = v
            n += 1
    return n


@njit(cache=True)
def ai_move(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, u, mrow, actions, nxt,
            rules, G, gi, si, ev, key, ctr):
    """Movement and Primary Action Logic: move (or teleport) the least needed for the
    primary action ``actions[nxt]`` that follows (``nxt`` -1: none), preferring normal spaces (dangerous
    spaces and traps cost one more, :func:`reach`); a multi-target attack maximises its
    targets; a heal reaches the most damaged ally. When nothing can be attacked this turn,
    ``ai.unreachable`` (AMB-R21): approach the closest enemy, or stay. Returns the focus
    chosen for a single-target attack (-1: none)."""
    nc = terrain.shape[0]
    op = mrow[A_OP]
    x = mrow[A_X]
    rc = np.empty(nc, np.int64)
    pc = np.empty((x + 1, nc), np.int64)
    pk = np.empty((x + 1, nc), np.int64)
    if op == OP_TELEPORT:
        best = np.zeros((1, nc), np.int64)
        for c in range(nc):
            rc[c] = dist[U[u, U_CELL], c] if dist[U[u, U_CELL], c] <= x else BIG
        best[0, :] = rc
    else:
        best = reach(U, u, occ, terrain, trap, nbr, op, x, rc, pc, pk)
    here = U[u, U_CELL]
    ok = np.zeros(nc, np.bool_)
    for c in range(nc):
        ok[c] = rc[c] < BIG and (c == here or can_end(U, u, c, occ, terrain))
    ens = np.empty(G[GS_NU], np.int64)
    ne = enemies_of(U, u, G, ens)
    dest = here
    focus = np.int64(-1)
    has_p = nxt >= 0
    prow = actions[max(nxt, 0)]
    if has_p and ne > 0 and (prow[A_OP] == OP_MATTACK or prow[A_OP] == OP_RATTACK
                                        or prow[A_OP] == OP_PUSH or prow[A_OP] == OP_PULL):
        rmin = prow[A_RMIN]
        rmax = prow[A_RMAX]
        cap = prow[A_TGT]
        # multi-target: the most targets, then the fewest points
        bestn = 0
        if cap > 1:
            bc = BIG
            for c in range(nc):
                if not ok[c]:
                    continue
                cnt = 0
                for i in range(ne):
                    if can_hit(U, dist, los, c, ens[i], rmin, rmax):
                        cnt += 1
                cnt = min(cnt, cap)
                if cnt > bestn or (cnt == bestn and rc[c] < bc):
                    bestn = cnt
                    bc = rc[c]
                    dest = c
        if bestn <= 1:
            # single-target logic: the closest enemy it can attack from some space
            cands = np.empty(ne, np.int64)
            ncand = np.int64(0)
            for i in range(ne):
                for c in range(nc):
                    if ok[c] and can_hit(U, dist, los, c, ens[i], rmin, rmax):
                        cands[ncand] = ens[i]
                        ncand += 1
                        break
            if ncand > 0:
                focus = ai_focus(U, dist, los, aff, damage_die, u, cands, ncand, prow[A_X],
                                 prow[A_IGN], rules, rc, nbr, G, gi, ev)
                bc = BIG
                for c in range(nc):
                    if ok[c] and rc[c] < bc and can_hit(U, dist, los, c, focus, rmin, rmax):
                        bc = rc[c]
                        dest = c
            elif rules[R_UNREACH] == 0:
                # approach the closest enemy: the space nearest it, then the fewest points
                tgt = ai_focus(U, dist, los, aff, damage_die, u, ens, ne, prow[A_X],
                               prow[A_IGN], rules, rc, nbr, G, gi, ev)
                _ev(ev, G, EV_FOCUS, u, tgt, 0, WHY_APPROACH)
                bd = dist[here, U[tgt, U_CELL]]
                bc = 0
                for c in range(nc):
                    if ok[c]:
                        dd = dist[c, U[tgt, U_CELL]]
                        if dd < bd or (dd == bd and rc[c] < bc):
                            bd = dd
                            bc = rc[c]
                            dest = c
    elif has_p and prow[A_OP] == OP_HEAL:
        # Healing: reach the most damaged ally (or itself)
        als = np.empty(G[GS_NU], np.int64)
        na = allies_of(U, u, G, als)
        bdm = 0
        tgt = np.int64(-1)
        for i in range(na):
            dmg = U[als[i], U_MAXHP] - U[als[i], U_HP]
            if dmg > bdm:
                for c in range(nc):
                    if ok[c] and can_hit(U, dist, los, c, als[i], prow[A_RMIN], prow[A_RMAX]):
                        bdm = dmg
                        tgt = als[i]
                        break
        if tgt >= 0:
            bc = BIG
            for c in range(nc):
                if ok[c] and rc[c] < bc and can_hit(U, dist, los, c, tgt, prow[A_RMIN],
                                                    prow[A_RMAX]):
                    bc = rc[c]
                    dest = c
    elif ne > 0:
        # a move with no primary action after it: toward the closest enemy
        bd = BIG
        bc = 0
        tgt = ens[0]
        for i in range(ne):
            if dist[here, U[ens[i], U_CELL]] < dist[here, U[tgt, U_CELL]]:
                tgt = ens[i]
        for c in range(nc):
            if ok[c]:
                dd = dist[c, U[tgt, U_CELL]]
                if dd < bd or (dd == bd and rc[c] < bc):
                    bd = dd
                    bc = rc[c]
                    dest = c
    if dest != here:
        if op == OP_TELEPORT:
            teleport_to(U, occ, trap, terrain, u, dest, G, gi, si, ev, rules)
        else:
            path = np.empty(x + 1, np.int64)
            n = path_of(best, pc, pk, dest, path)
            move_to(U, occ, trap, terrain, u, path, n, op == OP_JUMP, G, gi, si, ev, rules)
    return focus


@njit(cache=True)
def ai_targets(U, dist, los, aff, damage_die, u, row, focus, rules, G, gi, ev, out):
    """The targets of an adversary's attack from where it stands: a multi-target attack
    takes as many as it may, closest first; a single-target one its focus if still in
    reach, else the single-target logic (Primary Action Logic). Returns how many."""
    ens = np.empty(G[GS_NU], np.int64)
    ne = enemies_of(U, u, G, ens)
    here = U[u, U_CELL]
    cands = np.empty(ne, np.int64)
    nc = np.int64(0)
    for i in range(ne):
        if can_hit(U, dist, los, here, ens[i], row[A_RMIN], row[A_RMAX]):
            cands[nc] = ens[i]
            nc += 1
    if nc == 0:
        return 0
    cap = row[A_TGT]
    if cap > 1 and nc > 1:
        # Multi-target attacks: maximise the targets; closest, then most HP, first
        order = np.empty(nc, np.int64)
        keys = np.empty(nc, np.int64)
        for i in range(nc):
            order[i] = cands[i]
            keys[i] = dist[here, U[cands[i], U_CELL]] * 1000 - U[cands[i], U_HP]
        idx = stable_order(keys, nc)
        n = min(cap, nc)
        for i in range(n):
            out[i] = order[idx[i]]
        _ev(ev, G, EV_FOCUS, u, out[0], n, WHY_MOST)
        return n
    if focus >= 0 and U[focus, U_STATE] == ST_ACTIVE and can_hit(U, dist, los, here, focus,
                                                                 row[A_RMIN], row[A_RMAX]):
        out[0] = focus
        return 1
    rc = np.full(dist.shape[0], BIG, np.int64)
    out[0] = ai_focus(U, dist, los, aff, damage_die, u, cands, nc, row[A_X], row[A_IGN],
                      rules, rc, np.full((dist.shape[0], 6), -1, np.int64), G, gi, ev)
    return 1


@njit(cache=True)
def ai_heal_targets(U, dist, los, u, row, G, ev, out):
    """Healing: self or the ally with the most damage within range (itself when none is
    damaged); Multi-target Healing: the most damaged targets, then the closest allies at
    full HP (Primary Action Logic). Returns how many."""
    als = np.empty(G[GS_NU], np.int64)
    na = allies_of(U, u, G, als)
    here = U[u, U_CELL]
    cands = np.empty(na, np.int64)
    keys = np.empty(na, np.int64)
    nc = 0
    for i in range(na):
        v = als[i]
        if can_hit(U, dist, los, here, v, row[A_RMIN], row[A_RMAX]):
            cands[nc] = v
            dmg = U[v, U_MAXHP] - U[v, U_HP]
            # most damage first; at full HP the closest first
            keys[nc] = -dmg * 1000 + (dist[here, U[v, U_CELL]] if dmg == 0 else 0)
            nc += 1
    if nc == 0:
        out[0] = u
        _ev(ev, G, EV_FOCUS, u, u, 0, WHY_HEAL_SELF)
        return 1
    idx = stable_order(keys, nc)
    cap = row[A_TGT]
    n = min(cap, nc)
    if cap == 1:
        v = cands[idx[0]]
        if U[v, U_MAXHP] == U[v, U_HP]:
            v = u                              # none damaged: it heals itself
        out[0] = v
        _ev(ev, G, EV_FOCUS, u, v, 0, WHY_HEAL_MOST if v != u else WHY_HEAL_SELF)
        return 1
    for i in range(n):
        out[i] = cands[idx[i]]
    _ev(ev, G, EV_FOCUS, u, out[0], n, WHY_HEAL_MOST)
    return n


@njit(cache=True)
def heal(U, v, x, src, G, si, ev):
    """RO-X2 Heal / Recover: up to max HP; never a downed Rover."""
    if U[v, U_STATE] != ST_ACTIVE:
        return 0
    h = min(x, U[v, U_MAXHP] - U[v, U_HP])
    U[v, U_HP] += h
    if src >= 0 and U[src, U_FACTION] == ROVER:
        si[src, S_HEALS] += h
    _ev(ev, G, EV_HEAL, src, v, h, 0)
    return h


@njit(cache=True)
def react(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, actions, blocks, faces, v,
          a, key, ctr, bkey, G, gi, si, ev, rules):
    """The reaction window (RO-R5 Reactions; Skill Cards): Rover ``v``, targeted by
    adversary ``a``'s attack, may play the face up of one of its reaction cards while it
    has a reaction token, before the attack's damage die (the one window the engine opens;
    AMB-R34). The face's actions: Defense and heals on ``v`` itself, an attack on ``a``
    (in range and line of sight). The token is spent and the card flips (Flip). Its bot
    reacts with the first card that can act (the random bot: on a coin)."""
    if U[v, U_FACTION] != ROVER or U[v, U_STATE] != ST_ACTIVE or U[v, U_RTOK] <= 0:
        return
    col = -1
    for k in range(2):
        f = U[v, U_REACT0 + k]
        if f < 0 or col >= 0:
            continue
        b = faces[f, F_BLOCK]
        for i in range(blocks[b, 0], blocks[b, 1]):
            op = actions[i, A_OP]
            if (op != OP_MATTACK and op != OP_RATTACK) or \
                    can_hit(U, dist, los, U[v, U_CELL], a, actions[i, A_RMIN], actions[i, A_RMAX]):
                col = U_REACT0 + k
    if col < 0:
        return
    if U[v, U_RCOIN] != 0 and _coin(bkey, ctr, np.int64(2)) == 0:
        return
    f = U[v, col]
    U[v, U_RTOK] -= 1
    U[v, col] = faces[f, F_OTHER]
    si[v, S_REACTS] += 1
    gi[G_REACTS] += 1
    _ev(ev, G, EV_REACT, v, f, a, 0)
    b = faces[f, F_BLOCK]
    for i in range(blocks[b, 0], blocks[b, 1]):
        if G[GS_OVER] != 0 or U[v, U_STATE] != ST_ACTIVE:
            return
        row = actions[i]
        op = row[A_OP]
        if op == OP_DEFENSE:
            U[v, U_DEFTOK] += row[A_X]
            _ev(ev, G, EV_DEFENSE, v, v, row[A_X], 0)
        elif op == OP_HEAL or op == OP_RECOVER:
            heal(U, v, row[A_X], v, G, si, ev)
        elif U[a, U_STATE] == ST_ACTIVE and can_hit(U, dist, los, U[v, U_CELL], a,
                                                    row[A_RMIN], row[A_RMAX]):
            attack_one(U, occ, trap, terrain, nbr, dist, aff, damage_die, v, a, row[A_X],
                       row[A_IGN] != 0, row[A_PUSH], row[A_PULL], key, ctr, bkey, G, gi, si,
                       ev, rules, np.bool_(U[v, U_RCOIN] != 0))


@njit(cache=True)
def adversary_block(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, actions, blocks,
                    faces, b, u, rules, key, ctr, bkey, G, gi, si, ev):
    """One adversary performs ability block ``b`` (Adversary Phase; Primary Action Logic):
    its actions top to bottom; a movement serves the primary action after it. A Rover it
    attacks may react first (:func:`react`); an attacker slain by the reaction does not
    attack."""
    s = blocks[b, 0]
    e = blocks[b, 1]
    focus = np.int64(-1)
    prev = True
    tg = np.empty(MAX_UNITS, np.int64)
    for i in range(s, e):
        if G[GS_OVER] != 0 or U[u, U_STATE] != ST_ACTIVE:
            return
        row = actions[i]
        if row[A_FLOW] != 0 and not prev:
            continue
        op = row[A_OP]
        prev = False
        if op == OP_DASH or op == OP_JUMP or op == OP_TELEPORT:
            nxt = -1
            for j in range(i + 1, e):
                o2 = actions[j, A_OP]
                if (o2 == OP_MATTACK or o2 == OP_RATTACK or o2 == OP_HEAL or o2 == OP_PUSH
                        or o2 == OP_PULL):
                    nxt = j
                    break
            before = U[u, U_CELL]
            focus = ai_move(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, u, row,
                            actions, nxt, rules, G, gi, si, ev, key, ctr)
            prev = U[u, U_CELL] != before
        elif op == OP_MATTACK or op == OP_RATTACK or op == OP_PUSH or op == OP_PULL:
            n = ai_targets(U, dist, los, aff, damage_die, u, row, focus, rules, G, gi, ev, tg)
            fb = 0
            if n > 0 and op != OP_PUSH and op != OP_PULL:
                fb = take_aura(U, trap, u, G, gi, ev)
            for k in range(n):
                if G[GS_OVER] != 0:
                    return
                if op == OP_PUSH or op == OP_PULL:
                    forced(U, occ, trap, terrain, nbr, dist, u, tg[k], row[A_X], op == OP_PULL,
                           bkey, ctr, G, gi, si, ev, rules, np.bool_(False))
                else:
                    react(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, actions,
                          blocks, faces, tg[k], u, key, ctr, bkey, G, gi, si, ev, rules)
                    if G[GS_OVER] != 0 or U[u, U_STATE] != ST_ACTIVE:
                        return
                    xb = fb if k == 0 or rules[R_FSCOPE] == 0 else 0
                    attack_one(U, occ, trap, terrain, nbr, dist, aff, damage_die, u, tg[k],
                               row[A_X] + xb, row[A_IGN] != 0, row[A_PUSH], row[A_PULL], key,
                               ctr, bkey, G, gi, si, ev, rules, np.bool_(False))
                if row[A_FIELD] != 0 and U[tg[k], U_STATE] != ST_GONE:
                    place_field(U, trap, U[tg[k], U_CELL], row[A_FIELD], u, rules, G, gi, ev)
            prev = n > 0
        elif op == OP_HEAL or op == OP_RECOVER:
            n = ai_heal_targets(U, dist, los, u, row, G, ev, tg)
            for k in range(n):
                heal(U, tg[k], row[A_X], u, G, si, ev)
                if row[A_DEF] > 0:
                    U[tg[k], U_DEFTOK] += row[A_DEF]
                if row[A_FIELD] != 0:
                    place_field(U, trap, U[tg[k], U_CELL], row[A_FIELD], u, rules, G, gi, ev)
            prev = n > 0
        elif op == OP_DEFENSE:
            U[u, U_DEFTOK] += row[A_X]
            _ev(ev, G, EV_DEFENSE, u, u, row[A_X], 0)
            prev = True
        elif op == OP_SUFFER:
            hurt(U, occ, u, row[A_X], np.int64(-1), G, gi, si, ev, rules)
            prev = True
        elif op == OP_RETREAT:
            ai_retreat(U, occ, trap, terrain, nbr, dist, u, row, rules, G, gi, si, ev)
            prev = True


@njit(cache=True)
def ai_retreat(U, occ, trap, terrain, nbr, dist, u, row, rules, G, gi, si, ev):
    """Retreat (Special Logic): move to maximise the distance from the greatest number of
    enemies; read as the largest distance to the nearest enemy (AMB-R25), then the fewest
    points."""
    nc = terrain.shape[0]
    x = row[A_X]
    rc = np.empty(nc, np.int64)
    pc = np.empty((x + 1, nc), np.int64)
    pk = np.empty((x + 1, nc), np.int64)
    best = reach(U, u, occ, terrain, trap, nbr, np.int64(OP_DASH), x, rc, pc, pk)
    ens = np.empty(G[GS_NU], np.int64)
    ne = enemies_of(U, u, G, ens)
    if ne == 0:
        return
    here = U[u, U_CELL]
    dest = here
    bv = -1
    bc = 0
    for c in range(nc):
        if rc[c] >= BIG or not (c == here or can_end(U, u, c, occ, terrain)):
            continue
        m = BIG
        for i in range(ne):
            m = min(m, dist[c, U[ens[i], U_CELL]])
        if m > bv or (m == bv and rc[c] < bc):
            bv = m
            bc = rc[c]
            dest = c
    if dest != here:
        path = np.empty(x + 1, np.int64)
        n = path_of(best, pc, pk, dest, path)
        move_to(U, occ, trap, terrain, u, path, n, np.bool_(False), G, gi, si, ev, rules)


# ---- the Rovers' bots --------------------------------------------------------------------------

@njit(cache=True)
def rover_targets(U, dist, los, u, row, rmax_bonus, tgt_bonus, kn, bkey, ctr, G, out):
    """The Rover bot's targets for an attack or push from where it stands: the random bot
    any legal set; otherwise the weakest first (``focus_weakest``) or the closest first.
    A target is never taken twice (Target)."""
    ens = np.empty(G[GS_NU], np.int64)
    ne = enemies_of(U, u, G, ens)
    here = U[u, U_CELL]
    cands = np.empty(ne, np.int64)
    keys = np.empty(ne, np.int64)
    nc = 0
    for i in range(ne):
        if can_hit(U, dist, los, here, ens[i], row[A_RMIN], row[A_RMAX] + rmax_bonus):
            cands[nc] = ens[i]
            if kn[K_RANDOM] > 0.5:
                keys[nc] = _coin(bkey, ctr, np.int64(1 << 20))
            elif kn[K_WEAKEST] > 0.5:
                keys[nc] = U[ens[i], U_HP] * 100 + dist[here, U[ens[i], U_CELL]]
            else:
                keys[nc] = dist[here, U[ens[i], U_CELL]] * 100 + U[ens[i], U_HP]
            nc += 1
    if nc == 0:
        return 0
    idx = stable_order(keys, nc)
    n = min(row[A_TGT] + tgt_bonus, nc)
    for i in range(n):
        out[i] = cands[idx[i]]
    return n


@njit(cache=True)
def goal_score(U, dist, los, u, cell, rmin, rmax, G):
    """How many enemies an attack of range rmin-rmax would reach from ``cell``."""
    n = 0
    for v in range(G[GS_NU]):
        if U[v, U_STATE] == ST_ACTIVE and U[v, U_FACTION] != U[u, U_FACTION]:
            if can_hit(U, dist, los, cell, v, rmin, rmax):
                n += 1
    return n


@njit(cache=True)
def rover_move(U, occ, trap, terrain, nbr, dist, los, u, row, want_min, want_max, kn, bkey,
               ctr, G, gi, si, ev, rules, exits, to_exit):
    """A Rover's dash, jump or teleport (RO-M1..M3), the bot's choice: the random bot a
    random legal space; the others the cheapest space from which an attack of range
    ``want_min``-``want_max`` reaches an enemy (``caution`` > 0: the one with the fewest
    enemies adjacent), else the space nearest the closest enemy; ``to_exit`` (a runner on
    a reach-exit encounter): the space nearest a free exit, then the fewest points.
    Returns 1 if it moved."""
    nc = terrain.shape[0]
    op = row[A_OP]
    x = row[A_X]
    rc = np.empty(nc, np.int64)
    pc = np.empty((x + 1, nc), np.int64)
    pk = np.empty((x + 1, nc), np.int64)
    here = U[u, U_CELL]
    if op == OP_TELEPORT:
        best = np.zeros((1, nc), np.int64)
        for c in range(nc):
            rc[c] = dist[here, c] if dist[here, c] <= x else BIG
    else:
        best = reach(U, u, occ, terrain, trap, nbr, op, x, rc, pc, pk)
    cand = np.empty(nc, np.int64)
    ncand = np.int64(0)
    for c in range(nc):
        if c != here and rc[c] < BIG and can_end(U, u, c, occ, terrain):
            cand[ncand] = c
            ncand += 1
    if ncand == 0:
        return 0
    dest = -1
    if kn[K_RANDOM] > 0.5:
        dest = cand[_coin(bkey, ctr, ncand)]
    elif to_exit:
        for e in exits:
            if here == e:
                return 0                   # already out: stay
        bd = BIG
        bc = BIG
        for i in range(ncand):
            c = cand[i]
            m = BIG
            for e in exits:
                if occ[e] < 0 or occ[e] == u:
                    m = min(m, dist[c, e])
            if m < bd or (m == bd and rc[c] < bc):
                bd = m
                bc = rc[c]
                dest = c
        if dest < 0:
            return 0
    else:
        if goal_score(U, dist, los, u, here, want_min, want_max, G) > 0 and kn[K_CAUTION] <= 0:
            return 0                      # already in reach: stay
        bv = -BIG
        for i in range(ncand):
            c = cand[i]
            g = goal_score(U, dist, los, u, c, want_min, want_max, G)
            adj = 0
            near = BIG
            for v in range(G[GS_NU]):
                if U[v, U_STATE] == ST_ACTIVE and U[v, U_FACTION] != ROVER:
                    dd = dist[c, U[v, U_CELL]]
                    if dd <= 1:
                        adj += 1
                    near = min(near, dd)
            score = (100000 if g > 0 else 0) - rc[c] * 10 - near * 100 \
                - int(kn[K_CAUTION] * 1000) * adj
            if g > 0:
                score += 100
            if score > bv:
                bv = score
                dest = c
        here_score = -BIG
        if goal_score(U, dist, los, u, here, want_min, want_max, G) > 0:
            adj = 0
            for v in range(G[GS_NU]):
                if U[v, U_STATE] == ST_ACTIVE and U[v, U_FACTION] != ROVER:
                    if dist[here, U[v, U_CELL]] <= 1:
                        adj += 1
            here_score = 100100 - int(kn[K_CAUTION] * 1000) * adj
        if here_score >= bv:
            return 0
    if op == OP_TELEPORT:
        teleport_to(U, occ, trap, terrain, u, dest, G, gi, si, ev, rules)
    else:
        path = np.empty(x + 1, np.int64)
        n = path_of(best, pc, pk, dest, path)
        move_to(U, occ, trap, terrain, u, path, n, op == OP_JUMP, G, gi, si, ev, rules)
    return 1


@njit(cache=True)
def gen_ether(pers, s, row, key, ctr, ether_die, G, gi, si, ev):
    """RO-X6 Generate: X wild dice rolled from the general pool (never runs out), or the
    printed face, into the personal pool."""
    n = max(row[A_X], 1)
    for _ in range(n):
        e = row[A_ELEM] if row[A_ELEM] >= 0 else ether_die[_dice(key, ctr, ether_die.shape[0])]
        pers[s, e] += 1
        _ev(ev, G, EV_GENERATE, s, e, 0, 0)
    gi[G_ETHER] += n
    si[s, S_ETHER] += n


@njit(cache=True)
def rover_block(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, ether_die, actions,
                blocks, items, cls_item, itm, inf, pers, b, u, aug, aim_min, aim_max, rules, kn,
                key, ctr, bkey, G, gi, si, ev, exits):
    """A Rover performs block ``b`` (an ability, a card face or an item's actions), top to
    bottom; an action-flow action needs the one before it performed (Skill Cards, Action
    Flow). ``aug`` int64[MAX_ACTIONS, 7]: each action's augment bonuses met (damage, push,
    pull, target, range, ignore defence, x). Equipment bonuses (the Stripped weapons) are
    added to an attack of their type when the infusion pool pays (Items)."""
    s = blocks[b, 0]
    e = blocks[b, 1]
    prev = True
    tg = np.empty(MAX_UNITS, np.int64)
    kind = U[u, U_KIND]
    for i in range(s, e):
        if G[GS_OVER] != 0 or U[u, U_STATE] != ST_ACTIVE:
            return
        row = actions[i].copy()
        j = i - s
        row[A_X] += aug[j, B_DAMAGE] + aug[j, B_X]
        row[A_PUSH] += aug[j, B_PUSH]
        row[A_PULL] += aug[j, B_PULL]
        row[A_TGT] += aug[j, B_TARGET]
        row[A_RMAX] += aug[j, B_RANGE]
        if aug[j, B_IGNORE] > 0:
            row[A_IGN] = 1
        if row[A_FLOW] != 0 and not prev:
            continue
        op = row[A_OP]
        prev = False
        if op == OP_DASH or op == OP_JUMP or op == OP_TELEPORT:
            # aim for the next attack of this block, else any ability's reach
            wmin, wmax = aim_min, aim_max
            follows = False
            for k2 in range(i + 1, e):
                o2 = actions[k2, A_OP]
                if o2 == OP_MATTACK or o2 == OP_RATTACK or o2 == OP_PUSH or o2 == OP_PULL:
                    wmin = actions[k2, A_RMIN]
                    wmax = actions[k2, A_RMAX]
                    follows = True
                    break
            to_exit = (not follows and kn[K_RUNNER] > 0.5
                       and rules[R_OBJECTIVE] == OBJ_EXIT)
            prev = rover_move(U, occ, trap, terrain, nbr, dist, los, u, row, wmin, wmax, kn,
                              bkey, ctr, G, gi, si, ev, rules, exits, to_exit) == 1
        elif op == OP_MATTACK or op == OP_RATTACK or op == OP_PUSH or op == OP_PULL:
            # an equipment bonus for this attack (once a round; infusion cost)
            tb = 0
            rb = 0
            db = 0
            if op == OP_MATTACK or op == OP_RATTACK:
                for k in range(MAX_ITEMS):
                    it = cls_item[kind, k]
                    if it < 0 or itm[u, k] != 0 or items[it, IT_BONUS] < 0:
                        continue
                    at = items[it, IT_ATTACK]
                    if at != 0 and at != (1 if op == OP_MATTACK else 2):
                        continue
                    cost = items[it, IT_COST]
                    have = 0
                    for el in range(7):
                        have += inf[u, el]
                    if have < cost:
                        continue
                    if kn[K_RANDOM] > 0.5 and _coin(bkey, ctr, np.int64(2)) == 0:
                        continue
                    paid = 0
                    for el in range(7):          # Dim first, then elements in order
                        el2 = (el + 6) % 7
                        while paid < cost and inf[u, el2] > 0:
                            inf[u, el2] -= 1
                            paid += 1
                    si[u, S_SPENT] += cost
                    itm[u, k] = 1 if items[it, IT_CONS] == 0 else 2
                    si[u, S_ITEMS] += 1
                    gi[G_ITEMS] += 1
                    if items[it, IT_BONUS] == IB_TARGET:
                        tb += items[it, IT_VALUE]
                    elif items[it, IT_BONUS] == IB_RANGE:
                        rb += items[it, IT_VALUE]
                    elif items[it, IT_BONUS] == IB_DAMAGE:
                        db += items[it, IT_VALUE]
                    _ev(ev, G, EV_ITEM, u, it, items[it, IT_BONUS], items[it, IT_VALUE])
                    break
            n = rover_targets(U, dist, los, u, row, rb, tb, kn, bkey, ctr, G, tg)
            fb = 0
            if n > 0 and op != OP_PUSH and op != OP_PULL:
                fb = take_aura(U, trap, u, G, gi, ev)
            for k in range(n):
                if G[GS_OVER] != 0:
                    return
                if op == OP_PUSH or op == OP_PULL:
                    forced(U, occ, trap, terrain, nbr, dist, u, tg[k], row[A_X], op == OP_PULL,
                           bkey, ctr, G, gi, si, ev, rules, kn[K_RANDOM] > 0.5)
                else:
                    # AMB-R30 fields.scope: the Aura on each target, or the first only
                    xb = fb if k == 0 or rules[R_FSCOPE] == 0 else 0
                    attack_one(U, occ, trap, terrain, nbr, dist, aff, damage_die, u, tg[k],
                               row[A_X] + db + xb, row[A_IGN] != 0, row[A_PUSH], row[A_PULL],
                               key, ctr, bkey, G, gi, si, ev, rules, kn[K_RANDOM] > 0.5)
                if row[A_FIELD] != 0 and U[tg[k], U_STATE] != ST_GONE:
                    place_field(U, trap, U[tg[k], U_CELL], row[A_FIELD], u, rules, G, gi, ev)
            prev = n > 0
        elif op == OP_HEAL or op == OP_RECOVER or op == OP_DEFENSE:
            # the most damaged ally in range (itself included); Defense: itself
            best = u
            bd = -1
            if op != OP_DEFENSE:
                for v in range(G[GS_R]):
                    if U[v, U_STATE] == ST_ACTIVE and can_hit(U, dist, los, U[u, U_CELL], v,
                                                               row[A_RMIN], row[A_RMAX]):
                        dm = U[v, U_MAXHP] - U[v, U_HP]
                        if dm > bd:
                            bd = dm
                            best = v
            if op == OP_DEFENSE:
                U[best, U_DEFTOK] += row[A_X]
                _ev(ev, G, EV_DEFENSE, u, best, row[A_X], 0)
            else:
                heal(U, best, row[A_X], u, G, si, ev)
                if row[A_DEF] > 0:
                    U[best, U_DEFTOK] += row[A_DEF]
            if row[A_FIELD] != 0:
                place_field(U, trap, U[best, U_CELL], row[A_FIELD], u, rules, G, gi, ev)
            prev = True
        elif op == OP_GENERATE:
            gen_ether(pers, u, row, key, ctr, ether_die, G, gi, si, ev)
            prev = True
        elif op == OP_REVIVE:
            for v in range(G[GS_R]):
                if U[v, U_STATE] == ST_DOWNED and dist[U[u, U_CELL], U[v, U_CELL]] >= row[A_RMIN] \
                        and dist[U[u, U_CELL], U[v, U_CELL]] <= row[A_RMAX]:
                    U[v, U_STATE] = ST_ACTIVE            # RO-X4 Revive
                    U[v, U_HP] = min(row[A_X], U[v, U_MAXHP])
                    si[v, S_REVIVED] += 1
                    gi[G_REVIVES] += 1
                    _ev(ev, G, EV_REVIVE, u, v, U[v, U_HP], 0)
                    prev = True
                    break
        elif op == OP_SUFFER:
            hurt(U, occ, u, row[A_X], np.int64(-1), G, gi, si, ev, rules)
            prev = True


@njit(cache=True)
def first_reach(actions, blocks, b):
    """(rmin, rmax, op) of a block's first attack or push; (-1, -1, -1) when none."""
    for i in range(blocks[b, 0], blocks[b, 1]):
        o = actions[i, A_OP]
        if o == OP_MATTACK or o == OP_RATTACK or o == OP_PUSH or o == OP_PULL:
            return actions[i, A_RMIN], actions[i, A_RMAX], o
    return -1, -1, -1


@njit(cache=True)
def aim(actions, blocks, cls_ab, kind, used):
    """The range a Rover's pure move aims for: its unused attack ability of the longest
    reach (1-1 when none is left)."""
    amin, amax = 1, 1
    for a in range(4):
        if used[a] == 0:
            rmin, rmax, o = first_reach(actions, blocks, cls_ab[kind, a])
            if o >= 0 and rmax > amax:
                amin, amax = rmin, rmax
    return amin, amax


@njit(cache=True)
def block_kind(actions, blocks, b):
    """0: attacks first; 1: moves, then attacks; 2: moves only; 3: heal/defence/other."""
    s = blocks[b, 0]
    o = actions[s, A_OP]
    if o == OP_MATTACK or o == OP_RATTACK or o == OP_PUSH or o == OP_PULL:
        return 0
    if o == OP_DASH or o == OP_JUMP or o == OP_TELEPORT:
        rmin, rmax, o2 = first_reach(actions, blocks, b)
        return 1 if o2 >= 0 else 2
    return 3


@njit(cache=True)
def drain_die(pers, inf, s, need, rules, G, gi, si, ev):
    """Drain (Skill Cards): a die of element ``need`` leaves Rover ``s``'s personal pool for
    the general pool, and a Dim die joins the personal pool if the general pool has one
    left (``dim_supply`` less the Dim dice in every Rover's two pools); with none left the
    element is still drained. Returns whether a die of ``need`` was there to drain."""
    if pers[s, need] <= 0:
        return False
    pers[s, need] -= 1
    held = 0
    for r in range(pers.shape[0]):
        held += pers[r, DIM] + inf[r, DIM]
    got = 0
    if held < rules[R_DIM]:
        pers[s, DIM] += 1
        got = 1
    gi[G_DRAINS] += 1
    si[s, S_DRAINS] += 1
    _ev(ev, G, EV_DRAIN, s, need, got, 0)
    return True


@njit(cache=True)
def meet_drains(pers, inf, s, faces, f, kn, bkey, ctr, aug, rules, G, gi, si, ev):
    """The face's Drain augments (Skill Cards, Drain), each by draining its own die."""
    for k in range(faces[f, F_NAUG]):
        c0 = F_AUG0 + AUG_N * k
        if faces[f, c0 + 4] == 0:
            continue
        take = pers[s, faces[f, c0]] > 0
        if take and kn[K_RANDOM] > 0.5:
            take = _coin(bkey, ctr, np.int64(2)) == 1
        if take and drain_die(pers, inf, s, faces[f, c0], rules, G, gi, si, ev):
            bonus = faces[f, c0 + 2]
            aug[faces[f, c0 + 1], bonus] += faces[f, c0 + 3] if bonus != B_IGNORE else 1
            gi[G_AUGMET] += 1
            si[s, S_AUGMET] += 1
        else:
            gi[G_AUGMISS] += 1


@njit(cache=True)
def pay_face(pers, inf, s, faces, f, kn, bkey, ctr, aug, rules, G, gi, si, ev):
    """Play face ``f``'s costs and augments (rulebook "Skill Cards"). A rave's cost comes
    from the personal pool (Ether Cost: ether or Dim dice; errata O1), the spent dice
    infused (Infusing and Infused Ether); each ether-check augment is met by its own die
    among those spent (Ether Check); each Drain augment by draining its own die (Drain:
    of the dice left after the cost, or before it with ``ether.drain_first``, AMB-R33).
    The bot spends a die of each ether check's element first, then Dim, then the others.
    A rally pays nothing and may drain. Fills ``aug`` (int64[MAX_ACTIONS, 7])."""
    cost = faces[f, F_COST] if faces[f, F_TYPE] == FACE_RAVE else 0
    aug[:, :] = 0
    if rules[R_DRAIN_FIRST] != 0:
        meet_drains(pers, inf, s, faces, f, kn, bkey, ctr, aug, rules, G, gi, si, ev)
    paid = 0
    for k in range(faces[f, F_NAUG]):
        c0 = F_AUG0 + AUG_N * k
        if faces[f, c0 + 4] != 0:
            continue
        need = faces[f, c0]
        act = faces[f, c0 + 1]
        bonus = faces[f, c0 + 2]
        val = faces[f, c0 + 3]
        take = paid < cost and pers[s, need] > 0
        if take and kn[K_RANDOM] > 0.5:
            take = _coin(bkey, ctr, np.int64(2)) == 1      # the random bot picks its dice at random
        if take:
            pers[s, need] -= 1
            inf[s, need] += 1
            paid += 1
            aug[act, bonus] += val if bonus != B_IGNORE else 1
            gi[G_AUGMET] += 1
            si[s, S_AUGMET] += 1
        else:
            gi[G_AUGMISS] += 1
    for el in (6, 0, 1, 2, 3, 4, 5):
        while paid < cost and pers[s, el] > 0:
            pers[s, el] -= 1
            inf[s, el] += 1
            paid += 1
    si[s, S_SPENT] += paid
    if rules[R_DRAIN_FIRST] == 0:
        meet_drains(pers, inf, s, faces, f, kn, bkey, ctr, aug, rules, G, gi, si, ev)


@njit(cache=True)
def rover_turn(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, ether_die, actions,
               blocks, faces, cls, cls_ab, cls_card, items, cls_item, itm, inf, pers, up,
               s, rules, kn, key, ctr, bkey, G, gi, si, ev, exits):
    """Rover ``s``'s turn (Rover Phase, RO-R6): Defense tokens go (Defense); up to
    ``turn.abilities`` of its 4 abilities, each once, and up to ``turn.skill_cards`` skill
    card, in the order its bot chooses; a played card flips (Flip); then the dangerous
    same-space check (Map Spaces, Dangerous) and the ether limit (Rover Phase)."""
    U[s, U_DEFTOK] = 0
    U[s, U_TURNCELL] = U[s, U_CELL]
    si[s, S_TURNS] += 1
    _ev(ev, G, EV_TURN, s, 0, 0, 0)
    turn_fields(U, occ, trap, s, np.bool_(True), rules, G, gi, si, ev)
    kind = U[s, U_KIND]
    used = np.zeros(4, np.int64)
    n_ab = 0
    n_card = 0
    aug = np.zeros((8, 7), np.int64)
    noaug = np.zeros((8, 7), np.int64)
    # revive first: a downed ally in reach of a consumable's revive (Revive)
    if kn[K_REVIVE] > 0.5 or kn[K_RANDOM] > 0.5:
        for k in range(MAX_ITEMS):
            it = cls_item[kind, k]
            if it < 0 or itm[s, k] != 0 or items[it, IT_BLOCK] < 0:
                continue
            b = items[it, IT_BLOCK]
            if actions[blocks[b, 0], A_OP] != OP_REVIVE:
                continue
            row = actions[blocks[b, 0]]
            for v in range(G[GS_R]):
                if U[v, U_STATE] == ST_DOWNED:
                    dd = dist[U[s, U_CELL], U[v, U_CELL]]
                    if dd >= row[A_RMIN] and dd <= row[A_RMAX]:
                        itm[s, k] = 2 if items[it, IT_CONS] != 0 else 1
                        si[s, S_ITEMS] += 1
                        si[s, S_DRAKAEN] += 1
                        gi[G_ITEMS] += 1
                        _ev(ev, G, EV_ITEM, s, it, -1, 0)
                        rover_block(U, occ, trap, terrain, nbr, dist, los, aff, damage_die,
                                    ether_die, actions, blocks, items, cls_item, itm, inf, pers,
                                    b, s, noaug, np.int64(1), np.int64(1), rules, kn, key, ctr, bkey, G, gi, si,
                                    ev, exits)
                        break
            break
    for step in range(8):
        if G[GS_OVER] != 0 or U[s, U_STATE] != ST_ACTIVE:
            break
        # the options: each unused ability, each face-up card it can pay
        best_kind = -1        # 0 ability, 1 card
        best_i = -1
        best_v = 0.0
        nopt = np.int64(0)
        opt_k = np.empty(16, np.int64)
        opt_i = np.empty(16, np.int64)
        if n_ab < rules[R_ABIL]:
            for a in range(4):
                if used[a] == 0:
                    opt_k[nopt] = 0
                    opt_i[nopt] = a
                    nopt += 1
        if n_card < rules[R_CARDS]:
            for c in range(cls[kind, CL_NCARDS]):
                f = up[s, c]
                cost_ok = True
                if faces[f, F_TYPE] == FACE_RAVE:
                    have = 0
                    for el in range(7):
                        have += pers[s, el]
                    cost_ok = have >= faces[f, F_COST]
                if faces[f, F_ABCOST] != 0 and n_ab >= rules[R_ABIL]:
                    cost_ok = False
                if cost_ok:
                    opt_k[nopt] = 1
                    opt_i[nopt] = c
                    nopt += 1
        if nopt == 0:
            break
        if kn[K_RANDOM] > 0.5:
            # the random bot: any option, or ends its turn (one chance in nopt + 1)
            pick = _coin(bkey, ctr, nopt + 1)
            if pick == nopt:
                break
            best_kind = opt_k[pick]
            best_i = opt_i[pick]
        else:
            for o in range(nopt):
                b = cls_ab[kind, opt_i[o]] if opt_k[o] == 0 else faces[up[s, opt_i[o]], F_BLOCK]
                bk = block_kind(actions, blocks, b)
                v = 0.0
                if bk == 0:
                    rmin, rmax, o2 = first_reach(actions, blocks, b)
                    if goal_score(U, dist, los, s, U[s, U_CELL], rmin, rmax, G) > 0:
                        v = 10.0 + actions[blocks[b, 0], A_X]
                elif bk == 1:
                    v = 8.0
                elif bk == 2:
                    # move only when no remaining attack reaches anyone from here
                    reach_now = False
                    for a in range(4):
                        if used[a] == 0:
                            b2 = cls_ab[kind, a]
                            rmin, rmax, o2 = first_reach(actions, blocks, b2)
                            if o2 >= 0 and goal_score(U, dist, los, s, U[s, U_CELL], rmin,
                                                      rmax, G) > 0:
                                reach_now = True
                    v = 1.0 if reach_now else 9.0
                    if kn[K_RUNNER] > 0.5 and rules[R_OBJECTIVE] == OBJ_EXIT:
                        out = False
                        for e2 in exits:
                            if U[s, U_CELL] == e2:
                                out = True
                        v = 0.0 if out else 12.0     # the runner heads for the exit
                else:
                    low = False
                    for r in range(G[GS_R]):
                        if U[r, U_STATE] == ST_ACTIVE and \
                                U[r, U_HP] < kn[K_HEAL_BELOW] * U[r, U_MAXHP]:
                            low = True
                    v = 5.0 if low else 0.5
                if opt_k[o] == 1:
                    f = up[s, opt_i[o]]
                    if faces[f, F_TYPE] == FACE_RAVE:
                        v += 3.0 if v >= 8.0 else -0.5
                    else:
                        # a rally is worth playing when nothing else is; more if its attack
                        # reaches someone or its Drain augment can be met
                        v = max(v, 0.6)
                        rmin, rmax, o2 = first_reach(actions, blocks, b)
                        if o2 >= 0 and goal_score(U, dist, los, s, U[s, U_CELL], rmin, rmax,
                                                  G) > 0:
                            v += 0.2
                        for k in range(faces[f, F_NAUG]):
                            if faces[f, F_AUG0 + AUG_N * k + 4] != 0 and \
                                    pers[s, faces[f, F_AUG0 + AUG_N * k]] > 0:
                                v += 0.1
                if v > best_v:
                    best_v = v
                    best_kind = opt_k[o]
                    best_i = opt_i[o]
            if best_kind < 0 or best_v < 0.55:
                break
        if best_kind == 0:
            used[best_i] = 1
            n_ab += 1
            si[s, S_ABIL] += 1
            b = cls_ab[kind, best_i]
            _ev(ev, G, EV_ABILITY, s, best_i, 0, 0)
            aim_min, aim_max = aim(actions, blocks, cls_ab, kind, used)
            rover_block(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, ether_die,
                        actions, blocks, items, cls_item, itm, inf, pers, b, s, noaug, aim_min,
                        aim_max, rules, kn, key, ctr, bkey, G, gi, si, ev, exits)
        else:
            c = best_i
            f = up[s, c]
            n_card += 1
            if faces[f, F_ABCOST] != 0:
                n_ab += 1
            pay_face(pers, inf, s, faces, f, kn, bkey, ctr, aug, rules, G, gi, si, ev)
            if faces[f, F_TYPE] == FACE_RAVE:
                si[s, S_RAVES] += 1
                gi[G_RAVES] += 1
            else:
                si[s, S_RALLIES] += 1
                gi[G_RALLIES] += 1
            _ev(ev, G, EV_CARD, s, f, faces[f, F_TYPE], 0)
            # Flip: the card shows its other face for later rounds
            up[s, c] = faces[f, F_OTHER]
            aim_min, aim_max = aim(actions, blocks, cls_ab, kind, used)
            rover_block(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, ether_die,
                        actions, blocks, items, cls_item, itm, inf, pers, faces[f, F_BLOCK], s,
                        aug, aim_min, aim_max, rules, kn, key, ctr, bkey, G, gi, si, ev, exits)
    turn_fields(U, occ, trap, s, np.bool_(False), rules, G, gi, si, ev)
    if U[s, U_STATE] == ST_ACTIVE and G[GS_OVER] == 0:
        c = U[s, U_CELL]
        if terrain[c] == T_DANGEROUS and c == U[s, U_TURNCELL] and U[s, U_FLY] == 0 \
                and U[s, U_IGN] == 0:
            gi[G_DANGER] += 1
            _ev(ev, G, EV_TERRAIN, s, c, 2, rules[R_DANGER])
            hurt(U, occ, s, rules[R_DANGER], np.int64(-1), G, gi, si, ev, rules)
    # ether limit: each pool checked apart; the bot discards Dim first (Rover Phase)
    lim = cls[kind, CL_LIMIT]
    for pool in range(2):
        tot = 0
        for el in range(7):
            tot += pers[s, el] if pool == 0 else inf[s, el]
        while tot > lim:
            for el in (6, 0, 1, 2, 3, 4, 5):
                cnt = pers[s, el] if pool == 0 else inf[s, el]
                if cnt > 0:
                    if pool == 0:
                        pers[s, el] -= 1
                    else:
                        inf[s, el] -= 1
                    break
            tot -= 1
            gi[G_WASTED] += 1
            si[s, S_WASTED] += 1
            _ev(ev, G, EV_WASTE, s, pool, 0, 0)


# ---- the game ------------------------------------------------------------------------------------

@njit(cache=True)
def play_game(seed, game, rules, terrain, nbr, dist, los, flags, traps, exits, actions, blocks,
              faces, cls, cls_ab, cls_card, cls_up, cls_item, items, aff, adv, adv_blk,
              adv_onadv, placed, ability_die, damage_die, ether_die, knobs, rover_opts,
              seat_class, class_pool, seat_bot, bot_pool, rotate, fmix, gi, si, sf, ev, trace):
    """Play game ``game`` of run ``seed``; write its row into ``gi`` (int64[len(GAME_INT)]),
    ``si`` (int64[MAX_R, len(SEAT_INT)]) and ``sf`` (float64[MAX_R, len(SEAT_FLT)]).

    The content arrays are :class:`deepsim.rulesets.rove.compile.Compiled`'s; ``knobs``
    float64[profiles, len(KNOBS)]; ``rover_opts`` the Rover counts drawn from;
    ``seat_class``/``seat_bot`` int64[MAX_R] (-1: drawn from ``class_pool`` without
    replacement / from ``bot_pool`` once for the party); ``fmix`` the faction_bots
    mixtures. With ``trace`` the events go to ``ev`` (int64[m, EV_COLS]); returns how many.
    """
    key = game_key(seed, game)
    bkey = mix64(key ^ _BOT_SALT)
    ctr = np.zeros(2, np.uint64)
    ctr[0] = DICE_CTR
    G = np.zeros(GS_N, np.int64)
    G[GS_TRACE] = 1 if trace else 0
    G[GS_SLOT] = -1
    R = rover_opts[below(key, np.uint64(0), rover_opts.shape[0])]     # The Value of R
    G[GS_R] = R
    cls_of = np.empty(R, np.int64)
    bots = np.empty(R, np.int64)
    pool_left = class_pool.copy()
    npool = pool_left.shape[0]
    party_bot = bot_pool[below(key, np.uint64(1), bot_pool.shape[0])]
    for s in range(R):
        spec = (s + game) % R if rotate else s
        c = seat_class[spec]
        if c < 0:
            # the party is drawn without replacement while the pool lasts
            if npool > 0:
                j = below(key, np.uint64(2 + s), npool)
                c = pool_left[j]
                pool_left[j] = pool_left[npool - 1]
                npool -= 1
            else:
                c = class_pool[below(key, np.uint64(10 + s), class_pool.shape[0])]
        b = seat_bot[spec]
        if b < 0:
            b = party_bot
        cls_of[s] = c
        bots[s] = faction_bot(fmix, c, b, key)
    nc = terrain.shape[0]
    U = np.zeros((MAX_UNITS, U_N), np.int64)
    U[:, U_STATE] = ST_GONE
    occ = np.full(nc, -1, np.int64)
    trap = traps.copy()                      # the tile on each space (traps, ether fields)
    pers = np.zeros((MAX_R, 7), np.int64)
    inf = np.zeros((MAX_R, 7), np.int64)
    up = np.zeros((MAX_R, CARD_COLS), np.int64)
    itm = np.zeros((MAX_R, MAX_ITEMS), np.int64)
    si[:, :] = 0
    sf[:, :] = 0.0
    gi[:] = 0
    ntypes = rules[R_NTYPES]
    # Setting Up the Game: Rovers on the start flags, HP to max (Hard: a share), starting
    # ether (+ Story boosts)
    for s in range(R):
        c = cls_of[s]
        U[s, U_FACTION] = ROVER
        U[s, U_KIND] = c
        U[s, U_CELL] = flags[s % flags.shape[0]]
        mhp = max(1, (cls[c, CL_HP] * rules[R_RHP] + 500) // 1000)
        U[s, U_MAXHP] = mhp
        U[s, U_HP] = max(1, (mhp * rules[R_START_HP] + 500) // 1000)
        U[s, U_STATE] = ST_ACTIVE
        U[s, U_AFF] = c
        U[s, U_AURA] = cls[c, CL_AURA]              # the class's Aura and Miasma values (RO-R1)
        U[s, U_MIASMA] = cls[c, CL_MIASMA]
        occ[U[s, U_CELL]] = s
        si[s, S_FIRSTDOWN] = -1
        for k in range(cls[c, CL_NCARDS]):
            up[s, k] = cls_card[c, k] + cls_up[c, k]
        # RO-R5: the reaction cards' faces up and the bot's reaction policy
        for k in range(2):
            first = cls_card[c, MAX_CARDS + k]
            U[s, U_REACT0 + k] = first + cls_up[c, MAX_CARDS + k] if first >= 0 else -1
        U[s, U_RCOIN] = 1 if knobs[bots[s], K_RANDOM] > 0.5 else 0
        nstart = cls[c, CL_START] + rules[R_STORY_P]
        for _ in range(nstart):
            pers[s, ether_die[_dice(key, ctr, ether_die.shape[0])]] += 1
        if rules[R_STORY_I] != 0:
            inf[s, ether_die[_dice(key, ctr, ether_die.shape[0])]] += 1
        si[s, S_ETHER] += nstart
        _ev(ev, G, EV_SETUP, s, c, bots[s], U[s, U_CELL])
    # adversaries by skull and meeples (Map Icons): minions at R >= meeples; bosses and
    # mini-bosses always
    nu = R
    for p in range(rules[R_NPLACED]):
        t = placed[p, PL_TYPE]
        if adv[t, AD_BOSS] == 0 and R < placed[p, PL_MIN]:
            continue
        c = placed[p, PL_CELL]
        if occ[c] >= 0:
            continue
        U[nu, U_FACTION] = ADVERSARY
        U[nu, U_KIND] = t
        U[nu, U_CELL] = c
        mhp = max(1, ((adv[t, AD_HP] + adv[t, AD_HPR] * R) * rules[R_AHP] + 500) // 1000)
        U[nu, U_MAXHP] = mhp
        U[nu, U_HP] = mhp
        U[nu, U_BASEDEF] = adv[t, AD_DEF]
        U[nu, U_FLY] = adv[t, AD_FLY]
        U[nu, U_IGN] = adv[t, AD_IGN]
        U[nu, U_STATE] = ST_ACTIVE
        U[nu, U_AFF] = cls.shape[0] + t
        U[nu, U_AURA] = rules[R_AURA_ADV]           # AMB-R19: the adversaries' +2 / -2
        U[nu, U_MIASMA] = rules[R_MIASMA_ADV]
        occ[c] = nu
        _ev(ev, G, EV_PLACE, nu, t, c, mhp)
        nu += 1
    G[GS_NU] = nu
    gi[G_PLACED] = nu - R
    track = np.zeros(MAX_TYPES, np.int64)
    limit = rules[R_LIMIT] + rules[R_LIMIT_ADD]
    order = np.empty(R, np.int64)
    rnd = 0
    while G[GS_OVER] == 0 and rnd < limit:
        rnd += 1
        G[GS_ROUND] = rnd
        _ev(ev, G, EV_ROUND, rnd, 0, 0, 0)
        # Start Phase: abilities reset (per turn here), reaction tokens refreshed (RO-R5),
        # items un-exhausted
        for s in range(R):
            U[s, U_RTOK] = rules[R_REACT]
            for k in range(MAX_ITEMS):
                if itm[s, k] == 1:
                    itm[s, k] = 0
        # Rover Phase: turns in the order the players choose (the party bot: the random
        # party any order; the others: the Rover nearest an enemy first)
        for s in range(R):
            order[s] = s
        if knobs[bots[0], K_RANDOM] > 0.5:
            for s in range(R - 1, 0, -1):
                j = _coin(bkey, ctr, s + 1)
                tmp = order[s]
                order[s] = order[j]
                order[j] = tmp
        else:
            keys = np.empty(R, np.int64)
            for s in range(R):
                m = BIG
                for v in range(R, nu):
                    if U[v, U_STATE] == ST_ACTIVE:
                        m = min(m, dist[U[s, U_CELL], U[v, U_CELL]])
                keys[s] = m * 10 + s
            order = stable_order(keys, R)
        acted = np.zeros(R, np.int64)
        for i in range(R):
            s = order[i]
            if G[GS_OVER] != 0:
                break
            if U[s, U_STATE] != ST_ACTIVE:
                continue
            acted[s] = 1
            rover_turn(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, ether_die,
                       actions, blocks, faces, cls, cls_ab, cls_card, items, cls_item, itm, inf,
                       pers, up, s, rules, knobs[bots[s]], key, ctr, bkey, G, gi, si, ev, exits)
        # a Rover revived this phase that had not acted takes its turn (Revive; AMB-R18)
        for i in range(R):
            s = order[i]
            if G[GS_OVER] == 0 and acted[s] == 0 and U[s, U_STATE] == ST_ACTIVE:
                acted[s] = 1
                rover_turn(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, ether_die,
                           actions, blocks, faces, cls, cls_ab, cls_card, items, cls_item, itm,
                           inf, pers, up, s, rules, knobs[bots[s]], key, ctr, bkey, G, gi, si,
                           ev, exits)
        if G[GS_OVER] == 0 and rules[R_OBJECTIVE] == OBJ_EXIT:
            # AMB-R32: an exit objective is met at the end of the Rover phase when every
            # standing Rover is on an exit
            allin = True
            for s in range(R):
                if U[s, U_STATE] == ST_ACTIVE:
                    on = False
                    for e in exits:
                        if U[s, U_CELL] == e:
                            on = True
                    if not on:
                        allin = False
            if allin:
                G[GS_OVER] = 1
                G[GS_OUTCOME] = O_VICTORY
                gi[G_OBJ_ROUND] = rnd
        if G[GS_OVER] != 0:
            break
        # Adversary Phase: from round 2 roll the ability die per type present and advance
        # with wrap (RO-A2); then each type in book order, each unit by standee (RO-A3)
        for t in range(ntypes):
            present = False
            for v in range(R, nu):
                if U[v, U_KIND] == t and U[v, U_STATE] == ST_ACTIVE:
                    present = True
            if not present:
                continue
            if rnd >= 2:
                adv_by = ability_die[_dice(key, ctr, ability_die.shape[0])]
                old = track[t]
                track[t] = (track[t] + adv_by) % adv[t, AD_NBLK]
                _ev(ev, G, EV_TRACK, t, old, track[t], adv_by)
                if adv_by > 0 and adv_onadv[t, old] >= 0:
                    # On Advance: each unit of the type performs them (AMB-R24)
                    for v in range(R, nu):
                        if U[v, U_KIND] == t and U[v, U_STATE] == ST_ACTIVE and G[GS_OVER] == 0:
                            adversary_block(U, occ, trap, terrain, nbr, dist, los, aff,
                                            damage_die, actions, blocks, faces,
                                            adv_onadv[t, old], v,
                                            rules, key, ctr, bkey, G, gi, si, ev)
            if rnd <= TRACK_ROUNDS:
                # the block this type performs this round (4 bits a round: slot + 1)
                gi[G_ADV_TRACK + t] |= (track[t] + 1) << (4 * (rnd - 1))
        for t in range(ntypes):
            b = adv_blk[t, track[t]]
            for v in range(R, nu):
                if G[GS_OVER] != 0:
                    break
                if U[v, U_KIND] != t or U[v, U_STATE] != ST_ACTIVE:
                    continue
                U[v, U_DEFTOK] = 0                       # Defense: removed at its turn
                U[v, U_TURNCELL] = U[v, U_CELL]
                _ev(ev, G, EV_BLOCK, v, t, track[t], 0)
                turn_fields(U, occ, trap, v, np.bool_(True), rules, G, gi, si, ev)
                G[GS_SLOT] = track[t]
                adversary_block(U, occ, trap, terrain, nbr, dist, los, aff, damage_die, actions,
                                blocks, faces, b, v, rules, key, ctr, bkey, G, gi, si, ev)
                G[GS_SLOT] = -1
                turn_fields(U, occ, trap, v, np.bool_(False), rules, G, gi, si, ev)
                if U[v, U_STATE] == ST_ACTIVE and G[GS_OVER] == 0:
                    c = U[v, U_CELL]
                    if terrain[c] == T_DANGEROUS and c == U[v, U_TURNCELL] and \
                            U[v, U_FLY] == 0 and U[v, U_IGN] == 0:
                        gi[G_DANGER] += 1
                        _ev(ev, G, EV_TERRAIN, v, c, 2, rules[R_DANGER])
                        hurt(U, occ, v, rules[R_DANGER], np.int64(-1), G, gi, si, ev, rules)
        # End Phase: the round limit (AMB-R17: the limit round is played)
    if G[GS_OVER] == 0:
        G[GS_OUTCOME] = O_LIMIT
    if gi[G_OBJ_ROUND] == 0 and G[GS_OUTCOME] != O_VICTORY:
        gi[G_OBJ_ROUND] = -1
    gi[G_PLAYERS] = R
    gi[G_ROVERS] = R
    gi[G_ROUNDS] = rnd
    gi[G_TRUNC] = 0                 # no safety cap: the round limit ends every game
    gi[G_OUTCOME] = G[GS_OUTCOME]
    gi[G_LIMIT] = limit
    for v in range(R, nu):
        if U[v, U_STATE] == ST_ACTIVE:
            gi[G_ADV_LEFT + U[v, U_KIND]] += 1
    for s in range(R):
        si[s, S_BOT] = bots[s]
        si[s, S_CLASS] = cls_of[s]
        si[s, S_HP] = U[s, U_HP]
        si[s, S_DOWNED] = 1 if U[s, U_STATE] == ST_DOWNED else 0
        sf[s, SF_WIN] = 1.0 if G[GS_OUTCOME] == O_VICTORY else 0.0
    _ev(ev, G, EV_END, G[GS_OUTCOME], rnd, 0, 0)
    return G[GS_NEV]


@njit(cache=True, nogil=True)
def play_block(seed, games, lo, hi, rules, terrain, nbr, dist, los, flags, traps, exits,
               actions, blocks, faces, cls, cls_ab, cls_card, cls_up, cls_item, items, aff,
               adv, adv_blk, adv_onadv, placed, ability_die, damage_die, ether_die, knobs,
               rover_opts, seat_class, class_pool, seat_bot, bot_pool, rotate, fmix, gi, si,
               sf):
    """Play games ``games[lo] .. games[hi-1]`` of run ``seed`` into rows ``lo .. hi-1`` of
    ``gi``/``si``/``sf`` (:func:`play_listed`'s tables): one thread's share, the GIL
    released."""
    ev = np.zeros((0, EV_COLS), np.int64)
    for r in range(lo, hi):
        play_game(seed, games[r], rules, terrain, nbr, dist, los, flags, traps, exits, actions,
                  blocks, faces, cls, cls_ab, cls_card, cls_up, cls_item, items, aff, adv,
                  adv_blk, adv_onadv, placed, ability_die, damage_die, ether_die, knobs,
                  rover_opts, seat_class, class_pool, seat_bot, bot_pool, rotate, fmix, gi[r],
                  si[r], sf[r], ev, False)


def play_listed(seed, games, *args):
    """Play the games of index ``games`` (int64[count]) of run ``seed`` on numba's thread
    count: blocks of games go to :func:`play_block` on Python threads
    (:func:`deepsim.blocks.run_blocks`; numba's ``parallel=True`` would link and optimise
    the whole game kernel twice more at compile time). ``args``: the kernel arrays
    (``Inputs.kernel_args``). A game's row depends only on (seed, game index).

    Returns (gi int64[count, len(GAME_INT)], gf float64[count, 0],
    si int64[count, MAX_R, len(SEAT_INT)], sf float64[count, MAX_R, len(SEAT_FLT)]); rows
    past a game's Rover count are zeros.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    count = int(games.shape[0])
    seed = np.int64(seed)
    gi = np.zeros((count, len(GAME_INT)), np.int64)
    gf = np.zeros((count, len(GAME_FLT)), np.float64)
    si = np.zeros((count, MAX_R, len(SEAT_INT)), np.int64)
    sf = np.zeros((count, MAX_R, len(SEAT_FLT)), np.float64)
    if count == 0:
        # no block to play: still call the kernel once (zero rows), so a warm-up compiles it
        play_block(seed, games, np.int64(0), np.int64(0), *args, gi, si, sf)
    else:
        run_blocks(lambda lo, hi: play_block(seed, games, np.int64(lo), np.int64(hi), *args,
                                             gi, si, sf), count)
    return gi, gf, si, sf


def play_games(seed, start, count, *args):
    """Play games ``start .. start+count-1``: :func:`play_listed` of those indices."""
    return play_listed(seed, np.arange(start, start + count, dtype=np.int64), *args)


@njit(cache=True)
def trace_game(seed, game, max_events, rules, terrain, nbr, dist, los, flags, traps, exits,
               actions, blocks, faces, cls, cls_ab, cls_card, cls_up, cls_item, items, aff,
               adv, adv_blk, adv_onadv, placed, ability_die, damage_die, ether_die, knobs,
               rover_opts, seat_class, class_pool, seat_bot, bot_pool, rotate, fmix):
    """Replay game ``game`` with the event buffer on: the four tables of one game (as
    :func:`play_listed`) and its events int64[k, EV_COLS], k <= ``max_events``."""
    gi = np.zeros((1, len(GAME_INT)), np.int64)
    gf = np.zeros((1, len(GAME_FLT)), np.float64)
    si = np.zeros((1, MAX_R, len(SEAT_INT)), np.int64)
    sf = np.zeros((1, MAX_R, len(SEAT_FLT)), np.float64)
    ev = np.zeros((max_events, EV_COLS), np.int64)
    k = play_game(seed, game, rules, terrain, nbr, dist, los, flags, traps, exits, actions,
                  blocks, faces, cls, cls_ab, cls_card, cls_up, cls_item, items, aff, adv,
                  adv_blk, adv_onadv, placed, ability_die, damage_die, ether_die, knobs,
                  rover_opts, seat_class, class_pool, seat_bot, bot_pool, rotate, fmix, gi[0],
                  si[0], sf[0], ev, True)
    return gi, gf, si, sf, ev[:k]
