"""A co-operative game's numbers: the party's win rate against the designer's target, by
player count, with its verdict, and each class's presence effect.

A co-operative ruleset (:data:`deepsim.rulesets.base.COOPERATIVE`) has one result per
game, the party's: the games table's ``won`` (bool), ``outcome`` (how) and ``target`` (the
designer's target win rate). This module reads only those columns and the seats' group
columns, never a game by name; the run summary (:mod:`deepsim.summary`) and the report's
co-operative sections (:func:`sections`) print what it computes.

- **Party win rate**: games won over games with a result (an unresolved game is left out),
  with its Wilson score interval (Wilson 1927; statsmodels ``proportion_confint``), per
  player count and over all games. Games with a seat played by a baseline bot (a
  yardstick, e.g. uniform random play) are left out of the headline and counted.
- **Verdict** against the target ``t`` with the band ``b`` (report option ``coop.band``,
  percentage points): *too easy* when the interval's lower end is above ``t + b``, *too
  hard* when its upper end is below ``t - b``, *on target* when the whole interval lies
  inside ``[t - b, t + b]``, otherwise *unclear* (the interval straddles an edge of the
  band: more games decide). With a true rate inside the band the chance of a wrong *too
  easy*/*too hard* is at most ``alpha / 2`` each (the interval's coverage), and *on
  target* can be reached: the interval's width shrinks as ``1/sqrt(games)``.
- **Class presence effect**: the party's win rate in games where a class sits at the table
  minus the rate in games where it does not, per player count (Newcombe's hybrid score
  interval for a difference of two independent proportions, Newcombe 1998; statsmodels
  ``confint_proportions_2indep``), and pooled over player counts with weights
  ``n1 n0 / (n1 + n0)`` (a stratified difference; normal interval from the strata's
  Newcombe half-widths). It is unpaired and observational: different games with and
  without the class, not the same games with the class swapped; classes dealt at random
  per seat make it a randomised comparison, classes fixed or chosen an association;
  a class in every game (or none) of a player count has no effect there (not estimable
  from this deal: play the scenario with and without it, ``deepsim compare`` pairs the
  games on the same seeds).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from deepsim.report import metrics as M
from deepsim.report.config import ReportOption

__all__ = ["COOP_OPTIONS", "VERDICTS", "class_effects", "headline_text", "party_games",
           "party_rates", "verdict"]

#: the verdict words, easiest first
VERDICTS = ("too easy", "on target", "unclear", "too hard")

#: the shared report options of every co-operative ruleset (``deepsim report --option
#: coop.band=3``); a co-operative ruleset lists them in its ``report_options``
COOP_OPTIONS: tuple[ReportOption, ...] = (
    ReportOption("coop.band", "coop_band", 5.0,
                 "the band around the target win rate, in percentage points: 'on target' "
                 "when the party's interval lies inside target +- band, 'too easy' / 'too "
                 "hard' when it lies wholly above / below the band"),
)


def verdict(low: float, high: float, target: float, band: float) -> str:
    """The verdict word of a win rate's interval ``[low, high]`` (shares in [0, 1]) against
    ``target`` (a share) with ``band`` (a share, e.g. 0.05): see the module docstring."""
    if any(map(math.isnan, (low, high, target))):
        return "unclear"
    if low > target + band:
        return "too easy"
    if high < target - band:
        return "too hard"
    if target - band <= low and high <= target + band:
        return "on target"
    return "unclear"


def _wilson(k: float, n: float, alpha: float) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint
    if n <= 0:
        return math.nan, math.nan
    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)


def party_games(games: pd.DataFrame, seats: pd.DataFrame | None = None,
                baseline_bots: Sequence[str] = ()) -> tuple[pd.DataFrame, int, int]:
    """The games a co-operative headline judges: with a result (not unresolved) and no seat
    played by a baseline bot. Returns (games, unresolved left out, baseline games left
    out)."""
    from deepsim.stats import unresolved_flags
    open_ = unresolved_flags(games)
    keep = ~open_
    n_base = 0
    if baseline_bots and seats is not None and "bot" in seats.columns:
        hit = seats.loc[seats["bot"].astype(str).isin(list(baseline_bots)), "game"].unique()
        base = games["game"].isin(hit).to_numpy()
        n_base = int((base & keep).sum())
        keep &= ~base
    return games[keep], int(open_.sum()), n_base


def party_rates(games: pd.DataFrame, *, alpha: float = 0.05, band: float = 0.05,
                by: Sequence[str] = ("players",)) -> pd.DataFrame:
    """The party's win rate per group of ``by`` (games columns present in ``games``) and
    over all games (group ``all``), with its Wilson interval and verdict.

    Parameters
    ----------
    games : DataFrame
        Columns ``won`` (bool), ``target`` (float64, a share) and the ``by`` columns; the
        games to judge (:func:`party_games`).
    alpha : float
        1 - the intervals' confidence level.
    band : float
        The verdict's band around the target, a share (``coop.band`` / 100).

    Returns
    -------
    DataFrame
        One row per group then ``all``: ``group`` (str), ``games``, ``won`` (int64),
        ``rate``, ``low``, ``high``, ``target`` (shares), ``edge`` (rate - target, a share)
        and ``verdict``.
    """
    cols = [c for c in by if c in games.columns]
    rows = []
    parts = list(games.groupby(cols, observed=True)) if cols else []
    if len(parts) == 1:
        parts = []           # one group only: its row is the "all" row
    for key, g in [*parts, (None, games)]:
        n, k = len(g), int(g["won"].sum())
        lo, hi = _wilson(k, n, alpha)
        t = float(g["target"].mean()) if n else math.nan
        if key is None:
            name = "all"
        else:
            key = key if isinstance(key, tuple) else (key,)
            name = ", ".join(f"{v} {c}" if c == "players" else f"{c} {v}"
                             for c, v in zip(cols, key, strict=True))
        rate = k / n if n else math.nan
        rows.append({"group": name, "games": n, "won": k, "rate": rate, "low": lo,
                     "high": hi, "target": t, "edge": rate - t,
                     "verdict": verdict(lo, hi, t, band)})
    return pd.DataFrame(rows)


def class_effects(games: pd.DataFrame, seats: pd.DataFrame, by: str, *,
                  alpha: float = 0.05) -> pd.DataFrame:
    """Each member of the seats column ``by`` (a class): the party's win rate with it at
    the table and without, and the difference with its interval, per player count and
    pooled (see the module docstring).

    Parameters
    ----------
    games : DataFrame
        ``game``, ``won`` and ``players`` (if absent, one stratum) of the judged games.
    seats : DataFrame
        ``game`` and ``by``; rows of other games are ignored.

    Returns
    -------
    DataFrame
        One row per (member, stratum): ``member``, ``stratum`` (``"3 players"`` or
        ``"all"``: pooled), ``with_games``, ``with_rate``, ``without_games``,
        ``without_rate``, ``effect``, ``low``, ``high`` (shares; NaN where not
        estimable) and ``note``.
    """
    g = games[["game", "won"] + (["players"] if "players" in games.columns else [])]
    s = seats[seats["game"].isin(g["game"])]
    members = [str(m) for m in pd.unique(s[by].astype(str))]
    present = (s.assign(_m=s[by].astype(str)).groupby(["game", "_m"]).size().unstack(
        fill_value=0) > 0).reindex(g["game"].to_numpy(), fill_value=False)
    z = _z(alpha)
    won = g["won"].to_numpy(dtype=bool)
    strata = (g["players"].to_numpy() if "players" in g.columns
              else np.zeros(len(g), np.int64))
    rows = []
    for m in sorted(members):
        has = present[m].to_numpy(dtype=bool)
        pooled_w = pooled_e = pooled_v = 0.0
        strata_used = 0
        for p in np.unique(strata):
            sel = strata == p
            n1, n0 = int((has & sel).sum()), int((~has & sel).sum())
            k1, k0 = int((won & has & sel).sum()), int((won & ~has & sel).sum())
            row = {"member": m, "stratum": f"{p} players" if "players" in g.columns
                   else "all", "with_games": n1, "with_rate": k1 / n1 if n1 else math.nan,
                   "without_games": n0, "without_rate": k0 / n0 if n0 else math.nan}
            if n1 and n0:
                _, lo, hi = M.proportion_diff_ci(k1, n1, k0, n0, alpha)
                eff = k1 / n1 - k0 / n0
                row.update(effect=eff, low=lo, high=hi, note="")
                w = n1 * n0 / (n1 + n0)
                half = (hi - lo) / 2
                pooled_w += w
                pooled_e += w * eff
                pooled_v += (w * half / z) ** 2
                strata_used += 1
            else:
                row.update(effect=math.nan, low=math.nan, high=math.nan,
                           note="in every game" if n1 else "in no game")
            rows.append(row)
        if "players" in g.columns and len(np.unique(strata)) > 1:
            n1, n0 = int(has.sum()), int((~has).sum())
            row = {"member": m, "stratum": "all", "with_games": n1,
                   "with_rate": float(won[has].mean()) if n1 else math.nan,
                   "without_games": n0,
                   "without_rate": float(won[~has].mean()) if n0 else math.nan}
            if pooled_w > 0:
                eff = pooled_e / pooled_w
                se = math.sqrt(pooled_v) / pooled_w
                row.update(effect=eff, low=eff - z * se, high=eff + z * se,
                           note=f"stratified over {strata_used} player counts")
            else:
                row.update(effect=math.nan, low=math.nan, high=math.nan,
                           note="not estimable from this deal")
            rows.append(row)
    return pd.DataFrame(rows)


def _z(alpha: float) -> float:
    from scipy.stats import norm
    return float(norm.ppf(1 - alpha / 2))


def headline_text(rates: pd.DataFrame, band: float) -> list[str]:
    """Plain lines of the party's headline: the overall rate and verdict, then each player
    count (percent, one decimal)."""
    out = []
    for r in rates.itertuples(index=False):
        label = "Party wins" if r.group == "all" else f"  {r.group}:"
        out.append(f"{label} {100 * r.rate:.1f}% [{100 * r.low:.1f}-{100 * r.high:.1f}] of "
                   f"{r.games:,} games; target {100 * r.target:g}% +-{100 * band:g}: "
                   f"{r.verdict}")
    if len(out) > 1:       # the overall line first
        out = [out[-1], *out[:-1]]
    return out
