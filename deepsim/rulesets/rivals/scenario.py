"""Rivals scenario keys: player counts, builds and bots per seat, rotation, a fixed map and
the designer's own data files.

Example::

    ruleset: rivals
    players: [2, 3, 4]                      # drawn uniformly per game
    builds: [balanced, swarm, elite, ranged]  # what a seat with `build: any` draws from
    bots: [brawler, sniper, looter]         # what a seat with `bot: any` draws from
    seats:                                  # optional: one per seat of the largest count
      - {build: balanced, bot: brawler}
      - {build: any, bot: sniper, knobs: {keep_range: 2}}
      - {build: any, bot: any}
      - {build: any, bot: any}
    rotate: true                  # seat specs rotate over games (each plays every seat)
    map: my-map.txt               # a fixed map (text grid), or {grid: "..."} inline
    data: [my-roster.yaml]        # the designer's rosters, cards or dice (docs/RULES.md)

Names of builds, bots and knobs, knob bounds, the map and the data files are checked in
``RivalsRuleset.prepare`` (which knows the data and bots.yaml).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from deepsim.rulesets.rivals.layout import MAX_P
from deepsim.scenario import BotSeat, ScenarioBase, one_seat_per_player, players_within


class Seat(BotSeat):
    """One seat: a build of the roster and a bot style of bots.yaml (``any``: drawn per
    game from ``builds`` / ``bots``), and knob overrides of its bot."""

    build: str = "any"


class MapSpec(BaseModel):
    """A fixed map: a text-grid file (relative to the scenario) or the grid inline."""

    model_config = ConfigDict(extra="forbid")
    file: str | None = Field(None, min_length=1)
    grid: str | None = Field(None, min_length=1)


class RivalsScenario(ScenarioBase):
    """A Rivals scenario file (2-4 players)."""

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["rivals"]
    players: int | list[int] = Field(default_factory=lambda: [2, 3, 4])
    builds: list[str] | None = Field(None, min_length=1)
    bots: list[str] = Field(default_factory=lambda: ["brawler", "sniper", "looter"],
                            min_length=1)
    seats: list[Seat] = Field(default_factory=list)
    rotate: bool = True
    map: str | MapSpec | None = None
    data: str | list[str] | None = None

    @field_validator("players")
    @classmethod
    def _player_range(cls, value: int | list[int]) -> int | list[int]:
        return players_within(value, 2, MAX_P, f"Rivals plays 2-{MAX_P} players (RV-S7)")

    @field_validator("seats")
    @classmethod
    def _one_seat_per_player(cls, value: list[Seat], info: ValidationInfo) -> list[Seat]:
        return one_seat_per_player(value, info.data.get("players"))

    @field_validator("map")
    @classmethod
    def _one_map(cls, value):
        if isinstance(value, MapSpec) and (value.file is None) == (value.grid is None):
            raise ValueError("give the map as a file (map: PATH or {file: PATH}) or as a "
                             "grid ({grid: ...}), one of the two")
        return value
