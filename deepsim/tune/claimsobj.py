"""A ruleset's rulebook claims as tune objectives (``--objective claims``).

``claims`` (every claim), ``claims[B1,B2,B6]`` (a subset) and weighted sums with the metric
language (``claims+0.5*seat_advantage``, ``2*claims[B1]+claims[B6]``) are read here; the
metric terms go to :func:`deepsim.tune.objectives.parse_objective` unchanged.

A claim's distance (:func:`deepsim.report.verdicts.claim_distance`) is computed by the
ruleset's own claim evaluators (:meth:`deepsim.rulesets.base.Ruleset.report_claims`) on the
trial's games, as if they were a run of the trial's rules: every claim is judged under the
trial's own readings. Parts that need a run of another reading (e.g. a variant run at a
different parameter value) are not measured on a single trial and are left out of the
distance; :attr:`ClaimScore.left_out` names them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from deepsim.errors import InputError
from deepsim.measure.spec import split_terms

__all__ = ["ClaimScore", "ClaimsObjective", "claim_scores", "parse_claims_objective",
           "trial_context", "uses_claims"]

#: distance given to a claim no part of which could be measured on a trial (the claims
#: tune's and its best-response check's penalty)
UNMEASURED_PENALTY = 10.0

_CLAIMS = re.compile(r"^\s*(?:([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*\*\s*)?"
                     r"claims\s*(?:\[([^\]]*)\])?\s*$")


def uses_claims(text: str | None) -> bool:
    """Whether an ``--objective`` has a ``claims`` term."""
    if not text:
        return False
    return any(re.match(r"^\s*(?:[0-9.eE+-]+\s*\*\s*)?claims\b", t) for t in split_terms(text))


@dataclass
class ClaimsObjective:
    """``claims`` terms: ``weights`` per claim id (None: every claim, weight ``all_weight``)
    and the rest of the objective in the metric language (``metric_text``, '' if none)."""

    text: str
    weights: dict[str, float] = field(default_factory=dict)
    all_weight: float = 0.0
    metric_text: str = ""

    def selected(self, ids: list[str]) -> list[str]:
        """The claim ids the objective scores, in the ruleset's order."""
        if self.all_weight:
            return list(ids)
        return [i for i in ids if i in self.weights]

    def weight(self, cid: str) -> float:
        return self.weights.get(cid, 0.0) + self.all_weight

    def check(self, ids: list[str]) -> None:
        """Refuse claim ids the ruleset lacks.

        Raises
        ------
        InputError
            An unknown id (the ruleset's ids listed) or a ruleset without claims.
        """
        if not ids:
            raise InputError("this ruleset states no claims (its report has no claims "
                             "table); use a metric objective", key="--objective")
        bad = [c for c in self.weights if c not in ids]
        if bad:
            raise InputError(f"unknown claim {bad[0]!r} in {self.text!r}; this ruleset's "
                             f"claims are {', '.join(ids)}", key="--objective")


def parse_claims_objective(text: str) -> ClaimsObjective:
    """Split ``--objective`` into claims terms and metric-language terms.

    Raises
    ------
    InputError
        An empty ``claims[]``, a zero weight, or a claim given twice.
    """
    raw = str(text).strip()
    obj = ClaimsObjective(raw)
    rest = []
    for part in split_terms(raw):
        m = _CLAIMS.match(part)
        if not m:
            if re.match(r"^\s*(?:[0-9.eE+-]+\s*\*\s*)?claims\b", part):
                raise InputError(f"cannot read {part.strip()!r}; write claims, "
                                 "claims[B1,B2] or W*claims[B1]", key="--objective")
            rest.append(part.strip())
            continue
        w = float(m.group(1)) if m.group(1) else 1.0
        if w <= 0:
            raise InputError(f"the weight of {part.strip()} must be > 0", key="--objective")
        if m.group(2) is None:
            if obj.all_weight:
                raise InputError(f"claims appears twice in {raw!r}; add the weights",
                                 key="--objective")
            obj.all_weight = w
            continue
        ids = [s.strip() for s in m.group(2).split(",") if s.strip()]
        if not ids:
            raise InputError("claims[] names no claim; write claims[B1,B2] or claims",
                             key="--objective")
        for cid in ids:
            if cid in obj.weights:
                raise InputError(f"claim {cid} appears twice in {raw!r}", key="--objective")
            obj.weights[cid] = w
    obj.metric_text = "+".join(rest)
    return obj


def trial_context(ruleset, prepared, games: pd.DataFrame, seats: pd.DataFrame,
                  label: str = "trial"):
    """A report :class:`~deepsim.report.context.Context` of in-memory frames played under
    ``prepared`` (as if they were a run directory of those rules)."""
    from deepsim.report.context import Context
    from deepsim.report.load import RunData, flatten

    info = {"scenario": prepared.scenario, "params": prepared.params,
            "placeholders": list(prepared.placeholders),
            "baseline_bots": list(prepared.baseline_bots), "ruleset": prepared.ruleset,
            "scenario_name": label}
    manifest = {"ruleset": prepared.ruleset, "seed": prepared.scenario.get("seed"),
                "params_hash": prepared.params_hash, "scenario_name": label}
    run = RunData(path=Path(f"<{label}>"), info=info, manifest=manifest, games=games,
                  seats=seats, params=flatten(prepared.params or {}), rs=ruleset)
    return Context(run)


@dataclass
class ClaimScore:
    """One claim on one trial: verdict, distance (tolerance multiples; NaN: no part
    measured) and the parts left out."""

    id: str
    verdict: str
    distance: float
    left_out: list[str]


def claim_scores(ruleset, prepared, games: pd.DataFrame, seats: pd.DataFrame
                 ) -> dict[str, ClaimScore]:
    """Evaluate the ruleset's claims on a trial's games: ``{claim id: ClaimScore}``."""
    from deepsim.report.verdicts import claim_distance

    ctx = trial_context(ruleset, prepared, games, seats)
    out = {}
    for res in ruleset.report_claims(ctx):
        d, left = claim_distance(res)
        out[res.claim.id] = ClaimScore(res.claim.id, res.verdict, d, left)
    return out


def holds(score: ClaimScore) -> bool:
    """The claim holds on its measured parts (a part needing another run may be left)."""
    return score.verdict.startswith("holds")


def total(scores: dict[str, ClaimScore], obj: ClaimsObjective, penalty: float) -> float:
    """Weighted sum of the selected claims' distances (an unmeasured claim: ``penalty``)."""
    s = 0.0
    for cid in obj.selected(list(scores)):
        d = scores[cid].distance
        s += obj.weight(cid) * (penalty if math.isnan(d) else d)
    return s
