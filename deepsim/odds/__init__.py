"""``deepsim odds``: exact dice probabilities for every ruleset's dice (icepool).

Each ruleset with odds declares its questions in its own folder
(``deepsim/rulesets/<name>/odds.py``, an :class:`~deepsim.rulesets.base.OddsBook` returned
by ``Ruleset.odds()``) and answers them from its own data file, so a ``--set`` override
changes the answer exactly as it changes the simulation. A game deepsim does not simulate
yet can be an odds-only ruleset (:class:`~deepsim.rulesets.base.OddsRuleset`).

Each answer is a :class:`deepsim.odds.table.Result` (rendered by :mod:`deepsim.odds.table`);
this package holds what every ruleset's odds share: the command (:mod:`deepsim.odds.cli`),
the helpers (:mod:`deepsim.odds.common`) and the renderings.
"""

from __future__ import annotations

from deepsim.errors import InputError


def book(ruleset: str):
    """The odds book of ``ruleset`` (its questions, options and ``answer``).

    Raises
    ------
    InputError
        An unknown ruleset, or one without odds questions.
    """
    from deepsim import rulesets

    b = rulesets.get(ruleset).odds()
    if b is None:
        raise InputError(f"ruleset '{ruleset}' has no odds questions", key="RULESET")
    return b


def answer(ruleset: str, question: str, **options):
    """Answer ``question`` about ``ruleset``'s dice; options as the CLI names them.

    Raises
    ------
    InputError
        An unknown ruleset or question, or a bad option or ``--set``.
    """
    return book(ruleset).answer(question, **options)
