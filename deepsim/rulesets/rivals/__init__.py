"""Rivals: Masters of the Deep: an odds-only ruleset (``deepsim odds rivals QUESTION``; no kernel yet).

Its dice and the numbers its questions read are in ``rivals.yaml`` (with ``--set``
overrides, listed by ``deepsim params rivals``); the questions are in ``odds.py``.
"""

from __future__ import annotations

from pathlib import Path

from deepsim.rulesets.base import OddsRuleset
from deepsim.rulesets.common import DataFile


def _model():
    from deepsim.rulesets.rivals.odds import RivalsData
    return RivalsData


#: the data file the odds read (``--set`` paths: ``deepsim params rivals``)
DATA = DataFile(Path(__file__).with_name("rivals.yaml"), _model)


class RivalsRuleset(OddsRuleset):
    """Rivals: Masters of the Deep: dice odds only (deepsim.rulesets.base.OddsRuleset)."""

    name = "rivals"
    title = "Rivals: Masters of the Deep"

    def odds(self):
        """The questions of odds.py."""
        from deepsim.rulesets.rivals.odds import BOOK
        return BOOK

    def parameters(self) -> list[dict]:
        """Every path of rivals.yaml a ``--set`` can change, with its default, type and
        bounds."""
        return DATA.parameters()


RULESET = RivalsRuleset()
