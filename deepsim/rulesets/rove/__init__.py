"""Rove: an odds-only ruleset (``deepsim odds rove QUESTION``; no kernel yet).

Its dice and the numbers its questions read are in ``rove.yaml`` (with ``--set``
overrides, listed by ``deepsim params rove``); the questions are in ``odds.py``.
"""

from __future__ import annotations

from pathlib import Path

from deepsim.rulesets.base import DataOddsRuleset
from deepsim.rulesets.common import DataFile


def _model():
    from deepsim.rulesets.rove.odds import RoveData
    return RoveData


class RoveRuleset(DataOddsRuleset):
    """Rove: dice odds only (:class:`deepsim.rulesets.base.DataOddsRuleset`)."""

    name = "rove"
    title = "Rove"
    #: the data file the odds read (``--set`` paths: ``deepsim params rove``)
    data = DataFile(Path(__file__).with_name("rove.yaml"), _model)


DATA = RoveRuleset.data
RULESET = RoveRuleset()
