"""Rove's data: the data file (``rove.yaml``), the bots' data (``bots.yaml``), the outcomes,
the rules the engine does not play yet and the tables' columns."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from deepsim.botdata import BotData, load_bot_data
from deepsim.rulesets import common
from deepsim.rulesets.rove import layout as L

HERE = Path(__file__).parent
DATA_FILE = HERE / "rove.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: rules of the core rulebook the engine does not play yet (docs/RULES.md, "Rove"); every
#: run's report lists them, with the content that needs them (compile.Compiled.skipped)
SKIPPED_RULES: list[str] = [
    ('Target Pattern (RO-L4): patterns are not played; an action uses range and Target'
     ' X'),
    'Creations (RO-X8): Rover traps, glyphs and summons',
    'Large Adversaries (RO-A9): a large adversary occupies one space',
    'Spawning (RO-A10), switching maps, codex entries, special rules (Golden Rule)',
    ('Ether field placement by an action aimed at a space (RO-TI5, with the positive/'
     'negative limits, AMB-R8) and the adversaries avoiding Wildfire and Snapfrost when '
     'pathing (AMB-R26, played as "no"): fields are placed by the map and as an effect '
     "into each target's space"),
    ('Ether nodes, special objects, treasure chests and hoard tiles (Map Spaces; '
     'Tiles)'),
    ('Reaction windows other than "targeted by an attack, before its damage" (RO-R5):'
     ' the timing windows printed on real reaction cards'),
    'Trade (RO-X7), forced actions (RO-X9), allies (Characters and Ally Cards)',
    ("Items beyond a bonus to the Rover's next attack and consumable actions (timing "
     "windows other than 'during your turn'); Story Mode's free item"),
    ('Adversary ties between equally good spaces (AMB-R1 for spaces): the first space '
     'in reading order; target ties follow ai.tiebreak'),
    ("Challenges: an encounter's challenges are listed, applied only as the designer's"
     ' overrides'),
    ('Dangerous spaces at the end of a turn (Map Spaces, dangerous (c)): a unit ending its'
     ' turn in the dangerous space it began the turn in does not suffer again'),
]

#: how an encounter ends (Winning / Losing an Encounter), in the kernel's code order
OUTCOMES = dict(L.OUTCOMES)
#: each outcome's rule and wording
OUTCOME_TEXT = {"victory": "Winning an Encounter: the objective was met",
                "all_downed": "Losing an Encounter: all Rovers are downed",
                "round_limit": "Losing an Encounter: the final round ended, objective unmet"}


def _model():
    from deepsim.rulesets.rove.schema import RoveData
    return RoveData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)

GAMES_COLUMNS, SEATS_COLUMNS = common.coop_columns(L.GAME_INT, L.SEAT_INT,
                                                  {"encounter": "category"})


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """bots.yaml checked against the knobs the kernel reads (``layout.KNOBS``).

    Raises
    ------
    InputError
        Naming bots.yaml, the key and line.
    """
    return load_bot_data(BOTS_FILE, L.KNOBS)
