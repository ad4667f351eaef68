"""Abyss scenario keys: player counts, seats (bot and knobs), the bot pool, seat rotation
and an optional lord list.

Example::

    ruleset: abyss
    players: [2, 3, 4]            # drawn uniformly per game
    bots: [courtier, merchant, hunter]   # what a seat with `bot: any` draws from
    seats:                        # optional: one per seat of the largest player count
      - {bot: courtier}
      - {bot: merchant, knobs: {buy_value: 1.2}}
      - {bot: any}
      - {bot: any}
    rotate: true                  # seat specs rotate over games (each plays every seat)
    lords: my-lords.yaml          # a lord list replacing lords.deck (relative to this file)

Names of bots and knobs, knob bounds and the lord file are checked in
``AbyssRuleset.prepare`` (which knows bots.yaml and the ruleset data).
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from deepsim.rulesets.abyss.layout import MAX_P
from deepsim.scenario import BotSeat, ScenarioBase, one_seat_per_player, players_within


class Seat(BotSeat):
    """One seat: a bot style of bots.yaml (or ``any``: drawn per game from ``bots``) and
    knob overrides."""


class AbyssScenario(ScenarioBase):
    """An Abyss scenario file (2-4 players)."""

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["abyss"]
    players: int | list[int] = 4
    bots: list[str] = Field(default_factory=lambda: ["courtier", "merchant", "hunter"],
                            min_length=1)
    seats: list[Seat] = Field(default_factory=list)
    rotate: bool = True
    lords: str | None = Field(None, min_length=1)

    @field_validator("players")
    @classmethod
    def _player_range(cls, value: int | list[int]) -> int | list[int]:
        return players_within(value, 2, MAX_P, f"Abyss plays 2-{MAX_P} players (AMB-A19)")

    @field_validator("seats")
    @classmethod
    def _one_seat_per_player(cls, value: list[Seat], info: ValidationInfo) -> list[Seat]:
        return one_seat_per_player(value, info.data.get("players"))
