"""Metrics of a sweep and objectives of a tune, built on the report's metric functions.

Every metric turns a run's ``games`` and ``seats`` frames into rows of
``(group, value, low, high, n)``: a point estimate with its 95% interval (``alpha``) and the
sample it rests on. Objectives are scalar metrics a tune minimises:

- ``faction_spread``: the largest ``|win share - fair share|`` over the ruleset's factions
  (its ``faction_column``: DEEPFALL's companies, Atlantis's sides), from
  :func:`deepsim.report.metrics.win_share_table`; ``company_spread``, ``lineage_spread``,
  ``calling_spread`` (DEEPFALL), ``bot_spread``: the same over companies (Lineages,
  Callings, bot styles), from
  :func:`deepsim.report.metrics.win_share_table`. Its interval runs from the largest
  distance between a group's Wilson interval and its fair share to the largest distance
  from an end of a group's interval to its fair share: it holds the true spread whenever
  every group's interval holds its true share (per-group 95% intervals, not simultaneous).
- ``seat_advantage``: the same over (player count, seat) from
  :func:`deepsim.report.metrics.seat_advantage`, against ``1/players``.
- ``draw_share``: the share of games without an outright winner (a draw, or a tie for
  first; :func:`deepsim.report.metrics.draw_flags`) with its Wilson interval.
- ``length_error``: ``|mean rounds - target|`` (target ``--target-rounds``, default the
  report's ``claims.rounds_target``), with the t interval of the mean
  (:func:`deepsim.report.metrics.mean_ci`) carried over.
- weighted sums: ``company_spread+0.5*seat_advantage``; the interval is the weighted sum of
  the terms' ends (conservative).

Sweep metrics add ``mean_rounds`` (alias ``rounds``), ``win_share:BY``, ``ratio:BY`` (win
share / fair share), ``feel_bad[:BY]`` (crews Taken without a Last Stand per crew,
:func:`deepsim.report.metrics.exit_usage`), and any numeric seats column as a mean per
player-game (``worthy_ends``, ``cash_outs:bot``, ``glory:lineage``) or games column as a mean
per game (``margin``, ``press_ons:players``), with t intervals (rows of one game are
treated as independent, so these intervals are slightly narrow).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from deepsim.errors import InputError
from deepsim.params import nearest
from deepsim.report import metrics as M
from deepsim.report.config import ReportConfig

__all__ = [
    "BY_COLUMNS",
    "DEFAULT_METRICS",
    "FACTION",
    "GENERIC_METRICS",
    "OBJECTIVES",
    "MetricSpec",
    "Objective",
    "by_columns_of",
    "calling_spread",
    "company_spread",
    "default_metrics_of",
    "default_objective",
    "draw_share",
    "evaluate_metric",
    "faction_column_of",
    "faction_spread",
    "group_spread",
    "length_error",
    "lineage_spread",
    "parse_metric",
    "parse_objective",
    "seat_advantage",
]

#: DEEPFALL's groups (the default); a ruleset's are its ``group_columns`` + ``players``
BY_COLUMNS = ("company", "lineage", "calling", "bot", "players", "seat")
DEFAULT_TARGET_ROUNDS = ReportConfig().rounds_target
#: DEEPFALL's default metrics; a sweep uses its ruleset's ``default_metrics``
DEFAULT_METRICS = ("company_spread", "lineage_spread", "calling_spread", "seat_advantage",
                   "mean_rounds")
#: default metrics of a ruleset that names none (and is not DEEPFALL)
GENERIC_METRICS = ("faction_spread", "draw_share", "seat_advantage", "mean_rounds")
#: stands for the ruleset's faction column in the column lists of :data:`OBJECTIVES`
FACTION = "{faction}"


def by_columns_of(ruleset) -> tuple[str, ...]:
    """What ``NAME:BY`` may group by: the ruleset's ``group_columns`` and ``players`` (before
    ``seat``); :data:`BY_COLUMNS` for DEEPFALL."""
    cols = [c for c in (getattr(ruleset, "group_columns", None) or BY_COLUMNS)
            if c != "players"]
    cols.insert(cols.index("seat") if "seat" in cols else len(cols), "players")
    return tuple(cols)


def default_metrics_of(ruleset) -> tuple[str, ...]:
    """The ruleset's ``default_metrics`` (:data:`GENERIC_METRICS` when it names none)."""
    own = getattr(ruleset, "default_metrics", None)
    return tuple(own) if own else GENERIC_METRICS


def faction_column_of(ruleset) -> str:
    """The ruleset's ``faction_column`` (``faction`` when it names none)."""
    return str(getattr(ruleset, "faction_column", None) or "faction")


@dataclass(frozen=True)
class Value:
    """A metric's estimate with its interval; ``note`` names e.g. the worst group."""

    value: float
    low: float
    high: float
    n: int
    note: str = ""


# --- objectives -----------------------------------------------------------------------------

def _spread(table: pd.DataFrame, label: Callable[[pd.Series], str]) -> Value:
    if table.empty:
        return Value(math.nan, math.nan, math.nan, 0)
    fair = table["fair_share"].to_numpy(dtype=np.float64)
    share = table["win_share"].to_numpy(dtype=np.float64)
    lo = table["ci_low"].to_numpy(dtype=np.float64)
    hi = table["ci_high"].to_numpy(dtype=np.float64)
    dist = np.abs(share - fair)
    near = np.maximum(0.0, np.maximum(lo - fair, fair - hi))
    far = np.maximum(np.abs(lo - fair), np.abs(hi - fair))
    k = int(np.nanargmax(dist))
    row = table.iloc[k]
    sign = "+" if share[k] >= fair[k] else "-"
    return Value(float(dist[k]), float(np.nanmax(near)), float(np.nanmax(far)),
                 int(table["games"].sum()), f"{label(row)} {sign}{dist[k] * 100:.2f} pts")


def group_spread(seats: pd.DataFrame, by: str, alpha: float = 0.05) -> Value:
    """Largest ``|win share - fair share|`` over the groups of ``by`` (e.g. ``company``)."""
    table = M.win_share_table(seats, by, alpha=alpha)
    return _spread(table, lambda row: str(row[by]))


def faction_spread(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05, *,
                   faction_column: str = "company", **_) -> Value:
    """Largest ``|win share - fair|`` over the ruleset's factions (``faction_column``)."""
    return group_spread(seats, faction_column, alpha)


def draw_share(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05, **_) -> Value:
    """Share of games without an outright winner, with its Wilson interval."""
    flags = M.draw_flags(games)
    n, k = int(flags.size), int(flags.sum())
    if n == 0:
        return Value(math.nan, math.nan, math.nan, 0)
    lo, hi = M.wilson(k, n, alpha)
    return Value(k / n, float(lo), float(hi), n, f"{k:,} of {n:,} games")


def company_spread(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05,
                   **_) -> Value:
    """Largest ``|win share - fair|`` over companies (Lineage + Calling)."""
    return group_spread(seats, "company", alpha)


def lineage_spread(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05,
                   **_) -> Value:
    """Largest ``|win share - fair|`` over Lineages."""
    return group_spread(seats, "lineage", alpha)


def calling_spread(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05,
                   **_) -> Value:
    """Largest ``|win share - fair|`` over Callings."""
    return group_spread(seats, "calling", alpha)


def bot_spread(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05, **_) -> Value:
    """Largest ``|win share - fair|`` over bot styles."""
    return group_spread(seats, "bot", alpha)


def seat_advantage(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05,
                   **_) -> Value:
    """Largest ``|win share - 1/players|`` over (player count, seat)."""
    table = M.seat_advantage(seats, alpha)
    return _spread(table, lambda row: f"{int(row['players'])}p seat {int(row['seat']) + 1}")


def length_error(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05, *,
                 target_rounds: float = DEFAULT_TARGET_ROUNDS, **_) -> Value:
    """``|mean rounds - target_rounds|`` with the mean's t interval carried over."""
    m, lo, hi = M.mean_ci(games["rounds"].to_numpy(), alpha)
    t = float(target_rounds)
    near = 0.0 if lo <= t <= hi else min(abs(lo - t), abs(hi - t))
    return Value(abs(m - t), near, max(abs(lo - t), abs(hi - t)), len(games),
                 f"mean {m:.2f} rounds vs target {t:g}")


def mean_rounds(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05, **_) -> Value:
    """Mean rounds per game with its t interval."""
    m, lo, hi = M.mean_ci(games["rounds"].to_numpy(), alpha)
    return Value(m, lo, hi, len(games))


#: name -> (function, seats columns, games columns, meaning)
OBJECTIVES: dict[str, tuple[Callable[..., Value], tuple[str, ...], tuple[str, ...], str]] = {
    "faction_spread": (faction_spread, (FACTION, "win", "fair"), (),
                       "max |win share - fair| over the ruleset's factions"),
    "draw_share": (draw_share, (), ("winner_side", "n_winners"),
                   "share of games without an outright winner (draws, ties for first)"),
    "company_spread": (company_spread, ("company", "win", "fair"), (),
                       "max |win share - fair| over companies"),
    "lineage_spread": (lineage_spread, ("lineage", "win", "fair"), (),
                       "max |win share - fair| over Lineages"),
    "calling_spread": (calling_spread, ("calling", "win", "fair"), (),
                       "max |win share - fair| over Callings"),
    "bot_spread": (bot_spread, ("bot", "win", "fair"), (),
                   "max |win share - fair| over bot styles"),
    "seat_advantage": (seat_advantage, ("players", "seat", "win"), (),
                       "max |win share - 1/players| over (players, seat)"),
    "length_error": (length_error, (), ("rounds",),
                     "|mean rounds - target| (--target-rounds)"),
}
_SCALARS = {**OBJECTIVES,
            "mean_rounds": (mean_rounds, (), ("rounds",), "mean rounds per game")}
_ALIASES = {"rounds": "mean_rounds"}


# --- sweep metrics --------------------------------------------------------------------------

@dataclass(frozen=True)
class MetricSpec:
    """A parsed ``--metric NAME[:BY]``."""

    text: str
    name: str
    kind: str  # "scalar", "win_share", "ratio", "feel_bad", "seats_mean", "games_mean"
    by: str | None = None
    seats_columns: tuple[str, ...] = ()
    games_columns: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.name if self.by is None else f"{self.name}:{self.by}"


def _cols(columns, faction_column: str) -> tuple[str, ...]:
    return tuple(faction_column if c == FACTION else c for c in columns)


def parse_metric(text: str, *, seats_columns: list[str], games_columns: list[str],
                 by_columns: tuple[str, ...] | list[str] = BY_COLUMNS,
                 faction_column: str = "company") -> MetricSpec:
    """Parse ``--metric NAME[:BY]`` given the columns a run of this ruleset writes, its
    group columns (``by_columns``: ``group_columns`` + ``players``) and faction column.

    Raises
    ------
    InputError
        Unknown name or BY (naming the nearest), BY on a metric that has none, or a
        non-numeric column.
    """
    by_cols = tuple(by_columns)
    raw = text.strip()
    name, _, by = raw.partition(":")
    name, by = _ALIASES.get(name.strip(), name.strip()), by.strip() or None
    if by is not None and by not in by_cols:
        raise InputError(f"unknown group '{by}' in metric {raw!r}; group by one of "
                         f"{', '.join(by_cols)}{nearest(by, by_cols)}", key="--metric")
    if name in _SCALARS:
        if by is not None:
            raise InputError(f"'{name}' is one number per grid point; drop ':{by}'",
                             key="--metric")
        _, scols, gcols, _ = _SCALARS[name]
        scols = _cols(scols, faction_column)
        missing = [c for c in scols if seats_columns and c not in seats_columns]
        if name == "draw_share":
            missing += [] if not games_columns or set(gcols) & set(games_columns) else [
                " or ".join(gcols)]
        else:
            missing += [c for c in gcols if games_columns and c not in games_columns]
        if missing:
            raise InputError(f"'{name}' reads the column(s) {', '.join(missing)}, which this "
                             "ruleset's results do not have", key="--metric")
        return MetricSpec(raw, name, "scalar", None, scols, gcols)
    if name in ("win_share", "ratio"):
        if by is None:
            raise InputError(f"'{name}' needs a group: {name}:BY with BY one of "
                             f"{', '.join(by_cols)} (e.g. {name}:bot)", key="--metric")
        return MetricSpec(raw, name, name, by, (by, "win", "fair", "players"))
    if name == "feel_bad":
        return MetricSpec(raw, name, "feel_bad", by, tuple(M.EXIT_COLUMNS)
                          + ((by,) if by else ()))
    if name in seats_columns and name not in by_cols + ("game",):
        return MetricSpec(raw, name, "seats_mean", by, (name,) + ((by,) if by else ()))
    if name in games_columns and name not in ("game", "seed"):
        if by not in (None, "players"):
            raise InputError(f"'{name}' is a per-game column; it can be grouped by players "
                             "only", key="--metric")
        return MetricSpec(raw, name, "games_mean", by, (), (name,) + ((by,) if by else ()))
    names = [*_SCALARS, *_ALIASES, "win_share", "ratio", "feel_bad", *seats_columns,
             *games_columns]
    raise InputError(f"unknown metric {name!r}{nearest(name, names)}; metrics: "
                     f"{', '.join([*_SCALARS, 'win_share:BY', 'ratio:BY', 'feel_bad[:BY]'])}"
                     ", or a numeric seats or games column (worthy_ends, cash_outs:bot, "
                     "margin, ...)", key="--metric")


def evaluate_metric(spec: MetricSpec, games: pd.DataFrame, seats: pd.DataFrame, *,
                    alpha: float = 0.05, target_rounds: float = DEFAULT_TARGET_ROUNDS,
                    faction_column: str = "company") -> list[tuple[str, Value]]:
    """``[(group, Value), ...]`` of one metric (group ``""`` for an ungrouped metric)."""
    if spec.kind == "scalar":
        fn = _SCALARS[spec.name][0]
        return [("", fn(games, seats, alpha, target_rounds=target_rounds,
                        faction_column=faction_column))]
    if spec.kind in ("win_share", "ratio"):
        table = M.win_share_table(seats, spec.by, alpha=alpha)
        table = table.sort_values(spec.by, key=_natural).reset_index(drop=True)
        out = []
        for row in table.itertuples(index=False):
            d = row._asdict()
            scale = d["fair_share"] if spec.kind == "ratio" else 1.0
            out.append((str(d[spec.by]), Value(d["win_share"] / scale, d["ci_low"] / scale,
                                               d["ci_high"] / scale, int(d["games"]))))
        return out
    if spec.kind == "feel_bad":
        table = M.exit_usage(seats, by=spec.by, alpha=alpha)
        key = spec.by or "group"
        return [(str(r[key]) if spec.by else "",
                 Value(float(r["fb_crew"]), float(r["fb_crew_low"]), float(r["fb_crew_high"]),
                       int(r["player_games"])))
                for _, r in table.sort_values(key, key=_natural).iterrows()]
    frame = seats if spec.kind == "seats_mean" else games
    col = frame[spec.name]
    if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
        raise InputError(f"column '{spec.name}' is not numeric", key="--metric")
    groups = ([("", frame)] if spec.by is None else
              [(str(k), d) for k, d in frame.groupby(spec.by, observed=True, sort=False)])
    out = []
    for key, d in sorted(groups, key=lambda kv: _natural_key(kv[0])):
        m, lo, hi = M.mean_ci(d[spec.name].to_numpy(dtype=np.float64), alpha)
        out.append((key, Value(m, lo, hi, len(d))))
    return out


def _natural_key(text: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def _natural(series: pd.Series) -> pd.Series:
    return series.astype(str).map(lambda s: tuple((0, int(t), "") if t.isdigit() else
                                                  (1, 0, t) for t in re.split(r"(\d+)", s)))


# --- tune objectives ------------------------------------------------------------------------

@dataclass(frozen=True)
class Objective:
    """A weighted sum of built-in objectives, e.g. ``company_spread+0.5*seat_advantage``."""

    text: str
    terms: tuple[tuple[float, str], ...]
    target_rounds: float = DEFAULT_TARGET_ROUNDS
    alpha: float = 0.05
    components: dict = field(default_factory=dict, compare=False)
    #: the ruleset's faction column (``faction_spread``)
    faction_column: str = "company"

    @property
    def seats_columns(self) -> set[str]:
        return ({c for _, n in self.terms for c in _cols(OBJECTIVES[n][1], self.faction_column)}
                | {"players", "seat"})

    @property
    def games_columns(self) -> set[str]:
        return {c for _, n in self.terms for c in OBJECTIVES[n][2]}

    def evaluate(self, games: pd.DataFrame, seats: pd.DataFrame
                 ) -> tuple[Value, dict[str, Value]]:
        """(the weighted sum, each term's Value)."""
        parts = {n: OBJECTIVES[n][0](games, seats, self.alpha,
                                     target_rounds=self.target_rounds,
                                     faction_column=self.faction_column)
                 for _, n in self.terms}
        value = low = high = 0.0
        for w, n in self.terms:
            v = parts[n]
            value += w * v.value
            a, b = w * v.low, w * v.high
            low += min(a, b)
            high += max(a, b)
        n = max((v.n for v in parts.values()), default=0)
        note = "; ".join(v.note for v in parts.values() if v.note)
        return Value(value, low, high, n, note), parts


    def bootstrap_change(self, before: tuple[pd.DataFrame, pd.DataFrame],
                         after: tuple[pd.DataFrame, pd.DataFrame], *, reps: int = 200,
                         seed: int = 0) -> dict:
        """Paired bootstrap of ``objective(after) - objective(before)``.

        Both runs must have played the same game indices from the same seed (common random
        numbers): each replicate gives every game index one Poisson(1) weight, used for
        that game in both runs, so the interval of the change is much narrower than the two
        runs' own intervals. Returns ``{"change", "low", "high", "p_not_better", "reps"}``
        (percentile interval at ``alpha``; ``p_not_better``: share of replicates where the
        change is >= 0).
        """
        ga, sa = before
        gb, sb = after
        n = int(max(ga["game"].max(), gb["game"].max())) + 1
        ia, ib = _Prepared(self, ga, sa), _Prepared(self, gb, sb)
        full = self.evaluate(gb, sb)[0].value - self.evaluate(ga, sa)[0].value
        rng = np.random.default_rng(seed)
        diffs = np.empty(reps)
        for r in range(reps):
            w = rng.poisson(1.0, n).astype(np.float64)
            diffs[r] = ib.value(w) - ia.value(w)
        lo, hi = np.quantile(diffs, [self.alpha / 2, 1 - self.alpha / 2])
        return {"change": float(full), "low": float(lo), "high": float(hi),
                "p_not_better": float((diffs >= 0).mean()), "reps": reps}


class _Prepared:
    """An objective's terms on one run as integer codes, for fast weighted re-evaluation."""

    def __init__(self, obj: Objective, games: pd.DataFrame, seats: pd.DataFrame):
        self.obj = obj
        self.terms = []
        s_game = seats["game"].to_numpy(dtype=np.int64)
        for w, name in obj.terms:
            if name == "length_error":
                self.terms.append((w, name, games["game"].to_numpy(dtype=np.int64),
                                   games["rounds"].to_numpy(dtype=np.float64), None, None))
                continue
            if name == "draw_share":
                self.terms.append((w, name, games["game"].to_numpy(dtype=np.int64),
                                   M.draw_flags(games).astype(np.float64), None, None))
                continue
            if name == "seat_advantage":
                key = (seats["players"].astype("int64") * 64 + seats["seat"].astype("int64"))
                fair = 1.0 / seats["players"].to_numpy(dtype=np.float64)
            else:
                key = seats[_SPREAD_BY.get(name, obj.faction_column)].astype(str)
                fair = seats["fair"].to_numpy(dtype=np.float64)
            codes, _ = pd.factorize(key)
            self.terms.append((w, name, s_game, seats["win"].to_numpy(dtype=np.float64),
                               codes.astype(np.int64), fair))

    def value(self, weights: np.ndarray) -> float:
        total = 0.0
        for w, name, game, x, codes, fair in self.terms:
            rw = weights[game]
            if codes is None:
                mean = float((x * rw).sum() / rw.sum())
                total += w * (mean if name == "draw_share" else
                              abs(mean - self.obj.target_rounds))
                continue
            k = int(codes.max()) + 1
            n = np.bincount(codes, weights=rw, minlength=k)
            wins = np.bincount(codes, weights=x * rw, minlength=k)
            fair_g = np.bincount(codes, weights=fair * rw, minlength=k)
            ok = n > 0
            total += w * float(np.max(np.abs(wins[ok] / n[ok] - fair_g[ok] / n[ok])))
        return total


_SPREAD_BY = {"company_spread": "company", "lineage_spread": "lineage",
              "calling_spread": "calling", "bot_spread": "bot"}

_TERM = re.compile(r"^\s*(?:([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*\*\s*)?([A-Za-z_]+)\s*$")


def default_objective(ruleset) -> str:
    """The objective a tune minimises when none is named: the first built-in objective among
    the ruleset's ``default_metrics`` (DEEPFALL: ``company_spread``), else
    ``faction_spread``."""
    for name in getattr(ruleset, "default_metrics", ()) or ():
        if name in OBJECTIVES:
            return name
    return "faction_spread"


def parse_objective(text: str, *, target_rounds: float = DEFAULT_TARGET_ROUNDS,
                    alpha: float = 0.05, faction_column: str = "company") -> Objective:
    """Parse ``--objective``: a name, or a weighted sum ``W*NAME + W*NAME``.

    Raises
    ------
    InputError
        Unknown name (the nearest is named), a malformed term, a zero weight or a name
        given twice.
    """
    raw = str(text).strip()
    if not raw:
        raise InputError(f"give an objective: {', '.join(OBJECTIVES)} or a weighted sum "
                         "such as faction_spread+0.5*seat_advantage", key="--objective")
    terms: list[tuple[float, str]] = []
    for part in raw.split("+"):
        m = _TERM.match(part)
        if not m:
            raise InputError(f"cannot read the term {part.strip()!r} of {raw!r}; write NAME or "
                             "WEIGHT*NAME, joined with '+' (e.g. company_spread+"
                             "0.5*seat_advantage)", key="--objective")
        weight = float(m.group(1)) if m.group(1) else 1.0
        name = m.group(2)
        if name not in OBJECTIVES:
            raise InputError(f"unknown objective {name!r}{nearest(name, OBJECTIVES)}; "
                             f"built-in: {', '.join(OBJECTIVES)}", key="--objective")
        if weight <= 0:
            raise InputError(f"the weight of {name} must be > 0", key="--objective")
        if any(n == name for _, n in terms):
            raise InputError(f"{name} appears twice in {raw!r}; add the weights",
                             key="--objective")
        terms.append((weight, name))
    if not math.isfinite(float(target_rounds)) or float(target_rounds) <= 0:
        raise InputError(f"expected a number of rounds > 0, got {target_rounds!r}",
                         key="--target-rounds")
    return Objective(raw, tuple(terms), float(target_rounds), alpha,
                     faction_column=faction_column)
