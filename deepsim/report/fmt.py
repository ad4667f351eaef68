"""Number formatting of every report table (shared by the rulesets' own sections).

Missing values (None, NaN) print as ``-``; shares print in percent with one decimal, an
interval of two shares as ``12.3% - 14.5%``.
"""

from __future__ import annotations

import math

__all__ = ["ci", "integer", "isnan", "length_cells", "num", "pci", "pct"]


def isnan(x) -> bool:
    """True for None and NaN."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def num(x, spec: str = ".2f") -> str:
    """``x`` formatted with ``spec`` (``-`` when missing)."""
    return "-" if isnan(x) else format(x, spec)


def pct(x, digits: int = 1) -> str:
    """A share as percent: ``0.1234`` -> ``12.3%`` (``-`` when missing)."""
    return "-" if isnan(x) else num(x * 100, f".{digits}f") + "%"


def pci(lo, hi, digits: int = 1) -> str:
    """An interval of two shares: ``12.3% - 14.5%``."""
    return f"{pct(lo, digits)} - {pct(hi, digits)}"


def ci(lo, hi, spec: str = ".2f") -> str:
    """An interval of two numbers: ``0.95 - 1.05``."""
    return f"{num(lo, spec)} - {num(hi, spec)}"


def integer(x) -> str:
    """A count with thousands separators: ``12,345``."""
    return f"{int(x):,}"


def length_cells(row, what: str = "Rounds", spec: str = ".1f") -> dict[str, str]:
    """A game-length table's cells from one row of :func:`deepsim.report.metrics.game_length`:
    ``{what: "mean (low - high)", "SD", "Median", "5th-95th pct"}`` (``row`` a namedtuple
    or Series with ``mean``, ``mean_low``, ``mean_high``, ``sd``, ``median``, ``p5``,
    ``p95``)."""
    return {what: f"{num(row.mean, spec)} ({num(row.mean_low, spec)} - "
                  f"{num(row.mean_high, spec)})",
            "SD": num(row.sd, spec), "Median": num(row.median, "g"),
            "5th-95th pct": f"{row.p5:g} - {row.p95:g}"}
