"""``deepsim meta`` (registered on the main typer app by :func:`register`). Bad input exits 2
with one red line and no traceback; Ctrl-C exits 130 and keeps the rounds written so far."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from deepsim.cli import options
from deepsim.cli.options import Backend, Scheduler, Threads, Workers
from deepsim.meta import DEFAULT_GAMES, DEFAULT_TRIALS

__all__ = ["meta", "register", "spread_table"]


def spread_table(spread, label: str) -> Table:
    """The spread of every field measured, one row per field, readable at 80 columns."""
    t = Table(title=f"Win share / fair share per {label}, per field (evaluation games)",
              title_justify="left")
    t.add_column("field", no_wrap=True)
    t.add_column("weakest", overflow="fold", ratio=2)
    t.add_column("strongest", overflow="fold", ratio=2)
    t.add_column("max/min", justify="right", no_wrap=True)
    t.add_column("too strong/\nnot viable", justify="right", no_wrap=True)
    t.add_column("changed", justify="right", no_wrap=True)
    for _, r in spread.iterrows():
        changed = "-" if r["label"] == spread["label"].iloc[-1] else str(int(r["changed"]))
        t.add_row(escape(str(r["label"])), escape(f"{r['min']:.2f} {r['weakest']}"),
                  escape(f"{r['max']:.2f} {r['strongest']}"), f"{r['max_over_min']:.2f}",
                  f"{int(r['too_strong'])}/{int(r['not_viable'])}", changed)
    return t


def meta(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
    rounds: Annotated[int, typer.Option("--rounds", "-r", help="At most this many rounds "
                                        "(fewer when a round finds no confirmed change).")],
    factions: options.faction(
        "A faction that responds (the others keep the scenario's bots); repeatable. Default: "
        "every faction (--all).", metavar="NAME") = None,
    every: options.every_faction(
        "Every faction of the ruleset (baseline styles left out).") = False,
    trials: options.trials(
        "optuna trials per faction and round (the first is the faction's style of the round "
        "before).") = DEFAULT_TRIALS,
    games: options.games("Games per trial in which the faction plays.", kind=int) = DEFAULT_GAMES,
    seed: options.seed(
        "Search seed S (default: the scenario's); round r searches on S + 2r and confirms on S + "
        "2r + 1.") = None,
    confirm_games: options.confirm_games(
        "Fresh games per faction and round confirming the change (default 10 x --games).") = None,
    eval_games: Annotated[int | None, typer.Option(
        "--eval-games", help="Games per faction measuring each field, on seed S + 1000 "
                             "(default: --confirm-games).")] = None,
    sampler_seed: options.sampler_seed("Seed of optuna's TPE sampler (round r: + r).") = 0,
    min_ratio: options.min_ratio("Viability line, x fair.") = 0.8,
    max_ratio: options.max_ratio("Too-strong line, x fair.")
    = 1.25,
    sets: options.sets("Ruleset override path=value; repeatable.") = None,
    threads: Threads = None,
    out: options.out("Output folder (default: a new folder under reports/meta/).")
    = None,
    force: options.force("Overwrite an existing --out.")
    = False,
    no_plots: options.no_plots("Skip the PNG plot.") = False,
    quiet: options.quiet("Print only the output folder.") = False,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """A field of competent players: iterated best response.

    A field of competent players: iterated best response (fictitious play). Each round,
    every faction searches its best response (as respond does) to the field of the rounds
    before; writes the meta field as a faction bots file and a scenario that plays it."""
    from deepsim.cli.respond import guarded
    from deepsim.meta import run_meta
    from deepsim.respond import Settings

    settings = Settings(trials=trials, games=games, confirm_games=confirm_games,
                        sampler_seed=sampler_seed, min_ratio=min_ratio, max_ratio=max_ratio)
    console = Console()

    def call(engine, on_progress):
        return run_meta(scenario, rounds=rounds, factions=list(factions or []) or None,
                        every=every, settings=settings, seed=seed, eval_games=eval_games,
                        sets=list(sets or []), threads=threads, out=out, force=force,
                        backend=engine, plots=not no_plots, progress=on_progress)

    result = guarded(call, quiet=quiet, backend=backend, scheduler=scheduler,
                     workers=workers, interrupted="The output folder keeps the rounds "
                                                  "finished so far.")
    if quiet:
        typer.echo(str(result.out_dir))
        return
    info = result.info
    from deepsim.meta.report import spread_frame

    console.print(spread_table(spread_frame(result.run), info["faction_label"]))
    secs = ", ".join(f"{s:.0f} s" for s in info["round_seconds"])
    console.print(f"{info['rounds_played']} round(s) of at most {info['rounds']}, stopped "
                  f"{escape(info['stopped'])}. Per round and {info['faction_label']}: "
                  f"{info['trials']} trials x {info['games']:,} games, confirmation on "
                  f"{info['confirm_games']:,}. Round times: {secs}.", highlight=False)
    console.print(f"{info['games_played']:,} games in {info['wall_time_s']:.0f} s.",
                  highlight=False)
    console.print(f"Wrote {escape(str(result.out_dir))}/ (meta-bots.yaml, scenario.yaml, "
                  "meta.md, meta.html, rounds.parquet, spread.parquet)", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``meta`` to the ``deepsim`` app."""
    app.command("meta")(meta)
