"""Exact Atlantis: Sea King vs Sea Witch odds: attack damage, kills, hiding, special rolls.

Every game number is read from the Atlantis ruleset data
(``deepsim/rulesets/atlantis/ruleset.yaml`` through
:func:`deepsim.rulesets.atlantis.data.load_data`, the loader the kernel's ``prepare`` uses), so
a ``--set`` override (e.g. ``--set combat.hit_faces=[5,6]``) changes these answers exactly
as it changes a simulation. Rule ids (AT-..) and ambiguity ids (AMB-T..) are the digest's.

An attack rolls AD six-sided dice and each die showing a hit face deals 1 damage (AT-A5,
``kernel.roll_hits``). AMB-T1 leaves the hit faces open, so every answer is given side by
side under the ruleset's ``combat.hit_faces`` (after ``--set``) and under each shipped
scenario's other reading (``scenarios/atlantis-hit56.yaml``: {5,6}), plus a custom
``--hit-faces`` rule. Attack dice follow ``kernel.attack_pool`` / ``kernel.attack_dice``
(AT-A4: paralyzed target, hidden attacker, Temple/Bed, Upwelling/Whirl Pool penalty and its
floor, AMB-T9, AMB-T24). Kills within k attacks follow the damage, the target's Hide marker
(a search roll per attack, AT-A3, ``kernel.search``) and the attacker's own Hide marker
(bonus dice on its first attack) as a Markov chain that icepool iterates exactly. Hiding is
``kernel.do_hide``: 1d6 + HF + terrain bonus (+ the unit's own terrain bonus) >= the target.
``tests/rulesets/atlantis/test_odds_oracle_atlantis.py`` rolls those kernel functions against these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import icepool

from deepsim.errors import InputError
from deepsim.odds.common import at_least, exact_method, mean, need, probs
from deepsim.odds.table import Column, Result
from deepsim.params import load_yaml, nearest
from deepsim.rulesets.atlantis.data import load_data
from deepsim.rulesets.atlantis.schema import UNIT_GROUPS, AtlantisData
from deepsim.rulesets.base import OddsBook, OddsOption

QUESTIONS = {
    "damage": "damage distribution of one attack of N AD under each hit rule",
    "destroy": "chance to destroy a unit of DR d in one attack or within k attacks",
    "hide": "chance to hide, per terrain, for a unit's Hide Factor; search chance",
    "specials": "one-die special rolls: search, Entangle, Mesmerize, Net, Siren, recovery",
}

#: AT-C1: the game's dice are six-sided (the kernel's ``board.d6``; not a parameter)
DIE_SIDES = 6

#: shipped scenarios whose ``overrides:`` may give another AMB-T1 reading of the hit faces
SCENARIO_DIR = Path(__file__).resolve().parents[3] / "scenarios"


@dataclass(frozen=True)
class UnitView:
    """One unit type as the odds need it (from ``units.<side>.<key>`` of the ruleset)."""

    key: str
    name: str
    side: str
    ad: int
    dr: int
    hf: int                    # "-" counts as 0 (AMB-T6)
    hf_dash: bool
    poison: bool               # AT-X1
    hidden_ad: int             # AT-A4 extra AD for hidden attacks (Merman Assassin)
    hf_terrain: str
    hf_terrain_bonus: int


def data(sets: list[str] | None = None) -> AtlantisData:
    """The Atlantis ruleset data after ``--set`` overrides (the kernel's loader)."""
    return load_data(list(sets or []))


def units(d: AtlantisData) -> dict[str, UnitView]:
    """Every unit type of the ruleset by its key (Sea King's, Sea Witch's, neutrals)."""
    out = {}
    for group in UNIT_GROUPS:
        for k, u in getattr(d.units, group).items():
            out[k] = UnitView(key=k, name=u.title, side=group, ad=u.ad, dr=u.dr,
                              hf=0 if u.hf == "-" else u.hf, hf_dash=u.hf == "-",
                              poison="poison" in u.specials, hidden_ad=u.hidden_ad,
                              hf_terrain=u.hf_terrain, hf_terrain_bonus=u.hf_terrain_bonus)
    return out


def at_least_faces(m: int) -> list[int]:
    """Faces of a roll that succeeds on 1d6 >= m."""
    return list(range(max(1, m), DIE_SIDES + 1))


def at_most_faces(m: int) -> list[int]:
    """Faces of a roll that succeeds on 1d6 <= m."""
    return list(range(1, min(m, DIE_SIDES) + 1))


def search_faces(d: AtlantisData) -> list[int]:
    """AT-A3: a search succeeds on 1d6 >= combat.search_min (``kernel.search``)."""
    return at_least_faces(d.combat.search_min)


@lru_cache(maxsize=1)
def _scenario_readings() -> tuple[tuple[str, str, tuple[int, ...]], ...]:
    """(key, scenario file, hit faces) of each shipped Atlantis scenario that sets them."""
    out = []
    for path in sorted(SCENARIO_DIR.glob("*.yaml")) if SCENARIO_DIR.is_dir() else []:
        try:
            raw, _ = load_yaml(path)
        except InputError:
            continue
        ov = raw.get("overrides") or {}
        if raw.get("ruleset") != "atlantis" or not isinstance(ov, dict):
            continue
        if "combat.hit_faces" not in ov:
            continue
        faces = load_data({"combat.hit_faces": ov["combat.hit_faces"]},
                          source=str(path)).combat.hit_faces
        name = str(raw.get("name") or path.stem)
        key = name.removeprefix("atlantis-").replace("-", "_") or name
        out.append((key, path.name, tuple(faces)))
    return tuple(out)


def hit_rules(d: AtlantisData, sets: list[str] | None, hit_faces: str | None = None
              ) -> dict[str, list[int]]:
    """AMB-T1 readings side by side: the ruleset's (after ``--set``), the shipped default
    when ``--set`` changed it, each shipped scenario's, and ``--hit-faces`` (custom)."""
    rules = {"ruleset": list(d.combat.hit_faces)}
    if sets:
        default = list(load_data().combat.hit_faces)
        if default != rules["ruleset"]:
            rules["default"] = default
    for key, _, faces in _scenario_readings():
        if list(faces) not in rules.values() and key not in rules:
            rules[key] = list(faces)
    if hit_faces:
        try:
            faces = sorted({int(x) for x in hit_faces.split(",") if x.strip()})
        except ValueError:
            raise InputError(f"'{hit_faces}': give faces as numbers, e.g. 5,6",
                             key="--hit-faces") from None
        if not faces or any(not 1 <= f <= DIE_SIDES for f in faces):
            raise InputError(f"faces must be 1..{DIE_SIDES}", key="--hit-faces")
        rules["custom"] = faces
    return rules


def _rules_note(rules: dict[str, list[int]]) -> str:
    src = {"ruleset": "combat.hit_faces of the ruleset data",
           "default": "the shipped ruleset.yaml", "custom": "--hit-faces"}
    for key, file, _ in _scenario_readings():
        src.setdefault(key, f"scenarios/{file}")
    return "AMB-T1 hit rules side by side: " + "; ".join(
        f"{_rule_label(k, f)} from {src.get(k, k)}" for k, f in rules.items()) + "."


def _die() -> icepool.Die:
    return icepool.Die(range(1, DIE_SIDES + 1))


def success(faces: list[int]) -> icepool.Die:
    """1 on the given faces of one d6, else 0."""
    return _die().map(lambda x: 1 if x in faces else 0)


def damage_die(ad: int, faces: list[int]) -> icepool.Die:
    """Damage of one attack of ``ad`` dice (AT-A5: one damage per die on a hit face)."""
    if ad <= 0:
        return icepool.Die([0])
    return ad @ success(faces)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _unit(table: dict[str, UnitView], name: str | None, key: str) -> UnitView | None:
    if name is None:
        return None
    k = _key(name)
    if k not in table:
        raise InputError(f"unknown unit '{name}'{nearest(k, table)}", key=key)
    return table[k]


def _rule_label(name: str, faces: list[int]) -> str:
    return f"{name} {{{','.join(map(str, faces))}}}"


def temple_bonus(d: AtlantisData, side: str | None) -> int:
    """AT-A4 / AMB-T9: +AD of the bonus terrain of ``side`` (Sea Temple, Spawning Bed).

    Without a side (no ``--attacker``) the bonus must be the same for both sides.
    """
    bonus = {t.bonus_side: t.bonus_ad for t in d.terrain.values() if t.bonus_side != "none"}
    if side is not None:
        return bonus.get(side, 0)
    values = set(bonus.values())
    if len(values) > 1:
        raise InputError("the Sea Temple and Spawning Bed bonuses differ in the data: name "
                         "the --attacker so its side's bonus applies", key="--temple")
    return values.pop() if values else 0


def terrain_penalty(d: AtlantisData) -> int:
    """AT-A4: AD lost by an attack into or out of an Upwelling / Whirl Pool hex (the
    largest ``terrain.*.attack_penalty``, as the kernel takes the larger of both hexes)."""
    return max((t.attack_penalty for t in d.terrain.values()), default=0)


def effective_ad(d: AtlantisData, ad: int, *, side: str | None = None, paralyzed=False,
                 hidden_attacker=False, hidden_ad=0, temple=False, upwelling=False) -> int:
    """AT-A4 attack dice, as ``kernel.attack_pool`` then ``kernel.attack_dice``.

    The pool is AD (+ hidden bonus and the unit's own hidden AD when hidden, + the Temple /
    Bed bonus for an attacker in its hex unless AMB-T9 reads target_in_hex); the paralyzed
    bonus is added per attack; AMB-T24 ``terrain_only`` floors only the terrain penalty,
    ``all`` floors the final dice.
    """
    c = d.combat
    pool = ad
    if hidden_attacker:
        pool += c.hidden_bonus + hidden_ad
    if temple and c.temple_bonus_scope != "target_in_hex":
        pool += temple_bonus(d, side)
    bonus = c.paralyzed_bonus if paralyzed else 0
    pen = terrain_penalty(d) if upwelling else 0
    floor = c.penalty_floor
    if c.penalty_floor_scope == "all":
        n = pool + bonus - pen
        if pen > 0 and n < floor:
            n = floor
    else:
        b = pool - pen
        if pen > 0 and b < floor:
            b = min(pool, floor)
        n = b + bonus
    return max(n, 0)


class _Attack:
    """Resolved attacker / target options."""

    def __init__(self, d, *, ad, attacker, dr, target, poison, paralyzed, hidden_attacker,
                 hidden_target, temple, upwelling):
        self.d = d
        table = units(d)
        au = _unit(table, attacker, "--attacker")
        tu = _unit(table, target, "--target")
        if ad is None and au is None:
            raise InputError("give --ad N or an --attacker unit", key="--ad")
        self.attacker = au.name if au else None
        self.side = au.side if au else None
        self.ad = need(ad, key="--ad", lo=0, hi=60) if ad is not None else au.ad
        self.poison = bool(poison) or bool(au and au.poison)
        self.hidden_ad = au.hidden_ad if au else 0
        self.target = tu.name if tu else None
        self.dr = (need(dr, key="--dr", lo=1, hi=100) if dr is not None
                   else (tu.dr if tu else None))
        self.paralyzed = paralyzed
        self.hidden_attacker = hidden_attacker
        self.hidden_target = hidden_target
        self.temple = temple
        self.upwelling = upwelling

    def eff_ad(self, hidden_attacker: bool) -> int:
        return effective_ad(self.d, self.ad, side=self.side, paralyzed=self.paralyzed,
                            hidden_attacker=hidden_attacker, hidden_ad=self.hidden_ad,
                            temple=self.temple, upwelling=self.upwelling)

    def inputs(self) -> dict:
        out = {"attack dice": self.ad if not self.attacker else f"{self.ad} ({self.attacker})"}
        if self.dr is not None:
            out["target DR"] = self.dr if not self.target else f"{self.dr} ({self.target})"
        mods = [m for m, on in (("target paralyzed", self.paralyzed),
                                ("attacker hidden", self.hidden_attacker),
                                ("target hidden", self.hidden_target),
                                ("Sea Temple/Spawning Bed", self.temple),
                                ("Upwelling/Whirl Pool", self.upwelling),
                                ("poison", self.poison)) if on]
        out["modifiers"] = ", ".join(mods) or "none"
        return out

    def notes(self) -> list[str]:
        c = self.d.combat
        out = []
        if self.temple and c.temple_bonus_scope == "target_in_hex":
            out.append("combat.temple_bonus_scope is target_in_hex (AMB-T9): an attacker in "
                       "its Temple/Bed gets no bonus.")
        if self.upwelling:
            out.append(f"Upwelling/Whirl Pool: -{terrain_penalty(self.d)} AD, floored at "
                       f"{c.penalty_floor} ({c.penalty_floor_scope}, AMB-T24).")
        return out


def _search_note(d: AtlantisData) -> str:
    p = success(search_faces(d)).probability(1)
    return (f"search (AT-A3) on 1d6 >= {d.combat.search_min}: P = {float(p):.4f}")


def damage(d: AtlantisData, att: _Attack, rules: dict[str, list[int]]) -> Result:
    """Damage of one attack under each hit rule."""
    n = att.eff_ad(att.hidden_attacker)
    dist = {r: probs(damage_die(n, f)) for r, f in rules.items()}
    cols = [Column("k", "damage", "int")]
    for r, f in rules.items():
        cols += [Column(f"{r}_eq", f"P(= k) {_rule_label(r, f)}"),
                 Column(f"{r}_ge", f"P(>= k) {_rule_label(r, f)}")]
    rows = []
    for k in range(n + 1):
        row = {"k": k}
        for r in rules:
            row[f"{r}_eq"] = dist[r].get(k, 0)
            row[f"{r}_ge"] = at_least(dist[r], k)
        rows.append(row)
    footer = [{"k": "mean", **{f"{r}_eq": mean(dist[r]) for r in rules}}]
    notes = [(f"{n} attack dice after AT-A4 modifiers; one damage per die on a hit face "
              f"(AT-A5)."), _rules_note(rules), *att.notes()]
    if att.poison:
        notes.append("Poison (AT-X1): any damage destroys the target, whatever its DR.")
    if att.hidden_target:
        notes.append(f"Target hidden: the attack needs a {_search_note(d)} first; this "
                     f"table is the damage once it goes ahead.")
    return Result(ruleset="atlantis", question="damage",
                  title=f"Atlantis: damage of one attack of {n} AD", columns=cols,
                  rows=rows, footer=footer, method=exact_method(), inputs=att.inputs(),
                  notes=notes, plot_x="k", plot_y=[f"{r}_eq" for r in rules])


def kill_chance(d: AtlantisData, att: _Attack, faces: list[int], attacks: int) -> list:
    """P(destroyed within 1..attacks attacks) as exact fractions (a Markov chain)."""
    dr = att.dr
    p_search = success(search_faces(d))
    reveals = d.combat.search_reveals
    hit_dice = {h: damage_die(att.eff_ad(h), faces) for h in (False, True)}

    def step(state):
        dmg, t_hidden, a_hidden = state
        if dmg >= dr:
            return state

        def attack(go):
            if not go:        # AMB-T2: a failed search uses up the attack (no damage here)
                return state

            def hit(h):
                nd = dr if (att.poison and h > 0) else min(dr, dmg + h)
                return (nd, t_hidden if not reveals else 0, 0)
            return hit_dice[bool(a_hidden)].map(hit)
        if t_hidden:
            return p_search.map(attack)
        return attack(1)

    start = icepool.Die([(0, int(att.hidden_target), int(att.hidden_attacker))])
    out = []
    cur = start
    for _ in range(attacks):
        cur = cur.map(step)
        out.append(sum((p for s, p in probs(cur).items() if s[0] >= dr), 0))
    return out


def destroy(d: AtlantisData, att: _Attack, rules: dict[str, list[int]], attacks: int
            ) -> Result:
    """Chance to destroy a unit of DR d within 1..k attacks, under each hit rule."""
    if att.dr is None:
        raise InputError("give --dr N or a --target unit", key="--dr")
    attacks = need(attacks, key="--attacks", lo=1, hi=60)
    chances = {r: kill_chance(d, att, f, attacks) for r, f in rules.items()}
    cols = [Column("attacks", "attacks", "int")] + [
        Column(r, f"P(destroyed) {_rule_label(r, f)}") for r, f in rules.items()]
    rows = [{"attacks": k + 1, **{r: chances[r][k] for r in rules}} for k in range(attacks)]
    notes = [("Damage accumulates over the attacks (damage markers stay, AT-A5); each row "
              "is the chance the target is destroyed by then."),
             f"Attack dice per attack: {att.eff_ad(att.hidden_attacker)}"
             + (f" on the first (attacker hidden), then {att.eff_ad(False)}"
                if att.hidden_attacker else "") + ".", _rules_note(rules)] + att.notes()
    if att.hidden_target:
        c = d.combat
        notes.append(f"Target hidden: each attack first needs a {_search_note(d)}; a failed "
                     "search uses up the attack on this target"
                     + (" (AMB-T2)" if c.failed_search_consumes_attack
                        else " (AMB-T2 off: the attacker may turn to a visible target)")
                     + ("; a success reveals it (AMB-T3)." if c.search_reveals
                        else "; the marker stays, so every attack searches (AMB-T3)."))
    if att.poison:
        notes.append("Poison (AT-X1): any damage destroys the target.")
    notes.append("No healing, recovery or spells between attacks.")
    return Result(ruleset="atlantis", question="destroy",
                  title=f"Atlantis: destroy DR {att.dr} with {att.ad} AD attacks",
                  columns=cols, rows=rows, method=exact_method(), inputs=att.inputs(),
                  notes=notes, plot_x="attacks", plot_y=list(rules))


def hide_terrains(d: AtlantisData) -> dict[str, int]:
    """{terrain: hide bonus} of every terrain a unit can stand in (AT-A7, §1.3)."""
    return {k: t.hide for k, t in d.terrain.items() if t.passable and not t.entry_death}


def hide(d: AtlantisData, *, hf: int | None, unit: str | None, terrain: str | None) -> Result:
    """AT-A7: chance to hide per terrain (1d6 + HF + terrain bonus >= hide.success_min)."""
    u = _unit(units(d), unit, "--unit")
    if hf is None:
        hf = u.hf if u else 0
    else:
        need(hf, key="--hf", lo=-6, hi=20)
    table = hide_terrains(d)
    terrains = list(table)
    if terrain:
        t = _key(terrain)
        try:
            t = list(d.terrain)[d.terrain_of(t)]
        except KeyError:
            words = terrains + [a for k in terrains for a in d.terrain[k].aliases]
            raise InputError(f"unknown terrain '{terrain}'{nearest(t, words)}",
                             key="--terrain") from None
        if t not in table:
            raise InputError(f"no unit can stand in {d.terrain[t].title} (impassable or "
                             f"deadly); terrains: {', '.join(terrains)}", key="--terrain")
        terrains = [t]
    barred = bool(u and u.hf_dash and not d.hide.dash_can_hide)
    target = d.hide.success_min
    groups: dict[tuple[int, int], list[str]] = {}
    for t in terrains:                     # one row per (terrain bonus, unit bonus)
        own = u.hf_terrain_bonus if (u and u.hf_terrain == t) else 0
        groups.setdefault((table[t], own), []).append(t)
    rows = []
    for (bonus, own), names in sorted(groups.items()):
        m = hf + bonus + own
        p = 0 if barred else (_die() + m).probability(">=", target)
        rows.append({"terrain": ", ".join(names), "bonus": bonus, "own": own, "mod": m,
                     "p": p})
    cols = [Column("terrain", "terrain", "text"), Column("bonus", "terrain bonus", "int"),
            Column("own", "unit terrain bonus", "int"), Column("mod", "total modifier", "int"),
            Column("p", "P(hide)")]
    label = u.name if u else f"HF {hf}"
    notes = [(f"AT-A7: 1d{DIE_SIDES} + HF {hf} + terrain bonus >= {target} hides "
              f"(instead of attacking; a move or an attack loses the marker, AT-A8)."),
             (f"An attacker finds a hidden unit with a {_search_note(d)} per attacker per "
              f"turn.")]
    if u and u.hf_dash:
        notes.append("HF '-' (AMB-T6): " + ("hides at +0." if d.hide.dash_can_hide
                                            else "hide.dash_can_hide is false: never hides."))
    return Result(ruleset="atlantis", question="hide", title=f"Atlantis: hide chance, {label}",
                  columns=cols, rows=rows, method=exact_method(),
                  inputs={"unit": label, "hide factor": hf}, notes=notes, plot_x="terrain",
                  plot_y=["p"])


def special_rolls(d: AtlantisData) -> list[tuple[str, list[int]]]:
    """(roll, faces that succeed) of every one-die roll of the rules, from the data."""
    s = d.specials
    out = [("search (AT-A3)", search_faces(d)),
           ("entangle (AT-X3)", at_most_faces(s.entangle_max)),
           ("mesmerize (AT-X4)", at_most_faces(s.mesmerize_max)),
           ("net (AT-X8)", at_most_faces(s.net_max)),
           ("siren_call (AT-X7)", at_most_faces(s.siren_max)),
           ("recovery (AT-E3)", at_most_faces(d.end.recovery_max))]
    for k, t in d.terrain.items():
        if t.adj_death_faces:
            out.append((f"{k} pull (AT-E1)", at_most_faces(t.adj_death_faces)))
    return out


def specials(d: AtlantisData, rules: dict[str, list[int]]) -> Result:
    """The one-die rolls of the rules and their chances."""
    rows = [{"roll": k, "faces": ",".join(map(str, f)), "p": success(f).probability(1)}
            for k, f in special_rolls(d)]
    for r, faces in rules.items():
        rows.append({"roll": f"1 AD terrain attack hits ({r})",
                     "faces": ",".join(map(str, faces)),
                     "p": success(faces).probability(1)})
    cols = [Column("roll", "roll", "text"), Column("faces", "succeeds on", "text"),
            Column("p", "P(success)")]
    return Result(ruleset="atlantis", question="specials",
                  title="Atlantis: one-die special rolls", columns=cols, rows=rows,
                  method=exact_method(),
                  notes=[("Entangle/Mesmerize/Net/Siren paralyse or lure the target on "
                          "success (AT-X3..X8); recovery removes one counter (AT-E3)."),
                         _rules_note(rules)],
                  plot_x="roll", plot_y=["p"])


def answer(question: str, **o) -> Result:
    """Answer one Atlantis question (see :data:`QUESTIONS`)."""
    sets = list(o.get("sets") or [])
    d = data(sets)
    if question in ("damage", "destroy"):
        att = _Attack(d, ad=o.get("ad"), attacker=o.get("attacker"), dr=o.get("dr"),
                      target=o.get("target"), poison=o.get("poison"),
                      paralyzed=bool(o.get("paralyzed")),
                      hidden_attacker=bool(o.get("hidden_attacker")),
                      hidden_target=bool(o.get("hidden_target")), temple=bool(o.get("temple")),
                      upwelling=bool(o.get("upwelling")))
        rules = hit_rules(d, sets, o.get("hit_faces"))
        res = (damage(d, att, rules) if question == "damage"
               else destroy(d, att, rules, o.get("attacks") or 1))
    elif question == "hide":
        res = hide(d, hf=o.get("hf"), unit=o.get("unit"), terrain=o.get("terrain"))
    elif question == "specials":
        res = specials(d, hit_rules(d, sets, o.get("hit_faces")))
    else:
        raise InputError(f"unknown Atlantis question '{question}'"
                         f"{nearest(question, QUESTIONS)}; known: {', '.join(QUESTIONS)}",
                         key="QUESTION")
    if sets:
        res.inputs["overrides"] = sets
    return res


#: the options of ``deepsim odds atlantis QUESTION`` (each passed to :func:`answer` by name)
OPTIONS = (
    OddsOption("ad", ("--ad",), "int", help="Attack dice."),
    OddsOption("attacker", ("--attacker",), help="Attacking unit, a key of the ruleset's units "
               "(its AD, side, poison, hidden_ad), e.g. sea_knights."),
    OddsOption("dr", ("--dr",), "int", help="destroy: target's DR."),
    OddsOption("target", ("--target",), help="destroy: target unit, a ruleset key (its DR), "
               "e.g. sea_witch."),
    OddsOption("attacks", ("--attacks", "-k"), "int", 3, help="destroy: rows 1..k attacks."),
    OddsOption("hit_faces", ("--hit-faces",), help="An extra hit rule beside "
               "combat.hit_faces, e.g. 4,5,6 (AMB-T1)."),
    OddsOption("paralyzed", ("--paralyzed",), "flag", False,
               help="Target paralyzed: + combat.paralyzed_bonus AD."),
    OddsOption("hidden_attacker", ("--hidden-attacker",), "flag", False,
               help="Attacker hidden: + combat.hidden_bonus (+ its hidden_ad) AD on its first "
               "attack."),
    OddsOption("hidden_target", ("--hidden-target",), "flag", False,
               help="Target hidden: each attack needs a search roll (combat.search_min)."),
    OddsOption("temple", ("--temple",), "flag", False,
               help="Attacker in its Sea Temple / Spawning Bed: + its bonus_ad (AMB-T9 "
               "combat.temple_bonus_scope)."),
    OddsOption("upwelling", ("--upwelling",), "flag", False,
               help="Into/out of Upwelling or Whirl Pool: - attack_penalty AD (floor "
               "combat.penalty_floor, AMB-T24)."),
    OddsOption("poison", ("--poison",), "flag", False, help="Any damage destroys."),
    OddsOption("unit", ("--unit",), help="hide: the unit (its HF)."),
    OddsOption("hf", ("--hf",), "int", help="hide: Hide Factor."),
    OddsOption("terrain", ("--terrain",), help="hide: one terrain (or alias) only."),
)

#: ``deepsim odds atlantis`` (deepsim.rulesets.base.OddsBook)
BOOK = OddsBook(QUESTIONS, OPTIONS, answer,
                "Atlantis: Sea King vs Sea Witch (attacks, kills, hiding, special rolls). Reads "
                "deepsim/rulesets/atlantis/ruleset.yaml (with --set, as deepsim run).")
