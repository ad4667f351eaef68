"""``--levers PATH[:STEP][,PATH[:STEP]...]``: the printed numbers a balance may change.

An item may narrow its bounds instead: ``PATH=LOW:HIGH[:STEP]`` (inside the schema's
bounds; the values a designer would print, e.g. ``goal.rounds=3:8``).

A lever is one numeric parameter of the ruleset's data (``deepsim params RULESET``), searched
on a printable grid inside its declared bounds:

- an integer parameter on the integers of its bounds (a step after the colon, e.g. ``:2``,
  must be a whole number);
- a float parameter on the grid of the step after the colon, else of the step the ruleset
  declares (:attr:`Ruleset.lever_steps`, ``{glob: step}``), else it is refused: a search on
  a continuous range finds numbers nobody prints.

A path may be a glob (``callings.*.worthy_end_multiplier``): each matching numeric
parameter is a lever. Placeholder data (``Prepared.placeholders``: numbers the rulebook
does not give) is refused unless ``include_placeholders``.

Bad levers raise :class:`~deepsim.errors.InputError` naming ``--levers``, the path and what
was expected: an unknown path (with the nearest), a parameter that is not a number, one
without both bounds, a step that does not divide the bounds, a grid of more than
:data:`MAX_GRID` values.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from deepsim.errors import InputError
from deepsim.params import nearest

__all__ = ["MAX_GRID", "Lever", "parse_bounds", "parse_levers"]

#: most values one lever's grid may have (a typo should not start a week's run)
MAX_GRID = 1000
FLAG = "--levers"

_BOUND = re.compile(r"^\s*(>=|>|<=|<)\s*(-?[0-9.eE+-]+)\s*$")


@dataclass(frozen=True)
class Lever:
    """One searched number: its path, default, kind (``int`` or ``float``), bounds, step and
    grid (ascending, the default included when it lies on it)."""

    path: str
    default: float | int
    kind: str
    low: float | int
    high: float | int
    step: float | int
    grid: tuple
    placeholder: bool = False
    section: str = ""

    def changes(self) -> tuple:
        """The grid without the default: the values that change this number."""
        return tuple(v for v in self.grid if v != self.default)

    def size(self, value) -> float:
        """How far ``value`` is from the default, in grid steps."""
        return abs(float(value) - float(self.default)) / float(self.step)

    def describe(self) -> str:
        return f"{_fmt(self.low)} .. {_fmt(self.high)} step {_fmt(self.step)}"


def _fmt(v) -> str:
    return str(int(v)) if isinstance(v, int) else f"{v:g}"


def parse_bounds(text: str) -> tuple[Decimal | None, Decimal | None]:
    """``">= 0, <= 10"`` (a parameter row's ``bounds``) -> (0, 10); a missing end is None.

    A strict bound (``> 0``) leaves that end out of the grid: it is returned as None, since
    the printable grid cannot start at an excluded value.
    """
    low = high = None
    for part in str(text or "").split(","):
        m = _BOUND.match(part)
        if not m:
            continue
        try:
            v = Decimal(m.group(2))
        except InvalidOperation:
            continue
        if m.group(1) == ">=":
            low = v
        elif m.group(1) == "<=":
            high = v
    return low, high


def _declared_step(ruleset, path: str) -> Decimal | None:
    for pattern, step in dict(getattr(ruleset, "lever_steps", {}) or {}).items():
        if fnmatch.fnmatchcase(path, str(pattern)):
            return Decimal(str(step))
    return None


def _is_placeholder(path: str, placeholders) -> bool:
    return any(path == p or path.startswith(str(p) + ".") or fnmatch.fnmatchcase(path, str(p))
               for p in placeholders or ())


def _split(text: str) -> list[tuple[str, str | None, str | None]]:
    """``PATH[:STEP]`` or ``PATH=LOW:HIGH[:STEP]`` items -> (path, step, range)."""
    out = []
    for item in str(text).split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            path, _, rng = item.partition("=")
            out.append((path.strip(), None, rng.strip()))
            continue
        path, sep, step = item.partition(":")
        out.append((path.strip(), step.strip() if sep else None, None))
    return out


def _range(path: str, text: str, low, high):
    """``LOW:HIGH[:STEP]`` inside the schema's bounds -> (low, high, step or None)."""
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise InputError(f"'{path}': a range is LOW:HIGH[:STEP] (e.g. {path}=1:8), got "
                         f"{text!r}", key=FLAG)
    try:
        lo, hi = Decimal(parts[0]), Decimal(parts[1])
        step = Decimal(parts[2]) if len(parts) == 3 else None
    except InvalidOperation:
        raise InputError(f"'{path}': the range {text!r} is not LOW:HIGH[:STEP] numbers",
                         key=FLAG) from None
    if not lo < hi:
        raise InputError(f"'{path}': LOW must be below HIGH, got {text!r}", key=FLAG)
    if (low is not None and lo < low) or (high is not None and hi > high):
        raise InputError(f"'{path}': the range {text} leaves its bounds "
                         f"({low if low is not None else '-inf'} .. "
                         f"{high if high is not None else 'inf'})", key=FLAG)
    return lo, hi, step


def parse_levers(texts: list[str] | str, table: dict[str, dict], *, ruleset=None,
                 placeholders=(), include_placeholders: bool = False) -> list[Lever]:
    """Parse ``--levers`` against the parameter table (``{path: row}`` of
    ``ruleset.parameters()``).

    Parameters
    ----------
    texts : list of str or str
        ``PATH[:STEP]`` items, comma-separated, the option repeatable.
    table : dict
        The ruleset's parameter rows by dotted path.
    ruleset : Ruleset, optional
        Read for its declared steps (``lever_steps``).
    placeholders : sequence of str
        Placeholder paths (``Prepared.placeholders``).
    include_placeholders : bool
        Allow placeholder data as levers (the patch then says so).

    Returns
    -------
    list of Lever
        In the order given (a glob's matches sorted), each path once.

    Raises
    ------
    InputError
        See the module docstring; ``key`` is ``--levers``.
    """
    items = []
    for t in [texts] if isinstance(texts, str) else list(texts or []):
        items += _split(t)
    if not items:
        raise InputError("give at least one lever: --levers PATH[:STEP][,PATH[:STEP]...] "
                         "(deepsim params RULESET lists the paths)", key=FLAG)
    levers: list[Lever] = []
    seen: set[str] = set()
    for pattern, step_text, range_text in items:
        if not pattern:
            raise InputError("a lever has an empty path", key=FLAG)
        if any(c in pattern for c in "*?["):
            paths = sorted(p for p in table if fnmatch.fnmatchcase(p, pattern))
            paths = [p for p in paths if str(table[p].get("type")) in ("int", "float")]
            if not paths:
                raise InputError(f"the glob '{pattern}' matches no numeric parameter"
                                 f"{nearest(pattern, table)}; deepsim params RULESET lists "
                                 "the paths", key=FLAG)
        else:
            if pattern not in table:
                raise InputError(f"unknown parameter path '{pattern}'{nearest(pattern, table)}"
                                 "; deepsim params RULESET lists the paths", key=FLAG)
            paths = [pattern]
        for path in paths:
            if path in seen:
                raise InputError(f"'{path}' is given twice", key=FLAG)
            seen.add(path)
            levers.append(_lever(path, table[path], step_text, ruleset, placeholders,
                                 include_placeholders, range_text))
    return levers


def _lever(path, row, step_text, ruleset, placeholders, include_placeholders,
           range_text=None) -> Lever:
    typ = str(row.get("type", ""))
    default = row.get("default")
    if typ not in ("int", "float") or isinstance(default, bool):
        raise InputError(f"'{path}' is not a number (type {typ or 'unknown'}, default "
                         f"{default!r}); a lever is an int or float parameter", key=FLAG)
    placeholder = _is_placeholder(path, placeholders)
    if placeholder and not include_placeholders:
        raise InputError(f"'{path}' is placeholder data (the rulebook gives no number); a "
                         "designer cannot print it: leave it out, or pass "
                         "--include-placeholders", key=FLAG)
    low, high = parse_bounds(row.get("bounds", ""))
    if range_text is not None:
        low, high, step = _range(path, range_text, low, high)
        step_text = None if step is None else str(step)
    if low is None or high is None:
        raise InputError(f"'{path}' has no bounds to search within (declared: "
                         f"{row.get('bounds') or 'none'}); expected both >= LOW and <= HIGH "
                         f"in the ruleset's schema, or a range: {path}=LOW:HIGH:STEP",
                         key=FLAG)
    if step_text is not None:
        try:
            step = Decimal(step_text)
        except InvalidOperation:
            raise InputError(f"'{path}': the step {step_text!r} is not a number", key=FLAG) \
                from None
        if not step.is_finite() or step <= 0:
            raise InputError(f"'{path}': the step must be > 0, got {step_text!r}", key=FLAG)
    else:
        step = _declared_step(ruleset, path)
        if step is None:
            if typ != "int":
                raise InputError(f"'{path}' is a float with no declared step; give one after "
                                 f"a colon (e.g. {path}:0.25) so the grid stays printable",
                                 key=FLAG)
            step = Decimal(1)
    if typ == "int" and step != step.to_integral_value():
        raise InputError(f"'{path}' is an integer parameter; its step must be a whole "
                         f"number, got {step}", key=FLAG)
    if typ == "int":
        low, high = low.to_integral_value(rounding="ROUND_CEILING"), \
            high.to_integral_value(rounding="ROUND_FLOOR")
    if (high - low) % step != 0:
        raise InputError(f"'{path}': the step {step} does not divide its bounds "
                         f"{low} .. {high} (expected a step on whose grid both ends lie)",
                         key=FLAG)
    n = int((high - low) / step) + 1
    if n > MAX_GRID:
        raise InputError(f"'{path}': {n:,} grid values from {low} to {high} step {step}; at "
                         f"most {MAX_GRID:,} (give a larger step after the colon)", key=FLAG)
    values = [low + i * step for i in range(n)]
    if typ == "int":
        grid = tuple(int(v) for v in values)
        return Lever(path, int(default), "int", int(low), int(high), int(step), grid,
                     placeholder, str(row.get("section", "")))
    grid = tuple(float(v) for v in values)
    return Lever(path, float(default), "float", float(low), float(high), float(step), grid,
                 placeholder, str(row.get("section", "")))
