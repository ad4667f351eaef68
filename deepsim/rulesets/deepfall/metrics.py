"""DEEPFALL's own numbers of the balance report: exits and the feel-bad rate, swing, contention,
the Maw's pace and the rules exercised. Pure functions over a run's ``games`` and ``seats``
frames (see :mod:`deepsim.report.metrics` for the shared ones); each names the columns it
needs and raises ``KeyError`` when one is missing (the report then skips that section).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from deepsim.report.metrics import normalized_place, ratio_of_sums, require, wilson

__all__ = ["EXIT_COLUMNS", "contention", "deferral", "exercise", "exit_usage", "swing",
           "swing_test", "warning_honesty"]


EXIT_COLUMNS = ["cash_outs", "last_stands", "worthy_ends", "taken_no_stand",
                "taken_no_stand_final", "crews"]


def exit_usage(seats: pd.DataFrame, by: str | None = "bot", alpha: float = 0.05
               ) -> pd.DataFrame:
    """Exits per player-game and the feel-bad rate, by group (or all seats: ``by=None``).

    A crew is one company mustered on the board (a fresh crew replaces a retired or Taken
    one). The feel-bad event is a crew Taken without a Last Stand; "mid-game" leaves out the
    final collapse of Floor 1, where every crew still on it is Taken.

    Returns
    -------
    DataFrame
        One row per group: ``<by>`` (or ``"all"``), ``player_games``, ``crews_pg``,
        ``cash_outs_pg``, ``last_stands_pg``, ``worthy_ends_pg``, ``taken_ns_pg``, ``taken_final_pg`` (per
        player-game means; the last at the final collapse), ``taken_unplayed_pg`` (crews
        Taken before their first turn, counted in neither: NaN when the run lacks the
        column), ``fb_crew`` / ``fb_crew_low`` / ``fb_crew_high`` (Taken without
        Last Stand per crew, Wilson with crews as trials), ``fb_crew_mid`` (+ interval, mid-game
        only), ``fb_pg`` / ``fb_pg_low`` / ``fb_pg_high`` (share of player-games with at
        least one, Wilson) and ``fb_pg_mid`` (+ interval, mid-game only).
    """
    require(seats, EXIT_COLUMNS, "seats")
    col = by or "_all"
    d = seats if by else seats.assign(_all="all")
    rows = []
    for key, grp in d.groupby(col, observed=True, sort=True):
        tns = grp["taken_no_stand"].to_numpy(dtype=np.float64)
        fin = grp["taken_no_stand_final"].to_numpy(dtype=np.float64)
        crews = grp["crews"].to_numpy(dtype=np.float64)
        n = len(grp)
        row = {col if by else "group": str(key), "player_games": n,
               "crews_pg": crews.mean(), "cash_outs_pg": grp["cash_outs"].mean(),
               "last_stands_pg": grp["last_stands"].mean(),
               "worthy_ends_pg": grp["worthy_ends"].mean(), "taken_ns_pg": tns.mean(),
               "taken_final_pg": fin.mean(),
               "taken_unplayed_pg": (grp["taken_unplayed"].mean()
                                     if "taken_unplayed" in grp.columns else math.nan)}
        n_crews = float(crews.sum())
        for suffix, t in (("", tns), ("_mid", tns - fin)):
            k = float(t.sum())
            lo, hi = wilson(k, n_crews, alpha)
            row[f"fb_crew{suffix}"] = k / n_crews if n_crews else math.nan
            row[f"fb_crew{suffix}_low"], row[f"fb_crew{suffix}_high"] = lo, hi
            k = float((t > 0).sum())
            lo, hi = wilson(k, n, alpha)
            row[f"fb_pg{suffix}"], row[f"fb_pg{suffix}_low"] = k / n, lo
            row[f"fb_pg{suffix}_high"] = hi
        rows.append(row)
    return pd.DataFrame(rows)


def swing(seats: pd.DataFrame, by: str = "company") -> pd.DataFrame:
    """Spread of outcomes per group: Glory (mean, variance, sd) and finishing place
    (variance of :func:`normalized_place`, 0 = first, 1 = last), sorted by Glory variance
    descending."""
    require(seats, [by, "glory", "place", "players"], "seats")
    d = pd.DataFrame({by: seats[by], "glory": seats["glory"].astype("float64"),
                      "nplace": normalized_place(seats)})
    g = d.groupby(by, observed=True)
    out = pd.DataFrame({"games": g.size(), "glory_mean": g["glory"].mean(),
                        "glory_var": g["glory"].var(), "glory_sd": g["glory"].std(),
                        "place_mean": g["nplace"].mean(), "place_var": g["nplace"].var()})
    out = out.reset_index()
    out[by] = out[by].astype(str)
    return out.sort_values("glory_var", ascending=False).reset_index(drop=True)


def swing_test(seats: pd.DataFrame, by: str, group: str) -> dict:
    """Is ``group`` (e.g. the Wardancer Calling) swingier than the other groups pooled?

    For Glory and for normalized place: the variance ratio (group / rest) and the p-value
    of a Brown-Forsythe test (``scipy.stats.levene(center="median")``) of equal spread.

    Returns
    -------
    dict
        ``n_group``, ``n_rest``, ``glory_ratio``, ``glory_p``, ``place_ratio``, ``place_p``
        (NaN when the group is absent).
    """
    require(seats, [by, "glory", "place", "players"], "seats")
    mask = (seats[by] == group).to_numpy(dtype=bool)
    out = {"n_group": int(mask.sum()), "n_rest": int((~mask).sum())}
    if out["n_group"] < 2 or out["n_rest"] < 2:
        return {**out, "glory_ratio": math.nan, "glory_p": math.nan,
                "place_ratio": math.nan, "place_p": math.nan}
    for name, x in (("glory", seats["glory"].to_numpy(dtype=np.float64)),
                    ("place", normalized_place(seats))):
        a, b = x[mask], x[~mask]
        vb = b.var(ddof=1)
        out[f"{name}_ratio"] = float(a.var(ddof=1) / vb) if vb > 0 else math.nan
        with np.errstate(divide="ignore", invalid="ignore"):    # no spread: p is NaN
            out[f"{name}_p"] = float(sps.levene(a, b, center="median").pvalue)
    return out


def contention(games: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Rooms with 2+ claimants at collapse, by player count.

    Columns: ``players``, ``games``, ``rooms_scored`` (per game), ``contested_share``
    (rooms with 2+ claimants / rooms scored) and ``markers_per_contested`` (control markers
    per contested room), each with ``_low``/``_high`` (games as clusters, see
    :func:`ratio_of_sums`).
    """
    require(games, ["players", "rooms_scored", "rooms_contested", "contested_markers"],
            "games")
    rows = []
    for p, d in games.groupby("players", sort=True):
        row = {"players": int(p), "games": len(d), "rooms_scored": d["rooms_scored"].mean()}
        for name, y, x in (("contested_share", "rooms_contested", "rooms_scored"),
                           ("markers_per_contested", "contested_markers", "rooms_contested")):
            est, lo, hi = ratio_of_sums(d[y].to_numpy(), d[x].to_numpy(), alpha)
            row[name], row[f"{name}_low"], row[f"{name}_high"] = est, lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


def deferral(games: pd.DataFrame, alpha: float = 0.05) -> dict:
    """How often the one-floor-per-round cap binds (collapses held back, A31).

    Returns
    -------
    dict
        ``games``, ``binds_share`` (games with a deferred step) with Wilson ``binds_low`` /
        ``binds_high``, ``deferred_per_game`` (mean).
    """
    require(games, ["deferred_steps"], "games")
    n = len(games)
    k = float((games["deferred_steps"] > 0).sum())
    lo, hi = wilson(k, n, alpha)
    return {"games": n, "binds_share": k / n if n else math.nan, "binds_low": lo,
            "binds_high": hi,
            "deferred_per_game": float(games["deferred_steps"].mean()) if n else math.nan}


#: the games columns that class every Taking (kernel.collapse; B8), but the warned one
TAKING_CLASSES = {"moved_in_pg": "taken_moved_in", "mustered_pg": "taken_mustered",
                  "blindsided_pg": "taken_blindsided"}


def warning_honesty(games: pd.DataFrame, seats: pd.DataFrame | None = None,
                    alpha: float = 0.05) -> pd.DataFrame:
    """Crews on the next floor to fall at the start of a round, and what became of them.

    Columns by player count: ``players``, ``games``, ``warned_pg`` (warned crew-rounds per
    game), ``taken_if_warned`` (Taken that round / warned crew-rounds, games as clusters,
    with ``_low``/``_high``) and, per game, the other Takings as the kernel classed them
    where they happened (when the run has the columns): ``moved_in_pg`` (crews that moved
    onto the falling floor during the round), ``mustered_pg`` (fresh crews mustered onto
    it) and ``blindsided_pg`` (crews on a floor that was not the next to fall when the
    round began). ``seats`` is not read (kept for callers of the older signature).
    """
    require(games, ["players", "warned", "taken_after_warning"], "games")
    rows = []
    for p, d in games.groupby("players", sort=True):
        est, lo, hi = ratio_of_sums(d["taken_after_warning"].to_numpy(), d["warned"].to_numpy(),
                                    alpha)
        row = {"players": int(p), "games": len(d), "warned_pg": d["warned"].mean(),
               "taken_if_warned": est, "taken_if_warned_low": lo, "taken_if_warned_high": hi}
        for name, col in TAKING_CLASSES.items():
            if col in d.columns:
                row[name] = float(d[col].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def exercise(seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """How often each Lineage and Calling ability, exit and room theme is used.

    Returns
    -------
    dict of DataFrame
        ``"lineage"`` / ``"calling"``: ``group``, ``player_games``, ``uses_pg`` (times the
        ability changed the play, per player-game) and ``share_used`` (player-games with at
        least one use); ``"rooms"``: ``theme``, ``claims``, ``claims_per_game`` (per
        player-game); ``"exits"``: ``exit``, ``uses``, ``per_player_game``. Keys whose
        columns are absent are left out.
    """
    out: dict[str, pd.DataFrame] = {}
    for by, col in (("lineage", "lineage_ability"), ("calling", "calling_ability")):
        if {by, col} <= set(seats.columns):
            g = seats.groupby(by, observed=True)[col]
            df = pd.DataFrame({"player_games": g.size(), "uses_pg": g.mean(),
                               "share_used": g.apply(lambda s: float((s > 0).mean()))})
            df = df.reset_index().rename(columns={by: "group"})
            df["group"] = df["group"].astype(str)
            out[by] = df.sort_values("uses_pg").reset_index(drop=True)
    themes = [c for c in seats.columns if c.startswith("claims_")]
    if themes:
        n = max(len(seats), 1)
        out["rooms"] = pd.DataFrame({
            "theme": [c.removeprefix("claims_") for c in themes],
            "claims": [int(seats[c].sum()) for c in themes],
            "claims_per_game": [float(seats[c].sum()) / n for c in themes]})
    exits = [c for c in ("cash_outs", "last_stands", "worthy_ends", "taken_no_stand")
             if c in seats.columns]
    if exits:
        n = max(len(seats), 1)
        out["exits"] = pd.DataFrame({
            "exit": exits, "uses": [int(seats[c].sum()) for c in exits],
            "per_player_game": [float(seats[c].sum()) / n for c in exits]})
    return out
