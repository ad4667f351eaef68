"""What part of a traced game to show: ``deepsim trace --seat S --round R --only bot``.

A :class:`TraceFilter` keeps an event record (a dict with ``round``, ``seat`` (from 1; -1
or 0 = the table), ``rule`` and ``event``, as a ruleset's ``trace_records`` gives them)
when it passes every filter given: the seats asked for (the table's own events, such as a
round's heading or the Maw's collapse, are kept: they are every seat's), the rounds asked
for, and the kind of line (``bot``: the bots' decisions and what they read; ``rules``: the
rules' lines without the bots'). The game's setup and end are kept whatever the filter.
"""

from __future__ import annotations

from dataclasses import dataclass

from deepsim.errors import InputError

__all__ = ["ONLY", "TraceFilter", "parse_numbers"]

#: the kinds of line ``--only`` names
ONLY = ("bot", "rules")
#: events every filtered trace keeps (the game's frame)
FRAME = ("setup", "end")
#: the table's events, kept whatever the seats asked for (a round's heading names its
#: first seat)
TABLE = ("round",)


def parse_numbers(items: list[str] | None, key: str, *, low: int = 0) -> frozenset[int] | None:
    """Whole numbers from ``--seat 1 --seat 3`` or ``--round 2-4,7`` (ranges inclusive).

    Raises
    ------
    InputError
        Not a whole number >= ``low``, or a range that runs backwards.
    """
    if not items:
        return None
    out: set[int] = set()
    for item in items:
        for part in str(item).split(","):
            part = part.strip()
            a, sep, b = part.partition("-")
            try:
                lo = int(a)
                hi = int(b) if sep else lo
            except ValueError:
                raise InputError(f"expected a whole number or a range like 2-4, got "
                                 f"{part!r}", key=key) from None
            if lo < low or hi < lo:
                raise InputError(f"expected numbers >= {low}, a range from low to high, got "
                                 f"{part!r}", key=key)
            out.update(range(lo, hi + 1))
    return frozenset(out)


@dataclass(frozen=True)
class TraceFilter:
    """Seats (from 1), rounds and the kind of line to keep; None keeps all."""

    seats: frozenset[int] | None = None
    rounds: frozenset[int] | None = None
    only: str | None = None

    def __post_init__(self):
        if self.only is not None and self.only not in ONLY:
            raise InputError(f"expected one of {', '.join(ONLY)}, got {self.only!r}",
                             key="--only")

    @property
    def active(self) -> bool:
        return self.seats is not None or self.rounds is not None or self.only is not None

    def keeps(self, rec: dict) -> bool:
        """Does the event record ``rec`` pass (``seat`` from 1, -1 or 0 for the table)?"""
        kind = rec.get("event")
        if kind in FRAME:
            return True
        if self.rounds is not None and rec.get("round") not in self.rounds:
            return False
        seat = rec.get("seat", -1)
        if self.seats is not None and kind not in TABLE and seat is not None and seat > 0 \
                and seat not in self.seats:
            return False
        if self.only is not None and kind != "round":
            is_bot = rec.get("rule") == "bot" or kind in ("forecast",)
            if (self.only == "bot") != is_bot:
                return False
        return True
