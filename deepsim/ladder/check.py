"""The search check: does a ladder's top search rung beat every plain heuristic, faction
by faction?

A search bot is only as strong as the heuristic it rolls out and models its opponents
with; for some factions a plain heuristic can beat it. The ladder's top rung is meant to
be its strongest play, so the ladder checks, per faction and per plain heuristic H (every
non-baseline style without rollouts), paired on the same games:

- the field where every seat plays H (games 0..n-1 of the scenario);
- the same games with one half of the factions on the search rung and the other half on
  H, then the halves swapped (two passes: every faction searches once).

A faction F is compared on the games of the pass where it searches in which every other
seat plays H (its own half's factions absent from the table): there F's seats play the
search against H opponents, and in the all-H field the same seats of the same games play
H. The paired difference of F's mean win per seat-game (search minus H) has a 95% normal
interval over those games (a game's seats of F summed: one cluster). Verdict:
``beats`` (the interval above 0), ``weaker`` (below 0) or ``not shown`` (it covers 0, or
fewer than two games). Unresolved games (win NaN) count for neither.

Shared code: plays through :class:`deepsim.respond.play.Field` and names no game.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from deepsim.stats import resolved_seats

__all__ = ["CHECK_COLUMNS", "paired_faction_gain", "search_check"]

#: columns of the check's table (``search_check.csv``)
CHECK_COLUMNS = ["faction", "heuristic", "games", "seat_games", "search_share",
                 "heuristic_share", "diff", "diff_low", "diff_high", "verdict"]


def paired_faction_gain(base: pd.DataFrame, tried: pd.DataFrame, column: str,
                        faction: str, others: set[str]) -> dict:
    """One faction's paired gain from the search on the same games.

    Parameters
    ----------
    base, tried : DataFrame
        Seats (columns ``game``, ``column``, ``win``) of the same game indices: every seat
        on the plain heuristic (``base``), and the faction's half on the search
        (``tried``).
    faction : str
        The faction compared.
    others : set of str
        Factions that played the plain heuristic in ``tried``: only games whose every
        other seat is one of them count.

    Returns
    -------
    dict with ``games`` (games compared), ``seat_games``, ``search_share`` and
    ``heuristic_share`` (mean win per seat-game of the faction), ``diff`` (their
    difference) and its 95% normal interval over games ``diff_low``, ``diff_high`` (NaN
    with fewer than two games), and ``verdict`` (module docstring).
    """
    t = resolved_seats(tried).assign(f=lambda d: d[column].astype(str))
    b = resolved_seats(base).assign(f=lambda d: d[column].astype(str))
    mine = t["f"] == faction
    ok_other = mine | t["f"].isin(others)
    bad = set(t.loc[~ok_other, "game"])
    games = sorted(set(t.loc[mine, "game"]) - bad)
    games = [g for g in games if g in set(b["game"])]
    tm = t[mine & t["game"].isin(games)].groupby("game")["win"].agg(["sum", "size"])
    bm = b[(b["f"] == faction) & b["game"].isin(games)].groupby("game")["win"].agg(
        ["sum", "size"])
    bm = bm.reindex(tm.index)
    ok = bm["size"].eq(tm["size"])              # the same seats in both (always, same games)
    tm, bm = tm[ok], bm[ok]
    n = len(tm)
    seat_games = int(tm["size"].sum())
    nan = math.nan
    out = {"games": n, "seat_games": seat_games, "search_share": nan,
           "heuristic_share": nan, "diff": nan, "diff_low": nan, "diff_high": nan,
           "verdict": "not shown"}
    if seat_games == 0:
        return out
    out["search_share"] = float(tm["sum"].sum() / seat_games)
    out["heuristic_share"] = float(bm["sum"].sum() / seat_games)
    out["diff"] = out["search_share"] - out["heuristic_share"]
    if n < 2:
        return out
    # per game: the faction's seats' difference, as a share of the mean seats per game
    d = (tm["sum"] - bm["sum"]).to_numpy(np.float64) / (seat_games / n)
    half = 1.96 * d.std(ddof=1) / math.sqrt(n)
    lo, hi = float(d.mean() - half), float(d.mean() + half)
    out["diff_low"], out["diff_high"] = lo, hi
    out["verdict"] = "beats" if lo > 0 else ("weaker" if hi < 0 else "not shown")
    return out


def search_check(field, heuristics: list[str], games: int,
                 search_spec: Callable[[str], tuple[str, dict]],
                 make_variant: Callable[[dict], object],
                 progress: Callable[[str, int], Callable[[int], None]] | None = None
                 ) -> pd.DataFrame:
    """Play the search check (module docstring) and return its table.

    Parameters
    ----------
    field : deepsim.respond.play.Field
        The scenario's field (factions, column, the games' player).
    heuristics : list of str
        The plain heuristic styles the search must beat.
    games : int
        Game indices 0..games-1 per pass (three passes per heuristic: all on it, and the
        two halves).
    search_spec : callable(faction) -> (style name, knobs)
        The top search rung's style for a faction.
    make_variant : callable({faction: (style, knobs)}) -> Variant
        Builds a variant of the field with those styles per faction.
    progress : callable(label, size) -> callable(n), optional
        A progress factory (as the ladder's ``tick``).

    Returns
    -------
    DataFrame with :data:`CHECK_COLUMNS`, one row per (faction, heuristic).
    """
    column = field.column
    ids = np.arange(games, dtype=np.int64)
    cols = {column, "win"}
    factions = [str(f) for f in field.factions]
    halves = (factions[0::2], factions[1::2])
    bd = field.bot_data
    rows = []
    for h in heuristics:
        plain = (h, dict(bd.styles[h].knobs))
        tick = progress(f"search check vs {h}", 3 * games) if progress else None
        _g, base = field.play(make_variant({f: plain for f in factions}), ids,
                              seats_columns=cols, games_columns=set(), progress=tick)
        for k in range(2):
            up, low = halves[k], halves[1 - k]
            styles = {f: search_spec(f) for f in up} | {f: plain for f in low}
            _g, tried = field.play(make_variant(styles), ids, seats_columns=cols,
                                   games_columns=set(), progress=tick)
            for f in up:
                rows.append({"faction": f, "heuristic": h}
                            | paired_faction_gain(base, tried, column, f, set(low)))
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)
