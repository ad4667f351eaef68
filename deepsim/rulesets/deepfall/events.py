"""Writing the DEEPFALL trace: one event row per call, only in a traced game.

The kernel (kernel.py) and the bots' reasons (why.py) append events to the state's buffer
``st.ev`` (int64[k, layout.EVENT_WIDTH]: round, seat, kind, then the kind's values as
layout.EVENT_SPECS names them). Both writers return at once unless the game is traced
(``GS_TRACE``), and in a quiet state (``board.new_quiet_state``: batch games, rollouts)
they compile to nothing; they change nothing else.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from deepsim.rulesets.deepfall.board import (
    GS_EV,
    GS_ROUND,
    GS_TRACE,
    SD_DEEPEST,
    SD_PROG_CUNNING,
    SD_PROG_FLOOR,
    SD_PROG_SLOT,
    SD_PROG_STEEL,
    quiet_type,
)
from deepsim.rulesets.deepfall.layout import (
    E_THREAT_IGNORE,
    E_WORTHY_MULT,
    EV_BAG,
    EV_ROOM,
    EV_WORTHY,
    N_DICE,
    R_ASSAULT,
    R_GLORY_PER_LOOT,
    R_WORTHY_DEPTH_BASIS,
    R_WORTHY_KEEPS_LOOT,
    R_WORTHY_MULT,
    RM_LOCK,
    RM_THREAT,
    RM_VALUE,
)


def emit(st, seat, kind, vals):
    """Append one trace event of up to seven values (no-op unless the game is traced).

    ``vals``: a 7-tuple (a .. g; layout.EVENT_SPECS names them; h .. j are written 0). In
    compiled code this is the overload below: nothing at all for a quiet state
    (``board.new_quiet_state``), this body for a state that can be traced.
    """
    emit10(st, seat, kind, (vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6],
                            0, 0, 0))


def emit10(st, seat, kind, vals):
    """Append one trace event of ten values a .. j (no-op unless the game is traced; in
    compiled code nothing at all for a quiet state, as :func:`emit`)."""
    g = st.g
    if g[GS_TRACE] == 0:
        return
    # every value int64 (a tuple of mixed types is indexed by constants only): the row is
    # written by one compiled call, not by 13 stores inlined at each of the traced
    # kernel's ~60 call sites, each typed and lowered again
    _row(st.ev, g, np.int64(seat), np.int64(kind), np.int64(vals[0]), np.int64(vals[1]),
         np.int64(vals[2]), np.int64(vals[3]), np.int64(vals[4]), np.int64(vals[5]),
         np.int64(vals[6]), np.int64(vals[7]), np.int64(vals[8]), np.int64(vals[9]))


@njit(cache=True, _nrt=False)
def _row(ev, g, seat, kind, a, b, c, d, e, f, h, i, j, k):
    """:func:`emit10`'s row (ev int64[rows, EVENT_WIDTH], g the state's int64 scalars,
    every other argument int64: one signature serves every call site); a full table
    drops it."""
    n = g[GS_EV]
    if n >= ev.shape[0]:
        return
    ev[n, 0] = g[GS_ROUND]
    ev[n, 1] = seat
    ev[n, 2] = kind
    ev[n, 3] = a
    ev[n, 4] = b
    ev[n, 5] = c
    ev[n, 6] = d
    ev[n, 7] = e
    ev[n, 8] = f
    ev[n, 9] = h
    ev[n, 10] = i
    ev[n, 11] = j
    ev[n, 12] = k
    g[GS_EV] = n + 1


def _trace_hook(writer):
    """The overload of a trace writer: no code at all for a quiet state (board.quiet_type),
    the writer itself for a state that can be traced."""
    def typed(st, seat, kind, vals):
        if quiet_type(st):
            return lambda st, seat, kind, vals: None
        return writer
    return typed


overload(emit, inline="always")(_trace_hook(emit))
overload(emit10, inline="always")(_trace_hook(emit10))


def trace_writer(fn):
    """Compile ``fn``, a writer of trace events (first argument the state, returns nothing),
    for the kernel to call behind ``if traced(st):``.

    numba types both branches of ``if traced(st):``, even where ``traced`` is the constant
    False, so a writer called there directly would be compiled, with every bot helper it
    retraces, into the batch kernel (about a fifth of its compile time) and then removed
    by LLVM as dead code. The function returned is what the kernel calls: in compiled code
    an overload that is no code at all for a quiet state (``board.quiet_type``) and a call
    of the compiled writer for a state that can be traced; from Python (and under
    ``NUMBA_DISABLE_JIT``) it calls the writer. The compiled writer is its ``writer``
    attribute.
    """
    import inspect

    writer = njit(cache=True, _nrt=False)(fn)
    params = list(inspect.signature(fn).parameters)
    if not params or params[0] != "st":
        raise TypeError(f"trace_writer {fn.__name__}: the first argument must be st")
    args = ", ".join(params)
    # the face and its overload need fn's own argument names (numba checks that the
    # typing function and the implementations agree), so they are written from them; the
    # text is built from fn's parameter names only
    ns: dict = {"writer": writer, "quiet_type": quiet_type, "__name__": fn.__module__}
    exec(f"def face({args}):\n    return writer({args})\n"  # noqa: S102
         f"def typed({args}):\n"
         f"    if quiet_type(st):\n"
         f"        return lambda {args}: None\n"
         f"    return lambda {args}: writer({args})\n", ns)
    face = ns["face"]
    face.__name__ = face.__qualname__ = fn.__name__
    face.__module__ = fn.__module__
    face.__doc__ = fn.__doc__
    face.__wrapped__ = fn
    face.writer = writer
    overload(face, inline="always")(ns["typed"])
    return face


@njit(cache=True, _nrt=False, inline="always")
def x100(v):
    """A value stored x100 in an event (Glory, Loot, multipliers; rounded to nearest)."""
    return np.int64(np.floor(v * 100.0 + 0.5))


@trace_writer
def room(st, dat, p, fi, s):
    """Emit room (fi, s) as seat p faces it (§7.2 tile, §7.1 claim): its threat and lock,
    the company's threat ignored (§4 Dvergar), p's assault progress in it (A25), its value
    (tile + plunder risen, §6B.2) and the floor's Depth Value (§3.2)."""
    th = st.theme[fi, s]
    rooms = dat.book.rooms
    sd = st.sd
    ps = 0
    pc = 0
    if dat.book.rules[R_ASSAULT] > 0.5 and sd[p, SD_PROG_FLOOR] == fi and sd[p, SD_PROG_SLOT] == s:
        ps = sd[p, SD_PROG_STEEL]
        pc = sd[p, SD_PROG_CUNNING]
    emit10(st, p, EV_ROOM, (fi + 1, s, th, rooms[th, RM_THREAT], rooms[th, RM_LOCK],
                            np.int64(st.eff[p, E_THREAT_IGNORE]), ps, pc,
                            rooms[th, RM_VALUE] + st.plunder[fi, s], dat.book.depth[fi]))


@trace_writer
def bag(st, dat, p, hand):
    """Emit seat p's bag at the start of its turn (§6A.1): dice per type (schema.DICE
    order), the dice in its discard (A4) and the hand it draws."""
    b = st.bag
    disc = 0
    for k in range(N_DICE):
        disc += st.disc[p, k]
    emit10(st, p, EV_BAG, (b[p, 0], b[p, 1], b[p, 2], b[p, 3], b[p, 4], b[p, 5], b[p, 6],
                           disc, hand, 0))


@trace_writer
def worthy_end(st, dat, p, basis, worth):
    """Emit the Worthy End's arithmetic (§7.3): ``basis`` (deepest floor, or its Depth
    Value with A6) x ``exits.worthy_end_multiplier`` x the company's (§4 Wardancer, A20),
    + the Loot kept x ``loot.glory_per_loot`` (A6) = ``worth`` Glory."""
    rules = dat.book.rules
    keeps = rules[R_WORTHY_KEEPS_LOOT] > 0.5
    emit10(st, p, EV_WORTHY, (st.sd[p, SD_DEEPEST], x100(basis), x100(rules[R_WORTHY_MULT]),
                              x100(st.eff[p, E_WORTHY_MULT]),
                              x100(st.loot[p]) if keeps else 0,
                              x100(rules[R_GLORY_PER_LOOT]), x100(worth),
                              1 if rules[R_WORTHY_DEPTH_BASIS] > 0.5 else 0, 0, 0))
