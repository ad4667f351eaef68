"""``deepsim conformance`` and ``deepsim golden``: a ruleset's conformance suite and its
golden result digests, from the command line (a plugin's author runs both)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from deepsim.cli.options import fail
from deepsim.errors import InputError

__all__ = ["conformance", "golden", "register"]


def conformance(
    ctx: typer.Context,
    ruleset: Annotated[str, typer.Argument(help="Ruleset name (deepsim rulesets lists them).")],
    checks: Annotated[list[str] | None, typer.Argument(
        metavar="[CHECK]...", help="Checks to run (default: all, in order).")] = None,
) -> None:
    """Run a ruleset's conformance suite, one line per check.

    Run the conformance suite on a ruleset: one line per check; exit 1 when any fails
    (deepsim.testing.conformance; docs/contract.md)."""
    from deepsim import rulesets
    from deepsim.testing.conformance import CHECKS, Conformance

    console = Console()
    try:
        rs = rulesets.get(ruleset)
        unknown = [c for c in checks or () if c not in CHECKS]
        if unknown:
            raise InputError(f"unknown check {', '.join(unknown)}; checks: "
                             f"{', '.join(CHECKS)}", key="CHECK")
    except InputError as exc:
        raise fail(exc) from None
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        # the suite drives this very command line (in this process)
        suite = Conformance(rs, tmp, cli=ctx.find_root().command)
        for check in checks or CHECKS:
            t0 = time.perf_counter()
            try:
                suite.run(check)
                msg = "ok"
            except AssertionError as exc:
                failed += 1
                msg = f"[red]FAILED[/red]: {escape(str(exc))}"
            console.print(f"{check:14} {time.perf_counter() - t0:6.1f} s  {msg}",
                          highlight=False)
    if failed:
        raise typer.Exit(1)


def golden(
    only: Annotated[list[str], typer.Argument(
        metavar="RULESET|RULESET/CASE...", help="Rulesets, or single cases of one.")],
    digests: Annotated[Path, typer.Option(
        "--digests", metavar="FILE", help="The digest file (a plugin's tests/golden.json).")],
    update: Annotated[bool, typer.Option("--update", help="Store the new digests.")] = False,
) -> None:
    """Check (or --update) rulesets' golden result digests.

    Play the golden cases of the named rulesets and say which digests differ from FILE
    (exit 1 if any); with --update store the new ones (deepsim.testing.golden)."""
    from deepsim import rulesets
    from deepsim.testing.golden import (
        compare,
        digest_tables,
        play_case,
        read_digests,
        write_digests,
    )

    console = Console()
    stored = read_digests(digests)
    fresh = dict(stored)
    changed = 0
    for item in only:
        name, _, one = item.partition("/")
        try:
            rs = rulesets.get(name)
            cases = [c for c in rs.golden_cases() if not one or c.name == one]
            if not cases:
                have = ", ".join(c.name for c in rs.golden_cases()) or "none"
                raise InputError(f"{name} has no golden case {one!r}; its cases: {have}",
                                 key="CASE")
        except InputError as exc:
            raise fail(exc) from None
        for case in cases:
            t0 = time.perf_counter()
            now = digest_tables(*play_case(rs, case))
            diff = compare(stored.get(case.key), now)
            dt = time.perf_counter() - t0
            console.print(f"{escape(case.key)}: {'CHANGED' if diff else 'same'} ({dt:.1f} s)",
                          highlight=False)
            for line in diff:
                console.print(f"    {escape(line)}", highlight=False)
            changed += bool(diff)
            fresh[case.key] = now
    if update:
        if changed:
            write_digests(digests, fresh, refresh=f"deepsim golden --digests {digests} "
                                                  f"--update {' '.join(only)}")
            console.print(f"{changed} digest(s) refreshed in {escape(str(digests))}",
                          highlight=False)
        else:
            console.print("nothing to refresh")
        return
    if changed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``conformance`` and ``golden`` to the ``deepsim`` app."""
    app.command()(conformance)
    app.command()(golden)
