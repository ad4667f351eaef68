"""Abyss's own sections of the balance report (the shared report's ``report_sections`` hook).

The shared report (:mod:`deepsim.report.build`) writes what every ruleset has: win share per
faction (here: per bot style, the ``faction_column``), seat advantage and the method. These
sections add game length, margins and tie-breaks, and answer the digest's balance questions
(``../shared/digests/abyss.md`` §E) that placeholder data allows:

- §E1 seat (start-player) advantage at 2, 3 and 4 players;
- §E2 auction pricing: buys per price, what a pearl buys, the active player's income;
- §E3 action mix per style and the Council's calibration;
- §E4 the Threat curve: fights per position, what each position pays;
- §E5 end-trigger pace: 7 lords against an exhausted Court, and whether locations matter;
- §E6 keys and locations: VP per key, face-up against drawing n, covered lords;
- §E8 affiliation scoring and the lowest/highest reading of the final affiliation (AMB-A3);
- §E9 the pearl economy: inflation, the slot-4 bonus, the pearl tie-break;
- §E10 player-count scaling.

§E7 (lord pricing) needs the real lord cards and is not answered. Every section names the
placeholder data (``Prepared.placeholders``) its numbers depend on. Intervals: Wilson score
(:func:`deepsim.report.metrics.wilson`), t intervals of means
(:func:`deepsim.report.metrics.mean_ci`), ratios of sums with games as clusters
(:func:`deepsim.report.metrics.ratio_of_sums`), differences of two shares by Newcombe's
method (statsmodels ``confint_proportions_2indep``).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from deepsim.report import metrics as M
from deepsim.report.fmt import num as _num
from deepsim.report.fmt import pci as _pci
from deepsim.report.fmt import pct as _pct
from deepsim.report.metrics import mean_text as _mean
from deepsim.report.metrics import share_text as _share
from deepsim.report.model import Figure, Section, Table
from deepsim.report.plots import new_figure, to_png
from deepsim.report.sections import (
    first_last_table,
    game_sections,
    length_table,
    load_questions,
    question_section,
)
from deepsim.rulesets.abyss import layout as L
from deepsim.stats import resolved_seats

__all__ = [
    "action_mix",
    "auction_prices",
    "depends",
    "end_pace",
    "seat_turns",
    "sections",
    "threat_curve",
]

#: the placeholder data each question's numbers depend on (intersected with the run's)
DEPENDS = {
    "length": ("lords.deck", "depth.ally_counts", "explore.row_length", "threat.track"),
    "e1": ("lords.deck", "depth.ally_counts", "locations.vp", "threat.track"),
    "e2": ("depth.ally_counts", "explore.row_length", "lords.deck"),
    "e3": ("depth.ally_counts", "explore.row_length", "lords.deck"),
    "e4": ("threat.track", "keys.token_supply", "locations.vp"),
    "e5": ("lords.deck", "locations.vp", "keys.token_supply", "threat.track"),
    "e6": ("locations.vp", "keys.token_supply", "threat.track", "lords.deck"),
    "e8": ("depth.ally_counts", "lords.deck"),
    "e9": ("lords.deck", "threat.track", "explore.row_length"),
    "e10": ("lords.deck", "depth.ally_counts", "explore.row_length", "threat.track",
            "locations.vp", "keys.token_supply"),
}


# --- formatting -----------------------------------------------------------------------------

def _mci(m, lo, hi, spec: str = ".2f") -> str:
    return f"{_num(m, spec)} ({_num(lo, spec)} - {_num(hi, spec)})"


def _ratio(y, x, alpha: float, spec: str = ".2f") -> str:
    """Sum y / sum x over games (arrays per game) with the cluster interval."""
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if x.sum() <= 0:
        return "-"
    if y.size < 3:
        return _num(y.sum() / x.sum(), spec)
    return _mci(*M.ratio_of_sums(y, x, alpha), spec=spec)


def _seats(run) -> pd.DataFrame:
    """The run's seat rows of the games that have a result: a game the safety cap stopped
    (unresolved, win NaN) is left out of every Abyss table (deepsim.rulesets.base.
    UNRESOLVED)."""
    return resolved_seats(run.seats)


def court_end_bound(run, players: int) -> dict:
    """Can the Court end trigger (AB-G1: a refill the lord deck cannot complete) end a
    ``players``-player game of ``run``'s rules at all?

    Lords enter the Court only from the deck (setup, refills, plots) and leave it only by
    purchase, so after P purchases the deck holds D - P - C lords (D: the deck's lords, C:
    the Court's); a refill needs slots - C and fails only when P > D - slots, whatever the
    plots. Before any player owns ``end.lords_to_end`` (L) lords there are at most
    players x (L - 1) purchases, the one that makes L included: the Court trigger can end a
    game only if players x (L - 1) + 1 > D - slots. With no lord ability simulated (AB-L5
    skipped) nothing else moves lords.

    Returns ``{"possible": bool, "purchases_needed": D - slots + 1, "purchases_max":
    players x (L - 1) + 1}`` (None values when the run's parameters lack a number).
    """
    deck = run.param("lords.deck")
    slots = run.param("court.slots")
    to_end = run.param("end.lords_to_end")
    if not isinstance(deck, list) or slots is None or to_end is None:
        return {"possible": None, "purchases_needed": None, "purchases_max": None}
    need = len(deck) - int(slots) + 1
    most = int(players) * (int(to_end) - 1) + 1
    return {"possible": most >= need, "purchases_needed": need, "purchases_max": most}


def court_end_text(run, counts) -> str:
    """The §E5 caveat: '' when the Court trigger can occur at some player count of the run,
    else why the end-pace question cannot be answered with this data."""
    bounds = [court_end_bound(run, n) for n in counts]
    if not bounds or any(b["possible"] is None or b["possible"] for b in bounds):
        return ""
    b = bounds[-1]
    return (f"**Not answerable with this data: the Court trigger cannot occur.** With "
            f"{run.param('lords.deck') and len(run.param('lords.deck'))} lords, "
            f"{run.param('court.slots')} Court slots and {run.param('end.lords_to_end')} "
            f"lords to end, the deck runs short only at the {b['purchases_needed']}th "
            f"purchase, while a {max(counts)}-player game has at most "
            f"{b['purchases_max']} before a player owns {run.param('end.lords_to_end')} "
            "lords (lords enter the Court only from the deck and leave it only by purchase). "
            "So every game ends by the lords count here, by arithmetic, not by play; which "
            "trigger ends the real game depends on the lord abilities that move lords "
            "(AB-L5, not simulated) and on the real deck.")


#: the titles of the sections that are not questions (the rest: questions.yaml)
_TITLES = {"abyss-margins": "Margins and tie-breaks",
           "abyss-runs": "Abyss sections: the first run only",
           "abyss-e7": "§E7 Lord pricing (not answered)"}


@functools.cache
def _questions() -> dict[str, dict[str, str]]:
    """Each section's title and opening paragraph (``questions.yaml`` beside this file)."""
    return load_questions(Path(__file__).with_name("questions.yaml"))


def depends(run, key: str) -> str:
    """The sentence naming the placeholder data a question's numbers rest on in ``run``."""
    active = [p for p in DEPENDS[key] if p in run.placeholders]
    if not active:
        return ("None of the data these numbers rest on is a placeholder in this run "
                f"({', '.join(DEPENDS[key])} were given).")
    return ("**Depends on placeholder data:** " + ", ".join(f"`{p}`" for p in active)
            + " (invented, digest §D; the answer changes with them).")


def _footer(ctx) -> str:
    r = ctx.primary
    return (f"{r.scenario_name}: seed {r.seed}, {r.n_games:,} games, params "
            f"{r.params_hash[:12]}")


def _labels(ctx) -> list[str]:
    return ctx.run_labels() if len(ctx.runs) > 1 else ["this run"]


def _with_run(rows: list[dict], several: bool) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if not several and "Run" in df.columns:
        df = df.drop(columns=["Run"])
    return df


def _per_game(seats: pd.DataFrame, col: str) -> pd.Series:
    return seats.groupby("game", sort=True)[col].sum()


# --- the numbers ----------------------------------------------------------------------------

def seat_turns(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05
               ) -> pd.DataFrame:
    """Per player count and seat: seat-games, win share (Wilson), turns played, score.

    Columns ``players``, ``seat`` (0 = the start player), ``games``, ``wins``,
    ``win_share``, ``ci_low``, ``ci_high``, ``turns`` (mean), ``score`` (mean),
    ``triggered`` (share of games it triggered the end).
    """
    M.require(seats, ["players", "seat", "win", "turns", "score", "triggered"], "seats")
    rows = []
    for (n, s), g in seats.groupby(["players", "seat"], sort=True):
        k = float(g["win"].sum())
        m = len(g)
        lo, hi = M.wilson(k, m, alpha)
        rows.append({"players": int(n), "seat": int(s), "games": m, "wins": k,
                     "win_share": k / m, "ci_low": lo, "ci_high": hi,
                     "turns": float(g["turns"].mean()), "score": float(g["score"].mean()),
                     "triggered": float(g["triggered"].mean())})
    return pd.DataFrame(rows)


def auction_prices(games: pd.DataFrame) -> pd.DataFrame:
    """Allies bought per game at the 1st, 2nd, 3rd and 4th+ purchase of a turn (prices
    first_price + k x price_step: 1, 2, 3, 4+ pearls with the defaults), by player count."""
    cols = ["buys_p1", "buys_p2", "buys_p3", "buys_p4plus"]
    M.require(games, ["players", "explores", "offers", "buys", *cols], "games")
    out = games.groupby("players", sort=True)[["explores", "offers", "buys", *cols]].sum()
    out["games"] = games.groupby("players", sort=True).size()
    return out.reset_index()


def action_mix(seats: pd.DataFrame, by: str = "bot") -> pd.DataFrame:
    """Share of turns per main action (AB-T1) by ``by``: explore, council, recruit, pass."""
    M.require(seats, [by, "turns", "explores", "councils", "recruits", "passes"], "seats")
    g = seats.groupby(by, observed=True, sort=True)[
        ["turns", "explores", "councils", "recruits", "passes", "plots"]].sum()
    for c in ("explores", "councils", "recruits", "passes"):
        g[f"{c}_share"] = g[c] / g["turns"]
    g["player_games"] = seats.groupby(by, observed=True, sort=True).size()
    return g.reset_index()


def threat_curve(games: pd.DataFrame, track: list[dict] | None) -> pd.DataFrame:
    """Fights per Threat position: count and share of all fights, with the reward printed
    at that position (``track``: the run's ``threat.track``)."""
    n_pos = len(track) if track else L.MAX_THREAT
    cols = [f"fights_pos{i + 1}" for i in range(min(n_pos, L.MAX_THREAT))]
    M.require(games, cols, "games")
    total = float(games[cols].to_numpy().sum())
    rows = []
    for i, c in enumerate(cols):
        k = float(games[c].sum())
        step = (track[i] if track and i < len(track) else {}) or {}
        rows.append({"position": i + 1, "fights": k,
                     "share": k / total if total else math.nan,
                     "tokens": int(step.get("tokens", 0)), "pearls": int(step.get("pearls", 0)),
                     "keys": int(step.get("keys", 0))})
    return pd.DataFrame(rows)


def end_pace(games: pd.DataFrame) -> pd.DataFrame:
    """By player count and end cause (AB-G1): games, share, mean turns and rounds."""
    M.require(games, ["players", "end", "turns", "rounds"], "games")
    rows = []
    for n, g in games.groupby("players", sort=True):
        for cause in L.END_CAUSES:
            h = g[g["end"].astype(str) == cause]
            rows.append({"players": int(n), "end": cause, "games": len(h), "of": len(g),
                         "turns": float(h["turns"].mean()) if len(h) else math.nan,
                         "rounds": float(h["rounds"].mean()) if len(h) else math.nan})
    return pd.DataFrame(rows)


# --- the sections ---------------------------------------------------------------------------

def _sec_length(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g = run.games
    s = question_section("abyss-length", _questions(), depends(run, "length"))
    s.tables.append(length_table(
        g, a, "Rounds and turns per game (95% CI)",
        lambda r, h: {"Turns": _mean(h["turns"], a, ".1f"),
                      "Truncated": f"{int(r.truncated):,}"}))
    pace = end_pace(g)
    prow = []
    for r in pace.itertuples():
        prow.append({"Players": r.players, "End": r.end,
                     "Games": f"{r.games:,}", "Share": _share(r.games, r.of, a),
                     "Mean turns": _num(r.turns, ".1f"), "Mean rounds": _num(r.rounds, ".1f")})
    s.tables.append(Table("End triggers (AB-G1; 95% CI)", pd.DataFrame(prow)))
    s.figures.append(Figure("abyss_rounds.png", _rounds_plot(g, _footer(ctx)),
                            "Share of games by rounds played, per player count."))
    return s


def _sec_margins(ctx) -> Section:
    s = Section("abyss-margins", _TITLES["abyss-margins"])
    a = ctx.config.alpha
    g = ctx.primary.games
    s.paragraphs.append(
        "Winner's score minus the runner-up's (absolute, and over the winner's score), "
        "and how the winner was decided (AB-G5): on score, by the pearl tie-break, by the "
        "lords' cost values (AMB-A15), or shared (level throughout).")
    M.require(g, ["players", "margin", "margin_rel", "decided_by"], "games")
    rows = []
    groups = [(str(int(p)), h) for p, h in g.groupby("players", sort=True)] + [("all", g)]
    for label, h in groups:
        n = len(h)
        by = h["decided_by"].astype(str)
        rows.append({"Players": label, "Games": f"{n:,}",
                     "Margin": _mean(h["margin"], a, ".1f"),
                     "Relative": _mean(h["margin_rel"], a, ".3f"),
                     "Ties on score": _share(float((by != "score").sum()), n, a),
                     "Pearls decide": _share(float((by == "pearls").sum()), n, a),
                     "Lords decide": _share(float((by == "lords").sum()), n, a),
                     "Shared": _share(float((by == "shared").sum()), n, a)})
    s.tables.append(Table("Margins and tie-breaks (95% CI)", pd.DataFrame(rows)))
    return s


def _sec_e1(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    s = question_section("abyss-e1-seats", _questions(), depends(run, "e1"))
    st = seat_turns(run.games, _seats(run), a)
    rows = []
    for r in st.itertuples():
        rows.append({"Players": r.players, "Seat": r.seat, "Seat-games": f"{r.games:,}",
                     "Win share": f"{_pct(r.win_share)} ({_pci(r.ci_low, r.ci_high)})",
                     "Fair": _pct(1 / r.players), "x fair": _num(r.win_share * r.players),
                     "Turns": _num(r.turns, ".1f"), "Score": _num(r.score, ".1f"),
                     "Triggered the end": _pct(r.triggered)})
    s.tables.append(Table("Win share by seat (95% CI)", pd.DataFrame(rows)))
    s.tables.append(first_last_table(st, a, "First seat"))
    return s


def _sec_e2(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g, seats = run.games, _seats(run)
    s = question_section("abyss-e2-auction", _questions(), depends(run, "e2"))
    ap = auction_prices(g)
    rows = []
    for r in ap.itertuples():
        h = g[g["players"] == r.players]
        rows.append({"Players": r.players, "Games": f"{r.games:,}",
                     "Offers / game": _num(r.offers / r.games),
                     "Buys / game": _num(r.buys / r.games),
                     "Accepted": _share(r.buys, int(r.offers), a),
                     "at price 1": _num(r.buys_p1 / r.games, ".3f"),
                     "at price 2": _num(r.buys_p2 / r.games, ".3f"),
                     "at price 3": _num(r.buys_p3 / r.games, ".3f"),
                     "4+": _num(r.buys_p4plus / r.games, ".3f"),
                     "Income / Explore": _ratio(h["pearls_auction"], h["explores"], a)})
    s.tables.append(Table("Allies bought per game by the price paid (95% CI)",
                          pd.DataFrame(rows)))
    brows = []
    for bot, h in seats.groupby("bot", observed=True, sort=True):
        pg = h.groupby("game")
        brows.append({"Bot": str(bot), "Player-games": f"{len(h):,}",
                      "Buys / pg": _num(h["buys"].mean()),
                      "Pearls per ally bought": _ratio(pg["buy_pearls"].sum(),
                                                       pg["buys"].sum(), a),
                      "Value per ally bought": _ratio(pg["bought_value"].sum(),
                                                      pg["buys"].sum(), a),
                      "Takes / Explore": _ratio(pg["takes"].sum(), pg["explores"].sum(), a),
                      "Income / Explore": _ratio(pg["sale_pearls"].sum(),
                                                 pg["explores"].sum(), a),
                      "Win share": _share(float(h["win"].sum()), len(h), a)})
    s.tables.append(Table("By bot style (95% CI)", pd.DataFrame(brows)))
    return s


def _sec_e3(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    seats = _seats(run)
    s = question_section("abyss-e3-actions", _questions(), depends(run, "e3"))
    mix = action_mix(seats)
    rows = []
    for r in mix.itertuples():
        rows.append({"Bot": str(r.bot), "Player-games": f"{int(r.player_games):,}",
                     "Explore": _pct(r.explores_share), "Council": _pct(r.councils_share),
                     "Recruit": _pct(r.recruits_share), "Pass": _pct(r.passes_share, 2),
                     "Plots / pg": _num(r.plots / r.player_games)})
    s.tables.append(Table("Share of turns by action", pd.DataFrame(rows)))
    crows = []
    mean_v = _deck_mean(run)
    for bot, h in seats.groupby("bot", observed=True, sort=True):
        pg = h.groupby("game")
        crows.append({"Bot": str(bot),
                      "Cards per Council": _ratio(pg["council_cards"].sum(),
                                                  pg["councils"].sum(), a),
                      "Value per Council card": _ratio(pg["council_value"].sum(),
                                                       pg["council_cards"].sum(), a),
                      "Value per ally taken from the row": _ratio(pg["take_value"].sum(),
                                                                  pg["takes"].sum(), a),
                      "Value per ally bought": _ratio(pg["bought_value"].sum(),
                                                      pg["buys"].sum(), a)})
    s.tables.append(Table(f"What each action yields (95% CI; the Depth deck's mean ally value "
                          f"is {_num(mean_v)})", pd.DataFrame(crows)))
    return s


def _deck_mean(run) -> float:
    counts = run.param("depth.ally_counts")
    if not counts:
        return math.nan
    return sum((v + 1) * c for v, c in enumerate(counts)) / sum(counts)


def _token_mean(run) -> float:
    """Mean VP of the run's Monster tokens (``monster_tokens``: VP -> copies)."""
    pre = "monster_tokens."
    tok = {k[len(pre):]: v for k, v in run.params.items() if k.startswith(pre)}
    n = sum(int(v) for v in tok.values())
    return sum(float(k) * int(v) for k, v in tok.items()) / n if n else math.nan


def _sec_e4(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g = run.games
    track = run.param("threat.track") or []
    locs = run.param("locations.vp") or []
    per_loc = run.param("keys.per_location") or 3
    tmean = _token_mean(run)
    key_vp = (sum(locs) / len(locs) / per_loc) if locs else math.nan
    s = question_section("abyss-e4-threat", _questions(), depends(run, "e4"),
        tmean=_num(tmean), key_vp=_num(key_vp), deck_mean=_num(_deck_mean(run)))
    tc = threat_curve(g, track)
    rows = []
    for r in tc.itertuples():
        vp = r.tokens * tmean + r.keys * key_vp + r.pearls
        rows.append({"Position": r.position,
                     "Reward": ", ".join(x for x in (
                         f"{r.tokens} token{'s' if r.tokens != 1 else ''}" if r.tokens else "",
                         f"{r.pearls} pearl{'s' if r.pearls != 1 else ''}" if r.pearls else "",
                         f"{r.keys} key{'s' if r.keys != 1 else ''}" if r.keys else "")
                         if x) or "-",
                     "Worth (VP)": _num(vp), "Fights": f"{int(r.fights):,}",
                     "Share of fights": _pct(r.share)})
    s.tables.append(Table("Fights by Threat position", pd.DataFrame(rows)))
    seats = _seats(run)
    brows = []
    for bot, h in seats.groupby("bot", observed=True, sort=True):
        pg = h.groupby("game")
        brows.append({"Bot": str(bot), "Fights / pg": _num(h["fights"].mean()),
                      "Leaves / pg": _num(h["leaves"].mean()),
                      "Monster VP / pg": _mean(h["monster_vp"], a),
                      "Monster VP per fight": _ratio(pg["monster_vp"].sum(),
                                                     pg["fights"].sum(), a),
                      "Key tokens / pg": _num(h["key_tokens_won"].mean()),
                      "Win share": _share(float(h["win"].sum()), len(h), a)})
    s.tables.append(Table("By bot style (95% CI)", pd.DataFrame(brows)))
    mons = float(g["monsters_revealed"].sum())
    s.paragraphs.append(
        f"Monsters revealed: {_num(mons / max(len(g), 1))} per game; fought "
        f"{_pct(float(g['fights'].sum()) / mons if mons else math.nan)}, in the last slot "
        f"(AMB-A1) {_num(float(g['last_slot_fights'].sum()) / max(len(g), 1), '.3f')} per "
        "game.")
    return s


def _sec_e5(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g, seats = run.games, _seats(run)
    s = question_section("abyss-e5-pace", _questions(), depends(run, "e5"))
    caveat = court_end_text(run, sorted(int(p) for p in g["players"].unique()))
    if caveat:
        s.paragraphs.append(caveat)
    win = seats[seats["win"] > 0]
    rows = []
    for n, h in g.groupby("players", sort=True):
        w = win[win["players"] == n]
        loc_share = (w["loc_vp"].sum() / w["score"].sum()) if w["score"].sum() else math.nan
        rows.append({"Players": int(n), "Games": f"{len(h):,}",
                     "Court exhausted": _share(float((h["end"].astype(str) == "court").sum()
                                                     + (h["end"].astype(str) == "both").sum()),
                                               len(h), a),
                     "Lords left in the deck": _mean(h["lord_deck_left"], a, ".1f"),
                     "Locations / game": _mean(h["locations"], a),
                     "Games without a location": _share(float((h["locations"] == 0).sum()),
                                                        len(h), a),
                     "Winner's score from locations": _pct(loc_share)})
    s.tables.append(Table("Pace and locations (95% CI)", pd.DataFrame(rows)))
    trig = seats[seats["triggered"] > 0]
    brows = []
    for bot, h in seats.groupby("bot", observed=True, sort=True):
        t = trig[trig["bot"] == bot]
        brows.append({"Bot": str(bot), "Player-games": f"{len(h):,}",
                      "Triggers the end": _share(float(len(t)), len(h), a),
                      "Wins when it triggers": _share(float(t["win"].sum()), len(t), a),
                      "Lords / pg": _num(h["lords"].mean()),
                      "Locations / pg": _num(h["locations"].mean())})
    s.tables.append(Table("Who ends the game (95% CI)", pd.DataFrame(brows)))
    return s


def _sec_e6(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g, seats = run.games, _seats(run)
    per = run.param("keys.per_location") or 3
    s = question_section("abyss-e6-keys", _questions(), depends(run, "e6"),
        per=per)
    rows = []
    tot = float(g["locations"].sum())
    for label, nc, vc in [("face up", "loc_face_up", "loc_vp_face_up")] + [
            (f"draw {i + 1}", f"loc_draw{i + 1}", f"loc_vp_draw{i + 1}") for i in range(4)]:
        k = float(g[nc].sum())
        rows.append({"Way (AB-K2)": label, "Locations": f"{int(k):,}",
                     "Share": _pct(k / tot if tot else math.nan),
                     "Mean VP": _ratio(g[vc], g[nc], a),
                     "VP per key": _num(float(g[vc].sum()) / k / per if k else math.nan)})
    s.tables.append(Table("Locations by the way they were taken (95% CI)",
                          pd.DataFrame(rows)))
    brows = []
    for bot, h in seats.groupby("bot", observed=True, sort=True):
        pg = h.groupby("game")
        brows.append({"Bot": str(bot), "Locations / pg": _num(h["locations"].mean()),
                      "Location VP / pg": _mean(h["loc_vp"], a),
                      "Keyed lords / pg": _num(h["lords_keyed"].mean()),
                      "Lords covered / pg": _num(h["lords_covered"].mean()),
                      "Key tokens used / pg": _num(h["key_tokens_used"].mean()),
                      "Drawn (not face up)": _ratio(pg["loc_drawn"].sum(),
                                                    pg["locations"].sum(), a)})
    s.tables.append(Table("By bot style (95% CI)", pd.DataFrame(brows)))
    return s


def _sec_e8(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g, seats = run.games, _seats(run)
    reading = run.param("end.final_affiliation", "lowest")
    other = "highest" if reading == "lowest" else "lowest"
    s = question_section("abyss-e8-affiliation", _questions(), depends(run, "e8"),
        reading=reading, other=other)
    rows = []
    for n, h in seats.groupby("players", sort=True):
        gg = g[g["players"] == n]
        rows.append({"Players": int(n), "Player-games": f"{len(h):,}",
                     "Ally VP / pg": _mean(h["ally_vp"], a),
                     "Share of the score": _pct(h["ally_vp"].sum() / h["score"].sum()),
                     "From the final affiliation": _mean(h["final_aff_gain"], a),
                     f"Ally VP if {other}": _mean(h["ally_vp_other_reading"], a),
                     f"Winner differs if {other}": _share(
                         float(gg["winner_differs_other_reading"].sum()), len(gg), a)})
    s.tables.append(Table("Affiliated allies' points (95% CI)", pd.DataFrame(rows)))
    return s


def _sec_e9(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g, seats = run.games, _seats(run)
    s = question_section("abyss-e9-pearls", _questions(), depends(run, "e9"))
    rows = []
    for n, h in g.groupby("players", sort=True):
        row = {"Players": int(n), "Games": f"{len(h):,}",
               "From the bank / game": _num(h["pearls_from_bank"].mean(), ".1f"),
               "To the bank / game": _num(h["pearls_to_bank"].mean(), ".1f"),
               "Auction / game": _num(h["pearls_auction"].mean(), ".1f")}
        for r in L.PEARL_ROUNDS:
            x = h[f"pearls_r{r}"]
            x = x[x >= 0]
            row[f"Held after round {r}"] = _num(x.mean() if len(x) else math.nan, ".1f")
        row["Pearl tie-break decides"] = _share(
            float((h["decided_by"].astype(str) == "pearls").sum()), len(h), a)
        rows.append(row)
    s.tables.append(Table("Pearls per game (95% CI)", pd.DataFrame(rows)))
    brows = []
    for bot, h in seats.groupby("bot", observed=True, sort=True):
        has = h["refill_bonus_pearls"] > 0
        brows.append({"Bot": str(bot), "Player-games": f"{len(h):,}",
                      "Refill bonus pearls / pg": _num(h["refill_bonus_pearls"].mean()),
                      "Top-up pearls / pg": _num(h["topup_pearls"].mean()),
                      "Pearls at the end": _mean(h["pearls"], a),
                      "Win share with a refill bonus": _share(float(h.loc[has, "win"].sum()),
                                                              int(has.sum()), a),
                      "... without": _share(float(h.loc[~has, "win"].sum()),
                                            int((~has).sum()), a)})
    s.tables.append(Table("By bot style (95% CI)", pd.DataFrame(brows),
                          note="The win shares with and without a refill bonus compare "
                               "seats, not causes: a seat that recruits often both earns "
                               "bonuses and wins."))
    return s


def _sec_e10(ctx) -> Section:
    a = ctx.config.alpha
    run = ctx.primary
    g, seats = run.games, _seats(run)
    s = question_section("abyss-e10-players", _questions(), depends(run, "e10"))
    rows = []
    for n, h in g.groupby("players", sort=True):
        sh = seats[seats["players"] == n]
        w = sh[sh["win"] > 0]
        seat_ws = sh.groupby("seat")["win"].mean()
        bot_ws = sh.groupby("bot", observed=True)["win"].mean()
        rows.append({"Players": int(n), "Games": f"{len(h):,}",
                     "Rounds": _num(h["rounds"].mean(), ".1f"),
                     "Turns": _num(h["turns"].mean(), ".1f"),
                     "Buys per Explore": _ratio(h["buys"], h["explores"], a),
                     "Winner's score": _mean(w["score"], a, ".1f"),
                     "Score SD": _num(float(sh["score"].std()), ".1f"),
                     "Relative margin": _mean(h["margin_rel"], a, ".3f"),
                     "Seat spread": f"{100 * float((seat_ws - 1 / n).abs().max()):.1f} pp",
                     "Style spread": f"{100 * float((bot_ws - 1 / n).abs().max()):.1f} pp"})
    s.tables.append(Table("By player count (95% CI)", pd.DataFrame(rows)))
    return s


def _sec_runs(ctx) -> Section:
    runs = Section("abyss-runs", _TITLES["abyss-runs"])
    runs.paragraphs.append(
        "The Abyss sections above describe the first run given ("
        f"`{ctx.primary.path}`); the other runs are listed in the header. To compare "
        "two runs of the same seed game by game, use `deepsim compare RUN_A RUN_B "
        "--metric SPEC` (paired differences with their interval), or report each run "
        "on its own.")
    return runs


def _sec_e7(ctx) -> Section:
    note = Section("abyss-e7", _TITLES["abyss-e7"])
    note.paragraphs.append(
        "VP per unit of ally value spent across cost profiles needs the real lord cards "
        "(digest §E7); with the invented vanilla deck (`lords.deck`) any answer would "
        "describe the invention. Give the real lords with a scenario's `lords: PATH` and "
        "read §E5/§E10 and the win shares again.")
    return note


def sections(ctx) -> list:
    """Abyss's sections of the report of ``ctx``'s runs as ``(key, title, build)`` (after
    the shared ones; see ``AbyssRuleset.report_sections``)."""
    builds = {"abyss-length": _sec_length, "abyss-margins": _sec_margins,
              "abyss-e1-seats": _sec_e1, "abyss-e2-auction": _sec_e2, "abyss-e3-actions": _sec_e3,
              "abyss-e4-threat": _sec_e4, "abyss-e5-pace": _sec_e5, "abyss-e6-keys": _sec_e6,
              "abyss-e8-affiliation": _sec_e8, "abyss-e9-pearls": _sec_e9,
              "abyss-e10-players": _sec_e10}
    if len(ctx.runs) > 1:
        builds["abyss-runs"] = _sec_runs
    builds["abyss-e7"] = _sec_e7
    return game_sections(_questions(), builds, _TITLES)


# --- plots ----------------------------------------------------------------------------------

def _rounds_plot(games: pd.DataFrame, footer: str) -> bytes:
    fig = new_figure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    for n, h in games.groupby("players", sort=True):
        r = h["rounds"].to_numpy(dtype=np.int64)
        if not r.size:
            continue
        bins = np.arange(r.min(), r.max() + 2) - 0.5
        counts, edges = np.histogram(r, bins=bins)
        ax.step(edges[:-1] + 0.5, counts / r.size, where="mid", label=f"{int(n)} players")
    ax.set_xlabel("rounds per game")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title("Game length (rounds)", fontsize=10)
    ax.grid(alpha=0.3)
    return to_png(fig, footer)
