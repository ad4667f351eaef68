"""``deepsim ladder`` (registered on the main typer app by :func:`register`). Bad input
exits 2 with one red line and no traceback; Ctrl-C exits 130 and writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from deepsim.cli import options
from deepsim.cli.options import Threads, fail
from deepsim.errors import EXIT_INTERRUPTED, InputError

__all__ = ["ladder", "print_summary", "register", "summary_table"]


def summary_table(result) -> Table:
    """Per faction: its win share over fair share and verdict at each rung, two lines a
    cell (80 columns wide for up to five rungs)."""
    from deepsim.ladder.report import verdict_cells
    from deepsim.report import viability as V

    cells = verdict_cells(result, sep="\n")
    t = Table(title="Win share / fair share and verdict per rung", title_justify="left",
              box=box.SIMPLE_HEAVY, collapse_padding=True, pad_edge=False, show_edge=False)
    t.add_column(str(cells.columns[0]).capitalize(), overflow="fold", ratio=2)
    for c in cells.columns[1:-1]:
        t.add_column(str(c), justify="center", no_wrap=True)
    for row in cells.itertuples(index=False):
        mark = "" if row[-1] == "yes" else "* "
        styled = []
        for x in row[1:-1]:
            ratio, _, word = str(x).partition("\n")
            st = V.style_of(word)
            styled.append(f"{escape(ratio)}\n[{st}]{escape(word)}[/{st}]" if st
                          else escape(str(x)))
        t.add_row(mark + escape(str(row[0])), *styled)
    return t


def print_summary(result, console: Console) -> None:
    """The rungs, the verdict table and skill depth and luck per rung (80 columns)."""
    from deepsim.report import viability as V

    info = result.info
    lines = V.Lines(min_ratio=info["min_ratio"], max_ratio=info["max_ratio"],
                    max_rel_width=info["max_rel_width"])
    for j, r in enumerate(result.rungs):
        console.print(f"R{j + 1}: {escape(r.label)}", highlight=False)
    console.print("At each rung every seat plays the rung's bots, so a faction's x fair "
                  "there is not its x fair in `deepsim run`, where the scenario's field "
                  "mixes styles.", highlight=False)
    console.print(escape(V.rule_text(lines, holm=False)) + "; * not settled by "
                  "this ladder (the two strongest rungs disagree, or one is inconclusive)",
                  highlight=False)
    console.print(summary_table(result))
    for r in result.depth.itertuples(index=False):
        console.print(f"{escape(r.rung)} vs {escape(r.below)}: win/fair {r.ratio:.2f} "
                      f"({r.ratio_low:.2f}-{r.ratio_high:.2f}), luck {r.luck:.2f}",
                      highlight=False)
    check = result.check
    if len(check):
        bad = check[check["verdict"] != "beats"]
        weaker = check[check["verdict"] == "weaker"]
        console.print(f"Search check ({escape(str(info.get('check_rung')))} vs each plain "
                      f"heuristic, per faction, paired on {info.get('check_games')} games "
                      f"a pass): beats it in {len(check) - len(bad)} of {len(check)}; "
                      f"weaker in {len(weaker)}"
                      + "".join(f"\n  weaker: {escape(r.faction)} vs {escape(r.heuristic)} "
                                f"{r.diff:+.3f} ({r.diff_low:+.3f}, {r.diff_high:+.3f})"
                                for r in weaker.itertuples(index=False)),
                      highlight=False)


def ladder(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
    rungs: Annotated[str | None, typer.Option(
        "--rungs", help="Comma-separated rungs, weakest first: style names of the "
                        "ruleset's bots, 'strongest', meta:PATH (a faction_bots file) or "
                        "search-K (K rollouts). Default: random,strongest[,meta:the "
                        "scenario's faction_bots file][,search-8,search-32].")] = None,
    games: options.games(
        "Games per rung's field (default 20,000: about 40 minutes for a 4-player scenario with "
        "the default rungs on an idle 2-core machine, docs/performance.md).", kind=int) = 20_000,
    depth_games: Annotated[int | None, typer.Option(
        "--depth-games", help="Deals per head-to-head pass (two passes; default "
                              "--games / 2; 0: no head-to-heads).")] = None,
    seed: options.seed("Seed (default: the scenario's).") = None,
    sets: options.sets("Ruleset override path=value; repeatable.") = None,
    threads: Threads = None,
    out: options.out("Output folder (default: a new folder under reports/ladder/).") = None,
    runs: Annotated[Path | None, typer.Option(
        "--runs", help="Keep each rung's field as a run directory under this folder "
                       "(R1-..., R2-...: every column, for `deepsim report` and the "
                       "ruleset's claims per rung in the ladder's report).")] = None,
    search_base: Annotated[str | None, typer.Option(
        "--search-base", help="The heuristic a search rung rolls out: per-faction (default: "
                              "each faction its strongest heuristic in the scenario's "
                              "field), strongest (the field's strongest for all) or a "
                              "style of the ruleset's bots.")] = None,
    check_games: Annotated[int | None, typer.Option(
        "--check-games", help="Games per pass of the search check (does the top search "
                              "rung beat every plain heuristic, per faction? three passes "
                              "per heuristic; default --games / 10; 0: no check).")] = None,
    quiet: options.quiet("Print only the output folder.") = False,
) -> None:
    """Does each verdict survive stronger play? A skill ladder.

    Does each balance verdict survive stronger play? Play the scenario's factions under
    fields of rising strength (rungs), give each faction's verdict per rung, flag those
    the two strongest rungs disagree on, and measure skill depth and luck."""
    from deepsim.cli.respond import faction_progress
    from deepsim.ladder.run import run_ladder

    stop_bar, on_progress = faction_progress(quiet)
    try:
        try:
            result = run_ladder(scenario, rungs=rungs, games=games, depth_games=depth_games,
                                seed=seed, sets=list(sets or []), threads=threads, out=out,
                                runs=runs, search_base=search_base,
                                check_games=check_games, progress=on_progress)
        finally:
            stop_bar()
    except InputError as exc:
        raise fail(exc) from None
    except KeyboardInterrupt:
        Console(stderr=True).print(
            "[bold yellow]Interrupted.[/bold yellow] The ladder's folder was not written"
            + (f"; the rung runs under {escape(str(runs))} stay (a partial one resumes "
               "with deepsim run --resume)." if runs is not None else "."),
            highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if quiet:
        typer.echo(str(result.out_dir))
        return
    console = Console()
    print_summary(result, console)
    info = result.info
    console.print(f"{info['games_played']:,} games in {info['wall_time_s']:.0f} s. Wrote "
                  f"{escape(str(result.out_dir))}/ (ladder.md, ladder.html, ladder.png, "
                  "verdicts.csv, depth.csv, search_check.csv, ladder.json)", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``ladder`` to the ``deepsim`` app."""
    app.command("ladder")(ladder)
