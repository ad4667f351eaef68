"""Errors that reach the user as a message, not a traceback."""

from __future__ import annotations


class InputError(Exception):
    """Bad user input: a scenario, ruleset file, override or CLI option.

    The message names the file, the key path (and line when known), the value and what was
    expected. The CLI prints it without a traceback and exits with status 2.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None,
                 line: int | None = None):
        self.message = message
        self.file = file
        self.key = key
        self.line = line
        where = []
        if file:
            where.append(f"{file}" + (f":{line}" if line else ""))
        if key:
            where.append(f"key '{key}'")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
