"""DEEPFALL: a dungeon crawl for 2-6 players, the first ruleset deepsim plays.

Rules in ``kernel.py`` (with ``board.py``, ``events.py``), bots in ``bots.py`` and
``bots.yaml``, numbers in ``ruleset.yaml`` (``data.py``), the contract in ``ruleset.py``;
``odds.py`` answers ``deepsim odds deepfall``, ``report.py`` and ``claims.py`` write its
report, ``trace.py`` and ``why.py`` its trace.
"""

from deepsim.rulesets.deepfall.data import (
    BOTS_FILE,
    DATA,
    REPORT_OPTIONS,
    SKIPPED_RULES,
    bot_data,
    bot_styles,
    companies,
    default_data,
    load_data,
    parameter_paths,
)
from deepsim.rulesets.deepfall.ruleset import DeepfallRuleset

RULESET = DeepfallRuleset()

__all__ = ["BOTS_FILE", "DATA", "REPORT_OPTIONS", "RULESET", "SKIPPED_RULES",
           "DeepfallRuleset", "bot_data", "bot_styles", "companies", "default_data",
           "load_data", "parameter_paths"]
