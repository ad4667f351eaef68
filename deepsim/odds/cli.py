"""``deepsim odds RULESET QUESTION [options]``: one sub-command per ruleset (typer)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from deepsim.errors import InputError
from deepsim.odds import answer
from deepsim.rulesets.atlantis import odds as _atl
from deepsim.rulesets.deepfall import odds as _df
from deepsim.rulesets.rivals import odds as _riv
from deepsim.rulesets.rove import odds as _rove
from deepsim.odds.table import FORMATS, render_rich, to_csv, to_json, to_markdown, write_plot

EXIT_INPUT = 2


def _questions(mod_questions: dict) -> str:
    return "; ".join(f"{k}: {v}" for k, v in mod_questions.items())


odds_app = typer.Typer(
    name="odds",
    help="Exact dice odds of a ruleset (icepool): deepsim odds RULESET QUESTION --option ...",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

Fmt = Annotated[str, typer.Option("--format", "-f", help="table | csv | json | md.")]
Plot = Annotated[Path | None, typer.Option("--plot", help="Also write a bar chart here (.png, .svg or .pdf).")]
Sets = Annotated[list[str] | None, typer.Option(
    "--set", help="Data override path=value (as for deepsim run); repeatable.")]


def _emit(res_fn, fmt: str, plot: Path | None) -> None:
    try:
        if fmt not in FORMATS:
            raise InputError(f"unknown format '{fmt}'; formats: {', '.join(FORMATS)}",
                             key="--format")
        res = res_fn()
        if plot is not None:
            write_plot(res, plot)
    except InputError as exc:
        Console(stderr=True).print(f"[bold red]error:[/bold red] [red]{escape(str(exc))}[/red]",
                                   highlight=False)
        raise typer.Exit(EXIT_INPUT) from None
    if fmt == "table":
        render_rich(res, Console())
    else:
        text = {"csv": to_csv, "json": to_json, "md": to_markdown}[fmt](res)
        sys.stdout.write(text)
        sys.stdout.flush()
    if plot is not None:
        Console(stderr=True).print(f"plot written to {escape(str(plot))}", highlight=False)


@odds_app.command("deepfall")
def deepfall_cmd(
    question: Annotated[str, typer.Argument(help=_questions(_df.QUESTIONS))],
    dice: Annotated[str | None, typer.Option(
        "--dice", "-d", help="Bag: TYPE=N,... (recruit, warrior, scholar, priest, rogue, "
                             "champion, relic). Default: the --lineage's starting bag.")] = None,
    hand: Annotated[int | None, typer.Option(
        "--hand", help="Hand size before Lineage/Calling modifiers (default: "
                       "turn.hand_size).")] = None,
    lineage: Annotated[str | None, typer.Option(
        "--lineage", "-l", help="Apply this Lineage's effects (and its bag if no --dice).")]
    = None,
    calling: Annotated[str | None, typer.Option(
        "--calling", "-c", help="Apply this Calling's effects.")] = None,
    room: Annotated[str | None, typer.Option("--room", help="claim: the room theme.")] = None,
    steel: Annotated[int | None, typer.Option("--steel", help="claim: threat to meet.")]
    = None,
    cunning: Annotated[int | None, typer.Option("--cunning", help="claim: lock to meet.")]
    = None,
    trinity: Annotated[bool, typer.Option(
        "--trinity", help="claim with --steel/--cunning: the claim also needs the trinity.")]
    = False,
    press: Annotated[int, typer.Option("--press", help="symbols: Press Ons taken.")] = 0,
    max_press: Annotated[int, typer.Option(
        "--max-press", help="claim/setback: rows for 0..N Press Ons (while the bag lasts).")]
    = 3,
    sets: Sets = None, fmt: Fmt = "table", plot: Plot = None,
) -> None:
    """DEEPFALL (§5 dice, §6A draw, Press On and Dread, §7.1 claims)."""
    _emit(lambda: answer("deepfall", question, dice=dice, hand=hand, lineage=lineage,
                         calling=calling, room=room, steel=steel, cunning=cunning,
                         trinity=trinity, press=press, max_press=max_press,
                         sets=list(sets or [])), fmt, plot)


@odds_app.command("atlantis")
def atlantis_cmd(
    question: Annotated[str, typer.Argument(help=_questions(_atl.QUESTIONS))],
    ad: Annotated[int | None, typer.Option("--ad", help="Attack dice.")] = None,
    attacker: Annotated[str | None, typer.Option(
        "--attacker", help="Attacking unit, a key of the ruleset's units (its AD, side, "
                           "poison, hidden_ad), e.g. sea_knights.")]
    = None,
    dr: Annotated[int | None, typer.Option("--dr", help="destroy: target's DR.")] = None,
    target: Annotated[str | None, typer.Option(
        "--target", help="destroy: target unit, a ruleset key (its DR), e.g. sea_witch.")] = None,
    attacks: Annotated[int, typer.Option("--attacks", "-k", help="destroy: rows 1..k attacks.")]
    = 3,
    hit_faces: Annotated[str | None, typer.Option(
        "--hit-faces", help="An extra hit rule beside combat.hit_faces, e.g. 4,5,6 "
                            "(AMB-T1).")] = None,
    paralyzed: Annotated[bool, typer.Option(
        "--paralyzed", help="Target paralyzed: + combat.paralyzed_bonus AD.")]
    = False,
    hidden_attacker: Annotated[bool, typer.Option(
        "--hidden-attacker", help="Attacker hidden: + combat.hidden_bonus (+ its hidden_ad) "
                                  "AD on its first attack.")] = False,
    hidden_target: Annotated[bool, typer.Option(
        "--hidden-target", help="Target hidden: each attack needs a search roll "
                                "(combat.search_min).")]
    = False,
    temple: Annotated[bool, typer.Option(
        "--temple", help="Attacker in its Sea Temple / Spawning Bed: + its bonus_ad "
                         "(AMB-T9 combat.temple_bonus_scope).")] = False,
    upwelling: Annotated[bool, typer.Option(
        "--upwelling", help="Into/out of Upwelling or Whirl Pool: - attack_penalty AD "
                            "(floor combat.penalty_floor, AMB-T24).")] = False,
    poison: Annotated[bool, typer.Option("--poison", help="Any damage destroys.")] = False,
    unit: Annotated[str | None, typer.Option("--unit", help="hide: the unit (its HF).")]
    = None,
    hf: Annotated[int | None, typer.Option("--hf", help="hide: Hide Factor.")] = None,
    terrain: Annotated[str | None, typer.Option(
        "--terrain", help="hide: one terrain (or alias) only.")]
    = None,
    sets: Sets = None, fmt: Fmt = "table", plot: Plot = None,
) -> None:
    """Atlantis: Sea King vs Sea Witch (attacks, kills, hiding, special rolls).

    Reads deepsim/rulesets/atlantis/ruleset.yaml (with --set, as deepsim run).
    """
    _emit(lambda: answer("atlantis", question, ad=ad, attacker=attacker, dr=dr, target=target,
                         attacks=attacks, hit_faces=hit_faces, paralyzed=paralyzed,
                         hidden_attacker=hidden_attacker, hidden_target=hidden_target,
                         temple=temple, upwelling=upwelling, poison=poison, unit=unit, hf=hf,
                         terrain=terrain, sets=list(sets or [])), fmt, plot)


@odds_app.command("rivals")
def rivals_cmd(
    question: Annotated[str, typer.Argument(help=_questions(_riv.QUESTIONS))],
    attack: Annotated[str | None, typer.Option(
        "--attack", "-a", help="Attack pool: black,red,red or BRR or black=1,red=2.")] = None,
    defence: Annotated[str | None, typer.Option(
        "--defence", "--defense", "-d", help="Defence pool, as --attack.")] = None,
    chain: Annotated[bool | None, typer.Option(
        "--chain/--no-chain", help="Extra dice explode again (default: the data file's "
                                   "explode.recursive).")] = None,
    cap: Annotated[int | None, typer.Option(
        "--cap", help="Extra dice per roll at most (default: explode.cap).")] = None,
    mods: Annotated[list[str] | None, typer.Option(
        "--mod", help="Situation from the data file: coral, swim, charge, rock, cave; "
                      "repeatable.")] = None,
    upgrade_attack: Annotated[int, typer.Option("--upgrade-attack")] = 0,
    degrade_attack: Annotated[int, typer.Option("--degrade-attack")] = 0,
    upgrade_defence: Annotated[int, typer.Option("--upgrade-defence", "--upgrade-defense")]
    = 0,
    degrade_defence: Annotated[int, typer.Option("--degrade-defence", "--degrade-defense")]
    = 0,
    auto_shields: Annotated[int, typer.Option(
        "--auto-shields", help="Automatic defender shields.")] = 0,
    sets: Sets = None, fmt: Fmt = "table", plot: Plot = None,
) -> None:
    """Rivals: Masters of the Deep (PLACEHOLDER face lists until the printed ones are entered)."""
    _emit(lambda: answer("rivals", question, attack=attack, defence=defence, chain=chain,
                         cap=cap, mods=list(mods or []), upgrade_attack=upgrade_attack,
                         degrade_attack=degrade_attack, upgrade_defence=upgrade_defence,
                         degrade_defence=degrade_defence, auto_shields=auto_shields,
                         sets=list(sets or [])), fmt, plot)


@odds_app.command("rove")
def rove_cmd(
    question: Annotated[str, typer.Argument(help=_questions(_rove.QUESTIONS))],
    dice: Annotated[int | None, typer.Option(
        "--dice", "-n", help="ether: random ether dice; check: rows 1..N dice.")] = None,
    element: Annotated[str | None, typer.Option("--element", "-e", help="ether: element.")]
    = None,
    pool: Annotated[str | None, typer.Option(
        "--pool", help="Dice already held, e.g. fire=1 (added to the random ones).")] = None,
    need_: Annotated[str | None, typer.Option(
        "--need", help="check: ether checks, one die each, e.g. fire=1,morph=1.")] = None,
    drain: Annotated[str | None, typer.Option(
        "--drain", help="check: element dice to Drain, e.g. water=1.")] = None,
    base: Annotated[int | None, typer.Option("--base", help="damage: printed damage.")]
    = None,
    affinity: Annotated[str | None, typer.Option(
        "--affinity", help="damage: ether affinity, e.g. fire=2,water=-1.")] = None,
    profile: Annotated[str | None, typer.Option(
        "--profile", help="damage: affinity profile from the data file.")] = None,
    defence: Annotated[int, typer.Option("--defence", "--defense", help="damage: defence.")]
    = 0,
    ignore_defence: Annotated[bool, typer.Option("--ignore-defence", "--ignore-defense")]
    = False,
    windscreen: Annotated[bool, typer.Option("--windscreen", help="Target on a Windscreen.")]
    = False,
    field: Annotated[str | None, typer.Option(
        "--field", help="Attacker on an Aura/Miasma: aura, miasma or a number.")] = None,
    sets: Sets = None, fmt: Fmt = "table", plot: Plot = None,
) -> None:
    """Rove (ether dice, ether checks and Drain, the d8 damage die with affinity)."""
    _emit(lambda: answer("rove", question, dice=dice, element=element, pool=pool, need=need_,
                         drain=drain, base=base, affinity=affinity, profile=profile,
                         defence=defence, ignore_defence=ignore_defence,
                         windscreen=windscreen, field=field, sets=list(sets or [])), fmt, plot)
