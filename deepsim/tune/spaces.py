"""Search spaces a ruleset declares in its data (``deepsim tune --space``).

Three kinds, read from :meth:`deepsim.rulesets.base.Ruleset.search_spaces` (never
open-ended; anything else only through an explicit ``--param``):

- ``readings``: per gap, its documented alternatives as named categories; an alternative is
  a set of overrides (the first is the ruleset's default reading);
- ``rounding``: each printed number searched continuously within the interval that rounds
  to it (``"2.5"`` -> [2.45, 2.55], half a unit of its last printed digit). When a chosen
  reading sets the same path (e.g. an "instead" multiplier 0.88 = 2.2 / 2.5), the
  continuous value scales that reading's value by ``value / printed``;
- ``placeholders``: ``bags``, compositions of ``dice`` with the bag size fixed (one weight
  in [0, 1] per die kind, turned into counts by the largest-remainder method, so every
  point is a valid bag of exactly ``size`` dice, at least one die), and ``floor_weights``,
  one weight per theme in ``[low, high]`` on a ``step`` grid. Every tuned bag or weight
  table sets its placeholder ``flag`` true: tuned data stays flagged placeholder.

Each :class:`Dim` maps optuna parameters to overrides; the baseline point (every dim at
its default) gives the ruleset's defaults exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from deepsim.errors import InputError
from deepsim.tune.grid import SearchSpace, format_value

__all__ = ["SPACE_NAMES", "Dim", "bag_counts", "build_spaces", "merge_overrides",
           "parse_space_option", "rounding_interval"]

SPACE_NAMES = ("readings", "rounding", "placeholders")


def parse_space_option(values: list[str] | None) -> list[str]:
    """``--space readings,rounding --space placeholders`` -> the names, in order.

    Raises
    ------
    InputError
        An unknown name (the valid ones listed).
    """
    out: list[str] = []
    for item in values or []:
        for name in str(item).split(","):
            name = name.strip()
            if not name:
                continue
            if name not in SPACE_NAMES:
                raise InputError(f"unknown search space {name!r}; expected one of "
                                 f"{', '.join(SPACE_NAMES)} (combine with commas, e.g. "
                                 "readings,rounding), or search a number with --param",
                                 key="--space")
            if name not in out:
                out.append(name)
    return out


@dataclass
class Dim:
    """One searched thing: a gap's reading, a printed number, a bag, a floor's weights or a
    ``--param``.

    ``params``: ``(optuna name, kind, spec)`` with kind ``cat`` (spec: choices), ``float``
    (spec: (low, high, step or None)) or ``int`` (spec: (low, high, step));
    ``default``: optuna values of the default point.
    """

    name: str
    space: str
    section: str
    params: list[tuple[str, str, Any]]
    default: dict
    kind: str
    data: dict = field(default_factory=dict)

    def suggest(self, trial) -> dict:
        out = {}
        for pname, kind, spec in self.params:
            if kind == "cat":
                out[pname] = trial.suggest_categorical(pname, list(spec))
            elif kind == "int":
                out[pname] = trial.suggest_int(pname, spec[0], spec[1], step=spec[2] or 1)
            else:
                out[pname] = trial.suggest_float(pname, spec[0], spec[1], step=spec[2])
        return out

    def value(self, values: dict) -> Any:
        """The dim's value at optuna ``values``: a reading's name, a number, a bag
        ``{die: count}`` or a weight list."""
        if self.kind == "reading":
            return values[self.name]
        if self.kind in ("rounding", "param", "pace"):
            return values[self.name]
        if self.kind == "bag":
            size = values.get(self.data.get("size_param", ""), self.data["size"])
            mix = [p for p, _, _ in self.params if p != self.data.get("size_param")]
            return bag_counts([values[p] for p in mix], self.data["dice"], int(size))
        if self.kind == "weights":
            return [float(values[p]) for p, _, _ in self.params]
        raise AssertionError(self.kind)

    def is_default(self, values: dict) -> bool:
        return self.value(values) == self.value(self.default)

    def describe(self, values: dict) -> str:
        v = self.value(values)
        if self.kind == "bag":
            return ", ".join(f"{d} {n}" for d, n in v.items() if n)
        if self.kind in ("rounding", "pace"):
            return f"{v:.4f} (printed {self.data['printed']})"
        return format_value(v) if not isinstance(v, str) else v

    def overrides(self, values: dict) -> dict:
        """``{path: value}`` for the ruleset at ``values`` (rounding dims: see
        :func:`merge_overrides`)."""
        v = self.value(values)
        if self.kind == "reading":
            return dict(self.data["alternatives"][v])
        if self.kind in ("rounding", "param"):
            return {self.data["path"]: v}
        if self.kind == "pace":
            return {}  # set by merge_overrides: it needs the readings' step counts
        if self.kind == "bag":
            out = {f"{self.data['path']}.{d}": int(v.get(d, 0)) for d in self.data["all_dice"]}
            out[self.data["flag"]] = True
            return out
        if self.kind == "weights":
            return {self.data["path"]: v, self.data["flag"]: True}
        raise AssertionError(self.kind)


def merge_overrides(dims: list[Dim], values: dict, table: dict | None = None) -> dict:
    """Every dim's overrides at ``values``; a rounding dim whose path a reading also set
    scales that reading's value by ``value / printed``.

    Pace dims (a printed count of floors a round read as the rounding of a continuous
    pace): when any is off its printed value, every step count they name is re-expressed
    at ``resolution`` steps per step of the reading (the per-floor count x resolution) and
    each paced count scaled by ``value / printed`` (rounded to a whole step): a pace of
    0.55 floors a round at the default 2 steps per floor and resolution 10 is
    ``steps_per_floor`` 20, ``steps_per_round`` round(10 x 0.55) = 6. At their printed
    values they leave the readings' (or the defaults') step counts exactly as they are.
    ``table``: the parameter table (defaults of step counts no reading set); needed only
    for pace dims."""
    out: dict = {}
    for d in dims:
        if d.kind not in ("rounding", "pace"):
            out.update(d.overrides(values))
    paced = [d for d in dims if d.kind == "pace"]
    if any(float(d.value(values)) != float(d.data["printed"]) for d in paced):
        def current(path):
            if path in out:
                return out[path]
            if table is None or path not in table:
                raise InputError(f"pace dim: no default for {path!r}", key="search")
            return table[path].get("default")
        for per in sorted({d.data["per"] for d in paced}):
            res = int(paced[0].data["resolution"])
            group = [d for d in paced if d.data["per"] == per]
            base = {d.data["path"]: current(d.data["path"]) for d in group}
            out[per] = int(current(per)) * res
            for d in group:
                x = float(d.value(values)) / float(d.data["printed"])
                out[d.data["path"]] = round(int(base[d.data["path"]]) * res * x)
    for d in dims:
        if d.kind == "rounding":
            path, x = d.data["path"], float(d.value(values))
            printed = float(d.data["printed"])
            prev = out.get(path)
            if isinstance(prev, (int, float)) and not isinstance(prev, bool) and \
                    prev != printed:
                out[path] = float(f"{prev * x / printed:.10g}")
            else:
                out[path] = float(f"{x:.10g}")
    return out


def bag_counts(weights: list[float], dice: list[str], size: int) -> dict[str, int]:
    """Counts of ``dice`` summing to ``size`` in proportion to ``weights`` (largest
    remainder; ties to the earlier die). All weights 0: equal weights. Every result is a
    valid bag: non-negative counts, exactly ``size`` >= 1 dice."""
    w = [max(float(x), 0.0) for x in weights]
    total = sum(w)
    if total <= 0:
        w, total = [1.0] * len(dice), float(len(dice))
    quotas = [x / total * size for x in w]
    counts = [math.floor(q + 1e-9) for q in quotas]
    left = size - sum(counts)
    order = sorted(range(len(dice)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in order[:max(left, 0)]:
        counts[i] += 1
    return {d: int(c) for d, c in zip(dice, counts, strict=True)}


def rounding_interval(printed: str) -> tuple[float, float]:
    """The interval of numbers that round to ``printed`` at its printed precision:
    ``"2.5"`` -> (2.45, 2.55), ``"1.25"`` -> (1.245, 1.255), ``"3"`` -> (2.5, 3.5).

    Raises
    ------
    InputError
        ``printed`` is not a number.
    """
    try:
        d = Decimal(str(printed).strip())
    except InvalidOperation:
        raise InputError(f"printed number {printed!r} is not a number",
                         key="rounding") from None
    exp = d.as_tuple().exponent
    half = Decimal(5) * Decimal(10) ** (exp - 1)
    return float(d - half), float(d + half)


def _table_default(table: dict, path: str):
    row = table.get(path)
    if row is None:
        raise InputError(f"the search data names {path!r}, not a parameter of this ruleset",
                         key="search")
    return row.get("default")


def build_spaces(declared: dict, names: list[str], table: dict[str, dict]) -> list[Dim]:
    """The dims of the spaces ``names`` from a ruleset's declared ``search_spaces()``.

    Raises
    ------
    InputError
        A space the ruleset does not declare, or declared data naming an unknown parameter.
    """
    dims: list[Dim] = []
    for name in names:
        if not declared.get(name):
            have = ", ".join(k for k in SPACE_NAMES if declared.get(k)) or "none"
            raise InputError(f"this ruleset declares no {name!r} search space (declared: "
                             f"{have}); search numbers with --param", key="--space")
    if "readings" in names:
        for r in declared["readings"]:
            alts = {str(k): dict(v or {}) for k, v in r["alternatives"].items()}
            for ov in alts.values():
                for p in ov:
                    _table_default(table, p)
            first = next(iter(alts))
            gap = str(r["gap"])
            dims.append(Dim(gap, "readings", str(r.get("section", "")),
                            [(gap, "cat", tuple(alts))], {gap: first}, "reading",
                            {"alternatives": alts}))
    if "rounding" in names:
        for r in declared["rounding"]:
            if "pace" in r:
                path, per = str(r["pace"]), str(r["per"])
                _table_default(table, path)
                _table_default(table, per)
                lo, hi = rounding_interval(str(r["printed"]))
                name = f"{path} (pace)"
                dims.append(Dim(name, "rounding", str(r.get("section", "")),
                                [(name, "float", (lo, hi, None))],
                                {name: float(r["printed"])}, "pace",
                                {"path": path, "per": per, "printed": str(r["printed"]),
                                 "resolution": int(r.get("resolution", 10))}))
                continue
            path = str(r["path"])
            _table_default(table, path)
            lo, hi = rounding_interval(str(r["printed"]))
            dims.append(Dim(path, "rounding", str(r.get("section", "")),
                            [(path, "float", (lo, hi, None))],
                            {path: float(r["printed"])}, "rounding",
                            {"path": path, "printed": str(r["printed"])}))
    if "placeholders" in names:
        ph = declared["placeholders"]
        if "bags" in ph:
            b = ph["bags"]
            dice, size = list(b["dice"]), int(b["size"])
            for n in b["names"]:
                path = b["path"].format(name=n)
                dflt = {d: int(_table_default(table, f"{path}.{d}") or 0)
                        for d in b["all_dice"]}
                if sum(dflt.values()) != size or any(dflt[d] for d in dflt if d not in dice):
                    raise InputError(f"{path}: the default bag is not {size} dice of "
                                     f"{', '.join(dice)}", key="search")
                params = [(f"bag.{n}.{d}", "float", (0.0, 1.0, None)) for d in dice]
                default = {f"bag.{n}.{d}": dflt[d] / size for d in dice}
                data = {"dice": dice, "size": size, "path": path,
                        "all_dice": list(b["all_dice"]), "flag": b["flag"].format(name=n)}
                if b.get("sizes"):   # the bag's size searched beside its mix
                    lo_s, hi_s = (int(x) for x in b["sizes"])
                    if not 1 <= lo_s <= size <= hi_s:
                        raise InputError(f"{path}: bag sizes {lo_s}-{hi_s} must hold the "
                                         f"default size {size} (and be >= 1)", key="search")
                    params.append((f"bag.{n}.size", "int", (lo_s, hi_s, 1)))
                    default[f"bag.{n}.size"] = size
                    data["size_param"] = f"bag.{n}.size"
                dims.append(Dim(f"bag {n}", "placeholders", str(b.get("section", "")),
                                params, default, "bag", data))
        if "floor_weights" in ph:
            f = ph["floor_weights"]
            lo, hi, step = float(f["low"]), float(f["high"]), f.get("step")
            for n in f["names"]:
                path = f["path"].format(name=n)
                dflt = [float(x) for x in _table_default(table, path)]
                params = [(f"weights.{n}.{i}", "float",
                           (lo, hi, float(step) if step else None)) for i in range(len(dflt))]
                dims.append(Dim(f"floor {n} weights", "placeholders",
                                str(f.get("section", "")), params,
                                {p: v for (p, _, _), v in zip(params, dflt, strict=True)},
                                "weights", {"path": path, "flag": f["flag"]}))
    return dims


def param_dim(space: SearchSpace) -> Dim:
    """A ``--param`` search as a :class:`Dim`."""
    if space.categorical:
        spec: tuple = (space.path, "cat", tuple(space.choices))
    elif space.kind == "int":
        spec = (space.path, "int", (int(space.low), int(space.high), int(space.step or 1)))
    else:
        spec = (space.path, "float", (float(space.low), float(space.high), space.step))
    default = space.default if space.contains(space.default) else (
        space.choices[0] if space.categorical else space.low)
    return Dim(space.path, "param", "", [spec], {space.path: default}, "param",
               {"path": space.path})
