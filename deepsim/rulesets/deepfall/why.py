"""Why the DEEPFALL bots decided as they did: trace events, for traced games only.

Each function here is called by the kernel right after a bot's decision (bots.py), in a
traced game only (``GS_TRACE``), with the state the bot saw. It works out which knob or
score decided, following the decision's own steps with the bots' own helpers, and appends
one event (layout.EVENT_SPECS ``why_*``; the Maw forecasts it read as ``forecast``
events). It reads the state and draws nothing from the game's random stream, so a traced
game plays exactly as the batch's. The decision the bot took is passed in and recorded
with the reason; tests check the two agree (tests/rulesets/deepfall/test_trace_deepfall.py).

Reason codes (the ``reason`` value of each event; trace.py words them):

- why_press: 0 random bot (a coin); 1 ``press_max`` reached; 2 uncanceled Dread at the
  ``dread_stop`` line; 3 next hand's Setback chance above ``press_risk``; 4 presses (no
  limit reached, ``press_when_short`` off); 5 presses: the best room of the target floor is
  out of reach (``press_when_short``); 6 stops: it is in reach; 7 stops: no room there
  worth a marker; 8 the bag is empty (the rules stop it).
- why_floor: 0 random; 1 a Last Stand is declared (deepest standing floor); 2
  ``last_stand`` 2 heads for ``target_depth``; 3 stays for a Last Stand on a floor about to
  fall; 4 ``target_depth`` is safe; 5 the deepest safe floor is above ``target_depth``.
- why_here: 0 random; 1 leaving upward (this floor falls sooner); 2 no claim here worth
  it; 3 the best claim here beats the best on arrival; 4 it does not.
- why_room: action 0 claim, 1 assault, -1 none; 2 random pick.
- why_exit: 0 random; 1 Last Stand already declared; 2 ``last_stand`` 2 at
  ``target_depth``; 3 the floor falls: Worthy End beats Cash Out by more than half the
  held rooms' Glory; 4 the floor falls: Cash Out (Worthy End not worth it); 5 the floor
  falls: Cash Out (no Last Stand: not affordable or ``last_stand`` 0); 6 Loot reached
  ``cash_loot`` at ``cash_depth``; 7 stays; 8 ``exit_via`` steers the way out of a crew
  the heuristic makes leave.
- forecast verdict: 0 not the next floor to fall; 1 falls (the round's own steps reach
  it); 2 stands (even a full Dread track would not reach it); 3 falls (the track is full);
  4 falls by the forecast; 5 stands by the forecast.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rulesets.deepfall import bots
from deepsim.rulesets.deepfall.board import (
    GS_DREAD,
    GS_DREAD_LEN,
    GS_SLOTS,
    SD_DEEPEST,
    SD_FLOOR,
    SD_PROG_FLOOR,
    SD_PROG_SLOT,
    SD_STAND,
    bag_size,
    dread_rate,
    next_floor,
    rounds_until,
    steps_needed,
    turns_to_come,
)
from deepsim.rulesets.deepfall.events import emit, emit10, trace_writer, x100
from deepsim.rulesets.deepfall.layout import (
    CUNNING,
    DREAD,
    E_DREAD_CANCEL,
    E_FAITH_PENALTY,
    E_FREE_LAST_STAND,
    E_NO_FAITH_CANCEL,
    E_SETBACK_IMMUNE,
    E_WORTHY_MULT,
    EV_FORECAST,
    EV_WHY_EXIT,
    EV_WHY_FLOOR,
    EV_WHY_HERE,
    EV_WHY_PRESS,
    EV_WHY_RECRUIT,
    EV_WHY_ROOM,
    FAITH,
    K_ASSAULT_REACH,
    K_CASH_DEPTH,
    K_CASH_LOOT,
    K_DREAD_STOP,
    K_EXIT_VIA,
    K_LAST_STAND,
    K_MAW_MARGIN,
    K_PRESS_MAX,
    K_PRESS_RISK,
    K_PRESS_SHORT,
    K_RANDOM,
    K_RECRUIT_MAX,
    K_SAFETY,
    K_TARGET_DEPTH,
    METTLE,
    R_ASSAULT,
    R_DIVIDEND,
    R_DREAD_FULL_STEPS,
    R_GLORY_PER_LOOT,
    R_LS_COST,
    R_SETBACK_AT,
    R_STEPS_PER_ROUND,
    R_WORTHY_DEPTH_BASIS,
    R_WORTHY_KEEPS_LOOT,
    R_WORTHY_MULT,
    STEEL,
)


@njit(cache=True, _nrt=False)
def forecast(st, dat, fl, p, margin, own):
    """Emit the Maw forecast ``board.doomed_this_round`` makes for floor ``fl`` (seat p,
    ``margin`` sds, ``own``: p's Dread still to come) with its numbers; return its
    verdict (True = falls this round)."""
    rules = dat.book.rules
    nxt = next_floor(st)
    need = steps_needed(st, dat, fl)
    gain = rules[R_STEPS_PER_ROUND]
    full = rules[R_DREAD_FULL_STEPS]
    left = st.g[GS_DREAD_LEN] - st.g[GS_DREAD]
    turns = turns_to_come(st, p, own)
    rate = dread_rate(st)
    mu = turns * rate
    verdict = 0
    if fl != nxt:
        verdict = 0
    elif need <= gain:
        verdict = 1
    elif need > gain + full:
        verdict = 2
    elif left <= 0:
        verdict = 3
    elif mu + margin * np.sqrt(mu) >= left:
        verdict = 4
    else:
        verdict = 5
    emit10(st, p, EV_FORECAST, (fl, verdict, need, np.int64(gain), np.int64(full), left,
                                turns, x100(rate), x100(mu), x100(margin)))
    return verdict == 1 or verdict == 3 or verdict == 4


@trace_writer
def press(st, dat, kn, p, presses, target_floor, pressed):
    """Why ``bots.press_on`` answered ``pressed`` (§6A.2) at Press On number ``presses``."""
    if kn[K_RANDOM] > 0.5:
        emit(st, p, EV_WHY_PRESS, (pressed, 0, 0, 0, 0, 0, 0))
        return
    if presses >= kn[K_PRESS_MAX]:
        emit(st, p, EV_WHY_PRESS, (pressed, 1, presses, np.int64(kn[K_PRESS_MAX]), 0, 0, 0))
        return
    sym = st.sym
    eff = st.eff
    cancel = eff[p, E_DREAD_CANCEL]
    if eff[p, E_NO_FAITH_CANCEL] < 0.5:
        cancel += max(0.0, sym[FAITH] - eff[p, E_FAITH_PENALTY])
    net = sym[DREAD] - cancel
    risk = -1.0
    if eff[p, E_SETBACK_IMMUNE] < 0.5:
        line = dat.book.rules[R_SETBACK_AT] - kn[K_DREAD_STOP]
        if net >= line - 0.5:
            emit(st, p, EV_WHY_PRESS, (pressed, 2, x100(net), x100(line), sym[DREAD],
                                       x100(cancel), 0))
            return
        if kn[K_PRESS_RISK] < 1.0:
            risk = bots.setback_chance(st, dat, p, net)
            if risk > kn[K_PRESS_RISK]:
                emit(st, p, EV_WHY_PRESS, (pressed, 3, x100(risk), x100(kn[K_PRESS_RISK]),
                                           x100(net), 0, 0))
                return
    if kn[K_PRESS_SHORT] < 0.5:
        emit(st, p, EV_WHY_PRESS, (pressed, 4, x100(net), presses,
                                   np.int64(kn[K_PRESS_MAX]), x100(risk), 0))
        return
    fi = target_floor - 1
    gone = st.gone
    best = 0.0
    best_s = -1
    ns = 0
    nc = 0
    for s in range(st.g[GS_SLOTS]):
        if gone[fi, s] == 1:
            continue
        sc = bots.room_score(st, dat, kn, fi, s, p, 0)
        if sc > best:
            best = sc
            best_s = s
            ns, nc = bots.claim_need(st, dat, fi, s, p)
    if best_s < 0:
        emit(st, p, EV_WHY_PRESS, (pressed, 7, target_floor, 0, 0, 0, 0))
        return
    short = sym[STEEL] < ns or sym[CUNNING] < nc
    emit10(st, p, EV_WHY_PRESS, (pressed, 5 if short else 6, target_floor, best_s, ns, nc,
                                 sym[STEEL], sym[CUNNING], 0, 0))


@trace_writer
def bag_empty(st, p):
    """The Press Ons stopped because the bag is empty (§6A.2: nothing left to draw)."""
    if bag_size(st, p) == 0:
        emit(st, p, EV_WHY_PRESS, (0, 8, 0, 0, 0, 0, 0))


@trace_writer
def floor(st, dat, kn, p, before_roll, chosen):
    """Why ``bots.choose_floor`` chose floor ``chosen`` (before the roll, or to spend)."""
    sd = st.sd
    rules = dat.book.rules
    cur = sd[p, SD_FLOOR]
    lowest = next_floor(st)
    if kn[K_RANDOM] > 0.5:
        emit(st, p, EV_WHY_FLOOR, (chosen, 0, cur, 0, 0, 0, 0))
        return
    if sd[p, SD_STAND] == 1:
        emit(st, p, EV_WHY_FLOOR, (chosen, 1, lowest, 0, 0, 0, 0))
        return
    if kn[K_LAST_STAND] > 1.5:
        emit(st, p, EV_WHY_FLOOR, (chosen, 2, np.int64(kn[K_TARGET_DEPTH]), 0, 0, 0, 0))
        return
    margin = kn[K_MAW_MARGIN]
    if kn[K_LAST_STAND] > 0.5 and cur == lowest:
        doomed = forecast(st, dat, cur, p, margin, before_roll)
        if (doomed and sd[p, SD_DEEPEST] >= np.int64(kn[K_TARGET_DEPTH]) - 1
                and (st.eff[p, E_FREE_LAST_STAND] > 0.5
                     or st.sym[METTLE] >= rules[R_LS_COST] or before_roll)):
            emit(st, p, EV_WHY_FLOOR, (chosen, 3, cur, sd[p, SD_DEEPEST], 0, 0, 0))
            return
    safe = 1
    why_not = -1                    # rounds until the first floor below the safe one falls
    for fl in range(lowest, 0, -1):
        ru = rounds_until(st, dat, fl)
        ok = ru > kn[K_SAFETY]
        if ok and fl == lowest:
            ok = not forecast(st, dat, fl, p, margin, before_roll)
        if ok:
            safe = fl
            break
        if fl <= np.int64(kn[K_TARGET_DEPTH]) and why_not < 0:
            why_not = x100(ru)
    t = np.int64(kn[K_TARGET_DEPTH])
    if t < safe:
        emit(st, p, EV_WHY_FLOOR, (chosen, 4, t, safe, 0, 0, 0))
    else:
        emit(st, p, EV_WHY_FLOOR, (chosen, 5, t, safe, why_not,
                                   x100(kn[K_SAFETY]), 0))


@trace_writer
def here(st, dat, kn, p, target_floor, keep):
    """Why ``bots.claim_here_first`` answered ``keep`` (-1 = move first, §6A.4): the claim
    here scored with the Cunning the Moves leave, against the best on arrival at the floor
    the Moves reach (``bots.move_plan``)."""
    sd = st.sd
    cur = sd[p, SD_FLOOR]
    cun = st.sym[CUNNING]
    if kn[K_RANDOM] > 0.5:
        emit(st, p, EV_WHY_HERE, (1 if keep >= 0 else 0, 0, 0, 0, keep, cun, cur))
        return
    if target_floor < cur:
        emit(st, p, EV_WHY_HERE, (1, 1, 0, 0, keep, cun, cur))
        return
    k = bots.moves_cunning(st, dat, kn, p, target_floor)
    dest, _c = bots.move_plan(st, dat, kn, p, target_floor)
    s_here, sc_here = bots.best_claim(st, dat, kn, p, cur - 1, st.sym[STEEL], cun - k)
    if s_here < 0:
        emit10(st, p, EV_WHY_HERE, (0, 2, 0, 0, k, cun, cur, dest, 0, 0))
        return
    there = bots.arrival_score(st, dat, kn, p, target_floor)
    emit10(st, p, EV_WHY_HERE, (1 if keep >= 0 else 0, 3 if sc_here > there else 4,
                                x100(sc_here), x100(there), keep, cun, cur, dest, 0, 0))


@trace_writer
def room(st, dat, kn, p, fi, keep_c, allow_assault, slot, assault):
    """Why ``bots.choose_room`` chose ``slot`` (§7.1): its score, the runner-up's, and how
    many rooms of the floor the crew could claim or assault."""
    if kn[K_RANDOM] > 0.5:
        th = st.theme[fi, slot] if slot >= 0 else -1
        emit10(st, p, EV_WHY_ROOM, (fi + 1, slot, th, 2, 0, -1, 0, 0, 1 if assault else 0,
                                    0))
        return
    sym = st.sym
    steel = sym[STEEL]
    cun = sym[CUNNING] - keep_c
    gone = st.gone
    sd = st.sd
    best_s = -1
    best = 0.0
    second_s = -1
    second = 0.0
    options = 0
    action = 0
    # claims first (bots.best_claim), the assaults only when no claim is worth it
    for s in range(st.g[GS_SLOTS]):
        if gone[fi, s] == 1:
            continue
        ns, nc = bots.claim_need(st, dat, fi, s, p)
        if steel >= ns and cun >= nc and bots.trinity_ok(st, dat, p, st.theme[fi, s]):
            sc = bots.room_score(st, dat, kn, fi, s, p, steel - ns + cun - nc)
            options += 1
            if sc > best:
                second, second_s = best, best_s
                best, best_s = sc, s
            elif sc > second:
                second, second_s = sc, s
    if best_s < 0 and allow_assault and dat.book.rules[R_ASSAULT] > 0.5 and (steel > 0 or cun > 0):
        action = 1
        best = 0.0
        second_s = -1
        second = 0.0
        options = 0
        if not bots.doomed_this_round(st, dat, fi + 1, p, kn[K_MAW_MARGIN], False):
            turns = max(1.0, np.ceil(rounds_until(st, dat, fi + 1)) - 1.0)
            es, ec = bots.turn_yield(st, dat, kn, p)
            reach_s = kn[K_ASSAULT_REACH] * turns * es
            reach_c = kn[K_ASSAULT_REACH] * turns * ec
            for s in range(st.g[GS_SLOTS]):
                if gone[fi, s] == 1:
                    continue
                ns, nc = bots.claim_need(st, dat, fi, s, p)
                if not bots.adds_strength(ns, nc, steel, cun):
                    continue
                if ns - min(steel, ns) > reach_s or nc - min(max(cun, 0), nc) > reach_c:
                    continue
                options += 1
                sc = bots.room_score(st, dat, kn, fi, s, p, 0)
                if sd[p, SD_PROG_FLOOR] == fi and sd[p, SD_PROG_SLOT] == s:
                    sc *= 1.5
                if sc > best:
                    second, second_s = best, best_s
                    best, best_s = sc, s
                elif sc > second:
                    second, second_s = sc, s
    if slot < 0:
        action = -1
    th = st.theme[fi, slot] if slot >= 0 else -1
    emit10(st, p, EV_WHY_ROOM, (fi + 1, slot, th, action, x100(best), second_s,
                                x100(second), options, 1 if assault else 0, best_s))


@trace_writer
def recruit(st, dat, kn, p, cost, want):
    """Why ``bots.recruits`` wanted ``want`` dice at ``cost`` Mettle each (§8)."""
    reserve = 0 if kn[K_RANDOM] > 0.5 else bots.mettle_reserve(st, dat, kn, p)
    emit(st, p, EV_WHY_RECRUIT, (want, st.sym[METTLE], reserve, cost,
                                 -1 if kn[K_RANDOM] > 0.5 else np.int64(kn[K_RECRUIT_MAX]),
                                 0, 0))


@trace_writer
def exit_(st, dat, kn, p, price, choice):
    """Why ``bots.exit_choice`` chose ``choice`` (0 Stay, 1 Cash Out, 2 Last Stand; §7.3).

    Values: x, y, z, w (x100) are, by reason: 3-4 Worthy End, Cash Out, held rooms'
    Glory; 6-7 unbanked Loot, ``cash_loot``, deepest floor, ``cash_depth``.
    """
    sd = st.sd
    rules = dat.book.rules
    if sd[p, SD_STAND] == 1:
        emit(st, p, EV_WHY_EXIT, (choice, 1, 0, 0, 0, 0, 0))
        return
    affordable = price <= 0 or st.sym[METTLE] >= price
    if kn[K_RANDOM] > 0.5:
        emit(st, p, EV_WHY_EXIT, (choice, 0, 0, 0, 0, 0, 0))
        return
    if choice != 0 and kn[K_EXIT_VIA] > 0.5:
        emit(st, p, EV_WHY_EXIT, (choice, 8, x100(kn[K_EXIT_VIA]), 0, 0, 0, 0))
        return
    cur = sd[p, SD_FLOOR]
    deepest = sd[p, SD_DEEPEST]
    loot = st.loot[p]
    if kn[K_LAST_STAND] > 1.5 and affordable and deepest >= kn[K_TARGET_DEPTH]:
        emit(st, p, EV_WHY_EXIT, (choice, 2, x100(deepest), x100(kn[K_TARGET_DEPTH]), 0,
                                  0, 0))
        return
    if cur == next_floor(st) and forecast(st, dat, cur, p, kn[K_MAW_MARGIN], False):
        if affordable and (kn[K_LAST_STAND] > 0.5 or cur == 1):
            basis = np.float64(deepest)
            if rules[R_WORTHY_DEPTH_BASIS] > 0.5:
                basis = np.float64(dat.book.depth[deepest - 1])
            worthy = basis * rules[R_WORTHY_MULT] * st.eff[p, E_WORTHY_MULT]
            if rules[R_WORTHY_KEEPS_LOOT] > 0.5:
                worthy += loot * rules[R_GLORY_PER_LOOT]
            cash = loot * rules[R_GLORY_PER_LOOT] + rules[R_DIVIDEND] * deepest
            held = bots.held_value(st, dat, p)
            emit(st, p, EV_WHY_EXIT, (choice, 3 if worthy - cash > 0.5 * held else 4,
                                      x100(worthy), x100(cash), x100(held), 0, 0))
            return
        emit(st, p, EV_WHY_EXIT, (choice, 5, 1 if affordable else 0,
                                  x100(kn[K_LAST_STAND]), price, 0, 0))
        return
    reason = 6 if loot >= kn[K_CASH_LOOT] and deepest >= kn[K_CASH_DEPTH] else 7
    emit(st, p, EV_WHY_EXIT, (choice, reason, x100(loot), x100(kn[K_CASH_LOOT]),
                              x100(deepest), x100(kn[K_CASH_DEPTH]), 0))
