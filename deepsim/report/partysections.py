"""The report sections of a co-operative ruleset (:data:`deepsim.rulesets.base.
COOPERATIVE`): the headline (the party's win rate against the target by player count),
the party win rate section with its plot, each class's presence effect and how games end.
The numbers are :mod:`deepsim.report.party`'s; no game is named here.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from deepsim.report import party as P
from deepsim.report import plots
from deepsim.report.context import Context
from deepsim.report.fmt import integer
from deepsim.report.model import Figure, Section, Table

__all__ = ["METHOD", "headline", "language_rows", "standard"]

METHOD = (
    "**A co-operative game** has one result per game, the party's: won or lost, and how "
    "(the ruleset's outcome codes). **Party win rate** = games won / games with a result "
    "(a game a safety cap stopped is left out; so is a game with a seat played by a "
    "baseline bot), with its 95% Wilson score interval, per player count and over all "
    "games. **Verdict** against the designer's target t (the ruleset's data, in the "
    "parameters' hash) with the band b (`coop.band`): *too easy* when the interval's lower "
    "end is above t + b, *too hard* when its upper end is below t - b, *on target* when the "
    "whole interval lies inside t +- b, otherwise *unclear* (more games decide). "
    "**Presence effect** of a class: the party's win rate in games where the class sits at "
    "the table minus in games where it does not, per player count with Newcombe's hybrid "
    "score interval, pooled over player counts with weights n1 n0 / (n1 + n0). With "
    "classes dealt at random per seat it is a randomised comparison; a class in every game "
    "(or none) of a player count has no estimate there. It is unpaired and observational "
    "(different games with and without the class, not the same games with the class "
    "swapped); the paired effect is `deepsim compare` of two runs on one seed that differ "
    "only in one seat's class. In the seats table "
    "each seat's `win` is the party's result and `fair` the target, so `win_share[class]` "
    "is the party's win rate over a class's seat-games.")


def _band(ctx: Context) -> float:
    return float(getattr(ctx.config, "coop_band", 5.0)) / 100


def _judged(ctx: Context) -> tuple[pd.DataFrame, int, int]:
    run = ctx.primary
    return ctx.cached(("party-games",), lambda: P.party_games(
        run.games, run.seats, run.baseline_bots))


def _rates(ctx: Context) -> pd.DataFrame:
    games, _, _ = _judged(ctx)
    return ctx.cached(("party-rates",), lambda: P.party_rates(
        games, alpha=ctx.config.alpha, band=_band(ctx)))


def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _rate_table(rates: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "Games": rates["group"], "Played": rates["games"].map(integer),
        "Won": rates["won"].map(integer), "Win rate": rates["rate"].map(_pct),
        "95% CI": [f"{100 * a:.1f} - {100 * b:.1f}%" for a, b in
                   zip(rates["low"], rates["high"], strict=True)],
        "Target": rates["target"].map(_pct),
        "Rate - target": [f"{100 * e:+.1f} pts" for e in rates["edge"]],
        "Verdict": rates["verdict"]})


def headline(ctx: Context) -> Section:
    """The answer first: the party's win rate with its 95% Wilson interval against the
    designer's target, over all games and per player count, with its verdict; how games
    end; what was left out."""
    s = Section("headline", "Headline")
    rates = _rates(ctx)
    games, n_open, n_base = _judged(ctx)
    band = _band(ctx)
    top = rates.iloc[-1]
    words = [f"{r.group} {r.verdict}" for r in rates.iloc[:-1].itertuples()]
    s.paragraphs.append(
        f"**The party wins {_pct(top['rate'])} of its games (95% CI {100 * top['low']:.1f}"
        f" - {100 * top['high']:.1f}%) against the target {_pct(top['target'])} +- "
        f"{100 * band:g} pts: {top['verdict']}**"
        + (f" ({'; '.join(words)})." if words else "."))
    s.tables.append(Table("", _rate_table(rates)))
    if "outcome" in games.columns and len(games):
        share = games["outcome"].astype(str).value_counts(normalize=True)
        s.paragraphs.append("How games end: " + ", ".join(
            f"{k} {100 * v:.1f}%" for k, v in share.items()) + ".")
    notes = []
    if n_base:
        notes.append(f"{n_base:,} games with a seat played by a baseline bot "
                     f"({', '.join(ctx.primary.baseline_bots)}) are left out")
    if n_open:
        notes.append(f"{n_open:,} unresolved games (a safety cap stopped them) are left out")
    seats = ctx.primary.seats
    if "bot" in seats.columns and len(seats):
        kept = seats[seats["game"].isin(games["game"])]
        share = kept["bot"].astype(str).value_counts(normalize=True)
        notes.append("field: " + ", ".join(f"{b} {100 * v:.0f}%" for b, v in share.items())
                     + " of the seat-games judged")
    if notes:
        s.paragraphs.append("; ".join(notes).capitalize() + ".")
    s.paragraphs.append(
        f"Verdict: *too easy* / *too hard* when the 95% interval lies wholly above / below "
        f"the target +- {100 * band:g} pts (`coop.band`), *on target* when it lies inside "
        "it, otherwise *unclear*.")
    return s


def _rate_plot(rates: pd.DataFrame, band: float, footer: str) -> bytes:
    fig = plots.new_figure(figsize=(7.2, 0.35 * len(rates) + 1.3))
    ax = fig.add_subplot()
    y = np.arange(len(rates))[::-1]
    t = float(rates["target"].iloc[-1])
    ax.axvspan(100 * (t - band), 100 * (t + band), color="#2b7bba", alpha=0.12,
               label=f"target +- {100 * band:g} pts")
    ax.axvline(100 * t, color="#2b7bba", lw=1)
    colours = {"too easy": "#d35400", "too hard": "#c0392b", "on target": "#27ae60",
               "unclear": "#999999"}
    for yi, r in zip(y, rates.itertuples(), strict=True):
        c = colours.get(r.verdict, "#333333")
        ax.errorbar(100 * r.rate, yi, xerr=[[100 * (r.rate - r.low)], [100 * (r.high - r.rate)]],
                    fmt="o", color=c, capsize=3)
    ax.set_yticks(y, list(rates["group"]))
    ax.set_xlabel("party win rate (%)")
    ax.set_xlim(0, 100)
    ax.set_title("Party win rate with 95% Wilson intervals; colour = verdict")
    ax.legend(loc="lower right", fontsize=7)
    return plots.to_png(fig, footer)


def party_rate(ctx: Context, foot: str) -> Section:
    """The party's win rate per player count (and difficulty, when the games table has a
    ``difficulty`` column) with its plot."""
    s = Section("party", "Party win rate")
    games, _, _ = _judged(ctx)
    by = ("players", "difficulty")
    rates = P.party_rates(games, alpha=ctx.config.alpha, band=_band(ctx), by=by)
    s.paragraphs.append("Games won over games with a result, with 95% Wilson intervals, per "
                        "player count" + (" and difficulty" if "difficulty" in games.columns
                                          else "") + ", against the designer's target.")
    s.figures.append(Figure("party_win_rate.png", _rate_plot(rates, _band(ctx), foot),
                            "The party's win rate per player count and over all games; "
                            "band = target +- coop.band."))
    s.tables.append(Table("", _rate_table(rates)))
    return s


def class_effects(ctx: Context, foot: str) -> Section:
    """Each member of the faction column (a class): its presence effect on the party's
    win rate, per player count and pooled."""
    rs = ctx.rs
    noun = rs.faction_label
    s = Section("classes", f"Presence effect per {noun}")
    games, _, _ = _judged(ctx)
    eff = P.class_effects(games, ctx.primary.seats, rs.faction_column,
                          alpha=ctx.config.alpha)
    s.paragraphs.append(
        f"The party's win rate in games where a {noun} sits at the table minus in games "
        f"where it does not, per player count (Newcombe's 95% interval) and pooled over "
        f"player counts (stratified). A {noun} in every game of a player count, or in none, "
        "has no estimate there. A party is a fixed number of seats, so a present "
        f"{noun} takes the seat of another: the effect is against the {plural(noun)} it "
        "replaces, as dealt.")
    s.paragraphs.append(
        f"**An unpaired, observational estimate.** It compares different games (those "
        f"with the {noun} against those without, stratified by player count), not the "
        f"same games with the {noun} swapped: it reads as the {noun}'s own effect only as "
        f"far as the scenario deals {plural(noun)} at random per seat, and with {plural(noun)} "
        "fixed or chosen it is an association. The paired effect: two scenarios that "
        f"differ only in one seat's {noun} (the other seats and bots the same), run on one "
        "seed, then `deepsim compare A B`: the difference of the party's win rate on the "
        "same games (common random numbers), with its paired interval.")

    def pts(x: float) -> str:
        return "-" if math.isnan(x) else f"{100 * x:+.1f}"

    s.tables.append(Table("", pd.DataFrame({
        noun.capitalize(): eff["member"], "Players": eff["stratum"],
        "With: games": eff["with_games"].map(integer),
        "With: win rate": eff["with_rate"].map(_pct),
        "Without: games": eff["without_games"].map(integer),
        "Without: win rate": eff["without_rate"].map(_pct),
        "Effect (pts)": eff["effect"].map(pts),
        "95% CI": [("-" if math.isnan(a) else f"{pts(a)} to {pts(b)}")
                   for a, b in zip(eff["low"], eff["high"], strict=True)],
        "Note": eff["note"]})))
    return s


def plural(noun: str) -> str:
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "es" if noun.endswith("s") \
        else noun + "s"


def outcomes(ctx: Context, foot: str) -> Section:
    """How games end, per player count: the share of each outcome code."""
    s = Section("outcomes", "How games end")
    games, _, _ = _judged(ctx)
    if "outcome" not in games.columns:
        raise KeyError("outcome")
    tab = pd.crosstab(games["players"] if "players" in games.columns else
                      pd.Series("all", index=games.index, name="players"),
                      games["outcome"].astype(str), normalize="index")
    s.paragraphs.append("The share of games ending in each of the ruleset's outcomes, per "
                        "player count.")
    frame = (100 * tab).round(1).astype(str) + "%"
    frame.insert(0, "Players", tab.index.astype(str))
    s.tables.append(Table("", frame.reset_index(drop=True)))
    return s


def standard(ctx: Context) -> list:
    """The co-operative sections as ``(key, title, build)``: party win rate, presence
    effect per class, how games end."""
    noun = ctx.rs.faction_label
    return [("party", "Party win rate", party_rate),
            ("classes", f"Presence effect per {noun}", class_effects),
            ("outcomes", "How games end", outcomes)]


def language_rows(ctx: Context) -> list[tuple[str, str]]:
    """The co-operative sections' numbers in the metric language."""
    f = ctx.rs.faction_column
    return [("Headline, party win rate", ("victory, victory[players=3], victory_edge, "
                                          "victory_error (tune's objective toward the "
                                          "target)")),
            (f"Per {ctx.rs.faction_label}", (f"win_share[{f}] (the party's win rate over "
                                             f"the {f}'s seat-games), win_edge[{f}] (minus "
                                             "the target), faction_spread")),
            ("Game length", "rounds[players]")]
