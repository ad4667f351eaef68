"""Reading input files without trusting them: bounded size, nesting and alias expansion.

Every YAML file deepsim reads (scenarios with their ``expect:`` blocks, ruleset data, bots
files, golden cases, odds data) goes through :func:`load_yaml`, every ``--set``/``--param``
value through :func:`parse_value`, and the JSON files of a run directory through
:func:`read_json`. Whatever the input, the answer is the data or an
:class:`~deepsim.errors.InputError` naming the file and line: never a hang, a traceback or
unbounded memory. The limits (README, "Input limits"):

- :data:`MAX_INPUT_BYTES` (1 MiB) per YAML or text file, checked with ``stat`` before
  reading a regular file; a device, pipe or ``/proc`` file is read up to one byte past the
  limit and refused when longer (``deepsim run /dev/zero``).
- :data:`MAX_DEPTH` (64) levels of nesting, counted through aliases.
- :data:`MAX_NODES` (100,000) values once every alias is expanded: a YAML alias bomb (each
  level repeating the last one ten times) is refused after reading its few hundred bytes,
  before anything is expanded; an alias to a collection that contains it is refused.
- integers outside the signed 64-bit range (every count and seed deepsim uses fits).
- control characters other than tab and line breaks, bytes that are not UTF-8, and every
  parser error, each with its line.

Values are resolved as PyYAML's YAML 1.1 ``SafeLoader`` does, plus the YAML 1.2 float forms
``1e3``, ``1e-3`` and ``2.5E6`` (YAML 1.1 reads them as strings). Duplicate keys are
refused. The data returned shares no object between two places (an alias is copied), so an
override of one place never changes another.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from deepsim.errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_INPUT_BYTES",
    "MAX_JSON_BYTES",
    "MAX_NODES",
    "LoadStats",
    "last_stats",
    "load_yaml",
    "load_yaml_text",
    "parse_value",
    "read_bytes",
    "read_json",
    "read_text",
]

#: Largest YAML or text input file read, in bytes (the largest shipped file is 23 KB).
MAX_INPUT_BYTES = 1 << 20
#: Largest JSON file of a run directory read (``manifest.json`` of 100,000 chunks: ~17 MB).
MAX_JSON_BYTES = 64 << 20
#: Deepest nesting of mappings and lists, counted through aliases (scenarios use ~5).
MAX_DEPTH = 64
#: Most values (scalars, mappings and lists) a YAML document may expand to.
MAX_NODES = 100_000
#: Integers must fit in a signed 64-bit integer (numpy's int64, the kernels' integers).
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1

_C0 = ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF",
       "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM",
       "SUB", "ESC", "FS", "GS", "RS", "US")
_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
# YAML 1.2 floats that YAML 1.1 resolves as strings: an exponent without a dot or a sign
_FLOAT_12 = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$")


@dataclass
class LoadStats:
    """What the last :func:`load_yaml_text` call read and built (for tests of the bounds).

    Attributes
    ----------
    bytes : int
        Characters of the text parsed (or bytes read by :func:`read_bytes`).
    composed : int
        Distinct YAML nodes the parser composed (aliases not expanded).
    expanded : int
        Values the document expands to (each alias counted as a full copy); the refused
        document's count up to the node that crossed :data:`MAX_NODES`.
    depth : int
        Deepest nesting after alias expansion (1 = a scalar).
    built : int
        Python objects (dicts, lists, scalars) the returned data holds.
    """

    bytes: int = 0
    composed: int = 0
    expanded: int = 0
    depth: int = 0
    built: int = 0


_LAST = LoadStats()


def _reset_stats() -> None:
    vars(_LAST).update(vars(LoadStats()))


def last_stats() -> LoadStats:
    """A copy of the :class:`LoadStats` of the last YAML load (successful or refused)."""
    return LoadStats(**vars(_LAST))


# --- reading bytes ---------------------------------------------------------------------------

def _describe(exc: OSError) -> str:
    """A short reason for an OSError on an input path."""
    return {
        errno.ENOENT: "no such file",
        errno.ELOOP: "a symbolic link loop (too many levels of symbolic links)",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.ENAMETOOLONG: "the path is too long",
    }.get(exc.errno or -1, f"cannot read it: {exc.strerror or exc}")


def read_bytes(path: Path | str, *, limit: int = MAX_INPUT_BYTES, what: str = "file"
               ) -> bytes:
    """The content of ``path``, at most ``limit`` bytes.

    A regular file's size is checked before reading; a device, pipe or ``/proc`` file is
    read up to ``limit + 1`` bytes (never blocking on a pipe nobody writes to: that reads as
    empty).

    Parameters
    ----------
    path : Path or str
    limit : int
        Largest size accepted, in bytes.
    what : str
        What the file should be, for messages ("YAML file", "run.json", ...).

    Returns
    -------
    bytes

    Raises
    ------
    InputError
        Missing (a dangling symbolic link says so), a symbolic link loop, a folder,
        unreadable, or larger than ``limit``.
    """
    path = Path(path)
    where = str(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(path):
            raise InputError(f"a symbolic link to a missing file ({os.readlink(path)})",
                             file=where) from None
        raise InputError(_describe(exc), file=where) from None
    except ValueError:  # an embedded NUL byte in the path
        raise InputError("the path holds a NUL byte", file=where) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"is a folder; expected a {what}", file=where)
    regular = stat.S_ISREG(info.st_mode)
    if regular and info.st_size > limit:
        raise InputError(f"is {info.st_size:,} bytes; a {what} may have at most "
                         f"{limit:,} bytes", file=where)
    try:
        # O_NONBLOCK: opening a FIFO nobody writes to must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (0 if regular else os.O_NONBLOCK))
    except OSError as exc:
        raise InputError(_describe(exc), file=where) from None
    try:
        if not regular:
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        chunks, size = [], 0
        while size <= limit:
            block = os.read(fd, min(1 << 16, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
    except OSError as exc:
        raise InputError(_describe(exc), file=where) from None
    finally:
        os.close(fd)
    _LAST.bytes = size
    if size > limit:
        raise InputError(f"holds more than {limit:,} bytes (not a regular file: read up to "
                         f"the limit); a {what} may have at most {limit:,} bytes", file=where)
    return b"".join(chunks)


def read_text(path: Path | str, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> str:
    """:func:`read_bytes` decoded as UTF-8.

    Raises
    ------
    InputError
        As :func:`read_bytes`, or bytes that are not UTF-8 (naming the line).
    """
    data = read_bytes(path, limit=limit, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputError(f"not a UTF-8 text file (byte {exc.start}: {exc.reason}); "
                         f"expected a {what}", file=str(path), line=line) from None


def read_json(path: Path | str, *, what: str = "JSON file", limit: int = MAX_JSON_BYTES
              ) -> Any:
    """Parse a JSON file of at most ``limit`` bytes.

    Raises
    ------
    InputError
        As :func:`read_text`, malformed JSON (with its line), or nesting too deep for the
        parser.
    """
    text = read_text(path, limit=limit, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"cannot read {what}: {exc.msg}", file=str(path),
                         line=exc.lineno) from None
    except (RecursionError, ValueError) as exc:
        raise InputError(f"cannot read {what}: {exc}", file=str(path)) from None


# --- the YAML loader -------------------------------------------------------------------------

def _line_of(text: str, position: int) -> tuple[int, int]:
    """(line, column), 1-based, of character ``position`` (YAML's line breaks)."""
    head = text[:position]
    breaks = list(_BREAKS.finditer(head))
    line = len(breaks) + 1
    col = position - (breaks[-1].end() if breaks else 0) + 1
    return line, col


def _check_printable(text: str, source: str | None) -> None:
    """Refuse a control character (YAML allows tab and line breaks only), with its line."""
    m = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if m is None:
        return
    ch = m.group()
    code = ord(ch)
    name = _C0[code] if code < 32 else "DEL" if code == 127 else None
    what = f"control character {name} (U+{code:04X})" if name else f"character U+{code:04X}"
    line, col = _line_of(text, m.start())
    raise InputError(f"{what} at column {col}; YAML text may hold tabs and line breaks but "
                     "no other control characters", file=source, line=line)


class _Hooks:
    """Bounds nesting and size while composing; remembers the node being built and the line
    of every key (``_lines``: ``{id(built dict or list): {key or index: line}}``)."""

    def _start(self) -> None:
        self._depth = 0
        self._current: yaml.Node | None = None
        self._lines: dict[int, dict] = {}

    def compose_node(self, parent, index):  # PyYAML's hook
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise InputError(f"nested more than {MAX_DEPTH} levels deep (the limit)",
                                 line=mark.line + 1)
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        _LAST.composed += 1
        if _LAST.composed > MAX_NODES:
            raise InputError(f"holds more than {MAX_NODES:,} values (the limit)",
                             line=node.start_mark.line + 1)
        return node

    def construct_object(self, node, deep=False):  # PyYAML's hook
        self._current = node
        return super().construct_object(node, deep=deep)


class _PyLoader(_Hooks, yaml.SafeLoader):
    """PyYAML's pure-Python SafeLoader with the hooks."""

    def __init__(self, text: str):
        yaml.SafeLoader.__init__(self, text)
        self._start()


if yaml.__with_libyaml__:
    from yaml._yaml import CParser

    class _CLoader(_Hooks, yaml.composer.Composer, CParser, yaml.constructor.SafeConstructor,
                   yaml.resolver.Resolver):
        """libyaml's scanner and parser (8x faster) under PyYAML's composer, so the
        hooks bound the document while it is composed."""

        def __init__(self, text: str):
            CParser.__init__(self, text)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._start()

    _LOADERS: tuple[type, ...] = (_PyLoader, _CLoader)
else:  # pragma: no cover - PyYAML built without libyaml
    _LOADERS = (_PyLoader,)
#: the loader used (the fast one when PyYAML has libyaml)
_Loader = _LOADERS[-1]


def _construct_mapping(loader: _Hooks, node: yaml.MappingNode, deep: bool = False):
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            if key in seen:
                raise InputError(f"duplicate key {_shown_key(key)} (first at line "
                                 f"{seen[key].start_mark.line + 1})",
                                 line=key_node.start_mark.line + 1)
        except TypeError:  # unhashable: construct_mapping says so with its line
            break
        seen[key] = key_node
    mapping = loader.construct_mapping(node, deep=deep)
    loader._lines[id(mapping)] = {k: n.start_mark.line + 1 for k, n in seen.items()}
    return mapping


def _construct_sequence(loader: _Hooks, node: yaml.SequenceNode, deep: bool = False):
    items = loader.construct_sequence(node, deep=deep)
    loader._lines[id(items)] = {i: n.start_mark.line + 1 for i, n in enumerate(node.value)}
    return items


def _construct_int(loader: _Hooks, node: yaml.ScalarNode) -> int:
    text = str(node.value).replace("_", "")
    digits = text.lstrip("+-")
    # more digits than any 64-bit integer has: never convert them (a million-digit number
    # would take seconds)
    too_long = len(digits) > 70 or (len(digits) > 40 and not digits.startswith(("0x", "0b")))
    value = None if too_long else loader.construct_yaml_int(node)
    if value is None or not _INT_MIN <= value <= _INT_MAX:
        shown = text if len(text) <= 24 else f"{text[:10]}...{text[-6:]} ({len(text)} chars)"
        raise InputError(f"integer {shown} does not fit in 64 bits (signed)",
                         line=node.start_mark.line + 1)
    return value


def _shown_key(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= 60 else text[:45] + "..." + text[-10:]


for _cls in _LOADERS:
    _cls.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
    _cls.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)
    _cls.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a document that expands past :data:`MAX_NODES` or :data:`MAX_DEPTH`.

    Counts each node's expanded size and height once (memoised by node), so an alias
    bomb is measured in time proportional to its text, not to its expansion.
    """
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            _LAST.expanded = max(_LAST.expanded, min(size[key], MAX_NODES + 1))
            _LAST.depth = max(_LAST.depth, min(height[key], MAX_DEPTH + 1))
            line = node.start_mark.line + 1
            if size[key] > MAX_NODES:
                raise InputError(f"this value expands to more than {MAX_NODES:,} values "
                                 "(aliases repeat what they name; the limit)", line=line)
            if height[key] > MAX_DEPTH:
                raise InputError(f"nested more than {MAX_DEPTH} levels deep once its "
                                 "aliases are expanded (the limit)", line=line)
            continue
        if key in size:
            continue
        if key in open_:
            raise InputError("an alias names a collection that contains it (a recursive "
                             "alias never ends)", line=node.start_mark.line + 1)
        open_.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)


def _unshare(obj: Any, node_lines: dict[int, dict], prefix: str, out: dict[str, int]) -> Any:
    """A copy of ``obj`` sharing nothing (aliases copied), filling ``out`` with key lines."""
    _LAST.built += 1
    if isinstance(obj, dict):
        lines = node_lines.get(id(obj), {})
        new = {}
        for k, v in obj.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            if k in lines:
                out.setdefault(path, lines[k])
            new[k] = _unshare(v, node_lines, path, out)
        return new
    if isinstance(obj, list):
        lines = node_lines.get(id(obj), {})
        new_list = []
        for i, v in enumerate(obj):
            if i in lines:
                out.setdefault(f"{prefix}.{i}", lines[i])
            new_list.append(_unshare(v, node_lines, f"{prefix}.{i}", out))
        return new_list
    if isinstance(obj, (set, bytearray)):
        return type(obj)(obj)
    return obj


def load_yaml_text(text: str, *, source: str | None = None, mapping: bool = True
                   ) -> tuple[Any, dict[str, int]]:
    """Parse YAML text within the limits; return the data and ``{dotted key path: line}``.

    Parameters
    ----------
    text : str
        The document (one only).
    source : str, optional
        File name for messages.
    mapping : bool, default True
        Require a mapping at the top level (every deepsim file is one).

    Returns
    -------
    data : Any
        Plain dicts, lists and scalars, sharing no object between two places.
    lines : dict of str to int
        The line of every key path (``seats.0.bot``) and list item.

    Raises
    ------
    InputError
        Control characters, malformed YAML, a duplicate key, an undefined or recursive
        alias, more than :data:`MAX_NODES` values or :data:`MAX_DEPTH` levels, an integer
        beyond 64 bits, a bad ``!!tag`` value, an empty document or a top level that is
        not a mapping (``mapping=True``). Each names ``source`` and, when known, the line.
    """
    _reset_stats()
    return _parse(text, source=source, mapping=mapping)


def _parse(text: str, *, source: str | None, mapping: bool) -> tuple[Any, dict[str, int]]:
    _LAST.bytes = max(_LAST.bytes, len(text))
    if len(text) > MAX_INPUT_BYTES:
        raise InputError(f"holds {len(text):,} characters; YAML input may have at most "
                         f"{MAX_INPUT_BYTES:,}", file=source)
    _check_printable(text, source)
    loader: _Hooks | None = None
    try:
        loader = _Loader(text)
        root = loader.get_single_node()
        if root is None:
            data: Any = None
        else:
            _check_expansion(root)
            data = loader.construct_document(root)
        tables = loader._lines
    except InputError as exc:
        raise InputError(exc.message, file=source, line=exc.line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or str(exc)
        if exc.problem and exc.context:
            at = f" at line {exc.context_mark.line + 1}" if exc.context_mark else ""
            problem = f"{exc.problem} ({exc.context}{at})"
        raise InputError(f"malformed YAML: {problem}", file=source,
                         line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", file=source) from None
    except (ValueError, OverflowError, TypeError, LookupError, AttributeError,
            RecursionError) as exc:
        # a value PyYAML's constructors cannot build: 2024-02-30, !!int abc, !!bool maybe
        node = loader._current if loader is not None else None
        value = getattr(node, "value", None)
        shown = f" {value!r}" if isinstance(value, str) and len(value) <= 40 else ""
        raise InputError(f"cannot read the value{shown}: {exc}", file=source,
                         line=node.start_mark.line + 1 if node is not None else None) from None
    finally:
        if loader is not None:
            loader.dispose()
    if data is None and mapping:
        raise InputError("the file is empty; expected a mapping of keys", file=source)
    if mapping and not isinstance(data, dict):
        raise InputError(f"expected a mapping of keys at the top level, got a "
                         f"{type(data).__name__}", file=source)
    lines: dict[str, int] = {}
    _LAST.built = 0
    data = _unshare(data, tables, "", lines)
    return data, lines


def load_yaml(path: Path | str, *, what: str = "YAML file") -> tuple[dict, dict[str, int]]:
    """Read a YAML mapping from a file; return it and a ``{dotted key path: line}`` table.

    The file is read with :func:`read_text` (at most :data:`MAX_INPUT_BYTES`) and parsed by
    :func:`load_yaml_text`.

    Raises
    ------
    InputError
        Missing, unreadable, too large, not UTF-8, not valid YAML within the limits, with a
        duplicate key, empty, or not a mapping; naming the file and line.
    """
    _reset_stats()
    text = read_text(path, what=what)
    return _parse(text, source=str(path), mapping=True)


def parse_value(text: str) -> Any:
    """One YAML value from the command line (``2.8``, ``true``, ``[1, 2]``), within limits.

    Text that is not valid YAML is returned as the string itself (``--set name=a: b``).

    Raises
    ------
    InputError
        An alias bomb or other document beyond the limits, an integer beyond 64 bits, or
        control characters.
    """
    try:
        data, _ = load_yaml_text(text, mapping=False)
    except InputError as exc:
        if exc.message.startswith("malformed YAML"):
            return text
        raise
    return data
