"""Atlantis's own sections of the balance report (the shared report's ``report_sections`` hook).

The shared report (:mod:`deepsim.report.build`) writes the sections every ruleset has (win
share per faction, seat advantage, bot styles, method) and appends these:

- side win shares: Sea King / Sea Witch / unresolved (stopped by the safety cap), each with
  its Wilson interval, and the Sea King's share of the games that ended;
- first-move advantage: the share won by the side moving first and by the side moving
  second, and, when runs (or games) with ``setup.first_side`` swapped are given, each side's
  win share moving first against moving second;
- game length in player-turns and the share of games the safety cap stopped;
- how games end (leader killed by an attack, poison, a hazard or a spell, or the turn cap)
  per winning side, and the unit types that killed leaders;
- material of the games the cap stopped (what ``end.at_cap=material`` would adjudicate);
- win shares per side and bot style, and per pairing of styles, when the bots vary.

When several run directories are given (``deepsim report RUN_A RUN_B``, e.g. the hit rule
``combat.hit_faces`` as ``[1]`` and as ``[5, 6]``) every section puts the runs side by side,
each labelled by the rule parameters that tell it apart
(:meth:`deepsim.report.context.Context.run_labels`).

The numbers come from the games table (``winner_side``: -1 no winner (unresolved: the rules
have no draw, AT-V1), 0 Sea Witch, 1 Sea King; ``adjudicated``;
``first_side``; ``end_cause``, an index of :data:`layout.END_CAUSES`; ``turns``;
``killer``, the unit type whose action destroyed the leader; ``material_*``) and the seats
table (``faction``, ``bot``, ``win`` = 1 / 0, NaN when unresolved). Intervals: Wilson score
(statsmodels ``proportion_confint`` via :func:`deepsim.report.metrics.wilson`), t intervals
of a mean (:func:`deepsim.report.metrics.mean_ci`), and the difference of two independent
proportions (statsmodels ``confint_proportions_2indep``, Newcombe's score method).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import confint_proportions_2indep

from deepsim.report import metrics as M
from deepsim.report.fmt import num as _num
from deepsim.report.fmt import pci as _pci
from deepsim.report.fmt import pct as _pct
from deepsim.report.model import Figure, Section, Table
from deepsim.report.plots import new_figure, to_png
from deepsim.rulesets.atlantis.layout import END_CAUSES, KING, SIDE_TITLES, WITCH

__all__ = ["balance_games", "bot_matchups", "end_causes", "first_move", "game_length",
           "leader_killers", "material_at_cap", "sections", "side_shares"]

OUTCOMES = (SIDE_TITLES[KING], SIDE_TITLES[WITCH], "unresolved")
CAUSE_TITLES = {"attack": "leader killed by an attack", "poison": "leader killed by poison",
                "hazard": "leader killed by a hazard", "spell": "leader killed by a spell",
                "turn_cap": "stopped by the safety cap"}


# --- formatting -----------------------------------------------------------------------------

def _footer(ctx) -> str:
    runs = ctx.runs
    bits = [f"{r.scenario_name}: seed {r.seed}, {r.n_games:,} games, params "
            f"{r.params_hash[:12]}" for r in runs[:3]]
    return "; ".join(bits) + ("; ..." if len(runs) > 3 else "")


def _labels(ctx) -> list[str]:
    return ctx.run_labels() if len(ctx.runs) > 1 else ["this run"]


def _with_run(rows: list[dict], several: bool) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if not several and "Run" in df.columns:
        df = df.drop(columns=["Run"])
    return df


# --- the numbers ----------------------------------------------------------------------------

def _causes(games: pd.DataFrame) -> pd.Series:
    """End cause of each game as a name of :data:`END_CAUSES`."""
    if "end_cause" in games.columns:
        codes = games["end_cause"].to_numpy(dtype=np.int64)
        names = np.array(END_CAUSES, dtype=object)
        ok = (codes >= 0) & (codes < len(END_CAUSES))
        out = np.where(ok, names[np.clip(codes, 0, len(END_CAUSES) - 1)], "?")
        return pd.Series(out, index=games.index, dtype=object)
    M.require(games, ["end"], "games")
    return games["end"].astype(str)


def _winner(games: pd.DataFrame) -> np.ndarray:
    M.require(games, ["winner_side"], "games")
    return games["winner_side"].to_numpy(dtype=np.int64)


def balance_games(run) -> tuple[pd.DataFrame, int]:
    """The run's games with no baseline bot on either side (``run.baseline_bots``: styles
    marked ``baseline: true`` in ``bots.yaml``, yardsticks such as uniform random play), and
    the number of games left out. Every side, first-move, length and ending table reads
    these: a game against a baseline bot measures the bot, not the armies."""
    base = [str(b) for b in run.baseline_bots]
    games = run.games
    if not base or "bot" not in run.seats.columns or "game" not in games.columns:
        return games, 0
    seats = run.seats
    bad = seats.loc[seats["bot"].astype(str).isin(base), "game"].unique()
    if len(bad) == 0:
        return games, 0
    keep = ~games["game"].isin(bad).to_numpy()
    return games.loc[keep], int((~keep).sum())


def _games(run) -> pd.DataFrame:
    return balance_games(run)[0]


def _left_out(ctx) -> str:
    """' Games with a baseline bot (random) left out: N.' per run, or ''."""
    bits = []
    for run, label in zip(ctx.runs, _labels(ctx), strict=True):
        n = balance_games(run)[1]
        if n:
            who = f" ({label})" if len(ctx.runs) > 1 else ""
            bits.append(f"{n:,}{who}")
    if not bits:
        return ""
    base = ", ".join(dict.fromkeys(b for r in ctx.runs for b in r.baseline_bots))
    return (f" Games with a baseline bot ({base}) on either side are left out: "
            f"{'; '.join(bits)}.")


def side_shares(games: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Share of games won by the Sea King, by the Sea Witch and left unresolved by the safety
    cap (no winner: the rules have no draw, AT-V1), with Wilson intervals.

    Returns one row per outcome (``outcome``, ``games``, ``count``, ``share``, ``ci_low``,
    ``ci_high``); the three shares sum to 1. A game adjudicated at the cap
    (``end.at_cap=material``) counts for the side it was given to.
    """
    w = _winner(games)
    n = len(w)
    rows = []
    for label, hit in ((OUTCOMES[0], w == KING), (OUTCOMES[1], w == WITCH),
                       (OUTCOMES[2], w < 0)):
        k = int(hit.sum())
        lo, hi = M.wilson(k, n, alpha) if n else (math.nan, math.nan)
        rows.append({"outcome": label, "games": n, "count": k,
                     "share": k / n if n else math.nan, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def first_move(games: pd.DataFrame, alpha: float = 0.05) -> dict:
    """The side moving first against the side moving second.

    Returns ``games``, ``first_wins``, ``second_wins``, ``unresolved`` (counts), their
    shares of all games with Wilson intervals (``first``, ``second``, ``open``: ``(share,
    low, high)``) and the first mover's share of the games that ended (``score``, Wilson),
    against the fair 1/2.
    """
    M.require(games, ["first_side", "winner_side"], "games")
    w = _winner(games)
    f = games["first_side"].to_numpy(dtype=np.int64)
    n = len(w)
    k1, k2, kd = int((w == f).sum()), int(((w >= 0) & (w != f)).sum()), int((w < 0).sum())
    out = {"games": n, "first_wins": k1, "second_wins": k2, "unresolved": kd}
    for key, k, m in (("first", k1, n), ("second", k2, n), ("open", kd, n),
                      ("score", k1, k1 + k2)):
        lo, hi = M.wilson(k, m, alpha) if m else (math.nan, math.nan)
        out[key] = (k / m if m else math.nan, lo, hi)
    return out


def game_length(games: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Player-turns per game (mean with t interval, SD, median, 5th/95th percentile, max) and
    the share of games the safety cap stopped (Wilson; a stopped game's length is the cap, a
    lower bound)."""
    M.require(games, ["turns"], "games")
    x = games["turns"].to_numpy(dtype=np.float64)
    n = x.size
    mean, lo, hi = M.mean_ci(x, alpha) if n > 1 else (
        (float(x.mean()), math.nan, math.nan) if n else (math.nan,) * 3)
    p5, med, p95 = np.percentile(x, [5, 50, 95]) if n else (math.nan,) * 3
    cap = int((_causes(games) == "turn_cap").sum())
    clo, chi = M.wilson(cap, n, alpha) if n else (math.nan, math.nan)
    return {"games": n, "mean": mean, "mean_low": lo, "mean_high": hi,
            "sd": float(x.std(ddof=1)) if n > 1 else math.nan, "median": float(med),
            "p5": float(p5), "p95": float(p95), "max": float(x.max()) if n else math.nan,
            "capped": cap, "cap_share": cap / n if n else math.nan, "cap_low": clo,
            "cap_high": chi}


def end_causes(games: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """How games end: one row per cause of :data:`END_CAUSES` (every cause, seen or not).

    Columns ``cause``, ``games`` (all games), ``count``, ``share`` with Wilson ``ci_low`` /
    ``ci_high`` (of all games), and per side ``king``/``witch`` (games that side won this way)
    with ``king_of_wins``/``witch_of_wins`` (share of that side's wins, Wilson ``*_low`` /
    ``*_high``).
    """
    cause = _causes(games).to_numpy()
    w = _winner(games)
    n = len(w)
    wins = {"king": int((w == KING).sum()), "witch": int((w == WITCH).sum())}
    rows = []
    for c in END_CAUSES:
        hit = cause == c
        k = int(hit.sum())
        lo, hi = M.wilson(k, n, alpha) if n else (math.nan, math.nan)
        row = {"cause": c, "games": n, "count": k, "share": k / n if n else math.nan,
               "ci_low": lo, "ci_high": hi}
        for key, side in (("king", KING), ("witch", WITCH)):
            ks = int((hit & (w == side)).sum())
            ns = wins[key]
            slo, shi = M.wilson(ks, ns, alpha) if ns else (math.nan, math.nan)
            row.update({key: ks, f"{key}_of_wins": ks / ns if ns else math.nan,
                        f"{key}_of_wins_low": slo, f"{key}_of_wins_high": shi})
        rows.append(row)
    return pd.DataFrame(rows)


def leader_killers(games: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Unit types whose action destroyed a leader, most kills first.

    Columns ``unit``, ``side`` (the winning side of those games), ``kills``, ``share`` of the
    decisive games with Wilson ``ci_low``/``ci_high``, and the kills per end cause.
    """
    M.require(games, ["killer", "winner_side"], "games")
    w = _winner(games)
    killer = games["killer"].astype(str).to_numpy()
    decisive = (w >= 0) & (killer != "") & (killer != "nan")
    n_dec = int((w >= 0).sum())
    if not decisive.any():
        return pd.DataFrame(columns=["unit", "side", "kills", "share", "ci_low", "ci_high",
                                     *END_CAUSES])
    d = pd.DataFrame({"unit": killer[decisive], "winner": w[decisive],
                      "cause": _causes(games).to_numpy()[decisive]})
    rows = []
    for (unit, side), g in d.groupby(["unit", "winner"], sort=False):
        k = len(g)
        lo, hi = M.wilson(k, n_dec, alpha)
        row = {"unit": unit, "side": SIDE_TITLES[int(side)] if 0 <= side < 2 else "?",
               "kills": k, "share": k / n_dec, "ci_low": lo, "ci_high": hi}
        counts = g["cause"].value_counts()
        row.update({c: int(counts.get(c, 0)) for c in END_CAUSES})
        rows.append(row)
    out = pd.DataFrame(rows).sort_values(["kills", "unit"], ascending=[False, True])
    return out.reset_index(drop=True)


def material_at_cap(games: pd.DataFrame, alpha: float = 0.05) -> dict | None:
    """Material (AD x remaining DR of the survivors) of the games the safety cap stopped:
    Sea King minus Sea Witch (mean with t interval, median, 5th-95th percentile), the share
    of capped games each side leads (Wilson), and the first mover's margin. None when no
    game reached the cap."""
    M.require(games, ["material_king", "material_witch"], "games")
    capped = (_causes(games) == "turn_cap").to_numpy()
    n = int(capped.sum())
    if n == 0:
        return None
    g = games.loc[capped]
    diff = (g["material_king"].to_numpy(dtype=np.float64)
            - g["material_witch"].to_numpy(dtype=np.float64))
    mean, lo, hi = M.mean_ci(diff, alpha) if n > 1 else (float(diff.mean()), math.nan, math.nan)
    p5, med, p95 = np.percentile(diff, [5, 50, 95])
    out = {"capped": n, "mean": mean, "mean_low": lo, "mean_high": hi, "median": float(med),
           "p5": float(p5), "p95": float(p95),
           "king_material": float(g["material_king"].mean()),
           "witch_material": float(g["material_witch"].mean())}
    for key, hit in (("king_ahead", diff > 0), ("witch_ahead", diff < 0), ("level", diff == 0)):
        k = int(hit.sum())
        a, b = M.wilson(k, n, alpha)
        out[key] = (k / n, a, b)
    if "material_margin" in g.columns:
        mm = g["material_margin"].to_numpy(dtype=np.float64)
        out["first_margin"] = (M.mean_ci(mm, alpha) if n > 1 else
                               (float(mm.mean()), math.nan, math.nan))
    return out


def bot_matchups(games: pd.DataFrame, seats: pd.DataFrame, alpha: float = 0.05
                 ) -> pd.DataFrame:
    """Games by the pair of bot styles (Sea Witch's, Sea King's): share won by each side and
    left unresolved, with Wilson intervals. Columns ``witch_bot``, ``king_bot``, ``games``
    and ``king``/``witch``/``open`` with ``*_low``/``*_high``."""
    M.require(seats, ["game", "faction", "bot"], "seats")
    w = pd.Series(_winner(games), index=games["game"].to_numpy())
    s = seats[["game", "faction", "bot"]].astype({"faction": str, "bot": str})
    pair = s.pivot_table(index="game", columns="faction", values="bot", aggfunc="first")
    king, witch = SIDE_TITLES[KING], SIDE_TITLES[WITCH]
    if king not in pair.columns or witch not in pair.columns:
        raise KeyError("seats has no Sea King or Sea Witch rows")
    pair["winner"] = w.reindex(pair.index).to_numpy()
    rows = []
    for (wb, kb), g in pair.groupby([witch, king], sort=True):
        n = len(g)
        row = {"witch_bot": wb, "king_bot": kb, "games": n}
        for key, hit in (("king", g["winner"] == KING), ("witch", g["winner"] == WITCH),
                         ("open", g["winner"] < 0)):
            k = int(hit.sum())
            lo, hi = M.wilson(k, n, alpha)
            row.update({key: k / n, f"{key}_low": lo, f"{key}_high": hi})
        rows.append(row)
    return pd.DataFrame(rows)


# --- the sections ---------------------------------------------------------------------------

def _sec_sides(ctx) -> Section:
    s = Section("atlantis-sides", "Side win shares: Sea King, Sea Witch, unresolved")
    a = ctx.config.alpha
    labels = _labels(ctx)
    several = len(ctx.runs) > 1
    s.paragraphs.append(
        "Share of games won by each side and left unresolved (the rules end a game only when "
        "a leader dies, AT-V1; the engine's invented safety cap `end.max_turns` stops a game "
        "the bots cannot finish, with no result), each with its 95% Wilson interval; the "
        "three shares sum to 100%. *Sea King of the games that ended* leaves the unresolved "
        "games out (50% = balanced), as the per-faction win share above does."
        + _left_out(ctx))
    rows, plot = [], []
    for run, label in zip(ctx.runs, labels, strict=True):
        t = side_shares(_games(run), a)
        row = {"Run": label, "Games": f"{len(_games(run)):,}"}
        for r in t.itertuples():
            row[r.outcome] = f"{_pct(r.share)} ({_pci(r.ci_low, r.ci_high)})"
            plot.append((label, r.outcome, r.share, r.ci_low, r.ci_high))
        king, witch = int(t["count"].iloc[0]), int(t["count"].iloc[1])
        dec = king + witch
        lo, hi = M.wilson(king, dec, a) if dec else (math.nan, math.nan)
        row["Sea King of the games that ended"] = (f"{_pct(king / dec if dec else math.nan)} "
                                                   f"({_pci(lo, hi)})")
        rows.append(row)
    s.tables.append(Table("Share of games (95% CI)", _with_run(rows, several)))
    s.figures.append(Figure("atlantis_sides.png", _bars(
        plot, labels, OUTCOMES, title="Share of games: Sea King, Sea Witch, unresolved",
        ylabel="share of games", fair=None, footer=_footer(ctx)),
        "Share of games won by each side and left unresolved by the safety cap, with 95% "
        "Wilson intervals."))
    return s


def _first_groups(ctx) -> list[tuple[str, list]]:
    """Runs grouped by their rules apart from ``setup.first_side``, each group labelled by
    the parameters that tell the groups apart."""
    runs = ctx.runs
    paths = sorted(set().union(*(ctx.diff_paths(r) for r in runs[1:])) - {"setup.first_side"}
                   if len(runs) > 1 else set())
    groups: dict[tuple, list] = {}
    for run in runs:
        key = tuple(repr(run.param(p)) for p in paths)
        groups.setdefault(key, []).append(run)
    out = []
    for runs_g in groups.values():
        label = ", ".join(f"{p}={runs_g[0].param(p)}" for p in paths) or (
            "all runs" if len(runs) > 1 else "this run")
        out.append((label, runs_g))
    return out


def _sec_first(ctx) -> Section:
    s = Section("atlantis-first-move", "First-move advantage")
    a = ctx.config.alpha
    labels = _labels(ctx)
    several = len(ctx.runs) > 1
    s.paragraphs.append(
        "The side that moves first (`setup.first_side`; the rulebook's Sea Witch by default) "
        "against the side that moves second: share of games each wins (and left unresolved "
        "by the safety cap) and the first mover's share of the games that ended, with 95% "
        "Wilson intervals; a share above 50% is a first-move advantage." + _left_out(ctx))
    rows = []
    for run, label in zip(ctx.runs, labels, strict=True):
        fm = first_move(_games(run), a)
        firsts = sorted({int(v) for v in _games(run)["first_side"].unique()})
        who = ", ".join(SIDE_TITLES[v] for v in firsts if 0 <= v < 2) or "?"
        rows.append({
            "Run": label, "Moves first": who, "Games": f"{fm['games']:,}",
            "First mover wins": f"{_pct(fm['first'][0])} ({_pci(*fm['first'][1:])})",
            "Second mover wins": f"{_pct(fm['second'][0])} ({_pci(*fm['second'][1:])})",
            "Unresolved": f"{_pct(fm['open'][0])} ({_pci(*fm['open'][1:])})",
            "First mover of the games that ended":
                f"{_pct(fm['score'][0])} ({_pci(*fm['score'][1:])})"})
    s.tables.append(Table("First mover against second mover (95% CI)",
                          _with_run(rows, several)))
    # each side moving first against moving second: games pooled over runs whose rules
    # differ only in setup.first_side (and within a run whose first side varies)
    side_rows = []
    groups = _first_groups(ctx)
    for glabel, runs_g in groups:
        g = pd.concat([r.games[["first_side", "winner_side"]] for r in runs_g],
                      ignore_index=True)
        if g["first_side"].nunique() < 2:
            continue
        f = g["first_side"].to_numpy(dtype=np.int64)
        w = g["winner_side"].to_numpy(dtype=np.int64)
        for side in (KING, WITCH):
            on1, on2 = f == side, f != side
            n1, n2 = int(on1.sum()), int(on2.sum())
            k1, k2 = int((on1 & (w == side)).sum()), int((on2 & (w == side)).sum())
            l1, h1 = M.wilson(k1, n1, a)
            l2, h2 = M.wilson(k2, n2, a)
            dl, dh = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb",
                                                compare="diff", alpha=a)
            side_rows.append({
                "Rules": glabel, "Side": SIDE_TITLES[side],
                "Wins moving first": f"{_pct(k1 / n1)} ({_pci(l1, h1)}; {n1:,} games)",
                "Wins moving second": f"{_pct(k2 / n2)} ({_pci(l2, h2)}; {n2:,} games)",
                "First minus second": f"{100 * (k1 / n1 - k2 / n2):+.1f} pp "
                                      f"({100 * dl:+.1f} to {100 * dh:+.1f})"})
    if side_rows:
        df = pd.DataFrame(side_rows)
        if len(groups) == 1:
            df = df.drop(columns=["Rules"])
        s.tables.append(Table("Each side moving first against moving second (95% CI; "
                              "difference: Newcombe interval)", df,
                              note="Games pooled over the runs whose rules differ only in "
                                   "`setup.first_side`. The difference's interval treats "
                                   "the two samples as independent; runs from the same seed "
                                   "play the same maps and draws, which makes it "
                                   "conservative."))
    else:
        s.paragraphs.append(
            "Each side's own gain from moving first needs games with the other side moving "
            "first too: run the scenario again with `--set setup.first_side=sea_king` (or "
            "`sea_witch`) and pass both run directories: `deepsim report "
            f"{ctx.primary.path} RUN_DIR`.")
    return s


def _sec_length(ctx) -> Section:
    s = Section("atlantis-length", "Game length in turns; games the safety cap stopped")
    a = ctx.config.alpha
    labels = _labels(ctx)
    several = len(ctx.runs) > 1
    s.paragraphs.append(
        "Player-turns per game (one side's turn; a round is both sides' turns) with the t "
        "interval of the mean, and the share of games the safety cap `end.max_turns` "
        "stopped (Wilson interval; invented, not a rule: a stopped game is unresolved and "
        "its length, the cap, is a lower bound)." + _left_out(ctx))
    rows, hists = [], []
    for run, label in zip(ctx.runs, labels, strict=True):
        gl = game_length(_games(run), a)
        cap = run.param("end.max_turns")
        rows.append({
            "Run": label, "Games": f"{gl['games']:,}",
            "Mean turns": f"{_num(gl['mean'], '.1f')} ({_num(gl['mean_low'], '.1f')} - "
                          f"{_num(gl['mean_high'], '.1f')})",
            "SD": _num(gl["sd"], ".1f"), "Median": _num(gl["median"], "g"),
            "5th-95th pct": f"{_num(gl['p5'], 'g')} - {_num(gl['p95'], 'g')}",
            "Max": _num(gl["max"], "g"), "Safety cap": "-" if cap is None else str(cap),
            "Stopped at the cap": f"{gl['capped']:,} = {_pct(gl['cap_share'], 2)} "
                                  f"({_pci(gl['cap_low'], gl['cap_high'], 2)})"})
        hists.append((label, _games(run)["turns"].to_numpy(dtype=np.int64), cap))
    s.tables.append(Table("Turns per game (mean with 95% CI)", _with_run(rows, several)))
    s.figures.append(Figure("atlantis_turns.png", _turns_plot(hists, footer=_footer(ctx)),
                            "Share of games by player-turns played (dashed: the safety "
                            "cap)."))
    return s


def _sec_endings(ctx) -> Section:
    s = Section("atlantis-endings", "How games end")
    a = ctx.config.alpha
    labels = _labels(ctx)
    several = len(ctx.runs) > 1
    s.paragraphs.append(
        "A game ends when a leader is destroyed, by an attack's damage, by poison, by a "
        "hazard of the map (entering it, the End phase, a current) or by a spell (terrain a "
        "spell made, or a spell's effect); the safety cap stops (unresolved) a game that has "
        "not ended by then. Share of all games "
        "(95% Wilson interval), and for each side the share of its wins that came this way."
        + _left_out(ctx))
    rows, plot = [], []
    for run, label in zip(ctx.runs, labels, strict=True):
        ec = end_causes(_games(run), a)
        for r in ec.itertuples():
            rows.append({
                "Run": label, "Ending": CAUSE_TITLES.get(r.cause, r.cause),
                "Games": f"{r.count:,}", "Share of games": f"{_pct(r.share)} "
                                                        f"({_pci(r.ci_low, r.ci_high)})",
                "Sea King wins": f"{r.king:,}",
                "of Sea King's wins": "-" if r.cause == "turn_cap" else
                f"{_pct(r.king_of_wins)} ({_pci(r.king_of_wins_low, r.king_of_wins_high)})",
                "Sea Witch wins": f"{r.witch:,}",
                "of Sea Witch's wins": "-" if r.cause == "turn_cap" else
                f"{_pct(r.witch_of_wins)} ({_pci(r.witch_of_wins_low, r.witch_of_wins_high)})"})
            plot.append((label, r.cause, r.share, r.ci_low, r.ci_high))
    s.tables.append(Table("Endings (95% CI)", _with_run(rows, several)))
    s.figures.append(Figure("atlantis_endings.png", _bars(
        plot, labels, END_CAUSES, title="How games end", ylabel="share of games",
        fair=None, footer=_footer(ctx)), "Share of games by ending, with 95% intervals."))
    krows = []
    for run, label in zip(ctx.runs, labels, strict=True):
        try:
            lk = leader_killers(_games(run), a)
        except KeyError:
            continue
        for r in lk.head(12).itertuples():
            d = r._asdict()
            krows.append({"Run": label, "Unit": r.unit, "Side": r.side,
                          "Leader kills": f"{r.kills:,}",
                          "Share of decisive games": f"{_pct(r.share)} "
                                                    f"({_pci(r.ci_low, r.ci_high)})",
                          **{c: f"{d[c]:,}" for c in END_CAUSES if c != "turn_cap"}})
    if krows:
        s.tables.append(Table("Units that killed a leader (most kills first; at most 12 per "
                              "run)", _with_run(krows, several)))
    return s


def _sec_material(ctx) -> Section:
    s = Section("atlantis-material", "Material of the games the safety cap stopped")
    a = ctx.config.alpha
    labels = _labels(ctx)
    several = len(ctx.runs) > 1
    s.paragraphs.append(
        "Games the safety cap stopped are unresolved; material (the sum over surviving units "
        "of AD x remaining DR, AMB-T23) says who was ahead, and is what the opt-in "
        "adjudication `end.at_cap=material` would give them to: Sea King minus Sea Witch "
        "(mean with t interval, median, 5th-95th percentile), the share of stopped games each "
        "side leads (Wilson), and the first mover's margin." + _left_out(ctx))
    rows = []
    for run, label in zip(ctx.runs, labels, strict=True):
        m = material_at_cap(_games(run), a)
        if m is None:
            rows.append({"Run": label, "Capped games": "0"})
            continue
        fmm = m.get("first_margin")
        rows.append({
            "Run": label, "Capped games": f"{m['capped']:,}",
            "Sea King - Sea Witch": f"{_num(m['mean'], '.1f')} ({_num(m['mean_low'], '.1f')} "
                                    f"to {_num(m['mean_high'], '.1f')})",
            "Median": _num(m["median"], "g"),
            "5th-95th pct": f"{_num(m['p5'], 'g')} to {_num(m['p95'], 'g')}",
            "Sea King ahead": f"{_pct(m['king_ahead'][0])} ({_pci(*m['king_ahead'][1:])})",
            "Sea Witch ahead": f"{_pct(m['witch_ahead'][0])} ({_pci(*m['witch_ahead'][1:])})",
            "Level": _pct(m["level"][0]),
            "First mover's margin": "-" if fmm is None else
            f"{_num(fmm[0], '.1f')} ({_num(fmm[1], '.1f')} to {_num(fmm[2], '.1f')})"})
    if all(r["Capped games"] == "0" for r in rows):
        s.paragraphs.append("No game reached the safety cap.")
        return s
    s.tables.append(Table("Material of the stopped games (95% CI)",
                          _with_run(rows, several).fillna("-")))
    return s


def _sec_bots(ctx) -> Section:
    s = Section("atlantis-bots", "Bot styles per side")
    a = ctx.config.alpha
    labels = _labels(ctx)
    several = len(ctx.runs) > 1
    s.paragraphs.append(
        "Each side's results by the bot style playing it: wins and games left unresolved by "
        "the safety cap (Wilson intervals, of all seat-games) and the win share of the games "
        "that ended; then each pairing of styles (Sea Witch's against Sea King's), so a "
        "side's edge can be told from its bot's.")
    rows = []
    for run, label in zip(ctx.runs, labels, strict=True):
        seats = run.seats
        M.require(seats, ["faction", "bot", "win"], "seats")
        for (side, bot), g in seats.groupby(["faction", "bot"], observed=True, sort=True):
            w = g["win"].to_numpy(dtype=np.float64)
            n = w.size
            ended = ~np.isnan(w)
            k, kd, ne = int((w == 1).sum()), int((~ended).sum()), int(ended.sum())
            lo, hi = M.wilson(k, n, a)
            dlo, dhi = M.wilson(kd, n, a)
            slo, shi = M.wilson(k, ne, a) if ne else (math.nan, math.nan)
            rows.append({"Run": label, "Side": str(side), "Bot": str(bot),
                         "Seat-games": f"{n:,}",
                         "Wins": f"{_pct(k / n)} ({_pci(lo, hi)})",
                         "Unresolved": f"{_pct(kd / n)} ({_pci(dlo, dhi)})",
                         "Win share of the games that ended":
                             f"{_pct(k / ne if ne else math.nan)} ({_pci(slo, shi)})"})
    s.tables.append(Table("By side and bot style (95% CI)", _with_run(rows, several)))
    mrows = []
    for run, label in zip(ctx.runs, labels, strict=True):
        mu = bot_matchups(run.games, run.seats, a)
        for r in mu.itertuples():
            mrows.append({"Run": label, "Sea Witch bot": r.witch_bot, "Sea King bot": r.king_bot,
                          "Games": f"{r.games:,}",
                          "Sea King wins": f"{_pct(r.king)} ({_pci(r.king_low, r.king_high)})",
                          "Sea Witch wins": f"{_pct(r.witch)} "
                                            f"({_pci(r.witch_low, r.witch_high)})",
                          "Unresolved": f"{_pct(r.open)} ({_pci(r.open_low, r.open_high)})"})
    if mrows:
        s.tables.append(Table("Bot matchups: share of games (95% CI)",
                              _with_run(mrows, several)))
    return s


def sections(ctx) -> list:
    """Atlantis's sections of the report of ``ctx``'s runs as ``(key, title, build)`` (after
    the shared ones; see ``AtlantisRuleset.report_sections``)."""
    specs = [("atlantis-sides", "Side win shares: Sea King, Sea Witch, unresolved",
              _sec_sides),
             ("atlantis-first-move", "First-move advantage", _sec_first),
             ("atlantis-length", "Game length in turns; games the safety cap stopped",
              _sec_length),
             ("atlantis-endings", "How games end", _sec_endings),
             ("atlantis-material", "Material of the games the safety cap stopped",
              _sec_material)]
    if any("bot" in r.seats.columns and r.seats["bot"].nunique() > 1 for r in ctx.runs):
        specs.append(("atlantis-bots", "Bot styles per side", _sec_bots))
    return [(key, title, lambda c, foot, fn=fn: fn(c)) for key, title, fn in specs]


# --- plots ----------------------------------------------------------------------------------

def _bars(rows: list[tuple], labels: list[str], groups, *, title: str, ylabel: str,
          fair: float | None, footer: str) -> bytes:
    """Grouped bars: one group per item of ``groups``, one bar per run, 95% error bars.

    ``rows``: ``(run label, group, value, low, high)``.
    """
    fig = new_figure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    groups = list(groups)
    k = max(len(labels), 1)
    width = 0.8 / k
    x = np.arange(len(groups))
    by = {(r[0], r[1]): r[2:] for r in rows}
    for i, label in enumerate(labels):
        vals = np.array([by.get((label, g), (np.nan,) * 3) for g in groups], dtype=float)
        v, lo, hi = vals[:, 0], vals[:, 1], vals[:, 2]
        err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
        ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(v), width, yerr=err, capsize=2,
               label=label if len(labels) > 1 else None)
    if fair is not None:
        ax.axhline(fair, color="0.3", lw=1, ls="--")
    ax.set_xticks(x, [str(g).replace("_", " ") for g in groups])
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, max(1e-9, min(1.0, ax.get_ylim()[1])))
    if len(labels) > 1:
        ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return to_png(fig, footer)


def _turns_plot(hists: list[tuple[str, np.ndarray, object]], *, footer: str) -> bytes:
    """Share of games by turns played, one step line per run; dashed lines at the caps."""
    fig = new_figure(figsize=(7.2, 3.6))
    ax = fig.add_subplot()
    hi = max((int(t.max()) for _, t, _ in hists if t.size), default=1)
    bins = np.arange(0, hi + 2) - 0.5
    if hi > 120:  # wide ranges: about 100 bins
        step = math.ceil(hi / 100)
        bins = np.arange(0, hi + step + 1, step) - 0.5
    for label, turns, cap in hists:
        if not turns.size:
            continue
        counts, edges = np.histogram(turns, bins=bins)
        ax.step(edges[:-1] + 0.5, counts / turns.size, where="mid",
                label=label if len(hists) > 1 else None)
        if isinstance(cap, (int, float)) and not isinstance(cap, bool):
            ax.axvline(float(cap), color="0.3", lw=1, ls="--")
    ax.set_xlabel("player-turns per game")
    ax.set_ylabel("share of games")
    if len(hists) > 1:
        ax.legend(fontsize=7)
    ax.set_title("Game length (player-turns)", fontsize=10)
    ax.grid(alpha=0.3)
    return to_png(fig, footer)
