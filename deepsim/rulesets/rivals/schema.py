"""Validation of the Rivals ruleset data (``rivals.yaml``) with pydantic.

One model for the whole file: the dice (read by ``deepsim odds rivals`` and by the game
kernel alike, so a reading moves the odds and the game together), and the rules, roster,
decks and map generator the kernel plays. Every number has a type and bounds here;
cross-field checks (colour names, builds within their budget, decks that can be played)
are model validators. pydantic's errors become :class:`deepsim.errors.InputError` through
:mod:`deepsim.params`, naming the file, key and line.

Rule ids (RV-*) and ambiguity ids (AMB-*) are those of the project's digest of the rulebook
(``../shared/digests/rivals_masters_of_the_deep.md``; AMB-27.. from the scope
``../shared/specs/rivals-rove-scope.md``, part A).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from deepsim.rulesets.common import StrictModel
from deepsim.rulesets.rivals.layout import (
    MAX_BUILDS,
    MAX_COLOURS,
    MAX_DENS,
    MAX_FACES,
    MAX_LOOT,
    MAX_LURKER_CARDS,
    MAX_MODELS,
    MAX_P,
    MAX_UNITS,
)

FACES = ("hit", "exploding_hit", "shield", "aether", "exploding_aether", "blank")
#: face -> (hits, shields, aether, explosions) (RV-D3)
FACE_VALUE = {"hit": (1, 0, 0, 0), "exploding_hit": (1, 0, 0, 1), "shield": (0, 1, 0, 0),
              "aether": (0, 0, 1, 0), "exploding_aether": (0, 0, 1, 1), "blank": (0, 0, 0, 0)}
#: the situations the kernel applies from ``modifiers`` (RV-T1, RV-M4); the odds module
#: takes any names
SITUATIONS = ("coral", "swim", "charge", "rock", "cave")

#: Enumerated rule parameters: dotted path -> choices (the kernel reads the index).
ENUMS: dict[str, tuple[str, ...]] = {
    "activation.model": ("tokens", "budgets"),
    "activation.move_repeat": ("unlimited", "twice"),
    "activation.attackers": ("any_subset", "one"),
    "movement.land_timing": ("after_move", "before_move"),
    "movement.land_on_rock": ("stays", "not_allowed"),
    "movement.charge_scope": ("turn", "activation"),
    "terrain.den_enterable": ("cleared_only", "never"),
    "lurkers.unrevealed_dens": ("inert", "reveal"),
    "loot.overflow": ("sell", "drop", "supply"),
    "end.cap_result": ("unresolved", "cost_left"),
}
EVENT_EFFECTS = ("none", "lurker_phase", "aether_each", "wound_random", "reveal_den",
                 "loot_active")
LOOT_SLOTS = ("weapon", "armour", "item", "none")
LOOT_EFFECTS = ("upgrade_attack", "upgrade_defence", "heart", "none")
TILE_KINDS = ("sand", "coral", "rock", "den")


# ---- dice (shared with odds.py) ---------------------------------------------------------

class Colour(StrictModel):
    placeholder: bool = True
    rank: int = Field(ge=0, le=10)
    faces: list[Literal[FACES]] = Field(min_length=1, max_length=MAX_FACES)  # type: ignore[valid-type]


class Explode(StrictModel):
    extra_die: str                                  # RV-D3
    recursive: bool                                 # AMB-01
    cap: int = Field(ge=0, le=50)                   # AMB-01
    defender: bool = True                           # AMB-31


class Modifier(StrictModel):
    degrade_attack: int = Field(0, ge=0, le=10)
    upgrade_attack: int = Field(0, ge=0, le=10)
    degrade_defence: int = Field(0, ge=0, le=10)
    upgrade_defence: int = Field(0, ge=0, le=10)
    auto_shields: int = Field(0, ge=0, le=10)
    add_attack: list[str] = Field(default_factory=list, max_length=10)
    add_defence: list[str] = Field(default_factory=list, max_length=10)


class Combat(StrictModel):
    pool_cap: int | None = Field(None, ge=1, le=30)   # AMB-02: dice of one colour per roll
    wounds_per_hit: int = Field(1, ge=1, le=5)        # AMB-04


# ---- rules ------------------------------------------------------------------------------

class Players(StrictModel):
    min: int = Field(2, ge=2, le=MAX_P)
    max: int = Field(4, ge=2, le=MAX_P, description="the engine seats at most 4 players")

    @model_validator(mode="after")
    def _order(self):
        if self.min > self.max:
            raise ValueError(f"players.min ({self.min}) must be <= players.max ({self.max})")
        return self


class Setup(StrictModel):
    budget: dict[int, int] = Field(description="Aether to build a team, by player count")
    start_aether: int = Field(3, ge=0, le=30)          # RV-S3
    aether_bank: int = Field(30, ge=0, le=1000)        # AMB-24
    loot_supply: int = Field(5, ge=0, le=50)           # RV-S4

    @field_validator("budget")
    @classmethod
    def _budget(cls, v: dict[int, int]) -> dict[int, int]:
        for n, b in v.items():
            if not 2 <= n <= MAX_P:
                raise ValueError(f"budget: player count {n} is outside 2-{MAX_P}")
            if not 0 < b <= 10_000:
                raise ValueError(f"budget.{n}: expected 1-10000 Aether, got {b}")
        return v


class Activation(StrictModel):
    tokens: int = Field(3, ge=1, le=10)                # RV-A1
    model: str = "tokens"                              # AMB-27
    allow_pass: bool = True                            # AMB-13
    move_repeat: str = "unlimited"                     # AMB-06
    attackers: str = "any_subset"                      # AMB-14
    reinforce_then_move: bool = False                  # AMB-35


class Movement(StrictModel):
    swim_bonus: int = Field(1, ge=0, le=5)             # RV-M4
    charge_bonus: int = Field(1, ge=0, le=5)           # RV-M4
    swim_persistent: bool = True                       # AMB-11
    land_timing: str = "after_move"                    # AMB-28
    land_on_rock: str = "stays"                        # AMB-29
    charge_scope: str = "turn"                         # AMB-12
    charge_stacks: bool = True                         # AMB-30
    rock_entry_requires_swim: bool = True              # AMB-08 (errata R1)
    rock_die: str = "red"                              # RV-T1


class Terrain(StrictModel):
    small_per_tile: int = Field(3, ge=1, le=6)         # RV-T2 (or one Large model)
    coral_search_die: str = "red"                      # RV-X2
    coral_flip_on_fail: bool = True                    # AMB-20
    den_enterable: str = "cleared_only"                # AMB-33


class Los(StrictModel):
    adjacent_always: bool = True                       # AMB-36


class Focus(StrictModel):
    upgrades: int = Field(1, ge=0, le=5)
    minion_pay_once: bool = True                       # RV-C9, AMB-41


class Abilities(StrictModel):
    placeholder: bool = True
    focus: Focus = Field(default_factory=Focus)


class Unit(StrictModel):
    role: Literal["hero", "minion"]
    size: Literal["small", "large"]
    cost: int = Field(ge=0, le=1000)
    attack: list[str] = Field(max_length=10)
    defence: list[str] = Field(max_length=10)
    speed: int = Field(ge=0, le=10)
    range: int = Field(ge=1, le=20)
    hearts: int = Field(ge=1, le=30)
    ability_cost: int = Field(ge=0, le=30)
    max_copies: int | None = Field(None, ge=1, le=MAX_MODELS)   # AMB-42


class Build(StrictModel):
    teams: dict[int, dict[str, int]] = Field(description="units and counts, by player count")
    hearts_bonus: int = Field(0, ge=0, le=10,
                              description="extra hearts on every unit (a designer's what-if)")


class Roster(StrictModel):
    placeholder: bool = True
    units: dict[str, Unit] = Field(min_length=1, max_length=MAX_UNITS)
    builds: dict[str, Build] = Field(min_length=1, max_length=MAX_BUILDS)


class LurkerCard(StrictModel):
    name: str = Field(min_length=1)
    kind: Literal["creature", "treasure"]              # errata R2 / AMB-34
    attack: list[str] = Field(default_factory=list, max_length=10)
    defence: list[str] = Field(default_factory=list, max_length=10)
    hearts: int = Field(1, ge=1, le=50)
    loot: int = Field(0, ge=0, le=10)                  # RV-P4: loot cards to the killer
    aether: int = Field(0, ge=0, le=30)                # RV-P4: Aether to the killer


class Lurkers(StrictModel):
    placeholder: bool = True
    enabled: bool = True
    unrevealed_dens: str = "inert"                     # AMB-15
    reshuffle: bool = True                             # AMB-16
    defender_aether: bool = True                       # AMB-32
    deck: list[LurkerCard] = Field(max_length=MAX_LURKER_CARDS)


class LootCard(StrictModel):
    name: str = Field(min_length=1)
    slot: Literal[LOOT_SLOTS]                          # type: ignore[valid-type]
    effect: Literal[LOOT_EFFECTS]                      # type: ignore[valid-type]
    value: int = Field(ge=0, le=30)                    # RV-I1 Aether value
    count: int = Field(1, ge=1, le=MAX_LOOT)


class Slots(StrictModel):
    weapon: int = Field(1, ge=0, le=5)                 # AMB-23
    armour: int = Field(1, ge=0, le=5)
    item: int = Field(1, ge=0, le=5)


class Loot(StrictModel):
    placeholder: bool = True
    slots: Slots = Field(default_factory=Slots)
    overflow: str = "sell"                             # AMB-37
    deck: list[LootCard] = Field(max_length=MAX_LOOT)

    @model_validator(mode="after")
    def _size(self):
        n = sum(c.count for c in self.deck)
        if n > MAX_LOOT:
            raise ValueError(f"the loot deck holds {n} cards; the engine takes at most "
                             f"{MAX_LOOT}")
        return self


class EventCard(StrictModel):
    effect: Literal[EVENT_EFFECTS]                     # type: ignore[valid-type]
    value: int = Field(1, ge=-30, le=30)
    count: int = Field(1, ge=1, le=100)


class Events(StrictModel):
    placeholder: bool = True
    deck: list[EventCard] = Field(default_factory=list, max_length=100)


class Mulligan(StrictModel):
    min_open_neighbours: int = Field(2, ge=0, le=12)   # AMB-19
    max_den_imbalance: int = Field(1, ge=0, le=MAX_DENS)
    tries: int = Field(20, ge=0, le=1000)


class Map(StrictModel):
    placeholder: bool = True
    source: Literal["generated", "file"] = "generated"
    pool: int = Field(256, ge=1, le=4096)
    radius: int = Field(4, ge=2, le=4)
    tiles: dict[int, int]                              # RV-S7
    spawns_per_player: int = Field(3, ge=1, le=6)      # RV-S7
    mix: dict[str, int]                                # AMB-18
    mulligan: Mulligan = Field(default_factory=Mulligan)

    @field_validator("mix")
    @classmethod
    def _mix(cls, v: dict[str, int]) -> dict[str, int]:
        bad = [k for k in v if k not in TILE_KINDS]
        if bad:
            raise ValueError(f"mix: unknown tile kind(s) {bad}; kinds: {', '.join(TILE_KINDS)} "
                             f"(spawn tiles are spawns_per_player per player)")
        if any(n < 0 for n in v.values()):
            raise ValueError("mix: counts must be >= 0")
        if v.get("den", 0) > MAX_DENS:
            raise ValueError(f"mix.den: at most {MAX_DENS} dens")
        return v


class End(StrictModel):
    max_rounds: int = Field(40, ge=1, le=1000)         # AMB-26
    cap_result: str = "unresolved"                     # AMB-26
    reserve_counts_alive: bool = True                  # AMB-22


class RivalsData(StrictModel):
    """The whole of ``rivals.yaml``."""

    name: Literal["rivals"]
    title: str
    colours: dict[str, Colour]
    explode: Explode
    degrade_order: list[str]
    upgrade_beyond_top_adds: str
    upgrade_target: Literal["weakest"]
    modifiers: dict[str, Modifier]
    combat: Combat = Field(default_factory=Combat)
    players: Players = Field(default_factory=Players)
    setup: Setup
    activation: Activation = Field(default_factory=Activation)
    movement: Movement = Field(default_factory=Movement)
    terrain: Terrain = Field(default_factory=Terrain)
    los: Los = Field(default_factory=Los)
    abilities: Abilities = Field(default_factory=Abilities)
    roster: Roster
    lurkers: Lurkers
    loot: Loot
    events: Events = Field(default_factory=Events)
    map: Map
    end: End = Field(default_factory=End)

    @model_validator(mode="after")
    def _names(self):
        known = set(self.colours)
        if len(known) > MAX_COLOURS:
            raise ValueError(f"colours: the engine takes at most {MAX_COLOURS} colours")
        for where, names in (("explode.extra_die", [self.explode.extra_die]),
                             ("degrade_order", self.degrade_order),
                             ("upgrade_beyond_top_adds", [self.upgrade_beyond_top_adds]),
                             ("movement.rock_die", [self.movement.rock_die]),
                             ("terrain.coral_search_die", [self.terrain.coral_search_die])):
            bad = [n for n in names if n not in known]
            if bad:
                raise ValueError(f"{where}: unknown colour(s) {bad}; colours: {sorted(known)}")
        for m, spec in self.modifiers.items():
            bad = [n for n in spec.add_attack + spec.add_defence if n not in known]
            if bad:
                raise ValueError(f"modifiers.{m}: unknown colour(s) {bad}")
        if sorted(self.degrade_order) != sorted(known):
            raise ValueError("degrade_order must list every colour once, strongest first")
        ranks = [self.colours[c].rank for c in self.degrade_order]
        if any(ranks[i] <= ranks[i + 1] for i in range(len(ranks) - 1)):
            raise ValueError(f"degrade_order (strongest first) must list the colours by "
                             f"falling rank (RV-D1); ranks in that order: {ranks}")
        x = self.colours[self.explode.extra_die]
        if self.explode.recursive and all(FACE_VALUE[f][3] for f in x.faces):
            raise ValueError("the extra die always explodes; chains would never end")
        missing = [s for s in SITUATIONS if s not in self.modifiers]
        if missing:
            raise ValueError(f"modifiers: the game needs {', '.join(missing)} (RV-T1, RV-M4; "
                             f"a situation without effect is {{}})")
        for path, choices in ENUMS.items():
            group, key = path.split(".")
            value = getattr(getattr(self, group), key)
            if value not in choices:
                raise ValueError(f"{path}: expected one of {', '.join(choices)}, got "
                                 f"{value!r}")
        self._check_roster(known)
        self._check_decks(known)
        self._check_map()
        return self

    def _check_roster(self, known: set[str]) -> None:
        for uid, u in self.roster.units.items():
            bad = [c for c in u.attack + u.defence if c not in known]
            if bad:
                raise ValueError(f"roster.units.{uid}: unknown colour(s) {bad}; colours: "
                                 f"{sorted(known)}")
        counts = range(self.players.min, self.players.max + 1)
        missing = [n for n in counts if n not in self.setup.budget]
        if missing:
            raise ValueError(f"setup.budget: no budget for {missing} players")
        for name, b in self.roster.builds.items():
            for n, team in b.teams.items():
                where = f"roster.builds.{name}.teams.{n}"
                if not 2 <= n <= MAX_P:
                    raise ValueError(f"{where}: player count {n} is outside 2-{MAX_P}")
                unknown = [u for u in team if u not in self.roster.units]
                if unknown:
                    raise ValueError(f"{where}: unknown unit(s) {unknown}; units: "
                                     f"{', '.join(self.roster.units)}")
                if any(c < 0 for c in team.values()) or sum(team.values()) < 1:
                    raise ValueError(f"{where}: a team needs at least one model (counts "
                                     f">= 0)")
                for u, c in team.items():
                    cap = self.roster.units[u].max_copies
                    if cap is not None and c > cap:
                        raise ValueError(f"{where}.{u}: {c} copies, but the unit allows at "
                                         f"most {cap} (max_copies)")
                cost = sum(self.roster.units[u].cost * c for u, c in team.items())
                budget = self.setup.budget.get(n)
                if budget is not None and cost > budget:
                    raise ValueError(f"{where}: the team costs {cost} Aether, over the "
                                     f"{n}-player budget of {budget} (RV-S1)")
                if sum(team.values()) * MAX_P > MAX_MODELS:
                    raise ValueError(f"{where}: {sum(team.values())} models; the engine "
                                     f"seats at most {MAX_MODELS // MAX_P} per player")

    def _check_decks(self, known: set[str]) -> None:
        for i, c in enumerate(self.lurkers.deck):
            bad = [x for x in c.attack + c.defence if x not in known]
            if bad:
                raise ValueError(f"lurkers.deck.{i}: unknown colour(s) {bad}")
            if c.kind == "creature" and not c.attack:
                raise ValueError(f"lurkers.deck.{i} ({c.name}): a creature needs attack dice")
        for i, c in enumerate(self.loot.deck):
            if c.effect != "none" and c.slot == "none":
                raise ValueError(f"loot.deck.{i} ({c.name}): an item with an effect takes a "
                                 f"slot (weapon, armour or item)")

    def _check_map(self) -> None:
        m = self.map
        counts = range(self.players.min, self.players.max + 1)
        missing = [n for n in counts if n not in m.tiles]
        if missing and m.source == "generated":
            raise ValueError(f"map.tiles: no tile count for {missing} players")
        cells = 3 * m.radius * (m.radius + 1) + 1
        rim = 6 * m.radius
        pool = sum(m.mix.values())
        for n, t in m.tiles.items():
            spawns = n * m.spawns_per_player
            if not spawns < t <= cells:
                raise ValueError(f"map.tiles.{n}: {t} tiles; a radius-{m.radius} map holds "
                                 f"{spawns + 1}-{cells} ({spawns} spawns)")
            if cells - t > rim - spawns:
                raise ValueError(f"map.tiles.{n}: trimming {cells - t} cells needs more rim "
                                 f"cells than the {rim - spawns} a radius-{m.radius} map has "
                                 f"beside the spawns")
            if t - spawns > pool:
                raise ValueError(f"map.tiles.{n}: {t - spawns} non-spawn tiles needed but "
                                 f"map.mix holds {pool}")
            if spawns > rim:
                raise ValueError(f"map.spawns_per_player: {spawns} spawns do not fit the rim")


def colour_list(d: RivalsData) -> list[str]:
    """The colours strongest first (the kernel's colour index)."""
    return list(d.degrade_order)
