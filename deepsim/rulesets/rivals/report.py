"""Rivals's own sections of the balance report (the shared report's ``report_sections`` hook).

The shared report writes win share per build (the faction column), seat advantage and the
method. These sections answer the designer's questions of the scope (part A, §A1) that
the placeholder data allows, each naming the placeholder data and skipped rules its
numbers rest on:

- Q1 builds per player count (win share per build at 2, 3 and 4 players; the 2-player
  build x build matrix);
- Q3 swarm against elite (the action economy of each build);
- Q4 turn order (seat 1 moves first);
- Q5 the Lurkers (wounds, kills, loot) and the Event deck;
- Q6 game length and stalls;
- Q7 multiplayer dynamics (winners without kills, players eliminated by two rivals);
- Q8 terrain (rocks, coral, Swim and Charge);
- Q9 the dice (explosions, chains, kills that needed the extra dice);
- Q10 Aether (gained, spent, Focus, the bank);
- Q11 map fairness (seat 1's win share across the pool's maps).

Q2 (cost efficiency per unit) is listed as not answerable: it needs random-draft teams
and the real character cards. Intervals: Wilson score for shares
(:func:`deepsim.report.metrics.wilson`), t intervals of means
(:func:`deepsim.report.metrics.mean_ci`), Newcombe's interval for a difference of two
shares (statsmodels ``confint_proportions_2indep``), and a chi-square test of homogeneity
for the spread over maps (scipy).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from deepsim import stats
from deepsim.report import metrics as M
from deepsim.report.fmt import num as _num
from deepsim.report.fmt import pci as _pci
from deepsim.report.fmt import pct as _pct
from deepsim.report.metrics import mean_text as _mean
from deepsim.report.metrics import share_text as _share
from deepsim.report.model import Section, Table
from deepsim.report.sections import (
    first_last_table,
    game_sections,
    length_table,
    load_questions,
    question_section,
)

__all__ = [
    "DEPENDS",
    "build_matrix",
    "builds_by_players",
    "depends",
    "map_spread",
    "seat_shares",
    "sections",
]

#: the placeholder data each question's numbers rest on (intersected with the run's)
ROSTER = ("roster.units", "roster.builds", "abilities.focus")
DICE = ("colours.white.faces", "colours.red.faces", "colours.black.faces")
MAP = ("map.mix", "map.generator")
DEPENDS = {
    "q1": (*ROSTER, *DICE, *MAP, "lurkers.deck", "loot.deck"),
    "q3": (*ROSTER, *DICE, *MAP),
    "q4": (*ROSTER, *DICE, *MAP),
    "q5": ("lurkers.deck", "loot.deck", *DICE, *MAP, "events.deck"),
    "q6": (*ROSTER, *DICE, *MAP, "lurkers.deck"),
    "q7": (*ROSTER, *DICE),
    "q8": (*MAP, *DICE, "loot.deck"),
    "q9": DICE,
    "q10": ("abilities.focus", *DICE, "loot.deck", "lurkers.deck"),
    "q11": (*MAP, *ROSTER, *DICE),
}
#: the skipped rules (by rule id prefix) each question's numbers would feel
SKIPS = {
    "q1": ("RV-S6", "RV-C4", "RV-K1"), "q3": ("RV-S6", "RV-C4"), "q4": ("RV-E1",),
    "q5": ("RV-P1", "RV-E1"), "q6": ("RV-E1", "RV-K1"), "q7": ("RV-K1",),
    "q8": ("RV-M4",), "q9": (), "q10": ("RV-C4", "RV-S6"), "q11": (),
}


#: the titles of the sections that are not questions (the rest: questions.yaml)
_TITLES = {"rivals-q2-cost": "Q2 Cost efficiency per unit (not answered)"}


@functools.cache
def _questions() -> dict[str, dict[str, str]]:
    """Each section's title and opening paragraph (``questions.yaml`` beside this file)."""
    return load_questions(Path(__file__).with_name("questions.yaml"))


def depends(run, key: str) -> str:
    """The sentence naming the placeholder data and skipped rules a question rests on."""
    active = [p for p in DEPENDS[key] if p in run.placeholders]
    skipped = [r.split(" ", 1)[0] for r in run.skipped_rules
               if r.split(" ", 1)[0].startswith(SKIPS[key])] if SKIPS[key] else []
    if active:
        out = ("**Depends on placeholder data:** " + ", ".join(f"`{p}`" for p in active)
               + " (invented: the printed cards, dice and map diagrams are not in the text; "
               "the answer changes with them).")
    else:
        out = "None of the data these numbers rest on is a placeholder in this run."
    if skipped:
        out += " **Skipped rules that would move it:** " + ", ".join(skipped) + "."
    return out


def _balance(run) -> pd.DataFrame:
    """Seats without the baseline bots' (the balance headlines' rows), of the games with a
    result (a game the round cap stopped is unresolved: in no win share, AMB-26)."""
    seats, _ = run.balance_seats()
    return stats.resolved_seats(seats)


# ---- the numbers ---------------------------------------------------------------------------

def builds_by_players(seats: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per player count and build: seat-games, win share with its Wilson interval, win
    share over fair (``ratio``), and the mean rounds survived.

    Columns ``players``, ``build``, ``games``, ``wins``, ``share``, ``low``, ``high``,
    ``fair``, ``ratio``.
    """
    M.require(seats, ["players", "build", "win", "fair"], "seats")
    seats = stats.resolved_seats(seats)
    rows = []
    for (n, b), g in seats.groupby(["players", "build"], observed=True, sort=True):
        k = float(g["win"].sum())
        m = len(g)
        lo, hi = M.wilson(k, m, alpha)
        fair = float(g["fair"].mean())
        rows.append({"players": int(n), "build": str(b), "games": m, "wins": k,
                     "share": k / m, "low": lo, "high": hi, "fair": fair,
                     "ratio": k / m / fair if fair else np.nan})
    return pd.DataFrame(rows)


def build_matrix(seats: pd.DataFrame) -> pd.DataFrame:
    """2-player games: win share of the row build against the column build (the row
    build's seat-games in games against that build; a mirror's diagonal is 50%)."""
    M.require(seats, ["players", "build", "win", "game"], "seats")
    seats = stats.resolved_seats(seats)
    two = seats[seats["players"] == 2]
    if two.empty:
        return pd.DataFrame()
    a = two[["game", "build", "win", "seat"]]
    pair = a.merge(a, on="game", suffixes=("", "_o"))
    pair = pair[pair["seat"] != pair["seat_o"]]
    tab = pair.groupby(["build", "build_o"], observed=True)["win"].agg(["sum", "count"])
    return tab.reset_index()


def seat_shares(seats: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per player count and seat: seat-games, wins, win share (Wilson), turns played."""
    M.require(seats, ["players", "seat", "win", "turns"], "seats")
    seats = stats.resolved_seats(seats)
    rows = []
    for (n, s), g in seats.groupby(["players", "seat"], sort=True):
        k = float(g["win"].sum())
        m = len(g)
        lo, hi = M.wilson(k, m, alpha)
        rows.append({"players": int(n), "seat": int(s), "games": m, "wins": k,
                     "share": k / m, "low": lo, "high": hi, "turns": float(g["turns"].mean())})
    return pd.DataFrame(rows)


def map_spread(games: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count: the pool's maps, seat 1's win share on each (games per map),
    the spread of those shares and the chi-square test that seat 1's win share is the same
    on every map (p value); ``mulligans`` per map averaged."""
    M.require(games, ["players", "map", "mulligans"], "games")
    M.require(seats, ["game", "seat", "win"], "seats")
    seats = stats.resolved_seats(seats)
    s1 = seats[seats["seat"] == 1][["game", "win"]]
    g = games[["game", "players", "map", "mulligans"]].merge(s1, on="game")
    rows = []
    for n, h in g.groupby("players", sort=True):
        per = h.groupby("map")["win"].agg(["sum", "count"])
        per = per[per["count"] > 0]
        share = per["sum"] / per["count"]
        k = per["sum"].to_numpy()
        m = per["count"].to_numpy()
        p_all = k.sum() / m.sum()
        if 0 < p_all < 1 and len(per) > 1:
            expected = np.stack([m * p_all, m * (1 - p_all)])
            observed = np.stack([k, m - k])
            chi2 = float(((observed - expected) ** 2 / expected).sum())
            p = float(sps.chi2.sf(chi2, len(per) - 1))
        else:
            chi2, p = np.nan, np.nan
        # the spread a fair coin per map would show: binomial SD at the mean games per map
        noise = float(np.sqrt(p_all * (1 - p_all) / max(m.mean(), 1)))
        rows.append({"players": int(n), "maps": len(per), "games_per_map": float(m.mean()),
                     "seat1_share": p_all, "sd": float(share.std(ddof=1)) if len(per) > 1
                     else np.nan, "noise_sd": noise, "p5": float(share.quantile(0.05)),
                     "p95": float(share.quantile(0.95)), "chi2": chi2, "p": p,
                     "mulligans": float(h["mulligans"].mean())})
    return pd.DataFrame(rows)


# ---- the sections ---------------------------------------------------------------------------

def _sec_q1(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    seats = _balance(run)
    s = question_section("rivals-q1-builds", _questions(), depends(run, "q1"))
    t = builds_by_players(seats, a)
    rows = [{"Players": r.players, "Build": r.build, "Seat-games": f"{r.games:,}",
             "Win share": f"{_pct(r.share)} ({_pci(r.low, r.high)})",
             "Fair": _pct(r.fair), "x fair": _num(r.ratio)} for r in t.itertuples()]
    s.tables.append(Table("Win share per build and player count (95% CI)", pd.DataFrame(rows)))
    mx = build_matrix(seats)
    if not mx.empty:
        names = sorted(set(mx["build"].astype(str)) | set(mx["build_o"].astype(str)))
        grid = pd.DataFrame(index=names, columns=names, dtype=object)
        for r in mx.itertuples():
            grid.loc[str(r.build), str(r.build_o)] = (
                f"{_pct(r.sum / r.count)} (n={int(r.count):,})")
        grid = grid.fillna("-").reset_index().rename(columns={"index": "Row vs column"})
        s.tables.append(Table("2 players: row build's win share against the column build",
                              grid))
    return s


def _sec_q2(ctx) -> Section:
    s = Section("rivals-q2-cost", _TITLES["rivals-q2-cost"])
    s.paragraphs.append(
        "Not answerable yet. Pricing each unit (its win-share contribution per Aether) needs "
        "teams whose unit counts vary independently: random legal teams drawn under the "
        "budget per game (a `build: draft` mode, not built), and the real character cards "
        "(34 cards: costs, dice, SPEED, RANGE, hearts, abilities) in place of the five "
        "placeholder archetypes. With the archetypes, a regression would price our "
        "invention.")
    return s


def _sec_q3(ctx) -> Section:
    run = ctx.primary
    seats = _balance(run)
    M.require(seats, ["build", "models_start", "reserve_start", "move_acts", "attack_acts",
                      "attacks", "turns", "win", "fair"], "seats")
    s = question_section("rivals-q3-swarm", _questions(), depends(run, "q3"))
    rows = []
    for b, g in seats.groupby("build", observed=True, sort=True):
        turns = g["turns"].sum()
        rows.append({"Build": str(b), "Seat-games": f"{len(g):,}",
                     "Models": _num(g["models_start"].mean(), ".1f"),
                     "In reserve": _num(g["reserve_start"].mean(), ".1f"),
                     "Move acts / turn": _num(g["move_acts"].sum() / turns if turns else np.nan),
                     "Attack acts / turn": _num(g["attack_acts"].sum() / turns
                                                if turns else np.nan),
                     "Attacks / attack act": _num(g["attacks"].sum() / g["attack_acts"].sum()
                                                  if g["attack_acts"].sum() else np.nan),
                     "x fair": _num(g["win"].sum() / g["fair"].sum())})
    s.tables.append(Table("Action economy per build", pd.DataFrame(rows)))
    return s


def _sec_q4(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    seats = _balance(run)
    s = question_section("rivals-q4-turn-order", _questions(), depends(run, "q4"))
    st = seat_shares(seats, a)
    rows = [{"Players": r.players, "Seat": r.seat, "Seat-games": f"{r.games:,}",
             "Win share": f"{_pct(r.share)} ({_pci(r.low, r.high)})",
             "Fair": _pct(1 / r.players), "x fair": _num(r.share * r.players),
             "Turns": _num(r.turns, ".1f")} for r in st.itertuples()]
    s.tables.append(Table("Win share by seat (95% CI)", pd.DataFrame(rows)))
    s.tables.append(first_last_table(st, a, "Seat 1"))
    return s


def _sec_q5(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g = run.games
    seats = stats.resolved_seats(run.seats)
    M.require(g, ["players", "lurkers_revealed", "treasures", "lurkers_killed",
                  "lurker_attacks", "lurker_wounds", "lurker_kills", "wounds", "kills",
                  "events_drawn"], "games")
    s = question_section("rivals-q5-lurkers", _questions(), depends(run, "q5"))
    rows = []
    for n, h in g.groupby("players", sort=True):
        rows.append({"Players": int(n), "Games": f"{len(h):,}",
                     "Revealed": _mean(h["lurkers_revealed"], a),
                     "Treasure": _mean(h["treasures"], a),
                     "Slain": _mean(h["lurkers_killed"], a),
                     "Lurker rolls": _mean(h["lurker_attacks"], a),
                     "Lurker wounds": _mean(h["lurker_wounds"], a),
                     "Share of wounds": _pct(h["lurker_wounds"].sum()
                                             / max(1, h["wounds"].sum()
                                                   + h["lurker_wounds"].sum())),
                     "Share of kills": _pct(h["lurker_kills"].sum() / max(1, h["kills"].sum()))})
    s.tables.append(Table("Lurkers per game (95% CI)", pd.DataFrame(rows)))
    if "lurkers_killed" in seats.columns:
        srows = []
        k = seats["lurkers_killed"].clip(upper=2)
        for v, h in seats.groupby(k, sort=True):
            srows.append({"Lurkers slain by the seat": f"{int(v)}{'+' if v == 2 else ''}",
                          "Seat-games": f"{len(h):,}",
                          "x fair": _num(h["win"].sum() / h["fair"].sum()),
                          "Loot from Lurkers": _num(h["lurker_loot"].mean()),
                          "Lurker wounds taken": _num(h["lurker_wounds_taken"].mean())})
        s.tables.append(Table("Seats by Lurkers slain (observational)", pd.DataFrame(srows)))
    ev = int(g["events_drawn"].sum())
    s.paragraphs.append(
        f"Events: {ev:,} event cards drawn in this run. "
        + ("The Event deck is empty (RV-E1 skipped: its 25 cards are not in the text), so "
           "the events' swing cannot be measured until a designer supplies the cards."
           if ev == 0 else "The deck is the designer's; its effects are in the trace."))
    return s


def _sec_q6(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g = run.games
    s = question_section("rivals-q6-length", _questions(), depends(run, "q6"))
    s.tables.append(length_table(
        g, a, "Rounds per game (95% CI)",
        lambda r, h: {"Capped": _share(float(r.truncated), int(r.games), a),
                      "First elimination": _mean(h["first_elim_round"][
                          h["first_elim_round"] >= 0], a, ".1f")}))
    if "bot" in run.seats.columns:
        per = run.seats.groupby("game")["bot"].agg(lambda b: "+".join(sorted(set(map(str, b)))))
        gg = g.set_index("game")["truncated"].astype(bool)
        mix = pd.DataFrame({"field": per, "capped": gg.reindex(per.index)})
        trows = []
        for f, h in mix.groupby("field", sort=True):
            trows.append({"Bots in the game": f, "Games": f"{len(h):,}",
                          "Capped": _share(float(h["capped"].sum()), len(h), a)})
        s.tables.append(Table("Capped games by the bots in them (95% CI)",
                              pd.DataFrame(trows)))
    return s


def _sec_q7(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    seats = stats.resolved_seats(run.seats)
    M.require(seats, ["players", "win", "kills", "killers", "elim_round"], "seats")
    s = question_section("rivals-q7-multiplayer", _questions(), depends(run, "q7"))
    rows = []
    for n, h in seats[seats["players"] >= 3].groupby("players", sort=True):
        win = h[h["win"] >= 1.0]
        out = h[h["elim_round"] >= 0]
        rows.append({"Players": int(n), "Games": f"{h['game'].nunique():,}",
                     "Winner made no kill": _share(float((win["kills"] == 0).sum()), len(win),
                                                   a),
                     "Winner's kills": _mean(win["kills"], a, ".1f"),
                     "Eliminated by 2+ rivals": _share(float((out["killers"] >= 2).sum()),
                                                       len(out), a)})
    if rows:
        s.tables.append(Table("Winners and eliminations (95% CI)", pd.DataFrame(rows)))
    else:
        s.paragraphs.append("No 3- or 4-player games in this run.")
    return s


def _sec_q8(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g = run.games
    seats = _balance(run)
    M.require(g, ["rock_tries", "rock_fails", "coral_searches", "loot_found", "swims",
                  "charges", "lands", "turns"], "games")
    s = question_section("rivals-q8-terrain", _questions(), depends(run, "q8"))
    tries = g["rock_tries"].sum()
    turns = g["turns"].sum()
    rows = [{"Games": f"{len(g):,}", "Rock rolls / game": _mean(g["rock_tries"], a),
             "Rock entry success": _share(float(tries - g["rock_fails"].sum()), int(tries), a),
             "Coral searches / game": _mean(g["coral_searches"], a),
             "Loot / game": _mean(g["loot_found"], a),
             "Swims / turn": _num(g["swims"].sum() / turns),
             "Charges / turn": _num(g["charges"].sum() / turns),
             "Lands / turn": _num(g["lands"].sum() / turns)}]
    s.tables.append(Table("Terrain use per game (95% CI)", pd.DataFrame(rows)))
    if "model_rounds_on_rock" in seats.columns and len(seats):
        q = seats["model_rounds_on_rock"]
        band = np.where(q == 0, "none", np.where(q <= q[q > 0].median() if (q > 0).any()
                                                 else 0, "some", "much"))
        srows = []
        for v in ("none", "some", "much"):
            h = seats[band == v]
            if len(h):
                srows.append({"Model-rounds on rock": v, "Seat-games": f"{len(h):,}",
                              "x fair": _num(h["win"].sum() / h["fair"].sum())})
        s.tables.append(Table("Seats by model-rounds on rocks (observational)",
                              pd.DataFrame(srows)))
    return s


def _sec_q9(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g = run.games
    M.require(g, ["explosions", "max_extra_dice", "kills_by_extra_dice", "kills", "attacks"],
              "games")
    cap = run.param("explode.cap")
    s = question_section("rivals-q9-dice", _questions(), depends(run, "q9"))
    kills = g["kills"].sum()
    rows = [{"Games": f"{len(g):,}", "Explosions / attack":
             _num(g["explosions"].sum() / max(1, g["attacks"].sum())),
             "Most extra dice in a roll (mean)": _mean(g["max_extra_dice"], a),
             "Kills needing the extra dice": _share(float(g["kills_by_extra_dice"].sum()),
                                                    int(kills), a),
             "Cap reached": (_share(float((g["max_extra_dice"] >= cap).sum()), len(g), a)
                             if cap is not None else "-")}]
    s.tables.append(Table("Explosions (95% CI)", pd.DataFrame(rows)))
    return s


def _sec_q10(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    seats = run.seats
    g = run.games
    M.require(seats, ["aether_gained", "aether_spent", "aether_end", "focus_used", "turns"],
              "seats")
    s = question_section("rivals-q10-aether", _questions(), depends(run, "q10"))
    rows = []
    for n, h in seats.groupby("players", sort=True):
        gg = g[g["players"] == n]
        rows.append({"Players": int(n), "Seat-games": f"{len(h):,}",
                     "Gained": _mean(h["aether_gained"], a, ".1f"),
                     "Spent": _mean(h["aether_spent"], a, ".1f"),
                     "Left at the end": _mean(h["aether_end"], a, ".1f"),
                     "Focus / turn": _num(h["focus_used"].sum() / max(1, h["turns"].sum())),
                     "Bank empty (rounds / game)": _mean(gg["bank_empty_rounds"], a)})
    s.tables.append(Table("Aether per seat-game (95% CI)", pd.DataFrame(rows)))
    return s


def _sec_q11(ctx) -> Section:
    run = ctx.primary
    s = question_section("rivals-q11-maps", _questions(), depends(run, "q11"))
    t = map_spread(run.games, run.seats)
    rows = [{"Players": r.players, "Maps": r.maps, "Games / map": _num(r.games_per_map, ".0f"),
             "Seat 1 share": _pct(r.seat1_share), "SD over maps": _num(r.sd, ".3f"),
             "Noise SD": _num(r.noise_sd, ".3f"),
             "5th-95th pct": f"{_pct(r.p5)} - {_pct(r.p95)}",
             "chi2 p": _num(r.p, ".3g"), "Mulligans / map": _num(r.mulligans)}
            for r in t.itertuples()]
    s.tables.append(Table("Seat 1's win share across the map pool", pd.DataFrame(rows)))
    return s


def sections(ctx) -> list:
    """Rivals's sections of the report of ``ctx``'s runs as ``(key, title, build)``."""
    return game_sections(_questions(), {
        "rivals-q1-builds": _sec_q1, "rivals-q2-cost": _sec_q2, "rivals-q3-swarm": _sec_q3,
        "rivals-q4-turn-order": _sec_q4, "rivals-q5-lurkers": _sec_q5,
        "rivals-q6-length": _sec_q6, "rivals-q7-multiplayer": _sec_q7,
        "rivals-q8-terrain": _sec_q8, "rivals-q9-dice": _sec_q9, "rivals-q10-aether": _sec_q10,
        "rivals-q11-maps": _sec_q11}, _TITLES)
