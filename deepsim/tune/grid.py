"""``--param PATH=VALUES`` for ``deepsim sweep`` and ``--param PATH=LOW:HIGH`` for ``tune``.

VALUES is a list (``1,2`` or ``true,false`` or ``greedy,cautious``) or a range
``LOW:HIGH:STEP`` (``2.0:3.0:0.25``; both ends included when the step lands on HIGH; an
integer parameter may leave out the step: ``1:4`` is ``1,2,3,4``). Ranges are stepped in
decimal arithmetic, so ``2.0:3.0:0.1`` gives ``2.3``, never ``2.3000000000000003``.

Every path is checked against the ruleset's parameter table (``deepsim params RULESET``):
an unknown path names the nearest valid ones, and each value must have the parameter's
type (an integer parameter takes ``2`` or ``2.0``, not ``2.5`` or ``true``). Bounds and the
ruleset's own checks (a die has six faces, ...) are applied when each grid point is
prepared, before any game runs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml

from deepsim.errors import InputError
from deepsim.params import nearest
from deepsim.safeload import parse_value

__all__ = [
    "MAX_POINTS",
    "ParamSpec",
    "SearchSpace",
    "build_grid",
    "default_step",
    "format_value",
    "parameter_table",
    "parse_param",
    "parse_search",
    "parse_values",
    "point_overrides",
]

#: Largest grid a sweep accepts (a typo like ``0:1000:0.001`` should not start a week's run).
MAX_POINTS = 10_000


@dataclass(frozen=True)
class ParamSpec:
    """One ``--param`` of a sweep: a parameter path and the values to try, in order."""

    path: str
    values: tuple
    kind: str  # "int", "float", "bool", "choice", "str", "mapping" or "any"


@dataclass(frozen=True)
class SearchSpace:
    """One ``--param`` of a tune: a range ``low..high`` (with an optional ``step``) or a
    list of ``choices``."""

    path: str
    kind: str
    low: float | int | None = None
    high: float | int | None = None
    step: float | int | None = None
    choices: tuple | None = None
    default: Any = None

    @property
    def categorical(self) -> bool:
        return self.choices is not None

    def contains(self, value: Any) -> bool:
        """Whether ``value`` is a point of this space (the baseline is tried when it is)."""
        if self.categorical:
            return value in self.choices
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if not self.low <= value <= self.high:
            return False
        if self.step is None:
            return True
        k = (value - self.low) / self.step
        return abs(k - round(k)) < 1e-9

    def describe(self) -> str:
        if self.categorical:
            return ", ".join(format_value(c) for c in self.choices)
        step = f" step {format_value(self.step)}" if self.step is not None else ""
        return f"{format_value(self.low)} .. {format_value(self.high)}{step}"


# --- the ruleset's parameter table ----------------------------------------------------------

def parameter_table(ruleset: Any) -> dict[str, dict]:
    """``{path: row}`` from ``ruleset.parameters()`` (path, default, type, bounds, section)."""
    return {str(row["path"]): dict(row) for row in ruleset.parameters()}


def kind_of(row: dict | None) -> str:
    """The value kind of a parameter row of ``Ruleset.parameters()`` (``int``, ``float``,
    ``bool``, ``str``, ``list``...; ``any`` for a path not in the table)."""
    if row is None:
        return "any"
    typ = str(row.get("type", ""))
    default = row.get("default")
    if typ == "bool" or isinstance(default, bool):
        return "bool"
    if typ == "int":
        return "int"
    if typ == "float":
        return "float"
    if typ == "choice":
        return "choice"
    if typ == "str":
        return "str"
    if typ == "mapping":
        return "mapping"
    return "any"


def _choices(row: dict | None) -> list[str]:
    bounds = str((row or {}).get("bounds") or "")
    return [c.strip() for c in bounds.split("|")] if "|" in bounds else (
        [bounds.strip()] if bounds.strip() else [])


def check_path(path: str, table: dict[str, dict], flag: str) -> dict | None:
    """The parameter row of ``path`` in ``table`` (dotted path -> row).

    Raises
    ------
    InputError
        An empty or unknown path (with the nearest known ones), naming ``flag``.
    """
    if not path:
        raise InputError("expected PATH=VALUES, e.g. exits.worthy_end_multiplier=2.0:3.0:0.25; "
                         "the path is empty", key=flag)
    if not table:
        return None
    if path in table:
        return table[path]
    if any(p.startswith(path + ".") for p in table):
        # a whole group (e.g. a die's faces, which must keep summing to six): its values
        # are YAML mappings, checked by the ruleset when each point is prepared
        return {"path": path, "type": "mapping", "default": None, "bounds": ""}
    raise InputError(f"unknown parameter path '{path}'{nearest(path, table)}; "
                     "deepsim params RULESET lists every path", key=flag)


# --- values ---------------------------------------------------------------------------------

def format_value(value: Any) -> str:
    """A value as it is written after ``--set path=`` (YAML: ``2.25``, ``true``, ``[1, 2]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return f"{value:.1f}"
        return repr(value)
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    return text[:-4].strip() if text.endswith("\n...") else text.removesuffix("...").strip()


def _split_list(text: str) -> list[str]:
    """Split at top-level commas (a value may be a YAML list or mapping: ``[1, 2],[3, 4]``)."""
    items, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items]


def coerce_value(raw: Any, text: str, kind: str, row: dict | None, path: str, flag: str) -> Any:
    """Check one parsed value against the parameter's type; return it in that type."""
    def bad(expected: str) -> InputError:
        return InputError(f"'{path}' takes {expected}; got {text!r}", key=flag)

    if kind == "int":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise bad("an integer")
        if isinstance(raw, float):
            if not raw.is_integer():
                raise bad("an integer")
            raw = int(raw)
        return int(raw)
    if kind == "float":
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise bad("a number")
        if not math.isfinite(float(raw)):
            raise bad("a finite number")
        return float(raw)
    if kind == "bool":
        if not isinstance(raw, bool):
            raise bad("true or false")
        return raw
    if kind == "choice":
        choices = _choices(row)
        if str(raw) not in choices:
            raise InputError(f"'{path}' is one of {', '.join(choices)}; got {text!r}"
                             f"{nearest(str(raw), choices)}", key=flag)
        return str(raw)
    if kind == "str":
        return str(raw)
    if kind == "mapping" and not isinstance(raw, dict):
        raise bad("a mapping of its keys (e.g. {steel: 2, dread: 0, ...}), being a group of "
                  "parameters")
    return raw


def _parse_scalar(text: str, path: str, flag: str) -> Any:
    if not text:
        raise InputError(f"'{path}': an empty value in the list (two commas in a row, or a "
                         "trailing comma?)", key=flag)
    try:
        return parse_value(text)  # deepsim's bounded YAML loader; malformed -> the text
    except InputError as exc:
        raise InputError(f"'{path}': {exc.message}", key=flag) from None


def _decimal(text: str, path: str, flag: str, what: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise InputError(f"'{path}': the range's {what} {text.strip()!r} is not a number "
                         "(a range is LOW:HIGH:STEP, e.g. 2.0:3.0:0.25)", key=flag) from None
    if not value.is_finite():
        raise InputError(f"'{path}': the range's {what} must be a finite number, got "
                         f"{text.strip()!r}", key=flag)
    return value


def _parse_range(text: str, path: str, kind: str, flag: str) -> list:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise InputError(f"'{path}': a range is LOW:HIGH:STEP (e.g. 2.0:3.0:0.25), got "
                         f"{text!r}", key=flag)
    if kind in ("bool", "choice", "str", "mapping"):
        raise InputError(f"'{path}' is a {kind} parameter: list its values (e.g. "
                         f"{'true,false' if kind == 'bool' else 'a,b'}) instead of a range",
                         key=flag)
    low = _decimal(parts[0], path, flag, "LOW")
    high = _decimal(parts[1], path, flag, "HIGH")
    if len(parts) == 2:
        if kind != "int":
            raise InputError(f"'{path}': give the range a step, LOW:HIGH:STEP (e.g. "
                             f"{parts[0].strip()}:{parts[1].strip()}:0.25)", key=flag)
        step = Decimal(1)
    else:
        step = _decimal(parts[2], path, flag, "STEP")
    if step <= 0:
        raise InputError(f"'{path}': the range's step must be > 0, got {parts[2].strip()!r}",
                         key=flag)
    if low > high:
        raise InputError(f"'{path}': the range runs from {low} down to {high}; LOW must not "
                         "exceed HIGH", key=flag)
    n = int((high - low) / step) + 1
    if n > MAX_POINTS:
        raise InputError(f"'{path}': the range {text!r} has {n:,} values; at most "
                         f"{MAX_POINTS:,} grid points are allowed", key=flag)
    values = [low + i * step for i in range(n)]
    if kind == "int":
        if any(v != v.to_integral_value() for v in values):
            raise InputError(f"'{path}' is an integer parameter; the range {text!r} has "
                             "values that are not whole numbers", key=flag)
        return [int(v) for v in values]
    return [float(v) for v in values]


def parse_values(text: str, *, path: str, kind: str = "any", row: dict | None = None,
                 flag: str = "--param") -> list:
    """Parse VALUES: a list ``1,2`` or a range ``LOW:HIGH:STEP``.

    Parameters
    ----------
    text : str
        What follows ``PATH=``.
    path : str
        The parameter path (for messages).
    kind : str
        ``"int"``, ``"float"``, ``"bool"``, ``"choice"``, ``"str"`` or ``"any"``.
    row : dict, optional
        The parameter's row of ``ruleset.parameters()`` (choices of a ``choice``).
    flag : str
        The option named in errors.

    Returns
    -------
    list
        The values in the order given (a range: ascending), duplicates refused.

    Raises
    ------
    InputError
        Empty text, a malformed range, a step <= 0, LOW > HIGH, too many values, a
        duplicate, or a value of the wrong type.
    """
    text = text.strip()
    if not text:
        raise InputError(f"'{path}' has no values; give a list (1,2) or a range "
                         "(2.0:3.0:0.25)", key=flag)
    is_range = ":" in text and not text.startswith(("[", "{", "'", '"')) and "," not in text
    if is_range:
        values = _parse_range(text, path, kind, flag)
    else:
        values = [coerce_value(_parse_scalar(item, path, flag), item, kind, row, path, flag)
                  for item in _split_list(text)]
    seen = []
    for v in values:
        if any(type(v) is type(s) and v == s for s in seen):
            raise InputError(f"'{path}': the value {format_value(v)} is listed twice",
                             key=flag)
        seen.append(v)
    return values


def _split_param(text: str, flag: str, form: str, example: str) -> tuple[str, str]:
    if "=" not in text:
        raise InputError(f"expected {form} (e.g. {example}), got {text!r}", key=flag)
    path, values = text.split("=", 1)
    return path.strip(), values


def parse_param(text: str, table: dict[str, dict], flag: str = "--param") -> ParamSpec:
    """Parse one sweep ``--param PATH=VALUES`` against the parameter table.

    Raises
    ------
    InputError
        Missing ``=``, an unknown path (naming the nearest), or bad VALUES.
    """
    path, values = _split_param(text, flag, "PATH=VALUES",
                                "exits.worthy_end_multiplier=2.0:3.0:0.25")
    row = check_path(path, table, flag)
    kind = kind_of(row)
    return ParamSpec(path=path, values=tuple(parse_values(values, path=path, kind=kind,
                                                          row=row, flag=flag)), kind=kind)


def parse_search(text: str, table: dict[str, dict], flag: str = "--param") -> SearchSpace:
    """Parse one tune ``--param PATH=LOW:HIGH[:STEP]`` (or ``PATH=a,b,c`` for a choice).

    An integer parameter is searched over integers (step 1 unless given); a float
    parameter on the step's grid, or without a step on the grid of :func:`default_step`
    (1/100 of the range, rounded down to a power of ten, so tuned numbers stay round); a
    bool or choice parameter over its listed values.

    Raises
    ------
    InputError
        As :func:`parse_param`; also LOW >= HIGH, or a range for a bool/choice parameter.
    """
    path, values = _split_param(text, flag, "PATH=LOW:HIGH",
                                "lineages.gnoll.combat_claim_loot=0:2")
    row = check_path(path, table, flag)
    kind = kind_of(row)
    default = (row or {}).get("default")
    values = values.strip()
    if not values:
        raise InputError(f"'{path}' has no range; give LOW:HIGH (e.g. 0:2) or a list of "
                         "values (a,b,c)", key=flag)
    is_range = ":" in values and "," not in values and not values.startswith(("[", "{"))
    if kind == "mapping":
        raise InputError(f"'{path}' is a group of parameters; tune searches single "
                         "parameters (deepsim sweep takes whole groups)", key=flag)
    if not is_range:
        choices = parse_values(values, path=path, kind=kind, row=row, flag=flag)
        if not all(c is None or isinstance(c, (bool, int, float, str)) for c in choices):
            raise InputError(f"'{path}': tune chooses among single values (numbers, true/"
                             "false, names), not lists or mappings", key=flag)
        if len(choices) < 2:
            raise InputError(f"'{path}': give at least two values to choose from, or a "
                             "range LOW:HIGH", key=flag)
        return SearchSpace(path=path, kind=kind, choices=tuple(choices), default=default)
    if kind in ("bool", "choice", "str", "mapping"):
        raise InputError(f"'{path}' is a {kind} parameter: list the values to try (e.g. "
                         f"{'true,false' if kind == 'bool' else 'a,b'})", key=flag)
    parts = values.split(":")
    if len(parts) not in (2, 3):
        raise InputError(f"'{path}': expected LOW:HIGH or LOW:HIGH:STEP, got {values!r}",
                         key=flag)
    low = _decimal(parts[0], path, flag, "LOW")
    high = _decimal(parts[1], path, flag, "HIGH")
    step = _decimal(parts[2], path, flag, "STEP") if len(parts) == 3 else None
    if low >= high:
        raise InputError(f"'{path}': LOW must be below HIGH, got {values!r}", key=flag)
    if step is not None and step <= 0:
        raise InputError(f"'{path}': the step must be > 0, got {parts[2].strip()!r}", key=flag)
    if kind == "int":
        if low != low.to_integral_value() or high != high.to_integral_value() or (
                step is not None and step != step.to_integral_value()):
            raise InputError(f"'{path}' is an integer parameter; LOW, HIGH and STEP must be "
                             f"whole numbers, got {values!r}", key=flag)
        return SearchSpace(path=path, kind=kind, low=int(low), high=int(high),
                           step=int(step) if step is not None else 1, default=default)
    if step is not None and (high - low) % step != 0:
        raise InputError(f"'{path}': the step {parts[2].strip()} does not divide HIGH - LOW "
                         f"({high - low}); optuna needs HIGH on the step's grid", key=flag)
    if step is None:
        step = default_step(low, high)
    return SearchSpace(path=path, kind="float" if kind == "any" else kind, low=float(low),
                       high=float(high), step=float(step) if step is not None else None,
                       default=default)


def default_step(low: Decimal, high: Decimal) -> Decimal | None:
    """The step of a float range given without one: the power of ten at or below 1/100 of
    the range (``1.0:3.0`` -> ``0.01``), so tuned values stay round; ``None`` (continuous)
    when that step does not land on both ends."""
    width = high - low
    exponent = math.floor(math.log10(float(width) / 100))
    step = Decimal(1).scaleb(exponent)
    if low % step != 0 or high % step != 0:
        return None
    return step


# --- grids ----------------------------------------------------------------------------------

def build_grid(specs: list[ParamSpec], *, fixed: list[str] | None = None) -> list[dict]:
    """Every combination of the specs' values, the first ``--param`` varying slowest.

    Parameters
    ----------
    specs : list of ParamSpec
    fixed : list of str, optional
        ``--set`` overrides applied at every point; a path may not be both swept and set.

    Returns
    -------
    list of dict
        One ``{path: value}`` per grid point.

    Raises
    ------
    InputError
        No ``--param``, a path given twice, a path also in ``--set``, or more than
        :data:`MAX_POINTS` points.
    """
    if not specs:
        raise InputError("give at least one --param PATH=VALUES", key="--param")
    paths = [s.path for s in specs]
    dup = sorted({p for p in paths if paths.count(p) > 1})
    if dup:
        raise InputError(f"'{dup[0]}' is given by two --param options; give its values in one",
                         key="--param")
    set_paths = {o.split("=", 1)[0].strip() for o in fixed or [] if "=" in o}
    both = [p for p in paths if p in set_paths]
    if both:
        raise InputError(f"'{both[0]}' is both swept (--param) and fixed (--set); drop one",
                         key="--param")
    n = math.prod(len(s.values) for s in specs)
    if n > MAX_POINTS:
        raise InputError(f"the grid has {n:,} points; at most {MAX_POINTS:,} are allowed",
                         key="--param")
    return [dict(zip(paths, combo, strict=True))
            for combo in itertools.product(*(s.values for s in specs))]


def point_overrides(point: dict) -> list[str]:
    """``{path: value}`` as ``path=value`` strings for ``ruleset.prepare(overrides=...)``."""
    return [f"{path}={format_value(value)}" for path, value in point.items()]
