"""Number formatting of every report table (shared by the rulesets' own sections).

Missing values (None, NaN) print as ``-``; shares print in percent with one decimal, an
interval of two shares as ``12.3% - 14.5%``.
"""

from __future__ import annotations

import math

__all__ = ["ci", "integer", "isnan", "num", "pci", "pct"]


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
