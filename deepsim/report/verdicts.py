"""Claims and verdicts: how a report turns a measured interval into ``holds`` / ``fails``.

A ruleset's claims (its rulebook's statements, :meth:`deepsim.rulesets.base.Ruleset.
report_claims`) are :class:`Claim` objects measured into :class:`ClaimResult` rows. A
verdict is one of:

- ``holds``: the 95% interval of the measured quantity lies inside the region the claim
  asserts;
- ``fails``: the interval lies entirely outside it;
- ``inconclusive``: the interval straddles the border at this sample size;
- ``not measured``: the run(s) given cannot measure it; the row says which run is needed;
- ``untestable as worded``: the instrument failed its calibration (on a reference whose
  answer is known it did not give that answer), so no run can decide it.

A claim made of several parts holds when every measured part holds and fails when any
part fails. A claim read more than one way (:attr:`ClaimResult.readings`: alternative
readings, each judged on its own) gets one verdict per reading, each over the parts of
that reading (its conjuncts, :attr:`ClaimPart.readings`); the claim's verdict names the
readings under which it holds (``holds (under 1 of 4 readings)``). The thresholds of a
ruleset's claims are its report options (:class:`deepsim.report.config.ReportOption`),
fixed before looking at the data and printed
with every report.

Distances (claims as tune objectives, ``deepsim tune --objective claims``): a part may carry
``distance``, how far its *point estimate* lies outside the region the claim asserts, in
multiples of the claim's own tolerance (:class:`Region` ``scale``: e.g. the rounds
tolerance for a length claim, ``touch_max`` for "a touch strong", the "almost never" cap
for a rare-event share). It is computed by the same :class:`Region` as the verdict and is
exactly 0 when the part's verdict is ``holds``, at least :data:`MIN_FAIL_DISTANCE` when it
is ``fails`` (a point on an open border), and the point's distance when ``inconclusive``.
Within a part judged over groups (player counts, companies) the worst group's distance
counts, as the worst group decides the verdict. A claim's distance is the sum of its
measured parts' (:func:`claim_distance`); parts not measured on the run (another run's
reading) are left out and named.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["FAILS", "HOLDS", "INCONCLUSIVE", "MIN_FAIL_DISTANCE", "NOT_MEASURED",
           "UNTESTABLE", "Claim", "ClaimPart", "ClaimResult", "Region", "claim_distance",
           "combine", "fmt_ci", "fmt_num", "not_measured", "part_distance", "region_verdict",
           "short_verdict", "verdict_word"]

HOLDS, FAILS, INCONCLUSIVE, NOT_MEASURED = "holds", "fails", "inconclusive", "not measured"
UNTESTABLE = "untestable as worded"


def verdict_word(verdict: str) -> str:
    """The verdict without its parenthesised qualifier: ``holds (under 1 of 2 readings)``
    -> ``holds``."""
    return verdict.split(" (")[0]


def short_verdict(verdict: str) -> str:
    """The verdict's word for a narrow table cell, ``*`` when a part was not measured."""
    v = str(verdict)
    return verdict_word(v) + ("*" if "part not measured" in v else "")


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
    #: distance of the point estimate from the holds region, in tolerance multiples
    #: (:func:`part_distance`); None: the part has no distance (not measured)
    distance: float | None = None
    #: keys of the claim's readings this part is a conjunct of (empty: every reading)
    readings: tuple[str, ...] = ()


def _combine_parts(parts: list[ClaimPart]) -> str:
    measured = [p.verdict for p in parts if p.verdict != NOT_MEASURED]
    if not measured:
        return NOT_MEASURED
    v = combine(measured)
    if len(measured) < len(parts):
        v += " (part not measured)"
    return v


@dataclass
class ClaimResult:
    """A claim's parts, its verdict (one per reading when it has several) and the rule
    reading that produced it.

    ``readings``: the claim's alternative readings, key -> label, in order (empty: one
    reading, every part a conjunct). ``untestable``: reading key -> why its instrument
    failed calibration (that reading's verdict is :data:`UNTESTABLE`).
    """

    claim: Claim
    parts: list[ClaimPart] = field(default_factory=list)
    interpretation: str = ""
    readings: dict[str, str] = field(default_factory=dict)
    untestable: dict[str, str] = field(default_factory=dict)

    def reading_parts(self, key: str) -> list[ClaimPart]:
        """The conjuncts of reading ``key``."""
        return [p for p in self.parts if not p.readings or key in p.readings]

    def reading_verdicts(self) -> dict[str, str]:
        """Reading key -> its verdict (``{"": verdict}`` for a claim of one reading)."""
        if not self.readings:
            return {"": _combine_parts(self.parts)}
        return {k: UNTESTABLE if k in self.untestable else _combine_parts(
            self.reading_parts(k)) for k in self.readings}

    @property
    def verdict(self) -> str:
        if not self.readings:
            return _combine_parts(self.parts)
        rv = self.reading_verdicts()
        words = [verdict_word(v) for v in rv.values()]
        measured = [w for w in words if w != NOT_MEASURED]
        testable = [w for w in measured if w != UNTESTABLE]
        if not measured:
            return NOT_MEASURED
        if not testable:
            return UNTESTABLE
        notes = []
        if any(w == HOLDS for w in testable):
            v = HOLDS
            if len([w for w in testable if w == HOLDS]) < len(testable):
                notes.append(f"under {sum(w == HOLDS for w in testable)} of "
                             f"{len(testable)} readings")
        else:
            v = FAILS if all(w == FAILS for w in testable) else INCONCLUSIVE
        if len(testable) < len(measured):
            notes.append(f"{len(measured) - len(testable)} untestable as worded")
        if any(p.verdict == NOT_MEASURED for p in self.parts):
            notes.append("part not measured")
        return v + (f" ({'; '.join(notes)})" if notes else "")


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


#: The smallest distance of a part that fails (its point on an open border of the region).
MIN_FAIL_DISTANCE = 1e-6


@dataclass(frozen=True)
class Region:
    """The region a claim part asserts, ``[lo, hi]`` (``(lo, hi]`` when ``lo_open``), and the
    tolerance ``scale`` its distances are measured in (> 0, in the quantity's unit)."""

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    scale: float = 1.0

    def verdict(self, low: float, high: float) -> str:
        """:func:`region_verdict` of the interval ``[low, high]``."""
        return region_verdict(low, high, self.lo, self.hi, lo_open=self.lo_open)

    def raw_distance(self, point: float) -> float:
        """``max(lo - point, point - hi, 0) / scale`` (NaN point: NaN)."""
        if point is None or (isinstance(point, float) and math.isnan(point)):
            return math.nan
        d = max(self.lo - point, point - self.hi, 0.0)
        if d == 0.0 and self.lo_open and point <= self.lo:
            d = MIN_FAIL_DISTANCE * self.scale
        return float(d / self.scale)

    def part(self, point: float, low: float, high: float) -> tuple[str, float]:
        """(verdict of ``[low, high]``, :func:`part_distance` of ``point``)."""
        v = self.verdict(low, high)
        return v, part_distance(v, self.raw_distance(point))


def part_distance(verdict: str, raw: float) -> float:
    """A part's distance from its verdict and its point's raw distance: 0 when ``holds``;
    at least :data:`MIN_FAIL_DISTANCE` when ``fails``; else ``raw`` (NaN: 0 when holds, NaN
    otherwise)."""
    if verdict == HOLDS:
        return 0.0
    if verdict == FAILS:
        return max(raw, MIN_FAIL_DISTANCE) if not math.isnan(raw) else 1.0
    return raw


def _sum_distance(parts: list[ClaimPart]) -> tuple[float, list[str]]:
    total, used, left = 0.0, 0, []
    for p in parts:
        if p.verdict == NOT_MEASURED or p.distance is None or math.isnan(p.distance):
            left.append(p.label)
            continue
        total += p.distance
        used += 1
    return (total if used else math.nan), left


def claim_distance(result: ClaimResult) -> tuple[float, list[str]]:
    """(sum of the measured parts' distances, labels of the parts left out). NaN when no
    part has a distance. A claim of several readings: the smallest such sum over its
    testable readings (the claim holds when one reading does)."""
    if not result.readings:
        return _sum_distance(result.parts)
    best = math.nan
    for key in result.readings:
        if key in result.untestable:
            continue
        d, _ = _sum_distance(result.reading_parts(key))
        if not math.isnan(d) and (math.isnan(best) or d < best):
            best = d
    left = [p.label for p in result.parts
            if p.verdict == NOT_MEASURED or p.distance is None or math.isnan(p.distance)]
    return best, left


def fmt_num(x, spec: str = ".3f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def fmt_ci(lo, hi, spec: str = ".3f") -> str:
    return f"[{fmt_num(lo, spec)}, {fmt_num(hi, spec)}]"


def not_measured(label: str, why: str) -> ClaimPart:
    return ClaimPart(label, "-", "-", NOT_MEASURED, note=why)


