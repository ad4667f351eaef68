"""``deepsim odds RULESET QUESTION [options]``: one command for every ruleset's odds.

Each ruleset declares its questions and options (:class:`deepsim.rulesets.base.OddsBook`,
from its folder); this module turns them into a typer command per ruleset, built when
asked for, and adds ``--set``, ``--format`` and ``--plot`` to each.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from deepsim.cli import options
from deepsim.cli.help import PlainFlagsGroup, plain_flags
from deepsim.cli.options import fail
from deepsim.errors import InputError
from deepsim.odds.table import FORMATS, render_rich, to_csv, to_json, to_markdown, write_plot

EXIT_INPUT = 2


_fail = fail     # error: line, exit 2


def _emit(res_fn, fmt: str, plot: Path | None) -> None:
    try:
        if fmt not in FORMATS:
            raise InputError(f"unknown format '{fmt}'; formats: {', '.join(FORMATS)}",
                             key="--format")
        res = res_fn()
        if plot is not None:
            write_plot(res, plot)
    except InputError as exc:
        raise _fail(exc) from None
    if fmt == "table":
        render_rich(res, Console())
    else:
        text = {"csv": to_csv, "json": to_json, "md": to_markdown}[fmt](res)
        sys.stdout.write(text)
        sys.stdout.flush()
    if plot is not None:
        Console(stderr=True).print(f"plot written to {escape(str(plot))}", highlight=False)


_KINDS = {"str": str | None, "int": int | None, "flag": bool, "bool": bool | None,
          "list": list[str] | None}


def _parameter(opt) -> inspect.Parameter:
    """A typer option (a keyword parameter with its annotation) from a ruleset's
    :class:`~deepsim.rulesets.base.OddsOption`."""
    if opt.kind not in _KINDS:
        raise ValueError(f"odds option {opt.name}: unknown kind {opt.kind!r}")
    default = False if opt.kind == "flag" else opt.default
    info = typer.Option(*opt.flags, help=opt.help or None)
    return inspect.Parameter(opt.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[_KINDS[opt.kind], info])


def odds_command(rs):
    """The ``deepsim odds RULESET`` command of a ruleset with an odds book (a typer
    command built from its :class:`~deepsim.rulesets.base.OddsBook`)."""
    book = rs.odds()
    lists = {o.name for o in book.options if o.kind == "list"}

    def command(question: str, sets, fmt: str, plot: Path | None, **options) -> None:
        for name in lists:
            options[name] = list(options[name] or [])
        _emit(lambda: book.answer(question, **options, sets=list(sets or [])), fmt, plot)

    questions = "; ".join(f"{k}: {v}" for k, v in book.questions.items())
    kw = inspect.Parameter.KEYWORD_ONLY
    command.__signature__ = inspect.Signature([
        inspect.Parameter("question", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          annotation=Annotated[str, typer.Argument(metavar="QUESTION",
                                                                   help=questions)]),
        *(_parameter(o) for o in book.options),
        inspect.Parameter("sets", kw, default=None, annotation=options.sets(
            "Data override path=value (as for deepsim run); repeatable.")),
        inspect.Parameter("fmt", kw, default="table", annotation=Annotated[
            str, typer.Option("--format", "-f", help="table | csv | json | md.")]),
        inspect.Parameter("plot", kw, default=None, annotation=Annotated[
            Path | None, typer.Option(
                "--plot", help="Also write a bar chart here (.png, .svg or .pdf).")]),
    ])
    command.__doc__ = book.help
    app = typer.Typer(add_completion=False, pretty_exceptions_show_locals=False)
    app.command(rs.name, short_help=rs.title)(command)
    return typer.main.get_command(app)


class OddsGroup(PlainFlagsGroup):
    """The ``deepsim odds`` group: one sub-command per installed ruleset with an odds book,
    built on first use (so ``deepsim`` starts without importing every ruleset's odds)."""

    def list_commands(self, ctx) -> list[str]:
        """The rulesets with dice odds, found without importing them (a ruleset's package
        and its odds book load only when its command runs): a built-in with an ``odds.py``
        in its folder; an installed or registered one is listed and says so when it has
        none."""
        from deepsim import rulesets

        out = []
        for e in rulesets.entries():
            if e.source != rulesets.BUILTIN or (Path(rulesets.__file__).parent / e.name
                                                / "odds.py").is_file():
                out.append(e.name)
        return sorted(set(out))

    def format_help(self, ctx, formatter) -> None:
        # the help screen lists each ruleset with a stub command: building the real ones
        # would import every ruleset (seconds, for a help screen)
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def get_command(self, ctx, cmd_name: str):
        from deepsim import rulesets

        if getattr(self, "_listing", False):
            import click
            return click.Command(cmd_name, help=f"Dice odds of {cmd_name}; add --help for "
                                               "its questions.")

        try:
            rs = rulesets.get(cmd_name)
            if rs.odds() is None:
                raise InputError(f"ruleset '{cmd_name}' has no odds questions; rulesets with "
                                 f"odds: {', '.join(self.list_commands(ctx))}", key="RULESET")
        except InputError as exc:
            raise _fail(InputError(exc.message, key="RULESET")) from None
        command = odds_command(rs)
        plain_flags(command, ctx)
        return command


odds_app = typer.Typer(
    name="odds",
    cls=OddsGroup,
    help="Exact dice odds of a ruleset (icepool).\n\n"
         "deepsim odds RULESET QUESTION --option ...; deepsim odds RULESET --help lists a "
         "ruleset's questions and options.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
