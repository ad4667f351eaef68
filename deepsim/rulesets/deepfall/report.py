"""DEEPFALL's balance report: its sections (win share per company, Lineage and Calling, game
length, margins, exits and the feel-bad rate, bot styles, swing, contention, the Maw's pace,
matchups, rules exercised, one rule reading at a time), what each extra run is used for and
its Method text. The shared report (:mod:`deepsim.report.build`) calls these through the
ruleset's hooks (``DeepfallRuleset.report_sections`` and friends).

The first run is the *primary* one: every section describes it. The others are read for
what they add: runs whose rules differ from the primary's only in ``maw.steps_per_floor``
fill the B1 and B8 rows for that value, and 2-player games of any run with the primary's
rules feed the matchup matrix.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from deepsim.report import metrics as M
from deepsim.report import plots
from deepsim.report.context import Context
from deepsim.report.fmt import ci, integer, num, pci, pct
from deepsim.report.load import RunData
from deepsim.report.model import Figure, Section, Table
from deepsim.report.sections import bot_styles, seat_advantage, ws_display
from deepsim.rulesets.deepfall import metrics as DM
from deepsim.rulesets.deepfall import plots as DP
from deepsim.rulesets.deepfall.claims import (
    evaluate_claims,
    is_study_run,
    measure_swing,
    relative_glory,
)

__all__ = ["METHOD", "language_rows", "roles", "sections"]

def _sec_win_share(ctx: Context, foot: str) -> Section:
    c = ctx.config
    s = Section("win-share", "Win share per company, Lineage and Calling")
    ws = ctx.win_shares("company")
    s.paragraphs.append(
        "Win share = wins (a k-way tie for first counts 1/k) / seat-games, with its 95% "
        "Wilson interval. Fair share = the mean of 1/players over the company's games (in "
        "runs mixing player counts, its expected wins are the sum of 1/n over its games). "
        f"**Verdict** (viability rule): *not viable* when the interval's upper end is below "
        f"{c.min_ratio:g} x fair share; *too strong* when its lower end is above "
        f"{c.max_ratio:g} x fair share; otherwise *inconclusive* when the interval is wider "
        f"than {c.max_rel_width:g} x fair share; otherwise *viable*. **Holm test**: one-sided "
        f"exact binomial tests for over and under fair share, Holm-corrected over all "
        f"2 x {len(ws)} tests at {c.alpha:g}." + ctx.baseline_text())
    counts = ws["verdict"].value_counts()
    s.paragraphs.append(
        f"{counts.get('viable', 0)} of {len(ws)} companies viable, "
        f"{counts.get('too strong', 0)} too strong, {counts.get('not viable', 0)} not viable, {counts.get('inconclusive', 0)} "
        f"inconclusive; {int((ws['test'] == 'over').sum())} win significantly more than "
        f"their fair share, {int((ws['test'] == 'under').sum())} significantly less.")
    seats = ctx.balance_seats
    parts = ws.copy()
    if {"lineage", "calling"} <= set(seats.columns):
        lc = seats[["company", "lineage", "calling"]].drop_duplicates("company")
        lc = lc.astype(str).set_index("company")
        parts["lineage"] = parts["company"].map(lc["lineage"])
        parts["calling"] = parts["company"].map(lc["calling"])
    s.figures.append(Figure("win_share_heatmap.png", DP.share_heatmap(
        parts, title="Win share / fair share, Lineage x Calling", footer=foot),
        "Lineage x Calling: win share over fair share (red above fair, blue below)."))
    s.figures.append(Figure("win_share_companies.png", plots.company_forest(
        ws, "company", min_ratio=c.min_ratio, max_ratio=c.max_ratio, title="Win share / fair share per company",
        footer=foot), "Each company's win share over its fair share with the 95% interval; "
                      "colour = verdict."))
    s.tables.append(Table(f"Companies ({len(ws)})", ws_display(ws, "company", "Company")))
    for by, label in (("lineage", "Lineage"), ("calling", "Calling")):
        if by in seats.columns:
            s.tables.append(Table(f"{label}s", ws_display(ctx.win_shares(by), by, label)))
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
        "Players": gl["players"], "Games": gl["games"].map(integer),
        "Mean": gl["mean"].map(num),
        "Mean 95% CI": [ci(a, b) for a, b in zip(gl["mean_low"], gl["mean_high"],
                                                  strict=True)],
        "SD": gl["sd"].map(num), "Median": gl["median"].map(lambda v: num(v, "g")),
        "5th-95th pct": [f"{a:g} - {b:g}" for a, b in zip(gl["p5"], gl["p95"], strict=True)],
        "Truncated": gl["truncated"].map(integer)})))
    return s


def _sec_margins(ctx: Context, foot: str) -> Section:
    s = Section("margins", "Margins")
    games = ctx.primary.games
    mg = M.margins(games)
    s.paragraphs.append("Winner's Glory minus the runner-up's (absolute) and that over the "
                        "winner's Glory (relative); ties = games whose top two are level.")
    s.figures.append(Figure("margins.png", DP.margin_histogram(
        games, title="Relative margin by player count", footer=foot),
        "Distribution of the relative margin per player count."))
    s.tables.append(Table("", pd.DataFrame({
        "Players": mg["players"], "Games": mg["games"].map(integer),
        "Ties": mg["ties"].map(lambda v: pct(v, 2)),
        "Margin mean": mg["abs_mean"].map(lambda v: num(v, ".1f")),
        "Margin median": mg["abs_median"].map(lambda v: num(v, "g")),
        "Margin 5th-95th": [f"{a:g} - {b:g}" for a, b in zip(mg["abs_p5"], mg["abs_p95"],
                                                            strict=True)],
        "Relative mean": mg["rel_mean"].map(lambda v: num(v, ".3f")),
        "Relative median": mg["rel_median"].map(lambda v: num(v, ".3f")),
        "Relative 5th-95th": [f"{a:.3f} - {b:.3f}" for a, b in
                              zip(mg["rel_p5"], mg["rel_p95"], strict=True)]})))
    return s


def _full_games(seats: pd.DataFrame) -> pd.DataFrame:
    """The seats of games whose every seat is present (baseline seats may be gone)."""
    if seats.empty or not {"game", "players"} <= set(seats.columns):
        return seats
    size = seats.groupby("game")["game"].transform("size")
    return seats[size.to_numpy() == seats["players"].to_numpy()]


def _exit_display(eu: pd.DataFrame, key: str, label: str) -> pd.DataFrame:
    return pd.DataFrame({
        label: eu[key], "Player-games": eu["player_games"].map(integer),
        "Crews / pg": eu["crews_pg"].map(num), "Cash Outs / pg": eu["cash_outs_pg"].map(num),
        "Last Stands / pg": eu["last_stands_pg"].map(num),
        "Worthy Ends / pg": eu["worthy_ends_pg"].map(num),
        "Taken no LS / pg": eu["taken_ns_pg"].map(num),
        "Taken before a turn / pg": eu["taken_unplayed_pg"].map(num),
        "Feel-bad per crew": [f"{pct(v)} ({pci(a, b)})" for v, a, b in
                              zip(eu["fb_crew"], eu["fb_crew_low"], eu["fb_crew_high"],
                                  strict=True)],
        "... mid-game": [f"{pct(v)} ({pci(a, b)})" for v, a, b in
                         zip(eu["fb_crew_mid"], eu["fb_crew_mid_low"], eu["fb_crew_mid_high"],
                             strict=True)],
        "Feel-bad per player-game": [f"{pct(v)} ({pci(a, b)})" for v, a, b in
                                     zip(eu["fb_pg"], eu["fb_pg_low"], eu["fb_pg_high"],
                                         strict=True)],
        "... mid-game ": [f"{pct(v)} ({pci(a, b)})" for v, a, b in
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
    eb = DM.exit_usage(seats, "bot", a) if "bot" in seats.columns else None
    if eb is not None:
        s.figures.append(Figure("exits.png", DP.exit_bars(
            eb, "bot", title="Exits per player-game by bot style", footer=foot),
            "Exit usage by bot style (per player-game)."))
        s.tables.append(Table("By bot style", _exit_display(eb, "bot", "Bot")))
    bal = ctx.balance_seats
    note = ctx.baseline_note()
    if "calling" in seats.columns:
        s.tables.append(Table("By Calling" + (f" ({note})" if note else ""),
                              _exit_display(DM.exit_usage(bal, "calling", a), "calling",
                                            "Calling")))
    s.tables.append(Table("All seats", _exit_display(DM.exit_usage(seats, None, a), "group",
                                                     "Seats")))
    return s


def _sec_swing(ctx: Context, foot: str) -> Section:
    s = Section("swing", "Swing")
    seats = ctx.balance_seats
    s.paragraphs.append(
        "Spread of outcomes: variance and SD of final Glory, the coefficient of variation "
        "(CV: SD / mean) of Glory over its game's mean Glory, and variance of the finishing "
        "place scaled to 0 (first) - 1 (last) so that player counts mix. The Glory variance "
        "grows with the mean and the place variance shrinks for a group that usually wins; "
        "the CV is scale-free, and is what claim B3's 'a touch swingy' reads." +
        ctx.baseline_text())
    rel = relative_glory(seats) if {"game", "glory"} <= set(seats.columns) else None

    def disp(sw, by, label):
        out = pd.DataFrame({
            label: sw[by], "Seat-games": sw["games"].map(integer),
            "Glory mean": sw["glory_mean"].map(lambda v: num(v, ".1f")),
            "Glory variance": sw["glory_var"].map(lambda v: num(v, ".0f")),
            "Glory SD": sw["glory_sd"].map(lambda v: num(v, ".1f")),
            "Place mean (0-1)": sw["place_mean"].map(lambda v: num(v, ".3f")),
            "Place variance (0-1)": sw["place_var"].map(lambda v: num(v, ".4f"))})
        if rel is not None:
            r = pd.Series(rel, index=seats.index)
            g = r.groupby(seats[by].astype(str))
            cv = (g.std() / g.mean()).reindex(sw[by].astype(str)).to_numpy()
            out.insert(5, "Glory CV (/ game mean)", [num(v, ".3f") for v in cv])
        return out

    for by, label in (("calling", "Calling"), ("lineage", "Lineage"), ("company", "Company")):
        if by in seats.columns:
            s.tables.append(Table(f"By {label}", disp(DM.swing(seats, by), by, label)))
    if "calling" in seats.columns:
        rows = []
        for cal in sorted(str(c) for c in seats["calling"].unique()):
            t = DM.swing_test(seats, "calling", cal)
            row = {"Calling": cal}
            if rel is not None:
                e = measure_swing(seats, "calling", cal, ctx.config.touch_max,
                                  ctx.config.alpha)
                if e is not None:
                    row["CV / rest"] = f"{e.value:.3f} ({e.low:.3f}-{e.high:.3f})"
            row.update({"Glory variance / rest": num(t["glory_ratio"]),
                        "p (Brown-Forsythe)": num(t["glory_p"], ".2g"),
                        "Place variance / rest": num(t["place_ratio"], ".3f"),
                        "p (Brown-Forsythe) ": num(t["place_p"], ".2g")})
            rows.append(row)
        s.tables.append(Table("Each Calling against the other Callings pooled",
                              pd.DataFrame(rows)))
    return s


def _sec_contention(ctx: Context, foot: str) -> Section:
    s = Section("contention", "Contention")
    ct = DM.contention(ctx.primary.games, ctx.config.alpha)
    s.paragraphs.append("At each collapse: the share of scored rooms with 2+ claimants and "
                        "the control markers (active and Fallen) per contested room, by "
                        "player count (intervals with games as clusters).")
    s.tables.append(Table("", pd.DataFrame({
        "Players": ct["players"], "Games": ct["games"].map(integer),
        "Rooms scored / game": ct["rooms_scored"].map(lambda v: num(v, ".1f")),
        "Contested share": ct["contested_share"].map(pct),
        "95% CI": [pci(a, b) for a, b in zip(ct["contested_share_low"],
                                              ct["contested_share_high"], strict=True)],
        "Markers / contested room": ct["markers_per_contested"].map(num),
        "95% CI ": [ci(a, b) for a, b in zip(ct["markers_per_contested_low"],
                                              ct["markers_per_contested_high"],
                                              strict=True)]})))
    return s


def _sec_maw(ctx: Context, foot: str) -> Section:
    s = Section("maw", "The Maw's pace")
    s.paragraphs.append(
        "How often the one-floor-per-round cap holds a collapse back (A31; it cannot bind at "
        "`maw.steps_per_floor` 2), and what becomes of crews that start a round on the next "
        "floor to fall (warned): the share Taken that round. Every Taking is classed where "
        "it happens (B8): the crew stood on the falling floor when the round began "
        "(warned), moved onto it during the round, was mustered onto it (a fresh crew, "
        "A13), or stood on a floor that was not the next to fall (blindsided: only when "
        "the Maw eats two floors in a round).")
    rows, wrows = [], []
    for run in ctx.runs:
        if is_study_run(run):
            continue
        try:
            d = DM.deferral(run.games, ctx.config.alpha)
        except KeyError:
            continue
        rows.append({"Run": f"{run.path.name}: {run.label}", "steps_per_floor": str(run.param("maw.steps_per_floor",
                                                                         "?")),
                     "Games": integer(d["games"]), "Cap binds (games)": pct(d["binds_share"], 2),
                     "95% CI": pci(d["binds_low"], d["binds_high"], 2),
                     "Held-back collapses / game": num(d["deferred_per_game"], ".3f")})
        try:
            w = DM.warning_honesty(run.games, run.seats, ctx.config.alpha)
        except KeyError:
            continue
        for r in w.itertuples():
            wrows.append({"Run": run.path.name,
                          "steps_per_floor": str(run.param("maw.steps_per_floor", "?")),
                          "Players": r.players, "Warned crew-rounds / game": num(r.warned_pg),
                          "Taken if warned": pct(r.taken_if_warned),
                          "95% CI": pci(r.taken_if_warned_low, r.taken_if_warned_high),
                          "Moved in / game": num(getattr(r, "moved_in_pg", math.nan)),
                          "Mustered / game": num(getattr(r, "mustered_pg", math.nan)),
                          "Blindsided / game": num(getattr(r, "blindsided_pg", math.nan))})
    if not rows:
        raise KeyError("games has no column deferred_steps")
    s.tables.append(Table("The one-collapse cap", pd.DataFrame(rows)))
    if wrows:
        s.tables.append(Table("'One floor away'", pd.DataFrame(wrows)))
    return s


def _matchup_runs(ctx: Context) -> list[RunData]:
    # a claim's paired games fix their seats' styles: not a sample of the field
    return [r for r in ctx.runs if r.params_hash == ctx.primary.params_hash
            and not is_study_run(r)]


def _sec_matchups(ctx: Context, foot: str) -> Section:
    s = Section("matchups", "Matchups (2-player games) and Bradley-Terry strength")
    wins = games = None
    used = []
    for run in _matchup_runs(ctx):
        if "players" not in run.seats.columns or not (run.seats["players"] == 2).any():
            continue
        w, n = M.matchup_matrix(_full_games(run.balance_seats()[0]), "company")
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
    s.figures.append(Figure("bradley_terry.png", DP.bradley_terry_bars(
        bt, title="Bradley-Terry strength (2-player games)", footer=foot),
        "Bradley-Terry: each company's chance to beat an average company."))
    n_games = pd.Series({a: games.loc[a].sum() for a in order})
    s.tables.append(Table("Bradley-Terry strength", pd.DataFrame({
        "#": range(1, len(bt) + 1), "Company": bt["item"],
        "Strength (log-odds)": bt["strength"].map(lambda v: num(v, "+.3f")),
        "P(beat average)": bt["p_vs_average"].map(pct),
        "2p games": [integer(n_games[a]) for a in bt["item"]],
        "Win share": [pct(wins.loc[a].sum() / max(games.loc[a].sum(), 1)) for a in bt["item"]],
    })))
    mat = share.map(lambda v: "" if isinstance(v, float) and math.isnan(v) else f"{v * 100:.0f}")
    mat.columns = [str(i) for i in range(1, len(order) + 1)]
    mat.insert(0, "Company", order)
    mat.insert(0, "#", range(1, len(order) + 1))
    s.tables.append(Table("Matchup matrix: row's win share (%) against column #", mat))
    return s


def _sec_exercise(ctx: Context, foot: str) -> Section:
    s = Section("exercise", "Rules exercised")
    ex = DM.exercise(ctx.primary.seats)
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
            rare += [f"{g} ({label}, used in {pct(u)} of its player-games)"
                     for g, u in zip(d["group"], d["share_used"], strict=True) if u < 0.25]
            s.tables.append(Table(f"{label} abilities", pd.DataFrame({
                label: d["group"], "Player-games": d["player_games"].map(integer),
                "Uses / pg": d["uses_pg"].map(num),
                "Player-games with a use": d["share_used"].map(pct)})))
    if "rooms" in ex:
        d = ex["rooms"]
        rare += [f"room theme {t} ({n:,} claims)" for t, n, r in
                 zip(d["theme"], d["claims"], d["claims_per_game"], strict=True) if r < 0.01]
        s.tables.append(Table("Room themes claimed", pd.DataFrame({
            "Theme": d["theme"], "Claims": d["claims"].map(integer),
            "Per player-game": d["claims_per_game"].map(lambda v: num(v, ".3f"))})))
    if "exits" in ex:
        d = ex["exits"]
        s.tables.append(Table("Exits", pd.DataFrame({
            "Exit": d["exit"], "Uses": d["uses"].map(integer),
            "Per player-game": d["per_player_game"].map(lambda v: num(v, ".3f"))})))
    s.paragraphs.append(
        ("**Rarely exercised** (an ability used in under 25% of its player-games, a room "
         "theme claimed under once per 100 player-games): " + "; ".join(rare) +
         ". Results for these may reflect the bots more than the rules.") if rare else
        "Every ability is used in at least 25% of its player-games and every room theme is "
        "claimed.")
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


def sections(ctx: Context) -> list:
    """The report's sections in order, as ``(key, title, build)``."""
    return [
        ("win-share", "Win share per company, Lineage and Calling", _sec_win_share),
        ("seats", "Seat advantage", seat_advantage),
        ("length", "Game length", _sec_length),
        ("margins", "Margins", _sec_margins),
        ("exits", "Exits and the feel-bad rate", _sec_exits),
        ("bots", "Bot styles", bot_styles),
        ("swing", "Swing", _sec_swing),
        ("contention", "Contention", _sec_contention),
        ("maw", "The Maw's pace", _sec_maw),
        ("matchups", "Matchups (2-player games) and Bradley-Terry strength", _sec_matchups),
        ("exercise", "Rules exercised", _sec_exercise),
        ("variations", "One rule reading at a time", _sec_variations),
    ]


def roles(ctx: Context) -> list[str]:
    """What each run besides the primary one is used for."""
    out = []
    spf = ctx.variants("maw.steps_per_floor")
    for run in ctx.others:
        diff = ctx.diff_paths(run)
        bits = []
        if is_study_run(run):
            bits.append(f"B5's paired games ({run.scenario_name.removeprefix('claims-')})"
                        if run.scenario_name.startswith("claims-b5-") else
                        f"a claim's own games ({run.scenario_name})")
        elif not diff:
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
        out.append(", ".join(bits))
    return out


#: the Method section's account of the report's numbers
METHOD = (
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


def language_rows(shared: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The Method section's metric-language table: the shared rows with DEEPFALL's metrics."""
    win, seat, length, bots = shared
    return [(win[0], win[1] + ", win_share[lineage], win_share[calling], company_spread, "
                              "lineage_spread, calling_spread"),
            seat, length,
            ("Margins", "margin, margin_rel, tie_share"),
            ("Exits and the feel-bad rate",
             ("feel_bad[bot], feel_bad_mid, feel_bad_crew[calling], "
              "cash_outs[bot], last_stands, worthy_ends, crews")),
            bots,
            ("Contention", "contested_share[players], markers_per_contested"),
            ("The Maw's pace", "cap_binds, taken_if_warned[players]")]
