"""The numbers ``reports/FINDINGS.md`` commits, each with an interval, by name.

:func:`figures` computes from the findings' runs every figure of the claims table, the
company table (with the Lineage and Calling tables) and both tables of the Maw's pace
(the one-collapse cap, "one floor away"), each as ``(estimate, low, high)`` at a given
``alpha`` (one interval per figure, not simultaneous). ``make findings`` writes the
estimates of its runs to ``reports/findings/figures.json``; the reproducibility test
(``tests/rulesets/deepfall/test_findings.py``) plays the same scenarios and seeds at a small budget and
checks that every committed estimate lies in the small run's interval at ``alpha / K``
(Bonferroni over the K figures checked).

Keys read ``table/what/group``; runs are named by their folder (``mixed``, ``2p``,
``spf1``, ``a20``; the paired runs by scenario name).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from deepsim.report.config import ReportConfig
from deepsim.report.context import Context
from deepsim.report.load import RunData
from deepsim.rulesets.deepfall import claims as C
from deepsim.rulesets.deepfall import instruments as I

__all__ = ["figures"]

Figure = tuple[float, float, float]


def _mean_ci(x, alpha: float) -> Figure:
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if n < 2:
        return m, m, m
    half = float(sps.t.isf(alpha / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - half, m + half


def _share(k: float, n: float, alpha: float) -> Figure:
    lo, hi = I.wilson(k, n, alpha)
    return (k / n if n else math.nan), float(lo), float(hi)


def _ratio_sums(y, x, alpha: float) -> Figure:
    e = I.constant_ratio(np.asarray(y), np.asarray(x), np.zeros(len(y)), 0.0, alpha)
    d = e.detail
    return d["ratio"][0], d["low"][0], d["high"][0]


def _table(out: dict, prefix: str, seats: pd.DataFrame, by: str, alpha: float) -> None:
    if seats.empty or by not in seats.columns:
        return
    t = I.ratio_table(seats["win"].to_numpy(), seats["fair"].to_numpy(),
                      seats[by].astype(str).to_numpy(), alpha, simultaneous=False)
    for g, r, lo, hi in zip(t["group"], t["ratio"], t["low"], t["high"], strict=True):
        out[f"{prefix}/{g}"] = (float(r), float(lo), float(hi))


def _crossover(out: dict, ctx: Context, kind: str, alpha: float) -> None:
    got = C.b5_pair(ctx, kind)
    if isinstance(got, str):
        return
    a, b, xs, _ = got
    r = C.measure_crossover(C.crossover_frame(a, C.arm_seats(a, xs)),
                            C.crossover_frame(b, C.arm_seats(b, xs)), alpha)
    for k, e in r.items():
        out[f"claims/B5/{kind}/{k}"] = (e.value, e.low, e.high)


def _maw(out: dict, run: RunData, name: str, alpha: float) -> None:
    g = run.games
    if "deferred_steps" not in g.columns:
        return
    out[f"maw/cap-binds/{name}"] = _share(float((g["deferred_steps"] > 0).sum()), len(g),
                                          alpha)
    out[f"maw/held-back-per-game/{name}"] = _mean_ci(g["deferred_steps"], alpha)
    if "warned" not in g.columns:
        return
    for p, d in g.groupby("players", sort=True):
        key = f"{name}/{int(p)}p"
        out[f"warning/warned-per-game/{key}"] = _mean_ci(d["warned"], alpha)
        out[f"warning/taken-if-warned/{key}"] = _ratio_sums(d["taken_after_warning"],
                                                            d["warned"], alpha)
        for col in ("taken_moved_in", "taken_mustered", "taken_blindsided"):
            if col in d.columns:
                out[f"warning/{col.removeprefix('taken_')}-per-game/{key}"] = _mean_ci(
                    d[col], alpha)


def figures(runs: list[RunData], config: ReportConfig | None = None, alpha: float = 0.05
            ) -> dict[str, Figure]:
    """Every committed figure of FINDINGS from its runs (the primary mixed run first, then
    the 2-player run, the reading variants and the paired B5 runs, as ``make findings``
    gives them), by key: ``(estimate, low, high)`` with a ``1 - alpha`` interval."""
    from deepsim.rulesets.deepfall import REPORT_OPTIONS

    config = config or ReportConfig.for_ruleset(REPORT_OPTIONS)
    ctx = Context(runs[0], list(runs[1:]), config)
    c = config
    out: dict[str, Figure] = {}
    # the company, Lineage and Calling tables (baseline bots left out)
    for by in ("company", "lineage", "calling"):
        _table(out, f"win-share/{by}", ctx.balance_seats, by, alpha)
    # the claims table
    spf = C.variant_runs(ctx, "maw.steps_per_floor")
    for value, run in sorted(spf.items(), key=lambda kv: -kv[0]):
        for p, d in run.games.groupby("players", sort=True):
            out[f"claims/B1/spf{value}/{int(p)}p"] = _mean_ci(d["rounds"], alpha)
    rest, _ = C.rest_view(ctx)
    for by in ("company", "lineage", "calling"):
        _table(out, f"claims/B2-B3-rest/{by}", rest, by, alpha)
    e = C.measure_swing(ctx.balance_seats, "calling", "Wardancer", c.touch_max, alpha)
    if e is not None:
        out["claims/B3/wardancer-cv-ratio"] = (e.value, e.low, e.high)
    pop = ctx.balance_seats
    if {"taken_no_stand", "crews"} <= set(pop.columns):
        for k, e in C.measure_feel_bad(pop, c.almost_never, alpha).items():
            out[f"claims/B4/{k}"] = (e.value, e.low, e.high)
    for kind in ("exits", "aggression"):
        _crossover(out, ctx, kind, alpha)
    g = ctx.primary.games
    e = C.measure_tight(g, c.tight_margin, alpha)
    out["claims/B6/literal"] = (e.value, e.low, e.high)
    mirror = C.calibrated_threshold("B6.mirror_median")
    if mirror:
        e = C.measure_tight(g, {int(p): (1 + c.mirror_tolerance) * float(v)
                                for p, v in mirror.items()}, alpha)
        out["claims/B6/mirror"] = (e.value, e.low, e.high)
    for which in ("share", "markers"):
        e = C.measure_contention(g, which, c.contention_tolerance, alpha)
        for p, r, lo, hi in zip(e.detail["group"], e.detail["ratio"], e.detail["low"],
                                e.detail["high"], strict=True):
            out[f"claims/B7/{which}/{int(p)}p"] = (r, lo, hi)
    # the Maw's pace: every run but the paired ones (both tables; B8's parts among them)
    for run in ctx.runs:
        if C.is_study_run(run):
            continue
        _maw(out, run, run.path.name, alpha)
    return {k: tuple(float(x) for x in v) for k, v in out.items()}
