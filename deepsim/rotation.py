"""Seat rotation: every deal of a fixed-seat scenario played in each rotation of the seat
order, so seat advantage and faction strength are separated.

A scenario with fixed seats (each seat plays one faction) confounds the two: seat 1's win
share *is* its faction's. With ``rotate_seats: true`` each of the scenario's ``games``
game indices (a *deal*: its dungeon or map and its dice stream, from the deal's random
stream) is played ``n`` times, once per rotation of the seat order: in rotation ``k`` the
seat ``p`` plays what seat ``p + k`` plays without rotation, counting round the table
(after seat ``n`` comes seat 1) (DEEPFALL: its company
and bot; Atlantis: the side that moves first swaps). So ``games: N`` gives ``N x n`` rows.

Row ``g`` of the games table is deal ``g // n`` in rotation ``g % n``: ``game`` stays the
unique row index every run file, resume and paired comparison relies on, and the games
table gets the columns ``deal`` and ``rotation`` (the seats table ``rotation``). The rows of
one deal share its dungeon and dice, so they are not independent: every interval of
:mod:`deepsim.measure` treats the deal as the unit (a cluster).

A ruleset supports rotation by preparing one variant of its kernel inputs per rotation
(``prepared.compiled["rotations"]``, rotation 0 first; None without rotation) and playing
through :func:`play_chunk` (its ``run_chunk``), :func:`deal_of` (what its trace replays)
and :func:`traced_rows` (its ``trace_result``). A scenario without ``rotate_seats`` plays
exactly as before (no new column).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["deal_of", "play_chunk", "renumber", "rotated_chunk", "rotation_of", "traced_rows"]


def rotation_of(game: int, n: int) -> tuple[int, int]:
    """(deal, rotation) of row ``game`` of a run whose seats rotate ``n`` ways."""
    return game // n, game % n


def renumber(frame: pd.DataFrame, n: int, k: int, with_deal: bool) -> pd.DataFrame:
    """``frame`` of deals (``game`` = deal index) as rows of rotation ``k`` of ``n``:
    ``game`` becomes ``deal * n + k``; ``rotation`` (and, ``with_deal``, ``deal``) follow
    ``game``."""
    deal = frame["game"].to_numpy(dtype=np.int64)
    out = frame.copy()
    out["game"] = deal * n + k
    cols = list(out.columns)
    at = cols.index("game") + 1
    extra = {"deal": deal, "rotation": np.full(len(out), k, np.int64)} if with_deal else {
        "rotation": np.full(len(out), k, np.int64)}
    for j, (name, values) in enumerate(extra.items()):
        out.insert(at + j, name, values)
    return out


def rotated_chunk(play: Callable[[Any, int, int], tuple[pd.DataFrame, pd.DataFrame]],
                  variants: Sequence[Any], start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows ``start .. start+count-1`` of a rotated run.

    Parameters
    ----------
    play : callable(variant, first_deal, deals) -> (games, seats)
        The ruleset's plain chunk player: games ``first_deal ..`` of one rotation's
        kernel inputs, their ``game`` column the deal index.
    variants : sequence
        One kernel-input variant per rotation (``n = len(variants)``), rotation 0 first.
    start, count : int
        Row range (``game`` indices of the rotated run).

    Returns
    -------
    games, seats : DataFrame
        Sorted by ``game`` (and ``seat``), ``game`` the row index ``deal * n + rotation``;
        games with ``deal`` and ``rotation`` after ``game``, seats with ``rotation``.
    """
    n = len(variants)
    first, last = start // n, (start + count - 1) // n
    g_parts, s_parts = [], []
    for k, variant in enumerate(variants):
        g, s = play(variant, first, last - first + 1)
        g_parts.append(renumber(g, n, k, True))
        s_parts.append(renumber(s, n, k, False))
    games = pd.concat(g_parts, ignore_index=True).sort_values("game", kind="stable")
    seats = pd.concat(s_parts, ignore_index=True).sort_values(["game", "seat"], kind="stable")
    games = games[(games["game"] >= start) & (games["game"] < start + count)]
    seats = seats[(seats["game"] >= start) & (seats["game"] < start + count)]
    return games.reset_index(drop=True), seats.reset_index(drop=True)


def _variants(prepared: Any) -> list | None:
    return prepared.compiled.get("rotations") or None


def play_chunk(prepared: Any, play: Callable[[Any, int, int], tuple[pd.DataFrame, pd.DataFrame]],
               start: int, count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows ``start .. start+count-1`` of a prepared scenario, rotated or not.

    ``play(kernel_inputs, first_game, games)`` plays plain games of one set of kernel inputs
    (``prepared.compiled["arrays"]``, or one rotation's variant).
    """
    variants = _variants(prepared)
    if variants:
        return rotated_chunk(play, variants, start, count)
    return play(prepared.compiled["arrays"], start, count)


def deal_of(prepared: Any, game_index: int) -> tuple[Any, int, str]:
    """(kernel inputs, game index to play, label for a trace heading) of row ``game_index``:
    the row itself without rotation, else its deal in its rotation's inputs."""
    variants = _variants(prepared)
    if not variants:
        return prepared.compiled["arrays"], game_index, ""
    deal, k = rotation_of(game_index, len(variants))
    return variants[k], deal, f" (deal {deal}, seat rotation {k} of {len(variants)})"


def traced_rows(prepared: Any, game_index: int, games: pd.DataFrame, seats: pd.DataFrame
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The frames of a traced deal (``game`` = the deal) renumbered as row ``game_index`` of
    its rotated run (unchanged without rotation)."""
    variants = _variants(prepared)
    if not variants:
        return games, seats
    n, k = len(variants), game_index % len(variants)
    return renumber(games, n, k, True), renumber(seats, n, k, False)
