"""``deepsim respond`` (registered on the main typer app by :func:`register`). Bad input
exits 2 with one red line and no traceback; Ctrl-C exits 130 and keeps the trials written
so far."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from deepsim.cli import options
from deepsim.cli.options import Backend, Scheduler, Threads, Workers, fail
from deepsim.errors import EXIT_INTERRUPTED, InputError
from deepsim.progressbar import phased_progress

__all__ = ["guarded", "register", "respond", "result_table"]


def faction_progress(quiet: bool):
    # respond's labels name a faction and a phase ("Wisp Warden: trial 3/20"): a new row
    # per phase
    return phased_progress(quiet, extra_room=16, phase=lambda label, total: label.split(":")[0])


def guarded(call, *, quiet: bool, backend: str, scheduler, workers, interrupted: str):
    """``call(engine, on_progress)`` inside the backend (``--backend``) with a progress bar;
    bad input: one red ``error:`` line, exit 2; Ctrl-C: ``interrupted`` (what was kept),
    exit 130. Returns what ``call`` returns."""
    from deepsim.distributed import open_backend

    stop_bar, on_progress = faction_progress(quiet)
    try:
        try:
            with open_backend(backend, scheduler=scheduler, workers=workers) as engine:
                return call(engine, on_progress)
        finally:
            stop_bar()
    except InputError as exc:
        raise fail(exc) from None
    except KeyboardInterrupt:
        Console(stderr=True).print(f"[bold yellow]Interrupted.[/bold yellow] {interrupted}",
                                   highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _ratio_cell(v: float, lo: float, hi: float, word: str, head: str = "") -> str:
    from deepsim.report import viability as V

    style = V.style_of(word)
    word = escape(word)
    return (f"{escape(head)}{v:.2f}\n[{lo:.2f}-{hi:.2f}]\n"
            + (f"[{style}]{word}[/{style}]" if style else word))


def result_table(table, label: str) -> Table:
    """The verdicts, one row per faction, readable at 80 columns: the faction's win share
    over fair share in the scenario's field, with every seat of it on the start style's
    default knobs, and on its best response (each with its 95% interval and verdict),
    the gain and the respond verdict."""
    styles = sorted(set(table["style"].astype(str)))
    start = styles[0] if len(styles) == 1 else "start style"
    what = ("party win rate / target" if "target" in table.columns
            else "win share / fair share")
    t = Table(title=f"Best response per {label}: {what}, 95% intervals",
              title_justify="left", box=box.SIMPLE_HEAVY, collapse_padding=True,
              pad_edge=False, show_edge=False)
    t.add_column(label.capitalize(), overflow="fold", ratio=2)
    t.add_column("in the\nfield", justify="right", no_wrap=True)
    t.add_column(f"{start}\n(default\nknobs)", justify="right", no_wrap=True)
    t.add_column("best\nresponse", justify="right", no_wrap=True)
    t.add_column("gain", justify="right", no_wrap=True)
    t.add_column("verdict", overflow="fold", ratio=3)
    for _, r in table.iterrows():
        gain = ("0 (start\nwas best)" if r["gain_low"] == r["gain_high"] == 0
                else f"{r['gain']:+.2f}\n[{r['gain_low']:+.2f},\n{r['gain_high']:+.2f}]")
        verdict = str(r["verdict"])
        if verdict in ("inconclusive", "unclear"):
            verdict += f" (width {r['width']:.2f})"
        head = "" if start == str(r["style"]) else f"{r['style']} "
        t.add_row(escape(str(r["faction"])),
                  _ratio_cell(r["field"], r["field_low"], r["field_high"],
                              str(r["field_verdict"])),
                  _ratio_cell(r["default"], r["default_low"], r["default_high"],
                              str(r["default_verdict"]), head),
                  _ratio_cell(r["best"], r["best_low"], r["best_high"],
                              str(r["best_verdict"])),
                  escape(gain), escape(verdict))
    return t


def columns_note(label: str, start: str) -> str:
    """What the three ratio columns measure and why they differ."""
    return (f"in the field: the {label}'s seats play the scenario's own bots (a mix of "
            f"styles, as in `deepsim run`); {start} (default knobs): every seat of the "
            f"{label} plays that style with the knobs of bots.yaml; best response: the best "
            "knobs the search found. The first two differ when the field mixes styles; "
            "the last two are played on the same fresh confirmation games.")


def respond(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
    factions: options.faction(
        "A faction (a value of the ruleset's faction column: a company, a side, ...), matched "
        "ignoring case, spaces, '-' and '_'; repeatable.", metavar="NAME") = None,
    every: options.every_faction(
        "Every faction of the ruleset (baseline styles left out).") = False,
    style: Annotated[str | None, typer.Option(
        "--style", help="The non-baseline style every seat of the faction plays, whose "
                        "knobs are searched (default: the style the scenario's "
                        "faction_bots gives it, else the field's strongest).")] = None,
    trials: options.trials("optuna trials per faction (the first is the start style).") = 30,
    games: options.games("Games per trial in which the faction plays.", kind=int) = 4000,
    seed: options.seed("Search seed (default: the scenario's).") = None,
    confirm_games: options.confirm_games(
        "Fresh games per faction confirming the best response (default 10 x --games).") = None,
    confirm_seed: options.confirm_seed("Their seed (default: --seed + 1).") = None,
    sampler_seed: options.sampler_seed("Seed of optuna's TPE sampler.") = 0,
    min_ratio: options.min_ratio(
        "Viability line, x fair (the report's viability.min_ratio).") = 0.8,
    max_ratio: options.max_ratio("Too-strong line, x fair.") = 1.25,
    coop_band: Annotated[float, typer.Option(
        "--coop-band", help="A co-operative game's band around the target win rate, in "
                            "percentage points (the report's coop.band).")] = 5.0,
    sets: options.sets("Ruleset override path=value; repeatable.") = None,
    threads: Threads = None,
    out: options.out("Output folder (default: a new folder under reports/responds/).") = None,
    force: options.force("Overwrite an existing --out.")
    = False,
    no_plots: options.no_plots("Skip the PNG plot.") = False,
    quiet: options.quiet("Print only the output folder.") = False,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Is a faction weak, or is its bot? Its best response.

    Is a faction weak, or is its bot? Search each faction's best response (optuna, the
    knobs of one bot style within the bot data's bounds), confirm it on fresh games, and
    give a verdict."""
    from deepsim.respond import Settings, run_respond

    settings = Settings(trials=trials, games=games, confirm_games=confirm_games,
                        confirm_seed=confirm_seed, sampler_seed=sampler_seed, style=style,
                        min_ratio=min_ratio, max_ratio=max_ratio, coop_band=coop_band / 100)
    console = Console()

    def call(engine, on_progress):
        return run_respond(scenario, factions=list(factions or []) or None, every=every,
                           settings=settings, seed=seed, sets=list(sets or []),
                           threads=threads, out=out, force=force, backend=engine,
                           plots=not no_plots, progress=on_progress)

    result = guarded(call, quiet=quiet, backend=backend, scheduler=scheduler,
                     workers=workers, interrupted="trials.parquet keeps the factions "
                                                  "searched so far.")
    if quiet:
        typer.echo(str(result.out_dir))
        return
    info = result.info
    table = result.search.table
    styles = sorted(set(table["style"].astype(str)))
    console.print(result_table(table, info["faction_label"]))
    console.print(columns_note(info["faction_label"], styles[0] if len(styles) == 1
                               else "start style"), highlight=False)
    if info.get("cooperative"):
        label = info["faction_label"]
        target, band = 100 * info["target"], 100 * info["coop_band"]
        console.print(f"A co-operative game: the search maximises the party's win rate in "
                      f"the games where the {escape(label)} sits (every seat's win is the "
                      f"party's result), the other seats' bots fixed; each number is that "
                      f"rate over the designer's target ({target:g}%), its verdict the "
                      f"party's: too easy / too hard when the rate's interval lies wholly "
                      f"above / below {target:g} +- {band:g} pts (--coop-band), on target "
                      f"inside it, else unclear.", highlight=False)
    console.print(f"Search: {info['trials']} trials x {info['games']:,} games of seed "
                  f"{info['seed']} per {info['faction_label']}; confirmation "
                  f"{info['confirm_games']:,} games of seed {info['confirm_seed']}; start "
                  f"style: {escape(info['start_note'])}. Gain intervals at "
                  f"{table['gain_level'].iloc[0]:.4g} (over the {len(table)} of this run).",
                  highlight=False)
    console.print(f"{info['games_played']:,} games in {info['wall_time_s']:.0f} s.",
                  highlight=False)
    console.print(f"Wrote {escape(str(result.out_dir))}/ (respond.md, respond.html, "
                  "styles.yaml, trials.parquet, confirm.parquet)", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``respond`` to the ``deepsim`` app."""
    app.command("respond")(respond)
