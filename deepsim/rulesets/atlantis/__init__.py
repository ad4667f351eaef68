"""Atlantis: Sea King vs Sea Witch, a two-player hex skirmish (rule ids AT-* and
ambiguities AMB-T* of the digest).

Rules in ``kernel.py`` (with ``board.py``), bots in ``bots.py`` and ``bots.yaml``, numbers
in ``ruleset.yaml`` (``data.py``), maps in ``maps.py``, the contract in ``ruleset.py``;
``odds.py`` answers ``deepsim odds atlantis``, ``report.py`` writes its report sections and
``trace.py`` its trace.
"""

from deepsim.rulesets.atlantis.data import (
    BOTS_FILE,
    DATA,
    DATA_FILE,
    bot_data,
    bot_styles,
    current_rows,
    default_data,
    load_data,
    parameter_paths,
    terrain_codes,
)
from deepsim.rulesets.atlantis.ruleset import AtlantisRuleset

RULESET = AtlantisRuleset()

__all__ = ["BOTS_FILE", "DATA", "DATA_FILE", "RULESET", "AtlantisRuleset", "bot_data",
           "bot_styles", "current_rows", "default_data", "load_data", "parameter_paths",
           "terrain_codes"]
