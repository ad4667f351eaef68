"""Exact DEEPFALL dice odds (rulebook §5 dice, §6A.1-3 draw, Press On and Dread, §7.1 claims).

Everything is read from the DEEPFALL ruleset data (``deepsim/rulesets/deepfall/ruleset.yaml``
through :func:`deepsim.rulesets.deepfall.data.load_data`), so a ``--set`` override changes these
answers exactly as it changes the simulation: die faces (§5), hand size and Setback rules
(``turn:``), rooms' threat, lock and trinity (§7.2) and each Lineage's and Calling's effects
(§4: Wisp/Prospector/Golem-born hand size, Sylphid Cunning and extra loss, Dvergar threat
and Faith, Revenant Dread, Golem-born immunity, Hierophant cancel and heal, Lorekeeper solo
Vaults).

The draw follows the kernel (``kernel.draw_hand``): a hand is drawn from the bag without
replacement and each die rolled; a Press On draws another hand from what is left of the bag
(dice drawn this turn stay out until the end of the turn), so k Press Ons draw
min(hand x (k+1), bag) dice in all: each die type contributes j dice with weight
C(count, j), and icepool sums the dice exactly (:func:`hand_dice`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import icepool

from deepsim.errors import InputError
from deepsim.odds.common import at_least, exact_method, mean, need, parse_counts, probs
from deepsim.odds.table import Column, Result
from deepsim.params import nearest
from deepsim.rulesets.base import OddsBook, OddsOption
from deepsim.rulesets.deepfall.data import load_data
from deepsim.rulesets.deepfall.schema import (
    CALLINGS,
    DICE,
    EFFECTS,
    FLAG_EFFECTS,
    LINEAGES,
    MULTIPLIER_EFFECTS,
    ROOMS,
    SYMBOLS,
    DeepfallData,
    display_name,
)

QUESTIONS = {
    "symbols": "distribution of each symbol rolled by a hand (and its Press Ons)",
    "claim": "chance to meet a room's threat and lock, with and without the trinity, "
             "per number of Press Ons",
    "setback": "chance of a Setback after Faith cancelling, per number of Press Ons",
}

STEEL, CUNNING, FAITH, GREED, METTLE, DREAD = range(6)


@dataclass
class Setup:
    """A resolved question: data, bag, hand size and the company's effects."""

    data: DeepfallData
    bag: dict[str, int]
    bag_source: str
    base_hand: int
    hand: int
    eff: dict[str, float]
    lineage: str | None
    calling: str | None
    overrides: list[str]
    placeholders: list[str] = field(default_factory=list)

    @property
    def bag_size(self) -> int:
        return sum(self.bag.values())

    def drawn(self, presses: int) -> int:
        """Dice drawn in all after ``presses`` Press Ons (the bag may run out)."""
        return min(self.hand * (presses + 1), self.bag_size)

    def max_presses(self) -> int:
        """Press Ons possible before the bag is empty (the kernel stops at an empty bag)."""
        return max(0, math.ceil(self.bag_size / self.hand) - 1)


def company_effects(d: DeepfallData, lineage: str | None, calling: str | None
                    ) -> dict[str, float]:
    """§4 effects of a company: the two halves add, multipliers multiply, flags OR."""
    out = {e: (1.0 if e in MULTIPLIER_EFFECTS else 0.0) for e in EFFECTS}
    for half in (d.lineages.get(lineage) if lineage else None,
                 d.callings.get(calling) if calling else None):
        if half is None:
            continue
        for e in EFFECTS:
            v = float(getattr(half, e))
            if e in MULTIPLIER_EFFECTS:
                out[e] *= v
            elif e in FLAG_EFFECTS:
                out[e] = 1.0 if (out[e] > 0.5 or v > 0.5) else 0.0
            else:
                out[e] += v
    return out


def _name(value: str | None, names, key: str) -> str | None:
    if value is None:
        return None
    v = value.strip().lower().replace("-", "_")
    if v not in names:
        raise InputError(f"unknown name '{value}'{nearest(v, names)}; known: "
                         f"{', '.join(names)}", key=key)
    return v


def setup(*, dice: str | None = None, hand: int | None = None, lineage: str | None = None,
          calling: str | None = None, sets: list[str] | None = None) -> Setup:
    """Read the data with overrides and resolve bag, hand size and company effects."""
    d = load_data(list(sets or []))
    lineage = _name(lineage, LINEAGES, "--lineage")
    calling = _name(calling, CALLINGS, "--calling")
    placeholders: list[str] = []
    if dice:
        bag = parse_counts(dice, DICE, key="--dice")
        source = "--dice"
    elif lineage:
        bag = {k: v for k, v in d.lineages[lineage].start_bag.items() if v}
        source = f"{lineage} start bag"
        if d.lineages[lineage].start_bag_placeholder:
            placeholders.append(f"lineages.{lineage}.start_bag (A3: Lineage cards not "
                                f"printed)")
    else:
        raise InputError("give the bag with --dice TYPE=N,... (types: "
                         f"{', '.join(DICE)}) or a --lineage to use its starting bag",
                         key="--dice")
    bag = {k: v for k, v in bag.items() if v > 0}
    if not bag:
        raise InputError("the bag is empty", key="--dice")
    base = d.turn.hand_size if hand is None else need(hand, key="--hand", lo=1, hi=40)
    eff = company_effects(d, lineage, calling)
    h = max(1, int(base + eff["hand_size"]))            # kernel: h = max(1, hand + mods)
    return Setup(data=d, bag=bag, bag_source=source, base_hand=base, hand=h, eff=eff,
                 lineage=lineage, calling=calling, overrides=list(sets or []),
                 placeholders=placeholders)


# ---------------------------------------------------------------------------------------
# exact distributions
# ---------------------------------------------------------------------------------------

def die_of(d: DeepfallData, die: str, axes: tuple[int, ...]) -> icepool.Die:
    """One die type's faces (§5) as a die over the symbol counts on ``axes``."""
    weights: dict[icepool.Vector, int] = {}
    for sym, count in d.dice[die].faces.items():
        if count <= 0:
            continue
        s = SYMBOLS.index(sym)
        vec = icepool.Vector(tuple(1 if a == s else 0 for a in axes))
        weights[vec] = weights.get(vec, 0) + count
    return icepool.Die(weights)


def hand_dice(d: DeepfallData, bag: dict[str, int], ns,
              axes: tuple[int, ...] = tuple(range(6))) -> dict[int, icepool.Die]:
    """Symbols (counts on ``axes``) of n dice drawn without replacement and rolled, per n.

    Drawing n dice from the bag without replacement takes j_t dice of each type t with
    weight prod C(c_t, j_t) (sum j_t = n). Each type is one icepool die over
    (j_t, symbols of j_t dice of that type) weighted by C(c_t, j_t); icepool sums the
    types exactly and the outcomes with sum j_t = n are the n-dice draw. One pass serves
    every n of ``ns``.
    """
    total = sum(bag.values())
    ns = sorted({min(int(n), total) for n in ns})
    top = ns[-1]
    zero = (0,) * len(axes)
    acc = icepool.Die([icepool.Vector((0,) + zero)])
    for t, c in bag.items():
        if c <= 0:
            continue
        one = die_of(d, t, axes)
        weights: dict[icepool.Vector, int] = {}
        roll = icepool.Die([icepool.Vector(zero)])
        for j in range(min(c, top) + 1):
            if j:
                roll = roll + one
            k = math.comb(c, j)
            for v, q in roll.items():
                key = icepool.Vector((j,) + tuple(v))
                weights[key] = weights.get(key, 0) + k * q
        acc = acc + icepool.Die(weights)
        acc = icepool.Die({v: q for v, q in acc.items() if v[0] <= top})
    out = {}
    for n in ns:
        out[n] = icepool.Die({icepool.Vector(tuple(v[1:])): q
                              for v, q in acc.items() if v[0] == n})
    return out


def hand_die(d: DeepfallData, bag: dict[str, int], n: int,
             axes: tuple[int, ...] = tuple(range(6))) -> icepool.Die:
    """Symbols (counts on ``axes``) of ``n`` dice drawn without replacement and rolled."""
    n = min(n, sum(bag.values()))
    return hand_dice(d, bag, [n], axes)[n]


def resolve_dread(faith: int, dread: int, eff: dict[str, float]) -> tuple[int, int]:
    """§6A.3 as the kernel resolves it: (Faith left, uncanceled Dread).

    §4 Faith penalty (Dvergar, Gnoll) first, then Faith cancels Dread one for one unless
    the company cannot (Revenant), then Hierophant cancels extra.
    """
    pen = int(eff["faith_penalty"])
    if pen > 0 and faith > 0:
        faith -= min(faith, pen)
    if eff["no_faith_cancel"] <= 0.5:
        c = min(dread, faith)
        faith -= c
        dread -= c
    dread -= min(dread, int(eff["dread_cancel"]))
    return faith, dread


# ---------------------------------------------------------------------------------------
# questions
# ---------------------------------------------------------------------------------------

def _bag_text(bag: dict[str, int]) -> str:
    return ", ".join(f"{t} x{c}" for t, c in bag.items())


def _company(s: Setup) -> str:
    parts = [display_name(p) for p in (s.lineage, s.calling) if p]
    return " ".join(parts) if parts else "no company effects"


def _inputs(s: Setup, **more) -> dict:
    mods = s.hand - s.base_hand
    out = {"bag": f"{_bag_text(s.bag)} ({s.bag_source}, {s.bag_size} dice)",
           "hand": (f"{s.hand} (turn.hand_size {s.base_hand} {mods:+d} {_company(s)})"
                    if mods else str(s.hand)),
           "company": _company(s)}
    out.update(more)
    if s.overrides:
        out["overrides"] = list(s.overrides)
    return out


def _common_notes(s: Setup) -> list[str]:
    return [("Dice are drawn from the bag without replacement (§6A.1, as kernel.draw_hand); "
             "a Press On draws the next hand from the dice left (§6A.2)."),
            ("Rolled symbols only: no room production (A24), assault progress (A25) or "
             "unspent symbols carried over (A23).")]


def symbols(s: Setup, presses: int = 0) -> Result:
    """Distribution of each symbol over the dice drawn after ``presses`` Press Ons."""
    presses = need(presses, key="--press", lo=0, hi=s.max_presses())
    n = s.drawn(presses)
    marg = [probs(hand_die(s.data, s.bag, n, (k,)).map(lambda v: v[0]))
            for k in range(len(SYMBOLS))]
    cols = [Column("k", "count", "int")] + [Column(sym, f"P({sym} = k)") for sym in SYMBOLS]
    rows = [{"k": k, **{sym: marg[i].get(k, 0) for i, sym in enumerate(SYMBOLS)}}
            for k in range(n + 1)]
    rows.append({"k": ">=1", **{sym: at_least(marg[i], 1) for i, sym in enumerate(SYMBOLS)}})
    means = {sym: mean(marg[i]) for i, sym in enumerate(SYMBOLS)}
    # after §6A.3 and the §4 effects that change what the roll gives
    fd = probs(hand_die(s.data, s.bag, n, (FAITH, DREAD)))
    eff = s.eff
    e_faith = e_dread = 0
    for v, p in fd.items():
        f, dr = resolve_dread(v[0], v[1], eff)
        e_faith += p * f
        e_dread += p * dr
    spend = dict(means)
    spend["faith"] = e_faith
    spend["dread"] = e_dread
    if eff["dread_to_mettle"] > 0.5:                       # §4 Revenant (A27)
        spend["mettle"] = means["mettle"] + e_dread
    spend["cunning"] = means["cunning"] + int(eff["cunning_bonus"])   # §4 Sylphid (A26)
    footer = [{"k": "mean rolled", **means},
              {"k": "mean to spend", **spend}]
    notes = [*_common_notes(s),
             ("'mean to spend': after §6A.3 (Faith penalty, Faith cancels Dread, Hierophant "
              "cancel; 'dread' = uncanceled Dread), plus Sylphid's +Cunning and Revenant's "
              "Dread-to-Mettle when the company has them."),
             "The '>=1' row is P(at least one) of each symbol."]
    return Result(
        ruleset="deepfall", question="symbols",
        title=f"DEEPFALL symbols: {n} dice drawn (hand {s.hand}, {presses} Press On"
              f"{'s' if presses != 1 else ''}) from {_bag_text(s.bag)}",
        columns=cols, rows=rows, footer=footer, method=exact_method(),
        inputs=_inputs(s, press_ons=presses, dice_drawn=n), placeholders=s.placeholders,
        notes=notes, plot_x="k", plot_y=list(SYMBOLS))


def _room_need(s: Setup, room: str | None, steel: int | None, cunning: int | None,
               trinity: bool) -> tuple[str, int, int, bool]:
    d = s.data
    if room:
        r = _name(room, ROOMS, "--room")
        spec = d.rooms[r]
        threat, lock, tri = spec.threat, spec.lock, spec.trinity
        label = f"{display_name(r)} (threat {threat}, lock {lock}{', trinity' if tri else ''})"
        if steel is not None or cunning is not None:
            raise InputError("give either --room or --steel/--cunning, not both", key="--room")
    else:
        if steel is None and cunning is None:
            raise InputError("give a --room (" + ", ".join(ROOMS) + ") or --steel N and "
                             "--cunning N", key="--room")
        threat, lock, tri = steel or 0, cunning or 0, trinity
        label = f"threat {threat}, lock {lock}{', trinity' if tri else ''}"
    return label, threat, lock, tri


def claim(s: Setup, *, room: str | None = None, steel: int | None = None,
          cunning: int | None = None, trinity: bool = False, max_press: int = 3) -> Result:
    """§7.1 chance to meet threat and lock (and the Vault's trinity), per Press Ons."""
    label, threat, lock, tri = _room_need(s, room, steel, cunning, trinity)
    eff = s.eff
    need_s = max(0, threat - int(eff["threat_ignore"]))     # §4 Dvergar
    need_c = lock
    bonus_c = int(eff["cunning_bonus"])                      # §4 Sylphid (after §6A.3)
    bonus_trin = bonus_c if s.data.claims.trinity_counts_bonus else 0   # A33
    solo = eff["solo_vault"] > 0.5                            # §4 Lorekeeper
    rows = []
    kmax = min(need(max_press, key="--max-press", lo=0, hi=50), s.max_presses())
    dice = hand_dice(s.data, s.bag, [s.drawn(k) for k in range(kmax + 1)],
                     (STEEL, CUNNING, FAITH))
    for k in range(kmax + 1):
        n = s.drawn(k)
        joint = probs(dice[n])
        p_s = p_c = p_sc = p_t = p_sct = 0
        for v, p in joint.items():
            ok_s = v[0] >= need_s
            ok_c = v[1] + bonus_c >= need_c
            ok_t = v[0] > 0 and v[1] + bonus_trin > 0 and v[2] > 0
            p_s += p * ok_s
            p_c += p * ok_c
            p_sc += p * (ok_s and ok_c)
            p_t += p * ok_t
            p_sct += p * (ok_s and ok_c and ok_t)
        rows.append({"press": k, "dice": n, "steel": p_s, "cunning": p_c, "both": p_sc,
                     "trinity": p_t, "both_trinity": p_sct,
                     "claim": p_sct if (tri and not solo) else p_sc})
    cols = [Column("press", "Press Ons", "int"), Column("dice", "dice drawn", "int"),
            Column("steel", f"P(Steel >= {need_s})"),
            Column("cunning", f"P(Cunning >= {need_c})"),
            Column("both", "P(threat & lock)"), Column("trinity", "P(trinity)"),
            Column("both_trinity", "P(threat & lock & trinity)"),
            Column("claim", "P(claim)")]
    notes = _common_notes(s) + [
        "P(claim) needs the trinity (a rolled Steel, Cunning and Faith this turn, §7.1) "
        "when the room demands it" + (", except for a Lorekeeper (solo Vaults)" if solo
                                        else "") + "; otherwise it is P(threat & lock).",
        "Cunning spent on extra Moves is not counted against the lock."]
    if eff["threat_ignore"]:
        notes.append(f"Threat lowered by {int(eff['threat_ignore'])} (threat_ignore, §4).")
    if bonus_c:
        notes.append(f"+{bonus_c} Cunning per turn (cunning_bonus, §4 / A26); counts for the "
                     f"trinity only if claims.trinity_counts_bonus (A33).")
    return Result(
        ruleset="deepfall", question="claim",
        title=f"DEEPFALL claim {label}: hand {s.hand} from {_bag_text(s.bag)}",
        columns=cols, rows=rows, method=exact_method(),
        inputs=_inputs(s, room=label, steel_needed=need_s, cunning_needed=need_c),
        placeholders=s.placeholders, notes=notes, plot_x="press",
        plot_y=["both", "both_trinity"])


def setback(s: Setup, *, max_press: int = 3) -> Result:
    """§6A.3 chance of a Setback after Faith cancelling, per number of Press Ons."""
    d = s.data
    eff = s.eff
    thr = d.turn.setback_threshold
    immune = eff["setback_immune"] > 0.5
    lose = max(0, d.turn.setback_dice + int(eff["setback_extra_loss"])
               - int(eff["setback_heal"]))
    rows = []
    kmax = min(need(max_press, key="--max-press", lo=0, hi=50), s.max_presses())
    dice = hand_dice(d, s.bag, [s.drawn(k) for k in range(kmax + 1)], (FAITH, DREAD))
    for k in range(kmax + 1):
        n = s.drawn(k)
        joint = probs(dice[n])
        p_sb = p_lost = e_lost = e_rolled = e_left = e_track = 0
        avail = s.bag_size if d.turn.setback_from_bag else n          # A43
        for v, p in joint.items():
            _, left = resolve_dread(v[0], v[1], eff)
            sb = left >= thr
            lost = 0 if (not sb or immune) else min(lose, avail)
            p_sb += p * sb
            p_lost += p * (lost > 0)
            e_lost += p * lost
            e_rolled += p * v[1]
            e_left += p * left
            step = left if d.turn.dread_per_uncanceled else (1 if left > 0 else 0)   # A12
            e_track += p * (step + k * d.turn.press_on_dread)
        rows.append({"press": k, "dice": n, "setback": p_sb, "lose": p_lost,
                     "lost": e_lost, "rolled": e_rolled, "left": e_left, "track": e_track})
    cols = [Column("press", "Press Ons", "int"), Column("dice", "dice drawn", "int"),
            Column("setback", f"P(Setback: >= {thr} uncanceled)"),
            Column("lose", "P(dice lost)"), Column("lost", "E[dice lost]", "float"),
            Column("rolled", "E[Dread rolled]", "float"),
            Column("left", "E[uncanceled Dread]", "float"),
            Column("track", "E[Dread track +]", "float")]
    notes = _common_notes(s) + [
        f"A Setback returns {d.turn.setback_dice} die (turn.setback_dice) "
        + ("from the dice drawn this turn" if not d.turn.setback_from_bag
           else "from the whole bag") + " (A43).",
        "Dread track: each Press On adds turn.press_on_dread, plus "
        + ("each uncanceled Dread" if d.turn.dread_per_uncanceled
           else "1 when any Dread is uncanceled") + " (A12)."]
    if immune:
        notes.append("Setbacks still happen (they count) but cost no die (setback_immune, "
                     "§4 Golem-born).")
    if eff["setback_extra_loss"] or eff["setback_heal"]:
        notes.append(f"A Setback costs {lose} die/dice after setback_extra_loss / "
                     f"setback_heal (§4).")
    if eff["dread_to_mettle"] > 0.5:
        notes.append("Revenant: uncanceled Dread also becomes Mettle 1:1 (A27).")
    return Result(
        ruleset="deepfall", question="setback",
        title=f"DEEPFALL Setback: hand {s.hand} from {_bag_text(s.bag)}, {_company(s)}",
        columns=cols, rows=rows, method=exact_method(),
        inputs=_inputs(s, setback_threshold=thr), placeholders=s.placeholders, notes=notes,
        plot_x="press", plot_y=["setback", "lose"])


def answer(question: str, **opts) -> Result:
    """Answer one DEEPFALL question (see :data:`QUESTIONS`)."""
    keys = ("dice", "hand", "lineage", "calling", "sets")
    s = setup(**{k: opts.pop(k, None) for k in keys})
    if question == "symbols":
        return symbols(s, presses=opts.get("press") or 0)
    if question == "claim":
        return claim(s, room=opts.get("room"), steel=opts.get("steel"),
                     cunning=opts.get("cunning"), trinity=bool(opts.get("trinity")),
                     max_press=opts.get("max_press", 3) if opts.get("max_press") is not None
                     else 3)
    if question == "setback":
        return setback(s, max_press=opts.get("max_press") if opts.get("max_press")
                       is not None else 3)
    raise InputError(f"unknown DEEPFALL question '{question}'{nearest(question, QUESTIONS)}; "
                     f"known: {', '.join(QUESTIONS)}", key="QUESTION")


#: the options of ``deepsim odds deepfall QUESTION`` (each passed to :func:`answer` by name)
OPTIONS = (
    OddsOption("dice", ("--dice", "-d"), help="Bag: TYPE=N,... (recruit, warrior, scholar, "
               "priest, rogue, champion, relic). Default: the --lineage's starting bag."),
    OddsOption("hand", ("--hand",), "int", help="Hand size before Lineage/Calling modifiers "
               "(default: turn.hand_size)."),
    OddsOption("lineage", ("--lineage", "-l"), help="Apply this Lineage's effects (and its bag "
               "if no --dice)."),
    OddsOption("calling", ("--calling", "-c"), help="Apply this Calling's effects."),
    OddsOption("room", ("--room",), help="claim: the room theme."),
    OddsOption("steel", ("--steel",), "int", help="claim: threat to meet."),
    OddsOption("cunning", ("--cunning",), "int", help="claim: lock to meet."),
    OddsOption("trinity", ("--trinity",), "flag", False,
               help="claim with --steel/--cunning: the claim also needs the trinity."),
    OddsOption("press", ("--press",), "int", 0, help="symbols: Press Ons taken."),
    OddsOption("max_press", ("--max-press",), "int", 3,
               help="claim/setback: rows for 0..N Press Ons (while the bag lasts)."),
)

#: ``deepsim odds deepfall`` (deepsim.rulesets.base.OddsBook)
BOOK = OddsBook(QUESTIONS, OPTIONS, answer,
                "DEEPFALL (§5 dice, §6A draw, Press On and Dread, §7.1 claims).")
