"""``deepsim compare A [B]``: does a rules change move one metric, and by how much?

Two variants (two scenario files, or one scenario with two sets of ``--set`` overrides)
play *paired* games: the same seed and the same game indices, so the dice, the companies
and the bots drawn are the same wherever the change does not reach (common random numbers)
and the difference of the metric has far less noise than two independent samples. Batches
of paired games are added until the GSPRT of :mod:`deepsim.gate.sprt` accepts H0 or H1
(after ``min_games``), or ``max_games`` is reached (inconclusive).

Two finished run directories are compared with a fixed-sample test instead: paired when
both runs share the seed (their common game indices), otherwise two independent samples.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import norm

from deepsim import runner
from deepsim.errors import InputError
from deepsim.gate import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS
from deepsim.gate.expect import (
    Instance,
    _Codes,
    columns_needed,
    expand,
    group_columns_of,
    observe,
    parse_metric_spec,
    player_counts,
    universe_from_frames,
)
from deepsim.gate.sprt import (
    H0,
    H1,
    Paired,
    SequentialTest,
    glr_llr,
    paired_difference,
)

__all__ = ["CompareResult", "compare_runs", "run_compare", "sequential_test"]

ProgressFn = Callable[[int, int], None]
#: how the LLR is computed (:mod:`deepsim.gate.sprt`)
MODEL = "normal GSPRT, variance from the pairs"


@dataclass
class CompareResult:
    """What ``deepsim compare`` prints."""

    metric: str
    unit: str
    label_a: str
    label_b: str
    mode: str                   # "sprt" or "fixed"
    theta0: float | None
    theta1: float | None
    alpha: float
    beta: float
    paired: bool
    games: int
    diff: Paired
    llr: float = math.nan
    lower: float = math.nan
    upper: float = math.nan
    model: str = ""
    decision: str = ""          # "H0", "H1" or "" (inconclusive / no hypotheses)
    p_value: float = math.nan
    history: list[tuple[int, float]] = field(default_factory=list)
    seeds: tuple[int, int] = (0, 0)
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.theta0 is None:
            return EXIT_PASS
        return {"H0": EXIT_PASS, "H1": EXIT_FAIL}.get(self.decision, EXIT_INCONCLUSIVE)


def _instance(spec: str, ruleset, prepared) -> Instance:
    """The one test a ``--metric`` spec names in a prepared scenario."""
    cols = group_columns_of(ruleset)
    sel = parse_metric_spec(spec, group_columns=cols)
    g, s = ruleset.run_chunk(prepared, 0, 1)
    insts = expand([sel], universe_from_frames(g, s, player_counts(prepared.scenario, s), cols),
                   key_prefix="")
    if len(insts) != 1:
        example = next((f"'{sel.metric}[{i.by}={i.groups[0]}]'" for i in insts
                        if i.by and i.groups), "'win_share[company=Dvergar Reaver]'")
        raise InputError(f"{spec!r} names {len(insts)} numbers; name one group (e.g. "
                         f"{example}) or one player count", key="--metric")
    return insts[0]


def _weights(inst: Instance, y: np.ndarray, d: np.ndarray, f: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) of the metric as a ratio of per-game sums."""
    return (y, f) if inst.metric.kind == "win_ratio" else (y, d)


@dataclass
class _Variant:
    label: str
    ruleset: object
    prepared: object
    inst: Instance


def _variant(path: Path, label: str, spec: str, seed: int | None,
             overrides: list[str]) -> _Variant:
    rs, _, prep = runner.resolve(path, seed=seed, overrides=overrides)
    return _Variant(label, rs, prep, _instance(spec, rs, prep))


def _label(path: Path, overrides: list[str], seed: int) -> str:
    bits = [path.name] + [f"--set {o}" for o in overrides]
    return " ".join(bits) + f" (seed {seed})"


def run_compare(a: Path | str, b: Path | str | None = None, *, metric: str,
                sets: list[str] | None = None, sets_a: list[str] | None = None,
                sets_b: list[str] | None = None, seed: int | None = None,
                seed_b: int | None = None, theta0: float, theta1: float,
                alpha: float = 0.05, beta: float = 0.05, min_games: int = 2000,
                max_games: int = 200_000, batch: int | None = None,
                threads: int | None = None, progress: ProgressFn | None = None
                ) -> CompareResult:
    """SPRT of H0: ``B - A == theta0`` against H1: ``B - A == theta1`` on paired games.

    Parameters
    ----------
    a, b : Path
        Scenario files; ``b`` defaults to ``a`` (then the variants differ by ``sets_a`` /
        ``sets_b``).
    metric : str
        A metric spec naming one number, e.g. ``'win_share[company=Dvergar Reaver]'``.
    sets, sets_a, sets_b : list of str
        ``--set`` overrides for both variants, for A only, for B only.
    seed : int, optional
        Seed of both variants (default: A's scenario seed).
    seed_b : int, optional
        A different seed for B: unpaired games (an A/A test of the machinery).
    theta0, theta1 : float
        H0 and H1 in the metric's unit (percentage points for shares).
    alpha, beta : float
        Error rates of the SPRT.
    min_games, max_games : int
        Paired games before the first decision, and the budget.
    batch : int, optional
        Games between two looks at the LLR (default: scenario chunk size, at most
        ``max(min_games, 1000)``).

    Returns
    -------
    CompareResult
        ``decision`` "H0"/"H1", or "" when ``max_games`` was reached first.
    """
    t0 = time.perf_counter()
    if theta0 == theta1:
        raise InputError("H0 and H1 must differ", key="--sprt")
    for name, v in (("--min-games", min_games), ("--max-games", max_games)):
        runner._check_count(v, name, 1)
    if min_games > max_games:
        raise InputError(f"--min-games {min_games} is above --max-games {max_games}",
                         key="--min-games")
    try:
        test = SequentialTest(theta0, theta1, alpha, beta, min_games, max_games)
    except ValueError as exc:
        raise InputError(str(exc), key="--alpha") from None
    lower, upper = test.bounds
    runner.set_threads(threads)
    a = Path(a)
    b = Path(b) if b is not None else a
    base = list(sets or [])
    ov_a, ov_b = base + list(sets_a or []), base + list(sets_b or [])
    if seed is None:
        seed = int(runner.load_scenario(a).get("seed", 0))
    va = _variant(a, "A", metric, seed, ov_a)
    vb = _variant(b, "B", metric, seed if seed_b is None else seed_b, ov_b)
    notes = []
    if a == b and ov_a == ov_b and seed_b is None:
        notes.append("A and B are the same variant on the same games: every paired "
                     "difference is 0 (use --seed-b for an A/A test on other games)")
    paired = seed_b is None or seed_b == seed
    if batch is None:
        batch = int(min(va.prepared.scenario.get("chunk_size") or 50_000,
                        max(min_games, 1000)))
    runner._check_count(batch, "--batch", 1)
    g_cols, s_cols = columns_needed([va.inst, vb.inst])

    def play(start: int, count: int) -> tuple[np.ndarray, ...]:
        out = []
        for v in (va, vb):
            gdf, sdf = v.ruleset.run_chunk(v.prepared, start, count)
            gdf = gdf[[c for c in g_cols if c in gdf.columns]]
            sdf = sdf[[c for c in s_cols if c in sdf.columns]]
            y, d, f = observe(v.inst, gdf, sdf, _Codes(sdf))
            out.extend(_weights(v.inst, y, d, f))
        return tuple(out)

    decision, diff, llr, history, done = sequential_test(
        test, play, batch=batch, scale=va.inst.metric.scale, paired=paired,
        progress=progress)
    assert diff is not None
    return CompareResult(
        metric=va.inst.spec, unit=va.inst.metric.unit,
        label_a=_label(a, ov_a, seed), label_b=_label(b, ov_b, seed if seed_b is None
                                                      else seed_b),
        mode="sprt", theta0=theta0, theta1=theta1, alpha=alpha, beta=beta, paired=paired,
        games=done, diff=diff, llr=llr, lower=lower, upper=upper, model=MODEL,
        decision=decision, history=history,
        seeds=(seed, seed if seed_b is None else seed_b),
        elapsed_s=time.perf_counter() - t0, notes=notes)


def sequential_test(test: SequentialTest,
                    play: Callable[[int, int], tuple[np.ndarray, ...]], *, batch: int,
                    scale: float = 1.0, paired: bool = True,
                    progress: ProgressFn | None = None
                    ) -> tuple[str, Paired, float, list[tuple[int, float]], int]:
    """Run ``test`` on paired games fed by ``play`` until it decides or reaches its cap.

    Parameters
    ----------
    test : SequentialTest
        Hypotheses, error rates, ``min_n`` (games before any decision) and ``max_n`` (cap).
    play : callable(start, count) -> (ya, wa, yb, wb)
        Per game ``start .. start+count-1``: each variant's numerator and denominator
        (float64 arrays of length ``count``; :func:`deepsim.gate.sprt.paired_difference`).
    batch : int
        Games between two looks at the LLR (the first look is at ``test.min_n``).
    scale : float
        Unit factor of the metric (100 for percent).
    paired : bool
        Index ``i`` is the same game in both variants.

    Returns
    -------
    decision, diff, llr, history, games
        ``decision`` "H0", "H1" or "" (the cap was reached first); ``history`` holds
        ``(games, llr)`` at every look.
    """
    parts: list[tuple[np.ndarray, ...]] = []
    done = 0
    history: list[tuple[int, float]] = []
    decision, llr, diff = "", 0.0, None
    if progress is not None:
        progress(0, test.max_n)
    while done < test.max_n:
        count = min(batch, test.max_n - done)
        if done < test.min_n:
            count = min(max(count, test.min_n - done), test.max_n - done)
        parts.append(tuple(np.asarray(x, dtype=np.float64) for x in play(done, count)))
        done += count
        if progress is not None:
            progress(done, test.max_n)
        merged = tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
        parts = [merged]
        diff = paired_difference(*merged, scale=scale, paired=paired)
        llr = test.llr(diff.est, diff.se, diff.n)
        history.append((done, llr))
        decision = test.decide(llr, done)
        if decision in (H0, H1):
            break
    assert diff is not None
    return decision, diff, llr, history, done


def _run_observations(run_dir: Path, spec: str):
    """(instance, game indices, numerator, denominator, seed, label) of a finished run."""
    from deepsim.output import read_manifest, read_run, read_run_json
    from deepsim.report.load import _schema_names, ruleset_meta

    info = read_run_json(run_dir)
    meta = ruleset_meta(info.get("ruleset") or read_manifest(run_dir).get("ruleset"))
    sel = parse_metric_spec(spec, group_columns=meta.group_columns)
    m = sel.metric_obj
    if m.level == "game":
        g_cols, s_cols = ["players", *m.columns], ["players"]
    else:
        g_cols = ["players"]
        s_cols = list(dict.fromkeys(["players", "fair", *m.columns]
                                    + ([sel.by] if sel.by and sel.by != "seat" else [])))
    manifest = read_manifest(run_dir)
    g_have = _schema_names(Path(run_dir), manifest, "games")
    s_have = _schema_names(Path(run_dir), manifest, "seats")
    if g_have is not None:  # a ruleset writes its own columns: read those it has
        g_cols = [c for c in g_cols if c in g_have or (c in m.columns and not m.any_of)]
    if s_have is not None:
        s_cols = [c for c in s_cols if c in s_have or c != "players"]
    games, seats = read_run(run_dir, games_columns=g_cols, seats_columns=s_cols)
    scen = info.get("scenario") or {}
    if scen.get("players") is None and "players" in games.columns:
        scen = {**scen, "players": sorted(set(games["players"].astype(int)))}
    universe = universe_from_frames(games, seats, player_counts(scen, seats), meta.group_columns)
    insts = expand([sel], universe, key_prefix="")
    if len(insts) != 1:
        raise InputError(f"{spec!r} names {len(insts)} numbers; name one group or one "
                         "player count", key="--metric")
    inst = insts[0]
    y, d, f = observe(inst, games, seats)
    num, den = _weights(inst, y, d, f)
    seed = int(info.get("seed", -1))
    label = f"{run_dir} ({info.get('scenario_name', '?')}, seed {seed}, {len(games):,} games)"
    return inst, games["game"].to_numpy(), num, den, seed, label


def compare_runs(dir_a: Path | str, dir_b: Path | str, *, metric: str,
                 theta0: float | None = None, theta1: float | None = None,
                 alpha: float = 0.05, beta: float = 0.05) -> CompareResult:
    """Fixed-sample comparison of two finished runs on one metric.

    Paired on the common game indices when both runs have the same seed, else unpaired.
    Without hypotheses: the difference, its ``1 - alpha`` interval and the two-sided p-value
    of no difference (exit 0). With H0 and H1: H1 is accepted when a one-sided level-alpha
    test rejects H0 towards H1, H0 when a level-beta test rejects H1 towards H0, else
    inconclusive.
    """
    t0 = time.perf_counter()
    ia, ga, ya, wa, sa, la = _run_observations(Path(dir_a), metric)
    ib, gb, yb, wb, sb, lb = _run_observations(Path(dir_b), metric)
    if ia.spec != ib.spec:
        raise InputError(f"the runs resolve {metric!r} differently ({ia.spec} vs {ib.spec})",
                         key="--metric")
    paired = sa == sb
    notes = []
    if paired:
        common, xa, xb = np.intersect1d(ga, gb, assume_unique=True, return_indices=True)
        if common.size < 2:
            raise InputError("the runs share the seed but fewer than 2 game indices",
                             file=str(dir_b))
        ya, wa, yb, wb = ya[xa], wa[xa], yb[xb], wb[xb]
        notes.append(f"paired on {common.size:,} common games (same seed {sa})")
    else:
        notes.append(f"different seeds ({sa}, {sb}): two independent samples")
    diff = paired_difference(ya, wa, yb, wb, scale=ia.metric.scale, paired=paired)
    games = int(ya.size if paired else ya.size + yb.size)
    res = CompareResult(metric=ia.spec, unit=ia.metric.unit, label_a=la, label_b=lb,
                        mode="fixed", theta0=theta0, theta1=theta1, alpha=alpha, beta=beta,
                        paired=paired, games=games, diff=diff, seeds=(sa, sb), notes=notes)
    if diff.se > 0:
        res.p_value = float(2.0 * norm.sf(abs(diff.est - (theta0 or 0.0)) / diff.se))
    if theta0 is not None and theta1 is not None:
        if theta0 == theta1:
            raise InputError("H0 and H1 must differ", key="--sprt")
        sign = 1.0 if theta1 > theta0 else -1.0
        if diff.se > 0:
            z0 = sign * (diff.est - theta0) / diff.se   # evidence against H0, towards H1
            z1 = sign * (theta1 - diff.est) / diff.se   # evidence against H1, towards H0
            if z0 > norm.isf(alpha):
                res.decision = "H1"
            elif z1 > norm.isf(beta):
                res.decision = "H0"
            res.llr = glr_llr(diff.est, diff.se, diff.n, theta0, theta1)
        res.model = "normal (fixed sample)"
    res.elapsed_s = time.perf_counter() - t0
    return res
