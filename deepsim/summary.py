"""Rich rendering of a run's summary (the numbers come from :mod:`deepsim.stats`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
from rich import box
from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from deepsim import stats
from deepsim.report import viability as V

__all__ = ["data_banner", "field_line", "headline_lines", "how_sure_lines",
           "render_summary", "rounds_table", "unresolved_line", "win_share_table"]


def _fmt(x: float | None, spec: str = ".1f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def data_banner(placeholders: Sequence[str], skipped_rules: Sequence[str],
                caps: Sequence[dict] = ()) -> Panel | None:
    """A yellow panel listing placeholder data, invented safety caps and skipped rules, or
    None if none.

    Parameters
    ----------
    placeholders : sequence of str
        Parameter paths whose values are placeholders (``Prepared.placeholders``).
    skipped_rules : sequence of str
        Rules the engine does not implement (``Prepared.skipped_rules``).
    caps : sequence of dict
        The run's safety caps (``run.json`` ``safety_caps``:
        :func:`deepsim.rulesets.base.safety_cap_values`): invented data, never a rule.
    """
    if not placeholders and not skipped_rules and not caps:
        return None
    lines = []
    if placeholders:
        lines.append("[bold]Placeholder data[/bold] (not in the rulebook; results depend on "
                     "these guesses):")
        lines += [f"  - {escape(p)}" for p in placeholders]
    if caps:
        lines.append("[bold]Invented safety caps[/bold] (not in the rulebook; a game one "
                     "stops is unresolved, left out of the win shares):")
        lines += [f"  - {escape(str(c['path']))} = {escape(str(c['value']))} "
                  f"{escape(str(c.get('unit', '')))}s" for c in caps]
    if skipped_rules:
        lines.append("[bold]Skipped rules[/bold] (not simulated):")
        lines += [f"  - {escape(r)}" for r in skipped_rules]
    return Panel("\n".join(lines), title="[bold yellow]Caution[/bold yellow]",
                 border_style="yellow", expand=False)


def _styled(word: str, color: bool = True) -> str:
    style = V.style_of(word)
    return f"[{style}]{word}[/{style}]" if style and color else word


def win_share_table(seats: pd.DataFrame, by: str, label: str | None = None,
                    left_out: str = "", lines: V.Lines = V.DEFAULT) -> Table:
    """Table of win share per ``by`` group: seat-games, win share with its 95% Wilson
    interval, fair share (percent), x fair, the Holm test and the viability verdict, row
    by row the balance report's table (:func:`deepsim.report.viability.table`); words,
    coloured on a colour terminal.

    Parameters
    ----------
    seats : DataFrame
        Columns ``by``, ``win``, ``fair`` (baseline bots already left out).
    by : str
        The ruleset's faction column (``Ruleset.faction_column``) or any group column.
    label : str, optional
        Its noun in prose (``Ruleset.faction_label``); default ``by``.
    left_out : str, optional
        What the caller left out of ``seats`` (e.g. baseline bots), said in the caption.
    lines : Lines
        The verdict scale (the report's defaults).
    """
    label = label or by
    df = V.in_percent(V.table(seats, by, lines))
    # one space between columns (the box's divider): the longest DEEPFALL company and
    # "inconclusive" stay whole at 80 columns
    table = Table(title=f"Win share per {label} (95% Wilson interval)", box=box.SIMPLE_HEAVY,
                  title_justify="left", pad_edge=False, padding=(0, 0),
                  show_edge=False, caption_justify="left")
    longest = max((len(str(n)) for n in df[by]), default=len(label))
    table.add_column(label.capitalize(), overflow="fold", min_width=min(longest, 24))
    for name in ("Games", "Win %", "95% CI", "Fair", "x fair"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Holm", no_wrap=True)
    table.add_column("Verdict", no_wrap=True)
    for row in df.itertuples(index=False):
        table.add_row(
            escape(str(getattr(row, by))), f"{row.games:,}", f"{row.win_share:.1f}",
            f"{row.ci_low:.1f}-{row.ci_high:.1f}", f"{row.fair_share:.1f}",
            f"{row.ratio:.2f}", _styled(row.test), _styled(row.verdict),
        )
    table.caption = V.rule_text(lines) + (f"\n{left_out}" if left_out else "")
    return table


def field_line(seats: pd.DataFrame, baseline_bots: Sequence[str] = (),
               n_left_out: int = 0) -> str | None:
    """``Field: greedy 50%, martyr 50% of seat-games; baseline bots (random) left out: N``:
    the bots a verdict comes from (their share of the seat-games kept), or None without a
    ``bot`` column."""
    if "bot" not in seats.columns or seats.empty:
        return None
    share = seats["bot"].astype(str).value_counts(normalize=True)
    text = "Field: " + ", ".join(f"{escape(b)} {100 * v:.0f}%" for b, v in share.items())
    text += " of seat-games"
    if n_left_out:
        text += (f"\n  Baseline bots ({escape(', '.join(baseline_bots))}) left out: "
                 f"{n_left_out:,} seat-games")
    return text


def headline_lines(seats: pd.DataFrame, columns: Sequence[tuple[str, str]],
                   color: bool = True, lines: V.Lines = V.DEFAULT) -> list[str]:
    """The answer first: for each ``(column, noun)`` the strongest and the weakest group by
    win/fair, with its 95% Wilson interval on the same scale and its verdict, and how many
    groups are too strong or not viable (:func:`deepsim.report.viability.headline`, as the
    report's headline).

    ``seats`` needs ``win``, ``fair`` and each column; the groups of a column with fewer
    than two groups are skipped.
    """
    out = []
    for h in V.headline(seats, columns, lines):
        def one(r, col=h.column) -> str:
            return (f"{escape(str(r[col]))} {r['ratio']:.2f}x fair "
                    f"[{r['ratio_low']:.2f}-{r['ratio_high']:.2f}] "
                    f"{_styled(r['verdict'], color)}")

        head = escape(h.noun.capitalize())
        out.append(f"{f'[bold]{head}[/bold]' if color else head} ({h.n}: {h.n_strong} too "
                   f"strong, {h.n_dead} not viable)")
        out.append(f"  strongest {one(h.strongest)}")
        out.append(f"  weakest   {one(h.weakest)}")
    return out


def unresolved_line(ov: dict, caps: Sequence[dict] = (), color: bool = True) -> str | None:
    """``Unresolved: 0.3% of games (312 of 100,000) at the 1,000 player-turn cap
    (end.max_turns): left out of the win shares``, styled red above
    :data:`deepsim.stats.UNRESOLVED_WARN`; None without a ``truncated`` column.

    Parameters
    ----------
    ov : dict
        :func:`deepsim.stats.game_overview` of the run's games.
    caps : sequence of dict
        Its safety caps (``run.json`` ``safety_caps``).
    """
    from deepsim.params import cap_text

    if ov.get("unresolved") is None:
        return None
    n, total = ov["unresolved"], ov["games"]
    share = ov["unresolved_share"] or 0.0
    where = cap_text(caps)
    text = (f"Unresolved: {100 * share:.1f}% of games ({n:,} of {total:,})"
            + (f" at {where}" if where else " at a safety cap")
            + ": left out of the win shares")
    adjudicated = (ov["truncated"] or 0) - n
    if adjudicated:
        text += f"; {adjudicated:,} more stopped there and adjudicated"
    if share > stats.UNRESOLVED_WARN:
        text += (f" (over {100 * stats.UNRESOLVED_WARN:g}%: the win shares describe only the "
                 "games that ended)")
    style = "bold red" if share > stats.UNRESOLVED_WARN else ("yellow" if n else "green")
    return f"[{style}]{text}[/{style}]" if color else text


def how_sure_lines(seats: pd.DataFrame, lines: V.Lines = V.DEFAULT,
                   color: bool = True) -> list[str]:
    """How far the verdicts rest on the field's bots: each bot style's x fair in this
    field and, when they differ by more than the viability band, how to check a verdict
    against better play (:func:`deepsim.report.viability.how_sure`)."""
    text = V.how_sure(seats, lines)
    if text is None:
        return []
    first, *rest = text
    return [escape(first)] + [("[dim]" + escape(t) + "[/dim]") if color else escape(t)
                              for t in rest]


def rounds_table(games: pd.DataFrame) -> Table:
    """Table of rounds per game by player count: mean, sd, median, 5th-95th percentile."""
    df = stats.rounds_by_players(games)
    table = Table(title="Rounds per game", box=box.SIMPLE_HEAVY, title_justify="left",
                  pad_edge=False)
    for name in ("Players", "Games", "Mean", "SD", "Median", "5th-95th pct"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in df.itertuples(index=False):
        table.add_row(str(row.players), f"{row.games:,}", _fmt(row.mean), _fmt(row.sd),
                      _fmt(row.median, ".0f"), f"{_fmt(row.p5, '.0f')} - {_fmt(row.p95, '.0f')}")
    return table


def _party_summary(console: Console, games: pd.DataFrame, seats: pd.DataFrame, *, by: str,
                   label: str, baseline_bots: Sequence[str], band: float,
                   unresolved: str | None) -> list:
    """Print a co-operative run's headline; return its presence-effect table and its note
    (unpaired, observational; how to pair it), or nothing."""
    from deepsim.report import party as P

    judged, _, n_base = P.party_games(games, seats, baseline_bots)
    rates = P.party_rates(judged, band=band / 100)
    console.print(f"[bold]Headline[/bold] (party win rate, 95% Wilson interval, "
                  f"target +- {band:g} pts)", highlight=False)
    for line in P.headline_text(rates, band / 100):
        console.print("  " + escape(line), highlight=False)
    if "outcome" in judged.columns and len(judged):
        share = judged["outcome"].astype(str).value_counts(normalize=True)
        console.print("  Outcomes: " + ", ".join(f"{escape(k)} {100 * v:.1f}%"
                                                for k, v in share.items()), highlight=False)
    if n_base:
        console.print(f"  Baseline bots ({', '.join(baseline_bots)}) left out: {n_base:,} "
                      "games with such a seat", highlight=False)
    if unresolved and (stats.game_overview(games)["unresolved"] or 0) > 0:
        console.print("  " + unresolved, highlight=False)
    if seats.empty or by not in seats.columns or "game" not in seats.columns:
        return []
    eff = P.class_effects(judged, seats, by)
    strata = [s for s in dict.fromkeys(eff["stratum"]) if s != "all"]
    table = Table(title=f"Presence effect of each {label}: party win rate with it minus "
                  "without (pts)", box=box.SIMPLE_HEAD, title_justify="left",
                  pad_edge=False)
    cols = [label.capitalize(), "Effect", "95% CI"] + [s.replace(" players", "p")
                                                      for s in strata]
    for name in cols:
        table.add_column(name, justify="left" if name == cols[0] else "right",
                         no_wrap=True)

    def pts(x: float) -> str:
        return "-" if math.isnan(x) else f"{100 * x:+.1f}"

    for member, rows in eff.groupby("member", sort=False):
        overall = rows.iloc[-1]
        per = rows.set_index("stratum")
        table.add_row(escape(str(member)), pts(overall["effect"]),
                      "-" if math.isnan(overall["low"]) else
                      f"{pts(overall['low'])} to {pts(overall['high'])}",
                      *[pts(per.loc[s, "effect"]) if s in per.index else "-"
                        for s in strata])
    table.caption = ("stratified by player count; Newcombe intervals; '-': the "
                     f"{label} sits in every game or in none")
    note = Text(f"Unpaired and observational: games with the {label} against games without "
                f"it, not the same games with it swapped. Paired effect: `deepsim compare` "
                f"of two runs on one seed that differ only in one seat's {label}.")
    return [table, note]


def render_summary(console: Console, games: pd.DataFrame, seats: pd.DataFrame, *,
                   by: str, label: str | None = None, score: str | None = None,
                   title: str = "Run summary", placeholders: Sequence[str] = (),
                   skipped_rules: Sequence[str] = (), wall_time_s: float | None = None,
                   games_per_s: float | None = None, compile_s: float | None = None,
                   compiled: bool | None = None, out_dir: str | None = None,
                   status: str | None = None, baseline_bots: Sequence[str] = (),
                   headline: Sequence[tuple[str, str]] = (),
                   caps: Sequence[dict] = (), cooperative: bool = False,
                   band: float = 5.0) -> None:
    """Print a run's summary: banner, win shares per faction, rounds, margin, unresolved
    games.

    Parameters
    ----------
    console : rich.console.Console
        Where to print.
    games : DataFrame
        Uses ``players`` (else the seats' ``players``), ``rounds``, ``margin``,
        ``margin_rel``, ``truncated``, ``adjudicated`` and ``winner_side`` (-1 = no winner)
        when present. Unresolved games (a safety cap stopped them) are counted in the
        headline and left out of the win shares (their seats' ``win`` is NaN), of the
        margins and of the draws.
    seats : DataFrame
        Needs ``by``, ``win``, ``fair``; ``players`` when the games have none.
    by, label : str
        The ruleset's faction column and its noun (``Ruleset.faction_column`` and
        ``faction_label``; the noun defaults to ``by``).
    score : str, optional
        What a player scores (``Ruleset.score_label``), the unit of the margin line.
    title : str
        Heading.
    placeholders, skipped_rules : sequence of str
        Shown in a caution banner when non-empty.
    wall_time_s, games_per_s : float, optional
        Timing line, in seconds and games per second (the games only).
    compile_s : float, optional
        Seconds spent compiling the kernels, or loading them from numba's cache, before
        the games (excluded from ``wall_time_s``); ``compiled`` tells which.
    out_dir : str, optional
        Where the results are.
    status : str, optional
        Manifest status; anything but ``"complete"`` is flagged.
    baseline_bots : sequence of str
        Bot styles marked ``baseline: true``: their seats are left out of the win share
        table (fair share renormalised among the rest, :func:`deepsim.botdata.split_baseline`)
        and the caption says how many (needs a ``bot`` column in ``seats``).
    headline : sequence of (column, noun)
        The groups the headline names strongest and weakest (default: ``by`` alone);
        DEEPFALL's are companies, Lineages and Callings.
    caps : sequence of dict
        The run's safety caps (``run.json`` ``safety_caps``), named in the unresolved line
        and flagged as invented in the caution banner.
    cooperative : bool
        A co-operative game (``Ruleset.cooperative``): the headline is the party's win rate
        against the target by player count (games columns ``game``, ``won``,
        ``target``, ``outcome``; :mod:`deepsim.report.party`) and the table each
        ``by`` member's presence effect, instead of win shares.
    band : float
        The co-operative verdict's band around the target, in percentage points (the
        report option ``coop.band``).
    """
    console.rule(f"[bold]{escape(title)}")
    if status is not None and status != "complete":
        console.print(f"[bold red]Run is {escape(status)}: these are partial results.[/]")
    parts = []
    ov = stats.game_overview(games)
    color = console.color_system is not None
    unresolved = unresolved_line(ov, caps, color=color)
    if cooperative and not games.empty and "won" in games.columns:
        parts += _party_summary(console, games, seats, by=by, label=label or by,
                                baseline_bots=baseline_bots, band=band,
                                unresolved=unresolved)
        unresolved = None
    elif not seats.empty and by in seats.columns:
        kept, n_out = V.balance_seats(seats, tuple(baseline_bots))
        note = (f"Baseline bots ({', '.join(baseline_bots)}) left out: {n_out:,} seat-games; "
                f"fair share = the kept seats' mean win" if n_out else "")
        lines = headline_lines(kept, list(headline) or [(by, label or by)], color=color)
        field = field_line(kept, baseline_bots, n_out)
        sure = how_sure_lines(kept, color=color)
        if lines:
            console.print("[bold]Headline[/bold] (win/fair, 95% Wilson interval)",
                          highlight=False)
            for line in lines + ([field] if field else []) + sure + ([unresolved] if unresolved
                                                                      else []):
                console.print("  " + line, highlight=False)
            unresolved = None
        parts.append(win_share_table(kept, by=by, label=label, left_out=note))
    # the answer first, then the caveats it rests on, then the tables
    if unresolved:
        console.print(unresolved, highlight=False)
    banner = data_banner(placeholders, skipped_rules, caps)
    if banner is not None:
        console.print(banner)
    if ("players" not in games.columns and "players" in seats.columns and not games.empty
            and "game" in games.columns and "game" in seats.columns):
        per_game = seats.drop_duplicates("game").set_index("game")["players"]
        games = games.assign(players=games["game"].map(per_game).to_numpy())
    if not games.empty and {"players", "rounds"} <= set(games.columns):
        parts.append(rounds_table(games))
    if parts:
        console.print(Group(*parts))
    lines = [f"Games: {ov['games']:,}"]
    if ov["mean_margin"] is not None:
        rel = (f"; mean relative margin {ov['mean_margin_rel']:.3f}"
               if ov["mean_margin_rel"] is not None else "")
        unit = f" {score}" if score else ""
        lines.append(f"Mean margin (winner minus runner-up): {ov['mean_margin']:.2f}{unit}{rel}")
    if ov["truncated"] is not None:
        style = "red" if ov["unresolved"] else "green"
        lines.append(f"Stopped by a safety cap: [{style}]{ov['truncated']:,}[/{style}] "
                     f"({ov['unresolved']:,} unresolved)")
    if "winner_side" in games.columns and not games.empty:
        from deepsim.report.metrics import draw_flags
        ended = len(games) - (ov["unresolved"] or 0)
        draws = int(draw_flags(games).sum())
        lines.append(f"Draws: {draws:,} ({100 * draws / max(ended, 1):.1f}% of the games "
                     "with a result)")
    if wall_time_s is not None:
        speed = f", {games_per_s:,.0f} games/s" if games_per_s else ""
        lines.append(f"Wall time: {wall_time_s:,.1f} s{speed}"
                     + (" (compile time excluded)" if compile_s is not None else ""))
    if compile_s is not None:
        lines.append(f"Kernel compile: {compile_s:,.1f} s (first run of these sources; "
                     "cached for the next)" if compiled else
                     f"Kernel compile: none (loaded from the cache in {compile_s:,.1f} s)")
    if out_dir is not None:
        lines.append(f"Results: {escape(str(out_dir))}")
    console.print("\n".join(lines))
