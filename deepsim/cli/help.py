"""How ``deepsim --help`` reads: the commands grouped by what a designer wants, ``run`` first.

:data:`GROUPS` is the one place that says which panel of ``deepsim --help`` a command sits
in and in what order; a command missing from it is listed last under "Commands" and
``tests/cli/test_cli_help.py`` fails. :class:`DeepsimGroup` (the ``cls`` of the ``deepsim``
app) applies it, reflows every command's help (a line break inside a paragraph of a
docstring is a space on screen, so the terminal wraps sentences, not the source) and
drops the ``<bool>`` type typer shows beside an on/off flag (a flag takes no value).
"""

from __future__ import annotations

import re

from typer.core import TyperGroup, TyperOption

#: panel title -> its commands, in the order ``deepsim --help`` lists them
GROUPS: dict[str, tuple[str, ...]] = {
    "Play and read": ("run", "report", "trace", "scenarios"),
    "Judge a change": ("check", "compare", "studio"),
    "Search numbers and players": ("tune", "sweep", "balance", "respond", "meta", "ladder"),
    "Inspect": ("rulesets", "params", "odds", "bench"),
    "Extend": ("new-ruleset", "conformance", "golden", "warmup"),
}

_ORDER = [name for names in GROUPS.values() for name in names]
_PANEL = {name: title for title, names in GROUPS.items() for name in names}

# a paragraph's lines that are not prose: a list item, an indented block, a `\b` block
_KEEP_LINE = re.compile(r"^\s*([-*]\s|\d+[.)]\s|\s{2,}\S)")


def reflow(text: str | None) -> str | None:
    """``text`` with each paragraph's single line breaks turned into spaces.

    Paragraphs (separated by a blank line) stay apart; a paragraph that starts with
    ``\\b`` (click's "keep as written") or whose lines are list items or indented is
    left as it is. typer's rich help keeps a docstring's line breaks, which breaks
    sentences mid-line at any width other than the source's.
    """
    if not text:
        return text
    import inspect

    out = []
    for para in inspect.cleandoc(text).split("\n\n"):
        lines = para.split("\n")
        if para.startswith("\b") or any(_KEEP_LINE.match(line) for line in lines[1:]):
            out.append(para)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def plain_flags(command, ctx) -> None:
    """Give ``command``'s on/off flags (and its ``--help``) an empty metavar, so typer's
    help shows no ``<bool>`` type column for them; a sub-group's commands likewise."""
    for param in command.get_params(ctx):
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        plain_flags(sub, ctx)


class PlainFlagsGroup(TyperGroup):
    """A typer group whose commands (built when asked for) show flags without a type."""

    def get_params(self, ctx):
        params = super().get_params(ctx)
        for param in params:
            if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
                param.metavar = ""
        return params

    def get_command(self, ctx, cmd_name: str):
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            plain_flags(command, ctx)
        return command


class DeepsimGroup(PlainFlagsGroup):
    """The ``deepsim`` group: commands in the panels and order of :data:`GROUPS`, their
    help reflowed (:func:`reflow`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)
        for name, command in self.commands.items():
            command.help = reflow(command.help)
            if name in _PANEL:
                command.rich_help_panel = _PANEL[name]
        # the listing's order is also the commands' own order (the CLI reference keeps it)
        self.commands = {name: self.commands[name] for name in self.list_commands(None)}

    def list_commands(self, ctx) -> list[str]:
        names = list(self.commands)
        known = [n for n in _ORDER if n in self.commands]
        return known + [n for n in names if n not in _PANEL]
