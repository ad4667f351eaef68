"""DEEPFALL bots: every decision the rules offer, driven by a row of numeric knobs.

The rules (kernel.py) ask; the bots answer. A bot is a style from ``bots.yaml``: ``random``
picks uniformly among the legal choices at every decision (the baseline); the other styles
(cautious, balanced, greedy, martyr) share one heuristic whose knobs (layout.KNOBS) set how
hard it presses on, how deep it goes, when it Cashes Out and when it makes a Last Stand.
Bots read the game state but never change what the rules read (the random bot draws
from the game's random stream; two caches in the state make repeated reads cheaper and
give the same values: board.rival_best's per room, and press_on's GS_SHORT_* once per
step 2). Every decision takes the state ``st``, the data ``dat`` and the seat's
knob row ``kn`` (see board.py).

Compile time (docs/performance.md): the decisions the kernel calls (``choose_room``,
``press_on``...) and the larger helpers are ``forceinline=True``: numba compiles each once
and LLVM inlines it into the turn, as fast as numba-IR inlining (``inline="always"``), which
re-typed their bodies at every call site and made the turn take minutes to compile. Small
helpers stay IR-inlined.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rulesets.deepfall.board import (
    GS_COLLAPSED,
    GS_SHORT_NC,
    GS_SHORT_NS,
    GS_SHORT_SET,
    GS_SLOTS,
    SD_DEEPEST,
    SD_FLOOR,
    SD_MARKS,
    SD_PROG_CUNNING,
    SD_PROG_FLOOR,
    SD_PROG_SLOT,
    SD_PROG_STEEL,
    SD_STAND,
    doomed_this_round,
    floor_marks,
    holds,
    ls_affordable,
    next_floor,
    rand_below,
    rival_best,
    rounds_until,
    strength_of,
)
from deepsim.rulesets.deepfall.layout import (
    CUNNING,
    DREAD,
    E_DREAD_CANCEL,
    E_FAITH_PENALTY,
    E_FREE_LAST_STAND,
    E_HAND,
    E_MARKER_STRENGTH,
    E_MARKER_WEIGHT,
    E_MOVES,
    E_NO_FAITH_CANCEL,
    E_SETBACK_IMMUNE,
    E_SOLO_VAULT,
    E_THREAT_IGNORE,
    E_WORTHY_MULT,
    FAITH,
    K_ASSAULT_REACH,
    K_CASH_DEPTH,
    K_CASH_LOOT,
    K_CONTEST,
    K_DREAD_STOP,
    K_EXIT_VIA,
    K_LAST_STAND,
    K_MAW_MARGIN,
    K_PRESS_MAX,
    K_PRESS_RISK,
    K_PRESS_SHORT,
    K_RANDOM,
    K_RECRUIT_MAX,
    K_REINFORCE,
    K_SAFETY,
    K_TARGET_DEPTH,
    METTLE,
    N_FACES,
    N_FLOORS,
    R_ASSAULT,
    R_BASE_STRENGTH,
    R_DIVIDEND,
    R_FREE_MOVES,
    R_GLORY_PER_LOOT,
    R_HAND,
    R_LS_COST,
    R_MAX_SURPLUS,
    R_MOVE_COST,
    R_REINFORCE,
    R_SETBACK_AT,
    R_WORTHY_DEPTH_BASIS,
    R_WORTHY_KEEPS_LOOT,
    R_WORTHY_MULT,
    RM_LOCK,
    RM_PRODUCES,
    RM_THREAT,
    RM_TRINITY,
    RM_VALUE,
    STEEL,
    THRONE_THEME,
)

VAULT_OR_THRONE_BONUS = 3.0   # heuristic: a held Vault/Throne makes a Last Stand free


@njit(cache=True, _nrt=False, inline="always")
def _coin(st):
    return rand_below(st, 2) == 1


@njit(cache=True, _nrt=False, inline="always")
def claim_need(st, dat, fi, s, p):
    """(steel, cunning) still needed for room (fi, s), after Dvergar and assault progress."""
    rooms = dat.book.rooms
    sd = st.sd
    th = st.theme[fi, s]
    ns = rooms[th, RM_THREAT] - np.int64(st.eff[p, E_THREAT_IGNORE])
    nc = rooms[th, RM_LOCK]
    if (dat.book.rules[R_ASSAULT] > 0.5 and sd[p, SD_PROG_FLOOR] == fi
            and sd[p, SD_PROG_SLOT] == s):
        ns -= sd[p, SD_PROG_STEEL]
        nc -= sd[p, SD_PROG_CUNNING]
    return max(ns, 0), max(nc, 0)


@njit(cache=True, _nrt=False, inline="always")
def room_score(st, dat, kn, fi, s, p, surplus):
    """Heuristic worth of placing a marker in room (fi, s); <= 0 means not worth it."""
    rules = dat.book.rules
    rooms = dat.book.rooms
    eff = st.eff
    th = st.theme[fi, s]
    value = (rooms[th, RM_VALUE] + st.plunder[fi, s]) * dat.book.depth[fi]
    mine = strength_of(st, dat, fi, s, p)
    rival = rival_best(st, dat, fi, s, p)
    cap = rules[R_MAX_SURPLUS]
    m = (rules[R_BASE_STRENGTH] + eff[p, E_MARKER_STRENGTH] + min(surplus, cap)) \
        * eff[p, E_MARKER_WEIGHT]
    if rules[R_REINFORCE] < 0.5 and st.act_cnt[fi, s, p] > 0:
        return -1.0                 # A34 off: no second marker in a room the crew holds
    score = 0.0
    if mine > rival:
        if kn[K_REINFORCE] > 0.5 and rival > 0:
            score = 0.3 * value
        else:
            return -1.0
    elif mine + m > rival:
        score = value
    elif kn[K_CONTEST] > 0.5:
        score = 0.1 * value
    else:
        return -1.0
    if rooms[th, RM_PRODUCES] >= 0:
        score += 1.0
    if rooms[th, RM_TRINITY] == 1 or th == THRONE_THEME:
        score += VAULT_OR_THRONE_BONUS * kn[K_LAST_STAND]
    return score


@njit(cache=True, _nrt=False, inline="always")
def adds_strength(ns, nc, steel, cun):
    """Can the crew pour anything into a room still needing (ns, nc)? (§7.1 assault)"""
    return (ns > 0 and steel > 0) or (nc > 0 and cun > 0)


@njit(cache=True, _nrt=False, inline="always")
def trinity_ok(st, dat, p, th):
    """§7.1: may the crew claim a room of theme ``th`` with this turn's trinity symbols?"""
    if dat.book.rooms[th, RM_TRINITY] == 0:
        return True
    trin = st.trin
    if trin[STEEL] > 0 and trin[CUNNING] > 0 and trin[FAITH] > 0:
        return True
    return st.eff[p, E_SOLO_VAULT] > 0.5


@njit(cache=True, _nrt=False, forceinline=True)
def best_claim(st, dat, kn, p, fi, steel, cun):
    """(slot, score) of the best room of floor index ``fi`` the crew can claim now with
    ``steel`` and ``cun`` (-1, 0.0 when none is worth it). The marker's strength counts
    every surplus symbol the claim pours in, Steel and Cunning alike (§7.1, A9: the kernel
    pours both)."""
    gone = st.gone
    best_s = -1
    best = 0.0
    for s in range(st.g[GS_SLOTS]):
        if gone[fi, s] == 1:
            continue
        ns, nc = claim_need(st, dat, fi, s, p)
        if steel >= ns and cun >= nc and trinity_ok(st, dat, p, st.theme[fi, s]):
            sc = room_score(st, dat, kn, fi, s, p, steel - ns + cun - nc)
            if sc > best:
                best = sc
                best_s = s
    return best_s, best


@njit(cache=True, _nrt=False, forceinline=True)
def best_assault(st, dat, kn, p, fi, steel, cun):
    """(slot, score) of the room of floor index ``fi`` best worth assaulting with ``steel``
    and ``cun`` (-1, 0.0 when none): see :func:`choose_room`."""
    gone = st.gone
    best_s = -1
    best = 0.0
    # progress pays off only in a later turn on this floor (A25): none if the floor falls
    # this round; otherwise the turns until it falls (claims are still possible in the turn
    # of the round it falls) must be able to bring what the pour leaves missing
    if doomed_this_round(st, dat, fi + 1, p, kn[K_MAW_MARGIN], False):
        return -1, 0.0
    turns = max(1.0, np.ceil(rounds_until(st, dat, fi + 1)) - 1.0)
    es, ec = turn_yield(st, dat, kn, p)
    reach_s = kn[K_ASSAULT_REACH] * turns * es
    reach_c = kn[K_ASSAULT_REACH] * turns * ec
    sd = st.sd
    for s in range(st.g[GS_SLOTS]):
        if gone[fi, s] == 1:
            continue
        ns, nc = claim_need(st, dat, fi, s, p)
        if not adds_strength(ns, nc, steel, cun):
            continue                # nothing to pour in: the attempt would change nothing
        if ns - min(steel, ns) > reach_s or nc - min(max(cun, 0), nc) > reach_c:
            continue                # the rest is out of reach before the floor falls
        sc = room_score(st, dat, kn, fi, s, p, 0)
        if sd[p, SD_PROG_FLOOR] == fi and sd[p, SD_PROG_SLOT] == s:
            sc *= 1.5               # keep chipping at the same room (A25)
        if sc > best:
            best = sc
            best_s = s
    return best_s, best


@njit(cache=True, _nrt=False, forceinline=True)
def turn_yield(st, dat, kn, p):
    """Expected (Steel, Cunning) one turn of the crew's draws brings (a bot's estimate).

    A turn draws a hand of ``turn.hand_size`` (+ the company's) and up to ``press_max``
    more (§6A.1-2), at most the crew's dice; each die shows its type's faces with equal
    chance (§5). Production and bonuses are left out.
    """
    faces = dat.book.faces
    bag = st.bag
    drawn = st.drawn
    disc = st.disc
    total = 0
    steel = 0.0
    cun = 0.0
    for t in range(faces.shape[0]):
        c = bag[p, t] + drawn[p, t] + disc[p, t]
        if c == 0:
            continue
        total += c
        for f in range(N_FACES):
            if faces[t, f] == STEEL:
                steel += c / 6.0
            elif faces[t, f] == CUNNING:
                cun += c / 6.0
    if total == 0:
        return 0.0, 0.0
    h = max(1.0, dat.book.rules[R_HAND] + st.eff[p, E_HAND])
    dice = min(np.float64(total), h * (1.0 + kn[K_PRESS_MAX]))
    return steel / total * dice, cun / total * dice


@njit(cache=True, _nrt=False, forceinline=True)
def choose_room(st, dat, kn, p, fi, keep_c, allow_assault):
    """Which room of floor index ``fi`` to claim (§7.1), or to keep assaulting.

    Returns (slot, assault): slot -1 = no claim; assault True = pour Steel/Cunning in as
    progress on an out-of-reach room: one the crew can pour into, on a floor that stands
    past this round, whose rest the crew can expect to bring (``assault_reach`` x the
    expected yield of its turns until the floor falls, :func:`turn_yield`). ``keep_c``
    Cunning is kept back for Moves.
    """
    gone = st.gone
    sym = st.sym
    rules = dat.book.rules
    slots = st.g[GS_SLOTS]
    steel = sym[STEEL]
    cun = sym[CUNNING] - keep_c
    if kn[K_RANDOM] > 0.5:
        # uniform over: no claim, each affordable room, each room to assault
        n_opt = 1
        for s in range(slots):
            if gone[fi, s] == 0:
                ns, nc = claim_need(st, dat, fi, s, p)
                claim = steel >= ns and cun >= nc and trinity_ok(st, dat, p, st.theme[fi, s])
                if claim or (allow_assault and rules[R_ASSAULT] > 0.5
                             and adds_strength(ns, nc, steel, cun)):
                    n_opt += 1
        pick = rand_below(st, n_opt)
        if pick == 0:
            return -1, False
        k = 0
        for s in range(slots):
            if gone[fi, s] == 0:
                ns, nc = claim_need(st, dat, fi, s, p)
                if steel >= ns and cun >= nc and trinity_ok(st, dat, p, st.theme[fi, s]):
                    k += 1
                    if k == pick:
                        return s, False
                elif allow_assault and rules[R_ASSAULT] > 0.5 and adds_strength(ns, nc, steel, cun):
                    k += 1
                    if k == pick:
                        return s, True
        return -1, False
    best_s, _best = best_claim(st, dat, kn, p, fi, steel, cun)
    if best_s >= 0:
        return best_s, False
    if not allow_assault or rules[R_ASSAULT] < 0.5 or (steel <= 0 and cun <= 0):
        return -1, False
    best_s, _best = best_assault(st, dat, kn, p, fi, steel, cun)
    return best_s, best_s >= 0


@njit(cache=True, _nrt=False, forceinline=True)
def choose_floor(st, dat, kn, p, before_roll):
    """Floor number the crew wants to end its turn on (moves are paid by the kernel)."""
    sd = st.sd
    rules = dat.book.rules
    cur = sd[p, SD_FLOOR]
    lowest = next_floor(st)
    if kn[K_RANDOM] > 0.5:
        if before_roll:
            return cur
        lo = max(1, cur - 2)
        hi = min(lowest, cur + 2)
        return lo + rand_below(st, hi - lo + 1)
    if sd[p, SD_STAND] == 1:
        return lowest               # a Last Stand wants depth and an early Taking
    if kn[K_LAST_STAND] > 1.5:
        return min(lowest, np.int64(kn[K_TARGET_DEPTH]))
    margin = kn[K_MAW_MARGIN]
    if (kn[K_LAST_STAND] > 0.5
            and doomed_this_round(st, dat, cur, p, margin, before_roll)
            and sd[p, SD_DEEPEST] >= np.int64(kn[K_TARGET_DEPTH]) - 1
            and (st.eff[p, E_FREE_LAST_STAND] > 0.5
                 or st.sym[METTLE] >= rules[R_LS_COST] or before_roll)):
        return cur                  # stay and make the Last Stand here
    safe = 1
    for fl in range(lowest, 0, -1):
        if rounds_until(st, dat, fl) > kn[K_SAFETY] and not doomed_this_round(
                st, dat, fl, p, margin, before_roll):
            safe = fl
            break
    t = np.int64(kn[K_TARGET_DEPTH])
    return min(safe, t)


@njit(cache=True, _nrt=False, forceinline=True)
def setback_chance(st, dat, p, net):
    """Chance that another hand (§6A.2) leaves ``turn.setback_threshold`` or more Dread
    uncanceled (§6A.3), given ``net`` uncanceled now (a bot's estimate).

    The hand's h dice (hand size, at most the dice left in the bag) each show Dread or
    Faith with their die type's share of the bag's faces (drawn with replacement: the
    bag's mix); a Faith cancels a Dread unless the company cannot (Revenant), after the
    Faith its per-turn penalty still eats (Dvergar, Gnoll: A11). Exact over that model:
    the multinomial sum over (Dread, Faith) counts.
    """
    faces = dat.book.faces
    rules = dat.book.rules
    bag = st.bag
    eff = st.eff
    total = 0
    pd = 0.0
    pf = 0.0
    for t in range(faces.shape[0]):
        c = bag[p, t]
        if c == 0:
            continue
        total += c
        for f in range(N_FACES):
            if faces[t, f] == DREAD:
                pd += c / 6.0
            elif faces[t, f] == FAITH:
                pf += c / 6.0
    if total == 0:
        return 0.0
    pd /= total
    pf /= total
    if eff[p, E_NO_FAITH_CANCEL] > 0.5:
        pf = 0.0
    absorb = max(0.0, eff[p, E_FAITH_PENALTY] - st.sym[FAITH])
    h = np.int64(max(1.0, rules[R_HAND] + eff[p, E_HAND]))
    h = min(h, total)
    p0 = max(0.0, 1.0 - pd - pf)
    need = rules[R_SETBACK_AT] - net
    chance = 0.0
    fact_h = 1.0
    for k in range(2, h + 1):
        fact_h *= k
    fact_d = 1.0
    for d in range(h + 1):
        if d > 0:
            fact_d *= d
        fact_f = 1.0
        for f in range(h - d + 1):
            if f > 0:
                fact_f *= f
            if d - max(0.0, f - absorb) < need:
                continue
            rest = h - d - f
            fact_r = 1.0
            for k in range(2, rest + 1):
                fact_r *= k
            chance += fact_h / (fact_d * fact_f * fact_r) * pd ** d * pf ** f * p0 ** rest
    return min(chance, 1.0)


@njit(cache=True, _nrt=False, forceinline=True)
def press_on(st, dat, kn, p, presses, target_floor):
    """§6A.2: draw and roll another hand? (the kernel checks the bag is not empty)

    Heuristic: at most ``press_max`` Press Ons; stop once the uncanceled Dread reaches the
    Setback threshold minus ``dread_stop``, or when the chance that the next hand brings a
    Setback (:func:`setback_chance`) is above ``press_risk``; with ``press_when_short``
    press only while the best room of the target floor is out of reach.
    """
    if kn[K_RANDOM] > 0.5:
        return _coin(st)
    if presses >= kn[K_PRESS_MAX]:
        return False
    sym = st.sym
    eff = st.eff
    cancel = eff[p, E_DREAD_CANCEL]
    if eff[p, E_NO_FAITH_CANCEL] < 0.5:
        cancel += max(0.0, sym[FAITH] - eff[p, E_FAITH_PENALTY])
    net = sym[DREAD] - cancel
    if eff[p, E_SETBACK_IMMUNE] < 0.5:
        if net >= dat.book.rules[R_SETBACK_AT] - kn[K_DREAD_STOP] - 0.5:
            return False
        if kn[K_PRESS_RISK] < 1.0 and \
                setback_chance(st, dat, p, net) > kn[K_PRESS_RISK]:
            return False
    if kn[K_PRESS_SHORT] < 0.5:
        return True
    # press only while the best room of the target floor is out of reach; what that room
    # needs is found once per step 2 (GS_SHORT_*: the rooms' scores and needs do not change
    # while the crew presses on, only its symbols do)
    g = st.g
    if g[GS_SHORT_SET] == 0:
        fi = target_floor - 1
        gone = st.gone
        best = 0.0
        bs = 0
        bc = 0
        for s in range(g[GS_SLOTS]):
            if gone[fi, s] == 1:
                continue
            sc = room_score(st, dat, kn, fi, s, p, 0)
            if sc > best:
                best = sc
                bs, bc = claim_need(st, dat, fi, s, p)
        g[GS_SHORT_NS] = bs
        g[GS_SHORT_NC] = bc
        g[GS_SHORT_SET] = 1
    return sym[STEEL] < g[GS_SHORT_NS] or sym[CUNNING] < g[GS_SHORT_NC]


@njit(cache=True, _nrt=False, inline="always")
def moves_cunning(st, dat, kn, p, target_floor):
    """Cunning the extra Moves to ``target_floor`` would take (§6A.4: one free Move, ±
    company, then 1 Cunning or 1 Mettle each): what the Mettle above the Last-Stand
    reserve (:func:`mettle_reserve`) cannot pay."""
    rules = dat.book.rules
    free = np.int64(rules[R_FREE_MOVES] + st.eff[p, E_MOVES])
    extra = abs(target_floor - st.sd[p, SD_FLOOR]) - free
    if extra <= 0:
        return 0
    spare_m = st.sym[METTLE] - mettle_reserve(st, dat, kn, p)
    keep = extra * np.int64(rules[R_MOVE_COST]) - max(0, spare_m)
    return max(0, keep)


@njit(cache=True, _nrt=False, inline="always")
def move_plan(st, dat, kn, p, target_floor):
    """(floor reached, Cunning left) if seat p's crew Moved toward ``target_floor`` now,
    paying as kernel.move pays (§6A.4: the free Moves ± company, then each extra Move with
    Mettle above the Last-Stand reserve, else Cunning, else the reserve's Mettle), without
    changing the state: where a claim "on arrival" is made and with what."""
    rules = dat.book.rules
    free = np.int64(rules[R_FREE_MOVES] + st.eff[p, E_MOVES])
    cost = np.int64(rules[R_MOVE_COST])
    keep_m = mettle_reserve(st, dat, kn, p)
    m = st.sym[METTLE]
    c = st.sym[CUNNING]
    cur = st.sd[p, SD_FLOOR]
    used = 0
    while cur != target_floor:
        if used >= free:
            if m - keep_m >= cost:
                m -= cost
            elif c >= cost:
                c -= cost
            elif m >= cost:
                m -= cost
            else:
                break
        used += 1
        cur += 1 if target_floor > cur else -1
    return cur, c


@njit(cache=True, _nrt=False, forceinline=True)
def claim_here_first(st, dat, kn, p, target_floor):
    """Claim on the current floor before moving away? (spending order is free, §6A.4)

    Returns -1 to move first (and claim on arrival), else the Cunning the claim leaves for
    the extra Moves (:func:`moves_cunning`), so the crew still reaches ``target_floor``.
    Leaving upward (this floor falls sooner) the bot claims first. Otherwise it claims
    first when the best claim here beats what it could do on arrival: the claim here is
    scored with exactly the symbols :func:`choose_room` will then have (the Cunning less
    what the Moves need: none when the crew lacks it), and arrival is the floor the Moves
    reach (:func:`move_plan`, which need not be ``target_floor``) with the Cunning they
    leave, where the best claim, or else the best assault, is scored. The random bot
    tosses a coin.
    """
    sd = st.sd
    keep = moves_cunning(st, dat, kn, p, target_floor)
    if kn[K_RANDOM] > 0.5:
        return keep if _coin(st) else -1
    if target_floor < sd[p, SD_FLOOR]:
        return keep
    steel = st.sym[STEEL]
    s_here, here = best_claim(st, dat, kn, p, sd[p, SD_FLOOR] - 1, steel,
                               st.sym[CUNNING] - keep)
    if s_here < 0:
        return -1
    there = arrival_score(st, dat, kn, p, target_floor)
    return keep if here > there else -1


@njit(cache=True, _nrt=False, forceinline=True)
def arrival_score(st, dat, kn, p, target_floor):
    """Score of the best claim (else the best assault) on the floor the crew's Moves toward
    ``target_floor`` reach, with the Steel it has and the Cunning the Moves leave: what
    :func:`choose_room` will score there after the Move (0.0 when nothing)."""
    dest, cun = move_plan(st, dat, kn, p, target_floor)
    fi = dest - 1
    steel = st.sym[STEEL]
    s_there, there = best_claim(st, dat, kn, p, fi, steel, cun)
    if s_there < 0 and dat.book.rules[R_ASSAULT] > 0.5 and (steel > 0 or cun > 0):
        _s, there = best_assault(st, dat, kn, p, fi, steel, cun)
    return there


@njit(cache=True, _nrt=False, inline="always")
def move_reach(st, dat, p):
    """Floors seat p's crew can still move this turn with its symbols (§6A.4: the free
    Moves ± company, then one per ``move.cost`` of Mettle or of Cunning); 6 when Moves are
    free. The target floors a search bot weighs (kernel.search_turn) lie within it."""
    rules = dat.book.rules
    free = max(0, np.int64(rules[R_FREE_MOVES] + st.eff[p, E_MOVES]))
    cost = np.int64(rules[R_MOVE_COST])
    if cost <= 0:
        return np.int64(N_FLOORS)
    return min(np.int64(N_FLOORS), free + st.sym[METTLE] // cost + st.sym[CUNNING] // cost)


@njit(cache=True, _nrt=False, forceinline=True)
def mettle_reserve(st, dat, kn, p):
    """Mettle the bot keeps back for a Last Stand (not spent on Moves or recruits)."""
    if kn[K_RANDOM] > 0.5:
        return 0
    sd = st.sd
    if sd[p, SD_STAND] == 1 or st.eff[p, E_FREE_LAST_STAND] > 0.5:
        return 0
    cost = np.int64(dat.book.rules[R_LS_COST])
    if kn[K_LAST_STAND] > 1.5 or (kn[K_LAST_STAND] > 0.5 and sd[p, SD_DEEPEST] >= 4):
        return cost
    if kn[K_LAST_STAND] > 0.5 and next_floor(st) <= 2:
        return cost                 # the final collapse is near
    return 0


@njit(cache=True, _nrt=False, forceinline=True)
def recruits(st, dat, kn, p, cost):
    """§8: how many dice to recruit this turn (the kernel stops when Mettle runs out)."""
    sym = st.sym
    if cost <= 0:
        top = 3
    else:
        top = sym[METTLE] // cost
    if kn[K_RANDOM] > 0.5:
        return rand_below(st, top + 1)
    spare = sym[METTLE] - mettle_reserve(st, dat, kn, p)
    k = spare // cost if cost > 0 else 3
    return max(0, min(k, np.int64(kn[K_RECRUIT_MAX])))


@njit(cache=True, _nrt=False, inline="always")
def held_value(st, dat, p):
    """Glory the crew's held rooms would score at collapse (what a Last Stand consumes)."""
    rooms = dat.book.rooms
    tot = 0.0
    marks = st.sd[p, SD_MARKS]          # holding needs active markers: only those rooms
    for fi in range(N_FLOORS - st.g[GS_COLLAPSED] - 1):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(st.g[GS_SLOTS]):
            if (fm >> s) & 1 == 1 and st.gone[fi, s] == 0 and holds(st, dat, fi, s, p):
                th = st.theme[fi, s]
                tot += (rooms[th, RM_VALUE] + st.plunder[fi, s]) * dat.book.depth[fi]
    return tot


@njit(cache=True, _nrt=False, forceinline=True)
def exit_choice(st, dat, kn, p):
    """§7.3: 0 Stay, 1 Cash Out, 2 declare a Last Stand. Whether the crew can pay for a
    Last Stand (board.ls_affordable) is asked only where it decides. ``exit_via`` 1 or 2
    keeps the heuristic's moment of leaving and steers the way out: always a Cash Out, or
    a Last Stand whenever one can be paid for (else a Cash Out)."""
    c = _exit_heuristic(st, dat, kn, p)
    if c == 0 or kn[K_EXIT_VIA] < 0.5 or kn[K_RANDOM] > 0.5:
        return c
    if kn[K_EXIT_VIA] > 1.5 and (c == 2 or ls_affordable(st, dat, p)):
        return 2
    return 1


@njit(cache=True, _nrt=False, forceinline=True)
def _exit_heuristic(st, dat, kn, p):
    sd = st.sd
    rules = dat.book.rules
    if sd[p, SD_STAND] == 1:
        return 0
    if kn[K_RANDOM] > 0.5:
        k = rand_below(st, 3 if ls_affordable(st, dat, p) else 2)
        return k
    cur = sd[p, SD_FLOOR]
    deepest = sd[p, SD_DEEPEST]
    loot = st.loot[p]
    if kn[K_LAST_STAND] > 1.5 and deepest >= kn[K_TARGET_DEPTH] and ls_affordable(st, dat, p):
        return 2
    if doomed_this_round(st, dat, cur, p, kn[K_MAW_MARGIN], False):
        if (kn[K_LAST_STAND] > 0.5 or cur == 1) and ls_affordable(st, dat, p):
            basis = np.float64(deepest)
            if rules[R_WORTHY_DEPTH_BASIS] > 0.5:
                basis = np.float64(dat.book.depth[deepest - 1])
            worthy = basis * rules[R_WORTHY_MULT] * st.eff[p, E_WORTHY_MULT]
            if rules[R_WORTHY_KEEPS_LOOT] > 0.5:
                worthy += loot * rules[R_GLORY_PER_LOOT]
            cash = loot * rules[R_GLORY_PER_LOOT] + rules[R_DIVIDEND] * deepest
            if worthy - cash > 0.5 * held_value(st, dat, p):
                return 2
        return 1
    if loot >= kn[K_CASH_LOOT] and deepest >= kn[K_CASH_DEPTH]:
        return 1
    return 0
