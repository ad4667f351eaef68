"""``deepsim sweep SCENARIO --param PATH=VALUES ...``: metrics over a grid of parameter values.

Every grid point plays games ``0 .. games-1`` from the same seed (common random numbers),
so a difference between two points is the parameters' doing, not different games. Each
metric (the metric language, :mod:`deepsim.measure`) gets its value and 95% interval at
every point and its **paired change from the baseline point** with a 95% interval: the
baseline is the grid point whose rules are the scenario's own (defaults, scenario
``overrides:`` and ``--set``: the same params hash), or, when the grid does not hold it,
the scenario played once more beside the grid (``point`` -1). The change's interval is the
delta-method one over paired games (deals when seats rotate), so a real change shows even
when two points' own intervals overlap.

The output folder (``--out``, default ``reports/sweeps/<scenario>-<stamp>-<hex>``) holds:

- ``sweep.parquet``: tidy, one row per grid point and number: ``point``, ``baseline``
  (bool), one column per swept path, ``metric`` (the spelling as given, e.g.
  ``win_share[bot]``), ``group`` (the member, ``""`` for one number), ``label`` (the
  number's full spelling), ``unit``, ``value``, ``low``, ``high`` (95% interval),
  ``fair`` (the fair value of a win metric: its fair share, 1 x fair, 0 for an edge or a
  spread; else NaN), ``delta``, ``delta_low``, ``delta_high`` (paired change from the
  baseline point, 95% interval), ``n`` (units: seat-games, games, crews...), ``note``,
  ``games``, ``seed``, ``params_hash``. Rewritten atomically after each point, so an
  interrupted sweep keeps the points it finished.
- ``sweep.json``: what was run (scenario, seed, games, grid, baseline, metrics, overrides,
  versions, command, times, ``status``).
- ``plots/<metric>.png``: one parameter: each metric against it with interval bands (and
  the fair-share line of a win metric) above its paired change from the baseline; two
  parameters: a heatmap per member, cells annotated with the value, the half-width of its
  interval and the paired change.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from scipy.stats import norm

from deepsim.atomic import atomic_write_bytes, atomic_write_json, deferred_sigint
from deepsim.errors import InputError
from deepsim.measure.spec import Instance, expand, target_of
from deepsim.measure.values import Codes, Obs, estimate_obs, fair_value, measure, paired
from deepsim.runfolders import (
    DEFAULT_SWEEPS_ROOT,
    check_out,
    machine,
    make_out,
    utc_now,
    write_parquet,
)
from deepsim.runner import versions
from deepsim.tune import plots
from deepsim.tune.grid import ParamSpec, build_grid, parse_param
from deepsim.tune.objectives import (
    MetricSpec,
    default_metrics_of,
    parse_metric,
    probe_universe,
)
from deepsim.tune.play import Player, PreparedPoint
from deepsim.tune.settings import Settings

__all__ = ["SweepResult", "run_sweep", "wide_table"]

SWEEP_FILES = ("sweep.parquet", "sweep.json", "plots")
#: (done games, total games, what is playing) -> None
ProgressFn = Callable[[int, int, str], None]


@dataclass
class SweepResult:
    """What :func:`run_sweep` did: the tidy frame, the grid and where it was written."""

    out_dir: Path
    frame: pd.DataFrame
    specs: list[ParamSpec]
    metrics: list[MetricSpec]
    info: dict
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "metric"


_Z95 = float(norm.isf(0.025))


def _lookup(params: dict, path: str):
    """The value of a dotted parameter path in a prepared scenario's params (the
    baseline's coordinate of a swept path)."""
    node = params
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _rows(point: PreparedPoint, specs: list[ParamSpec], metrics: list[MetricSpec],
          instances: list[list[Instance]], obs: list[list[Obs]],
          base: list[list[Obs]] | None, *, alpha: float, n_games: int, seed: int,
          is_baseline: bool) -> list[dict]:
    rows = []
    for spec, insts, os_, bs in zip(metrics, instances, obs, base or [None] * len(metrics),
                                    strict=True):
        for k, (inst, o) in enumerate(zip(insts, os_, strict=True)):
            e = estimate_obs(o, alpha)
            d_est = d_lo = d_hi = math.nan
            if bs is not None:
                p = paired(bs[k], o)
                d_est, d_lo, d_hi = p.est, p.est - _Z95 * p.se, p.est + _Z95 * p.se
                if p.se == 0 and not math.isnan(p.est):  # identical games: exactly equal
                    d_lo = d_hi = p.est
            row = {"point": point.index, "baseline": is_baseline}
            row.update({s.path: point.point[s.path] if s.path in point.point
                        else _lookup(point.prepared.params, s.path) for s in specs})
            row.update({"metric": spec.label, "group": inst.member, "label": inst.spec,
                        "unit": inst.metric.unit, "value": float(e.value),
                        "low": float(e.low), "high": float(e.high),
                        "fair": float(fair_value(o)), "delta": float(d_est),
                        "delta_low": float(d_lo), "delta_high": float(d_hi),
                        "n": float(e.units), "note": e.note, "games": n_games, "seed": seed,
                        "params_hash": point.params_hash})
            rows.append(row)
    return rows


def run_sweep(scenario_path: Path | str, params: list[str], *,
              metrics: list[str] | None = None, settings: Settings | None = None,
              progress: ProgressFn | None = None, backend=None) -> SweepResult:
    """Run a sweep and write its folder; see the module docstring.

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML file.
    params : list of str
        ``PATH=VALUES`` (see :mod:`deepsim.tune.grid`); several give a grid.
    metrics : list of str, optional
        ``--metric`` spellings of the metric language (default: the ruleset's
        ``default_metrics``).
    settings : Settings, optional
        Games, seed, overrides at every point, chunking, threads, interval level, the
        target of ``length_error``, the output folder (default: a new folder under
        ``reports/sweeps``; an existing one needs ``force``, its sweep files are replaced)
        and plots (:class:`deepsim.tune.settings.Settings`; default: all defaults).
    progress : callable(done, total, label), optional
    backend : DaskBackend, optional
        Started; every point's chunks are played as Dask tasks (same results).

    Raises
    ------
    InputError
        A bad scenario, ``--param``, ``--metric``, ``--set``, a grid point the ruleset
        refuses or an existing ``out`` without ``force``: all checked before any game runs.
    """
    st = settings or Settings()
    games, seed, sets, chunk_size, threads = (st.games, st.seed, list(st.sets),
                                              st.chunk_size, st.threads)
    out, force, alpha, target_rounds = st.out, st.force, st.alpha, st.target_rounds
    make_plots = st.make_plots
    root = DEFAULT_SWEEPS_ROOT if st.root is None else st.root
    check_out(out, force)
    player = Player(scenario_path, games=games, seed=seed, sets=sets, chunk_size=chunk_size,
                    threads=threads, backend=backend)
    specs = [parse_param(p, player.table) for p in params]
    grid = build_grid(specs, fixed=sets)
    points = [player.prepare(point, i) for i, point in enumerate(grid)]
    baseline = player.prepare({}, -1)
    base_at = next((p for p in points if p.params_hash == baseline.params_hash), None)
    universe = probe_universe(player.ruleset, points[0].prepared)
    if target_rounds is None:
        target_rounds = target_of(player.ruleset)
    cols = tuple(universe.group_columns)
    given = list(metrics or [])
    metric_specs = [parse_metric(m, group_columns=cols)
                    for m in (given or default_metrics_of(player.ruleset))]
    labels = [m.label for m in metric_specs]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise InputError(f"metric '{dup[0]}' is given twice", key="--metric")
    instances = [expand([m.selection], universe, key="--metric",
                        target_rounds=target_rounds) for m in metric_specs]
    flat = [i for insts in instances for i in insts]
    from deepsim.measure.values import columns_needed

    need_g, need_s = (set(c) for c in columns_needed(flat))
    need_s |= {"players", "seat"}
    need_g |= {"players", "rounds"}
    notes = [f"--metric {m.text}: {n}" for m in metric_specs for n in m.notes]
    if "feel_bad" in given:
        notes.append("feel_bad is the share of player-games with a crew Taken without a Last "
                     "Stand (as in check and the report); the per-crew rate sweep called "
                     "feel_bad is feel_bad_crew")
    hashes = [p.params_hash for p in points]
    same = sorted({p.label for p in points if hashes.count(p.params_hash) > 1})
    if same:
        notes.append(f"grid points with identical rules (same params hash): {'; '.join(same)}")
    if base_at is None:
        notes.append("the grid does not hold the scenario's own rules: the baseline was "
                     "played beside it (point -1)")

    out_dir = make_out(out, name=f"{player.name}-sweep", force=force, root=root,
                       owned=SWEEP_FILES)
    order = ([baseline] if base_at is None else [base_at]) + [p for p in points
                                                               if p is not base_at]
    total = len(order) * player.games
    info = {
        "kind": "sweep", "scenario_name": player.name, "scenario_path": str(scenario_path),
        "ruleset": points[0].prepared.ruleset, "seed": player.seed, "games": player.games,
        "chunk_size": player.chunk_size, "threads": player.threads,
        "common_random_numbers": f"every point plays games 0..{player.games - 1} of seed "
                                 f"{player.seed}",
        "sets": sets, "scenario_overrides": player.scenario_overrides,
        "params": {s.path: list(s.values) for s in specs},
        "points": [{"point": p.index, "overrides": p.overrides, "params_hash": p.params_hash}
                   for p in points],
        "baseline": {"point": (base_at or baseline).index, "params_hash": baseline.params_hash,
                     "in_grid": base_at is not None},
        "metrics": labels, "alpha": alpha,
        "target_rounds": None if math.isnan(target_rounds) else target_rounds,
        "placeholders": list(points[0].prepared.placeholders),
        "backend": backend.describe() if backend is not None else {"name": "local"},
        "versions": versions(), **machine(), "started_utc": utc_now(),
        "finished_utc": None, "wall_time_s": None, "status": "running", "notes": notes,
    }
    parquet_path, json_path = out_dir / "sweep.parquet", out_dir / "sweep.json"
    meta = {"kind": "sweep", "scenario": player.name, "seed": player.seed,
            "games": player.games}
    with deferred_sigint():
        atomic_write_json(json_path, info)
    rows: list[dict] = []
    done = 0
    t0 = time.perf_counter()
    base_obs: list[list[Obs]] | None = None
    if progress is not None:
        progress(0, total, order[0].label)
    for point in order:
        def tick(count: int, point=point) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total, point.label)

        g, s = player.play(point, seats_columns=need_s, games_columns=need_g, progress=tick)
        codes = Codes(s)
        obs = [[measure(i, g, s, codes) for i in insts] for insts in instances]
        if base_obs is None:
            base_obs = obs
        rows += _rows(point, specs, metric_specs, instances, obs, base_obs, alpha=alpha,
                      n_games=player.games, seed=player.seed,
                      is_baseline=point is (base_at or baseline))
        frame = pd.DataFrame(rows).sort_values("point", kind="stable").reset_index(drop=True)
        with deferred_sigint():
            write_parquet(parquet_path, frame, meta)
    frame = pd.DataFrame(rows).sort_values("point", kind="stable").reset_index(drop=True)
    files = [parquet_path, json_path]
    if make_plots:
        files += _write_plots(out_dir, frame, specs, metric_specs, player, notes)
    info.update({"finished_utc": utc_now(), "wall_time_s": round(time.perf_counter() - t0, 3),
                 "status": "complete", "notes": notes,
                 "plots": [p.relative_to(out_dir).as_posix() for p in files[2:]]})
    with deferred_sigint():
        atomic_write_json(json_path, info)
    return SweepResult(out_dir=out_dir, frame=frame, specs=specs, metrics=metric_specs,
                       info=info, files=files, notes=notes)


def _write_plots(out_dir: Path, frame: pd.DataFrame, specs: list[ParamSpec],
                 metrics: list[MetricSpec], player: Player, notes: list[str]) -> list[Path]:
    varying = [s for s in specs if len(s.values) > 1]
    if not varying:
        notes.append("no plot: every --param has a single value")
        return []
    if len(varying) > 2:
        notes.append(f"no plot: {len(varying)} parameters vary (plots show one or two)")
        return []
    fixed = [s for s in specs if len(s.values) == 1]
    foot = (f"{player.name}: seed {player.seed}, {player.games:,} games per point (common "
            "random numbers); bands/± = 95% intervals; change = paired difference from "
            "the baseline point"
            + (f"; {', '.join(f'{s.path}={s.values[0]}' for s in fixed)}" if fixed else "")
            + (f"; --set {' '.join(player.sets)}" if player.sets else ""))
    pdir = out_dir / "plots"
    pdir.mkdir(exist_ok=True)
    files = []
    frame = frame[frame[[s.path for s in specs]].notna().all(axis=1)]
    for m in metrics:
        if len(varying) == 1:
            png = plots.sweep_line(frame, varying[0].path, m.label, footer=foot,
                                   title=f"{m.label} vs {varying[0].path}")
        else:
            png = plots.sweep_heatmap(frame, varying[0].path, varying[1].path, m.label,
                                      footer=foot, title=f"{m.label}")
        path = pdir / f"{_slug(m.label)}.png"
        atomic_write_bytes(path, png)
        files.append(path)
    return files


def wide_table(frame: pd.DataFrame, specs: list[ParamSpec], metric: str) -> pd.DataFrame:
    """One metric as a wide frame: one row per grid point, one column per group."""
    d = frame[(frame["metric"] == metric) & (frame["point"] >= 0)]
    cols = [s.path for s in specs]
    return d.pivot_table(index=["point", *cols], columns="group", values="value",
                         sort=False).reset_index()
