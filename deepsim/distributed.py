"""Play a run's chunks on a Dask cluster: the same parts, manifest and results as a local run.

``deepsim run ... --backend dask [--scheduler ADDRESS]`` hands the runner a
:class:`DaskBackend`. The client (the ``deepsim`` process) prepares the scenario, writes
``run.json`` and the manifest, and splits the games into the run's chunks
(:func:`deepsim.runner.chunk_ranges`). Each chunk is one Dask task that, on a worker:

1. prepares the scenario again from the recorded scenario mapping and overrides (cached per
   worker process; the parameter and scenario hashes must match the client's, and so must
   the deepsim, numba and numpy versions),
2. plays games ``start .. start+count-1`` with the ruleset's kernel on one numba thread,
3. writes the chunk's ``games/`` and ``seats/`` parts atomically with
   :func:`deepsim.output.write_chunk_parts`, the code a local run uses, and returns the
   manifest entry.

The client lists each entry in the manifest (rewritten atomically) as its task finishes,
feeds the progress bar, and the runner marks the run complete at the end. Every game's
randomness depends only on (seed, game index), so the parts are the ones a local run
writes, byte for byte.

Task keys are ``deepsim-<run id>-chunk-<index>``: a task whose worker dies is run again
under the same key by the scheduler and writes the same part (parts are written to a
temporary file and renamed, so a dead worker leaves at most a temporary file, removed at
the end). Exceptions inside a task are retried ``retries`` times.

Without a scheduler address, a :class:`distributed.LocalCluster` of worker processes with one
thread each is started on 127.0.0.1 (no dashboard), so numba's thread pool never runs
inside several Dask threads. See ``docs/distributed.md``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self

from deepsim.atomic import atomic_path, deferred_sigint
from deepsim.errors import InputError
from deepsim.output import (
    KINDS,
    RunWriter,
    clean_stray_files,
    hash_json,
    part_metadata,
    part_name,
    write_chunk_parts,
    write_run_json,
)
from deepsim.runner import get_ruleset, playable_ruleset, versions

__all__ = [
    "BACKENDS",
    "DEFAULT_LOCAL_WORKERS",
    "DaskBackend",
    "open_backend",
    "warm_up",
]

BACKENDS = ("local", "dask")
#: Worker processes of the LocalCluster started when no ``--scheduler`` is given.
DEFAULT_LOCAL_WORKERS = 2
#: Times a task that raised is tried again (a dead worker is handled by the scheduler:
#: ``distributed.scheduler.allowed-failures``, default 3).
DEFAULT_RETRIES = 2
#: Seconds to wait for the first worker to join a remote scheduler.
DEFAULT_WAIT_WORKERS_S = 60.0
_VERSION_KEYS = ("deepsim", "numba", "numpy")

ProgressFn = Callable[[int, int], None]

# --- the worker side -------------------------------------------------------------------------

_PREPARED: dict[str, tuple[Any, Any]] = {}  # per worker process: spec hash -> (ruleset, prepared)


def worker_versions() -> dict[str, str]:
    """The versions a worker's games depend on (deepsim, numba, numpy...): a worker whose
    versions differ from the client's refuses to play (:func:`prepared_from_spec`)."""

    return {k: v for k, v in versions().items() if k in _VERSION_KEYS}


def prepared_from_spec(spec: dict) -> tuple[Any, Any]:
    """The ruleset and its prepared scenario for ``spec``, prepared once per process.

    Raises
    ------
    RuntimeError
        This worker's deepsim, numba or numpy version, or its ruleset parameters or
        resolved scenario, differ from the client's (its games would not be the same).
    """
    key = hash_json(spec)
    hit = _PREPARED.get(key)
    if hit is not None:
        return hit

    here = worker_versions()
    if here != spec["versions"]:
        raise RuntimeError(f"this worker runs {here}, the client {spec['versions']}: install "
                           "the same deepsim, numba and numpy on every worker")
    ruleset = get_ruleset(spec["ruleset"])
    prepared = ruleset.prepare(dict(spec["scenario_input"]), source=spec["source"],
                               overrides=list(spec["overrides"]))
    if prepared.params_hash != spec["params_hash"]:
        raise RuntimeError(f"the worker's {spec['ruleset']} parameters hash to "
                           f"{prepared.params_hash[:12]}, the client's to "
                           f"{spec['params_hash'][:12]}: its ruleset data differ")
    if hash_json(prepared.scenario) != spec["scenario_hash"]:
        raise RuntimeError("the scenario resolves differently on this worker than on the "
                           "client: its ruleset differs")
    _PREPARED.clear()  # one run at a time per worker; do not hoard prepared arrays
    _PREPARED[key] = (ruleset, prepared)
    return ruleset, prepared


def _crash_now(crash_once: tuple[int, str] | None, index: int, out_dir: Path) -> None:
    """Test hook: the first attempt of chunk ``crash_once[0]`` kills its worker mid-write.

    ``crash_once[1]`` is a marker file created by that first attempt (visible to every
    worker; it holds the dying process's id), so the retry runs normally. The dying
    attempt leaves half a temporary part behind.
    """
    if crash_once is None or int(crash_once[0]) != index:
        return
    try:
        fd = os.open(crash_once[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    partial = out_dir / "games" / f".{part_name(index)}.tmp-deadbeef"
    partial.write_bytes(b"PAR1 half a part")
    os._exit(17)


def _play_chunk(spec: dict, out_dir: str, identity: dict, index: int, start: int, count: int,
                schemas: dict, crash_once: tuple[int, str] | None = None) -> dict:
    """The task: play one chunk on this worker and write its parts.

    Returns
    -------
    dict
        ``entry`` (the manifest entry), ``schemas`` (``{kind: pa.Schema}`` of the written
        parts), ``seconds`` and ``cpu_seconds`` (wall and worker-process CPU time, playing
        and writing), ``play_seconds`` (wall time until the frames were built),
        ``worker`` (``host:pid``).
    """
    import numba

    t0, cpu0 = time.perf_counter(), time.process_time()
    numba.set_num_threads(1)  # one Dask thread per worker process, one numba thread each
    ruleset, prepared = prepared_from_spec(spec)
    games, seats = ruleset.run_chunk(prepared, start, count)
    played = time.perf_counter() - t0
    _crash_now(crash_once, index, Path(out_dir))
    schemas = dict(schemas)
    entry = write_chunk_parts(out_dir, identity, index, start, count, games, seats, schemas)
    return {"entry": entry, "schemas": {k: schemas[k] for k in KINDS},
            "seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - cpu0,
            "play_seconds": played,
            "worker": f"{os.uname().nodename}:{os.getpid()}"}


def _chunk_frames(spec: dict, start: int, count: int, keep_games: list[str] | None,
                  keep_seats: list[str] | None) -> tuple[Any, Any]:
    """The task of :meth:`DaskBackend.frames`: one chunk's (games, seats) frames, in memory.

    Only the columns in ``keep_games``/``keep_seats`` are returned (``None``: all).
    """
    import numba

    numba.set_num_threads(1)
    ruleset, prepared = prepared_from_spec(spec)
    games, seats = ruleset.run_chunk(prepared, start, count)
    if keep_games is not None:
        games = games[[c for c in games.columns if c in set(keep_games)]]
    if keep_seats is not None:
        seats = seats[[c for c in seats.columns if c in set(keep_seats)]]
    return games, seats


def warm_up(scenario: str | Path | dict | None = None, *, ruleset: str | None = None,
            overrides: list[str] | None = None) -> float:
    """Load (or compile) a ruleset's kernel in this process; return the seconds it took.

    ``client.run(deepsim.distributed.warm_up, "scenarios/x.yaml")`` makes every worker pay
    numba's start-up before the run (see ``docs/distributed.md``): it prepares the scenario
    with its own ruleset and compiles or loads the kernels its games call (the ruleset's
    ``warm_up``; a ruleset without one plays game 0).

    Parameters
    ----------
    scenario : path or mapping, optional
        The scenario the run will play (a YAML file, or a scenario mapping naming its
        ``ruleset``). Default: each ruleset's own default game (overrides do not change
        what is compiled).
    ruleset : str, optional
        The ruleset to warm when no scenario is given (default: every installed ruleset
        that plays games).
    overrides : list of str, optional
        ``path=value`` overrides, as the run's ``--set`` (with a scenario).

    Raises
    ------
    InputError
        A bad scenario, override or ruleset name.
    """
    import numba

    from deepsim import jitcache, rulesets

    t0 = time.perf_counter()
    numba.set_num_threads(1)
    if scenario is None:
        for name in [ruleset] if ruleset else rulesets.playable():
            rs = playable_ruleset(name)
            if jitcache.can_warm(rs):
                rs.warm_up(None)
            else:
                case = rs.golden_cases()[0]
                rs.run_chunk(rs.prepare(dict(case.scenario), source="warm-up",
                                        overrides=list(case.overrides)), 0, 1)
        return time.perf_counter() - t0
    if isinstance(scenario, dict):
        rs = playable_ruleset(str(scenario.get("ruleset", ruleset)))
        prepared = rs.prepare(dict(scenario), source="warm-up",
                              overrides=list(overrides or []))
    else:
        from deepsim import runner

        rs, _, prepared = runner.resolve(Path(scenario), games=1,
                                         overrides=list(overrides or []))
    if jitcache.can_warm(rs):
        rs.warm_up(prepared)
    else:
        rs.run_chunk(prepared, 0, 1)
    return time.perf_counter() - t0


# --- the client side -------------------------------------------------------------------------

def _recast_part(out_dir: Path, identity: dict, entry: dict, kind: str, schema: Any) -> None:
    """Rewrite one part cast to the run's first chunk's schema (what a local run writes)."""
    import pyarrow.parquet as pq

    path = out_dir / kind / part_name(int(entry["index"]))
    meta = part_metadata(identity, kind, int(entry["index"]), int(entry["start"]),
                         int(entry["count"]))
    table = pq.read_table(path)
    try:
        table = table.cast(schema.with_metadata({k.encode(): v.encode()
                                                 for k, v in meta.items()}))
    except Exception as exc:  # pyarrow raises several types here
        raise RuntimeError(f"chunk {entry['index']}: the {kind} part's columns differ from "
                           f"the first chunk's and cannot be cast: {exc}") from exc
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


class _Lister:
    """List finished chunks in the manifest with the schema a local run would give them.

    A local run casts every part to the schema of the first chunk it writes (the lowest
    index still to play, or the first finished part of a resumed run). Tasks finish in any
    order, so until that first chunk is in, other chunks wait here; a part whose schema
    differs from it is rewritten cast to it before it is listed. (A ruleset whose tables
    have fixed dtypes never needs a rewrite.)
    """

    def __init__(self, writer: RunWriter, identity: dict, out_dir: Path,
                 todo: list[tuple[int, int, int]]):
        self.writer = writer
        self.identity = identity
        self.out_dir = out_dir
        self.reference: dict = writer.schemas
        self.first = None if self.reference or not todo else int(todo[0][0])
        self.waiting: list[dict] = []
        self.rewritten: list[str] = []

    def add(self, result: dict) -> None:
        index = int(result["entry"]["index"])
        if not self.reference:
            if index != self.first:
                self.waiting.append(result)
                return
            self.reference = dict(result["schemas"])
        for res in [result, *self.waiting]:
            self._list(res)
        self.waiting = []

    def _list(self, result: dict) -> None:
        entry = result["entry"]
        for kind in KINDS:
            if not result["schemas"][kind].equals(self.reference[kind], check_metadata=False):
                _recast_part(self.out_dir, self.identity, entry, kind, self.reference[kind])
                self.rewritten.append(entry[f"{kind}_part"])
        with deferred_sigint():
            self.writer.add_chunk(entry)


class DaskBackend:
    """Play chunks as Dask tasks; use as a context manager (connects or starts a cluster).

    Parameters
    ----------
    scheduler : str, optional
        Scheduler address (``tcp://host:8786``) or a scheduler file (``*.json``). ``None``
        starts a ``LocalCluster`` of ``workers`` processes, one thread each, on 127.0.0.1.
    workers : int, optional
        LocalCluster worker processes (default :data:`DEFAULT_LOCAL_WORKERS`); not with
        ``scheduler``.
    retries : int, default :data:`DEFAULT_RETRIES`
        Times a task that raised is tried again.
    connect_timeout_s : float
        With ``scheduler``: seconds to try reaching it.
    wait_workers_s : float
        With ``scheduler``: seconds to wait for the first worker before giving up.
    crash_once : (int, str), optional
        Test hook: ``(chunk index, marker file)``; the first attempt of that chunk kills
        its worker process mid-write (``os._exit``).

    Attributes
    ----------
    client : distributed.Client
        While entered.
    last : dict
        What the last :meth:`play_chunks` did: ``tasks``, ``chunk_workers`` (chunk index
        -> ``host:pid`` of the worker process that played it), ``task_seconds`` and
        ``task_cpu_seconds`` (wall and CPU time summed over tasks), ``task_play_seconds``
        (of which playing the games and building the frames), ``rewritten`` parts.
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, *, workers: int | None = None,
                 retries: int = DEFAULT_RETRIES, connect_timeout_s: float = 20.0,
                 wait_workers_s: float = DEFAULT_WAIT_WORKERS_S,
                 crash_once: tuple[int, str] | None = None):
        if scheduler is not None and workers is not None:
            raise InputError("--workers sizes the LocalCluster started without --scheduler; "
                             "a scheduler's workers are started with 'dask worker'",
                             key="--workers")
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or workers < 1):
            raise InputError(f"expected an integer >= 1, got {workers!r}", key="--workers")
        self.scheduler = scheduler
        self.n_workers = DEFAULT_LOCAL_WORKERS if workers is None else int(workers)
        self.retries = int(retries)
        self.connect_timeout_s = float(connect_timeout_s)
        self.wait_workers_s = float(wait_workers_s)
        self.crash_once = crash_once
        self.client: Any = None
        self.cluster: Any = None
        self.last: dict = {}

    @property
    def shares_local_cache(self) -> bool:
        """True for the LocalCluster: its workers load the numba cache of this process, so
        the runner compiles once here (with its status line) before the tasks start."""
        return self.scheduler is None

    # -- connecting --

    @staticmethod
    def _import():
        try:
            import distributed
        except ImportError as exc:
            raise InputError("--backend dask needs Dask: pip install 'deepsim[dist]' "
                             f"(dask[distributed]); {exc}", key="--backend") from None
        return distributed

    @staticmethod
    def worker_env() -> dict[str, str]:
        """Environment of LocalCluster workers: one numba thread, the client's numba cache."""
        import numba

        env = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        cache = os.environ.get("NUMBA_CACHE_DIR") or getattr(numba.config, "CACHE_DIR", "")
        if cache:
            env["NUMBA_CACHE_DIR"] = str(Path(cache).resolve())
        return env

    def __enter__(self) -> Self:
        distributed = self._import()
        if self.scheduler is None:
            self.cluster = distributed.LocalCluster(
                n_workers=self.n_workers, threads_per_worker=1, processes=True,
                host="127.0.0.1", protocol="tcp", dashboard_address="127.0.0.1:0",
                silence_logs=logging.ERROR, env=self.worker_env())
            self.client = distributed.Client(self.cluster)
            return self
        kwargs: dict[str, Any] = {"timeout": f"{self.connect_timeout_s}s"}
        target: Any = self.scheduler
        if self.scheduler.endswith(".json"):
            kwargs["scheduler_file"], target = self.scheduler, None
        try:
            self.client = distributed.Client(target, **kwargs)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler: {exc}",
                             key="--scheduler") from None
        try:
            self.client.wait_for_workers(1, timeout=self.wait_workers_s)
        except (TimeoutError, OSError):
            address = self.client.scheduler.address
            self.close()
            raise InputError(f"no worker joined the scheduler {address} within "
                             f"{self.wait_workers_s:g} s; start some with 'dask worker "
                             f"{address} --nthreads 1'", key="--scheduler") from None
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client and, when it started one, the LocalCluster."""
        with contextlib.suppress(Exception):
            if self.client is not None:
                self.client.close()
        with contextlib.suppress(Exception):
            if self.cluster is not None:
                self.cluster.close()
        self.client = self.cluster = None

    def describe(self) -> dict:
        """For ``run.json``: backend, scheduler, workers and versions."""
        import dask
        import distributed

        info = self.client.scheduler_info() if self.client is not None else {}
        workers = info.get("workers", {}) if isinstance(info, dict) else {}
        return {
            "name": "dask",
            "scheduler": self.client.scheduler.address if self.client is not None else None,
            "local_cluster": self.cluster is not None,
            "workers": len(workers),
            "worker_threads": sum(int(w.get("nthreads", 0)) for w in workers.values()),
            "numba_threads_per_task": 1,
            "retries": self.retries,
            "dask": dask.__version__,
            "distributed": distributed.__version__,
        }

    # -- playing --

    def play_chunks(self, ruleset: Any, prepared: Any, writer: RunWriter, info: dict,
                    todo: list[tuple[int, int, int]], *, out_dir: Path, done: int,
                    progress: ProgressFn | None) -> int:
        """Play ``todo``'s chunks as tasks; list each in the manifest as it finishes.

        Parameters
        ----------
        ruleset, prepared
            Prepared on the client; workers prepare ``info``'s scenario again and check it
            hashes the same.
        writer : RunWriter
            The run's writer; :meth:`RunWriter.add_chunk` lists the finished chunks.
        info : dict
            The run's ``run.json`` content (``scenario_input``, ``overrides``...); gets a
            ``backend`` entry.
        todo : list of (index, start, count)
            Chunks to play.
        out_dir : Path
            The run directory; workers must see it at the same path.
        done : int
            Games already finished (a resumed run).
        progress : callable(done, total), optional
            Called as each task finishes.

        Returns
        -------
        int
            Games played.

        Raises
        ------
        RuntimeError
            A task failed after its retries, or its worker died too often; the finished
            chunks stay listed and ``deepsim run --resume`` plays the rest.
        KeyboardInterrupt
            Ctrl-C: unfinished tasks are cancelled, finished chunks stay listed.
        """
        if self.client is None:
            raise RuntimeError("DaskBackend is not started; use it in a 'with' block")
        distributed = self._import()
        out_dir = Path(out_dir).resolve()
        total = int(info["games"])
        identity = {k: writer.manifest[k] for k in ("scenario_hash", "params_hash", "seed")}
        identity["placeholders"] = list(writer.manifest.get("placeholders", []))
        identity["skipped_rules"] = list(writer.manifest.get("skipped_rules", []))
        spec = {"ruleset": info["ruleset"], "scenario_input": info["scenario_input"],
                "overrides": list(info.get("overrides") or []),
                "source": str(info.get("scenario_path") or "<scenario>"),
                "params_hash": prepared.params_hash, "scenario_hash": info["scenario_hash"],
                "versions": worker_versions()}
        run_id = hash_json([str(out_dir), identity["scenario_hash"], identity["params_hash"],
                            identity["seed"], total, int(info["chunk_size"])])[:16]
        with deferred_sigint():
            info["backend"] = self.describe()
            write_run_json(out_dir, info)
        lister = _Lister(writer, identity, out_dir, todo)
        reference = writer.schemas
        futures = [
            self.client.submit(_play_chunk, spec, str(out_dir), identity, index, start, count,
                               reference, self.crash_once,
                               key=f"deepsim-{run_id}-chunk-{index:05d}", retries=self.retries)
            for index, start, count in todo]
        by_key = {f.key: c for f, c in zip(futures, todo, strict=True)}
        played, seconds, cpu, play, where = 0, 0.0, 0.0, 0.0, {}
        try:
            for future in distributed.as_completed(futures):
                index, _, count = by_key[future.key]
                try:
                    result = future.result()
                except Exception as exc:  # any task failure ends the run
                    raise RuntimeError(
                        f"chunk {index} failed on the Dask cluster ({type(exc).__name__}: "
                        f"{exc}); the finished chunks are kept: deepsim run --resume "
                        f"{out_dir}") from exc
                future.release()
                lister.add(result)
                played += count
                seconds += float(result["seconds"])
                cpu += float(result["cpu_seconds"])
                play += float(result["play_seconds"])
                where[index] = result["worker"]
                if progress is not None:
                    progress(done + played, total)
        except BaseException:
            self.client.cancel(futures)
            raise
        if lister.waiting:  # pragma: no cover - the first chunk is always among the results
            raise RuntimeError("chunks finished but the run's first chunk never did")
        clean_stray_files(out_dir, writer.manifest)  # half parts of workers that died
        self.last = {"tasks": len(todo), "chunk_workers": dict(sorted(where.items())),
                     "task_seconds": round(seconds, 3), "task_cpu_seconds": round(cpu, 3),
                     "task_play_seconds": round(play, 3),
                     "rewritten": lister.rewritten}
        return played


    def frames(self, spec: dict, chunks: list[tuple[int, int, int]],
               keep_games: set[str] | None = None, keep_seats: set[str] | None = None,
               progress: Callable[[int], None] | None = None) -> tuple[Any, Any]:
        """Play ``chunks`` as tasks and return their (games, seats) frames, in game order.

        Nothing is written: each task returns its chunk's frames (only the kept columns),
        as ``deepsim sweep --backend dask`` needs them. ``spec`` is what :func:`prepared_from_spec`
        checks on the worker (see :meth:`play_chunks`); ``progress(count)`` is called as
        each task finishes.

        Raises
        ------
        RuntimeError
            A task failed after its retries, or its worker died too often.
        """
        if self.client is None:
            raise RuntimeError("DaskBackend is not started; use it in a 'with' block")
        import pandas as pd

        distributed = self._import()
        kg = None if keep_games is None else sorted(keep_games)
        ks = None if keep_seats is None else sorted(keep_seats)
        job = hash_json([spec, [list(c) for c in chunks], kg, ks])[:16]
        futures = [self.client.submit(_chunk_frames, spec, start, count, kg, ks,
                                      key=f"deepsim-frames-{job}-chunk-{index:05d}",
                                      retries=self.retries)
                   for index, start, count in chunks]
        by_key = {f.key: c for f, c in zip(futures, chunks, strict=True)}
        results: dict[int, tuple[Any, Any]] = {}
        try:
            for future in distributed.as_completed(futures):
                index, _, count = by_key[future.key]
                try:
                    results[index] = future.result()
                except Exception as exc:
                    raise RuntimeError(f"chunk {index} failed on the Dask cluster "
                                       f"({type(exc).__name__}: {exc})") from exc
                future.release()
                if progress is not None:
                    progress(count)
        except BaseException:
            self.client.cancel(futures)
            raise
        order = [results[index] for index, _, _ in chunks]
        if len(order) == 1:
            return order[0]
        return (pd.concat([g for g, _ in order], ignore_index=True),
                pd.concat([s for _, s in order], ignore_index=True))


@contextlib.contextmanager
def open_backend(name: str = "local", *, scheduler: str | None = None,
                 workers: int | None = None) -> Iterator[DaskBackend | None]:
    """The backend named by ``deepsim run --backend`` (``None`` for ``local``), started.

    Raises
    ------
    InputError
        Unknown backend; ``--scheduler``/``--workers`` without ``--backend dask``; Dask not
        installed; the scheduler unreachable or without workers.
    """
    if name not in BACKENDS:
        raise InputError(f"unknown backend {name!r}; expected one of {', '.join(BACKENDS)}",
                         key="--backend")
    if name == "local":
        given = [flag for flag, value in (("--scheduler", scheduler), ("--workers", workers))
                 if value is not None]
        if given:
            raise InputError(f"{' and '.join(given)} need --backend dask", key=given[0])
        yield None
        return
    with DaskBackend(scheduler, workers=workers) as backend:
        yield backend
