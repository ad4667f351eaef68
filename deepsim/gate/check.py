"""``deepsim check SCENARIO``: judge a scenario's ``expect:`` block on freshly played games.

Each expectation (one per group and player count, see :mod:`deepsim.gate.expect`) is
judged by an interval, never a point estimate: **pass** when the interval lies inside the
bounds, **fail** when it lies outside, **inconclusive** otherwise.

Family-wise error control: the ``k`` single tests share ``alpha`` equally (Bonferroni: each
interval has level ``1 - alpha/k``), so the chance that any true expectation fails (or any
false one passes) is at most ``alpha``. Without ``--sequential`` there is one look at
``--games`` (default: the scenario's ``games``). With ``--sequential`` the games come in
looks up to ``--max-games`` and ``alpha`` is spent over the looks (Lan-DeMets spending
with the union bound, :mod:`deepsim.gate.sequential`); an expectation is decided at the
first look whose interval settles it and play stops once every expectation is decided.

Deterministic: the games of a look depend only on (seed, game index) and the look schedule
only on the game counts, so the same seed gives the same verdicts on any machine, chunk size
and thread count.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from deepsim import runner
from deepsim.errors import InputError
from deepsim.gate import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS
from deepsim.gate.expect import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    Estimate,
    Instance,
    expand,
    parse_expect,
    player_counts,
    target_of,
    universe_from_frames,
    verdict,
)
from deepsim.gate.sequential import look_alphas, schedule
from deepsim.measure.values import Codes, Obs, columns_needed, concat, estimate_obs, measure

__all__ = ["CheckResult", "Row", "check_prepared", "run_check"]

ProgressFn = Callable[[int, int], None]


@dataclass
class Row:
    """One single test's result: its verdict, the estimate and interval it was decided on
    (or the last one), the interval's alpha and the games played then."""

    instance: Instance
    verdict: str
    estimate: Estimate
    alpha: float
    games: int
    look: int


@dataclass
class CheckResult:
    """Everything ``deepsim check`` prints and writes."""

    scenario_name: str
    source: str
    ruleset: str
    seed: int
    overrides: list[str]
    alpha: float
    sequential: bool
    spending: str
    planned_looks: list[int]
    looks_done: list[int]
    k: int
    rows: list[Row]
    not_played: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    stopped_early: str = ""
    #: deprecation lines of old spellings in the expect: block
    notes: list[str] = field(default_factory=list)

    @property
    def games_played(self) -> int:
        return self.looks_done[-1] if self.looks_done else 0

    @property
    def counts(self) -> dict[str, int]:
        out = {PASS: 0, FAIL: 0, INCONCLUSIVE: 0}
        for r in self.rows:
            out[r.verdict] += 1
        return out

    @property
    def exit_code(self) -> int:
        c = self.counts
        if c[FAIL]:
            return EXIT_FAIL
        if c[INCONCLUSIVE]:
            return EXIT_INCONCLUSIVE
        return EXIT_PASS

    @property
    def method(self) -> str:
        fam = (f"family-wise alpha {self.alpha:g} over {self.k} tests (Bonferroni: each "
               f"interval at alpha/{self.k})")
        if not self.sequential:
            return f"one look at {self.planned_looks[-1]:,} games; {fam}"
        return (f"sequential: looks at {', '.join(f'{n:,}' for n in self.planned_looks)} "
                f"games, Lan-DeMets {self.spending} alpha spending with the union bound over "
                f"looks; {fam}")


def run_check(scenario_path: Path | str, *, games: int | None = None, seed: int | None = None,
              overrides: list[str] | None = None, alpha: float = 0.05,
              sequential: bool = False, max_games: int | None = None,
              min_games: int | None = None, spending: str = "pocock",
              threads: int | None = None, fail_fast: bool = False,
              progress: ProgressFn | None = None) -> CheckResult:
    """Load a scenario, validate its ``expect:`` block and judge it (see the module doc).

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML with an ``expect:`` block.
    games : int, optional
        Games for the single look (default: the scenario's ``games``); with
        ``sequential``, the default of ``max_games``.
    seed : int, optional
        Master seed (default: the scenario's).
    overrides : list of str, optional
        ``path=value`` ruleset overrides (``--set``).
    alpha : float
        Family-wise error rate, 0 < alpha < 1.
    sequential : bool
        Play in looks up to ``max_games`` and stop once every expectation is decided.
    max_games, min_games : int, optional
        Budget and first look of the sequential schedule.
    spending : {"pocock", "obf"}
        Lan-DeMets spending function.
    threads : int, optional
        numba threads (the verdicts do not depend on it).
    fail_fast : bool
        Stop after the first look with a failed expectation.
    progress : callable(done, total), optional

    Returns
    -------
    CheckResult

    Raises
    ------
    InputError
        Bad scenario, ``expect:`` block, option or override (before any game is played but
        one probe game, which reads the group names).
    """
    source = str(scenario_path)
    runner.set_threads(threads)
    if not 0.0 < alpha < 1.0:
        raise InputError(f"expected 0 < alpha < 1, got {alpha}", key="--alpha")
    if games is not None:
        runner.check_count(games, "--games", 1)
    ruleset, scenario, prepared = runner.resolve(scenario_path, seed=seed, games=games,
                                                 overrides=list(overrides or []))
    from deepsim.scenario import LINES

    lines = LINES.get(source, {})
    expectations = parse_expect(scenario, source=source, lines=lines)
    # the prepared count: with rotate_seats, each of `games` deals in every rotation
    budget = int(prepared.scenario.get("games", scenario["games"]))
    if sequential:
        budget = int(max_games if max_games is not None else budget)
        looks = schedule(budget, min_games)
        alphas = look_alphas(looks, budget, alpha, spending)
    else:
        if max_games is not None or min_games is not None:
            raise InputError("--max-games and --min-games need --sequential; without it, "
                             "--games sets the one look", key="--max-games")
        looks, alphas = [budget], [alpha]
    return check_prepared(ruleset, prepared, expectations, source=source, lines=lines,
                          looks=looks, alphas=alphas, alpha=alpha, sequential=sequential,
                          spending=spending, overrides=list(overrides or []),
                          fail_fast=fail_fast, progress=progress)


def check_prepared(ruleset, prepared, expectations, *, source: str, lines: dict,
                   looks: list[int], alphas: list[float], alpha: float, sequential: bool,
                   spending: str, overrides: list[str], fail_fast: bool = False,
                   progress: ProgressFn | None = None) -> CheckResult:
    """Judge ``expectations`` on a prepared scenario at the given looks (game counts) with
    the given per-look family alpha (see :func:`run_check`)."""
    t0 = time.perf_counter()
    resolved = prepared.scenario
    chunk = int(resolved.get("chunk_size") or 50_000)
    g_probe, s_probe = ruleset.run_chunk(prepared, 0, 1)
    universe = universe_from_frames(g_probe, s_probe, player_counts(resolved, s_probe),
                                    ruleset.group_columns, ruleset.faction_column)
    instances = expand(expectations, universe, source=source, lines=lines,
                       target_rounds=target_of(ruleset))
    notes = [f"expect.{i}: {n}" for i, e in enumerate(expectations) for n in e.notes]
    g_cols, s_cols = columns_needed(instances)
    data: list[list[Obs]] = [[] for _ in instances]
    active = list(range(len(instances)))
    rows: dict[int, Row] = {}
    done = 0
    k = len(instances)
    not_played: list[str] = []
    looks_done: list[int] = []
    stopped = ""
    total = looks[-1]
    if progress is not None:
        progress(0, total)
    for j, (n_look, a_look) in enumerate(zip(looks, alphas, strict=True)):
        while done < n_look:
            count = min(chunk, n_look - done)
            games_df, seats_df = ruleset.run_chunk(prepared, done, count)
            games_df = games_df[[c for c in g_cols if c in games_df.columns]]
            seats_df = seats_df[[c for c in s_cols if c in seats_df.columns]]
            codes = Codes(seats_df)
            for i in active:
                data[i].append(measure(instances[i], games_df, seats_df, codes))
            done += count
            if progress is not None:
                progress(done, total)
        looks_done.append(done)
        if j == 0:
            # groups of a 'group: each' expansion that this scenario never plays (e.g. a
            # company no seat can draw) leave the family before anything is judged
            keep_idx = []
            for i in active:
                if instances[i].auto and sum(p.ids.size for p in data[i]) == 0:
                    not_played.append(instances[i].spec)
                else:
                    keep_idx.append(i)
            active = keep_idx
            k = max(len(active), 1)
        level = a_look / k
        last = j == len(looks) - 1
        still = []
        for i in active:
            inst = instances[i]
            obs = concat(data[i])
            est = estimate_obs(obs, level)
            v = verdict(inst, est)
            if v != INCONCLUSIVE or last:
                rows[i] = Row(inst, v, est, level, done, j + 1)
                data[i] = []
            else:
                data[i] = [obs]
                rows[i] = Row(inst, v, est, level, done, j + 1)
                still.append(i)
        active = still
        if not active:
            if not last:
                stopped = f"every expectation decided after {done:,} games"
            break
        if fail_fast and any(r.verdict == FAIL for r in rows.values()):
            stopped = f"--fail-fast: stopped after {done:,} games at a failed expectation"
            break
    ordered = [rows[i] for i in sorted(rows)]
    name = str(resolved.get("name") or Path(source).stem)
    return CheckResult(
        scenario_name=name, source=source, ruleset=prepared.ruleset,
        seed=int(resolved["seed"]), overrides=list(overrides), alpha=alpha,
        sequential=sequential, spending=spending, planned_looks=list(looks),
        looks_done=looks_done, k=k, rows=ordered, not_played=not_played,
        placeholders=list(prepared.placeholders), elapsed_s=time.perf_counter() - t0,
        stopped_early=stopped, notes=notes)


def level_text(alpha: float) -> str:
    """An interval's confidence level as text: ``'99.89%'``."""
    conf = 100.0 * (1.0 - alpha)
    digits = max(1, min(8, math.ceil(-math.log10(max(alpha, 1e-12)))))
    return f"{conf:.{digits}f}".rstrip("0").rstrip(".") + "%"
