"""The DEEPFALL game kernel: whole games in numba, one output row per game.

Every rule carries its rulebook section (§) and, where the rulebook is silent, the gap
number (A..) documented in docs/RULES.md with the parameter that settles it. All numbers
come in through arrays built by :mod:`deepsim.rulesets.deepfall.compile`; the kernel has no
rule constants of its own. Decisions are delegated to :mod:`deepsim.rulesets.deepfall.bots`.

Floors are 0-based inside the kernel (index 0 = Floor 1, the top; 5 = Floor 6, the
bottom); crew positions and "deepest floor" are floor *numbers* 1..6 as in the rulebook.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.blocks import run_blocks
from deepsim.factionmix import faction_bot
from deepsim.rng import game_key
from deepsim.rulesets.deepfall import bots
from deepsim.rulesets.deepfall.board import (
    FLOOR_BITS, G_N, GS_BACKLOG, GS_COLLAPSED, GS_CTR, GS_DREAD, GS_DREAD_ADDED, GS_DREAD_LEN,
    GS_EV, GS_ROUND, GS_TURNS,
    GS_SLOTS, GS_STEPS, GS_TRACE, SD_CAL, SD_BOT, SD_CREW_TURNS, SD_DEEPEST, SD_FLOOR, SD_LIN, SD_MARKS,
    SD_PROG_CUNNING, SD_PROG_FLOOR, SD_PROG_SLOT, SD_PROG_STEEL, SD_STAND, SD_WARNED, X_G,
    X_GLORY, X_SD, bag_size, floor_marks, holds, mark_bit, new_scratch, rand_below, rival_best,
    strength_of,
)
from deepsim.rulesets.deepfall.layout import (
    CUNNING, DREAD, E_CLAIM_LOOT, E_COMBAT_LOOT, E_CUNNING_BONUS, E_DREAD_CANCEL,
    E_DREAD_TO_METTLE, E_FAITH_PENALTY, E_FREE_LAST_STAND, E_HAND, E_MARKER_STRENGTH,
    E_MARKER_WEIGHT, E_MOVES, E_NO_FAITH_CANCEL, E_PRODUCTION_MULT, E_RECRUIT_COST,
    E_SETBACK_EXTRA, E_SETBACK_HEAL, E_SETBACK_IMMUNE, E_SOLO_VAULT, E_THREAT_IGNORE,
    E_WORTHY_MULT, EV_ASSAULT, EV_CASH_OUT, EV_CLAIM, EV_CONSUMED, EV_DEFER, EV_DREAD, EV_END,
    EV_LAST_STAND, EV_LOOT, EV_MAW, EV_MOVE, EV_MUSTER, EV_PRESS, EV_PRODUCE, EV_RECRUIT,
    EV_RISE, EV_ROLL, EV_ROUND, EV_SCORE, EV_SETBACK, EV_SETUP, EV_STAY, EV_TAKEN,
    EVENT_WIDTH, FAITH, GAME_FLT, GAME_INT, SEAT_FLT, SEAT_INT, G_COLLAPSED, G_CONSUMED, G_CONTESTED, G_CONTESTED_MARKERS,
    G_DEFERRED, G_DREAD_FILLS, G_DREAD_LEN, G_MAW_STEPS, G_N_WINNERS, G_PLAYERS, G_PRESS_ONS,
    G_RNG_DRAWS, G_ROOMS_PER_FLOOR, G_ROOMS_SCORED, G_ROUNDS, G_SETBACKS, G_TAKEN_WARNED, G_TRUNCATED,
    G_UNCLAIMED, G_WARNED, G_WINNER, GF_MARGIN, GF_MARGIN_REL, GF_TOP, GREED, MAX_SEATS, MAX_SLOTS, METTLE, N_DICE, N_EFFECTS, N_FLOORS, N_SYMBOLS, R_ASSAULT,
    R_BAG_RETURNS, R_BASE_STRENGTH, R_CLAIMS_PER_TURN, R_DEFER, R_DIVIDEND, R_DREAD_FULL_STEPS,
    R_DREAD_PER_UNCANCELED, R_FREE_MOVES, R_GLORY_PER_LOOT, R_HAND, R_LOOT_PER_GREED,
    R_LS_CONSUMES, R_LS_COST, R_MAX_COLLAPSES, R_MAX_ROUNDS, R_MAX_SURPLUS, R_MOVE_COST,
    R_LOOT_BEST_FLOOR, R_MUST_BEAT, R_MUSTER_CURRENT, R_SETBACK_FROM_BAG, R_UNSPENT_LOST,
    R_OVERFLOW_CARRIES, R_PRESS_DREAD, R_PROD_PER_ROOM, R_PROD_TRINITY, R_RECRUIT_COST,
    R_RECRUIT_MIN, R_RECRUIT_POOL, R_REINFORCE, R_RISE_FRACTION, R_RISE_PLUNDER,
    R_SETBACK_AT, R_SETBACK_DICE, R_START_FLOOR, R_STEPS_PER_FLOOR, R_STEPS_PER_ROUND,
    R_SURPLUS_STRENGTH, R_TAKEN_LOSES, R_THRONE_F6, R_TIE_SHARE, R_TRINITY_BONUS,
    R_VAULT_F6, R_WORTHY_DEPTH_BASIS, R_WORTHY_KEEPS_LOOT,
    R_WORTHY_MULT, S_ASSAULTS, S_CAL_ABILITY, S_CALLING, S_CASH_OUTS, S_CONSUMED,
    S_CREWS, S_DEEPEST, S_DICE_LOST, S_LAST_STANDS, S_LIN_ABILITY, S_LINEAGE, S_MOVES,
    S_PLACE, S_PRESS_ONS, S_RECRUITED, S_ROOMS_CLAIMED, S_SETBACKS, S_TAKEN_FINAL,
    S_TAKEN_NO_STAND, S_TAKEN_UNPLAYED, S_TURNS, S_USE0, S_CLAIMS0, S_WORTHY_ENDS, S_BOT,
    SF_CASH, SF_GLORY, SF_LOOT_GAINED, SF_LOOT_LOST, SF_ROOMS, SF_WIN, SF_WORTHY, STEEL,
    THRONE_THEME, VAULT_THEME,
)

N_GAME_INT = len(GAME_INT)
N_GAME_FLT = len(GAME_FLT)
N_SEAT_INT = len(SEAT_INT)
N_SEAT_FLT = len(SEAT_FLT)

# Room table columns (compile.py builds `rooms` as int64[N_ROOMS, 6]).
RM_VALUE, RM_THREAT, RM_LOCK, RM_PRODUCES, RM_COMBAT, RM_TRINITY = range(6)

@njit(cache=True, _nrt=False, inline="always")
def emit(ev, g, seat, kind, a, b, c, d, e, f, h):
    """Append one trace event (no-op unless the game is traced)."""
    if g[GS_TRACE] == 0:
        return
    k = g[GS_EV]
    if k >= ev.shape[0]:
        return
    ev[k, 0] = g[GS_ROUND]
    ev[k, 1] = seat
    ev[k, 2] = kind
    ev[k, 3] = a
    ev[k, 4] = b
    ev[k, 5] = c
    ev[k, 6] = d
    ev[k, 7] = e
    ev[k, 8] = f
    ev[k, 9] = h
    g[GS_EV] = k + 1


@njit(cache=True, _nrt=False, inline="always")
def credit(si, row, p, e, has_lin, has_cal):
    """Count one use of effect ``e`` for seat ``p`` and for the company half that grants it."""
    si[row, p, S_USE0 + e] += 1
    if has_lin[p, e]:
        si[row, p, S_LIN_ABILITY] += 1
    if has_cal[p, e]:
        si[row, p, S_CAL_ABILITY] += 1


@njit(cache=True, _nrt=False, inline="always")
def muster(p, sd, bag, out, disc, loot, kept, lin_bag, rules, si, row, ev, g):
    """Muster a fresh company (§7.3 Cash Out, §6B Taken; A13: at ``turn.start_floor``, with
    the Lineage's starting bag, or with ``turn.muster_bag: current`` the player's dice as
    they are; the first crew of a game always takes the starting bag)."""
    start = np.int64(rules[R_START_FLOOR])
    sd[p, SD_FLOOR] = start
    sd[p, SD_DEEPEST] = start
    sd[p, SD_STAND] = 0
    sd[p, SD_PROG_SLOT] = -1
    sd[p, SD_PROG_FLOOR] = -1
    sd[p, SD_PROG_STEEL] = 0
    sd[p, SD_PROG_CUNNING] = 0
    sd[p, SD_CREW_TURNS] = 0
    if rules[R_MUSTER_CURRENT] > 0.5 and si[row, p, S_CREWS] > 0:
        for k in range(N_DICE):                 # A13: the player's bag and discard stay
            bag[p, k] += out[p, k]
            out[p, k] = 0
    else:
        for k in range(N_DICE):
            bag[p, k] = lin_bag[sd[p, SD_LIN], k]
            out[p, k] = 0
            disc[p, k] = 0
    loot[p] = 0.0
    for k in range(kept.shape[1]):
        kept[p, k] = 0
    si[row, p, S_CREWS] += 1
    emit(ev, g, p, EV_MUSTER, start, 0, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, forceinline=True)
def draw_hand(key, p, h, bag, out, faces, sym, rolled, g, ev):
    """Draw up to h dice from the bag without replacement and roll them (§6A.1, A4)."""
    drawn = 0
    for _ in range(h):
        total = bag_size(bag, p)
        if total == 0:
            break
        r = rand_below(key, g, total)
        t = 0
        while r >= bag[p, t]:
            r -= bag[p, t]
            t += 1
        bag[p, t] -= 1
        out[p, t] += 1
        face = faces[t, rand_below(key, g, 6)]
        sym[face] += 1
        rolled[face] += 1
        drawn += 1
    emit(ev, g, p, EV_ROLL, drawn, rolled[STEEL], rolled[CUNNING], rolled[FAITH],
         rolled[GREED], rolled[METTLE], rolled[DREAD])
    return drawn


# ---------------------------------------------------------------------------------------
# the Delve: one player's turn (§6A)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, inline="always")
def claim_cost(fi, s, p, theme, rooms, eff, sd, rules):
    """(steel needed, cunning needed) to claim room (fi, s) now, after assault progress."""
    th = theme[fi, s]
    need_s = rooms[th, RM_THREAT] - np.int64(eff[p, E_THREAT_IGNORE])  # §4 Dvergar
    need_c = rooms[th, RM_LOCK]
    if need_s < 0:
        need_s = 0
    if (rules[R_ASSAULT] > 0.5 and sd[p, SD_PROG_FLOOR] == fi and sd[p, SD_PROG_SLOT] == s):
        need_s -= sd[p, SD_PROG_STEEL]     # §7.1 assault progress carries over (A25)
        need_c -= sd[p, SD_PROG_CUNNING]
    if need_s < 0:
        need_s = 0
    if need_c < 0:
        need_c = 0
    return need_s, need_c


@njit(cache=True, _nrt=False, inline="always")
def trinity_ok(p, th, rooms, eff, trinity_pool):
    """§7.1 Vaults need a rolled Steel, Cunning and Faith this turn, unless Lorekeeper."""
    if rooms[th, RM_TRINITY] == 0:
        return True, False
    has = trinity_pool[STEEL] > 0 and trinity_pool[CUNNING] > 0 and trinity_pool[FAITH] > 0
    if has:
        return True, False
    if eff[p, E_SOLO_VAULT] > 0.5:
        return True, True
    return False, False


@njit(cache=True, _nrt=False, inline="always")
def do_claim(fi, s, p, surplus_s, surplus_c, need_s, need_c, solo_used, theme, rooms,
             act_str, act_cnt, sym, loot, depth, eff, sd, rules, si, row, has_lin, has_cal,
             ev, g):
    """Place a control marker (§7.1): pay threat and lock, strength = base + surplus (A9)."""
    th = theme[fi, s]
    sym[STEEL] -= need_s + surplus_s
    sym[CUNNING] -= need_c + surplus_c
    strength = rules[R_BASE_STRENGTH] + eff[p, E_MARKER_STRENGTH]
    if rules[R_SURPLUS_STRENGTH] > 0.5:
        strength += surplus_s + surplus_c
    strength *= eff[p, E_MARKER_WEIGHT]                       # §4 Warden x2
    act_str[fi, s, p] += strength
    act_cnt[fi, s, p] += 1
    sd[p, SD_MARKS] |= mark_bit(fi, s)
    if eff[p, E_MARKER_STRENGTH] != 0:
        credit(si, row, p, E_MARKER_STRENGTH, has_lin, has_cal)
    if eff[p, E_MARKER_WEIGHT] != 1.0:
        credit(si, row, p, E_MARKER_WEIGHT, has_lin, has_cal)
    if eff[p, E_THREAT_IGNORE] > 0 and rooms[th, RM_THREAT] > 0:
        credit(si, row, p, E_THREAT_IGNORE, has_lin, has_cal)
    if solo_used:
        credit(si, row, p, E_SOLO_VAULT, has_lin, has_cal)
    gained = eff[p, E_CLAIM_LOOT]                              # §4 Reaver Pillage (A11)
    if gained > 0:
        credit(si, row, p, E_CLAIM_LOOT, has_lin, has_cal)
    if rooms[th, RM_COMBAT] == 1 and eff[p, E_COMBAT_LOOT] > 0:  # §4 Gnoll (A11)
        gained += eff[p, E_COMBAT_LOOT] * depth[fi]
        credit(si, row, p, E_COMBAT_LOOT, has_lin, has_cal)
    loot[p] += gained
    if sd[p, SD_PROG_SLOT] >= 0:            # A25: progress is for one target room only
        sd[p, SD_PROG_SLOT] = -1
        sd[p, SD_PROG_FLOOR] = -1
        sd[p, SD_PROG_STEEL] = 0
        sd[p, SD_PROG_CUNNING] = 0
    si[row, p, S_ROOMS_CLAIMED] += 1
    si[row, p, S_CLAIMS0 + th] += 1
    emit(ev, g, p, EV_CLAIM, fi + 1, s, th, np.int64(strength * 100), need_s + surplus_s,
         need_c + surplus_c, np.int64(gained * 100))
    return gained


@njit(cache=True, _nrt=False, forceinline=True)
def last_stand_price(p, n, sd, theme, gone, act_str, act_cnt, fallen, eff, rules, ls_free,
                     slots, collapsed):
    """Mettle price of declaring a Last Stand (§7.3, A7); 0 when free; -1 when free by card."""
    if eff[p, E_FREE_LAST_STAND] > 0.5:
        return -1
    marks = sd[p, SD_MARKS]             # holding needs active markers: only those rooms
    for fi in range(N_FLOORS - collapsed):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(slots):
            if (fm >> s) & 1 == 0:
                continue
            if gone[fi, s] == 0 and ls_free[theme[fi, s]] == 1:
                if holds(fi, s, p, n, act_str, act_cnt, fallen, eff, rules):
                    return 0
    return np.int64(rules[R_LS_COST])


@njit(cache=True, _nrt=False, forceinline=True)
def cash_out(p, sd, bag, out, disc, glory, loot, kept, act_str, act_cnt, fallen, lin_bag,
             rules, si, sf, row, ev, g):
    """§7.3 Cash Out: bank Loot + depth dividend, markers become Fallen, muster afresh."""
    banked = loot[p] * rules[R_GLORY_PER_LOOT] + rules[R_DIVIDEND] * sd[p, SD_DEEPEST]
    glory[p] += banked
    sf[row, p, SF_CASH] += banked
    marks = sd[p, SD_MARKS]
    for fi in range(N_FLOORS):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(MAX_SLOTS):
            if (fm >> s) & 1 == 1:
                fallen[fi, s, p] += act_cnt[fi, s, p]
                act_cnt[fi, s, p] = 0
                act_str[fi, s, p] = 0.0
    sd[p, SD_MARKS] = 0
    si[row, p, S_CASH_OUTS] += 1
    emit(ev, g, p, EV_CASH_OUT, sd[p, SD_DEEPEST], np.int64(loot[p] * 100),
         np.int64(banked * 100), 0, 0, 0, 0)
    # the fresh crew's dice come from the box; drawn dice of the retired crew are gone
    for k in range(N_DICE):
        out[p, k] = 0
    muster(p, sd, bag, out, disc, loot, kept, lin_bag, rules, si, row, ev, g)


@njit(cache=True, _nrt=False, forceinline=True)
def play_turn(key, p, n, scr, rules, faces, die_rank, rooms, depth, lin_bag, cal_recruit,
              ls_free, knobs, si, sf, row, ev):
    """One player's turn of the Delve phase (§6A steps 1-5)."""
    (theme, plunder, gone, act_str, act_cnt, fallen, sd, bag, out, disc, eff, has_lin,
     has_cal, glory, loot, carry, pool, g, sym, rolled, tmp, trin, kept) = scr
    slots = g[GS_SLOTS]
    collapsed = g[GS_COLLAPSED]
    kn = knobs[sd[p, SD_BOT]]
    for k in range(N_SYMBOLS):
        sym[k] = kept[p, k]          # A23: nonzero only when unspent symbols carry over
        kept[p, k] = 0
        rolled[k] = 0
    si[row, p, S_TURNS] += 1
    sd[p, SD_CREW_TURNS] += 1
    g[GS_TURNS] += 1
    start_floor = sd[p, SD_FLOOR]

    # A4: with bag_returns off, an empty bag is refilled from the discard.
    if bag_size(bag, p) == 0:
        for k in range(N_DICE):
            bag[p, k] += disc[p, k]
            disc[p, k] = 0

    # §7.1 / A24: held rooms produce at the start of the holder's turn.
    per_room = rules[R_PROD_PER_ROOM]
    produced_any = 0
    marks = sd[p, SD_MARKS]             # holding needs active markers: only those rooms
    for fi in range(N_FLOORS - collapsed):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(slots):
            if (fm >> s) & 1 == 0 or gone[fi, s] == 1:
                continue
            prod = rooms[theme[fi, s], RM_PRODUCES]
            if prod < 0 or per_room <= 0:
                continue
            if holds(fi, s, p, n, act_str, act_cnt, fallen, eff, rules):
                carry[p, prod] += per_room * eff[p, E_PRODUCTION_MULT]  # §4 Hierophant
                produced_any = 1
    if produced_any == 1:
        base_total = 0
        for k in range(N_SYMBOLS):
            whole = np.int64(np.floor(carry[p, k] + 1e-9))
            if whole > 0:
                sym[k] += whole
                carry[p, k] -= whole
                base_total += whole
        if eff[p, E_PRODUCTION_MULT] != 1.0:
            credit(si, row, p, E_PRODUCTION_MULT, has_lin, has_cal)
        emit(ev, g, p, EV_PRODUCE, sym[STEEL], sym[CUNNING], sym[FAITH], sym[GREED],
             sym[METTLE], base_total, 0)

    prod_s = sym[STEEL]
    prod_c = sym[CUNNING]
    prod_f = sym[FAITH]

    # §6A.1 draw and roll; §4 hand-size modifiers (Wisp +1, Golem-born -1, Prospector +1).
    h = np.int64(rules[R_HAND] + eff[p, E_HAND])
    if h < 1:
        h = 1
    draw_hand(key, p, h, bag, out, faces, sym, rolled, g, ev)
    if eff[p, E_HAND] != 0:
        credit(si, row, p, E_HAND, has_lin, has_cal)

    # §6A.2 Press On: another hand, +1 Dread on the shared track each time (A18).
    target_floor = bots.choose_floor(key, p, n, kn, scr, rules, rooms, depth, ls_free, True)
    presses = 0
    while bag_size(bag, p) > 0:
        if not bots.press_on(key, p, n, presses, target_floor, kn, scr, rules, rooms, depth,
                             faces):
            break
        presses += 1
        g[GS_DREAD] += np.int64(rules[R_PRESS_DREAD])
        g[GS_DREAD_ADDED] += np.int64(rules[R_PRESS_DREAD])
        si[row, p, S_PRESS_ONS] += 1
        emit(ev, g, p, EV_PRESS, presses, g[GS_DREAD], 0, 0, 0, 0, 0)
        draw_hand(key, p, h, bag, out, faces, sym, rolled, g, ev)
        if eff[p, E_HAND] != 0:
            credit(si, row, p, E_HAND, has_lin, has_cal)

    # §6A.3 resolve Dread.
    dread = sym[DREAD]
    sym[DREAD] = 0
    if eff[p, E_FAITH_PENALTY] > 0 and sym[FAITH] > 0:          # §4 Dvergar/Gnoll (A11)
        sym[FAITH] -= min(sym[FAITH], np.int64(eff[p, E_FAITH_PENALTY]))
        credit(si, row, p, E_FAITH_PENALTY, has_lin, has_cal)
    canceled = 0
    if eff[p, E_NO_FAITH_CANCEL] > 0.5:                           # §4 Revenant
        if dread > 0 and sym[FAITH] > 0:
            credit(si, row, p, E_NO_FAITH_CANCEL, has_lin, has_cal)
    else:
        canceled = min(dread, sym[FAITH])
        sym[FAITH] -= canceled
        dread -= canceled
    extra = min(dread, np.int64(eff[p, E_DREAD_CANCEL]))          # §4 Hierophant (A26)
    if extra > 0:
        dread -= extra
        canceled += extra
        credit(si, row, p, E_DREAD_CANCEL, has_lin, has_cal)
    emit(ev, g, p, EV_DREAD, dread + canceled, canceled, dread, 0, 0, 0, 0)
    if dread >= np.int64(rules[R_SETBACK_AT]):                     # §6A.3 Setback
        si[row, p, S_SETBACKS] += 1
        if eff[p, E_SETBACK_IMMUNE] > 0.5:                        # §4 Golem-born
            credit(si, row, p, E_SETBACK_IMMUNE, has_lin, has_cal)
            emit(ev, g, p, EV_SETBACK, 0, 0, 1, 0, 0, 0, 0)
        else:
            lose = np.int64(rules[R_SETBACK_DICE] + eff[p, E_SETBACK_EXTRA])
            if eff[p, E_SETBACK_EXTRA] > 0:                       # §4 Sylphid
                credit(si, row, p, E_SETBACK_EXTRA, has_lin, has_cal)
            heal = min(lose, np.int64(eff[p, E_SETBACK_HEAL]))    # §4 Hierophant (A27)
            if heal > 0:
                credit(si, row, p, E_SETBACK_HEAL, has_lin, has_cal)
            lose -= heal
            lost = 0
            from_bag = rules[R_SETBACK_FROM_BAG] > 0.5               # A43
            for _ in range(lose):                                 # A28 lowest die first
                best = -1
                for t in range(N_DICE):
                    have = out[p, t] + (bag[p, t] if from_bag else 0)
                    if have > 0 and (best < 0 or die_rank[t] < die_rank[best]):
                        best = t
                if best < 0:
                    break
                if out[p, best] > 0:
                    out[p, best] -= 1
                else:
                    bag[p, best] -= 1
                lost += 1
            si[row, p, S_DICE_LOST] += lost
            emit(ev, g, p, EV_SETBACK, lost, heal, 0, 0, 0, 0, 0)
    # A12: the shared Dread track rises per uncanceled Dread.
    if rules[R_DREAD_PER_UNCANCELED] > 0.5:
        g[GS_DREAD] += dread
        g[GS_DREAD_ADDED] += dread
    elif dread > 0:
        g[GS_DREAD] += 1
        g[GS_DREAD_ADDED] += 1
    if eff[p, E_DREAD_TO_METTLE] > 0.5 and dread > 0:              # §4 Revenant (A27)
        sym[METTLE] += dread
        credit(si, row, p, E_DREAD_TO_METTLE, has_lin, has_cal)
    if eff[p, E_CUNNING_BONUS] > 0:                                # §4 Sylphid (A26)
        sym[CUNNING] += np.int64(eff[p, E_CUNNING_BONUS])
        credit(si, row, p, E_CUNNING_BONUS, has_lin, has_cal)
    # symbols that count for the trinity: rolled ones (§7.1), optionally bonus/production
    trin[STEEL] = rolled[STEEL]
    trin[CUNNING] = rolled[CUNNING]
    trin[FAITH] = rolled[FAITH]
    if rules[R_TRINITY_BONUS] > 0.5:                              # A33
        trin[CUNNING] += np.int64(eff[p, E_CUNNING_BONUS])
    if rules[R_PROD_TRINITY] > 0.5:                               # A24
        trin[STEEL] += prod_s
        trin[CUNNING] += prod_c
        trin[FAITH] += prod_f

    # §6A.4 spend: claim (before or after moving), moves, loot, recruit.
    free_moves = np.int64(rules[R_FREE_MOVES] + eff[p, E_MOVES])
    move_cost = np.int64(rules[R_MOVE_COST])
    claims_left = np.int64(rules[R_CLAIMS_PER_TURN])
    target_floor = bots.choose_floor(key, p, n, kn, scr, rules, rooms, depth, ls_free, False)
    lowest_open = N_FLOORS - collapsed          # floor number of the deepest standing floor
    if target_floor > lowest_open:
        target_floor = lowest_open
    if target_floor < 1:
        target_floor = 1
    # claim on the current floor first when the bot prefers it (spending order is free,
    # §6A.4; e.g. a floor about to fall), keeping the Cunning the bot leaves for the Moves
    if claims_left > 0 and target_floor != sd[p, SD_FLOOR]:
        keep_c = bots.claim_here_first(key, p, n, target_floor, kn, scr, rules, rooms, depth,
                                       trin, faces)
        if keep_c >= 0:
            if try_claim(key, p, n, kn, scr, rules, rooms, depth, faces, si, sf, row, ev,
                         False, keep_c):
                claims_left -= 1
    # moves (§6A.4: free Moves, extra ones for Cunning or Mettle)
    cur = sd[p, SD_FLOOR]
    used = 0
    while cur != target_floor:
        if used >= free_moves:
            # buy an extra Move: Mettle first, then Cunning (bots keep what they need)
            keep_m = bots.mettle_reserve(p, n, kn, scr, rules)
            if sym[METTLE] - keep_m >= move_cost:
                sym[METTLE] -= move_cost
            elif sym[CUNNING] >= move_cost:
                sym[CUNNING] -= move_cost
            elif sym[METTLE] >= move_cost:
                sym[METTLE] -= move_cost
            else:
                break
        if used >= np.int64(rules[R_FREE_MOVES]) and eff[p, E_MOVES] > 0 and used < free_moves:
            credit(si, row, p, E_MOVES, has_lin, has_cal)      # §4 Sylphid/Wardancer +1 Move
        used += 1
        cur += 1 if target_floor > cur else -1
    if cur != sd[p, SD_FLOOR]:
        emit(ev, g, p, EV_MOVE, sd[p, SD_FLOOR], cur, used, 0, 0, 0, 0)
        si[row, p, S_MOVES] += used
        if sd[p, SD_PROG_FLOOR] != cur - 1:                     # A25 progress needs the floor
            sd[p, SD_PROG_SLOT] = -1
            sd[p, SD_PROG_FLOOR] = -1
            sd[p, SD_PROG_STEEL] = 0
            sd[p, SD_PROG_CUNNING] = 0
        sd[p, SD_FLOOR] = cur
        if cur > sd[p, SD_DEEPEST]:
            sd[p, SD_DEEPEST] = cur
            if cur > si[row, p, S_DEEPEST]:
                si[row, p, S_DEEPEST] = cur
    while claims_left > 0:
        if not try_claim(key, p, n, kn, scr, rules, rooms, depth, faces, si, sf, row, ev,
                         True, 0):
            break
        claims_left -= 1

    # §6A.4 Loot: Greed x Depth Value (A5), at the deeper floor of this turn (spend order free).
    if sym[GREED] > 0:
        fl = sd[p, SD_FLOOR]
        if rules[R_LOOT_BEST_FLOOR] > 0.5 and start_floor > fl:   # A52
            fl = start_floor
        gained = sym[GREED] * rules[R_LOOT_PER_GREED] * depth[fl - 1]
        loot[p] += gained
        sf[row, p, SF_LOOT_GAINED] += gained
        emit(ev, g, p, EV_LOOT, sym[GREED], fl, np.int64(gained * 100),
             np.int64(loot[p] * 100), 0, 0, 0)
        sym[GREED] = 0

    # §8 recruit with Mettle.
    die = cal_recruit[sd[p, SD_CAL]]
    cost = np.int64(rules[R_RECRUIT_COST] + eff[p, E_RECRUIT_COST])
    if cost < np.int64(rules[R_RECRUIT_MIN]):
        cost = np.int64(rules[R_RECRUIT_MIN])
    want = bots.recruits(key, p, n, cost, kn, scr, rules)
    got = 0
    for _ in range(want):
        if sym[METTLE] < cost:
            break
        if rules[R_RECRUIT_POOL] > 0.5:
            if pool[die] <= 0:
                break
            pool[die] -= 1
        sym[METTLE] -= cost
        bag[p, die] += 1
        got += 1
        if eff[p, E_RECRUIT_COST] != 0:
            credit(si, row, p, E_RECRUIT_COST, has_lin, has_cal)
    if got > 0:
        si[row, p, S_RECRUITED] += got
        emit(ev, g, p, EV_RECRUIT, got, die, cost, 0, 0, 0, 0)

    # dice drawn this turn go back to the bag (A4) or to the discard.
    for k in range(N_DICE):
        if rules[R_BAG_RETURNS] > 0.5:
            bag[p, k] += out[p, k]
        else:
            disc[p, k] += out[p, k]
        out[p, k] = 0

    # §7.3 choose the exit; A23 unspent symbols are lost at end of turn.
    price = last_stand_price(p, n, sd, theme, gone, act_str, act_cnt, fallen, eff, rules,
                             ls_free, slots, collapsed)
    choice = bots.exit_choice(key, p, n, price, kn, scr, rules, rooms, depth)
    if choice == 2 and sd[p, SD_STAND] == 0:
        pay = price if price > 0 else 0
        if sym[METTLE] >= pay:
            sym[METTLE] -= pay
            sd[p, SD_STAND] = 1
            si[row, p, S_LAST_STANDS] += 1
            if price < 0:
                credit(si, row, p, E_FREE_LAST_STAND, has_lin, has_cal)
            emit(ev, g, p, EV_LAST_STAND, sd[p, SD_FLOOR], sd[p, SD_DEEPEST], pay, 0, 0, 0, 0)
        else:
            choice = 0
    if choice == 1 and sd[p, SD_STAND] == 0:                      # A29 no Cash Out after
        cash_out(p, sd, bag, out, disc, glory, loot, kept, act_str, act_cnt, fallen, lin_bag,
                 rules, si, sf, row, ev, g)
    elif choice == 0:
        emit(ev, g, p, EV_STAY, sd[p, SD_FLOOR], np.int64(loot[p] * 100), 0, 0, 0, 0, 0)
    # A23: unspent symbols are lost, unless the designer lets them carry to the next turn
    for k in range(N_SYMBOLS):
        if rules[R_UNSPENT_LOST] < 0.5 and choice != 1 and k != DREAD:
            kept[p, k] = sym[k]
        sym[k] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def try_claim(key, p, n, kn, scr, rules, rooms, depth, faces, si, sf, row, ev, allow_assault,
              keep_c):
    """Ask the bot for a room on the crew's current floor and claim it or carry progress.

    Returns True when a marker was placed. ``keep_c`` Cunning is kept back for Moves.
    """
    (theme, plunder, gone, act_str, act_cnt, fallen, sd, bag, out, disc, eff, has_lin,
     has_cal, glory, loot, carry, pool, g, sym, rolled, tmp, trin, kept) = scr
    fi = sd[p, SD_FLOOR] - 1
    s, assault = bots.choose_room(key, p, n, fi, keep_c, kn, scr, rules, rooms, depth, trin,
                                  allow_assault, faces)
    if s < 0:
        return False
    if rules[R_REINFORCE] < 0.5 and act_cnt[fi, s, p] > 0:         # A34
        return False
    need_s, need_c = claim_cost(fi, s, p, theme, rooms, eff, sd, rules)
    ok, solo = trinity_ok(p, theme[fi, s], rooms, eff, trin)
    avail_c = sym[CUNNING] - keep_c
    if ok and sym[STEEL] >= need_s and avail_c >= need_c and not assault:
        cap = np.int64(rules[R_MAX_SURPLUS])
        sur_s = sym[STEEL] - need_s
        if sur_s > cap:
            sur_s = cap
        sur_c = avail_c - need_c
        if sur_c > cap - sur_s:
            sur_c = cap - sur_s
        if sur_c < 0:
            sur_c = 0
        if rules[R_MUST_BEAT] > 0.5:                                  # A8 alternative
            strength = rules[R_BASE_STRENGTH] + eff[p, E_MARKER_STRENGTH]
            if rules[R_SURPLUS_STRENGTH] > 0.5:
                strength += sur_s + sur_c
            mine = strength_of(fi, s, p, act_str, fallen, eff, rules)
            if mine + strength * eff[p, E_MARKER_WEIGHT] <= rival_best(fi, s, p, n, act_str,
                                                                        fallen, eff, rules):
                return False
        do_claim(fi, s, p, sur_s, sur_c, need_s, need_c, solo, theme, rooms, act_str,
                 act_cnt, sym, loot, depth, eff, sd, rules, si, row, has_lin, has_cal, ev, g)
        return True
    if allow_assault and rules[R_ASSAULT] > 0.5:
        pour_assault(p, fi, s, need_s, need_c, avail_c, theme, sd, sym, si, row, ev, g)
    return False


@njit(cache=True, _nrt=False, inline="always")
def pour_assault(p, fi, s, need_s, need_c, avail_c, theme, sd, sym, si, row, ev, g):
    """§7.1 near miss: pour Steel and Cunning into room (fi, s) as assault progress (A25).

    Pours what the claim still needs, at most ``avail_c`` Cunning. Progress is for one
    target room (A25, A51): pouring into another room starts it afresh there. An attempt
    that pours nothing changes nothing: the target and its progress stay. Returns the
    symbols poured.
    """
    ps = min(sym[STEEL], need_s)
    pc = min(max(avail_c, 0), need_c)
    if ps + pc <= 0:
        return 0
    if not (sd[p, SD_PROG_FLOOR] == fi and sd[p, SD_PROG_SLOT] == s):
        sd[p, SD_PROG_FLOOR] = fi
        sd[p, SD_PROG_SLOT] = s
        sd[p, SD_PROG_STEEL] = 0
        sd[p, SD_PROG_CUNNING] = 0
    sd[p, SD_PROG_STEEL] += ps
    sd[p, SD_PROG_CUNNING] += pc
    sym[STEEL] -= ps
    sym[CUNNING] -= pc
    si[row, p, S_ASSAULTS] += 1
    emit(ev, g, p, EV_ASSAULT, fi + 1, s, theme[fi, s], sd[p, SD_PROG_STEEL],
         sd[p, SD_PROG_CUNNING], 0, 0)
    return ps + pc


# ---------------------------------------------------------------------------------------
# the Maw (§6B)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def taken(p, n, fi, final, scr, rules, depth, lin_bag, si, sf, row, ev):
    """The Maw Takes p's crew on floor index fi (§6B.2, §7.3 Worthy End or disaster)."""
    (theme, plunder, gone, act_str, act_cnt, fallen, sd, bag, out, disc, eff, has_lin,
     has_cal, glory, loot, carry, pool, g, sym, rolled, tmp, trin, kept) = scr
    slots = g[GS_SLOTS]
    stand = sd[p, SD_STAND] == 1
    worth = 0.0
    if stand:
        deepest = sd[p, SD_DEEPEST]
        basis = np.float64(deepest)
        if rules[R_WORTHY_DEPTH_BASIS] > 0.5:                    # A6
            basis = np.float64(depth[deepest - 1])
        worth = basis * rules[R_WORTHY_MULT] * eff[p, E_WORTHY_MULT]  # A20 on top
        if eff[p, E_WORTHY_MULT] != 1.0:
            credit(si, row, p, E_WORTHY_MULT, has_lin, has_cal)
        if rules[R_WORTHY_KEEPS_LOOT] > 0.5:                      # A6
            worth += loot[p] * rules[R_GLORY_PER_LOOT]
        else:
            sf[row, p, SF_LOOT_LOST] += loot[p]
        glory[p] += worth
        sf[row, p, SF_WORTHY] += worth
        si[row, p, S_WORTHY_ENDS] += 1
        if rules[R_LS_CONSUMES] > 0.5:                            # §7.3, A29
            marks = sd[p, SD_MARKS]
            for f2 in range(fi):
                fm = floor_marks(marks, f2)
                if fm == 0:
                    continue
                for s in range(slots):
                    if (fm >> s) & 1 == 0:
                        continue
                    if gone[f2, s] == 0 and holds(f2, s, p, n, act_str, act_cnt, fallen,
                                                  eff, rules):
                        gone[f2, s] = 1
                        si[row, p, S_CONSUMED] += 1
                        emit(ev, g, p, EV_CONSUMED, f2 + 1, s, theme[f2, s], 0, 0, 0, 0)
    else:
        sf[row, p, SF_LOOT_LOST] += loot[p]                       # §7.3 / A14
        if sd[p, SD_CREW_TURNS] > 0:
            si[row, p, S_TAKEN_NO_STAND] += 1
            if final:
                si[row, p, S_TAKEN_FINAL] += 1
        else:
            si[row, p, S_TAKEN_UNPLAYED] += 1     # B4: never had a turn to declare one
    emit(ev, g, p, EV_TAKEN, fi + 1, 1 if stand else 0, np.int64(worth * 100),
         np.int64(loot[p] * 100), sd[p, SD_CREW_TURNS], 0, 0)
    marks = sd[p, SD_MARKS]
    for f2 in range(N_FLOORS):
        fm = floor_marks(marks, f2)
        if fm == 0:
            continue
        for s in range(MAX_SLOTS):
            if (fm >> s) & 1 == 1:
                if not stand and rules[R_TAKEN_LOSES] < 0.5:      # A16 alternative
                    fallen[f2, s, p] += act_cnt[f2, s, p]
                act_cnt[f2, s, p] = 0
                act_str[f2, s, p] = 0.0
    sd[p, SD_MARKS] = 0
    if not final:
        muster(p, sd, bag, out, disc, loot, kept, lin_bag, rules, si, row, ev, g)
    else:
        loot[p] = 0.0


@njit(cache=True, _nrt=False, forceinline=True)
def collapse(fi, n, scr, rules, rooms, depth, lin_bag, si, sf, gi, row, ev):
    """Collapse floor index fi (§6B.2): score majorities, value rises, the Maw Takes."""
    (theme, plunder, gone, act_str, act_cnt, fallen, sd, bag, out, disc, eff, has_lin,
     has_cal, glory, loot, carry, pool, g, sym, rolled, tmp, trin, kept) = scr
    slots = g[GS_SLOTS]
    emit(ev, g, -1, EV_MAW, fi + 1, g[GS_STEPS], g[GS_DREAD], 0, 0, 0, 0)
    for s in range(slots):
        if gone[fi, s] == 1:
            continue
        th = theme[fi, s]
        best = 0.0
        claimants = 0
        markers = 0
        for q in range(n):
            st = strength_of(fi, s, q, act_str, fallen, eff, rules)
            tmp[q] = st
            if st > 0:
                claimants += 1
                markers += act_cnt[fi, s, q] + fallen[fi, s, q]
            if st > best:
                best = st
        if best <= 0.0:
            # §6B.2 value rises: half (A10 rounded down, A30 with plunder) to the slot above
            gi[row, G_UNCLAIMED] += 1
            base = rooms[th, RM_VALUE]
            if rules[R_RISE_PLUNDER] > 0.5:
                base += plunder[fi, s]
            up = np.int64(np.floor(base * rules[R_RISE_FRACTION]))
            if fi > 0 and up > 0 and gone[fi - 1, s] == 0:
                plunder[fi - 1, s] += up
                emit(ev, g, -1, EV_RISE, fi + 1, s, th, up, 0, 0, 0)
            continue
        # §6B.2 most marker strength takes tile value x Depth Value; ties split rounding down
        value = (rooms[th, RM_VALUE] + plunder[fi, s]) * depth[fi]
        k = 0
        mask = 0
        for q in range(n):
            if tmp[q] == best:
                k += 1
                mask |= 1 << q
        share = np.float64(value // k)
        for q in range(n):
            if tmp[q] == best:
                glory[q] += share
                sf[row, q, SF_ROOMS] += share
                if eff[q, E_MARKER_WEIGHT] != 1.0 and act_cnt[fi, s, q] > 0:
                    credit(si, row, q, E_MARKER_WEIGHT, has_lin, has_cal)
        gi[row, G_ROOMS_SCORED] += 1
        if claimants >= 2:
            gi[row, G_CONTESTED] += 1
            gi[row, G_CONTESTED_MARKERS] += markers
        emit(ev, g, -1, EV_SCORE, fi + 1, s, th, value, mask, np.int64(share), claimants)
    final = fi == 0
    for p in range(n):
        if sd[p, SD_FLOOR] == fi + 1:
            if sd[p, SD_WARNED] == 1:
                gi[row, G_TAKEN_WARNED] += 1
            taken(p, n, fi, final, scr, rules, depth, lin_bag, si, sf, row, ev)
    for s in range(MAX_SLOTS):
        gone[fi, s] = 1
        for q in range(MAX_SEATS):
            act_str[fi, s, q] = 0.0
            act_cnt[fi, s, q] = 0
            fallen[fi, s, q] = 0
    for q in range(MAX_SEATS):
        sd[q, SD_MARKS] &= ~(np.int64(FLOOR_BITS) << (fi * MAX_SLOTS))


@njit(cache=True, _nrt=False, forceinline=True)
def maw_phase(n, scr, rules, rooms, depth, lin_bag, si, sf, gi, row, ev):
    """§6B.1 advance the Maw in steps (A1), with the one-collapse cap (§9, A31)."""
    g = scr[X_G]
    g[GS_STEPS] += np.int64(rules[R_STEPS_PER_ROUND])
    if g[GS_DREAD] >= g[GS_DREAD_LEN]:                            # Dread track full
        g[GS_STEPS] += np.int64(rules[R_DREAD_FULL_STEPS])
        gi[row, G_DREAD_FILLS] += 1
        if rules[R_OVERFLOW_CARRIES] > 0.5:                       # A15
            g[GS_DREAD] -= g[GS_DREAD_LEN]
        else:
            g[GS_DREAD] = 0
    spf = np.int64(rules[R_STEPS_PER_FLOOR])
    due = g[GS_STEPS] // spf
    if due > N_FLOORS:
        due = N_FLOORS
    todo = due - g[GS_COLLAPSED]
    cap = np.int64(rules[R_MAX_COLLAPSES])
    if todo > cap:
        # count each held-back collapse once, not again every round it stays held back
        new = todo - cap - g[GS_BACKLOG]
        if new > 0:
            gi[row, G_DEFERRED] += new
        emit(ev, g, -1, EV_DEFER, todo - cap, g[GS_STEPS], 0, 0, 0, 0, 0)
        if rules[R_DEFER] < 0.5:                                  # A31 lost, not deferred
            g[GS_STEPS] = (g[GS_COLLAPSED] + cap + 1) * spf - 1
            g[GS_BACKLOG] = 0
        else:
            g[GS_BACKLOG] = todo - cap
        todo = cap
    else:
        g[GS_BACKLOG] = 0
    for _ in range(todo):
        fi = N_FLOORS - 1 - g[GS_COLLAPSED]
        collapse(fi, n, scr, rules, rooms, depth, lin_bag, si, sf, gi, row, ev)
        g[GS_COLLAPSED] += 1
        if g[GS_COLLAPSED] >= N_FLOORS:
            break


# ---------------------------------------------------------------------------------------
# a whole game
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def setup(key, n, scr, rules, rooms, floor_cdf, scale, lin_eff, cal_eff, lin_nn, cal_nn,
          lin_bag, seat_spec, bot_pool, unique, fmix, si, row, ev):
    """§3 setup: dungeon by weights (A21), companies (A19), bots, Maw and Dread track.

    A company with bots of its own (``fmix``, scenario key ``faction_bots``) replaces the
    seat's bot after it was drawn (deepsim.factionmix), so the game's stream is unchanged.
    """
    (theme, plunder, gone, act_str, act_cnt, fallen, sd, bag, out, disc, eff, has_lin,
     has_cal, glory, loot, carry, pool, g, sym, rolled, tmp, trin, kept) = scr
    slots = scale[n, 0]
    g[GS_SLOTS] = slots
    g[GS_DREAD_LEN] = scale[n, 1]                                  # §9 track length
    for q in range(MAX_SEATS):
        sd[q, SD_MARKS] = 0
    for fi in range(N_FLOORS):
        for s in range(MAX_SLOTS):
            plunder[fi, s] = 0
            gone[fi, s] = 0 if s < slots else 1
            theme[fi, s] = 0
            for q in range(MAX_SEATS):
                act_str[fi, s, q] = 0.0
                act_cnt[fi, s, q] = 0
                fallen[fi, s, q] = 0
        for s in range(slots):
            u = rand_below(key, g, 1 << 30) / np.float64(1 << 30)
            t = 0
            while t < floor_cdf.shape[1] - 1 and floor_cdf[fi, t] <= u:
                t += 1
            theme[fi, s] = t
    # §3.1 Floor 6 holds the Throne and the Vaults
    if rules[R_THRONE_F6] > 0.5:
        theme[N_FLOORS - 1, 0] = THRONE_THEME
    if rules[R_VAULT_F6] > 0.5 and slots > 1:
        theme[N_FLOORS - 1, 1] = VAULT_THEME
    for fi in range(N_FLOORS):
        emit(ev, g, -1, EV_SETUP, fi + 1, theme[fi, 0], theme[fi, 1],
             theme[fi, 2] if slots > 2 else -1, theme[fi, 3] if slots > 3 else -1,
             theme[fi, 4] if slots > 4 else -1, theme[fi, 5] if slots > 5 else -1)
    # §3.4 companies: fixed per seat or drawn; A19 unique Lineages/Callings when asked
    used_l = 0
    used_c = 0
    for p in range(n):
        if seat_spec[p, 0] >= 0:
            used_l |= 1 << seat_spec[p, 0]
        if seat_spec[p, 1] >= 0:
            used_c |= 1 << seat_spec[p, 1]
    for p in range(n):
        for half in range(2):
            v = seat_spec[p, half]
            if v < 0:
                used = used_l if half == 0 else used_c
                while True:
                    v = rand_below(key, g, 6)
                    if unique == 0 or (used >> v) & 1 == 0:
                        break
                if half == 0:
                    used_l |= 1 << v
                else:
                    used_c |= 1 << v
            sd[p, SD_LIN + half] = v
        b = seat_spec[p, 2]
        if b < 0:
            b = bot_pool[rand_below(key, g, bot_pool.shape[0])]
        li = sd[p, SD_LIN]
        ci = sd[p, SD_CAL]
        b = faction_bot(fmix, li * cal_eff.shape[0] + ci, b, key)   # company code
        sd[p, SD_BOT] = b
        for e in range(N_EFFECTS):
            has_lin[p, e] = lin_nn[li, e]
            has_cal[p, e] = cal_nn[ci, e]
        for e in range(N_EFFECTS):
            eff[p, e] = lin_eff[li, e] + cal_eff[ci, e]
        # multipliers multiply (§4 Wardancer x2.2 on top, A20); flags are OR-ed
        eff[p, E_WORTHY_MULT] = lin_eff[li, E_WORTHY_MULT] * cal_eff[ci, E_WORTHY_MULT]
        eff[p, E_MARKER_WEIGHT] = lin_eff[li, E_MARKER_WEIGHT] * cal_eff[ci, E_MARKER_WEIGHT]
        eff[p, E_PRODUCTION_MULT] = (lin_eff[li, E_PRODUCTION_MULT]
                                     * cal_eff[ci, E_PRODUCTION_MULT])
        si[row, p, S_LINEAGE] = li
        si[row, p, S_CALLING] = ci
        si[row, p, S_BOT] = b
        glory[p] = 0.0
        for k in range(N_SYMBOLS):
            carry[p, k] = 0.0
        muster(p, sd, bag, out, disc, loot, kept, lin_bag, rules, si, row, ev, g)
        si[row, p, S_DEEPEST] = sd[p, SD_DEEPEST]
    for k in range(N_DICE):
        pool[k] = np.int64(rules[R_RECRUIT_POOL])
    g[GS_DREAD] = 0
    g[GS_STEPS] = 0
    g[GS_COLLAPSED] = 0
    g[GS_ROUND] = 0


# Compile time (docs/performance.md): the per-turn functions below play_game are forceinline
# (compiled once, inlined by LLVM), and so are the bots' decisions and the larger turn
# helpers (try_claim, cash_out, last_stand_price, draw_hand). play_game itself stays a
# function of its own: inlining it in numba IR into play_block saved ~1 s of compile but
# measured ~1.5% fewer games/s.
@njit(cache=True, _nrt=False)
def play_game(seed, game, row, scr, rules, faces, die_rank, rooms, floor_cdf, depth, scale,
              lin_eff, cal_eff, lin_nn, cal_nn, lin_bag, cal_recruit, ls_free, player_opts,
              seat_spec, bot_pool, unique, knobs, fmix, gi, gf, si, sf, ev, trace):
    """Play game number ``game`` of the run ``seed`` into output row ``row``.

    The game depends only on (seed, game): its stream key is ``game_key(seed, game)``.
    """
    g = scr[X_G]
    glory = scr[X_GLORY]
    sd = scr[X_SD]
    for k in range(G_N):
        g[k] = 0
    g[GS_TRACE] = trace
    key = game_key(seed, game)
    n = player_opts[0]
    if player_opts.shape[0] > 1:
        n = player_opts[rand_below(key, g, player_opts.shape[0])]
    gi[row, :] = 0
    gf[row, :] = 0.0
    si[row, :, :] = 0
    sf[row, :, :] = 0.0
    gi[row, G_PLAYERS] = n
    setup(key, n, scr, rules, rooms, floor_cdf, scale, lin_eff, cal_eff, lin_nn, cal_nn,
          lin_bag, seat_spec, bot_pool, unique, fmix, si, row, ev)
    gi[row, G_ROOMS_PER_FLOOR] = g[GS_SLOTS]
    gi[row, G_DREAD_LEN] = g[GS_DREAD_LEN]
    max_rounds = np.int64(rules[R_MAX_ROUNDS])
    rnd = 0
    while g[GS_COLLAPSED] < N_FLOORS:
        if rnd >= max_rounds:
            gi[row, G_TRUNCATED] = 1                              # A39 safety cap
            break
        rnd += 1
        g[GS_ROUND] = rnd
        first = (rnd - 1) % n                                     # §3.5 marker passes
        nxt = N_FLOORS - g[GS_COLLAPSED]
        emit(ev, g, first, EV_ROUND, g[GS_STEPS], g[GS_DREAD], g[GS_DREAD_LEN], nxt, 0, 0, 0)
        for p in range(n):
            if sd[p, SD_FLOOR] == nxt:                            # B8 "one floor away"
                sd[p, SD_WARNED] = 1
                gi[row, G_WARNED] += 1
            else:
                sd[p, SD_WARNED] = 0
        for i in range(n):                                        # §6A clockwise
            p = (first + i) % n
            play_turn(key, p, n, scr, rules, faces, die_rank, rooms, depth, lin_bag,
                      cal_recruit, ls_free, knobs, si, sf, row, ev)
        maw_phase(n, scr, rules, rooms, depth, lin_bag, si, sf, gi, row, ev)
    gi[row, G_ROUNDS] = rnd
    gi[row, G_RNG_DRAWS] = g[GS_CTR]
    gi[row, G_MAW_STEPS] = g[GS_STEPS]
    gi[row, G_COLLAPSED] = g[GS_COLLAPSED]
    # §1 most Glory wins; A38 tied leaders share the win (or nobody wins)
    top = -1.0
    second = -1.0
    for p in range(n):
        sf[row, p, SF_GLORY] = glory[p]
        if glory[p] > top:
            top = glory[p]
    k = 0
    winner = -1
    for p in range(n):
        if glory[p] == top:
            k += 1
            if winner < 0:
                winner = p
        elif glory[p] > second:
            second = glory[p]
        place = 1
        for q in range(n):
            if glory[q] > glory[p]:
                place += 1
        si[row, p, S_PLACE] = place
        gi[row, G_PRESS_ONS] += si[row, p, S_PRESS_ONS]
        gi[row, G_SETBACKS] += si[row, p, S_SETBACKS]
        gi[row, G_CONSUMED] += si[row, p, S_CONSUMED]
    if k > 1:
        second = top
    for p in range(n):
        if glory[p] == top:
            if rules[R_TIE_SHARE] > 0.5:
                sf[row, p, SF_WIN] = 1.0 / k
            elif k == 1:
                sf[row, p, SF_WIN] = 1.0
    gi[row, G_N_WINNERS] = k
    gi[row, G_WINNER] = winner
    gf[row, GF_TOP] = top
    gf[row, GF_MARGIN] = top - (second if second >= 0 else 0.0)
    gf[row, GF_MARGIN_REL] = gf[row, GF_MARGIN] / top if top > 0 else 0.0
    emit(ev, g, winner, EV_END, rnd, k, np.int64(top * 100), g[GS_COLLAPSED],
         gi[row, G_TRUNCATED], 0, 0)


@njit(cache=True, nogil=True)
def play_block(seed, games, lo, hi, rules, faces, die_rank, rooms, floor_cdf, depth, scale,
               lin_eff, cal_eff, lin_nn, cal_nn, lin_bag, cal_recruit, ls_free, player_opts,
               seat_spec, bot_pool, unique, knobs, fmix, gi, gf, si, sf):
    """Play games ``games[lo] .. games[hi-1]`` of run ``seed`` into rows ``lo .. hi-1``.

    One thread's share of :func:`play_listed` (it releases the GIL); the game state is
    allocated once and reset by each game. ``games``: int64 game indices, one per row.
    """
    scr = new_scratch()
    ev = np.zeros((1, EVENT_WIDTH), np.int64)
    for r in range(lo, hi):
        play_game(seed, games[r], r, scr, rules, faces, die_rank, rooms, floor_cdf,
                  depth, scale, lin_eff, cal_eff, lin_nn, cal_nn, lin_bag, cal_recruit,
                  ls_free, player_opts, seat_spec, bot_pool, unique, knobs, fmix, gi, gf,
                  si, sf, ev, np.int64(0))


def play_games(seed, start, count, *args):
    """Play games ``start .. start+count-1`` of run ``seed`` (:func:`play_listed`)."""
    return play_listed(seed, np.arange(int(start), int(start) + int(count), dtype=np.int64),
                       *args)


def play_listed(seed, games, rules, faces, die_rank, rooms, floor_cdf, depth, scale,
                lin_eff, cal_eff, lin_nn, cal_nn, lin_bag, cal_recruit, ls_free, player_opts,
                seat_spec, bot_pool, unique, knobs, fmix):
    """Play the games of index ``games`` (int64[count]) of run ``seed`` on numba's thread
    count.

    Blocks of games go to :func:`play_block` on ``numba.get_num_threads()`` threads
    (:func:`deepsim.blocks.run_blocks`); the tables do not depend on the thread count, and
    a game's row is the same whatever other games are listed with it.

    Returns
    -------
    gi : int64[count, N_GAME_INT]
    gf : float64[count, N_GAME_FLT]
    si : int64[count, MAX_SEATS, N_SEAT_INT]
    sf : float64[count, MAX_SEATS, N_SEAT_FLT]
        Row r is game ``games[r]``; seats beyond the game's player count are zero.
    """
    games = np.ascontiguousarray(games, dtype=np.int64)
    count = int(games.shape[0])
    gi = np.zeros((count, N_GAME_INT), np.int64)
    gf = np.zeros((count, N_GAME_FLT), np.float64)
    si = np.zeros((count, MAX_SEATS, N_SEAT_INT), np.int64)
    sf = np.zeros((count, MAX_SEATS, N_SEAT_FLT), np.float64)
    args = (rules, faces, die_rank, rooms, floor_cdf, depth, scale, lin_eff, cal_eff, lin_nn,
            cal_nn, lin_bag, cal_recruit, ls_free, player_opts, seat_spec, bot_pool, unique,
            knobs, fmix, gi, gf, si, sf)
    seed = np.int64(seed)
    run_blocks(lambda lo, hi: play_block(seed, games, np.int64(lo), np.int64(hi), *args),
               count)
    return gi, gf, si, sf


@njit(cache=True)
def trace_game(seed, game, max_events, rules, faces, die_rank, rooms, floor_cdf, depth,
               scale, lin_eff, cal_eff, lin_nn, cal_nn, lin_bag, cal_recruit, ls_free,
               player_opts, seat_spec, bot_pool, unique, knobs, fmix):
    """Play one game with the event buffer on: the same code path as :func:`play_games`.

    Returns (gi, gf, si, sf, events[:k]) for that single game (row 0).
    """
    gi = np.zeros((1, N_GAME_INT), np.int64)
    gf = np.zeros((1, N_GAME_FLT), np.float64)
    si = np.zeros((1, MAX_SEATS, N_SEAT_INT), np.int64)
    sf = np.zeros((1, MAX_SEATS, N_SEAT_FLT), np.float64)
    ev = np.zeros((max_events, EVENT_WIDTH), np.int64)
    scr = new_scratch()
    # row and trace as int64 values, not literals: the batch's play_game (and every rule
    # function under it) is reused, not compiled again for a literal signature
    play_game(seed, game, np.int64(0), scr, rules, faces, die_rank, rooms, floor_cdf, depth,
              scale, lin_eff, cal_eff, lin_nn, cal_nn, lin_bag, cal_recruit, ls_free,
              player_opts, seat_spec, bot_pool, unique, knobs, fmix, gi, gf, si, sf, ev,
              np.int64(1))
    k = scr[X_G][GS_EV]
    return gi, gf, si, sf, ev[:k].copy()


@njit(cache=True)
def seat_columns(gi, si, sf):
    """The seats table as columns: one row per seat actually played, games in order.

    Returns (row's game offset, seat, players, int columns [N_SEAT_INT, rows], float
    columns [N_SEAT_FLT, rows]): each column is one contiguous row of the 2-D results, so
    the frame is built without transposing or copying the whole (games, MAX_SEATS, k)
    tables (a third of a chunk's frame time).
    """
    count = gi.shape[0]
    m = 0
    for r in range(count):
        m += gi[r, G_PLAYERS]
    gidx = np.empty(m, np.int64)
    seat = np.empty(m, np.int64)
    players = np.empty(m, np.int64)
    s_int = np.empty((N_SEAT_INT, m), np.int64)
    s_flt = np.empty((N_SEAT_FLT, m), np.float64)
    k = 0
    for r in range(count):
        n = gi[r, G_PLAYERS]
        for p in range(n):
            gidx[k] = r
            seat[k] = p
            players[k] = n
            for j in range(N_SEAT_INT):
                s_int[j, k] = si[r, p, j]
            for j in range(N_SEAT_FLT):
                s_flt[j, k] = sf[r, p, j]
            k += 1
    return gidx, seat, players, s_int, s_flt
