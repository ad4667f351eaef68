"""Atlantis scenario keys: the bot of each side, the bot pool, force changes and the map.

Example::

    ruleset: atlantis
    players: 2
    sides:
      sea_witch: {bot: aggressive}
      sea_king: {bot: defensive, knobs: {hide: 0.8}}
    bots: [random, aggressive, defensive]     # what a side with `bot: any` draws from
    forces:
      sea_witch: {leviathan: 0, sea_snakes: 2}   # absolute counts replacing the Basic ones
    map: {file: maps/arena-18x14.txt}          # or {grid: "..."}; none = generated per game

Names of units, bots and knobs are checked against the ruleset in
``AtlantisRuleset.prepare`` (which knows the unit tables and bots.yaml).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from deepsim.rulesets.atlantis.layout import KNOBS, SIDES
from deepsim.scenario import ScenarioBase


class Side(BaseModel):
    """One side's bot: a style of bots.yaml (or ``any``: drawn per game from ``bots``)."""

    model_config = ConfigDict(extra="forbid")
    bot: str = "any"
    knobs: dict[Literal[KNOBS], float] = Field(default_factory=dict)  # type: ignore[valid-type]

    @field_validator("knobs")
    @classmethod
    def _numbers(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [k for k, v in value.items() if not math.isfinite(v)]
        if bad:
            raise ValueError(f"knob {', '.join(bad)} is not a finite number; give a number")
        return value


class Sides(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sea_witch: Side = Field(default_factory=Side)
    sea_king: Side = Field(default_factory=Side)


class MapSpec(BaseModel):
    """A fixed map: ``file`` (a text grid, relative to the scenario file) or ``grid`` (the
    text inline). Neither: a map is generated per game (``map.generator.*`` parameters)."""

    model_config = ConfigDict(extra="forbid")
    file: str | None = Field(None, min_length=1)
    grid: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one(self):
        if self.file is not None and self.grid is not None:
            raise ValueError("give map.file or map.grid, not both")
        return self


class AtlantisScenario(ScenarioBase):
    """An Atlantis scenario file (2 players: the Sea Witch and the Sea King)."""

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["atlantis"]
    players: int | list[int] = 2
    sides: Sides = Field(default_factory=Sides)
    bots: list[str] = Field(default_factory=lambda: ["random", "aggressive", "defensive"],
                            min_length=1)
    forces: dict[Literal[SIDES], dict[str, int]] = Field(  # type: ignore[valid-type]
        default_factory=dict)
    map: MapSpec = Field(default_factory=MapSpec)
    #: play each game index twice, each side moving first once (deepsim.rotation)
    rotate_seats: bool = False

    @field_validator("players")
    @classmethod
    def _two(cls, value: int | list[int]) -> int | list[int]:
        counts = value if isinstance(value, list) else [value]
        if any(c != 2 for c in counts):
            raise ValueError(f"Atlantis is a 2-player game (Sea King vs Sea Witch), got "
                             f"{', '.join(map(str, counts))}")
        return value

    @field_validator("forces", mode="before")
    @classmethod
    def _counts(cls, value):
        # a count written as true/false is a mistake, not 1/0
        if isinstance(value, dict):
            for side, units in value.items():
                if isinstance(units, dict):
                    for u, n in units.items():
                        # (float.is_integer, not int(n): int() of an infinity raises)
                        if isinstance(n, bool) or (isinstance(n, (int, float)) and (
                                n < 0 or (isinstance(n, float) and not n.is_integer()))):
                            raise ValueError(f"forces.{side}.{u}: expected a count (an "
                                             f"integer >= 0), got {n!r}")
        return value
