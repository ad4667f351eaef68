"""DEEPFALL scenario keys: seats (companies and bots), the bot pool, company drawing."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deepsim.rulesets.deepfall.layout import KNOBS, MAX_SEATS
from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES
from deepsim.scenario import ScenarioBase


class Seat(BaseModel):
    """One seat: its company halves and bot; "random"/"any" are drawn per game."""

    model_config = ConfigDict(extra="forbid")
    lineage: Literal[LINEAGES + ("random",)] = "random"  # type: ignore[valid-type]
    calling: Literal[CALLINGS + ("random",)] = "random"  # type: ignore[valid-type]
    bot: str = "any"
    knobs: dict[Literal[KNOBS], float] = Field(default_factory=dict)  # type: ignore[valid-type]


class Companies(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unique: bool = True   # A19


class DeepfallScenario(ScenarioBase):
    """A DEEPFALL scenario file.

    ``seats``, when given, lists one entry per seat for the largest player count; a game
    with n players uses the first n. ``bots`` is the pool a seat with ``bot: any`` draws
    from, uniformly per game.
    """

    model_config = ConfigDict(extra="forbid")
    ruleset: Literal["deepfall"]
    companies: Companies = Field(default_factory=Companies)
    bots: list[str] = Field(default_factory=lambda: ["random", "cautious", "balanced",
                                                     "greedy", "martyr"], min_length=1)
    seats: list[Seat] = Field(default_factory=list)

    @model_validator(mode="after")
    def _players(self):
        counts = self.players if isinstance(self.players, list) else [self.players]
        if not counts:
            raise ValueError("players needs at least one player count")
        for c in counts:
            if not 2 <= c <= MAX_SEATS:
                raise ValueError(f"players: DEEPFALL plays 2-6 players, got {c}")
        if self.seats and len(self.seats) != max(counts):
            raise ValueError(f"seats lists {len(self.seats)} seats but the largest player "
                             f"count is {max(counts)}: give one seat per player")
        return self
