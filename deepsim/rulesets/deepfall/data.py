"""DEEPFALL's data: the data file (``ruleset.yaml``) with its settable paths and
placeholder flags, the bots' data (``bots.yaml``), the companies, the rules the engine
skips, the tables' columns and the report's settings."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from deepsim.botdata import BotData, load_bot_data
from deepsim.report.config import ReportOption
from deepsim.rulesets import common
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.scenario import DeepfallScenario
from deepsim.rulesets.deepfall.schema import (
    CALLINGS,
    DICE,
    LINEAGES,
    DeepfallData,
    display_name,
)

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"


#: Rulebook rules the engine does not implement (also listed in docs/RULES.md).
SKIPPED_RULES: list[str] = [
    "§2 Denizen rep tracks: listed as a component, but no rule of §3-§9 uses them",
    "§7.2 Library note 'loot-rich': no mechanic beyond the tile's value (A44)",
]


def _settable_paths(paths: dict) -> dict:
    """The data's leaf paths with every die of each starting bag (A3).

    A starting bag may be changed one die at a time; a die the bag does not hold is there
    with count 0 (lineages.wisp.start_bag.warrior=2 adds two Warriors).
    """
    out: dict = {}
    for path, value in paths.items():
        bag = path.rpartition(".")[0]
        if bag.startswith("lineages.") and bag.endswith(".start_bag"):
            if f"{bag}.{DICE[0]}" not in out:        # the bag's first key: every die, in order
                out.update({f"{bag}.{die}": paths.get(f"{bag}.{die}", 0) for die in DICE})
            continue
        out[path] = value
    return out


#: placeholder flag -> the data it flags. Supplying the whole of that data (or a mapping
#: that holds it) clears the flag unless the same overrides set the flag itself; a partial
#: change (one die of a bag, one floor's weights) leaves the rest placeholder and the flag on.
_PLACEHOLDER_DATA = {**{f"lineages.{n}.start_bag_placeholder": f"lineages.{n}.start_bag"
                        for n in LINEAGES},
                     "dungeon.placeholder": "dungeon.floor_weights"}


def _clear_supplied_placeholders(data: dict, paths: list[str]) -> None:
    """Clear (in place) each placeholder flag whose data the designer supplied whole.

    ``paths`` are the override paths applied to ``data``. A flag the designer wrote (its
    own path, or its key inside a mapping they supplied) is left as they wrote it.
    """
    def under(path: str) -> bool:        # path itself or a mapping holding it was supplied
        return path in paths or any(path.startswith(p + ".") for p in paths)

    for flag, target in _PLACEHOLDER_DATA.items():
        if not under(target):
            continue
        *parents, leaf = flag.split(".")
        node = data
        for part in parents:
            node = node[part]
        # a supplied mapping replaced the base, so the flag's key is there only if written
        written = flag in paths or (under(flag) and leaf in node)
        if not written:
            node[leaf] = False


def _after_overrides(data: dict, paths: list[str]) -> None:
    """Clear the placeholder flags of supplied data, and drop the dice a starting bag holds
    0 of (A3: a bag without a die and one with 0 of it are the same bag, so setting a die
    to its default 0 leaves the parameters, and their hash, unchanged)."""
    _clear_supplied_placeholders(data, paths)
    for lineage in (data.get("lineages") or {}).values():
        bag = lineage.get("start_bag") if isinstance(lineage, dict) else None
        if isinstance(bag, dict):
            for die in [k for k, v in bag.items() if type(v) is int and v == 0]:
                del bag[die]


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, lambda: DeepfallData, paths=_settable_paths,
                       on_overrides=_after_overrides)
default_data = DATA.default_data
parameter_paths = DATA.parameter_paths
#: validated ruleset data after dotted-path overrides (``DataFile.load``)
load_data = DATA.load


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """The bots' knobs (type, bounds, searchable) and styles from bots.yaml."""
    return load_bot_data(BOTS_FILE, L.KNOBS)


def bot_styles() -> dict[str, dict[str, float]]:
    """Bot styles from bots.yaml with every knob filled (a knob a style leaves out takes
    the knob's default)."""
    return bot_data().values()


def companies() -> list[str]:
    """Every company's name in the kernel's company-code order (Lineage x 6 + Calling),
    spelled as the rulebook prints it (schema.display_name)."""
    return [f"{display_name(a)} {display_name(b)}" for a in LINEAGES for b in CALLINGS]


def placeholders(d: DeepfallData, lineages: set[str] | None = None) -> list[str]:
    """The placeholder data a run rests on: the starting bags of the Lineages it can deal
    (``lineages``; None: every one) that are still flagged, and the floor weights."""
    out = [f"lineages.{n}.start_bag" for n in LINEAGES   # A3: cards not printed
           if d.lineages[n].start_bag_placeholder and (lineages is None or n in lineages)]
    if d.dungeon.placeholder:
        out.append("dungeon.floor_weights")              # A21
    return out


#: what the report's claims read (deepsim report --option KEY=VALUE)
REPORT_OPTIONS = (
    ReportOption("claims.rounds_target", "rounds_target", 11.0,
                 "B1: the rulebook's game length in rounds"),
    ReportOption("claims.rounds_tolerance", "rounds_tolerance", 1.0,
                 "B1: '~' means the mean is within this many rounds of the target"),
    ReportOption("claims.touch_max", "touch_max", 0.20,
                 "B3, B5: 'a touch / slightly strong' means win share above fair, by at most "
                 "this fraction (0.2 = +20%)"),
    ReportOption("claims.almost_never", "almost_never", 0.05,
                 "B4: 'almost never' means in at most this share of player-games (or of "
                 "crews)"),
    ReportOption("claims.substitute_tolerance", "substitute_tolerance", 0.25,
                 "B5: exits are substitutes when the win-rate ratio of their users is within "
                 "[1/(1+this), 1+this]"),
    ReportOption("claims.tight_margin", "tight_margin", 0.10,
                 "B6: a game is tight when the winner leads the runner-up by at most this "
                 "fraction of its Glory"),
    ReportOption("claims.contention_tolerance", "contention_tolerance", 0.25,
                 "B7: contention is constant when the largest player count's value is at "
                 "most 1 + this times the smallest"),
    ReportOption("claims.dead_ratio", "dead_ratio", 0.5,
                 "B2: a dead pick wins less than this x its fair share (half a fair chance "
                 "or worse: a player who picks it gives away more than half of it)"),
    ReportOption("claims.mirror_tolerance", "mirror_tolerance", 0.25,
                 "B6: margins are as tight as mirror games' when the median relative margin "
                 "is at most 1 + this times theirs (calibration.yaml)"),
)


#: every column of the games / seats tables with its dtype (the contract's declaration)
GAMES_COLUMNS = {"game": "int64", "seed": "int64", **{c: "int64" for c in L.GAME_INT},
                  "truncated": "bool", **{c: "float64" for c in L.GAME_FLT}}
SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64",
                  **{c: "category" for c in ("lineage", "calling", "company", "bot")},
                  **{c: "int64" for c in L.SEAT_INT if c not in ("lineage", "calling", "bot")},
                  **{c: "float64" for c in L.SEAT_FLT}, "fair": "float64"}


def dealt_lineages(sc: DeepfallScenario, counts: list[int]) -> set[str] | None:
    """The Lineages a scenario can deal (None: any, when a seat it plays is random)."""
    seats = sc.seats[:max(counts)] if sc.seats else []
    if not seats or len(seats) < max(counts) or any(s.lineage == "random" for s in seats):
        return None
    return {s.lineage for s in seats}
