"""The DEEPFALL game kernel: whole games in numba, one output row per game.

Every rule carries its rulebook section (§) and, where the rulebook is silent, the gap
number (A..) documented in docs/RULES.md with the parameter that settles it. All numbers
come in through the data bundle built by :mod:`deepsim.rulesets.deepfall.compile`; the
kernel has no rule constants of its own. Decisions are delegated to
:mod:`deepsim.rulesets.deepfall.bots`.

Every function takes the game state ``st`` and the data ``dat`` (the bundles of
:mod:`deepsim.rulesets.deepfall.board`), then the seat ``p`` and what else it needs. Where
to find a rule:

- a game: :func:`play_block` (one game a row) = :func:`setup` (§3), then rounds
  (:func:`play_rounds`, §6) of turns and the Maw, then :func:`end_game` (§1);
  :func:`play_rest` plays a search bot's look-ahead to the end the same way;
- a turn (§6A, the steps of §10's quick reference): :func:`turn_start` (production, A24),
  :func:`step1_roll`, :func:`step2_press_on`, :func:`step3_dread`, :func:`step4_spend`
  (:func:`move`, :func:`try_claim`, :func:`loot`, :func:`recruit`), :func:`step5_exit`
  (:func:`cash_out`, Last Stand);
- the Maw (§6B): :func:`maw_phase`, :func:`collapse`, :func:`taken`.

Floors are 0-based inside the kernel (index 0 = Floor 1, the top; 5 = Floor 6, the
bottom); crew positions and "deepest floor" are floor *numbers* 1..6 as in the rulebook.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.blocks import run_blocks
from deepsim.factionmix import faction_bot
from deepsim.rng import child_key, game_key
from deepsim.rulesets.deepfall import bots, events, why
from deepsim.rulesets.deepfall.board import (
    FLOOR_BITS,
    G_N,
    GS_BACKLOG,
    GS_COLLAPSED,
    GS_CTR,
    GS_DECISIONS,
    GS_DREAD,
    GS_DREAD_ADDED,
    GS_DREAD_LEN,
    GS_EV,
    GS_CLAIMS_LEFT,
    GS_EXIT_MASK,
    GS_FLOOR_MASK,
    GS_N,
    GS_PRESS_MASK,
    GS_PRESS_OVER,
    GS_PRESS_TARGET,
    GS_RB_EPOCH,
    GS_SHORT_SET,
    GS_PRESSES,
    GS_ROOM_MASK,
    GS_START_FLOOR,
    GS_ROLLOUT,
    GS_ROUND,
    GS_SEARCH,
    GS_SLOTS,
    GS_STEPS,
    GS_WARN_FLOOR,
    GS_TRACE,
    GS_TURN_I,
    GS_TURNS,
    SD_BOT,
    SD_CAL,
    SD_CREW_TURNS,
    SD_DEEPEST,
    SD_FLOOR,
    SD_LIN,
    SD_MARKS,
    SD_PROG_CUNNING,
    SD_PROG_FLOOR,
    SD_PROG_SLOT,
    SD_PROG_STEEL,
    SD_STAND,
    SD_WARNED,
    TRACE_EVENTS,
    Tables,
    bag_size,
    copy_state,
    floor_marks,
    holds,
    last_stand_price,
    mark_bit,
    new_quiet_state,
    new_state,
    traced,
    rand_below,
    rival_best,
    strength_of,
)
from deepsim.rulesets.deepfall.events import emit, emit10, x100
from deepsim.rulesets.deepfall.layout import (
    CUNNING,
    DREAD,
    E_CLAIM_LOOT,
    E_COMBAT_LOOT,
    E_CUNNING_BONUS,
    E_DREAD_CANCEL,
    E_DREAD_TO_METTLE,
    E_FAITH_PENALTY,
    E_FREE_LAST_STAND,
    E_HAND,
    E_MARKER_STRENGTH,
    E_MARKER_WEIGHT,
    E_MOVES,
    E_NO_FAITH_CANCEL,
    E_PRODUCTION_MULT,
    E_RECRUIT_COST,
    E_SETBACK_EXTRA,
    E_SETBACK_HEAL,
    E_SETBACK_IMMUNE,
    E_SOLO_VAULT,
    E_THREAT_IGNORE,
    E_WORTHY_MULT,
    EV_ASSAULT,
    EV_CASH_OUT,
    EV_CLAIM,
    EV_CONSUMED,
    EV_DEFER,
    EV_DIE,
    EV_DREAD,
    EV_END,
    EV_LAST_STAND,
    EV_LOOT,
    EV_MAW,
    EV_MOVE,
    EV_MUSTER,
    EV_PRESS,
    EV_PRODUCE,
    EV_RECRUIT,
    EV_RISE,
    EV_ROLL,
    EV_ROUND,
    EV_SCORE,
    EV_SEARCH,
    EV_SEARCH_ROOM,
    EV_SETBACK,
    EV_SETUP,
    EV_STAY,
    EV_TAKEN,
    FAITH,
    G_COLLAPSED,
    G_CONSUMED,
    G_CONTESTED,
    G_CONTESTED_MARKERS,
    G_DEFERRED,
    G_DREAD_FILLS,
    G_DREAD_LEN,
    G_MAW_STEPS,
    G_N_WINNERS,
    G_PLAYERS,
    G_PRESS_ONS,
    G_RNG_DRAWS,
    G_ROOMS_PER_FLOOR,
    G_ROOMS_SCORED,
    G_ROUNDS,
    G_SETBACKS,
    G_TAKEN_BLINDSIDED,
    G_TAKEN_MOVED_IN,
    G_TAKEN_MUSTERED,
    G_TAKEN_WARNED,
    G_TRUNCATED,
    G_UNCLAIMED,
    G_WARNED,
    G_WINNER,
    GF_MARGIN,
    GF_MARGIN_REL,
    GF_TOP,
    GREED,
    K_ROLLOUTS,
    K_SEARCH_EXTRA,
    K_SEARCH_GLORY,
    K_SEARCH_MARGIN,
    K_SEARCH_OPPONENTS,
    K_SEARCH_PAIRED,
    K_SEARCH_PRESS,
    K_SEARCH_ROOM,
    MAX_SEATS,
    MAX_SLOTS,
    METTLE,
    N_CALLINGS,
    N_DICE,
    N_EFFECTS,
    N_FACES,
    N_FLOORS,
    N_GAME_FLT,
    N_GAME_INT,
    N_LINEAGES,
    N_SEAT_FLT,
    N_SEAT_INT,
    N_SYMBOLS,
    NOT_AN_OPTION,
    R_ASSAULT,
    R_BAG_RETURNS,
    R_BASE_STRENGTH,
    R_CLAIMS_PER_TURN,
    R_DEFER,
    R_DIVIDEND,
    R_DREAD_FULL_STEPS,
    R_DREAD_PER_UNCANCELED,
    R_FREE_MOVES,
    R_GLORY_PER_LOOT,
    R_HAND,
    R_LOOT_BEST_FLOOR,
    R_LOOT_PER_GREED,
    R_LS_CONSUMES,
    R_MAX_COLLAPSES,
    R_MAX_ROUNDS,
    R_MAX_SURPLUS,
    R_MOVE_COST,
    R_MUST_BEAT,
    R_MUSTER_CURRENT,
    R_OVERFLOW_CARRIES,
    R_PRESS_DREAD,
    R_PROD_PER_ROOM,
    R_PROD_TRINITY,
    R_RECRUIT_COST,
    R_RECRUIT_MIN,
    R_RECRUIT_POOL,
    R_REINFORCE,
    R_RISE_FRACTION,
    R_RISE_PLUNDER,
    R_SETBACK_AT,
    R_SETBACK_DICE,
    R_SETBACK_FROM_BAG,
    R_START_FLOOR,
    R_STEPS_PER_FLOOR,
    R_STEPS_PER_ROUND,
    R_SURPLUS_STRENGTH,
    R_TAKEN_LOSES,
    R_THRONE_F6,
    R_TIE_SHARE,
    R_TRINITY_BONUS,
    R_UNSPENT_LOST,
    R_VAULT_F6,
    R_WORTHY_DEPTH_BASIS,
    R_WORTHY_KEEPS_LOOT,
    R_WORTHY_MULT,
    RM_COMBAT,
    RM_LOCK,
    RM_PRODUCES,
    RM_THREAT,
    RM_TRINITY,
    RM_VALUE,
    S_ASSAULTS,
    S_BOT,
    S_CAL_ABILITY,
    S_CALLING,
    S_CASH_OUTS,
    S_CLAIMS0,
    S_CONSUMED,
    S_CREWS,
    S_DEEPEST,
    S_DICE_LOST,
    S_LAST_STANDS,
    S_LIN_ABILITY,
    S_LINEAGE,
    S_MOVES,
    S_PLACE,
    S_PRESS_ONS,
    S_RECRUITED,
    S_ROOMS_CLAIMED,
    S_SETBACKS,
    S_TAKEN_FINAL,
    S_TAKEN_NO_STAND,
    S_TAKEN_UNPLAYED,
    S_TURNS,
    S_USE0,
    S_WORTHY_ENDS,
    SF_CASH,
    SF_GLORY,
    SF_LOOT_GAINED,
    SF_LOOT_LOST,
    SF_ROOMS,
    SF_WIN,
    SF_WORTHY,
    STEEL,
    THRONE_THEME,
    VAULT_THEME,
)


@njit(cache=True, _nrt=False, inline="always")
def credit(st, p, e):
    """Count one use of effect ``e`` for seat ``p`` and for the company half that grants it."""
    si = st.si
    si[p, S_USE0 + e] += 1
    if st.has_lin[p, e]:
        si[p, S_LIN_ABILITY] += 1
    if st.has_cal[p, e]:
        si[p, S_CAL_ABILITY] += 1


@njit(cache=True, _nrt=False, inline="always")
def knobs_of(st, dat, p):
    """The knob row (float64[N_KNOBS]) of seat p's bot."""
    return dat.knobs[st.sd[p, SD_BOT]]


@njit(cache=True, _nrt=False, inline="always")
def muster(st, dat, p):
    """Muster a fresh company (§7.3 Cash Out, §6B Taken; A13: at ``turn.start_floor``, with
    the Lineage's starting bag, or with ``turn.muster_bag: current`` the player's dice as
    they are; the first crew of a game always takes the starting bag)."""
    rules = dat.book.rules
    sd = st.sd
    bag = st.bag
    drawn = st.drawn
    start = np.int64(rules[R_START_FLOOR])
    sd[p, SD_FLOOR] = start
    sd[p, SD_DEEPEST] = start
    sd[p, SD_STAND] = 0
    sd[p, SD_PROG_SLOT] = -1
    sd[p, SD_PROG_FLOOR] = -1
    sd[p, SD_PROG_STEEL] = 0
    sd[p, SD_PROG_CUNNING] = 0
    sd[p, SD_CREW_TURNS] = 0
    sd[p, SD_WARNED] = 2                # B8: a fresh crew, not on the board when warned
    if rules[R_MUSTER_CURRENT] > 0.5 and st.si[p, S_CREWS] > 0:
        for k in range(N_DICE):                 # A13: the player's bag and discard stay
            bag[p, k] += drawn[p, k]
            drawn[p, k] = 0
    else:
        lin_bag = dat.book.lin_bag
        for k in range(N_DICE):
            bag[p, k] = lin_bag[sd[p, SD_LIN], k]
            drawn[p, k] = 0
            st.disc[p, k] = 0
    st.loot[p] = 0.0
    for k in range(N_SYMBOLS):
        st.kept[p, k] = 0
    st.si[p, S_CREWS] += 1
    emit(st, p, EV_MUSTER, (start, 0, 0, 0, 0, 0, 0))


@njit(cache=True, _nrt=False, inline="always")
def hand_size(st, dat, p):
    """Dice in a hand (§6A.1): ``turn.hand_size`` ± the company's (§4), at least 1."""
    h = np.int64(dat.book.rules[R_HAND] + st.eff[p, E_HAND])
    return max(1, h)


@njit(cache=True, _nrt=False, inline="always")
def hand_stream(st, p, hand):
    """In a search bot's rollout with dice keyed per hand (``GS_ROLLOUT`` 1): draw hand
    number ``hand`` of seat p's turn in this round (0 the roll of §6A.1, k the k-th Press
    On) from a stream of its own, ``child_key(child_key(key[1], round * MAX_SEATS + p),
    hand)`` under the rollout's key ``key[1]``, from its first draw. Two rollouts of one
    decision with the same key then roll the same dice for the same hand whenever the bag
    holds the same dice, whatever was drawn before (common random numbers between the
    options: an option that draws one hand more does not shift every later die). In a
    game (``GS_ROLLOUT`` 0) and in a rollout with one running stream (2) nothing changes:
    the game's own dice are one stream, as always."""
    g = st.g
    if g[GS_ROLLOUT] == 1:
        st.key[0] = child_key(child_key(st.key[1], g[GS_ROUND] * MAX_SEATS + p), hand)
        g[GS_CTR] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def draw_hand(st, dat, p, h, hand):
    """Draw up to h dice from the bag without replacement and roll them (§6A.1, A4):
    hand number ``hand`` of the turn (0 the roll, k the k-th Press On; its stream in a
    search bot's rollout: :func:`hand_stream`)."""
    hand_stream(st, p, hand)
    bag = st.bag
    drawn = st.drawn
    faces = dat.book.faces
    sym = st.sym
    rolled = st.rolled
    n_drawn = 0
    total = bag_size(st, p)         # the bag's dice, kept in step as each die is drawn
    for _ in range(h):
        if total == 0:
            break
        r = rand_below(st, total)
        t = 0
        while r >= bag[p, t]:
            r -= bag[p, t]
            t += 1
        bag[p, t] -= 1
        total -= 1
        drawn[p, t] += 1
        face = faces[t, rand_below(st, N_FACES)]
        emit(st, p, EV_DIE, (t, face, 0, 0, 0, 0, 0))
        sym[face] += 1
        rolled[face] += 1
        n_drawn += 1
    emit(st, p, EV_ROLL, (n_drawn, rolled[STEEL], rolled[CUNNING], rolled[FAITH],
                          rolled[GREED], rolled[METTLE], rolled[DREAD]))
    return n_drawn


# ---------------------------------------------------------------------------------------
# claiming rooms (§7.1)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, inline="always")
def claim_cost(st, dat, fi, s, p):
    """(steel needed, cunning needed) to claim room (fi, s) now, after assault progress."""
    rooms = dat.book.rooms
    sd = st.sd
    th = st.theme[fi, s]
    need_s = rooms[th, RM_THREAT] - np.int64(st.eff[p, E_THREAT_IGNORE])  # §4 Dvergar
    need_c = rooms[th, RM_LOCK]
    need_s = max(need_s, 0)
    if (dat.book.rules[R_ASSAULT] > 0.5 and sd[p, SD_PROG_FLOOR] == fi
            and sd[p, SD_PROG_SLOT] == s):
        need_s -= sd[p, SD_PROG_STEEL]     # §7.1 assault progress carries over (A25)
        need_c -= sd[p, SD_PROG_CUNNING]
    need_s = max(need_s, 0)
    need_c = max(need_c, 0)
    return need_s, need_c


@njit(cache=True, _nrt=False, inline="always")
def trinity_ok(st, dat, p, th):
    """§7.1 Vaults need a rolled Steel, Cunning and Faith this turn (``st.trin``), unless
    Lorekeeper. Returns (may claim, the Lorekeeper's card was needed)."""
    if dat.book.rooms[th, RM_TRINITY] == 0:
        return True, False
    trin = st.trin
    if trin[STEEL] > 0 and trin[CUNNING] > 0 and trin[FAITH] > 0:
        return True, False
    if st.eff[p, E_SOLO_VAULT] > 0.5:
        return True, True
    return False, False


@njit(cache=True, _nrt=False, inline="always")
def do_claim(st, dat, p, fi, s, surplus_s, surplus_c, solo_used):
    """Place a control marker (§7.1): pay threat and lock (:func:`claim_cost`) and the
    surplus; strength = base + surplus (A9). Returns the Loot gained."""
    rules = dat.book.rules
    rooms = dat.book.rooms
    eff = st.eff
    sd = st.sd
    sym = st.sym
    need_s, need_c = claim_cost(st, dat, fi, s, p)
    th = st.theme[fi, s]
    sym[STEEL] -= need_s + surplus_s
    sym[CUNNING] -= need_c + surplus_c
    strength = rules[R_BASE_STRENGTH] + eff[p, E_MARKER_STRENGTH]
    if rules[R_SURPLUS_STRENGTH] > 0.5:
        strength += surplus_s + surplus_c
    strength *= eff[p, E_MARKER_WEIGHT]                       # §4 Warden x2
    st.act_str[fi, s, p] += strength
    st.act_cnt[fi, s, p] += 1
    st.rbk[fi, s] = 0                   # other seats' rival_best here changed
    sd[p, SD_MARKS] |= mark_bit(fi, s)
    if eff[p, E_MARKER_STRENGTH] != 0:
        credit(st, p, E_MARKER_STRENGTH)
    if eff[p, E_MARKER_WEIGHT] != 1.0:
        credit(st, p, E_MARKER_WEIGHT)
    if eff[p, E_THREAT_IGNORE] > 0 and rooms[th, RM_THREAT] > 0:
        credit(st, p, E_THREAT_IGNORE)
    if solo_used:
        credit(st, p, E_SOLO_VAULT)
    gained = eff[p, E_CLAIM_LOOT]                              # §4 Reaver Pillage (A11)
    if gained > 0:
        credit(st, p, E_CLAIM_LOOT)
    if rooms[th, RM_COMBAT] == 1 and eff[p, E_COMBAT_LOOT] > 0:  # §4 Gnoll (A11)
        gained += eff[p, E_COMBAT_LOOT] * dat.book.depth[fi]
        credit(st, p, E_COMBAT_LOOT)
    st.loot[p] += gained
    if sd[p, SD_PROG_SLOT] >= 0:            # A25: progress is for one target room only
        sd[p, SD_PROG_SLOT] = -1
        sd[p, SD_PROG_FLOOR] = -1
        sd[p, SD_PROG_STEEL] = 0
        sd[p, SD_PROG_CUNNING] = 0
    st.si[p, S_ROOMS_CLAIMED] += 1
    st.si[p, S_CLAIMS0 + th] += 1
    emit10(st, p, EV_CLAIM, (fi + 1, s, th, np.int64(strength * 100), need_s + surplus_s,
                             need_c + surplus_c, np.int64(gained * 100), surplus_s + surplus_c,
                             x100(eff[p, E_MARKER_STRENGTH]), x100(eff[p, E_MARKER_WEIGHT])))
    return gained


@njit(cache=True, _nrt=False, inline="always")
def pour_assault(st, p, fi, s, need_s, need_c, avail_c):
    """§7.1 near miss: pour Steel and Cunning into room (fi, s) as assault progress (A25).

    Pours what the claim still needs, at most ``avail_c`` Cunning. Progress is for one
    target room (A25, A51): pouring into another room starts it afresh there. An attempt
    that pours nothing changes nothing: the target and its progress stay. Returns the
    symbols poured.
    """
    sd = st.sd
    sym = st.sym
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
    st.si[p, S_ASSAULTS] += 1
    emit(st, p, EV_ASSAULT, (fi + 1, s, st.theme[fi, s], sd[p, SD_PROG_STEEL],
                             sd[p, SD_PROG_CUNNING], 0, 0))
    return ps + pc


NO_ACTION = 0           # what claim_action lets the crew do at a room
CLAIM = 1
POUR = 2


@njit(cache=True, _nrt=False, inline="always")
def claim_action(st, dat, p, fi, s, assault, allow_assault, keep_c):
    """What §7.1 lets seat p's crew do at room ``s`` of floor index ``fi`` with the symbols
    it holds, ``keep_c`` Cunning kept back for Moves.

    Returns (action, need_s, need_c, avail_c, surplus_s, surplus_c, solo): action CLAIM (a
    marker: the room's cost in Steel and Cunning and the trinity paid, unless ``assault``
    asks to pour instead), POUR (assault progress, A25: the claim is out of reach or
    ``assault``, with ``allow_assault`` and ``claims.assault_progress`` on; it may pour
    nothing), or NO_ACTION (A34: the crew already has markers there and may not reinforce;
    A8's alternative: the new marker would not beat the leader). The surplus (Steel, then
    Cunning, at most ``claims.max_surplus``) adds strength to a claim (§7.1).
    """
    rules = dat.book.rules
    sym = st.sym
    if rules[R_REINFORCE] < 0.5 and st.act_cnt[fi, s, p] > 0:         # A34
        return NO_ACTION, 0, 0, 0, 0, 0, False
    need_s, need_c = claim_cost(st, dat, fi, s, p)
    ok, solo = trinity_ok(st, dat, p, st.theme[fi, s])
    avail_c = sym[CUNNING] - keep_c
    if ok and sym[STEEL] >= need_s and avail_c >= need_c and not assault:
        cap = np.int64(rules[R_MAX_SURPLUS])
        sur_s = sym[STEEL] - need_s
        sur_s = min(sur_s, cap)
        sur_c = avail_c - need_c
        sur_c = min(sur_c, cap - sur_s)
        sur_c = max(sur_c, 0)
        if rules[R_MUST_BEAT] > 0.5:                                  # A8 alternative
            strength = rules[R_BASE_STRENGTH] + st.eff[p, E_MARKER_STRENGTH]
            if rules[R_SURPLUS_STRENGTH] > 0.5:
                strength += sur_s + sur_c
            mine = strength_of(st, dat, fi, s, p)
            if mine + strength * st.eff[p, E_MARKER_WEIGHT] <= rival_best(st, dat, fi, s, p):
                return NO_ACTION, need_s, need_c, avail_c, sur_s, sur_c, solo
        return CLAIM, need_s, need_c, avail_c, sur_s, sur_c, solo
    if allow_assault and rules[R_ASSAULT] > 0.5:
        return POUR, need_s, need_c, avail_c, 0, 0, solo
    return NO_ACTION, need_s, need_c, avail_c, 0, 0, solo


@njit(cache=True, _nrt=False, forceinline=True)
def try_claim(st, dat, kn, p, allow_assault, keep_c):
    """§7.1: ask the bot for a room on the crew's current floor and claim it or carry
    progress (:func:`claim_action`). Returns True when a marker was placed. ``keep_c``
    Cunning is kept back for Moves. A search bot's room (``GS_ROOM_MASK``, set by
    :func:`search_turn` before the first claim on arrival; bit 0 no claim, bit s + 1 slot
    s) overrides the bot's choice when the bot's is not among the best: then the first
    best, claimed when the crew can, else poured into."""
    g = st.g
    fi = st.sd[p, SD_FLOOR] - 1
    # allow_assault and keep_c come as np.bool_ and np.int64 values, never literals: one
    # compiled try_claim (and choose_room) for both call sites, LLVM folding the constants
    # after it inlines it (a literal True/False compiled each twice, ~4 s)
    s, assault = bots.choose_room(st, dat, kn, p, fi, keep_c, allow_assault)
    if traced(st):
        why.room(st, dat, kn, p, fi, keep_c, allow_assault, s, assault)
    mask = g[GS_ROOM_MASK]
    if mask != 0:
        g[GS_ROOM_MASK] = 0
        if (mask >> (s + 1)) & 1 == 0:
            s = first_bit(mask) - 1
            assault = False
    # a room the Maw took or a Last Stand consumed is no room (the search's masks name
    # standing rooms only, room_options; a mask built by hand may not)
    if s < 0 or st.gone[fi, s] != 0:
        return False
    if traced(st):
        events.room(st, dat, p, fi, s)
    action, need_s, need_c, avail_c, sur_s, sur_c, solo = claim_action(
        st, dat, p, fi, s, assault, allow_assault, keep_c)
    if action == CLAIM:
        do_claim(st, dat, p, fi, s, sur_s, sur_c, solo)
        return True
    if action == POUR:
        pour_assault(st, p, fi, s, need_s, need_c, avail_c)
    return False


@njit(cache=True, _nrt=False, inline="always")
def room_options(st, dat, p, fi):
    """The options of a search bot's room on arrival (bit 0 no claim, bit s + 1 slot s):
    every standing room of floor index ``fi`` where the crew can claim, or pour something
    in as assault progress (:func:`claim_action`, nothing kept back for Moves)."""
    opts = np.int64(1)
    sym = st.sym
    for s in range(st.g[GS_SLOTS]):
        if st.gone[fi, s] != 0:
            continue
        action, need_s, need_c, avail_c, _ss, _sc, _solo = claim_action(
            st, dat, p, fi, s, False, True, np.int64(0))
        if action == CLAIM or (action == POUR and
                               min(sym[STEEL], need_s) + min(max(avail_c, 0), need_c) > 0):
            opts |= np.int64(1) << (s + 1)
    return opts


# ---------------------------------------------------------------------------------------
# the Delve: one player's turn (§6A), step by step
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, inline="always")
def turn_start(st, dat, p):
    """Before §6A.1: the turn's symbols start empty (A23: or with the symbols kept from the
    last turn), an empty bag is refilled from the discard (A4), and the crew's held rooms
    produce (§7.1, A24). ``st.trin`` starts with the symbols that count for the trinity
    before the roll (A24: production and kept symbols, with
    ``production.counts_for_trinity``; else none)."""
    rules = dat.book.rules
    sym = st.sym
    kept = st.kept
    rolled = st.rolled
    bag = st.bag
    g = st.g
    for k in range(N_SYMBOLS):
        sym[k] = kept[p, k]          # A23: nonzero only when unspent symbols carry over
        kept[p, k] = 0
        rolled[k] = 0
    st.si[p, S_TURNS] += 1
    st.sd[p, SD_CREW_TURNS] += 1
    g[GS_TURNS] += 1
    g[GS_RB_EPOCH] += 1                 # a new turn: the rival_best cache starts afresh

    # A4: with bag_returns off, an empty bag is refilled from the discard.
    if bag_size(st, p) == 0:
        for k in range(N_DICE):
            bag[p, k] += st.disc[p, k]
            st.disc[p, k] = 0
    if traced(st):
        events.bag(st, dat, p, hand_size(st, dat, p))

    # §7.1 / A24: held rooms produce at the start of the holder's turn.
    rooms = dat.book.rooms
    carry = st.carry
    eff = st.eff
    per_room = rules[R_PROD_PER_ROOM]
    produced_any = 0
    marks = st.sd[p, SD_MARKS]          # holding needs active markers: only those rooms
    for fi in range(N_FLOORS - g[GS_COLLAPSED]):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(g[GS_SLOTS]):
            if (fm >> s) & 1 == 0 or st.gone[fi, s] == 1:
                continue
            prod = rooms[st.theme[fi, s], RM_PRODUCES]
            if prod < 0 or per_room <= 0:
                continue
            if holds(st, dat, fi, s, p):
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
            credit(st, p, E_PRODUCTION_MULT)
        emit(st, p, EV_PRODUCE, (sym[STEEL], sym[CUNNING], sym[FAITH], sym[GREED],
                                 sym[METTLE], base_total, 0))
    trin = st.trin
    trin[:] = 0
    if rules[R_PROD_TRINITY] > 0.5:                               # A24
        trin[STEEL] = sym[STEEL]
        trin[CUNNING] = sym[CUNNING]
        trin[FAITH] = sym[FAITH]


@njit(cache=True, _nrt=False, inline="always")
def step1_roll(st, dat, p):
    """§6A.1 Draw & roll a hand from the bag; §4 hand-size modifiers (Wisp +1,
    Golem-born -1, Prospector +1)."""
    draw_hand(st, dat, p, hand_size(st, dat, p), np.int64(0))
    if st.eff[p, E_HAND] != 0:
        credit(st, p, E_HAND)


@njit(cache=True, _nrt=False, inline="always")
def step2_plan(st, dat, p):
    """§6A.2, before the first Press On: the floor the crew means to spend on (the bot's
    target before the spend, which its Press On heuristic reads) and no Press On yet."""
    g = st.g
    kn = knobs_of(st, dat, p)
    target_floor = bots.choose_floor(st, dat, kn, p, np.bool_(True))
    if traced(st):
        why.floor(st, dat, kn, p, True, target_floor)
    g[GS_PRESS_TARGET] = target_floor
    g[GS_PRESSES] = 0
    g[GS_PRESS_OVER] = 0
    g[GS_SHORT_SET] = 0             # bots.press_on's best room of the target, not yet found


@njit(cache=True, _nrt=False, inline="always")
def step2_press_on(st, dat, p, decisions):
    """§6A.2 Press On: another hand while the bot dares and the bag lasts, +1 Dread on the
    shared track each time (A18).

    Resumable: plays on from the Press Ons the state records (``GS_PRESSES``; the step is
    over once ``GS_PRESS_OVER`` is 1) and returns after ``decisions`` decisions (press or
    stop; -1 = until the step is over), so that a search bot can weigh each Press On
    (:func:`search_turn`). A search bot's ``GS_PRESS_MASK`` (bit 0 stop, bit 1 press)
    overrides the next decision when the bot's own is not among the best.
    """
    rules = dat.book.rules
    g = st.g
    if g[GS_PRESS_OVER] != 0:
        return
    kn = knobs_of(st, dat, p)
    h = hand_size(st, dat, p)
    made = 0
    while bag_size(st, p) > 0:
        if made == decisions:
            return
        made += 1
        go = bots.press_on(st, dat, kn, p, g[GS_PRESSES], g[GS_PRESS_TARGET])
        if traced(st):
            why.press(st, dat, kn, p, g[GS_PRESSES], g[GS_PRESS_TARGET], go)
        mask = g[GS_PRESS_MASK]
        if mask != 0:
            g[GS_PRESS_MASK] = 0
            if (mask >> np.int64(go)) & 1 == 0:
                go = not go
        if not go:
            break
        g[GS_PRESSES] += 1
        g[GS_DREAD] += np.int64(rules[R_PRESS_DREAD])
        g[GS_DREAD_ADDED] += np.int64(rules[R_PRESS_DREAD])
        st.si[p, S_PRESS_ONS] += 1
        emit(st, p, EV_PRESS, (g[GS_PRESSES], g[GS_DREAD], 0, 0, 0, 0, 0))
        draw_hand(st, dat, p, h, g[GS_PRESSES])
        if st.eff[p, E_HAND] != 0:
            credit(st, p, E_HAND)
    g[GS_PRESS_OVER] = 1
    if traced(st):
        why.bag_empty(st, p)


@njit(cache=True, _nrt=False, inline="always")
def setback(st, dat, p):
    """§6A.3 Setback: return the lowest dice to the box (A28; A43 from the dice drawn this
    turn or the whole bag); Golem-born ignores it, Sylphid loses one more, Hierophant heals
    one (§4, A27)."""
    rules = dat.book.rules
    eff = st.eff
    st.si[p, S_SETBACKS] += 1
    if eff[p, E_SETBACK_IMMUNE] > 0.5:                        # §4 Golem-born
        credit(st, p, E_SETBACK_IMMUNE)
        emit(st, p, EV_SETBACK, (0, 0, 1, 0, 0, 0, 0))
        return
    lose = np.int64(rules[R_SETBACK_DICE] + eff[p, E_SETBACK_EXTRA])
    if eff[p, E_SETBACK_EXTRA] > 0:                           # §4 Sylphid
        credit(st, p, E_SETBACK_EXTRA)
    heal = min(lose, np.int64(eff[p, E_SETBACK_HEAL]))        # §4 Hierophant (A27)
    if heal > 0:
        credit(st, p, E_SETBACK_HEAL)
    lose -= heal
    lost = 0
    drawn = st.drawn
    bag = st.bag
    die_rank = dat.book.die_rank
    from_bag = rules[R_SETBACK_FROM_BAG] > 0.5                # A43
    for _ in range(lose):                                     # A28 lowest die first
        best = -1
        for t in range(N_DICE):
            have = drawn[p, t] + (bag[p, t] if from_bag else 0)
            if have > 0 and (best < 0 or die_rank[t] < die_rank[best]):
                best = t
        if best < 0:
            break
        if drawn[p, best] > 0:
            drawn[p, best] -= 1
        else:
            bag[p, best] -= 1
        lost += 1
    st.si[p, S_DICE_LOST] += lost
    emit(st, p, EV_SETBACK, (lost, heal, 0, 0, 0, 0, 0))


@njit(cache=True, _nrt=False, inline="always")
def step3_dread(st, dat, p):
    """§6A.3 Resolve Dread: cancel it with Faith one for one (§4: Dvergar and Gnoll lose
    Faith first, A11; Revenant cannot cancel; Hierophant cancels one more, A26); 3 or more
    left is a Setback; the uncanceled Dread rises on the shared track (A12). Then the
    symbols the turn's claims may count for the trinity are known (§7.1)."""
    rules = dat.book.rules
    eff = st.eff
    sym = st.sym
    g = st.g
    dread = sym[DREAD]
    sym[DREAD] = 0
    if eff[p, E_FAITH_PENALTY] > 0 and sym[FAITH] > 0:          # §4 Dvergar/Gnoll (A11)
        sym[FAITH] -= min(sym[FAITH], np.int64(eff[p, E_FAITH_PENALTY]))
        credit(st, p, E_FAITH_PENALTY)
    canceled = 0
    if eff[p, E_NO_FAITH_CANCEL] > 0.5:                           # §4 Revenant
        if dread > 0 and sym[FAITH] > 0:
            credit(st, p, E_NO_FAITH_CANCEL)
    else:
        canceled = min(dread, sym[FAITH])
        sym[FAITH] -= canceled
        dread -= canceled
    extra = min(dread, np.int64(eff[p, E_DREAD_CANCEL]))          # §4 Hierophant (A26)
    if extra > 0:
        dread -= extra
        canceled += extra
        credit(st, p, E_DREAD_CANCEL)
    emit(st, p, EV_DREAD, (dread + canceled, canceled, dread, 0, 0, 0, 0))
    if dread >= np.int64(rules[R_SETBACK_AT]):                     # §6A.3 Setback
        setback(st, dat, p)
    # A12: the shared Dread track rises per uncanceled Dread.
    if rules[R_DREAD_PER_UNCANCELED] > 0.5:
        g[GS_DREAD] += dread
        g[GS_DREAD_ADDED] += dread
    elif dread > 0:
        g[GS_DREAD] += 1
        g[GS_DREAD_ADDED] += 1
    if eff[p, E_DREAD_TO_METTLE] > 0.5 and dread > 0:              # §4 Revenant (A27)
        sym[METTLE] += dread
        credit(st, p, E_DREAD_TO_METTLE)
    if eff[p, E_CUNNING_BONUS] > 0:                                # §4 Sylphid (A26)
        sym[CUNNING] += np.int64(eff[p, E_CUNNING_BONUS])
        credit(st, p, E_CUNNING_BONUS)
    # symbols that count for the trinity: rolled ones (§7.1), optionally bonus (A33) and
    # production (A24, already in st.trin from turn_start)
    rolled = st.rolled
    trin = st.trin
    trin[STEEL] += rolled[STEEL]
    trin[CUNNING] += rolled[CUNNING]
    trin[FAITH] += rolled[FAITH]
    if rules[R_TRINITY_BONUS] > 0.5:                              # A33
        trin[CUNNING] += np.int64(eff[p, E_CUNNING_BONUS])


@njit(cache=True, _nrt=False, inline="always")
def move(st, dat, kn, p, target_floor):
    """§6A.4 Move toward ``target_floor``: the free Moves (± company, §4), then extra ones
    for 1 Mettle or 1 Cunning each (Mettle above the bot's Last-Stand reserve first), as
    far as the symbols pay. Moving off the floor ends assault progress (A25)."""
    rules = dat.book.rules
    eff = st.eff
    sd = st.sd
    sym = st.sym
    free_moves = np.int64(rules[R_FREE_MOVES] + eff[p, E_MOVES])
    move_cost = np.int64(rules[R_MOVE_COST])
    cur = sd[p, SD_FLOOR]
    used = 0
    while cur != target_floor:
        if used >= free_moves:
            # buy an extra Move: Mettle first, then Cunning (bots keep what they need)
            keep_m = bots.mettle_reserve(st, dat, kn, p)
            if sym[METTLE] - keep_m >= move_cost:
                sym[METTLE] -= move_cost
            elif sym[CUNNING] >= move_cost:
                sym[CUNNING] -= move_cost
            elif sym[METTLE] >= move_cost:
                sym[METTLE] -= move_cost
            else:
                break
        if used >= np.int64(rules[R_FREE_MOVES]) and eff[p, E_MOVES] > 0 and used < free_moves:
            credit(st, p, E_MOVES)              # §4 Sylphid/Wardancer +1 Move
        used += 1
        cur += 1 if target_floor > cur else -1
    if cur != sd[p, SD_FLOOR]:
        emit(st, p, EV_MOVE, (sd[p, SD_FLOOR], cur, used, 0, 0, 0, 0))
        st.si[p, S_MOVES] += used
        if sd[p, SD_PROG_FLOOR] != cur - 1:                     # A25 progress needs the floor
            sd[p, SD_PROG_SLOT] = -1
            sd[p, SD_PROG_FLOOR] = -1
            sd[p, SD_PROG_STEEL] = 0
            sd[p, SD_PROG_CUNNING] = 0
        sd[p, SD_FLOOR] = cur
        if cur > sd[p, SD_DEEPEST]:
            sd[p, SD_DEEPEST] = cur
            st.si[p, S_DEEPEST] = max(st.si[p, S_DEEPEST], cur)


@njit(cache=True, _nrt=False, inline="always")
def loot(st, dat, p, start_floor):
    """§6A.4 Loot: each Greed banks Loot x the Depth Value (A5), at the deeper floor of
    the turn's start and end (A52: spending order is free)."""
    sym = st.sym
    if sym[GREED] <= 0:
        return
    rules = dat.book.rules
    fl = st.sd[p, SD_FLOOR]
    if rules[R_LOOT_BEST_FLOOR] > 0.5 and start_floor > fl:   # A52
        fl = start_floor
    gained = sym[GREED] * rules[R_LOOT_PER_GREED] * dat.book.depth[fl - 1]
    st.loot[p] += gained
    st.sf[p, SF_LOOT_GAINED] += gained
    emit(st, p, EV_LOOT, (sym[GREED], fl, np.int64(gained * 100),
                          np.int64(st.loot[p] * 100), x100(rules[R_LOOT_PER_GREED]),
                          dat.book.depth[fl - 1], 0))
    sym[GREED] = 0


@njit(cache=True, _nrt=False, inline="always")
def recruit(st, dat, kn, p):
    """§8 Recruit: Mettle buys dice of the Calling's type into the bag (cost ± company,
    §4, at least ``recruit.min_cost``, A36; from a limited pool with A37), as many as the
    bot wants and the Mettle pays."""
    rules = dat.book.rules
    eff = st.eff
    sym = st.sym
    pool = st.pool
    die = dat.book.cal_recruit[st.sd[p, SD_CAL]]
    cost = np.int64(rules[R_RECRUIT_COST] + eff[p, E_RECRUIT_COST])
    cost = max(cost, np.int64(rules[R_RECRUIT_MIN]))
    want = bots.recruits(st, dat, kn, p, cost)
    if traced(st) and sym[METTLE] >= cost:
        why.recruit(st, dat, kn, p, cost, want)
    got = 0
    for _ in range(want):
        if sym[METTLE] < cost:
            break
        if rules[R_RECRUIT_POOL] > 0.5:
            if pool[die] <= 0:
                break
            pool[die] -= 1
        sym[METTLE] -= cost
        st.bag[p, die] += 1
        got += 1
        if eff[p, E_RECRUIT_COST] != 0:
            credit(st, p, E_RECRUIT_COST)
    if got > 0:
        st.si[p, S_RECRUITED] += got
        emit(st, p, EV_RECRUIT, (got, die, cost, 0, 0, 0, 0))


@njit(cache=True, _nrt=False, inline="always")
def first_bit(mask):
    """Index of the lowest set bit of ``mask`` (> 0)."""
    i = 0
    while (mask >> i) & 1 == 0:
        i += 1
    return i


@njit(cache=True, _nrt=False, inline="always")
def searched_floor(st, dat, p, heuristic, mask):
    """The target floor of a search bot's turn (:func:`search_turn`): the heuristic's
    ``heuristic`` when the floor its Moves reach (within :func:`bots.move_reach` of the
    crew) is among the best, the bit set ``mask`` (bit f = floor f), else the first best."""
    cur = st.sd[p, SD_FLOOR]
    reach = bots.move_reach(st, dat, p)
    eff_floor = min(max(heuristic, cur - reach), cur + reach)
    if (mask >> eff_floor) & 1 == 1:
        return heuristic
    return first_bit(mask)


@njit(cache=True, _nrt=False, inline="always")
def step4_move(st, dat, p):
    """§6A.4 Spend the symbols, in the order the bot chooses (first part): claim on this
    floor first when the bot prefers (keeping the Cunning its Moves need), then Move. The
    claims left (A22: ``claims.per_turn``) and the floor the step began on (A52) are kept
    in the state for :func:`step4_claim`."""
    rules = dat.book.rules
    sd = st.sd
    g = st.g
    kn = knobs_of(st, dat, p)
    g[GS_START_FLOOR] = sd[p, SD_FLOOR]
    claims_left = np.int64(rules[R_CLAIMS_PER_TURN])
    target_floor = bots.choose_floor(st, dat, kn, p, np.bool_(False))
    if traced(st):
        why.floor(st, dat, kn, p, False, target_floor)
    lowest_open = N_FLOORS - st.g[GS_COLLAPSED]  # floor number of the deepest standing floor
    target_floor = min(target_floor, lowest_open)
    target_floor = max(target_floor, 1)
    mask = st.g[GS_FLOOR_MASK]
    if mask != 0:                   # a search bot's floor (search_turn): the heuristic's
        st.g[GS_FLOOR_MASK] = 0     # when it is among the best, else the first best
        target_floor = searched_floor(st, dat, p, target_floor, mask)
    # claim on the current floor first when the bot prefers it (spending order is free,
    # §6A.4; e.g. a floor about to fall), keeping the Cunning the bot leaves for the Moves
    if claims_left > 0 and target_floor != sd[p, SD_FLOOR]:
        keep_c = bots.claim_here_first(st, dat, kn, p, target_floor)
        if traced(st):
            why.here(st, dat, kn, p, target_floor, keep_c)
        if keep_c >= 0 and try_claim(st, dat, kn, p, np.bool_(False), keep_c):
            claims_left -= 1
    move(st, dat, kn, p, target_floor)
    g[GS_CLAIMS_LEFT] = claims_left


@njit(cache=True, _nrt=False, inline="always")
def step4_claim(st, dat, p):
    """§6A.4 Spend the symbols (second part, after the Move): claim on arrival while claims
    are left (A22), Loot (A5, A52), recruit (§8)."""
    g = st.g
    kn = knobs_of(st, dat, p)
    while g[GS_CLAIMS_LEFT] > 0:
        if not try_claim(st, dat, kn, p, np.bool_(True), np.int64(0)):
            break
        g[GS_CLAIMS_LEFT] -= 1
    loot(st, dat, p, g[GS_START_FLOOR])
    recruit(st, dat, kn, p)


@njit(cache=True, _nrt=False, forceinline=True)
def cash_out(st, dat, p):
    """§7.3 Cash Out: bank Loot + depth dividend, markers become Fallen, muster afresh."""
    rules = dat.book.rules
    sd = st.sd
    banked = st.loot[p] * rules[R_GLORY_PER_LOOT] + rules[R_DIVIDEND] * sd[p, SD_DEEPEST]
    st.glory[p] += banked
    st.sf[p, SF_CASH] += banked
    act_cnt = st.act_cnt
    marks = sd[p, SD_MARKS]
    st.g[GS_RB_EPOCH] += 1              # p's markers fall: other seats' rival_best changes
    for fi in range(N_FLOORS):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(MAX_SLOTS):
            if (fm >> s) & 1 == 1:
                st.fallen[fi, s, p] += act_cnt[fi, s, p]
                act_cnt[fi, s, p] = 0
                st.act_str[fi, s, p] = 0.0
    sd[p, SD_MARKS] = 0
    st.si[p, S_CASH_OUTS] += 1
    emit(st, p, EV_CASH_OUT, (sd[p, SD_DEEPEST], x100(st.loot[p]), x100(banked),
                              x100(rules[R_GLORY_PER_LOOT]), x100(rules[R_DIVIDEND]), 0, 0))
    # the fresh crew's dice come from the box; drawn dice of the retired crew are gone
    for k in range(N_DICE):
        st.drawn[p, k] = 0
    muster(st, dat, p)


@njit(cache=True, _nrt=False, inline="always")
def step5_exit(st, dat, p):
    """§6A.5 Choose the exit (§7.3): Stay, Cash Out, or declare a Last Stand. First the
    dice drawn this turn go back to the bag (A4) or the discard; last, the unspent
    symbols are lost (A23) or kept for the next turn."""
    rules = dat.book.rules
    sd = st.sd
    sym = st.sym
    bag = st.bag
    drawn = st.drawn
    for k in range(N_DICE):
        if rules[R_BAG_RETURNS] > 0.5:
            bag[p, k] += drawn[p, k]
        else:
            st.disc[p, k] += drawn[p, k]
        drawn[p, k] = 0
    choice = bots.exit_choice(st, dat, knobs_of(st, dat, p), p)
    if traced(st):
        why.exit_(st, dat, knobs_of(st, dat, p), p, last_stand_price(st, dat, p), choice)
    mask = st.g[GS_EXIT_MASK]
    if mask != 0:                   # a search bot's exit (search_turn): the heuristic's
        st.g[GS_EXIT_MASK] = 0      # when it is among the best, else the first best
        if (mask >> choice) & 1 == 0:
            choice = first_bit(mask)
    if choice == 2 and sd[p, SD_STAND] == 0:
        price = last_stand_price(st, dat, p)    # priced only when declared (the bot's
        pay = max(0, price)                     # choice needs affordability alone)
        if sym[METTLE] >= pay:
            sym[METTLE] -= pay
            sd[p, SD_STAND] = 1
            st.si[p, S_LAST_STANDS] += 1
            if price < 0:
                credit(st, p, E_FREE_LAST_STAND)
            emit(st, p, EV_LAST_STAND, (sd[p, SD_FLOOR], sd[p, SD_DEEPEST], pay, 0, 0, 0, 0))
        else:
            choice = 0
    if choice == 1 and sd[p, SD_STAND] == 0:                      # A29 no Cash Out after
        cash_out(st, dat, p)
    elif choice == 0:
        emit(st, p, EV_STAY, (sd[p, SD_FLOOR], np.int64(st.loot[p] * 100), 0, 0, 0, 0, 0))
    # A23: unspent symbols are lost, unless the designer lets them carry to the next turn
    for k in range(N_SYMBOLS):
        if rules[R_UNSPENT_LOST] < 0.5 and choice != 1 and k != DREAD:
            st.kept[p, k] = sym[k]
        sym[k] = 0


# The parts of a turn (§6A), in order: where a turn can stop and a copy of the state play on
# (turn_part). §6A.2 and §6A.4 are each split in two so that a search bot can weigh its
# Press Ons and its room on arrival (search_turn).
STEP_START = 0          # before §6A.1: production, the turn's symbols (turn_start)
STEP_ROLL = 1           # §6A.1 draw & roll
STEP_PRESS_PLAN = 2     # §6A.2 the floor the crew presses on for
STEP_PRESS = 3          # §6A.2 the Press Ons (resumable)
STEP_DREAD = 4          # §6A.3 Dread and Setback
STEP_MOVE = 5           # §6A.4 claim here first, Move
STEP_CLAIM = 6          # §6A.4 claims on arrival, Loot, recruit
STEP_EXIT = 7           # §6A.5 the exit


@njit(cache=True, _nrt=False, forceinline=True)
def turn_part(st, dat, p, first, last):
    """Play parts ``first`` .. ``last`` of seat p's turn (§6A; ``STEP_START`` ..
    ``STEP_EXIT``), the parts before ``first`` having been played: the one sequence of a
    turn's steps, which :func:`play_turn`, :func:`finish_turn` and a search bot's turn
    (:func:`search_turn`, which stops at its decisions) all play."""
    # Callers pass np.int64 step numbers, never literals: numba compiles a function once per
    # argument type and a literal 4 is its own type, so literal calls compiled (and LLVM
    # optimised) the whole turn once per (first, last) pair; LLVM still folds the constants
    # after inlining. The search bot's decision kinds are passed the same way.
    if first <= STEP_START <= last:
        turn_start(st, dat, p)
    if first <= STEP_ROLL <= last:
        step1_roll(st, dat, p)
    if first <= STEP_PRESS_PLAN <= last:
        step2_plan(st, dat, p)
    if first <= STEP_PRESS <= last:
        step2_press_on(st, dat, p, np.int64(-1))
    if first <= STEP_DREAD <= last:
        step3_dread(st, dat, p)
    if first <= STEP_MOVE <= last:
        step4_move(st, dat, p)
    if first <= STEP_CLAIM <= last:
        step4_claim(st, dat, p)
    if first <= STEP_EXIT <= last:
        step5_exit(st, dat, p)


@njit(cache=True, _nrt=False, inline="always")
def play_turn(st, dat, p):
    """One player's turn of the Delve phase (§6A): the start of the turn, then steps 1-5."""
    turn_part(st, dat, p, np.int64(STEP_START), np.int64(STEP_EXIT))


@njit(cache=True, _nrt=False, forceinline=True)
def finish_turn(st, dat, p, step):
    """Play parts ``step`` .. ``STEP_EXIT`` of seat p's turn (§6A), whose parts before
    ``step`` were played (``STEP_ROLL`` = the turn started, :func:`turn_start`): a copy of
    the state made between two parts (board.copy_state) finishes the turn, then
    :func:`play_rest`."""
    turn_part(st, dat, p, step, np.int64(STEP_EXIT))


# ---------------------------------------------------------------------------------------
# the Maw (§6B)
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False, forceinline=True)
def taken(st, dat, p, fi, final):
    """The Maw Takes p's crew on floor index fi (§6B.2, §7.3 Worthy End or disaster)."""
    rules = dat.book.rules
    sd = st.sd
    eff = st.eff
    loot = st.loot
    si = st.si
    sf = st.sf
    stand = sd[p, SD_STAND] == 1
    worth = 0.0
    st.g[GS_RB_EPOCH] += 1              # seats Taken before p changed their markers
    if stand:
        deepest = sd[p, SD_DEEPEST]
        basis = np.float64(deepest)
        if rules[R_WORTHY_DEPTH_BASIS] > 0.5:                    # A6
            basis = np.float64(dat.book.depth[deepest - 1])
        worth = basis * rules[R_WORTHY_MULT] * eff[p, E_WORTHY_MULT]  # A20 on top
        if eff[p, E_WORTHY_MULT] != 1.0:
            credit(st, p, E_WORTHY_MULT)
        if rules[R_WORTHY_KEEPS_LOOT] > 0.5:                      # A6
            worth += loot[p] * rules[R_GLORY_PER_LOOT]
        else:
            sf[p, SF_LOOT_LOST] += loot[p]
        st.glory[p] += worth
        sf[p, SF_WORTHY] += worth
        if traced(st):
            events.worthy_end(st, dat, p, basis, worth)
        si[p, S_WORTHY_ENDS] += 1
        if rules[R_LS_CONSUMES] > 0.5:                            # §7.3, A29
            gone = st.gone
            marks = sd[p, SD_MARKS]
            for f2 in range(fi):
                fm = floor_marks(marks, f2)
                if fm == 0:
                    continue
                for s in range(st.g[GS_SLOTS]):
                    if (fm >> s) & 1 == 0:
                        continue
                    if gone[f2, s] == 0 and holds(st, dat, f2, s, p):
                        gone[f2, s] = 1
                        si[p, S_CONSUMED] += 1
                        emit(st, p, EV_CONSUMED, (f2 + 1, s, st.theme[f2, s], 0, 0, 0, 0))
    else:
        sf[p, SF_LOOT_LOST] += loot[p]                            # §7.3 / A14
        if sd[p, SD_CREW_TURNS] > 0:
            si[p, S_TAKEN_NO_STAND] += 1
            if final:
                si[p, S_TAKEN_FINAL] += 1
        else:
            si[p, S_TAKEN_UNPLAYED] += 1     # B4: never had a turn to declare one
    emit(st, p, EV_TAKEN, (fi + 1, 1 if stand else 0, np.int64(worth * 100),
                           np.int64(loot[p] * 100), sd[p, SD_CREW_TURNS], 0, 0))
    act_cnt = st.act_cnt
    marks = sd[p, SD_MARKS]
    for f2 in range(N_FLOORS):
        fm = floor_marks(marks, f2)
        if fm == 0:
            continue
        for s in range(MAX_SLOTS):
            if (fm >> s) & 1 == 1:
                if not stand and rules[R_TAKEN_LOSES] < 0.5:      # A16 alternative
                    st.fallen[f2, s, p] += act_cnt[f2, s, p]
                act_cnt[f2, s, p] = 0
                st.act_str[f2, s, p] = 0.0
    sd[p, SD_MARKS] = 0
    if not final:
        muster(st, dat, p)
    else:
        loot[p] = 0.0


@njit(cache=True, _nrt=False, forceinline=True)
def collapse(st, dat, fi):
    """Collapse floor index fi (§6B.2): score majorities, value rises, the Maw Takes."""
    rules = dat.book.rules
    rooms = dat.book.rooms
    g = st.g
    gi = st.gi
    n = g[GS_N]
    theme = st.theme
    plunder = st.plunder
    gone = st.gone
    act_cnt = st.act_cnt
    fallen = st.fallen
    tmp = st.tmp
    emit(st, -1, EV_MAW, (fi + 1, g[GS_STEPS], g[GS_DREAD], 0, 0, 0, 0))
    for s in range(g[GS_SLOTS]):
        if gone[fi, s] == 1:
            continue
        th = theme[fi, s]
        best = 0.0
        claimants = 0
        markers = 0
        for q in range(n):
            v = strength_of(st, dat, fi, s, q)
            tmp[q] = v
            if v > 0:
                claimants += 1
                markers += act_cnt[fi, s, q] + fallen[fi, s, q]
            best = max(best, v)
        if best <= 0.0:
            # §6B.2 value rises: half (A10 rounded down, A30 with plunder) to the slot above
            gi[G_UNCLAIMED] += 1
            base = rooms[th, RM_VALUE]
            if rules[R_RISE_PLUNDER] > 0.5:
                base += plunder[fi, s]
            up = np.int64(np.floor(base * rules[R_RISE_FRACTION]))
            if fi > 0 and up > 0 and gone[fi - 1, s] == 0:
                plunder[fi - 1, s] += up
                emit(st, -1, EV_RISE, (fi + 1, s, th, up, 0, 0, 0))
            else:                   # counted unclaimed all the same: say why it stays
                blocked = 1 if fi == 0 else (2 if up <= 0 else 3)
                emit(st, -1, EV_RISE, (fi + 1, s, th, 0, blocked, 0, 0))
            continue
        # §6B.2 most marker strength takes tile value x Depth Value; ties split rounding down
        value = (rooms[th, RM_VALUE] + plunder[fi, s]) * dat.book.depth[fi]
        k = 0
        mask = 0
        for q in range(n):
            if tmp[q] == best:
                k += 1
                mask |= 1 << q
        share = np.float64(value // k)
        for q in range(n):
            if tmp[q] == best:
                st.glory[q] += share
                st.sf[q, SF_ROOMS] += share
                if st.eff[q, E_MARKER_WEIGHT] != 1.0 and act_cnt[fi, s, q] > 0:
                    credit(st, q, E_MARKER_WEIGHT)
        gi[G_ROOMS_SCORED] += 1
        if claimants >= 2:
            gi[G_CONTESTED] += 1
            gi[G_CONTESTED_MARKERS] += markers
        emit10(st, -1, EV_SCORE, (fi + 1, s, th, value, mask, np.int64(share), claimants,
                                  rooms[th, RM_VALUE], plunder[fi, s], dat.book.depth[fi]))
    final = fi == 0
    sd = st.sd
    for p in range(n):
        if sd[p, SD_FLOOR] == fi + 1:
            # B8: which Takings "one floor away" warned of (GS_WARN_FLOOR, begin_round)
            if fi + 1 != st.g[GS_WARN_FLOOR]:
                gi[G_TAKEN_BLINDSIDED] += 1
            elif sd[p, SD_WARNED] == 1:
                gi[G_TAKEN_WARNED] += 1
            elif sd[p, SD_WARNED] == 2:
                gi[G_TAKEN_MUSTERED] += 1
            else:
                gi[G_TAKEN_MOVED_IN] += 1
            taken(st, dat, p, fi, final)
    for s in range(MAX_SLOTS):
        gone[fi, s] = 1
        for q in range(MAX_SEATS):
            st.act_str[fi, s, q] = 0.0
            act_cnt[fi, s, q] = 0
            fallen[fi, s, q] = 0
    for q in range(MAX_SEATS):
        sd[q, SD_MARKS] &= ~(np.int64(FLOOR_BITS) << (fi * MAX_SLOTS))


@njit(cache=True, _nrt=False, forceinline=True)
def maw_phase(st, dat):
    """§6B.1 advance the Maw in steps (A1), with the one-collapse cap (§9, A31)."""
    rules = dat.book.rules
    g = st.g
    gi = st.gi
    g[GS_STEPS] += np.int64(rules[R_STEPS_PER_ROUND])
    if g[GS_DREAD] >= g[GS_DREAD_LEN]:                            # Dread track full
        g[GS_STEPS] += np.int64(rules[R_DREAD_FULL_STEPS])
        gi[G_DREAD_FILLS] += 1
        if rules[R_OVERFLOW_CARRIES] > 0.5:                       # A15
            g[GS_DREAD] -= g[GS_DREAD_LEN]
        else:
            g[GS_DREAD] = 0
    spf = np.int64(rules[R_STEPS_PER_FLOOR])
    due = g[GS_STEPS] // spf
    due = min(due, N_FLOORS)
    todo = due - g[GS_COLLAPSED]
    cap = np.int64(rules[R_MAX_COLLAPSES])
    if todo > cap:
        # count each held-back collapse once, not again every round it stays held back
        new = todo - cap - g[GS_BACKLOG]
        if new > 0:
            gi[G_DEFERRED] += new
        emit(st, -1, EV_DEFER, (todo - cap, g[GS_STEPS], 0, 0, 0, 0, 0))
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
        collapse(st, dat, fi)
        g[GS_COLLAPSED] += 1
        if g[GS_COLLAPSED] >= N_FLOORS:
            break


# ---------------------------------------------------------------------------------------
# a whole game
# ---------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def setup(st, dat):
    """§3 setup: the player count (drawn from the scenario's), the dungeon by weights
    (A21), companies (A19), bots, the Maw and the Dread track."""
    rules = dat.book.rules
    g = st.g
    sd = st.sd
    si = st.si
    opts = dat.player_opts
    n = opts[0]
    if opts.shape[0] > 1:
        n = opts[rand_below(st, opts.shape[0])]
    g[GS_N] = n
    st.gi[G_PLAYERS] = n
    slots = dat.book.scale[n, 0]
    g[GS_SLOTS] = slots
    g[GS_DREAD_LEN] = dat.book.scale[n, 1]                              # §9 track length
    st.gi[G_ROOMS_PER_FLOOR] = slots
    st.gi[G_DREAD_LEN] = g[GS_DREAD_LEN]
    theme = st.theme
    floor_cdf = dat.book.floor_cdf
    for q in range(MAX_SEATS):
        sd[q, SD_MARKS] = 0
    for fi in range(N_FLOORS):
        for s in range(MAX_SLOTS):
            st.plunder[fi, s] = 0
            st.gone[fi, s] = 0 if s < slots else 1
            theme[fi, s] = 0
            st.rbk[fi, s] = 0
            for q in range(MAX_SEATS):
                st.act_str[fi, s, q] = 0.0
                st.act_cnt[fi, s, q] = 0
                st.fallen[fi, s, q] = 0
        for s in range(slots):
            u = rand_below(st, 1 << 30) / np.float64(1 << 30)
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
        emit(st, -1, EV_SETUP, (fi + 1, theme[fi, 0], theme[fi, 1],
                                theme[fi, 2] if slots > 2 else -1,
                                theme[fi, 3] if slots > 3 else -1,
                                theme[fi, 4] if slots > 4 else -1,
                                theme[fi, 5] if slots > 5 else -1))
    # §3.4 companies: fixed per seat or drawn; A19 unique Lineages/Callings when asked
    seat_spec = dat.seat_spec
    used_l = 0
    used_c = 0
    for p in range(n):
        if seat_spec[p, 0] >= 0:
            used_l |= 1 << seat_spec[p, 0]
        if seat_spec[p, 1] >= 0:
            used_c |= 1 << seat_spec[p, 1]
    mirror = dat.unique == 2           # every seat plays seat 1's company and bot
    for p in range(n):
        for half in range(2):
            v = seat_spec[p, half]
            if mirror and p > 0:
                v = sd[0, SD_LIN + half]
            elif v < 0:
                used = used_l if half == 0 else used_c
                while True:
                    v = rand_below(st, N_LINEAGES if half == 0 else N_CALLINGS)
                    if dat.unique == 0 or (used >> v) & 1 == 0:
                        break
                if half == 0:
                    used_l |= 1 << v
                else:
                    used_c |= 1 << v
            sd[p, SD_LIN + half] = v
        b = seat_spec[p, 2]
        li = sd[p, SD_LIN]
        ci = sd[p, SD_CAL]
        if mirror and p > 0:
            b = sd[0, SD_BOT]
        else:
            if b < 0:
                b = dat.bot_pool[rand_below(st, dat.bot_pool.shape[0])]
            # a company with bots of its own (faction_bots) replaces the bot drawn; the
            # game's stream is unchanged (deepsim.factionmix)
            b = faction_bot(dat.fmix, li * dat.book.cal_eff.shape[0] + ci, b, st.key[0])
        sd[p, SD_BOT] = b
        lin_eff = dat.book.lin_eff
        cal_eff = dat.book.cal_eff
        eff = st.eff
        for e in range(N_EFFECTS):
            st.has_lin[p, e] = dat.book.lin_nn[li, e]
            st.has_cal[p, e] = dat.book.cal_nn[ci, e]
        for e in range(N_EFFECTS):
            eff[p, e] = lin_eff[li, e] + cal_eff[ci, e]
        # multipliers multiply (§4 Wardancer x2.2 on top, A20); flags are OR-ed
        eff[p, E_WORTHY_MULT] = lin_eff[li, E_WORTHY_MULT] * cal_eff[ci, E_WORTHY_MULT]
        eff[p, E_MARKER_WEIGHT] = lin_eff[li, E_MARKER_WEIGHT] * cal_eff[ci, E_MARKER_WEIGHT]
        eff[p, E_PRODUCTION_MULT] = (lin_eff[li, E_PRODUCTION_MULT]
                                     * cal_eff[ci, E_PRODUCTION_MULT])
        si[p, S_LINEAGE] = li
        si[p, S_CALLING] = ci
        si[p, S_BOT] = b
        st.glory[p] = 0.0
        for k in range(N_SYMBOLS):
            st.carry[p, k] = 0.0
        muster(st, dat, p)
        si[p, S_DEEPEST] = sd[p, SD_DEEPEST]
    for k in range(N_DICE):
        st.pool[k] = np.int64(rules[R_RECRUIT_POOL])
    g[GS_DREAD] = 0
    g[GS_STEPS] = 0
    g[GS_COLLAPSED] = 0
    g[GS_ROUND] = 0
    g[GS_TURN_I] = -1


# forceinline, not inline="always": inlined in numba IR into play_rounds and play_block,
# its EV_ROUND event was counted but its row left zero in traced games (numba 0.68, the
# events.emit overload inlined two levels down; tests/rulesets/deepfall/test_rules_deepfall.py caught it)
@njit(cache=True, _nrt=False, forceinline=True)
def begin_round(st):
    """A new round (§6): the first-player marker passes (§3.5, §6B.3); a crew on the floor
    the Maw takes next is warned (B8 "one floor away")."""
    g = st.g
    n = g[GS_N]
    g[GS_ROUND] += 1
    first = (g[GS_ROUND] - 1) % n
    nxt = N_FLOORS - g[GS_COLLAPSED]
    g[GS_WARN_FLOOR] = nxt
    emit(st, first, EV_ROUND, (g[GS_STEPS], g[GS_DREAD], g[GS_DREAD_LEN], nxt, 0, 0, 0))
    sd = st.sd
    for p in range(n):
        if sd[p, SD_FLOOR] == nxt:
            sd[p, SD_WARNED] = 1
            st.gi[G_WARNED] += 1
        else:
            sd[p, SD_WARNED] = 0
    g[GS_TURN_I] = 0


@njit(cache=True, _nrt=False, inline="always")
def play_rounds(st, dat, stop_turns):
    """Play rounds (§6: the Delve's turns clockwise, then the Maw) from where the state
    stands until Floor 1 collapses or the round cap (A39), or until ``stop_turns``
    player-turns have been played in all (-1: no stop), or before the turn of a seat whose
    bot searches (``rollouts`` > 0) while the state's ``GS_SEARCH`` is on (the game itself,
    not a rollout: :func:`play_block` plays that turn with :func:`search_turn`). Returns True
    when the game is over.
    """
    g = st.g
    n = g[GS_N]
    max_rounds = np.int64(dat.book.rules[R_MAX_ROUNDS])
    while g[GS_COLLAPSED] < N_FLOORS:
        if g[GS_TURN_I] < 0:
            if g[GS_ROUND] >= max_rounds:
                st.gi[G_TRUNCATED] = 1                            # A39 safety cap
                return True
            begin_round(st)
        while g[GS_TURN_I] < n:                                   # §6A clockwise
            if g[GS_TURNS] == stop_turns:
                return False
            p = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % n
            if g[GS_SEARCH] != 0 and knobs_of(st, dat, p)[K_ROLLOUTS] > 0.5:
                return False        # a search bot's turn: play_block plays it (search_turn)
            g[GS_TURN_I] += 1
            play_turn(st, dat, p)
        maw_phase(st, dat)
        g[GS_TURN_I] = -1
    return True


@njit(cache=True, _nrt=False, inline="always")
def end_game(st, dat):
    """§1 the game is over: most Glory wins; A38 tied leaders share the win (or nobody
    wins). Fills the game's totals, places and win shares."""
    g = st.g
    gi = st.gi
    gf = st.gf
    si = st.si
    sf = st.sf
    glory = st.glory
    n = g[GS_N]
    gi[G_ROUNDS] = g[GS_ROUND]
    gi[G_RNG_DRAWS] = g[GS_CTR]
    gi[G_MAW_STEPS] = g[GS_STEPS]
    gi[G_COLLAPSED] = g[GS_COLLAPSED]
    top = -1.0
    second = -1.0
    for p in range(n):
        sf[p, SF_GLORY] = glory[p]
        top = max(top, glory[p])
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
        si[p, S_PLACE] = place
        gi[G_PRESS_ONS] += si[p, S_PRESS_ONS]
        gi[G_SETBACKS] += si[p, S_SETBACKS]
        gi[G_CONSUMED] += si[p, S_CONSUMED]
    if k > 1:
        second = top
    for p in range(n):
        if glory[p] == top:
            if dat.book.rules[R_TIE_SHARE] > 0.5:
                sf[p, SF_WIN] = 1.0 / k
            elif k == 1:
                sf[p, SF_WIN] = 1.0
    gi[G_N_WINNERS] = k
    gi[G_WINNER] = winner
    gf[GF_TOP] = top
    gf[GF_MARGIN] = top - (second if second >= 0 else 0.0)
    gf[GF_MARGIN_REL] = gf[GF_MARGIN] / top if top > 0 else 0.0
    emit(st, winner, EV_END, (g[GS_ROUND], k, np.int64(top * 100), g[GS_COLLAPSED],
                              gi[G_TRUNCATED], 0, 0))


@njit(cache=True, _nrt=False)
def play_rest(st, dat):
    """Play the game on from where its state stands to its end (§6, §1), from the next
    seat's turn if a round is under way: a search bot's look-ahead from a copy of the state
    (board.copy_state; :func:`finish_turn` first when the copy was made inside a turn)."""
    play_rounds(st, dat, -1)
    end_game(st, dat)


@njit(cache=True, _nrt=False, inline="always")
def reset(st, seed, game, trace):
    """Start game ``game`` of run ``seed`` in a state: its random stream, zero scalars and
    counters (``setup`` resets the rest)."""
    g = st.g
    for k in range(G_N):
        g[k] = 0
    g[GS_TRACE] = trace
    g[GS_SEARCH] = 1
    st.key[0] = game_key(seed, game)
    st.key[1] = child_key(st.key[0], ROLLOUT_STREAM)
    st.gi[:] = 0
    st.gf[:] = 0.0
    st.si[:, :] = 0
    st.sf[:, :] = 0.0


# ---------------------------------------------------------------------------------------
# the search bot: rollouts from a scratch copy of the state
# ---------------------------------------------------------------------------------------

#: child of the game's stream key (rng.child_key) that roots its rollouts' streams
ROLLOUT_STREAM = 1
FLOOR_DECISION = 0      # the kinds of searched decision (the search event's ``decision``),
EXIT_DECISION = 1       # in the order of their option masks in the state (GS_FLOOR_MASK ..)
ROOM_DECISION = 2
PRESS_DECISION = 3
SEARCH_OPTIONS = 16     # options a decision can have at most (bits of its mask)
SEARCH_WORK = 3 * SEARCH_OPTIONS + 1    # the search's work array (option_means): per option
                                        # its mean value, the sum and sum of squares of its
                                        # paired differences; the rollouts per option
TIE_EPS = 1e-12         # mean values closer than this are tied


@njit(cache=True, _nrt=False, inline="always")
def rollout_key(root, decision, rollout):
    """Stream key (uint64) of rollout ``rollout`` of the game's searched decision number
    ``decision``, from the game's rollout root ``st.key[1]`` (``rng.child_key`` of its own
    key): a function of (seed, game, decision, rollout) only, never of the game's draws."""
    return child_key(child_key(root, decision), rollout)


@njit(cache=True, _nrt=False, inline="always")
def decision_part(kind):
    """The part of the turn (``STEP_*``) that takes a decision of ``kind``."""
    if kind == FLOOR_DECISION:
        return np.int64(STEP_MOVE)
    if kind == EXIT_DECISION:
        return np.int64(STEP_EXIT)
    if kind == ROOM_DECISION:
        return np.int64(STEP_CLAIM)
    return np.int64(STEP_PRESS)


@njit(cache=True, _nrt=False, inline="always")
def outcome_value(st, p, weight):
    """Seat p's value of a finished game (:func:`end_game` played in ``st``): its win as
    the rules count it (``SF_WIN``: 1, or for a k-way tie for first 1/k with
    ``end.tie_rule: share``, 0 with ``none``; §1, A38) plus ``weight`` x its relative
    Glory margin, (its Glory - the best other seat's) / the larger of the two (at least
    1): in [-1, 1], positive when it leads. The margin separates options whose rollouts
    all end the same way (every rollout won, or every one lost): it is a tie-break on
    the win as long as ``weight`` is small next to the win's steps (1 / rollouts)."""
    glory = st.glory
    other = -1.0
    for q in range(st.g[GS_N]):
        if q != p:
            other = max(other, glory[q])
    scale = max(max(glory[p], other), 1.0)
    return st.sf[p, SF_WIN] + weight * (glory[p] - other) / scale


@njit(cache=True, _nrt=False)
def rollout_value(st, scr, dat, p, kind, option, key):
    """Seat p's value (:func:`outcome_value`, knob ``search_glory`` the margin's weight)
    in one rollout of ``option``.

    The state ``st`` is stopped at a decision of seat p's turn, before the part that takes
    it (:func:`decision_part`): ``kind`` FLOOR_DECISION, option = target floor 1..6;
    EXIT_DECISION, option 0 Stay, 1 Cash Out, 2 Last Stand; ROOM_DECISION, the first claim
    on arrival, option 0 no claim, s + 1 room slot s; PRESS_DECISION, the next Press On,
    option 0 stop, 1 press. It is copied into ``scr`` (board.copy_state); the copy draws
    from the rollout's key ``key`` (its own: the game's future draws are never read; with
    ``search_paired`` one stream per hand, :func:`hand_stream`, else one running stream),
    nobody searches, seat p plays its heuristic (its knobs) and every other seat plays
    seat p's heuristic too (``search_opponents`` 0) or its own bot's heuristic as seated
    (1); seat p takes ``option`` (the option mask ``GS_FLOOR_MASK + kind`` holding only
    it) and the copy plays the turn and the game to its end with the rules' own functions
    (:func:`turn_part`, :func:`play_rest`). ``st`` is not changed.
    """
    copy_state(st, scr)
    kn = knobs_of(st, dat, p)
    g = scr.g
    g[GS_SEARCH] = 0
    g[GS_ROLLOUT] = 1 if kn[K_SEARCH_PAIRED] > 0.5 else 2
    scr.key[0] = key
    scr.key[1] = key
    g[GS_CTR] = 0
    if kn[K_SEARCH_OPPONENTS] < 0.5:
        b = st.sd[p, SD_BOT]
        for q in range(g[GS_N]):
            scr.sd[q, SD_BOT] = b
    g[GS_FLOOR_MASK + kind] = np.int64(1) << option
    turn_part(scr, dat, p, decision_part(kind), np.int64(STEP_EXIT))
    play_rest(scr, dat)
    return outcome_value(scr, p, kn[K_SEARCH_GLORY])


@njit(cache=True, _nrt=False)
def heuristic_option(st, scr, dat, p, kind):
    """The option seat p's heuristic (its knobs) takes at a decision of ``kind`` (the
    numbering of :func:`rollout_value`), asked on a scratch copy ``scr`` so that the game's
    stream is untouched (a random heuristic draws)."""
    copy_state(st, scr)
    kn = knobs_of(scr, dat, p)
    if kind == FLOOR_DECISION:
        h = bots.choose_floor(scr, dat, kn, p, np.bool_(False))
        h = max(min(h, N_FLOORS - st.g[GS_COLLAPSED]), 1)
        cur = st.sd[p, SD_FLOOR]
        reach = bots.move_reach(st, dat, p)
        return min(max(h, cur - reach), cur + reach)
    if kind == EXIT_DECISION:
        return bots.exit_choice(scr, dat, kn, p)
    if kind == ROOM_DECISION:
        s, _assault = bots.choose_room(scr, dat, kn, p, st.sd[p, SD_FLOOR] - 1, 0, True)
        return s + 1
    g = scr.g
    return np.int64(bots.press_on(scr, dat, kn, p, g[GS_PRESSES], g[GS_PRESS_TARGET]))


@njit(cache=True, _nrt=False)
def lead_is_clear(sum_d, sum_d2, n, z):
    """The override test: is an option's mean lead over the heuristic's option, from
    ``n`` paired differences (their sum ``sum_d`` and sum of squares ``sum_d2``: rollout
    r of both options on the same key), above ``z`` standard errors (sample sd /
    sqrt(n); a one-sided paired t statistic above ``z``), and above TIE_EPS?

    ``z`` 0: any lead. Under the null (the option is no better than the heuristic's) one
    such test says yes with probability about P(T_{n-1} > z) (Student's t; the rollouts'
    values are bounded, so the t approximation is close at n >= 16);
    :func:`search_verdict` applies it to the best option only, after each batch of
    rollouts (tests/test_search_deepfall.py simulates its error rate)."""
    if n < 1:
        return False
    mean_d = sum_d / n
    if mean_d <= TIE_EPS:
        return False
    var_d = 0.0
    if n > 1:
        var_d = (sum_d2 - n * mean_d * mean_d) / (n - 1)
    se = np.sqrt(max(var_d, 0.0) / n)
    return mean_d > z * se


@njit(cache=True, _nrt=False)
def search_verdict(work, options, heur, n, z):
    """What the rollouts so far say (``work`` as :func:`option_means` fills it, ``n``
    rollouts per option): (the bit set of the options the bot may take, settled).

    The best options are those with the highest mean value (within TIE_EPS). The search
    keeps the heuristic's option ``heur`` when it is among them, when it is not an option
    (every best option may be taken then), and when the first best option's paired lead
    over it is not clear (:func:`lead_is_clear` at ``z`` standard errors): then that
    option alone. Settled: the heuristic's option is among the best, or is no option, or
    the lead is clear; an unsettled verdict (a lead not yet clear) keeps the heuristic's
    option unless more rollouts make the lead clear."""
    m = SEARCH_OPTIONS
    best = -np.inf
    first = -1
    for o in range(m):
        if (options >> o) & 1 == 1:
            mean = work[o] / n
            if mean > best + TIE_EPS:
                best = mean
                first = o
    mask = np.int64(0)
    for o in range(m):
        if (options >> o) & 1 == 1 and work[o] / n >= best - TIE_EPS:
            mask |= np.int64(1) << o
    heur_in = heur >= 0 and heur < m and (options >> heur) & 1 == 1
    if not heur_in or (mask >> heur) & 1 == 1:
        return mask, True
    if lead_is_clear(work[m + first], work[2 * m + first], n, z):
        return mask, True
    return np.int64(1) << heur, False


@njit(cache=True, _nrt=False)
def option_means(st, scr, dat, p, kind, options, heur, work):
    """Weigh each option of a decision by rollouts of seat p's bot (:func:`rollout_value`)
    and return the bit set of the options the bot may take (:func:`search_verdict`).

    Rollouts come in batches of ``rollouts`` (knob) per option: after the first batch,
    while the verdict is not settled (the best option leads the heuristic's but not by
    ``search_margin`` standard errors), up to ``search_extra`` more batches are played
    (adaptive rollouts: more where the leading option and the heuristic's are within
    noise). Rollout r of every option uses the same key (common random numbers: the
    options are compared on the same dice), keyed by (seed, game, the game's decision
    number ``GS_DECISIONS``, r) (:func:`rollout_key`).

    ``work`` (float64[SEARCH_WORK]) afterwards: option o's (bit o of ``options``, o <
    SEARCH_OPTIONS) mean value in ``work[o]``, the sum and the sum of squares of its
    paired differences with the heuristic's option ``heur`` (rollout by rollout) in
    ``work[SEARCH_OPTIONS + o]`` and ``work[2 * SEARCH_OPTIONS + o]``, the rollouts per
    option played in ``work[3 * SEARCH_OPTIONS]``; other entries are not touched.
    """
    kn = knobs_of(st, dat, p)
    per = max(np.int64(kn[K_ROLLOUTS]), np.int64(1))
    batches = np.int64(kn[K_SEARCH_EXTRA]) + 1
    z = kn[K_SEARCH_MARGIN]
    d = st.g[GS_DECISIONS]
    n = SEARCH_OPTIONS
    heur_in = heur >= 0 and heur < n and (options >> heur) & 1 == 1
    for o in range(n):
        if (options >> o) & 1 == 1:
            work[o] = 0.0
            work[n + o] = 0.0
            work[2 * n + o] = 0.0
    done = np.int64(0)
    mask = options
    for _b in range(batches):
        for r in range(done, done + per):
            key = rollout_key(st.key[1], d, r)
            vh = 0.0
            if heur_in:
                vh = rollout_value(st, scr, dat, p, kind, heur, key)
                work[heur] += vh
            for o in range(n):
                if (options >> o) & 1 == 0 or (heur_in and o == heur):
                    continue
                v = rollout_value(st, scr, dat, p, kind, np.int64(o), key)
                work[o] += v
                work[n + o] += v - vh
                work[2 * n + o] += (v - vh) * (v - vh)
        done += per
        mask, settled = search_verdict(work, options, heur, done, z)
        if settled:
            break
    for o in range(n):
        if (options >> o) & 1 == 1:
            work[o] /= done
    work[3 * n] = done
    return mask


@njit(cache=True, _nrt=False, inline="always")
def _pct(options, means, o):
    """Mean value of option ``o`` in percent x100 (an event value), NOT_AN_OPTION when it
    is not an option."""
    if o < 0 or o >= SEARCH_OPTIONS or (options >> o) & 1 == 0:
        return np.int64(NOT_AN_OPTION)
    return np.int64(np.round(means[o] * 10000))


@njit(cache=True, _nrt=False)
def search_event(st, p, kind, options, heur, rollouts, work):
    """Trace a searched decision (layout ``search`` event, preceded for a room by one
    ``search_room`` event per option): the options' mean values (``work``, as
    :func:`option_means` left it), the heuristic's option ``heur`` and the choice."""
    if kind == FLOOR_DECISION:
        lo = np.int64(1)                 # the event's slots 0..5: floors 1..6
    elif kind == ROOM_DECISION:
        lo = np.int64(-100)              # the options are in the search_room events
        for o in range(SEARCH_OPTIONS):
            if (options >> o) & 1 == 1:
                theme = st.theme[st.sd[p, SD_FLOOR] - 1, o - 1] if o > 0 else -1
                emit(st, p, EV_SEARCH_ROOM, (o - 1, theme, _pct(options, work, o), 0, 0, 0,
                                             0))
    else:
        lo = np.int64(0)
    mask = st.g[GS_FLOOR_MASK + kind]
    chosen = heur if heur >= 0 and (mask >> heur) & 1 == 1 else first_bit(mask)
    emit10(st, p, EV_SEARCH, (kind, chosen, heur, rollouts,
                              _pct(options, work, lo), _pct(options, work, lo + 1),
                              _pct(options, work, lo + 2), _pct(options, work, lo + 3),
                              _pct(options, work, lo + 4), _pct(options, work, lo + 5)))


@njit(cache=True, _nrt=False, inline="always")
def search_decision(st, scr, work, dat, p, kind, options):
    """Weigh a decision of ``kind`` with more than one option (bit set ``options``) by
    rollouts (:func:`option_means`, against the heuristic's own option,
    :func:`heuristic_option`), leave the options the bot may take in the state's mask
    for the part of the turn that takes it, trace it, and count it in ``GS_DECISIONS``."""
    g = st.g
    heur = heuristic_option(st, scr, dat, p, kind)
    g[GS_FLOOR_MASK + kind] = option_means(st, scr, dat, p, kind, options, heur, work)
    if traced(st):
        search_event(st, p, kind, options, heur, np.int64(work[3 * SEARCH_OPTIONS]), work)
    g[GS_DECISIONS] += 1


@njit(cache=True, _nrt=False)
def search_turn(st, scr, work, dat, p):
    """Seat p's turn with a search bot (§6A): the parts of :func:`turn_part`,
    stopping at the bot's decisions to weigh each legal option by rollouts.

    - each Press On (§6A.2, knob ``search_press``): stop or press, while the bag lasts;
    - the target floor (before §6A.4's Move): every standing floor within the crew's
      Moves (:func:`bots.move_reach`);
    - the room on arrival (§6A.4 after the Move, knob ``search_room``): no claim, or each
      room where the crew can claim or pour in (:func:`room_options`);
    - the exit (§7.3): Stay, Cash Out unless a Last Stand is declared (A29), a Last Stand
      when affordable.

    A decision with more than one option is searched (:func:`search_decision`,
    ``rollouts`` knob of the seat's bot, with ``scr`` as scratch); the part then takes the
    heuristic's choice when it is among the best options, else the first best
    (:func:`step2_press_on`, :func:`searched_floor`, :func:`try_claim`,
    :func:`step5_exit`). Claims before the Move, later claims, recruits and Loot stay the
    heuristic's. ``work``: float64[SEARCH_WORK] work array.
    """
    g = st.g
    sd = st.sd
    kn = knobs_of(st, dat, p)
    turn_part(st, dat, p, np.int64(STEP_START), np.int64(STEP_PRESS_PLAN))
    if kn[K_SEARCH_PRESS] > 0.5:
        while g[GS_PRESS_OVER] == 0 and bag_size(st, p) > 0:
            search_decision(st, scr, work, dat, p, np.int64(PRESS_DECISION), np.int64(3))
            step2_press_on(st, dat, p, np.int64(1))
    turn_part(st, dat, p, np.int64(STEP_PRESS), np.int64(STEP_DREAD))
    # the target floor (§6A.4)
    cur = sd[p, SD_FLOOR]
    reach = bots.move_reach(st, dat, p)
    lo = max(1, cur - reach)
    hi = min(N_FLOORS - g[GS_COLLAPSED], cur + reach)
    if hi > lo:
        options = ((np.int64(1) << (hi + 1)) - 1) ^ ((np.int64(1) << lo) - 1)
        search_decision(st, scr, work, dat, p, np.int64(FLOOR_DECISION), options)
    turn_part(st, dat, p, np.int64(STEP_MOVE), np.int64(STEP_MOVE))
    # the room on arrival (§6A.4, §7.1)
    if kn[K_SEARCH_ROOM] > 0.5 and g[GS_CLAIMS_LEFT] > 0:
        options = room_options(st, dat, p, sd[p, SD_FLOOR] - 1)
        if options & (options - 1) != 0:             # two options or more
            search_decision(st, scr, work, dat, p, np.int64(ROOM_DECISION), options)
    turn_part(st, dat, p, np.int64(STEP_CLAIM), np.int64(STEP_CLAIM))
    # the exit (§6A.5, §7.3)
    if sd[p, SD_STAND] == 0:
        price = last_stand_price(st, dat, p)
        options = np.int64(7) if st.sym[METTLE] >= max(0, price) else np.int64(3)
        search_decision(st, scr, work, dat, p, np.int64(EXIT_DECISION), options)
    turn_part(st, dat, p, np.int64(STEP_EXIT), np.int64(STEP_EXIT))


# Compile time (docs/performance.md): the per-turn functions below play_block are
# forceinline (compiled once, inlined by LLVM), and so are the bots' decisions and the
# larger turn helpers (try_claim, cash_out, last_stand_price, draw_hand). A game's body is
# written in play_block itself, not called: numba links a callee's whole module into its
# caller's and optimises and emits it again, so a play_game function between play_block
# and the turns cost one more O3 and machine code of the whole game (10-12 s of the cold
# compile, every entry point).


@njit(cache=True, _nrt=False, inline="always")
def write_row(st, tab, row):
    """Copy the game's counters into row ``row`` of the output tables (seats beyond the
    game's player count are zero)."""
    n = st.g[GS_N]
    gi, gf, si, sf = tab.gi, tab.gf, tab.si, tab.sf
    for k in range(N_GAME_INT):
        gi[row, k] = st.gi[k]
    for k in range(N_GAME_FLT):
        gf[row, k] = st.gf[k]
    for p in range(MAX_SEATS):
        if p < n:
            for k in range(N_SEAT_INT):
                si[row, p, k] = st.si[p, k]
            for k in range(N_SEAT_FLT):
                sf[row, p, k] = st.sf[p, k]
        else:
            for k in range(N_SEAT_INT):
                si[row, p, k] = 0
            for k in range(N_SEAT_FLT):
                sf[row, p, k] = 0.0


@njit(cache=True, nogil=True)
def play_block(seed, games, lo, hi, dat, tab, st, scr):
    """Play games ``games[lo] .. games[hi-1]`` of run ``seed`` into rows ``lo .. hi-1`` of
    the tables ``tab`` (board.Tables); ``games``: int64 game indices, one per row.

    A game: ``reset`` (its stream key is ``game_key(seed, game)``, its rollouts' keys come
    from ``rollout_key(seed, game, decision, rollout)``), :func:`setup` (§3), rounds
    (:func:`play_rounds`, §6) with a searching seat's turns played by
    :func:`search_turn`, then :func:`end_game` (§1); :func:`write_row` copies its
    counters into row r, and ``st`` holds the last game's state afterwards.

    One thread's share of :func:`play_listed` (it releases the GIL). ``st`` is the state
    the block's games are played in, each game resetting it: a quiet state
    (board.new_quiet_state) for batch games, where no trace code is compiled, or one
    that can be traced (board.new_state, :func:`trace_game`), whose event buffer each
    game fills. ``scr`` is None when no seat's bot searches (:func:`searches`), else a
    quiet scratch state for the search bots' rollouts; numba prunes the ``scr is None``
    branches on the type of ``scr``, so with None the search bot is not compiled.
    """
    work = np.zeros(SEARCH_WORK)        # the search's float64[SEARCH_WORK] work array
    trace = np.int64(1) if st.ev.shape[0] > 0 else np.int64(0)
    for r in range(lo, hi):
        reset(st, seed, games[r], trace)
        setup(st, dat)
        g = st.g
        if scr is None:
            g[GS_SEARCH] = 0
        while not play_rounds(st, dat, -1):
            if scr is not None:
                p = (g[GS_ROUND] - 1 + g[GS_TURN_I]) % g[GS_N]   # a search bot's turn
                g[GS_TURN_I] += 1
                search_turn(st, scr, work, dat, p)
        end_game(st, dat)
        write_row(st, tab, r)


def play_game(seed, game, st, scr, dat):
    """Play game number ``game`` of the run ``seed`` in state ``st`` (:func:`play_block`
    for that one game): afterwards ``st`` holds the game's state and its counters (the
    game's row, :func:`write_row`), and a state from board.new_state its events in
    ``st.ev``; ``scr`` as in :func:`play_block`. Returns the game's tables (board.Tables,
    one row).
    """
    tab = new_tables(1)
    play_block(np.int64(seed), np.array([game], np.int64), np.int64(0), np.int64(1), dat,
               tab, st, scr)
    return tab


def searches(dat) -> bool:
    """True when a seat of the scenario in ``dat`` (board.Data) may play a bot that searches
    (knob ``rollouts`` > 0): a bot profile a seat is given (``seat_spec``), may draw
    (``bot_pool``) or its company imposes (``fmix``). The batch and trace entry points
    compile the search bot only then (:func:`play_block`)."""
    rows = {int(b) for b in np.asarray(dat.bot_pool).ravel()}
    rows |= {int(b) for b in np.asarray(dat.seat_spec)[:, 2] if b >= 0}
    rows |= {int(b) for b in np.asarray(dat.fmix)[:, 0, :].ravel() if b >= 0}
    knobs = np.asarray(dat.knobs)
    return any(knobs[r, K_ROLLOUTS] > 0.5 for r in rows)


def new_tables(count: int) -> Tables:
    """Zeroed output tables for ``count`` games: gi int64[count, N_GAME_INT], gf
    float64[count, N_GAME_FLT], si int64[count, MAX_SEATS, N_SEAT_INT], sf
    float64[count, MAX_SEATS, N_SEAT_FLT]."""
    return Tables(np.zeros((count, N_GAME_INT), np.int64),
                  np.zeros((count, N_GAME_FLT), np.float64),
                  np.zeros((count, MAX_SEATS, N_SEAT_INT), np.int64),
                  np.zeros((count, MAX_SEATS, N_SEAT_FLT), np.float64))


def play_games(seed, start, count, dat):
    """Play games ``start .. start+count-1`` of run ``seed`` on numba's thread count.

    Blocks of games go to :func:`play_block` on ``numba.get_num_threads()`` threads
    (:func:`deepsim.blocks.run_blocks`); the tables do not depend on the thread count.
    ``dat`` is the data bundle (``compile.Arrays.kernel_data()``).

    Returns
    -------
    gi : int64[count, N_GAME_INT]
    gf : float64[count, N_GAME_FLT]
    si : int64[count, MAX_SEATS, N_SEAT_INT]
    sf : float64[count, MAX_SEATS, N_SEAT_FLT]
        Row r is game ``start + r``; seats beyond the game's player count are zero.
    """
    return play_listed(seed, np.arange(int(start), int(start) + int(count), dtype=np.int64),
                       dat)


def play_listed(seed, games, dat):
    """Play the games of index ``games`` (int64[count]) of run ``seed`` on numba's thread
    count: row r is game ``games[r]``, the same row :func:`play_games` gives that game
    (each game depends only on (seed, game)); the tables do not depend on the thread
    count. Returns (gi, gf, si, sf) as :func:`play_games`."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    count = int(games.shape[0])
    tab = new_tables(count)
    seed = np.int64(seed)
    search = searches(dat)

    def block(lo, hi):
        # each block its own states: the blocks run at once on numba's threads
        play_block(seed, games, np.int64(lo), np.int64(hi), dat, tab, new_quiet_state(),
                   new_quiet_state() if search else None)

    run_blocks(block, count)
    return tab.gi, tab.gf, tab.si, tab.sf


def trace_game(seed, game, max_events, dat):
    """Play one game with the event buffer on: the same rules and bots as :func:`play_games`
    (the same functions, compiled for a state that can be traced).

    Parameters
    ----------
    seed, game : int64
        The run seed and the game's index.
    max_events : int
        Events kept, at most board.TRACE_EVENTS (the rows of a traced state's buffer);
        events past it are dropped.
    dat : board.Data

    Returns
    -------
    tuple
        (gi, gf, si, sf, events[:k]) for that single game (row 0; events int64[k,
        EVENT_WIDTH]).

    Raises
    ------
    ValueError
        ``max_events`` is negative or above board.TRACE_EVENTS.
    """
    if not 0 <= int(max_events) <= TRACE_EVENTS:
        raise ValueError(f"max_events must be in 0 .. {TRACE_EVENTS}, got {max_events}")
    st = new_state()
    scr = new_quiet_state() if searches(dat) else None
    # the batch's entry point, compiled for a state that can be traced
    tab = play_game(seed, game, st, scr, dat)
    k = min(int(st.g[GS_EV]), int(max_events))
    return tab.gi, tab.gf, tab.si, tab.sf, st.ev[:k].copy()


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
