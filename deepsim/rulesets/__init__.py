"""Ruleset registry: each sub-package with a ``RULESET`` object is a playable game."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from deepsim.errors import InputError
from deepsim.params import nearest

_HERE = Path(__file__).parent


def available() -> list[str]:
    """Names of the rulesets shipped (one folder each under deepsim/rulesets/)."""
    return sorted(m.name for m in pkgutil.iter_modules([str(_HERE)]) if m.ispkg)


def get(name: str):
    """The ``RULESET`` object of ruleset ``name``.

    Raises
    ------
    InputError
        When no such ruleset exists (naming the nearest ones).
    """
    names = available()
    if name not in names:
        raise InputError(f"unknown ruleset '{name}'{nearest(name, names)}; "
                         f"known: {', '.join(names)}", key="ruleset")
    return importlib.import_module(f"deepsim.rulesets.{name}").RULESET
