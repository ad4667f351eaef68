"""Rivals: Masters of the Deep: a 2-4 player hex skirmish with exploding dice (rule ids RV-*
and ambiguities AMB-* of the digest, AMB-27.. of the scope).

Rules in ``kernel.py`` (with ``state.py``, ``board.py``, ``dice.py``), bots in ``bots.py``
and ``bots.yaml``, numbers in ``rivals.yaml`` (``data.py``; ``odds.py`` answers ``deepsim
odds rivals`` from the same dice), the map in ``maps.py`` and ``hexgrid.py``, the contract
in ``ruleset.py``; ``report.py`` writes its report sections, ``trace.py`` its trace.
"""

from deepsim.rulesets.rivals.data import DATA, parameter_paths, placeholders
from deepsim.rulesets.rivals.ruleset import RivalsRuleset

RULESET = RivalsRuleset()

__all__ = ["DATA", "RULESET", "RivalsRuleset", "parameter_paths", "placeholders"]
