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
