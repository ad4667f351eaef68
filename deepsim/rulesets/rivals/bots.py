"""Rivals bots: every decision a player makes, from the public view and its knobs alone.

A bot receives ``pub`` (``kernel.view``: the public arrays, its plan and work buffers, its
own random stream) and the compiled data (``board.D_*``), never the decks. The kernel asks:

- :func:`deploy`: the order its models go onto its spawn tiles (RV-S8);
- :func:`choose`: the next activation of its turn (RV-A): a movement activation (a tile
  and, per model on it, a destination and a movement action), a reinforcement (RV-A8), an
  attack activation (a tile and, per model, a target and whether to pay for Focus), an
  attack action (search coral or a den, RV-X2/X3), a pass (AMB-13) or the end of its turn;
- :func:`defend_focus`: whether a model of its pays for Focus on a defence roll (RV-C4);
- :func:`plan_tile_move`: the move of the models just brought in (AMB-35).

Every bot style is this one code with its knobs (bots.yaml). ``random`` is uniform over the
legal choices at every decision (the baseline). The heuristic is greedy per activation:
each legal activation is scored and the best taken if it is worth ``act_min``:

- an attack: per attacking model, its best target's P(kill) x ``focus_kill`` x cost / 10
  + E[wounds] x ``focus_wound`` (Lurkers weighted by ``lurker_hunt``), from a table of
  P(net hits >= k) per pair of pools (dice.net_table);
- a move: per model, the gain in position value of its best destination (board.reach):
  ``ready`` x the best attack it could make from there, - ``caution`` x the wounds it may
  take there next round (rivals that can reach it, Lurkers beside it, weighted by
  ``den_avoid``), - ``advance`` x its distance beyond RANGE to the nearest rival,
  ``keep_range``, ``rock_pref``, ``coral_avoid``, and the search chances of the tile;
  Swim and Charge only when they gain ``move_bonus_min`` more;
- searches by ``search_coral`` and ``lurker_hunt``; reinforcements by ``reinforce``.

The standoff breaker: after ``standoff_rounds`` rounds without an attack, ``advance`` x 3,
``caution`` x 0.25 and no ``keep_range`` (Atlantis's lesson: careful bots stall).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rng import below, uniform
from deepsim.rulesets.rivals.dice import DR_BEYOND_TOP, upgrade_weakest
from deepsim.rulesets.rivals.board import (
    D_DIST,
    D_DR,
    D_EVMETA,
    D_EVTAB,
    D_FACES,
    D_KNOBS,
    D_LURK,
    D_MLOS,
    D_MODTAB,
    D_NB,
    D_NFACES,
    D_PIDX,
    D_RULES,
    D_UNITS,
    CLS_CORAL,
    CLS_ROCK,
    N_CLS,
    can_pass,
    can_stop,
    class_pool,
    model_pool,
    reach,
    target_ok,
    tile_class,
)
from deepsim.rulesets.rivals.layout import (
    MOD_AUTO,
    MOD_DEG_ATT,
    MOD_DEG_DEF,
    MOD_N,
    MOD_UP_ATT,
    MOD_UP_DEF,
    SIT_SWIM,
    ACT_ATTACK,
    ACT_CORAL,
    ACT_DEN,
    ACT_END,
    ACT_MOVE,
    ACT_PASS_A,
    ACT_PASS_M,
    ACT_REINFORCE,
    DEN_HIDDEN,
    F_HIT,
    F_XHIT,
    K_ABILITY_MIN_GAIN,
    K_ACT_MIN,
    K_ADVANCE,
    K_AETHER_RESERVE,
    K_CAUTION,
    K_CORAL_AVOID,
    K_DEN_AVOID,
    K_FOCUS_KILL,
    K_FOCUS_WOUND,
    K_KEEP_RANGE,
    K_LURKER_HUNT,
    K_MOVE_BONUS_MIN,
    K_RANDOM,
    K_READY,
    K_REINFORCE,
    K_ROCK_PREF,
    K_SEARCH_CORAL,
    K_STANDOFF,
    K_TARGET_LEADER,
    LK_AETHER,
    LK_HEARTS,
    LK_LOOT,
    LK_N,
    MA_CHARGE,
    MA_LAND,
    MA_NONE,
    MA_SWIM,
    MAX_PER_TILE,
    MAX_SPEED,
    N_KNOBS,
    R_ACT_MODEL,
    R_ALLOW_PASS,
    R_ATTACKERS,
    R_CHARGE_BONUS,
    R_CORAL_DIE,
    R_FOCUS_UPGRADES,
    R_LAND_ON_ROCK,
    R_LAND_TIMING,
    R_MINION_PAY_ONCE,
    R_MOVE_REPEAT,
    R_ROCK_DIE,
    R_ROCK_NEEDS_SWIM,
    R_SMALL_PER_TILE,
    R_SWIM_BONUS,
    R_SWIM_PERSISTENT,
    R_WOUNDS_PER_HIT,
    TT_CORAL,
    TT_DEN,
    TT_ROCK,
    TT_SPAWN,
    TT_VOID,
    U_ABILITY,
    U_RANGE,
    U_SPEED,
)
from deepsim.rulesets.rivals.state import (
    NONE,
    WF_N,
    WI_N,
    E_BCTR,
    FALSE,
    TRUE,
    ZERO,
    K_BOT,
    LR_ALIVE,
    LR_CARD,
    LR_TILE,
    LR_WOUNDS,
    MD_ACTED,
    MD_CHARGES,
    MD_COST,
    MD_HEARTS,
    MD_LARGE,
    MD_MINION,
    MD_MOVES,
    MD_OWNER,
    MD_SWIM,
    MD_TILE,
    MD_UNIT,
    MD_UP_ATT,
    MD_UP_DEF,
    MD_WOUNDS,
    PL_AETHER,
    PL_ALIVE,
    PL_BOT,
    PL_COST_LEFT,
    PL_MINION_PAID,
    PL_RESERVE,
    PLAN_ACT,
    PLAN_HEAD,
    PLAN_N_MODELS,
    PLAN_STRIDE,
    PLAN_TILE,
    PS_MAP,
    PS_NLURK,
    PS_NMODELS,
    PS_NTILES,
    PS_PLAYERS,
    PS_QUIET,
    PS_TOK_A,
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
)

# the public view's positions (kernel.view)
(V_PS, V_TILES, V_MODELS, V_LUR, V_PL, V_PLAN, V_WI, V_WF, V_POOLS, V_SIT, V_ENG,
 V_KEYS) = range(12)

# ---- work buffers ----------------------------------------------------------------------
# ints (pub[V_WI]); the kernel's path buffers share the first offsets: the kernel uses them
# only after a bot has decided
_W_LAY = 0
_W_PAR = (MAX_SPEED + 1) * 128
_W_OUT = _W_PAR + (MAX_SPEED + 1) * 128
_W_LIST = _W_OUT + 128           # models of a tile and their plans
_W_TL = _W_LIST + 4 * MAX_PER_TILE   # own tiles
_W_PASS = _W_TL + 128            # per tile: the deciding player's models may pass
_W_STOP_S = _W_PASS + 128        # ... a small model may stop there
_W_STOP_L = _W_STOP_S + 128      # ... a large model may stop there
_W_D0 = _W_STOP_L + 128          # per tile: fewest steps with no rock entry (-1: no)
_W_D1 = _W_D0 + 128              # ... with one rock entry
_W_Q = _W_D1 + 128               # BFS queue
_W_SIG = _W_Q + 256              # signature of the public state the cache was built for
_W_NSLOT = _W_SIG + 1            # position fields cached this turn
_W_SLOTKEY = _W_NSLOT + 1        # per field: the model profile it was built for
_W_NRIV = _W_SLOTKEY + 64        # rival models in play
_W_RIV = _W_NRIV + 1             # ... their indices
_W_RV_A = _W_RIV + 64            # per model: attack pool row where it stands
_W_RV_D = _W_RV_A + 64           # ... defence pool row where it stands
_W_RV_AUTO = _W_RV_D + 64        # ... automatic shields there
_W_RV_REACH = _W_RV_AUTO + 64    # ... tiles it may strike at next turn (SPEED + bonus + RANGE)
_W_LV_A = _W_RV_REACH + 64       # per Lurker slot: attack row
_W_LV_D = _W_LV_A + 16           # ... defence row
_W_CLS = _W_LV_D + 16            # per tile: its class (board.CLS_*, -1 no tile)
_W_CLSMASK = _W_CLS + 128        # bit c set: a tile of class c exists
_W_NEAR = _W_CLSMASK + 1         # per tile: distance to the nearest rival model
_W_SWIM_ATT = _W_NEAR + 128      # 1: Swim changes attack dice (modifiers.swim)
_W_SWIM_DEF = _W_SWIM_ATT + 1    # 1: Swim changes defence dice
_W_MVER = _W_SWIM_DEF + 1        # the state the cached movement values were planned in
_W_END = _W_MVER + 1
# floats (pub[V_WF])
_F_PENDING = 0                   # per model: wounds already aimed at it in the plan
_F_KNOB = 64                     # the deciding bot's knobs (after the standoff breaker)
_F_PRANK = _F_KNOB + N_KNOBS + 1  # per player: target weight (target_leader)
_F_HV = _F_PRANK + 8             # [class, model]: value of hitting a model from a class
_F_TW = _F_HV + N_CLS * 64       # [class, model]: wounds a model may deal to one there
_F_HVL = _F_TW + N_CLS * 64      # [class, Lurker slot]: value of hitting a Lurker
_F_TWL = _F_HVL + N_CLS * 16     # [class, Lurker slot]: wounds a Lurker may deal there
_F_DYN = _F_TWL + N_CLS * 16     # per tile: search chances (changes within a turn)
_F_READY = _F_DYN + 128          # per tile: work (best attack from there)
_F_THR = _F_READY + 128          # per tile: work (rival danger there)
_F_LTHR = _F_THR + 128           # per tile: work (Lurker danger there)
_F_MVAL = _F_LTHR + 128          # per tile: the value of its movement activation (cached)
_F_FIELD = _F_MVAL + 128         # [slot, tile]: position fields (cached a turn)
_F_END = _F_FIELD + 64 * 128
assert _W_END <= WI_N and _F_END <= WF_N, "state.WI_N / WF_N too small for the bots' buffers"


# ---- the bot's stream --------------------------------------------------------------------

@njit(cache=True, inline="always")
def rand_below(pub, n):
    """Next uniform integer in [0, n) of the bots' own stream."""
    eng = pub[V_ENG]
    v = below(pub[V_KEYS][K_BOT], np.uint64(eng[E_BCTR]), n)
    eng[E_BCTR] += 1
    return v


@njit(cache=True, inline="always")
def rand_unit(pub):
    """Next uniform float in [0, 1) of the bots' own stream."""
    eng = pub[V_ENG]
    v = uniform(pub[V_KEYS][K_BOT], np.uint64(eng[E_BCTR]))
    eng[E_BCTR] += 1
    return v


# ---- odds the bots read ------------------------------------------------------------------

@njit(cache=True, inline="always")
def pool_row(dat, pool):
    """Row of a pool in the bots' table (dice.net_table); dice beyond the table's reach
    are dropped weakest first (an approximation for decisions only)."""
    dmax = dat[D_EVMETA][0]
    c = pool.shape[0]
    total = 0
    for k in range(c):
        total += pool[k]
    rem = max(0, total - dmax)
    code = 0
    mul = 1
    for k in range(c):
        mul *= dmax + 1
    for k in range(c - 1, -1, -1):
        mul //= dmax + 1
        n = pool[k]
        cut = min(n, rem)
        rem -= cut
        code += (n - cut) * mul
    return dat[D_PIDX][code]


@njit(cache=True, inline="always")
def p_ge(dat, a, d, k):
    """P(net hits >= k) of pool row ``a`` against pool row ``d`` (bots' table)."""
    if k <= 0:
        return 1.0
    if k > dat[D_EVMETA][1]:
        return 0.0
    return np.float64(dat[D_EVTAB][a, d, k - 1])


@njit(cache=True, inline="always")
def hit_value(dat, a, d, auto, hearts_left, cost, kill_w, wound_w):
    """Value of an attack of pool row ``a`` on a target of pool row ``d`` with ``auto``
    automatic shields, ``hearts_left`` hearts and ``cost``: P(kill) x kill_w x cost / 10 +
    E[wounds, at most hearts_left] x wound_w; also returns E[wounds] (AMB-04 wounds per
    net hit)."""
    wph = np.int64(dat[D_RULES][R_WOUNDS_PER_HIT])
    need = (hearts_left + wph - 1) // wph
    ew = 0.0
    for j in range(1, need + 1):
        ew += p_ge(dat, a, d, j + auto)
    ew = min(ew * wph, np.float64(hearts_left))
    pk = p_ge(dat, a, d, need + auto)
    return kill_w * pk * cost / 10.0 + wound_w * ew, ew


@njit(cache=True, inline="always")
def die_hit_chance(dat, colour):
    """P(one die of ``colour`` shows a hit face) (rock entries, coral searches; AMB-40)."""
    faces = dat[D_FACES]
    n = dat[D_NFACES][colour]
    h = 0
    for i in range(n):
        if faces[colour, i] == F_HIT or faces[colour, i] == F_XHIT:
            h += 1
    return h / n


# ---- knobs -------------------------------------------------------------------------------

@njit(cache=True)
def load_knobs(pub, dat, p):
    """The deciding bot's knobs into the float buffer, with the standoff breaker applied
    (after ``standoff_rounds`` rounds without a wound, at level L = quiet rounds //
    ``standoff_rounds``: advance x (1 + 2 L) + 0.5 L, caution x 0.25^L, keep_range and
    rock_pref 0), and each rival player's target weight (``target_leader``)."""
    wf = pub[V_WF]
    kn = dat[D_KNOBS][pub[V_PL][p, PL_BOT]]
    for k in range(N_KNOBS):
        wf[_F_KNOB + k] = kn[k]
    sr = kn[K_STANDOFF]
    quiet = pub[V_PS][PS_QUIET]
    if sr > 0 and quiet >= sr:
        # the standoff breaker, stronger the longer the standoff lasts
        level = quiet // np.int64(sr)
        wf[_F_KNOB + K_ADVANCE] = kn[K_ADVANCE] * (1.0 + 2.0 * level) + 0.5 * level
        wf[_F_KNOB + K_CAUTION] = kn[K_CAUTION] * 0.25 ** level
        wf[_F_KNOB + K_KEEP_RANGE] = 0.0
        wf[_F_KNOB + K_ROCK_PREF] = 0.0
    ps = pub[V_PS]
    pl = pub[V_PL]
    n = ps[PS_PLAYERS]
    tot = 0.0
    cnt = 0
    for q in range(n):
        if q != p and pl[q, PL_ALIVE]:
            tot += pl[q, PL_COST_LEFT]
            cnt += 1
    mean = tot / cnt if cnt > 0 else 1.0
    tl = kn[K_TARGET_LEADER]
    for q in range(n):
        w = 1.0
        if cnt > 1 and mean > 0:
            w = max(1.0 + tl * (pl[q, PL_COST_LEFT] - mean) / mean, 0.1)
        wf[_F_PRANK + q] = w
    return wf[_F_KNOB:_F_KNOB + N_KNOBS]


# ---- deployment (RV-S8) --------------------------------------------------------------------

@njit(cache=True)
def deploy(pub, dat, p):
    """Order player ``p``'s models for its spawn tiles: ``wi[:n]`` the models (Large ones,
    then heroes, then minions, dearest first; shuffled for ``random``), then its spawn
    tiles ending with -1. Returns n."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    wi = pub[V_WI]
    kn = dat[D_KNOBS][pub[V_PL][p, PL_BOT]]
    nm = pub[V_PS][PS_NMODELS]
    n = 0
    for i in range(nm):
        if models[i, MD_OWNER] == p:
            wi[n] = i
            n += 1
    if kn[K_RANDOM] > 0.5:
        for i in range(n - 1, 0, -1):
            j = rand_below(pub, i + 1)
            t = wi[i]
            wi[i] = wi[j]
            wi[j] = t
    else:
        # insertion sort by (large, hero, cost) descending
        for i in range(1, n):
            x = wi[i]
            kx = models[x, MD_LARGE] * 100000 + (1 - models[x, MD_MINION]) * 10000 \
                + models[x, MD_COST]
            j = i - 1
            while j >= 0:
                y = wi[j]
                ky = models[y, MD_LARGE] * 100000 + (1 - models[y, MD_MINION]) * 10000 \
                    + models[y, MD_COST]
                if ky >= kx:
                    break
                wi[j + 1] = y
                j -= 1
            wi[j + 1] = x
    k = n
    for t in range(pub[V_PS][PS_NTILES]):
        if tiles[t, TL_TYPE] == TT_SPAWN and tiles[t, TL_OWNER] == p:
            wi[k] = t
            k += 1
    wi[k] = -1
    return n


# ---- Focus (RV-C4, RV-C9) -------------------------------------------------------------------

@njit(cache=True)
def focus_affordable(pub, dat, p, m, reserve):
    """Whether player ``p`` can pay Focus for model ``m`` keeping ``reserve`` Aether
    (minions of a type already paid this player-turn use it free, RV-C9)."""
    models = pub[V_MODELS]
    pl = pub[V_PL]
    u = models[m, MD_UNIT]
    if (models[m, MD_MINION] != 0 and dat[D_RULES][R_MINION_PAY_ONCE] > 0.5
            and (pl[p, PL_MINION_PAID] & (np.int64(1) << u)) != 0):
        return True
    return pl[p, PL_AETHER] - dat[D_UNITS][u, U_ABILITY] >= reserve


@njit(cache=True)
def upgraded_row(pub, dat, pool, ups):
    """Pool row of ``pool`` with ``ups`` more upgrades (the pool is not changed)."""
    tmp = pub[V_POOLS][3]
    for k in range(pool.shape[0]):
        tmp[k] = pool[k]
    for _ in range(ups):
        upgrade_weakest(tmp, np.int64(dat[D_DR][DR_BEYOND_TOP]))
    return pool_row(dat, tmp)


@njit(cache=True)
def defend_focus(pub, dat, q, j, apool):
    """Whether player ``q`` pays Focus for its model ``j`` defending against ``apool``:
    when the wounds and kill chance it saves are worth ``ability_min_gain``."""
    kn = dat[D_KNOBS][pub[V_PL][q, PL_BOT]]
    models = pub[V_MODELS]
    if not focus_affordable(pub, dat, q, j, kn[K_AETHER_RESERVE]):
        return False
    if kn[K_RANDOM] > 0.5:
        return rand_below(pub, np.int64(2)) == 1
    pools = pub[V_POOLS]
    sit = pub[V_SIT]
    a = pool_row(dat, apool)
    auto = model_pool(models, pub[V_TILES], dat[D_UNITS], dat[D_MODTAB], dat[D_DR], j,
                      models[j, MD_TILE], TRUE, models[j, MD_SWIM] != 0, ZERO, ZERO, sit[1],
                      pools[2])
    d0 = pool_row(dat, pools[2])
    d1 = upgraded_row(pub, dat, pools[2], np.int64(dat[D_RULES][R_FOCUS_UPGRADES]))
    left = models[j, MD_HEARTS] - models[j, MD_WOUNDS]
    c = models[j, MD_COST]
    v0, _ = hit_value(dat, a, d0, auto, left, c, kn[K_FOCUS_KILL], kn[K_FOCUS_WOUND])
    v1, _ = hit_value(dat, a, d1, auto, left, c, kn[K_FOCUS_KILL], kn[K_FOCUS_WOUND])
    return v0 - v1 >= kn[K_ABILITY_MIN_GAIN]


# ---- the turn's cache: every model's dice where it stands, and position fields ----------

@njit(cache=True)
def state_signature(pub):
    """A number that changes with the turn and whenever a model or Lurker dies or appears
    (the cache of :func:`refresh` is rebuilt then). Within a turn rival models do not
    move and their dice do not change; a rival wounded during the turn keeps the hearts
    its position fields were built with until the next rebuild (attack plans read the
    live wounds)."""
    ps = pub[V_PS]
    models = pub[V_MODELS]
    lur = pub[V_LUR]
    h = ps[PS_TURN] * 1000003 + ps[PS_NLURK] * 7919
    for i in range(ps[PS_NMODELS]):
        h = h * 3 + (1 if models[i, MD_TILE] >= 0 else 0)
    for s in range(ps[PS_NLURK]):
        h = h * 31 + lur[s, LR_ALIVE]
    return h


@njit(cache=True)
def refresh(pub, dat, p):
    """Rebuild the turn's cache when the public state changed (:func:`state_signature`):
    the rival models in play, every model's attack and defence pool row where it stands
    and its reach next turn, each Lurker's rows; the position fields are dropped."""
    wi = pub[V_WI]
    sig = (state_signature(pub) * 7 + p) | 1          # odd: never the empty buffer's 0
    if wi[_W_SIG] == sig:
        return
    wi[_W_SIG] = sig
    wi[_W_NSLOT] = 0
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    units = dat[D_UNITS]
    rules = dat[D_RULES]
    pools = pub[V_POOLS]
    sit = pub[V_SIT]
    bonus = max(np.int64(rules[R_SWIM_BONUS]), np.int64(rules[R_CHARGE_BONUS]))
    nriv = 0
    for r in range(pub[V_PS][PS_NMODELS]):
        rt = models[r, MD_TILE]
        if rt < 0:
            continue
        if models[r, MD_OWNER] != p:
            wi[_W_RIV + nriv] = r
            nriv += 1
        sw = models[r, MD_SWIM] != 0
        model_pool(models, tiles, units, dat[D_MODTAB], dat[D_DR], r, rt, FALSE, sw, ZERO,
                   ZERO, sit[0], pools[0])
        wi[_W_RV_A + r] = pool_row(dat, pools[0])
        wi[_W_RV_AUTO + r] = model_pool(models, tiles, units, dat[D_MODTAB], dat[D_DR], r,
                                        rt, TRUE, sw, ZERO, ZERO, sit[1], pools[1])
        wi[_W_RV_D + r] = pool_row(dat, pools[1])
        u = models[r, MD_UNIT]
        wi[_W_RV_REACH + r] = units[u, U_SPEED] + bonus + units[u, U_RANGE]
    wi[_W_NRIV] = nriv
    # per tile: its class and the distance to the nearest rival (the same for every field)
    dist = dat[D_DIST]
    mask = 0
    for t in range(tiles.shape[0]):
        if tiles[t, TL_TYPE] == TT_VOID:
            wi[_W_CLS + t] = -1
        else:
            cl = tile_class(tiles, t)
            wi[_W_CLS + t] = cl
            mask |= np.int64(1) << cl
        near = 1000
        for i in range(nriv):
            near = min(near, dist[models[wi[_W_RIV + i], MD_TILE], t])
        wi[_W_NEAR + t] = near
    wi[_W_CLSMASK] = mask
    # whether Swim changes a model's attack or defence dice (the ready and danger fields
    # of a swimming model differ from a landed one's only then)
    mt = dat[D_MODTAB]
    c = pools.shape[1]
    att = mt[SIT_SWIM, MOD_DEG_ATT] + mt[SIT_SWIM, MOD_UP_ATT]
    dfn = mt[SIT_SWIM, MOD_DEG_DEF] + mt[SIT_SWIM, MOD_UP_DEF] + mt[SIT_SWIM, MOD_AUTO]
    for k in range(c):
        att += mt[SIT_SWIM, MOD_N + k]
        dfn += mt[SIT_SWIM, MOD_N + c + k]
    wi[_W_SWIM_ATT] = 1 if att != 0 else 0
    wi[_W_SWIM_DEF] = 1 if dfn != 0 else 0
    lk = dat[D_LURK]
    c = pools.shape[1]
    lur = pub[V_LUR]
    for s in range(pub[V_PS][PS_NLURK]):
        card = lur[s, LR_CARD]
        for k in range(c):
            pools[0, k] = lk[card, LK_N + k]
            pools[1, k] = lk[card, LK_N + c + k]
        wi[_W_LV_A + s] = pool_row(dat, pools[0])
        wi[_W_LV_D + s] = pool_row(dat, pools[1])


#: kinds of cached per-tile fields
FK_READY, FK_DANGER, FK_STATIC = np.int64(0), np.int64(1), np.int64(2)


@njit(cache=True)
def build_ready(pub, dat, p, m, swim_end, charges, kn, out):
    """``ready`` x the best attack model ``m`` (``swim_end``, ``charges`` Charges) could
    make from each tile (P(kill) x ``focus_kill`` x cost / 10 + E[wounds] x
    ``focus_wound`` against rival models in RANGE and sight, Lurkers weighted by
    ``lurker_hunt``), into ``out`` (float64[T])."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    lur = pub[V_LUR]
    wi = pub[V_WI]
    wf = pub[V_WF]
    units = dat[D_UNITS]
    dist = dat[D_DIST]
    los = dat[D_MLOS][pub[V_PS][PS_MAP]]
    pools = pub[V_POOLS]
    sit = pub[V_SIT]
    nriv = wi[_W_NRIV]
    nl = pub[V_PS][PS_NLURK]
    rng = units[models[m, MD_UNIT], U_RANGE]
    kill_w = kn[K_FOCUS_KILL]
    wound_w = kn[K_FOCUS_WOUND]
    lk = dat[D_LURK]
    mask = wi[_W_CLSMASK]
    for cl in range(N_CLS):
        if (mask >> cl) & 1 == 0:
            continue
        class_pool(models, units, dat[D_MODTAB], dat[D_DR], m, cl, FALSE, swim_end, charges,
                   ZERO, sit[0], pools[0])
        ar = pool_row(dat, pools[0])
        for i in range(nriv):
            r = wi[_W_RIV + i]
            v, _ = hit_value(dat, ar, wi[_W_RV_D + r], wi[_W_RV_AUTO + r],
                             models[r, MD_HEARTS] - models[r, MD_WOUNDS],
                             models[r, MD_COST], kill_w, wound_w)
            wf[_F_HV + cl * 64 + r] = v * wf[_F_PRANK + models[r, MD_OWNER]]
        for s in range(nl):
            if lur[s, LR_ALIVE] == 0:
                continue
            card = lur[s, LR_CARD]
            worth = 3 * lk[card, LK_LOOT] + lk[card, LK_AETHER]
            v, _ = hit_value(dat, ar, wi[_W_LV_D + s], ZERO, lk[card, LK_HEARTS]
                             - lur[s, LR_WOUNDS], worth, kill_w, wound_w)
            wf[_F_HVL + cl * 16 + s] = v * kn[K_LURKER_HUNT]
    nt = tiles.shape[0]
    for t in range(nt):
        out[t] = 0.0
    for i in range(nriv):
        r = wi[_W_RIV + i]
        drow = dist[models[r, MD_TILE]]
        lrow = los[models[r, MD_TILE]]
        for t in range(nt):
            cl = wi[_W_CLS + t]
            d = drow[t]
            if cl >= 0 and d <= rng and d > 0 and lrow[t] != 0:
                out[t] = max(out[t], wf[_F_HV + cl * 64 + r])
    for s in range(nl):
        if lur[s, LR_ALIVE] == 0:
            continue
        drow = dist[lur[s, LR_TILE]]
        lrow = los[lur[s, LR_TILE]]
        for t in range(nt):
            cl = wi[_W_CLS + t]
            d = drow[t]
            if cl >= 0 and d <= rng and d > 0 and lrow[t] != 0:
                out[t] = max(out[t], wf[_F_HVL + cl * 16 + s])
    w = kn[K_READY]
    for t in range(nt):
        out[t] *= w


@njit(cache=True)
def build_danger(pub, dat, p, m, swim_end, kn, out):
    """- ``caution`` x the danger to model ``m`` (``swim_end``) on each tile from rival
    models that can strike there next turn (their SPEED, a Swim or Charge, their RANGE),
    - ``den_avoid`` x the danger from revealed Lurkers beside it (expected wounds, and the
    chance they kill it x ``focus_kill`` x its cost / 10), into ``out`` (float64[T])."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    lur = pub[V_LUR]
    wi = pub[V_WI]
    wf = pub[V_WF]
    units = dat[D_UNITS]
    dist = dat[D_DIST]
    pools = pub[V_POOLS]
    sit = pub[V_SIT]
    nriv = wi[_W_NRIV]
    nl = pub[V_PS][PS_NLURK]
    left = models[m, MD_HEARTS] - models[m, MD_WOUNDS]
    cost = models[m, MD_COST]
    kill_w = kn[K_FOCUS_KILL]
    wound_w = kn[K_FOCUS_WOUND]
    mask = wi[_W_CLSMASK]
    for cl in range(N_CLS):
        if (mask >> cl) & 1 == 0:
            continue
        auto = class_pool(models, units, dat[D_MODTAB], dat[D_DR], m, cl, TRUE, swim_end,
                          ZERO, ZERO, sit[1], pools[1])
        dr = pool_row(dat, pools[1])
        for i in range(nriv):
            r = wi[_W_RIV + i]
            _, ew = hit_value(dat, wi[_W_RV_A + r], dr, auto, left, cost, kill_w, wound_w)
            wf[_F_TW + cl * 64 + r] = ew
        for s in range(nl):
            if lur[s, LR_ALIVE] == 0:
                continue
            _, ew = hit_value(dat, wi[_W_LV_A + s], dr, auto, left, cost, kill_w, wound_w)
            wf[_F_TWL + cl * 16 + s] = ew
    nt = tiles.shape[0]
    for t in range(nt):
        wf[_F_THR + t] = 0.0
        wf[_F_LTHR + t] = 0.0
    for i in range(nriv):
        r = wi[_W_RIV + i]
        reach_r = wi[_W_RV_REACH + r]
        drow = dist[models[r, MD_TILE]]
        for t in range(nt):
            cl = wi[_W_CLS + t]
            if cl >= 0 and drow[t] <= reach_r:
                wf[_F_THR + t] += wf[_F_TW + cl * 64 + r]
    for s in range(nl):
        if lur[s, LR_ALIVE] == 0:
            continue
        drow = dist[lur[s, LR_TILE]]
        for t in range(nt):
            cl = wi[_W_CLS + t]
            if cl >= 0 and drow[t] == 1:
                wf[_F_LTHR + t] += wf[_F_TWL + cl * 16 + s]
    fleft = np.float64(left)
    kc = kill_w * cost / 10.0
    w_caution = kn[K_CAUTION]
    w_den = kn[K_DEN_AVOID]
    for t in range(nt):
        thr = min(wf[_F_THR + t], fleft)
        lthr = min(wf[_F_LTHR + t], fleft)
        danger = thr * wound_w + min(1.0, thr / max(fleft, 1.0)) * kc
        ldanger = lthr * wound_w + min(1.0, lthr / max(fleft, 1.0)) * kc
        out[t] = -w_caution * danger - w_den * ldanger


@njit(cache=True)
def build_static(pub, dat, rng, kn, out):
    """What a tile is worth whatever the model's dice: - ``advance`` x the distance beyond
    RANGE ``rng`` to the nearest rival, - (``keep_range`` - distance) for a ranged model
    closer than that, ``rock_pref``, - ``coral_avoid``; -1e9 where no tile is."""
    wi = pub[V_WI]
    w_adv = kn[K_ADVANCE]
    keep = kn[K_KEEP_RANGE]
    for t in range(pub[V_TILES].shape[0]):
        cl = wi[_W_CLS + t]
        if cl < 0:
            out[t] = -1e9
            continue
        v = 0.0
        near = wi[_W_NEAR + t]
        if near < 1000:
            v -= w_adv * max(0, near - rng)
            if rng >= 2 and near < keep:
                v -= keep - near
        if cl == CLS_ROCK:
            v += kn[K_ROCK_PREF]
        elif cl == CLS_CORAL:
            v -= kn[K_CORAL_AVOID]
        out[t] = v


@njit(cache=True)
def cached(pub, dat, p, m, kind, swim_end, charges, kn):
    """One of model ``m``'s per-tile fields (``FK_*``), built once per turn and state
    (:func:`refresh`) for each model *profile* it depends on (ready: unit, attack
    upgrades, Charges, swimming when Swim changes attack dice; danger: unit, defence
    upgrades, hearts left, swimming; static: RANGE): models alike share one field."""
    wi = pub[V_WI]
    wf = pub[V_WF]
    models = pub[V_MODELS]
    n = pub[V_TILES].shape[0]
    u = models[m, MD_UNIT]
    if kind == FK_READY:
        sw = 1 if (swim_end and wi[_W_SWIM_ATT] != 0) else 0
        key = ((u * 8 + min(models[m, MD_UP_ATT], 7)) * 8 + min(charges, 7)) * 2 + sw
    elif kind == FK_DANGER:
        sw = 1 if (swim_end and wi[_W_SWIM_DEF] != 0) else 0
        key = ((u * 8 + min(models[m, MD_UP_DEF], 7)) * 64
               + min(models[m, MD_HEARTS] - models[m, MD_WOUNDS], 63)) * 2 + sw
    else:
        key = dat[D_UNITS][u, U_RANGE]
    key = key * 4 + kind
    ns = wi[_W_NSLOT]
    for k in range(ns):
        if wi[_W_SLOTKEY + k] == key:
            return wf[_F_FIELD + k * 128:_F_FIELD + k * 128 + n]
    if ns >= 64:
        ns = 0                                      # full: start over (rare)
    base = _F_FIELD + ns * 128
    out = wf[base:base + n]
    if kind == FK_READY:
        build_ready(pub, dat, p, m, swim_end, charges, kn, out)
    elif kind == FK_DANGER:
        build_danger(pub, dat, p, m, swim_end, kn, out)
    else:
        build_static(pub, dat, dat[D_UNITS][u, U_RANGE], kn, out)
    wi[_W_SLOTKEY + ns] = key
    wi[_W_NSLOT] = ns + 1
    return out


@njit(cache=True)
def dynamic_terms(pub, dat, kn):
    """Per tile, what can change within a turn: an unsearched coral's search chance and a
    hidden den beside it (``search_coral``, ``lurker_hunt``), into the float buffer."""
    tiles = pub[V_TILES]
    wf = pub[V_WF]
    nb = dat[D_NB]
    pc = 0.5 * kn[K_SEARCH_CORAL] * die_hit_chance(dat, np.int64(dat[D_RULES][R_CORAL_DIE]))
    for t in range(tiles.shape[0]):
        v = 0.0
        if tiles[t, TL_TYPE] == TT_CORAL and tiles[t, TL_SEARCHED] == 0:
            v += pc
        for dd in range(6):
            u = nb[t, dd]
            if u >= 0 and tiles[u, TL_TYPE] == TT_DEN and tiles[u, TL_DEN] == DEN_HIDDEN:
                v += 0.3 * kn[K_LURKER_HUNT]
                break
        wf[_F_DYN + t] = v


# ---- where models can go ------------------------------------------------------------------

@njit(cache=True)
def masks(pub, dat, p):
    """Per tile, for the deciding player's models: may pass, a small one may stop, a
    large one may stop (board.can_pass / can_stop), into the int buffer."""
    tiles = pub[V_TILES]
    rules = dat[D_RULES]
    wi = pub[V_WI]
    for t in range(tiles.shape[0]):
        mask_tile(tiles, rules, wi, p, t)


@njit(cache=True, inline="always")
def mask_tile(tiles, rules, wi, p, t):
    """:func:`masks` of one tile (after a planned move changed its room)."""
    wi[_W_PASS + t] = 1 if can_pass(tiles, rules, p, t) else 0
    wi[_W_STOP_S + t] = 1 if can_stop(tiles, rules, p, FALSE, t, NONE) else 0
    wi[_W_STOP_L + t] = 1 if can_stop(tiles, rules, p, TRUE, t, NONE) else 0


@njit(cache=True)
def quick_reach(pub, dat, start, large, steps, rock_ok):
    """Fewest steps from ``start`` to each tile without entering a rock (``_W_D0``) and
    with one rock entry (``_W_D1``), -1 where not within ``steps``: a breadth-first
    search on the masks (the bots' approximation of board.reach, which the kernel walks;
    a rock is entered only from a tile the model could stop on, RV-T1). The tiles reached
    are listed at ``_W_Q`` (a tile reached both ways twice); returns how many."""
    wi = pub[V_WI]
    tiles = pub[V_TILES]
    nb = dat[D_NB]
    n = tiles.shape[0]
    stop = _W_STOP_L if large else _W_STOP_S
    tail = 0
    for layer in range(2 if rock_ok else 1):
        dd = _W_D0 if layer == 0 else _W_D1
        for t in range(n):
            wi[dd + t] = -1
        head = tail
        if layer == 0:
            wi[dd + start] = 0
            wi[_W_Q + tail] = start
            tail += 1
        else:
            # seeds: rocks entered from a tile reached without entries where one may stop
            for u in range(n):
                du = wi[_W_D0 + u]
                if du < 0 or du >= steps or tiles[u, TL_TYPE] == TT_ROCK:
                    continue
                if u != start and wi[stop + u] == 0:
                    continue
                for k in range(6):
                    r = nb[u, k]
                    if r < 0 or tiles[r, TL_TYPE] != TT_ROCK or wi[_W_PASS + r] == 0:
                        continue
                    if wi[dd + r] < 0 or du + 1 < wi[dd + r]:
                        if wi[dd + r] < 0:
                            wi[_W_Q + tail] = r
                            tail += 1
                        wi[dd + r] = du + 1
        while head < tail:
            t = wi[_W_Q + head]
            head += 1
            dt = wi[dd + t]
            if dt >= steps:
                continue
            on_rock = tiles[t, TL_TYPE] == TT_ROCK
            for k in range(6):
                u = nb[t, k]
                if u < 0 or wi[dd + u] >= 0 or wi[_W_PASS + u] == 0:
                    continue
                if tiles[u, TL_TYPE] == TT_ROCK and not on_rock:
                    continue                    # a rock entry: the next layer's
                wi[dd + u] = dt + 1
                wi[_W_Q + tail] = u
                tail += 1
    if not rock_ok:
        for t in range(n):
            wi[_W_D1 + t] = -1
    return tail


# ---- planning moves ---------------------------------------------------------------------

@njit(cache=True, inline="always")
def _lift(tiles, models, m):
    t = models[m, MD_TILE]
    if models[m, MD_LARGE]:
        tiles[t, TL_OCC_LARGE] -= 1
    else:
        tiles[t, TL_OCC_SMALL] -= 1
    if tiles[t, TL_OCC_LARGE] == 0 and tiles[t, TL_OCC_SMALL] == 0:
        tiles[t, TL_OCC_OWNER] = -1


@njit(cache=True, inline="always")
def _put(tiles, models, m, t):
    models[m, MD_TILE] = t
    tiles[t, TL_OCC_OWNER] = models[m, MD_OWNER]
    if models[m, MD_LARGE]:
        tiles[t, TL_OCC_LARGE] += 1
    else:
        tiles[t, TL_OCC_SMALL] += 1


@njit(cache=True, inline="always")
def movable(pub, dat, m):
    """Whether model ``m`` may take another movement activation (AMB-06)."""
    return (dat[D_RULES][R_MOVE_REPEAT] < 0.5) | (pub[V_MODELS][m, MD_MOVES] < 2)


@njit(cache=True)
def best_move(pub, dat, p, m, kn):
    """The best move of model ``m``: (gain, destination, movement action).

    Tries no movement action and, where legal, Swim, Land and Charge (RV-M4); a
    destination's value is its position field plus the search chances, its gain over
    staying scaled by the chance of its rock roll (a failed roll ends the move short,
    counted as no gain); Swim and Charge must gain ``move_bonus_min`` more."""
    rules = dat[D_RULES]
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    wi = pub[V_WI]
    wf = pub[V_WF]
    units = dat[D_UNITS]
    start = models[m, MD_TILE]
    swimming = models[m, MD_SWIM] != 0
    spd = units[models[m, MD_UNIT], U_SPEED]
    sb = np.int64(rules[R_SWIM_BONUS])
    cb = np.int64(rules[R_CHARGE_BONUS])
    persistent = rules[R_SWIM_PERSISTENT] > 0.5
    needs_swim = rules[R_ROCK_NEEDS_SWIM] > 0.5
    land_after = rules[R_LAND_TIMING] < 0.5
    land_rock_ok = rules[R_LAND_ON_ROCK] < 0.5
    large = models[m, MD_LARGE] != 0
    stop = _W_STOP_L if large else _W_STOP_S
    p_rock = die_hit_chance(dat, np.int64(rules[R_ROCK_DIE]))
    ch = models[m, MD_CHARGES]
    stat = cached(pub, dat, p, m, FK_STATIC, FALSE, ZERO, kn)
    base = (cached(pub, dat, p, m, FK_READY, swimming, ch, kn)[start]
            + cached(pub, dat, p, m, FK_DANGER, swimming, ch, kn)[start] + stat[start]
            + wf[_F_DYN + start])
    best = 0.0
    best_t = start
    best_a = MA_NONE
    # one search covers every action: the longest move, rock entries if any action may
    # enter rocks (AMB-08); each action then keeps the tiles within its own steps
    top = min(spd + max(sb, cb) + sb, MAX_SPEED)
    nq = quick_reach(pub, dat, start, large, top, TRUE)     # Swim may always enter rocks
    for ma in range(4):
        if ma == MA_SWIM and swimming:
            continue
        if ma == MA_LAND and not swimming:
            continue
        swim_move = swimming
        swim_end = swimming
        steps = spd
        if ma == MA_SWIM:
            swim_move = True
            swim_end = persistent
        elif ma == MA_LAND:
            swim_end = False
            swim_move = land_after
        elif ma == MA_CHARGE:
            steps += cb
        if swim_move:
            steps += sb
        steps = min(steps, MAX_SPEED)
        may_rock = swim_move | (not needs_swim)
        fr = cached(pub, dat, p, m, FK_READY, swim_end, ch + (1 if ma == MA_CHARGE else 0),
                    kn)
        fd = cached(pub, dat, p, m, FK_DANGER, swim_end, ch, kn)
        pen = kn[K_MOVE_BONUS_MIN] if (ma == MA_SWIM or ma == MA_CHARGE) else 0.0
        for q in range(nq):
            t = wi[_W_Q + q]
            if t == start:
                if ma == MA_NONE:
                    continue
            elif wi[stop + t] == 0:
                continue
            d0 = wi[_W_D0 + t]
            entries = 0
            if d0 < 0 or d0 > steps:
                if not may_rock:
                    continue
                d1 = wi[_W_D1 + t]
                if d1 < 0 or d1 > steps:
                    continue
                entries = 1
            if ma == MA_LAND and not land_rock_ok and tiles[t, TL_TYPE] == TT_ROCK:
                continue
            v = fr[t] + fd[t] + stat[t] + wf[_F_DYN + t] - base
            if entries > 0:
                v *= p_rock
            v -= pen
            if v > best:
                best = v
                best_t = t
                best_a = ma
    return best, best_t, best_a


@njit(cache=True)
def random_move(pub, dat, p, m):
    """A uniform legal move of model ``m`` (movement action, then destination; the exact
    reach of board.reach): (destination, action)."""
    rules = dat[D_RULES]
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    units = dat[D_UNITS]
    wi = pub[V_WI]
    lay = wi[_W_LAY:_W_PAR]
    par = wi[_W_PAR:_W_OUT]
    out = wi[_W_OUT:_W_OUT + 128]
    start = models[m, MD_TILE]
    swimming = models[m, MD_SWIM] != 0
    n_opts = 0
    acts = wi[_W_LIST + 2 * MAX_PER_TILE:_W_LIST + 2 * MAX_PER_TILE + 4]
    for ma in range(4):
        if (ma == MA_SWIM and swimming) or (ma == MA_LAND and not swimming):
            continue
        acts[n_opts] = ma
        n_opts += 1
    ma = acts[rand_below(pub, n_opts)]
    steps = units[models[m, MD_UNIT], U_SPEED]
    swim_move = swimming
    if ma == MA_SWIM:
        swim_move = True
    elif ma == MA_LAND:
        swim_move = rules[R_LAND_TIMING] < 0.5
    elif ma == MA_CHARGE:
        steps += np.int64(rules[R_CHARGE_BONUS])
    if swim_move:
        steps += np.int64(rules[R_SWIM_BONUS])
    steps = min(steps, MAX_SPEED)
    rock_ok = swim_move | (rules[R_ROCK_NEEDS_SWIM] < 0.5)
    reach(tiles, rules, dat[D_NB], p, models[m, MD_LARGE] != 0, start, steps, rock_ok, lay,
          par, out)
    n = 0
    for t in range(tiles.shape[0]):
        if out[t] >= 0 and not (ma == MA_LAND and rules[R_LAND_ON_ROCK] > 0.5
                                and tiles[t, TL_TYPE] == TT_ROCK):
            n += 1
    if n == 0:
        return start, MA_NONE
    pick = rand_below(pub, n)
    for t in range(tiles.shape[0]):
        if out[t] >= 0 and not (ma == MA_LAND and rules[R_LAND_ON_ROCK] > 0.5
                                and tiles[t, TL_TYPE] == TT_ROCK):
            if pick == 0:
                return t, ma
            pick -= 1
    return start, MA_NONE


@njit(cache=True)
def plan_tile_moves(pub, dat, p, tile, kn, randomly, write):
    """Plan a movement activation of ``tile``: its models one at a time, each seeing the
    room the ones before it took or left. With ``write`` the plan is stored; the state is
    left as it was. Returns the activation's value (the sum of the gains; -1: nobody
    moves)."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    plan = pub[V_PLAN]
    wi = pub[V_WI]
    rules = dat[D_RULES]
    nm = pub[V_PS][PS_NMODELS]
    lst = _W_LIST
    dests = _W_LIST + MAX_PER_TILE
    k = 0
    for i in range(nm):
        if (models[i, MD_TILE] == tile and models[i, MD_OWNER] == p and k < MAX_PER_TILE
                and movable(pub, dat, i)):
            wi[lst + k] = i
            k += 1
    total = 0.0
    moved = 0
    if write:
        plan[PLAN_ACT] = ACT_MOVE
        plan[PLAN_TILE] = tile
    for j in range(k):
        m = wi[lst + j]
        wi[dests + j] = -1
        if randomly:
            if rand_below(pub, np.int64(2)) == 0:
                continue
            dest, ma = random_move(pub, dat, p, m)
            gain = 0.0
            take = (dest != tile) | (ma != MA_NONE)
        else:
            gain, dest, ma = best_move(pub, dat, p, m, kn)
            take = gain > 0.0
        if not take:
            continue
        if write:
            o = PLAN_HEAD + moved * PLAN_STRIDE
            plan[o] = m
            plan[o + 1] = dest
            plan[o + 2] = ma
            plan[o + 3] = 0
        moved += 1
        total += gain
        # the next model sees this one where it is going
        _lift(tiles, models, m)
        _put(tiles, models, m, dest)
        mask_tile(tiles, rules, wi, p, tile)
        mask_tile(tiles, rules, wi, p, dest)
        wi[dests + j] = dest
    for j in range(k):
        if wi[dests + j] >= 0:
            m = wi[lst + j]
            _lift(tiles, models, m)
            _put(tiles, models, m, tile)
            mask_tile(tiles, rules, wi, p, wi[dests + j])
    if moved:
        mask_tile(tiles, rules, wi, p, tile)
    if write:
        plan[PLAN_N_MODELS] = moved
    return total if moved > 0 else -1.0


@njit(cache=True)
def plan_tile_move(pub, dat, p, tile):
    """AMB-35: the move of the models on ``tile`` right after they came in. Returns
    whether the plan moves anyone."""
    kn = load_knobs(pub, dat, p)
    randomly = kn[K_RANDOM] > 0.5
    refresh(pub, dat, p)
    masks(pub, dat, p)
    dynamic_terms(pub, dat, kn)
    v = plan_tile_moves(pub, dat, p, tile, kn, randomly, TRUE)
    return (v >= 0.0) & (pub[V_PLAN][PLAN_N_MODELS] > 0)


# ---- planning attacks -------------------------------------------------------------------

@njit(cache=True)
def best_target(pub, dat, p, m, ups, kn):
    """The best target of model ``m`` attacking now with ``ups`` more upgrades (Focus):
    (value, kind, index, E[wounds]); kind 0 a rival model, 1 a Lurker slot, -1 none.
    Wounds already aimed at a rival in the plan being built count against its hearts."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    lur = pub[V_LUR]
    pools = pub[V_POOLS]
    sit = pub[V_SIT]
    wi = pub[V_WI]
    wf = pub[V_WF]
    dist = dat[D_DIST]
    los = dat[D_MLOS][pub[V_PS][PS_MAP]]
    units = dat[D_UNITS]
    tile = models[m, MD_TILE]
    rng = units[models[m, MD_UNIT], U_RANGE]
    model_pool(models, tiles, units, dat[D_MODTAB], dat[D_DR], m, tile, FALSE,
               models[m, MD_SWIM] != 0, models[m, MD_CHARGES], ups, sit[0], pools[0])
    a = pool_row(dat, pools[0])
    best = 0.0
    kind = NONE
    idx = NONE
    bew = 0.0
    for r in range(pub[V_PS][PS_NMODELS]):
        rt = models[r, MD_TILE]
        if rt < 0 or models[r, MD_OWNER] == p or not target_ok(dist, los, tile, rt, rng):
            continue
        left = max(1, models[r, MD_HEARTS] - models[r, MD_WOUNDS]
                   - np.int64(wf[_F_PENDING + r] + 0.5))
        v, ew = hit_value(dat, a, wi[_W_RV_D + r], wi[_W_RV_AUTO + r], left,
                          models[r, MD_COST], kn[K_FOCUS_KILL], kn[K_FOCUS_WOUND])
        v *= wf[_F_PRANK + models[r, MD_OWNER]]
        if v > best:
            best = v
            kind = 0
            idx = r
            bew = ew
    lk = dat[D_LURK]
    for s in range(pub[V_PS][PS_NLURK]):
        if lur[s, LR_ALIVE] == 0 or not target_ok(dist, los, tile, lur[s, LR_TILE], rng):
            continue
        card = lur[s, LR_CARD]
        worth = 3 * lk[card, LK_LOOT] + lk[card, LK_AETHER]
        v, ew = hit_value(dat, a, wi[_W_LV_D + s], ZERO, lk[card, LK_HEARTS]
                          - lur[s, LR_WOUNDS], worth, kn[K_FOCUS_KILL], kn[K_FOCUS_WOUND])
        v *= kn[K_LURKER_HUNT]
        if v > best:
            best = v
            kind = 1
            idx = s
            bew = ew
    return best, kind, idx, bew


@njit(cache=True)
def plan_tile_attack(pub, dat, p, tile, kn, randomly, write):
    """Plan an attack activation of ``tile``: each model that has not acted takes its best
    target (later models count the wounds already aimed at a target) and pays for Focus
    when it gains ``ability_min_gain``. Returns the value (-1: no model has a target)."""
    models = pub[V_MODELS]
    plan = pub[V_PLAN]
    wf = pub[V_WF]
    rules = dat[D_RULES]
    nm = pub[V_PS][PS_NMODELS]
    for r in range(nm):
        wf[_F_PENDING + r] = 0.0
    one = rules[R_ATTACKERS] > 0.5
    total = 0.0
    k = 0
    if write:
        plan[PLAN_ACT] = ACT_ATTACK
        plan[PLAN_TILE] = tile
    spent = 0
    aether = pub[V_PL][p, PL_AETHER]
    best_single = -1.0
    for m in range(nm):
        if models[m, MD_TILE] != tile or models[m, MD_OWNER] != p or models[m, MD_ACTED]:
            continue
        if randomly:
            kind, idx = random_target(pub, dat, p, m)
            if kind < 0:
                continue
            v = 1.0
            focus = 0
            if rand_below(pub, np.int64(2)) == 1 and focus_affordable(pub, dat, p, m, np.float64(0.0)):
                focus = 1
        else:
            v, kind, idx, ew = best_target(pub, dat, p, m, ZERO, kn)
            if kind < 0 or v <= 0.0:
                continue
            focus = 0
            u = models[m, MD_UNIT]
            cost = dat[D_UNITS][u, U_ABILITY]
            free = ((models[m, MD_MINION] != 0) & (rules[R_MINION_PAY_ONCE] > 0.5)
                    & ((pub[V_PL][p, PL_MINION_PAID] & (np.int64(1) << u)) != 0))
            if free or aether - spent - cost >= kn[K_AETHER_RESERVE]:
                v1, _, _, ew1 = best_target(pub, dat, p, m,
                                            np.int64(rules[R_FOCUS_UPGRADES]), kn)
                if v1 - v >= kn[K_ABILITY_MIN_GAIN]:
                    focus = 1
                    v = v1
                    ew = ew1
                    if not free:
                        spent += cost
            if kind == 0:
                wf[_F_PENDING + idx] += ew
        if one:
            if v > best_single:
                best_single = v
                if write:
                    plan[PLAN_HEAD] = m
                    plan[PLAN_HEAD + 1] = kind
                    plan[PLAN_HEAD + 2] = idx
                    plan[PLAN_HEAD + 3] = focus
                k = 1
            continue
        if write and k < MAX_PER_TILE:
            o = PLAN_HEAD + k * PLAN_STRIDE
            plan[o] = m
            plan[o + 1] = kind
            plan[o + 2] = idx
            plan[o + 3] = focus
        k += 1
        total += v
    if one:
        total = best_single
    if write:
        plan[PLAN_N_MODELS] = min(k, MAX_PER_TILE)
    return total if k > 0 else -1.0


@njit(cache=True)
def random_target(pub, dat, p, m):
    """A uniform legal target of model ``m``: (kind, index) or (-1, -1)."""
    models = pub[V_MODELS]
    lur = pub[V_LUR]
    dist = dat[D_DIST]
    los = dat[D_MLOS][pub[V_PS][PS_MAP]]
    tile = models[m, MD_TILE]
    rng = dat[D_UNITS][models[m, MD_UNIT], U_RANGE]
    nm = pub[V_PS][PS_NMODELS]
    n = 0
    for r in range(nm):
        rt = models[r, MD_TILE]
        if rt >= 0 and models[r, MD_OWNER] != p and target_ok(dist, los, tile, rt, rng):
            n += 1
    for s in range(pub[V_PS][PS_NLURK]):
        if lur[s, LR_ALIVE] and target_ok(dist, los, tile, lur[s, LR_TILE], rng):
            n += 1
    if n == 0:
        return -1, -1
    pick = rand_below(pub, n)
    for r in range(nm):
        rt = models[r, MD_TILE]
        if rt >= 0 and models[r, MD_OWNER] != p and target_ok(dist, los, tile, rt, rng):
            if pick == 0:
                return 0, r
            pick -= 1
    for s in range(pub[V_PS][PS_NLURK]):
        if lur[s, LR_ALIVE] and target_ok(dist, los, tile, lur[s, LR_TILE], rng):
            if pick == 0:
                return 1, s
            pick -= 1
    return -1, -1


# ---- reinforcements and searches ---------------------------------------------------------

@njit(cache=True)
def plan_reinforce(pub, dat, p, kn, randomly, write):
    """RV-A8: the spawn tile taking the most reserve models (dearest first); value
    ``reinforce`` per model (-1: none can come in)."""
    tiles = pub[V_TILES]
    plan = pub[V_PLAN]
    if pub[V_PL][p, PL_RESERVE] <= 0:
        return -1.0
    best_n = 0
    best_t = NONE
    n_sp = 0
    for t in range(pub[V_PS][PS_NTILES]):
        if tiles[t, TL_TYPE] != TT_SPAWN or tiles[t, TL_OWNER] != p:
            continue
        cnt = _fill_spawn(pub, dat, p, t, FALSE)
        if cnt > 0:
            n_sp += 1
            if randomly:
                if rand_below(pub, n_sp) == 0:
                    best_t = t
                    best_n = cnt
            elif cnt > best_n:
                best_n = cnt
                best_t = t
    if best_t < 0:
        return -1.0
    if write:
        plan[PLAN_ACT] = ACT_REINFORCE
        plan[PLAN_TILE] = best_t
        _fill_spawn(pub, dat, p, best_t, TRUE)
    return kn[K_REINFORCE] * best_n


@njit(cache=True)
def _fill_spawn(pub, dat, p, t, write):
    """How many reserve models fit on spawn ``t`` (a Large one alone on an empty spawn,
    else the dearest small ones up to the room); with ``write`` they go into the plan."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    plan = pub[V_PLAN]
    nm = pub[V_PS][PS_NMODELS]
    if tiles[t, TL_OCC_OWNER] >= 0 and tiles[t, TL_OCC_OWNER] != p:
        return 0
    small = tiles[t, TL_OCC_SMALL]
    big = tiles[t, TL_OCC_LARGE]
    if small == 0 and big == 0:
        best = -1
        for i in range(nm):
            if models[i, MD_OWNER] == p and models[i, MD_TILE] == RESERVE and \
                    models[i, MD_LARGE] and (best < 0 or models[i, MD_COST] > models[best, MD_COST]):
                best = i
        if best >= 0:
            if write:
                plan[PLAN_HEAD] = best
                plan[PLAN_N_MODELS] = 1
            return 1
    if big > 0:
        return 0
    room = min(np.int64(dat[D_RULES][R_SMALL_PER_TILE]) - small, MAX_PER_TILE)
    avail = 0
    for i in range(nm):
        if models[i, MD_OWNER] == p and models[i, MD_TILE] == RESERVE and \
                models[i, MD_LARGE] == 0:
            avail += 1
    cnt = max(0, min(room, avail))
    if write:
        for j in range(cnt):
            best = -1
            for i in range(nm):
                if models[i, MD_OWNER] != p or models[i, MD_TILE] != RESERVE or \
                        models[i, MD_LARGE]:
                    continue
                taken = False
                for jj in range(j):
                    if plan[PLAN_HEAD + jj * PLAN_STRIDE] == i:
                        taken = True
                if not taken and (best < 0 or models[i, MD_COST] > models[best, MD_COST]):
                    best = i
            plan[PLAN_HEAD + j * PLAN_STRIDE] = best
        plan[PLAN_N_MODELS] = cnt
    return cnt


@njit(cache=True)
def plan_search(pub, dat, p, kn, randomly, write, choice):
    """Attack actions (RV-X2/X3): the best search, or the ``choice``-th legal one when
    ``randomly``; returns (value, number of legal searches)."""
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    plan = pub[V_PLAN]
    nb = dat[D_NB]
    rules = dat[D_RULES]
    nm = pub[V_PS][PS_NMODELS]
    pc = die_hit_chance(dat, np.int64(rules[R_CORAL_DIE]))
    best = -1.0
    n = 0
    for m in range(nm):
        t = models[m, MD_TILE]
        if t < 0 or models[m, MD_OWNER] != p or models[m, MD_ACTED]:
            continue
        if tiles[t, TL_TYPE] == TT_CORAL and tiles[t, TL_SEARCHED] == 0:
            v = kn[K_SEARCH_CORAL] * pc
            if randomly:
                if write and n == choice:
                    plan[PLAN_ACT] = ACT_CORAL
                    plan[PLAN_TILE] = t
                    plan[PLAN_HEAD] = m
                    plan[PLAN_N_MODELS] = 1
                n += 1
            elif v > best:
                best = v
                n += 1
                if write:
                    plan[PLAN_ACT] = ACT_CORAL
                    plan[PLAN_TILE] = t
                    plan[PLAN_HEAD] = m
                    plan[PLAN_N_MODELS] = 1
        for dd in range(6):
            u = nb[t, dd]
            if u < 0 or tiles[u, TL_TYPE] != TT_DEN or tiles[u, TL_DEN] != DEN_HIDDEN:
                continue
            own = 0
            for dd2 in range(6):
                w = nb[u, dd2]
                if w >= 0 and tiles[w, TL_OCC_OWNER] == p:
                    own += tiles[w, TL_OCC_SMALL] + tiles[w, TL_OCC_LARGE]
            v = kn[K_LURKER_HUNT] - 0.5 * kn[K_DEN_AVOID] * own
            if randomly:
                if write and n == choice:
                    plan[PLAN_ACT] = ACT_DEN
                    plan[PLAN_TILE] = t
                    plan[PLAN_HEAD] = m
                    plan[PLAN_HEAD + 1] = u
                    plan[PLAN_N_MODELS] = 1
                n += 1
            elif v > best:
                best = v
                n += 1
                if write:
                    plan[PLAN_ACT] = ACT_DEN
                    plan[PLAN_TILE] = t
                    plan[PLAN_HEAD] = m
                    plan[PLAN_HEAD + 1] = u
                    plan[PLAN_N_MODELS] = 1
    return best, n


# ---- the decision --------------------------------------------------------------------------

@njit(cache=True)
def moves_version(pub, p):
    """A number that changes whenever a movement activation's value may: the turn's cache
    (:func:`refresh`), any model's tile, the deciding player's models' state (swimming,
    Charges, moves made, loot, hearts), searched coral and dens."""
    ps = pub[V_PS]
    models = pub[V_MODELS]
    tiles = pub[V_TILES]
    h = pub[V_WI][_W_SIG]
    for i in range(ps[PS_NMODELS]):
        h = h * 131 + models[i, MD_TILE] + 3
        if models[i, MD_OWNER] == p:
            h = h * 31 + (models[i, MD_SWIM] + 2 * models[i, MD_CHARGES]
                          + 16 * models[i, MD_MOVES] + 256 * models[i, MD_UP_ATT]
                          + 4096 * models[i, MD_UP_DEF] + 65536 * models[i, MD_HEARTS])
    for t in range(ps[PS_NTILES]):
        h = h * 7 + tiles[t, TL_SEARCHED] + 2 * tiles[t, TL_DEN]
    return h | 1                                      # odd: never the empty buffer's 0


@njit(cache=True)
def own_tiles(pub, p, out):
    """The tiles holding player ``p``'s models, into ``out``; returns how many."""
    tiles = pub[V_TILES]
    n = 0
    for t in range(pub[V_PS][PS_NTILES]):
        if tiles[t, TL_OCC_OWNER] == p:
            out[n] = t
            n += 1
    return n


@njit(cache=True)
def choose(pub, dat, p):
    """Fill the plan with player ``p``'s next activation (module docstring)."""
    kn = load_knobs(pub, dat, p)
    if kn[K_RANDOM] > 0.5:
        choose_random(pub, dat, p, kn)
        return
    ps = pub[V_PS]
    plan = pub[V_PLAN]
    rules = dat[D_RULES]
    wi = pub[V_WI]
    refresh(pub, dat, p)
    masks(pub, dat, p)
    dynamic_terms(pub, dat, kn)
    tl = wi[_W_TL:_W_TL + 128]
    nt = own_tiles(pub, p, tl)
    can_m = ps[PS_TOK_M] > 0
    can_a = ps[PS_TOK_A] > 0
    allow_pass = rules[R_ALLOW_PASS] > 0.5
    # the best attack activation and attack action, whether or not a token waits in A
    best_a = -1.0
    best_a_tile = NONE
    for i in range(nt):
        v = plan_tile_attack(pub, dat, p, tl[i], kn, FALSE, FALSE)
        if v > best_a:
            best_a = v
            best_a_tile = tl[i]
    best_s, _ = plan_search(pub, dat, p, kn, FALSE, FALSE, ZERO)
    best_m = -1.0
    best_m_tile = NONE
    best_r = -1.0
    if can_m:
        # the movement activations' values stand until something they depend on changes
        # (an attack activation or a pass between two movement activations leaves them)
        wf = pub[V_WF]
        ver = moves_version(pub, p)
        fresh = wi[_W_MVER] != ver
        for i in range(nt):
            if fresh:
                wf[_F_MVAL + tl[i]] = plan_tile_moves(pub, dat, p, tl[i], kn, FALSE, FALSE)
            v = wf[_F_MVAL + tl[i]]
            if v > best_m:
                best_m = v
                best_m_tile = tl[i]
        wi[_W_MVER] = ver
        best_r = plan_reinforce(pub, dat, p, kn, FALSE, FALSE)
    act_min = kn[K_ACT_MIN]
    top_a = max(best_a, best_s)
    top_m = max(best_m, best_r)
    if can_a and top_a >= act_min and (top_a >= top_m or not can_m):
        if best_a >= best_s:
            plan_tile_attack(pub, dat, p, best_a_tile, kn, FALSE, TRUE)
        else:
            plan_search(pub, dat, p, kn, FALSE, TRUE, ZERO)
        return
    if can_m and top_m >= act_min:
        if best_m >= best_r:
            plan_tile_moves(pub, dat, p, best_m_tile, kn, FALSE, TRUE)
        else:
            plan_reinforce(pub, dat, p, kn, FALSE, TRUE)
        return
    if not allow_pass:
        # AMB-13 false: an activation must be used while one is legal
        if can_a and top_a > -1.0:
            if best_a >= best_s:
                plan_tile_attack(pub, dat, p, best_a_tile, kn, FALSE, TRUE)
            else:
                plan_search(pub, dat, p, kn, FALSE, TRUE, ZERO)
            return
        if can_m and top_m > -1.0:
            if best_m >= best_r:
                plan_tile_moves(pub, dat, p, best_m_tile, kn, FALSE, TRUE)
            else:
                plan_reinforce(pub, dat, p, kn, FALSE, TRUE)
            return
        plan[PLAN_ACT] = ACT_END
        return
    # nothing worth it now: pass a movement token when an attack waits for a token in A
    if can_m and not can_a and top_a >= act_min and rules[R_ACT_MODEL] < 0.5:
        plan[PLAN_ACT] = ACT_PASS_M
        return
    plan[PLAN_ACT] = ACT_END


@njit(cache=True)
def choose_random(pub, dat, p, kn):
    """The baseline: one activation drawn uniformly from the legal ones (and passes), then
    uniform choices inside it."""
    ps = pub[V_PS]
    plan = pub[V_PLAN]
    rules = dat[D_RULES]
    models = pub[V_MODELS]
    wi = pub[V_WI]
    tl = wi[_W_TL:_W_TL + 128]
    nt = own_tiles(pub, p, tl)
    can_m = ps[PS_TOK_M] > 0
    can_a = ps[PS_TOK_A] > 0
    allow_pass = rules[R_ALLOW_PASS] > 0.5
    nm = ps[PS_NMODELS]
    # count the options: movement tiles, a reinforcement, attack tiles, searches, passes
    n_move = 0
    if can_m:
        for i in range(nt):
            ok = False
            for m in range(nm):
                if models[m, MD_TILE] == tl[i] and movable(pub, dat, m):
                    ok = True
                    break
            if ok:
                n_move += 1
    n_re = 1 if can_m and plan_reinforce(pub, dat, p, kn, FALSE, FALSE) >= 0.0 else 0
    n_att = 0
    if can_a:
        for i in range(nt):
            for m in range(nm):
                if models[m, MD_TILE] == tl[i] and models[m, MD_ACTED] == 0:
                    kind, _ = random_target_count(pub, dat, p, m)
                    if kind > 0:
                        n_att += 1
                        break
    n_search = 0
    if can_a:
        _, n_search = plan_search(pub, dat, p, kn, TRUE, FALSE, ZERO)
    n_pass = (1 if can_m else 0) + (1 if can_a else 0) if allow_pass else 0
    total = n_move + n_re + n_att + n_search + n_pass
    if total == 0:
        plan[PLAN_ACT] = ACT_END
        return
    pick = rand_below(pub, total)
    if pick < n_move:
        j = 0
        for i in range(nt):
            ok = False
            for m in range(nm):
                if models[m, MD_TILE] == tl[i] and movable(pub, dat, m):
                    ok = True
                    break
            if ok:
                if j == pick:
                    plan_tile_moves(pub, dat, p, tl[i], kn, TRUE, TRUE)
                    return
                j += 1
    pick -= n_move
    if pick < n_re:
        plan_reinforce(pub, dat, p, kn, TRUE, TRUE)
        return
    pick -= n_re
    if pick < n_att:
        j = 0
        for i in range(nt):
            has = False
            for m in range(nm):
                if models[m, MD_TILE] == tl[i] and models[m, MD_ACTED] == 0:
                    kind, _ = random_target_count(pub, dat, p, m)
                    if kind > 0:
                        has = True
                        break
            if has:
                if j == pick:
                    plan_tile_attack(pub, dat, p, tl[i], kn, TRUE, TRUE)
                    return
                j += 1
    pick -= n_att
    if pick < n_search:
        plan_search(pub, dat, p, kn, TRUE, TRUE, pick)
        return
    pick -= n_search
    if can_m and pick == 0:
        plan[PLAN_ACT] = ACT_PASS_M
    else:
        plan[PLAN_ACT] = ACT_PASS_A


@njit(cache=True)
def random_target_count(pub, dat, p, m):
    """(number of legal targets of model ``m``, 0)."""
    models = pub[V_MODELS]
    lur = pub[V_LUR]
    dist = dat[D_DIST]
    los = dat[D_MLOS][pub[V_PS][PS_MAP]]
    tile = models[m, MD_TILE]
    rng = dat[D_UNITS][models[m, MD_UNIT], U_RANGE]
    n = 0
    for r in range(pub[V_PS][PS_NMODELS]):
        rt = models[r, MD_TILE]
        if rt >= 0 and models[r, MD_OWNER] != p and target_ok(dist, los, tile, rt, rng):
            n += 1
    for s in range(pub[V_PS][PS_NLURK]):
        if lur[s, LR_ALIVE] and target_ok(dist, los, tile, lur[s, LR_TILE], rng):
            n += 1
    return n, 0
