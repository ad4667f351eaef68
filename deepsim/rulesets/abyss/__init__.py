"""Abyss: a card economy for 2-4 players with an auction, hidden hands and a shared market
(rule ids AB-* and ambiguities AMB-A* of the English digest).

Rules in ``kernel.py`` (with ``state.py``), bots in ``bots.py`` and ``bots.yaml``
(``botconf.py``), numbers in ``ruleset.yaml`` (``data.py``), the contract in
``ruleset.py``; ``report.py`` writes its report sections, ``trace.py`` its trace.
"""

from deepsim.rulesets.abyss.data import (
    BOTS_FILE,
    DATA,
    DATA_FILE,
    bot_styles,
    default_data,
    load_data,
    load_lord_file,
    parameter_paths,
    placeholders,
)
from deepsim.rulesets.abyss.ruleset import AbyssRuleset

RULESET = AbyssRuleset()

__all__ = ["BOTS_FILE", "DATA", "DATA_FILE", "RULESET", "AbyssRuleset", "bot_styles",
           "default_data", "load_data", "load_lord_file", "parameter_paths", "placeholders"]
