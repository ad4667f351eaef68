"""``deepsim odds``: exact dice probabilities for every ruleset's dice (icepool).

Each ruleset with odds declares its questions in its own folder
(``deepsim/rulesets/<name>/odds.py``, an :class:`~deepsim.rulesets.base.OddsBook` returned
by ``Ruleset.odds()``) and answers them from its own data file, so a ``--set`` override
changes the answer exactly as it changes the simulation. A game deepsim does not simulate
yet can be an odds-only ruleset (:class:`~deepsim.rulesets.base.OddsRuleset`).

Each answer is a :class:`deepsim.odds.table.Result` (rendered by :mod:`deepsim.odds.table`);
this package holds what every ruleset's odds share: the helpers (:mod:`deepsim.odds.common`)
and the renderings. The command is :mod:`deepsim.cli.odds`; from Python,
:func:`deepsim.api.dice_odds` answers a question of a ruleset named by the registry.
"""

from __future__ import annotations
