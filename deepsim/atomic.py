"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Every writer here writes to a temporary file in the destination's own directory (so the
final rename stays on one file system), flushes and ``fsync``\\ s it, then ``os.replace``\\ s
it over the destination and ``fsync``\\ s the directory. The temporary name starts with a dot
and ends in ``.tmp-<random>``, so it never matches ``*.parquet`` or ``*.json`` globs and
dataset readers (pyarrow ignores names starting with ``.`` or ``_``) never pick it up.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "canonical_json",
    "deferred_sigint",
    "temp_path_for",
]


def temp_path_for(path: Path) -> Path:
    """Return a fresh temporary path beside ``path``.

    Parameters
    ----------
    path : Path
        The final destination.

    Returns
    -------
    Path
        ``<dir>/.<name>.tmp-<8 hex chars>``; never ends in the destination's suffix.
    """
    path = Path(path)
    return path.with_name(f".{path.name}.tmp-{secrets.token_hex(4)}")


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary path to write to; on success move it over ``path`` atomically.

    Use for writers that want a file name rather than a file object (pyarrow's
    ``pq.write_table``). If the body raises, the temporary file is removed and ``path`` is
    left untouched.

    Parameters
    ----------
    path : Path or str
        Final destination; its parent directory must exist.

    Yields
    ------
    Path
        The temporary path (same directory as ``path``).

    Raises
    ------
    OSError
        If the write, fsync or rename fails (the temporary file is removed).
    """
    dest = Path(path)
    tmp = temp_path_for(dest)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(dest.parent)


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file, fsync, ``os.replace``).

    Parameters
    ----------
    path : Path or str
        Destination file; its parent directory must exist.
    data : bytes
        The complete new content.

    Raises
    ------
    OSError
        On any I/O failure; ``path`` then keeps its previous content.
    """
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write_text(path: Path | str, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(encoding))


def canonical_json(obj: Any) -> str:
    """Serialise ``obj`` as canonical JSON (sorted keys, no spaces) for hashing.

    Parameters
    ----------
    obj : JSON-serialisable
        Non-JSON values (paths, numpy scalars) are converted with ``str``.

    Returns
    -------
    str
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_json_default,
                      ensure_ascii=False)


def _json_default(value: Any) -> Any:
    # numpy scalars and arrays, paths, sets: anything else becomes its str().
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


def atomic_write_json(path: Path | str, obj: Any) -> None:
    """Write ``obj`` as indented JSON (UTF-8, trailing newline) atomically.

    Parameters
    ----------
    path : Path or str
        Destination file.
    obj : JSON-serialisable
        Numpy scalars/arrays become lists/numbers, other unknown values their ``str``.

    Raises
    ------
    OSError
        On any I/O failure; ``path`` then keeps its previous content.
    """
    text = json.dumps(obj, indent=2, sort_keys=False, default=_json_default,
                      ensure_ascii=False) + "\n"
    atomic_write_text(path, text)


@contextlib.contextmanager
def deferred_sigint() -> Iterator[None]:
    """Hold off Ctrl-C (SIGINT) for the body; re-raise ``KeyboardInterrupt`` after it.

    Wrap a group of writes that must happen together (a chunk's parts and the manifest that
    lists them) so that an interrupt never lands between them. Outside the main thread, or
    where signals cannot be handled, the body simply runs unprotected.

    Raises
    ------
    KeyboardInterrupt
        After the body, if SIGINT arrived while it ran.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        received.append(signum)

    try:
        previous: Callable | int | None = signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):  # pragma: no cover - no signal support here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT,
                      previous if previous is not None else signal.default_int_handler)
    if received:
        raise KeyboardInterrupt
