"""``deepsim sweep SCENARIO --param PATH=VALUES ...``: metrics over a grid of parameter values.

Every grid point plays games ``0 .. games-1`` from the same seed (common random numbers),
so a difference between two points is the parameters' doing, not different games. The
output folder (``--out``, default ``reports/sweeps/<scenario>-<stamp>-<hex>``) holds:

- ``sweep.parquet``: tidy, one row per grid point, metric and group: ``point``, one column
  per swept path, ``metric``, ``group`` (``""`` for an ungrouped metric), ``value``,
  ``low``, ``high`` (95% interval), ``n`` (seat-games or games behind it), ``note``,
  ``games``, ``seed``, ``params_hash``. Rewritten atomically after each point, so an
  interrupted sweep keeps the points it finished.
- ``sweep.json``: what was run (scenario, seed, games, grid, metrics, overrides, versions,
  command, times, ``status``).
- ``plots/<metric>.png``: each metric against the parameter with interval bands (one
  parameter) or as a heatmap (two parameters).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from deepsim.atomic import atomic_write_bytes, atomic_write_json, deferred_sigint
from deepsim.errors import InputError
from deepsim.runner import versions
from deepsim.tune import plots
from deepsim.tune.files import (
    DEFAULT_SWEEPS_ROOT,
    check_out,
    machine,
    make_out,
    utc_now,
    write_parquet,
)
from deepsim.tune.grid import ParamSpec, build_grid, parse_param
from deepsim.tune.objectives import (
    DEFAULT_TARGET_ROUNDS,
    MetricSpec,
    by_columns_of,
    default_metrics_of,
    evaluate_metric,
    faction_column_of,
    parse_metric,
)
from deepsim.tune.play import Player, PreparedPoint

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


def _rows(point: PreparedPoint, specs: list[ParamSpec], metrics: list[MetricSpec], games,
          seats, *, alpha: float, target_rounds: float, n_games: int, seed: int,
          faction_column: str = "company") -> list[dict]:
    rows = []
    for spec in metrics:
        for group, v in evaluate_metric(spec, games, seats, alpha=alpha,
                                        target_rounds=target_rounds,
                                        faction_column=faction_column):
            row = {"point": point.index}
            row.update({s.path: point.point[s.path] for s in specs})
            row.update({"metric": spec.label, "group": group, "value": float(v.value),
                        "low": float(v.low), "high": float(v.high), "n": int(v.n),
                        "note": v.note, "games": n_games, "seed": seed,
                        "params_hash": point.params_hash})
            rows.append(row)
    return rows


def run_sweep(scenario_path: Path | str, params: list[str], *,
              metrics: list[str] | None = None, games: int | None = None,
              seed: int | None = None, sets: list[str] | None = None,
              chunk_size: int | None = None, threads: int | None = None,
              out: Path | str | None = None, force: bool = False, alpha: float = 0.05,
              target_rounds: float = DEFAULT_TARGET_ROUNDS, make_plots: bool = True,
              root: Path | str = DEFAULT_SWEEPS_ROOT, progress: ProgressFn | None = None,
              backend=None) -> SweepResult:
    """Run a sweep and write its folder; see the module docstring.

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML file.
    params : list of str
        ``PATH=VALUES`` (see :mod:`deepsim.tune.grid`); several give a grid.
    metrics : list of str, optional
        ``--metric`` specs (default: the ruleset's ``default_metrics``; DEEPFALL:
        company/lineage/calling spread, seat advantage, mean rounds).
    games, seed, chunk_size, threads : int, optional
        Replace the scenario's values; ``threads`` never changes results.
    sets : list of str, optional
        ``path=value`` overrides applied at every point.
    out, force, root
        Output folder (default: a new folder under ``root``); an existing ``out`` needs
        ``force`` (its sweep files are replaced).
    alpha, target_rounds : float
        Interval level (1 - confidence) and the target of ``length_error``.
    make_plots : bool
    progress : callable(done, total, label), optional
    backend : DaskBackend, optional
        Started; every point's chunks are played as Dask tasks (same results).

    Raises
    ------
    InputError
        A bad scenario, ``--param``, ``--metric``, ``--set``, a grid point the ruleset
        refuses or an existing ``out`` without ``force``: all checked before any game runs.
    """
    check_out(out, force)
    sets = list(sets or [])
    player = Player(scenario_path, games=games, seed=seed, sets=sets, chunk_size=chunk_size,
                    threads=threads, backend=backend)
    specs = [parse_param(p, player.table) for p in params]
    grid = build_grid(specs, fixed=sets)
    points = [player.prepare(point, i) for i, point in enumerate(grid)]
    seats_cols, games_cols = player.columns(points[0])
    faction = faction_column_of(player.ruleset)
    defaults = default_metrics_of(player.ruleset)
    metric_specs = [parse_metric(m, seats_columns=seats_cols, games_columns=games_cols,
                                 by_columns=by_columns_of(player.ruleset),
                                 faction_column=faction)
                    for m in (metrics or defaults)]
    labels = [m.label for m in metric_specs]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise InputError(f"metric '{dup[0]}' is given twice", key="--metric")
    need_s = {c for m in metric_specs for c in m.seats_columns} | {"players", "seat"}
    need_g = {c for m in metric_specs for c in m.games_columns} | {"players", "rounds"}
    notes = []
    hashes = [p.params_hash for p in points]
    same = sorted({p.label for p in points if hashes.count(p.params_hash) > 1})
    if same:
        notes.append(f"grid points with identical rules (same params hash): {'; '.join(same)}")

    out_dir = make_out(out, name=f"{player.name}-sweep", force=force, root=root,
                       owned=SWEEP_FILES)
    total = len(points) * player.games
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
        "metrics": labels, "alpha": alpha, "target_rounds": target_rounds,
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
    if progress is not None:
        progress(0, total, points[0].label)
    for point in points:
        def tick(count: int, point=point) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total, point.label)

        g, s = player.play(point, seats_columns=need_s, games_columns=need_g, progress=tick)
        rows += _rows(point, specs, metric_specs, g, s, alpha=alpha,
                      target_rounds=target_rounds, n_games=player.games, seed=player.seed,
                      faction_column=faction)
        with deferred_sigint():
            write_parquet(parquet_path, pd.DataFrame(rows), meta)
    frame = pd.DataFrame(rows)
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
            "random numbers); bands/± = 95% intervals"
            + (f"; {', '.join(f'{s.path}={s.values[0]}' for s in fixed)}" if fixed else "")
            + (f"; --set {' '.join(player.sets)}" if player.sets else ""))
    pdir = out_dir / "plots"
    pdir.mkdir(exist_ok=True)
    files = []
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
    d = frame[frame["metric"] == metric]
    cols = [s.path for s in specs]
    return d.pivot_table(index=["point", *cols], columns="group", values="value",
                         sort=False).reset_index()
