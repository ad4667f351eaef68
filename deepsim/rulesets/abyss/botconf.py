"""Reading ``bots.yaml``: the knobs (type and bounds) and the bot styles.

Format (documented in docs/RULES.md, Abyss, Bots)::

    knobs:                      # every knob of layout.KNOBS, once
      buy_value: {type: float, low: 0, high: 3, default: 0}
      plot_max:  {type: int,   low: 0, high: 6, default: 0}
    styles:
      random:   {baseline: true, knobs: {random: 1}}
      courtier: {knobs: {buy_value: 0.4, plot_max: 1}}

A style's knobs left out take the knob's ``default``. ``baseline: true`` marks the
reference style the others are compared with (exactly one). A scenario's seat ``knobs:``
are checked against the same bounds (ints must be whole numbers).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deepsim.botdata import BotData, Knob
from deepsim.botdata import Style as BotStyle
from deepsim.errors import InputError
from deepsim.params import load_yaml, nearest, validate
from deepsim.rulesets.abyss.layout import KNOBS

BOTS_FILE = Path(__file__).with_name("bots.yaml")


class KnobSpec(BaseModel):
    """A knob's type and inclusive bounds, and its value when a style leaves it out."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["int", "float"]
    low: float
    high: float
    default: float = 0.0
    help: str = ""

    @model_validator(mode="after")
    def _bounds(self):
        if self.low > self.high:
            raise ValueError(f"low ({self.low:g}) must be <= high ({self.high:g})")
        check_value("default", self.default, self)
        return self


class Style(BaseModel):
    model_config = ConfigDict(extra="forbid")
    baseline: bool = False
    description: str = ""
    knobs: dict[str, float] = Field(default_factory=dict)


class BotsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    knobs: dict[str, KnobSpec]
    styles: dict[str, Style] = Field(min_length=1)


def check_value(name: str, value: float, spec: KnobSpec) -> None:
    """Raise ValueError unless ``value`` fits the knob's type and bounds."""
    if spec.type == "int" and float(value) != int(value):
        raise ValueError(f"knob {name} is a whole number, got {value!r}")
    if not spec.low <= value <= spec.high:
        raise ValueError(f"knob {name} must lie in [{spec.low:g}, {spec.high:g}], got "
                         f"{value!r}")


@lru_cache(maxsize=1)
def load() -> BotsFile:
    """bots.yaml, validated: every knob of ``layout.KNOBS`` declared once, every style's
    knobs known and within bounds, exactly one baseline style.

    Raises
    ------
    InputError
        Naming bots.yaml, the key and line.
    """
    raw, lines = load_yaml(BOTS_FILE)
    f = validate(BotsFile, raw, source=str(BOTS_FILE), lines=lines)
    missing = [k for k in KNOBS if k not in f.knobs]
    extra = [k for k in f.knobs if k not in KNOBS]
    if missing or extra:
        raise InputError(f"knobs must list exactly the engine's knobs; missing "
                         f"{missing or 'none'}, unknown {extra or 'none'}",
                         file=str(BOTS_FILE), key="knobs", line=lines.get("knobs"))
    for name, style in f.styles.items():
        for k, v in style.knobs.items():
            key = f"styles.{name}.knobs.{k}"
            if k not in f.knobs:
                raise InputError(f"unknown knob{nearest(k, list(f.knobs))}",
                                 file=str(BOTS_FILE), key=key, line=lines.get(key))
            try:
                check_value(k, v, f.knobs[k])
            except ValueError as exc:
                raise InputError(str(exc), file=str(BOTS_FILE), key=key,
                                 line=lines.get(key)) from None
    base = [n for n, s in f.styles.items() if s.baseline]
    if len(base) != 1:
        raise InputError(f"exactly one style must be `baseline: true`, got {base or 'none'}",
                         file=str(BOTS_FILE), key="styles", line=lines.get("styles"))
    return f


def styles() -> dict[str, dict[str, float]]:
    """``{style: {knob: value}}`` with every knob filled (the knob's default)."""
    f = load()
    return {name: {k: float(s.knobs.get(k, f.knobs[k].default)) for k in KNOBS}
            for name, s in f.styles.items()}


def baseline() -> str:
    """The name of the baseline style."""
    return next(n for n, s in load().styles.items() if s.baseline)


def bounds() -> dict[str, KnobSpec]:
    """Each knob's type and bounds."""
    return dict(load().knobs)


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """bots.yaml as the contract's :class:`deepsim.botdata.BotData` (the ruleset's
    ``bot_data()``): knobs in ``layout.KNOBS`` order with their bounds and defaults (the
    ``random`` switch is not searchable), styles with every knob filled and the baseline
    marked.

    Raises
    ------
    InputError
        As :func:`load`.
    """
    f = load()
    knobs = {k: Knob(name=k, type=f.knobs[k].type, low=f.knobs[k].low, high=f.knobs[k].high,
                     default=f.knobs[k].default, search=k != "random", doc=f.knobs[k].help)
             for k in KNOBS}
    full = styles()
    return BotData(file=str(BOTS_FILE), knobs=knobs,
                   styles={n: BotStyle(name=n, knobs=full[n], baseline=st.baseline,
                                       doc=st.description)
                           for n, st in f.styles.items()})
