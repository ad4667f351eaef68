"""The DEEPFALL kernel's bundles and the small queries rules and bots both need.

Every kernel function takes its inputs in three named bundles; a field is read as
``st.sd``:

- ``st``, one game in progress: everything its future depends on (the dungeon, the seats,
  the table's Maw and Dread, the turn being played, the game's random stream) and what it
  has counted so far (its output row). It is one numpy record of :func:`state_dtype`
  (fields :data:`STATE_FIELDS`), which numba passes as one pointer: each field is an
  array at a fixed offset with a shape known when the kernel compiles, so an access
  costs no loads of array pointers, shapes or strides (docs/performance.md, "One record
  per state"). :func:`new_state` and :func:`new_quiet_state` make one, in Python only:
  a record does not keep its memory alive, so the kernel's entry points receive their
  states from their Python callers; each game resets it;
  :func:`copy_state` copies a game into a scratch state, from which ``kernel.play_rest``
  plays it on (a search bot's look-ahead). A state made by :func:`new_state` can be
  traced; one made by :func:`new_quiet_state` never is: its record type differs (its
  event buffer has no rows), for it :func:`traced` is the constant False and the trace
  hooks compile to nothing.
- :data:`Data` ``dat``: the ruleset's numbers (``dat.book``, one record of
  :data:`BOOK_FIELDS`, fixed shapes as the state's) and the scenario's seats and bots, as
  :mod:`deepsim.rulesets.deepfall.compile` builds them; read only.
- :data:`Tables` ``tab``: the output tables of a batch of games (one row per game).

The column constants (``SD_*``, ``GS_*`` here; rules, effects, knobs, outputs in
:mod:`deepsim.rulesets.deepfall.layout`) name the columns of these arrays. Floors are
0-based inside (index 0 = Floor 1).

Every function that only reads and writes these arrays (all of the rules and the bots)
is compiled with ``_nrt=False``: numba then emits no reference counting for its array
arguments. With it on, each call paid two atomic operations per array argument, and the
rules pass several arrays to small helpers in inner loops: switching it off measured
2.8x more games/s (docs/performance.md). Only the functions that allocate (the entry
points in kernel.py) keep numba's runtime. The small helpers
are also inlined in numba IR (``inline="always"``), a further 1.3x.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import config, njit
from numba.extending import overload

from deepsim.rng import below
from deepsim.rulesets.deepfall.layout import (
    E_FREE_LAST_STAND,
    E_MARKER_WEIGHT,
    EVENT_WIDTH,
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
    N_ROOM_COLUMNS,
    N_ROOMS,
    N_RULES,
    N_SEAT_FLT,
    N_SEAT_INT,
    N_SYMBOLS,
    R_DREAD_FULL_STEPS,
    R_FALLEN_STR,
    R_LS_COST,
    R_STEPS_PER_FLOOR,
    R_STEPS_PER_ROUND,
    R_WARDEN_FALLEN,
)

#: A batch's output tables: row r is one game (shapes in kernel.play_games).
Tables = namedtuple("Tables", ("gi", "gf", "si", "sf"))

# Per-seat crew state columns (st.sd, int64[MAX_SEATS, SD_N]). SD_MARKS is a bit set of
# the rooms where the seat's active crew has markers (bit fi * MAX_SLOTS + s set iff act_cnt
# > 0), kept in step with act_cnt so that scans for held rooms visit only those rooms.
(SD_FLOOR, SD_DEEPEST, SD_STAND, SD_PROG_SLOT, SD_PROG_FLOOR, SD_PROG_STEEL, SD_PROG_CUNNING,
 SD_LIN, SD_CAL, SD_BOT, SD_WARNED, SD_CREW_TURNS, SD_MARKS) = range(13)
SD_N = 13
FLOOR_BITS = (1 << MAX_SLOTS) - 1   # one floor's slots in SD_MARKS

# Game scalars (st.g, int64[G_N]).
(GS_N, GS_SLOTS, GS_DREAD_LEN, GS_DREAD, GS_STEPS, GS_COLLAPSED, GS_ROUND, GS_CTR, GS_EV,
 GS_TRACE, GS_BACKLOG, GS_DREAD_ADDED, GS_TURNS, GS_TURN_I, GS_SEARCH, GS_DECISIONS,
 GS_FLOOR_MASK, GS_EXIT_MASK, GS_ROOM_MASK, GS_PRESS_MASK, GS_PRESSES, GS_PRESS_TARGET,
 GS_PRESS_OVER, GS_CLAIMS_LEFT, GS_START_FLOOR, GS_RB_EPOCH, GS_SHORT_SET, GS_SHORT_NS,
 GS_SHORT_NC, GS_WARN_FLOOR, GS_ROLLOUT) = range(31)
G_N = 31
# GS_N: players; GS_SLOTS: rooms per floor; GS_CTR: random draws so far; GS_EV: events
# written; GS_DREAD_ADDED: Dread added to the track so far this game (Press Ons and
# uncanceled Dread, before any reset); GS_TURNS: player-turns played so far (the bots' Maw
# forecast reads the observed rate, dread_rate); GS_TURN_I: turns begun in the current
# round, -1 before the round begins (where kernel.play_rest resumes). Search bots
# (kernel.search_turn): GS_SEARCH 1 = seats with ``rollouts`` > 0 search (the game
# itself; 0 in a rollout, whose seats all play the heuristic); GS_DECISIONS: searched
# decisions so far (the rollouts' stream key); GS_FLOOR_MASK, GS_EXIT_MASK, GS_ROOM_MASK,
# GS_PRESS_MASK (in the order of the decision kinds, kernel.FLOOR_DECISION ..): bit set of
# the options the search found best for the next target floor (bit f = floor f), exit
# (bit 0 Stay, 1 Cash Out, 2 Last Stand), room on arrival (bit 0 no claim, bit s + 1 slot
# s) and Press On (bit 0 stop, 1 press), 0 = no search (the heuristic decides alone).
# Where a turn stands between two of its parts (kernel.turn_part), so that a copy of the
# state can be played on from there: GS_PRESSES Press Ons so far this turn, GS_PRESS_TARGET
# the floor the crew presses on for, GS_PRESS_OVER 1 once step 2 is over (§6A.2);
# GS_CLAIMS_LEFT claims the turn may still make (A22), GS_START_FLOOR the floor the turn's
# step 4 began on (A52). GS_RB_EPOCH: the epoch of the rival_best cache (st.rb), advanced
# at each turn's start and wherever another seat's markers may change under the cached
# values (taken, cash_out; do_claim clears its room's entry); 0 = cache off (a state a
# test builds by hand, before the game's first turn). GS_SHORT_SET 1 = GS_SHORT_NS and
# GS_SHORT_NC hold what the best room of the Press On target floor still needs (0, 0 when
# none is worth it; bots.press_on), computed once per step 2: nothing it reads changes
# while the crew presses on; step2_plan clears it. GS_WARN_FLOOR: the next floor to fall
# at the start of the round (B8 "one floor away"); a Taking on another floor that round
# was not warned of (kernel.collapse). SD_WARNED: 1 = the crew stood on that floor at the
# start of the round, 0 = it did not, 2 = a fresh crew mustered during the round.
# GS_ROLLOUT: 0 in a game; in a search bot's rollout (kernel.rollout_value) 1 = each
# random event's draws come from a stream of their own, keyed by (round, seat, event) under
# the rollout's key ``key[1]`` (kernel.event_stream), 2 = from one running stream per
# rollout.


#: The fields of one game in progress, in the order of its record (:func:`state_dtype`):
#: (name, dtype, shape), with F floors, S slots, P seats = N_FLOORS, MAX_SLOTS, MAX_SEATS.
STATE_FIELDS = (
    # -- the dungeon (§3.1)
    ("theme", np.int64, (N_FLOORS, MAX_SLOTS)),     # room theme of each slot (schema.ROOMS)
    ("plunder", np.int64, (N_FLOORS, MAX_SLOTS)),   # value risen from the floor below (§6B.2)
    ("gone", np.int64, (N_FLOORS, MAX_SLOTS)),      # 1 = collapsed, consumed or not in play
    ("act_str", np.float64, (N_FLOORS, MAX_SLOTS, MAX_SEATS)),  # strength of active markers
    ("act_cnt", np.int64, (N_FLOORS, MAX_SLOTS, MAX_SEATS)),    # active markers of each seat
    ("fallen", np.int64, (N_FLOORS, MAX_SLOTS, MAX_SEATS)),     # Fallen markers (§7.3)
    # -- the seats (one row per seat)
    ("sd", np.int64, (MAX_SEATS, SD_N)),            # crew state (SD_* columns)
    ("bag", np.int64, (MAX_SEATS, N_DICE)),         # dice in the bag, per die type
    ("drawn", np.int64, (MAX_SEATS, N_DICE)),       # dice drawn this turn
    ("disc", np.int64, (MAX_SEATS, N_DICE)),        # discard (A4 bag_returns off)
    ("eff", np.float64, (MAX_SEATS, N_EFFECTS)),    # company effects (§4; Lineage + Calling)
    ("has_lin", np.int64, (MAX_SEATS, N_EFFECTS)),  # 1 = the effect comes from the Lineage
    ("has_cal", np.int64, (MAX_SEATS, N_EFFECTS)),  # 1 = the effect comes from the Calling
    ("glory", np.float64, (MAX_SEATS,)),            # Glory
    ("loot", np.float64, (MAX_SEATS,)),             # unbanked Loot of the active crew
    ("carry", np.float64, (MAX_SEATS, N_SYMBOLS)),  # production carried over (§4 Hierophant)
    ("kept", np.int64, (MAX_SEATS, N_SYMBOLS)),     # unspent symbols kept (A23)
    # -- the table
    ("g", np.int64, (G_N,)),                        # game scalars (GS_* columns)
    ("pool", np.int64, (N_DICE,)),                  # Recruit Pool (§8, A37)
    # -- the turn being played
    ("sym", np.int64, (N_SYMBOLS,)),                # symbols to spend
    ("rolled", np.int64, (N_SYMBOLS,)),             # symbols rolled
    ("trin", np.int64, (N_SYMBOLS,)),               # symbols that count for the trinity (§7.1)
    ("tmp", np.float64, (MAX_SEATS,)),              # work array (collapse scoring)
    # -- a cache of rival_best per room (valid while rbk[fi, s] = the key of its epoch and
    # seat): the strongest other seat's strength, and its key GS_RB_EPOCH * MAX_SEATS +
    # seat + 1 (0 = none)
    ("rb", np.float64, (N_FLOORS, MAX_SLOTS)),
    ("rbk", np.int64, (N_FLOORS, MAX_SLOTS)),
    # -- the game's random stream: [0] the game's key (rng.game_key of seed and game), [1]
    # the root of its search rollouts' streams (kernel.ROLLOUT_STREAM); in a rollout, [1]
    # is the rollout's key and [0] the stream being drawn from (kernel.hand_stream)
    ("key", np.uint64, (2,)),
    # -- what the game has counted so far: its row of the output tables
    ("gi", np.int64, (N_GAME_INT,)),
    ("gf", np.float64, (N_GAME_FLT,)),
    ("si", np.int64, (MAX_SEATS, N_SEAT_INT)),
    ("sf", np.float64, (MAX_SEATS, N_SEAT_FLT)),
)

#: Rows of a traced state's event buffer ``ev`` (int64[TRACE_EVENTS, EVENT_WIDTH]): events
#: past it are dropped (a whole game writes a few thousand).
TRACE_EVENTS = 200_000


def state_dtype(events: int) -> np.dtype:
    """The numpy record type of one game state with an event buffer of ``events`` rows.

    Fields :data:`STATE_FIELDS`, then ``ev`` int64[events, EVENT_WIDTH] (the trace, rows
    of layout.EVENT_SPECS); aligned, as numba requires. ``events`` 0 is a quiet state
    (:func:`new_quiet_state`), :data:`TRACE_EVENTS` one that can be traced: the two are
    different numba types, and the kernel compiles once for each.
    """
    return np.dtype([(n, t, shape) for n, t, shape in STATE_FIELDS]
                    + [("ev", np.int64, (events, EVENT_WIDTH))], align=True)


QUIET_STATE = state_dtype(0)
TRACED_STATE = state_dtype(TRACE_EVENTS)

#: The kernel's inputs: the ruleset's numbers in one record (``book``, :data:`BOOK_FIELDS`)
#: and the scenario's seats and bots (compile.Arrays.kernel_data builds it; shapes in
#: compile.build).
Data = namedtuple("Data", (
    "book",         # record of BOOK_DTYPE: the ruleset's numbers (below)
    "player_opts",  # int64[k] player counts a game draws from
    "seat_spec",    # int64[MAX_SEATS, 3] Lineage, Calling, bot profile per seat (-1 drawn)
    "bot_pool",     # int64[k] bot profiles a seat with bot -1 draws from
    "unique",       # int64 A19: 1 = Lineages and Callings drawn at most once per game,
                    # 0 = drawn independently per seat, 2 = mirror: every seat plays seat
                    # 1's company and bot (drawn per game; scenario companies.mirror)
    "knobs",        # float64[profiles, N_KNOBS] bot knobs (layout.KNOBS)
    "fmix",         # float64[N_LINEAGES * N_CALLINGS, 2, M] per company code, its own bot
                    # profiles (scenario key faction_bots; deepsim.factionmix)
))

#: The fields of ``Data.book``, the ruleset's numbers (read as ``dat.book.rules``).
BOOK_FIELDS = (
    ("rules", np.float64, (N_RULES,)),                # scalar rules (layout.RULES)
    ("faces", np.int64, (N_DICE, N_FACES)),           # symbol of each face of each die (§5)
    ("die_rank", np.int64, (N_DICE,)),                # Setback order, lowest first (A28)
    ("rooms", np.int64, (N_ROOMS, N_ROOM_COLUMNS)),   # room tiles (§7.2; layout.RM_*)
    ("floor_cdf", np.float64, (N_FLOORS, N_ROOMS)),   # theme draw per floor (A21)
    ("depth", np.int64, (N_FLOORS,)),                 # Depth Value (§3.2)
    ("scale", np.int64, (MAX_SEATS + 1, 2)),          # rooms per floor, Dread track (§9)
    ("lin_eff", np.float64, (N_LINEAGES, N_EFFECTS)),
    ("cal_eff", np.float64, (N_CALLINGS, N_EFFECTS)),
    ("lin_nn", np.int64, (N_LINEAGES, N_EFFECTS)),    # 1 = effect not neutral
    ("cal_nn", np.int64, (N_CALLINGS, N_EFFECTS)),
    ("lin_bag", np.int64, (N_LINEAGES, N_DICE)),      # starting bag (A3)
    ("cal_recruit", np.int64, (N_CALLINGS,)),         # recruit die type (§8)
    ("ls_free", np.int64, (N_ROOMS,)),                # 1 = holding it frees a Last Stand (§7.3)
)
BOOK_DTYPE = np.dtype([(n, t, shape) for n, t, shape in BOOK_FIELDS], align=True)


_FIELD_VIEWS: dict = {}


def fields_of(rec):
    """``rec`` (a numpy record) as the kernel should receive it from Python.

    With numba's JIT on, the record itself (numba passes it as one pointer). In plain
    Python (``NUMBA_DISABLE_JIT=1``: the bench's reference, debugging) a namedtuple of
    views of its fields, the same arrays: Python reads a namedtuple's attribute about
    five times faster than a record's, which made the plain-Python kernel ~5x slower.
    """
    if not config.DISABLE_JIT:
        return rec
    names = rec.dtype.names
    view = _FIELD_VIEWS.get(names)
    if view is None:
        view = _FIELD_VIEWS[names] = namedtuple("RecordFields", names)
    return view(*(rec[n] for n in names))


def new_state():
    """A game state that can be traced: a numpy record of :data:`TRACED_STATE`, all zero.

    Its fields read and write the record's memory (``st.sd[p, SD_FLOOR] = 3``), and a
    kernel function called with it works on the record itself. A game played in it is
    traced when ``kernel.reset`` turns ``GS_TRACE`` on; its events are written to
    ``st.ev`` (int64[TRACE_EVENTS, EVENT_WIDTH]). In plain Python, views of its fields
    (:func:`fields_of`).
    """
    return fields_of(np.zeros(1, TRACED_STATE).view(np.recarray)[0])


def new_quiet_state():
    """A game state that is never traced: a numpy record of :data:`QUIET_STATE`, all zero.

    Its event buffer has no rows, so its numba type differs from :func:`new_state`'s: the
    kernel is compiled apart for it, and there :func:`traced` is the constant False and
    ``events.emit`` does nothing, so the trace hooks compile to no code. Batch games and a
    search bot's rollouts play in quiet states (docs/performance.md, "Trace and search
    compiled only where used").
    """
    return fields_of(np.zeros(1, QUIET_STATE).view(np.recarray)[0])


def quiet_type(st) -> bool:
    """True for the numba type of a quiet state (its event buffer ``ev`` has no rows); for
    the overloads that compile the trace hooks away (:func:`traced`, ``events.emit``)."""
    return st.typeof("ev").shape[0] == 0


def traced(st) -> bool:
    """True when the game in ``st`` is traced (``GS_TRACE`` on, in a state that can be).

    In a compiled function the answer for a quiet state (:func:`new_quiet_state`) is the
    constant False, so ``if traced(st):`` guards code that is compiled away there (numba
    still types it: a writer called there is made with ``events.trace_writer``, which is
    no code at all for a quiet state).
    """
    return st.ev.shape[0] > 0 and st.g[GS_TRACE] != 0


@overload(traced, inline="always")
def _traced(st):
    if quiet_type(st):
        return lambda st: False
    return lambda st: st.g[GS_TRACE] != 0


@njit(cache=True, _nrt=False, inline="always")
def _cp1(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, _nrt=False, inline="always")
def _cp2(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(cache=True, _nrt=False, inline="always")
def _cp3(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            for k in range(src.shape[2]):
                dst[i, j, k] = src[i, j, k]


@njit(cache=True, _nrt=False)
def copy_state(src, dst):
    """Copy game state ``src`` into the scratch state ``dst`` (records of
    :func:`state_dtype`; ``dst`` usually quiet).

    Everything but the trace is copied: ``dst`` then plays on exactly as ``src`` would
    (``kernel.play_rest``; the same random stream, from the same draw), with tracing off
    and its own event buffer untouched. ``src`` is not changed. Element loops, no slices:
    it is called from the kernel's functions compiled without numba's runtime
    (``_nrt=False``; a search bot's rollouts, kernel.rollout_win).
    """
    _cp2(dst.theme, src.theme)
    _cp2(dst.plunder, src.plunder)
    _cp2(dst.gone, src.gone)
    _cp3(dst.act_str, src.act_str)
    _cp3(dst.act_cnt, src.act_cnt)
    _cp3(dst.fallen, src.fallen)
    _cp2(dst.sd, src.sd)
    _cp2(dst.bag, src.bag)
    _cp2(dst.drawn, src.drawn)
    _cp2(dst.disc, src.disc)
    _cp2(dst.eff, src.eff)
    _cp2(dst.has_lin, src.has_lin)
    _cp2(dst.has_cal, src.has_cal)
    _cp1(dst.glory, src.glory)
    _cp1(dst.loot, src.loot)
    _cp2(dst.carry, src.carry)
    _cp2(dst.kept, src.kept)
    _cp1(dst.g, src.g)
    _cp1(dst.pool, src.pool)
    _cp1(dst.sym, src.sym)
    _cp1(dst.rolled, src.rolled)
    _cp1(dst.trin, src.trin)
    _cp1(dst.tmp, src.tmp)
    _cp2(dst.rb, src.rb)
    _cp2(dst.rbk, src.rbk)
    _cp1(dst.key, src.key)
    _cp1(dst.gi, src.gi)
    _cp1(dst.gf, src.gf)
    _cp2(dst.si, src.si)
    _cp2(dst.sf, src.sf)
    dst.g[GS_TRACE] = 0
    dst.g[GS_EV] = 0


@njit(cache=True, _nrt=False, inline="always")
def rand_below(st, n):
    """Next uniform integer in [0, n) of this game's stream (advances the counter)."""
    g = st.g
    v = below(st.key[0], np.uint64(g[GS_CTR]), n)
    g[GS_CTR] += 1
    return v


@njit(cache=True, _nrt=False, inline="always")
def strength_of(st, dat, fi, s, q):
    """Weighted marker strength of player q in room (fi, s) (§6B.2; §4 Warden)."""
    rules = dat.book.rules
    fw = rules[R_FALLEN_STR]
    if rules[R_WARDEN_FALLEN] > 0.5:
        fw *= st.eff[q, E_MARKER_WEIGHT]
    return st.act_str[fi, s, q] + st.fallen[fi, s, q] * fw


@njit(cache=True, _nrt=False, inline="always")
def _rival_best(st, dat, fi, s, p):
    best = 0.0
    for q in range(st.g[GS_N]):
        if q != p:
            v = strength_of(st, dat, fi, s, q)
            best = max(best, v)
    return best


@njit(cache=True, _nrt=False, inline="always")
def rival_best(st, dat, fi, s, p):
    """Strongest other player's weighted strength in room (fi, s).

    Cached per room in ``st.rb`` for the epoch ``GS_RB_EPOCH`` and seat p: during seat p's
    turn only p's own markers change, which leaves this value alone (the cache is a
    cache: the value is the one the loop over the seats gives)."""
    e = st.g[GS_RB_EPOCH]
    if e > 0:
        key = e * MAX_SEATS + p + 1
        if st.rbk[fi, s] == key:
            return st.rb[fi, s]
        v = _rival_best(st, dat, fi, s, p)
        st.rb[fi, s] = v
        st.rbk[fi, s] = key
        return v
    return _rival_best(st, dat, fi, s, p)


@njit(cache=True, _nrt=False, inline="always")
def holds(st, dat, fi, s, p):
    """True when p's active crew has markers in the room and p has the strict majority.

    "Holding" a room (production §7.1, Last Stand §7.3) = strict majority (A24, A29).
    """
    if st.act_cnt[fi, s, p] == 0:
        return False
    return strength_of(st, dat, fi, s, p) > rival_best(st, dat, fi, s, p)


@njit(cache=True, _nrt=False, inline="always")
def mark_bit(fi, s):
    """SD_MARKS bit of room (fi, s)."""
    return np.int64(1) << (fi * MAX_SLOTS + s)


@njit(cache=True, _nrt=False, inline="always")
def floor_marks(marks, fi):
    """Slots of floor index ``fi`` in an SD_MARKS bit set (bit s = slot s)."""
    return (marks >> (fi * MAX_SLOTS)) & FLOOR_BITS


@njit(cache=True, _nrt=False, inline="always")
def bag_size(st, p):
    """Dice left in p's bag."""
    t = 0
    for k in range(N_DICE):
        t += st.bag[p, k]
    return t


@njit(cache=True, _nrt=False, inline="always")
def next_floor(st):
    """Floor number (1..6) the Maw collapses next."""
    return N_FLOORS - st.g[GS_COLLAPSED]


@njit(cache=True, _nrt=False, inline="always")
def steps_needed(st, dat, fl):
    """Maw steps still needed before floor number ``fl`` collapses (A1)."""
    return (N_FLOORS + 1 - fl) * np.int64(dat.book.rules[R_STEPS_PER_FLOOR]) - st.g[GS_STEPS]


@njit(cache=True, _nrt=False, inline="always")
def dread_rate(st):
    """Dread added to the track per player-turn so far this game, as observed (a bot's
    estimate; prior: one per player-turn over one round, so the first turns lean on it)."""
    g = st.g
    n = g[GS_N]
    return (g[GS_DREAD_ADDED] + n) / np.float64(g[GS_TURNS] + n)


@njit(cache=True, _nrt=False, inline="always")
def turns_to_come(st, p, own):
    """Player-turns of this round still to add Dread after seat p's decision: the seats
    after p in turn order (§6A, first player = (round - 1) mod n), plus p's own when its
    Dread is still to come (``own``)."""
    n = st.g[GS_N]
    first = (st.g[GS_ROUND] - 1) % n
    pos = (p - first) % n
    return n - 1 - pos + (1 if own else 0)


@njit(cache=True, _nrt=False, inline="always")
def doomed_this_round(st, dat, fl, p, margin, own):
    """Would floor ``fl`` likely collapse in this round's Maw phase? (a bot's estimate)

    The Maw gains ``maw.steps_per_round`` steps and ``maw.dread_full_steps`` more when the
    Dread track is full in the Maw phase (§6B.1, A1). The track's fill is forecast from the
    Dread the turns still to come this round add at the rate observed so far
    (:func:`dread_rate`): it fills when track + expected + ``margin`` x sqrt(expected)
    reaches its length (``margin``: the bot's safety in standard deviations of a Poisson
    count). ``own``: seat p's own Dread of this turn is still to come.
    """
    if fl != next_floor(st):
        return False
    rules = dat.book.rules
    need = steps_needed(st, dat, fl)
    gain = rules[R_STEPS_PER_ROUND]
    if need <= gain:
        return True
    if need > gain + rules[R_DREAD_FULL_STEPS]:
        return False
    left = st.g[GS_DREAD_LEN] - st.g[GS_DREAD]
    if left <= 0:
        return True
    mu = turns_to_come(st, p, own) * dread_rate(st)
    return mu + margin * np.sqrt(mu) >= left


@njit(cache=True, _nrt=False, inline="always")
def rounds_until(st, dat, fl):
    """Estimated rounds before floor ``fl`` collapses (>= 1; one collapse per round), with
    the Dread track filling at the rate observed so far (at most once a round)."""
    rules = dat.book.rules
    k = next_floor(st) - fl + 1
    fills = min(1.0, dread_rate(st) * st.g[GS_N] / st.g[GS_DREAD_LEN])
    rate = rules[R_STEPS_PER_ROUND] + fills * rules[R_DREAD_FULL_STEPS]
    est = steps_needed(st, dat, fl) / rate
    return est if est > k else np.float64(k)


@njit(cache=True, _nrt=False, forceinline=True)
def last_stand_price(st, dat, p):
    """Mettle price of declaring a Last Stand (§7.3, A7); 0 when free; -1 when free by card."""
    if st.eff[p, E_FREE_LAST_STAND] > 0.5:
        return -1
    ls_free = dat.book.ls_free
    marks = st.sd[p, SD_MARKS]          # holding needs active markers: only those rooms
    for fi in range(N_FLOORS - st.g[GS_COLLAPSED]):
        fm = floor_marks(marks, fi)
        if fm == 0:
            continue
        for s in range(st.g[GS_SLOTS]):
            if (fm >> s) & 1 == 0:
                continue
            if (st.gone[fi, s] == 0 and ls_free[st.theme[fi, s]] == 1
                    and holds(st, dat, fi, s, p)):
                return 0
    return np.int64(dat.book.rules[R_LS_COST])


@njit(cache=True, _nrt=False, inline="always")
def ls_affordable(st, dat, p):
    """Can seat p's crew pay for a Last Stand now (§7.3, A7)? The same answer as
    ``price <= 0 or Mettle >= price`` with ``price`` = :func:`last_stand_price`, walking
    the held rooms only when the Mettle alone does not settle it."""
    if st.eff[p, E_FREE_LAST_STAND] > 0.5:
        return True
    if st.sym[METTLE] >= np.int64(dat.book.rules[R_LS_COST]):
        return True
    return last_stand_price(st, dat, p) <= 0
