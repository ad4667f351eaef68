"""A scenario's ``expect:`` block: each expectation names one metric (or a metric per member
of a group) in the metric language of :mod:`deepsim.measure` and bounds it.

An expectation in YAML::

    expect:
      - name: every company is viable      # optional label
        metric: win_ratio[company]         # the metric language: one test per company
        within: [0.8, 1.25]                # or below: X, above: X (inclusive bounds)
      - metric: rounds[players]            # one test per player count
        within: [6.5, 9.5]
      - metric: feel_bad_mid[bot=cautious+balanced+greedy+martyr]   # pooled: one test
        below: 12%

Shares are in percent (``below: 12`` or ``below: 12%``; a bare ``0.6`` is refused as
ambiguous, see :func:`deepsim.measure.spec.parse_amount`), ``win_edge`` and spreads in
percentage points, ``win_ratio`` in multiples of the fair share.

The old keys ``by:``, ``group:``, ``exclude:``, ``pool:`` and ``players:`` (beside a plain
``metric:`` name) keep working; each such expectation gets a deprecation line naming its
new spelling.

Every metric is one number of the balance report (:mod:`deepsim.report.metrics`), with
the report's intervals (:mod:`deepsim.measure.values`).
"""

from __future__ import annotations

import math

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    model_validator,
)

from deepsim.errors import InputError
from deepsim.measure.names import ALIASES, METRICS, Metric, known_metrics_text
from deepsim.measure.spec import (
    Instance,
    Selection,
    Universe,
    expand,
    parse_amount,
    parse_metric_spec,
    player_counts,
    target_of,
    universe_from_frames,
)
from deepsim.measure.values import Estimate, columns_needed, estimate, observe
from deepsim.params import validate
from deepsim.report.verdicts import FAILS, HOLDS, region_verdict

__all__ = [
    "ALIASES", "FAIL", "INCONCLUSIVE", "METRICS", "PASS", "Estimate",
    "Expectation", "Instance", "Metric", "Selection", "Universe", "columns_needed",
    "estimate", "expand", "known_metrics_text", "observe",
    "parse_expect", "parse_metric_spec", "player_counts", "target_of", "universe_from_frames",
    "verdict",
]

PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
_LEGACY_KEYS = ("by", "group", "exclude", "pool", "players")


class Expectation(Selection):
    """A selection with bounds: ``within: [lo, hi]``, or ``below``/``above`` (inclusive)."""

    name: str | None = None
    within: list[float | str] | None = None
    below: float | str | None = None
    above: float | str | None = None
    # filled by the validator: the bounds as numbers in the metric's unit
    _lo: float = PrivateAttr(-math.inf)
    _hi: float = PrivateAttr(math.inf)

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high) in the metric's unit; an open side is infinite."""
        return self._lo, self._hi

    @model_validator(mode="after")
    def _bounds(self):
        legacy = [k for k in _LEGACY_KEYS if k in self.model_fields_set]
        if "[" in self.metric:
            if legacy:
                raise ValueError(f"'metric: {self.metric}' already selects its groups and "
                                 f"player counts; drop {', '.join(repr(k) for k in legacy)}")
            try:
                sel = parse_metric_spec(self.metric, key="metric", group_columns=None)
            except InputError as exc:
                raise ValueError(exc.message) from None
            for k in ("metric", "by", "group", "exclude", "pool", "players", "players_pool"):
                setattr(self, k, getattr(sel, k))
            self.notes.extend(sel.notes)
        else:
            self.checked()
        if legacy:
            self.notes.append(f"'{', '.join(f'{k}:' for k in legacy)}' beside 'metric: "
                              f"{self.metric}' are deprecated; write 'metric: "
                              f"{self.spelling()}'")
        m = METRICS.get(self.metric)
        if self.within is not None:
            if self.below is not None or self.above is not None:
                raise ValueError("give either 'within: [low, high]' or 'below'/'above', "
                                 "not both")
            if len(self.within) != 2:
                raise ValueError(f"'within' takes two numbers [low, high], got "
                                 f"{self.within!r}")
            lo, hi = (parse_amount(v, m, "within", name=self.metric) for v in self.within)
        elif self.below is None and self.above is None:
            raise ValueError("no bound: give 'within: [low, high]', 'below: X' or "
                             "'above: X'")
        else:
            lo = parse_amount(self.above, m, "above", name=self.metric) if self.above is not None else -math.inf
            hi = parse_amount(self.below, m, "below", name=self.metric) if self.below is not None else math.inf
        if lo > hi:
            raise ValueError(f"empty bounds: low {lo:g} is above high {hi:g}")
        self._lo, self._hi = lo, hi
        return self


class ExpectBlock(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expect: list[Expectation] = Field(min_length=1)


def parse_expect(scenario: dict, *, source: str, lines: dict[str, int] | None = None
                 ) -> list[Expectation]:
    """Validate a scenario's ``expect:`` block.

    Raises
    ------
    InputError
        No block, or a problem naming the file, key path (``expect.2.metric``), line and
        what was expected; an unknown metric lists the known ones.
    """
    raw = scenario.get("expect")
    lines = lines or {}
    if raw is None:
        raise InputError("the scenario has no 'expect:' block; deepsim check needs one (a list "
                         "of expectations: a metric such as 'win_ratio[company]' or "
                         "'rounds[players=4]', and within, below or above)", file=source,
                         key="expect")
    if isinstance(raw, dict):  # a single expectation given as a mapping
        raise InputError("expected a list of expectations (each item starts with '- '), got "
                         "a mapping", file=source, key="expect", line=lines.get("expect"))
    block = validate(ExpectBlock, {"expect": raw}, source=source, lines=lines)
    return list(block.expect)


def verdict(inst: Instance, est: Estimate) -> str:
    """pass when the interval lies inside the bounds, fail when it lies outside, else
    inconclusive (:func:`deepsim.report.verdicts.region_verdict`, the report's rule).

    A zero-width interval from a normal approximation (no variation seen yet) decides
    nothing.
    """
    if est.clusters == 0 or (est.width == 0 and not est.method.startswith("Wilson")):
        return INCONCLUSIVE
    v = region_verdict(est.low, est.high, inst.lo, inst.hi)
    return PASS if v == HOLDS else FAIL if v == FAILS else INCONCLUSIVE
