"""Atlantis bots: every decision the rules offer, driven by a row of numeric knobs.

The rules (kernel.py, board.py) decide what is legal and ask; the bots answer. A bot is a
style of ``bots.yaml``: ``random`` picks uniformly among the legal choices at every
decision (the baseline); ``aggressive`` and ``defensive`` share one heuristic whose knobs
(layout.KNOBS) weigh closing on the enemy (``advance``, ``leader_hunt``), target choice
(``focus_damaged``, ``focus_value``), danger (``caution``), screening the own leader
(``screen``, ``leader_keep_back``), hiding (``hide``) and spells (``spell_aggr``). Bots
read the game state but never change it (except the random draws they make).

Scores are in rough "units of expected enemy value"; a target's worth is
``1 + focus_value * AD * min(DR, 5) / 5`` scaled by the chance the attack destroys it.

Compile time (docs/performance.md): ``target_value`` and ``_best_from`` are
``forceinline=True`` (numba compiles each once, LLVM inlines it) rather than IR-inlined,
which typed ``target_value`` four times inside ``cell_score`` alone. ``choose_move`` and
``attack_plan`` are ``forceinline=True`` for speed: a call between compiled functions
passes every array of the game state one by one, and each has one call site.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rulesets.atlantis.board import (
    D_DIST,
    D_NB,
    D_RULES,
    D_SPELLS,
    D_TERRAIN,
    E_DEATH,
    ER_ADJ,
    D_UNITS,
    GS_BREAKING,
    GS_C,
    GS_LAST_ATTACK,
    GS_LEADER_K,
    GS_LEADER_W,
    GS_MAT0_K,
    GS_MAT0_W,
    GS_MIN_COST,
    GS_NSLOTS,
    GS_PURSUERS,
    GS_TURN,
    UC_ALIVE,
    UC_CELL,
    UC_CUR_TURN,
    UC_DMG,
    UC_HIDDEN,
    UC_NCHITS,
    UC_SAVED,
    UC_SIDE,
    UC_SIREN,
    UC_SONG,
    UC_TYPE,
    UC_USED,
    X_ALLOC,
    X_CHITS,
    X_CUR,
    X_G,
    X_ITMP,
    X_LEAD,
    X_LEAD_L,
    X_ENTRY,
    X_LH,
    X_LM,
    X_LPOI,
    X_LQ,
    X_LTHR,
    X_NEAR,
    X_OCC,
    X_PKEY,
    X_PLIST,
    X_TER,
    X_THREAT,
    X_U,
    can_attack,
    can_enter,
    can_hide,
    hide_modifier,
    hit_prob,
    is_foe,
    is_opponent,
    material,
    paralysis,
    rand_below,
    spell_cell_ok,
)
from deepsim.rulesets.atlantis.layout import (
    K_ADVANCE,
    K_CAUTION,
    K_EDGE_MOVES,
    K_FOCUS_DAMAGED,
    K_FOCUS_VALUE,
    K_HIDE,
    K_LEADER_HUNT,
    K_LEADER_KEEP_BACK,
    K_RANDOM,
    K_SCREEN,
    K_SPELL_AGGR,
    K_STANDOFF_LEAD,
    K_STANDOFF_TURNS,
    N_DIRS,
    R_HIDE_MIN,
    R_MESMERIZE_RANGE,
    R_PARALYZED_BONUS,
    R_RANGED_MAX,
    R_RANGED_MIN,
    R_SIREN_RANGE,
    SP_FREEZE,
    SP_HEALING,
    SP_LUMINESCENCE,
    SP_MURKY_DEPTHS,
    SP_RESURRECTION,
    SP_SIRENS_SONG,
    SP_TANGLE_KELP,
    SP_WHIRLPOOL,
    SPC_CREATES,
    SPC_RANGE,
    SPC_SETS_TERRAIN,
    T_ADJ_DEATH_FACES,
    T_CURRENT,
    T_ENTRY_ATTACK,
    T_ENTRY_DEATH,
    T_LARGE_OK,
    T_PASSABLE,
    U_AD,
    U_DR,
    U_ENTANGLE,
    U_LARGE,
    U_LEADER,
    U_MARTYR,
    U_MESMERIZE,
    U_MV,
    U_NET,
    U_POISON,
    U_RANGED,
    U_SIREN,
    WITCH,
)

#: minimum worth of a spell for the heuristic bots to cast it
SPELL_MIN = 0.4
#: weight of the own leader's danger per unit of the ``caution`` knob: losing the leader
#: loses the game (AT-V1), so its expected damage and kill chance outweigh most gains
LEADER_RISK = 30.0
#: chance that an attacker's search finds a hidden unit (AT-A3: 5-6 on a d6)
SEARCH_P = 1.0 / 3.0
#: standoff breaker: weight per step (along passable water) to the enemy leader, and the
#: steps counted for a hex from which the leader cannot be reached
BREAK_ADVANCE = 2.0
LEAD_FAR = 100


@njit(cache=True, _nrt=False)
def breaking(scr, dat, kn, side):
    """Standoff breaker: does ``side`` advance on the enemy leader this turn?

    Yes once ``standoff_turns`` (> 0) player-turns have passed without an attack by either
    side (``GS_LAST_ATTACK``; the game's start counts as one), and, when
    ``standoff_lead`` > 0, whenever the side is ahead on material (AMB-T23: AD x DR left of
    its survivors): its material over the other's has grown to at least (1 +
    ``standoff_lead``) x what it was when play began (the Sea Witch's army starts with
    more). Bot behaviour, not a rule: without it two careful bots may face each other
    until the turn cap.
    """
    n = kn[K_STANDOFF_TURNS]
    if kn[K_RANDOM] > 0.5 or n <= 0.0 or side > 1:
        return False
    g = scr[X_G]
    if g[GS_TURN] - 1 - g[GS_LAST_ATTACK] >= n:
        return True
    lead = kn[K_STANDOFF_LEAD]
    if lead <= 0.0:
        return False
    mine = material(scr, dat, side)
    theirs = material(scr, dat, 1 - side)
    m0 = g[GS_MAT0_W] if side == WITCH else g[GS_MAT0_K]
    t0 = g[GS_MAT0_K] if side == WITCH else g[GS_MAT0_W]
    if m0 <= 0 or t0 <= 0:
        return False                        # no reference (a state built by hand)
    if theirs <= 0.0:
        return mine > 0.0
    return mine * t0 >= (1.0 + lead) * theirs * m0


@njit(cache=True, _nrt=False)
def leader_paths(scr, dat, side):
    """Fill ``X_LEAD[c]`` and ``X_LEAD_L[c]``: the standoff breaker's pursuit field, hex
    steps from c to the enemy leader's hex for a unit that may enter shallow 2-cost hexes
    and for a Large one (AT-M5), through passable hexes that do not kill on entry (AT-M7,
    M8); the side's own units block the way (AT-M2: a hex of theirs gets its steps but
    the search goes on around it; enemy units are ignored: they die or move); -1 where no
    such path exists. The breaker walks units along it, so a wall of rocks, land, (for
    Large units) shallow reef or a jam of its own army between the armies is walked
    around, not pressed against. Also sets ``GS_PURSUERS``: the side's units other than its
    leader that can attack and swim (AD, MV > 0) and have such a path."""
    g = scr[X_G]
    u = scr[X_U]
    q = scr[X_LQ]
    occ = scr[X_OCC]
    _own_l, foe_l = _leaders(scr, side)
    for large in range(2):
        lead = scr[X_LEAD_L] if large == 1 else scr[X_LEAD]
        for c in range(g[GS_C]):
            lead[c] = -1
        if foe_l < 0:
            continue
        c0 = u[foe_l, UC_CELL]
        lead[c0] = 0
        q[0] = c0
        n = 1
        k = 0
        while k < n:
            c = q[k]
            k += 1
            for d in range(N_DIRS):
                nc = dat[D_NB][c, d]
                if nc < 0 or lead[nc] >= 0 or not _crossable(scr, dat, nc, large):
                    continue
                lead[nc] = lead[c] + 1
                j = occ[nc]
                if j >= 0 and u[j, UC_SIDE] == side:
                    continue        # a friend's hex gets its steps but blocks the way on
                q[n] = nc
                n += 1
    # the units that can carry the hunt without the leader (AD > 0, MV > 0, a path)
    units = dat[D_UNITS]
    k = 0
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or u[j, UC_SIDE] != side:
            continue
        t = u[j, UC_TYPE]
        if units[t, U_LEADER] == 1 or units[t, U_AD] <= 0 or units[t, U_MV] <= 0:
            continue
        lead = scr[X_LEAD_L] if units[t, U_LARGE] == 1 else scr[X_LEAD]
        if lead[u[j, UC_CELL]] >= 0:
            k += 1
    g[GS_PURSUERS] = k


@njit(cache=True, _nrt=False, inline="always")
def _crossable(scr, dat, c, large):
    """May a unit (``large``: a Large one, AT-M5) swim into hex c, units aside? (AT-M7, M8)

    Read from the cell's ``X_ENTRY`` key (board.entry_key) for that kind of unit.
    """
    e = scr[X_ENTRY][large, c]
    return e >= 0 and (e & E_DEATH) == 0


@njit(cache=True, _nrt=False)
def leader_threat(scr, dat, i):
    """Fill ``X_LTHR[c]`` / ``X_LPOI[c]``: expected hits the other player's non-poisonous /
    poisonous units could deal to slot i on cell c (one poison hit destroys it, AT-X1, so
    :func:`leader_danger` weighs the two apart).

    Sharper than the kernel's ``X_THREAT`` (which ignores the board): an enemy unit free to
    act (no Paralyzation or Siren counter, AD > 0) reaches the hexes within MV steps of
    passable, empty hexes (AT-M2, M5, M8; slot i's own hex counts as empty, a Vortex/Lava
    hex is never passed, AT-M7) and threatens their neighbours, so a screen of units or
    rocks between a leader and the enemy shelters it. Steps, not move costs: a cautious
    (larger) reach. A Ranged unit threatens everything within MV + its range (AT-X5, line
    of sight ignored). Each unit adds AD x hit chance once per hex, to ``X_LPOI`` for a
    Poison unit (AT-X1), else to ``X_LTHR``.
    Units too far to reach any hex within slot i's MV + 1 (a Current's push) are skipped,
    and a unit's search does not go on from a hex beyond that reach (hex distance to slot
    i's cell over its MV + 1 plus the unit's steps left + 1): the field is exact only
    within MV + 1 of slot i (where choose_move and attack_plan read it), and every hex
    there gets the same terms in the same order (docs/performance.md, Atlantis).

    Uses ``X_LQ`` (queue), ``X_LM`` (steps, -1 = unseen, restored after each unit) and
    ``X_LH`` (last unit that counted a hex).
    """
    g = scr[X_G]
    u = scr[X_U]
    occ = scr[X_OCC]
    thr_n = scr[X_LTHR]
    thr_p = scr[X_LPOI]
    q = scr[X_LQ]
    hop = scr[X_LM]
    mark = scr[X_LH]
    units = dat[D_UNITS]
    nb = dat[D_NB]
    dist = dat[D_DIST]
    rules = dat[D_RULES]
    C = g[GS_C]
    p = hit_prob(rules)
    rmax = np.int64(rules[R_RANGED_MAX])
    ci = u[i, UC_CELL]
    lmv = units[u[i, UC_TYPE], U_MV]       # the field is read within MV (+1 push) of ci
    dci = dist[ci]                         # symmetric: hex distances to ci
    for c in range(C):
        thr_n[c] = 0.0
        thr_p[c] = 0.0
        mark[c] = -1
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or not is_opponent(u, i, j):
            continue
        t = u[j, UC_TYPE]
        if paralysis(u, j) > 0 or u[j, UC_SIREN] > 0 or units[t, U_AD] <= 0:
            continue                         # AT-A1 / AT-X10: cannot attack next turn
        w = units[t, U_AD] * p
        thr = thr_p if units[t, U_POISON] == 1 else thr_n     # AT-X1: one hit kills
        cj = u[j, UC_CELL]
        mv = units[t, U_MV]
        if dist[cj, ci] > mv + lmv + 1 + (rmax if units[t, U_RANGED] == 1 else 1):
            continue                         # cannot reach any hex slot i could use
        if units[t, U_RANGED] == 1:
            drow = dist[cj]                  # symmetric: the contiguous row of cj
            for c in range(C):
                if drow[c] <= mv + rmax:
                    thr[c] += w
            continue
        ent = scr[X_ENTRY][units[t, U_LARGE]]
        far = mv + lmv + 2                   # hop h at hex c reads: dci[c] + h <= far
        q[0] = cj
        hop[cj] = 0
        n = 1
        k = 0
        while k < n:
            c = q[k]
            k += 1
            hc = hop[c]                      # read once: the loop writes only other hexes
            if dci[c] + hc > far:
                continue                     # all it reaches or threatens is beyond MV + 1
            for d in range(N_DIRS):
                nc = nb[c, d]
                if nc < 0:
                    continue
                if mark[nc] != j:            # j could stand on c and attack nc
                    mark[nc] = j
                    thr[nc] += w
                if hc >= mv or hop[nc] >= 0:
                    continue
                e = ent[nc]                  # AT-M8, AT-M5; AT-M7 never passed
                if e < 0 or (e & E_DEATH) != 0:
                    continue
                if occ[nc] >= 0 and occ[nc] != i:
                    continue
                hop[nc] = hc + 1
                q[n] = nc
                n += 1
        for k in range(n):
            hop[q[k]] = -1


@njit(cache=True, _nrt=False, inline="always")
def _poisson_tail(lam, k):
    """P(X >= k) for X ~ Poisson(lam): the chance ``lam`` expected hits make k or more."""
    if k <= 0:
        return 1.0
    term = np.exp(-lam)
    acc = term
    for m in range(1, k):
        term *= lam / m
        acc += term
    return max(0.0, 1.0 - acc)


@njit(cache=True, _nrt=False, inline="always")
def leader_danger(kn, lam, lam_p, left):
    """Cost of the own leader facing ``lam`` expected ordinary hits and ``lam_p`` expected
    poison hits with ``left`` DR to lose: ``LEADER_RISK x caution x ((lam + left x lam_p)
    / left + 4 P(killed))``. A poison hit destroys it whatever its DR (AT-X1): it counts as
    ``left`` ordinary hits, and P(killed) = 1 - P(no poison hit) x P(fewer than ``left``
    ordinary hits), both Poisson."""
    dead = 1.0 - np.exp(-lam_p) * (1.0 - _poisson_tail(lam, left))
    return LEADER_RISK * kn[K_CAUTION] * (lam / left + lam_p + 4.0 * dead)


@njit(cache=True, _nrt=False)
def _escape(scr, dat, kn, i, c, r, left):
    """The hex within r hexes of c that slot i could stand on (empty, passable, not a
    Vortex/Lava) where its :func:`leader_danger` is lowest: where the leader could back off
    to with r moves left (paths and move costs ignored); c itself when none is safer."""
    g = scr[X_G]
    occ = scr[X_OCC]
    ter = scr[X_TER]
    thr = scr[X_LTHR]
    thr_p = scr[X_LPOI]
    terrain = dat[D_TERRAIN]
    dist = dat[D_DIST]
    large = dat[D_UNITS][scr[X_U][i, UC_TYPE], U_LARGE]
    best = c
    bd = leader_danger(kn, thr[c], thr_p[c], left)
    if r <= 0:
        return best
    for x in range(g[GS_C]):
        if dist[c, x] > r or (thr[x] >= thr[best] and thr_p[x] >= thr_p[best]):
            continue
        if occ[x] >= 0 and occ[x] != i:
            continue
        tx = ter[x]
        if terrain[tx, T_PASSABLE] == 0 or terrain[tx, T_ENTRY_DEATH] == 1:
            continue
        if large == 1 and terrain[tx, T_LARGE_OK] == 0:
            continue
        d = leader_danger(kn, thr[x], thr_p[x], left)
        if d < bd:
            bd = d
            best = x
    return best


@njit(cache=True, _nrt=False, inline="always")
def _tail_binomial(n, p, k):
    """P(X >= k) for X ~ Binomial(n, p): the chance ``n`` dice hitting with ``p`` make k or
    more hits (AT-A5)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    acc = 0.0
    term = (1.0 - p) ** n                    # P(X = 0)
    for m in range(k):
        acc += term
        term *= (n - m) / (m + 1.0) * p / (1.0 - p)
    return max(0.0, 1.0 - acc)


@njit(cache=True, _nrt=False, inline="always")
def entry_cost(dat, t, left, ad, p):
    """Cost for a unit of type t with ``left`` DR to lose of an entry attack of ``ad`` dice
    (a Whirl Pool or Vent hex, AT-M7): its expected damage share, and for the own leader
    (AT-V1: destroyed, the game is lost) ``4 x LEADER_RISK`` x the chance the dice destroy
    it, whatever the style's caution (the dice are certain, unlike an enemy's attack)."""
    units = dat[D_UNITS]
    c = 3.0 * p * ad / left * (1.0 + _worth(dat, t))
    if units[t, U_LEADER] == 1:
        c += 4.0 * LEADER_RISK * _tail_binomial(ad, p, left)
    return c


@njit(cache=True, _nrt=False)
def avoid_entry(scr, dat, kn, i):
    """Does slot i's move avoid passing through Whirl Pool / Vent hexes (``kernel.reach``
    ``avoid``)? The heuristic's own leader does when an entry attack could destroy it (its
    DR left is at most the largest entry attack's dice, AT-M7): it may still end its move on
    one when that is worth the risk (:func:`entry_cost`). ``random`` never avoids (its moves
    stay uniform over every hex it can reach)."""
    if kn[K_RANDOM] > 0.5:
        return False
    u = scr[X_U]
    units = dat[D_UNITS]
    t = u[i, UC_TYPE]
    if units[t, U_LEADER] == 0:
        return False
    terrain = dat[D_TERRAIN]
    ad = 0
    for r in range(terrain.shape[0]):
        ad = max(ad, terrain[r, T_ENTRY_ATTACK])
    return units[t, U_DR] - u[i, UC_DMG] <= ad


@njit(cache=True, _nrt=False, inline="always")
def _leaders(scr, side):
    """(own leader slot, enemy leader slot) of ``side``, -1 when dead or absent."""
    g = scr[X_G]
    u = scr[X_U]
    lw = g[GS_LEADER_W]
    lk = g[GS_LEADER_K]
    if lw >= 0 and u[lw, UC_ALIVE] == 0:
        lw = -1
    if lk >= 0 and u[lk, UC_ALIVE] == 0:
        lk = -1
    if side == WITCH:
        return lw, lk
    if side == 1:
        return lk, lw
    return -1, -1


@njit(cache=True, _nrt=False, inline="always")
def _worth(dat, t):
    """A unit type's rough value: AD x min(DR, 5) / 5 (leaders are weighted separately)."""
    units = dat[D_UNITS]
    return units[t, U_AD] * min(units[t, U_DR], 5) / 5.0


@njit(cache=True, _nrt=False, forceinline=True)
def target_value(scr, dat, kn, i, j, ad):
    """Worth to slot i of attacking slot j with ``ad`` dice (before the search)."""
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    tj = u[j, UC_TYPE]
    p = hit_prob(rules)
    n = ad
    if paralysis(u, j) > 0:
        n += np.int64(rules[R_PARALYZED_BONUS])
    left = units[tj, U_DR] - u[j, UC_DMG]
    left = max(left, 1)
    if units[u[i, UC_TYPE], U_POISON] == 1:
        pk = 1.0 - (1.0 - p) ** n
    else:
        pk = min(1.0, n * p / left)
    val = (1.0 + kn[K_FOCUS_VALUE] * _worth(dat, tj)) * pk \
        + kn[K_FOCUS_DAMAGED] * u[j, UC_DMG] / units[tj, U_DR]
    if units[tj, U_LEADER] == 1 and u[j, UC_SIDE] < 2:
        val += kn[K_LEADER_HUNT] * (2.0 + 10.0 * pk)
        if scr[X_G][GS_BREAKING] == 1:
            val += 10.0 * pk                # breaking a standoff: the leader comes first
    if kn[K_SCREEN] > 0.0:
        # a screening bot strikes first at enemies that threaten its own leader
        own_l, foe_l = _leaders(scr, u[i, UC_SIDE])
        if own_l >= 0 and dat[D_DIST][u[j, UC_CELL], u[own_l, UC_CELL]] <= 3:
            val += kn[K_SCREEN] * pk * (1.0 + _worth(dat, tj))
    if u[j, UC_SIDE] == 2:
        val *= 0.1                          # neutrals only defend (AMB-T14): little gain
    if u[j, UC_HIDDEN] == 1:
        val *= 1.0 / 3.0                    # AT-A3 search 5-6
    return val


@njit(cache=True, _nrt=False, forceinline=True)
def _best_from(scr, dat, kn, i, c):
    """Best target worth for slot i if it stood on cell c (adjacent / ranged; Martyr)."""
    u = scr[X_U]
    occ = scr[X_OCC]
    nb = dat[D_NB]
    units = dat[D_UNITS]
    dist = dat[D_DIST]
    rules = dat[D_RULES]
    t = u[i, UC_TYPE]
    ad = units[t, U_AD]
    best = 0.0
    forced = -1.0
    for d in range(N_DIRS):
        nc = nb[c, d]
        if nc < 0:
            continue
        j = occ[nc]
        if j < 0 or j == i or not is_foe(u, i, j):
            continue
        v = target_value(scr, dat, kn, i, j, ad)
        if units[u[j, UC_TYPE], U_MARTYR] == 1:
            forced = max(forced, v)
        best = max(best, v)
    if forced >= 0.0:
        return forced                        # AT-X6: adjacent Martyrs take the attack
    if units[t, U_RANGED] == 1:
        rmin = np.int64(rules[R_RANGED_MIN])
        rmax = np.int64(rules[R_RANGED_MAX])
        g = scr[X_G]
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 0 or not is_foe(u, i, j):
                continue
            dd = dist[c, u[j, UC_CELL]]
            if dd >= max(rmin, 2) and dd <= rmax:
                v = target_value(scr, dat, kn, i, j, ad)
                best = max(best, v)
    return best


@njit(cache=True, _nrt=False, inline="always")
def _pushed(scr, dat, i, c):
    """Will the End phase's current push slot i off cell c this turn (AT-E1, AMB-T17: a
    Current / River Outflow hex whose next hex it may enter; one push a turn)? Then a Hide
    marker it takes there is lost in the End phase (AT-M6)."""
    terrain = dat[D_TERRAIN]
    ter = scr[X_TER]
    cur = scr[X_CUR]
    u = scr[X_U]
    if terrain[ter[c], T_CURRENT] == 0 or cur[c] < 0 or \
            u[i, UC_CUR_TURN] == scr[X_G][GS_TURN]:
        return False
    pc = dat[D_NB][c, cur[c]]
    if pc < 0:
        return False
    occ = scr[X_OCC]
    large = dat[D_UNITS][u[i, UC_TYPE], U_LARGE]
    return (occ[pc] < 0 or occ[pc] == i) and terrain[ter[pc], T_PASSABLE] == 1 \
        and (large == 0 or terrain[ter[pc], T_LARGE_OK] == 1)


@njit(cache=True, _nrt=False, inline="always")
def cell_score(scr, dat, kn, i, c, phase, start):
    """Heuristic worth of slot i ending this Swim phase on cell c."""
    u = scr[X_U]
    units = dat[D_UNITS]
    terrain = dat[D_TERRAIN]
    rules = dat[D_RULES]
    dist = dat[D_DIST]
    nb = dat[D_NB]
    ter = scr[X_TER]
    t = u[i, UC_TYPE]
    tr = ter[c]
    if c != start and terrain[tr, T_ENTRY_DEATH] == 1:
        return -1e9                          # AT-M7: certain death
    side = u[i, UC_SIDE]
    own_l, foe_l = _leaders(scr, side)
    near = scr[X_NEAR][c]
    thr = scr[X_THREAT][c]
    left = units[t, U_DR] - u[i, UC_DMG]
    left = max(left, 1)
    leader = units[t, U_LEADER] == 1
    s = 0.0
    p = hit_prob(rules)
    if c != start and terrain[tr, T_ENTRY_ATTACK] > 0:
        s -= entry_cost(dat, t, left, terrain[tr, T_ENTRY_ATTACK], p)   # AT-M7
    # AT-E1: a unit that ends its turn on a Current / River Outflow is pushed one hex before
    # the Vortex/Lava checks, so the hex that matters is where the push takes it (in the
    # First Swim phase only when no move is left to step off it in the Second)
    ec = c
    cur = scr[X_CUR]
    final = phase == 2 or units[t, U_MV] - (scr[X_PKEY][c] >> 3) <= 0
    if final and terrain[tr, T_CURRENT] == 1 and cur[c] >= 0 and \
            u[i, UC_CUR_TURN] != scr[X_G][GS_TURN]:
        pc = nb[c, cur[c]]
        occ = scr[X_OCC]
        if pc >= 0 and (occ[pc] < 0 or occ[pc] == i) and terrain[ter[pc], T_PASSABLE] == 1 \
                and (units[t, U_LARGE] == 0 or terrain[ter[pc], T_LARGE_OK] == 1):
            if terrain[ter[pc], T_ENTRY_DEATH] == 1:
                return -1e9                  # AMB-T17: pushed into a Vortex / Lava
            if terrain[ter[pc], T_ENTRY_ATTACK] > 0:
                s -= entry_cost(dat, t, left, terrain[ter[pc], T_ENTRY_ATTACK], p)
            ec = pc
    # End-phase hazards next door (AT-E1; the active side's units always exposed), from
    # the cell's mask of such neighbours (board.adj_mask; 0 for most cells)
    adj = scr[X_ENTRY][ER_ADJ, ec]
    if adj != 0:
        # the leader's weight 10 (AT-V1); a unit of a side breaking a standoff weighs them
        # as it weighs the enemy (a quarter): a pocket whose approaches pass Vortex or Lava
        # hexes is entered, not watched from its edge for the rest of the game
        w_adj = 10.0 if leader else (0.25 if scr[X_G][GS_BREAKING] == 1 else 1.0)
        for d in range(N_DIRS):
            if (adj >> (2 * d)) & 1:
                s -= 2.0 * (1.0 + _worth(dat, t)) * w_adj
            if (adj >> (2 * d + 1)) & 1:
                s -= p / left * (1.0 + _worth(dat, t)) * w_adj
    hid = 0.0
    if can_hide(scr, dat, i) and ec == c:        # a push would take a marker (AT-M6)
        hid = min(max(hide_modifier(dat, t, tr) + 1 - rules[R_HIDE_MIN] + 6, 0.0), 6.0)
    if leader:
        # the own leader (AT-V1): its danger where the enemy's next turn finds it, from
        # the board-aware field of choose_move (leader_threat): behind a screen or out of
        # reach is safe; ending a turn in reach needs a gain worth the risk (a likely
        # strike at the enemy leader through _best_from's leader_hunt term)
        keep = kn[K_LEADER_KEEP_BACK]
        if near < keep and (scr[X_G][GS_BREAKING] == 0 or scr[X_G][GS_PURSUERS] > 0):
            # kept back while its army can fight; a leader breaking a standoff with no unit
            # left to hunt the enemy leader goes in itself (its danger below still
            # counted): only it can end the game
            s -= 4.0 * (keep - near)
        thr_n = scr[X_LTHR]
        thr_p = scr[X_LPOI]
        lam = thr_n[ec]
        lam_p = thr_p[ec]
        if phase == 1:
            # AT-M1: moves saved now let it back off in the Second Swim phase
            r = units[t, U_MV] - (scr[X_PKEY][c] >> 3)
            if r > 0 and ec == c and (lam > 0.0 or lam_p > 0.0):
                x = _escape(scr, dat, kn, i, c, r, left)
                lam = 0.3 * lam + 0.7 * thr_n[x]
                lam_p = 0.3 * lam_p + 0.7 * thr_p[x]
            if hid > 0.0 and kn[K_HIDE] > 0.0:
                # AT-A7 / AT-A3: hiding here in the attack phase (each attacker must
                # then find it with a search)
                f = 1.0 - (1.0 - SEARCH_P) * hid / 6.0
                if leader_danger(kn, thr_n[ec] * f, thr_p[ec] * f, left) < \
                        leader_danger(kn, lam, lam_p, left):
                    lam = thr_n[ec] * f
                    lam_p = thr_p[ec] * f
        elif c == start and u[i, UC_HIDDEN] == 1:
            lam *= SEARCH_P                  # staying keeps the marker (AT-M6 / AT-A8)
            lam_p *= SEARCH_P
        s -= leader_danger(kn, lam, lam_p, left)
        s += kn[K_HIDE] * 0.3 * hid
        if phase == 1 and can_attack(scr, dat, i):
            s += _best_from(scr, dat, kn, i, c)
        lead = scr[X_LEAD_L] if units[t, U_LARGE] == 1 else scr[X_LEAD]
        if scr[X_G][GS_BREAKING] == 1 and foe_l >= 0 and lead[start] >= 0:
            # breaking a standoff, the leader joins the hunt along the pursuit field with
            # the pull of its units, its own danger (above) still counted in full
            s -= BREAK_ADVANCE * (lead[ec] if lead[ec] >= 0 else LEAD_FAR)
        elif foe_l >= 0 and kn[K_ADVANCE] > 0.5 and near >= keep:
            s -= 0.2 * kn[K_ADVANCE] * dist[u[foe_l, UC_CELL], c]
        return s
    lead = scr[X_LEAD_L] if units[t, U_LARGE] == 1 else scr[X_LEAD]
    breaker = scr[X_G][GS_BREAKING] == 1 and foe_l >= 0 and lead[start] >= 0
    if breaker:
        # standoff breaker (bots.breaking): close on the enemy leader along water this unit
        # may cross, counted from the hex it ends its turn on (after a current's push),
        # with a quarter of the usual caution and no screening; a unit that cannot reach
        # the leader at all keeps the usual advance
        s -= 0.25 * kn[K_CAUTION] * thr / left * (1.0 + _worth(dat, t))
        steps = lead[ec]
        s -= BREAK_ADVANCE * (steps if steps >= 0 else LEAD_FAR)
    else:
        s -= kn[K_CAUTION] * thr / left * (1.0 + _worth(dat, t))
        lh = min(kn[K_LEADER_HUNT], 1.0)
        dg = near
        if foe_l >= 0:
            dg = dist[u[foe_l, UC_CELL], c]     # symmetric: the leader's row
        s -= kn[K_ADVANCE] * (0.6 * lh * dg + (1.0 - 0.6 * lh) * near)
    if phase == 1 and can_attack(scr, dat, i):
        s += _best_from(scr, dat, kn, i, c)
    if not breaker and kn[K_SCREEN] > 0.0 and own_l >= 0 and (units[t, U_MARTYR] == 1
                                                              or units[t, U_DR] >= 3):
        dl = dist[u[own_l, UC_CELL], c]
        w = kn[K_SCREEN] * (3.0 if units[t, U_MARTYR] == 1 else 1.0)
        if dl == 1:
            s += 2.0 * w
        elif dl == 2:
            s += 1.0 * w
        else:
            s -= 0.5 * w * (dl - 2)
    if phase == 2 and c == start and ec == c and u[i, UC_HIDDEN] == 1:
        # after the attack phase, staying (and not pushed) keeps the Hide marker it has,
        # maybe taken this turn (AT-M6, AT-E1): each attacker must find it first (AT-A3,
        # 5-6), and it is worth what a sure hide would be
        cw = 0.25 * kn[K_CAUTION] if breaker else kn[K_CAUTION]
        s += (1.0 - SEARCH_P) * cw * thr / left * (1.0 + _worth(dat, t))
        hid = 6.0
    s += kn[K_HIDE] * 0.2 * hid
    return s


@njit(cache=True, _nrt=False, inline="always")
def edge_limits(scr, dat, kn, i, phase):
    """The ``edge_moves`` approximation's bounds for slot i's move: (cost, hexes).

    With the knob on, a unit other than the own leader scores a reachable hex other than
    its own only when the hex costs more than ``cost`` (no hex of the cheapest terrain is
    affordable from it: the edge of the reach, ``GS_MIN_COST``, at least 1) or lies within
    ``hexes`` of an enemy unit (``X_NEAR``; 1, or the Ranged range AT-X5): where an attack
    is possible next. Off (exact), or for the leader: (-1, a bound no hex exceeds), every
    hex scored. The budget is the unit's MV in the First Swim phase and its saved moves in
    the Second (AT-M1; ``UC_SAVED`` is reset only after the move).

    Returns
    -------
    cost, hexes : int, int
    """
    if kn[K_EDGE_MOVES] < 0.5:
        return -1, 1 << 30
    u = scr[X_U]
    units = dat[D_UNITS]
    t = u[i, UC_TYPE]
    if units[t, U_LEADER] == 1:
        return -1, 1 << 30
    budget = units[t, U_MV] if phase == 1 else u[i, UC_SAVED]
    hexes = np.int64(dat[D_RULES][R_RANGED_MAX]) if units[t, U_RANGED] == 1 else 1
    return budget - max(scr[X_G][GS_MIN_COST], 1), hexes


@njit(cache=True, _nrt=False, forceinline=True)
def choose_move(scr, dat, kn, i, n, phase):
    """Destination of slot i among the ``n`` reachable cells of ``plist`` (AT-M1).

    Every cell gets :func:`cell_score` (less 0.01 a move spent and 0.1 an entry attack on
    the way), the first best wins; with the ``edge_moves`` knob on, only the cells
    :func:`edge_limits` keeps (always the unit's own, ``plist[0]``).
    """
    lst = scr[X_PLIST]
    if kn[K_RANDOM] > 0.5:
        return lst[rand_below(scr, n)]
    pk = scr[X_PKEY]
    near = scr[X_NEAR]
    start = lst[0]
    best = start
    bs = -1e18
    if dat[D_UNITS][scr[X_U][i, UC_TYPE], U_LEADER] == 1:
        leader_threat(scr, dat, i)           # the field cell_score reads for a leader
    inner, by_foe = edge_limits(scr, dat, kn, i, phase)
    for k in range(n):
        c = lst[k]
        if k > 0 and (pk[c] >> 3) <= inner and near[c] > by_foe:
            continue                         # edge_moves: an inner hex no foe is next to
        s = cell_score(scr, dat, kn, i, c, phase, start) - 0.01 * (pk[c] >> 3) \
            - 0.1 * (pk[c] & 7)
        if s > bs:
            bs = s
            best = c
    return best


@njit(cache=True, _nrt=False, forceinline=True)
def attack_plan(scr, dat, kn, i, n, ok_attack, hide_ok):
    """AT-A1: (0 nothing | 1 attack | 2 hide, target) for slot i; targets in ``itmp``."""
    u = scr[X_U]
    out = scr[X_ITMP]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    if kn[K_RANDOM] > 0.5:
        m = 1 + (1 if hide_ok else 0) + (n if ok_attack else 0)
        r = rand_below(scr, m)
        if r == 0:
            return 0, -1
        if hide_ok:
            if r == 1:
                return 2, -1
            r -= 1
        return 1, out[r - 1]
    t = u[i, UC_TYPE]
    best = -1
    bv = 0.0
    if ok_attack:
        for k in range(n):
            j = out[k]
            v = target_value(scr, dat, kn, i, j, units[t, U_AD])
            if v > bv:
                bv = v
                best = j
    if hide_ok:
        c = u[i, UC_CELL]
        ph = min(max(hide_modifier(dat, t, scr[X_TER][c]) + 7 - rules[R_HIDE_MIN], 0.0),
                 6.0) / 6.0
        if _pushed(scr, dat, i, c):
            ph = 0.0                         # the End phase's push would take the marker
        hv = kn[K_HIDE] * ph
        if units[t, U_LEADER] == 1 and kn[K_HIDE] > 0.0:
            # the own leader: hide and stay (AT-A7; moving would discard the marker,
            # AT-M6) or act and then back off with the saved moves (AT-M1) to the safest
            # hex in reach; attacking also keeps its worth bv
            leader_threat(scr, dat, i)
            lt = scr[X_LTHR]
            lp = scr[X_LPOI]
            left = max(units[t, U_DR] - u[i, UC_DMG], 1)
            r = u[i, UC_SAVED] if paralysis(u, i) == 0 and (lt[c] > 0.0 or lp[c] > 0.0) \
                else 0
            x = _escape(scr, dat, kn, i, c, r, left)
            away = leader_danger(kn, lt[x], lp[x], left)
            f = 1.0 - (1.0 - SEARCH_P) * ph
            hidden = leader_danger(kn, lt[c] * f, lp[c] * f, left)
            if ph > 0.0 and away - hidden > bv + 1e-9:
                return 2, -1
            if best >= 0:
                return 1, best
            return 0, -1
        if best < 0 and ph > 0.0 and kn[K_HIDE] > 0.0:
            return 2, -1
        if hv > bv and scr[X_G][GS_BREAKING] == 0:     # breaking a standoff: attack
            return 2, -1
    if best >= 0:
        return 1, best
    return 0, -1


@njit(cache=True, _nrt=False)
def keep_hidden(scr, dat, kn, i):
    """AMB-T28: does hidden slot i, not attacking this turn, skip its specials to keep its
    Hide marker (using Entangle, Net, Mesmerize or Siren's Call would discard it)?

    The heuristic keeps hiding unless an enemy leader it could target stands within the
    reach of one of its specials (a paralysed or Sirened leader is worth the marker);
    ``random`` never gives its specials up (a coin would be a second policy for the
    baseline). Decision only: legality is the kernel's.
    """
    if kn[K_RANDOM] > 0.5:
        return False
    u = scr[X_U]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    t = u[i, UC_TYPE]
    reach = 0
    if units[t, U_ENTANGLE] == 1 or units[t, U_NET] == 1:
        reach = 1
    if units[t, U_MESMERIZE] == 1:
        reach = max(reach, np.int64(rules[R_MESMERIZE_RANGE]))
    if units[t, U_SIREN] == 1 or u[i, UC_SONG] > 0:
        reach = max(reach, np.int64(rules[R_SIREN_RANGE]))
    _own, foe_l = _leaders(scr, u[i, UC_SIDE])
    return not (foe_l >= 0 and dat[D_DIST][u[i, UC_CELL], u[foe_l, UC_CELL]] <= reach)


@njit(cache=True, _nrt=False)
def visible_target(scr, dat, kn, i, n):
    """After a failed search (AMB-T2 off): a target without a Hide marker, or -1."""
    u = scr[X_U]
    out = scr[X_ITMP]
    units = dat[D_UNITS]
    m = 0
    for k in range(n):
        if u[out[k], UC_HIDDEN] == 0:
            out[m] = out[k]
            m += 1
    if m == 0:
        return -1
    if kn[K_RANDOM] > 0.5:
        return out[rand_below(scr, m)]
    best = -1
    bv = -1.0
    for k in range(m):
        v = target_value(scr, dat, kn, i, out[k], units[u[i, UC_TYPE], U_AD])
        if v > bv:
            bv = v
            best = out[k]
    return best


@njit(cache=True, _nrt=False)
def special_target(scr, dat, kn, i, n):
    """Target of a pre-attack special (AT-A2) among ``itmp[0:n]``: the most dangerous
    unparalyzed enemy (the enemy leader first), or uniform for ``random``."""
    u = scr[X_U]
    out = scr[X_ITMP]
    units = dat[D_UNITS]
    if kn[K_RANDOM] > 0.5:
        return out[rand_below(scr, n)]
    best = -1
    bv = -1.0
    for k in range(n):
        j = out[k]
        tj = u[j, UC_TYPE]
        v = 1.0 + _worth(dat, tj) + units[tj, U_AD]
        if units[tj, U_LEADER] == 1:
            v += 10.0 * kn[K_LEADER_HUNT] + 5.0
        if paralysis(u, j) > 0:
            v *= 0.3
        if v > bv:
            bv = v
            best = j
    return best


@njit(cache=True, _nrt=False)
def split_dice(scr, dat, kn, i, T, pool, n):
    """AT-A6 Split: share ``pool`` dice among the adjacent targets ``itmp[0:n]``.

    ``alloc[T]`` holds the pool on entry. Random: each die to a uniform target. Heuristic:
    the main target T keeps the dice its expected kill needs (+1), the rest go to the
    other targets by worth.
    """
    u = scr[X_U]
    out = scr[X_ITMP]
    alloc = scr[X_ALLOC]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    in_list = False
    for k in range(n):
        if out[k] == T:
            in_list = True
    if not in_list:
        return                              # T is not adjacent (ranged split: one target)
    if kn[K_RANDOM] > 0.5:
        alloc[T] = 0
        for _ in range(pool):
            alloc[out[rand_below(scr, n)]] += 1
        if alloc[T] == 0:                   # the chosen target keeps at least one die
            for k in range(n):
                if alloc[out[k]] > 0:
                    alloc[out[k]] -= 1
                    break
            alloc[T] = 1
        return
    p = hit_prob(rules)
    if units[u[i, UC_TYPE], U_POISON] == 1:
        return
    left = units[u[T, UC_TYPE], U_DR] - u[T, UC_DMG]
    need = np.int64(np.ceil(left / max(p, 1e-9))) + 1
    if paralysis(u, T) > 0:
        need -= np.int64(rules[R_PARALYZED_BONUS])
    need = max(need, 1)
    if need >= pool:
        return
    spare = pool - need
    alloc[T] = need
    while spare > 0:
        best = -1
        bv = -1.0
        for k in range(n):
            j = out[k]
            if j == T or u[j, UC_HIDDEN] == 1:
                continue
            v = target_value(scr, dat, kn, i, j, alloc[j] + 1) - \
                target_value(scr, dat, kn, i, j, alloc[j])
            if v > bv:
                bv = v
                best = j
        if best < 0:
            alloc[T] += spare
            break
        alloc[best] += 1
        spare -= 1


# ---------------------------------------------------------------------------------------
# spells
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def heal_pick(scr, dat, kn, i, rng, only):
    """Healing (AMB-T16): the next friendly unit within ``rng`` to lose a marker, or -1.

    ``only`` >= 0 restricts the choice to that unit (healing_pool off). Leader damage
    first, then the most valuable damaged or paralyzed unit (all bots: the caster's
    obvious choice).
    """
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    dist = dat[D_DIST]
    ci = u[i, UC_CELL]
    best = -1
    bv = 0.0
    for j in range(g[GS_NSLOTS]):
        if only >= 0 and j != only:
            continue
        if u[j, UC_ALIVE] == 0 or u[j, UC_SIDE] != u[i, UC_SIDE]:
            continue
        if dist[ci, u[j, UC_CELL]] > rng:
            continue
        tj = u[j, UC_TYPE]
        v = 0.0
        if u[j, UC_DMG] > 0:
            v += 1.0 + _worth(dat, tj) + (20.0 if units[tj, U_LEADER] == 1 else 0.0)
        if paralysis(u, j) > 0:
            v += 0.5 + _worth(dat, tj)
        if v > bv:
            bv = v
            best = j
    return best


@njit(cache=True, _nrt=False)
def murky_pick(scr, dat, kn, i, rng, friendly_only):
    """Murky Depths (AMB-T13): the next unit within ``rng`` to get a Hide marker, or -1."""
    g = scr[X_G]
    u = scr[X_U]
    units = dat[D_UNITS]
    dist = dat[D_DIST]
    ci = u[i, UC_CELL]
    best = -1
    bv = -1.0
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or u[j, UC_HIDDEN] == 1:
            continue
        if u[j, UC_SIDE] != u[i, UC_SIDE]:
            continue                         # bots never hide enemies
        if dist[ci, u[j, UC_CELL]] > rng:
            continue
        tj = u[j, UC_TYPE]
        v = 1.0 + _worth(dat, tj) + (20.0 if units[tj, U_LEADER] == 1 else 0.0)
        if kn[K_RANDOM] > 0.5:
            v = 1.0 + rand_below(scr, 1000)
        if v > bv:
            bv = v
            best = j
    return best


@njit(cache=True, _nrt=False)
def resurrect_cell(scr, dat, kn, i, j):
    """Resurrection (AMB-T15): the hex next to the caster where slot j returns, or -1."""
    u = scr[X_U]
    nb = dat[D_NB]
    terrain = dat[D_TERRAIN]
    ter = scr[X_TER]
    large = dat[D_UNITS][u[j, UC_TYPE], U_LARGE]
    best = -1
    bv = 1e18
    for d in range(N_DIRS):
        c = nb[u[i, UC_CELL], d]
        if not can_enter(ter, scr[X_OCC], terrain, large, c):
            continue
        if terrain[ter[c], T_ENTRY_DEATH] == 1:
            continue
        v = scr[X_THREAT][c]
        if kn[K_RANDOM] > 0.5:
            v = rand_below(scr, 1000) * 1.0
        if v < bv:
            bv = v
            best = c
    return best


@njit(cache=True, _nrt=False)
def _adj_value(scr, dat, kn, c, side, exclude):
    """Enemy worth minus (doubled) friendly worth of units next to cell c."""
    u = scr[X_U]
    occ = scr[X_OCC]
    nb = dat[D_NB]
    units = dat[D_UNITS]
    v = 0.0
    for d in range(N_DIRS):
        nc = nb[c, d]
        if nc < 0:
            continue
        j = occ[nc]
        if j < 0 or j == exclude:
            continue
        tj = u[j, UC_TYPE]
        w = 1.0 + _worth(dat, tj)
        if units[tj, U_LEADER] == 1:
            w += 10.0
        if u[j, UC_SIDE] == side:
            v -= 2.0 * w
        elif u[j, UC_SIDE] < 2:
            v += w
    return v


@njit(cache=True, _nrt=False)
def spell_option(scr, dat, kn, i, sp, pick_random):
    """(worth, target) of the best use of spell ``sp`` by slot i; worth < 0: not castable.

    ``pick_random``: a uniform legal target instead (worth 1 when one exists).
    Targets: a cell for creation and terrain spells and Tangle Kelp, a dead slot for
    Resurrection, -1 for the rest.
    """
    g = scr[X_G]
    u = scr[X_U]
    occ = scr[X_OCC]
    units = dat[D_UNITS]
    spells = dat[D_SPELLS]
    terrain = dat[D_TERRAIN]
    dist = dat[D_DIST]
    rules = dat[D_RULES]
    side = u[i, UC_SIDE]
    ci = u[i, UC_CELL]
    own_l, foe_l = _leaders(scr, side)
    aggr = kn[K_SPELL_AGGR]
    prot = 1.5 - aggr
    C = g[GS_C]
    p = hit_prob(rules)
    rng = spells[sp, SPC_RANGE]
    if sp == SP_SIRENS_SONG:
        if units[u[i, UC_TYPE], U_SIREN] == 1 or u[i, UC_SONG] > 0:
            return -1.0, -1
        if pick_random:
            return 1.0, -1
        cnt = 0
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 1 and is_opponent(u, i, j) and dist[ci, u[j, UC_CELL]] <= 3:
                cnt += 1
        return 0.6 * cnt, -1
    if sp == SP_LUMINESCENCE:
        if pick_random:
            return 1.0, -1
        cnt = 0
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 1 and u[j, UC_HIDDEN] == 1 and is_opponent(u, i, j) \
                    and dist[ci, u[j, UC_CELL]] <= rng:
                cnt += 1
        return 0.3 * cnt, -1
    if sp == SP_HEALING:
        v = 0.0
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 1 and u[j, UC_SIDE] == side and dist[ci, u[j, UC_CELL]] <= rng:
                tj = u[j, UC_TYPE]
                lead = 6.0 if units[tj, U_LEADER] == 1 else 0.0
                v += min(u[j, UC_DMG], 3) * (0.3 * _worth(dat, tj) + 0.3 + lead)
                v += min(paralysis(u, j), 2) * (0.3 + 0.3 * _worth(dat, tj) + lead)
        if v <= 0.0:
            return -1.0, -1
        return (1.0 if pick_random else v * prot), -1
    if sp == SP_MURKY_DEPTHS:
        v = 0.0
        k = 0
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_ALIVE] == 1 and u[j, UC_SIDE] == side and u[j, UC_HIDDEN] == 0 \
                    and dist[ci, u[j, UC_CELL]] <= rng:
                tj = u[j, UC_TYPE]
                v += 0.2 + (3.0 if units[tj, U_LEADER] == 1 else 0.0) * \
                    (0.5 + scr[X_THREAT][u[j, UC_CELL]])
                k += 1
        if k == 0:
            return -1.0, -1
        return (1.0 if pick_random else v * prot), -1
    if sp == SP_RESURRECTION:
        best = -1
        bv = -1.0
        cnt = 0
        for j in range(g[GS_NSLOTS]):
            if u[j, UC_USED] == 0 or u[j, UC_ALIVE] == 1 or u[j, UC_SIDE] != side:
                continue
            tj = u[j, UC_TYPE]
            if units[tj, U_LEADER] == 1:
                continue
            if resurrect_cell(scr, dat, kn, i, j) < 0:
                break                        # no free hex next to the caster for anyone
            cnt += 1
            v = units[tj, U_AD] * units[tj, U_DR] / 4.0 + 0.5
            if pick_random:
                v = 1.0 + rand_below(scr, 1000)
            if v > bv:
                bv = v
                best = j
        if best < 0:
            return -1.0, -1
        return (1.0 if pick_random else bv), best
    # cell-targeted spells
    creates = spells[sp, SPC_CREATES]
    sets = spells[sp, SPC_SETS_TERRAIN]
    nlegal = 0
    best = -1
    bv = -1e18
    for c in range(C):
        if dist[ci, c] > rng:
            continue
        if not spell_cell_ok(scr, dat, i, sp, c):
            continue
        j = occ[c]
        if sp == SP_TANGLE_KELP and j < 0:
            continue                         # "target unit"
        nlegal += 1
        if pick_random:
            continue
        if sets >= 0 and sp != SP_FREEZE and scr[X_TER][c] == sets:
            continue                         # the hex has that terrain already: no effect
        v = -1e18
        if creates >= 0:
            ct = creates
            v = 0.3 + 0.3 * _worth(dat, ct)
            adj = _adj_value(scr, dat, kn, c, side, -1)
            if adj > 0:
                v += 0.5 * adj * p * units[ct, U_AD]
            if own_l >= 0 and dist[c, u[own_l, UC_CELL]] <= 2:
                v += prot * units[ct, U_DR] * 0.3
            if units[ct, U_MV] == 0 and adj <= 0:
                v *= 0.3                     # an immobile creature away from the enemy
        elif sp == SP_TANGLE_KELP or sp == SP_FREEZE:
            if j < 0 or not is_opponent(u, i, j):
                continue
            tj = u[j, UC_TYPE]
            v = 0.5 + _worth(dat, tj) + units[tj, U_AD] * 0.2
            if units[tj, U_LEADER] == 1:
                v += 4.0 * aggr + 2.0
            if own_l >= 0 and dist[c, u[own_l, UC_CELL]] <= 3:
                v += prot * units[tj, U_AD] * 0.5
            if paralysis(u, j) > 0:
                v *= 0.4
            if sp == SP_FREEZE and terrain[scr[X_TER][c], T_ENTRY_DEATH] == 1:
                v -= 2.0
        elif sp == SP_WHIRLPOOL:
            if j < 0 or not is_opponent(u, i, j):
                continue
            tj = u[j, UC_TYPE]
            v = 0.1 * units[tj, U_AD] * aggr
        elif sets >= 0:
            # Vortex / Eruption: lethal terrain next to enemies, away from friends
            adj = _adj_value(scr, dat, kn, c, side, -1)
            if terrain[sets, T_ADJ_DEATH_FACES] > 0:
                v = adj * 0.6 * aggr
            else:
                v = adj * p * aggr
        if v > bv:
            bv = v
            best = c
    if nlegal == 0:
        return -1.0, -1
    if pick_random:
        r = rand_below(scr, nlegal)
        for c in range(C):
            if dist[ci, c] > rng:
                continue
            if not spell_cell_ok(scr, dat, i, sp, c):
                continue
            if sp == SP_TANGLE_KELP and occ[c] < 0:
                continue
            if r == 0:
                return 1.0, c
            r -= 1
    if best < 0:
        return -1.0, -1
    return bv, best


@njit(cache=True, _nrt=False)
def choose_spell(scr, dat, kn, i, lum_end):
    """AT-E2: (chit index, target) slot i casts this End phase, or (-1, -1) to pass.

    ``lum_end``: Luminescence is cast in the End phase too (AMB-T25 end_phase); with
    any_time the heuristic bots keep it for the attack phase.
    """
    u = scr[X_U]
    chits = scr[X_CHITS]
    n = u[i, UC_NCHITS]
    if kn[K_RANDOM] > 0.5:
        # uniform over: pass, and each chit that has a legal target
        m = 1
        for k in range(n):
            v, tg = spell_option(scr, dat, kn, i, chits[i, k], np.bool_(True))
            if v >= 0.0:
                m += 1
        r = rand_below(scr, m)
        if r == 0:
            return -1, -1
        for k in range(n):
            v, tg = spell_option(scr, dat, kn, i, chits[i, k], np.bool_(True))
            if v >= 0.0:
                r -= 1
                if r == 0:
                    return k, tg
        return -1, -1
    best = -1
    bt = -1
    bv = SPELL_MIN
    for k in range(n):
        sp = chits[i, k]
        if sp == SP_LUMINESCENCE and not lum_end:
            continue
        v, tg = spell_option(scr, dat, kn, i, sp, np.bool_(False))
        if v > bv:
            bv = v
            best = k
            bt = tg
    return best, bt


@njit(cache=True, _nrt=False)
def want_luminescence(scr, dat, kn, i):
    """AMB-T25: cast Luminescence now, before the side's attacks?"""
    if kn[K_RANDOM] > 0.5:
        return rand_below(scr, 2) == 1
    g = scr[X_G]
    u = scr[X_U]
    dist = dat[D_DIST]
    spells = dat[D_SPELLS]
    ci = u[i, UC_CELL]
    rng = spells[SP_LUMINESCENCE, SPC_RANGE]
    cnt = 0
    for j in range(g[GS_NSLOTS]):
        if u[j, UC_ALIVE] == 0 or u[j, UC_HIDDEN] == 0 or not is_opponent(u, i, j):
            continue
        cj = u[j, UC_CELL]
        if dist[ci, cj] > rng:
            continue
        for k in range(g[GS_NSLOTS]):
            if u[k, UC_ALIVE] == 1 and u[k, UC_SIDE] == u[i, UC_SIDE] and \
                    dist[u[k, UC_CELL], cj] <= 2 and can_attack(scr, dat, k):
                cnt += 1
                if dat[D_UNITS][u[j, UC_TYPE], U_LEADER] == 1:
                    cnt += 2
                break
    return cnt >= 2
