"""Command-line options shared by several commands (typer ``Annotated`` aliases)."""

from __future__ import annotations

from typing import Annotated

import typer

Backend = Annotated[str, typer.Option(
    "--backend", help="Where the chunks run: local (this process) or dask (one task per "
                      "chunk; docs/distributed.md).")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS",
    help="Dask scheduler (tcp://host:8786 or a scheduler file); default with "
         "--backend dask: a LocalCluster on 127.0.0.1.")]
Workers = Annotated[int | None, typer.Option(
    "--workers", help="Worker processes of that LocalCluster (default 2).")]
Threads = Annotated[int | None, typer.Option(
    "--threads", "-t", help="numba threads (default: all cores).")]


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
