"""``deepsim odds``: exact dice probabilities for every ruleset's dice (icepool).

One module per ruleset answers its questions from the ruleset's own data file, so a
``--set`` override changes the answer exactly as it changes the simulation:

- ``deepfall``, ``atlantis``: the ruleset's data (``deepsim/rulesets/<name>/ruleset.yaml``,
  read by the ruleset's own ``load_data``, the loader of the kernel);
- ``rivals``, ``rove`` (no ruleset yet): ``deepsim/rulesets/<name>/<name>.yaml`` (Rivals'
  face lists and Rove's affinity profiles are flagged placeholders).

Each ruleset's odds module is ``deepsim/rulesets/<name>/odds.py``.

Each answer is a :class:`deepsim.odds.table.Result` (rendered by :mod:`deepsim.odds.table`).
"""

from __future__ import annotations

import importlib

from deepsim.errors import InputError
from deepsim.params import nearest

RULESETS = ("deepfall", "atlantis", "rivals", "rove")


def module(ruleset: str):
    """The odds module of ``ruleset`` (``QUESTIONS`` and ``answer``)."""
    if ruleset not in RULESETS:
        raise InputError(f"no odds for '{ruleset}'{nearest(ruleset, RULESETS)}; rulesets: "
                         f"{', '.join(RULESETS)}", key="RULESET")
    return importlib.import_module(f"deepsim.rulesets.{ruleset}.odds")


def answer(ruleset: str, question: str, **options):
    """Answer ``question`` about ``ruleset``'s dice; options as the CLI names them."""
    return module(ruleset).answer(question, **options)
