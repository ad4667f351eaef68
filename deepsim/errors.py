"""Errors that reach the user as a message, not a traceback."""

from __future__ import annotations

import re

# C0 and C1 control characters, DEL, the Unicode line and paragraph separators and lone
# surrogates: printed raw they would move the cursor, colour the terminal, break the
# one-line message or fail to encode
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(text: str, *, keep_newlines: bool = False, limit: int | None = None) -> str:
    """``text`` safe to print on one line: control characters as ``\\x1b``-style escapes.

    Parameters
    ----------
    text : str
    keep_newlines : bool, default False
        Leave ``\\n`` as it is (a multi-line message of our own).
    limit : int, optional
        Cut a longer text in the middle, saying how long it was.
    """
    def esc(m: re.Match) -> str:
        ch = m.group()
        return ch if keep_newlines and ch == "\n" else repr(ch)[1:-1]

    text = _CONTROL.sub(esc, str(text))
    if limit is not None and len(text) > limit:
        text = f"{text[:limit - 20]}...{text[-12:]} ({len(text):,} chars)"
    return text


def _seat_note(key: str) -> str:
    """`` (seat 2)`` for a key inside ``seats.1``: a YAML list index counts from 0, seats
    count from 1 for users (reports, metrics ``seat=1``, traces ``S1``)."""
    m = re.match(r"seats\.(\d+)(\.|$)", str(key))
    return f" (seat {int(m.group(1)) + 1})" if m else ""


class InputError(Exception):
    """Bad user input: a scenario, ruleset file, override or CLI option.

    The message names the file, the key path (and line when known), the value and what was
    expected. The CLI prints it without a traceback and exits with status 2. Control
    characters in the file name, key or message are printed as escapes (``\\x1b``), and a
    file name or key longer than 200 characters is cut.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None,
                 line: int | None = None):
        self.message = message
        self.file = file
        self.key = key
        self.line = line
        where = []
        if file:
            where.append(printable(file, limit=200) + (f":{line}" if line else ""))
        if key:
            where.append(f"key '{printable(key, limit=200)}'" + _seat_note(key))
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + printable(message, keep_newlines=True))


class OutputError(Exception):
    """The run directory could not be written while a run was playing (disk full, I/O error,
    the folder made read-only or removed): the chunks finished before it are kept.

    The CLI prints :attr:`message` without a traceback and exits with status 4
    (:data:`EXIT_OUTPUT`). Problems found before a run starts (a folder that cannot be made
    or written) are :class:`InputError` instead (exit 2).

    Attributes
    ----------
    message : str
        What failed, on which file, what was kept and how to finish the run.
    out_dir : str or None
        The run directory.
    chunks_done, n_chunks : int or None
        Chunks kept (listed in the manifest) and chunks in all.
    """

    def __init__(self, message: str, *, out_dir: str | None = None,
                 chunks_done: int | None = None, n_chunks: int | None = None):
        self.message = message
        self.out_dir = out_dir
        self.chunks_done = chunks_done
        self.n_chunks = n_chunks
        super().__init__(printable(message))

    def __reduce__(self):
        # picklable with its keywords (raised on a Dask worker, re-raised on the client)
        return (_rebuild_output_error, (self.message, self.out_dir, self.chunks_done,
                                        self.n_chunks))


def _rebuild_output_error(message, out_dir, chunks_done, n_chunks) -> OutputError:
    return OutputError(message, out_dir=out_dir, chunks_done=chunks_done, n_chunks=n_chunks)


#: exit status of an :class:`InputError` (bad input, found before anything runs)
EXIT_INPUT = 2
#: exit status of an :class:`OutputError` (the disk failed during a run; finished chunks kept)
EXIT_OUTPUT = 4
#: exit status after Ctrl-C
EXIT_INTERRUPTED = 130
