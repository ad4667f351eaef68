"""Rivals's data: the data file (``rivals.yaml``) with its placeholder flags, a designer's
data files (scenario key ``data:``), the bot styles (``bots.yaml``), the rules the engine
skips and the tables' columns."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from deepsim.botdata import BotData, load_bot_data
from deepsim.errors import InputError
from deepsim.params import apply_overrides, leaf_paths, load_yaml, nearest, validate
from deepsim.rulesets import common
from deepsim.rulesets.rivals import layout as L

HERE = Path(__file__).parent
DATA_FILE = HERE / "rivals.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not play (also in docs/RULES.md, every banner and run.json)
SKIPPED_RULES: list[str] = [
    ("RV-S6 Starter cards (Abilities, Items, Weapons): their 44 texts are not in the "
     "rulebook; the budget buys characters only"),
    ("RV-C4 named abilities (Cut the Rations, Shield Line, Adrenaline Musk, Crumbling Aura, "
     "Warcry, Paralyze, Coral Wall, Curative Coral): names only in the text; one generic "
     "PLACEHOLDER ability, Focus, stands for all"),
    ("RV-K1..K5 status effects (Stun, Poison, Paralyze, Control) and RV-X1 Recover: nothing "
     "in the text inflicts them without the card and ability texts"),
    "RV-P1 Lurker abilities and RV-P6 Controlled Lurkers: the card texts are missing",
    ("RV-M4 Share: loot is equipped to its finder at once (RV-I1); the text never says how "
     "the Loot Supply's items are equipped, so nothing is shared"),
    ("RV-E1 Event deck: its 25 cards are not in the text; the deck is empty unless a "
     "designer supplies one (scenario key data:)"),
]


def _model():
    from deepsim.rulesets.rivals.schema import RivalsData
    return RivalsData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)
#: the groups a designer's data file (scenario key ``data:``) may give
DESIGNER_GROUPS = ("colours", "roster", "lurkers", "loot", "events", "abilities")


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """The bots' knobs (type, bounds, searchable) and styles from bots.yaml."""
    return load_bot_data(BOTS_FILE, L.KNOBS)


def placeholders(d, fixed_map: bool) -> list[str]:
    """Parameter paths whose data is invented while their ``placeholder`` flag is set."""
    out = [f"colours.{c}.faces" for c, spec in d.colours.items() if spec.placeholder]
    if d.roster.placeholder:
        out += ["roster.units", "roster.builds"]
    if d.abilities.placeholder:
        out.append("abilities.focus")
    if d.lurkers.placeholder and d.lurkers.enabled:
        out.append("lurkers.deck")
    if d.loot.placeholder:
        out.append("loot.deck")
    if d.events.placeholder and d.events.deck:
        out.append("events.deck")
    if d.map.placeholder and not fixed_map:
        out += ["map.mix", "map.generator"]
    return out


def skipped_rules(d) -> list[str]:
    """SKIPPED_RULES, without the Event deck's line when a designer supplied cards."""
    return [r for r in SKIPPED_RULES if not (r.startswith("RV-E1") and d.events.deck)]


def designer_overrides(paths: list[str], base: Path, *, source: str, lines: dict
                       ) -> tuple[dict, list[str], dict]:
    """The scenario's ``data:`` files as overrides: each group a file gives replaces the
    ruleset's keys it names, and its ``placeholder`` flag becomes the file's (default false:
    a designer's data is taken as transcribed). Colours are replaced one by one.

    Returns (overrides, the files read, {path: file}).

    Raises
    ------
    InputError
        A missing or malformed file, or a group or key the data does not have (naming the
        file, key and line).
    """
    out: dict = {}
    where: dict = {}
    shown = []
    for i, rel in enumerate(paths):
        path = base / rel
        key = "data" if len(paths) == 1 else f"data.{i}"
        if not path.is_file():
            raise InputError(f"no such data file {path} (the path is relative to the "
                             f"scenario file)", file=source, key=key, line=lines.get(key))
        raw, flines = load_yaml(path)
        if not isinstance(raw, dict) or not raw:
            raise InputError("expected a mapping of data groups (any of "
                             f"{', '.join(DESIGNER_GROUPS)})", file=str(path))
        for group, body in raw.items():
            if group not in DESIGNER_GROUPS:
                raise InputError(f"unknown data group{nearest(group, DESIGNER_GROUPS)}; a "
                                 f"designer's file gives any of {', '.join(DESIGNER_GROUPS)}",
                                 file=str(path), key=group, line=flines.get(group))
            if not isinstance(body, dict):
                raise InputError(f"expected a mapping under {group}", file=str(path),
                                 key=group, line=flines.get(group))
            if group == "colours":
                for colour, spec in body.items():
                    if not isinstance(spec, dict):
                        raise InputError("expected a mapping (placeholder, rank, faces)",
                                         file=str(path), key=f"colours.{colour}",
                                         line=flines.get(f"colours.{colour}"))
                    for k, v in spec.items():
                        out[f"colours.{colour}.{k}"] = v
                        where[f"colours.{colour}.{k}"] = str(path)
                    if "placeholder" not in spec:
                        out[f"colours.{colour}.placeholder"] = False
                continue
            for k, v in body.items():
                out[f"{group}.{k}"] = v
                where[f"{group}.{k}"] = str(path)
            if "placeholder" not in body:
                out[f"{group}.placeholder"] = False
        shown.append(str(path))
    return out, shown, where


def load_with_files(extra: dict, where: dict, ov: common.Overrides):
    """The data with the designer's files (``extra``: their group overrides, ``where``:
    path -> file), then the scenario's ``overrides:`` and ``--set`` (``ov``), which may set
    paths the files added (a unit or build of the designer's roster).

    Raises
    ------
    InputError
        A bad path or value, naming the data file it came from, else the scenario or
        ``--set``.
    """
    base = DATA.load().model_dump()
    first = next(iter(where.values()), "<data>")

    def owner(key: str | None) -> str | None:
        key = key or ""
        return next((f for k, f in where.items() if key == k or key.startswith(k + ".")),
                    None)

    try:
        staged = apply_overrides(base, extra, valid_paths=DATA.parameter_paths(),
                                 source=first)
        data = validate(DATA.model, staged, source=first)
    except InputError as exc:
        f = owner(exc.key) or first
        raise InputError(f"with the data file {f}: {exc.message}", file=f, key=exc.key,
                         line=None) from None
    if not ov.merged:
        return data
    paths = leaf_paths(data.model_dump())
    try:
        final = apply_overrides(data.model_dump(), ov.merged, valid_paths=paths,
                                source=ov.src, lines=ov.lines)
    except InputError as exc:
        if exc.line is None or ov.src == ov.source:
            raise
        raise InputError(exc.message, file=ov.source, key=exc.key, line=exc.line) from None
    return validate(DATA.model, final, source=ov.src, lines=ov.lines)


GAMES_COLUMNS = {"game": "int64", "seed": "int64",
                 **{c: "int64" for c in L.GAME_INT if c != "truncated"},
                 "truncated": "bool", "adjudicated": "bool", "end": "category"}
SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64", "build": "category",
                 "bot": "category",
                 **{c: "int64" for c in L.SEAT_INT if c not in ("bot", "build")},
                 "win": "float64", "fair": "float64", "first": "bool"}



#: every settable dotted path of rivals.yaml with its default
parameter_paths = DATA.parameter_paths

__all__ = ["BOTS_FILE", "DATA", "DATA_FILE", "DESIGNER_GROUPS", "GAMES_COLUMNS", "SEATS_COLUMNS",
           "SKIPPED_RULES", "bot_data", "designer_overrides", "load_with_files",
           "parameter_paths", "placeholders", "skipped_rules"]
