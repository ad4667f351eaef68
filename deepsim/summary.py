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

from deepsim import stats
from deepsim.report.config import ReportConfig

__all__ = ["balance_verdict", "data_banner", "field_line", "headline_lines", "render_summary",
           "rounds_table", "win_share_table"]


def _fmt(x: float | None, spec: str = ".1f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, spec)


def data_banner(placeholders: Sequence[str], skipped_rules: Sequence[str]) -> Panel | None:
    """A yellow panel listing placeholder data and skipped rules, or None if neither.

    Parameters
    ----------
    placeholders : sequence of str
        Parameter paths whose values are placeholders (``Prepared.placeholders``).
    skipped_rules : sequence of str
        Rules the engine does not implement (``Prepared.skipped_rules``).
    """
    if not placeholders and not skipped_rules:
        return None
    lines = []
    if placeholders:
        lines.append("[bold]Placeholder data[/bold] (not in the rulebook; results depend on "
                     "these guesses):")
        lines += [f"  - {escape(p)}" for p in placeholders]
    if skipped_rules:
        lines.append("[bold]Skipped rules[/bold] (not simulated):")
        lines += [f"  - {escape(r)}" for r in skipped_rules]
    return Panel("\n".join(lines), title="[bold yellow]Caution[/bold yellow]",
                 border_style="yellow", expand=False)


#: the summary's verdict scale (the report's defaults: viability.min_ratio,
#: viability.max_ratio, viability.max_rel_width)
MIN_RATIO, MAX_RATIO, MAX_REL_WIDTH = (ReportConfig.min_ratio, ReportConfig.max_ratio,
                                      ReportConfig.max_rel_width)
_VERDICT_STYLE = {"too strong": "bold red", "not viable": "bold red", "over": "green",
                  "under": "yellow", "inconclusive": "dim"}


def balance_verdict(ci_low: float, ci_high: float, fair: float, *,
                    min_ratio: float = MIN_RATIO, max_ratio: float = MAX_RATIO,
                    max_rel_width: float = MAX_REL_WIDTH) -> str:
    """One group's place on the verdict scale, from its win-share interval (shares, 0-1).

    The report's rule (:func:`deepsim.report.metrics.viability_verdict`: ``"too strong"``
    when the whole interval is above ``max_ratio`` x fair share, ``"not viable"`` when it is
    all below ``min_ratio`` x fair share, ``"inconclusive"`` when it is wider than
    ``max_rel_width`` x fair share), with its ``"viable"`` told apart as ``"over"`` /
    ``"under"`` (the interval excludes the fair share) or ``"fair"``.
    """
    from deepsim.report.metrics import viability_verdict

    if not fair > 0:
        return "inconclusive"
    verdict = viability_verdict([ci_low], [ci_high], [fair], min_ratio=min_ratio,
                                max_rel_width=max_rel_width, max_ratio=max_ratio)[0]
    if verdict != "viable":
        return verdict
    return "over" if ci_low > fair else "under" if ci_high < fair else "fair"


def _styled(verdict: str, color: bool = True) -> str:
    style = _VERDICT_STYLE.get(verdict)
    return f"[{style}]{verdict}[/{style}]" if style and color else verdict


def win_share_table(seats: pd.DataFrame, by: str, label: str | None = None,
                    left_out: str = "") -> Table:
    """Table of win share per ``by`` group with the 95% Wilson interval, the fair share and
    the verdict (:func:`balance_verdict`: too strong, over, fair, under, not viable,
    inconclusive; coloured on a colour terminal, words either way).

    Parameters
    ----------
    seats : DataFrame
        Columns ``by``, ``win``, ``fair`` (see :func:`deepsim.stats.win_shares`).
    by : str
        The ruleset's faction column (``Ruleset.faction_column``) or any group column.
    label : str, optional
        Its noun in prose (``Ruleset.faction_label``); default ``by``.
    left_out : str, optional
        What the caller left out of ``seats`` (e.g. baseline bots), said in the caption.
    """
    label = label or by
    df = stats.win_shares(seats, by=by)
    table = Table(title=f"Win share per {label} (95% Wilson interval)", box=box.SIMPLE_HEAVY,
                  title_justify="left", pad_edge=False)
    table.add_column(label.capitalize(), overflow="fold")
    for name in ("Games", "Win %", "95% CI", "Fair", "x fair"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Verdict", no_wrap=True)
    for row in df.itertuples(index=False):
        verdict = balance_verdict(row.ci_low, row.ci_high, row.fair_share)
        table.add_row(
            escape(str(getattr(row, by))), f"{row.games:,}",
            f"{100 * row.win_share:.1f}",
            f"{100 * row.ci_low:.1f}-{100 * row.ci_high:.1f}",
            f"{100 * row.fair_share:.1f}", f"{row.ratio:.2f}", _styled(verdict),
        )
    table.caption = (f"too strong: interval above {MAX_RATIO:g} x fair; not viable: below "
                     f"{MIN_RATIO:g} x fair; over/under: excludes fair; inconclusive: wider "
                     f"than {MAX_REL_WIDTH:.0%} of fair") + (f"\n{left_out}" if left_out else "")
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
                   color: bool = True) -> list[str]:
    """The answer first: for each ``(column, noun)`` the strongest and the weakest group by
    win/fair, with its 95% Wilson interval on the same scale and its verdict, and how many
    groups are too strong or not viable.

    ``seats`` needs ``win``, ``fair`` and each column; the groups of a column with fewer
    than two groups are skipped.
    """
    out = []
    for col, noun in columns:
        if col not in seats.columns:
            continue
        df = stats.win_shares(seats, by=col)
        if len(df) < 2:
            continue
        df = df.sort_values("ratio", ascending=False, kind="stable")
        verdicts = [balance_verdict(r.ci_low, r.ci_high, r.fair_share)
                    for r in df.itertuples(index=False)]

        def one(i: int, df=df, col=col, verdicts=verdicts) -> str:
            r = df.iloc[i]
            f = r["fair_share"]
            return (f"{escape(str(r[col]))} {r['ratio']:.2f}x fair "
                    f"[{r['ci_low'] / f:.2f}-{r['ci_high'] / f:.2f}] "
                    f"{_styled(verdicts[i], color)}")

        n_strong, n_dead = verdicts.count("too strong"), verdicts.count("not viable")
        head = escape(noun.capitalize())
        out.append(f"{f'[bold]{head}[/bold]' if color else head} ({len(df)}: {n_strong} too "
                   f"strong, {n_dead} not viable)")
        out.append(f"  strongest {one(0)}")
        out.append(f"  weakest   {one(len(df) - 1)}")
    return out


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


def render_summary(console: Console, games: pd.DataFrame, seats: pd.DataFrame, *,
                   by: str, label: str | None = None, score: str | None = None,
                   title: str = "Run summary", placeholders: Sequence[str] = (),
                   skipped_rules: Sequence[str] = (), wall_time_s: float | None = None,
                   games_per_s: float | None = None, compile_s: float | None = None,
                   compiled: bool | None = None, out_dir: str | None = None,
                   status: str | None = None, baseline_bots: Sequence[str] = (),
                   headline: Sequence[tuple[str, str]] = ()) -> None:
    """Print a run's summary: banner, win shares per faction, rounds, margin, truncation.

    Parameters
    ----------
    console : rich.console.Console
        Where to print.
    games : DataFrame
        Uses ``players`` (else the seats' ``players``), ``rounds``, ``margin``,
        ``margin_rel``, ``truncated`` and ``winner_side`` (-1 = a draw) when present.
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
    """
    console.rule(f"[bold]{escape(title)}")
    if status is not None and status != "complete":
        console.print(f"[bold red]Run is {escape(status)}: these are partial results.[/]")
    parts = []
    if not seats.empty and by in seats.columns:
        from deepsim.botdata import split_baseline
        kept, n_out = split_baseline(seats, tuple(baseline_bots))
        note = (f"Baseline bots ({', '.join(baseline_bots)}) left out: {n_out:,} seat-games; "
                f"fair share = the kept seats' mean win" if n_out else "")
        color = console.color_system is not None
        lines = headline_lines(kept, list(headline) or [(by, label or by)], color=color)
        field = field_line(kept, baseline_bots, n_out)
        if lines:
            console.print("[bold]Headline[/bold] (win/fair, 95% Wilson interval)",
                          highlight=False)
            for line in lines + ([field] if field else []):
                console.print("  " + line, highlight=False)
        parts.append(win_share_table(kept, by=by, label=label, left_out=note))
    # the answer first, then the caveats it rests on, then the tables
    banner = data_banner(placeholders, skipped_rules)
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
    ov = stats.game_overview(games)
    lines = [f"Games: {ov['games']:,}"]
    if ov["mean_margin"] is not None:
        rel = (f"; mean relative margin {ov['mean_margin_rel']:.3f}"
               if ov["mean_margin_rel"] is not None else "")
        unit = f" {score}" if score else ""
        lines.append(f"Mean margin (winner minus runner-up): {ov['mean_margin']:.2f}{unit}{rel}")
    if ov["truncated"] is not None:
        style = "red" if ov["truncated"] else "green"
        lines.append(f"Truncated games (stopped by the game-length cap): [{style}]{ov['truncated']:,}[/{style}]")
    if "winner_side" in games.columns and not games.empty:
        draws = int((games["winner_side"].to_numpy() < 0).sum())
        lines.append(f"Draws: {draws:,} ({100 * draws / len(games):.1f}% of games)")
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
