"""Abyss bots: every decision the rules offer a player, from what that player may see.

Every ``choose_*`` function takes the public view ``V`` (:func:`state.view`: row, Court,
Council stack sizes, face-up locations, every player's pearls, lords, locations, Key and
Monster token counts and affiliated allies), the deciding player's own hand ``hand``
(int64[N_RACES, NV] counts), the compiled data ``dat`` (the components: lord cards,
location tiles, Threat track; public knowledge), the player's knob row ``kn`` and ``R`` =
(engine scalars, stream key, work buffer) for random draws and scratch. No function here
can read another player's hand, a Council stack's contents or the order of any deck: the
kernel never passes them (tests/rulesets/abyss/test_abyss_engine.py checks that changing them changes no
decision).

Styles (bots.yaml): ``random`` (uniform over the legal choices at every decision) and the
heuristic below, whose knobs (``layout.KNOBS``) make the styles:

- an ally's *worth* to a player is its value plus ``need_bonus`` for each of: its race is
  missing from the player's hand; its race is required by the player's *target* (the Court
  lord with the most (VP + ``key_weight`` x keys) per cost point it cannot pay yet);
- auction (AB-E2): buy when the price is at most ``buy_value`` x worth and the purchase
  leaves ``pearl_reserve`` pearls; never after the player's final turn;
- an unsold ally (AB-E2): take it when worth >= ``take_min`` (else it goes on, to the
  Council at the end of the turn, and the next card earns more auction income);
- a monster (AB-E4): fight at Threat position >= ``fight_min``;
- recruit (AB-L1..L3): each payable lord gets its best payment (per set of paying races:
  the lowest or the highest card of each race, then the card that closes the gap best,
  until the gap is at most ``topup_max`` pearls) and a net worth VP + ``key_weight`` x
  keys + ``affil_weight`` x affiliation gain + ``pearl_vp`` x refill bonus -
  ``spend_weight`` x (value paid + pearls paid); recruit the best when net >=
  ``recruit_min`` (in the final turn: whenever a lord can be paid);
- else the Council (AB-U1) when a stack holds >= ``council_min`` cards, else Explore;
  when the Depth deck and discard together hold less than two rows of cards (public
  sizes), any payable lord and any Council stack are taken first (exploring would mostly
  reveal monsters);
- plot (AB-T0): up to ``plot_max`` lords a turn while no payable lord reaches
  ``recruit_min`` and ``pearl_reserve`` pearls stay;
- location (AB-K2): the face-up tile or the draw of n (1..max_draw) with the best expected
  VP minus ``loc_gift`` x what the tiles the draw turns face up add to the best face-up
  tile the others may take (expectations over the tiles not yet seen, exact order
  statistics).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rulesets.abyss.layout import (
    A_COUNCIL,
    A_EXPLORE,
    A_PASS,
    A_RECRUIT,
    K_AFFIL_WEIGHT,
    K_BUY_VALUE,
    K_COUNCIL_MIN,
    K_FIGHT_MIN,
    K_KEY_WEIGHT,
    K_LOC_GIFT,
    K_NEED_BONUS,
    K_PEARL_RESERVE,
    K_PEARL_VP,
    K_PLOT_MAX,
    K_RANDOM,
    K_RECRUIT_MIN,
    K_SPEND_WEIGHT,
    K_TAKE_MIN,
    K_TOPUP_MAX,
    LC_COST,
    LC_KEYS,
    LC_NRACES,
    LC_REQ,
    LC_VP,
    N_RACES,
    NV,
    R_COURT_SLOTS,
    R_FINAL_AFF,
    R_MAX_DRAW,
    R_PLOT_COST,
    R_REFILL_PEARLS,
    R_REFILL_SLOT,
    R_RESHUFFLE,
    R_ROW_LEN,
)
from deepsim.rulesets.abyss.state import (
    D_LOCS,
    D_LORDS,
    D_RULES,
    PL_DONE,
    PL_LOCS,
    PL_PEARLS,
    PS_COURT_N,
    PS_DEPTH_N,
    PS_DISC_N,
    PS_FINAL,
    PS_LSTACK_N,
    PS_LVIS_N,
    PS_PLAYERS,
    PS_THREAT,
    PS_TRIGGER_SEAT,
    WI_BEST,
    WI_CHOICE,
    WI_LOCS,
    WI_PAY,
    WI_SETS,
    WI_TMP,
    WI_TOT,
    ally_code,
    card_race,
    card_value,
    rand_below,
)

NEG = -1.0e18

# view tuple positions (state.view)
V_PS, V_ROW, V_COURT, V_CN, V_LVIS, V_PL, V_PLORD, V_PCOV, V_PLOC, V_AFF = range(10)


# ---- hand queries ------------------------------------------------------------------------

@njit(cache=True, inline="always")
def races_present(hand):
    """Bit mask of the races with at least one card in ``hand``."""
    m = 0
    for r in range(N_RACES):
        for v in range(1, NV):
            if hand[r, v] > 0:
                m |= 1 << r
                break
    return m


@njit(cache=True, inline="always")
def popcount(m):
    c = 0
    while m:
        c += m & 1
        m >>= 1
    return c


@njit(cache=True, inline="always")
def race_total(hand, r):
    """Sum of the values of the race-``r`` cards in ``hand``."""
    s = 0
    for v in range(1, NV):
        s += v * hand[r, v]
    return s


@njit(cache=True)
def hand_totals(hand, tot, off):
    """Each race's total value into ``tot[off:off+N_RACES]``; returns the mask of the races
    present (every ally is worth at least 1)."""
    m = 0
    for r in range(N_RACES):
        t = 0
        for v in range(1, NV):
            t += v * hand[r, v]
        tot[off + r] = t
        if t > 0:
            m |= 1 << r
    return m


@njit(cache=True)
def payable_from(tot, off, present, pearls, lords, lid):
    """:func:`lord_payable` from race totals ``tot[off:]`` and the present-races mask."""
    n = lords[lid, LC_NRACES]
    req = lords[lid, LC_REQ]
    if (req & ~present) != 0 or popcount(present) < n:
        return False
    total = 0
    k = 0
    for r in range(N_RACES):
        if (req >> r) & 1:
            total += tot[off + r]
            k += 1
    # the n - k largest totals among the other present races
    used = req
    while k < n:
        best, br = -1, -1
        for r in range(N_RACES):
            if ((present >> r) & 1) and not ((used >> r) & 1) and tot[off + r] > best:
                best, br = tot[off + r], r
        used |= 1 << br
        total += best
        k += 1
    return total + pearls >= lords[lid, LC_COST]


@njit(cache=True)
def lord_payable(hand, pearls, lords, lid):
    """Whether lord ``lid`` can be paid from ``hand`` plus ``pearls`` (AB-L1, AB-L2).

    Exact: some set S of exactly N races present in the hand contains every required race,
    and S's cards (all of them) plus the pearls reach the cost V. The best S takes the
    required races and the N - |R| other present races with the largest totals.
    """
    tot = np.zeros(N_RACES, np.int64)
    present = hand_totals(hand, tot, 0)
    return payable_from(tot, 0, present, pearls, lords, lid)


@njit(cache=True)
def payment_ok(hand, pay, off, pearls, lords, lid):
    """Whether counts ``pay[off:]`` (N_RACES x NV) are a legal payment for lord ``lid``:
    drawn from the hand, exactly N races, every required race, the shortfall within the
    pearls (AB-L1, AB-L2). Returns the shortfall in pearls, or -1 when illegal."""
    races = 0
    s = 0
    for r in range(N_RACES):
        for v in range(1, NV):
            c = pay[off + r * NV + v]
            if c < 0 or c > hand[r, v]:
                return -1
            if c > 0:
                races |= 1 << r
                s += c * v
    req = lords[lid, LC_REQ]
    if popcount(races) != lords[lid, LC_NRACES] or (races & req) != req:
        return -1
    short = lords[lid, LC_COST] - s
    short = max(short, 0)
    if short > pearls:
        return -1
    return short


@njit(cache=True)
def aff_max(aff_p, r):
    """Highest affiliated value of race ``r`` (0 when none): what the race scores (AB-G4)."""
    for v in range(NV - 1, 0, -1):
        if aff_p[r, v] > 0:
            return v
    return 0


# inlined: its two callers pass different constant offsets, each a literal signature
@njit(cache=True, inline="always")
def lowest_paid(pay, off):
    """(lowest value in a payment, bit mask of the races that have it)."""
    low = NV
    mask = 0
    for r in range(N_RACES):
        for v in range(1, NV):
            if pay[off + r * NV + v] > 0:
                if v < low:
                    low = v
                    mask = 1 << r
                elif v == low:
                    mask |= 1 << r
                break
    return low, mask


@njit(cache=True)
def build_payment(hand, S, cost, pearls, high_first, topup_max, pay, off):
    """Fill ``pay[off:]`` with a payment for a lord of cost ``cost`` from the races in mask
    ``S``: one card of each race (its lowest, or its highest when ``high_first``), then the
    smallest card that closes the gap (else the largest) until the gap is at most
    ``topup_max`` and the pearls cover it. Returns (sum of values, cards, pearls needed), or
    (-1, 0, 0) when the pearls cannot cover the gap."""
    for i in range(N_RACES * NV):
        pay[off + i] = 0
    s = 0
    nc = 0
    for r in range(N_RACES):
        if (S >> r) & 1:
            if high_first:
                for v in range(NV - 1, 0, -1):
                    if hand[r, v] > 0:
                        break
            else:
                for v in range(1, NV):
                    if hand[r, v] > 0:
                        break
            pay[off + r * NV + v] += 1
            s += v
            nc += 1
    while s < cost:
        gap = cost - s
        if gap <= topup_max and gap <= pearls:
            break
        above_v, above_r = NV, -1      # smallest card >= gap
        below_v, below_r = 0, -1       # largest card < gap
        for r in range(N_RACES):
            if not (S >> r) & 1:
                continue
            for v in range(1, NV):
                if hand[r, v] - pay[off + r * NV + v] > 0:
                    if v >= gap:
                        if v < above_v:
                            above_v, above_r = v, r
                    elif v > below_v:
                        below_v, below_r = v, r
        if above_r >= 0:
            pay[off + above_r * NV + above_v] += 1
            s += above_v
        elif below_r >= 0:
            pay[off + below_r * NV + below_v] += 1
            s += below_v
        else:
            break
        nc += 1
    short = cost - s
    short = max(short, 0)
    if short > pearls:
        return -1, 0, 0
    return s, nc, short


@njit(cache=True)
def refill_bonus(V, dat):
    """Pearls a purchase now earns from the slot-4 refill (AB-L4): the Court after the
    purchase, packed away from the deck, leaves slot ``refill_slot`` empty."""
    rules = dat[D_RULES]
    left = V[V_PS][PS_COURT_N] - 1
    if left <= np.int64(rules[R_COURT_SLOTS]) - np.int64(rules[R_REFILL_SLOT]):
        return np.int64(rules[R_REFILL_PEARLS])
    return 0


@njit(cache=True)
def best_payment(V, hand, dat, kn, p, lid, R, out, present):
    """The heuristic's best payment for lord ``lid`` into ``R[2][out:]`` and its net worth
    (see the module docstring), or NEG when the lord cannot be paid. ``present``: the mask
    of :func:`hand_totals`, whose totals are in ``R[2][WI_TOT:]``."""
    lords = dat[D_LORDS]
    wi = R[2]
    pearls = V[V_PL][p, PL_PEARLS]
    if not payable_from(wi, WI_TOT, present, pearls, lords, lid):
        return NEG
    n = lords[lid, LC_NRACES]
    req = lords[lid, LC_REQ]
    aff = V[V_AFF][p]
    base = (lords[lid, LC_VP] + kn[K_KEY_WEIGHT] * lords[lid, LC_KEYS]
            + kn[K_PEARL_VP] * refill_bonus(V, dat))
    topup_max = np.int64(kn[K_TOPUP_MAX])
    best = NEG
    for S in range(1 << N_RACES):
        if (S & req) != req or (S & ~present) != 0 or popcount(S) != n:
            continue
        for hf in range(2):
            s, _, short = build_payment(hand, S, lords[lid, LC_COST], pearls, hf == 1,
                                        topup_max, wi, WI_TMP)
            if s < 0:
                continue
            low, mask = lowest_paid(wi, WI_TMP)
            gain = 0
            for r in range(N_RACES):
                if (mask >> r) & 1:
                    g = low - aff_max(aff, r)
                    gain = max(gain, g)
            net = (base + kn[K_AFFIL_WEIGHT] * gain
                   - kn[K_SPEND_WEIGHT] * (s + short))
            if net > best:
                best = net
                for i in range(N_RACES * NV):
                    wi[out + i] = wi[WI_TMP + i]
    return best


@njit(cache=True)
def random_payment(V, hand, dat, p, lid, R, out):
    """A random legal payment for lord ``lid`` into ``R[2][out:]`` (the random style): a
    uniform set of paying races among those that can pay, a random card of each, then
    random cards or (on a coin) pearls until the cost is met. Returns the pearls needed."""
    lords = dat[D_LORDS]
    wi = R[2]
    pearls = V[V_PL][p, PL_PEARLS]
    n = lords[lid, LC_NRACES]
    req = lords[lid, LC_REQ]
    cost = lords[lid, LC_COST]
    present = races_present(hand)
    k = 0
    for S in range(1 << N_RACES):
        if (S & req) == req and (S & ~present) == 0 and popcount(S) == n:
            t = 0
            for r in range(N_RACES):
                if (S >> r) & 1:
                    t += race_total(hand, r)
            if t + pearls >= cost:
                wi[WI_SETS + k] = S
                k += 1
    S = wi[WI_SETS + rand_below(R, k)]
    for i in range(N_RACES * NV):
        wi[out + i] = 0
    s = 0
    for r in range(N_RACES):
        if (S >> r) & 1:
            m = 0
            for v in range(1, NV):
                m += hand[r, v]
            j = rand_below(R, m)
            for v in range(1, NV):
                if j < hand[r, v]:
                    wi[out + r * NV + v] += 1
                    s += v
                    break
                j -= hand[r, v]
    while s < cost:
        m = 0
        for r in range(N_RACES):
            if (S >> r) & 1:
                for v in range(1, NV):
                    m += hand[r, v] - wi[out + r * NV + v]
        if m == 0:
            break
        if cost - s <= pearls and rand_below(R, 2) == 0:
            break
        j = rand_below(R, m)
        done = False
        for r in range(N_RACES):
            if not (S >> r) & 1:
                continue
            for v in range(1, NV):
                c = hand[r, v] - wi[out + r * NV + v]
                if j < c:
                    wi[out + r * NV + v] += 1
                    s += v
                    done = True
                    break
                j -= c
            if done:
                break
    short = cost - s
    return max(0, short)


# ---- targets and worth ---------------------------------------------------------------------

@njit(cache=True)
def target_lord(V, hand, dat, kn, R, p):
    """The Court lord the player works toward: the most (VP + key_weight x keys) per cost
    point among those it cannot pay now; -1 when it can pay every one (or none is left)."""
    lords = dat[D_LORDS]
    court = V[V_COURT]
    pearls = V[V_PL][p, PL_PEARLS]
    wi = R[2]
    present = hand_totals(hand, wi, WI_TOT)
    best, bl = NEG, -1
    for i in range(V[V_PS][PS_COURT_N]):
        lid = court[i]
        if payable_from(wi, WI_TOT, present, pearls, lords, lid):
            continue
        c = lords[lid, LC_COST]
        w = (lords[lid, LC_VP] + kn[K_KEY_WEIGHT] * lords[lid, LC_KEYS]) / (c if c > 0 else 1)
        if w > best:
            best, bl = w, lid
    return bl


@njit(cache=True)
def ally_worth(V, hand, dat, kn, p, code, target):
    """An ally's worth to player ``p``: value + need_bonus x (race missing from the hand)
    + need_bonus x (race required by the target lord)."""
    r = card_race(code)
    w = float(card_value(code))
    missing = True
    for v in range(1, NV):
        if hand[r, v] > 0:
            missing = False
            break
    if missing:
        w += kn[K_NEED_BONUS]
    if target >= 0 and (dat[D_LORDS][target, LC_REQ] >> r) & 1:
        w += kn[K_NEED_BONUS]
    return w


@njit(cache=True, inline="always")
def has_turn_left(V, p):
    """False once player ``p`` has no turn left (it triggered the end or played its final
    turn): public knowledge."""
    ps = V[V_PS]
    if ps[PS_FINAL] == 0:
        return True
    return V[V_PL][p, PL_DONE] == 0 and ps[PS_TRIGGER_SEAT] != p


@njit(cache=True)
def final_gain(V, hand, dat, p, code):
    """The VP ally ``code`` in player ``p``'s hand adds at the final affiliation (AB-G3, one
    hand card per race joins the affiliated allies; AB-G4 the best affiliated ally per race
    scores): with the lowest-card reading (AMB-A3) only a race missing from the hand can
    gain (the card would be the one affiliated), with the highest reading a card above the
    hand's best of its race; never below the race's best affiliated ally. What an ally is
    worth once the player has no turn left (it can no longer pay a lord with it)."""
    r = card_race(code)
    v = card_value(code)
    lo, hi = 0, 0
    for w in range(1, NV):
        if hand[r, w] > 0:
            if lo == 0:
                lo = w
            hi = w
    best = aff_max(V[V_AFF][p], r)
    if dat[D_RULES][R_FINAL_AFF] > 0.5:                  # highest
        return max(0, v - max(best, hi))
    if lo > 0:
        return 0                                         # the lower card stays the one
    return max(0, v - best)


# ---- decisions -------------------------------------------------------------------------------

@njit(cache=True)
def choose_buy(V, hand, dat, kn, R, q, code, price):
    """Opponent ``q`` is offered ally ``code`` at ``price`` pearls (AB-E2): buy? The kernel
    asks only when ``q`` may buy and can pay. After its own final turn (the rules still let
    it buy) the heuristic buys when the ally raises its final affiliation (:func:`final_gain`
    >= 1 VP: a point beats the pearls, which then only break ties, AB-G5)."""
    if kn[K_RANDOM] > 0:
        return rand_below(R, 2) == 1
    if not has_turn_left(V, q):
        return final_gain(V, hand, dat, q, code) >= 1
    if V[V_PL][q, PL_PEARLS] - price < kn[K_PEARL_RESERVE]:
        return False
    w = ally_worth(V, hand, dat, kn, q, code, target_lord(V, hand, dat, kn, R, q))
    return price <= kn[K_BUY_VALUE] * w


@njit(cache=True)
def choose_take(V, hand, dat, kn, R, p, code):
    """The active player may take the unsold ally ``code`` free, ending its action (AB-E2)."""
    if kn[K_RANDOM] > 0:
        return rand_below(R, 2) == 1
    w = ally_worth(V, hand, dat, kn, p, code, target_lord(V, hand, dat, kn, R, p))
    return w >= kn[K_TAKE_MIN]


@njit(cache=True)
def choose_fight(V, hand, dat, kn, R, p):
    """A monster: fight it (take the reward at the Threat position, AB-E4)?"""
    if kn[K_RANDOM] > 0:
        return rand_below(R, 2) == 1
    return V[V_PS][PS_THREAT] + 1 >= kn[K_FIGHT_MIN]


@njit(cache=True)
def choose_stop(V, hand, dat, kn, R, p):
    """After leaving a monster, with ``explore.must_continue_after_monster`` false: stop
    exploring (AMB-A8)? The heuristic always goes on."""
    if kn[K_RANDOM] > 0:
        return rand_below(R, 2) == 1
    return False


@njit(cache=True)
def choose_council(V, hand, dat, kn, R, p):
    """Which Council stack to take (AB-U1): only its size is known. The largest; ties go to
    the race the player's target lord needs, then to a race missing from the hand."""
    cn = V[V_CN]
    if kn[K_RANDOM] > 0:
        k = 0
        for r in range(N_RACES):
            if cn[r] > 0:
                k += 1
        j = rand_below(R, k)
        for r in range(N_RACES):
            if cn[r] > 0:
                if j == 0:
                    return r
                j -= 1
        return -1
    target = target_lord(V, hand, dat, kn, R, p)
    best, br = NEG, -1
    for r in range(N_RACES):
        if cn[r] > 0:
            w = cn[r] * 1000.0 + ally_worth(V, hand, dat, kn, p, ally_code(r, 1), target)
            if w > best:
                best, br = w, r
    return br


@njit(cache=True)
def choose_recruit(V, hand, dat, kn, R, p):
    """Which Court lord to recruit and how to pay (AB-L1..L3).

    Returns ``(court slot index, net worth)``; the payment's counts are in
    ``R[2][WI_BEST:]``. (-1, NEG) when no lord can be paid.
    """
    lords = dat[D_LORDS]
    court = V[V_COURT]
    nc = V[V_PS][PS_COURT_N]
    pearls = V[V_PL][p, PL_PEARLS]
    wi = R[2]
    present = hand_totals(hand, wi, WI_TOT)
    if kn[K_RANDOM] > 0:
        k = 0
        for i in range(nc):
            if payable_from(wi, WI_TOT, present, pearls, lords, court[i]):
                k += 1
        if k == 0:
            return -1, NEG
        j = rand_below(R, k)
        for i in range(nc):
            if payable_from(wi, WI_TOT, present, pearls, lords, court[i]):
                if j == 0:
                    random_payment(V, hand, dat, p, court[i], R, WI_BEST)
                    return i, 0.0
                j -= 1
        return -1, NEG
    best, bi = NEG, -1
    for i in range(nc):
        net = best_payment(V, hand, dat, kn, p, court[i], R, WI_PAY, present)
        if net > best:
            best, bi = net, i
            for t in range(N_RACES * NV):
                R[2][WI_BEST + t] = R[2][WI_PAY + t]
    return bi, best


@njit(cache=True)
def explore_legal(V, dat):
    """Explore needs a card to reveal: the Depth deck, or the discard to reshuffle (AMB-A6)."""
    ps = V[V_PS]
    return ps[PS_DEPTH_N] > 0 or (dat[D_RULES][R_RESHUFFLE] > 0.5 and ps[PS_DISC_N] > 0)


@njit(cache=True)
def choose_action(V, hand, dat, kn, R, p):
    """The main action (AB-T1): A_EXPLORE, A_COUNCIL, A_RECRUIT or A_PASS (none legal).

    For A_RECRUIT the heuristic also leaves its choice: the Court index in
    ``R[2][WI_CHOICE]`` and the payment in ``R[2][WI_BEST:]`` (-1 there: ask
    :func:`choose_recruit`, as for the random style)."""
    lords = dat[D_LORDS]
    court = V[V_COURT]
    ps = V[V_PS]
    cn = V[V_CN]
    pearls = V[V_PL][p, PL_PEARLS]
    wi = R[2]
    wi[WI_CHOICE] = -1
    can_ex = explore_legal(V, dat)
    maxstack = 0
    for r in range(N_RACES):
        maxstack = max(maxstack, cn[r])
    present = hand_totals(hand, wi, WI_TOT)
    can_rec = False
    for i in range(ps[PS_COURT_N]):
        if payable_from(wi, WI_TOT, present, pearls, lords, court[i]):
            can_rec = True
            break
    if kn[K_RANDOM] > 0:
        k = (1 if can_ex else 0) + (1 if maxstack > 0 else 0) + (1 if can_rec else 0)
        if k == 0:
            return A_PASS
        j = rand_below(R, k)
        if can_ex:
            if j == 0:
                return A_EXPLORE
            j -= 1
        if maxstack > 0:
            if j == 0:
                return A_COUNCIL
            j -= 1
        return A_RECRUIT
    # scarce: the Depth deck and discard hold less than two rows of cards (public sizes);
    # exploring then mostly turns up monsters, so any stack and any payable lord will do
    scarce = (ps[PS_DEPTH_N] + ps[PS_DISC_N]
              < 2 * np.int64(dat[D_RULES][R_ROW_LEN]))
    if can_rec:
        bi, net = choose_recruit(V, hand, dat, kn, R, p)
        if ps[PS_FINAL] > 0 or scarce or net >= kn[K_RECRUIT_MIN]:
            wi[WI_CHOICE] = bi          # the payment is in wi[WI_BEST:]
            return A_RECRUIT
    # AMB-A13: the Council only with a non-empty stack
    if maxstack > 0 and (maxstack >= kn[K_COUNCIL_MIN] or scarce):
        return A_COUNCIL
    if can_ex:
        return A_EXPLORE
    if maxstack > 0:
        return A_COUNCIL
    if can_rec:
        bi, net = choose_recruit(V, hand, dat, kn, R, p)
        wi[WI_CHOICE] = bi
        return A_RECRUIT
    return A_PASS


@njit(cache=True)
def choose_plot(V, hand, dat, kn, R, p, plotted):
    """Pay ``court.plot_cost`` to reveal a lord into a free Court slot (AB-T0)? The kernel
    asks only when it is legal; ``plotted`` lords were put in already this turn."""
    if kn[K_RANDOM] > 0:
        return rand_below(R, 2) == 1
    if plotted >= kn[K_PLOT_MAX]:
        return False
    cost = np.int64(dat[D_RULES][R_PLOT_COST])
    if V[V_PL][p, PL_PEARLS] - cost < kn[K_PEARL_RESERVE]:
        return False
    bi, net = choose_recruit(V, hand, dat, kn, R, p)
    return bi < 0 or net < kn[K_RECRUIT_MIN]


@njit(cache=True)
def unseen_locations(V, dat, wi, off):
    """VP of the location tiles nobody has seen (not face up, not owned), sorted ascending
    into ``wi[off:]``; returns their number. Public: the tiles are known components."""
    locs = dat[D_LOCS]
    n_all = locs.shape[0]
    ps = V[V_PS]
    m = 0
    for t in range(n_all):
        seen = False
        for i in range(ps[PS_LVIS_N]):
            if V[V_LVIS][i] == t:
                seen = True
                break
        if not seen:
            ploc = V[V_PLOC]
            for q in range(ps[PS_PLAYERS]):
                for i in range(V[V_PL][q, PL_LOCS]):
                    if ploc[q, i] == t:
                        seen = True
                        break
                if seen:
                    break
        if not seen:
            # insertion into the sorted list
            x = locs[t]
            j = m
            while j > 0 and wi[off + j - 1] > x:
                wi[off + j] = wi[off + j - 1]
                j -= 1
            wi[off + j] = x
            m += 1
    return m


@njit(cache=True)
def _comb(n, k):
    if k < 0 or k > n:
        return 0.0
    c = 1.0
    for i in range(k):
        c = c * (n - i) / (i + 1)
    return c


@njit(cache=True)
def draw_values(wi, off, m, n, shown=0.0):
    """(expected best, expected gift) of ``n`` tiles drawn without replacement from the
    ``m`` sorted values ``wi[off:off+m]`` (order statistics). The gift is what the draw
    adds to the best face-up tile the others may take (its second best goes face up with
    the rest, AB-K2): E[max(second best, ``shown``) - ``shown``], ``shown`` being the best
    tile already face up (0: none)."""
    total = _comb(m, n)
    e1 = 0.0
    e2 = 0.0
    for i in range(m):        # value at rank i (0-based, ascending) is the best of the draw
        e1 += wi[off + i] * _comb(i, n - 1) / total
        if n >= 2:            # ... or the second best: one above it, n-2 below
            e2 += max(wi[off + i] - shown, 0.0) * _comb(i, n - 2) * (m - 1 - i) / total
    return e1, e2


@njit(cache=True)
def choose_location(V, hand, dat, kn, R, p):
    """Which location to take (AB-K2): ``i >= 0`` the face-up tile at index i, ``-n`` draw
    n tiles. The kernel asks only when a tile is available."""
    ps = V[V_PS]
    nvis = ps[PS_LVIS_N]
    nd = min(np.int64(dat[D_RULES][R_MAX_DRAW]), ps[PS_LSTACK_N])
    if kn[K_RANDOM] > 0:
        j = rand_below(R, nvis + nd)
        return j if j < nvis else -(j - nvis + 1)
    locs = dat[D_LOCS]
    best, bi = NEG, -1
    for i in range(nvis):
        vp = locs[V[V_LVIS][i]]
        if vp > best:
            best, bi = float(vp), i
    shown = max(best, 0.0)    # the best face-up tile stays for the others after a draw
    if nd > 0:
        wi = R[2]
        m = unseen_locations(V, dat, wi, WI_LOCS)
        for n in range(1, nd + 1):
            e1, e2 = draw_values(wi, WI_LOCS, m, n, shown)
            w = e1 - kn[K_LOC_GIFT] * e2
            if w > best:
                best, bi = w, -n
    return bi


@njit(cache=True)
def choose_keep(V, hand, dat, kn, R, p, drawn, off, n):
    """Which of the ``n`` drawn tiles ``drawn[off:off+n]`` (ids; seen by this player only)
    to keep (AB-K2): the highest VP."""
    if kn[K_RANDOM] > 0:
        return rand_below(R, n)
    locs = dat[D_LOCS]
    best, bi = -1, 0
    for i in range(n):
        if locs[drawn[off + i]] > best:
            best, bi = locs[drawn[off + i]], i
    return bi


@njit(cache=True)
def choose_affiliation(V, hand, dat, kn, R, p, mask, value):
    """Several races tie for the lowest paid card (AB-L3): which race to keep. The one whose
    affiliated best it raises most (ties: the lowest race index)."""
    if kn[K_RANDOM] > 0:
        k = popcount(mask)
        j = rand_below(R, k)
        for r in range(N_RACES):
            if (mask >> r) & 1:
                if j == 0:
                    return r
                j -= 1
    aff = V[V_AFF][p]
    best, br = -NV, -1
    for r in range(N_RACES):
        if (mask >> r) & 1:
            g = value - aff_max(aff, r)      # negative when the race already has better
            if g > best:
                best, br = g, r
    return br

