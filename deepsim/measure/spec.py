"""The spelling of a metric, its group and its members, and the single numbers it names.

One grammar for every command (``check``'s ``metric:``, ``compare --metric``, ``sweep
--metric``, ``tune --objective``)::

    NAME                                  win_share, company_spread, rounds, turns
    NAME[KEY]                             every member of a group: one number each
    NAME[KEY=MEMBER]                      one member
    NAME[KEY=A|B|C]                       the listed members, one number each
    NAME[KEY=A+B+C]                       the listed members pooled into one number
    NAME[KEY!=A|B]                        every member but these, one number each
    NAME[KEY..., players=4]               and a player count (players, players=2|4, 4+5)

``KEY`` is a group column of the ruleset (its ``group_columns``, e.g. company, lineage,
calling, bot, seat; ``seat=1`` is the first seat) or ``players``. Per-game
metrics and spreads take ``players`` only. Member names match loosely (case, spaces, ``_``
and ``-``): ``win_share[company=wisp_wardancer]``.

Old spellings keep working with a deprecation line naming the new one: sweep's
``NAME:BY`` (``win_share:bot`` -> ``win_share[bot]``, ``ratio:BY`` -> ``win_ratio[BY]``,
``feel_bad:BY`` -> ``feel_bad_crew[BY]``, the per-crew rate sweep called ``feel_bad``),
``mean_rounds`` -> ``rounds`` and the report's column names (``fb_pg`` -> ``feel_bad``);
``check``'s ``by:`` / ``group:`` / ``exclude:`` / ``pool:`` / ``players:`` keys are read by
:mod:`deepsim.gate.expect`.

Amounts in a metric's unit (``check`` bounds, ``compare --sprt``): shares are in percent
and differences of shares in percentage points; ``55``, ``55%`` and ``55pp`` are all 55
points. A bare number that reads as a fraction (``0 < |x| < 1``, e.g. ``0.6``) is refused
for a share (write ``0.6%`` or ``60%``), and so is an amount outside the metric's range,
with the unit named (:func:`parse_amount`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import product
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from deepsim.errors import InputError
from deepsim.measure.names import (
    ALIASES,
    FACTION,
    METRICS,
    NOT_METRICS,
    Metric,
    column_metric,
    known_metrics_text,
)
from deepsim.params import nearest

#: the games columns a per-game metric is selected by (``Metric.game_group``)
METRIC_GAME_GROUPS = tuple(dict.fromkeys(m.game_group for m in METRICS.values()
                                         if m.game_group))

__all__ = [
    "Instance",
    "Selection",
    "Universe",
    "expand",
    "parse_amount",
    "parse_metric_spec",
    "player_counts",
    "resolve_metric",
    "split_terms",
    "target_of",
    "universe_from_frames",
]


Name = int | str


# --- the selection ------------------------------------------------------------------------

class Selection(BaseModel):
    """Which numbers: a metric, optionally per group (``by``/``group``) and player count.

    ``group``: ``None`` or ``'each'`` (every member), a name, or a list (each, or pooled
    with ``pool``); ``exclude``: members left out; ``players``: a count, a list (each, or
    pooled with ``players_pool``) or ``'each'``. ``notes``: deprecation lines of an old
    spelling.
    """

    model_config = ConfigDict(extra="forbid")

    metric: str
    by: str | None = None  # a group column of the ruleset: checked by expand()
    group: Name | list[Name] | None = None
    exclude: list[Name] = Field(default_factory=list)
    pool: bool = False
    players: int | list[int] | Literal["each"] | None = None
    players_pool: bool = False
    _notes: list[str] = PrivateAttr(default_factory=list)

    @property
    def notes(self) -> list[str]:
        """Deprecation lines of an old spelling (empty for the current one)."""
        return self._notes

    @field_validator("metric")
    @classmethod
    def _name(cls, value: str) -> str:
        value = str(value).strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\s*(\[.*\])?", value, flags=re.DOTALL):
            raise ValueError(f"expected a metric name (letters, digits, '_') or "
                             f"NAME[key=value, ...], got {value!r}")
        return value

    def checked(self) -> Selection:
        """Resolve an alias (adding a deprecation note) and check what a registered metric
        takes; an unregistered name is checked against the results' columns by
        :func:`expand`."""
        name = self.metric
        if name in ALIASES:
            self.notes.append(f"'{name}' is now called '{ALIASES[name]}'")
            self.metric = ALIASES[name]
        m = METRICS.get(self.metric)
        if m is not None and not m.groupable and (self.by or self.group is not None
                                                  or self.exclude or self.pool):
            what = "a spread over its own group" if m.kind == "spread" else \
                "a per-game number"
            raise ValueError(f"metric {m.name!r} is {what}: only 'players' selects it "
                             f"(e.g. {m.name}[players=4])")
        if self.by is None and (self.group is not None or self.exclude or self.pool):
            raise ValueError("'group', 'exclude' and 'pool' need 'by' (a group column of "
                             "the ruleset, e.g. company, faction, bot or seat)")
        return self

    @property
    def metric_obj(self) -> Metric | None:
        return METRICS.get(self.metric)

    def spelling(self) -> str:
        """This selection in the metric language (``win_ratio[calling=Wardancer]``)."""
        bits = []
        if self.by:
            if self.exclude:
                bits.append(f"{self.by}!={'|'.join(map(str, self.exclude))}")
            elif self.group is None or self.group == "each":
                bits.append(self.by)
            else:
                gs = self.group if isinstance(self.group, list) else [self.group]
                bits.append(f"{self.by}={('+' if self.pool else '|').join(map(str, gs))}")
        if self.players is not None:
            if self.players == "each":
                bits.append("players")
            elif isinstance(self.players, list):
                sep = "+" if self.players_pool else "|"
                bits.append(f"players={sep.join(map(str, self.players))}")
            else:
                bits.append(f"players={self.players}")
        return f"{self.metric}[{', '.join(bits)}]" if bits else self.metric


_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")
_LEGACY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


def _members(text: str, key: str, where: str) -> tuple[list[str], bool]:
    """``A|B`` -> ([A, B], each); ``A+B`` -> ([A, B], pooled)."""
    if "|" in text and "+" in text:
        raise InputError(f"{key}: list members with '|' (one number each) or '+' (pooled "
                         f"into one), not both, got {text!r}", key=where)
    sep = "+" if "+" in text else "|"
    parts = [p.strip() for p in text.split(sep)]
    if any(not p for p in parts):
        raise InputError(f"{key}: an empty member name in {text!r}", key=where)
    return parts, sep == "+"


def parse_metric_spec(text: str, *, key: str = "--metric",
                      group_columns: tuple[str, ...] | list[str] | None = None
                      ) -> Selection:
    """``'win_share[company=Dvergar Reaver, players=4]'`` -> :class:`Selection`.

    Also reads the old ``NAME:BY`` of ``sweep`` (a deprecation note names the new
    spelling). ``group_columns=None`` takes any key as a group column (checked later by
    :func:`expand` against the ruleset's).

    Raises
    ------
    InputError
        Malformed text, an unknown key (the known ones are listed), a key given twice, or
        a key the metric does not take.
    """
    cols = tuple(group_columns) if group_columns is not None else None
    raw = str(text or "")
    legacy = _LEGACY.match(raw)
    if legacy:
        name, by = legacy.group(1), legacy.group(2)
        new_name = {"ratio": "win_ratio", "feel_bad": "feel_bad_crew"}.get(name, name)
        new_name = ALIASES.get(new_name, new_name)
        if cols is not None and by not in cols + ("players",):
            raise InputError(f"unknown group '{by}' in metric {raw!r}; group by one of "
                             f"{', '.join(cols + ('players',))}"
                             f"{nearest(by, cols + ('players',))}", key=key)
        new = f"{new_name}[{by}]"
        sel = parse_metric_spec(new, key=key, group_columns=cols)
        sel.notes[:] = [f"'{raw}' is now written '{new}'"
                        + (" (feel_bad alone is now the per-player-game rate of check and "
                           "the report)" if name == "feel_bad" else "")]
        return sel
    m = _SPEC.match(raw)
    if not m:
        raise InputError(f"expected NAME or NAME[key=value, ...], e.g. 'rounds[players=4]', "
                         f"'win_share[company]' or 'win_share[company=Dvergar Reaver]', got "
                         f"{raw!r}", key=key)
    data: dict[str, Any] = {"metric": m.group(1)}
    seen: set[str] = set()
    for item in filter(None, (s.strip() for s in (m.group(2) or "").split(","))):
        op = "!=" if "!=" in item else "=" if "=" in item else ""
        k, _, v = item.partition(op) if op else (item, "", "")
        k, v = k.strip(), v.strip()
        if op and not v:
            raise InputError(f"expected key=value inside the brackets, got {item!r}",
                             key=key)
        if k in seen:
            raise InputError(f"'{k}' is given twice in {raw!r}", key=key)
        seen.add(k)
        if k == "players":
            if op == "!=":
                raise InputError("players takes a count or a list (players=2|4), not !=",
                                 key=key)
            if not op:
                data["players"] = "each"
                continue
            parts, pooled = _members(v, k, key)
            try:
                counts = [int(p) for p in parts]
            except ValueError:
                raise InputError(f"players: expected a player count, got {v!r}",
                                 key=key) from None
            data["players"] = counts[0] if len(counts) == 1 else counts
            data["players_pool"] = pooled and len(counts) > 1
        elif cols is None or k in cols:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                raise InputError(f"expected a group column or players as a key, got {k!r}",
                                 key=key)
            if "by" in data:
                raise InputError(f"one group key only (got {data['by']} and {k})", key=key)
            data["by"] = k
            if op == "=":
                parts, pooled = _members(v, k, key)
                data["group"] = parts[0] if len(parts) == 1 else parts
                data["pool"] = pooled and len(parts) > 1
            elif op == "!=":
                parts, pooled = _members(v, k, key)
                if pooled:
                    raise InputError(f"{k}!=...: list the members to leave out with '|' "
                                     f"(e.g. {k}!={'|'.join(parts)})", key=key)
                data["exclude"] = parts
        else:
            raise InputError(f"unknown key {k!r}{nearest(k, cols + ('players',))}; "
                             f"expected one of {', '.join(cols)} or players", key=key)
    try:
        return Selection.model_validate(data).checked()
    except (ValidationError, ValueError) as exc:  # one readable line
        msg = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise InputError(msg.removeprefix("Value error, "), key=key) from None


def split_terms(text: str) -> list[str]:
    """Split ``'company_spread+0.5*win_share[bot=greedy+martyr]'`` at the ``+`` outside
    brackets."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "+" and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


# --- amounts in a metric's unit -----------------------------------------------------------

def parse_amount(value: Any, metric: Metric | None, what: str, *, difference: bool = False,
                 name: str | None = None) -> float:
    """A bound or hypothesis in the metric's unit.

    Shares are in percent and differences of shares in percentage points: ``55``,
    ``'55%'`` and ``'55pp'`` are 55. A bare number ``0 < |x| < 1`` for such a metric is
    refused as ambiguous (was ``0.6`` meant as 60%?); so is an amount outside the metric's
    range (``limits``; for a ``difference`` of two values, +- the range's width). Other
    units refuse a ``%`` suffix. ``metric=None``: not a registered metric (a column's mean,
    or an unknown ``name``).

    Raises
    ------
    ValueError
        With a message naming the unit.
    """
    share = metric is not None and metric.share_like
    unit = (metric.diff_unit if difference else metric.unit) if metric is not None else ""
    if isinstance(value, bool):
        raise ValueError(f"{what}: expected a number, got {value!r}")  # noqa: TRY004
    suffix = ""
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip()
        for s in ("pp", "%"):
            if text.lower().endswith(s):
                suffix, text = s, text[: -len(s)].strip()
                break
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{what}: expected a number, got {value!r}") from None
    if math.isnan(number):
        raise ValueError(f"{what}: expected a number, got {value!r}")
    if suffix and metric is None:
        shares = [k for k, v in METRICS.items() if v.share_like]
        raise ValueError(f"{what}: {value!r} is a percentage, but {name or 'this metric'!r} "
                         f"is not a share{nearest(str(name or ''), shares)}; shares and "
                         f"differences of shares: {', '.join(shares)}")
    if suffix and not share:
        raise ValueError(f"{what}: {value!r} is a percentage but this metric is in {unit}")
    if share and not suffix and 0.0 < abs(number) < 1.0:
        words = "percentage points" if unit == "pp" else "percent"
        raise ValueError(
            f"{what}: {value!r} is ambiguous: {metric.name} is in {words} (sixty is written "
            f"60 or 60{'pp' if unit == 'pp' else '%'}); write {number * 100:g}% if you mean "
            f"the fraction {number:g}, or {number:g}% if you mean {number:g} {words}")
    if metric is not None and not math.isinf(number):
        lo, hi = metric.limits
        if difference and not (math.isinf(lo) or math.isinf(hi)):
            lo, hi = -(hi - lo), hi - lo
        elif difference:
            lo, hi = -math.inf, math.inf
        if not lo <= number <= hi:
            rng = f"{lo:g} to {hi:g} {unit}".rstrip()
            raise ValueError(f"{what}: {value!r} is outside the range of "
                             f"{'a difference of ' if difference else ''}{metric.name} "
                             f"({rng}{'; shares are in percent' if share else ''})")
    return number


# --- what a scenario can select -----------------------------------------------------------

@dataclass
class Universe:
    """What a scenario can select: its player counts, each group column's names, the
    columns its games and seats frames have (empty: not known, not checked) and its
    faction column."""

    players: list[int]
    groups: dict[str, list[str]]
    group_columns: tuple[str, ...]
    faction_column: str
    games_columns: frozenset[str] = frozenset()
    seats_columns: frozenset[str] = frozenset()
    numeric_games: frozenset[str] = frozenset()
    numeric_seats: frozenset[str] = frozenset()


def _numeric(df: pd.DataFrame) -> frozenset[str]:
    return frozenset(c for c in df.columns
                     if (pd.api.types.is_numeric_dtype(df[c])
                         or pd.api.types.is_bool_dtype(df[c])) and c not in NOT_METRICS)


def universe_from_frames(games: pd.DataFrame, seats: pd.DataFrame, players: list[int],
                         group_columns: tuple[str, ...] | list[str],
                         faction_column: str) -> Universe:
    """Group names from a probe chunk's frames (categorical columns list every category).

    ``group_columns`` and ``faction_column``: the ruleset's (``Ruleset.group_columns``,
    ``Ruleset.faction_column``).
    """
    groups: dict[str, list[str]] = {}
    for col in METRIC_GAME_GROUPS:       # games columns a per-game metric is selected by
        if col in games.columns and isinstance(games[col].dtype, pd.CategoricalDtype):
            groups[col] = [str(c) for c in games[col].cat.categories]
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
                    seats_columns=frozenset(seats.columns), faction_column=faction_column,
                    numeric_games=_numeric(games), numeric_seats=_numeric(seats))


def target_of(ruleset) -> float:
    """``length_error``'s target for a ruleset: its ``target_rounds`` (the rulebook's game
    length), NaN when the rulebook states none."""
    t = ruleset.target_rounds
    return math.nan if t is None else float(t)


def player_counts(scenario: dict, seats: pd.DataFrame | None = None) -> list[int]:
    """The player counts a resolved scenario plays: its ``players`` (a count or a list), else
    those of the seats frame's ``players`` column (a ruleset with a fixed count)."""
    value = scenario.get("players")
    if value is None and seats is not None and "players" in seats.columns and len(seats):
        return sorted({int(p) for p in seats["players"].unique()})
    if value is None:
        return [2]
    return [int(c) for c in (value if isinstance(value, list) else [value])]


def resolve_metric(name: str, universe: Universe, where: dict) -> Metric:
    """The :class:`Metric` of ``name``: a registered one (its columns checked against the
    results), else a numeric seats or games column's mean.

    Raises
    ------
    InputError
        Unknown (the nearest names and the known metrics are listed), or a registered
        metric whose columns this ruleset's results do not have.
    """
    m = METRICS.get(name)
    if m is not None:
        if m.kind == "spread" and m.spread_by == FACTION:
            m = _with_columns(m, (universe.faction_column, "win", "fair"))
        _check_columns(m, universe, where)
        return m
    if name in universe.numeric_seats:
        return column_metric(name, "seat")
    if name in universe.numeric_games:
        return column_metric(name, "game")
    known = list(METRICS) + list(ALIASES)
    cols = sorted(universe.numeric_seats | universe.numeric_games)
    if name in universe.seats_columns or name in universe.games_columns:
        raise InputError(f"column {name!r} is not numeric; it groups (use it as a key: "
                         f"NAME[{name}=...]) or labels, it is not a metric", **where)
    raise InputError(f"unknown metric {name!r}{nearest(name, known + cols)}; known metrics: "
                     f"{known_metrics_text()}; or the mean of a numeric seats or games "
                     f"column" + (f" ({', '.join(cols[:12])}, ...)" if cols else ""), **where)


def _with_columns(m: Metric, columns: tuple[str, ...]) -> Metric:
    from dataclasses import replace

    return replace(m, columns=columns, spread_by=columns[0])


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
    """One number: a selection for one group set and one player-count set.

    ``groups``: the selected members of ``by`` (pooled when several; ``()`` = every
    seat); ``players``: the selected player counts (pooled when several; ``()`` = all).
    """

    position: int                 # index of its selection in the list given to expand()
    selection: Selection
    metric: Metric
    by: str | None
    groups: tuple[str, ...]
    players: tuple[int, ...] = ()
    lo: float = -math.inf
    hi: float = math.inf
    name: str | None = None
    auto: bool = False            # from an 'every member' expansion
    member: str = ""              # what varies within its selection (table label)
    target: float = math.nan      # length_error's target rounds
    extra: dict = field(default_factory=dict)

    @property
    def spec(self) -> str:
        """The number's full spelling: ``win_share[company=Dvergar Reaver, players=4]``."""
        bits = []
        if self.by:
            bits.append(f"{self.by}={'+'.join(self.groups)}")
        if self.players:
            bits.append(f"players={'+'.join(map(str, self.players))}")
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
           lines: dict[str, int] | None = None, key_prefix: str = "expect",
           target_rounds: float = math.nan, key: str | None = None) -> list[Instance]:
    """One :class:`Instance` per member set and player-count set of each selection.

    ``key``: the option every error names (e.g. ``--metric``) instead of a key path.
    ``target_rounds``: ``length_error``'s target (NaN: none, and ``length_error`` is refused).

    Raises
    ------
    InputError
        An unknown metric, group column, group name or player count (naming the known
        ones), or a key the metric does not take.
    """
    lines = lines or {}
    out: list[Instance] = []
    for i, sel in enumerate(selections):
        def where(sub: str, _i: int = i) -> dict:
            if key is not None:
                return {"file": source, "key": key}
            k = f"{key_prefix}.{_i}.{sub}" if key_prefix else sub
            if key_prefix and k not in lines and f"{key_prefix}.{_i}.metric" in lines:
                # the designer wrote it inside the metric's brackets, not as its own key
                k = f"{key_prefix}.{_i}.metric"
            return {"file": source, "key": k,
                    "line": lines.get(k) or lines.get(f"{key_prefix}.{_i}")}

        m = resolve_metric(sel.metric, universe, where("metric"))
        if m.kind == "length_error" and not math.isfinite(target_rounds):
            raise InputError("length_error is |mean rounds - target| and this ruleset's "
                             "rulebook states no game length (its target_rounds): give the "
                             "target with --target-rounds (sweep, tune)", **where("metric"))
        if not m.groupable and sel.by:
            what = "a spread over its own group" if m.kind == "spread" else \
                "a per-game number"
            raise InputError(f"metric {m.name!r} is {what}: only 'players' selects it "
                             f"(e.g. {m.name}[players={universe.players[0]}])", **where("by"))
        if sel.players is None:
            counts: list[tuple[int, ...]] = [()]
            p_auto = False
        else:
            asked = universe.players if sel.players == "each" else (
                sel.players if isinstance(sel.players, list) else [sel.players])
            bad = [p for p in asked if p not in universe.players]
            if bad:
                raise InputError(f"the scenario plays {', '.join(map(str, universe.players))} "
                                 f"players, not {', '.join(map(str, bad))}", **where("players"))
            asked = list(dict.fromkeys(asked))
            counts = [tuple(asked)] if sel.players_pool else [(p,) for p in asked]
            p_auto = len(counts) > 1
        if m.game_group is not None and sel.by is None:
            sel = sel.model_copy(update={"by": m.game_group})
        if m.game_group is not None and sel.by != m.game_group:
            raise InputError(f"metric {m.name!r} is selected by {m.game_group!r} (e.g. "
                             f"{m.name}[{m.game_group}=...]), not {sel.by!r}", **where("by"))
        if sel.by and m.groupable:
            if m.game_group is None and sel.by not in universe.group_columns:
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
            g_auto = len(sets) > 1
            auto = auto and not sel.pool
        else:
            sets, auto, g_auto = [()], False, False
        lo, hi = getattr(sel, "bounds", (-math.inf, math.inf))
        for p, g in product(counts, sets):
            member = []
            if g_auto:
                member.append("+".join(g))
            if p_auto:
                member.append(f"{'+'.join(map(str, p))}p")
            out.append(Instance(position=i, selection=sel, metric=m,
                                by=sel.by if g else None, groups=g, players=p, lo=lo, hi=hi,
                                name=getattr(sel, "name", None), auto=auto,
                                member=", ".join(member), target=target_rounds))
    return out
