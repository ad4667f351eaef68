"""Bank's data: the data file (``ruleset.yaml``), the bots' data (``bots.yaml``), the
outcomes and the tables' columns."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from deepsim.botdata import BotData, load_bot_data
from deepsim.rulesets import common
from deepsim.rulesets.bank import kernel as K

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"
RULES_FILE = HERE / "rules.md"

#: rules the engine does not implement: none (every section of rules.md is in kernel.py)
SKIPPED_RULES: list[str] = []

#: how a game ends (rules.md B3, B5, B6), in the kernel's code order (kernel.O_*)
OUTCOMES = {"banked": "won", "clock": "lost", "out_of_time": "lost"}
#: each outcome's rule and wording
OUTCOME_TEXT = {"banked": "B5: the pool reached the goal",
                "clock": "B3: the clock reached its limit",
                "out_of_time": "B6: the rounds ran out"}


def _model():
    from deepsim.rulesets.bank.schema import BankData
    return BankData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)

#: every column of the games / seats tables with its dtype (the contract's declaration)
GAMES_COLUMNS, SEATS_COLUMNS = common.coop_columns(K.GAME_INT, K.SEAT_INT)


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """bots.yaml checked against the knobs the kernel reads (``kernel.KNOBS``).

    Raises
    ------
    InputError
        Naming bots.yaml, the key and line.
    """
    return load_bot_data(BOTS_FILE, K.KNOBS)
