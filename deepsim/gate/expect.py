"""A scenario's ``expect:`` block: the metric names, their selections and bounds, and each
metric's estimate with an interval.

The metric names are the balance report's (:mod:`deepsim.report.metrics`): every metric
below is one number of one of the report's tables, computed the same way, and its interval
comes from the report's own functions: Wilson score intervals (``M.wilson``, statsmodels)
for shares of independent trials, t intervals (``M.mean_ci``, statsmodels ``DescrStatsW``)
for means, and ratio-of-sums intervals with games as clusters (``M.ratio_of_sums``,
statsmodels WLS with HC1 covariance) whenever one game holds several of the counted seats
(e.g. two seats with the same bot style) or the denominator is itself counted (rooms,
crews). The report's own column names are accepted as aliases (``fb_pg`` = ``feel_bad``).

An expectation in YAML::

    expect:
      - name: every company is viable      # optional label
        metric: win_ratio                  # see METRICS (unknown names list the known ones)
        by: company                        # a group column of the ruleset (DEEPFALL: company,
                                           # lineage, calling, bot, seat; Atlantis: faction,
                                           # bot, seat)
        group: each                        # default: each group; or a name, or a list
        players: 4                         # optional: a player count, a list, or each
        within: [0.8, 1.25]                # or below: X, above: X (inclusive bounds)

One expectation with ``group: each`` or ``players: each`` (or a list) is one test per group
and player count; ``pool: true`` makes the listed groups (minus ``exclude``) one test.
Shares are in percent (``below: 1`` or ``below: 1%`` is 1%), ``win_edge`` in percentage
points, ``win_ratio`` in multiples of the fair share.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from deepsim.errors import InputError
from deepsim.params import nearest, validate
from deepsim.report import metrics as M
from deepsim.report.claims import FAILS, HOLDS, region_verdict

__all__ = [
    "FAIL", "GROUP_COLUMNS", "INCONCLUSIVE", "METRICS", "PASS", "Estimate", "Expectation",
    "Instance", "Metric", "Selection", "Universe", "estimate", "expand", "group_columns_of",
    "known_metrics_text", "observe", "parse_expect", "parse_metric_spec", "player_counts",
    "universe_from_frames", "verdict",
]

PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
#: DEEPFALL's group columns: the default where no ruleset is named. A ruleset's own are its
#: ``group_columns`` (see :mod:`deepsim.rulesets.base`), passed to :func:`universe_from_frames`
#: and :func:`parse_metric_spec`.
GROUP_COLUMNS = ("company", "lineage", "calling", "bot", "seat")


# --- the metrics ------------------------------------------------------------------------------

def _col(name: str) -> Callable[[pd.DataFrame], np.ndarray]:
    return lambda df: df[name].to_numpy(dtype=np.float64)


def _positive(name: str) -> Callable[[pd.DataFrame], np.ndarray]:
    return lambda df: (df[name].to_numpy(dtype=np.float64) > 0).astype(np.float64)


def _mid_taken(df: pd.DataFrame) -> np.ndarray:
    return (df["taken_no_stand"].to_numpy(dtype=np.float64)
            - df["taken_no_stand_final"].to_numpy(dtype=np.float64))


def _edge_num(df: pd.DataFrame) -> np.ndarray:
    return df["win"].to_numpy(dtype=np.float64) - df["fair"].to_numpy(dtype=np.float64)


def _draw(df: pd.DataFrame) -> np.ndarray:
    return M.draw_flags(df).astype(np.float64)


@dataclass(frozen=True)
class Metric:
    """One number of the balance report.

    ``kind`` says how it is estimated from per-game sums ``Y`` (numerator) and ``D``
    (denominator) over the selected rows: ``share`` (a 0/1 or tie-fraction per row: Wilson
    when a game holds at most one selected row, else games as clusters), ``mean`` (t
    interval, or clusters), ``ratio`` (sum Y / sum D, games as clusters), ``win_ratio`` (wins
    over the sum of fair shares) and ``win_edge`` (wins minus fair shares, per seat-game).
    Estimates and intervals are multiplied by ``scale`` (100 for percent).
    """

    name: str
    level: Literal["seat", "game"]
    kind: Literal["share", "mean", "ratio", "win_ratio", "win_edge"]
    unit: str
    scale: float
    columns: tuple[str, ...]
    num: Callable[[pd.DataFrame], np.ndarray]
    den: Callable[[pd.DataFrame], np.ndarray] | None
    text: str
    report: str
    aliases: tuple[str, ...] = ()
    limits: tuple[float, float] = (-math.inf, math.inf)  # the metric's possible range
    any_of: bool = False  # ``columns`` are alternatives (one is enough), not all needed


_PCT = (0.0, 100.0)
_NONNEG = (0.0, math.inf)
_M = [
    # per seat (select with by / group / players)
    Metric("win_share", "seat", "share", "%", 100.0, ("win",), _col("win"), None,
           "win share: wins (a k-way tie for first counts 1/k) per seat-game",
           "win_share_table / seat_advantage: win_share", limits=_PCT),
    Metric("win_ratio", "seat", "win_ratio", "x fair", 1.0, ("win", "fair"), _col("win"),
           _col("fair"), "win share over the fair share (sum of 1/players over its games)",
           "win_share_table: ratio ('x fair')", ("ratio",), limits=_NONNEG),
    Metric("win_edge", "seat", "win_edge", "pp", 100.0, ("win", "fair"), _edge_num, None,
           "win share minus the fair share, in percentage points (seat advantage: by: seat)",
           "seat_advantage: win_share - fair_share", limits=(-100.0, 100.0)),
    Metric("glory", "seat", "mean", "Glory", 1.0, ("glory",), _col("glory"), None,
           "mean final Glory per player-game", "swing: glory_mean", ("glory_mean",)),
    Metric("feel_bad", "seat", "share", "%", 100.0, ("taken_no_stand",),
           _positive("taken_no_stand"), None,
           "feel-bad rate: share of player-games with a crew Taken without a Last Stand",
           "exit_usage: fb_pg", ("fb_pg",), limits=_PCT),
    Metric("feel_bad_mid", "seat", "share", "%", 100.0,
           ("taken_no_stand", "taken_no_stand_final"),
           lambda df: (_mid_taken(df) > 0).astype(np.float64), None,
           "feel-bad rate mid-game (the final collapse of Floor 1 left out), per player-game",
           "exit_usage: fb_pg_mid", ("fb_pg_mid",), limits=_PCT),
    Metric("feel_bad_crew", "seat", "ratio", "%", 100.0, ("taken_no_stand", "crews"),
           _col("taken_no_stand"), _col("crews"),
           "crews Taken without a Last Stand per crew mustered", "exit_usage: fb_crew",
           ("fb_crew",), limits=_PCT),
    Metric("feel_bad_crew_mid", "seat", "ratio", "%", 100.0,
           ("taken_no_stand", "taken_no_stand_final", "crews"), _mid_taken, _col("crews"),
           "crews Taken without a Last Stand mid-game per crew mustered",
           "exit_usage: fb_crew_mid", ("fb_crew_mid",), limits=_PCT),
    *[Metric(c, "seat", "mean", "per player-game", 1.0, (c,), _col(c), None,
             f"{c.replace('_', ' ')} per player-game", f"exit_usage: {c}_pg", (f"{c}_pg",),
             limits=_NONNEG)
      for c in ("cash_outs", "last_stands", "worthy_ends", "crews")],
    # per game (select with players)
    Metric("rounds", "game", "mean", "rounds", 1.0, ("rounds",), _col("rounds"), None,
           "mean rounds per game", "game_length: mean", limits=_NONNEG),
    Metric("truncated", "game", "share", "%", 100.0, ("truncated",), _positive("truncated"),
           None, "share of games stopped by the round cap end.max_rounds",
           "game_length: truncated", limits=_PCT),
    Metric("margin", "game", "mean", "Glory", 1.0, ("margin",), _col("margin"), None,
           "mean margin: winner's Glory minus the runner-up's", "margins: abs_mean",
           ("abs_mean",), limits=_NONNEG),
    Metric("margin_rel", "game", "mean", "%", 100.0, ("margin_rel",), _col("margin_rel"),
           None, "mean relative margin (margin over the winner's Glory)", "margins: rel_mean",
           ("rel_mean",), limits=_PCT),
    Metric("draw_share", "game", "share", "%", 100.0, ("winner_side", "n_winners"), _draw,
           None, "share of games without an outright winner (a draw, e.g. Atlantis's turn "
           "cap, or a tie for first)", "draw_flags (Atlantis: side win shares, draw)",
           ("draws",), limits=_PCT, any_of=True),
    Metric("tie_share", "game", "share", "%", 100.0, ("margin",),
           lambda df: (df["margin"].to_numpy(dtype=np.float64) == 0).astype(np.float64), None,
           "share of games whose top two are level", "margins: ties", ("ties",), limits=_PCT),
    Metric("contested_share", "game", "ratio", "%", 100.0, ("rooms_contested", "rooms_scored"),
           _col("rooms_contested"), _col("rooms_scored"),
           "rooms with 2+ claimants at collapse over rooms scored",
           "contention: contested_share", limits=_PCT),
    Metric("markers_per_contested", "game", "ratio", "markers", 1.0,
           ("contested_markers", "rooms_contested"), _col("contested_markers"),
           _col("rooms_contested"), "control markers per contested room",
           "contention: markers_per_contested", limits=_NONNEG),
    Metric("cap_binds", "game", "share", "%", 100.0, ("deferred_steps",),
           _positive("deferred_steps"), None,
           "share of games where the one-floor-a-round cap holds a collapse back",
           "deferral: binds_share", ("binds_share",), limits=_PCT),
    Metric("taken_if_warned", "game", "ratio", "%", 100.0, ("taken_after_warning", "warned"),
           _col("taken_after_warning"), _col("warned"),
           "crews on the next floor to fall at the start of a round Taken that round",
           "warning_honesty: taken_if_warned", limits=_PCT),
]
#: metric name -> Metric (the report's names; aliases resolve through :data:`ALIASES`).
METRICS: dict[str, Metric] = {m.name: m for m in _M}
ALIASES: dict[str, str] = {a: m.name for m in _M for a in m.aliases}


def known_metrics_text() -> str:
    """``'win_share (%), win_ratio (x fair), ...'``: every metric name with its unit."""
    return ", ".join(f"{m.name} ({m.unit})" for m in _M)


def _unknown_metric(name: str) -> str:
    return (f"unknown metric {name!r}{nearest(name, list(METRICS) + list(ALIASES))}; known "
            f"metrics: {known_metrics_text()}")


# --- the expect: block ----------------------------------------------------------------------

Name = int | str


def _number(value: Any, unit: str, what: str) -> float:
    """A bound: a number, or ``'N%'`` for a metric in percent or percentage points."""
    if isinstance(value, bool):
        raise ValueError(f"{what}: expected a number, got {value!r}")  # noqa: TRY004
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    if text.endswith("%"):
        if unit not in ("%", "pp"):
            raise ValueError(f"{what}: {value!r} is a percentage but this metric is in {unit}")
        text = text[:-1].strip()
    try:
        out = float(text)
    except ValueError:
        raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if math.isnan(out):
        raise ValueError(f"{what}: expected a number, got {value!r}")
    return out


class Selection(BaseModel):
    """Which number: a metric, optionally per group (``by``/``group``) and player count."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    by: str | None = None  # a group column of the ruleset: checked by expand()
    group: Name | list[Name] | None = None
    exclude: list[Name] = Field(default_factory=list)
    pool: bool = False
    players: int | list[int] | Literal["each"] | None = None

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, value: str) -> str:
        value = ALIASES.get(value, value)
        if value not in METRICS:
            raise ValueError(_unknown_metric(value))
        return value

    @model_validator(mode="after")
    def _selection(self):
        m = METRICS[self.metric]
        if m.level == "game" and (self.by or self.group is not None or self.exclude
                                  or self.pool):
            raise ValueError(f"metric {m.name!r} is a per-game number: 'by', 'group', "
                             "'exclude' and 'pool' apply to per-seat metrics only (select "
                             "games with 'players')")
        if self.by is None and (self.group is not None or self.exclude or self.pool):
            raise ValueError("'group', 'exclude' and 'pool' need 'by' (a group column of "
                             "the ruleset, e.g. company, faction, bot or seat)")
        return self

    @property
    def metric_obj(self) -> Metric:
        return METRICS[self.metric]


class Expectation(Selection):
    """A selection with bounds: ``within: [lo, hi]``, or ``below``/``above`` (inclusive)."""

    name: str | None = None
    within: list[float | str] | None = None
    below: float | str | None = None
    above: float | str | None = None
    # filled by the validator: the bounds as numbers in the metric's unit
    _lo: float = PrivateAttr(-math.inf)
    _hi: float = PrivateAttr(math.inf)

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high) in the metric's unit; an open side is infinite."""
        return self._lo, self._hi

    @model_validator(mode="after")
    def _bounds(self):
        unit = METRICS[self.metric].unit
        if self.within is not None:
            if self.below is not None or self.above is not None:
                raise ValueError("give either 'within: [low, high]' or 'below'/'above', "
                                 "not both")
            if len(self.within) != 2:
                raise ValueError(f"'within' takes two numbers [low, high], got "
                                 f"{self.within!r}")
            lo, hi = (_number(v, unit, "within") for v in self.within)
        elif self.below is None and self.above is None:
            raise ValueError("no bound: give 'within: [low, high]', 'below: X' or "
                             "'above: X'")
        else:
            lo = _number(self.above, unit, "above") if self.above is not None else -math.inf
            hi = _number(self.below, unit, "below") if self.below is not None else math.inf
        if lo > hi:
            raise ValueError(f"empty bounds: low {lo:g} is above high {hi:g}")
        self._lo, self._hi = lo, hi
        return self


class ExpectBlock(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expect: list[Expectation] = Field(min_length=1)


def parse_expect(scenario: dict, *, source: str, lines: dict[str, int] | None = None
                 ) -> list[Expectation]:
    """Validate a scenario's ``expect:`` block.

    Raises
    ------
    InputError
        No block, or a problem naming the file, key path (``expect.2.metric``), line and
        what was expected; an unknown metric lists the known ones.
    """
    raw = scenario.get("expect")
    lines = lines or {}
    if raw is None:
        raise InputError("the scenario has no 'expect:' block; deepsim check needs one (a list "
                         "of expectations: metric, optional by/group/players, and within, "
                         "below or above)", file=source, key="expect")
    if isinstance(raw, dict):  # a single expectation given as a mapping
        raise InputError("expected a list of expectations (each item starts with '- '), got "
                         "a mapping", file=source, key="expect", line=lines.get("expect"))
    block = validate(ExpectBlock, {"expect": raw}, source=source, lines=lines)
    return list(block.expect)


_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")


def parse_metric_spec(text: str, *, key: str = "--metric",
                      group_columns: tuple[str, ...] | list[str] = GROUP_COLUMNS) -> Selection:
    """``'win_share[company=Dvergar Reaver, players=4]'`` -> :class:`Selection`.

    Keys inside the brackets: one of ``group_columns`` (the ruleset's; DEEPFALL: company,
    lineage, calling, bot, seat; Atlantis: faction, bot, seat), ``=`` a group name, and
    ``players``.

    Raises
    ------
    InputError
        Malformed text, an unknown key or metric (the known ones are listed).
    """
    m = _SPEC.match(text or "")
    if not m:
        raise InputError(f"expected NAME or NAME[key=value, ...], e.g. 'rounds[players=4]' or "
                         f"'win_share[company=Dvergar Reaver]', got {text!r}", key=key)
    data: dict[str, Any] = {"metric": m.group(1)}
    for item in filter(None, (s.strip() for s in (m.group(2) or "").split(","))):
        k, sep, v = (p.strip() for p in item.partition("="))
        if not sep or not v:
            raise InputError(f"expected key=value inside the brackets, got {item!r}", key=key)
        if k == "players":
            try:
                data["players"] = int(v)
            except ValueError:
                raise InputError(f"players: expected a player count, got {v!r}",
                                 key=key) from None
        elif k in group_columns:
            if "by" in data:
                raise InputError(f"one group key only (got {data['by']} and {k})", key=key)
            data["by"], data["group"] = k, v
        else:
            cols = tuple(group_columns)
            raise InputError(f"unknown key {k!r}{nearest(k, cols + ('players',))}; "
                             f"expected one of {', '.join(cols)} or players", key=key)
    try:
        return Selection.model_validate(data)
    except ValidationError as exc:  # one readable line
        raise InputError(exc.errors()[0]["msg"].removeprefix("Value error, "),
                         key=key) from None


# --- expectations -> single tests -----------------------------------------------------------

@dataclass
class Universe:
    """What a scenario can select: its player counts, each group column's names and the
    columns its games and seats frames have (empty: not known, not checked)."""

    players: list[int]
    groups: dict[str, list[str]]
    group_columns: tuple[str, ...] = GROUP_COLUMNS
    games_columns: frozenset[str] = frozenset()
    seats_columns: frozenset[str] = frozenset()


def universe_from_frames(games: pd.DataFrame, seats: pd.DataFrame, players: list[int],
                         group_columns: tuple[str, ...] | list[str] = GROUP_COLUMNS
                         ) -> Universe:
    """Group names from a probe chunk's frames (categorical columns list every category).

    ``group_columns``: the ruleset's (``Ruleset.group_columns``; default DEEPFALL's).
    """
    groups: dict[str, list[str]] = {}
    for by in group_columns:
        if by == "seat":
            groups[by] = [str(i + 1) for i in range(max(players))]
        elif by in seats.columns:
            col = seats[by]
            cats = (list(col.cat.categories) if isinstance(col.dtype, pd.CategoricalDtype)
                    else sorted(col.unique()))
            groups[by] = [str(c) for c in cats]
    return Universe(players=sorted(set(players)), groups=groups,
                    group_columns=tuple(group_columns), games_columns=frozenset(games.columns),
                    seats_columns=frozenset(seats.columns))


def group_columns_of(ruleset) -> tuple[str, ...]:
    """A ruleset object's ``group_columns`` (DEEPFALL's when it names none)."""
    return tuple(getattr(ruleset, "group_columns", None) or GROUP_COLUMNS)


def player_counts(scenario: dict, seats: pd.DataFrame | None = None) -> list[int]:
    """The player counts a resolved scenario plays: its ``players`` (a count or a list), else
    those of the seats frame's ``players`` column (a ruleset with a fixed count)."""
    value = scenario.get("players")
    if value is None and seats is not None and "players" in seats.columns and len(seats):
        return sorted({int(p) for p in seats["players"].unique()})
    if value is None:
        return [2]
    return [int(c) for c in (value if isinstance(value, list) else [value])]


def _check_columns(m: Metric, universe: Universe, where: dict) -> None:
    """Refuse a metric whose columns the ruleset's results do not have."""
    have = universe.games_columns if m.level == "game" else universe.seats_columns
    if not have:
        return
    missing = [c for c in m.columns if c not in have]
    if (m.any_of and len(missing) == len(m.columns)) or (not m.any_of and missing):
        what = " or ".join(m.columns) if m.any_of else ", ".join(missing)
        raise InputError(f"metric {m.name!r} reads the {m.level}s column(s) {what}, which "
                         "this ruleset's results do not have", **where)


def _norm(name: Any) -> str:
    return re.sub(r"[\s_\-]+", "", str(name).lower())


@dataclass
class Instance:
    """One single test: an expectation for one group set and one player count."""

    position: int                 # index of its expectation in the expect: list
    selection: Selection
    metric: Metric
    by: str | None
    groups: tuple[str, ...]       # group names (seat: '1' = first seat); () = every seat
    players: int | None
    lo: float = -math.inf
    hi: float = math.inf
    name: str | None = None
    auto: bool = False            # from a 'group: each' expansion

    @property
    def spec(self) -> str:
        bits = []
        if self.by:
            bits.append(f"{self.by}={'+'.join(self.groups)}")
        if self.players is not None:
            bits.append(f"players={self.players}")
        return f"{self.metric.name}[{', '.join(bits)}]" if bits else self.metric.name

    @property
    def bound_text(self) -> str:
        u = self.metric.unit
        if math.isinf(self.lo) and math.isinf(self.hi):
            return "-"
        if math.isinf(self.lo):
            return f"<= {self.hi:g} {u}"
        if math.isinf(self.hi):
            return f">= {self.lo:g} {u}"
        return f"in [{self.lo:g}, {self.hi:g}] {u}"

    @property
    def title(self) -> str:
        return self.name or self.metric.text


def _resolve_group(value: Any, names: list[str], by: str, where: dict) -> str:
    table = {_norm(n): n for n in names}
    hit = table.get(_norm(value))
    if hit is None:
        raise InputError(f"unknown {by} {value!r}{nearest(str(value), names)}; known: "
                         f"{', '.join(names)}", **where)
    return hit


def expand(selections: list[Selection], universe: Universe, *, source: str | None = None,
           lines: dict[str, int] | None = None, key_prefix: str = "expect") -> list[Instance]:
    """One :class:`Instance` per group set and player count of each expectation.

    Raises
    ------
    InputError
        A group name or player count the scenario does not have (naming the known ones).
    """
    lines = lines or {}
    out: list[Instance] = []
    for i, sel in enumerate(selections):
        def where(sub: str, _i: int = i) -> dict:
            k = f"{key_prefix}.{_i}.{sub}" if key_prefix else sub
            return {"file": source, "key": k,
                    "line": lines.get(k) or lines.get(f"{key_prefix}.{_i}")}

        m = METRICS[sel.metric]
        _check_columns(m, universe, where("metric"))
        if sel.players is None:
            counts: list[int | None] = [None]
        else:
            asked = universe.players if sel.players == "each" else (
                sel.players if isinstance(sel.players, list) else [sel.players])
            bad = [p for p in asked if p not in universe.players]
            if bad:
                raise InputError(f"the scenario plays {', '.join(map(str, universe.players))} "
                                 f"players, not {', '.join(map(str, bad))}", **where("players"))
            counts = list(dict.fromkeys(asked))
        if m.level == "seat" and sel.by:
            if sel.by not in universe.group_columns:
                cols = universe.group_columns
                raise InputError(f"unknown group column {sel.by!r}{nearest(sel.by, cols)}; "
                                 f"this ruleset's: {', '.join(cols)}", **where("by"))
            names = universe.groups.get(sel.by)
            if not names:
                raise InputError(f"the results have no {sel.by!r} column", **where("by"))
            auto = sel.group is None or sel.group == "each"
            if auto:
                chosen = list(names)
            else:
                given = sel.group if isinstance(sel.group, list) else [sel.group]
                chosen = [_resolve_group(g, names, sel.by, where("group")) for g in given]
            excl = {_resolve_group(g, names, sel.by, where("exclude")) for g in sel.exclude}
            chosen = [g for g in dict.fromkeys(chosen) if g not in excl]
            if not chosen:
                raise InputError("no group left to test after 'exclude'", **where("group"))
            sets = [tuple(chosen)] if sel.pool else [(g,) for g in chosen]
            auto = auto and not sel.pool
        else:
            sets, auto = [()], False
        lo, hi = sel.bounds if isinstance(sel, Expectation) else (-math.inf, math.inf)
        for p, g in product(counts, sets):
            out.append(Instance(position=i, selection=sel, metric=m, by=sel.by if g else None,
                                groups=g, players=p, lo=lo, hi=hi,
                                name=getattr(sel, "name", None), auto=auto))
    return out


# --- observations and estimates -------------------------------------------------------------

def columns_needed(instances: list[Instance]) -> tuple[list[str], list[str]]:
    """(games columns, seats columns) the instances read."""
    g_cols, s_cols = {"game", "players"}, {"game", "players"}
    for inst in instances:
        if inst.metric.level == "game":
            g_cols.update(inst.metric.columns)
        else:
            s_cols.update(inst.metric.columns)
            s_cols.add("fair")
            if inst.by:
                s_cols.add(inst.by)
    return sorted(g_cols), sorted(s_cols)


class _Codes:
    """Per-chunk cache: integer codes of each group column of the seats frame."""

    def __init__(self, seats: pd.DataFrame):
        self.seats = seats
        self._codes: dict[str, tuple[np.ndarray, dict[str, int]]] = {}

    def mask(self, by: str, groups: tuple[str, ...]) -> np.ndarray:
        if by == "seat":
            seat = self.seats["seat"].to_numpy() + 1
            return np.isin(seat, [int(g) for g in groups])
        if by not in self._codes:
            col = self.seats[by]
            if isinstance(col.dtype, pd.CategoricalDtype):
                codes = col.cat.codes.to_numpy()
                index = {str(c): i for i, c in enumerate(col.cat.categories)}
            else:
                codes_, uniq = pd.factorize(col.astype(str))
                codes, index = codes_, {str(c): i for i, c in enumerate(uniq)}
            self._codes[by] = (codes, index)
        codes, index = self._codes[by]
        wanted = [index[g] for g in groups if g in index]
        return np.isin(codes, wanted)


def observe(inst: Instance, games: pd.DataFrame, seats: pd.DataFrame,
            codes: _Codes | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game of ``games`` (in its row order): ``Y`` (the metric's numerator summed over the
    selected rows), ``D`` (its denominator: selected rows, or the metric's own) and ``F``
    (the selected rows' fair shares; win metrics).

    Games outside the selection have ``D == 0``.
    """
    m = inst.metric
    n = len(games)
    if m.level == "game":
        # a ruleset whose games table has no players column plays one count (checked by
        # expand against the scenario's)
        sel = np.ones(n, bool) if inst.players is None or "players" not in games.columns \
            else games["players"].to_numpy() == inst.players
        num = m.num(games)
        den = m.den(games) if m.den is not None else np.ones(n)
        return np.where(sel, num, 0.0), np.where(sel, den, 0.0), np.zeros(n)
    sel = np.ones(len(seats), bool)
    if inst.players is not None:
        sel &= seats["players"].to_numpy() == inst.players
    if inst.by:
        sel &= (codes or _Codes(seats)).mask(inst.by, inst.groups)
    pos = np.searchsorted(games["game"].to_numpy(), seats["game"].to_numpy())
    w = sel.astype(np.float64)
    y = np.bincount(pos, weights=m.num(seats) * w, minlength=n)
    den = m.den(seats) if m.den is not None and m.kind != "win_ratio" else None
    d = np.bincount(pos, weights=(den * w) if den is not None else w, minlength=n)
    f = (np.bincount(pos, weights=seats["fair"].to_numpy(dtype=np.float64) * w, minlength=n)
         if m.kind in ("win_ratio", "win_edge") else np.zeros(n))
    return y, d, f


@dataclass
class Estimate:
    """A metric's value and interval (in the metric's unit) over ``clusters`` games holding
    ``units`` of its denominator (seat-games, games, crews, rooms...)."""

    value: float
    low: float
    high: float
    units: float
    clusters: int
    method: str

    @property
    def width(self) -> float:
        return self.high - self.low


def _fair_constant(f: np.ndarray, d: np.ndarray) -> float | None:
    """The single fair share when every kept game holds one selected seat of one player
    count (then win ratio = Wilson / fair, as the report computes it)."""
    if d.size and np.all(d == 1) and np.ptp(f) < 1e-12:
        return float(f[0])
    return None


def estimate(metric: Metric, y: np.ndarray, d: np.ndarray, f: np.ndarray,
             alpha: float) -> Estimate:
    """The metric over the games with ``D > 0``, with a ``1 - alpha`` interval clipped to the
    metric's possible range (see :func:`_estimate`)."""
    est = _estimate(metric, y, d, f, alpha)
    lo, hi = metric.limits
    if not math.isnan(est.low):
        est.low, est.high = max(est.low, lo), min(est.high, hi)
    return est


def _estimate(metric: Metric, y: np.ndarray, d: np.ndarray, f: np.ndarray,
              alpha: float) -> Estimate:
    """The metric over the games with ``D > 0``, with a ``1 - alpha`` interval.

    Methods (all from :mod:`deepsim.report.metrics`): Wilson when each game holds at most one
    selected row of a 0/1 (or tie-fraction) value; t interval of a mean likewise; otherwise
    the ratio of sums with games as clusters (HC1). An empty selection gives NaN.
    """
    keep = d > 0
    y, d, f = y[keep], d[keep], f[keep]
    n = int(keep.sum())
    s = metric.scale
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0.0, 0, "no data")
    units = float(d.sum())
    single = bool(np.all(d == 1))
    kind = metric.kind
    if kind == "share" and single:
        lo, hi = M.wilson(float(y.sum()), float(n), alpha)
        return Estimate(s * float(y.sum()) / n, s * lo, s * hi, units, n, "Wilson")
    if kind == "mean" and single:
        est, lo, hi = M.mean_ci(y, alpha)
        return Estimate(s * est, s * lo, s * hi, units, n, "t")
    if kind in ("win_ratio", "win_edge"):
        c = _fair_constant(f, d)
        if c is not None:
            lo, hi = M.wilson(float(y.sum()) if kind == "win_ratio" else float(y.sum() + f.sum()),
                              float(n), alpha)
            if kind == "win_ratio":
                return Estimate(float(y.sum()) / n / c, lo / c, hi / c, units, n,
                                "Wilson / fair")
            w = float(y.sum() + f.sum()) / n
            return Estimate(s * (w - c), s * (lo - c), s * (hi - c), units, n,
                            "Wilson - fair")
        if kind == "win_ratio":
            est, lo, hi = M.ratio_of_sums(y, f, alpha)
            return Estimate(est, lo, hi, units, n, "ratio of sums (games as clusters)")
    est, lo, hi = M.ratio_of_sums(y, d, alpha)
    return Estimate(s * est, s * lo, s * hi, units, n, "ratio of sums (games as clusters)")


def verdict(inst: Instance, est: Estimate) -> str:
    """pass when the interval lies inside the bounds, fail when it lies outside, else
    inconclusive (:func:`deepsim.report.claims.region_verdict`, the report's rule).

    A zero-width interval from a normal approximation (no variation seen yet) decides
    nothing.
    """
    if est.clusters == 0 or (est.width == 0 and not est.method.startswith("Wilson")):
        return INCONCLUSIVE
    v = region_verdict(est.low, est.high, inst.lo, inst.hi)
    return PASS if v == HOLDS else FAIL if v == FAILS else INCONCLUSIVE
