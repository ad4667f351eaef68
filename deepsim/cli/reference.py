"""The ``deepsim`` command as a click command, for the documentation site's CLI reference.

mkdocs-click documents a click command; :data:`command` is the typer app's
(``typer.main.get_command``), built once, commands in the order and groups of
``deepsim --help`` (:mod:`deepsim.cli.help`).
"""

from __future__ import annotations

import typer.main

from deepsim.cli import app

#: the click group of ``deepsim`` (docs/reference/cli.md renders it with mkdocs-click)
command = typer.main.get_command(app)
