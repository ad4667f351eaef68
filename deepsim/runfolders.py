"""Output folders of the tools (``sweep``, ``tune``, ``respond``, ``meta``): a new folder
or one refused without ``--force``, the names a tool owns in it, parquet written
atomically, the machine a result came from."""

from __future__ import annotations

import platform
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from deepsim.atomic import atomic_path
from deepsim.errors import InputError
from deepsim.output import default_out_dir

__all__ = ["DEFAULT_SWEEPS_ROOT", "DEFAULT_TUNES_ROOT", "check_out", "machine", "make_out",
           "utc_now", "write_parquet"]

DEFAULT_SWEEPS_ROOT = Path("reports") / "sweeps"
DEFAULT_TUNES_ROOT = Path("reports") / "tunes"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def check_out(out: Path | str | None, force: bool) -> None:
    """Refuse an existing ``--out`` without ``--force`` (before any game runs)."""
    if out is None:
        return
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory; choose another --out", file=str(out))
    if out.exists() and not force:
        raise InputError("output directory already exists; pass --force to overwrite it or "
                         "choose another --out", file=str(out))


def make_out(out: Path | str | None, *, name: str, force: bool, root: Path | str,
             owned: tuple[str, ...]) -> Path:
    """Create the output folder (default: a new unique one under ``root``).

    With ``force``, the names in ``owned`` (files or folders this command writes) are
    removed from an existing ``out`` first; anything else in it is left alone.
    """
    if out is None:
        return default_out_dir(name, root)
    out = Path(out)
    check_out(out, force)
    if out.exists():
        for item in owned:
            p = out / item
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
    else:
        out.mkdir(parents=True)
    return out


def write_parquet(path: Path, frame: pd.DataFrame, metadata: dict[str, str] | None = None
                  ) -> None:
    """Write ``frame`` to ``path`` atomically (temporary file, fsync, rename)."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if metadata:
        meta = dict(table.schema.metadata or {})
        meta.update({f"deepsim.{k}".encode(): str(v).encode() for k, v in metadata.items()})
        table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def machine() -> dict:
    """The platform, Python version and command line a result was made with."""
    return {"platform": platform.platform(), "python": platform.python_version(),
            "command": sys.argv}
