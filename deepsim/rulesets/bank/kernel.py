"""Bank's kernel: the co-operative dice game of ``rules.md`` played by numba, one game per
call of :func:`play_game`.

Every rule carries the section of ``rules.md`` it implements (B1-B7); every number of the
rules comes from the data file (``ruleset.yaml``) through the input arrays, never from a
constant here. Random numbers are counter-based (:mod:`deepsim.rng`): a game's dice, deal
and bot coins are pure functions of (seed, game index). Three streams per game, so a bot's
decisions never shift the dice (common random numbers between bot variants):

- the game key, draws ``0 .. 2 * MAX_P``: the player count, then each ``any`` seat's class
  and bot;
- the game key, draws from ``DICE_CTR`` on: the die rolls, in order;
- the bot key (the game key mixed with a salt): one uniform per hold decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from deepsim.factionmix import faction_bot
from deepsim.rng import below, game_key, mix64, uniform

#: widest party, most die faces, most classes (schema.py's bounds)
MAX_P = 4
MAX_FACES = 20
MAX_CLASSES = 8

# the rules array (ruleset.py fills it from ruleset.yaml)
R_FACES, R_BUST, R_LIMIT, R_GOAL, R_ROUNDS = 0, 1, 2, 3, 4
N_RULES = 5
# the class table's columns (classes.<name>: B7)
C_REROLLS, C_SHIELDS = 0, 1
N_POWERS = 2

# the knob table's columns (bots.yaml: every knob, in this order)
KNOBS = ("random", "hold_p", "hold_at", "hold_near")
K_RANDOM, K_HOLD_P, K_HOLD_AT, K_HOLD_NEAR = 0, 1, 2, 3

# outcome codes, in the order of the ruleset's declared outcomes (ruleset.OUTCOMES)
O_BANKED, O_CLOCK, O_TIME = 0, 1, 2

# games table (int64 columns)
GAME_INT = ("players", "rounds", "turns", "truncated", "outcome", "pool", "clock")
G_PLAYERS, G_ROUNDS, G_TURNS, G_TRUNC, G_OUTCOME, G_POOL, G_CLOCK = 0, 1, 2, 3, 4, 5, 6
GAME_FLT = ()
# seats table (int64 columns, then the float64 ones)
SEAT_INT = ("bot", "class", "banked", "turns", "rolls", "busts", "ticks", "rerolls",
            "shields")
S_BOT, S_CLASS, S_BANKED, S_TURNS, S_ROLLS, S_BUSTS, S_TICKS, S_REROLLS, S_SHIELDS = range(9)
SEAT_FLT = ("win",)
SF_WIN = 0

# trace events: (round, seat, code, a, b)
EV_SEAT, EV_ROLL, EV_TICK, EV_SHIELD, EV_BUST, EV_REROLL, EV_HOLD, EV_END = range(8)
EV_COLS = 5

DICE_CTR = np.uint64(64)
_BOT_SALT = np.uint64(0x243F6A8885A308D3)   # pi's fractional bits


@njit(cache=True)
def holds(kn, pool, turn, goal, clock, limit, u):
    """The bot's decision after a roll that did not bust: True = hold (bank the turn total).

    ``kn``: float64[len(KNOBS)], the seat's bot profile; ``pool``: the party's banked
    points; ``turn``: the turn total; ``clock``: the clock's step; ``u``: a uniform in
    [0, 1) of the bot stream (the random bot's coin). Every bot banks a win (B5).
    """
    if pool + turn >= goal:
        return True
    if kn[K_RANDOM] > 0.5:
        return u < kn[K_HOLD_P]
    if kn[K_HOLD_NEAR] > 0 and limit - clock <= kn[K_HOLD_NEAR]:
        return True
    return turn >= kn[K_HOLD_AT]


@njit(cache=True)
def _event(ev, nev, trace, rnd, seat, code, a, b):
    if trace and nev < ev.shape[0]:
        ev[nev, 0] = rnd
        ev[nev, 1] = seat
        ev[nev, 2] = code
        ev[nev, 3] = a
        ev[nev, 4] = b
        return nev + 1
    return nev


@njit(cache=True)
def play_game(seed, game, rules, clock_face, powers, knobs, player_opts, seat_class,
              class_pool, seat_bot, bot_pool, rotate, fmix, gi, si, sf, ev, trace):
    """Play game ``game`` of run ``seed``; write its row into ``gi`` (int64[len(GAME_INT)]),
    ``si`` (int64[MAX_P, len(SEAT_INT)]) and ``sf`` (float64[MAX_P, len(SEAT_FLT)]).

    ``clock_face``: int64[MAX_FACES + 1], 1 for a clock face (B3); ``powers``:
    int64[classes, N_POWERS] (B7); ``seat_class`` / ``seat_bot``: int64[MAX_P], a seat
    spec's class / bot profile row (-1: drawn from ``class_pool`` / ``bot_pool``); ``fmix``:
    the ``faction_bots`` mixtures per class (:mod:`deepsim.factionmix`; empty: none).
    With ``trace`` it records events into ``ev`` (int64[m, EV_COLS]) and returns how many
    it wrote; the batch passes an empty ``ev``: the same code path either way.
    """
    key = game_key(seed, game)
    bkey = mix64(key ^ _BOT_SALT)
    n = player_opts[below(key, np.uint64(0), player_opts.shape[0])]           # B1
    cls = np.empty(n, np.int64)
    bots = np.empty(n, np.int64)
    for s in range(n):
        spec = (s + game) % n if rotate else s
        c = seat_class[spec]
        if c < 0:
            c = class_pool[below(key, np.uint64(1 + 2 * s), class_pool.shape[0])]
        b = seat_bot[spec]
        if b < 0:
            b = bot_pool[below(key, np.uint64(2 + 2 * s), bot_pool.shape[0])]
        cls[s] = c
        bots[s] = faction_bot(fmix, c, b, key)   # a class with bots of its own (faction_bots)
    faces = rules[R_FACES]
    bust = rules[R_BUST]
    limit = rules[R_LIMIT]
    goal = rules[R_GOAL]
    max_rounds = rules[R_ROUNDS]
    si[:, :] = 0
    sf[:, :] = 0.0
    nev = 0
    for s in range(n):
        nev = _event(ev, nev, trace, 0, s, EV_SEAT, bots[s], cls[s])
    dctr = DICE_CTR
    bctr = np.uint64(0)
    pool = 0
    clock = 0
    rnd = 0
    turns = 0
    outcome = O_TIME
    done = False
    while not done and rnd < max_rounds:                 # B6: goal.rounds rounds
        rnd += 1
        for s in range(n):                               # B1: seats in order, seat 1 first
            turns += 1
            si[s, S_TURNS] += 1
            kn = knobs[bots[s]]
            rerolls = powers[cls[s], C_REROLLS]
            shields = powers[cls[s], C_SHIELDS]
            turn = 0
            while True:
                face = 1 + below(key, dctr, faces)       # B2: roll the die
                dctr += np.uint64(1)
                si[s, S_ROLLS] += 1
                nev = _event(ev, nev, trace, rnd, s, EV_ROLL, face, turn)
                if clock_face[face] != 0:                # B3: a clock face
                    if shields > 0:                      # B7: a shield stops the step
                        shields -= 1
                        si[s, S_SHIELDS] += 1
                        nev = _event(ev, nev, trace, rnd, s, EV_SHIELD, face, clock)
                    else:
                        clock += 1
                        si[s, S_TICKS] += 1
                        nev = _event(ev, nev, trace, rnd, s, EV_TICK, clock, limit)
                        if clock >= limit:               # B3: the party loses at once
                            outcome = O_CLOCK
                            done = True
                            break
                if face == bust:                         # B4: bust
                    if rerolls > 0:                      # B7: roll it again
                        rerolls -= 1
                        si[s, S_REROLLS] += 1
                        nev = _event(ev, nev, trace, rnd, s, EV_REROLL, face, turn)
                        continue
                    si[s, S_BUSTS] += 1
                    nev = _event(ev, nev, trace, rnd, s, EV_BUST, face, turn)
                    break                                # B4: the turn total is lost
                turn += face                             # B5: the face adds to the turn
                u = uniform(bkey, bctr)
                bctr += np.uint64(1)
                if holds(kn, pool, turn, goal, clock, limit, u):   # B5: roll on or hold
                    pool += turn
                    si[s, S_BANKED] += turn
                    nev = _event(ev, nev, trace, rnd, s, EV_HOLD, turn, pool)
                    if pool >= goal:                     # B5: the party wins at once
                        outcome = O_BANKED
                        done = True
                    break
            if done:
                break
    for s in range(n):
        si[s, S_BOT] = bots[s]
        si[s, S_CLASS] = cls[s]
        sf[s, SF_WIN] = 1.0 if outcome == O_BANKED else 0.0
    gi[G_PLAYERS] = n
    gi[G_ROUNDS] = rnd
    gi[G_TURNS] = turns
    gi[G_TRUNC] = 0                                      # no safety cap: B6 ends every game
    gi[G_OUTCOME] = outcome
    gi[G_POOL] = pool
    gi[G_CLOCK] = clock
    nev = _event(ev, nev, trace, rnd, -1, EV_END, outcome, pool)
    return nev


@njit(cache=True, parallel=True)
def play_listed(seed, games, rules, clock_face, powers, knobs, player_opts, seat_class,
                class_pool, seat_bot, bot_pool, rotate, fmix):
    """Play the games of index ``games`` (int64[count]) of run ``seed``, in parallel.

    Returns (gi int64[count, len(GAME_INT)], gf float64[count, 0],
    si int64[count, MAX_P, len(SEAT_INT)], sf float64[count, MAX_P, len(SEAT_FLT)]): the
    four tables the kernel ruleset base reads; rows past a game's player count are zeros.
    """
    count = games.shape[0]
    gi = np.zeros((count, len(GAME_INT)), np.int64)
    gf = np.zeros((count, len(GAME_FLT)), np.float64)
    si = np.zeros((count, MAX_P, len(SEAT_INT)), np.int64)
    sf = np.zeros((count, MAX_P, len(SEAT_FLT)), np.float64)
    ev = np.zeros((0, EV_COLS), np.int64)
    for i in prange(count):
        play_game(seed, games[i], rules, clock_face, powers, knobs, player_opts, seat_class,
                  class_pool, seat_bot, bot_pool, rotate, fmix, gi[i], si[i], sf[i], ev,
                  False)
    return gi, gf, si, sf


def play_games(seed, start, count, *args):
    """Play games ``start .. start+count-1``: :func:`play_listed` of those indices."""
    return play_listed(seed, np.arange(start, start + count, dtype=np.int64), *args)


@njit(cache=True)
def trace_game(seed, game, max_events, rules, clock_face, powers, knobs, player_opts,
               seat_class, class_pool, seat_bot, bot_pool, rotate, fmix):
    """Replay game ``game`` with the event buffer on: the four tables of one game (as
    :func:`play_listed`) and its events int64[k, EV_COLS], k <= ``max_events``."""
    gi = np.zeros((1, len(GAME_INT)), np.int64)
    gf = np.zeros((1, len(GAME_FLT)), np.float64)
    si = np.zeros((1, MAX_P, len(SEAT_INT)), np.int64)
    sf = np.zeros((1, MAX_P, len(SEAT_FLT)), np.float64)
    ev = np.zeros((max_events, EV_COLS), np.int64)
    k = play_game(seed, game, rules, clock_face, powers, knobs, player_opts, seat_class,
                  class_pool, seat_bot, bot_pool, rotate, fmix, gi[0], si[0], sf[0], ev,
                  True)
    return gi, gf, si, sf, ev[:k]
