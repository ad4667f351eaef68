"""Bank: a co-operative push-your-luck dice game (``rules.md``, sections B1-B8), deepsim's
proof of the co-operative contract: the party banks a goal within a number of rounds
while a clock advances on some faces.

Rules in ``kernel.py``, numbers in ``ruleset.yaml`` (``data.py``, ``schema.py``), bots in
``bots.yaml``, the contract in ``ruleset.py``, the log in ``trace.py`` and the exact
party win probability by dynamic programming in ``exact.py``.
"""

from deepsim.rulesets.bank.data import DATA, OUTCOMES, bot_data
from deepsim.rulesets.bank.ruleset import BankRuleset

RULESET = BankRuleset()

__all__ = ["DATA", "OUTCOMES", "RULESET", "BankRuleset", "bot_data", "parameter_paths"]

#: every settable dotted path of the data with its default (``deepsim params bank``)
parameter_paths = DATA.parameter_paths
