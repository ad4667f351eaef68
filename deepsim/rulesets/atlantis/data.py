"""Atlantis's data: the data file (``ruleset.yaml``), the bots' data (``bots.yaml``), the
terrain codes of a map's text, the rules the engine skips and the tables' columns."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from deepsim.botdata import BotData, load_bot_data
from deepsim.rulesets import common
from deepsim.rulesets.atlantis import layout as L

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not implement (also listed in docs/RULES.md). None: every
#: rule of the text is in kernel.py (every parameter of layout.RULES is read there or in
#: board.py/bots.py); where the text is unclear the engine follows the AMB-T* parameters.
SKIPPED_RULES: list[str] = []

#: the map-size keys a fixed map (scenario ``map: {file|grid}``) decides
MAP_KEYS = ("map.source", "map.width", "map.height")


def _model():
    from deepsim.rulesets.atlantis.schema import AtlantisData
    return AtlantisData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)
default_data = DATA.default_data
parameter_paths = DATA.parameter_paths
#: validated ruleset data (``schema.AtlantisData``) after dotted-path overrides
load_data = DATA.load


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """The bots' knobs (type, bounds, searchable) and styles from bots.yaml."""
    return load_bot_data(BOTS_FILE, L.KNOBS)


def bot_styles() -> dict[str, dict[str, float]]:
    """Bot styles from bots.yaml with every knob filled (a knob a style leaves out takes
    the knob's default)."""
    return bot_data().values()


def terrain_codes(data) -> dict[str, int]:
    """``{map text code: terrain row}`` from the data's terrain table."""
    return {t.code: i for i, t in enumerate(data.terrain.values())}


def current_rows(data) -> set[int]:
    """Terrain rows whose hexes carry a current direction (Current, River Outflow)."""
    return {i for i, t in enumerate(data.terrain.values()) if t.current}


def side_title(side: str) -> str:
    """The title of a side (``sea_witch`` -> ``Sea Witch``)."""
    return L.SIDE_TITLES[L.SIDES.index(side)]


#: every column of the games / seats tables with its dtype (the contract's declaration)
GAMES_COLUMNS = {"game": "int64", "seed": "int64", **{c: "int64" for c in L.GAME_INT},
                  "truncated": "bool", "adjudicated": "bool",
                  **{c: "float64" for c in L.GAME_FLT},
                  **{c: "category" for c in ("winner", "end", "first", "killer")}}
SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64",
                  **{c: "category" for c in ("faction", "bot")},
                  **{c: "int64" for c in L.SEAT_INT if c not in ("side", "bot")},
                  **{c: "float64" for c in L.SEAT_FLT}, "fair": "float64",
                  "outcome": "category", "first": "bool"}
