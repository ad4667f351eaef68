"""``deepsim check`` and ``deepsim compare``: typer commands and rich output.

Registered on the main app by :func:`register` (called from :mod:`deepsim.cli`). Exit
codes: 0 all expectations pass (compare: H0 accepted, or no hypotheses given), 1 an
expectation fails (compare: H1 accepted), 3 inconclusive within the game budget, 2 bad
input (printed in red, no traceback).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from deepsim.cli import options
from deepsim.cli.options import fail
from deepsim.errors import InputError
from deepsim.gate import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS
from deepsim.progressbar import games_progress

__all__ = ["check", "compare", "register", "render_check", "render_compare"]

_STYLE = {"pass": "green", "fail": "bold red", "inconclusive": "yellow"}
EXIT_TEXT = {EXIT_PASS: "exit 0: every expectation passes",
             EXIT_FAIL: "exit 1: an expectation fails",
             EXIT_INCONCLUSIVE: "exit 3: inconclusive within the game budget"}


_fail = fail     # error: line, exit 2


def _num(x: float, unit: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    text = f"{x:.4g}" if abs(x) < 1e5 else f"{x:,.0f}"
    return f"{text} {unit}".rstrip() if unit else text


def _progress(quiet: bool) -> tuple[Progress, callable]:
    bar = games_progress(Console(stderr=True), quiet=quiet, transient=True, description="")
    task = {"id": None}

    def on_progress(done: int, total: int) -> None:
        if task["id"] is None:
            bar.start()
            task["id"] = bar.add_task("games", total=total, completed=done)
        bar.update(task["id"], completed=done, total=total)

    return bar, on_progress


# --- check ----------------------------------------------------------------------------------

def render_check(console: Console, result) -> None:
    """The check's table (expectation, bound, measured value, interval, games, verdict),
    the method line and the verdict counts."""
    from deepsim.gate.check import level_text

    levels = {r.alpha for r in result.rows}
    one_level = len(levels) == 1
    head = f"Interval ({level_text(next(iter(levels)))})" if one_level else "Interval (level)"
    title = (f"deepsim check {escape(result.source)}: seed {result.seed}, "
             f"{result.games_played:,} games")
    if result.overrides:
        title += ", " + escape(" ".join(f"--set {o}" for o in result.overrides))
    if console.width < _CHECK_TABLE_WIDTH:
        _check_list(console, result, title)
    else:
        _check_table(console, result, title, head, one_level)
    _check_footer(console, result)


#: the width from which ``check`` prints a table (below: a list, one expectation a paragraph)
_CHECK_TABLE_WIDTH = 110


def _check_list(console: Console, result, title: str) -> None:
    """The check's rows as paragraphs: verdict, number and name; the expectation and its
    bound; what was measured, its interval and the games (an 80-column CI log)."""
    from deepsim.gate.check import level_text, member_names

    console.print(f"[bold]{title}[/bold]", highlight=False)
    width = max((len(r.verdict) for r in result.rows), default=0)
    names = member_names(result.rows)
    for i, row in enumerate(result.rows, 1):
        inst, est = row.instance, row.estimate
        style = _STYLE[row.verdict]
        console.print(f"[{style}]{row.verdict:<{width}}[/{style}] #{i} {escape(names[i - 1])}",
                      highlight=False)
        console.print(f"    {escape(inst.spec)} {escape(inst.bound_text)}", highlight=False,
                      overflow="fold")
        console.print(f"    measured {escape(_num(est.value, inst.metric.unit))} "
                      f"[{_num(est.low)}, {_num(est.high)}] ({level_text(row.alpha)}), "
                      f"{row.games:,} games", highlight=False, overflow="fold")


def _check_table(console: Console, result, title: str, head: str, one_level: bool) -> None:
    from deepsim.gate.check import level_text

    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("Expectation", overflow="fold")
    table.add_column("Bound")
    table.add_column("Measured", justify="right")
    table.add_column(head, justify="right")
    table.add_column("Games", justify="right")
    table.add_column("Verdict")
    from deepsim.gate.check import member_names

    names = member_names(result.rows)
    for i, row in enumerate(result.rows, 1):
        inst, est = row.instance, row.estimate
        label = f"[dim]{escape(names[i - 1])}[/dim]\n{escape(inst.spec)}"
        interval = f"[{_num(est.low)}, {_num(est.high)}]"
        if not one_level:
            interval += f" ({level_text(row.alpha)})"
        style = _STYLE[row.verdict]
        table.add_row(str(i), label, escape(inst.bound_text),
                      escape(_num(est.value, inst.metric.unit)), escape(interval),
                      f"{row.games:,}", f"[{style}]{row.verdict}[/{style}]")
    console.print(table)


def _check_footer(console: Console, result) -> None:
    # the answer first, then how it was reached, then the caveats
    c = result.counts
    code = result.exit_code
    style = {EXIT_PASS: "bold green", EXIT_FAIL: "bold red"}.get(code, "bold yellow")
    console.print(f"[{style}]{c['pass']} pass, {c['fail']} fail, {c['inconclusive']} "
                  f"inconclusive[/{style}] of {len(result.rows)} ({EXIT_TEXT[code]}; "
                  f"{result.elapsed_s:.1f} s)", highlight=False)
    console.print(f"[dim]{escape(result.method)}[/dim]", highlight=False)
    if result.stopped_early:
        console.print(f"[dim]{escape(result.stopped_early)}[/dim]", highlight=False)
    for note in getattr(result, "notes", []):
        console.print(f"[yellow]deprecated:[/yellow] {escape(note)}", highlight=False)
    for line in defaults_lines(result):
        head = "[yellow]warning:[/yellow]" if "fails at the" in line else "[dim]note:[/dim]"
        console.print(f"{head} {escape(line)}", highlight=False)
    if result.placeholders:
        console.print(f"[yellow]placeholder data:[/yellow] "
                      f"{escape(', '.join(result.placeholders))}", highlight=False)
    caps = getattr(result, "safety_caps", [])
    if caps:
        console.print("[yellow]invented safety caps[/yellow] (not in the rulebook; a game "
                      "one stops is unresolved, left out of every win share): "
                      + escape(", ".join(f"{c['path']}={c['value']}" for c in caps)),
                      highlight=False)
    if result.not_played:
        console.print(f"[dim]left out (never played in this scenario, "
                      f"{len(result.not_played)}): "
                      f"{escape(', '.join(result.not_played))}[/dim]", highlight=False)


def defaults_lines(result) -> list[str]:
    """With ``--set``: for each failed test, whether it fails at the scenario's own rules
    too (then its bound failed before the change: the gate needs new bounds, `deepsim check
    --init`) or passes there (the change moved it)."""
    from deepsim.gate.check import member_names

    if not getattr(result, "defaults", None):
        return []
    names = member_names(result.rows)
    out = []
    for i, v in sorted(result.defaults.items()):
        r = result.rows[i]
        where = f"#{i + 1} {names[i]} ({r.instance.spec})"
        if v == "fail":
            out.append(f"{where} fails at the scenario's own rules too (without --set, "
                       f"same {r.games:,} games): its bound fails today, not because of "
                       "the change; deepsim check --init measures new bounds")
        else:
            word = "passes" if v == "pass" else "is inconclusive"
            out.append(f"{where} {word} at the scenario's own rules (without --set, same "
                       f"{r.games:,} games): the change moves it")
    return out


def quiet_lines(result) -> list[str]:
    """``check --quiet``: the verdict counts, then one line per expectation that did not
    pass (verdict, number, expectation, measured value, interval, bound)."""
    from deepsim.gate.check import member_names

    c = result.counts
    names = member_names(result.rows)
    lines = [(f"{result.scenario_name}: {c['pass']} pass, {c['fail']} fail, "
              f"{c['inconclusive']} inconclusive after {result.games_played:,} games "
              f"({EXIT_TEXT[result.exit_code]})")]
    for i, row in enumerate(result.rows, 1):
        if row.verdict == "pass":
            continue
        inst, est = row.instance, row.estimate
        lines.append(f"  {row.verdict} #{i} {names[i - 1]}: {inst.spec} {inst.bound_text}: "
                     f"measured {_num(est.value, inst.metric.unit)} [{_num(est.low)}, "
                     f"{_num(est.high)}]")
    return lines + [f"  {'warning' if 'fails at the' in x else 'note'}: {x}"
                    for x in defaults_lines(result)]


def check(
    scenario: Annotated[Path, typer.Argument(help="Scenario YAML with an expect: block.")],
    games: options.games(
        "Games of the single look (default: the scenario's); with --sequential, the default "
        "--max-games.") = None,
    seed: options.seed("Master seed (default: scenario's).")
    = None,
    sets: options.sets("Ruleset parameter override path=value; repeatable.") = None,
    alpha: options.alpha("Family-wise error rate over all expectations.") = 0.05,
    sequential: Annotated[bool, typer.Option(
        "--sequential", help="Add games in looks until every expectation is decided "
                             "(alpha spending keeps the intervals valid).")] = False,
    max_games: options.max_games(
        "Game budget of --sequential (default: --games or the scenario's games).") = None,
    min_games: options.min_games(
        "First look of --sequential (default: max-games/32, at least 1,000); later looks double.") = None,
    spending: Annotated[str, typer.Option(
        "--spending", help="Lan-DeMets spending function: pocock (decides clear cases "
                           "early) or obf (O'Brien-Fleming: keeps alpha for the end).")]
    = "pocock",
    threads: options.threads(
        "numba threads (default: all cores); verdicts do not depend on it.") = None,
    junit: Annotated[Path | None, typer.Option(
        "--junit", help="Also write JUnit XML (one test case per expectation).")] = None,
    fail_fast: Annotated[bool, typer.Option(
        "--fail-fast", help="Stop at the first look with a failed expectation.")] = False,
    quiet: options.quiet(
        "No progress bar and no table: the counts, then a line for each expectation that did not "
        "pass.")
    = False,
    init: Annotated[bool, typer.Option(
        "--init", help="Write an expect: block instead: today's measured values of "
                       "--metric (default: every faction's and faction part's win/fair, "
                       "rounds and the first seat's edge per player count) with a "
                       "tolerance, in a scenario that extends SCENARIO (--out FILE, "
                       "else printed).")] = False,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", "-m", help="With --init: a number of the metric language to bound; "
                               "repeatable.")] = None,
    tolerance: Annotated[float, typer.Option(
        "--tolerance", help="With --init: times the tolerance each bound adds to today's "
                            "interval (0.1 x fair, 2 pp, 0.5 rounds, else 10% of the "
                            "value).")] = 1.0,
    out: options.out("With --init: the gate file to write (a scenario with extends: "
                     "SCENARIO and the expect: block).") = None,
    force: options.force("With --init: replace --out.") = False,
) -> None:
    """Judge a scenario's expect: block (the CI balance gate).

    Judge a scenario's expect: block: exit 0 all pass, 1 any fail, 3 inconclusive, 2 bad
    input. With --init, write the block from today's measured values."""
    from deepsim.gate.check import run_check
    from deepsim.gate.junit import write_junit

    console = Console()
    bar, on_progress = _progress(quiet)
    if init:
        _init(console, scenario, bar, on_progress, games=games, seed=seed,
              sets=list(sets or []), alpha=alpha, threads=threads, metric=metric,
              tolerance=tolerance, out=out, force=force, quiet=quiet,
              misplaced=[n for n, v in (("--sequential", sequential), ("--junit", junit),
                                        ("--fail-fast", fail_fast),
                                        ("--max-games", max_games),
                                        ("--min-games", min_games)) if v])
        return
    try:
        stray = [n for n, v in (("--metric", metric), ("--out", out), ("--force", force),
                                ("--tolerance", tolerance != 1.0)) if v]
        if stray:
            raise InputError(f"{', '.join(stray)} go(es) with --init", key=stray[0])
        try:
            result = run_check(scenario, games=games, seed=seed, overrides=list(sets or []),
                               alpha=alpha, sequential=sequential, max_games=max_games,
                               min_games=min_games, spending=spending, threads=threads,
                               fail_fast=fail_fast, progress=on_progress)
        finally:
            bar.stop()
        if junit is not None:
            try:
                write_junit(result, junit)
            except OSError as exc:
                raise InputError(f"cannot write the JUnit file: {exc.strerror}",
                                 file=str(junit)) from None
    except InputError as exc:
        raise _fail(exc) from None
    if quiet:
        typer.echo("\n".join(quiet_lines(result)))
    else:
        render_check(console, result)
        if junit is not None:
            console.print(f"JUnit XML: {escape(str(junit))}", highlight=False)
    raise typer.Exit(result.exit_code)


# --- compare --------------------------------------------------------------------------------

def _share(x: float, unit: str) -> str:
    if unit in ("%", "pp") and x is not None and not math.isnan(x):
        return f"{x:.2f} {unit}"
    return _num(x, unit)


def _d(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.3g}"


def _change_cells(row) -> list[str]:
    """The B - A and interval cells of one row (markup): a paired change with its 95%
    interval (bold, and the change marked ``(+)`` or ``(-)`` so that a log without colour
    shows it too, when the interval lies above or below 0), or, when no game changed, that
    fact with an exact bound instead of a zero-width interval."""
    du = "pp" if row.unit == "%" else row.unit
    if row.unchanged:
        bound = (f"|B - A| < {row.bound:.2g} {du}" if not math.isnan(row.bound)
                 else f"< {row.bound_share:.2g}% of games change")
        return [escape(f"no game changed\n(0 of {row.n:,})"), escape(bound)]
    cells = [f"{_d(row.est)} {du}".strip(), f"[{_d(row.low)}, {_d(row.high)}]"]
    if row.low <= 0 <= row.high or math.isnan(row.low):
        return [escape(c) for c in cells]
    cells[0] += " (+)" if row.low > 0 else " (-)"
    return [f"[bold]{escape(c)}[/bold]" for c in cells]


def _delta_table(title: str, rows, first: str) -> Table:
    """Each number's value in A and B and the paired change B - A with its interval."""
    table = Table(title=title, title_justify="left")
    table.add_column(first)
    table.add_column("A", justify="right")
    table.add_column("B", justify="right")
    table.add_column("B - A", justify="right")
    table.add_column("95% interval", justify="right")
    for row in rows:
        name = row.member or row.label
        if row.metric.endswith("_spread"):
            name = f"[bold]{escape(row.metric)}[/bold]"
        else:
            name = escape(name)
        table.add_row(name, escape(_share(row.value_a, row.unit)),
                      escape(_share(row.value_b, row.unit)), *_change_cells(row))
    return table


def _side(value: float, unit: str, ratio, verdict: str) -> str:
    """One variant's cell of the faction table: win share, x fair and the verdict."""
    from deepsim.report import viability as V

    head = escape(_share(value, unit))
    if ratio is None:
        return head
    st = V.style_of(verdict)
    word = escape(verdict)
    return f"{head}\n{ratio[0]:.2f}x\n" + (f"[{st}]{word}[/{st}]" if st else word)


def _faction_table(title: str, rows, first: str) -> Table:
    """Before/after per faction: in A and in B its win share, x fair and verdict (the
    report's), the paired change of the win share with its interval (or "no game
    changed"), and a marker where the verdict changed."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAVY, show_edge=False,
                  pad_edge=False)
    table.add_column(first, overflow="fold", ratio=2)
    table.add_column("A", justify="right", no_wrap=True)
    table.add_column("B", justify="right", no_wrap=True)
    table.add_column("B - A\n(95% interval)", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for row in rows:
        if row.metric.endswith("_spread"):
            table.add_row(f"[bold]{escape(row.metric)}[/bold]",
                          escape(_share(row.value_a, row.unit)),
                          escape(_share(row.value_b, row.unit)), "\n".join(_change_cells(row)),
                          "")
            continue
        mark = "[bold]*[/bold]" if row.verdict_changed else ""
        table.add_row(escape(row.member or row.label),
                      _side(row.value_a, row.unit, row.ratio_a, row.verdict_a),
                      _side(row.value_b, row.unit, row.ratio_b, row.verdict_b),
                      "\n".join(_change_cells(row)), mark)
    return table


def balanced_now(rows, label: str, cooperative: bool = False) -> list[str]:
    """"Is it balanced now?": the verdict counts in A and B and every faction whose
    verdict changed (A -> B); a co-operative game's: the party's verdicts per player
    count."""
    from deepsim.report import party as P
    from deepsim.report import viability as V

    fac = [r for r in rows if r.verdict_a and r.verdict_b]
    if not fac:
        return []
    out = []
    words = P.VERDICTS if cooperative else V.VERDICTS
    for side, key in (("A", "verdict_a"), ("B", "verdict_b")):
        got = [getattr(r, key) for r in fac]
        out.append(f"{side}: " + ", ".join(f"{got.count(v)} {v}" for v in words))
    moved = [r for r in fac if r.verdict_changed]
    if moved:
        out.append(f"{len(moved)} {label} verdict(s) changed: " + "; ".join(
            f"{r.member} {r.verdict_a} -> {r.verdict_b} ({r.ratio_a[0]:.2f}x -> "
            f"{r.ratio_b[0]:.2f}x)" for r in moved))
    else:
        out.append(f"no {label} verdict changed")
    unchanged = [r for r in fac if r.unchanged]
    if unchanged:
        out.append(f"{len(unchanged)} {label}(s) where no game changed: "
                   + ", ".join(r.member for r in unchanged[:8])
                   + (" ..." if len(unchanged) > 8 else ""))
    return out


def render_compare(console: Console, r) -> None:
    """Both variants, the difference with its interval and, with the SPRT, the LLR, its
    bounds and the decision; in fixed mode also the table of the metric's numbers and the
    before/after table of the factions."""
    from deepsim.report import viability as V

    du = "pp" if r.unit == "%" else r.unit
    games = (f"{r.games:,} paired games (same seed and game indices: common random numbers)"
             if r.paired else f"{r.games:,} games, unpaired (different seeds)")
    single = r.diff is not None
    title = (f"deepsim compare: {escape(r.metric)} ({escape(r.unit)}), B - A" if single
             else "deepsim compare")
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("", style="bold")
    table.add_column("")
    table.add_row("A", escape(r.label_a))
    table.add_row("B", escape(r.label_b))
    table.add_row("Games", games)
    if single:
        table.add_row("Measured", f"A {_num(r.diff.value_a, r.unit)}, B "
                                  f"{_num(r.diff.value_b, r.unit)}")
        lo, hi = r.diff.interval(0.05)
        note = "fixed-sample; not adjusted for the sequential stop" if r.mode == "sprt" else \
            "fixed-sample"
        table.add_row("B - A", f"{r.diff.est:+.4g} {du}, 95% interval [{lo:+.4g}, {hi:+.4g}] "
                               f"({note})")
    if r.theta0 is not None:
        table.add_row("Hypotheses", f"H0: B - A = {r.theta0:g} {du}, H1: B - A = "
                                    f"{r.theta1:g} {du}; alpha {r.alpha:g}, beta {r.beta:g}")
    if r.mode == "sprt":
        table.add_row("LLR", f"{r.llr:+.3f} (bounds [{r.lower:.3f}, {r.upper:.3f}]; "
                             f"{r.model})")
    elif r.theta0 is not None and not math.isnan(r.llr):
        table.add_row("LLR", f"{r.llr:+.3f} (normal GSPRT; for reference: a fixed-sample "
                             f"test decides)")
    if not math.isnan(r.p_value):
        ref = r.theta0 if r.theta0 is not None else 0.0
        table.add_row("p-value", f"{r.p_value:.3g} (two-sided, B - A = {ref:g})")
    measured = ""
    if single:
        lo, hi = r.diff.interval(0.05)
        measured = f"; measured B - A = {r.diff.est:+.3g} {du} [{lo:+.3g}, {hi:+.3g}]"
    if r.theta0 is None:
        decision = "no hypotheses given (--sprt H0 H1): estimates only"
        style = "bold"
    elif r.decision in ("H0", "H1"):
        win, lose = ((r.theta1, r.theta0) if r.decision == "H1" else (r.theta0, r.theta1))
        code = 1 if r.decision == "H1" else 0
        decision = (f"{r.decision} accepted (exit {code}): the data favour B - A = {win:g} "
                    f"{du} over B - A = {lose:g} {du} (a decision between the two "
                    f"hypotheses, not an estimate){measured}")
        style = "bold red" if r.decision == "H1" else "bold green"
    else:
        decision = (f"inconclusive after {r.games:,} games (exit 3): neither hypothesis "
                    f"accepted{measured}")
        style = "bold yellow"
    table.add_row("Decision", f"[{style}]{escape(decision)}[/{style}]")
    console.print(table)
    if r.rows:
        console.print(_delta_table(f"{escape(r.metric)}: A, B and the paired change B - A",
                                   r.rows, "number"))
    if r.factions and r.cooperative:
        label = r.faction_label
        console.print(_faction_table(
            "Is it on target now? The party's win rate per player count in A and B, x "
            "target and verdict; the paired change", r.factions, escape(label)))
        console.print("[dim]*: the verdict changed. x fair: the party's win rate / the "
                      "target (Wilson interval), games with a baseline bot's seat left out; "
                      "verdict: too easy / too hard when the interval lies wholly above / "
                      "below the target +- 5 pts, on target when inside it, else unclear. "
                      "(+)/(-), bold: the 95% interval of the change lies above/below 0."
                      "[/dim]",
                      highlight=False)
        for line in balanced_now(r.factions, label, cooperative=True):
            console.print(escape(line), highlight=False)
    elif r.factions:
        label = r.faction_label
        console.print(_faction_table(
            f"Is it balanced now? Per {escape(label)} in A and B: win share, x fair and "
            "verdict; the paired change of the win share", r.factions, escape(label)))
        console.print("[dim]*: the verdict changed. x fair: win share / fair share, baseline "
                      "bots left out; verdict: "
                      + escape(V.rule_text(holm=False)) + ". (+)/(-), bold: the 95% interval of "
                      "the change lies above/below 0 (one interval per row, not "
                      "simultaneous). No game "
                      "changed: the exact (Clopper-Pearson) bound on the share of games that "
                      "change, which bounds the win share's change too.[/dim]",
                      highlight=False)
        for line in balanced_now(r.factions, label):
            console.print(escape(line), highlight=False)
    for n in r.notes:
        console.print(f"[dim]{escape(n)}[/dim]", highlight=False)
    console.print(f"[dim]{r.elapsed_s:.1f} s[/dim]", highlight=False)


def compare(
    a: Annotated[Path, typer.Argument(help="Scenario file (variant A), or a finished run "
                                           "directory.")],
    b: Annotated[Path | None, typer.Argument(
        help="Scenario file of variant B (default: A), or a second run directory.")] = None,
    metric: options.metric(
        "A metric in the metric language: NAME or NAME\\[key=value,...] with a group column of the "
        "ruleset or players as key, e.g. 'win_share\\[company=Dvergar Reaver]', "
        "'win_share\\[faction=Sea King]', 'win_edge\\[seat=1]', 'rounds\\[players=4]', "
        "'company_spread', 'win_share\\[company]' (every company; not with --sprt).",
        kind=str) = "",
    sprt: Annotated[tuple[str, str] | None, typer.Option(
        "--sprt", metavar="H0 H1", help="Sequential test of H0 against H1 for B - A in the "
                                        "metric's unit of a difference (percentage points "
                                        "for shares: 2, 2pp or 2%). Without: a fixed number "
                                        "of games (--games).")] = None,
    alpha: options.alpha("P(accept H1 | H0).") = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="P(accept H0 | H1).")] = 0.05,
    sets: options.sets("Override for both variants; repeatable.") = None,
    sets_a: Annotated[list[str] | None, typer.Option(
        "--set-a", help="Override for variant A only; repeatable.")] = None,
    sets_b: Annotated[list[str] | None, typer.Option(
        "--set-b", help="Override for variant B only; repeatable.")] = None,
    seed: options.seed("Seed of both variants (default: A's scenario seed).") = None,
    seed_b: Annotated[int | None, typer.Option(
        "--seed-b", help="Another seed for B: unpaired games (an A/A test).")] = None,
    games: options.games("Without --sprt: paired games to play (default: the scenario's).") = None,
    min_games: options.min_games("Paired games before the SPRT may stop.", kind=int) = 2000,
    max_games: options.max_games("Budget of paired games; then inconclusive (exit 3).", kind=int)
    = 200_000,
    batch: Annotated[int | None, typer.Option(
        "--batch", help="Games between two looks at the LLR.")] = None,
    threads: options.threads("numba threads.") = None,
    quiet: options.quiet("No progress bar.") = False,
) -> None:
    """Did a change shift balance? Two variants on paired games.

    Compare two variants on paired games: SPRT of one metric (--sprt), or estimates with
    intervals and the before/after table of the factions (a fixed number of games, or two
    run directories). Exit 0 H0 (or no --sprt), 1 H1, 3 inconclusive, 2 bad input."""
    from deepsim.gate.compare import SprtPlan, compare_runs, run_compare

    console = Console()
    bar, on_progress = _progress(quiet)
    try:
        if sprt is not None and not metric:
            raise InputError("name the metric to test, e.g. --metric "
                             "'win_share[company=Dvergar Reaver]'", key="--metric")
        if a.is_dir():
            if b is None or not b.is_dir():
                raise InputError("a run directory is compared with a second run directory",
                                 file=str(b) if b else None, key=None if b else "B")
            given = [n for n, v in (("--set", sets), ("--set-a", sets_a), ("--set-b", sets_b),
                                    ("--seed", seed), ("--seed-b", seed_b),
                                    ("--batch", batch), ("--games", games)) if v]
            if given:
                raise InputError(f"two finished runs are compared as they are; drop "
                                 f"{', '.join(given)}", key=given[0])
            result = compare_runs(a, b, metric=metric or None,
                                  theta0=sprt[0] if sprt else None,
                                  theta1=sprt[1] if sprt else None, alpha=alpha, beta=beta)
        else:
            if not a.exists():
                raise InputError("no such scenario file or run directory", file=str(a))
            if b is not None and b.is_dir():
                raise InputError("a scenario is compared with a scenario (or with itself "
                                 "and --set-a/--set-b), not a run directory", file=str(b))
            if sprt is not None and games is not None:
                raise InputError("--games sets a fixed comparison; the SPRT plays up to "
                                 "--max-games", key="--games")
            try:
                plan = (SprtPlan(sprt[0], sprt[1], alpha=alpha, beta=beta,
                                 min_games=min_games, max_games=max_games, batch=batch)
                        if sprt else SprtPlan(None, None, min_games=min_games,
                                              max_games=max_games, batch=batch))
                result = run_compare(a, b, metric=metric or None, sets=list(sets or []),
                                     sets_a=list(sets_a or []), sets_b=list(sets_b or []),
                                     seed=seed, seed_b=seed_b, plan=plan, games=games,
                                     threads=threads, progress=on_progress)
            finally:
                bar.stop()
    except InputError as exc:
        raise _fail(exc) from None
    render_compare(console, result)
    raise typer.Exit(result.exit_code)


def _init(console: Console, scenario: Path, bar, on_progress, *, games, seed, sets, alpha,
          threads, metric, tolerance, out, force, quiet, misplaced) -> None:
    """``check --init``: measure, then write (or print) the gate file."""
    import os
    import shlex
    import sys

    from deepsim.atomic import atomic_write_text
    from deepsim.gate.check import init_expect

    try:
        if misplaced:
            raise InputError(f"{', '.join(misplaced)} judge(s) a block; --init writes one",
                             key=misplaced[0])
        if out is not None:
            if out.exists() and not force:
                raise InputError("exists; pass --force to replace it", file=str(out),
                                 key="--out")
            if out.exists() and out.is_dir():
                raise InputError("is a directory; --out names the gate file to write",
                                 file=str(out), key="--out")
            if not out.parent.is_dir():
                raise InputError("no such folder for the gate file", file=str(out.parent),
                                 key="--out")
            if out.resolve() == Path(scenario).resolve():
                raise InputError("would replace the scenario it extends", file=str(out),
                                 key="--out")
        try:
            res = init_expect(scenario, games=games, seed=seed, overrides=sets,
                              metrics=list(metric or []) or None, tolerance=tolerance,
                              alpha=alpha, threads=threads, progress=on_progress)
        finally:
            bar.stop()
        base = (os.path.relpath(Path(scenario).resolve(), out.resolve().parent)
                if out is not None else str(scenario))
        command = "deepsim " + " ".join(shlex.quote(a) for a in sys.argv[1:]) \
            if sys.argv[1:2] == ["check"] else f"deepsim check --init {scenario}"
        text = res.yaml(base, command)
        if out is not None:
            try:
                atomic_write_text(out, text)
            except OSError as exc:
                raise InputError(f"cannot write the gate file: {exc.strerror}",
                                 file=str(out)) from None
    except InputError as exc:
        raise _fail(exc) from None
    if out is None:
        typer.echo(text, nl=False)
        return
    if not quiet:
        console.print(f"Wrote {escape(str(out))}: {len(res.rows)} expectations measured on "
                      f"{res.games:,} games of seed {res.seed} (extends {escape(base)}). "
                      f"Check it: deepsim check {escape(str(out))}", highlight=False)
    else:
        typer.echo(str(out))


def register(app: typer.Typer) -> None:
    """Add ``check`` and ``compare`` to the ``deepsim`` app."""
    app.command("check")(check)
    app.command("compare")(compare)
