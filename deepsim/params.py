"""Loading YAML data files, dotted-path overrides and validation errors a designer can read.

Shared by every ruleset and by scenario files: YAML is read with duplicate keys refused and
each key's line remembered, ``--set path=value`` overrides are applied by dotted path, and
pydantic's errors become :class:`deepsim.errors.InputError` naming the file, the key path,
the line, the value and what was expected, with the nearest valid names for a typo.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from deepsim.errors import InputError
from deepsim.safeload import load_yaml, parse_value

__all__ = [
    "apply_overrides", "cap_text", "field_info", "leaf_paths", "load_yaml", "nearest",
    "override_lines", "param_value", "parameter_table", "params_hash", "parse_override",
    "safety_cap_values", "shown_value", "validate", "validation_error", "yaml_comment",
]


def leaf_paths(obj: Any, prefix: str = "") -> dict[str, Any]:
    """All dotted leaf paths of a nested dict/list and their values."""
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(leaf_paths(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list) and obj and all(isinstance(v, (dict, list)) for v in obj):
        for i, v in enumerate(obj):
            out.update(leaf_paths(v, f"{prefix}.{i}"))
    else:
        out[prefix] = obj
    return out


def value_at(data: dict, path: str) -> Any:
    """The value at dotted ``path`` of nested mappings (``value_at(d, "a.b")`` is
    ``d["a"]["b"]``).

    Raises
    ------
    KeyError
        A part of the path is missing.
    """
    node = data
    for part in path.split("."):
        node = node[part]
    return node


def nearest(name: str, choices, n: int = 3) -> str:
    """A ' (did you mean ...?)' hint naming the closest of ``choices``, or ''."""
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=n, cutoff=0.5)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``path=value``; the value is parsed as YAML (``2.8``, ``true``, ``[1, 2]``)."""
    if "=" not in text:
        raise InputError(f"override '{text}' must look like path=value", key="--set")
    path, raw = text.split("=", 1)
    path = path.strip()
    if not path:
        raise InputError(f"override '{text}' has an empty path", key="--set")
    try:
        value = parse_value(raw) if raw.strip() else ""
    except InputError as exc:
        raise InputError(f"the value of '{text[:60]}': {exc.message}", key="--set") from None
    return path, value


def later_wins(*layers: Mapping[str, Any] | Sequence[str | tuple[str, Any]]) -> dict[str, Any]:
    """Override layers merged in order into one ``{dotted path: value}`` mapping, as
    :func:`apply_overrides` applies them: each layer a mapping, or ``path=value`` strings
    (``--set``) or ``(path, value)`` pairs. A path given again is moved to its last
    place, so it is applied after every override between (``a.b=1``, ``a={b: 2}``,
    ``a.b=3`` gives ``b`` 3; kept at its first place, the mapping overwrote it).

    Raises
    ------
    InputError
        A string that is not ``path=value``.
    """
    out: dict[str, Any] = {}
    for layer in layers:
        items = (layer.items() if isinstance(layer, Mapping)
                 else (parse_override(o) if isinstance(o, str) else o for o in layer))
        for path, value in items:
            out.pop(path, None)
            out[path] = value
    return out


def apply_overrides(data: dict, overrides: dict[str, Any] | list[str], *,
                    valid_paths: dict[str, Any], source: str,
                    lines: dict[str, int] | None = None) -> dict:
    """Return a deep copy of ``data`` with dotted-path overrides applied.

    ``valid_paths`` is the leaf-path table of the fully defaulted model: a path must be one
    of them (or a prefix of some, to replace a whole sub-mapping). ``lines`` maps an
    override path to its line in ``source`` (for a scenario's ``overrides:``).

    Raises
    ------
    InputError
        For an unknown path, naming the nearest valid ones.
    """
    items = (overrides.items() if isinstance(overrides, dict)
             else [parse_override(o) for o in overrides])
    out = copy.deepcopy(data)
    for path, value in items:
        path = str(path)
        if path not in valid_paths and not any(p.startswith(path + ".") for p in valid_paths):
            raise InputError(f"unknown parameter path{nearest(path, valid_paths)}",
                             file=source, key=path, line=(lines or {}).get(path))
        node: Any = out
        parts = path.split(".")
        for i, part in enumerate(parts):
            if isinstance(node, list) and part.isdigit() and int(part) < len(node):
                index: Any = int(part)
            elif isinstance(node, dict):
                # a mapping keyed by integers (``{4: 2}``) is addressed by the key's digits
                index = (int(part) if part not in node and part.lstrip("-").isdigit()
                         and int(part) in node else part)
            else:
                # an earlier override replaced a parent with a value that has no such key
                parent = ".".join(parts[:i])
                raise InputError(f"an earlier override set '{parent}' to {node!r}, which has "
                                 f"no key '{part}'; set the whole of '{parent}' or only "
                                 "its keys", file=source, key=path,
                                 line=(lines or {}).get(path))
            if i == len(parts) - 1:
                node[index] = value
            elif isinstance(node, dict):
                node = node.setdefault(index, {})
            else:
                node = node[index]
    return out


def validate(model: type[BaseModel], data: dict, *, source: str,
             lines: dict[str, int] | None = None) -> BaseModel:
    """Validate ``data`` with a pydantic model in strict mode; raise InputError naming file,
    key and line.

    Strict: a value must already have its field's type (an integer may stand for a float):
    a YAML boolean is never a number and a quoted ``"10"`` never an integer, in every key
    of every schema, including keys added later.

    Raises
    ------
    InputError
        Every problem pydantic found, with key paths and lines.
    """
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise validation_error(exc, data, model=model, source=source,
                               lines=lines or {}) from None


_BOUND_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal",
                 "too_short", "too_long")


def validation_error(exc: ValidationError, data: dict, *, model: type[BaseModel],
                     source: str, lines: dict[str, int]) -> InputError:
    """Turn a pydantic ValidationError into one InputError listing every problem."""
    msgs = []
    first_key, first_line, first_origin = None, None, None
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        key = ".".join(str(p) for p in loc)
        line = lines.get(key)
        origin = key_origin(lines, key)
        if origin is not None:
            line = None
        elif line is None:
            for i in range(len(loc), 0, -1):
                line = lines.get(".".join(str(p) for p in loc[:i]))
                if line:
                    break
        msg = err["msg"]
        hint = ""
        value = err.get("input")
        shown = ("" if err["type"] in ("missing", "extra_forbidden")
                 else f" (got {shown_value(value)})")
        if err["type"] in ("value_error", "assertion_error"):
            # a validator's own message names the value (never dump a whole mapping)
            msg = msg.split(", ", 1)[1] if msg.startswith(("Value error, ",
                                                           "Assertion failed, ")) else msg
            shown = ""
        elif err["type"] in _BOUND_ERRORS:
            note = _description_at(model, loc)  # e.g. "must be >= 1 or a game never ends"
            if note:
                hint = f"; {note}"
        elif err["type"] == "missing":
            msg = "required key is missing"
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
            hint = nearest(str(loc[-1])[:200], _fields_at(model, loc[:-1]))
        elif err["type"] == "literal_error":
            expected = err.get("ctx", {}).get("expected", "")
            msg = f"unknown name; expected one of {expected}"
            names = [e.strip(" '") for e in expected.replace(" or ", ",").split(",")]
            hint = nearest(str(err.get("input"))[:200], names)
        at = f" ({origin[0]} line {origin[1]})" if origin else (f" (line {line})" if line
                                                                 else "")
        where = f"{key}{at}: " if key else ""
        msgs.append(f"{where}{msg}{shown}{hint}")
        if first_key is None:
            first_key, first_line, first_origin = key, line, origin
    if len(msgs) == 1:
        text = msgs[0].split(": ", 1)[1] if first_key else msgs[0]
        if first_origin is not None:                 # written in the scenario it extends
            return InputError(text, file=first_origin[0], key=first_key or None,
                              line=first_origin[1])
        return InputError(text, file=source, key=first_key or None, line=first_line)
    return InputError(f"{len(msgs)} problems:\n  " + "\n  ".join(msgs), file=source)


class KeyLines(dict):
    """A scenario's line map (dotted key -> line) that also knows where its inherited keys
    were written: a scenario that ``extends:`` another reads the parent's keys, and
    ``origins`` maps each such dotted key (absent from the file itself) to the parent's
    file and line. Only :func:`validation_error` reads ``origins``; every other lookup sees
    the file's own lines, as before."""

    def __init__(self, lines=(), origins: dict[str, tuple[str, int]] | None = None):
        super().__init__(lines)
        self.origins = dict(origins or {})


def key_origin(lines: dict[str, int], key: str | None) -> tuple[str, int] | None:
    """``(file, line)`` where an inherited dotted ``key`` was written (the longest prefix
    :class:`KeyLines` knows), or None: a key of the file itself, or a plain line map."""
    origins = getattr(lines, "origins", None)
    if not origins or not key or key in lines:
        return None
    parts = key.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in lines:                       # the file itself wrote this part
            return None
        if prefix in origins:
            return origins[prefix]
    return None


def shown_value(value: Any, limit: int = 80) -> str:
    """``repr(value)`` for a message, at most about ``limit`` characters (a huge integer, a
    long string or a whole mapping is cut in the middle)."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long for str(): say how big it is
        return f"an integer of {value.bit_length()} bits"
    if len(text) <= limit:
        return text
    return f"{text[:limit - 20]}...{text[-12:]} ({len(text):,} chars)"


def _description_at(model: type[BaseModel], loc: tuple) -> str:
    """The ``description`` of the field at ``loc`` (what its bounds protect), or ''."""
    ann: Any = model
    field = None
    for part in loc:
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            field = ann.model_fields.get(str(part))
            if field is None:
                return ""
            ann = field.annotation
        else:
            args = [a for a in (getattr(ann, "__args__", ()) or ()) if a is not type(None)]
            if not args:
                return ""
            ann = args[-1]
            field = None
    return str(field.description) if field is not None and field.description else ""


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """Field names of the sub-model at ``loc`` (dict keys and list indices stepped over)."""
    ann: Any = model
    for part in loc:
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            field = ann.model_fields.get(str(part))
            if field is None:
                return []
            ann = field.annotation
        else:
            args = [a for a in (getattr(ann, "__args__", ()) or ()) if a is not type(None)]
            if not args:
                return []
            ann = args[-1]
    while not (isinstance(ann, type) and issubclass(ann, BaseModel)):
        args = [a for a in (getattr(ann, "__args__", ()) or ()) if a is not type(None)]
        if not args:
            return []
        ann = args[-1]
    return list(ann.model_fields)


def field_info(model: type[BaseModel], path: str) -> tuple[str, str]:
    """(type, bounds) of the field at dotted ``path`` of ``model``, as short text.

    Dict keys and list indices in the path are stepped over; bounds come from the field's
    ``ge``/``le``/``gt``/``lt`` constraints or its ``Literal`` choices.
    """
    ann: Any = model
    field = None
    for part in path.split("."):
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            field = ann.model_fields.get(part)
            if field is None:
                return "?", ""
            ann = field.annotation
        else:
            args = [a for a in (getattr(ann, "__args__", ()) or ()) if a is not type(None)]
            if not args:
                return "?", ""
            ann = args[-1]
            field = None
    bounds = []
    for m in (field.metadata if field is not None else []):
        for attr, sym in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            v = getattr(m, attr, None)
            if v is not None:
                bounds.append(f"{sym} {v}")
    origin = getattr(ann, "__origin__", None)
    if str(origin) == "typing.Literal" or repr(ann).startswith("typing.Literal"):
        return "choice", " | ".join(str(a) for a in ann.__args__)
    name = getattr(ann, "__name__", None) or repr(ann).replace("typing.", "")
    return name, ", ".join(bounds)


def yaml_comment(path: Path | str, line: int | None) -> str:
    """The trailing ``# comment`` on ``line`` of a YAML file ('' when none)."""
    if not line:
        return ""
    try:
        text = Path(path).read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError):
        return ""
    return text.split("#", 1)[1].strip() if "#" in text else ""


def override_lines(scenario_lines: dict[str, int], sets: list[str]) -> dict[str, int]:
    """``{parameter path: line}`` of a scenario's ``overrides:`` block, for its errors.

    Each override path and its parents get the override's line (the first override under a
    parent wins), so a check on a parent (e.g. a die's six faces) finds the line too. Paths
    a ``--set`` in ``sets`` also touches are left out: the error may be the ``--set``'s.
    """
    own = {k[len("overrides."):]: v for k, v in scenario_lines.items()
           if k.startswith("overrides.")}
    out: dict[str, int] = {}
    for path, line in sorted(own.items(), key=lambda kv: kv[1]):
        parts = path.split(".")
        for i in range(len(parts), 0, -1):
            out.setdefault(".".join(parts[:i]), line)

    def related(a: str, b: str) -> bool:
        return a == b or a.startswith(b + ".") or b.startswith(a + ".")

    return {k: v for k, v in out.items() if not any(related(k, t) for t in sets)}


def params_hash(params: dict) -> str:
    """SHA-256 hex digest of a ruleset's parameters (sorted-key JSON): names the variant."""
    return hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()


#: a comment that cites the rulebook or a gap: a section sign or a rule / gap id first
#: (§9, A21, AMB-T23, AT-A3, RV-M3, AB-G1 ...), not a column header or a remark
_CITATION = re.compile(r"^(§|[A-Z]{1,3}(-[A-Z]{0,2})?\d)")


def key_note(text_lines: list[str], line: int | None) -> str:
    """The note of the key on ``line`` (1-based) of a YAML file's ``text_lines``: its
    trailing ``# comment``, else the first line of the block of comments directly above
    it when that block cites the rulebook or a gap, up to its first ``. `` or ``; `` (its
    heading: ``# §9 scaling table; A2: ...`` gives ``§9 scaling table``); '' when neither."""
    if not line or line > len(text_lines):
        return ""
    text = text_lines[line - 1]
    if "#" in text:
        return text.split("#", 1)[1].strip()
    top = line - 1
    while top >= 1 and text_lines[top - 1].lstrip().startswith("#"):
        top -= 1
    if top == line - 1:
        return ""
    first = text_lines[top].lstrip().lstrip("#").strip()
    if not _CITATION.match(first):
        return ""
    # the block speaks of the whole group: keep its heading, not what it says of one key
    return re.split(r"\. |; ", first, maxsplit=1)[0].rstrip(".")


def parameter_table(model: type[BaseModel], data_file: Path | str, paths: dict[str, Any],
                    lines: dict[str, int]) -> list[dict]:
    """Rows of ``deepsim params``: dotted path, default, type, bounds and the data file's
    note (:func:`key_note` of the key, else of its nearest parent that has one: the rule
    section or gap it implements)."""
    try:
        text_lines = Path(data_file).read_text(encoding="utf-8").splitlines()
    except OSError:
        text_lines = []
    out = []
    for path, value in paths.items():
        typ, bounds = field_info(model, path)
        note = ""
        parts = path.split(".")
        for i in range(len(parts), 0, -1):
            note = key_note(text_lines, lines.get(".".join(parts[:i])))
            if note:
                break
        out.append({"path": path, "default": value, "type": typ, "bounds": bounds,
                    "section": note})
    return out


# --- safety caps (deepsim.rulesets.base.UNRESOLVED) ---------------------------------------

def param_value(params: Mapping[str, Any], path: str) -> Any:
    """The value at dotted ``path`` of a nested parameters mapping (``Prepared.params``),
    or of a flat one keyed by dotted paths (a report's ``RunData.params``); None when
    absent."""
    if path in params:
        return params[path]
    node: Any = params
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def safety_cap_values(ruleset: Any, params: Mapping[str, Any]) -> list[dict]:
    """Each safety cap of ``ruleset`` (:attr:`deepsim.rulesets.base.Ruleset.safety_caps`,
    read by attribute: any object, None gives none) with its value in
    ``params``: ``[{"path", "value", "unit", "invented": True}]`` (a cap is never a rule:
    the value is invented data), in declaration order; caps absent from ``params`` are left
    out. What ``run.json`` records as ``safety_caps`` and every banner shows."""
    out = []
    for path, unit in dict(getattr(ruleset, "safety_caps", {}) or {}).items():
        value = param_value(params, path)
        if value is not None:
            out.append({"path": path, "value": value, "unit": unit, "invented": True})
    return out


def cap_text(caps: Sequence[Mapping[str, Any]]) -> str:
    """``the 1,000 player-turn cap (end.max_turns)``: the caps for a sentence ('' when
    none)."""
    bits = []
    for c in caps:
        v = c.get("value")
        num = f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)
        bits.append(f"the {num} {c.get('unit', '')} cap ({c.get('path')})".replace("  ", " "))
    return " / ".join(bits)
