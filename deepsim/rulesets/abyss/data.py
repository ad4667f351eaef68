"""Abyss's data: the data file (``ruleset.yaml``) with its placeholder flags, a designer's
lord list, the bot styles (``bots.yaml``, :mod:`botconf`), the rules the engine skips and
the tables' columns."""

from __future__ import annotations

from pathlib import Path

from deepsim.params import load_yaml, validate
from deepsim.rulesets import common
from deepsim.rulesets.abyss import botconf
from deepsim.rulesets.abyss import layout as L

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not implement (also listed in docs/RULES.md).
SKIPPED_RULES: list[str] = [
    ("AB-L5 lord abilities (immediate effects and passive powers): the source prints no "
     "lord texts; the lords have no abilities (keys of passive lords are simulated)"),
]


def _model():
    from deepsim.rulesets.abyss.schema import AbyssData
    return AbyssData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)
default_data = DATA.default_data
parameter_paths = DATA.parameter_paths
#: validated ruleset data (``schema.AbyssData``) after dotted-path overrides
load_data = DATA.load


def bot_styles() -> dict[str, dict[str, float]]:
    """Bot styles from bots.yaml with every knob filled (the knob's default)."""
    return botconf.styles()


def placeholders(d) -> list[str]:
    """Parameter paths whose data is invented (digest §D) while their flag is set."""
    out = []
    if d.depth.placeholder:
        out.append("depth.ally_counts")
    if d.explore.placeholder:
        out.append("explore.row_length")
    if d.threat.placeholder:
        out.append("threat.track")
    if d.keys.placeholder:
        out.append("keys.token_supply")
    if d.locations.placeholder:
        out.append("locations.vp")
    if d.lords.placeholder:
        out.append("lords.deck")
    return out


def load_lord_file(path: Path, shown: str) -> tuple[list[dict], bool]:
    """A designer's lord list (scenario key ``lords: PATH``): the lords as mappings and its
    ``placeholder`` flag.

    Raises
    ------
    InputError
        Missing or malformed file, or a lord that does not validate (file, line, key).
    """
    from deepsim.rulesets.abyss.schema import LordFile
    raw, lines = load_yaml(path)
    lf = validate(LordFile, raw, source=shown, lines=lines)
    return [lord.model_dump() for lord in lf.lords], lf.placeholder


#: every column of the games / seats tables with its dtype (the contract's declaration)
GAMES_COLUMNS = {"game": "int64", "seed": "int64", **{c: "int64" for c in L.GAME_INT},
                  "truncated": "bool", **{c: "float64" for c in L.GAME_FLT},
                  "end": "category", "decided_by": "category"}
SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64", "bot": "category",
                  **{c: "int64" for c in L.SEAT_INT if c != "bot"},
                  **{c: "float64" for c in L.SEAT_FLT}, "fair": "float64", "first": "bool"}
