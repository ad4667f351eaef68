"""Command-line options shared by several commands: each repeated flag is spelled once here.

A command's signature reads ``seed: options.seed("Search seed (default: the scenario's).")
= None``: the factory gives the flag's spelling, short form, metavar and value type (an
``Annotated`` alias typer reads); the command gives what the flag means for it (its help)
and its default. Options of one command only stay in that command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = [
    "FORCE",
    "Backend",
    "Scheduler",
    "Threads",
    "Workers",
    "alpha",
    "chunk_size",
    "confirm_games",
    "confirm_seed",
    "every_faction",
    "faction",
    "fail",
    "force",
    "games",
    "max_games",
    "max_ratio",
    "metric",
    "min_games",
    "min_ratio",
    "no_plots",
    "out",
    "output_format",
    "param",
    "quiet",
    "report_switch",
    "sampler_seed",
    "seed",
    "sets",
    "target_rounds",
    "threads",
    "trials",
]


def _option(kind: Any, flags: tuple[str, ...], help: str, **kw: Any) -> Any:
    return Annotated[kind, typer.Option(*flags, help=help, **kw)]


# ---- what to play ---------------------------------------------------------------------------

def games(help: str, *, kind: Any = int | None, **kw: Any) -> Any:
    """``--games`` / ``-n``: how many games."""
    return _option(kind, ("--games", "-n"), help, **kw)


def seed(help: str = "Master seed (default: the scenario's).", *, kind: Any = int | None,
         **kw: Any) -> Any:
    """``--seed`` / ``-s``."""
    return _option(kind, ("--seed", "-s"), help, **kw)


def sets(help: str = "Ruleset parameter override path=value; repeatable.", **kw: Any) -> Any:
    """``--set PATH=VALUE``, repeatable (one word: ``deepsim`` refuses ``--set PATH VALUE``
    with a hint)."""
    return _option(list[str] | None, ("--set",), help, metavar="PATH=VALUE", **kw)


def chunk_size(help: str, **kw: Any) -> Any:
    """``--chunk-size``: games per chunk."""
    return _option(int | None, ("--chunk-size",), help, **kw)


def threads(help: str = "numba threads (default: all cores).", **kw: Any) -> Any:
    """``--threads`` / ``-t``."""
    return _option(int | None, ("--threads", "-t"), help, **kw)


def min_games(help: str, *, kind: Any = int | None, **kw: Any) -> Any:
    """``--min-games``: games before a sequential test may stop."""
    return _option(kind, ("--min-games",), help, **kw)


def max_games(help: str, *, kind: Any = int | None, **kw: Any) -> Any:
    """``--max-games``: a sequential test's budget."""
    return _option(kind, ("--max-games",), help, **kw)


# ---- what to measure ------------------------------------------------------------------------

def metric(help: str, *, kind: Any = list[str] | None, **kw: Any) -> Any:
    """``--metric`` / ``-m``: a metric in the metric language."""
    return _option(kind, ("--metric", "-m"), help, **kw)


def param(help: str, **kw: Any) -> Any:
    """``--param`` / ``-p PATH=VALUES``, repeatable."""
    return _option(list[str] | None, ("--param", "-p"), help, **kw)


def target_rounds(help: str = "Target of length_error (rounds; default: the game length the "
                               "ruleset's rulebook states).", **kw: Any) -> Any:
    """``--target-rounds``."""
    return _option(float | None, ("--target-rounds",), help, **kw)


def alpha(help: str, *, kind: Any = float, **kw: Any) -> Any:
    """``--alpha``: an error rate."""
    return _option(kind, ("--alpha",), help, **kw)


def min_ratio(help: str = "Viability line, x fair.", **kw: Any) -> Any:
    """``--min-ratio``: the viability line (the report's ``viability.min_ratio``)."""
    return _option(float, ("--min-ratio",), help, **kw)


def max_ratio(help: str = "Too-strong line, x fair.", **kw: Any) -> Any:
    """``--max-ratio``: the too-strong line (the report's ``viability.max_ratio``)."""
    return _option(float, ("--max-ratio",), help, **kw)


# ---- best responses -------------------------------------------------------------------------

def faction(help: str, **kw: Any) -> Any:
    """``--faction`` / ``-f``, repeatable."""
    return _option(list[str] | None, ("--faction", "-f"), help, **kw)


def every_faction(help: str = "Every faction of the ruleset (baseline styles left out).",
                  **kw: Any) -> Any:
    """``--all``: every faction."""
    return _option(bool, ("--all",), help, **kw)


def trials(help: str, **kw: Any) -> Any:
    """``--trials``: optuna trials."""
    return _option(int, ("--trials",), help, **kw)


def sampler_seed(help: str = "Seed of optuna's TPE sampler.", **kw: Any) -> Any:
    """``--sampler-seed``."""
    return _option(int, ("--sampler-seed",), help, **kw)


def confirm_games(help: str, *, kind: Any = int | None, **kw: Any) -> Any:
    """``--confirm-games``: fresh games confirming a result."""
    return _option(kind, ("--confirm-games",), help, **kw)


def confirm_seed(help: str, **kw: Any) -> Any:
    """``--confirm-seed``: their seed."""
    return _option(int | None, ("--confirm-seed",), help, **kw)


# ---- what to write --------------------------------------------------------------------------

def out(help: str, *, kind: Any = Path | None, **kw: Any) -> Any:
    """``--out`` / ``-o``: the output folder or file."""
    return _option(kind, ("--out", "-o"), help, **kw)


def force(help: str = "Overwrite an existing --out.", **kw: Any) -> Any:
    """``--force``."""
    return _option(bool, ("--force",), help, **kw)


def quiet(help: str = "Print only the output folder.", **kw: Any) -> Any:
    """``--quiet`` / ``-q``."""
    return _option(bool, ("--quiet", "-q"), help, **kw)


def no_plots(help: str = "Skip the PNG plots.", **kw: Any) -> Any:
    """``--no-plots``."""
    return _option(bool, ("--no-plots",), help, **kw)


def report_switch(help: str, **kw: Any) -> Any:
    """``--report/--no-report``."""
    return _option(bool, ("--report/--no-report",), help, **kw)


def output_format(help: str, *, kind: Any = str, **kw: Any) -> Any:
    """``--format`` / ``-f``: an output format."""
    return _option(kind, ("--format", "-f"), help, **kw)


#: ``--force`` with its usual meaning
FORCE = force()

# ---- where the games run --------------------------------------------------------------------

Backend = Annotated[str, typer.Option(
    "--backend", help="Where the chunks run: local (this process) or dask (one task per "
                      "chunk; docs/distributed.md).")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS",
    help="Dask scheduler (tcp://host:8786 or a scheduler file); default with "
         "--backend dask: a LocalCluster on 127.0.0.1.")]
Workers = Annotated[int | None, typer.Option(
    "--workers", help="Worker processes of that LocalCluster (default 2).")]
Threads = threads()


def fail(exc: Exception) -> typer.Exit:
    """Print ``error: ...`` on stderr (no traceback) and return the ``typer.Exit`` to raise:
    exit 2 for bad input (:class:`~deepsim.errors.InputError`), 4 for a failed write
    (:class:`~deepsim.errors.OutputError`). The message is one line however narrow the
    console (``soft_wrap``: a CI log or a pipe never gets a path split in two)."""
    from rich.console import Console
    from rich.markup import escape

    from deepsim.errors import EXIT_INPUT, EXIT_OUTPUT, OutputError
    Console(stderr=True).print(f"[bold red]error:[/bold red] [red]{escape(str(exc))}[/red]",
                               highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_OUTPUT if isinstance(exc, OutputError) else EXIT_INPUT)
