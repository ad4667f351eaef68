"""Sweep metrics and tune objectives, in deepsim's metric language (:mod:`deepsim.measure`).

A sweep ``--metric`` is any spelling of the language: one number (``company_spread``,
``win_share[company=Wisp Wardancer]``, ``rounds[players=4]``) or one per member
(``win_share[bot]``, ``rounds[players]``), each with its value, 95% interval and, at every
grid point, its paired change from the baseline point (:mod:`deepsim.tune.sweep`).

A tune ``--objective`` is a weighted sum of single numbers the tune minimises, e.g.
``company_spread+0.5*seat_advantage`` or ``faction_spread+win_share[bot=random]``. Its
interval is the weighted sum of the terms' interval ends (conservative), and the change
between the defaults and the best point on the confirmation games gets a paired bootstrap
interval (each replicate weights a game, or a deal of rotated seats, alike in both runs).

Values are in each metric's unit: shares and spreads in percent / percentage points,
``win_ratio`` in multiples of the fair share, ``rounds`` and ``length_error`` in rounds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from deepsim.errors import InputError
from deepsim.measure.names import ALIASES
from deepsim.measure.spec import (
    Instance,
    Selection,
    Universe,
    expand,
    parse_metric_spec,
    player_counts,
    split_terms,
    universe_from_frames,
)
from deepsim.measure.values import (
    Codes,
    Obs,
    columns_needed,
    estimate_obs,
    measure,
    value_obs,
)

__all__ = [
    "MetricSpec", "Objective", "Value", "default_metrics_of", "parse_metric",
    "parse_objective", "probe_universe",
]


def default_metrics_of(ruleset) -> tuple[str, ...]:
    """The ruleset's ``default_metrics``, old names translated."""
    return tuple(ALIASES.get(m, m) for m in ruleset.default_metrics)


def probe_universe(ruleset, prepared) -> Universe:
    """What a prepared scenario can select (one probe game)."""
    g, s = ruleset.run_chunk(prepared, 0, 1)
    return universe_from_frames(g, s, player_counts(prepared.scenario, s),
                                ruleset.group_columns, ruleset.faction_column)


@dataclass(frozen=True)
class Value:
    """A value with its interval; ``note`` names e.g. a spread's farthest member."""

    value: float
    low: float
    high: float
    n: float
    note: str = ""


# --- sweep metrics --------------------------------------------------------------------------

@dataclass
class MetricSpec:
    """A parsed ``--metric``: the text as given, its selection and its spelling."""

    text: str
    selection: Selection

    @property
    def label(self) -> str:
        """The metric in the language's spelling (``win_share[bot]``)."""
        return self.selection.spelling()

    @property
    def name(self) -> str:
        return self.selection.metric

    @property
    def notes(self) -> list[str]:
        return self.selection.notes


def parse_metric(text: str, *, group_columns: tuple[str, ...] | list[str] | None = None
                 ) -> MetricSpec:
    """Parse a ``--metric`` (syntax and keys; names are resolved against a scenario's
    results by :func:`deepsim.measure.spec.expand`).

    Raises
    ------
    InputError
        A malformed spelling or an unknown key (the nearest named).
    """
    return MetricSpec(str(text).strip(), parse_metric_spec(text, group_columns=group_columns))


# --- tune objectives ------------------------------------------------------------------------

_TERM = re.compile(r"^\s*(?:([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*\*\s*)?"
                   r"([A-Za-z_][A-Za-z0-9_]*\s*(?:\[.*\])?)\s*$", re.DOTALL)


@dataclass
class Objective:
    """A weighted sum of single numbers, e.g. ``company_spread+0.5*seat_advantage``.

    ``terms``: (weight, spelling); :meth:`bind` resolves each term to one
    :class:`~deepsim.measure.spec.Instance` of a scenario's results.
    """

    text: str
    terms: tuple[tuple[float, str], ...]
    selections: tuple[Selection, ...] = ()
    target_rounds: float = math.nan
    alpha: float = 0.05
    instances: list[Instance] = field(default_factory=list, compare=False)

    def bind(self, universe: Universe) -> Objective:
        """Resolve every term against a scenario's results.

        Raises
        ------
        InputError
            An unknown metric (the nearest named), a term naming several numbers or a
            metric this ruleset's results lack.
        """
        out = []
        for (_, label), sel in zip(self.terms, self.selections, strict=True):
            insts = expand([sel], universe, key="--objective",
                           target_rounds=self.target_rounds)
            if len(insts) != 1:
                raise InputError(f"the term {label!r} names {len(insts)} numbers; an "
                                 "objective term is one number (a spread, or one member: "
                                 f"e.g. {insts[0].spec})", key="--objective")
            out.append(insts[0])
        self.instances = out
        return self

    @property
    def seats_columns(self) -> set[str]:
        return set(columns_needed(self.instances)[1]) | {"players", "seat"}

    @property
    def games_columns(self) -> set[str]:
        return set(columns_needed(self.instances)[0])

    def observe(self, games: pd.DataFrame, seats: pd.DataFrame) -> list[Obs]:
        codes = Codes(seats)
        return [measure(i, games, seats, codes) for i in self.instances]

    def evaluate(self, games: pd.DataFrame, seats: pd.DataFrame
                 ) -> tuple[Value, dict[str, Value]]:
        """(the weighted sum, each term's Value); each term's interval at ``alpha``, the
        sum's the weighted sum of their ends."""
        parts = {}
        for (_, label), obs in zip(self.terms, self.observe(games, seats), strict=True):
            e = estimate_obs(obs, self.alpha)
            parts[label] = Value(e.value, e.low, e.high, e.units, e.note)
        value = low = high = 0.0
        for w, label in self.terms:
            v = parts[label]
            value += w * v.value
            low += w * v.low
            high += w * v.high
        n = max((v.n for v in parts.values()), default=0)
        note = "; ".join(v.note for v in parts.values() if v.note)
        return Value(value, low, high, n, note), parts

    def bootstrap_change(self, before: tuple[pd.DataFrame, pd.DataFrame],
                         after: tuple[pd.DataFrame, pd.DataFrame], *, reps: int = 200,
                         seed: int = 0) -> dict:
        """Paired bootstrap of ``objective(after) - objective(before)``.

        Both runs must have played the same game indices from the same seed (common random
        numbers): each replicate gives every cluster (game, or deal of rotated seats) one
        Poisson(1) weight, used for it in both runs, so the interval of the change is much
        narrower than the two runs' own intervals. Returns ``{"change", "low", "high",
        "p_not_better", "reps"}`` (percentile interval at ``alpha``; ``p_not_better``: share
        of replicates where the change is >= 0).
        """
        oa, ob = self.observe(*before), self.observe(*after)
        size = 1 + max([int(o.ids.max()) for o in oa + ob if o.ids.size] or [0])

        def total(obs: list[Obs], w: np.ndarray | None) -> float:
            return sum(wt * value_obs(o, w) for (wt, _), o in zip(self.terms, obs,
                                                                  strict=True))

        full = total(ob, None) - total(oa, None)
        rng = np.random.default_rng(seed)
        diffs = np.empty(reps)
        for r in range(reps):
            w = rng.poisson(1.0, size).astype(np.float64)
            diffs[r] = total(ob, w) - total(oa, w)
        lo, hi = np.quantile(diffs, [self.alpha / 2, 1 - self.alpha / 2])
        return {"change": float(full), "low": float(lo), "high": float(hi),
                "p_not_better": float((diffs >= 0).mean()), "reps": reps}


def parse_objective(text: str, *, target_rounds: float = math.nan,
                    alpha: float = 0.05,
                    group_columns: tuple[str, ...] | list[str] | None = None,
                    **_) -> Objective:
    """Parse ``--objective``: a spelling of the metric language, or a weighted sum
    ``W*SPEC + W*SPEC`` (``+`` inside brackets pools members). Names are resolved by
    :meth:`Objective.bind`.

    ``target_rounds``: ``length_error``'s target (NaN: none given; ``length_error`` is then
    refused when the objective is bound).

    Raises
    ------
    InputError
        A malformed term, a zero weight or a term given twice.
    """
    raw = str(text).strip()
    if not raw:
        raise InputError("give an objective: a metric such as company_spread or "
                         "faction_spread, or a weighted sum such as "
                         "faction_spread+0.5*seat_advantage", key="--objective")
    terms: list[tuple[float, str]] = []
    sels: list[Selection] = []
    for part in split_terms(raw):
        m = _TERM.match(part)
        if not m:
            raise InputError(f"cannot read the term {part.strip()!r} of {raw!r}; write SPEC or "
                             "WEIGHT*SPEC, joined with '+' (e.g. company_spread+"
                             "0.5*seat_advantage)", key="--objective")
        weight = float(m.group(1)) if m.group(1) else 1.0
        sel = parse_metric_spec(m.group(2), key="--objective", group_columns=group_columns)
        label = sel.spelling()
        if weight <= 0:
            raise InputError(f"the weight of {label} must be > 0", key="--objective")
        if any(n == label for _, n in terms):
            raise InputError(f"{label} appears twice in {raw!r}; add the weights",
                             key="--objective")
        terms.append((weight, label))
        sels.append(sel)
    if not math.isnan(float(target_rounds)) and (not math.isfinite(float(target_rounds))
                                                 or float(target_rounds) <= 0):
        raise InputError(f"expected a number of rounds > 0, got {target_rounds!r}",
                         key="--target-rounds")
    return Objective(raw, tuple(terms), tuple(sels), float(target_rounds), alpha)
