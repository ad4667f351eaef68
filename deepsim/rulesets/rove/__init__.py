"""Rove: the co-operative rules engine of the Rove core rulebook with its adversary AI, on
placeholder content (the class boxes, adversary book and campaign are not available).

Numbers of the rules and the shipped content in ``rove.yaml`` (``schema.py``; content in the
action grammar, compiled by ``compile.py``), rules in ``kernel.py``, bots in ``bots.yaml``,
the contract in ``ruleset.py``, the log in ``trace.py``, the dice odds in ``odds.py``.
"""

from deepsim.rulesets.rove.data import DATA, OUTCOMES, bot_data
from deepsim.rulesets.rove.ruleset import RoveRuleset

RULESET = RoveRuleset()

__all__ = ["DATA", "OUTCOMES", "RULESET", "RoveRuleset", "bot_data", "parameter_paths"]

#: every settable dotted path of the data with its default (``deepsim params rove``)
parameter_paths = DATA.parameter_paths
