"""Bank scenario keys: player counts, seats (class, bot and knobs), the class and bot pools,
rotation.

Example::

    ruleset: bank
    players: [2, 3, 4]              # drawn uniformly per game
    classes: [banker, gambler, warden]   # what a seat with `class: any` draws from
    bots: [steady, careful]         # what a seat with `bot: any` draws from
    seats:                          # optional: one per seat of the largest player count
      - {class: gambler, bot: steady}
      - {class: any, bot: careful, knobs: {hold_at: 12}}
    rotate: false                   # seat specs rotate over games (each plays every seat)

Class, bot and knob names and knob bounds are checked by ``prepare`` (it knows the data).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from deepsim.rulesets.bank.kernel import MAX_P
from deepsim.scenario import ScenarioBase, one_seat_per_player, players_within


class Seat(BaseModel):
    """One seat: a class of the data (or ``any``: drawn per game from ``classes``), a bot
    style of bots.yaml (or ``any``: drawn from ``bots``) and knob overrides."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    cls: str = Field("any", alias="class")
    bot: str = "any"
    knobs: dict[str, float] = Field(default_factory=dict)


class BankScenario(ScenarioBase):
    """A Bank scenario file."""

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["bank"]
    players: int | list[int] = 3
    classes: list[str] | None = Field(None, min_length=1)
    bots: list[str] = Field(default_factory=lambda: ["steady", "careful"], min_length=1)
    seats: list[Seat] = Field(default_factory=list)
    rotate: bool = False

    @field_validator("players")
    @classmethod
    def _in_range(cls, value: int | list[int]) -> int | list[int]:
        return players_within(value, 1, MAX_P, f"a Bank party is 1-{MAX_P} players")

    @field_validator("seats")
    @classmethod
    def _one_per_player(cls, value: list[Seat], info: ValidationInfo) -> list[Seat]:
        return one_seat_per_player(value, info.data.get("players"))
