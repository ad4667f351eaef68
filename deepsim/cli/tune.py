"""``deepsim sweep`` and ``deepsim tune`` (registered on the main typer app by
:func:`register`). Bad input exits 2 with one red line and no traceback; Ctrl-C exits 130
and keeps what was written so far."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from deepsim.cli import options
from deepsim.cli.options import Backend, Scheduler, Threads, Workers, fail
from deepsim.errors import InputError
from deepsim.progressbar import phased_progress
from deepsim.tune.settings import Settings

__all__ = ["register", "sweep", "tune"]

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


_fail = fail     # error: line, exit 2


def _short_point(text: str) -> str:
    """``a.b.key=1.8`` -> ``key=1.8`` (a progress label; anything else unchanged)."""
    key, eq, value = text.partition("=")
    return f"{key.rsplit('.', 1)[-1]}={value}" if eq else text


def _progress(quiet: bool) -> tuple[Callable[[], None], Callable[[int, int, str], None]]:
    # a new row per phase (trials, then confirmation runs: their totals differ); a point's
    # dotted paths shortened to their last key (the table names them whole)
    return phased_progress(
        quiet, shorten=lambda label: " ".join(_short_point(p) for p in label.split(" ")))


def _played(quiet: bool, kept: str, call: Callable[[Callable[[int, int, str], None]], object]):
    """``call(progress)`` under a progress bar (none when ``quiet``): an InputError is one
    ``error:`` line and exit 2, Ctrl-C exit 130 saying what the output keeps (``kept``)."""
    stop_bar, on_progress = _progress(quiet)
    try:
        try:
            return call(on_progress)
        finally:
            stop_bar()
    except InputError as exc:
        raise _fail(exc) from None
    except KeyboardInterrupt:
        Console(stderr=True).print(f"[bold yellow]Interrupted.[/bold yellow] {kept}",
                                   highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def fmt(v: float, low: float | None = None, high: float | None = None) -> str:
    """``3.12 [2.51, 3.80]``: four significant digits (two decimals from 10 up)."""
    def one(x):
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "-"
        return f"{x:.4g}" if abs(x) < 10 else f"{x:.2f}"
    if low is None:
        return one(v)
    return f"{one(v)} [{one(low)}, {one(high)}]"


def _param_text(v) -> str:
    from deepsim.tune.grid import format_value

    return format_value(v)


def _fmt_delta(d: float, low: float, high: float) -> str:
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return "-"
    if low == high == d:
        return f"{d:+.3g} (same games)" if d else "0 (identical)"
    return f"{d:+.3g} [{low:+.3g}, {high:+.3g}]"


def sweep_tables(result) -> list[Table]:
    """Rich tables of a sweep: one per metric, a row per grid point (and member), with the
    value and its 95% interval and the paired change from the baseline point."""
    frame, specs = result.frame, result.specs
    paths = [s.path for s in specs]
    tables = []
    for m in result.metrics:
        d = frame[frame["metric"] == m.label]
        if d.empty:
            continue
        unit = str(d["unit"].iloc[0])
        dunit = "pp" if unit == "%" else unit
        grouped = bool(d["group"].ne("").any())
        t = Table(title=escape(f"{m.label} ({unit}) by {', '.join(paths)}: value [95% "
                               f"interval], and the paired change from the baseline point "
                               f"({dunit})"), title_justify="left")
        for p in paths:
            t.add_column(escape(p), justify="right", overflow="fold")
        if grouped:
            t.add_column("member", no_wrap=True)
        t.add_column("value [95%]", justify="right", no_wrap=True)
        t.add_column("change [95%]", justify="right", no_wrap=True)
        for _, r in d.iterrows():
            cells = [escape(_param_text(r[p])) for p in paths]
            if r["baseline"] and cells:
                cells[0] = f"{cells[0]} [bold]*[/bold]"
            if grouped:
                cells.append(escape(str(r["group"])))
            cells.append(escape(fmt(r["value"], r["low"], r["high"])))
            cells.append(escape(_fmt_delta(r["delta"], r["delta_low"], r["delta_high"])))
            t.add_row(*cells)
        tables.append(t)
    return tables


def sweep(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
    params: options.param(
        "Parameter and its values: a list (1,2) or a range LOW:HIGH:STEP (2.0:3.0:0.25); repeat "
        "for a grid.", metavar="PATH=VALUES"),
    metrics: options.metric(
        "Metric in the metric language (repeatable), as in check and compare: faction_spread, "
        "company_spread, seat_advantage, draw_share, rounds, length_error, win_share\\[bot] (one "
        "number per bot style), win_ratio\\[company=Wisp Wardancer], rounds\\[players], "
        "feel_bad\\[bot], or any numeric seats/games column (cash_outs\\[bot], turns). Keys: one of "
        "the ruleset's group columns (its seats columns such as bot and seat) or players. "
        "Default: the ruleset's default metrics.", metavar="SPEC") = None,
    games: options.games("Games per grid point (default: scenario's).") = None,
    seed: options.seed("Seed of every point (default: scenario's).") = None,
    sets: options.sets("Override path=value applied at every point; repeatable.") = None,
    threads: Threads = None,
    chunk_size: options.chunk_size("Games per in-memory chunk.") = None,
    target_rounds: options.target_rounds(
        "Target of length_error (rounds; default: the game length the ruleset's rulebook states).") = None,
    out: options.out("Output folder (default: a new folder under reports/sweeps/).") = None,
    force: options.force("Overwrite an existing --out.")
    = False,
    no_plots: options.no_plots("Skip the PNG plots.") = False,
    quiet: options.quiet("Print only the output folder.") = False,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Play a scenario at every point of a parameter grid.

    Every point plays the same seeds (common random numbers), so the points differ by the
    parameters alone.
    """
    from deepsim.distributed import open_backend
    from deepsim.tune.sweep import run_sweep

    console = Console()
    def call(on_progress):
        with open_backend(backend, scheduler=scheduler, workers=workers) as engine:
            return run_sweep(scenario, list(params), metrics=list(metrics or []) or None,
                             settings=Settings(games=games, seed=seed, sets=tuple(sets or ()),
                                               chunk_size=chunk_size, threads=threads,
                                               out=out, force=force,
                                               target_rounds=target_rounds,
                                               make_plots=not no_plots),
                             progress=on_progress, backend=engine)

    result = _played(quiet, "sweep.parquet keeps the points that finished.", call)
    if quiet:
        typer.echo(str(result.out_dir))
        return
    for t in sweep_tables(result):
        console.print(t)
    base = result.info.get("baseline", {})
    console.print(f"[bold]*[/bold] baseline point (the scenario's own rules"
                  f"{'' if base.get('in_grid', True) else ', played beside the grid'}); "
                  "changes are paired differences on the same games, with 95% intervals.",
                  highlight=False)
    for note in result.notes:
        console.print(f"[dim]note:[/dim] {escape(note)}", highlight=False)
    console.print(f"Common random numbers: {escape(result.info['common_random_numbers'])}.",
                  highlight=False)
    console.print(f"Wrote {escape(str(result.out_dir))}/ (sweep.parquet, sweep.json"
                  f"{', plots/' if any('plots' in str(f) for f in result.files) else ''})",
                  highlight=False)


def tune_table(result) -> Table:
    """Baseline vs best, on the tuning games and on the confirmation games."""
    info = result.info
    t = Table(title=f"Tune of {info['scenario_name']}: {info['objective']} (value and 95% "
                    "interval; lower is better)", title_justify="left")
    t.add_column("")
    t.add_column(f"tuning: {info['games']:,} games, seed {info['seed']}", justify="right")
    conf = result.confirm
    if conf:
        t.add_column(f"confirm: {conf['games']:,} games, seed {conf['seed']}",
                     justify="right")
    rows = result.trials
    base = rows[rows["baseline"]]
    best_trial = info["best"]["trial"]
    best = rows[rows["trial"] == best_trial].iloc[0]
    for label, r, key in (("defaults", base.iloc[0] if len(base) else None, "baseline"),
                          (f"best (trial {best_trial})", best, "best")):
        cells = [label, fmt(r["value"], r["low"], r["high"]) if r is not None else "-"]
        if conf:
            c = conf["runs"][key]
            cells.append(fmt(c["value"], c["low"], c["high"]))
        t.add_row(*cells)
    if conf:
        tuned = (best["value"] - base.iloc[0]["value"]) if len(base) else math.nan
        t.add_row("change", fmt(tuned),
                  f"{fmt(conf['change'], conf['change_low'], conf['change_high'])} "
                  f"({conf['change_rel']:+.0%})")
    return t


def confirm_verdict(conf: dict) -> str:
    """One sentence: did the gain hold on the confirmation games?"""
    lo, hi = conf["change_low"], conf["change_high"]
    span = (f"change {fmt(conf['change'])}, paired bootstrap 95% interval {fmt(lo)} to "
            f"{fmt(hi)} over {conf['bootstrap_reps']} replicates")
    if hi < 0:
        return f"The gain holds on {conf['games']:,} new games ({span})."
    if lo > 0:
        return (f"The tuned numbers are worse on {conf['games']:,} new games ({span}): the "
                "search's gain was noise; tune with more games per trial.")
    return (f"Not shown on {conf['games']:,} new games ({span}): the interval includes 0; "
            "more games per trial or per re-run would tell.")


def tune(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.")],
    params: options.param(
        "Parameter and its search range LOW:HIGH[:STEP] (integers for an integer parameter), or a "
        "list of values a,b,c; repeatable.", metavar="PATH=LOW:HIGH") = None,
    objective: Annotated[str | None, typer.Option(
        "--objective", help="A single number of the metric language to minimise "
                            "(faction_spread, bot_spread, seat_advantage, draw_share, "
                            "length_error, win_share\\[bot=random], ...), or a "
                            "weighted sum such as faction_spread + 0.5*seat_advantage; "
                            "claims (the rulebook's claims: each claim's distance from "
                            "holding, multi-objective), claims\\[B1,B2,B6], or sums such "
                            "as claims + 0.5*seat_advantage. "
                            "Default: the ruleset's default objective.")] = None,
    space: Annotated[list[str] | None, typer.Option(
        "--space", help="Search spaces the ruleset declares in its data: readings (the "
                        "gaps' documented alternatives), rounding (printed numbers within "
                        "the interval that rounds to them), placeholders (starting bags, "
                        "floor weights); comma-separated or repeated.")] = None,
    confirm_points: Annotated[int, typer.Option(
        "--confirm-points", help="With claims or --space: Pareto points replayed on the "
                                 "confirmation games (at most).")] = 5,
    respond_trials: Annotated[int, typer.Option(
        "--respond-trials", help="With claims: best-response trials per faction at the "
                                 "defaults and each confirmed point, then its claims with "
                                 "every faction playing it (0: none; use 20+).")] = 0,
    respond_games: Annotated[int, typer.Option(
        "--respond-games", help="Games per best-response trial (games the faction sits "
                                "in).")] = 1000,
    trials: options.trials("optuna trials.") = 30,
    games: options.games("Games per trial (default: scenario's).") = None,
    seed: options.seed("Seed of every trial (default: scenario's).") = None,
    sampler_seed: options.sampler_seed("Seed of the TPE sampler.") = 0,
    confirm_games: options.confirm_games(
        "Games of the re-runs of the defaults and the best point (default 5 x --games; 0: none).") = None,
    confirm_seed: options.confirm_seed(
        "Seed of the re-runs (default: --seed + 1, games the search never saw).") = None,
    sets: options.sets("Override path=value applied to every trial; repeatable.") = None,
    threads: Threads = None,
    chunk_size: options.chunk_size("Games per in-memory chunk.") = None,
    target_rounds: options.target_rounds(
        "Target of length_error (rounds; default: the game length the ruleset's rulebook states).") = None,
    out: options.out("Output folder (default: a new folder under reports/tunes/).") = None,
    force: options.force("Overwrite an existing --out.")
    = False,
    make_report: options.report_switch("Full report of each re-run.") = True,
    quiet: options.quiet("Print only the output folder.") = False,
) -> None:
    """Search parameter values that minimise an imbalance.

    optuna's TPE sampler, seeded, over the --param ranges or the ruleset's --space;
    the --objective is a number of the metric language (faction_spread by default) or
    the rulebook's claims.

    Plays in this process (no --backend dask, unlike run and sweep).
    """
    from deepsim.tune.claimsobj import uses_claims
    from deepsim.tune.tune import run_tune

    console = Console()
    if uses_claims(objective) or space:
        _tune_claims(scenario, params, objective, space, trials, games, seed, sampler_seed,
                     confirm_games, confirm_seed, confirm_points, sets, threads, chunk_size,
                     target_rounds, out, force, quiet, console, respond_trials, respond_games)
        return
    if respond_trials:
        raise _fail(InputError("--respond-trials checks the points of a claims tune; give "
                               "--objective claims or --space", key="--respond-trials"))
    if not params:
        raise _fail(InputError("give at least one --param PATH=LOW:HIGH, or --space "
                               "readings|rounding|placeholders", key="--param"))
    def call(on_progress):
        return run_tune(scenario, list(params), objective=objective, trials=trials,
                        sampler_seed=sampler_seed, confirm_games=confirm_games,
                        confirm_seed=confirm_seed, report=make_report,
                        settings=Settings(games=games, seed=seed, sets=tuple(sets or ()),
                                          chunk_size=chunk_size, threads=threads, out=out,
                                          force=force, target_rounds=target_rounds),
                        progress=on_progress)

    result = _played(quiet, "trials.parquet keeps the trials that finished.", call)
    if quiet:
        typer.echo(str(result.out_dir))
        return
    console.print(tune_table(result))
    console.print("Best parameters (best.yaml):", highlight=False)
    console.print(escape(result.yaml_block), highlight=False, soft_wrap=True)
    for note in result.notes:
        console.print(f"[dim]note:[/dim] {escape(note)}", highlight=False)
    if result.confirm:
        console.print(escape(confirm_verdict(result.confirm)), highlight=False)
        for name, run in result.confirm["runs"].items():
            where = run.get("report", run["run_dir"])
            console.print(f"Re-run of the {name}: {escape(where)}", highlight=False)
    console.print(f"Wrote {escape(str(result.out_dir))}/ (best.yaml, trials.parquet, "
                  "objective.png, tune.json)", highlight=False)


def _tune_claims(scenario, params, objective, space, trials, games, seed, sampler_seed,
                 confirm_games, confirm_seed, confirm_points, sets, threads, chunk_size,
                 target_rounds, out, force, quiet, console, respond_trials=0,
                 respond_games=1000) -> None:
    """``tune`` toward the rulebook's claims or over declared spaces
    (:func:`deepsim.tune.reconstruct.run_claims_tune`)."""
    from deepsim.tune.reconstruct import run_claims_tune
    from deepsim.tune.respondcheck import RespondBudget
    from deepsim.tune.spaces import parse_space_option

    if confirm_points < 0:
        raise _fail(InputError(f"--confirm-points must be >= 0 (0: no points confirmed), got "
                               f"{confirm_points}", key="--confirm-points")) from None
    budget = RespondBudget(respond_trials, respond_games) if respond_trials else None
    if budget is not None:
        try:
            budget.check()
        except InputError as exc:
            raise _fail(exc) from None

    def call(on_progress):
        return run_claims_tune(
            scenario, objective=objective or "claims", spaces=parse_space_option(space),
            params=list(params or []), trials=trials, games=games, seed=seed,
            sampler_seed=sampler_seed, sets=list(sets or []), chunk_size=chunk_size,
            threads=threads, out=out, force=force, target_rounds=target_rounds,
            confirm_games=confirm_games, confirm_seed=confirm_seed,
            confirm_points=confirm_points, respond=budget, progress=on_progress)

    result = _played(quiet, "trials.parquet keeps the trials that finished.", call)
    if quiet:
        typer.echo(str(result.out_dir))
        return
    t = Table(title=f"Pareto set of {result.info['scenario_name']} ({len(result.front)} "
                    "points): claim distances (0 = holds)", title_justify="left")
    t.add_column("trial", justify="right")
    t.add_column("hold", justify="right")
    for c in result.claims:
        t.add_column(c, justify="right")
    for _, r in result.front.head(12).iterrows():
        t.add_row(str(int(r["trial"])), str(int(r["holds"])),
                  *[("0" if r[f"d_{c}"] == 0 else f"{r[f'd_{c}']:.2g}")
                    for c in result.claims])
    console.print(t)
    console.print(escape(result.findings), highlight=False, soft_wrap=True)
    files = ", ".join(["trials.parquet", *result.info.get("files", []), "tune.json"])
    console.print(f"Wrote {escape(str(result.out_dir))}/ ({files})", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``sweep`` and ``tune`` to the ``deepsim`` app."""
    app.command("sweep")(sweep)
    app.command("tune")(tune)
