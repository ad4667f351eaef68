"""The context a report's sections and claims are computed in: the runs given (the first
is the *primary* one every section describes), the report settings and a cache of the
primary run's metrics."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from deepsim.report import metrics as M
from deepsim.report.config import ReportConfig
from deepsim.report.load import RunData
from deepsim.report.verdicts import Claim

__all__ = ["Context"]

_IGNORED_PARAMS = ("name", "title", "rulebook")


class Context:
    """The runs a report was given and a cache of the primary run's metrics."""

    def __init__(self, primary: RunData, others: list[RunData] | None = None,
                 config: ReportConfig | None = None):
        self.primary = primary
        self.others = list(others or [])
        self.config = config or ReportConfig.for_ruleset(primary.rs.report_options)
        self._cache: dict = {}

    @property
    def runs(self) -> list[RunData]:
        return [self.primary, *self.others]

    @property
    def rs(self):
        """The primary run's ruleset (:class:`deepsim.rulesets.base.Ruleset`)."""
        return self.cached("ruleset", lambda: self.primary.rs)

    def run_labels(self) -> list[str]:
        """A short label per run of :attr:`runs` naming the rule parameters that tell the
        runs apart (``combat.hit_faces=[5, 6]``); runs with the same rules are told apart by
        seed, then by folder name. Labels are unique."""
        runs = self.runs
        paths = sorted(set().union(*(self._diff_paths(r) for r in runs[1:])) if runs[1:]
                       else set())
        labels = []
        for run in runs:
            bits = [f"{p}={run.param(p)}" for p in paths]
            labels.append(", ".join(bits))
        if len(set(labels)) < len(labels) and len({str(r.seed) for r in runs}) == len(runs):
            labels = [", ".join(filter(None, [lbl, f"seed {r.seed}"]))
                      for lbl, r in zip(labels, runs, strict=True)]
        if len(set(labels)) < len(labels):
            labels = [", ".join(filter(None, [lbl, r.path.name]))
                      for lbl, r in zip(labels, runs, strict=True)]
        return [lbl or "primary run" for lbl in labels]

    def cached(self, key, fn: Callable):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    @property
    def balance_seats(self) -> pd.DataFrame:
        """The primary run's seats without the baseline bots' (fair share renormalised):
        what every balance headline and verdict reads (:meth:`RunData.balance_seats`)."""
        return self.primary.balance_seats()[0]

    def baseline_note(self, run: RunData | None = None) -> str:
        """``baseline bots (random, cautious) left out: N seat-games`` ('' when none)."""
        run = run or self.primary
        n = run.balance_seats()[1]
        if not n:
            return ""
        return (f"baseline bots ({', '.join(run.baseline_bots)}) left out: {n:,} "
                f"seat-games")

    def baseline_text(self) -> str:
        """' Baseline bots (...) left out: N seat-games; ...' for a balance table's text
        ('' when the run has none)."""
        note = self.baseline_note()
        if not note:
            return ""
        return (f" {note[0].upper()}{note[1:]} (yardstick styles, `baseline: true` in "
                f"`bots.yaml`: their seats would pass the bots' weakness off as the game's); "
                f"the fair share of the seats kept is their mean win at each player count.")

    def win_shares(self, by: str, balance: bool | None = None) -> pd.DataFrame:
        """Win share table by ``by`` (:func:`deepsim.report.metrics.win_share_table`).
        ``balance`` (default: every grouping but the bot style) reads
        :attr:`balance_seats`: baseline bots left out, fair share = the kept seats' mean
        win at each player count."""
        c = self.config
        if balance is None:
            balance = by != "bot"
        seats = self.balance_seats if balance else self.primary.seats
        return self.cached(("ws", by, balance), lambda: M.win_share_table(
            seats, by, alpha=c.alpha, min_ratio=c.min_ratio, max_rel_width=c.max_rel_width,
            max_ratio=c.max_ratio))

    def diff_paths(self, run: RunData) -> set[str]:
        """Rule parameters whose value in ``run`` differs from the primary run's."""
        return self._diff_paths(run)

    def one_gap_variations(self) -> list[tuple[RunData, str]]:
        """The other runs whose rules differ from the primary's in exactly one parameter,
        with that parameter's path."""
        out = []
        for run in self.others:
            diff = self._diff_paths(run)
            if len(diff) == 1:
                out.append((run, next(iter(diff))))
        return out

    def _diff_paths(self, run: RunData) -> set[str]:
        a, b = self.primary.params, run.params
        keys = (set(a) | set(b)) - set(_IGNORED_PARAMS)
        return {k for k in keys if a.get(k) != b.get(k)}

    def variants(self, path: str) -> dict:
        """Runs whose rule parameters differ from the primary's at most in ``path``,
        keyed by their value of ``path`` (the run with the most games per value)."""
        out: dict = {}
        for run in self.runs:
            if run is not self.primary and not self._diff_paths(run) <= {path}:
                continue
            value = run.param(path)
            if value is None and run is not self.primary:
                continue
            if value not in out or run.n_games > out[value].n_games:
                out[value] = run
        return out

    def interpretation(self, claim: Claim, run: RunData | None = None) -> str:
        run = run or self.primary
        bits = []
        for path in claim.params:
            if "*" in path or " " in path:
                bits.append(path)
            elif path in run.params:
                bits.append(f"{path}={run.params[path]}")
        return "; ".join(bits)


