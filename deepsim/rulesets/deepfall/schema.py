"""Validation of the DEEPFALL ruleset data file (``ruleset.yaml``) with pydantic.

Every rule number has a type and bounds here; cross-field checks (six faces per die, a
scaling row for every player count, known die and room names) are model validators. The
error messages of pydantic are turned into :class:`deepsim.errors.InputError` by
:mod:`deepsim.params`.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, model_validator

from deepsim.rulesets.common import StrictModel

SYMBOLS = ("steel", "cunning", "faith", "greed", "mettle", "dread")
DICE = ("recruit", "warrior", "scholar", "priest", "rogue", "champion", "relic")
ROOMS = ("threshold", "stone", "cistern", "den", "crypt", "hall", "library", "forge",
         "vault", "throne")
LINEAGES = ("dvergar", "wisp", "revenant", "gnoll", "sylphid", "golem_born")
CALLINGS = ("reaver", "lorekeeper", "wardancer", "hierophant", "warden", "prospector")


def display_name(name: str) -> str:
    """A Lineage's, Calling's, die's or room's name as the rulebook prints it (§4: "Golem-born",
    "Wardancer"): the first letter capitalised, ``_`` as ``-``. The one spelling every output
    uses (parquet categories, tables, traces, odds); group names in metrics and gates match it
    whatever the case, spaces, ``-`` or ``_`` (deepsim.measure.spec)."""
    return name[:1].upper() + name[1:].replace("_", "-")
N_FLOORS = 6
#: player counts the rules scale to (§9 table); the kernel's seat arrays hold MAX_PLAYERS
MIN_PLAYERS, MAX_PLAYERS = 2, 6
#: rooms per floor at most (the kernel's floor arrays hold this many slots)
MAX_ROOMS_PER_FLOOR = 8
#: faces of a die (§5: each die is a d6)
FACES = 6

# The effect keys shared by Lineages and Callings (§4). Order = kernel column order.
EFFECTS = (
    "hand_size", "moves", "cunning_bonus", "threat_ignore", "faith_penalty", "dread_cancel",
    "no_faith_cancel", "dread_to_mettle", "setback_extra_loss", "setback_immune",
    "setback_heal", "combat_claim_loot", "claim_loot", "solo_vault", "free_last_stand",
    "worthy_end_multiplier", "marker_strength", "marker_weight", "production_multiplier",
    "recruit_cost",
)
MULTIPLIER_EFFECTS = ("worthy_end_multiplier", "marker_weight", "production_multiplier")
FLAG_EFFECTS = ("no_faith_cancel", "dread_to_mettle", "setback_immune", "solo_vault",
                "free_last_stand")


class Players(StrictModel):
    min: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    max: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)

    @model_validator(mode="after")
    def _order(self):
        if self.min > self.max:
            raise ValueError(f"players.min must be <= players.max, got min {self.min} and "
                             f"max {self.max}")
        return self


class Floors(StrictModel):
    depth_values: list[int] = Field(min_length=N_FLOORS, max_length=N_FLOORS)

    @model_validator(mode="after")
    def _positive(self):
        if any(v < 0 for v in self.depth_values):
            raise ValueError("depth_values must be >= 0")
        return self


class ScaleRow(StrictModel):
    rooms_per_floor: int = Field(ge=1, le=MAX_ROOMS_PER_FLOOR)
    dread_track_length: int = Field(ge=1, le=99)


class Die(StrictModel):
    faces: dict[Literal[SYMBOLS], int]  # type: ignore[valid-type]
    setback_rank: int = Field(ge=0, le=99)

    @model_validator(mode="after")
    def _six_faces(self):
        if any(v < 0 for v in self.faces.values()):
            raise ValueError(f"face counts must be >= 0, got {dict(self.faces)}")
        total = sum(self.faces.values())
        if total != FACES:
            raise ValueError(f"a die has six faces; these face counts sum to {total}: "
                             f"{dict(self.faces)}")
        return self


class Room(StrictModel):
    value: int = Field(ge=0, le=100)
    threat: int = Field(ge=0, le=30)
    lock: int = Field(ge=0, le=30)
    produces: Literal[SYMBOLS + ("none",)]  # type: ignore[valid-type]
    combat: bool
    trinity: bool


class Dungeon(StrictModel):
    placeholder: bool = True
    throne_on_floor_6: bool = True
    vault_on_floor_6: bool = True
    floor_weights: dict[Literal["1", "2", "3", "4", "5", "6"], list[float]]

    @model_validator(mode="after")
    def _weights(self):
        for f in ("1", "2", "3", "4", "5", "6"):
            w = self.floor_weights.get(f)
            if w is None:
                raise ValueError(f"floor_weights needs a row for floor {f}")
            if len(w) != len(ROOMS):
                raise ValueError(f"floor_weights.{f} needs {len(ROOMS)} weights "
                                 f"(one per theme {', '.join(ROOMS)}), got {len(w)}")
            if any(not math.isfinite(x) for x in w):
                raise ValueError(f"floor_weights.{f} must be finite numbers, got {w}")
            if any(x < 0 for x in w) or sum(w) <= 0:
                raise ValueError(f"floor_weights.{f} must be >= 0 with a positive sum")
        return self


class Effects(StrictModel):
    """A company half's advantage and cost (§4); neutral defaults."""

    hand_size: int = Field(0, ge=-3, le=3)
    moves: int = Field(0, ge=0, le=5)
    cunning_bonus: int = Field(0, ge=0, le=5)
    threat_ignore: int = Field(0, ge=0, le=10)
    faith_penalty: int = Field(0, ge=0, le=5)
    dread_cancel: int = Field(0, ge=0, le=5)
    no_faith_cancel: bool = False
    dread_to_mettle: bool = False
    setback_extra_loss: int = Field(0, ge=0, le=5)
    setback_immune: bool = False
    setback_heal: int = Field(0, ge=0, le=5)
    combat_claim_loot: float = Field(0.0, ge=0, le=20)
    claim_loot: float = Field(0.0, ge=0, le=20)
    solo_vault: bool = False
    free_last_stand: bool = False
    worthy_end_multiplier: float = Field(1.0, ge=0, le=10)
    marker_strength: int = Field(0, ge=0, le=5)
    marker_weight: float = Field(1.0, ge=0, le=5)
    production_multiplier: float = Field(1.0, ge=0, le=5)
    recruit_cost: int = Field(0, ge=-5, le=5)


class Lineage(Effects):
    start_bag: dict[Literal[DICE], int]  # type: ignore[valid-type]
    start_bag_placeholder: bool = True   # A3: the Lineage cards are not printed

    @model_validator(mode="after")
    def _bag(self):
        if any(v < 0 for v in self.start_bag.values()):
            raise ValueError("start_bag counts must be >= 0")
        if sum(self.start_bag.values()) < 1:
            raise ValueError("start_bag needs at least one die")
        return self


class Calling(Effects):
    recruit_die: Literal[DICE]  # type: ignore[valid-type]


class Turn(StrictModel):
    hand_size: int = Field(ge=1, le=12)
    free_moves: int = Field(ge=0, le=5)
    move_cost: int = Field(ge=1, le=5)
    press_on_dread: int = Field(ge=0, le=5)
    setback_threshold: int = Field(ge=1, le=20)
    setback_dice: int = Field(ge=0, le=5)
    dread_per_uncanceled: int = Field(ge=0, le=1)
    bag_returns: bool
    unspent_symbols_lost: bool
    setback_from_bag: bool
    start_floor: int = Field(ge=1, le=N_FLOORS)
    muster_bag: Literal["start", "current"]


class Claims(StrictModel):
    per_turn: int = Field(ge=0, le=4)
    base_strength: int = Field(ge=1, le=5)
    surplus_adds_strength: bool
    max_surplus: int = Field(ge=0, le=30)
    assault_progress: bool
    trinity_counts_bonus: bool
    reinforce_own: bool
    must_beat_leader: bool
    fallen_strength: int = Field(ge=0, le=5)
    warden_doubles_fallen: bool


class Production(StrictModel):
    per_room: int = Field(ge=0, le=5)
    counts_for_trinity: bool


class Loot(StrictModel):
    per_greed: float = Field(ge=0, le=10)
    best_floor_of_turn: bool
    glory_per_loot: float = Field(ge=0, le=10)


class Exits(StrictModel):
    cash_out_dividend: float = Field(ge=0, le=20)
    worthy_end_multiplier: float = Field(ge=0, le=20)
    worthy_end_basis: Literal["floor", "depth_value"]
    worthy_end_keeps_loot: bool
    last_stand_cost: int = Field(ge=0, le=20)
    last_stand_free_rooms: list[Literal[ROOMS]]  # type: ignore[valid-type]
    last_stand_consumes: bool
    taken_loses_markers: bool


class Recruit(StrictModel):
    cost: int = Field(ge=0, le=20)
    min_cost: int = Field(ge=0, le=20)
    pool_per_type: int = Field(ge=0, le=1000)

    @model_validator(mode="after")
    def _order(self):
        if self.min_cost > self.cost:
            raise ValueError(f"recruit.min_cost must be <= recruit.cost, got min_cost "
                             f"{self.min_cost} and cost {self.cost}")
        return self


class Maw(StrictModel):
    # up to 60: a continuous Maw pace (the rounding search) is played at 10 steps for
    # each step of a reading (steps_per_floor 3 -> 30; a paced count up to 1.5 x that)
    steps_per_floor: int = Field(ge=1, le=60)
    steps_per_round: int = Field(ge=1, le=60, description="must be >= 1 or a game never ends")
    dread_full_steps: int = Field(ge=0, le=60)
    max_collapses_per_round: int = Field(ge=1, le=N_FLOORS)
    defer_extra_steps: bool
    dread_overflow_carries: bool
    rise_fraction: float = Field(ge=0, le=1)
    rise_includes_plunder: bool
    tie_split: Literal["floor"]


class End(StrictModel):
    tie_rule: Literal["share", "none"]
    max_rounds: int = Field(ge=1, le=10_000)


class DeepfallData(StrictModel):
    name: Literal["deepfall"]
    title: str
    rulebook: str
    players: Players
    symbols: list[str]
    floors: Floors
    scaling: dict[Literal["2", "3", "4", "5", "6"], ScaleRow]
    dice: dict[Literal[DICE], Die]  # type: ignore[valid-type]
    rooms: dict[Literal[ROOMS], Room]  # type: ignore[valid-type]
    dungeon: Dungeon
    lineages: dict[Literal[LINEAGES], Lineage]  # type: ignore[valid-type]
    callings: dict[Literal[CALLINGS], Calling]  # type: ignore[valid-type]
    turn: Turn
    claims: Claims
    production: Production
    loot: Loot
    exits: Exits
    recruit: Recruit
    maw: Maw
    end: End

    @model_validator(mode="after")
    def _complete(self):
        if tuple(self.symbols) != SYMBOLS:
            raise ValueError(f"symbols must be {list(SYMBOLS)}")
        for n in range(self.players.min, self.players.max + 1):
            if str(n) not in self.scaling:
                raise ValueError(f"scaling needs a row for {n} players")
        for group, names in (("dice", DICE), ("rooms", ROOMS), ("lineages", LINEAGES),
                             ("callings", CALLINGS)):
            missing = [k for k in names if k not in getattr(self, group)]
            if missing:
                raise ValueError(f"{group} is missing {missing}")
        return self
