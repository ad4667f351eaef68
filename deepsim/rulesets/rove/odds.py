"""Exact Rove odds: ether dice draws, ether-check augments and Drain, the d8 damage die.

Numbers come from ``deepsim/rulesets/rove/rove.yaml`` with ``--set`` overrides. A generated
(wild) ether die is a d6 with one face per element (RO-X6); an ether check needs its own
die of the element among those spent (RO-R3: one die per augment), and a Drain returns an
element die for a Dim die, if any Dim is left. The damage die is a d8 of the six elements
and two Dim faces; the attacker's ether affinity for the face rolled is added (RO-D2),
then defence is subtracted (RO-D3) and Windscreen applies after the clamp (AMB-R3).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import icepool

from deepsim.errors import InputError
from deepsim.odds.common import (
    at_least,
    exact_method,
    load_data,
    mean,
    need,
    parse_counts,
    parse_signed,
    probs,
)
from deepsim.odds.table import Column, Result
from deepsim.params import nearest
from deepsim.rulesets.base import OddsBook, OddsOption
from deepsim.rulesets.rove.schema import RoveData

DATA_FILE = Path(__file__).with_name("rove.yaml")

QUESTIONS = {
    "ether": "among n ether dice, the chance of exactly / at least k of an element",
    "check": "chance that n ether dice meet a card's ether checks (and Drains), per n",
    "damage": "damage of one attack: the d8 damage die with an ether affinity, defence, "
              "Windscreen, Aura/Miasma",
}


def data(sets: list[str] | None = None) -> RoveData:
    """The Rove dice data after ``--set`` overrides."""
    return load_data(DATA_FILE, RoveData, sets)


def ether_die(d: RoveData, axes: tuple[str, ...]) -> icepool.Die:
    """One generated ether die as counts on ``axes`` (elements)."""
    return icepool.Die([icepool.Vector(tuple(int(f == a) for a in axes)) for f in d.ether_die])


def pool_die(d: RoveData, n: int, known: dict[str, int], axes: tuple[str, ...]
             ) -> icepool.Die:
    """Element counts of ``n`` random ether dice plus the ``known`` dice already held."""
    base = icepool.Vector(tuple(known.get(a, 0) for a in axes))
    if n <= 0:
        return icepool.Die([base])
    return (n @ ether_die(d, axes)).map(lambda v: v + base)


def ether(d: RoveData, *, n: int, element: str, known: dict[str, int]) -> Result:
    """Count of one element among n random ether dice (plus known dice)."""
    n = need(n, key="--dice", lo=0, hi=40)
    dist = probs(pool_die(d, n, known, (element,)).map(lambda v: v[0]))
    top = n + known.get(element, 0)
    rows = [{"k": k, "eq": dist.get(k, 0), "ge": at_least(dist, k)} for k in range(top + 1)]
    cols = [Column("k", "k", "int"), Column("eq", f"P(exactly k {element})"),
            Column("ge", f"P(at least k {element})")]
    held = ", ".join(f"{e}={c}" for e, c in known.items() if c) or "none"
    return Result(ruleset="rove", question="ether",
                  title=f"Rove: {element} among {n} generated ether dice"
                        + (f" (+ held {held})" if known else ""),
                  columns=cols, rows=rows, footer=[{"k": "mean", "eq": mean(dist)}],
                  method=exact_method(),
                  inputs={"random dice": n, "element": element, "held dice": held},
                  notes=[("A wild generate rolls an ether die (RO-X6): each element on "
                          f"{d.ether_die.count(element)} of its {len(d.ether_die)} faces.")],
                  plot_x="k", plot_y=["eq", "ge"])


def check(d: RoveData, *, max_n: int, needs: dict[str, int], drains: dict[str, int],
          known: dict[str, int]) -> Result:
    """Per pool size n: chance to meet every ether check (own die each) and every Drain."""
    max_n = need(max_n, key="--dice", lo=1, hi=40)
    if not needs and not drains:
        raise InputError("give the ether checks, e.g. --need fire=1,morph=1 (and/or "
                         "--drain water=1)", key="--need")
    axes = tuple(sorted(set(needs) | set(drains), key=d.elements.index))
    rows = []
    total_drain = sum(drains.values())
    for n in range(1, max_n + 1):
        joint = probs(pool_die(d, n, known, axes))
        row = {"n": n}
        p_all = p_checks = p_drain = Fraction(0)
        per = {a: Fraction(0) for a in needs}
        for v, p in joint.items():
            cnt = dict(zip(axes, v))
            ok_checks = all(cnt[a] >= needs[a] for a in needs)
            ok_drain = all(cnt[a] >= drains[a] for a in drains)
            ok_all = all(cnt[a] >= needs.get(a, 0) + drains.get(a, 0) for a in axes)
            p_checks += p * ok_checks
            p_drain += p * ok_drain
            p_all += p * ok_all
            for a, c in needs.items():
                per[a] += p * (cnt[a] >= c)
        for a in needs:
            row[f"need_{a}"] = per[a]
        if needs:
            row["checks"] = p_checks
        if drains:
            row["drain"] = p_drain
            row["all"] = p_all
        rows.append(row)
    cols = [Column("n", "ether dice", "int")]
    cols += [Column(f"need_{a}", f"P(>= {c} {a})") for a, c in needs.items()]
    if needs:
        cols.append(Column("checks", "P(every check)"))
    if drains:
        cols += [Column("drain", "P(can Drain " + ", ".join(f"{c} {a}" for a, c in
                                                            drains.items()) + ")"),
                 Column("all", "P(checks and Drain)")]
    gained = min(total_drain, d.dim_supply)
    notes = [("Each augment's ether check needs its own die (RO-R3); a die drained is "
              "another die again, so checks and Drains of one element add up."),
             "The n dice are generated at random (RO-X6); you choose which of them to spend."]
    if drains:
        notes.append(f"Drain returns each drained element die and takes a Dim die into the "
                     f"personal pool while the {d.dim_supply} Dim dice last: this Drain "
                     f"gives {gained} Dim (pool size unchanged"
                     + ("" if gained == total_drain else f", minus {total_drain - gained}")
                     + ").")
    held = ", ".join(f"{e}={c}" for e, c in known.items() if c) or "none"
    return Result(ruleset="rove", question="check",
                  title="Rove: ether checks " + (", ".join(f"{c} {a}" for a, c in needs.items())
                                                 or "-")
                        + (" + Drain " + ", ".join(f"{c} {a}" for a, c in drains.items())
                           if drains else ""),
                  columns=cols, rows=rows, method=exact_method(),
                  inputs={"checks": needs, "drains": drains, "held dice": held},
                  notes=notes, plot_x="n",
                  plot_y=[c.key for c in cols if c.key in ("checks", "all")] or
                  [cols[-1].key])


def damage(d: RoveData, *, base: int, affinity: dict[str, int], profile: str | None,
           defence: int, ignore_defence: bool, windscreen: bool, field: str | None
           ) -> Result:
    """One attack's damage to one target (RO-D1..D4)."""
    placeholders: list[str] = []
    aff: dict[str, int] = {}
    label = "custom"
    if profile:
        if profile not in d.affinity_profiles:
            raise InputError(f"unknown profile '{profile}'"
                             f"{nearest(profile, d.affinity_profiles)}; known: "
                             f"{', '.join(d.affinity_profiles)}", key="--profile")
        spec = d.affinity_profiles[profile]
        aff.update(spec.values)
        label = profile
        if spec.placeholder:
            placeholders.append(f"rove affinity_profiles.{profile} (invented: class boards "
                                f"and stat blocks are not in the rulebook)")
    aff.update(affinity)
    mod = 0
    if field:
        f = field.strip().lower()
        if f == "aura":
            mod = d.damage.aura_adversary
        elif f == "miasma":
            mod = d.damage.miasma_adversary
        else:
            try:
                mod = int(f)
            except ValueError:
                raise InputError("give aura, miasma or a number (a Rover's class value)",
                                 key="--field") from None
    need(defence, key="--defence", lo=0, hi=50)
    die = icepool.Die(list(d.damage_die))

    def result(face):
        v = base + mod + (aff.get(face, 0) if face != "dim" else 0)
        if not ignore_defence:
            v -= defence
        if d.damage.clamp_at_zero:
            v = max(0, v)
        if windscreen and v >= 1:
            v = max(0, v - d.damage.windscreen)
        return v
    dist = probs(die.map(result))
    lo, hi = min(dist), max(dist)
    rows = [{"k": k, "eq": dist.get(k, 0), "ge": at_least(dist, k)}
            for k in range(min(lo, 0), hi + 1)]
    cols = [Column("k", "damage", "int"), Column("eq", "P(damage = k)"),
            Column("ge", "P(damage >= k)")]
    aff_text = ", ".join(f"{e}{v:+d}" for e, v in aff.items() if v) or "all +0"
    notes = [f"d{len(d.damage_die)} damage die: {', '.join(d.damage_die)}; Dim = +0 (RO-D2).",
             "Damage is rolled per target (AMB-R2); at least 0 after defence (AMB-R3)"
             + (f"; Windscreen then takes {d.damage.windscreen} off (RO-TI4)." if windscreen
                else ".")]
    return Result(ruleset="rove", question="damage",
                  title=f"Rove: damage {base}"
                        + (f" {mod:+d} ({field})" if mod else "")
                        + f", affinity {aff_text}, defence "
                        + ("ignored" if ignore_defence else str(defence)),
                  columns=cols, rows=rows, footer=[{"k": "mean", "eq": mean(dist)}],
                  method=exact_method(),
                  inputs={"base damage": base, "affinity": f"{label}: {aff_text}",
                          "field": field or "none", "defence": defence,
                          "ignore defence": ignore_defence, "windscreen": windscreen},
                  placeholders=placeholders, notes=notes, plot_x="k", plot_y=["eq"])


def answer(question: str, **o) -> Result:
    """Answer one Rove question (see :data:`QUESTIONS`)."""
    d = data(o.get("sets"))
    known = parse_counts(o.get("pool"), d.elements, key="--pool")
    if question == "ether":
        el = (o.get("element") or d.elements[2]).strip().lower()
        if el not in d.elements:
            raise InputError(f"unknown element '{el}'{nearest(el, d.elements)}; elements: "
                             f"{', '.join(d.elements)}", key="--element")
        res = ether(d, n=o.get("dice") if o.get("dice") is not None else 3, element=el,
                    known=known)
    elif question == "check":
        res = check(d, max_n=o.get("dice") if o.get("dice") is not None else 6,
                    needs=parse_counts(o.get("need"), d.elements, key="--need",
                                       allow_zero=False),
                    drains=parse_counts(o.get("drain"), d.elements, key="--drain",
                                        allow_zero=False), known=known)
    elif question == "damage":
        res = damage(d, base=o.get("base") if o.get("base") is not None else 2,
                     affinity=parse_signed(o.get("affinity"), d.elements, key="--affinity"),
                     profile=o.get("profile"), defence=o.get("defence") or 0,
                     ignore_defence=bool(o.get("ignore_defence")),
                     windscreen=bool(o.get("windscreen")), field=o.get("field"))
    else:
        raise InputError(f"unknown Rove question '{question}'{nearest(question, QUESTIONS)}; "
                         f"known: {', '.join(QUESTIONS)}", key="QUESTION")
    if o.get("sets"):
        res.inputs["overrides"] = list(o["sets"])
    return res


#: the options of ``deepsim odds rove QUESTION`` (each passed to :func:`answer` by name)
OPTIONS = (
    OddsOption("dice", ("--dice", "-n"), "int",
               help="ether: random ether dice; check: rows 1..N dice."),
    OddsOption("element", ("--element", "-e"), help="ether: element."),
    OddsOption("pool", ("--pool",),
               help="Dice already held, e.g. fire=1 (added to the random ones)."),
    OddsOption("need", ("--need",),
               help="check: ether checks, one die each, e.g. fire=1,morph=1."),
    OddsOption("drain", ("--drain",), help="check: element dice to Drain, e.g. water=1."),
    OddsOption("base", ("--base",), "int", help="damage: printed damage."),
    OddsOption("affinity", ("--affinity",), help="damage: ether affinity, e.g. fire=2,water=-1."),
    OddsOption("profile", ("--profile",), help="damage: affinity profile from the data file."),
    OddsOption("defence", ("--defence", "--defense"), "int", 0, help="damage: defence."),
    OddsOption("ignore_defence", ("--ignore-defence", "--ignore-defense"), "flag", False),
    OddsOption("windscreen", ("--windscreen",), "flag", False, help="Target on a Windscreen."),
    OddsOption("field", ("--field",),
               help="Attacker on an Aura/Miasma: aura, miasma or a number."),
)

#: ``deepsim odds rove`` (deepsim.rulesets.base.OddsBook)
BOOK = OddsBook(QUESTIONS, OPTIONS, answer,
                "Rove (ether dice, ether checks and Drain, the d8 damage die with affinity).")
