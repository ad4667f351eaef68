"""Rove: an odds-only ruleset (``deepsim odds rove QUESTION``; no kernel yet).

Its dice and the numbers its questions read are in ``rove.yaml`` (with ``--set``
overrides, listed by ``deepsim params rove``); the questions are in ``odds.py``.
"""

from __future__ import annotations

from pathlib import Path

from deepsim.rulesets.base import OddsRuleset
from deepsim.rulesets.common import DataFile


def _model():
    from deepsim.rulesets.rove.odds import RoveData
    return RoveData


#: the data file the odds read (``--set`` paths: ``deepsim params rove``)
DATA = DataFile(Path(__file__).with_name("rove.yaml"), _model)


class RoveRuleset(OddsRuleset):
    """Rove: dice odds only (deepsim.rulesets.base.OddsRuleset)."""

    name = "rove"
    title = "Rove"

    def odds(self):
        """The questions of odds.py."""
        from deepsim.rulesets.rove.odds import BOOK
        return BOOK

    def parameters(self) -> list[dict]:
        """Every path of rove.yaml a ``--set`` can change, with its default, type and
        bounds."""
        return DATA.parameters()


RULESET = RoveRuleset()
