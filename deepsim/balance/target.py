"""What "fair" means for ``deepsim balance``: the target and its violation.

Three targets, each judging the games of one parameter point:

- ``verdicts`` (default): every faction viable and none too strong on the report's verdict
  scale (:mod:`deepsim.report.viability`: win share over fair share, baseline bots left
  out). The **violation** is how far the factions' ratios lie outside the viable band,
  summed: ``sum_f max(0, min_ratio - ratio_f) + max(0, ratio_f - max_ratio)`` (x fair), so a
  search can tell "nearly fair" from "far off"; the target is **met** when the violation is
  0 and no verdict is ``not viable`` or ``too strong``. A co-operative ruleset: the party's
  win rate within ``coop_band`` of the designer's target (``victory_error``, points); the
  violation is the distance beyond the band, in points / 100.
- ``expect``: the scenario's ``expect:`` block judged as ``deepsim check`` judges it (one
  look, Bonferroni over the block's tests, :func:`deepsim.gate.check.check_prepared`). The
  violation is the number of tests that fail plus half the inconclusive ones; met when every
  test passes.
- ``require``: only the ``--require`` numbers (below), no faction verdicts: for a question
  that is not about factions (the start player's edge), or a ruleset whose "factions" are
  bot styles (Abyss), whose strength no printed number should be bent to even out.

With ``verdicts`` (or alone, with ``require``), a designer adds numbers of the metric language as **requirements**
(``--require "win_ratio[seat=1]<=1.1"``, ``SPEC<=X`` or ``SPEC>=X`` in the metric's unit:
percent for shares, x fair for ratios): a requirement's point estimate beyond its bound
adds its distance over ``max(|X|, 1)`` to the violation; confirmed only when its interval
lies within the bound.

A target judged on confirmation games is **confirmed** only when its verdicts are
decided: every faction ``viable`` (never ``inconclusive``), every expectation and
requirement ``pass``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import pandas as pd

from deepsim.errors import InputError
from deepsim.report import viability as V

__all__ = ["TARGETS", "Judgement", "Requirement", "Target", "make_target",
           "paired_changes", "parse_requirement"]

TARGETS = ("verdicts", "expect", "require")
_REQ = re.compile(r"^(?P<spec>.+?)\s*(?P<op><=|>=)\s*(?P<x>-?[0-9]*\.?[0-9]+)\s*%?\s*$")


@dataclass
class Requirement:
    """``SPEC<=X`` or ``SPEC>=X``: one number of the metric language and its bound."""

    text: str
    spec: str
    op: str
    bound: float
    objective: object = None

    def judge(self, games: pd.DataFrame, seats: pd.DataFrame) -> tuple[dict, float, bool,
                                                                       bool]:
        """(table row, violation, met on the point, confirmed on the interval)."""
        value, _ = self.objective.evaluate(games, seats)
        v, lo, hi = float(value.value), float(value.low), float(value.high)
        beyond = (v - self.bound) if self.op == "<=" else (self.bound - v)
        viol = max(0.0, beyond) / max(abs(self.bound), 1.0) if math.isfinite(v) else 1.0
        inside = (hi <= self.bound) if self.op == "<=" else (lo >= self.bound)
        outside = (lo > self.bound) if self.op == "<=" else (hi < self.bound)
        word = "pass" if inside else "fail" if outside else "inconclusive"
        row = {"name": self.text, "value": v, "low": lo, "high": hi,
               "win_share": math.nan, "games": value.n, "verdict": word}
        return row, viol, viol == 0.0, inside


def parse_requirement(text: str, ruleset, prepared, alpha: float = 0.05) -> Requirement:
    """Parse and bind ``SPEC<=X`` / ``SPEC>=X`` against a prepared scenario's results.

    Raises
    ------
    InputError
        Not of that form, or a SPEC the metric language refuses or that names several
        numbers (key ``--require``).
    """
    from deepsim.measure.spec import target_of
    from deepsim.tune.objectives import parse_objective, probe_universe

    m = _REQ.match(str(text))
    if not m:
        raise InputError(f"expected SPEC<=X or SPEC>=X (e.g. win_ratio[seat=1]<=1.1), got "
                         f"{text!r}", key="--require")
    try:
        obj = parse_objective(m.group("spec"), target_rounds=target_of(ruleset), alpha=alpha,
                              group_columns=getattr(ruleset, "group_columns", None))
        obj.bind(probe_universe(ruleset, prepared))
    except InputError as exc:
        raise InputError(f"{text}: {exc.message}", key="--require") from None
    if len(obj.terms) != 1:
        raise InputError(f"{text}: a requirement is one number, not a sum", key="--require")
    return Requirement(str(text), m.group("spec").strip(), m.group("op"),
                       float(m.group("x")), obj)


@dataclass
class Judgement:
    """A point's games judged against the target.

    ``violation`` (>= 0, 0 when met), ``met`` (the search's test), ``confirmed`` (decided:
    no inconclusive verdict), ``table`` (one row per faction or expectation: name, value,
    low, high, verdict) and ``note`` (the worst offender, in words)."""

    violation: float
    met: bool
    confirmed: bool
    table: pd.DataFrame
    note: str = ""
    counts: dict = field(default_factory=dict)


@dataclass
class Target:
    """A target bound to a ruleset (:func:`make_target`)."""

    name: str
    ruleset: object
    lines: V.Lines = V.DEFAULT
    coop_band: float = 5.0
    baseline: tuple = ()
    expectations: list | None = None
    source: str = ""
    lines_of_source: dict | None = None
    requirements: list = field(default_factory=list)

    @property
    def cooperative(self) -> bool:
        return bool(getattr(self.ruleset, "cooperative", False))

    def describe(self) -> str:
        if self.name == "expect":
            return "the scenario's expect: block passes (as deepsim check judges it)"
        extra = "".join(f"; {r.text}" for r in self.requirements)
        if self.name == "require":
            return "every requirement met: " + ", ".join(r.text for r in self.requirements)
        if self.cooperative:
            return (f"the party's win rate within {self.coop_band:g} points of the "
                    f"target{extra}")
        return (f"every {self.ruleset.faction_label} viable and none too strong "
                f"({V.rule_text(self.lines, holm=False)}){extra}")

    def judge(self, prepared, games: pd.DataFrame, seats: pd.DataFrame) -> Judgement:
        """Judge one point's games: the verdicts (or the party) and the requirements."""
        j = self._judge(prepared, games, seats)
        if not self.requirements:
            return j
        rows = []
        for req in self.requirements:
            row, viol, met, confirmed = req.judge(games, seats)
            rows.append(row)
            j.violation += viol
            j.met = j.met and met
            j.confirmed = j.confirmed and confirmed and met
            if viol > 0 and not j.note:
                j.note = f"{req.text}: {row['value']:.4g}"
        j.table = (pd.DataFrame(rows) if j.table.empty else
                   pd.concat([j.table, pd.DataFrame(rows)], ignore_index=True))
        return j

    def _judge(self, prepared, games: pd.DataFrame, seats: pd.DataFrame) -> Judgement:
        """Judge one point's games (``games``/``seats`` as ``run_chunk`` returns them, the
        columns the target needs: faction column, ``win``, ``fair``, ``bot``,
        ``players``)."""
        if self.name == "expect":
            raise AssertionError("expect targets are judged by judge_expect")
        if self.name == "require":
            # only the requirements (added by judge)
            return Judgement(0.0, True, True, pd.DataFrame(columns=[
                "name", "value", "low", "high", "win_share", "games", "verdict"]))
        if self.cooperative:
            return self._coop(prepared, games, seats)
        kept, _ = V.balance_seats(seats, self.baseline)
        col = self.ruleset.faction_column
        t = V.table(kept, col, self.lines)
        ratio = t["ratio"].to_numpy(float)
        over = (ratio - self.lines.max_ratio).clip(min=0)
        under = (self.lines.min_ratio - ratio).clip(min=0)
        violation = float(over.sum() + under.sum())
        c = V.counts(t["verdict"])
        met = violation == 0.0 and c[V.NOT_VIABLE] == 0 and c[V.TOO_STRONG] == 0
        confirmed = met and c[V.INCONCLUSIVE] == 0
        out = pd.DataFrame({"name": t[col].astype(str), "value": ratio,
                            "low": t["ratio_low"].to_numpy(float),
                            "high": t["ratio_high"].to_numpy(float),
                            "win_share": 100 * t["win_share"].to_numpy(float),
                            "games": t["games"].to_numpy(), "verdict": t["verdict"]})
        note = ""
        if len(out):
            worst = int((over + under).argmax())
            if over[worst] + under[worst] > 0:
                note = f"{out['name'].iloc[worst]} {ratio[worst]:.2f}x fair"
        return Judgement(violation, met, confirmed, out, note, c)

    def _coop(self, prepared, games, seats) -> Judgement:
        from deepsim.tune.objectives import parse_objective, probe_universe

        obj = parse_objective("victory_error")
        obj.bind(probe_universe(self.ruleset, prepared))
        value, _ = obj.evaluate(games, seats)
        violation = max(0.0, float(value.value) - self.coop_band) / 100.0
        met = violation == 0.0
        confirmed = met and float(value.high) <= self.coop_band
        word = "on target" if confirmed else ("off target" if not met else "inconclusive")
        table = pd.DataFrame({"name": ["party"], "value": [value.value],
                              "low": [value.low], "high": [value.high],
                              "win_share": [math.nan], "games": [value.n],
                              "verdict": [word]})
        return Judgement(violation, met, confirmed, table,
                         "" if met else f"party {value.value:.1f} points off target")

    def judge_expect(self, ruleset, prepared, games_count: int, alpha: float) -> Judgement:
        """The scenario's ``expect:`` block on ``prepared``'s games ``0 .. games_count-1``."""
        from deepsim.gate.check import check_prepared
        from deepsim.gate.expect import FAIL, INCONCLUSIVE, PASS

        res = check_prepared(ruleset, prepared, self.expectations, source=self.source,
                             lines=self.lines_of_source or {}, looks=[games_count],
                             alphas=[alpha], alpha=alpha, sequential=False,
                             spending="pocock", overrides=[])
        rows = [{"name": r.instance.spec, "value": r.estimate.value, "low": r.estimate.low,
                 "high": r.estimate.high, "win_share": math.nan, "games": r.games,
                 "verdict": r.verdict} for r in res.rows]
        c = res.counts
        violation = float(c[FAIL] + 0.5 * c[INCONCLUSIVE])
        met = c[FAIL] == 0 and c[INCONCLUSIVE] == 0 and c[PASS] > 0
        bad = [r["name"] for r in rows if r["verdict"] == FAIL]
        return Judgement(violation, met, met, pd.DataFrame(rows),
                         ("fails: " + ", ".join(bad[:3])) if bad else "", dict(c))


def paired_changes(target: Target, before: tuple[pd.DataFrame, pd.DataFrame],
                   after: tuple[pd.DataFrame, pd.DataFrame]) -> pd.DataFrame:
    """Each faction's change of win share over fair share, after - before, on the same
    games (common random numbers): ``name``, ``change``, ``change_low``, ``change_high``
    (normal interval at ``target.lines.alpha`` from the per-game paired differences,
    :func:`deepsim.measure.paired`). Empty for a co-operative or ``expect`` target."""
    from scipy.stats import norm

    from deepsim.measure import METRICS, Instance, Selection, measure, paired

    if target.name != "verdicts" or target.cooperative:
        return pd.DataFrame()
    col = target.ruleset.faction_column
    kept_a, _ = V.balance_seats(before[1], target.baseline)
    kept_b, _ = V.balance_seats(after[1], target.baseline)
    z = float(norm.ppf(1 - target.lines.alpha / 2))
    rows = []
    names = sorted(set(kept_a[col].astype(str)) | set(kept_b[col].astype(str)))
    for name in names:
        inst = Instance(position=0, selection=Selection(metric="win_ratio"),
                        metric=METRICS["win_ratio"], by=col, groups=(name,))
        p = paired(measure(inst, before[0], kept_a), measure(inst, after[0], kept_b))
        rows.append({"name": name, "change": p.est, "change_low": p.est - z * p.se,
                     "change_high": p.est + z * p.se})
    return pd.DataFrame(rows)


def make_target(name: str, ruleset, prepared, scenario: dict, *, source: str,
                lines: V.Lines = V.DEFAULT, coop_band: float = 5.0,
                requirements: list[str] | None = None) -> Target:
    """The target ``name`` for a ruleset and its prepared scenario.

    Raises
    ------
    InputError
        An unknown target, or ``expect`` for a scenario without an ``expect:`` block (or a
        bad block: as ``deepsim check`` reports it).
    """
    if name not in TARGETS:
        raise InputError(f"unknown target {name!r}; expected one of {', '.join(TARGETS)}",
                         key="--target")
    baseline = tuple(getattr(prepared, "baseline_bots", ()) or ())
    if name == "expect" and requirements:
        raise InputError("--require goes with --target verdicts or require; with --target "
                         "expect, add the number to the scenario's expect: block",
                         key="--require")
    if name == "require" and not requirements:
        raise InputError("--target require needs at least one --require SPEC<=X (e.g. "
                         "'win_ratio[seat=1]<=1.1')", key="--target")
    if name == "expect":
        from deepsim.gate.expect import parse_expect
        from deepsim.scenario import LINES

        if not scenario.get("expect"):
            raise InputError("the scenario has no expect: block; use --target verdicts, or "
                             "add the block (deepsim check --init writes one)",
                             file=source, key="--target")
        src_lines = LINES.get(source, {})
        exps = parse_expect(scenario, source=source, lines=src_lines)
        return Target(name, ruleset, lines, coop_band, baseline, exps, source, src_lines)
    if name == "verdicts" and not getattr(ruleset, "cooperative", False) and not getattr(
            ruleset, "faction_column", None):
        raise InputError("this ruleset names no faction column; use --target expect",
                         key="--target")
    reqs = [parse_requirement(t, ruleset, prepared, lines.alpha) for t in requirements or []]
    return Target(name, ruleset, lines, coop_band, baseline, requirements=reqs)
