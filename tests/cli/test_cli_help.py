"""``deepsim --help`` reads at a glance in an 80-column terminal or CI log: every command
in one of the designer's groups (``deepsim.cli.help.GROUPS``), ``run`` first, one line per
command; every command's own help fits 80 columns, no flag shows a ``<bool>`` type, and
no sentence of a docstring is broken by the source's line breaks."""

from __future__ import annotations

import re

import pytest
import typer.main
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.cli.help import GROUPS, reflow

runner = CliRunner()
GROUP = typer.main.get_command(app)
COMMANDS = sorted(GROUP.commands)
ODDS_RULESETS = sorted(GROUP.commands["odds"].list_commands(None))


def _help(*argv: str) -> str:
    res = runner.invoke(app, [*argv, "--help"], env={"COLUMNS": "80"}, prog_name="deepsim")
    assert res.exit_code == 0, res.output
    return res.output


def _ungrouped(group) -> list[str]:
    grouped = {name for names in GROUPS.values() for name in names}
    return sorted(set(group.commands) - grouped)


def test_every_command_sits_in_a_group():
    grouped = [name for names in GROUPS.values() for name in names]
    assert len(grouped) == len(set(grouped)), "a command listed in two groups"
    ungrouped = _ungrouped(GROUP)
    assert not ungrouped, f"commands in no group of deepsim.cli.help.GROUPS: {ungrouped}"
    stale = sorted(set(grouped) - set(COMMANDS))
    assert not stale, f"GROUPS names commands that do not exist: {stale}"


def test_an_ungrouped_command_is_caught():
    # the check above can fail: a command added without a group lands in "Commands", last
    extra = typer.Typer()

    @extra.command("zzz-new")
    def _new() -> None:
        """A new command nobody grouped."""

    app.registered_commands.append(extra.registered_commands[0])
    try:
        group = typer.main.get_command(app)
        assert _ungrouped(group) == ["zzz-new"]
        assert group.list_commands(None)[-1] == "zzz-new"
        out = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).output
        assert "─ Commands ─" in out
    finally:
        app.registered_commands.pop()


def test_top_level_help_lists_run_first_one_line_per_command():
    out = _help()
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert "<bool>" not in out
    assert "─ Commands ─" not in out            # every command is in a named group
    rows = [line for line in lines if re.match(r"^│ \S", line)]
    listed = [row.split()[1] for row in rows if not row.split()[1].startswith("--")]
    assert listed[0] == "run"
    assert sorted(listed) == COMMANDS
    for title in GROUPS:
        assert f"─ {title} ─" in out
    # one line per command: a row is never followed by a continuation line
    for i, line in enumerate(lines):
        if re.match(r"^│ \S", line) and i + 1 < len(lines):
            assert not re.match(r"^│ {5,}\S", lines[i + 1]), (line, lines[i + 1])
    # the groups print in GROUPS' order, each command under its own group
    order = [name for names in GROUPS.values() for name in names]
    assert listed == order


@pytest.mark.parametrize("argv", [(c,) for c in COMMANDS]
                         + [("odds", r) for r in ODDS_RULESETS], ids=" ".join)
def test_every_command_help_fits_80_columns(argv):
    out = _help(*argv)
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert not wide, wide
    assert "<bool>" not in out


@pytest.mark.parametrize("name", COMMANDS)
def test_docstrings_are_reflowed(name):
    help_text = GROUP.commands[name].help or ""
    first = help_text.split("\n\n")[0]
    assert "\n" not in first
    assert len(first) <= 62, f"{name}: summary too long for one line at 80 columns: {first}"
    assert reflow(help_text) == help_text


def test_reflow_joins_lines_and_keeps_lists():
    assert reflow("One sentence\nbroken here.\n\nSecond\npara.") == \
        "One sentence broken here.\n\nSecond para."
    kept = "Items:\n- one\n- two"
    assert reflow(kept) == kept
    assert reflow("\b\nkeep\nas is") == "\b\nkeep\nas is"
