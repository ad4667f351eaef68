"""Exact Atlantis: Sea King vs Sea Witch odds: attack damage, kills, hiding, special rolls.

Numbers come from ``deepsim/odds/data/atlantis.yaml`` (rules AT-.., ambiguities AMB-T.. of
the digest), with ``--set`` overrides. An attack rolls AD six-sided dice and each die
showing a hit face deals 1 damage (AT-A5); AMB-T1 leaves the hit faces open, so every
answer is given under each rule in ``hit_rules`` (literal {1} and {5,6}), plus a custom
``--hit-faces`` rule. Kills within k attacks follow the damage, the target's Hide marker
(a 5-6 search roll per attack, AT-A3) and the attacker's own Hide marker (+2 AD on its
first attack, AT-A4) as a Markov chain that icepool iterates exactly.
"""

from __future__ import annotations

from typing import Literal

import icepool
from pydantic import BaseModel, ConfigDict, Field, model_validator

from deepsim.errors import InputError
from deepsim.odds.common import at_least, exact_method, load_data, mean, need, probs
from deepsim.odds.table import Column, Result
from deepsim.params import nearest

QUESTIONS = {
    "damage": "damage distribution of one attack of N AD under each hit rule",
    "destroy": "chance to destroy a unit of DR d in one attack or within k attacks",
    "hide": "chance to hide, per terrain, for a unit's Hide Factor; search chance",
    "specials": "one-die special rolls: search, Entangle, Mesmerize, Net, Siren, recovery",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Attack(_Strict):
    paralyzed_bonus: int = Field(ge=0, le=10)
    hidden_attacker_bonus: int = Field(ge=0, le=10)
    temple_bonus: int = Field(ge=0, le=10)
    upwelling_penalty: int = Field(ge=0, le=10)
    min_ad_after_penalty: int = Field(ge=0, le=10)


class Search(_Strict):
    faces: list[int]
    reveals: bool
    failed_search_consumes_attack: bool


class Hide(_Strict):
    target: int = Field(ge=1, le=30)
    dash_hf_can_hide: bool


class Unit(_Strict):
    name: str
    side: Literal["sea_king", "sea_witch", "neutral"]
    ad: int = Field(ge=0, le=30)
    dr: int = Field(ge=1, le=50)
    large: bool
    hf: int = Field(ge=0, le=10)
    poison: bool = False
    terrain_hf: dict[str, int] = {}
    hidden_attack_bonus: int = Field(0, ge=0, le=10)


class AtlantisData(_Strict):
    name: Literal["atlantis"]
    title: str
    die_sides: int = Field(ge=2, le=100)
    hit_rules: dict[str, list[int]]
    attack: Attack
    search: Search
    hide: Hide
    specials: dict[str, list[int]]
    terrain_hide: dict[str, int]
    units: dict[str, Unit]

    @model_validator(mode="after")
    def _faces(self):
        def check(where, faces):
            bad = [f for f in faces if not 1 <= f <= self.die_sides]
            if bad or len(set(faces)) != len(faces):
                raise ValueError(f"{where}: faces must be distinct numbers 1..{self.die_sides}, "
                                 f"got {faces}")
        for k, v in self.hit_rules.items():
            check(f"hit_rules.{k}", v)
        for k, v in self.specials.items():
            check(f"specials.{k}", v)
        check("search.faces", self.search.faces)
        if not self.hit_rules:
            raise ValueError("hit_rules needs at least one rule")
        for u, spec in self.units.items():
            for t in spec.terrain_hf:
                if t not in self.terrain_hide:
                    raise ValueError(f"units.{u}.terrain_hf: unknown terrain '{t}'")
        return self


def data(sets: list[str] | None = None) -> AtlantisData:
    """The Atlantis dice data after ``--set`` overrides."""
    return load_data("atlantis", AtlantisData, sets)


def _d(d: AtlantisData) -> icepool.Die:
    return icepool.Die(range(1, d.die_sides + 1))


def success(d: AtlantisData, faces: list[int]) -> icepool.Die:
    """1 on the given faces of one die, else 0."""
    return _d(d).map(lambda x: 1 if x in faces else 0)


def damage_die(d: AtlantisData, ad: int, faces: list[int]) -> icepool.Die:
    """Damage of one attack of ``ad`` dice (AT-A5: one damage per die on a hit face)."""
    if ad <= 0:
        return icepool.Die([0])
    return ad @ success(d, faces)


def _unit(d: AtlantisData, name: str | None, key: str):
    if name is None:
        return None
    k = name.strip().lower().replace("-", "_").replace(" ", "_")
    if k not in d.units:
        raise InputError(f"unknown unit '{name}'{nearest(k, d.units)}", key=key)
    return k, d.units[k]


def _rules(d: AtlantisData, hit_faces: str | None) -> dict[str, list[int]]:
    rules = {k: list(v) for k, v in d.hit_rules.items()}
    if hit_faces:
        try:
            faces = sorted({int(x) for x in hit_faces.split(",") if x.strip()})
        except ValueError:
            raise InputError(f"'{hit_faces}': give faces as numbers, e.g. 5,6",
                             key="--hit-faces") from None
        if not faces or any(not 1 <= f <= d.die_sides for f in faces):
            raise InputError(f"faces must be 1..{d.die_sides}", key="--hit-faces")
        rules["custom"] = faces
    return rules


def _rule_label(name: str, faces: list[int]) -> str:
    return f"{name} {{{','.join(map(str, faces))}}}"


def effective_ad(d: AtlantisData, ad: int, *, paralyzed=False, hidden_attacker=False,
                 assassin_bonus=0, temple=False, upwelling=False) -> int:
    """AT-A4 attack dice after modifiers (the minimum applies only against the penalty)."""
    a = d.attack
    n = ad
    if paralyzed:
        n += a.paralyzed_bonus
    if hidden_attacker:
        n += a.hidden_attacker_bonus + assassin_bonus
    if temple:
        n += a.temple_bonus
    if upwelling:
        n = max(min(n, a.min_ad_after_penalty), n - a.upwelling_penalty)
    return n


class _Attack:
    """Resolved attacker / target options."""

    def __init__(self, d, *, ad, attacker, dr, target, poison, paralyzed, hidden_attacker,
                 hidden_target, temple, upwelling):
        self.d = d
        au = _unit(d, attacker, "--attacker")
        tu = _unit(d, target, "--target")
        if ad is None and au is None:
            raise InputError("give --ad N or an --attacker unit", key="--ad")
        self.attacker = au[1].name if au else None
        self.ad = need(ad, key="--ad", lo=0, hi=60) if ad is not None else au[1].ad
        self.poison = bool(poison) or bool(au and au[1].poison)
        self.assassin = au[1].hidden_attack_bonus if au else 0
        self.target = tu[1].name if tu else None
        self.dr = (need(dr, key="--dr", lo=1, hi=100) if dr is not None
                   else (tu[1].dr if tu else None))
        self.paralyzed = paralyzed
        self.hidden_attacker = hidden_attacker
        self.hidden_target = hidden_target
        self.temple = temple
        self.upwelling = upwelling

    def eff_ad(self, hidden_attacker: bool) -> int:
        return effective_ad(self.d, self.ad, paralyzed=self.paralyzed,
                            hidden_attacker=hidden_attacker, assassin_bonus=self.assassin,
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


def damage(d: AtlantisData, att: _Attack, rules: dict[str, list[int]]) -> Result:
    """Damage of one attack under each hit rule."""
    n = att.eff_ad(att.hidden_attacker)
    dist = {r: probs(damage_die(d, n, f)) for r, f in rules.items()}
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
    notes = [f"{n} attack dice after AT-A4 modifiers; one damage per die on a hit face "
             f"(AT-A5); AMB-T1 hit rules side by side."]
    if att.poison:
        notes.append("Poison (AT-X1): any damage destroys the target, whatever its DR.")
    if att.hidden_target:
        sp = len(d.search.faces) / d.die_sides
        notes.append(f"Target hidden: the attack needs a search roll first "
                     f"(P = {sp:.4f}); this table is the damage once it goes ahead.")
    return Result(ruleset="atlantis", question="damage",
                  title=f"Atlantis: damage of one attack of {n} AD", columns=cols,
                  rows=rows, footer=footer, method=exact_method(), inputs=att.inputs(),
                  notes=notes, plot_x="k", plot_y=[f"{r}_eq" for r in rules])


def kill_chance(d: AtlantisData, att: _Attack, faces: list[int], attacks: int) -> list:
    """P(destroyed within 1..attacks attacks) as exact fractions (a Markov chain)."""
    dr = att.dr
    p_search = success(d, d.search.faces)
    hit_dice = {h: damage_die(d, att.eff_ad(h), faces) for h in (False, True)}

    def step(state):
        dmg, t_hidden, a_hidden = state
        if dmg >= dr:
            return state

        def attack(go):
            if not go:        # AMB-T2: a failed search uses up the attack (no damage here)
                return state

            def hit(h):
                nd = dr if (att.poison and h > 0) else min(dr, dmg + h)
                return (nd, t_hidden if not d.search.reveals else 0, 0)
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
    notes = ["Damage accumulates over the attacks (damage markers stay, AT-A5); each row is "
             "the chance the target is destroyed by then.",
             f"Attack dice per attack: {att.eff_ad(att.hidden_attacker)}"
             + (f" on the first (attacker hidden), then {att.eff_ad(False)}"
                if att.hidden_attacker else "") + "."]
    if att.hidden_target:
        notes.append("Target hidden: each attack first needs a search roll on "
                     f"{d.search.faces} (AT-A3); a failed search uses up the attack (AMB-T2)"
                     + ("; a success reveals it (AMB-T3)." if d.search.reveals
                        else "; the marker stays, so every attack searches (AMB-T3)."))
    if att.poison:
        notes.append("Poison (AT-X1): any damage destroys the target.")
    notes.append("No healing, recovery or spells between attacks.")
    return Result(ruleset="atlantis", question="destroy",
                  title=f"Atlantis: destroy DR {att.dr} with {att.ad} AD attacks",
                  columns=cols, rows=rows, method=exact_method(), inputs=att.inputs(),
                  notes=notes, plot_x="attacks", plot_y=list(rules))


def hide(d: AtlantisData, *, hf: int | None, unit: str | None, terrain: str | None) -> Result:
    """AT-A7: chance to hide per terrain (1d6 + HF + terrain bonus >= target)."""
    u = _unit(d, unit, "--unit")
    if hf is None:
        hf = u[1].hf if u else 0
    need(hf, key="--hf", lo=0, hi=20)
    terrains = list(d.terrain_hide)
    if terrain:
        t = terrain.strip().lower().replace(" ", "_").replace("-", "_")
        if t not in d.terrain_hide:
            raise InputError(f"unknown terrain '{terrain}'{nearest(t, terrains)}",
                             key="--terrain")
        terrains = [t]
    die = _d(d)
    groups: dict[tuple[int, int], list[str]] = {}
    for t in terrains:                     # one row per (terrain bonus, unit bonus)
        own = u[1].terrain_hf.get(t, 0) if u else 0
        groups.setdefault((d.terrain_hide[t], own), []).append(t)
    rows = []
    for (bonus, own), names in sorted(groups.items()):
        m = hf + bonus + own
        rows.append({"terrain": ", ".join(names), "bonus": bonus, "own": own, "mod": m,
                     "p": (die + m).probability(">=", d.hide.target)})
    p_search = success(d, d.search.faces).probability(1)
    cols = [Column("terrain", "terrain", "text"), Column("bonus", "terrain bonus", "int"),
            Column("own", "unit terrain bonus", "int"), Column("mod", "total modifier", "int"),
            Column("p", "P(hide)")]
    label = u[1].name if u else f"HF {hf}"
    notes = [f"AT-A7: 1d{d.die_sides} + HF {hf} + terrain bonus >= {d.hide.target} hides "
             f"(instead of attacking; a move or an attack loses the marker, AT-A8).",
             f"Search (AT-A3): an attacker finds a hidden unit on {d.search.faces}: "
             f"P = {float(p_search):.4f} per attacker per turn."]
    return Result(ruleset="atlantis", question="hide", title=f"Atlantis: hide chance, {label}",
                  columns=cols, rows=rows, method=exact_method(),
                  inputs={"unit": label, "hide factor": hf}, notes=notes, plot_x="terrain",
                  plot_y=["p"])


def specials(d: AtlantisData) -> Result:
    """The one-die rolls of the rules and their chances."""
    rows = [{"roll": "search (AT-A3)", "faces": ",".join(map(str, d.search.faces)),
             "p": success(d, d.search.faces).probability(1)}]
    for k, faces in d.specials.items():
        rows.append({"roll": k, "faces": ",".join(map(str, faces)),
                     "p": success(d, faces).probability(1)})
    for r, faces in d.hit_rules.items():
        rows.append({"roll": f"1 AD terrain attack hits ({r})",
                     "faces": ",".join(map(str, faces)),
                     "p": success(d, faces).probability(1)})
    cols = [Column("roll", "roll", "text"), Column("faces", "succeeds on", "text"),
            Column("p", "P(success)")]
    return Result(ruleset="atlantis", question="specials",
                  title="Atlantis: one-die special rolls", columns=cols, rows=rows,
                  method=exact_method(), notes=["Entangle/Mesmerize/Net/Siren paralyse or "
                                                "lure the target on success (AT-X3..X8); "
                                                "recovery removes one counter (AT-E3)."],
                  plot_x="roll", plot_y=["p"])


def answer(question: str, **o) -> Result:
    """Answer one Atlantis question (see :data:`QUESTIONS`)."""
    d = data(o.get("sets"))
    if question in ("damage", "destroy"):
        att = _Attack(d, ad=o.get("ad"), attacker=o.get("attacker"), dr=o.get("dr"),
                      target=o.get("target"), poison=o.get("poison"),
                      paralyzed=bool(o.get("paralyzed")),
                      hidden_attacker=bool(o.get("hidden_attacker")),
                      hidden_target=bool(o.get("hidden_target")), temple=bool(o.get("temple")),
                      upwelling=bool(o.get("upwelling")))
        rules = _rules(d, o.get("hit_faces"))
        res = (damage(d, att, rules) if question == "damage"
               else destroy(d, att, rules, o.get("attacks") or 1))
    elif question == "hide":
        res = hide(d, hf=o.get("hf"), unit=o.get("unit"), terrain=o.get("terrain"))
    elif question == "specials":
        res = specials(d)
    else:
        raise InputError(f"unknown Atlantis question '{question}'"
                         f"{nearest(question, QUESTIONS)}; known: {', '.join(QUESTIONS)}",
                         key="QUESTION")
    if o.get("sets"):
        res.inputs["overrides"] = list(o["sets"])
    return res
