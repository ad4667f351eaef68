"""Rivals: Masters of the Deep: a 2-4 player hex skirmish with exploding dice.

The rules (``../shared/rulebooks/000_22dabda40dfb512e.txt``; rule ids RV-* and ambiguities
AMB-* of the digest, AMB-27.. of the scope) are played by ``kernel.py`` from the numbers of
``rivals.yaml``; the bots are ``bots.py`` with ``bots.yaml``; ``odds.py`` answers
``deepsim odds rivals`` from the same dice data. The ruleset class is ``ruleset.py``.
"""

from deepsim.rulesets.rivals.ruleset import DATA, RULESET, RivalsRuleset

#: every settable dotted path of rivals.yaml with its default
parameter_paths = DATA.parameter_paths

__all__ = ["RULESET", "RivalsRuleset", "parameter_paths"]
