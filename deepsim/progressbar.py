"""The games progress bar every command shows, laid out for the console's width.

rich cuts a column it cannot fit with an ellipsis, so the layout of a 120-column terminal
(a 40-cell bar, "ETA" and "elapsed" with their clocks) loses its counters in an 80-column
CI log. Under :data:`WIDE` columns the bar is 10 cells and only the time remaining is
shown; the labels a caller puts in the description are cut to :func:`label_room`.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

#: consoles at least this wide get the full layout
WIDE = 100

__all__ = ["WIDE", "GamesProgress", "games_progress", "label_room", "phased_progress", "short_label"]


def label_room(console: Console) -> int:
    """Characters of description that fit beside the counters (32 wide, 22 narrow)."""
    return 32 if console.width >= WIDE else 22


def short_label(label: str, room: int) -> str:
    """``label`` cut to ``room`` characters, ending in ``...`` when cut."""
    return label if len(label) <= room else label[:room - 3] + "..."


class GamesProgress(Progress):
    """rich's ``Progress`` whose ``stop`` does nothing when the bar never started: rich
    ends a stopped bar with a newline on a non-interactive console, so a command that
    fails before its first game (bad input) would print a blank line before its error."""

    def stop(self) -> None:
        if self.live.is_started:
            super().stop()


def games_progress(console: Console, *, quiet: bool = False, transient: bool = False,
                   description: str = "[bold]{task.description}",
                   extra: tuple[ProgressColumn, ...] = (), elapsed: bool = True) -> Progress:
    """A rich ``Progress`` counting games: description, bar, ``done/total games``,
    ``extra`` columns (e.g. games/s), time remaining and (wide, when ``elapsed``) elapsed.

    Parameters
    ----------
    console : rich Console
        Where the bar is drawn (its width picks the layout).
    quiet : bool
        Disable the bar.
    transient : bool
        Remove the bar when it stops.
    description : str
        The first column's template.
    extra : tuple of ProgressColumn
        Columns after the games counter.
    elapsed : bool
        Show the elapsed time on a wide console.
    """
    wide = console.width >= WIDE
    columns: list[ProgressColumn | str] = [
        TextColumn(description), BarColumn(bar_width=40 if wide else 10),
        MofNCompleteColumn(), TextColumn("games"), *extra]
    if wide:
        columns += [TextColumn("ETA"), TimeRemainingColumn()]
        if elapsed:
            columns += [TextColumn("elapsed"), TimeElapsedColumn()]
    else:
        columns.append(TimeRemainingColumn())
    return GamesProgress(*columns, console=console, disable=quiet, transient=transient)


def phased_progress(quiet: bool, *, extra_room: int = 0, phase=None, shorten=None):
    """``(stop, on_progress)`` for a command whose work comes in phases (trials, then
    confirmation runs; one faction after another): ``on_progress(done, total, label)``
    starts a new bar row whenever ``phase(label, total)`` changes (default: the total),
    finishing the previous row; ``shorten(label)`` runs before the label is cut to
    :func:`label_room` + ``extra_room`` characters. ``stop()`` ends the bar if it started.
    """
    console = Console(stderr=True)
    bar = games_progress(console, quiet=quiet)
    room = label_room(console) + extra_room
    phase = phase or (lambda label, total: total)
    state: dict = {}

    def on_progress(done: int, total: int, label: str) -> None:
        label = short_label(shorten(label) if shorten else label, room)
        key = phase(label, total)
        if "task" not in state or state["phase"] != key:
            if "task" in state:
                bar.update(state["task"], completed=state["total"])
            else:
                bar.start()
            state["task"] = bar.add_task(label, total=total)
            state["phase"] = key
        state["total"] = total
        bar.update(state["task"], completed=min(done, total), total=total, description=label)

    def stop() -> None:
        if "task" in state:
            bar.stop()

    return stop, on_progress
