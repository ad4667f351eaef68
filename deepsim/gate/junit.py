"""JUnit XML for ``deepsim check --junit PATH``, written with ``junitparser``.

One ``<testsuite>`` per check (named after the scenario) and one ``<testcase>`` per single
test (an expectation for one group and player count), so a CI system lists every
expectation: a failed expectation is a ``<failure>``, an inconclusive one is
``<skipped>`` (its message says why: the interval still straddles a bound after the game
budget; the command's exit code 3 still tells CI), a passed one has no result element.
Every case's ``<system-out>`` holds the measured value, the interval and its level.
"""

from __future__ import annotations

import math
from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from deepsim.atomic import atomic_path
from deepsim.gate.check import CheckResult, level_text, member_names
from deepsim.gate.expect import FAIL, INCONCLUSIVE

__all__ = ["junit_xml", "write_junit"]


def _fmt(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.4g}"


def junit_xml(result: CheckResult) -> JUnitXml:
    """The check as a ``JUnitXml`` document (one suite, one case per single test)."""
    suite = TestSuite(f"deepsim check {result.scenario_name}")
    for key, value in (("scenario", result.source), ("ruleset", result.ruleset),
                       ("seed", str(result.seed)), ("games", str(result.games_played)),
                       ("alpha", f"{result.alpha:g}"), ("tests", str(result.k)),
                       ("method", result.method),
                       ("overrides", " ".join(result.overrides) or "-")):
        suite.add_property(key, value)
    classname = f"deepsim.check.{result.scenario_name}"
    names = member_names(result.rows)
    for i, row in enumerate(result.rows, 1):
        inst, est = row.instance, row.estimate
        case = TestCase(f"{i:03d} {names[i - 1]}: {inst.spec} {inst.bound_text}", classname,
                        0.0)
        detail = (f"{inst.title}\nmeasured {_fmt(est.value)} {inst.metric.unit}, "
                  f"{level_text(row.alpha)} interval [{_fmt(est.low)}, {_fmt(est.high)}] "
                  f"({est.method}), bound {inst.bound_text}, {row.games:,} games, "
                  f"look {row.look}: {row.verdict}")
        if row.verdict == FAIL:
            f = Failure(f"interval [{_fmt(est.low)}, {_fmt(est.high)}] {inst.metric.unit} lies "
                        f"outside {inst.bound_text}", "fail")
            f.text = detail
            case.result = [f]
        elif row.verdict == INCONCLUSIVE:
            case.result = [Skipped(f"inconclusive after {row.games:,} games: interval "
                                   f"[{_fmt(est.low)}, {_fmt(est.high)}] {inst.metric.unit} "
                                   f"straddles {inst.bound_text}")]
        case.system_out = detail
        suite.add_testcase(case)
    suite.time = round(result.elapsed_s, 3)
    suite.update_statistics()
    doc = JUnitXml("deepsim check")
    doc.add_testsuite(suite)
    return doc


def write_junit(result: CheckResult, path: Path | str) -> Path:
    """Write the JUnit XML of ``result`` to ``path`` atomically; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = junit_xml(result)
    with atomic_path(path) as tmp:
        doc.write(str(tmp), pretty=True)
    return path
