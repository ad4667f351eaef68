"""The search of ``deepsim balance``: the fewest, smallest changes of printed numbers that
meet the target.

Every trial plays games ``0 .. games-1`` of the same seed (common random numbers, with
:class:`deepsim.tune.play.Player`, tune's trial runner), so two points differ only by
their numbers. Trials are ordered by (violation, numbers changed, size of the change: the
sum over changed levers of the change in grid steps).

For K = 1 .. ``max_changes``: each subset of K levers (in the order given) is searched with
every one of its K numbers changed (a point leaving one at its default belongs to a smaller
K, searched before): the whole grid when it has at most ``grid_max`` points, else
``trials`` optuna TPE trials (seeded by the sampler seed and the subset's index, so the
same command gives the same trials on any thread count). For K >= 2 the optuna search of a
subset starts from what the smaller K found (:func:`starts`): each of its (K-1)-subsets'
best point with the remaining number one grid step off its default, then every number at
its best value alone; so a pair is never judged by a few blind draws from a grid of 10,000
points when one of its numbers alone already came close. The search stops after the first
K where some trial meets the target.

A trial already in the output folder's ``trials.parquet`` (``--resume``) is read back, not
played again: the same seeded search then replays the same sequence, so an interrupted run
resumed gives the trials an uninterrupted one would.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from deepsim.balance.levers import Lever
from deepsim.tune.grid import format_value

__all__ = ["Budget", "SearchState", "plan_counts", "point_key", "search", "sort_key",
           "starts"]

#: (done, total, label) -> None
ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Budget:
    """How much a balance plays.

    Attributes
    ----------
    max_changes : int
        Most numbers a patch changes (K).
    trials : int
        optuna trials per subset whose grid exceeds ``grid_max``.
    grid_max : int
        A subset's grid up to this many points is searched whole.
    games : int or None
        Games per trial (None: the scenario's).
    confirm : int
        Candidates confirmed at most (the best few).
    confirm_games : int or None
        Games of each confirmation (None: 4 x ``games``).
    respond_trials, respond_games : int
        The best-response search per faction (0 trials: no robustness check).
    sampler_seed : int
        Seed of the optuna samplers.
    """

    max_changes: int = 2
    trials: int = 30
    grid_max: int = 60
    games: int | None = None
    confirm: int = 3
    confirm_games: int | None = None
    respond_trials: int = 8
    respond_games: int = 1000
    sampler_seed: int = 0

    def check(self) -> None:
        """Raise InputError for a count out of range (before any game)."""
        from deepsim.errors import InputError

        for key, v, lo in (("--max-changes", self.max_changes, 1), ("--trials", self.trials, 1),
                           ("--grid-max", self.grid_max, 1), ("--confirm", self.confirm, 1),
                           ("--respond-trials", self.respond_trials, 0),
                           ("--respond-games", self.respond_games, 1),
                           ("--sampler-seed", self.sampler_seed, 0)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise InputError(f"expected a whole number >= {lo}, got {v!r}", key=key)
        for key, v in (("--games", self.games), ("--confirm-games", self.confirm_games)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise InputError(f"expected a whole number >= 1, got {v!r}", key=key)


def point_key(point: dict) -> str:
    """A point (``{path: value}`` of its changed numbers) as a stable text key."""
    return json.dumps({k: format_value(point[k]) for k in sorted(point)}, sort_keys=True)


def change_size(levers: dict[str, Lever], point: dict) -> float:
    """Sum over the changed levers of the change in grid steps."""
    return float(sum(levers[p].size(v) for p, v in point.items()))


def sort_key(row: dict) -> tuple:
    """Trials' order: violation, numbers changed, size of the change, trial number."""
    v = row["violation"]
    return (math.inf if v is None or (isinstance(v, float) and math.isnan(v)) else v,
            row["n_changed"], row["size"], row["trial"])


@dataclass
class SearchState:
    """What the search did: every trial's row (``rows``), the cache of finished points
    read back on ``--resume`` (``cache``, by :func:`point_key`), and the K searched."""

    levers: list[Lever]
    rows: list[dict] = field(default_factory=list)
    cache: dict[str, dict] = field(default_factory=dict)
    k_done: list[int] = field(default_factory=list)
    met_at: int | None = None
    games_played: int = 0

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


def search(levers: list[Lever], evaluate: Callable[[dict], dict], budget: Budget, *,
           state: SearchState, on_trial: Callable[[SearchState], None] | None = None,
           progress: ProgressFn | None = None, games: int = 0,
           on_k: Callable[[int, SearchState], None] | None = None) -> SearchState:
    """Run the baseline (trial 0) and the subsets of K = 1 .. ``max_changes`` levers.

    ``evaluate(point)`` plays ``{path: value}`` and returns ``{"violation", "met", "note",
    "error"}``. Each trial's row has ``trial``, ``k``, ``subset``, ``method`` (``grid`` or
    ``optuna``), one column per lever (its value), ``n_changed``, ``size``, ``violation``,
    ``met``, ``note``, ``error``, ``seconds`` (wall seconds of its games; a trial read back
    on ``--resume`` keeps the seconds it took when played) and ``cached``. ``on_k(k,
    state)`` is told when K = 0 (the baseline), 1, 2, ... is done.
    """
    import optuna

    by_path = {lv.path: lv for lv in levers}

    def run(point: dict, k: int, subset: tuple[str, ...], method: str) -> dict:
        key = point_key(point)
        t = time.perf_counter()
        cached = key in state.cache
        if cached:
            res = state.cache[key]
            seconds = float(res.get("seconds", 0.0) or 0.0)
        else:
            res = evaluate(point)
            seconds = round(time.perf_counter() - t, 3)
            state.cache[key] = {**res, "seconds": seconds}
            state.games_played += games
        row = {"trial": len(state.rows), "k": k, "subset": ",".join(subset), "method": method}
        for lv in levers:
            row[lv.path] = point.get(lv.path, lv.default)
        row.update({"n_changed": len(point), "size": change_size(by_path, point),
                    "violation": float(res["violation"]), "met": bool(res["met"]),
                    "note": str(res.get("note", "")), "error": str(res.get("error", "")),
                    "seconds": seconds,
                    "cached": cached, "key": key})
        state.rows.append(row)
        if on_trial is not None:
            on_trial(state)
        return row

    plan = _plan(levers, budget)
    total = 1 + sum(n for _, _, n in plan)
    done = 0

    def tick(label: str) -> None:
        if progress is not None:
            progress(done, total, label)

    tick("baseline")
    base = run({}, 0, (), "baseline")
    done += 1
    if on_k is not None:
        on_k(0, state)
    if base["met"]:
        state.met_at = 0
        return state
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for k in range(1, budget.max_changes + 1):
        if k > len(levers):
            break
        subsets = [(s, m, n) for s, m, n in plan if len(s) == k]
        for index, (subset, method, _n) in enumerate(subsets):
            label = f"K={k} {', '.join(subset)}"
            choices = [by_path[p].changes() for p in subset]
            if method == "grid":
                for combo in itertools.product(*choices):
                    tick(label)
                    run(dict(zip(subset, combo, strict=True)), k, subset, method)
                    done += 1
            else:
                sampler = optuna.samplers.TPESampler(
                    seed=budget.sampler_seed * 1_000_003 + 7919 * k + index)
                study = optuna.create_study(direction="minimize", sampler=sampler)
                for point in starts(subset, by_path, state.rows)[:budget.trials]:
                    study.enqueue_trial({p: choices[j].index(point[p])
                                         for j, p in enumerate(subset)})

                def objective(trial, subset=subset, choices=choices, k=k, label=label):
                    nonlocal done
                    point = {p: c[trial.suggest_int(p, 0, len(c) - 1)]
                             for p, c in zip(subset, choices, strict=True)}
                    tick(label)
                    row = run(point, k, subset, "optuna")
                    done += 1
                    if row["error"]:
                        return float("nan")
                    # met points first, then the smaller change
                    return row["violation"] + 1e-6 * row["size"]

                study.optimize(objective, n_trials=budget.trials, catch=())
        state.k_done.append(k)
        if on_k is not None:
            on_k(k, state)
        if any(r["met"] and r["k"] == k for r in state.rows):
            state.met_at = k
            break
    tick("done")
    return state


def starts(subset: tuple[str, ...], levers: dict[str, Lever], rows: list[dict]) -> list[dict]:
    """The points an optuna search of ``subset`` (K >= 2 levers) tries first, from the
    trials of smaller K in ``rows``: for each lever ``p`` of the subset, the best trial
    (:func:`sort_key`) of the (K-1)-subset without ``p``, with ``p`` one grid step off its
    default (towards its best value alone); then every lever at its best value alone.
    Duplicates dropped; the best (K-1) points first. Empty for K = 1 or when a smaller
    subset was never searched."""
    k = len(subset)
    if k < 2:
        return []
    ok = [r for r in rows if not r["error"] and 0 < r["k"] < k]
    alone = {}
    for p in subset:
        mine = [r for r in ok if r["k"] == 1 and r["subset"] == p]
        if mine:
            alone[p] = min(mine, key=sort_key)[p]
    extended = []
    for p in subset:
        rest = ",".join(q for q in subset if q != p)
        mine = [r for r in ok if r["k"] == k - 1 and r["subset"] == rest]
        if not mine:
            continue
        best = min(mine, key=sort_key)
        lv = levers[p]
        side = (float(alone[p]) - float(lv.default)) if p in alone else 0.0
        step = min(lv.changes(), key=lambda v: (
            lv.size(v), 0 if (float(v) - float(lv.default)) * side > 0 else 1, float(v)))
        point = {q: best[q] for q in subset if q != p}
        point[p] = step
        extended.append((sort_key(best), point))
    out = [pt for _, pt in sorted(extended, key=lambda x: x[0])]
    if len(alone) == k:
        out.append({p: alone[p] for p in subset})
    seen, uniq = set(), []
    for pt in out:
        key = point_key(pt)
        if key not in seen:
            seen.add(key)
            uniq.append(pt)
    return uniq


def plan_counts(levers: list[Lever], budget: Budget) -> list[tuple[int, int, int]]:
    """(K, subsets, trials at most) for K = 1 .. ``max_changes``: what the search will
    play if no K meets the target first (trials x games = its games)."""
    plan = _plan(levers, budget)
    ks = sorted({len(s) for s, _, _ in plan})
    return [(k, sum(1 for s, _, _ in plan if len(s) == k),
             sum(n for s, _, n in plan if len(s) == k)) for k in ks]


def _plan(levers: list[Lever], budget: Budget) -> list[tuple[tuple[str, ...], str, int]]:
    """(subset, method, trials) for every subset of K = 1 .. max_changes levers."""
    out = []
    for k in range(1, min(budget.max_changes, len(levers)) + 1):
        for subset in itertools.combinations(levers, k):
            n = math.prod(len(lv.changes()) for lv in subset)
            if n == 0:
                continue
            method = "grid" if n <= budget.grid_max else "optuna"
            out.append((tuple(lv.path for lv in subset), method,
                        n if method == "grid" else budget.trials))
    return out
