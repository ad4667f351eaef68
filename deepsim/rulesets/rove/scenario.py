"""Rove scenario keys: the encounter, the Rover counts, the party (classes and bots per seat),
and a designer's content file.

Example::

    ruleset: rove
    encounter: skirmish               # an encounter of the data or of `content:`
    players: [2, 3, 4]                # R, the Rover count, drawn uniformly per game
    classes: [true_scale, flash, shadow_piercer, sophist, dune_dancer]  # drawn without replacement
    bots: [striker]                   # one style drawn per game for the whole party
    seats:                            # optional: one per seat of the largest count
      - {class: true_scale, bot: striker}
    content: my-content.yaml          # the designer's classes, items, adversaries, encounters

Class, bot and knob names, the encounter and the content are checked by ``prepare``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from deepsim.rulesets.rove.layout import MAX_R
from deepsim.scenario import BotSeat, ScenarioBase, one_seat_per_player, players_within


class Seat(BotSeat):
    """One Rover seat: a class (``any``: drawn) and a bot style (``any``: the party's)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    cls: str = Field("any", alias="class")


class RoveScenario(ScenarioBase):
    """A Rove scenario file."""

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["rove"]
    encounter: str = "skirmish"
    players: int | list[int] = 3
    classes: list[str] | None = Field(None, min_length=1)
    bots: list[str] = Field(default_factory=lambda: ["striker"], min_length=1)
    seats: list[Seat] = Field(default_factory=list)
    rotate: bool = False
    content: str | None = Field(None, min_length=1)

    @field_validator("players")
    @classmethod
    def _in_range(cls, value: int | list[int]) -> int | list[int]:
        return players_within(value, 2, MAX_R, f"Rove plays 2-{MAX_R} Rovers (The Value of R;"
                                               " a solo player controls at least 2)")

    @field_validator("seats")
    @classmethod
    def _one_per_player(cls, value: list[Seat], info: ValidationInfo) -> list[Seat]:
        return one_seat_per_player(value, info.data.get("players"))
