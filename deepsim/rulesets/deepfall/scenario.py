"""DEEPFALL scenario keys: seats (companies and bots), the bot pool, company drawing."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from deepsim.rulesets.deepfall.layout import KNOBS, MAX_SEATS
from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES
from deepsim.scenario import ScenarioBase, one_seat_per_player, players_within


class Seat(BaseModel):
    """One seat: its company halves and bot; "random"/"any" are drawn per game."""

    model_config = ConfigDict(extra="forbid")
    lineage: Literal[LINEAGES + ("random",)] = "random"  # type: ignore[valid-type]
    calling: Literal[CALLINGS + ("random",)] = "random"  # type: ignore[valid-type]
    bot: str = "any"
    knobs: dict[Literal[KNOBS], float] = Field(default_factory=dict)  # type: ignore[valid-type]

    @field_validator("knobs")
    @classmethod
    def _numbers(cls, value: dict[str, float]) -> dict[str, float]:
        bad = [k for k, v in value.items() if math.isnan(v)]
        if bad:
            raise ValueError(f"knob {', '.join(bad)} is not a number (nan); give a number")
        return value


class Companies(BaseModel):
    """How seats get their companies: ``unique`` (A19) each Lineage and Calling at most
    once per game; ``mirror`` every seat plays the company and bot seat 1 draws (a mirror
    game: the reference of a claim whose answer is known when every player is the same)."""

    model_config = ConfigDict(extra="forbid")
    unique: bool = True   # A19
    mirror: bool = False

    @field_validator("mirror")
    @classmethod
    def _mirror_not_unique(cls, value: bool, info: ValidationInfo) -> bool:
        if value and info.data.get("unique", True):
            raise ValueError("mirror games repeat one company at every seat: set "
                             "companies.unique: false with companies.mirror: true")
        return value


class DeepfallScenario(ScenarioBase):
    """A DEEPFALL scenario file.

    ``seats``, when given, lists one entry per seat for the largest player count; a game
    with n players uses the first n. ``bots`` is the pool a seat with ``bot: any`` draws
    from, uniformly per game.
    """

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["deepfall"]
    players: int | list[int] = 4
    companies: Companies = Field(default_factory=Companies)
    bots: list[str] = Field(default_factory=lambda: ["random", "cautious", "balanced",
                                                     "greedy", "martyr"], min_length=1)
    seats: list[Seat] = Field(default_factory=list)
    #: play each game index in every rotation of the seat order (deepsim.rotation)
    rotate_seats: bool = False

    @field_validator("players")
    @classmethod
    def _player_range(cls, value: int | list[int]) -> int | list[int]:
        return players_within(value, 2, MAX_SEATS, f"DEEPFALL plays 2-{MAX_SEATS} players")

    @field_validator("seats")
    @classmethod
    def _one_seat_per_player(cls, value: list[Seat], info: ValidationInfo) -> list[Seat]:
        return one_seat_per_player(value, info.data.get("players"))
