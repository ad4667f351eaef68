"""The Abyss game kernel: whole games in numba, one output row per game.

Every rule carries its rule id (AB-*) and, where the text is silent or unclear, the
ambiguity id (AMB-A*) of ``../shared/digests/abyss.md`` with the parameter that settles it
(docs/RULES.md, "Abyss"); gaps the digest does not list are G-A* (docs/RULES.md). All
numbers come in through the arrays of :mod:`deepsim.rulesets.abyss.compile`; the kernel has
no rule constants of its own. Decisions are delegated to :mod:`deepsim.rulesets.abyss.bots`,
which receive the public view, the deciding player's own hand and its knobs only
(:func:`state.view`); legality is decided here.

Seat 0 is the start player (AB-S5: the seat order is rotated over games instead of drawing
a start player; see ``rotate`` in the scenario). Turns pass clockwise: seat p, p+1, ...
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from deepsim.factionmix import faction_bot
from deepsim.rng import game_key
from deepsim.rulesets.abyss import bots
from deepsim.rulesets.abyss.layout import (
    A_COUNCIL,
    A_EXPLORE,
    A_RECRUIT,
    END_BOTH,
    END_CAP,
    END_COURT,
    END_LORDS,
    EV_AFFILIATE,
    EV_BOT,
    EV_CLEANUP,
    EV_COUNCIL,
    EV_COURT,
    EV_COURT_INIT,
    EV_COVER,
    EV_DECLINE,
    EV_END,
    EV_FIGHT,
    EV_FINAL_AFF,
    EV_HAND_LIMIT,
    EV_KEYS_PAID,
    EV_LEAVE,
    EV_LOCATION,
    EV_MONSTER,
    EV_OFFER,
    EV_PASS,
    EV_PAY,
    EV_PLOT,
    EV_RECRUIT,
    EV_RESHUFFLE,
    EV_REVEAL,
    EV_SCORE,
    EV_SETUP,
    EV_STOP,
    EV_TAKE,
    EV_TRIGGER,
    EV_TURN,
    G_ALLIES_REVEALED,
    G_BUYS,
    G_BUYS_P1,
    G_COUNCIL_CARDS,
    G_COUNCILS,
    G_DECLINED,
    G_DEPTH_EXHAUSTED,
    G_END_CAUSE,
    G_EXPLORES,
    G_FIGHTS,
    G_FIGHTS_POS0,
    G_LAST_FIGHTS,
    G_LAST_TAKES,
    G_LEAVES,
    G_LOC_DRAW0,
    G_LOC_DRAWN,
    G_LOC_FACE_UP,
    G_LOC_VP_DRAW0,
    G_LOC_VP_FACE_UP,
    G_LOCATIONS,
    G_LORD_DECK_LEFT,
    G_MONSTERS_REVEALED,
    G_N_WINNERS,
    G_OFFERS,
    G_PASSES,
    G_PEARLS_AUCTION,
    G_PEARLS_FROM_BANK,
    G_PEARLS_R0,
    G_PEARLS_TO_BANK,
    G_PLAYERS,
    G_PLOTS,
    G_RECRUITS,
    G_REFILL_BONUSES,
    G_REFILL_FAILED,
    G_REFILLS,
    G_RESHUFFLES,
    G_REVEALS,
    G_ROUNDS,
    G_TAKES,
    G_TIEBREAK,
    G_TOPUPS,
    G_TRIGGER_SEAT,
    G_TRUNCATED,
    G_TURNS,
    G_WINNER_DIFFERS,
    G_WINNER_SEAT,
    GF_MARGIN,
    GF_MARGIN_REL,
    GF_MEAN_SCORE,
    LAST_MAY_LEAVE,
    LAST_MUST_FIGHT,
    LC_COST,
    LC_KEYS,
    LC_VP,
    MAX_OWN,
    MAX_P,
    MAX_THREAT,
    MONSTER,
    N_GAME_FLT,
    N_GAME_INT,
    N_RACES,
    N_SEAT_FLT,
    N_SEAT_INT,
    NV,
    OF_ALREADY,
    OF_BUY,
    OF_CANNOT,
    OF_REFUSE,
    PEARL_ROUNDS,
    PLOT_PRE_ACTION,
    PLOT_WITH_RECRUIT,
    R_BOUGHT_FREES,
    R_BUYS_PER_PLAYER,
    R_COURT_SLOTS,
    R_FINAL_AFF,
    R_FIRST_PRICE,
    R_HAND_LIMIT,
    R_KEY_SUPPLY,
    R_KEYS_PER_LOC,
    R_LAST_MONSTER,
    R_LAST_PEARLS,
    R_LOC_FACE_UP,
    R_LORDS_TO_END,
    R_MAX_TURNS,
    R_MULTI_LOC,
    R_MUST_CONTINUE,
    R_PEARL_SUPPLY,
    R_PLOT_COST,
    R_PLOT_TIMING,
    R_PRICE_STEP,
    R_REFILL_PEARLS,
    R_REFILL_SLOT,
    R_RESHUFFLE,
    R_ROTATE,
    R_ROW_LEN,
    R_SPEND_POLICY,
    R_START_PEARLS,
    R_TIEBREAK,
    S_ALLY_VP,
    S_ALLY_VP_OTHER,
    S_BOT,
    S_BOUGHT_VALUE,
    S_BUY_PEARLS,
    S_BUYS,
    S_BUYS_AFTER_FINAL,
    S_CARDS_SPENT,
    S_COUNCIL_CARDS,
    S_COUNCIL_VALUE,
    S_COUNCILS,
    S_EXPLORES,
    S_FIGHTS,
    S_FINAL_AFF_GAIN,
    S_HAND_LEFT,
    S_KEY_TOKENS_USED,
    S_KEY_TOKENS_WON,
    S_LAST_PEARLS,
    S_LAST_TAKES,
    S_LEAVES,
    S_LOC_DRAWN,
    S_LOC_FACE_UP,
    S_LOC_VP,
    S_LOCATIONS,
    S_LORD_VP,
    S_LORDS,
    S_LORDS_COVERED,
    S_LORDS_KEYED,
    S_MONSTER_PEARLS,
    S_MONSTER_TOKENS,
    S_MONSTER_VP,
    S_PASSES,
    S_PEARLS,
    S_PLACE,
    S_PLOT_PEARLS,
    S_PLOTS,
    S_RECRUITS,
    S_REFILL_PEARLS,
    S_SALE_PEARLS,
    S_SCORE,
    S_TAKE_VALUE,
    S_TAKES,
    S_TOPUP_PEARLS,
    S_TRIGGERED,
    S_TURNS,
    S_VALUE_SPENT,
    SF_WIN,
    STOP_CHOSE,
    STOP_EMPTY,
    STOP_LEFT_LAST,
    STOP_ROW_FULL,
    TB_OPEN,
    TB_SCORE,
    TB_SHARED,
    TH_KEYS,
    TH_PEARLS,
    TH_TOKENS,
)
from deepsim.rulesets.abyss.state import (
    D_BOT_POOL,
    D_DEPTH,
    D_FMIX,
    D_KNOBS,
    D_LOCS,
    D_LORDS,
    D_PLAYER_OPTS,
    D_RULES,
    D_SEAT_BOT,
    D_THREAT,
    D_TOKENS,
    E_CTR,
    E_EVN,
    E_TRACE,
    PH_BOT,
    PH_HAND_N,
    PH_MVP,
    PL_BOUGHT,
    PL_DONE,
    PL_KEYS,
    PL_KEYTOK,
    PL_LOC_VP,
    PL_LOCS,
    PL_LORD_VP,
    PL_LORDS,
    PL_MTOK,
    PL_PEARLS,
    PS_ACTIVE,
    PS_BANK,
    PS_BOUGHT_N,
    PS_COURT_N,
    PS_DEPTH_N,
    PS_DISC_N,
    PS_END_TRIG,
    PS_FINAL,
    PS_KEY_SUPPLY,
    PS_LDECK_N,
    PS_LSTACK_N,
    PS_LVIS_N,
    PS_OVER,
    PS_PLAYERS,
    PS_REFILL_FAILED,
    PS_ROUND,
    PS_ROW_N,
    PS_ROW_POS,
    PS_THREAT,
    PS_TOKENS_LEFT,
    PS_TRIGGER_SEAT,
    PS_TURN,
    WI_BEST,
    WI_CHOICE,
    WI_DRAWN,
    WI_TOT,
    X_AFF,
    X_CN,
    X_CNCL,
    X_COURT,
    X_DECK,
    X_DISC,
    X_E,
    X_EV,
    X_GST,
    X_HAND,
    X_KEY,
    X_LDECK,
    X_LSTACK,
    X_LVIS,
    X_PCOV,
    X_PH,
    X_PL,
    X_PLOC,
    X_PLORD,
    X_PS,
    X_ROW,
    X_SST,
    X_TOK,
    X_WI,
    ally_code,
    bot_rng,
    card_race,
    card_value,
    emit,
    new_scratch,
    rand_below,
    view,
)

# ---- small state operations ----------------------------------------------------------------


@njit(cache=True, inline="always")
def knobs_of(scr, dat, p):
    """Knob row of player ``p``'s bot profile."""
    return dat[D_KNOBS][scr[X_PH][p, PH_BOT]]


@njit(cache=True)
def shuffle(scr, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` with the game's stream."""
    R = bot_rng(scr)
    for i in range(n - 1, 0, -1):
        j = rand_below(R, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit(cache=True)
def gain_pearls(scr, p, n):
    """Player ``p`` takes ``n`` pearls from the bank (fewer if a finite bank runs dry,
    AMB-A16). Returns the pearls taken."""
    ps = scr[X_PS]
    if ps[PS_BANK] >= 0 and n > ps[PS_BANK]:
        n = ps[PS_BANK]
    if ps[PS_BANK] >= 0:
        ps[PS_BANK] -= n
    scr[X_PL][p, PL_PEARLS] += n
    scr[X_GST][G_PEARLS_FROM_BANK] += n
    return n


@njit(cache=True)
def pay_bank(scr, p, n):
    """Player ``p`` pays ``n`` pearls to the bank (top-ups AB-L2, plots AB-T0)."""
    ps = scr[X_PS]
    scr[X_PL][p, PL_PEARLS] -= n
    if ps[PS_BANK] >= 0:
        ps[PS_BANK] += n
    scr[X_GST][G_PEARLS_TO_BANK] += n


@njit(cache=True, inline="always")
def hand_add(scr, p, r, v, n):
    scr[X_HAND][p, r, v] += n
    scr[X_PH][p, PH_HAND_N] += n


@njit(cache=True, inline="always")
def discard(scr, code):
    """A card onto the Depth discard pile."""
    ps = scr[X_PS]
    scr[X_DISC][ps[PS_DISC_N]] = code
    ps[PS_DISC_N] += 1


@njit(cache=True)
def reshuffle_discard(scr):
    """AMB-A6: the Depth deck is empty; the discard pile becomes the new deck, shuffled."""
    ps = scr[X_PS]
    deck = scr[X_DECK]
    disc = scr[X_DISC]
    n = ps[PS_DISC_N]
    for i in range(n):
        deck[i] = disc[i]
        disc[i] = -1
    ps[PS_DEPTH_N] = n
    ps[PS_DISC_N] = 0
    shuffle(scr, deck, n)
    scr[X_GST][G_RESHUFFLES] += 1
    emit(scr, EV_RESHUFFLE, n, 0, 0, 0, 0, 0)


@njit(cache=True)
def keys_of(scr, p):
    """Keys player ``p`` holds: Key tokens + keys on its uncovered lords (AB-K1)."""
    pl = scr[X_PL]
    return pl[p, PL_KEYTOK] + pl[p, PL_KEYS]


# ---- setup (AB-S1..S5) ---------------------------------------------------------------------

@njit(cache=True)
def reset(scr):
    """Empty the state for a new game (engine counters and trace flag kept by the caller)."""
    for x in (scr[X_PS], scr[X_CN], scr[X_GST]):
        x[:] = 0
    for x in (scr[X_ROW], scr[X_COURT], scr[X_LVIS], scr[X_DECK], scr[X_DISC],
              scr[X_LDECK], scr[X_LSTACK], scr[X_TOK]):
        x[:] = -1
    scr[X_PL][:, :] = 0
    scr[X_PLORD][:, :] = -1
    scr[X_PCOV][:, :] = 0
    scr[X_PLOC][:, :] = -1
    scr[X_AFF][:, :, :] = 0
    scr[X_HAND][:, :, :] = 0
    scr[X_PH][:, :] = 0
    scr[X_CNCL][:, :] = 0
    scr[X_SST][:, :] = 0
    scr[X_E][E_CTR] = 0
    scr[X_E][E_EVN] = 0


@njit(cache=True)
def setup(scr, dat, game):
    """AB-S1..S5 for game number ``game`` (its seat rotation)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    R = bot_rng(scr)
    opts = dat[D_PLAYER_OPTS]
    n = opts[rand_below(R, opts.shape[0])] if opts.shape[0] > 1 else opts[0]
    ps[PS_PLAYERS] = n
    # bots: seat spec (rotated by the game index so each spec plays each seat equally often)
    sb = dat[D_SEAT_BOT]
    pool = dat[D_BOT_POOL]
    rotate = rules[R_ROTATE] > 0.5
    for i in range(n):
        spec = (i + game) % n if rotate else i
        b = sb[spec]
        if b < 0:
            b = pool[rand_below(R, pool.shape[0])]
        # a style (the faction) with bots of its own (faction_bots) plays one of them; the
        # stream is unchanged (deepsim.factionmix)
        b = faction_bot(dat[D_FMIX], b, b, scr[X_KEY][0])
        scr[X_PH][i, PH_BOT] = b
        emit(scr, EV_BOT, i, b, spec, 0, 0, 0)
    # AB-S1 Depth deck, shuffled
    depth = dat[D_DEPTH]
    deck = scr[X_DECK]
    for i in range(depth.shape[0]):
        deck[i] = depth[i]
    ps[PS_DEPTH_N] = depth.shape[0]
    shuffle(scr, deck, depth.shape[0])
    # AB-S1 lord deck shuffled, the top court.slots face up in the Court
    nl = dat[D_LORDS].shape[0]
    ld = scr[X_LDECK]
    for i in range(nl):
        ld[i] = i
    shuffle(scr, ld, nl)
    ps[PS_LDECK_N] = nl
    slots = np.int64(rules[R_COURT_SLOTS])
    court = scr[X_COURT]
    for i in range(slots):
        ps[PS_LDECK_N] -= 1
        court[i] = ld[ps[PS_LDECK_N]]
        ld[ps[PS_LDECK_N]] = -1
        emit(scr, EV_COURT_INIT, i, court[i], 0, 0, 0, 0)
    ps[PS_COURT_N] = slots
    # AB-S2 locations shuffled, setup.locations_face_up revealed
    nloc = dat[D_LOCS].shape[0]
    ls = scr[X_LSTACK]
    for i in range(nloc):
        ls[i] = i
    shuffle(scr, ls, nloc)
    ps[PS_LSTACK_N] = nloc
    for i in range(np.int64(rules[R_LOC_FACE_UP])):
        ps[PS_LSTACK_N] -= 1
        scr[X_LVIS][i] = ls[ps[PS_LSTACK_N]]
        ls[ps[PS_LSTACK_N]] = -1
        ps[PS_LVIS_N] += 1
        emit(scr, EV_SETUP, 1, scr[X_LVIS][i], 0, 0, 0, 0)
    # AB-S3 Threat token on position 1, Monster tokens shuffled, Key tokens, the bank
    ps[PS_THREAT] = 0
    tok = scr[X_TOK]
    nt = dat[D_TOKENS].shape[0]
    for i in range(nt):
        tok[i] = dat[D_TOKENS][i]
    shuffle(scr, tok, nt)
    ps[PS_TOKENS_LEFT] = nt
    ps[PS_KEY_SUPPLY] = np.int64(rules[R_KEY_SUPPLY])
    supply = np.int64(rules[R_PEARL_SUPPLY])
    # AB-S4 one pearl each (AMB-A16: from a finite bank while it lasts)
    start = np.int64(rules[R_START_PEARLS])
    ps[PS_BANK] = supply
    for i in range(n):
        got = start
        if supply >= 0:
            got = min(start, ps[PS_BANK])
            ps[PS_BANK] -= got
        pl[i, PL_PEARLS] = got
    for i in range(n, MAX_P):
        scr[X_PH][i, PH_BOT] = -1
    for k in range(len(PEARL_ROUNDS)):
        scr[X_GST][G_PEARLS_R0 + k] = -1
    emit(scr, EV_SETUP, 0, n, depth.shape[0], nl, nloc, nt)


# ---- AB-T0: plot at Court ---------------------------------------------------------------------

@njit(cache=True)
def any_payable(scr, dat, p, pearls):
    """Whether player ``p`` could pay some Court lord with ``pearls`` pearls (AB-L1, L2)."""
    wi = scr[X_WI]
    present = bots.hand_totals(scr[X_HAND][p], wi, WI_TOT)
    for i in range(scr[X_PS][PS_COURT_N]):
        if bots.payable_from(wi, WI_TOT, present, pearls, dat[D_LORDS], scr[X_COURT][i]):
            return True
    return False


@njit(cache=True)
def plots(scr, dat, p):
    """AB-T0 / AMB-A4: while the Court has a free slot, the lord deck a card and the player
    the pearls, it may pay ``court.plot_cost`` to the bank to reveal the top lord into the
    Court; the bot decides each time. Returns the lords plotted."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    cost = np.int64(rules[R_PLOT_COST])
    slots = np.int64(rules[R_COURT_SLOTS])
    kn = knobs_of(scr, dat, p)
    plotted = np.int64(0)
    keep = np.int64(rules[R_PLOT_TIMING]) == PLOT_WITH_RECRUIT
    while (ps[PS_COURT_N] < slots and ps[PS_LDECK_N] > 0 and pl[p, PL_PEARLS] >= cost):
        # with_recruit: the plot is part of the Recruit action, which must still be
        # possible after paying for it (G-A11)
        if keep and not any_payable(scr, dat, p, pl[p, PL_PEARLS] - cost):
            break
        if not bots.choose_plot(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p,
                                plotted):
            break
        pay_bank(scr, p, cost)
        ps[PS_LDECK_N] -= 1
        lid = scr[X_LDECK][ps[PS_LDECK_N]]
        scr[X_LDECK][ps[PS_LDECK_N]] = -1
        scr[X_COURT][ps[PS_COURT_N]] = lid
        ps[PS_COURT_N] += 1
        plotted += 1
        scr[X_GST][G_PLOTS] += 1
        scr[X_SST][p, S_PLOTS] += 1
        scr[X_SST][p, S_PLOT_PEARLS] += cost
        emit(scr, EV_PLOT, lid, ps[PS_COURT_N], cost, pl[p, PL_PEARLS], ps[PS_LDECK_N], 0)
    return plotted


# ---- AB-E*: explore the depths ----------------------------------------------------------------

@njit(cache=True)
def auction(scr, dat, p, code):
    """AB-E2: offer ally ``code`` to each opponent clockwise from the active player's left.

    An opponent may buy when it has bought fewer than ``explore.buys_per_player`` allies
    this turn and can pay the price ``first_price + b * price_step`` (b = allies bought so
    far this turn); the price goes to the active player (AB-E7). Returns the buyer or -1.
    """
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    n = ps[PS_PLAYERS]
    b = ps[PS_BOUGHT_N]
    price = np.int64(rules[R_FIRST_PRICE]) + b * np.int64(rules[R_PRICE_STEP])
    limit = np.int64(rules[R_BUYS_PER_PLAYER])
    r = card_race(code)
    v = card_value(code)
    for k in range(1, n):
        q = (p + k) % n
        if pl[q, PL_BOUGHT] >= limit:
            emit(scr, EV_OFFER, q, code, price, OF_ALREADY, pl[q, PL_PEARLS], 0)
            continue
        if pl[q, PL_PEARLS] < price:
            emit(scr, EV_OFFER, q, code, price, OF_CANNOT, pl[q, PL_PEARLS], 0)
            continue
        scr[X_GST][G_OFFERS] += 1
        if bots.choose_buy(view(scr), scr[X_HAND][q], dat, knobs_of(scr, dat, q),
                           bot_rng(scr), q, code, price):
            pl[q, PL_PEARLS] -= price          # AB-E7: paid to the active player
            pl[p, PL_PEARLS] += price
            hand_add(scr, q, r, v, 1)
            pl[q, PL_BOUGHT] += 1
            ps[PS_BOUGHT_N] += 1
            g = scr[X_GST]
            g[G_BUYS] += 1
            g[G_BUYS_P1 + min(b, 3)] += 1
            g[G_PEARLS_AUCTION] += price
            s = scr[X_SST]
            s[q, S_BUYS] += 1
            if ps[PS_FINAL] != 0 and (pl[q, PL_DONE] == 1 or ps[PS_TRIGGER_SEAT] == q):
                s[q, S_BUYS_AFTER_FINAL] += 1       # AB-G2: after its own final turn
            s[q, S_BUY_PEARLS] += price
            s[q, S_BOUGHT_VALUE] += v
            s[p, S_SALE_PEARLS] += price
            emit(scr, EV_OFFER, q, code, price, OF_BUY, pl[q, PL_PEARLS], 0)
            return q
        emit(scr, EV_OFFER, q, code, price, OF_REFUSE, pl[q, PL_PEARLS], 0)
    return -1


@njit(cache=True)
def take_from_row(scr, p, code, slot, forced, bonus):
    """The active player takes the row's newest card (an ally) into its hand; ends the
    action (AB-E2, AB-E3). ``bonus`` pearls come from the bank (the last slot)."""
    ps = scr[X_PS]
    ps[PS_ROW_N] -= 1
    scr[X_ROW][ps[PS_ROW_N]] = -1
    hand_add(scr, p, card_race(code), card_value(code), 1)
    got = gain_pearls(scr, p, bonus) if bonus > 0 else 0
    scr[X_GST][G_TAKES] += 1
    scr[X_SST][p, S_TAKES] += 1
    scr[X_SST][p, S_TAKE_VALUE] += card_value(code)
    if forced:
        scr[X_GST][G_LAST_TAKES] += 1
        scr[X_SST][p, S_LAST_TAKES] += 1
        scr[X_SST][p, S_LAST_PEARLS] += got
    emit(scr, EV_TAKE, code, slot + 1, forced, got, scr[X_PL][p, PL_PEARLS], 0)


@njit(cache=True)
def fight(scr, dat, p, slot, bonus):
    """AB-E4: fight the row's newest card (a monster): the reward at the Threat position
    (AB-E6: Monster tokens drawn face down, pearls, Key tokens while the supply lasts,
    AMB-A16), the token back to position 1; the monster goes to the discard (G-A2).
    ``bonus`` pearls: the last slot's (AMB-A1)."""
    ps = scr[X_PS]
    pl = scr[X_PL]
    th = dat[D_THREAT]
    t = ps[PS_THREAT]
    ps[PS_ROW_N] -= 1
    scr[X_ROW][ps[PS_ROW_N]] = -1
    discard(scr, MONSTER)
    ntok = 0
    vp = 0
    for _ in range(th[t, TH_TOKENS]):
        if ps[PS_TOKENS_LEFT] > 0:
            ps[PS_TOKENS_LEFT] -= 1
            vp += scr[X_TOK][ps[PS_TOKENS_LEFT]]
            scr[X_TOK][ps[PS_TOKENS_LEFT]] = -1
            ntok += 1
    scr[X_PH][p, PH_MVP] += vp
    pl[p, PL_MTOK] += ntok
    got = gain_pearls(scr, p, th[t, TH_PEARLS]) if th[t, TH_PEARLS] > 0 else 0
    keys = min(th[t, TH_KEYS], ps[PS_KEY_SUPPLY])
    ps[PS_KEY_SUPPLY] -= keys
    pl[p, PL_KEYTOK] += keys
    extra = gain_pearls(scr, p, bonus) if bonus > 0 else 0
    ps[PS_THREAT] = 0
    g = scr[X_GST]
    s = scr[X_SST]
    g[G_FIGHTS] += 1
    if t < MAX_THREAT:
        g[G_FIGHTS_POS0 + t] += 1
    s[p, S_FIGHTS] += 1
    s[p, S_MONSTER_TOKENS] += ntok
    s[p, S_MONSTER_PEARLS] += got
    s[p, S_KEY_TOKENS_WON] += keys
    if bonus > 0:
        g[G_LAST_FIGHTS] += 1
        s[p, S_LAST_PEARLS] += extra
    emit(scr, EV_FIGHT, t + 1, ntok, vp, got, keys, extra)


@njit(cache=True)
def leave(scr, dat, p):
    """AB-E4: leave the monster in its slot; the Threat token moves one position on, capped
    at the last (AMB-A5)."""
    ps = scr[X_PS]
    last = dat[D_THREAT].shape[0] - 1
    if ps[PS_THREAT] < last:
        ps[PS_THREAT] += 1
    scr[X_GST][G_LEAVES] += 1
    scr[X_SST][p, S_LEAVES] += 1
    emit(scr, EV_LEAVE, ps[PS_THREAT] + 1, 0, 0, 0, 0, 0)


@njit(cache=True)
def explore(scr, dat, p):
    """AB-E1..E8: reveal Depth cards into the row until the active player takes an ally,
    fights a monster, or cannot go on."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    row = scr[X_ROW]
    K = np.int64(rules[R_ROW_LEN])
    frees = rules[R_BOUGHT_FREES] > 0.5
    kn = knobs_of(scr, dat, p)
    g = scr[X_GST]
    while True:
        if ps[PS_DEPTH_N] == 0:                           # AB-E8
            if rules[R_RESHUFFLE] > 0.5 and ps[PS_DISC_N] > 0:
                reshuffle_discard(scr)                     # AMB-A6
            else:
                g[G_DEPTH_EXHAUSTED] += 1                  # G-A1: the action ends
                emit(scr, EV_STOP, STOP_EMPTY, 0, 0, 0, 0, 0)
                return
        # AB-E1 the first free slot (AMB-A2: bought allies free theirs)
        slot = ps[PS_ROW_N] if frees else ps[PS_ROW_POS]
        if slot >= K:                                      # G-A3: bought from the last slot
            emit(scr, EV_STOP, STOP_ROW_FULL, 0, 0, 0, 0, 0)
            return
        ps[PS_DEPTH_N] -= 1
        code = scr[X_DECK][ps[PS_DEPTH_N]]
        scr[X_DECK][ps[PS_DEPTH_N]] = -1
        row[ps[PS_ROW_N]] = code
        ps[PS_ROW_N] += 1
        ps[PS_ROW_POS] += 1
        last = slot == K - 1
        g[G_REVEALS] += 1
        emit(scr, EV_REVEAL, code, slot + 1, 1 if last else 0, ps[PS_DEPTH_N], 0, 0)
        if code == MONSTER:
            # AB-E4 no offer; fight or leave
            g[G_MONSTERS_REVEALED] += 1
            emit(scr, EV_MONSTER, slot + 1, ps[PS_THREAT] + 1, 0, 0, 0, 0)
            if last:
                # AB-E5 / AMB-A1: a monster in the last slot
                mode = np.int64(rules[R_LAST_MONSTER])
                bonus = np.int64(rules[R_LAST_PEARLS])
                if mode == LAST_MUST_FIGHT:
                    fight(scr, dat, p, slot, bonus)
                elif mode == LAST_MAY_LEAVE:
                    if bots.choose_fight(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p):
                        fight(scr, dat, p, slot, bonus)
                    else:
                        leave(scr, dat, p)
                        emit(scr, EV_STOP, STOP_LEFT_LAST, 0, 0, 0, 0, 0)
                else:
                    fight(scr, dat, p, slot, np.int64(0))
                return
            if bots.choose_fight(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p):
                fight(scr, dat, p, slot, np.int64(0))
                return
            leave(scr, dat, p)
            # AMB-A8: must the player go on revealing?
            if rules[R_MUST_CONTINUE] < 0.5 and bots.choose_stop(
                    view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p):
                emit(scr, EV_STOP, STOP_CHOSE, 0, 0, 0, 0, 0)
                return
            continue
        # AB-E2 an ally: the auction
        g[G_ALLIES_REVEALED] += 1
        buyer = auction(scr, dat, p, code)
        if buyer >= 0:
            ps[PS_ROW_N] -= 1                              # AB-E2.3 it leaves the row
            row[ps[PS_ROW_N]] = -1
            continue
        if last:
            # AB-E3 nobody bought the last slot's ally: the active player must take it and
            # gains the slot's pearl
            take_from_row(scr, p, code, slot, np.int64(1), np.int64(rules[R_LAST_PEARLS]))
            return
        if bots.choose_take(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p, code):
            take_from_row(scr, p, code, slot, np.int64(0), np.int64(0))  # AB-E2.4 free; ends
            return
        g[G_DECLINED] += 1
        emit(scr, EV_DECLINE, code, slot + 1, 0, 0, 0, 0)


@njit(cache=True)
def cleanup_row(scr):
    """AB-E9: declined allies go face down onto their race's Council stack, monsters left
    in the row to the Depth discard."""
    ps = scr[X_PS]
    row = scr[X_ROW]
    allies = 0
    monsters = 0
    for i in range(ps[PS_ROW_N]):
        code = row[i]
        if code == MONSTER:
            discard(scr, code)
            monsters += 1
        else:
            r = card_race(code)
            scr[X_CNCL][r, card_value(code)] += 1
            scr[X_CN][r] += 1
            allies += 1
        row[i] = -1
    ps[PS_ROW_N] = 0
    if allies + monsters > 0:
        emit(scr, EV_CLEANUP, allies, monsters, scr[X_CN][0], scr[X_CN][1], scr[X_CN][2],
             scr[X_CN][3] * 100 + scr[X_CN][4])


# ---- AB-U1: the Council --------------------------------------------------------------------

@njit(cache=True)
def council(scr, dat, p, r):
    """AB-U1: take the whole Council stack of race ``r`` into the hand."""
    cncl = scr[X_CNCL]
    n = scr[X_CN][r]
    val = 0
    for v in range(1, NV):
        val += v * cncl[r, v]
        hand_add(scr, p, r, v, cncl[r, v])
        cncl[r, v] = 0
    scr[X_CN][r] = 0
    scr[X_GST][G_COUNCIL_CARDS] += n
    scr[X_SST][p, S_COUNCIL_CARDS] += n
    scr[X_SST][p, S_COUNCIL_VALUE] += val
    emit(scr, EV_COUNCIL, r, n, val, 0, 0, 0)


# ---- AB-L*: recruit a lord -----------------------------------------------------------------

@njit(cache=True)
def refill_court(scr, dat, p, before):
    """AB-L4 after the shift: if *this purchase* emptied slot ``court.refill_slot`` (the
    lords packed away from the deck leave it empty when at most slots - refill_slot remain,
    and it held a lord when the Court held ``before`` lords), the player gains
    ``court.refill_pearls`` and the Court is refilled; a deck too short to fill every empty
    slot places what it has and triggers the end (AB-G1). A purchase from a Court whose
    slot was already empty (after a refill the deck could not complete) pays nothing and
    refills nothing: the source checks "whether this purchase freed the fourth place"."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    slots = np.int64(rules[R_COURT_SLOTS])
    edge = slots - np.int64(rules[R_REFILL_SLOT])
    if ps[PS_COURT_N] > edge or before <= edge:
        return
    got = gain_pearls(scr, p, np.int64(rules[R_REFILL_PEARLS]))
    need = slots - ps[PS_COURT_N]
    failed = 1 if ps[PS_LDECK_N] < need else 0
    placed = 0
    while ps[PS_COURT_N] < slots and ps[PS_LDECK_N] > 0:
        ps[PS_LDECK_N] -= 1
        scr[X_COURT][ps[PS_COURT_N]] = scr[X_LDECK][ps[PS_LDECK_N]]
        scr[X_LDECK][ps[PS_LDECK_N]] = -1
        ps[PS_COURT_N] += 1
        placed += 1
    g = scr[X_GST]
    g[G_REFILLS] += 1
    if got > 0:
        g[G_REFILL_BONUSES] += 1
    scr[X_SST][p, S_REFILL_PEARLS] += got
    if failed:
        g[G_REFILL_FAILED] += 1
        ps[PS_REFILL_FAILED] = 1
    emit(scr, EV_COURT, got, placed, failed, ps[PS_LDECK_N], ps[PS_COURT_N], 0)


@njit(cache=True)
def recruit(scr, dat, p, i, pay, off):
    """AB-L1..L5: player ``p`` buys the lord in Court position ``i`` with the payment
    ``pay[off:]`` (N_RACES x NV counts).

    Order (AMB-A17, the source's): pay (the shortfall in pearls to the bank, AB-L2), shift
    the Court (AB-L4), slot-4 bonus and refill, the lord's effect (AB-L5: none, the deck has
    no abilities), then affiliate the lowest paid card (AB-L3) and discard the rest.
    Raises ValueError on an illegal payment (a bot bug).
    """
    ps = scr[X_PS]
    pl = scr[X_PL]
    lords = dat[D_LORDS]
    lid = scr[X_COURT][i]
    short = bots.payment_ok(scr[X_HAND][p], pay, off, pl[p, PL_PEARLS], lords, lid)
    if short < 0:
        raise ValueError("illegal lord payment")
    # AB-L2 the payment: cards from the hand, the shortfall in pearls to the bank
    s = 0
    nc = 0
    for r in range(N_RACES):
        for v in range(1, NV):
            c = pay[off + r * NV + v]
            if c > 0:
                hand_add(scr, p, r, v, -c)
                s += c * v
                nc += c
    if short > 0:
        pay_bank(scr, p, short)
        scr[X_GST][G_TOPUPS] += 1
    emit(scr, EV_RECRUIT, lid, i + 1, s, nc, short, pl[p, PL_PEARLS])
    for r in range(N_RACES):
        for v in range(1, NV):
            if pay[off + r * NV + v] > 0:
                emit(scr, EV_PAY, r, v, pay[off + r * NV + v], 0, 0, 0)
    # the lord joins the player's lords (public, uncovered)
    k = pl[p, PL_LORDS]
    scr[X_PLORD][p, k] = lid
    scr[X_PCOV][p, k] = 0
    pl[p, PL_LORDS] = k + 1
    pl[p, PL_KEYS] += lords[lid, LC_KEYS]
    pl[p, PL_LORD_VP] += lords[lid, LC_VP]
    # AB-L4 shift the Court's other lords together (order kept) ...
    court = scr[X_COURT]
    before = ps[PS_COURT_N]
    for j in range(i, ps[PS_COURT_N] - 1):
        court[j] = court[j + 1]
    ps[PS_COURT_N] -= 1
    court[ps[PS_COURT_N]] = -1
    # ... slot-4 bonus and refill, when this purchase emptied slot 4
    refill_court(scr, dat, p, before)
    # AB-L5 the lord's effect: the vanilla deck has none (skipped rule; docs/RULES.md)
    # AB-L3 keep the lowest paid card (a tie: the player picks the race), discard the rest
    low, mask = bots.lowest_paid(pay, off)
    if mask & (mask - 1):
        rk = bots.choose_affiliation(view(scr), scr[X_HAND][p], dat, knobs_of(scr, dat, p),
                                     bot_rng(scr), p, mask, low)
        if rk < 0 or rk >= N_RACES or not (mask >> rk) & 1:
            raise ValueError("affiliation: the race chosen is not among the tied ones")
    else:
        rk = 0
        while not (mask >> rk) & 1:
            rk += 1
    scr[X_AFF][p, rk, low] += 1
    emit(scr, EV_AFFILIATE, rk, low, mask, 0, 0, 0)
    for r in range(N_RACES):
        for v in range(1, NV):
            c = pay[off + r * NV + v] - (1 if (r == rk and v == low) else 0)
            for _ in range(c):
                discard(scr, ally_code(r, v))
    g = scr[X_GST]
    st = scr[X_SST]
    g[G_RECRUITS] += 1
    st[p, S_RECRUITS] += 1
    st[p, S_CARDS_SPENT] += nc
    st[p, S_VALUE_SPENT] += s
    st[p, S_TOPUP_PEARLS] += short
    if lords[lid, LC_KEYS] > 0:
        st[p, S_LORDS_KEYED] += 1


# ---- AB-K*: locations -----------------------------------------------------------------------

@njit(cache=True)
def pay_keys(scr, dat, p):
    """AB-K3 / AMB-A10: spend ``keys.per_location`` keys: Key tokens and uncovered keyed
    lords in the order of ``keys.spend_policy`` (lords in the order bought; with no lord
    abilities no lord is worth keeping uncovered). Each lord used is covered: it keeps its
    VP and still counts as owned. Returns (tokens used, lords covered)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    lords = dat[D_LORDS]
    need = np.int64(rules[R_KEYS_PER_LOC])
    tokens_first = rules[R_SPEND_POLICY] < 0.5
    used_t = 0
    covered = 0
    for phase in range(2):
        if need <= 0:
            break
        if (phase == 0) == tokens_first:
            t = min(need, pl[p, PL_KEYTOK])
            pl[p, PL_KEYTOK] -= t
            ps[PS_KEY_SUPPLY] += t                 # used Key tokens back to the supply
            need -= t
            used_t += t
        else:
            for j in range(pl[p, PL_LORDS]):
                if need <= 0:
                    break
                lid = scr[X_PLORD][p, j]
                if scr[X_PCOV][p, j] == 0 and lords[lid, LC_KEYS] > 0:
                    scr[X_PCOV][p, j] = 1
                    pl[p, PL_KEYS] -= lords[lid, LC_KEYS]
                    need -= lords[lid, LC_KEYS]
                    covered += 1
                    emit(scr, EV_COVER, lid, 0, 0, 0, 0, 0)
    scr[X_SST][p, S_KEY_TOKENS_USED] += used_t
    scr[X_SST][p, S_LORDS_COVERED] += covered
    emit(scr, EV_KEYS_PAID, used_t, covered, keys_of(scr, p), ps[PS_KEY_SUPPLY], 0, 0)
    return used_t, covered


@njit(cache=True)
def locations(scr, dat, p):
    """AB-K1..K3 at the end of the turn: while the player holds ``keys.per_location`` keys
    it must take a location (repeatedly if ``keys.multi_location``, AMB-A10): a face-up tile,
    or n (1..max_draw) tiles from the stack, keep one, the rest face up (AB-K2). With no tile
    left the keys stay unused (AMB-A11)."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    locs = dat[D_LOCS]
    per = np.int64(rules[R_KEYS_PER_LOC])
    kn = knobs_of(scr, dat, p)
    wi = scr[X_WI]
    while keys_of(scr, p) >= per:
        if ps[PS_LVIS_N] + ps[PS_LSTACK_N] == 0:
            break                                              # AMB-A11
        c = bots.choose_location(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p)
        if c >= 0:
            tile = scr[X_LVIS][c]
            for j in range(c, ps[PS_LVIS_N] - 1):
                scr[X_LVIS][j] = scr[X_LVIS][j + 1]
            ps[PS_LVIS_N] -= 1
            scr[X_LVIS][ps[PS_LVIS_N]] = -1
            way = 0
            scr[X_GST][G_LOC_FACE_UP] += 1
            scr[X_GST][G_LOC_VP_FACE_UP] += locs[tile]
            scr[X_SST][p, S_LOC_FACE_UP] += 1
        else:
            n = min(-c, ps[PS_LSTACK_N])
            off = WI_DRAWN
            for j in range(n):                                 # drawn: seen by p only
                ps[PS_LSTACK_N] -= 1
                wi[off + j] = scr[X_LSTACK][ps[PS_LSTACK_N]]
                scr[X_LSTACK][ps[PS_LSTACK_N]] = -1
            k = bots.choose_keep(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p, wi,
                                 off, n)
            tile = wi[off + k]
            for j in range(n):                                 # the rest face up
                if j != k:
                    scr[X_LVIS][ps[PS_LVIS_N]] = wi[off + j]
                    ps[PS_LVIS_N] += 1
            way = n
            scr[X_GST][G_LOC_DRAWN] += 1
            scr[X_GST][G_LOC_DRAW0 + min(n, 4) - 1] += 1
            scr[X_GST][G_LOC_VP_DRAW0 + min(n, 4) - 1] += locs[tile]
            scr[X_SST][p, S_LOC_DRAWN] += 1
        scr[X_PLOC][p, pl[p, PL_LOCS]] = tile
        pl[p, PL_LOCS] += 1
        pl[p, PL_LOC_VP] += locs[tile]
        emit(scr, EV_LOCATION, way, tile, locs[tile], ps[PS_LVIS_N], ps[PS_LSTACK_N], 0)
        pay_keys(scr, dat, p)
        scr[X_GST][G_LOCATIONS] += 1
        scr[X_SST][p, S_LOCATIONS] += 1
        if rules[R_MULTI_LOC] < 0.5:
            break


@njit(cache=True)
def hand_limit(scr, dat, p):
    """AMB-A14: with ``hand_limit`` > 0, discard down to it at the end of the turn, lowest
    values first (G-A5)."""
    limit = np.int64(dat[D_RULES][R_HAND_LIMIT])
    if limit <= 0:
        return
    hand = scr[X_HAND]
    n = 0
    while scr[X_PH][p, PH_HAND_N] > limit:
        for v in range(1, NV):
            done = False
            for r in range(N_RACES):
                if hand[p, r, v] > 0:
                    hand_add(scr, p, r, v, -1)
                    discard(scr, ally_code(r, v))
                    n += 1
                    done = True
                    break
            if done:
                break
    if n > 0:
        emit(scr, EV_HAND_LIMIT, n, 0, 0, 0, 0, 0)


# ---- the turn -------------------------------------------------------------------------------

# play_turn and run_turns are inlined in numba IR into play_game (each is called from one
# place): as functions of their own, each linked every callee's module and ran LLVM over
# the whole game again, 3-4 s of CPU each in a cold compile (docs/performance.md)
@njit(cache=True, inline="always")
def play_turn(scr, dat, p):
    """One turn of player ``p`` (AB-T0..T3): optional plots, one main action, clean-up of
    the row, the hand limit, the location check."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    ps[PS_ACTIVE] = p
    ps[PS_BOUGHT_N] = 0
    ps[PS_ROW_POS] = 0
    for q in range(ps[PS_PLAYERS]):
        pl[q, PL_BOUGHT] = 0
    emit(scr, EV_TURN, p, pl[p, PL_PEARLS], scr[X_PH][p, PH_HAND_N], pl[p, PL_LORDS],
         keys_of(scr, p), ps[PS_THREAT] + 1)
    timing = np.int64(rules[R_PLOT_TIMING])
    if timing == PLOT_PRE_ACTION:
        plots(scr, dat, p)
    kn = knobs_of(scr, dat, p)
    a = bots.choose_action(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p)
    st = scr[X_SST]
    g = scr[X_GST]
    if a == A_EXPLORE:
        g[G_EXPLORES] += 1
        st[p, S_EXPLORES] += 1
        explore(scr, dat, p)
    elif a == A_COUNCIL:
        r = bots.choose_council(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p)
        g[G_COUNCILS] += 1
        st[p, S_COUNCILS] += 1
        council(scr, dat, p, r)
    elif a == A_RECRUIT:
        i = scr[X_WI][WI_CHOICE]            # the bot's choice when it made one
        if timing == PLOT_WITH_RECRUIT and plots(scr, dat, p) > 0:
            i = -1                          # the Court changed: choose again
        if i < 0:
            i, _ = bots.choose_recruit(view(scr), scr[X_HAND][p], dat, kn, bot_rng(scr), p)
        if i < 0:
            raise ValueError("recruit chosen with no payable lord")
        recruit(scr, dat, p, i, scr[X_WI], WI_BEST)
    else:
        g[G_PASSES] += 1
        st[p, S_PASSES] += 1
        emit(scr, EV_PASS, 0, 0, 0, 0, 0, 0)                 # G-A4: nothing is legal
    cleanup_row(scr)                                          # AB-T2 / AB-E9
    hand_limit(scr, dat, p)
    locations(scr, dat, p)                                    # AB-T3 / AB-K1


@njit(cache=True)
def end_trigger(scr, dat):
    """AB-G1, checked after each turn: a player owns ``end.lords_to_end`` lords (covered
    ones count), or a Court refill this turn could not be completed. Returns 0 or 1 + the
    END_* cause."""
    ps = scr[X_PS]
    pl = scr[X_PL]
    court = ps[PS_REFILL_FAILED] > 0
    lords = False
    need = np.int64(dat[D_RULES][R_LORDS_TO_END])
    for q in range(ps[PS_PLAYERS]):
        if pl[q, PL_LORDS] >= need:
            lords = True
    if lords and court:
        return 1 + END_BOTH
    if lords:
        return 1 + END_LORDS
    if court:
        return 1 + END_COURT
    return 0


@njit(cache=True, inline="always")
def run_turns(scr, dat):
    """Turns clockwise from seat 0 (AB-S5; AMB-A18: seat 0 always starts, the scenario
    rotates who sits there) until an end trigger (AB-G1, checked after each turn: AB-T4)
    and the final turns of every other player (AB-G2), or the safety cap
    ``end.max_turns`` (G-A9)."""
    ps = scr[X_PS]
    pl = scr[X_PL]
    n = ps[PS_PLAYERS]
    cap = np.int64(dat[D_RULES][R_MAX_TURNS])
    p = np.int64(0)
    remaining = np.int64(0)
    turns = np.int64(0)
    while True:
        turns += 1
        ps[PS_TURN] = turns
        ps[PS_REFILL_FAILED] = 0
        play_turn(scr, dat, p)
        scr[X_SST][p, S_TURNS] += 1
        if ps[PS_FINAL] == 0:
            t = end_trigger(scr, dat)
            if t > 0:
                ps[PS_END_TRIG] = t
                ps[PS_TRIGGER_SEAT] = p
                ps[PS_FINAL] = 1
                pl[p, PL_DONE] = 1
                remaining = n - 1
                scr[X_SST][p, S_TRIGGERED] = 1
                emit(scr, EV_TRIGGER, t - 1, p, pl[p, PL_LORDS], ps[PS_LDECK_N], 0, 0)
        else:
            pl[p, PL_DONE] = 1
            remaining -= 1
        if p == n - 1:
            ps[PS_ROUND] += 1
            for k in range(len(PEARL_ROUNDS)):
                if ps[PS_ROUND] == PEARL_ROUNDS[k]:
                    tot = 0
                    for q in range(n):
                        tot += pl[q, PL_PEARLS]
                    scr[X_GST][G_PEARLS_R0 + k] = tot
        if ps[PS_FINAL] > 0 and remaining == 0:
            break
        if turns >= cap:
            ps[PS_END_TRIG] = 1 + END_CAP
            ps[PS_TRIGGER_SEAT] = -1
            scr[X_GST][G_TRUNCATED] = 1
            break
        p = (p + 1) % n
    ps[PS_OVER] = 1
    return turns


# ---- the end: final affiliation, scoring, tie-breaks (AB-G3..G5) -----------------------------

@njit(cache=True)
def better(a, b, score, pearls, keys, n_keys):
    """Compare players a and b by AB-G5: score, then pearls, then their lords' cost values
    (or VP, AMB-A15) from the highest down. ``keys[q, :n_keys[q]]`` is sorted descending.
    Returns (sign, stage): sign 1 if a ranks above b, -1 below, 0 level; stage 0 score,
    1 pearls, 2 lords, 3 level throughout."""
    if score[a] != score[b]:
        return (1 if score[a] > score[b] else -1), 0
    if pearls[a] != pearls[b]:
        return (1 if pearls[a] > pearls[b] else -1), 1
    m = max(n_keys[a], n_keys[b])
    for j in range(m):
        x = keys[a, j] if j < n_keys[a] else -1      # no lord ranks below any lord
        y = keys[b, j] if j < n_keys[b] else -1
        if x != y:
            return (1 if x > y else -1), 2
    return 0, 3


@njit(cache=True)
def rank(n, score, pearls, keys, n_keys, place):
    """Places (1 = first; level players share a place) into ``place``; returns (winners as a
    bit mask, number of winners, the tie-break stage that decided the win: TB_*)."""
    mask = 0
    for a in range(n):
        above = 0
        for b in range(n):
            if b != a:
                s, _ = better(b, a, score, pearls, keys, n_keys)
                if s > 0:
                    above += 1
        place[a] = above + 1
        if above == 0:
            mask |= 1 << a
    nw = 0
    for a in range(n):
        if (mask >> a) & 1:
            nw += 1
    # the stage that separates the winners from the best of the rest
    stage = 0
    if nw > 1:
        stage = TB_SHARED
    else:
        w = 0
        while not (mask >> w) & 1:
            w += 1
        stage = TB_SCORE
        for b in range(n):
            if b != w:
                _, st = better(w, b, score, pearls, keys, n_keys)
                stage = max(stage, st)      # TB_SCORE 0 < TB_PEARLS 1 < TB_LORDS 2
    return mask, nw, stage


@njit(cache=True)
def final_scoring(scr, dat, row, gi, gf, si, sf):
    """AB-G3 final affiliation, AB-G4 scores, AB-G5 tie-breaks; fills output row ``row``."""
    rules = dat[D_RULES]
    ps = scr[X_PS]
    pl = scr[X_PL]
    n = ps[PS_PLAYERS]
    lords = dat[D_LORDS]
    aff = scr[X_AFF]
    hand = scr[X_HAND]
    highest = rules[R_FINAL_AFF] > 0.5
    score = np.zeros(MAX_P, np.int64)
    other = np.zeros(MAX_P, np.int64)
    pearls = np.zeros(MAX_P, np.int64)
    keys = np.zeros((MAX_P, MAX_OWN), np.int64)
    n_keys = np.zeros(MAX_P, np.int64)
    place = np.zeros(MAX_P, np.int64)
    st = scr[X_SST]
    vp_metric = rules[R_TIEBREAK] > 0.5
    for q in range(n):
        before = 0
        for r in range(N_RACES):
            before += bots.aff_max(aff[q], r)
        ally = 0
        ally_other = 0
        for r in range(N_RACES):
            lo, hi = 0, 0
            for v in range(1, NV):
                if hand[q, r, v] > 0:
                    if lo == 0:
                        lo = v
                    hi = v
            best = bots.aff_max(aff[q], r)
            if lo > 0:
                # AB-G3 / AMB-A3: one hand card per race joins the affiliated allies
                take = hi if highest else lo
                keep_other = lo if highest else hi
                aff[q, r, take] += 1
                hand[q, r, take] -= 1
                scr[X_PH][q, PH_HAND_N] -= 1
                emit(scr, EV_FINAL_AFF, q, r, take, 0, 0, 0)
                ally += max(best, take)
                ally_other += max(best, keep_other)
            else:
                ally += best
                ally_other += best
        mvp = scr[X_PH][q, PH_MVP]
        base = pl[q, PL_LORD_VP] + pl[q, PL_LOC_VP] + mvp
        score[q] = base + ally                                       # AB-G4
        other[q] = base + ally_other
        pearls[q] = pl[q, PL_PEARLS]
        # AB-G5 / AMB-A15: lords by cost value (or VP), highest first
        k = pl[q, PL_LORDS]
        for j in range(k):
            lid = scr[X_PLORD][q, j]
            x = lords[lid, LC_VP] if vp_metric else lords[lid, LC_COST]
            t = j
            while t > 0 and keys[q, t - 1] < x:
                keys[q, t] = keys[q, t - 1]
                t -= 1
            keys[q, t] = x
        n_keys[q] = k
        st[q, S_SCORE] = score[q]
        st[q, S_LORD_VP] = pl[q, PL_LORD_VP]
        st[q, S_LOC_VP] = pl[q, PL_LOC_VP]
        st[q, S_ALLY_VP] = ally
        st[q, S_ALLY_VP_OTHER] = ally_other
        st[q, S_MONSTER_VP] = mvp
        st[q, S_FINAL_AFF_GAIN] = ally - before
        emit(scr, EV_SCORE, q, score[q], pl[q, PL_LORD_VP], pl[q, PL_LOC_VP], ally,
             mvp * 1000 + pearls[q])
    mask, nw, stage = rank(n, score, pearls, keys, n_keys, place)
    place2 = np.zeros(MAX_P, np.int64)
    mask2, _, _ = rank(n, other, pearls, keys, n_keys, place2)
    g = scr[X_GST]
    if g[G_TRUNCATED] == 1:
        # the safety cap stopped the game (G-A9; not a rule): unresolved, nobody wins (the
        # scores and places at the cap are kept for the record)
        mask = 0
        mask2 = 0
        nw = 0
        stage = TB_OPEN
    # outputs
    for k in range(N_GAME_INT):
        gi[row, k] = g[k]
    turns = ps[PS_TURN]
    gi[row, G_PLAYERS] = n
    gi[row, G_TURNS] = turns
    gi[row, G_ROUNDS] = (turns + n - 1) // n
    gi[row, G_N_WINNERS] = nw
    w = -1
    if nw == 1:
        w = 0
        while not (mask >> w) & 1:
            w += 1
    gi[row, G_WINNER_SEAT] = w
    trig = ps[PS_END_TRIG]
    gi[row, G_END_CAUSE] = trig - 1 if trig > 0 else END_CAP
    gi[row, G_TRIGGER_SEAT] = ps[PS_TRIGGER_SEAT]
    gi[row, G_TIEBREAK] = stage
    gi[row, G_LORD_DECK_LEFT] = ps[PS_LDECK_N]
    gi[row, G_WINNER_DIFFERS] = 1 if mask2 != mask else 0
    top = -1
    second = -1
    total = 0
    for q in range(n):
        total += score[q]
        if (mask >> q) & 1:
            top = max(top, score[q])
        else:
            second = max(second, score[q])
    margin = float(top - second) if second >= 0 and top >= 0 else 0.0
    gf[row, GF_MARGIN] = margin
    gf[row, GF_MARGIN_REL] = margin / top if top > 0 else 0.0
    gf[row, GF_MEAN_SCORE] = total / n
    for q in range(MAX_P):
        for k in range(N_SEAT_INT):
            si[row, q, k] = st[q, k] if q < n else 0
        for k in range(N_SEAT_FLT):
            sf[row, q, k] = 0.0
        if q >= n:
            si[row, q, S_BOT] = -1
            continue
        si[row, q, S_BOT] = scr[X_PH][q, PH_BOT]
        si[row, q, S_PLACE] = place[q]
        si[row, q, S_PEARLS] = pl[q, PL_PEARLS]
        si[row, q, S_LORDS] = pl[q, PL_LORDS]
        si[row, q, S_HAND_LEFT] = scr[X_PH][q, PH_HAND_N]
        si[row, q, S_MONSTER_TOKENS] = pl[q, PL_MTOK]
        sf[row, q, SF_WIN] = (1.0 / nw) if (mask >> q) & 1 else 0.0
    emit(scr, EV_END, mask, stage, gi[row, G_END_CAUSE], ps[PS_TRIGGER_SEAT], nw,
         1 if mask2 != mask else 0)


# ---- games ------------------------------------------------------------------------------------

@njit(cache=True)
def play_game(seed, game, row, scr, dat, gi, gf, si, sf, trace):
    """Play game number ``game`` of the run ``seed`` into output row ``row``.

    The game depends only on (seed, game): its stream key is ``game_key(seed, game)``.
    """
    reset(scr)
    scr[X_E][E_TRACE] = trace
    scr[X_KEY][0] = game_key(seed, game)
    setup(scr, dat, game)
    run_turns(scr, dat)
    final_scoring(scr, dat, row, gi, gf, si, sf)


BLOCK = 64  # games per work block: scratch arrays are allocated once per block


def play_games(seed, start, count, *args):
    """Play games ``start .. start+count-1`` of run ``seed`` (:func:`play_listed`)."""
    return play_listed(np.int64(seed),
                       np.arange(int(start), int(start) + int(count), dtype=np.int64), *args)


@njit(cache=True, parallel=True)
def play_listed(seed, games, rules, depth, lords, locs, threat, tokens, knobs, seat_bot,
                bot_pool, player_opts, fmix):
    """Play the games of index ``games`` (int64[count]) of run ``seed`` in parallel.

    Returns
    -------
    gi : int64[count, N_GAME_INT]
    gf : float64[count, N_GAME_FLT]
    si : int64[count, MAX_P, N_SEAT_INT]
    sf : float64[count, MAX_P, N_SEAT_FLT]
        Row r is game ``games[r]``; seat 0 played first; seats >= players are zero with
        ``bot`` -1.
    """
    count = games.shape[0]
    gi = np.zeros((count, N_GAME_INT), np.int64)
    gf = np.zeros((count, N_GAME_FLT), np.float64)
    si = np.zeros((count, MAX_P, N_SEAT_INT), np.int64)
    sf = np.zeros((count, MAX_P, N_SEAT_FLT), np.float64)
    dat = (rules, depth, lords, locs, threat, tokens, knobs, seat_bot, bot_pool, player_opts,
           fmix)
    nblocks = (count + BLOCK - 1) // BLOCK
    for b in prange(nblocks):
        scr = new_scratch(1)
        lo = b * BLOCK
        hi = min(lo + BLOCK, count)
        for r in range(lo, hi):
            play_game(seed, games[r], r, scr, dat, gi, gf, si, sf, 0)
    return gi, gf, si, sf


@njit(cache=True)
def trace_game(seed, game, max_events, rules, depth, lords, locs, threat, tokens, knobs,
               seat_bot, bot_pool, player_opts, fmix):
    """Play one game with the event buffer on: the same code path as :func:`play_games`.

    Returns (gi, gf, si, sf, events[:k]) for that single game (row 0); events are
    int64[k, EVENT_WIDTH] rows (turn, active player, kind, a..f; see trace.py).
    """
    gi = np.zeros((1, N_GAME_INT), np.int64)
    gf = np.zeros((1, N_GAME_FLT), np.float64)
    si = np.zeros((1, MAX_P, N_SEAT_INT), np.int64)
    sf = np.zeros((1, MAX_P, N_SEAT_FLT), np.float64)
    dat = (rules, depth, lords, locs, threat, tokens, knobs, seat_bot, bot_pool, player_opts,
           fmix)
    scr = new_scratch(max_events)
    play_game(seed, game, 0, scr, dat, gi, gf, si, sf, 1)
    k = scr[X_E][E_EVN]
    return gi, gf, si, sf, scr[X_EV][:k].copy()
