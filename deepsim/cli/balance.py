"""``deepsim balance`` (registered on the main typer app by :func:`register`). Bad input
exits 2 with one red line and no traceback; Ctrl-C exits 130, keeps the finished trials and
prints the ``--resume`` command."""

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
from deepsim.progressbar import phased_progress

__all__ = ["balance", "register"]


def before_after_table(frame, label: str, candidate: int) -> Table:
    """Before and after per faction (or test) of one candidate, readable at 80 columns."""
    from deepsim.report import viability as V

    t = Table(title=f"Before and after (candidate {candidate}), 95% intervals",
              title_justify="left", box=box.SIMPLE_HEAVY, pad_edge=False, show_edge=False)
    # a name keeps room for two words (rich would squeeze it to 3 characters at 80 columns
    # beside the no-wrap cells); each cell puts its verdict under the number
    t.add_column(label.capitalize(), overflow="fold", min_width=16)
    t.add_column("before", justify="right", no_wrap=True)
    t.add_column("after", justify="right", no_wrap=True)
    rows = frame[frame["candidate"] == candidate]
    changes = "change" in rows.columns and rows["change"].notna().any()
    if changes:
        t.add_column("paired\nchange", justify="right", no_wrap=True)
    for r in rows.itertuples():
        cells = []
        for v, lo, hi, word in ((r.before, r.before_low, r.before_high, r.before_verdict),
                                (r.after, r.after_low, r.after_high, r.after_verdict)):
            style = V.style_of(word)
            w = escape(str(word))
            cells.append(f"{v:.2f} [{lo:.2f}-{hi:.2f}]\n"
                         + (f"[{style}]{w}[/{style}]" if style else w))
        if changes:
            cells.append(f"{r.change:+.2f}\n[{r.change_low:+.2f}, {r.change_high:+.2f}]")
        t.add_row(escape(str(r.name)), *cells)
    return t


def balance(
    scenario: Annotated[Path | None, typer.Argument(
        help="Scenario YAML file (not with --resume).")] = None,
    levers: Annotated[list[str] | None, typer.Option(
        "--levers", "-l", metavar="PATH[:STEP],...",
        help="Numbers the patch may change: parameter paths (globs allowed, e.g. "
             "callings.*.worthy_end_multiplier), searched within their schema bounds on a "
             "printable grid (integers; a float's step after the colon or declared by the "
             "ruleset), or within PATH=LOW:HIGH[:STEP] inside its bounds. Comma-separated; "
             "repeatable.")] = None,
    target: Annotated[str, typer.Option(
        "--target", help="verdicts: every faction viable and none too strong (a co-operative "
                         "game: the party on target); expect: the scenario's expect: block "
                         "as deepsim check judges it; require: only the --require "
                         "numbers.")] = "verdicts",
    require: Annotated[list[str] | None, typer.Option(
        "--require", metavar="SPEC<=X",
        help="A number of the metric language the target adds (with --target verdicts or "
             "require), "
             "e.g. 'win_ratio[seat=1]<=1.1' or 'rounds>=8', in the metric's unit; "
             "repeatable.")] = None,
    max_changes: Annotated[int, typer.Option(
        "--max-changes", "-k", help="Most numbers a patch changes.")] = 2,
    trials: options.trials("optuna trials per subset of levers whose grid exceeds "
                           "--grid-max.") = 30,
    grid_max: Annotated[int, typer.Option(
        "--grid-max", help="A subset's grid up to this many points is searched whole.")] = 60,
    games: options.games("Games per trial (default: the scenario's).") = None,
    seed: options.seed("Seed of the search's games (default: the scenario's); confirmation "
                       "plays seed + 1, best responses seed + 2.") = None,
    confirm: Annotated[int, typer.Option(
        "--confirm", help="Candidates confirmed at most (the best few).")] = 3,
    confirm_games: options.confirm_games(
        "Fresh games per confirmation (default 4 x --games).") = None,
    respond_trials: Annotated[int, typer.Option(
        "--respond-trials", help="Best-response trials per faction under a patch (0: no "
                                 "robustness check).")] = 8,
    respond_games: Annotated[int, typer.Option(
        "--respond-games", help="Games per best-response trial.")] = 1000,
    sampler_seed: options.sampler_seed("Seed of optuna's TPE samplers.") = 0,
    include_placeholders: Annotated[bool, typer.Option(
        "--include-placeholders", help="Allow placeholder data (numbers the rulebook does "
                                       "not give) as levers.")] = False,
    min_ratio: options.min_ratio("Viability line, x fair.") = 0.8,
    max_ratio: options.max_ratio("Too-strong line, x fair.") = 1.25,
    coop_band: Annotated[float, typer.Option(
        "--coop-band", help="A co-operative game's band around its target, in points.")] = 5.0,
    sets: options.sets("Fixed ruleset override path=value (not a lever); repeatable.") = None,
    threads: Threads = None,
    out: options.out("Output folder (default: a new folder under reports/balances/).") = None,
    force: options.force() = False,
    resume: Annotated[Path | None, typer.Option(
        "--resume", metavar="DIR", help="Go on with an interrupted balance's folder (its "
                                        "settings and finished trials).")] = None,
    quiet: options.quiet() = False,
) -> None:
    """The fewest printed numbers to change so the game is fair.

    Searches the fewest, smallest changes of the --levers (K = 1 .. --max-changes) that
    meet the target on paired games, confirms the best few on fresh games and checks that
    each faction's best response does not break the patch."""
    from deepsim.balance import Budget, run_balance

    if resume is not None and (scenario is not None or levers):
        raise fail(InputError("--resume DIR takes its scenario and levers from DIR; give "
                              "neither", key="--resume"))
    budget = Budget(max_changes=max_changes, trials=trials, grid_max=grid_max, games=games,
                    confirm=confirm, confirm_games=confirm_games,
                    respond_trials=respond_trials, respond_games=respond_games,
                    sampler_seed=sampler_seed)
    console = Console()
    # the run's news (plan, each K's best, each phase) go with the bar to stderr: stdout
    # gives the answer first
    err_console = Console(stderr=True)
    stop_bar, on_progress = phased_progress(
        quiet, extra_room=16, phase=lambda label, total: label.split(":")[0])
    folder: dict = {}
    try:
        try:
            result = run_balance(
                scenario, list(levers or []), target=target, budget=budget, seed=seed,
                sets=list(sets or []), include_placeholders=include_placeholders,
                require=list(require or []),
                min_ratio=min_ratio, max_ratio=max_ratio, coop_band=coop_band,
                threads=threads, out=out, force=force, resume=resume,
                progress=on_progress, on_folder=lambda p: folder.update(path=p),
                log=None if quiet else lambda text: err_console.print(escape(text),
                                                                      highlight=False))
        finally:
            stop_bar()
    except InputError as exc:
        raise fail(exc) from None
    except KeyboardInterrupt:
        where = folder.get("path")
        tail = (f"trials.parquet keeps the finished trials; go on with: deepsim balance "
                f"--resume {where}") if where else "nothing was written"
        Console(stderr=True).print(f"[bold yellow]Interrupted.[/bold yellow] {escape(tail)}",
                                   highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if quiet:
        typer.echo(str(result.out_dir))
        return
    console.print(f"[bold]{escape(result.answer)}[/bold]", highlight=False)
    import pandas as pd

    ba_path = result.out_dir / "before_after.parquet"
    if ba_path.is_file():
        ba = pd.read_parquet(ba_path)
        shown = next((i + 1 for i, c in enumerate(result.candidates)
                      if c is result.chosen), 1)
        target = (result.info.get("args") or {}).get("target", "verdicts")
        label = ("requirement" if target == "require" else "test" if target == "expect"
                 else result.info.get("faction_label") or "faction")
        console.print(before_after_table(ba, label, shown))
    for i, c in enumerate(result.candidates):
        console.print(f"candidate {i + 1}: " + escape("; ".join(
            f"{k}={v}" for k, v in c.point.items())) + f": {escape(c.status)}",
            highlight=False)
    info = result.info
    phases = info.get("phase_seconds") or {}
    console.print(f"{info['trials']:,} trials ({info['games_played']:,} games of search) in "
                  f"{info['wall_time_s']:.0f} s: search {phases.get('search', 0):.0f} s, "
                  f"confirmation {phases.get('confirm', 0):.0f} s, best responses "
                  f"{phases.get('best_responses', 0):.0f} s.", highlight=False)
    written = ", ".join(p.name for p in result.files if p.parent == result.out_dir)
    console.print(f"Wrote {escape(str(result.out_dir))}/ ({escape(written)})",
                  highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``balance`` to the ``deepsim`` app."""
    app.command("balance")(balance)
