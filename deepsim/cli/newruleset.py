"""``deepsim new-ruleset NAME [--dir DIR]`` (registered on the app by :func:`register`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the ``new-ruleset`` command to ``app``."""

    @app.command("new-ruleset")
    def new_ruleset(
        name: Annotated[str, typer.Argument(help="The ruleset's name (lower-case letters, "
                                                 "digits, '_'): what scenarios give.")],
        directory: Annotated[Path | None, typer.Option(
            "--dir", "-d", help="Folder to write (new or empty; default ./NAME).")] = None,
        cooperative: Annotated[bool, typer.Option(
            "--cooperative", help="A co-operative game (the party wins or loses together, "
                                  "against a target win rate) with an exact answer, "
                                  "instead of Pig.")] = False,
    ) -> None:
        """Start a game of your own: write a ruleset package.

        The package plays the dice game Pig as a working example (with --cooperative a
        co-operative dice game with an exact answer); deepsim finds it once installed with
        `pip install -e DIR` (docs: Develop, the ruleset contract)."""
        from rich.console import Console
        from rich.markup import escape

        from deepsim.cli.options import fail
        from deepsim.errors import InputError
        from deepsim.newruleset import write_ruleset

        console = Console()
        try:
            sc = write_ruleset(name, directory, cooperative=cooperative)
        except InputError as exc:
            raise fail(exc) from None
        from deepsim.rulesets import entries
        taken = [e for e in entries() if e.name == sc.name]
        if taken:
            console.print(f"note: '{escape(sc.name)}' is already the name of the ruleset of "
                          f"{escape(taken[0].origin)}; two installed packages declaring "
                          "one name are both refused (pip install -e of a package with "
                          "the same distribution name replaces it)",
                          highlight=False)
        d = escape(str(sc.root))
        console.print(f"Wrote the ruleset '{escape(sc.name)}' ({len(sc.files)} files) to {d}",
                      highlight=False)
        console.print("Next:", highlight=False)
        for line in (f"pip install -e {d}",
                     f"deepsim run {d}/scenarios/{escape(sc.name)}.yaml --games 10000",
                     f"pytest {d}",
                     f"then make it your game: {d}/README.md"):
            console.print(f"  {line}", highlight=False, soft_wrap=True)
