"""Validation of the Atlantis ruleset data file (``ruleset.yaml``) with pydantic.

Every number of the rulebook has a type and bounds here; cross-field checks (one leader per
side, known terrain and unit names in the spell list, hit faces 1-6, generator shares that
can be normalised, a map that holds both forces) are model validators. pydantic's errors
become :class:`deepsim.errors.InputError` through :mod:`deepsim.params`.

Rule ids (AT-*) and ambiguity ids (AMB-T*) are those of the digest
``../shared/digests/atlantis_sea_king_vs_sea_witch.md``.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from deepsim.rulesets.atlantis.layout import MAX_UNITS, SIDES, SPELLS, TERRAINS
from deepsim.rulesets.common import StrictModel

#: Special effects AT-X1..AT-X9 a unit's ``specials`` list may name (layout.UCOLS order)
SPECIALS = ("poison", "sting", "entangle", "mesmerize", "ranged", "martyr", "siren", "net",
            "split")
UNIT_GROUPS = ("sea_king", "sea_witch", "neutral")

#: Enumerated rule parameters: dotted path -> choices; the rule vector holds the index.
ENUMS: dict[str, tuple[str, ...]] = {
    "combat.penalty_floor_scope": ("terrain_only", "all"),
    "combat.temple_bonus_scope": ("attacker_in_hex", "target_in_hex", "either"),
    "specials.entangle_release": ("own_counter", "all"),
    "specials.siren_counter_on_source_death": ("keep", "remove"),
    "end.terrain_scope": ("active", "all"),
    "end.current_blocked": ("stay",),
    "end.at_cap": ("unresolved", "material"),
    "spells.sirens_song_turns": ("own", "all"),
    "spells.luminescence_timing": ("any_time", "end_phase"),
    "setup.first_side": ("sea_witch", "sea_king"),
    "map.source": ("generated", "fixed"),
}

#: Created-unit slots the engine keeps free beyond both forces (4 creation spells x 2 chits).
CREATED_SLOTS = 8


# ---- terrain (§1.3) ---------------------------------------------------------------------

class Terrain(StrictModel):
    """One terrain type of the terrain table (AT-C2, §1.3)."""

    title: str = Field(min_length=1)
    code: str = Field(pattern=r"^[A-Z][a-z]?$", description="one capital letter, optionally "
                      "followed by a small one (map text grids)")
    aliases: list[str] = Field(default_factory=list)
    depth: Literal["deep", "shallow", "shallow_or_deep"]
    passable: bool = True
    cost: int = Field(1, ge=1, le=6, description="moves to enter a passable hex")
    hide: int = Field(0, ge=0, le=6)
    entry_death: bool = False
    entry_attack: int = Field(0, ge=0, le=10)
    adj_death_faces: int = Field(0, ge=0, le=6)
    adj_attack: int = Field(0, ge=0, le=10)
    attack_penalty: int = Field(0, ge=0, le=10)
    current: bool = False
    bonus_side: Literal["none", "sea_witch", "sea_king"] = "none"
    bonus_ad: int = Field(0, ge=0, le=10)

    @model_validator(mode="after")
    def _bonus(self):
        if self.bonus_ad and self.bonus_side == "none":
            raise ValueError(f"bonus_ad {self.bonus_ad} needs a bonus_side (sea_witch or "
                             f"sea_king)")
        return self


# ---- units (§1.9-1.11) ------------------------------------------------------------------

class Unit(StrictModel):
    """One unit type: a row of a force table (§1.9, §1.10) or the neutral table (§1.11)."""

    title: str = Field(min_length=1)
    count: int = Field(0, ge=0, le=MAX_UNITS, description="copies in the Basic game")
    ad: int = Field(ge=0, le=20)
    dr: int = Field(ge=1, le=50, description="must be >= 1 or the unit is destroyed at once")
    large: bool = False
    mv: int = Field(ge=0, le=12)
    hf: int | Literal["-"] = "-"
    leader: bool = False
    spells: int = Field(0, ge=0, le=8)
    hidden_ad: int = Field(0, ge=0, le=10)
    hf_terrain: str = "none"
    hf_terrain_bonus: int = Field(0, ge=0, le=10)
    specials: list[Literal[SPECIALS]] = Field(default_factory=list)  # type: ignore[valid-type]

    @field_validator("hf")
    @classmethod
    def _hf(cls, v):
        if isinstance(v, int) and not -6 <= v <= 6:
            raise ValueError(f"hf must be a number from -6 to 6 or '-', got {v}")
        return v

    @model_validator(mode="after")
    def _terrain_bonus(self):
        if self.hf_terrain != "none" and self.hf_terrain not in TERRAINS:
            raise ValueError(f"hf_terrain: unknown terrain {self.hf_terrain!r}; expected "
                             f"'none' or one of {', '.join(TERRAINS)}")
        if self.hf_terrain_bonus and self.hf_terrain == "none":
            raise ValueError("hf_terrain_bonus needs an hf_terrain")
        if len(set(self.specials)) != len(self.specials):
            raise ValueError(f"specials lists a name twice: {self.specials}")
        return self


class Units(StrictModel):
    sea_king: dict[str, Unit]
    sea_witch: dict[str, Unit]
    neutral: dict[str, Unit]


# ---- spells (§1.14) ---------------------------------------------------------------------

class Spell(StrictModel):
    """One spell of the spell list (§1.14); see layout.SPCOLS for the columns."""

    title: str = Field(min_length=1)
    chits: int = Field(2, ge=0, le=10, description="copies in the common pool (AT-C4)")
    range: int = Field(ge=0, le=30)
    amount: int = Field(0, ge=0, le=20)
    base: int = Field(0, ge=0, le=50)
    creates: str = "none"
    target_terrain: str = "any"
    sets_terrain: str = "none"
    needs_empty: bool = False
    needs_depth: Literal["any", "shallow", "deep"] = "any"


# ---- scalar rules -----------------------------------------------------------------------

class Combat(StrictModel):
    hit_faces: list[int] = Field(min_length=1, max_length=6)
    search_min: int = Field(ge=1, le=7)
    failed_search_consumes_attack: bool
    search_reveals: bool
    ranged_min: int = Field(ge=1, le=10)
    ranged_max: int = Field(ge=1, le=10)
    los: bool
    paralyzed_bonus: int = Field(ge=0, le=10)
    hidden_bonus: int = Field(ge=0, le=10)
    penalty_floor: int = Field(ge=0, le=10)
    penalty_floor_scope: Literal[ENUMS["combat.penalty_floor_scope"]]  # type: ignore[valid-type]
    temple_bonus_scope: Literal[ENUMS["combat.temple_bonus_scope"]]  # type: ignore[valid-type]
    split_one_search: bool

    @field_validator("hit_faces")
    @classmethod
    def _faces(cls, v: list[int]) -> list[int]:
        if any(isinstance(f, bool) for f in v):
            raise ValueError(f"hit_faces are die faces 1-6, got {v}")
        if any(not 1 <= f <= 6 for f in v):
            raise ValueError(f"hit_faces are die faces 1-6, got {v}")
        if len(set(v)) != len(v):
            raise ValueError(f"hit_faces lists a face twice: {v}")
        return sorted(v)

    @model_validator(mode="after")
    def _range(self):
        if self.ranged_min > self.ranged_max:
            raise ValueError(f"combat.ranged_min must be <= combat.ranged_max, got "
                             f"{self.ranged_min} and {self.ranged_max}")
        return self


class Hide(StrictModel):
    success_min: int = Field(ge=1, le=12)
    dash_can_hide: bool


class Specials(StrictModel):
    entangle_max: int = Field(ge=0, le=6)
    net_max: int = Field(ge=0, le=6)
    mesmerize_max: int = Field(ge=0, le=6)
    mesmerize_range: int = Field(ge=1, le=10)
    siren_max: int = Field(ge=0, le=6)
    siren_range: int = Field(ge=1, le=10)
    any_target: bool
    without_attack: bool
    sting_counters_per_attack: int = Field(ge=0, le=6)
    entangle_release: Literal[ENUMS["specials.entangle_release"]]  # type: ignore[valid-type]
    martyr_forces_ranged: bool
    martyr_forces_specials: bool
    special_discards_hide: bool
    siren_full_move: bool
    siren_counter_on_source_death: Literal[  # type: ignore[valid-type]
        ENUMS["specials.siren_counter_on_source_death"]]


class End(StrictModel):
    recovery_max: int = Field(ge=0, le=6)
    terrain_scope: Literal[ENUMS["end.terrain_scope"]]  # type: ignore[valid-type]
    current_blocked: Literal[ENUMS["end.current_blocked"]]  # type: ignore[valid-type]
    max_turns: int = Field(ge=1, le=100_000, description="safety cap in player-turns (not a "
                           "rule; >= 1 or a game might never end)")
    at_cap: Literal[ENUMS["end.at_cap"]]  # type: ignore[valid-type]


class SpellRules(StrictModel):
    per_caster_per_end: int = Field(ge=0, le=8)
    single_use: bool
    murky_depths_friendly_only: bool
    resurrection_full_health: bool
    resurrection_gets_chits: bool
    healing_pool: bool
    hidden_occupies: bool
    sirens_song_turns: Literal[ENUMS["spells.sirens_song_turns"]]  # type: ignore[valid-type]
    luminescence_timing: Literal[  # type: ignore[valid-type]
        ENUMS["spells.luminescence_timing"]]


class Setup(StrictModel):
    deploy_rows: int = Field(ge=1, le=10)
    first_side: Literal[ENUMS["setup.first_side"]]  # type: ignore[valid-type]
    neutrals_in_scenario: bool
    brain_coral: int = Field(ge=0, le=10)
    island_fish: int = Field(ge=0, le=10)


class Generator(StrictModel):
    open_share: float = Field(ge=0, le=1)
    cover_share: float = Field(ge=0, le=1)
    impassable_share: float = Field(ge=0, le=1)
    hazard_share: float = Field(ge=0, le=1)
    deep_share: float = Field(ge=0, le=1)
    lethal_hazards: bool
    hazard_free_rows: int = Field(ge=0, le=20)
    temples: int = Field(ge=0, le=8)
    spawning_beds: int = Field(ge=0, le=8)
    feature_depth: int = Field(ge=0, le=20)
    mirrored: bool

    @model_validator(mode="after")
    def _shares(self):
        shares = (self.open_share, self.cover_share, self.impassable_share, self.hazard_share)
        if any(not math.isfinite(s) for s in shares) or sum(shares) <= 0:
            raise ValueError("map.generator shares (open, cover, impassable, hazard) must be "
                             "finite and >= 0 with a positive sum (they are normalised)")
        if self.open_share + self.cover_share <= 0:
            raise ValueError("map.generator.open_share + cover_share must be > 0: the "
                             "deployment rows are drawn from open and cover terrain")
        if self.mirrored and self.temples != self.spawning_beds:
            raise ValueError(f"a mirrored map pairs each Sea Temple with a Spawning Bed: "
                             f"map.generator.temples ({self.temples}) must equal "
                             f"spawning_beds ({self.spawning_beds})")
        return self


class MapRules(StrictModel):
    source: Literal[ENUMS["map.source"]]  # type: ignore[valid-type]
    width: int = Field(ge=4, le=64)
    height: int = Field(ge=4, le=64)
    crevasse_deep: bool
    generator: Generator


class Players(StrictModel):
    min: Literal[2]
    max: Literal[2]


class AtlantisData(StrictModel):
    name: Literal["atlantis"]
    title: str
    rulebook: str
    players: Players
    terrain: dict[str, Terrain]
    units: Units
    spell_list: dict[str, Spell]
    combat: Combat
    hide: Hide
    specials: Specials
    end: End
    spells: SpellRules
    setup: Setup
    map: MapRules

    @model_validator(mode="after")
    def _complete(self):
        if tuple(self.terrain) != TERRAINS:
            missing = [t for t in TERRAINS if t not in self.terrain]
            extra = [t for t in self.terrain if t not in TERRAINS]
            raise ValueError(f"terrain must list the {len(TERRAINS)} types in the order "
                             f"{', '.join(TERRAINS)}; missing {missing}, unknown {extra}")
        if tuple(self.spell_list) != SPELLS:
            raise ValueError(f"spell_list must list the {len(SPELLS)} spells in the order "
                             f"{', '.join(SPELLS)}")
        codes: dict[str, str] = {}
        words: dict[str, str] = {}
        for name, t in self.terrain.items():
            if t.code in codes:
                raise ValueError(f"terrain.{name}.code {t.code!r} is also the code of "
                                 f"{codes[t.code]}")
            codes[t.code] = name
            for w in [name] + list(t.aliases):
                if w in words:
                    raise ValueError(f"terrain name or alias {w!r} is used by {words[w]} "
                                     f"and {name}")
                words[w] = name
        names: dict[str, str] = {}
        titles: dict[str, str] = {}
        for group in UNIT_GROUPS:
            table = getattr(self.units, group)
            for u in table:
                if u in names:
                    raise ValueError(f"unit name {u!r} appears in units.{names[u]} and "
                                     f"units.{group}")
                names[u] = group
            for u, x in table.items():
                if x.title in titles:
                    raise ValueError(f"unit title {x.title!r} of {u} is also {titles[x.title]}'s")
                titles[x.title] = u
            leaders = [u for u, x in table.items() if x.leader]
            if group != "neutral" and len(leaders) != 1:
                raise ValueError(f"units.{group} needs exactly one leader (AT-V1), got "
                                 f"{leaders}")
            if group == "neutral" and leaders:
                raise ValueError(f"a neutral cannot be a leader: {leaders}")
        for name, sp in self.spell_list.items():
            if sp.creates != "none" and sp.creates not in names:
                raise ValueError(f"spell_list.{name}.creates: unknown unit {sp.creates!r}")
            for key in ("target_terrain", "sets_terrain"):
                v = getattr(sp, key)
                if v not in ("any", "none") and v not in words:
                    raise ValueError(f"spell_list.{name}.{key}: unknown terrain {v!r}")
        for key in ("brain_coral", "island_fish", "water_elemental", "giant_oyster"):
            if key not in self.units.neutral:
                raise ValueError(f"units.neutral must define {key} (AMB-T14, spells)")
        g = self.map.generator
        half = self.map.height // 2
        if g.feature_depth >= half:
            raise ValueError(f"map.generator.feature_depth ({g.feature_depth}) must be < half "
                             f"the map height ({half}): a Sea Temple belongs to the Sea "
                             f"King's half")
        if 2 * self.setup.deploy_rows > self.map.height:
            raise ValueError(f"setup.deploy_rows ({self.setup.deploy_rows}) of both sides do "
                             f"not fit in map.height {self.map.height}")
        if g.mirrored and self.map.height % 2:
            raise ValueError(f"a mirrored map needs an even map.height (got "
                             f"{self.map.height}): with odd-r offset rows only an even "
                             f"height makes the half-turn a symmetry of the hex grid")
        return self

    def terrain_of(self, word: str) -> int:
        """Terrain row of a terrain name or alias (e.g. 'rocky_bottom' -> sandy_surf)."""
        for i, (name, t) in enumerate(self.terrain.items()):
            if word == name or word in t.aliases:
                return i
        raise KeyError(word)

    def unit_names(self) -> list[str]:
        """Every unit type name, in row order (Sea King's, Sea Witch's, neutrals)."""
        return [u for g in UNIT_GROUPS for u in getattr(self.units, g)]


assert SIDES == ("sea_witch", "sea_king")
