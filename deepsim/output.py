"""The on-disk format of a run, its writer and its checked reader.

A run directory holds::

    DIR/
      run.json                     what was run: scenario, resolved params, versions, timing
      manifest.json                the finished chunks; rewritten atomically after each one
      games/part-00000.parquet     one row per game, one part per chunk
      seats/part-00000.parquet     one row per seat per game, one part per chunk

``games/`` and ``seats/`` are each one parquet dataset (pandas, pyarrow and duckdb read
``DIR/games/*.parquet`` directly). String columns are stored as
``dictionary<int32, string>`` so every part has the same schema; pandas reads them back as
categoricals. Each part carries key-value metadata (``deepsim.*``: schema version, scenario
hash, params hash, seed, chunk index, start, count) so a part from another run is detected.

Seats are numbered from 1 (seat 1 plays first), in the ``seat`` column and in every
``*_seat`` column of the games table (a negative value: no seat, e.g. a shared win). Runs
written before schema version 2 numbered them from 0; :func:`read_run` renumbers them.

The manifest (``MANIFEST_SCHEMA_VERSION``) lists every finished chunk with its game range and
row counts; ``status`` is ``"running"`` until the last chunk is written, then
``"complete"``. A part is written before the manifest that lists it, both atomically, so an
interrupted run keeps every finished chunk valid.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
import shutil
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from deepsim.atomic import atomic_path, atomic_write_bytes, atomic_write_json, canonical_json
from deepsim.errors import InputError, OutputError
from deepsim.safeload import read_json

__all__ = [
    "DEFAULT_RUNS_ROOT",
    "KINDS",
    "MANIFEST_NAME",
    "MANIFEST_SCHEMA_VERSION",
    "READABLE_SCHEMA_VERSIONS",
    "RUN_JSON_NAME",
    "RunWriter",
    "check_out_dir",
    "check_parts",
    "check_writable",
    "clean_stray_files",
    "default_out_dir",
    "hash_json",
    "os_reason",
    "part_metadata",
    "part_name",
    "prepare_out_dir",
    "read_manifest",
    "read_run",
    "read_run_json",
    "write_chunk_parts",
    "write_run_json",
]

#: 2: seats numbered from 1 in the ``seat`` column and every ``*_seat`` column (1: from 0)
MANIFEST_SCHEMA_VERSION = 2
#: versions :func:`read_run` reads (a version 1 run is renumbered as it is read)
READABLE_SCHEMA_VERSIONS = (1, 2)
KINDS = ("games", "seats")
MANIFEST_NAME = "manifest.json"
RUN_JSON_NAME = "run.json"
DEFAULT_RUNS_ROOT = Path("reports") / "runs"

_DICT_TYPE = pa.dictionary(pa.int32(), pa.string())
_PART_RE = re.compile(r"^part-(\d{5,})\.parquet$")
_TEMP_RE = re.compile(r"^\..+\.tmp-[0-9a-f]+$")  # deepsim.atomic.temp_path_for names
_SORT_KEYS = {"games": ["game"], "seats": ["game", "seat"]}


def part_name(index: int) -> str:
    """File name of chunk ``index``'s part: ``part-00000.parquet`` (zero-padded to 5)."""
    return f"part-{index:05d}.parquet"


def hash_json(obj: Any) -> str:
    """SHA-256 hex digest of ``obj``'s canonical JSON (sorted keys, no spaces).

    Parameters
    ----------
    obj : JSON-serialisable

    Returns
    -------
    str
        64 lowercase hex characters.
    """
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name)).strip("-.")
    return slug or "run"


_REASONS = {
    errno.ENOSPC: "the disk is full (no space left on device)",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "it is on a read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.ENOENT: "a folder of the path does not exist or cannot hold new folders",
    errno.ELOOP: "a symbolic link loop (too many levels of symbolic links)",
    errno.ENAMETOOLONG: "the path is too long",
    errno.EIO: "an input/output error (a failing disk?)",
    errno.EEXIST: "something else already has that name",
}


def os_reason(exc: OSError) -> str:
    """A short, plain reason for an OSError on the output path ("the disk is full ...").

    pyarrow's OSErrors carry no ``errno``; the ``[Errno N]`` in their text is used.
    """
    code = exc.errno
    if code is None:
        m = re.search(r"\[Errno (\d+)\]", str(exc))
        code = int(m.group(1)) if m else None
    if code in _REASONS:
        return _REASONS[code]
    text = exc.strerror or str(exc) or type(exc).__name__
    return text[:200]


def _out_error(message: str, path: Path | str, flag: str | None) -> InputError:
    return InputError(message, file=str(path), key=flag)


def _blocking_file(path: Path) -> Path | None:
    """The first part of ``path`` that exists and is not a folder (so nothing can be made
    below it), or None."""
    for parent in [*reversed(path.parents), path]:
        try:
            if not stat.S_ISDIR(os.stat(parent).st_mode):
                return parent
        except OSError:
            return None
    return None


def check_writable(folder: Path | str, *, flag: str | None = "--out") -> None:
    """Check that files can be made in the existing ``folder``: write, fsync and remove a
    small hidden file (named as :func:`deepsim.atomic.temp_path_for` names its files, so a
    leftover is a stray temporary file).

    Raises
    ------
    InputError
        Naming the folder, ``flag`` and why: read-only file system, permission denied,
        disk full, ...
    """
    folder = Path(folder)
    probe = folder / f".deepsim-write-check.tmp-{secrets.token_hex(4)}"
    try:
        atomic_write_bytes(probe, b"deepsim\n")
        probe.unlink()
    except OSError as exc:
        raise _out_error(f"cannot write in this folder: {os_reason(exc)}", folder,
                         flag) from None


def check_out_dir(out: Path | str | None, *, force: bool = False,
                  flag: str = "--out") -> None:
    """Check, without changing anything, that a run could be written to ``out``.

    Run before a scenario is prepared, so a bad ``--out`` is reported first. The checks
    that need to write are made by :func:`prepare_out_dir`.

    Raises
    ------
    InputError
        ``out`` is a file (whatever ``force``), a symbolic link loop or dangling link, below
        a file, on a read-only file system, not writable, or an existing folder without
        ``force``.
    """
    if out is None:
        return
    out = Path(out)
    try:
        os.stat(out)
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(out):
            raise _out_error("is a symbolic link to a missing folder; choose another "
                             f"{flag}", out, flag) from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            blocking = _blocking_file(out)
            if blocking is not None:
                raise _out_error(f"cannot create the folder: {blocking} is a file, not a "
                                 f"folder; choose another {flag}", out, flag) from None
            parent = _existing_parent(out)
            if parent is not None:
                _check_access(parent, out, flag)
            return
        raise _out_error(f"cannot use it: {os_reason(exc)}; choose another {flag}", out,
                         flag) from None
    except ValueError:
        raise _out_error("the path holds a NUL byte", out, flag) from None
    if not os.path.isdir(out):
        raise _out_error(f"exists and is a file, not a folder; choose another {flag}", out,
                         flag)
    _check_access(out, out, flag)
    if not force:
        raise _out_error(f"output directory already exists; pass --force to overwrite it "
                         f"or choose another {flag}", out, flag)


def _existing_parent(path: Path) -> Path | None:
    for parent in path.absolute().parents:
        if os.path.isdir(parent):
            return parent
    return None


def _check_access(folder: Path, out: Path, flag: str) -> None:
    """Refuse a folder on a read-only file system or without write permission."""
    try:
        readonly = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        readonly = False
    where = "" if folder == out else f" ({folder})"
    if readonly:
        raise _out_error(f"cannot write there: the folder{where} is on a read-only file "
                         f"system; choose another {flag}", out, flag)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _out_error(f"cannot write there: permission denied on the folder{where}; "
                         f"choose another {flag}", out, flag)


def default_out_dir(scenario_name: str, root: Path | str = DEFAULT_RUNS_ROOT) -> Path:
    """Create and return a new, uniquely named run directory under ``root``.

    Parameters
    ----------
    scenario_name : str
        Scenario name; characters outside ``[A-Za-z0-9._-]`` become ``-``.
    root : Path or str, default ``reports/runs``
        Parent folder (created if missing), relative to the current directory.

    Returns
    -------
    Path
        ``root/<scenario-name>-<YYYYmmdd-HHMMSS>-<6 hex chars>``, already created (empty).

    Raises
    ------
    InputError
        ``root`` or the new folder cannot be created (a file in the way, a read-only file
        system, no permission, a full disk): naming the folder and the reason.
    """
    root = Path(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocking = _blocking_file(root)
        reason = (f"{blocking} is a file, not a folder" if blocking is not None
                  else os_reason(exc))
        raise InputError(f"cannot create the folder for runs: {reason}; choose a folder "
                         "with --out", file=str(root)) from None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for _ in range(100):
        candidate = root / f"{_slug(scenario_name)}-{stamp}-{secrets.token_hex(3)}"
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise InputError(f"cannot create a run folder here: {os_reason(exc)}; choose a "
                             "folder with --out", file=str(root)) from None
        return candidate
    raise InputError("could not find a free run folder name after 100 tries; choose one "
                     "with --out", file=str(root))  # pragma: no cover


def prepare_out_dir(out: Path | str | None, *, scenario_name: str, force: bool = False,
                    root: Path | str = DEFAULT_RUNS_ROOT, flag: str = "--out") -> Path:
    """Return an empty run directory to write into, checked writable.

    Parameters
    ----------
    out : Path, str or None
        Requested directory (``--out``); ``None`` means a new one from
        :func:`default_out_dir`.
    scenario_name : str
        Used for the default directory name.
    force : bool, default False
        Allow an existing ``out``: its run files (``run.json``, ``manifest.json``,
        ``games/``, ``seats/``) are removed first; anything else in it is left alone.
    root : Path or str
        Parent of default directories.
    flag : str, default ``--out``
        The option named in messages.

    Returns
    -------
    Path
        The directory, existing, free of run files, and writable (a small file was written
        and removed there).

    Raises
    ------
    InputError
        Everything :func:`check_out_dir` refuses, and a folder that cannot be created,
        cleared or written (disk full, read-only, permission denied, a file in the way);
        a folder this call created is removed again.
    """
    if out is None:
        made = default_out_dir(scenario_name, root)
        _check_new(made, None)
        return made
    made = Path(out)
    check_out_dir(made, force=force, flag=flag)
    if os.path.lexists(made):
        # an existing folder (--force): check it can be written before anything of the
        # earlier run is removed
        check_writable(made, flag=flag)
        try:
            for name in (RUN_JSON_NAME, MANIFEST_NAME):
                (made / name).unlink(missing_ok=True)
            for kind in KINDS:
                if (made / kind).is_dir() and not (made / kind).is_symlink():
                    shutil.rmtree(made / kind)
                elif os.path.lexists(made / kind):
                    (made / kind).unlink()
        except OSError as exc:
            raise _out_error(f"cannot remove the earlier run's files: {os_reason(exc)}; "
                             f"choose another {flag}", made, flag) from None
        return made
    try:
        made.mkdir(parents=True)
    except OSError as exc:
        raise _out_error(f"cannot create the folder: {os_reason(exc)}; choose another "
                         f"{flag}", made, flag) from None
    _check_new(made, flag)
    return made


def _check_new(made: Path, flag: str | None) -> None:
    """:func:`check_writable` on a folder just made; remove it again when it fails."""
    try:
        check_writable(made, flag=flag)
    except InputError:
        with contextlib.suppress(OSError):
            made.rmdir()
        raise


def _to_arrow(df: pd.DataFrame, metadata: dict[str, str]) -> pa.Table:
    """Convert a frame to Arrow with stable types: strings and categoricals as dictionaries."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    fields = []
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        t = field.type
        if (pa.types.is_string(t) or pa.types.is_large_string(t)
                or (pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type)
                                                    or pa.types.is_large_string(t.value_type)))):
            column = column.cast(_DICT_TYPE)
            field = pa.field(field.name, _DICT_TYPE)
        fields.append(field)
        columns.append(column)
    schema = pa.schema(fields, metadata={k.encode(): v.encode() for k, v in metadata.items()})
    return pa.Table.from_arrays(columns, schema=schema)


def part_metadata(identity: dict, kind: str, index: int, start: int,
                  count: int) -> dict[str, str]:
    """The ``deepsim.*`` key-value metadata of one part.

    Parameters
    ----------
    identity : dict
        The run's manifest (or any mapping with its ``scenario_hash``, ``params_hash``,
        ``seed`` and optional ``placeholders`` / ``skipped_rules``).
    kind : {"games", "seats"}
    index, start, count : int
        Chunk index, first game, number of games.

    Returns
    -------
    dict of str to str
    """
    m = identity
    return {
        "deepsim.schema_version": str(MANIFEST_SCHEMA_VERSION),
        "deepsim.kind": kind,
        "deepsim.scenario_hash": m["scenario_hash"],
        "deepsim.params_hash": m["params_hash"],
        "deepsim.seed": str(m["seed"]),
        "deepsim.chunk": str(index),
        "deepsim.start": str(start),
        "deepsim.count": str(count),
        # placeholder data and skipped rules travel with every part (never hidden)
        "deepsim.placeholders": ",".join(m.get("placeholders", [])),
        "deepsim.skipped_rules": " | ".join(m.get("skipped_rules", [])),
    }


def _part_table(kind: str, df: pd.DataFrame, meta: dict[str, str],
                schemas: dict[str, pa.Schema]) -> pa.Table:
    """``df`` as Arrow, cast to ``schemas[kind]`` when set (else it sets it)."""
    table = _to_arrow(df, meta)
    first = schemas.get(kind)
    if first is None:
        schemas[kind] = table.schema
    elif not table.schema.equals(first, check_metadata=False):
        try:
            table = table.cast(first.with_metadata(table.schema.metadata))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as exc:
            raise RuntimeError(
                f"ruleset returned a {kind} frame whose schema differs from the first "
                f"chunk's: {table.schema} vs {first}") from exc
    return table


def write_chunk_parts(out_dir: Path | str, identity: dict, index: int, start: int,
                      count: int, games: pd.DataFrame, seats: pd.DataFrame,
                      schemas: dict[str, pa.Schema]) -> dict[str, Any]:
    """Write chunk ``index``'s two parts atomically; return its manifest entry.

    What :meth:`RunWriter.write_chunk` writes, without touching the manifest: a
    distributed worker calls it for its own chunk and the client lists the entry
    (:meth:`RunWriter.add_chunk`).

    Parameters
    ----------
    out_dir : Path or str
        The run directory (``games/`` and ``seats/`` must exist).
    identity : dict
        See :func:`part_metadata`.
    index, start, count : int
    games, seats : DataFrame
        The ruleset's frames for the chunk.
    schemas : dict
        ``{kind: pa.Schema}`` of the run's first written chunk: the parts are cast to it.
        A missing kind is set to this chunk's schema (the first chunk defines it).

    Returns
    -------
    dict
        ``index, start, count, games_rows, seats_rows, games_part, seats_part``.

    Raises
    ------
    RuntimeError
        The frames do not match the chunk, or cannot be cast to ``schemas``.
    OutputError
        A part cannot be written (disk full, I/O error, ...); no half-written file stays.
    """
    if len(games) != count:
        raise RuntimeError(f"ruleset returned {len(games)} game rows for chunk {index} "
                           f"(expected {count})")
    if count and "game" in games.columns:
        g = games["game"].to_numpy()
        if int(g.min()) != start or int(g.max()) != start + count - 1:
            raise RuntimeError(f"chunk {index}: game indices {int(g.min())}..{int(g.max())}"
                               f" do not match {start}..{start + count - 1}")
    out_dir = Path(out_dir)
    entry: dict[str, Any] = {"index": int(index), "start": int(start), "count": int(count)}
    for kind, df in (("games", games), ("seats", seats)):
        meta = part_metadata(identity, kind, index, start, count)
        table = _part_table(kind, df, meta, schemas)
        rel = f"{kind}/{part_name(index)}"
        try:
            with atomic_path(out_dir / rel) as tmp:
                pq.write_table(table, tmp, compression="zstd")
        except OSError as exc:  # the temporary file is gone; nothing half-written stays
            raise OutputError(f"cannot write {rel}: {os_reason(exc)}",
                              out_dir=str(out_dir)) from exc
        entry[f"{kind}_rows"] = int(table.num_rows)
        entry[f"{kind}_part"] = rel
    return entry


class RunWriter:
    """Write a run's chunks as parquet parts and keep ``manifest.json`` in step.

    Parameters
    ----------
    out_dir : Path
        Existing, empty run directory (see :func:`prepare_out_dir`).
    ruleset : str
        Ruleset name.
    scenario_name : str
        Scenario name.
    scenario_hash : str
        :func:`hash_json` of the resolved scenario.
    params_hash : str
        The ruleset's ``Prepared.params_hash``.
    seed : int
        Master seed.
    games : int
        Total games the run will play.
    chunk_size : int
        Games per chunk (the last chunk may be shorter).

    Attributes
    ----------
    manifest : dict
        The manifest as last written.
    """

    def __init__(self, out_dir: Path, *, ruleset: str, scenario_name: str,
                 scenario_hash: str, params_hash: str, seed: int, games: int,
                 chunk_size: int, placeholders: list[str] | None = None,
                 skipped_rules: list[str] | None = None):
        self.out_dir = Path(out_dir)
        self._make_folders()
        n_chunks = -(-games // chunk_size)
        self.manifest: dict[str, Any] = {
            "schema_version": MANIFEST_SCHEMA_VERSION,
            "ruleset": ruleset,
            "scenario_name": scenario_name,
            "scenario_hash": scenario_hash,
            "params_hash": params_hash,
            "seed": int(seed),
            "games": int(games),
            "chunk_size": int(chunk_size),
            "n_chunks": n_chunks,
            "placeholders": list(placeholders or []),
            "skipped_rules": list(skipped_rules or []),
            "status": "running",
            "updated_utc": _utc_now(),
            "chunks": [],
        }
        self._schemas: dict[str, pa.Schema] = {}
        self._write_manifest()

    @classmethod
    def resume(cls, out_dir: Path, manifest: dict) -> RunWriter:
        """A writer that continues an interrupted run from its manifest.

        Later chunks are cast to the schema of the first finished part, as in an
        uninterrupted run. The manifest is rewritten at once (status ``"running"``).

        Parameters
        ----------
        out_dir : Path
            The run directory; its listed parts must have been checked
            (:func:`check_parts`) and unlisted files removed (:func:`clean_stray_files`).
        manifest : dict
            Its manifest, as read by :func:`read_manifest`.

        Returns
        -------
        RunWriter
        """
        self = cls.__new__(cls)
        self.out_dir = Path(out_dir)
        self._make_folders()
        self.manifest = dict(manifest)
        self.manifest["chunks"] = sorted((dict(c) for c in manifest["chunks"]),
                                         key=lambda c: int(c["index"]))
        self.manifest["status"] = "running"
        self._schemas = {}
        if self.manifest["chunks"]:
            first = self.manifest["chunks"][0]
            for kind in KINDS:
                schema = pq.read_schema(self.out_dir / kind / part_name(int(first["index"])))
                self._schemas[kind] = schema.remove_metadata()
        self._write_manifest()
        return self

    def _make_folders(self) -> None:
        for kind in KINDS:
            try:
                (self.out_dir / kind).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputError(f"cannot create {kind}/: {os_reason(exc)}",
                                  out_dir=str(self.out_dir)) from exc

    def _write_manifest(self) -> None:
        """Rewrite ``manifest.json`` atomically.

        Raises
        ------
        OutputError
            It cannot be written; the file on disk keeps its previous content.
        """
        self.manifest["updated_utc"] = _utc_now()
        try:
            atomic_write_json(self.out_dir / MANIFEST_NAME, self.manifest)
        except OSError as exc:
            raise OutputError(f"cannot write {MANIFEST_NAME}: {os_reason(exc)}",
                              out_dir=str(self.out_dir)) from exc

    @property
    def schemas(self) -> dict[str, pa.Schema]:
        """``{kind: schema}`` every later part is cast to (empty before the first chunk)."""
        return dict(self._schemas)

    def write_chunk(self, index: int, start: int, count: int, games: pd.DataFrame,
                    seats: pd.DataFrame) -> dict[str, Any]:
        """Write chunk ``index`` (games ``start .. start+count-1``) and list it in the manifest.

        Both parts are written atomically, then the manifest is rewritten atomically.

        Parameters
        ----------
        index : int
            Chunk index (0-based); names the parts.
        start, count : int
            Global index of the chunk's first game and number of games.
        games : DataFrame
            ``count`` rows, one per game, with an integer ``game`` column.
        seats : DataFrame
            One row per seat per game.

        Returns
        -------
        dict
            The manifest entry: ``index, start, count, games_rows, seats_rows, games_part,
            seats_part``.

        Raises
        ------
        RuntimeError
            The frames do not match the chunk (a ruleset bug), or a later chunk's columns
            cannot be cast to the first chunk's schema.
        """
        entry = write_chunk_parts(self.out_dir, self.manifest, index, start, count, games,
                                  seats, self._schemas)
        self.add_chunk(entry)
        return entry

    def add_chunk(self, entry: dict[str, Any]) -> None:
        """List a chunk whose parts are already written (:func:`write_chunk_parts`).

        Appends ``entry`` to the manifest and rewrites it atomically.
        """
        self.manifest["chunks"].append(dict(entry))
        try:
            self._write_manifest()
        except BaseException:
            # not listed on disk: the manifest in memory says what the disk says
            self.manifest["chunks"].pop()
            raise

    def complete(self) -> None:
        """Mark the run complete (after the last chunk) and rewrite the manifest.

        Raises
        ------
        RuntimeError
            If the written chunks do not add up to the run's total games.
        """
        done = sum(c["count"] for c in self.manifest["chunks"])
        if done != self.manifest["games"]:
            raise RuntimeError(f"cannot complete run: {done} of {self.manifest['games']} "
                               f"games written")
        self.manifest["chunks"].sort(key=lambda c: c["index"])
        self.manifest["status"] = "complete"
        try:
            self._write_manifest()
        except BaseException:
            self.manifest["status"] = "running"
            raise


def _read_json(path: Path, what: str) -> dict:
    if not os.path.isfile(path):
        raise InputError(f"{what} not found; is this a deepsim run directory?", file=str(path))
    data = read_json(path, what=what)  # bounded size; InputError for anything malformed
    if not isinstance(data, dict):
        raise InputError(f"{what} is not a JSON object", file=str(path))
    return data


def read_manifest(run_dir: Path | str) -> dict:
    """Read ``run_dir/manifest.json``.

    Returns
    -------
    dict
        The manifest (see module docstring).

    Raises
    ------
    InputError
        Missing, unreadable or of a schema version not in ``READABLE_SCHEMA_VERSIONS``.
    """
    path = Path(run_dir) / MANIFEST_NAME
    manifest = _read_json(path, "manifest")
    version = manifest.get("schema_version")
    if version not in READABLE_SCHEMA_VERSIONS:
        raise InputError(f"manifest schema_version {version!r} is not supported "
                         f"(expected one of {', '.join(map(str, READABLE_SCHEMA_VERSIONS))})",
                         file=str(path), key="schema_version")
    for key in ("scenario_hash", "params_hash", "seed", "games", "chunk_size", "status",
                "chunks"):
        if key not in manifest:
            raise InputError("manifest is missing a required key", file=str(path), key=key)
    if not isinstance(manifest["chunks"], list):
        raise InputError("expected a list of chunks", file=str(path), key="chunks")
    return manifest


def read_run_json(run_dir: Path | str) -> dict:
    """Read ``run_dir/run.json`` (what was run; see :func:`deepsim.runner.run`).

    Raises
    ------
    InputError
        Missing or unreadable.
    """
    return _read_json(Path(run_dir) / RUN_JSON_NAME, "run.json")


def write_run_json(run_dir: Path | str, info: dict) -> None:
    """Write ``run_dir/run.json`` atomically.

    Raises
    ------
    OutputError
        It cannot be written; the file on disk keeps its previous content.
    """
    path = Path(run_dir) / RUN_JSON_NAME
    try:
        atomic_write_json(path, info)
    except OSError as exc:
        raise OutputError(f"cannot write {RUN_JSON_NAME}: {os_reason(exc)}",
                          out_dir=str(run_dir)) from exc


def _check_parts(run_dir: Path, manifest: dict, kind: str) -> list[Path]:
    """Check ``kind``'s parts against the manifest; return them in chunk order."""
    mpath = str(run_dir / MANIFEST_NAME)
    kdir = run_dir / kind
    listed: list[Path] = []
    expected_names: set[str] = set()
    first_schema: pa.Schema | None = None
    total_games = 0
    for i, chunk in enumerate(manifest["chunks"]):
        try:
            index = int(chunk["index"])
            start = int(chunk["start"])
            count = int(chunk["count"])
            rows = int(chunk[f"{kind}_rows"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed chunk entry: {exc}", file=mpath,
                             key=f"chunks[{i}]") from exc
        total_games += count
        path = kdir / part_name(index)
        expected_names.add(path.name)
        if not path.is_file():
            raise InputError(f"part listed in the manifest is missing (chunk {index}, "
                             f"games {start}..{start + count - 1})", file=str(path))
        try:
            meta = pq.read_metadata(path)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"unreadable parquet part: {exc}", file=str(path)) from exc
        if meta.num_rows != rows:
            raise InputError(f"part has {meta.num_rows} rows but the manifest lists {rows}",
                             file=str(path))
        kv = {k.decode(): v.decode() for k, v in (meta.metadata or {}).items()}
        for key, want in (("deepsim.scenario_hash", manifest["scenario_hash"]),
                          ("deepsim.params_hash", manifest["params_hash"]),
                          ("deepsim.seed", str(manifest["seed"])),
                          ("deepsim.chunk", str(index)),
                          ("deepsim.start", str(start)),
                          ("deepsim.kind", kind)):
            if kv.get(key) != want:
                raise InputError(f"part does not belong to this run: {key} is "
                                 f"{kv.get(key)!r}, the manifest says {want!r}",
                                 file=str(path))
        schema = meta.schema.to_arrow_schema()
        if first_schema is None:
            first_schema = schema
        elif not schema.equals(first_schema, check_metadata=False):
            raise InputError(f"part's columns differ from the first part's: {schema.names} vs "
                             f"{first_schema.names}", file=str(path))
        listed.append(path)
    if kdir.is_dir():
        extra = sorted(p.name for p in kdir.iterdir()
                       if p.name.endswith(".parquet") and p.name not in expected_names)
        if extra:
            raise InputError(f"{len(extra)} part(s) not listed in the manifest: "
                             f"{', '.join(extra[:5])}" + (" ..." if len(extra) > 5 else ""),
                             file=str(kdir))
    if manifest["status"] == "complete" and total_games != int(manifest["games"]):
        raise InputError(f"manifest says complete but its chunks hold {total_games} of "
                         f"{manifest['games']} games", file=mpath)
    return listed


def check_parts(run_dir: Path | str, manifest: dict) -> dict[str, list[Path]]:
    """Check every part the manifest lists (and that no other part exists).

    Parameters
    ----------
    run_dir : Path or str
    manifest : dict
        From :func:`read_manifest`.

    Returns
    -------
    dict
        ``{"games": [paths], "seats": [paths]}`` in manifest order.

    Raises
    ------
    InputError
        As :func:`read_run`: a part missing, unreadable, with other row counts, columns or
        run identity, or a ``*.parquet`` part the manifest does not list.
    """
    run_dir = Path(run_dir)
    return {kind: _check_parts(run_dir, manifest, kind) for kind in KINDS}


def clean_stray_files(run_dir: Path | str, manifest: dict) -> list[Path]:
    """Remove what an interrupted writer may have left: temporary files and unlisted parts.

    A kill can land after a part was renamed into place but before the manifest listing
    it was written; that part is removed (its chunk is played again). Temporary files
    (``.<name>.tmp-<hex>``) in the run directory, ``games/`` and ``seats/`` are removed.
    Nothing else is touched.

    Parameters
    ----------
    run_dir : Path or str
    manifest : dict
        The run's manifest; the parts it lists are kept.

    Returns
    -------
    list of Path
        The files removed, sorted.
    """
    run_dir = Path(run_dir)
    listed = {f"{kind}/{part_name(int(c['index']))}" for c in manifest["chunks"]
              for kind in KINDS}
    removed = []
    for folder in (run_dir, *(run_dir / kind for kind in KINDS)):
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if not path.is_file():
                continue
            rel = path.relative_to(run_dir).as_posix()
            stray_temp = bool(_TEMP_RE.match(path.name))
            stray_part = (folder != run_dir and bool(_PART_RE.match(path.name))
                          and rel not in listed)
            if stray_temp or stray_part:
                path.unlink()
                removed.append(path)
    return sorted(removed)


def _read_kind(paths: list[Path], kind: str, columns: list[str] | None) -> pd.DataFrame:
    if not paths:
        return pd.DataFrame()
    keys = _SORT_KEYS[kind]
    dataset = ds.dataset([str(p) for p in paths], format="parquet")
    if columns is not None:
        wanted = list(dict.fromkeys([k for k in keys if k in dataset.schema.names]
                                    + list(columns)))
        missing = [c for c in wanted if c not in dataset.schema.names]
        if missing:
            raise InputError(f"{kind} has no column(s) {missing}; it has "
                             f"{dataset.schema.names}")
        columns = wanted
    df = dataset.to_table(columns=columns).to_pandas()
    keys = [k for k in keys if k in df.columns]
    if keys:
        if len(keys) == 1:
            ordered = df[keys[0]].is_monotonic_increasing
        else:
            key = df[keys[0]].to_numpy().astype("int64") * 4096 + df[keys[1]].to_numpy()
            ordered = bool((key[1:] >= key[:-1]).all()) if len(key) > 1 else True
        if not ordered:
            df = df.sort_values(keys, kind="stable")
    return df.reset_index(drop=True)


def read_run(run_dir: Path | str, *, games_columns: list[str] | None = None,
             seats_columns: list[str] | None = None, require_complete: bool = False
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a run's games and seats, checking every part against the manifest.

    Parameters
    ----------
    run_dir : Path or str
        The run directory.
    games_columns, seats_columns : list of str, optional
        Read only these columns (the sort keys ``game`` and ``seat`` are always included).
        ``None`` reads all.
    require_complete : bool, default False
        Refuse a run whose manifest status is not ``"complete"`` (an interrupted run);
        otherwise its finished chunks are returned.

    Returns
    -------
    games : DataFrame
        One row per game, sorted by ``game``, RangeIndex. String columns are categoricals.
    seats : DataFrame
        One row per seat per game, sorted by ``game`` then ``seat``. Seats are numbered
        from 1 whatever the run's schema version (version 1 runs are renumbered).

    Raises
    ------
    InputError
        Missing or malformed manifest; ``run.json`` disagreeing with it on scenario hash,
        params hash or seed; a listed part missing or unreadable; a part whose row
        count, run identity (scenario hash, params hash, seed, chunk) or columns differ from
        the manifest; a ``*.parquet`` part the manifest does not list; an incomplete run when
        ``require_complete``.
    """
    run_dir = Path(run_dir)
    if not os.path.isdir(run_dir):
        raise InputError("run directory not found", file=str(run_dir))
    manifest = read_manifest(run_dir)
    if require_complete and manifest["status"] != "complete":
        raise InputError(f"run is incomplete (status {manifest['status']!r}, "
                         f"{len(manifest['chunks'])} of {manifest.get('n_chunks', '?')} chunks)",
                         file=str(run_dir / MANIFEST_NAME))
    if (run_dir / RUN_JSON_NAME).is_file():
        info = read_run_json(run_dir)
        for key in ("scenario_hash", "params_hash", "seed"):
            if key in info and info[key] != manifest[key]:
                raise InputError(f"run.json and manifest.json disagree on {key}: "
                                 f"{info[key]!r} vs {manifest[key]!r}",
                                 file=str(run_dir / RUN_JSON_NAME), key=key)
    games_parts = _check_parts(run_dir, manifest, "games")
    seats_parts = _check_parts(run_dir, manifest, "seats")
    games = _read_kind(games_parts, "games", games_columns)
    seats = _read_kind(seats_parts, "seats", seats_columns)
    if manifest["schema_version"] < 2:
        games, seats = _seats_from_one(games), _seats_from_one(seats)
    return games, seats


def _seats_from_one(df: pd.DataFrame) -> pd.DataFrame:
    """A schema-1 table (seats numbered from 0) with its seat columns numbered from 1."""
    for c in df.columns:
        if c == "seat" or str(c).endswith("_seat"):
            v = df[c].to_numpy()
            df[c] = (v + (v >= 0)).astype(v.dtype)
    return df
