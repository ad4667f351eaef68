"""Bank's data model: ``ruleset.yaml`` validated (unknown keys refused, bounds checked).

Every field is a number of the rules (``rules.md``, its section in the field's
description); the data file's comments say the same for ``deepsim params bank``.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from deepsim.rulesets.bank.kernel import MAX_CLASSES, MAX_FACES, MAX_P
from deepsim.rulesets.common import StrictModel


class Die(StrictModel):
    """B2, B4: the die."""

    faces: int = Field(ge=2, le=MAX_FACES, description="B2: faces of the die (1..faces)")
    bust_face: int = Field(ge=1, description="B4: the face that busts a turn")

    @model_validator(mode="after")
    def _bust_on_the_die(self) -> Die:
        if self.bust_face > self.faces:
            raise ValueError(f"bust_face {self.bust_face} is not a face of a "
                             f"{self.faces}-sided die")
        return self


class Clock(StrictModel):
    """B3: the clock."""

    faces: list[int] = Field(description="B3: faces that advance the clock one step")
    limit: int = Field(ge=1, le=1000, description="B3: the clock step at which the party "
                                                  "loses")


class Goal(StrictModel):
    """B5-B6: what the party must bank, and in how many rounds."""

    total: int = Field(ge=1, le=10_000, description="B5: the pool that wins")
    rounds: int = Field(ge=1, le=1000, description="B6: rounds to reach it")


class Powers(StrictModel):
    """B7: one class's powers per turn."""

    rerolls: int = Field(ge=0, le=10, description="B7: bust rolls rolled again per turn")
    shields: int = Field(ge=0, le=10, description="B7: clock faces ignored per turn")


class Party(StrictModel):
    """B8: the designer's target."""

    target_win_rate: float = Field(gt=0.0, lt=1.0, description="B8: the share of games the "
                                   "party should win (strictly between 0 and 1)")


class Players(StrictModel):
    """B1: how many play."""

    min: int = Field(ge=1, le=MAX_P)
    max: int = Field(ge=1, le=MAX_P)

    @model_validator(mode="after")
    def _ordered(self) -> Players:
        if self.min > self.max:
            raise ValueError(f"players.min {self.min} is above players.max {self.max}")
        return self


class BankData(StrictModel):
    """The whole data file."""

    die: Die
    clock: Clock
    goal: Goal
    classes: dict[str, Powers] = Field(min_length=1, max_length=MAX_CLASSES)
    party: Party
    players: Players

    @model_validator(mode="after")
    def _clock_faces_on_the_die(self) -> BankData:
        off = [f for f in self.clock.faces if not 1 <= f <= self.die.faces]
        if off:
            raise ValueError(f"clock.faces {off} are not faces of a {self.die.faces}-sided "
                             "die")
        return self
