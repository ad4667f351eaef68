"""Validation of the Abyss ruleset data (``ruleset.yaml``) and of lord files, with pydantic.

Every number of the rules has a type and bounds here; cross-field checks (a lord's required
races fit its race count, the Court and row fit the engine, a deck holds at least a full
Court) are model validators. pydantic's errors become :class:`deepsim.errors.InputError`
through :mod:`deepsim.params`, naming the file, key and line.

Rule ids (AB-*) and ambiguity ids (AMB-A*) are those of ``../shared/digests/abyss.md``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from deepsim.rulesets.abyss.layout import (
    COLOURS,
    EFFECTS,
    MAX_COURT,
    MAX_DEPTH,
    MAX_LOCS,
    MAX_LORDS,
    MAX_OWN,
    MAX_P,
    MAX_ROW,
    MAX_THREAT,
    MAX_TOKENS,
    MAX_VALUE,
    RACES,
)
from deepsim.rulesets.common import StrictModel

#: Enumerated rule parameters: dotted path -> choices; the rule vector holds the index.
ENUMS: dict[str, tuple[str, ...]] = {
    "explore.last_slot_monster": ("must_fight", "must_fight_no_bonus", "may_leave"),
    "court.plot_timing": ("pre_action", "with_recruit", "never"),
    "keys.spend_policy": ("tokens_first", "lords_first"),
    "end.final_affiliation": ("lowest", "highest"),
    "end.tiebreak_lord_metric": ("cost_value", "vp"),
}


class Players(StrictModel):
    min: int = Field(2, ge=2, le=MAX_P)
    max: int = Field(4, ge=2, le=MAX_P, description="the engine seats at most 4 players")

    @model_validator(mode="after")
    def _order(self):
        if self.min > self.max:
            raise ValueError(f"players.min ({self.min}) must be <= players.max ({self.max})")
        return self


class Setup(StrictModel):
    start_pearls: int = Field(1, ge=0, le=50)                      # AB-S4
    locations_face_up: int = Field(1, ge=0, le=MAX_LOCS)           # AB-S2


class Depth(StrictModel):
    """The Depth deck (AB-C1): per race, ``ally_counts[v-1]`` allies of value v; monsters."""

    ally_counts: list[int] = Field(min_length=1, max_length=MAX_VALUE,
                                   description="copies of each value 1..n per race")
    monsters: int = Field(6, ge=0, le=MAX_DEPTH)
    reshuffle: bool = True                                         # AMB-A6
    placeholder: bool = True

    @field_validator("ally_counts")
    @classmethod
    def _counts(cls, v: list[int]) -> list[int]:
        if any((not isinstance(c, int)) or isinstance(c, bool) or c < 0 for c in v):
            raise ValueError(f"ally_counts: expected counts (integers >= 0), got {v!r}")
        if sum(v) == 0:
            raise ValueError("ally_counts: the Depth deck needs at least one ally per race")
        return v

    @model_validator(mode="after")
    def _size(self):
        n = len(RACES) * sum(self.ally_counts) + self.monsters
        if n > MAX_DEPTH:
            raise ValueError(f"the Depth deck holds {n} cards; the engine holds at most "
                             f"{MAX_DEPTH}")
        return self


class Explore(StrictModel):
    row_length: int = Field(5, ge=1, le=MAX_ROW,
                            description="slots of the Depth row (AMB-A7)")
    last_slot_pearls: int = Field(1, ge=0, le=20)                  # AB-E3
    first_price: int = Field(1, ge=0, le=20)                       # AB-E2
    price_step: int = Field(1, ge=0, le=20)                        # AB-E2
    buys_per_player: int = Field(1, ge=0, le=MAX_ROW)              # AB-E2
    bought_frees_slot: bool = True                                 # AMB-A2
    last_slot_monster: Literal[ENUMS["explore.last_slot_monster"]] = "must_fight"  # AMB-A1
    must_continue_after_monster: bool = True                       # AMB-A8
    placeholder: bool = Field(True, description="row_length is a guess (AMB-A7)")


class ThreatStep(StrictModel):
    """One position of the Threat track: the reward for fighting there (AB-E6)."""

    tokens: int = Field(0, ge=0, le=10)
    pearls: int = Field(0, ge=0, le=20)
    keys: int = Field(0, ge=0, le=10)


class Threat(StrictModel):
    track: list[ThreatStep] = Field(min_length=1, max_length=MAX_THREAT)  # AMB-A5
    placeholder: bool = True


class Court(StrictModel):
    slots: int = Field(6, ge=1, le=MAX_COURT)                      # AB-C4
    refill_slot: int = Field(4, ge=1, le=MAX_COURT)                # AB-L4
    refill_pearls: int = Field(2, ge=0, le=20)                     # AB-L4
    plot_cost: int = Field(1, ge=0, le=20)                         # AB-T0
    plot_timing: Literal[ENUMS["court.plot_timing"]] = "pre_action"  # AMB-A4

    @model_validator(mode="after")
    def _slot(self):
        if self.refill_slot > self.slots:
            raise ValueError(f"court.refill_slot ({self.refill_slot}) must be one of the "
                             f"{self.slots} Court slots")
        return self


class Keys(StrictModel):
    per_location: int = Field(3, ge=1, le=20)                      # AB-K1
    token_supply: int = Field(10, ge=0, le=100)                    # AMB-A16
    spend_policy: Literal[ENUMS["keys.spend_policy"]] = "tokens_first"  # AMB-A10
    multi_location: bool = True                                    # AMB-A10
    max_draw: int = Field(4, ge=1, le=MAX_LOCS)                    # AB-K2
    placeholder: bool = Field(True, description="token_supply is a guess (AMB-A16)")


class Locations(StrictModel):
    """The location tiles: end-game VP each (AB-K4)."""

    vp: list[int] = Field(min_length=1, max_length=MAX_LOCS)
    placeholder: bool = True

    @field_validator("vp")
    @classmethod
    def _vp(cls, v: list[int]) -> list[int]:
        if any((not isinstance(x, int)) or isinstance(x, bool) or not 0 <= x <= 100 for x in v):
            raise ValueError(f"vp: expected VP values (integers 0-100), got {v!r}")
        return v


class Lord(StrictModel):
    """One lord card (AB-C2): colour, VP, cost (value V, exactly N races, required races)."""

    name: str = Field(min_length=1)
    colour: Literal[COLOURS]  # type: ignore[valid-type]
    vp: int = Field(ge=0, le=100)
    cost: int = Field(ge=0, le=60, description="the value V the paying allies must reach")
    races: int = Field(ge=1, le=len(RACES), description="exactly this many races pay (N)")
    required: list[Literal[RACES]] = Field(  # type: ignore[valid-type]
        default_factory=list, description="races that must be among them (the coloured "
        "bubbles)")
    effect: Literal[EFFECTS] = "none"  # type: ignore[valid-type]
    keys: int | None = Field(None, ge=0, le=5, description="default: 1 for a passive "
                             "effect, else 0 (AB-L5)")

    @model_validator(mode="after")
    def _cost(self):
        if len(set(self.required)) != len(self.required):
            raise ValueError(f"lord {self.name!r}: a race is listed twice in required "
                             f"{self.required} (AMB-A12: the coloured bubbles are distinct "
                             f"races)")
        if len(self.required) > self.races:
            raise ValueError(f"lord {self.name!r}: {len(self.required)} required races but "
                             f"only {self.races} races pay (AMB-A12: required <= races)")
        return self


class Lords(StrictModel):
    deck: list[Lord] = Field(min_length=1, max_length=MAX_LORDS)
    placeholder: bool = True


class End(StrictModel):
    lords_to_end: int = Field(7, ge=1, le=MAX_OWN)                 # AB-G1
    final_affiliation: Literal[ENUMS["end.final_affiliation"]] = "lowest"  # AMB-A3
    tiebreak_lord_metric: Literal[ENUMS["end.tiebreak_lord_metric"]] = "cost_value"  # AMB-A15
    max_turns: int = Field(600, ge=1, le=100_000, description="player-turns before a game "
                           "is stopped as truncated (a safety cap, not a rule)")


class AbyssData(StrictModel):
    """The whole ruleset file."""

    name: str = "abyss"
    title: str = "Abyss"
    rulebook: str = ""
    players: Players = Field(default_factory=Players)
    setup: Setup = Field(default_factory=Setup)
    depth: Depth
    explore: Explore = Field(default_factory=Explore)
    threat: Threat
    monster_tokens: dict[int, int] = Field(description="Monster tokens: VP -> copies")
    court: Court = Field(default_factory=Court)
    keys: Keys = Field(default_factory=Keys)
    locations: Locations
    lords: Lords
    hand_limit: int = Field(0, ge=0, le=200, description="0 = no hand limit (AMB-A14)")
    pearl_supply: int | None = Field(None, ge=0, le=10_000,
                                     description="null = unlimited pearls (AMB-A16)")
    end: End = Field(default_factory=End)

    @field_validator("monster_tokens")
    @classmethod
    def _tokens(cls, v: dict[int, int]) -> dict[int, int]:
        if any(k < 0 or n < 0 for k, n in v.items()):
            raise ValueError(f"monster_tokens: VP and copies must be >= 0, got {v!r}")
        if sum(v.values()) > MAX_TOKENS:
            raise ValueError(f"monster_tokens: {sum(v.values())} tokens; the engine holds at "
                             f"most {MAX_TOKENS}")
        return v

    @model_validator(mode="after")
    def _fits(self):
        if self.court.slots > len(self.lords.deck):
            raise ValueError(f"court.slots is {self.court.slots} but the lord deck holds "
                             f"only {len(self.lords.deck)} lords: the Court cannot be filled "
                             "at setup (AB-S1)")
        if self.setup.locations_face_up > len(self.locations.vp):
            raise ValueError(f"setup.locations_face_up is {self.setup.locations_face_up} but "
                             f"there are only {len(self.locations.vp)} location tiles")
        if self.players.max > MAX_P:
            raise ValueError(f"the engine seats at most {MAX_P} players")
        return self


class LordFile(StrictModel):
    """A designer's lord list (scenario key ``lords: PATH``): replaces ``lords.deck``."""

    lords: list[Lord] = Field(min_length=1, max_length=MAX_LORDS)
    placeholder: bool = Field(False, description="true when these lords are guesses too")


def lord_keys(lord: Lord) -> int:
    """A lord's keys: its ``keys`` when given, else 1 for a passive effect (AB-L5)."""
    if lord.keys is not None:
        return int(lord.keys)
    return 1 if lord.effect == "passive" else 0
