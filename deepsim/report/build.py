"""Build a balance report from one or more run directories and write it to disk.

``deepsim report RUN_DIR [RUN_DIR ...]`` calls :func:`report_runs`. The first run is the
*primary* one: every section describes it. The others are read for what they add: runs
whose rules differ from the primary's only in ``maw.steps_per_floor`` fill the B1 and B8
rows for that value, and 2-player games of any run with the primary's rules feed the
matchup matrix.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from deepsim.atomic import atomic_write_json
from deepsim.errors import InputError
from deepsim.report import metrics as M
from deepsim.report import plots
from deepsim.report.claims import Context, evaluate_claims
from deepsim.report.config import ReportConfig
from deepsim.report.load import RunData, load_run, report_hook
from deepsim.report.model import Figure, Report, Section, Table
from deepsim.report.render import claim_details, claims_table, compress_paths, to_html, to_markdown

__all__ = ["FORMATS", "build_report", "parse_formats", "report_runs", "write_report"]

FORMATS = ("md", "html")
REPORT_DIR = "report"


# --- formatting -----------------------------------------------------------------------------

def _num(x, spec: str = ".2f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def _pct(x, digits: int = 1) -> str:
    return _num(x * 100 if x is not None else None, f".{digits}f") + "%" \
        if x is not None and not (isinstance(x, float) and math.isnan(x)) else "-"


def _pci(lo, hi, digits: int = 1) -> str:
    return f"{_pct(lo, digits)} - {_pct(hi, digits)}"


def _ci(lo, hi, spec: str = ".2f") -> str:
    return f"{_num(lo, spec)} - {_num(hi, spec)}"


def _int(x) -> str:
    return f"{int(x):,}"


def footer(run: RunData) -> str:
    """Short provenance line for plots."""
    ph = ", ".join(p.split(" (")[0] for p in compress_paths(run.placeholders)) or "none"
    return (f"{run.scenario_name}: seed {run.seed}, {run.n_games:,} games, params "
            f"{run.params_hash[:12]}; placeholder data: {ph}")


# --- sections -------------------------------------------------------------------------------

def _baseline_text(ctx: Context) -> str:
    """' Baseline bots (...) left out: N seat-games; ...' for a balance table's text."""
    note = ctx.baseline_note()
    if not note:
        return ""
    return (f" {note[0].upper()}{note[1:]} (yardstick styles, `baseline: true` in "
            f"`bots.yaml`: their seats would pass the bots' weakness off as the game's); "
            f"the fair share of the seats kept is their mean win at each player count.")


def _full_games(seats: pd.DataFrame) -> pd.DataFrame:
    """The seats of games whose every seat is present (baseline seats may be gone)."""
    if seats.empty or not {"game", "players"} <= set(seats.columns):
        return seats
    size = seats.groupby("game")["game"].transform("size")
    return seats[size.to_numpy() == seats["players"].to_numpy()]


def _ws_display(ws: pd.DataFrame, by: str, label: str) -> pd.DataFrame:
    return pd.DataFrame({
        label: ws[by], "Seat-games": ws["games"].map(_int),
        "Win share": ws["win_share"].map(_pct),
        "95% CI": [_pci(a, b) for a, b in zip(ws["ci_low"], ws["ci_high"], strict=True)],
        "Fair share": ws["fair_share"].map(_pct),
        "x fair": ws["ratio"].map(lambda v: _num(v)),
        "x fair 95% CI": [_ci(a, b) for a, b in zip(ws["ratio_low"], ws["ratio_high"],
                                                    strict=True)],
        "Holm test": ws["test"], "Verdict": ws["verdict"]})


def _sec_win_share(ctx: Context, foot: str) -> Section:
    c = ctx.config
    s = Section("win-share", "Win share per company, Lineage and Calling")
    ws = ctx.win_shares("company")
    s.paragraphs.append(
        "Win share = wins (a k-way tie for first counts 1/k) / seat-games, with its 95% "
        "Wilson interval. Fair share = the mean of 1/players over the company's games (in "
        "runs mixing player counts, its expected wins are the sum of 1/n over its games). "
        f"**Verdict** (viability rule): *not viable* when the interval's upper end is below "
        f"{c.min_ratio:g} x fair share; otherwise *inconclusive* when the interval is wider "
        f"than {c.max_rel_width:g} x fair share; otherwise *viable*. **Holm test**: one-sided "
        f"exact binomial tests for over and under fair share, Holm-corrected over all "
        f"2 x {len(ws)} tests at {c.alpha:g}." + _baseline_text(ctx))
    counts = ws["verdict"].value_counts()
    s.paragraphs.append(
        f"{counts.get('viable', 0)} of {len(ws)} companies viable, "
        f"{counts.get('not viable', 0)} not viable, {counts.get('inconclusive', 0)} "
        f"inconclusive; {int((ws['test'] == 'over').sum())} win significantly more than "
        f"their fair share, {int((ws['test'] == 'under').sum())} significantly less.")
    seats = ctx.balance_seats
    parts = ws.copy()
    if {"lineage", "calling"} <= set(seats.columns):
        lc = seats[["company", "lineage", "calling"]].drop_duplicates("company")
        lc = lc.astype(str).set_index("company")
        parts["lineage"] = parts["company"].map(lc["lineage"])
        parts["calling"] = parts["company"].map(lc["calling"])
    s.figures.append(Figure("win_share_heatmap.png", plots.share_heatmap(
        parts, title="Win share / fair share, Lineage x Calling", footer=foot),
        "Lineage x Calling: win share over fair share (red above fair, blue below)."))
    s.figures.append(Figure("win_share_companies.png", plots.company_forest(
        ws, "company", min_ratio=c.min_ratio, title="Win share / fair share per company",
        footer=foot), "Each company's win share over its fair share with the 95% interval; "
                      "colour = viability verdict."))
    s.tables.append(Table(f"Companies ({len(ws)})", _ws_display(ws, "company", "Company")))
    for by, label in (("lineage", "Lineage"), ("calling", "Calling")):
        if by in seats.columns:
            s.tables.append(Table(f"{label}s", _ws_display(ctx.win_shares(by), by, label)))
    return s


def _sec_faction_share(ctx: Context, foot: str) -> Section:
    """Win share per faction of any ruleset (its ``faction_column``, named by its noun)."""
    c = ctx.config
    meta = ctx.meta
    by, noun, nouns = meta.faction_column, meta.faction_label, meta.factions_label
    s = Section("win-share", f"Win share per {noun}")
    ws = ctx.win_shares(by)
    s.paragraphs.append(
        f"Win share = wins (a tie or draw shared by k seats counts 1/k) / seat-games, with its "
        f"95% Wilson interval. Fair share = the mean of the `fair` column over the {noun}'s "
        f"seat-games (1/players when every seat may win). **Verdict** (viability rule): *not "
        f"viable* when the interval's upper end is below {c.min_ratio:g} x fair share; "
        f"otherwise *inconclusive* when the interval is wider than {c.max_rel_width:g} x fair "
        f"share; otherwise *viable*. **Holm test**: one-sided exact binomial tests for over "
        f"and under fair share, Holm-corrected over all 2 x {len(ws)} tests at {c.alpha:g}."
        + _baseline_text(ctx))
    counts = ws["verdict"].value_counts()
    s.paragraphs.append(
        f"{counts.get('viable', 0)} of {len(ws)} {nouns} viable, "
        f"{counts.get('not viable', 0)} not viable, {counts.get('inconclusive', 0)} "
        f"inconclusive; {int((ws['test'] == 'over').sum())} win significantly more than "
        f"their fair share, {int((ws['test'] == 'under').sum())} significantly less.")
    s.figures.append(Figure("win_share_factions.png", plots.company_forest(
        ws, by, min_ratio=c.min_ratio, title=f"Win share / fair share per {noun}",
        footer=foot), f"Each {noun}'s win share over its fair share with the 95% interval; "
                      "colour = viability verdict."))
    s.tables.append(Table(f"{nouns.capitalize()} ({len(ws)})",
                          _ws_display(ws, by, noun.capitalize())))
    return s


def _seat_faction_note(ctx: Context) -> list[str]:
    """Whether seat and faction coincide (fixed seats) or are separated (rotated seats)."""
    seats = ctx.primary.seats
    col, noun = ctx.meta.faction_column, ctx.meta.faction_label
    if "rotation" in seats.columns:
        n = int(seats["rotation"].max()) + 1 if len(seats) else 0
        text = (f"Seats rotate (`rotate_seats`): each deal is played in all {n} rotations of "
                f"the seat order on the same dungeon and dice stream, so every {noun} sits in "
                f"every seat equally often and this table measures seat advantage apart from "
                f"{noun} strength. (Its Wilson intervals count the {n} rotations of a deal as "
                "independent games; `deepsim check`, `compare` and `sweep` treat the deal as "
                "the unit.)")
        return [text]
    if col not in seats.columns or not len(seats):
        return []
    per_seat = seats.groupby(["players", "seat"], observed=True)[col].nunique()
    if per_seat.max() != 1 or seats[col].nunique() < 2:
        return []
    first = seats.drop_duplicates(["players", "seat"]).sort_values(["players", "seat"])
    top = int(first["players"].max())
    who = "; ".join(f"seat {int(r.seat) + 1} = {getattr(r, col)}"
                    for r in first.itertuples() if int(r.players) == top)
    text = (f"**Seat and {noun} coincide**: every seat plays one fixed {noun} ({who}), so "
            f"this table is the {noun} table again and cannot tell seat advantage from "
            f"{noun} strength. Add `rotate_seats: true` to the scenario to play each game in "
            f"every rotation of the seat order.")
    return [text]


def _sec_seats(ctx: Context, foot: str) -> Section:
    s = Section("seats", "Seat advantage")
    sa = M.seat_advantage(ctx.balance_seats, ctx.config.alpha)
    if ctx.meta.is_deepfall:
        s.paragraphs.append("Win share by seat for each player count (seat 1 plays first in "
                            "round 1; the first-player marker then passes clockwise), with 95% "
                            "Wilson intervals, against the fair share 1/players."
                            + _baseline_text(ctx))
    else:
        s.paragraphs.append("Win share by seat for each player count (seat 1 moves first; a "
                            "tie or draw shared by k seats counts 1/k), with 95% Wilson "
                            "intervals, against the fair share 1/players."
                            + _baseline_text(ctx))
    s.paragraphs += _seat_faction_note(ctx)
    s.figures.append(Figure("seat_advantage.png", plots.seat_bars(
        sa, title="Win share / fair share by seat", footer=foot),
        "Seat advantage: bars are win share over 1/players with 95% intervals."))
    s.tables.append(Table("", pd.DataFrame({
        "Players": sa["players"], "Seat": sa["seat"] + 1, "Games": sa["games"].map(_int),
        "Win share": sa["win_share"].map(_pct),
        "95% CI": [_pci(a, b) for a, b in zip(sa["ci_low"], sa["ci_high"], strict=True)],
        "Fair": sa["fair_share"].map(_pct), "x fair": sa["ratio"].map(_num)})))
    return s


def _sec_length(ctx: Context, foot: str) -> Section:
    s = Section("length", "Game length")
    games = ctx.primary.games
    gl = M.game_length(games, ctx.config.alpha)
    s.paragraphs.append("Rounds per game by player count (the game ends when Floor 1 "
                        "collapses; `truncated` = stopped by the safety cap "
                        "`end.max_rounds`).")
    s.figures.append(Figure("game_length.png", plots.length_histogram(
        M.rounds_histogram(games), target=ctx.config.rounds_target,
        title="Rounds per game by player count", footer=foot),
        "Share of games by number of rounds, per player count."))
    s.tables.append(Table("", pd.DataFrame({
        "Players": gl["players"], "Games": gl["games"].map(_int),
        "Mean": gl["mean"].map(_num),
        "Mean 95% CI": [_ci(a, b) for a, b in zip(gl["mean_low"], gl["mean_high"],
                                                  strict=True)],
        "SD": gl["sd"].map(_num), "Median": gl["median"].map(lambda v: _num(v, "g")),
        "5th-95th pct": [f"{a:g} - {b:g}" for a, b in zip(gl["p5"], gl["p95"], strict=True)],
        "Truncated": gl["truncated"].map(_int)})))
    return s


def _sec_margins(ctx: Context, foot: str) -> Section:
    s = Section("margins", "Margins")
    games = ctx.primary.games
    mg = M.margins(games)
    s.paragraphs.append("Winner's Glory minus the runner-up's (absolute) and that over the "
                        "winner's Glory (relative); ties = games whose top two are level.")
    s.figures.append(Figure("margins.png", plots.margin_histogram(
        games, title="Relative margin by player count", footer=foot),
        "Distribution of the relative margin per player count."))
    s.tables.append(Table("", pd.DataFrame({
        "Players": mg["players"], "Games": mg["games"].map(_int),
        "Ties": mg["ties"].map(lambda v: _pct(v, 2)),
        "Margin mean": mg["abs_mean"].map(lambda v: _num(v, ".1f")),
        "Margin median": mg["abs_median"].map(lambda v: _num(v, "g")),
        "Margin 5th-95th": [f"{a:g} - {b:g}" for a, b in zip(mg["abs_p5"], mg["abs_p95"],
                                                            strict=True)],
        "Relative mean": mg["rel_mean"].map(lambda v: _num(v, ".3f")),
        "Relative median": mg["rel_median"].map(lambda v: _num(v, ".3f")),
        "Relative 5th-95th": [f"{a:.3f} - {b:.3f}" for a, b in
                              zip(mg["rel_p5"], mg["rel_p95"], strict=True)]})))
    return s


def _exit_display(eu: pd.DataFrame, key: str, label: str) -> pd.DataFrame:
    return pd.DataFrame({
        label: eu[key], "Player-games": eu["player_games"].map(_int),
        "Crews / pg": eu["crews_pg"].map(_num), "Cash Outs / pg": eu["cash_outs_pg"].map(_num),
        "Last Stands / pg": eu["last_stands_pg"].map(_num),
        "Worthy Ends / pg": eu["worthy_ends_pg"].map(_num),
        "Taken no LS / pg": eu["taken_ns_pg"].map(_num),
        "Taken before a turn / pg": eu["taken_unplayed_pg"].map(_num),
        "Feel-bad per crew": [f"{_pct(v)} ({_pci(a, b)})" for v, a, b in
                              zip(eu["fb_crew"], eu["fb_crew_low"], eu["fb_crew_high"],
                                  strict=True)],
        "... mid-game": [f"{_pct(v)} ({_pci(a, b)})" for v, a, b in
                         zip(eu["fb_crew_mid"], eu["fb_crew_mid_low"], eu["fb_crew_mid_high"],
                             strict=True)],
        "Feel-bad per player-game": [f"{_pct(v)} ({_pci(a, b)})" for v, a, b in
                                     zip(eu["fb_pg"], eu["fb_pg_low"], eu["fb_pg_high"],
                                         strict=True)],
        "... mid-game ": [f"{_pct(v)} ({_pci(a, b)})" for v, a, b in
                          zip(eu["fb_pg_mid"], eu["fb_pg_mid_low"], eu["fb_pg_mid_high"],
                              strict=True)]})


def _sec_exits(ctx: Context, foot: str) -> Section:
    s = Section("exits", "Exits and the feel-bad rate")
    seats = ctx.primary.seats
    a = ctx.config.alpha
    s.paragraphs.append(
        "Per player-game (pg): crews mustered, Cash Outs, Last Stands, Worthy Ends (a Last "
        "Stand crew Taken) and crews Taken without a Last Stand after playing at least one "
        "turn. **Feel-bad rate**: those crews per crew and the share of player-games with "
        "at least one (Wilson intervals), with the final collapse of Floor 1 (where "
        "every crew still on it is Taken) and mid-game only. A crew Taken before its first "
        "turn (mustered after a Cash Out in the last round) never had the chance to declare "
        "a Last Stand: it is counted apart (*Taken before a turn*), not as feel-bad.")
    eb = M.exit_usage(seats, "bot", a) if "bot" in seats.columns else None
    if eb is not None:
        s.figures.append(Figure("exits.png", plots.exit_bars(
            eb, "bot", title="Exits per player-game by bot style", footer=foot),
            "Exit usage by bot style (per player-game)."))
        s.tables.append(Table("By bot style", _exit_display(eb, "bot", "Bot")))
    bal = ctx.balance_seats
    note = ctx.baseline_note()
    if "calling" in seats.columns:
        s.tables.append(Table("By Calling" + (f" ({note})" if note else ""),
                              _exit_display(M.exit_usage(bal, "calling", a), "calling",
                                            "Calling")))
    s.tables.append(Table("All seats", _exit_display(M.exit_usage(seats, None, a), "group",
                                                     "Seats")))
    return s


def _sec_bots(ctx: Context, foot: str) -> Section:
    s = Section("bots", "Bot styles")
    ws = ctx.win_shares("bot")
    base = ctx.primary.baseline_bots
    s.paragraphs.append("Win share by bot style (styles are drawn per seat), against the "
                        "fair share 1/players over the whole field: does aggression "
                        "over-win? Bot styles are knobs in `bots.yaml`, not rules."
                        + (f" Baseline styles ({', '.join(base)}: yardsticks, left out of "
                           f"every other balance table) are shown here for reference."
                           if base else ""))
    s.tables.append(Table("", _ws_display(ws, "bot", "Bot").drop(columns=["Verdict"])))
    return s


def _sec_swing(ctx: Context, foot: str) -> Section:
    s = Section("swing", "Swing")
    seats = ctx.balance_seats
    s.paragraphs.append(
        "Spread of outcomes: variance and SD of final Glory, and variance of the finishing "
        "place scaled to 0 (first) - 1 (last) so that player counts mix. A swingy company "
        "has a wide spread of results." + _baseline_text(ctx))

    def disp(sw, by, label):
        return pd.DataFrame({
            label: sw[by], "Seat-games": sw["games"].map(_int),
            "Glory mean": sw["glory_mean"].map(lambda v: _num(v, ".1f")),
            "Glory variance": sw["glory_var"].map(lambda v: _num(v, ".0f")),
            "Glory SD": sw["glory_sd"].map(lambda v: _num(v, ".1f")),
            "Place mean (0-1)": sw["place_mean"].map(lambda v: _num(v, ".3f")),
            "Place variance (0-1)": sw["place_var"].map(lambda v: _num(v, ".4f"))})

    for by, label in (("calling", "Calling"), ("lineage", "Lineage"), ("company", "Company")):
        if by in seats.columns:
            s.tables.append(Table(f"By {label}", disp(M.swing(seats, by), by, label)))
    if "calling" in seats.columns:
        rows = []
        for cal in sorted(str(c) for c in seats["calling"].unique()):
            t = M.swing_test(seats, "calling", cal)
            rows.append({"Calling": cal, "Glory variance / rest": _num(t["glory_ratio"]),
                         "p (Brown-Forsythe)": _num(t["glory_p"], ".2g"),
                         "Place variance / rest": _num(t["place_ratio"], ".3f"),
                         "p (Brown-Forsythe) ": _num(t["place_p"], ".2g")})
        s.tables.append(Table("Each Calling against the other Callings pooled",
                              pd.DataFrame(rows)))
    return s


def _sec_contention(ctx: Context, foot: str) -> Section:
    s = Section("contention", "Contention")
    ct = M.contention(ctx.primary.games, ctx.config.alpha)
    s.paragraphs.append("At each collapse: the share of scored rooms with 2+ claimants and "
                        "the control markers (active and Fallen) per contested room, by "
                        "player count (intervals with games as clusters).")
    s.tables.append(Table("", pd.DataFrame({
        "Players": ct["players"], "Games": ct["games"].map(_int),
        "Rooms scored / game": ct["rooms_scored"].map(lambda v: _num(v, ".1f")),
        "Contested share": ct["contested_share"].map(_pct),
        "95% CI": [_pci(a, b) for a, b in zip(ct["contested_share_low"],
                                              ct["contested_share_high"], strict=True)],
        "Markers / contested room": ct["markers_per_contested"].map(_num),
        "95% CI ": [_ci(a, b) for a, b in zip(ct["markers_per_contested_low"],
                                              ct["markers_per_contested_high"],
                                              strict=True)]})))
    return s


def _sec_maw(ctx: Context, foot: str) -> Section:
    s = Section("maw", "The Maw's pace")
    s.paragraphs.append(
        "How often the one-floor-per-round cap holds a collapse back (A31; it cannot bind at "
        "`maw.steps_per_floor` 2), and what becomes of crews that start a round on the next "
        "floor to fall (warned): the share Taken that round, and crews per game Taken after "
        "moving onto the falling floor during the round.")
    rows, wrows = [], []
    for run in ctx.runs:
        try:
            d = M.deferral(run.games, ctx.config.alpha)
        except KeyError:
            continue
        rows.append({"Run": f"{run.path.name}: {run.label}", "steps_per_floor": str(run.param("maw.steps_per_floor",
                                                                         "?")),
                     "Games": _int(d["games"]), "Cap binds (games)": _pct(d["binds_share"], 2),
                     "95% CI": _pci(d["binds_low"], d["binds_high"], 2),
                     "Held-back collapses / game": _num(d["deferred_per_game"], ".3f")})
        try:
            w = M.warning_honesty(run.games, run.seats, ctx.config.alpha)
        except KeyError:
            continue
        for r in w.itertuples():
            wrows.append({"Run": run.path.name,
                          "steps_per_floor": str(run.param("maw.steps_per_floor", "?")),
                          "Players": r.players, "Warned crew-rounds / game": _num(r.warned_pg),
                          "Taken if warned": _pct(r.taken_if_warned),
                          "95% CI": _pci(r.taken_if_warned_low, r.taken_if_warned_high),
                          "Taken unwarned / game": _num(getattr(r, "unwarned_taken_pg",
                                                                math.nan))})
    if not rows:
        raise KeyError("games has no column deferred_steps")
    s.tables.append(Table("The one-collapse cap", pd.DataFrame(rows)))
    if wrows:
        s.tables.append(Table("'One floor away'", pd.DataFrame(wrows)))
    return s


def _matchup_runs(ctx: Context) -> list[RunData]:
    return [r for r in ctx.runs if r.params_hash == ctx.primary.params_hash]


def _sec_matchups(ctx: Context, foot: str) -> Section:
    s = Section("matchups", "Matchups (2-player games) and Bradley-Terry strength")
    wins = games = None
    used = []
    for run in _matchup_runs(ctx):
        if "players" not in run.seats.columns or not (run.seats["players"] == 2).any():
            continue
        w, n = M.matchup_matrix(_full_games(run.balance_seats()[0]))
        wins = w if wins is None else wins.add(w, fill_value=0)
        games = n if games is None else games.add(n, fill_value=0)
        used.append(f"{run.label} ({int(n.to_numpy().sum() / 2):,} games)")
    if wins is None:
        s.paragraphs.append(
            "No 2-player games in the runs given with these rules. Run a 2-player scenario "
            "(`deepsim run scenarios/deepfall-2p.yaml`) and pass it too: "
            f"`deepsim report {ctx.primary.path} RUN_DIR`.")
        return s
    labels = sorted(set(wins.index) | set(wins.columns))
    wins = wins.reindex(index=labels, columns=labels, fill_value=0)
    games = games.reindex(index=labels, columns=labels, fill_value=0)
    bt = M.bradley_terry(wins)
    order = list(bt["item"])
    share = (wins / games.replace(0, np.nan)).loc[order, order]
    s.paragraphs.append(
        "Row company's win share against the column company in 2-player games (ties count "
        "1/2), companies ordered by Bradley-Terry strength (choix, maximum likelihood). "
        "P(beat average) = the fitted chance to beat a company of average strength. "
        "Empty cells: pairs that never met (with unique Lineages and Callings a company "
        "never meets one sharing either). From: " + "; ".join(used) + "."
        + (" Only games between two seats that are not baseline bots." if
           ctx.primary.baseline_bots else ""))
    s.figures.append(Figure("bradley_terry.png", plots.bradley_terry_bars(
        bt, title="Bradley-Terry strength (2-player games)", footer=foot),
        "Bradley-Terry: each company's chance to beat an average company."))
    n_games = pd.Series({a: games.loc[a].sum() for a in order})
    s.tables.append(Table("Bradley-Terry strength", pd.DataFrame({
        "#": range(1, len(bt) + 1), "Company": bt["item"],
        "Strength (log-odds)": bt["strength"].map(lambda v: _num(v, "+.3f")),
        "P(beat average)": bt["p_vs_average"].map(_pct),
        "2p games": [_int(n_games[a]) for a in bt["item"]],
        "Win share": [_pct(wins.loc[a].sum() / max(games.loc[a].sum(), 1)) for a in bt["item"]],
    })))
    mat = share.map(lambda v: "" if isinstance(v, float) and math.isnan(v) else f"{v * 100:.0f}")
    mat.columns = [str(i) for i in range(1, len(order) + 1)]
    mat.insert(0, "Company", order)
    mat.insert(0, "#", range(1, len(order) + 1))
    s.tables.append(Table("Matchup matrix: row's win share (%) against column #", mat))
    return s


def _sec_exercise(ctx: Context, foot: str) -> Section:
    s = Section("exercise", "Rules exercised")
    ex = M.exercise(ctx.primary.seats)
    if not ex:
        raise KeyError("seats has no ability, claim or exit columns")
    s.paragraphs.append(
        "A bot that never uses a rule makes its company look weak for the wrong reason. "
        "Times each Lineage and Calling ability changed the play per player-game, room "
        "themes claimed and exits taken.")
    rare = []
    for key, label in (("lineage", "Lineage"), ("calling", "Calling")):
        if key in ex:
            d = ex[key]
            rare += [f"{g} ({label}, used in {_pct(u)} of its player-games)"
                     for g, u in zip(d["group"], d["share_used"], strict=True) if u < 0.25]
            s.tables.append(Table(f"{label} abilities", pd.DataFrame({
                label: d["group"], "Player-games": d["player_games"].map(_int),
                "Uses / pg": d["uses_pg"].map(_num),
                "Player-games with a use": d["share_used"].map(_pct)})))
    if "rooms" in ex:
        d = ex["rooms"]
        rare += [f"room theme {t} ({n:,} claims)" for t, n, r in
                 zip(d["theme"], d["claims"], d["claims_per_game"], strict=True) if r < 0.01]
        s.tables.append(Table("Room themes claimed", pd.DataFrame({
            "Theme": d["theme"], "Claims": d["claims"].map(_int),
            "Per player-game": d["claims_per_game"].map(lambda v: _num(v, ".3f"))})))
    if "exits" in ex:
        d = ex["exits"]
        s.tables.append(Table("Exits", pd.DataFrame({
            "Exit": d["exit"], "Uses": d["uses"].map(_int),
            "Per player-game": d["per_player_game"].map(lambda v: _num(v, ".3f"))})))
    s.paragraphs.append(
        ("**Rarely exercised** (an ability used in under 25% of its player-games, a room "
         "theme claimed under once per 100 player-games): " + "; ".join(rare) +
         ". Results for these may reflect the bots more than the rules.") if rare else
        "Every ability is used in at least 25% of its player-games and every room theme is "
        "claimed.")
    return s


def _language_table(ctx: Context) -> Table:
    """The report's numbers as `deepsim check` / `compare` / `sweep` / `tune` spell them."""
    f = ctx.meta.faction_column
    rows = [("Win share", f"win_share[{f}], win_ratio[{f}], faction_spread"
             + (", win_share[lineage], win_share[calling], company_spread, lineage_spread, "
                "calling_spread" if ctx.meta.is_deepfall else "")),
            ("Seat advantage", ("win_share[seat, players], win_edge[seat=1, players], "
                               "seat_advantage")),
            ("Game length", "rounds[players], truncated, length_error"),
            ("Bot styles", "win_share[bot], bot_spread")]
    if ctx.meta.is_deepfall:
        rows[3:3] = [("Margins", "margin, margin_rel, tie_share"),
                     ("Exits and the feel-bad rate",
                      ("feel_bad[bot], feel_bad_mid, feel_bad_crew[calling], "
                      "cash_outs[bot], last_stands, worthy_ends, crews"))]
        rows += [("Contention", "contested_share[players], markers_per_contested"),
                 ("The Maw's pace", "cap_binds, taken_if_warned[players]")]
    else:
        rows.insert(1, ("Draws", "draw_share"))
    return Table("The report's numbers in the metric language (README, \"Metrics\")",
                 pd.DataFrame([{"Section": a, "check / compare / sweep / tune": b}
                               for a, b in rows]))


def _sec_method(ctx: Context) -> Section:
    if not ctx.meta.is_deepfall:
        return _sec_method_generic(ctx)
    s = Section("method", "Method")
    s.paragraphs.append(
        "Intervals are 95% (1 - alpha). Win shares: Wilson score intervals (statsmodels "
        "`proportion_confint`); over/under tests: exact one-sided binomial tests (scipy "
        "`binomtest`) of the rounded win count against the fair share, Holm-corrected "
        "(statsmodels `multipletests`); means: t intervals (statsmodels `DescrStatsW`); "
        "ratios of sums over games (contention, warned crews Taken): weighted least "
        "squares with a robust (HC1) covariance, each game a cluster; variance comparisons: Brown-Forsythe (scipy "
        "`levene`, median-centred); ratio of two win rates: statsmodels "
        "`confint_proportions_2indep`; Bradley-Terry: choix `ilsr_pairwise_dense`. Seats of "
        "one game are not independent (one winner per game); with many games this makes "
        "the per-seat intervals slightly conservative or liberal, not wrong in direction.")
    s.paragraphs.append("Settings (change with `deepsim report ... --option KEY=VALUE`):")
    s.tables.append(Table("", pd.DataFrame(
        [{"Key": k, "Value": f"{v:g}", "Meaning": m} for k, v, m in ctx.config.rows()])))
    s.tables.append(_language_table(ctx))
    return s


def _sec_method_generic(ctx: Context) -> Section:
    s = Section("method", "Method")
    s.paragraphs.append(
        "Intervals are 95% (1 - alpha). Shares: Wilson score intervals (statsmodels "
        "`proportion_confint`); over/under tests: exact one-sided binomial tests (scipy "
        "`binomtest`) of the rounded win count against the fair share, Holm-corrected "
        "(statsmodels `multipletests`); means: t intervals (statsmodels `DescrStatsW`); "
        "differences of two shares: statsmodels `confint_proportions_2indep`. Seats of one "
        "game are not independent (one winner per game); with many games this makes the "
        "per-seat intervals slightly conservative or liberal, not wrong in direction.")
    s.paragraphs.append("Settings (change with `deepsim report ... --option KEY=VALUE`):")
    s.tables.append(Table("", pd.DataFrame(
        [{"Key": k, "Value": f"{v:g}", "Meaning": m} for k, v, m in ctx.config.rows()
         if not k.startswith("claims.")])))
    s.tables.append(_language_table(ctx))
    return s


def _sec_variations(ctx: Context, foot: str) -> Section:
    s = Section("variations", "One rule reading at a time")
    variations = ctx.one_gap_variations()
    s.paragraphs.append(
        "Runs given besides the primary one whose rules differ from it in exactly one "
        "parameter (one gap of the rulebook read another way, everything else at the "
        "primary run's values): each claim's verdict and the win share of each Lineage and "
        "Calling under each reading. Each column is measured on its own run alone.")
    if not variations:
        s.paragraphs.append(
            "No such run was given. Example: `deepsim run scenarios/deepfall-mixed.yaml "
            "--set callings.wardancer.worthy_end_multiplier=0.88` (A20 read as 'instead "
            "of'), then `deepsim report " + str(ctx.primary.path) + " RUN_DIR`.")
        return s
    verdicts: dict[str, dict[str, str]] = {}
    ratios: dict[str, dict[str, str]] = {}
    readings = [(ctx.primary, None), *variations]
    for run, path in readings:
        col = ("primary run" if path is None else
               f"{path}={run.param(path)} (primary: {ctx.primary.param(path)})")
        if col in verdicts:
            col += f" [{run.path.name}]"
        sub = Context(run, [], ctx.config)
        verdicts[col] = {r.claim.id: r.verdict for r in evaluate_claims(sub)}
        ratios[col] = {}
        for by in ("lineage", "calling"):
            try:
                ws = sub.win_shares(by)
            except KeyError:
                continue
            for row in ws.itertuples():
                ratios[col][str(getattr(row, by))] = (
                    f"{row.ratio:.2f} ({row.ratio_low:.2f}-{row.ratio_high:.2f})")
    claims_df = pd.DataFrame(verdicts)
    claims_df.insert(0, "Claim", claims_df.index)
    s.tables.append(Table("Claim verdicts by reading (first column: the primary run)",
                          claims_df.reset_index(drop=True)))
    rat = pd.DataFrame(ratios)
    rat.insert(0, "Lineage / Calling", rat.index)
    s.tables.append(Table("Win share / fair share (95% CI) by reading",
                          rat.reset_index(drop=True).fillna("-")))
    s.paragraphs.append("Runs: " + "; ".join(f"`{run.path}`: {run.label}"
                                             for run, _ in readings) + ".")
    return s


_SECTIONS: list[tuple[str, str, Callable]] = [
    ("win-share", "Win share per company, Lineage and Calling", _sec_win_share),
    ("seats", "Seat advantage", _sec_seats),
    ("length", "Game length", _sec_length),
    ("margins", "Margins", _sec_margins),
    ("exits", "Exits and the feel-bad rate", _sec_exits),
    ("bots", "Bot styles", _sec_bots),
    ("swing", "Swing", _sec_swing),
    ("contention", "Contention", _sec_contention),
    ("maw", "The Maw's pace", _sec_maw),
    ("matchups", "Matchups (2-player games) and Bradley-Terry strength", _sec_matchups),
    ("exercise", "Rules exercised", _sec_exercise),
    ("variations", "One rule reading at a time", _sec_variations),
]


def _generic_sections(ctx: Context) -> list[tuple[str, str, Callable]]:
    """The shared sections of a ruleset other than DEEPFALL (whose own sections come from
    its report hook)."""
    meta = ctx.meta
    out: list[tuple[str, str, Callable]] = [
        ("win-share", f"Win share per {meta.faction_label}", _sec_faction_share),
        ("seats", "Seat advantage", _sec_seats),
    ]
    seats = ctx.primary.seats
    # a ruleset whose faction column is the bot style (players alike, e.g. Abyss) already
    # has this table as its win share per faction
    if (meta.faction_column != "bot" and "bot" in seats.columns
            and seats["bot"].nunique() > 1):
        out.append(("bots", "Bot styles", _sec_bots))
    return out


def _generic_roles(ctx: Context) -> list[str]:
    labels = ctx.run_labels()
    roles = []
    for run, label in zip(ctx.others, labels[1:], strict=True):
        diff = ctx.diff_paths(run)
        roles.append(f"side-by-side comparison ({label})" if diff else
                     f"side-by-side comparison ({label}; same rules)")
    return roles


def _roles(ctx: Context) -> list[str]:
    if not ctx.meta.is_deepfall:
        return _generic_roles(ctx)
    roles = []
    spf = ctx.variants("maw.steps_per_floor")
    for run in ctx.others:
        diff = ctx.diff_paths(run)
        bits = []
        if not diff:
            bits.append("matchups (its 2-player games)" if 2 in run.player_counts
                        else "nothing (same rules, no 2-player games)")
        else:
            if any(r is run for r in spf.values()):
                bits.append(f"B1 and B8 at maw.steps_per_floor="
                            f"{run.param('maw.steps_per_floor')}")
            if len(diff) == 1:
                path = next(iter(diff))
                bits.append(f"one-gap variation {path}={run.param(path)}")
            else:
                bits.append(f"nothing: its rules differ from the primary run's in {len(diff)} "
                            f"parameters ({', '.join(sorted(diff)[:4])})")
        roles.append(", ".join(bits))
    return roles


def build_report(runs: Sequence[RunData], config: ReportConfig | None = None) -> Report:
    """Compute every section and the claims for ``runs`` (the first is the primary)."""
    t0 = time.perf_counter()
    if not runs:
        raise InputError("no run directory given")
    ctx = Context(runs[0], list(runs[1:]), config or ReportConfig())
    foot = footer(ctx.primary)
    deepfall = ctx.meta.is_deepfall
    hook = None if deepfall else report_hook(ctx.meta.name)
    sections: list[Section] = []
    for key, title, fn in (_SECTIONS if deepfall else _generic_sections(ctx)):
        try:
            sections.append(fn(ctx, foot))
        except KeyError as exc:
            sections.append(Section(key, title, missing=str(exc).strip("'\"")))
    if hook is not None:
        try:
            sections += list(hook.report_sections(ctx))
        except KeyError as exc:
            sections.append(Section(f"{ctx.meta.name}-sections",
                                    f"{ctx.meta.title or ctx.meta.name} sections",
                                    missing=str(exc).strip("'\"")))
    if deepfall:
        results = evaluate_claims(ctx)
    else:
        claims_fn = getattr(hook, "report_claims", None)
        results = list(claims_fn(ctx)) if callable(claims_fn) else []
    if not results:
        r = ctx.primary
        report = Report(
            title=f"Balance report: {r.scenario_name} ({r.manifest.get('ruleset', '?')})",
            primary=r, others=ctx.others, config=ctx.config,
            sections=[*sections, _sec_method(ctx)], claims=[], roles=_roles(ctx),
            created_utc=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"))
        report.elapsed_s = time.perf_counter() - t0
        return report
    claims = Section("claims", "Claims B1-B8" if deepfall else "Claims")
    claims.paragraphs.append(
        "Each rulebook claim, the numbers that test it and a verdict: **holds** (the 95% "
        "interval lies inside what the claim asserts), **fails** (entirely outside), "
        "**inconclusive** (straddles the border at this sample size) or **not measured** "
        "(the runs given cannot measure it; the details say which run is needed). The "
        "thresholds are in the Method section.")
    claims.tables.append(Table("", claims_table(results)))
    details = Section("claim-details", "Claims: definitions, rule readings and notes",
                      paragraphs=claim_details(results))
    sections = [claims, details, *sections, _sec_method(ctx)]
    r = ctx.primary
    report = Report(
        title=f"Balance report: {r.scenario_name} ({r.manifest.get('ruleset', '?')})",
        primary=r, others=ctx.others, config=ctx.config, sections=sections, claims=results,
        roles=_roles(ctx),
        created_utc=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"))
    report.elapsed_s = time.perf_counter() - t0
    return report


def summary_json(report: Report) -> dict:
    """Machine-readable summary: the runs (identity, placeholders) and the claims."""
    def run_obj(run: RunData) -> dict:
        return {"path": str(run.path), "scenario_name": run.scenario_name, "seed": run.seed,
                "games": run.n_games, "status": run.status, "params_hash": run.params_hash,
                "overrides": run.overrides, "placeholders": run.placeholders,
                "skipped_rules": run.skipped_rules}
    return {
        "title": report.title, "created_utc": report.created_utc,
        "run": run_obj(report.primary),
        "other_runs": [{**run_obj(o), "used_for": role}
                       for o, role in zip(report.others, report.roles, strict=False)],
        "config": {k: v for k, v, _ in report.config.rows()},
        "sections": [{"key": s.key, "title": s.title, "missing": s.missing}
                     for s in report.sections],
        "claims": [{"id": c.claim.id, "section": c.claim.section, "text": c.claim.text,
                    "verdict": c.verdict, "interpretation": c.interpretation,
                    "parts": [{"label": p.label, "measured": p.measured,
                               "interval": p.interval, "verdict": p.verdict, "run": p.run,
                               "note": p.note} for p in c.parts]}
                   for c in report.claims],
    }


def write_report(report: Report, out_dir: Path | str,
                 formats: Sequence[str] = FORMATS) -> list[Path]:
    """Write ``report.md`` / ``report.html``, the PNGs and ``report.json`` into ``out_dir``.

    Returns
    -------
    list of Path
        The files written (report files first).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if "md" in formats:
        p = out / "report.md"
        p.write_text(to_markdown(report), encoding="utf-8")
        written.append(p)
    if "html" in formats:
        p = out / "report.html"
        p.write_text(to_html(report), encoding="utf-8")
        written.append(p)
    p = out / "report.json"
    atomic_write_json(p, summary_json(report))
    written.append(p)
    for f in report.figures:
        p = out / f.name
        p.write_bytes(f.png)
        written.append(p)
    return written


def parse_formats(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"md,html"`` -> ``("md", "html")``; refuses unknown formats."""
    items = text.split(",") if isinstance(text, str) else list(text)
    fmts = tuple(dict.fromkeys(i.strip().lower() for i in items if i.strip()))
    bad = [f for f in fmts if f not in FORMATS]
    if bad or not fmts:
        raise InputError(f"unknown report format(s) {', '.join(bad) or '(none)'}; choose from "
                         f"{', '.join(FORMATS)}", key="--format")
    return fmts


def report_runs(run_dirs: Sequence[Path | str], *, out_dir: Path | str | None = None,
                formats: Sequence[str] = FORMATS, options: list[str] | None = None
                ) -> tuple[Report, list[Path]]:
    """Load ``run_dirs``, build the report and write it (default ``RUN_DIR/report/`` of the
    first run).

    Raises
    ------
    InputError
        A directory that is not a readable run, a bad option or format.
    """
    config = ReportConfig().with_options(options)
    runs = [load_run(d) for d in run_dirs]
    report = build_report(runs, config)
    target = Path(out_dir) if out_dir is not None else runs[0].path / REPORT_DIR
    return report, write_report(report, target, formats)
