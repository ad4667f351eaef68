"""A ruleset's bot data (``bots.yaml``): its knobs with their bounds, and its styles.

Shared by every ruleset. The file has two blocks::

    knobs:                  # every knob the ruleset's bots read, in any order
      press_max: {type: int, low: 0, high: 8, doc: "Press Ons per turn at most"}
      press_risk: {type: float, low: 0, high: 1, default: 1, doc: "..."}
      random: {type: bool, search: false, doc: "1 = every decision uniform"}
    styles:                 # named knob settings a scenario's seats may use
      random: {baseline: true, doc: "uniform over the legal choices", random: 1}
      greedy: {doc: "presses on hard", press_max: 4, press_risk: 0.3}

A knob has a ``type`` (``int``, ``float`` or ``bool``: 0 or 1), bounds ``low`` and ``high``
(inclusive; a ``bool`` is always [0, 1]), a ``default`` used by styles that leave it out (0
unless given) and ``search`` (default true): whether a search over bot settings (a best
response, optuna) may move it. Every style value and every scenario knob override is
checked against the bounds (:meth:`BotData.check`); a style marked ``baseline: true``
exists as a yardstick (e.g. uniform random play), and balance reports leave its seats out
of their headlines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator

from deepsim.errors import InputError
from deepsim.params import load_yaml, nearest, validate

__all__ = ["BotData", "Knob", "Style", "fair_without_baseline", "load_bot_data",
           "split_baseline"]


class _KnobSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["int", "float", "bool"]
    low: float | None = None
    high: float | None = None
    default: float = 0.0
    search: bool = True
    doc: str = ""

    @model_validator(mode="after")
    def _bounds(self) -> _KnobSpec:
        if self.type == "bool":
            if (self.low, self.high) not in ((None, None), (0, 1)):
                raise ValueError("a bool knob is 0 or 1: leave out low and high")
            self.low, self.high = 0.0, 1.0
        if self.low is None or self.high is None:
            raise ValueError(f"an {self.type} knob needs both low and high")
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            raise ValueError(f"bounds must be finite numbers (got [{self.low}, {self.high}])")
        if self.low > self.high:
            raise ValueError(f"low {self.low:g} is above high {self.high:g}")
        if self.type in ("int", "bool") and not (self.low.is_integer()
                                                and self.high.is_integer()):
            raise ValueError(f"an {self.type} knob has whole-number bounds "
                             f"(got [{self.low:g}, {self.high:g}])")
        return self


class _BotFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    knobs: dict[str, _KnobSpec] = Field(min_length=1)
    styles: dict[str, dict[str, Any]] = Field(min_length=1)


@dataclass(frozen=True)
class Knob:
    """One knob of a ruleset's bots.

    Attributes
    ----------
    name : str
        The knob's name (a column of the kernel's knob table).
    type : {"int", "float", "bool"}
        ``int`` and ``bool`` values are whole numbers; ``bool`` is 0 or 1.
    low, high : float
        Inclusive bounds of every value a style or a scenario may give.
    default : float
        The value of a style that leaves the knob out.
    search : bool
        Whether a search over bot settings may move it (``random`` may not: it switches
        the heuristic off).
    doc : str
        What the knob does, in the ruleset's words.
    """

    name: str
    type: str
    low: float
    high: float
    default: float = 0.0
    search: bool = True
    doc: str = ""

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not a valid setting of this knob (None when it is)."""
        if isinstance(value, bool):
            value = float(value)
        if not isinstance(value, (int, float)) or isinstance(value, complex):
            return f"expected a number, got {value!r}"
        v = float(value)
        if math.isnan(v):
            return f"{self.name} is not a number (nan); give a number"
        if self.type in ("int", "bool") and not v.is_integer():
            what = "0 or 1" if self.type == "bool" else "a whole number"
            art = "an" if self.type == "int" else "a"
            return f"{self.name} is {art} {self.type} knob: expected {what}, got {v:g}"
        if not self.low <= v <= self.high:
            return (f"{self.name} {v:g} is outside its bounds [{self.low:g}, {self.high:g}] "
                    f"({self.type} knob)")
        return None

    def distribution(self):
        """The optuna distribution a search draws this knob from (bounds inclusive).

        Raises
        ------
        ValueError
            For a knob with ``search: false``.
        """
        import optuna
        if not self.search:
            raise ValueError(f"knob {self.name} is not searchable")
        if self.type == "bool":
            return optuna.distributions.CategoricalDistribution((0, 1))
        if self.type == "int":
            return optuna.distributions.IntDistribution(int(self.low), int(self.high))
        return optuna.distributions.FloatDistribution(self.low, self.high)


@dataclass(frozen=True)
class Style:
    """A named bot style: every knob's value, whether it is a baseline, what it is for."""

    name: str
    knobs: dict[str, float]
    baseline: bool = False
    doc: str = ""


@dataclass(frozen=True)
class BotData:
    """A ruleset's knobs (in the kernel's column order) and styles."""

    file: str
    knobs: dict[str, Knob]
    styles: dict[str, Style]

    def values(self) -> dict[str, dict[str, float]]:
        """``{style: {knob: value}}`` with every knob filled."""
        return {n: dict(s.knobs) for n, s in self.styles.items()}

    @property
    def baseline_styles(self) -> tuple[str, ...]:
        """Names of the styles marked ``baseline: true``, in file order."""
        return tuple(n for n, s in self.styles.items() if s.baseline)

    def searchable(self) -> list[Knob]:
        """The knobs a search may move (``search: true``), in column order."""
        return [k for k in self.knobs.values() if k.search]

    def check(self, given: dict[str, Any], *, file: str, key: str,
              lines: dict[str, int] | None = None) -> dict[str, float]:
        """Validate knob overrides (``{knob: value}``) against the bounds; return floats.

        ``key`` is the dotted path of the mapping in ``file`` (``seats.0.knobs``); ``lines``
        the file's ``{dotted key: line}`` table.

        Raises
        ------
        InputError
            An unknown knob (naming the nearest ones) or a value of the wrong type or out
            of its bounds, naming the file, line and key.
        """
        lines = lines or {}
        out = {}
        for name, value in given.items():
            path = f"{key}.{name}"
            line = lines.get(path) or lines.get(key)
            knob = self.knobs.get(str(name))
            if knob is None:
                raise InputError(f"unknown knob{nearest(name, self.knobs)}; known: "
                                 f"{', '.join(self.knobs)}", file=file, key=path, line=line)
            bad = knob.problem(value)
            if bad:
                raise InputError(f"{bad}; the bounds are in {_shown(self.file)}", file=file,
                                 key=path, line=line)
            out[str(name)] = float(value)
        return out

    def table(self) -> list[dict]:
        """One row per knob: name, type, bounds, default, searchable, each style's value."""
        rows = []
        for k in self.knobs.values():
            row = {"knob": k.name, "type": k.type, "low": k.low, "high": k.high,
                   "default": k.default, "search": k.search, "doc": k.doc}
            for s in self.styles.values():
                row[s.name] = s.knobs[k.name]
            rows.append(row)
        return rows


def _shown(path: str) -> str:
    """``path`` relative to the project (deepsim/rulesets/...) when it lies inside it."""
    root = Path(__file__).resolve().parent.parent
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


def load_bot_data(path: Path | str, knobs: tuple[str, ...]) -> BotData:
    """Read and check a ruleset's ``bots.yaml`` against the knob columns its kernel reads.

    Parameters
    ----------
    path : path
        The bot data file.
    knobs : tuple of str
        The kernel's knob columns, in order (``layout.KNOBS``); the file must describe
        exactly these.

    Raises
    ------
    InputError
        Malformed file, a knob missing from or unknown to the ``knobs:`` block, bad bounds,
        a style value of the wrong type or out of bounds, a non-boolean ``baseline``.
    """
    raw, lines = load_yaml(path)
    src = str(path)
    spec = validate(_BotFile, raw, source=src, lines=lines)
    missing = [k for k in knobs if k not in spec.knobs]
    if missing:
        raise InputError(f"the bots read knobs {', '.join(missing)}, which the knobs: block "
                         "does not describe (give each a type and bounds)", file=src,
                         key="knobs", line=lines.get("knobs"))
    extra = [k for k in spec.knobs if k not in knobs]
    if extra:
        raise InputError(f"unknown knob{nearest(extra[0], knobs)}; the bots read: "
                         f"{', '.join(knobs)}", file=src, key=f"knobs.{extra[0]}",
                         line=lines.get(f"knobs.{extra[0]}"))
    table = {}
    for name in knobs:
        k = spec.knobs[name]
        knob = Knob(name, k.type, float(k.low), float(k.high), float(k.default), k.search,
                    k.doc)
        bad = knob.problem(knob.default)
        if bad:
            raise InputError(f"default {bad}", file=src, key=f"knobs.{name}.default",
                             line=lines.get(f"knobs.{name}.default")
                             or lines.get(f"knobs.{name}"))
        table[name] = knob
    data = BotData(src, table, {})
    styles = {}
    for name, given in spec.styles.items():
        given = dict(given or {})
        baseline = given.pop("baseline", False)
        doc = given.pop("doc", "")
        if not isinstance(baseline, bool):
            raise InputError(f"baseline is true or false (got {baseline!r})", file=src,
                             key=f"styles.{name}.baseline",
                             line=lines.get(f"styles.{name}.baseline"))
        values = {k: knob.default for k, knob in table.items()}
        values.update(data.check(given, file=src, key=f"styles.{name}", lines=lines))
        styles[str(name)] = Style(str(name), values, baseline, str(doc))
    return BotData(src, table, styles)


def split_baseline(seats: pd.DataFrame, baseline: tuple[str, ...] | list[str],
                   column: str = "bot") -> tuple[pd.DataFrame, int]:
    """The seats of non-baseline bots with their fair share renormalised, and the number of
    baseline seat-games left out.

    Leaving baseline seats (uniform random play, a deliberately weak style) out of a
    balance headline keeps the bots' weakness from passing for a faction's. Among the seats
    kept, the fair share of a seat at player count n is the mean win of the kept seats at
    that count, so that the kept seats' fair shares add up to their wins and a win/fair
    ratio compares a faction with the average kept seat (with no seat left out at a
    player count, ``fair`` is unchanged there). See :func:`fair_without_baseline`.

    Parameters
    ----------
    seats : DataFrame
        One row per seat-game with ``column``, ``win``, ``fair`` and ``players``.
    baseline : sequence of str
        Bot labels that are baselines (a style with knob overrides, ``name*``, is not).
    column : str
        The bot column.

    Returns
    -------
    (DataFrame, int)
        The kept seats (a copy when anything changed) and the count left out.
    """
    if not baseline or column not in seats.columns or seats.empty:
        return seats, 0
    is_base = seats[column].astype(str).isin([str(b) for b in baseline]).to_numpy()
    left_out = int(is_base.sum())
    if left_out == 0:
        return seats, 0
    kept = seats.loc[~is_base].copy()
    if {"win", "fair", "players"} <= set(kept.columns):
        kept["fair"] = fair_without_baseline(seats, is_base)
    return kept, left_out


def fair_without_baseline(seats: pd.DataFrame, is_base) -> pd.Series:
    """Fair share of each kept (non-baseline) seat: the kept seats' mean win at its player
    count where some seat of that count was left out, else the seat's own ``fair``.

    Returns a float Series aligned with the kept rows of ``seats``.
    """
    import numpy as np
    is_base = np.asarray(is_base, dtype=bool)
    kept = seats.loc[~is_base]
    players = seats["players"].to_numpy()
    dropped_counts = set(np.unique(players[is_base]).tolist())
    mean_win = kept.groupby("players")["win"].mean()
    kp = kept["players"].to_numpy()
    new = kept["fair"].to_numpy(dtype=np.float64).copy()
    for n in dropped_counts:
        if n in mean_win.index:
            new[kp == n] = float(mean_win.loc[n])
    return pd.Series(new, index=kept.index, dtype=np.float64)
