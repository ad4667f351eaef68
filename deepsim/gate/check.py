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
from deepsim.params import safety_cap_values

__all__ = ["CheckResult", "Row", "check_prepared", "member_names", "run_check"]

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
    #: the ruleset's safety caps with their values (invented data; a game one stops is
    #: unresolved, left out of every win share: deepsim.rulesets.base.UNRESOLVED)
    safety_caps: list[dict] = field(default_factory=list)
    elapsed_s: float = 0.0
    stopped_early: str = ""
    #: deprecation lines of old spellings in the expect: block
    notes: list[str] = field(default_factory=list)
    #: with --set: row index (from 0) -> the verdict of each failed test at the scenario's
    #: own rules (no --set), on the same games (:func:`at_defaults`)
    defaults: dict[int, str] = field(default_factory=dict)

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
    result = check_prepared(ruleset, prepared, expectations, source=source, lines=lines,
                            looks=looks, alphas=alphas, alpha=alpha, sequential=sequential,
                            spending=spending, overrides=list(overrides or []),
                            fail_fast=fail_fast, progress=progress)
    if overrides and any(r.verdict == FAIL for r in result.rows):
        _, _, plain = runner.resolve(scenario_path, seed=seed, games=games, overrides=[])
        result.defaults = at_defaults(ruleset, plain, result.rows)
    return result


def at_defaults(ruleset, prepared, rows: list[Row]) -> dict[int, str]:
    """The verdict of each failed test of ``rows`` at a scenario's own rules (``prepared``
    without ``--set``), judged on the same games as it was (its first ``games`` game
    indices, its interval's level): a bound that fails there too failed before the change
    under test (row index -> verdict)."""
    failed = [i for i, r in enumerate(rows) if r.verdict == FAIL]
    if not failed:
        return {}
    n = max(rows[i].games for i in failed)
    insts = [rows[i].instance for i in failed]
    g_cols, s_cols = columns_needed(insts)
    chunk = int(prepared.scenario.get("chunk_size") or 50_000)
    data: list[list[Obs]] = [[] for _ in failed]
    done = 0
    while done < n:
        count = min(chunk, n - done)
        gdf, sdf = ruleset.run_chunk(prepared, done, count)
        gdf = gdf[[c for c in g_cols if c in gdf.columns]]
        sdf = sdf[[c for c in s_cols if c in sdf.columns]]
        codes = Codes(sdf)
        for j, inst in enumerate(insts):
            if done < rows[failed[j]].games:
                data[j].append(measure(inst, gdf, sdf, codes))
        done += count
    return {i: verdict(rows[i].instance, estimate_obs(concat(data[j]), rows[i].alpha))
            for j, i in enumerate(failed)}


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
        placeholders=list(prepared.placeholders),
        safety_caps=safety_cap_values(ruleset, getattr(prepared, "params", None) or {}),
        elapsed_s=time.perf_counter() - t0,
        stopped_early=stopped, notes=notes)


def member_names(rows: list[Row]) -> list[str]:
    """Each single test's expectation name: its ``name:`` (else ``expect #N``, N from 1),
    with ``(k of n)`` when its expectation expands to n tests, so every member carries
    it (a CI log, a JUnit case read alone)."""
    total: dict[int, int] = {}
    for r in rows:
        total[r.instance.position] = total.get(r.instance.position, 0) + 1
    seen: dict[int, int] = {}
    out = []
    for r in rows:
        pos = r.instance.position
        seen[pos] = seen.get(pos, 0) + 1
        name = r.instance.name or f"expect #{pos + 1}"
        out.append(f"{name} ({seen[pos]} of {total[pos]})" if total[pos] > 1 else name)
    return out


def level_text(alpha: float) -> str:
    """An interval's confidence level as text: ``'99.89%'``."""
    conf = 100.0 * (1.0 - alpha)
    digits = max(1, min(8, math.ceil(-math.log10(max(alpha, 1e-12)))))
    return f"{conf:.{digits}f}".rstrip("0").rstrip(".") + "%"


# --- check --init: an expect: block from today's measured values ----------------------------

#: the tolerance per unit a bound of ``check --init`` adds to today's interval
TOLERANCE = {"x fair": 0.1, "%": 2.0, "pp": 2.0, "rounds": 0.5}
#: ... and for any other unit, this share of the measured value
TOLERANCE_REL = 0.1


def default_metrics(ruleset) -> list[str]:
    """What ``check --init`` bounds by default: the win/fair ratio of every faction and of
    every part of one (DEEPFALL: companies, Lineages, Callings), the mean rounds and the
    first seat's edge per player count."""
    out = [f"win_ratio[{col}]" for col, _ in ruleset.headline_groups()]
    return out + ["rounds[players]", "win_edge[seat=1, players]"]


def tolerance_of(unit: str, value: float, factor: float = 1.0) -> float:
    """The tolerance of one bound: :data:`TOLERANCE` by unit, else :data:`TOLERANCE_REL` of
    ``|value|``; times ``factor``."""
    base = TOLERANCE.get(unit)
    if base is None:
        base = TOLERANCE_REL * abs(value) if math.isfinite(value) else 0.0
    return factor * base


@dataclass
class InitRow:
    """One bound ``check --init`` writes: today's estimate and interval (at the gate's
    level) and the bound (interval widened by ``tolerance``, rounded outward)."""

    instance: Instance
    estimate: Estimate
    tolerance: float
    low: float
    high: float


@dataclass
class InitResult:
    """An ``expect:`` block measured on ``games`` games of ``seed``."""

    source: str
    ruleset: str
    seed: int
    games: int
    alpha: float
    level: float
    factor: float
    rows: list[InitRow]
    overrides: list[str] = field(default_factory=list)
    #: scenario keys the gate sets on top of the one it extends (the games and seed the
    #: bounds were measured on, when they are not the scenario's own)
    keys: dict[str, int] = field(default_factory=dict)

    def yaml(self, extends: str, command: str) -> str:
        """A scenario file that extends ``extends`` and adds the block (comments say how
        it was measured and which tolerance each bound carries)."""
        from deepsim.version import __version__

        f = self.factor
        units = (f"{TOLERANCE['x fair'] * f:g} x fair for win ratios, {TOLERANCE['%'] * f:g} "
                 f"pp for shares and edges, {TOLERANCE['rounds'] * f:g} rounds for lengths")
        import textwrap

        head = (f"Bounds: today's interval of each number on {self.games:,} games of seed "
                f"{self.seed}, at the gate's own level ({level_text(self.level)} each: "
                f"alpha {self.alpha:g} over {len(self.rows)} tests), widened by the "
                f"tolerance: {units}; other units {TOLERANCE_REL * f:g} x the value. The "
                "same check on these games passes; a change that moves a number by more "
                "than its tolerance plus the noise fails.")
        lines = [f"# made by: {command} (deepsim {__version__}, {time.strftime('%Y-%m-%d')})"]
        lines += ["# " + x for x in textwrap.wrap(head, 88)]
        if self.overrides:
            lines.append("# measured with: " + " ".join(f"--set {o}" for o in self.overrides))
        lines.append(f"extends: {extends}")
        lines += [f"{k}: {v}" for k, v in self.keys.items()]
        lines.append("expect:")
        for r in self.rows:
            inst, est = r.instance, r.estimate
            u = inst.metric.unit
            suffix = "%" if u == "%" else "pp" if u == "pp" else ""

            def amount(x: float, suffix=suffix) -> str:
                return f"{x:g}{suffix}"

            name = f"as measured: {est.value:.4g} {u}, tolerance {r.tolerance:.3g}"
            lines += [f'  - name: "{name}"', f'    metric: "{inst.spec}"',
                      f"    within: [{amount(r.low)}, {amount(r.high)}]"]
        return "\n".join(lines) + "\n"


def _outward(lo: float, hi: float, limits: tuple[float, float]) -> tuple[float, float]:
    """``[lo, hi]`` rounded outward to three significant digits of its width, clipped to
    the metric's range."""
    width = max(hi - lo, abs(hi), abs(lo), 1e-9)
    step = 10.0 ** (math.floor(math.log10(width)) - 2)
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    lo, hi = max(lo, limits[0]), min(hi, limits[1])
    return round(lo, 10), round(hi, 10)


def init_expect(scenario_path: Path | str, *, games: int | None = None,
                seed: int | None = None, overrides: list[str] | None = None,
                metrics: list[str] | None = None, tolerance: float = 1.0,
                alpha: float = 0.05, threads: int | None = None,
                progress: ProgressFn | None = None) -> InitResult:
    """Measure a scenario and return the ``expect:`` block that bounds today's values.

    Each number of ``metrics`` (default :func:`default_metrics`) is estimated on ``games``
    games (default the scenario's) with its interval at the level the gate itself will use
    (``alpha`` over all the numbers, Bonferroni, as :func:`run_check`), and bounded by
    that interval widened by its tolerance (:func:`tolerance_of` x ``tolerance``, rounded
    outward): ``deepsim check`` of the block on the same games passes.

    Raises
    ------
    InputError
        Bad scenario, option, override or metric (before any game but one probe game).
    """
    from deepsim.measure.spec import parse_metric_spec

    source = str(scenario_path)
    runner.set_threads(threads)
    if not 0.0 < alpha < 1.0:
        raise InputError(f"expected 0 < alpha < 1, got {alpha}", key="--alpha")
    if isinstance(tolerance, bool) or not tolerance >= 0:
        raise InputError(f"expected a tolerance factor >= 0, got {tolerance}",
                         key="--tolerance")
    if games is not None:
        runner.check_count(games, "--games", 1)
    ruleset, scenario, prepared = runner.resolve(scenario_path, seed=seed, games=games,
                                                 overrides=list(overrides or []))
    specs = list(metrics or default_metrics(ruleset))
    sels = [parse_metric_spec(m, group_columns=ruleset.group_columns, key="--metric")
            for m in specs]
    resolved = prepared.scenario
    g_probe, s_probe = ruleset.run_chunk(prepared, 0, 1)
    universe = universe_from_frames(g_probe, s_probe, player_counts(resolved, s_probe),
                                    ruleset.group_columns, ruleset.faction_column)
    instances = expand(sels, universe, key_prefix="--metric", key="--metric",
                       target_rounds=target_of(ruleset))
    n = int(resolved.get("games", scenario["games"]))
    chunk = int(resolved.get("chunk_size") or 50_000)
    g_cols, s_cols = columns_needed(instances)
    data: list[list[Obs]] = [[] for _ in instances]
    done = 0
    if progress is not None:
        progress(0, n)
    while done < n:
        count = min(chunk, n - done)
        gdf, sdf = ruleset.run_chunk(prepared, done, count)
        gdf = gdf[[c for c in g_cols if c in gdf.columns]]
        sdf = sdf[[c for c in s_cols if c in sdf.columns]]
        codes = Codes(sdf)
        for i, inst in enumerate(instances):
            data[i].append(measure(inst, gdf, sdf, codes))
        done += count
        if progress is not None:
            progress(done, n)
    obs = [concat(d) for d in data]
    keep = [i for i, o in enumerate(obs) if not (instances[i].auto and o.ids.size == 0)]
    level = alpha / max(len(keep), 1)
    rows = []
    for i in keep:
        inst = instances[i]
        est = estimate_obs(obs[i], level)
        tol = tolerance_of(inst.metric.unit, est.value, tolerance)
        lo, hi = _outward(est.low - tol, est.high + tol, inst.metric.limits)
        rows.append(InitRow(inst, est, tol, lo, hi))
    keys = {k: v for k, v in (("games", games), ("seed", seed)) if v is not None}
    return InitResult(source, prepared.ruleset, int(resolved["seed"]), n, alpha, level,
                      tolerance, rows, list(overrides or []), keys)
