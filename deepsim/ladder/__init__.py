"""``deepsim ladder``: does each balance verdict survive stronger play?

A *rung* is a field where every seat plays one kind of bot: a style of the ruleset's
``bots.yaml`` (``random``, ``greedy``...), ``strongest`` (the non-baseline style with the
highest win share in the scenario's own field, found on a short run), ``meta:PATH`` (a
``faction_bots`` file, e.g. the one ``deepsim meta`` writes: every faction plays its own
styles) or ``search-K`` (the ruleset's search bot, knob ``rollouts`` = K, each faction on
its own strongest heuristic in the scenario's field, or with ``search_base`` one style for
every faction; only for rulesets whose bots have a ``rollouts`` knob). Every rung plays
the same game indices (the same deals and dice streams: common random numbers) through
the scenario's ``faction_bots`` mechanism (:mod:`deepsim.respond.play`), so nothing here
names a game.

Per rung and faction: win share over fair share with its 95% Wilson interval and the
report's viability verdict (:func:`deepsim.report.metrics.viability_verdict`); a verdict
that differs between the two strongest rungs is "not settled by this ladder". Skill depth:
each rung against the rung below, head to head (:func:`head_to_head`). Luck:
:func:`luck_share`. The search check (:mod:`deepsim.ladder.check`): per faction, does the
top search rung beat every plain heuristic, each paired on the same games?
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from deepsim.errors import InputError

__all__ = ["LadderResult", "Rung", "default_rungs", "head_to_head_ratio", "luck_share", "parse_rungs",
           "settled", "verdict_table"]

NOT_SETTLED = "not settled by this ladder"


@dataclass
class Rung:
    """One rung: its label and how its seats play.

    ``kind``: ``style`` (``style`` names a style of bots.yaml), ``strongest`` (resolved to
    a style before play), ``search`` (``rollouts`` on a heuristic style's knobs: per
    faction its base style ``bases[faction]``, else ``style``; ``knobs`` are ``style``'s)
    or ``meta`` (``path``: a faction_bots file).
    """

    label: str
    kind: str
    style: str | None = None
    rollouts: int = 0
    path: str | None = None
    knobs: dict[str, float] = field(default_factory=dict)
    bases: dict[str, str] = field(default_factory=dict)


@dataclass
class LadderResult:
    """What a ladder found (tables as written to ``out_dir``): the rungs played, the
    strongest style, the verdict table (:func:`verdict_table`), the skill depth (one row
    per rung above the first), the ``ladder.json`` record, the folder and the search
    check (:mod:`deepsim.ladder.check`; empty without one)."""

    rungs: list[Rung]
    strongest: str | None
    verdicts: pd.DataFrame      # verdict_table
    depth: pd.DataFrame         # one row per rung above the first
    info: dict
    out_dir: Path
    check: pd.DataFrame = field(default_factory=pd.DataFrame)  # deepsim.ladder.check


def _short_path(p: Path) -> str:
    """A meta file as a rung's label names it: relative to the working folder when it is
    below it (``scenarios/meta/atlantis-bots.yaml``), else as given."""
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def parse_rungs(text: str, bot_data: Any, *, base: Path) -> list[Rung]:
    """Rungs from ``--rungs R1,R2,...`` (weakest first).

    Raises
    ------
    InputError
        An unknown style (naming the known ones), ``search-K`` with K not a whole number
        >= 1 or on a ruleset without a ``rollouts`` knob, a missing meta file, fewer than
        two rungs, a rung named twice.
    """
    out: list[Rung] = []
    for raw in [t.strip() for t in text.split(",") if t.strip()]:
        if raw.startswith("meta:"):
            p = Path(raw[5:])
            p = p if p.is_absolute() else (Path.cwd() / p)
            if not p.is_file():
                raise InputError(f"rung {raw}: no such meta bot file {p}", key="--rungs")
            out.append(Rung(f"meta:{_short_path(p)}", "meta", path=str(p.resolve())))
        elif raw.startswith("search-"):
            k = raw[7:]
            if not k.isdigit() or int(k) < 1:
                raise InputError(f"rung {raw}: search-K needs a whole number K >= 1 of "
                                 "rollouts", key="--rungs")
            if "rollouts" not in bot_data.knobs:
                raise InputError(f"rung {raw}: this ruleset's bots have no search (no "
                                 "rollouts knob); its top rung is its heuristics or a meta "
                                 "file", key="--rungs")
            out.append(Rung(raw, "search", rollouts=int(k)))
        elif raw == "strongest":
            out.append(Rung(raw, "strongest"))
        elif raw in bot_data.styles:
            out.append(Rung(raw, "style", style=raw))
        else:
            known = ", ".join(["strongest", "meta:PATH", "search-K", *bot_data.styles])
            raise InputError(f"unknown rung {raw!r}; known: {known}", key="--rungs")
    labels = [r.label for r in out]
    if len(out) < 2:
        raise InputError("a ladder needs at least two rungs", key="--rungs")
    if len(set(labels)) != len(labels):
        raise InputError(f"a rung is named twice: {', '.join(labels)}", key="--rungs")
    return out


def default_rungs(bot_data: Any, meta_path: str | None) -> str:
    """The default ladder: random (the first baseline style when there is none called
    random) < strongest heuristic < meta (when the scenario names a ``faction_bots``
    file) < search-8 < search-32 (when the ruleset's bots search)."""
    low = "random" if "random" in bot_data.styles else (
        bot_data.baseline_styles[0] if bot_data.baseline_styles else None)
    rungs = [low] if low else []
    rungs.append("strongest")
    if meta_path:
        rungs.append(f"meta:{meta_path}")
    if "rollouts" in bot_data.knobs:
        rungs += ["search-8", "search-32"]
    return ",".join(rungs)


def verdict_table(per_rung: dict[str, pd.DataFrame], column: str) -> pd.DataFrame:
    """One row per (faction, rung) with ratio, interval and verdict, rungs in ladder
    order; the column ``settled`` is False on every row of a faction whose verdict
    differs between the two strongest rungs (:func:`settled`)."""
    rows = []
    for label, t in per_rung.items():
        for r in t.itertuples(index=False):
            rows.append({"faction": str(getattr(r, column)), "rung": label,
                         "seat_games": int(r.games), "ratio": float(r.ratio),
                         "ratio_low": float(r.ratio_low), "ratio_high": float(r.ratio_high),
                         "verdict": str(r.verdict)})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    ok = settled(out, list(per_rung))
    out["settled"] = out["faction"].map(ok)
    return out


def settled(table: pd.DataFrame, order: list[str]) -> dict[str, bool]:
    """Per faction: is its verdict the same at the two strongest rungs (the last two of
    ``order``)? An inconclusive verdict at either is not settled either."""
    top, second = order[-1], order[-2]
    out = {}
    for f, g in table.groupby("faction", sort=False):
        v = dict(zip(g["rung"], g["verdict"], strict=True))
        a, b = v.get(top), v.get(second)
        out[str(f)] = a is not None and a == b and a != "inconclusive"
    return out


def head_to_head_ratio(upper: np.ndarray, fair: np.ndarray, level: float = 0.95
                       ) -> tuple[float, float, float]:
    """The upper rung's wins over its fair share, with a ``level`` interval, from
    per-deal totals (the deal is the unit: both of its plays, the factions' halves
    swapped, are in one cluster).

    Parameters
    ----------
    upper : float64[deals]
        Wins of the upper rung's seats per deal (1/k for a k-way tie).
    fair : float64[deals]
        Fair wins of those seats per deal (sum of 1/players).

    Returns
    -------
    (ratio, low, high): the ratio estimator sum(upper) / sum(fair) and its delta-method
    interval (Cochran, *Sampling Techniques*, 3rd ed., §6.4: variance of the ratio
    estimator, with the t quantile on deals - 1 degrees of freedom). NaN when fewer than
    two deals have upper seats.
    """
    u = np.asarray(upper, np.float64)
    f = np.asarray(fair, np.float64)
    keep = f > 0
    u, f = u[keep], f[keep]
    n = u.size
    if n < 2:
        return math.nan, math.nan, math.nan
    r = u.sum() / f.sum()
    resid = u - r * f
    se = math.sqrt(resid.var(ddof=1) / n) / f.mean()
    q = sps.t.ppf(0.5 + level / 2, n - 1)
    return float(r), float(r - q * se), float(r + q * se)


def luck_share(score: np.ndarray, strata: np.ndarray | None = None) -> float:
    """How much of a head-to-head's outcome is luck: 1 - mean(s)^2 / mean(s^2), within
    strata.

    ``score`` (float64[plays]): per play, the upper rung's mean win per seat minus its
    fair share (2 players: win - 1/2, so +1/2 a win, -1/2 a loss). The skill signal is
    the mean; what a play adds around it is noise. 1 = pure chance (the better rung wins
    no more than its share: mean 0); 0 = pure skill (every play the same result, the
    better rung always ahead); in between, the share of the outcome's mean square that is
    noise around the skill signal (2 players winning with chance p: 1 - (2p - 1)^2).

    ``strata`` (int64[plays], optional): plays of different table make-up (e.g. how many
    of the seats the upper rung holds, and the player count) have different scores for
    the same skill (the upper rung winning every play scores 1/k - 1/n with k of n
    seats), so the skill signal is each stratum's own mean:
    1 - sum_g n_g mean_g(s)^2 / sum(s^2); without strata, one stratum. NaN for no plays
    or all-zero scores (every play tied at the fair share).
    """
    s = np.asarray(score, np.float64)
    if s.size == 0:
        return math.nan
    ss = float(np.sum(s * s))
    if ss == 0:
        return math.nan
    _keys, inv = np.unique(np.zeros(s.size, np.int64) if strata is None
                           else np.asarray(strata), return_inverse=True)
    n_g = np.bincount(inv).astype(np.float64)
    sum_g = np.bincount(inv, weights=s)
    return 1.0 - float(np.sum(sum_g ** 2 / n_g)) / ss
