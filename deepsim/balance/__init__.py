"""``deepsim balance``: the smallest change to the printed numbers that makes the game fair.

Modules: :mod:`~deepsim.balance.levers` (``--levers``: printable grids within the schema's
bounds), :mod:`~deepsim.balance.target` (``verdicts`` / ``expect``: violation and met),
:mod:`~deepsim.balance.search` (K = 1 .. max changes, grid or optuna per subset),
:mod:`~deepsim.balance.robust` (best responses under a patch),
:mod:`~deepsim.balance.run` (:func:`run_balance`: search, confirm, robustness, folder),
:mod:`~deepsim.balance.write` (the folder's files).
"""

from deepsim.balance.levers import Lever, parse_levers
from deepsim.balance.run import BalanceResult, run_balance
from deepsim.balance.search import Budget

__all__ = ["BalanceResult", "Budget", "Lever", "parse_levers", "run_balance"]
