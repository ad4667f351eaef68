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

The manifest (``MANIFEST_SCHEMA_VERSION``) lists every finished chunk with its game range and
row counts; ``status`` is ``"running"`` until the last chunk is written, then
``"complete"``. A part is written before the manifest that lists it, both atomically, so an
interrupted run keeps every finished chunk valid.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from deepsim.atomic import atomic_path, atomic_write_json, canonical_json
from deepsim.errors import InputError

__all__ = [
    "DEFAULT_RUNS_ROOT",
    "KINDS",
    "MANIFEST_NAME",
    "MANIFEST_SCHEMA_VERSION",
    "RUN_JSON_NAME",
    "RunWriter",
    "check_parts",
    "clean_stray_files",
    "default_out_dir",
    "hash_json",
    "part_metadata",
    "part_name",
    "prepare_out_dir",
    "read_manifest",
    "read_run",
    "read_run_json",
    "write_chunk_parts",
    "write_run_json",
]

MANIFEST_SCHEMA_VERSION = 1
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
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for _ in range(100):
        candidate = root / f"{_slug(scenario_name)}-{stamp}-{secrets.token_hex(3)}"
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise OSError(f"could not create a unique run directory under {root}")  # pragma: no cover


def prepare_out_dir(out: Path | str | None, *, scenario_name: str, force: bool = False,
                    root: Path | str = DEFAULT_RUNS_ROOT) -> Path:
    """Return an empty run directory to write into.

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

    Returns
    -------
    Path
        The directory, existing and free of run files.

    Raises
    ------
    InputError
        ``out`` exists and ``force`` is false, or ``out`` exists and is not a directory.
    """
    if out is None:
        return default_out_dir(scenario_name, root)
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise InputError("exists and is not a directory; choose another --out",
                             file=str(out))
        if not force:
            raise InputError("output directory already exists; pass --force to overwrite "
                             "it or choose another --out", file=str(out))
        for name in (RUN_JSON_NAME, MANIFEST_NAME):
            (out / name).unlink(missing_ok=True)
        for kind in KINDS:
            if (out / kind).is_dir():
                shutil.rmtree(out / kind)
            elif (out / kind).exists():
                (out / kind).unlink()
    else:
        out.mkdir(parents=True)
    return out


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
        with atomic_path(out_dir / rel) as tmp:
            pq.write_table(table, tmp, compression="zstd")
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
        for kind in KINDS:
            (self.out_dir / kind).mkdir(parents=True, exist_ok=True)
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
        for kind in KINDS:
            (self.out_dir / kind).mkdir(parents=True, exist_ok=True)
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

    def _write_manifest(self) -> None:
        self.manifest["updated_utc"] = _utc_now()
        atomic_write_json(self.out_dir / MANIFEST_NAME, self.manifest)

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
        self._write_manifest()

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
        self._write_manifest()


def _read_json(path: Path, what: str) -> dict:
    if not path.is_file():
        raise InputError(f"{what} not found; is this a deepsim run directory?", file=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read {what}: {exc}", file=str(path)) from exc
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
        Missing, unreadable or of an unknown schema version.
    """
    path = Path(run_dir) / MANIFEST_NAME
    manifest = _read_json(path, "manifest")
    version = manifest.get("schema_version")
    if version != MANIFEST_SCHEMA_VERSION:
        raise InputError(f"manifest schema_version {version!r} is not supported "
                         f"(expected {MANIFEST_SCHEMA_VERSION})", file=str(path),
                         key="schema_version")
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
    """Write ``run_dir/run.json`` atomically."""
    atomic_write_json(Path(run_dir) / RUN_JSON_NAME, info)


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
        One row per seat per game, sorted by ``game`` then ``seat``.

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
    if not run_dir.is_dir():
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
    return games, seats
