"""The trace event table every kernel writes: one row per event, appended in play order.

A traced game (``deepsim trace``) keeps an ``int64[max_events, width]`` table in its
scratch bundle; each row is ``(when, who, kind, value_1 .. value_n)``, where *when* is
the game's turn or round counter, *who* the acting seat (or side), *kind* the game's
event code and the values what its ``layout.EVENT_SPECS`` names. A quiet game has the
table too but never writes it (its trace flag is 0). Each game's ``emit`` fills in its
own counters and calls :func:`append_event`; the table's width is the game's
``EVENT_WIDTH``; it returns at once for a quiet game before building the row (the row's
loads and casts would otherwise cost the batch kernel about 2% of its speed).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, _nrt=False, inline="always")
def append_event(ev, flags, on_at, count_at, row):
    """Append ``row`` to the event table when the game is traced.

    Parameters
    ----------
    ev : ndarray, int64, shape (max_events, width)
        The game's event table.
    flags : ndarray, int64, shape (n,)
        The game's engine scalars: ``flags[on_at]`` is 1 when traced, 0 when quiet;
        ``flags[count_at]`` counts the rows written (and is advanced here).
    on_at, count_at : int
        Where the trace flag and the row count sit in ``flags``.
    row : tuple of int64, length <= width
        ``(when, who, kind, value_1, ...)``; columns past its length keep 0.

    Notes
    -----
    A full table drops further events (the caller sizes ``max_events`` for the longest
    game it traces). No store at all for a quiet game.
    """
    if flags[on_at] == 0:
        return
    k = flags[count_at]
    if k >= ev.shape[0]:
        return
    for j in range(len(row)):
        ev[k, j] = row[j]
    flags[count_at] = k + 1
