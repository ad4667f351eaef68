"""Ruleset registry: each sub-package with a ``RULESET`` object is a game (see ``base.py``)."""

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
    """The ``RULESET`` object of ruleset ``name`` (a :class:`~deepsim.rulesets.base.Ruleset`
    or an odds-only :class:`~deepsim.rulesets.base.OddsRuleset`).

    Raises
    ------
    InputError
        When no such ruleset exists (naming the nearest ones), or when its folder breaks the
        contract of ``base.py`` (saying how).
    """
    from deepsim.rulesets.base import check_ruleset

    names = available()
    if name not in names:
        raise InputError(f"unknown ruleset '{name}'{nearest(name, names)}; "
                         f"known: {', '.join(names)}", key="ruleset")
    obj = getattr(importlib.import_module(f"deepsim.rulesets.{name}"), "RULESET", None)
    problems = check_ruleset(obj)
    if problems:
        raise InputError(f"ruleset '{name}' (deepsim/rulesets/{name}/) breaks the ruleset "
                         f"contract: {'; '.join(problems)}", key="ruleset")
    return obj


def playable() -> list[str]:
    """Names of the rulesets that have a kernel (``Ruleset.plays``), not odds-only ones."""
    return [n for n in available() if get(n).plays]
