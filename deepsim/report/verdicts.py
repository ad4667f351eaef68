"""Claims and verdicts: how a report turns a measured interval into ``holds`` / ``fails``.

A ruleset's claims (its rulebook's statements, :meth:`deepsim.rulesets.base.Ruleset.
report_claims`) are :class:`Claim` objects measured into :class:`ClaimResult` rows. A
verdict is one of:

- ``holds``: the 95% interval of the measured quantity lies inside the region the claim
  asserts;
- ``fails``: the interval lies entirely outside it;
- ``inconclusive``: the interval straddles the border at this sample size;
- ``not measured``: the run(s) given cannot measure it; the row says which run is needed.

A claim made of several parts holds when every measured part holds and fails when any
part fails. The thresholds of a ruleset's claims are its report options
(:class:`deepsim.rulesets.base.ReportOption`), fixed before looking at the data and printed
with every report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["FAILS", "HOLDS", "INCONCLUSIVE", "NOT_MEASURED", "Claim", "ClaimPart",
           "ClaimResult", "combine", "fmt_ci", "fmt_num", "not_measured", "region_verdict"]

HOLDS, FAILS, INCONCLUSIVE, NOT_MEASURED = "holds", "fails", "inconclusive", "not measured"


@dataclass(frozen=True)
class Claim:
    """One rulebook claim: id, where the rulebook makes it, what it says, how it is
    measured and the rule parameters (gaps) whose reading shapes the measurement."""

    id: str
    section: str
    text: str
    measure: str
    params: tuple[str, ...]


@dataclass
class ClaimPart:
    """One measured part of a claim (a row of the claims table)."""

    label: str
    measured: str
    interval: str
    verdict: str
    run: str = ""
    note: str = ""


@dataclass
class ClaimResult:
    """A claim's parts, its overall verdict and the rule reading that produced it."""

    claim: Claim
    parts: list[ClaimPart] = field(default_factory=list)
    interpretation: str = ""

    @property
    def verdict(self) -> str:
        measured = [p.verdict for p in self.parts if p.verdict != NOT_MEASURED]
        if not measured:
            return NOT_MEASURED
        v = combine(measured)
        if len(measured) < len(self.parts):
            v += " (part not measured)"
        return v


def combine(verdicts) -> str:
    """``fails`` if any part fails, ``holds`` if all hold, else ``inconclusive``."""
    verdicts = list(verdicts)
    if any(v == FAILS for v in verdicts):
        return FAILS
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    return INCONCLUSIVE


def region_verdict(low: float, high: float, lo: float = -math.inf, hi: float = math.inf,
                   *, lo_open: bool = False) -> str:
    """Verdict of an interval ``[low, high]`` against the claimed region ``[lo, hi]``
    (``(lo, hi]`` when ``lo_open``): inside -> holds, disjoint -> fails, else inconclusive."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return INCONCLUSIVE
    above_lo = low > lo if lo_open else low >= lo
    if above_lo and high <= hi:
        return HOLDS
    below = high <= lo if lo_open else high < lo
    if below or low > hi:
        return FAILS
    return INCONCLUSIVE


def fmt_num(x, spec: str = ".3f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def fmt_ci(lo, hi, spec: str = ".3f") -> str:
    return f"[{fmt_num(lo, spec)}, {fmt_num(hi, spec)}]"


def not_measured(label: str, why: str) -> ClaimPart:
    return ClaimPart(label, "-", "-", NOT_MEASURED, note=why)


