"""Load a scenario, prepare its ruleset, play the games in chunks and write the run.

The runner knows rulesets only through the contract in :mod:`deepsim.rulesets.base`:
``prepare``, ``run_chunk`` and ``trace``. Chunks run one after another; each chunk is
parallel inside the ruleset's kernel (numba ``prange``), on ``threads`` threads. Results
depend only on (seed, game index), so chunk size and thread count never change them.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numba

from deepsim import __version__
from deepsim.atomic import deferred_sigint
from deepsim.errors import InputError
from deepsim.output import (
    DEFAULT_RUNS_ROOT,
    RunWriter,
    hash_json,
    prepare_out_dir,
    read_run_json,
    write_run_json,
)

__all__ = [
    "RUN_JSON_VERSION",
    "RunResult",
    "available_rulesets",
    "chunk_ranges",
    "execute",
    "get_ruleset",
    "load_scenario",
    "resolve",
    "run",
    "set_threads",
    "trace_run",
    "trace_scenario",
    "versions",
]

RUN_JSON_VERSION = 1
ProgressFn = Callable[[int, int], None]


# --- the ruleset side (imported lazily so this module works without a ruleset) ---------------

def load_scenario(path: Path) -> dict:
    """Read and check a scenario file; see ``deepsim.scenario.load_scenario``.

    Raises
    ------
    InputError
        The file is missing, malformed or invalid.
    """
    from deepsim.scenario import load_scenario as _load

    return _load(Path(path))


def available_rulesets() -> list[str]:
    """Names of the installed rulesets (``deepsim.rulesets.available()``)."""
    from deepsim import rulesets

    return list(rulesets.available())


def get_ruleset(name: str) -> Any:
    """The ruleset object named ``name`` (``deepsim.rulesets.get``).

    Raises
    ------
    InputError
        No such ruleset; the message lists the nearest names.
    """
    from deepsim import rulesets

    try:
        return rulesets.get(name)
    except InputError:
        raise
    except (KeyError, LookupError, ModuleNotFoundError) as exc:
        names = available_rulesets()
        near = difflib.get_close_matches(str(name), names, n=3) or names
        raise InputError(f"unknown ruleset {name!r}; available: {', '.join(near)}",
                         key="ruleset") from exc


# --- helpers ---------------------------------------------------------------------------------

def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def versions() -> dict[str, str]:
    """Versions of deepsim, Python and the numeric libraries, for ``run.json``."""
    out = {"deepsim": __version__, "python": platform.python_version()}
    for pkg in ("numpy", "numba", "pandas", "pyarrow"):
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover
            out[pkg] = "unknown"
    return out


def _check_count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"expected an integer >= {minimum}, got {value!r}", key=what)
    return int(value)


def chunk_ranges(games: int, chunk_size: int) -> list[tuple[int, int, int]]:
    """Split ``games`` into chunks.

    Parameters
    ----------
    games : int
        Total games, >= 1.
    chunk_size : int
        Games per chunk, >= 1.

    Returns
    -------
    list of (index, start, count)
        ``start = index * chunk_size``; the last chunk holds the remainder.
    """
    return [(i, start, min(chunk_size, games - start))
            for i, start in enumerate(range(0, games, chunk_size))]


def set_threads(threads: int | None) -> int:
    """Set numba's thread count for the kernels.

    Parameters
    ----------
    threads : int or None
        Threads to use, 1 .. number of cores; ``None`` means all cores
        (``numba.config.NUMBA_NUM_THREADS``).

    Returns
    -------
    int
        Threads now in use.

    Raises
    ------
    InputError
        ``threads`` outside 1 .. ``NUMBA_NUM_THREADS``.
    """
    limit = int(numba.config.NUMBA_NUM_THREADS)
    if threads is None:
        threads = limit
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= limit:
        raise InputError(f"expected 1 .. {limit} threads on this machine, got {threads!r}",
                         key="--threads")
    numba.set_num_threads(threads)
    return int(numba.get_num_threads())


def resolve(scenario_path: Path | str, *, games: int | None = None, seed: int | None = None,
            chunk_size: int | None = None, overrides: list[str] | None = None
            ) -> tuple[Any, dict, Any]:
    """Load a scenario, apply CLI values and prepare it against its ruleset.

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML file.
    games, seed, chunk_size : int, optional
        Replace the scenario's ``games`` (>= 1), ``seed`` (>= 0), ``chunk_size`` (>= 1).
    overrides : list of str, optional
        ``path=value`` ruleset parameter overrides (``--set``), applied by the ruleset.

    Returns
    -------
    ruleset : Ruleset
    scenario : dict
        The scenario mapping handed to ``prepare`` (after the CLI values).
    prepared : Prepared

    Raises
    ------
    InputError
        Invalid scenario, CLI value, ruleset name or override.
    """
    source = str(scenario_path)
    scenario = dict(load_scenario(Path(scenario_path)))
    if games is not None:
        scenario["games"] = _check_count(games, "--games", 1)
    if seed is not None:
        scenario["seed"] = _check_count(seed, "--seed", 0)
    if chunk_size is not None:
        scenario["chunk_size"] = _check_count(chunk_size, "--chunk-size", 1)
    for key, minimum in (("games", 1), ("seed", 0), ("chunk_size", 1)):
        if key not in scenario:
            raise InputError("scenario has no value for this key", file=source, key=key)
        try:
            _check_count(scenario[key], key, minimum)
        except InputError as exc:
            raise InputError(str(exc), file=source) from None
    if "ruleset" not in scenario:
        raise InputError("scenario names no ruleset", file=source, key="ruleset")
    ruleset = get_ruleset(scenario["ruleset"])
    prepared = ruleset.prepare(scenario, source=source, overrides=list(overrides or []))
    return ruleset, scenario, prepared


# --- running ---------------------------------------------------------------------------------

@dataclass
class RunResult:
    """What :func:`run` did.

    Attributes
    ----------
    out_dir : Path
        The run directory.
    ruleset : Ruleset
    prepared : Prepared
    info : dict
        The final ``run.json`` content.
    manifest : dict
        The final ``manifest.json`` content (``status == "complete"``).
    """

    out_dir: Path
    ruleset: Any
    prepared: Any
    info: dict = field(default_factory=dict)
    manifest: dict = field(default_factory=dict)


def run(scenario_path: Path | str, *, games: int | None = None, seed: int | None = None,
        chunk_size: int | None = None, threads: int | None = None,
        out: Path | str | None = None, force: bool = False,
        overrides: list[str] | None = None, runs_root: Path | str = DEFAULT_RUNS_ROOT,
        progress: ProgressFn | None = None) -> RunResult:
    """Run a scenario end to end and write its run directory.

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML file.
    games, seed, chunk_size : int, optional
        Override the scenario's values.
    threads : int, optional
        numba threads (default: all cores).
    out : Path or str, optional
        Run directory; default a new ``runs_root/<name>-<YYYYmmdd-HHMMSS>-<hex>``.
    force : bool, default False
        Allow an existing ``out`` (its run files are replaced).
    overrides : list of str, optional
        ``path=value`` ruleset parameter overrides.
    runs_root : Path or str, default ``reports/runs``
        Parent of default run directories.
    progress : callable(done, total), optional
        Called with games done and total games before the first chunk and after each one.

    Returns
    -------
    RunResult

    Raises
    ------
    InputError
        Invalid scenario, values, overrides, thread count, or ``out`` exists without
        ``force`` (checked before any game runs or any directory is created).
    KeyboardInterrupt
        Ctrl-C: finished chunks stay valid, the manifest keeps status ``"running"``.
    """
    if out is not None and Path(out).exists() and not force:
        raise InputError("output directory already exists; pass --force to overwrite it or "
                         "choose another --out", file=str(out))
    overrides = list(overrides or [])
    n_threads = set_threads(threads)
    ruleset, scenario, prepared = resolve(scenario_path, games=games, seed=seed,
                                          chunk_size=chunk_size, overrides=overrides)
    name = str(scenario.get("name") or Path(scenario_path).stem)
    out_dir = prepare_out_dir(out, scenario_name=name, force=force, root=runs_root)
    return execute(ruleset, prepared, scenario, out_dir=out_dir, source=str(scenario_path),
                   overrides=overrides, threads=n_threads, progress=progress)


def execute(ruleset: Any, prepared: Any, scenario: dict, *, out_dir: Path, source: str,
            overrides: list[str], threads: int, progress: ProgressFn | None = None
            ) -> RunResult:
    """Play a prepared scenario into an existing, empty run directory.

    Parameters
    ----------
    ruleset : Ruleset
    prepared : Prepared
        From ``ruleset.prepare(scenario, ...)``.
    scenario : dict
        The mapping given to ``prepare``; must hold ``games``, ``seed``, ``chunk_size``
        and ``name``.
    out_dir : Path
        Existing run directory without run files.
    source : str
        Scenario file path, for ``run.json``.
    overrides : list of str
        Overrides given to ``prepare``, recorded for ``trace`` and re-runs.
    threads : int
        Threads in use (recorded only; see :func:`set_threads`).
    progress : callable(done, total), optional

    Returns
    -------
    RunResult

    Raises
    ------
    RuntimeError
        The ruleset returned frames that do not match the chunk.
    KeyboardInterrupt
        Propagated after the current chunk's writes finish.
    """
    resolved = prepared.scenario if isinstance(prepared.scenario, dict) else scenario
    games = int(resolved.get("games", scenario["games"]))
    seed = int(resolved.get("seed", scenario["seed"]))
    chunk_size = int(resolved.get("chunk_size", scenario["chunk_size"]))
    name = str(resolved.get("name") or scenario.get("name") or Path(source).stem)
    scenario_hash = hash_json(resolved)
    info: dict[str, Any] = {
        "run_json_version": RUN_JSON_VERSION,
        "scenario_name": name,
        "scenario_path": source,
        "ruleset": prepared.ruleset,
        "scenario": resolved,
        "scenario_input": scenario,
        "scenario_hash": scenario_hash,
        "overrides": list(overrides),
        "params": prepared.params,
        "params_hash": prepared.params_hash,
        "placeholders": list(prepared.placeholders),
        "skipped_rules": list(prepared.skipped_rules),
        "seed": seed,
        "games": games,
        "chunk_size": chunk_size,
        "threads": threads,
        "versions": versions(),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "command": sys.argv,
        "started_utc": _utc_now(),
        "finished_utc": None,
        "wall_time_s": None,
        "games_per_s": None,
    }
    with deferred_sigint():
        write_run_json(out_dir, info)
        writer = RunWriter(out_dir, ruleset=prepared.ruleset, scenario_name=name,
                           scenario_hash=scenario_hash, params_hash=prepared.params_hash,
                           seed=seed, games=games, chunk_size=chunk_size,
                           placeholders=list(prepared.placeholders),
                           skipped_rules=list(prepared.skipped_rules))
    t0 = time.perf_counter()
    done = 0
    if progress is not None:
        progress(0, games)
    for index, start, count in chunk_ranges(games, chunk_size):
        games_df, seats_df = ruleset.run_chunk(prepared, start, count)
        with deferred_sigint():
            writer.write_chunk(index, start, count, games_df, seats_df)
        done += count
        if progress is not None:
            progress(done, games)
    wall = time.perf_counter() - t0
    with deferred_sigint():
        writer.complete()
        info["finished_utc"] = _utc_now()
        info["wall_time_s"] = round(wall, 3)
        info["games_per_s"] = round(games / wall, 1) if wall > 0 else None
        write_run_json(out_dir, info)
    return RunResult(out_dir=out_dir, ruleset=ruleset, prepared=prepared, info=info,
                     manifest=writer.manifest)


# --- tracing ---------------------------------------------------------------------------------

def trace_run(run_dir: Path | str, game: int) -> tuple[list[str], list[str]]:
    """Replay game ``game`` of a finished (or interrupted) run with its recorded overrides.

    Parameters
    ----------
    run_dir : Path or str
        Run directory holding ``run.json``.
    game : int
        Global game index, ``0 <= game < games``.

    Returns
    -------
    lines : list of str
        The ruleset's readable log of that game.
    warnings : list of str
        E.g. the ruleset data changed since the run (params hash differs), so the replay
        may not be the game the batch played.

    Raises
    ------
    InputError
        No readable ``run.json``, a game index out of range, or the recorded scenario no
        longer prepares.
    """
    run_dir = Path(run_dir)
    info = read_run_json(run_dir)
    where = str(run_dir / "run.json")
    for key in ("ruleset", "scenario_input", "games"):
        if key not in info:
            raise InputError("run.json lacks this key", file=where, key=key)
    total = int(info["games"])
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < total:
        raise InputError(f"game {game!r} is not in this run (0 .. {total - 1})", key="--game")
    ruleset = get_ruleset(info["ruleset"])
    prepared = ruleset.prepare(dict(info["scenario_input"]),
                               source=str(info.get("scenario_path") or where),
                               overrides=list(info.get("overrides") or []))
    warnings = []
    if info.get("params_hash") and prepared.params_hash != info["params_hash"]:
        warnings.append("the ruleset parameters changed since this run (params hash "
                        f"{prepared.params_hash[:12]} vs recorded {info['params_hash'][:12]}); "
                        "the replay may differ from the game the batch played")
    return list(ruleset.trace(prepared, game)), warnings


def trace_scenario(scenario_path: Path | str, game: int, *, seed: int | None = None,
                   overrides: list[str] | None = None) -> list[str]:
    """Replay game ``game`` of a scenario (with ``seed`` and ``overrides``).

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML file.
    game : int
        Global game index, >= 0.
    seed : int, optional
        Master seed (default: the scenario's).
    overrides : list of str, optional
        ``path=value`` parameter overrides.

    Returns
    -------
    list of str
        The readable log.

    Raises
    ------
    InputError
        Invalid scenario, seed, override or game index.
    """
    if isinstance(game, bool) or not isinstance(game, int) or game < 0:
        raise InputError(f"expected a game index >= 0, got {game!r}", key="--game")
    ruleset, _, prepared = resolve(scenario_path, seed=seed, overrides=overrides)
    return list(ruleset.trace(prepared, game))
