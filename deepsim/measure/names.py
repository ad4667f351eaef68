"""The metric names of deepsim's metric language: one registry every command reads.

Each :class:`Metric` is one number of the balance report (:mod:`deepsim.report.metrics`),
computed the same way, with its unit. Shares are in percent (``%``) and differences of
shares in percentage points (``pp``) everywhere: ``check`` bounds, ``compare`` hypotheses
and output, ``sweep`` tables and parquet, ``tune`` objectives.

Kinds (how a value is computed from per-game sums ``Y`` (numerator), ``D`` (denominator)
and ``F`` (fair shares) over the selected rows; see :mod:`deepsim.measure.values`):

- ``share``: a 0/1 (or tie-fraction) value per selected row, ``sum Y / sum D``;
- ``mean``: a mean per selected row (or per game), ``sum Y / sum D``;
- ``ratio``: ``sum Y / sum D`` with a counted denominator (crews, rooms);
- ``win_ratio``: wins over the sum of fair shares (``x fair``);
- ``win_edge``: wins minus fair shares per seat-game (``pp``);
- ``spread``: the largest ``|win share - fair share|`` over the members of a group
  column (companies, Lineages, Callings, bot styles, the ruleset's factions) or over
  (player count, seat) for ``seat_advantage``;
- ``length_error``: ``|mean rounds - target|``;
- ``target_error``: ``|share - target|`` in ``pp``, the target a games column (a
  co-operative game's ``target``: ``victory_error``).

Any numeric seats column not named here is a mean per player-game (``turns``,
``press_ons``), any numeric games column a mean per game (``margin``, ``maw_steps``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from deepsim.report import metrics as M

__all__ = ["ALIASES", "FACTION", "METRICS", "Metric", "column_metric", "known_metrics_text"]

#: stands for the ruleset's faction column (``faction_spread``)
FACTION = "{faction}"


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


def _ended(df: pd.DataFrame) -> np.ndarray:
    """1 for a game with a result, 0 for an unresolved one (a safety cap stopped it)."""
    from deepsim.stats import unresolved_flags
    return (~unresolved_flags(df)).astype(np.float64)


def _unresolved(df: pd.DataFrame) -> np.ndarray:
    from deepsim.stats import unresolved_flags
    return unresolved_flags(df).astype(np.float64)


Kind = Literal["share", "mean", "ratio", "win_ratio", "win_edge", "spread", "length_error",
               "target_error"]


@dataclass(frozen=True)
class Metric:
    """One number of the balance report (see the module docstring for ``kind``).

    ``level``: ``seat`` (rows of the seats table; a group column and ``players`` select
    them) or ``game`` (rows of the games table; ``players`` selects them). A ``spread`` or
    ``length_error`` takes ``players`` only. Values and intervals are multiplied by
    ``scale`` (100 for percent). ``limits``: the range a value (in ``unit``) can take.
    ``spread_by``: the group column a spread is over (``FACTION``: the ruleset's faction
    column; ``"seat"``: (player count, seat) against 1/players).
    """

    name: str
    level: Literal["seat", "game"]
    kind: Kind
    unit: str
    scale: float
    columns: tuple[str, ...]
    num: Callable[[pd.DataFrame], np.ndarray] | None
    den: Callable[[pd.DataFrame], np.ndarray] | None
    text: str
    report: str
    aliases: tuple[str, ...] = ()
    limits: tuple[float, float] = (-math.inf, math.inf)
    any_of: bool = False  # ``columns`` are alternatives (one is enough), not all needed
    spread_by: str | None = None
    #: a per-game metric selected by a categorical games column (``outcome_share[outcome=
    #: clock]``): the share of games whose value is among the selected ones
    game_group: str | None = None

    @property
    def share_like(self) -> bool:
        """In percent or percentage points (bounds take a ``%`` / ``pp`` suffix)."""
        return self.unit in ("%", "pp")

    @property
    def groupable(self) -> bool:
        """Takes a group column in its brackets (``win_share[company=...]``)."""
        return (self.level == "seat" and self.kind not in ("spread", "length_error")
                or self.game_group is not None)

    @property
    def diff_unit(self) -> str:
        """The unit of a difference of two values (``pp`` for a share in ``%``)."""
        return "pp" if self.unit == "%" else self.unit


_PCT = (0.0, 100.0)
_PP = (-100.0, 100.0)
_NONNEG = (0.0, math.inf)


def _spread(name: str, by: str, what: str) -> Metric:
    cols = ("win", "fair") + (() if by == "seat" else (by,))
    if by == "seat":
        cols = ("win", "players", "seat")
    return Metric(name, "seat", "spread", "pp", 100.0, cols, None, None,
                  f"largest |win share - fair share| over {what}",
                  "win_share_table: |win_share - fair_share|" if by != "seat" else
                  "seat_advantage: |win_share - fair_share|", limits=(0.0, 100.0),
                  spread_by=by)


_M = [
    # per seat: select with a group column and players
    Metric("win_share", "seat", "share", "%", 100.0, ("win",), _col("win"), None,
           "win share: wins (a k-way tie for first counts 1/k) per seat-game",
           "win_share_table / seat_advantage: win_share", limits=_PCT),
    Metric("win_ratio", "seat", "win_ratio", "x fair", 1.0, ("win", "fair"), _col("win"),
           _col("fair"), "win share over the fair share (sum of 1/players over its games)",
           "win_share_table: ratio ('x fair')", ("ratio",), limits=_NONNEG),
    Metric("win_edge", "seat", "win_edge", "pp", 100.0, ("win", "fair"), _edge_num, None,
           "win share minus the fair share, in percentage points (seat advantage: "
           "win_edge[seat=1])", "seat_advantage: win_share - fair_share", limits=_PP),
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
    # spreads over the members of a group (players selects the games)
    _spread("faction_spread", FACTION, "the ruleset's factions (the members of its "
                                       "faction column: companies, sides, ...)"),
    _spread("company_spread", "company", "companies"),
    _spread("lineage_spread", "lineage", "Lineages"),
    _spread("calling_spread", "calling", "Callings"),
    _spread("bot_spread", "bot", "bot styles"),
    _spread("seat_advantage", "seat", "(player count, seat), against 1/players"),
    # per game: select with players
    Metric("rounds", "game", "mean", "rounds", 1.0, ("rounds",), _col("rounds"), None,
           "mean rounds per game", "game_length: mean", ("mean_rounds",), limits=_NONNEG),
    Metric("length_error", "game", "length_error", "rounds", 1.0, ("rounds",),
           _col("rounds"), None, "|mean rounds - target| (target: --target-rounds, default "
           "the report's claims.rounds_target)", "game_length: mean", limits=_NONNEG),
    # co-operative games (the party's one result: games columns won, target)
    Metric("victory", "game", "share", "%", 100.0, ("won",), _col("won"), _ended,
           "the party's win rate: games the party won per game with a result (a "
           "co-operative game; an unresolved game is left out)", "coop headline: win rate",
           ("party_win_rate",), limits=_PCT),
    Metric("victory_edge", "game", "mean", "pp", 100.0, ("won", "target"),
           lambda df: df["won"].to_numpy(dtype=np.float64)
           - df["target"].to_numpy(dtype=np.float64), _ended,
           "the party's win rate minus the designer's target, in percentage points (a "
           "co-operative game)", "coop headline: win rate - target", limits=_PP),
    Metric("victory_error", "game", "target_error", "pp", 100.0, ("won", "target"),
           _col("won"), _ended, "|the party's win rate - the designer's target|, in "
           "percentage points (a co-operative game; tune's objective toward the target)",
           "coop headline: |win rate - target|", limits=(0.0, 100.0)),
    Metric("outcome_share", "game", "share", "%", 100.0, ("outcome",), None, _ended,
           "share of the games with a result that end in the selected outcomes (a "
           "co-operative game's outcome codes: outcome_share[outcome=clock])",
           "coop: how games end", limits=_PCT, game_group="outcome"),
    Metric("truncated", "game", "share", "%", 100.0, ("truncated",), _positive("truncated"),
           None, "share of games a safety cap stopped (the ruleset's safety_caps: "
           "end.max_rounds, end.max_turns), adjudicated or not", "game_length: truncated",
           limits=_PCT),
    Metric("unresolved", "game", "share", "%", 100.0, ("truncated",), _unresolved, None,
           "share of games a safety cap stopped and no adjudication decided: no result, "
           "left out of every win share and of the draw share", "headline: unresolved",
           limits=_PCT),
    Metric("margin", "game", "mean", "Glory", 1.0, ("margin",), _col("margin"), None,
           "mean margin: winner's Glory minus the runner-up's", "margins: abs_mean",
           ("abs_mean",), limits=_NONNEG),
    Metric("margin_rel", "game", "mean", "%", 100.0, ("margin_rel",), _col("margin_rel"),
           None, "mean relative margin (margin over the winner's Glory)", "margins: rel_mean",
           ("rel_mean",), limits=_PCT),
    Metric("draw_share", "game", "share", "%", 100.0, ("winner_side", "n_winners"), _draw,
           _ended, "share of the games with a result that have no outright winner (a draw "
           "or a tie for first; an unresolved game is left out)",
           "draw_flags (games with winner_side -1 or n_winners > 1, unresolved ones left "
           "out)", ("draws",), limits=_PCT, any_of=True),
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
#: metric name -> Metric
METRICS: dict[str, Metric] = {m.name: m for m in _M}
#: an old or report-column name -> the metric name (accepted with a deprecation line)
ALIASES: dict[str, str] = {a: m.name for m in _M for a in m.aliases}

#: columns that are keys or labels, never a metric
NOT_METRICS = frozenset({"game", "seed", "seat", "players", "fair", "deal", "rotation", "win"})


def column_metric(name: str, level: Literal["seat", "game"]) -> Metric:
    """A numeric column that has no metric of its own: its mean per player-game (a seats
    column) or per game (a games column), t intervals (clusters when a game holds several
    selected rows)."""
    per = "player-game" if level == "seat" else "game"
    return Metric(name, level, "mean", f"per {per}", 1.0, (name,), _col(name), None,
                  f"mean {name} per {per} ({level}s column)", f"{level}s column {name}")


def known_metrics_text() -> str:
    """``'win_share (%), win_ratio (x fair), ...'``: every metric name with its unit."""
    return ", ".join(f"{m.name} ({m.unit})" for m in _M)
