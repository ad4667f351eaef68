"""The ``deepsim`` command line (typer + rich).

Commands: ``run``, ``trace``, ``rulesets``, ``scenarios``. Every
:class:`~deepsim.errors.InputError` is printed in red without a traceback and exits with
status 2; an :class:`~deepsim.errors.OutputError` (the disk failed during a run) likewise
with status 4; Ctrl-C during ``run`` exits with status 130 and leaves the finished chunks
valid.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import ProgressColumn
from rich.table import Table
from rich.text import Text

from deepsim.cli import options
from deepsim.cli.help import DeepsimGroup
from deepsim.cli.options import Backend, Scheduler, Threads, Workers, fail
from deepsim.errors import EXIT_INTERRUPTED, InputError, OutputError
from deepsim.progressbar import games_progress
from deepsim.version import __version__

app = typer.Typer(
    name="deepsim",
    cls=DeepsimGroup,
    help="Monte Carlo balance simulator for tabletop games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

# `deepsim odds RULESET QUESTION`: exact dice odds (deepsim/cli/odds.py)
from deepsim.cli.odds import odds_app

app.add_typer(odds_app, name="odds")

# `deepsim check` / `deepsim compare`: the CI balance gate (deepsim/cli/gate.py)
from deepsim.cli.gate import register as _register_gate

_register_gate(app)

# `deepsim sweep` / `deepsim tune`: parameter sweeps and tuning (deepsim/cli/tune.py)
from deepsim.cli.tune import register as _register_tune

_register_tune(app)

# `deepsim respond`: a best-response search per faction (deepsim/cli/respond.py)
from deepsim.cli.respond import register as _register_respond

_register_respond(app)

# `deepsim balance`: the smallest change to the printed numbers (deepsim/cli/balance.py)
from deepsim.cli.balance import register as _register_balance

_register_balance(app)

# `deepsim ladder`: balance verdicts along a skill ladder (deepsim/cli/ladder.py)
from deepsim.cli.ladder import register as _register_ladder

_register_ladder(app)

# `deepsim meta`: iterated best response, a field of competent players (deepsim/cli/meta.py)
from deepsim.cli.meta import register as _register_meta

_register_meta(app)

# `deepsim new-ruleset`: a ruleset package of one's own (deepsim/cli/newruleset.py)
from deepsim.cli.newruleset import register as _register_new_ruleset

_register_new_ruleset(app)

# `deepsim conformance` / `deepsim golden`: a ruleset's conformance suite and golden digests
# (deepsim/cli/testing.py)
from deepsim.cli.testing import register as _register_testing

_register_testing(app)


def _console(stderr: bool = False) -> Console:
    # Made per command, so the terminal width (or COLUMNS) is read when the command runs.
    return Console(stderr=stderr)

_fail = fail     # error: line, exit 2 (bad input) or 4 (a failed write)


class _SpeedColumn(ProgressColumn):
    """Games per second since the games began: the games played over the time since the
    bar started (when the first game is about to be played, after any compile), the
    summary's own rate (``run.json`` ``games_per_s``), not rich's moving estimate over the
    last few chunk writes, which reads several times higher when chunks finish in bursts."""

    def render(self, task) -> Text:
        played = task.completed - task.fields.get("start_done", 0)
        elapsed = task.elapsed
        if not elapsed or played <= 0:
            return Text("- games/s", style="progress.data.speed")
        return Text(f"{played / elapsed:,.0f} games/s", style="progress.data.speed")


class _CompileStatus:
    """The line shown while numba compiles a kernel: a spinner on a terminal, else one
    plain line (CI logs). :meth:`start` is the runner's ``on_compile`` callback."""

    def __init__(self, console: Console, quiet: bool = False):
        self.console = console
        self.quiet = quiet
        self._status = None

    def start(self, message: str) -> None:
        if self.quiet or self._status is not None:
            return
        if self.console.is_terminal:
            self._status = self.console.status(escape(message), spinner="dots")
            self._status.start()
        else:
            self.console.print(escape(message), highlight=False)

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


#: options that take one PATH=VALUE word (a space instead of '=' is a common slip)
_PAIR_OPTIONS = ("--set", "--set-a", "--set-b", "--param", "-p")


def _pair_hint(argv: list[str]) -> str | None:
    """The message for ``--set PATH VALUE`` (a space for '='), else None."""
    for i, opt in enumerate(argv[:-1]):
        if opt not in _PAIR_OPTIONS or "=" in argv[i + 1] or argv[i + 1].startswith("-"):
            continue
        path = argv[i + 1]
        value = argv[i + 2] if i + 2 < len(argv) else None
        if value is None or value.startswith("-") or value.endswith((".yaml", ".yml")) \
                or os.path.exists(value):
            return f"{opt} takes PATH=VALUE as one word, got {path!r} (e.g. {opt} {path}=VALUE)"
        return (f"{opt} takes PATH=VALUE as one word: write {opt} {path}={value} "
                f"(got {opt} {path} {value})")
    return None


def entry() -> None:
    """The ``deepsim`` command: :data:`app`, after a check typer cannot word well."""
    hint = _pair_hint(sys.argv[1:])
    if hint is not None:
        _console(stderr=True).print(f"[red]error:[/red] {escape(hint)}", highlight=False)
        raise SystemExit(2)
    try:
        app()
    except (SyntaxError, ImportError) as exc:
        where = _outside_import_failure(exc)
        if where is None:
            raise
        _console(stderr=True).print(
            f"[red]error:[/red] {escape(where)}: cannot import it: {type(exc).__name__}: "
            f"{escape(str(exc))} (a module of a ruleset plugin? fix it, or `pip uninstall` "
            "the plugin; `deepsim rulesets` lists what is installed)", highlight=False)
        raise SystemExit(2) from None


def _outside_import_failure(exc: BaseException) -> str | None:
    """``file:line`` where an import outside deepsim's own package failed, else None.

    A ruleset plugin imports its schema, kernel or bots modules lazily (on ``prepare`` or
    a run), after the registry listed it as loadable; a syntax or import error there would
    otherwise surface as a traceback from deep inside the runner.
    """
    import sysconfig
    import traceback
    from pathlib import Path as _Path
    if isinstance(exc, SyntaxError) and exc.filename:
        file, line = exc.filename, exc.lineno
    else:
        # the innermost frame that is neither importlib's machinery nor the standard library
        stdlib = sysconfig.get_paths()["stdlib"]
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if not f.filename.startswith(("<", stdlib))]
        if not frames:
            return None
        file, line = frames[-1].filename, frames[-1].lineno
    own = _Path(__file__).resolve().parents[1]      # the deepsim package
    try:
        _Path(file).resolve().relative_to(own)
        return None     # our own bug: keep the traceback
    except ValueError:
        return f"{file}:{line}"


def _version_callback(value: bool) -> None:
    if value:
        _console().print(f"deepsim {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_version_callback,
                                          is_eager=True, help="Show the version and exit.")]
    = False,
) -> None:
    """Monte Carlo balance simulator for tabletop games."""


def _check_run_mode(scenario: Path | None, resume: Path | None, from_: Path | None, *,
                    games: int | None, seed: int | None, chunk_size: int | None,
                    out: Path | None, force: bool, sets: list[str]) -> None:
    """Refuse option combinations that cannot mean anything (InputError, exit 2)."""
    if resume is not None and from_ is not None:
        raise InputError("--resume finishes a run in place, --from re-runs it elsewhere; "
                         "give one of them", key="--resume")
    if resume is not None or from_ is not None:
        flag = "--resume" if resume is not None else "--from"
        given = [name for name, value in (
            ("SCENARIO", scenario), ("--games", games), ("--seed", seed),
            ("--chunk-size", chunk_size), ("--set", sets or None),
            *((("--out", out), ("--force", force or None)) if resume is not None else ()),
        ) if value is not None]
        if given:
            what = ("finishes the run with its recorded scenario, seed, games, chunk size "
                    "and overrides in its own directory" if resume is not None else
                    "re-runs exactly the recorded scenario, seed, games, chunk size and "
                    "overrides (to change them, run the scenario file instead)")
            raise InputError(f"{flag} {what}; drop {', '.join(given)}", key=flag)
    elif scenario is None:
        raise InputError("give a SCENARIO file, --resume RUN_DIR or --from RUN_DIR",
                         key="SCENARIO")


@app.command()
def run(
    scenario: Annotated[Path | None, typer.Argument(
        help="Scenario YAML file (not with --resume/--from).")] = None,
    games: options.games(
        "Games to play (default: scenario's); with rotate_seats, deals, each played once per seat "
        "order.") = None,
    seed: options.seed("Master seed (default: scenario's).")
    = None,
    threads: Threads = None,
    chunk_size: options.chunk_size("Games per chunk/part (default: scenario's).") = None,
    out: options.out("Run directory (default: a new folder under reports/runs/).") = None,
    force: options.force("Overwrite an existing --out.")
    = False,
    sets: options.sets("Ruleset parameter override path=value; repeatable.") = None,
    resume: Annotated[Path | None, typer.Option(
        "--resume", metavar="RUN_DIR",
        help="Finish an interrupted run in RUN_DIR (plays only its missing chunks).")]
    = None,
    from_: Annotated[Path | None, typer.Option(
        "--from", metavar="RUN_DIR",
        help="Re-run exactly the run recorded in RUN_DIR/run.json into a new --out.")]
    = None,
    quiet: options.quiet("No progress bar or summary.") = False,
    make_report: options.report_switch(
        "Write the balance report into RUN_DIR/report/ at the end.") = True,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    workers: Workers = None,
) -> None:
    """Play a scenario's games, write parquet and print the headline.

    One row per game and one per seat go to parquet in the run folder (--out), with
    run.json; the summary follows: the headline (strongest and weakest factions, how
    sure), win shares with Wilson intervals, seats, game length. --resume finishes an
    interrupted run in place, --from re-runs a finished one elsewhere.
    """
    from deepsim import runner
    from deepsim.output import read_run

    console, err_console = _console(), _console(stderr=True)
    progress_bar = games_progress(err_console, quiet=quiet, description="",
                                  extra=(_SpeedColumn(),))
    task_id = None
    compiling = _CompileStatus(err_console, quiet=quiet)

    def on_progress(done: int, total: int) -> None:
        nonlocal task_id
        if task_id is None:  # start the bar only once games are about to run
            compiling.stop()
            progress_bar.start()
            # a resumed run starts part-way: that is not speed
            task_id = progress_bar.add_task("games", total=total, completed=done,
                                            start_done=done)
        progress_bar.update(task_id, completed=done, total=total)

    sets = list(sets or [])
    try:
        _check_run_mode(scenario, resume, from_, games=games, seed=seed,
                        chunk_size=chunk_size, out=out, force=force, sets=sets)
        from deepsim.distributed import open_backend

        try:
            with open_backend(backend, scheduler=scheduler, workers=workers) as engine:
                if resume is not None:
                    result = runner.resume(resume, threads=threads, progress=on_progress,
                                           backend=engine, on_compile=compiling.start)
                elif from_ is not None:
                    result = runner.rerun(from_, out=out, force=force, threads=threads,
                                          progress=on_progress, backend=engine,
                                          on_compile=compiling.start)
                else:
                    result = runner.run(scenario, games=games, seed=seed,
                                        chunk_size=chunk_size, threads=threads, out=out,
                                        force=force, overrides=sets, progress=on_progress,
                                        backend=engine, on_compile=compiling.start)
        finally:
            compiling.stop()
            progress_bar.stop()
    except (InputError, OutputError) as exc:
        raise _fail(exc) from None
    except KeyboardInterrupt as exc:
        where = getattr(exc, "out_dir", None)
        if where is None:  # before the run's folder held anything
            err_console.print("[bold yellow]Interrupted[/bold yellow] before the run "
                              "started: no game was played and nothing was written.",
                              highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        done = (f" ({exc.chunks_done} of {exc.n_chunks} chunks finished)"
                if hasattr(exc, "chunks_done") else "")
        err_console.print(f"[bold yellow]Interrupted.[/bold yellow] Finished chunks are "
                          f"kept{done}; the run is marked incomplete (manifest status "
                          "'running').", highlight=False)
        err_console.print(f"Finish it with: deepsim run --resume {escape(str(where))}",
                          highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if not quiet:
        for note in result.notes:
            err_console.print(escape(note), highlight=False)
    for w in result.warnings:
        err_console.print(f"[yellow]warning:[/yellow] {escape(w)}", highlight=False)
    if quiet:
        if make_report:
            _auto_report(result.out_dir, err_console, quiet=True)
        typer.echo(str(result.out_dir))  # plain: a long path must not be wrapped
        return
    from deepsim.summary import render_summary

    info = result.info
    rs = result.ruleset
    games_df, seats_df = read_run(
        result.out_dir,
        games_columns=_present(result.out_dir, "games", ["players", "rounds", "margin",
                                                          "margin_rel", "truncated",
                                                          "adjudicated", "winner_side"]
                                + (["game", "won", "outcome", "target"] if rs.cooperative
                                   else [])),
        seats_columns=_present(result.out_dir, "seats", list(dict.fromkeys(
            [c for c, _ in rs.headline_groups()] + ["win", "fair", "players", "bot"]
            + (["game"] if rs.cooperative else [])))),
    )
    render_summary(console, games_df, seats_df, by=rs.faction_column,
                   label=rs.faction_label, score=rs.score_label,
                   title=f"{info['scenario_name']} ({info['ruleset']}), seed {info['seed']}",
                   placeholders=info["placeholders"], skipped_rules=info["skipped_rules"],
                   wall_time_s=info["wall_time_s"], games_per_s=info["games_per_s"],
                   compile_s=info.get("compile_s"), compiled=info.get("kernel_compiled"),
                   out_dir=str(result.out_dir), status=result.manifest["status"],
                   baseline_bots=info.get("baseline_bots", ()),
                   headline=rs.headline_groups(),
                   caps=info.get("safety_caps") or (), cooperative=rs.cooperative)
    if make_report:
        _auto_report(result.out_dir, console, quiet=False)


@app.command()
def trace(
    target: Annotated[Path, typer.Argument(help="A run directory, or a scenario YAML file.")],
    game: Annotated[int, typer.Option("--game", "-g", help="Global game index.")],
    seed: options.seed("Seed (scenario files only; default: the scenario's).") = None,
    sets: options.sets("Parameter override path=value (scenario files only); repeatable.") = None,
    fmt: options.output_format(
        "text (readable, default) or json (one JSON object per line: header with the seats, each "
        "event, result).") = "text",
    seat: Annotated[list[str] | None, typer.Option(
        "--seat", help="Only these seats (from 1; repeatable or 1,3), with the table's "
                       "own lines.")] = None,
    round_: Annotated[list[str] | None, typer.Option(
        "--round", help="Only these rounds (3, 2-4 or 1,5; repeatable).")] = None,
    only: Annotated[str | None, typer.Option(
        "--only", help="bot: only the bots' decisions and what they read; rules: only "
                       "the rules' lines.")] = None,
    width: Annotated[int | None, typer.Option(
        "--width", help="Wrap lines to this many columns (0: never; default: the "
                        "terminal's width, no wrapping when the output is a pipe or a "
                        "file).")] = None,
) -> None:
    """Replay one game turn by turn, exactly as the batch played it."""
    from deepsim import runner
    from deepsim.tracefilter import TraceFilter, parse_numbers

    err_console = _console(stderr=True)
    compiling = _CompileStatus(err_console)
    try:
        view = TraceFilter(parse_numbers(seat, "--seat", low=1),
                           parse_numbers(round_, "--round", low=1), only)
        if width is not None and width < 0:
            raise InputError(f"expected a width >= 0, got {width}", key="--width")
        if os.path.isdir(target):  # os.path: never raises (a too long name)
            if seed is not None or sets:
                raise InputError("--seed and --set apply to a scenario file; a run directory "
                                 "replays with its recorded seed and overrides",
                                 file=str(target))
            lines, warnings = runner.trace_run(target, game, on_compile=compiling.start,
                                               fmt=fmt, view=view)
        elif os.path.lexists(target):  # a link loop too: the loader says so
            lines = runner.trace_scenario(target, game, seed=seed, overrides=list(sets or []),
                                          on_compile=compiling.start, fmt=fmt, view=view)
            warnings = []
        else:
            raise InputError("no such run directory or scenario file", file=str(target))
    except InputError as exc:
        raise _fail(exc) from None
    finally:
        compiling.stop()
    for w in warnings:
        err_console.print(f"[yellow]warning:[/yellow] {escape(w)}")
    if width is None:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else 0
    if fmt == "text" and width > 0:
        lines = wrap_lines(lines, width)
    out = sys.stdout
    for line in lines:
        out.write(line + "\n")
    out.flush()


def wrap_lines(lines: list[str], width: int) -> list[str]:
    """Lines longer than ``width`` wrapped at spaces, each continuation indented four more
    than its line (a word longer than the width is kept whole)."""
    import textwrap

    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[:len(line) - len(body)]
        out += textwrap.wrap(body, width, initial_indent=indent,
                             subsequent_indent=indent + "    ", break_long_words=False,
                             break_on_hyphens=False) or [line]
    return out


@app.command()
def rulesets() -> None:
    """List the rulesets: built-in, installed and odds-only.

    List the rulesets: built-in and installed (plugins of the `deepsim.rulesets` entry
    point group), those deepsim plays and odds-only ones, with version and source. A
    plugin that cannot be loaded is listed with its error."""
    from deepsim.rulesets import describe

    console = _console()
    table = Table("Name", "Title", "Kind", "Version", "Source", title="Rulesets",
                  title_justify="left")
    broken = []
    for e in describe():
        source = e.source if e.source != "plugin" else f"plugin {e.package}"
        if e.error is not None:
            broken.append(e)
            table.add_row(escape(e.name), "[red]not usable (below)[/red]", "",
                          escape(e.version), escape(source))
            continue
        rs = e.obj
        kind = ("plays games" if rs.plays else "odds only") + (
            ", odds" if rs.plays and rs.odds() is not None else "")
        table.add_row(escape(e.name), escape(rs.title), kind, escape(e.version),
                      escape(source))
    console.print(table)
    for e in broken:
        console.print(f"[red]{escape(e.name)}[/red] ({escape(e.origin)}, {escape(e.target)}): "
                      f"{escape(e.error)}", highlight=False)


@app.command()
def params(
    ruleset: str = typer.Argument(..., help="Ruleset name (deepsim rulesets lists them)."),
    match: str = typer.Option("", "--match", "-m", help="Show only paths containing this."),
) -> None:
    """List every ruleset parameter, its default and bounds.

    One line per parameter: dotted path (what --set takes), default, type, bounds and the
    rulebook section or gap it comes from (printed where it changes: the rows below share
    it until the next)."""
    from deepsim import runner

    console = _console()
    try:
        rs = runner.get_ruleset(ruleset)
    except InputError as exc:
        raise _fail(exc) from None
    rows = [r for r in rs.parameters() if not match or match in r["path"]]
    title = f"{rs.title} parameters (--set PATH=VALUE)"
    if console.width >= _PARAMS_TABLE_WIDTH:
        table = Table(title=title, title_justify="left")
        table.add_column("Path", no_wrap=True)
        for name in ("Default", "Type", "Bounds", "Rulebook / gap"):
            table.add_column(name, overflow="fold")
        prev = None
        for row in rows:
            note = row["section"] if row["section"] != prev else ""
            prev = row["section"]
            table.add_row(escape(row["path"]), escape(str(row["default"])),
                          escape(_type_text(row)), escape(row["bounds"]), escape(note))
        console.print(table)
        return
    # a narrow terminal or a pipe (80 columns): a list under section headings, so no cell
    # is cut and no description wraps a word per line
    console.print(f"[bold]{escape(title)}[/bold]", highlight=False)
    prev = None
    for row in rows:
        if row["section"] and row["section"] != prev:
            console.print(f"[dim]{escape(row['section'])}[/dim]", highlight=False,
                          overflow="fold")
        prev = row["section"]
        kind = ", ".join(x for x in (_type_text(row), row["bounds"]) if x)
        console.print(f"  [bold]{escape(row['path'])}[/bold] = {escape(str(row['default']))}"
                      f"  [dim]({escape(kind)})[/dim]", highlight=False, overflow="fold")


def _type_text(row: dict) -> str:
    """A parameter's type, with ``placeholder`` when its shipped value is invented."""
    return f"{row['type']}, placeholder" if row.get("placeholder") else row["type"]


#: the width from which ``deepsim params`` prints a table (below: a list)
_PARAMS_TABLE_WIDTH = 140


@app.command()
def bench(
    ruleset: Annotated[str, typer.Argument(help="Ruleset to time (its bench scenario).")],
    quick: Annotated[bool, typer.Option("--quick",
                                        help="Tiny game counts (smoke test only).")] = False,
    out: options.out(
        "Also write the results as JSON to this file (e.g. reports/bench.json); by default "
        "nothing is written.") = None,
) -> None:
    """Benchmark a ruleset's kernel: games/s per core.

    Benchmark a ruleset's kernel on its bench scenario: games/s per core, JIT vs plain
    Python, RNG floor, memory."""
    from deepsim.bench import bench_ruleset, run_bench
    from deepsim.bench_render import bench_table
    console = _console()
    try:
        bench_ruleset(ruleset)
    except InputError as exc:
        raise _fail(exc) from None
    res = run_bench(ruleset, quick=quick, out=out,
                    log=lambda m: console.print(f"[dim]{escape(m)}[/dim]"))
    console.print(bench_table(res))
    if out is not None:
        console.print(f"Results: {escape(str(out))}")


@app.command()
def warmup(
    rulesets: Annotated[list[str] | None, typer.Argument(
        metavar="[RULESET]...", help="Rulesets to compile (default: all).")] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, help="Processes compiling at once (default: the cores this "
                                    "process may use).")] = None,
    print_key: Annotated[bool, typer.Option(
        "--print-key", help="Print the cache key (kernel sources, Python, numba, machine) "
                            "and exit; for CI caches.")] = False,
    print_dir: Annotated[bool, typer.Option(
        "--print-dir", help="Print the cache folder of these sources and exit.")] = False,
    prune: Annotated[bool, typer.Option(
        "--prune", help="Also remove the cache folders of other kernel sources.")] = False,
) -> None:
    """Compile the kernels into numba's cache ahead of time.

    Independent parts (a ruleset's kernels for batch games and for traced games, other
    rulesets) compile in parallel processes, one per core. Later runs of the same sources,
    from any checkout or installed copy, load them in about a second. The cache is
    NUMBA_CACHE_DIR, else ~/.cache/deepsim (docs/ci.md).
    """
    from deepsim import jitcache, runner
    from deepsim import warmup as warming

    if print_key or print_dir:
        if print_key:
            typer.echo(jitcache.ci_key())
        if print_dir:
            typer.echo(str(jitcache.cache_dir()))
        return
    console, err_console = _console(), _console(stderr=True)
    try:
        from deepsim.rulesets import playable

        names = list(rulesets or playable())
        objs = [runner.get_ruleset(n) for n in names]
    except InputError as exc:
        raise _fail(exc) from None
    if prune:
        for p in jitcache.prune():
            console.print(f"removed {escape(str(p))}", highlight=False)
    parts = []
    for rs in objs:
        title = escape(rs.title)
        if not rs.plays:
            console.print(f"{title}: odds only, no kernel to compile", highlight=False)
        elif not jitcache.can_warm(rs):
            console.print(f"{title}: no warm_up entry (compiles on its first run)",
                          highlight=False)
        else:
            parts.extend(warming.parts_of(rs))
    plan = warming.plan(parts, jobs or warming.available_cores())
    if len(plan.groups) > 1:
        console.print(f"Compiling (or loading) in {len(plan.groups)} processes:",
                      highlight=False)
        for i, group in enumerate(plan.groups, 1):
            console.print(f"  {i}. " + "; ".join(escape(p.label) for p in group),
                          highlight=False)
    else:
        for p in parts:
            console.print(f"Compiling (or loading) the {escape(p.label)}", highlight=False)

    status = _CompileStatus(err_console)

    def done(r) -> None:
        status.stop()
        label = escape(r.part.label)
        if r.compiled:
            console.print(f"{label}: compiled {r.compiled} functions in {r.seconds:,.1f} s "
                          f"({r.cpu_seconds:,.1f} s CPU)", highlight=False)
        else:
            console.print(f"{label}: in the cache (loaded in {r.seconds:,.1f} s)",
                          highlight=False)

    t0 = time.perf_counter()
    try:
        results = warming.run(plan, on_done=done, on_compile=status.start)
    except RuntimeError as exc:
        err_console.print(f"error: {escape(str(exc))}", highlight=False)
        raise typer.Exit(1) from None
    finally:
        status.stop()
    if len(plan.groups) > 1 and any(r.compiled for r in results):
        cpu = sum(r.cpu_seconds for r in results)
        console.print(f"All parts: {time.perf_counter() - t0:,.1f} s wall, {cpu:,.1f} s CPU "
                      f"in {len(plan.groups)} processes", highlight=False)
    console.print(f"Cache: {escape(str(jitcache.cache_dir()))}", highlight=False)


def _players_text(value) -> str:
    if value is None:
        return "?"
    if isinstance(value, dict):
        lo, hi = value.get("min"), value.get("max")
        if lo is not None and hi is not None:
            return str(lo) if lo == hi else f"{lo}-{hi}"
        return ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        vals = list(value)
        if vals and all(isinstance(v, int) for v in vals):
            s = sorted(vals)
            if s == list(range(s[0], s[-1] + 1)) and len(s) > 1:
                return f"{s[0]}-{s[-1]}"
        return ", ".join(str(v) for v in vals)
    return str(value)


@app.command()
def studio(
    folder: Annotated[Path, typer.Argument(help="Folder of scenario files (and its "
                                           "scenarios/ folder).")] = Path("."),
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine "
                                      "only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    history: Annotated[Path | None, typer.Option(
        help="Where the runs are kept (default FOLDER/reports/studio).")] = None,
    scenario: Annotated[str | None, typer.Option(
        help="The scenario chosen when the page opens (a file name relative to FOLDER).")]
    = None,
) -> None:
    """A local web page: change a number, see balance move.

    Serves FOLDER's scenarios on http://HOST:PORT/ and prints the address with its access
    token. Runs play in the background (one queue for every tab); a variant plays its
    baseline's games (common random numbers) and shows the paired change per faction.
    Ctrl-C stops it."""
    from deepsim.studio import StudioConfig, serve

    def echo(text: str, file=None) -> None:
        typer.echo(text, err=file is not None)

    try:
        serve(StudioConfig(folder, history, host, port, scenario=scenario), echo=echo)
    except InputError as exc:
        raise _fail(exc) from None
    except KeyboardInterrupt:
        pass
    typer.echo("deepsim studio stopped")


@app.command()
def scenarios(
    directory: Annotated[Path, typer.Argument(help="Folder of scenario files.")]
    = Path("scenarios"),
) -> None:
    """List the scenario files in a folder.

    List the scenario files (*.yaml) in a folder with name, ruleset, players, games."""
    from deepsim.gate.scenariofile import check_scenario_file

    console = _console()
    if not os.path.isdir(directory):
        raise _fail(InputError("no such folder", file=str(directory)))
    files = sorted(directory.glob("*.yaml")) + sorted(directory.glob("*.yml"))
    if not files:
        console.print(f"No scenario files in {escape(str(directory))}")
        return
    table = Table(title=f"Scenarios in {escape(str(directory))}", title_justify="left")
    for head in ("File", "Name", "Ruleset", "Players", "Games"):
        table.add_column(head, overflow="fold")    # a long name folds, never cut
    bad = []
    for path in files:
        try:
            scen = check_scenario_file(path)
        except InputError as exc:
            bad.append((path.name, str(exc)))
            table.add_row(escape(path.name), "[red]does not load (below)[/red]", "", "", "")
            continue
        games = scen.get("games")
        table.add_row(escape(path.name), escape(str(scen.get("name", ""))),
                      escape(str(scen.get("ruleset", ""))),
                      escape(_players_text(scen.get("players"))),
                      f"{games:,}" if isinstance(games, int) else escape(str(games)))
    console.print(table)
    for name, message in bad:
        console.print(f"[red]{escape(name)}[/red]: {escape(message)}", highlight=False)
    if bad:
        console.print(f"{len(bad)} of {len(files)} scenario files do not load; "
                      "`deepsim run` would refuse them with the same error", highlight=False)
        raise typer.Exit(2)     # bad input, as `run` would say: usable as a lint in CI


def _present(run_dir: Path, kind: str, columns: list[str]) -> list[str]:
    """Those of ``columns`` the run's ``kind`` parts have (a ruleset writes its own)."""
    from deepsim.output import read_manifest
    from deepsim.report.load import schema_names

    names = schema_names(Path(run_dir), read_manifest(run_dir), kind)
    return columns if names is None else [c for c in columns if c in names]


def _auto_report(run_dir: Path, console: Console, quiet: bool) -> None:
    """The report at the end of ``run``: a failure is a warning, the run stands."""
    from deepsim.reporting import report_runs

    try:
        _, paths = report_runs([run_dir])
    except Exception as exc:  # noqa: BLE001 - the run's results are safe; say so and go on
        console.print(f"[yellow]warning:[/yellow] the report failed ({escape(str(exc))}); "
                      f"retry with: deepsim report {escape(str(run_dir))}", highlight=False)
        return
    if not quiet:
        console.print(f"Report: {escape(str(paths[0].parent))} "
                      f"({', '.join(p.name for p in paths if p.suffix in ('.md', '.html'))})",
                      highlight=False)


@app.command()
def report(
    run_dirs: Annotated[list[Path], typer.Argument(
        metavar="RUN_DIR...",
        help="Run directories. The first is reported; the others add what the ruleset's "
             "claims need (e.g. a run with one parameter read another way, or 2-player "
             "games) or are shown side by side, labelled by the parameters that differ.")],
    formats: options.output_format("Comma-separated: md, html.") = "md,html",
    out: options.out("Output folder (default: FIRST_RUN_DIR/report/).") = None,
    options: Annotated[list[str] | None, typer.Option(
        "--option", help="Report setting KEY=VALUE, e.g. viability.min_ratio=0.9; "
                         "repeatable (keys in the report's Method section).")] = None,
) -> None:
    """Balance report of finished runs, or of a ladder folder.

    Balance report of finished runs: win shares per faction, seats, the ruleset's own
    sections and its rulebook's claims. Given a `deepsim ladder` folder: the ladder's
    report ("Does it depend on skill?") again, as ladder.md / ladder.html."""
    from deepsim.ladder.report import is_ladder_dir, report_ladder
    from deepsim.output import check_writable, os_reason
    from deepsim.report.build import parse_formats
    from deepsim.reporting import report_runs

    console = _console()
    ladder = bool(run_dirs) and is_ladder_dir(run_dirs[0])
    try:
        if ladder and (len(run_dirs) > 1 or options):
            raise InputError("a skill ladder's folder is reported alone: its verdicts were "
                             "fixed when it was played (no other folders, no --option)",
                             file=str(run_dirs[0]))
        if out is not None:  # a folder that cannot be made or written: exit 2, before
            try:
                out.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(f"cannot create the folder: {os_reason(exc)}",
                                 file=str(out), key="--out") from None
            check_writable(out)
        try:
            if ladder:
                rep, paths = report_ladder(run_dirs[0], out_dir=out,
                                           formats=parse_formats(formats))
            else:
                rep, paths = report_runs(run_dirs, out_dir=out,
                                         formats=parse_formats(formats),
                                         options=list(options or []))
        except OSError as exc:
            where = exc.filename or out or "the report folder"
            raise OutputError(f"{where}: cannot write the report: {os_reason(exc)}") from None
    except (InputError, OutputError) as exc:
        raise _fail(exc) from None
    if ladder:
        from deepsim.cli.ladder import print_summary
        from deepsim.ladder.report import load_result

        print_summary(load_result(run_dirs[0]), console)
    elif rep.claims:
        table = Table("Claim", "Verdict", "Rulebook says", title=escape(rep.title),
                      title_justify="left")
        styles = {"holds": "green", "fails": "red", "inconclusive": "yellow"}
        for res in rep.claims:
            style = styles.get(res.verdict.split(" (")[0], "dim")
            table.add_row(res.claim.id, f"[{style}]{escape(res.verdict)}[/{style}]",
                          escape(res.claim.text))
    else:  # a ruleset without rulebook claims: name the sections written
        table = Table("Section", "Tables", "Plots", title=escape(rep.title),
                      title_justify="left")
        for sec in rep.sections:
            table.add_row(escape(sec.title), "-" if sec.missing else str(len(sec.tables)),
                          "-" if sec.missing else str(len(sec.figures)))
    if not ladder:
        console.print(table)
    for p in paths:
        if p.suffix in (".md", ".html"):
            console.print(f"Wrote {escape(str(p))}", highlight=False)
    console.print(f"Plots{'' if ladder else ' and report.json'} in "
                  f"{escape(str(paths[0].parent))}; {rep.elapsed_s:.1f} s", highlight=False)
