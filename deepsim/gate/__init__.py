"""CI balance gate: ``deepsim check`` (a scenario's ``expect:`` block judged with intervals,
family-wise error control and optional alpha spending) and ``deepsim compare`` (two variants
on paired games with a sequential probability ratio test).

Modules: :mod:`~deepsim.gate.expect` (the ``expect:`` block, metric names and intervals),
:mod:`~deepsim.gate.sequential` (looks and Lan-DeMets alpha spending),
:mod:`~deepsim.gate.sprt` (Wald's SPRT / fishtest's GSPRT), :mod:`~deepsim.gate.check` and
:mod:`~deepsim.gate.compare` (the two commands' engines), :mod:`~deepsim.gate.junit` (JUnit
XML) and :mod:`~deepsim.gate.cli` (typer commands and rich tables).

Exit codes of both commands: 0 pass (``compare``: H0 accepted), 1 fail (H1 accepted),
3 inconclusive within the game budget, 2 bad input.
"""

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_INPUT = 2
EXIT_INCONCLUSIVE = 3

__all__ = ["EXIT_FAIL", "EXIT_INCONCLUSIVE", "EXIT_INPUT", "EXIT_PASS"]
