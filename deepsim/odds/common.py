"""Helpers shared by the ``deepsim odds`` modules: data files, option parsing, icepool."""

from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool
from pydantic import BaseModel

from deepsim.errors import InputError
from deepsim.params import apply_overrides, leaf_paths, load_yaml, nearest, validate


def exact_method() -> str:
    """The method line of an exact answer."""
    return f"exact (icepool {icepool.__version__}); no sampling"


def load_data(path: Path, model: type[BaseModel], overrides: list[str] | None) -> BaseModel:
    """Validated data of an odds-only ruleset's data file (``path``) after ``--set``
    overrides.

    Raises
    ------
    InputError
        Unknown path (with the nearest valid ones) or an invalid value.
    """
    path = Path(path)
    raw, lines = load_yaml(path)
    base = validate(model, raw, source=str(path), lines=lines).model_dump()
    if not overrides:
        return model.model_validate(base)
    data = apply_overrides(copy.deepcopy(base), overrides, valid_paths=leaf_paths(base),
                           source="--set")
    return validate(model, data, source=f"{path.name} / --set")


def parse_counts(text: str | None, names, *, key: str, allow_zero: bool = True
                 ) -> dict[str, int]:
    """``"warrior=2,recruit=4"`` -> ``{"warrior": 2, "recruit": 4}`` (names checked)."""
    out: dict[str, int] = {}
    if not text:
        return out
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" in part:
            name, num = part.split("=", 1)
        else:
            name, num = part, "1"
        name = name.strip().lower().replace("-", "_")
        if name not in names:
            raise InputError(f"unknown name '{name}'{nearest(name, names)}; known: "
                             f"{', '.join(names)}", key=key)
        try:
            n = int(num)
        except ValueError:
            raise InputError(f"'{part}': the count must be a whole number", key=key) from None
        if n < 0 or (n == 0 and not allow_zero):
            raise InputError(f"'{part}': the count must be positive", key=key)
        out[name] = out.get(name, 0) + n
    return out


def parse_signed(text: str | None, names, *, key: str) -> dict[str, int]:
    """``"fire=+2,water=-1"`` -> ``{"fire": 2, "water": -1}`` (names checked)."""
    out: dict[str, int] = {}
    if not text:
        return out
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise InputError(f"'{part}' must look like name=value", key=key)
        name, num = part.split("=", 1)
        name = name.strip().lower()
        if name not in names:
            raise InputError(f"unknown name '{name}'{nearest(name, names)}; known: "
                             f"{', '.join(names)}", key=key)
        try:
            out[name] = int(num)
        except ValueError:
            raise InputError(f"'{part}': the value must be a whole number", key=key) from None
    return out


def probs(die: icepool.Die) -> dict[Any, Fraction]:
    """{outcome: exact probability} of an icepool die."""
    d = die.denominator()
    return {o: Fraction(q, d) for o, q in die.items()}


def at_least(p: dict[int, Fraction], k: int) -> Fraction:
    """P(X >= k) from an exact distribution."""
    return sum((v for o, v in p.items() if o >= k), Fraction(0))


def mean(p: dict[Any, Fraction]) -> Fraction:
    """E[X] of an exact distribution over numbers."""
    return sum((o * v for o, v in p.items()), Fraction(0))


def need(value: int, *, key: str, lo: int = 0, hi: int | None = None) -> int:
    """Check an integer option's bounds."""
    if value < lo or (hi is not None and value > hi):
        bounds = f">= {lo}" + (f" and <= {hi}" if hi is not None else "")
        raise InputError(f"must be {bounds}, got {value}", key=key)
    return value
