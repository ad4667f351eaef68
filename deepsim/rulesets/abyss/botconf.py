"""Abyss's bot data: ``bots.yaml`` read by the shared :mod:`deepsim.botdata` (knobs with
type, bounds and ``search``; styles, ``baseline`` marked), with the helpers ``prepare``
uses. Format: ``deepsim/botdata.py``; the knobs and styles: docs/RULES.md, Abyss, Bots.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from deepsim.botdata import BotData, Knob, load_bot_data
from deepsim.errors import InputError
from deepsim.rulesets.abyss.layout import KNOBS

BOTS_FILE = Path(__file__).with_name("bots.yaml")


def check_value(name: str, value: float, spec: Knob) -> None:
    """Raise ValueError unless ``value`` fits the knob's type and bounds."""
    if spec.type in ("int", "bool") and float(value) != int(value):
        raise ValueError(f"knob {name} is a whole number, got {value!r}")
    if not spec.low <= value <= spec.high:
        raise ValueError(f"knob {name} must lie in [{spec.low:g}, {spec.high:g}], got "
                         f"{value!r}")


@lru_cache(maxsize=1)
def load() -> BotData:
    """bots.yaml, validated: every knob of ``layout.KNOBS`` declared once with its bounds,
    every style's knobs known and within bounds, exactly one baseline style.

    Raises
    ------
    InputError
        Naming bots.yaml, the key and line.
    """
    data = load_bot_data(BOTS_FILE, KNOBS)
    if len(data.baseline_styles) != 1:
        raise InputError(f"exactly one style must be `baseline: true`, got "
                         f"{list(data.baseline_styles) or 'none'}", file=str(BOTS_FILE),
                         key="styles")
    return data


def styles() -> dict[str, dict[str, float]]:
    """``{style: {knob: value}}`` with every knob filled (the knob's default)."""
    return load().values()


def baseline() -> str:
    """The name of the baseline style."""
    return load().baseline_styles[0]


def bounds() -> dict[str, Knob]:
    """Each knob's type and bounds."""
    return dict(load().knobs)


def bot_data() -> BotData:
    """The contract's ``bot_data()``: :func:`load` (bots.yaml through the shared
    :mod:`deepsim.botdata`; the ``random`` switch is ``search: false`` there).

    Raises
    ------
    InputError
        As :func:`load`.
    """
    return load()
