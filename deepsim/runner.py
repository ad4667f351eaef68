"""Load a scenario, prepare its ruleset, play the games in chunks and write the run.

The runner knows rulesets only through the contract in :mod:`deepsim.rulesets.base`:
``prepare``, ``run_chunk`` and ``trace``. Chunks run one after another; each chunk is
parallel inside the ruleset's kernel (blocks of games on ``threads`` threads,
:mod:`deepsim.blocks`), once the kernel is compiled or loaded (:mod:`deepsim.jitcache`),
and a chunk's parquet parts are written on a writer thread while the next chunk plays.
Results depend only on (seed, game index), so chunk size and thread count never change them.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.metadata
import json
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

from deepsim import jitcache, rulesets
from deepsim.atomic import deferred_sigint
from deepsim.errors import InputError, OutputError
from deepsim.output import (
    DEFAULT_RUNS_ROOT,
    MANIFEST_NAME,
    MANIFEST_SCHEMA_VERSION,
    RUN_JSON_NAME,
    RunWriter,
    check_out_dir,
    check_parts,
    check_writable,
    clean_stray_files,
    hash_json,
    os_reason,
    prepare_out_dir,
    read_manifest,
    read_run_json,
    write_run_json,
)
from deepsim.params import leaf_paths, safety_cap_values
from deepsim.scenario import LINES, ScenarioBase
from deepsim.scenario import load_scenario as _load
from deepsim.version import __version__

__all__ = [
    "MAX_CHUNKS",
    "RUN_JSON_VERSION",
    "RunInterrupted",
    "RunResult",
    "available_rulesets",
    "chunk_ranges",
    "execute",
    "get_ruleset",
    "load_scenario",
    "playable_ruleset",
    "rerun",
    "resolve",
    "resume",
    "run",
    "set_threads",
    "trace_run",
    "trace_scenario",
    "versions",
]

RUN_JSON_VERSION = 1
ProgressFn = Callable[[int, int], None]
#: called once with "compiling the <title> kernel (first run only, about N s)" when numba
#: starts compiling before the games (not when the kernel comes from the cache)
CompileFn = Callable[[str], None]


# --- the ruleset side (imported lazily so this module works without a ruleset) ---------------

def load_scenario(path: Path) -> dict:
    """Read and check a scenario file; see ``deepsim.scenario.load_scenario``.

    Raises
    ------
    InputError
        The file is missing, malformed or invalid.
    """

    return _load(Path(path))


def available_rulesets() -> list[str]:
    """Names of the installed rulesets (``deepsim.rulesets.available()``)."""

    return list(rulesets.available())


def get_ruleset(name: str) -> Any:
    """The ruleset object named ``name`` (``deepsim.rulesets.get``).

    Raises
    ------
    InputError
        No such ruleset; the message lists the nearest names.
    """

    try:
        return rulesets.get(name)
    except InputError:
        raise
    except (KeyError, LookupError, ModuleNotFoundError) as exc:
        names = available_rulesets()
        near = difflib.get_close_matches(str(name), names, n=3) or names
        raise InputError(f"unknown ruleset {name!r}; available: {', '.join(near)}",
                         key="ruleset") from exc


def playable_ruleset(name: str) -> Any:
    """The ruleset ``name`` if it has a kernel (:func:`get_ruleset`).

    Raises
    ------
    InputError
        No such ruleset, or an odds-only one (it has no games to play).
    """
    ruleset = get_ruleset(name)
    if not ruleset.plays:
        raise InputError(f"ruleset '{name}' is odds-only: it has no kernel to play games "
                         f"(ask its dice with `deepsim odds {name} QUESTION`)", key="ruleset")
    return ruleset


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


def ruleset_package(name: str) -> dict[str, str]:
    """Where ruleset ``name`` comes from, for ``run.json``: ``source`` (built-in, plugin,
    registered), ``package`` (its distribution) and ``version``."""

    e = next((e for e in rulesets.entries() if e.name == name and e.error is None), None)
    if e is None:
        return {}
    return {"source": e.source, "package": e.package, "version": e.version}


_MAX_SEED = 2**63 - 1
#: Most chunks one run may have: bounds the chunk plan and the manifest (~17 MB at most).
MAX_CHUNKS = 100_000


def _scenario_max(key: str) -> int | None:
    """The ``le`` bound of a generic scenario key (``games``, ``seed``, ``chunk_size``), so a
    CLI value is held to the same bound as the file's and blamed on its flag."""

    for meta in ScenarioBase.model_fields[key].metadata:
        if getattr(meta, "le", None) is not None:
            return int(meta.le)
    return None


def check_count(value: Any, what: str, minimum: int, maximum: int | None = None) -> int:
    """``value`` when it is an integer in ``minimum .. maximum`` (no upper bound when
    ``maximum`` is None; a bool is not an integer here).

    Raises
    ------
    InputError
        Naming ``what`` (the flag or key) and the bounds.
    """
    if (isinstance(value, bool) or not isinstance(value, int) or value < minimum
            or (maximum is not None and value > maximum)):
        bounds = f">= {minimum}" if maximum is None else f"{minimum} .. {maximum}"
        raise InputError(f"expected an integer {bounds}, got {value!r}", key=what)
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
    return resolve_mapping(scenario, source=source, games=games, seed=seed,
                           chunk_size=chunk_size, overrides=overrides)


def resolve_mapping(scenario: dict, *, source: str = "<scenario>", games: int | None = None,
                    seed: int | None = None, chunk_size: int | None = None,
                    overrides: list[str] | None = None) -> tuple[Any, dict, Any]:
    """:func:`resolve` for a scenario mapping already checked by ``check_scenario``.

    ``source`` names the mapping in error messages (a file path, or ``"<dict>"``).

    Raises
    ------
    InputError
        Invalid scenario, CLI value, ruleset name or override.
    """
    scenario = dict(scenario)
    if games is not None:
        scenario["games"] = check_count(games, "--games", 1, _scenario_max("games"))
    if seed is not None:
        scenario["seed"] = check_count(seed, "--seed", 0, _MAX_SEED)
    if chunk_size is not None:
        scenario["chunk_size"] = check_count(chunk_size, "--chunk-size", 1,
                                              _scenario_max("chunk_size"))
    for key, minimum in (("games", 1), ("seed", 0), ("chunk_size", 1)):
        if key not in scenario:
            raise InputError("scenario has no value for this key", file=source, key=key)
        try:
            check_count(scenario[key], key, minimum)
        except InputError as exc:
            raise InputError(str(exc), file=source) from None
    _check_chunks(scenario, source, games_flag=games is not None,
                  chunk_flag=chunk_size is not None)
    if "ruleset" not in scenario:
        raise InputError("scenario names no ruleset", file=source, key="ruleset")
    try:
        ruleset = playable_ruleset(scenario["ruleset"])
    except InputError as exc:

        message = str(exc).split(": ", 1)[-1] if exc.key else str(exc)
        raise InputError(message, file=source, key="ruleset",
                         line=LINES.get(source, {}).get("ruleset")) from None
    prepared = _prepare(ruleset, scenario, source=source, overrides=list(overrides or []))
    return ruleset, scenario, prepared


def _check_chunks(scenario: dict, source: str, *, games_flag: bool, chunk_flag: bool
                 ) -> None:
    """Refuse a run of more than :data:`MAX_CHUNKS` chunks, blaming the flag or key that
    made it so (``--chunk-size`` or ``--games`` when given, else the scenario's line)."""
    games, chunk_size = int(scenario["games"]), int(scenario["chunk_size"])
    n_chunks = -(-games // chunk_size)
    if n_chunks <= MAX_CHUNKS:
        return

    need = -(-games // MAX_CHUNKS)
    message = (f"{games:,} games in chunks of {chunk_size:,} make {n_chunks:,} chunks; a run "
               f"has at most {MAX_CHUNKS:,}: give a chunk size of at least {need:,}")
    if chunk_flag or games_flag:
        raise InputError(message, key="--chunk-size" if chunk_flag else "--games")
    key = "chunk_size" if "chunk_size" in LINES.get(source, {}) else "games"
    raise InputError(message, file=source, key=key, line=LINES.get(source, {}).get(key))


def _prepare(ruleset: Any, scenario: dict, *, source: str, overrides: list[str]) -> Any:
    """``ruleset.prepare`` (which also checks the player counts against the ruleset's range).

    Raises
    ------
    InputError
        From ``prepare``.
    """
    return ruleset.prepare(scenario, source=source, overrides=list(overrides))


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
    notes : list of str
        What a resume or re-run did (for the CLI to print).
    warnings : list of str
        E.g. library versions changed since a resumed or re-run run was made.
    """

    out_dir: Path
    ruleset: Any
    prepared: Any
    info: dict = field(default_factory=dict)
    manifest: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run, after the current chunk's writes finished.

    Attributes
    ----------
    out_dir : Path
        The run directory: every finished chunk is valid, the manifest says
        ``"running"``, and ``deepsim run --resume out_dir`` finishes it.
    chunks_done, n_chunks : int
        Chunks finished so far and in all.
    """

    def __init__(self, out_dir: Path, chunks_done: int, n_chunks: int):
        super().__init__(f"run interrupted after {chunks_done} of {n_chunks} chunks: {out_dir}")
        self.out_dir = Path(out_dir)
        self.chunks_done = chunks_done
        self.n_chunks = n_chunks


def run(scenario_path: Path | str, *, games: int | None = None, seed: int | None = None,
        chunk_size: int | None = None, threads: int | None = None,
        out: Path | str | None = None, force: bool = False,
        overrides: list[str] | None = None, runs_root: Path | str = DEFAULT_RUNS_ROOT,
        progress: ProgressFn | None = None, backend: Any = None,
        on_compile: CompileFn | None = None) -> RunResult:
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
    backend : object, optional
        Plays the chunks elsewhere (:class:`deepsim.distributed.DaskBackend`); default:
        here, one chunk after another. The results are the same.
    on_compile : callable(message), optional
        Called when numba starts compiling the ruleset's kernels, before any game
        (:func:`deepsim.jitcache.warm`); the compile time is recorded apart from the games'
        (``compile_s`` in ``run.json``).

    Returns
    -------
    RunResult

    Raises
    ------
    InputError
        Invalid scenario, values, overrides, thread count, or ``out`` exists without
        ``force`` (checked before any game runs or any directory is created); an output
        folder that cannot be made or written (a file in the way, read-only, no
        permission, disk full), checked before any game runs.
    RunInterrupted
        Ctrl-C (a ``KeyboardInterrupt``): finished chunks stay valid, the manifest keeps
        status ``"running"``; :func:`resume` finishes the run. A plain
        ``KeyboardInterrupt`` means the run had not started: nothing was written.
    OutputError
        The run directory cannot be written while playing (disk full, I/O error): the
        finished chunks are kept; the message says how many and names the ``--resume``
        command.
    """
    check_out_dir(out, force=force)
    overrides = list(overrides or [])
    n_threads = set_threads(threads)
    ruleset, scenario, prepared = resolve(scenario_path, games=games, seed=seed,
                                          chunk_size=chunk_size, overrides=overrides)
    name = str(scenario.get("name") or Path(scenario_path).stem)
    out_dir = prepare_out_dir(out, scenario_name=name, force=force, root=runs_root)
    return _execute_new(ruleset, prepared, scenario, out_dir=out_dir,
                        source=str(scenario_path), overrides=overrides, threads=n_threads,
                        progress=progress, backend=backend, on_compile=on_compile)


def _execute_new(ruleset: Any, prepared: Any, scenario: dict, *, out_dir: Path,
                 **kwargs: Any) -> RunResult:
    """:func:`execute` into a folder :func:`prepare_out_dir` just made ready: a Ctrl-C
    before the run's first file is written removes the folder again if it is empty (the
    CLI then says nothing was written)."""
    try:
        return execute(ruleset, prepared, scenario, out_dir=out_dir, **kwargs)
    except KeyboardInterrupt as exc:
        if not isinstance(exc, RunInterrupted):
            with contextlib.suppress(OSError):
                out_dir.rmdir()  # only when empty
        raise


def execute(ruleset: Any, prepared: Any, scenario: dict, *, out_dir: Path, source: str,
            overrides: list[str], threads: int, progress: ProgressFn | None = None,
            extra_info: dict | None = None, backend: Any = None,
            on_compile: CompileFn | None = None) -> RunResult:
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
    extra_info : dict, optional
        More keys for ``run.json`` (e.g. ``rerun_of``).
    backend, on_compile : optional
        See :func:`run`.

    Returns
    -------
    RunResult

    Raises
    ------
    RuntimeError
        The ruleset returned frames that do not match the chunk.
    RunInterrupted
        Ctrl-C, propagated after the current chunk's writes finish.
    OutputError
        The run directory cannot be written (disk full, I/O error, ...): the message names
        the file, the chunks kept and the ``--resume`` command.
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
        # engine caps, never rules: invented data (deepsim.rulesets.base.UNRESOLVED)
        "safety_caps": safety_cap_values(ruleset, prepared.params),
        "baseline_bots": list(prepared.baseline_bots),
        "seed": seed,
        "games": games,
        "chunk_size": chunk_size,
        "threads": threads,
        "versions": versions(),
        "ruleset_package": ruleset_package(prepared.ruleset),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        "command": sys.argv,
        "started_utc": _utc_now(),
        "finished_utc": None,
        "wall_time_s": None,
        "games_per_s": None,
        "compile_s": None,
        **(extra_info or {}),
    }
    n_chunks = len(chunk_ranges(games, chunk_size))
    writer = None
    try:
        with deferred_sigint():
            write_run_json(out_dir, info)
            writer = RunWriter(out_dir, ruleset=prepared.ruleset, scenario_name=name,
                               scenario_hash=scenario_hash, params_hash=prepared.params_hash,
                               seed=seed, games=games, chunk_size=chunk_size,
                               placeholders=list(prepared.placeholders),
                               skipped_rules=list(prepared.skipped_rules))
    except OutputError as exc:
        raise OutputError(f"{out_dir}: {exc.message}; no game was played, so nothing is kept: "
                          "free the space (or fix the disk) and run again",
                          out_dir=str(out_dir), chunks_done=0, n_chunks=n_chunks) from exc
    except KeyboardInterrupt:
        if writer is None:
            raise
        # deferred_sigint re-raises after both files were written: the run can be resumed
        raise RunInterrupted(out_dir, 0, n_chunks) from None
    return _play(ruleset, prepared, writer, info, out_dir=out_dir, progress=progress,
                 backend=backend, on_compile=on_compile)


def _play(ruleset: Any, prepared: Any, writer: RunWriter, info: dict, *, out_dir: Path,
          progress: ProgressFn | None, backend: Any = None,
          on_compile: CompileFn | None = None) -> RunResult:
    """Play every chunk the writer's manifest does not list yet, then mark the run complete.

    First the ruleset's kernels are compiled or loaded from numba's cache
    (:func:`deepsim.jitcache.warm`, when the ruleset has ``warm_up`` and the games run in
    this process or on workers sharing its cache): ``compile_s`` in ``run.json``.
    ``wall_time_s`` and ``games_per_s`` cover the games after that, in this call only (for
    a resumed run: the games played after the resume). A ``backend`` plays the chunks
    instead (``backend.play_chunks``: it writes their parts, lists them with
    ``writer.add_chunk`` and reports progress).
    """
    games, chunk_size = int(info["games"]), int(info["chunk_size"])
    plan = chunk_ranges(games, chunk_size)
    finished = {int(c["index"]) for c in writer.manifest["chunks"]}
    todo = [c for c in plan if c[0] not in finished]
    done = sum(count for index, _, count in plan if index in finished)
    played = 0
    try:
        if todo and jitcache.can_warm(ruleset) and (
                backend is None or getattr(backend, "shares_local_cache", False)):
            info.update(jitcache.warm(ruleset, prepared, on_compile=on_compile).as_info())
        t0 = time.perf_counter()
        if progress is not None:
            progress(done, games)
        if backend is not None:
            played = backend.play_chunks(ruleset, prepared, writer, info, todo, out_dir=out_dir,
                                         done=done, progress=progress)
        else:
            def wrote(count: int) -> None:
                nonlocal done, played
                done += count
                played += count
                if progress is not None:
                    progress(done, games)

            _play_overlapped(ruleset, prepared, writer, todo, wrote)
    except KeyboardInterrupt as exc:
        if isinstance(exc, RunInterrupted):
            raise
        raise RunInterrupted(out_dir, len(writer.manifest["chunks"]), len(plan)) from None
    except Exception as exc:
        failure = _write_failure(exc)
        if failure is None:
            raise
        raise _kept(failure, writer, out_dir, len(plan)) from exc
    wall = time.perf_counter() - t0
    try:
        with deferred_sigint():
            writer.complete()
            info["finished_utc"] = _utc_now()
            info["wall_time_s"] = round(wall, 3)
            info["games_per_s"] = round(played / wall, 1) if wall > 0 and played else None
            write_run_json(out_dir, info)
    except OutputError as exc:
        if writer.manifest["status"] != "complete":
            raise _kept(exc.message, writer, out_dir, len(plan)) from exc
        raise OutputError(f"{out_dir}: {exc.message}; every game is written and the manifest "
                          "says complete, but run.json lacks the run's timing",
                          out_dir=str(out_dir), chunks_done=len(plan),
                          n_chunks=len(plan)) from exc
    return RunResult(out_dir=out_dir, ruleset=ruleset, prepared=prepared, info=info,
                     manifest=writer.manifest)


def _play_overlapped(ruleset: Any, prepared: Any, writer: RunWriter,
                     todo: list[tuple[int, int, int]], wrote: Callable[[int], None]) -> None:
    """Play the chunks of ``todo`` in order, writing chunk k on a writer thread while chunk
    k+1 plays (pyarrow's encoding and the kernels' blocks release the GIL, so the two
    overlap on separate cores; ``docs/performance.md``).

    At most one chunk is being written at a time, and chunks are written and listed in the
    manifest in order, each by :meth:`RunWriter.write_chunk` (atomic parts, then the
    manifest), so the run directory is always a valid prefix of the run: a failure or a
    Ctrl-C while chunk k+1 plays first lets chunk k's write finish (it is kept and listed),
    then raises. ``wrote(count)`` is called on this thread after each chunk is listed.
    Peak memory holds two chunks' frames (the one being written and the one playing).

    Raises
    ------
    Exception
        A write's exception (e.g. ``OutputError``), raised before the next chunk's write
        starts; or the kernel's.
    KeyboardInterrupt
        After the pending write has finished.
    """
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepsim-writer")
    pending: tuple[Any, int] | None = None

    def finish() -> None:
        nonlocal pending
        if pending is not None:
            future, count = pending
            pending = None
            future.result()
            wrote(count)

    try:
        for index, start, count in todo:
            games_df, seats_df = ruleset.run_chunk(prepared, start, count)
            with deferred_sigint():
                finish()
            pending = (pool.submit(writer.write_chunk, index, start, count, games_df,
                                   seats_df), count)
            del games_df, seats_df
        with deferred_sigint():
            finish()
    finally:
        if pending is not None:
            # an exception or Ctrl-C while the next chunk played: let the write in flight
            # finish so its chunk is kept and listed (a second Ctrl-C waits for it too)
            with deferred_sigint(), contextlib.suppress(Exception):
                finish()
        pool.shutdown(wait=True)


def _same_path(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name the same place (False when one cannot be resolved, e.g.
    a symbolic link loop: :func:`check_out_dir` reports that)."""
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return False


def _check_plan(recorded: dict, where: str) -> None:
    """Refuse a recorded run (``run.json`` or manifest) of more than :data:`MAX_CHUNKS`
    chunks or with games/chunk size that are not positive integers."""
    for key in ("games", "chunk_size"):
        value = recorded.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"expected an integer >= 1, got {value!r}", file=where, key=key)
    n_chunks = -(-recorded["games"] // recorded["chunk_size"])
    if n_chunks > MAX_CHUNKS:
        raise InputError(f"{n_chunks:,} chunks; a run has at most {MAX_CHUNKS:,}", file=where,
                         key="chunk_size")


def _write_failure(exc: BaseException) -> str | None:
    """What failed to be written, when ``exc`` is an :class:`OutputError` or an ``OSError``
    naming a file, or was raised ``from`` one (a Dask task's error arrives wrapped in a
    RuntimeError); else None."""

    if isinstance(exc, OSError) and exc.filename is not None:
        return f"cannot write {exc.filename}: {os_reason(exc)}"
    for _ in range(10):
        if isinstance(exc, OutputError):
            return exc.message
        if exc.__cause__ is None:
            return None
        exc = exc.__cause__
    return None


def _kept(failure: str, writer: RunWriter, out_dir: Path, n_chunks: int) -> OutputError:
    """The message of a run stopped by a write failure: what failed, what is kept, how to
    finish."""
    chunks = writer.manifest["chunks"]
    games = sum(int(c["count"]) for c in chunks)
    total = int(writer.manifest["games"])
    return OutputError(
        f"{out_dir}: {failure}; the run stopped with {len(chunks)} of {n_chunks} chunks "
        f"({games:,} of {total:,} games) kept (manifest status 'running'); free the space "
        f"(or fix the disk), then finish it with: deepsim run --resume {out_dir}",
        out_dir=str(out_dir), chunks_done=len(chunks), n_chunks=n_chunks)


def _params_diff(recorded: Any, current: Any, limit: int = 5) -> str:
    """' (changed: a.b 1 -> 2, ...)' naming the parameter paths that differ, or ''."""
    if not isinstance(recorded, dict) or not isinstance(current, dict):
        return ""

    old, new = leaf_paths(recorded), leaf_paths(current)
    changed = [f"{k} {old.get(k, '<absent>')!r} -> {new.get(k, '<absent>')!r}"
               for k in sorted(set(old) | set(new)) if old.get(k, "<absent>")
               != new.get(k, "<absent>")]
    if not changed:
        return ""
    more = f", and {len(changed) - limit} more" if len(changed) > limit else ""
    return f" (changed: {', '.join(changed[:limit])}{more})"


def _require(info: dict, keys: tuple[str, ...], where: str) -> None:
    for key in keys:
        if key not in info:
            raise InputError("run.json lacks this key; was it written by deepsim run?",
                             file=where, key=key)


def _reprepare(info: dict, where: str, *, what: str) -> tuple[Any, Any, list[str]]:
    """Prepare a recorded run's scenario again; check it is the same ruleset variant.

    Returns (ruleset, prepared, warnings). Raises InputError when the parameters or the
    resolved scenario no longer hash to the recorded values.
    """
    ruleset = playable_ruleset(info["ruleset"])
    overrides = info.get("overrides") or []
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        raise InputError(f"expected a list of path=value strings, got {overrides!r}",
                         file=where, key="overrides")
    if not isinstance(info["scenario_input"], dict):
        raise InputError("expected the scenario mapping", file=where, key="scenario_input")
    source = str(info.get("scenario_path") or where)
    try:
        prepared = _prepare(ruleset, dict(info["scenario_input"]), source=source,
                            overrides=list(overrides))
    except InputError as exc:
        raise InputError(f"the recorded scenario no longer prepares: {exc}",
                         file=where) from None
    if prepared.params_hash != info["params_hash"]:
        raise InputError(
            f"the ruleset parameters changed since this run was made (params hash "
            f"{prepared.params_hash[:12]}, recorded {str(info['params_hash'])[:12]})"
            f"{_params_diff(info.get('params'), prepared.params)}; {what}",
            file=where, key="params_hash")
    scenario_hash = hash_json(prepared.scenario)
    if scenario_hash != info["scenario_hash"]:
        raise InputError(
            f"the recorded scenario now resolves differently (scenario hash "
            f"{scenario_hash[:12]}, recorded {str(info['scenario_hash'])[:12]}); {what}",
            file=where, key="scenario_hash")
    warnings = []
    recorded = info.get("versions") or {}
    now = versions()
    moved = [f"{k} {recorded[k]} -> {now[k]}" for k in ("deepsim", "numba", "numpy")
             if k in recorded and k in now and recorded[k] != now[k]]
    pkg, pkg_now = info.get("ruleset_package") or {}, ruleset_package(ruleset.name)
    if pkg.get("version") and pkg != pkg_now:
        moved.append(f"ruleset {pkg.get('package')} {pkg.get('version')} -> "
                     f"{pkg_now.get('package')} {pkg_now.get('version')}")
    if moved:
        warnings.append(f"versions changed since the run was made ({', '.join(moved)}); "
                        "the parameters are the same, but a changed engine may play "
                        "differently")
    return ruleset, prepared, warnings


def resume(run_dir: Path | str, *, threads: int | None = None,
           progress: ProgressFn | None = None, backend: Any = None,
           on_compile: CompileFn | None = None) -> RunResult:
    """Finish an interrupted run: play the chunks its manifest does not list.

    The run's scenario is prepared again from ``run.json`` (``scenario_input`` and
    ``overrides``); its parameter and scenario hashes must match the manifest's. The
    finished parts are checked as :func:`deepsim.output.read_run` does, temporary files
    and unlisted parts left by the interruption are removed, the missing chunks are played
    and the run is marked complete. The result is identical to an uninterrupted run.

    Parameters
    ----------
    run_dir : Path or str
        The interrupted run's directory (manifest status ``"running"``).
    threads : int, optional
        numba threads (default: all cores); results do not depend on it.
    progress : callable(done, total), optional
        First called with the games already finished.
    backend, on_compile : optional
        See :func:`run`.

    Returns
    -------
    RunResult
        ``notes`` say how many chunks were already finished and which stray files were
        removed; ``warnings`` name changed library versions.

    Raises
    ------
    InputError
        Not a run directory, a complete run, a run of an older parquet schema version
        (``output.MANIFEST_SCHEMA_VERSION``), ``run.json`` and the manifest disagreeing,
        changed parameters or scenario, a finished part that fails its checks, or a
        manifest listing chunks the run's plan does not have.
    RunInterrupted
        Ctrl-C again; resume again later.
    OutputError
        The run directory cannot be written while playing (disk full, ...); the message
        names what is kept and the ``--resume`` command.
    """
    run_dir = Path(run_dir)
    if not os.path.isdir(run_dir):  # (never raises: a too long path is 'not found')
        raise InputError("run directory not found", file=str(run_dir))
    where = str(run_dir / RUN_JSON_NAME)
    mwhere = str(run_dir / MANIFEST_NAME)
    info = read_run_json(run_dir)
    manifest = read_manifest(run_dir)
    _require(info, ("ruleset", "scenario_input", "scenario_hash", "params_hash", "seed",
                    "games", "chunk_size"), where)
    if manifest["status"] == "complete":
        raise InputError("this run is already complete; nothing to resume", file=mwhere,
                         key="status")
    if manifest["schema_version"] != MANIFEST_SCHEMA_VERSION:
        # its finished parts number seats from 0; new parts would number them from 1
        raise InputError(f"this run was written by an older deepsim (parquet schema "
                         f"{manifest['schema_version']}, now {MANIFEST_SCHEMA_VERSION}) and "
                         "cannot be resumed; its finished chunks stay readable: run the "
                         "scenario again into another folder", file=mwhere,
                         key="schema_version")
    if manifest["status"] != "running":
        raise InputError(f"unknown run status {manifest['status']!r} (expected 'running')",
                         file=mwhere, key="status")
    for key in ("scenario_hash", "params_hash", "seed", "games", "chunk_size"):
        if info[key] != manifest[key]:
            raise InputError(f"run.json and manifest.json disagree on {key}: {info[key]!r} "
                             f"vs {manifest[key]!r}", file=where, key=key)
    _check_plan(manifest, mwhere)
    check_writable(run_dir, flag="--resume")
    n_threads = set_threads(threads)
    ruleset, prepared, warnings = _reprepare(
        info, where, what="resuming would mix two rulesets in one run; start a new run "
                          f"with 'deepsim run {info.get('scenario_path') or 'SCENARIO'}'")
    for key in ("games", "seed", "chunk_size"):
        value = prepared.scenario.get(key) if isinstance(prepared.scenario, dict) else None
        if value is not None and int(value) != int(manifest[key]):
            raise InputError(f"the recorded scenario resolves to {key} {value!r} but the run "
                             f"has {manifest[key]!r}", file=where, key=key)
    plan = {index: (start, count)
            for index, start, count in chunk_ranges(int(manifest["games"]),
                                                    int(manifest["chunk_size"]))}
    seen: set[int] = set()
    for i, chunk in enumerate(manifest["chunks"]):
        try:
            index, start, count = int(chunk["index"]), int(chunk["start"]), int(chunk["count"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed chunk entry: {exc}", file=mwhere,
                             key=f"chunks[{i}]") from None
        if plan.get(index) != (start, count) or index in seen:
            raise InputError(f"chunk {index} (games {start}..{start + count - 1}) is not "
                             f"one of this run's {len(plan)} chunks of {manifest['chunk_size']}"
                             " games, or is listed twice", file=mwhere, key=f"chunks[{i}]")
        seen.add(index)
    try:
        removed = clean_stray_files(run_dir, manifest)
    except OSError as exc:

        raise InputError(f"cannot remove what the interruption left: {os_reason(exc)}",
                         file=str(run_dir), key="--resume") from None
    check_parts(run_dir, manifest)
    notes = [f"resuming {run_dir}: {len(seen)} of {len(plan)} chunks were finished"]
    if removed:
        notes.append("removed what the interruption left: "
                     + ", ".join(p.relative_to(run_dir).as_posix() for p in removed))
    try:
        with deferred_sigint():
            writer = RunWriter.resume(run_dir, manifest)
            info.setdefault("resumes", []).append({
                "resumed_utc": _utc_now(), "chunks_finished_before": len(seen),
                "threads": n_threads, "command": sys.argv, "versions": versions(),
            })
            write_run_json(run_dir, info)
    except OutputError as exc:
        raise OutputError(f"{run_dir}: {exc.message}; nothing was played: the run still "
                          f"holds its {len(seen)} of {len(plan)} finished chunks; free the "
                          f"space (or fix the disk) and resume again: deepsim run --resume "
                          f"{run_dir}",
                          out_dir=str(run_dir), chunks_done=len(seen),
                          n_chunks=len(plan)) from exc
    except KeyboardInterrupt:
        raise RunInterrupted(run_dir, len(seen), len(plan)) from None
    result = _play(ruleset, prepared, writer, info, out_dir=run_dir, progress=progress,
                   backend=backend, on_compile=on_compile)
    result.notes, result.warnings = notes, warnings
    return result


def rerun(run_dir: Path | str, *, out: Path | str | None = None, force: bool = False,
          threads: int | None = None, runs_root: Path | str = DEFAULT_RUNS_ROOT,
          progress: ProgressFn | None = None, backend: Any = None,
          on_compile: CompileFn | None = None) -> RunResult:
    """Play again exactly the run recorded in ``run_dir/run.json``, into a new directory.

    Same ruleset, scenario (as handed to the ruleset: games, seed, chunk size included)
    and overrides; the parameters must still hash to the recorded ``params_hash``. The
    new run's ``run.json`` names the original in ``rerun_of``.

    Parameters
    ----------
    run_dir : Path or str
        A run directory (complete or not); only its ``run.json`` is read.
    out : Path or str, optional
        New run directory (default: a new folder under ``runs_root``); never ``run_dir``.
    force : bool, default False
        Allow an existing ``out``.
    threads : int, optional
    runs_root : Path or str
    progress : callable(done, total), optional
    backend, on_compile : optional
        See :func:`run`.

    Returns
    -------
    RunResult

    Raises
    ------
    InputError
        No readable ``run.json``, changed parameters or scenario, ``out`` exists without
        ``force``, or ``out`` is ``run_dir``.
    RunInterrupted
    """
    run_dir = Path(run_dir)
    if not os.path.isdir(run_dir):  # (never raises: a too long path is 'not found')
        raise InputError("run directory not found", file=str(run_dir))
    where = str(run_dir / RUN_JSON_NAME)
    info = read_run_json(run_dir)
    _require(info, ("ruleset", "scenario_input", "scenario_hash", "params_hash"), where)
    if out is not None and _same_path(Path(out), run_dir):
        raise InputError("--out is the run being re-run; choose another directory",
                         file=str(out), key="--out")
    check_out_dir(out, force=force)
    n_threads = set_threads(threads)
    ruleset, prepared, warnings = _reprepare(
        info, where, what="this deepsim cannot re-run it exactly")
    scenario = dict(info["scenario_input"])
    source = str(info.get("scenario_path") or where)
    name = str(info.get("scenario_name") or scenario.get("name") or run_dir.name)
    _check_plan(prepared.scenario if isinstance(prepared.scenario, dict) else scenario, where)
    out_dir = prepare_out_dir(out, scenario_name=name, force=force, root=runs_root)
    result = _execute_new(ruleset, prepared, scenario, out_dir=out_dir, source=source,
                          overrides=list(info.get("overrides") or []), threads=n_threads,
                          progress=progress, extra_info={"rerun_of": str(run_dir)},
                          backend=backend, on_compile=on_compile)
    result.notes = [(f"re-running {run_dir} (seed {result.info['seed']}, "
                     f"{result.info['games']} games) into {out_dir}")]
    result.warnings = warnings
    return result


# --- tracing ---------------------------------------------------------------------------------

TRACE_FORMATS = ("text", "json")


def _check_format(ruleset: Any, fmt: str) -> None:
    """Refuse a trace format the ruleset cannot give (before anything is compiled)."""
    if fmt not in TRACE_FORMATS:
        raise InputError(f"expected one of {', '.join(TRACE_FORMATS)}, got {fmt!r}",
                         key="--format")
    if fmt not in ruleset.trace_formats:
        raise InputError(f"the {ruleset.name} ruleset has no JSON trace yet (only text)",
                         key="--format")


def _trace(ruleset: Any, prepared: Any, game: int, on_compile: CompileFn | None,
           fmt: str = "text", view: Any = None) -> list[str]:
    """``ruleset.trace`` (or, for ``fmt`` "json", one JSON object per line of
    ``ruleset.trace_records``), its kernels compiled first (with ``on_compile``) when it
    can; ``view`` (:class:`deepsim.tracefilter.TraceFilter`) for a ruleset whose trace
    filters (``trace_filters``)."""
    _check_format(ruleset, fmt)
    kw = {}
    if view is not None and view.active:
        if not ruleset.trace_filters:
            raise InputError(f"the {ruleset.name} trace has no --seat/--round/--only "
                             "filters yet", key="--seat")
        kw = {"view": view}
    if jitcache.can_warm(ruleset):
        jitcache.warm(ruleset, prepared, trace=True, on_compile=on_compile)
    if fmt == "json":
        return [json.dumps(rec, ensure_ascii=False)
                for rec in ruleset.trace_records(prepared, game, **kw)]
    return list(ruleset.trace(prepared, game, **kw))


def trace_run(run_dir: Path | str, game: int, *, on_compile: CompileFn | None = None,
              fmt: str = "text", view: Any = None) -> tuple[list[str], list[str]]:
    """Replay game ``game`` of a finished (or interrupted) run with its recorded overrides.

    Parameters
    ----------
    run_dir : Path or str
        Run directory holding ``run.json``.
    game : int
        Global game index, ``0 <= game < games``.
    on_compile : callable(message), optional
        Called when numba starts compiling the trace kernels (see :func:`run`).
    fmt : {"text", "json"}
        "json": one JSON object per line (a header with the seats, one per event, the
        result) instead of the readable log; a ruleset without ``trace_records`` refuses.

    Returns
    -------
    lines : list of str
        The ruleset's readable log of that game (or its JSON lines).
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
    ruleset = playable_ruleset(info["ruleset"])
    prepared = _prepare(ruleset, dict(info["scenario_input"]),
                        source=str(info.get("scenario_path") or where),
                        overrides=list(info.get("overrides") or []))
    warnings = []
    if info.get("params_hash") and prepared.params_hash != info["params_hash"]:
        warnings.append("the ruleset parameters changed since this run (params hash "
                        f"{prepared.params_hash[:12]} vs recorded {info['params_hash'][:12]}); "
                        "the replay may differ from the game the batch played")
    return _trace(ruleset, prepared, game, on_compile, fmt, view), warnings


def trace_scenario(scenario_path: Path | str, game: int, *, seed: int | None = None,
                   overrides: list[str] | None = None,
                   on_compile: CompileFn | None = None, fmt: str = "text",
                   view: Any = None) -> list[str]:
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
    on_compile : callable(message), optional
        Called when numba starts compiling the trace kernels (see :func:`run`).
    fmt : {"text", "json"}
        As for :func:`trace_run`.

    Returns
    -------
    list of str
        The readable log (or its JSON lines).

    Raises
    ------
    InputError
        Invalid scenario, seed, override or game index.
    """
    if isinstance(game, bool) or not isinstance(game, int) or game < 0:
        raise InputError(f"expected a game index >= 0, got {game!r}", key="--game")
    ruleset, _, prepared = resolve(scenario_path, seed=seed, overrides=overrides)
    return _trace(ruleset, prepared, game, on_compile, fmt, view)
