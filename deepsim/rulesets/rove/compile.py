"""Rove's content compiled to the kernel's arrays: a designer's content file merged and
cross-checked (names, map, placements), the encounter's hex map (neighbours, distances,
centre-to-centre line of sight from :mod:`deepsim.rulesets.hexgrid`) and the action
grammar as int64 rows (:mod:`deepsim.rulesets.rove.layout`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from deepsim.errors import InputError
from deepsim.params import nearest, validate
from deepsim.rulesets import hexgrid
from deepsim.rulesets.rove import layout as L
from deepsim.rulesets.rove.schema import ELEMENTS, FIELDS, Content, RoveData
from deepsim.safeload import load_yaml

__all__ = ["Compiled", "GameMap", "compile_data", "load_content", "merge_content",
           "parse_map"]


def load_content(path: Path | str) -> Content:
    """A designer's content file (classes, items, adversaries, encounters in the grammar).

    Raises
    ------
    InputError
        Unreadable or invalid YAML, an unknown key or a value out of bounds: naming the
        file, the dotted key, its line and what was expected.
    """
    raw, lines = load_yaml(path, what="Rove content file")
    return validate(Content, raw, source=str(path), lines=lines)


def merge_content(data: RoveData, extra: Content | None) -> dict:
    """The data as a dict with ``extra``'s classes, items, adversaries and encounters
    added (a name already shipped is replaced whole)."""
    out = data.model_dump()
    if extra is not None:
        for group in ("classes", "items", "adversaries", "encounters"):
            out[group] = {**out[group], **copy.deepcopy(extra.model_dump()[group])}
    return out


@dataclass
class GameMap:
    """An encounter's map (rulebook "Map Spaces"), cells in reading order.

    ``coords`` int64[C, 2] (column, row), ``terrain`` int64[C] (layout.T_*), ``nbr``
    int64[C, 6] (-1: the map edge), ``dist`` int64[C, C] (hex distance), ``los``
    uint8[C, C] (RO-L1: the centre-to-centre line crosses no barrier), ``flags``, ``exits``
    and ``traps`` int64 cell lists.
    """

    coords: np.ndarray
    terrain: np.ndarray
    nbr: np.ndarray
    dist: np.ndarray
    los: np.ndarray
    flags: np.ndarray
    exits: np.ndarray
    traps: np.ndarray
    index: dict = field(default_factory=dict)


def parse_map(text: str, *, source: str = "<map>", key: str = "map",
              graze_blocks: bool = True, need_flag: bool = True) -> GameMap:
    """Parse a text grid (see :class:`deepsim.rulesets.rove.schema.Encounter`).

    Raises
    ------
    InputError
        An unknown token, no start flag, or more than ``layout.MAX_CELLS`` spaces.
    """
    cells, terrain, flags, exits, traps = [], [], [], [], []
    for row, line in enumerate(text.rstrip("\n").split("\n")):
        for col, tok in enumerate(line.split()):
            if tok == "x":
                continue
            if tok not in L.TERRAIN:
                raise InputError(f"row {row}, column {col}: unknown space '{tok}'; expected "
                                 f"one of {' '.join(sorted(L.TERRAIN))} x", file=source,
                                 key=key)
            if tok == "F":
                flags.append(len(cells))
            elif tok == "E":
                exits.append(len(cells))
            elif tok == "T":
                traps.append(len(cells))
            cells.append((col, row))
            terrain.append(L.TERRAIN[tok])
    if need_flag and not flags:
        raise InputError("the map has no start flag (F)", file=source, key=key)
    if len(cells) > L.MAX_CELLS:
        raise InputError(f"{len(cells)} spaces; at most {L.MAX_CELLS}", file=source, key=key)
    offset = np.array(cells, np.int64)
    axial = np.array([hexgrid.axial_from_offset(c, r) for c, r in cells], np.int64)
    ter = np.array(terrain, np.int64)
    los = hexgrid.center_los(axial, (ter == L.T_BARRIER).astype(np.uint8),
                             graze_blocks=graze_blocks)
    return GameMap(offset, ter, hexgrid.axial_neighbors(axial),
                   hexgrid.axial_distance_table(axial), los, np.array(flags, np.int64),
                   np.array(exits, np.int64), np.array(traps, np.int64),
                   {(c, r): i for i, (c, r) in enumerate(cells)})


@dataclass
class Compiled:
    """The kernel's content arrays (shapes in :mod:`layout`'s comments) and the names."""

    rules: np.ndarray
    terrain: np.ndarray
    nbr: np.ndarray
    dist: np.ndarray
    los: np.ndarray
    flags: np.ndarray
    traps: np.ndarray     # the tile on each space at the start, int64[C] (layout.TL_*)
    exits: np.ndarray
    actions: np.ndarray
    blocks: np.ndarray
    faces: np.ndarray
    cls: np.ndarray
    cls_ab: np.ndarray
    cls_card: np.ndarray
    cls_up: np.ndarray
    cls_item: np.ndarray
    items: np.ndarray
    aff: np.ndarray
    adv: np.ndarray
    adv_blk: np.ndarray
    adv_onadv: np.ndarray
    placed: np.ndarray
    ability_die: np.ndarray
    damage_die: np.ndarray
    ether_die: np.ndarray
    classes: list[str]
    types: list[str]
    items_names: list[str]
    ability_names: list[list[str]]
    face_names: list[str]
    block_names: list[list[str]]
    placeholders: list[str]
    skipped: list[str]
    gamemap: GameMap


def _fail(msg: str, source: str, key: str, lines: dict | None = None) -> InputError:
    return InputError(msg, file=source, key=key, line=(lines or {}).get(key))


def _action_row(a: dict) -> list[int]:
    return [L.OP[a["op"]], a["x"], a["range"][0], a["range"][1], a["targets"], a["push"],
            a["pull"], int(a["ignore_defense"]), a["defense"], int(a["flow"]),
            -1 if a["element"] is None else ELEMENTS.index(a["element"]),
            0 if a["field"] is None else L.TL_AURA + FIELDS.index(a["field"])]


def _affinity(aff: dict) -> list[int]:
    return [int(aff.get(e, 0)) for e in ELEMENTS]


def compile_data(d: dict, encounter: str, *, source: str = "<data>",
                 lines: dict | None = None) -> Compiled:
    """The kernel arrays of data ``d`` (a merged :class:`RoveData` dump) for one encounter.

    Raises
    ------
    InputError
        An unknown encounter, a class's unknown item, a placement of an unknown adversary
        or off the map's spaces, an objective type not placed, a story item unknown.
    """
    encs = d["encounters"]
    if encounter not in encs:
        raise _fail(f"unknown encounter '{encounter}'{nearest(encounter, encs)}; known: "
                    f"{', '.join(encs)}", source, "encounter", lines)
    enc = encs[encounter]
    gm = parse_map(enc["map"], source=source, key=f"encounters.{encounter}.map",
                   graze_blocks=d["los"]["graze_blocks"])
    actions: list[list[int]] = []
    blocks: list[list[int]] = []

    def block(acts: list[dict]) -> int:
        start = len(actions)
        actions.extend(_action_row(a) for a in acts)
        blocks.append([start, len(actions)])
        return len(blocks) - 1

    item_names = list(d["items"])
    items = []
    for name in item_names:
        it = d["items"][name]
        items.append([int(it["consumable"]), it["cost"], L.ITEM_ATTACK[it["attack"]],
                      -1 if it["bonus"] is None else L.ITEM_BONUS[it["bonus"]], it["value"],
                      block(it["actions"]) if it["actions"] else -1])
    classes = list(d["classes"])
    cls, cls_ab, cls_card, cls_up, cls_item, faces, aff = [], [], [], [], [], [], []
    ability_names, face_names = [], []
    skipped: list[str] = []
    for cname in classes:
        c = d["classes"][cname]
        cls.append([c["hp"], c["ether_limit"], c["starting_ether"], c["aura"], c["miasma"],
                    len(c["cards"]), len(c["items"])])
        cls_ab.append([block(ab["actions"]) for ab in c["abilities"]])
        ability_names.append([ab["name"] for ab in c["abilities"]])
        row = [-1] * L.CARD_COLS
        up = [0] * L.CARD_COLS
        # skill cards at columns 0..MAX_CARDS-1, reaction cards (RO-R5) after them
        cards = [(k, card) for k, card in enumerate(c["cards"])]
        cards += [(L.MAX_CARDS + k, card) for k, card in enumerate(c["reactions"])]
        for k, card in cards:
            # face 0 of the card is row f, face 1 row f + 1; the kernel keeps which is up
            first = len(faces)
            for j, face in enumerate(card["faces"]):
                augs = []
                for a in face["augments"]:
                    augs += [ELEMENTS.index(a["need"]), a["action"], L.BONUS[a["bonus"]],
                             a["value"], int(a["drain"])]
                augs += [-1, 0, 0, 0, 0] * (L.MAX_AUG - len(face["augments"]))
                ftype = {"rally": L.FACE_RALLY, "rave": L.FACE_RAVE,
                         "react": L.FACE_REACT}[face["type"]]
                faces.append([block(face["actions"]), ftype, face["cost"],
                              int(face["ability_cost"]), len(face["augments"]), *augs,
                              first + 1 - j])
                face_names.append(face["name"])
            row[k] = first
            up[k] = card["start"]
        cls_card.append(row)
        cls_up.append(up)
        irow = [-1] * L.MAX_ITEMS
        for k, iname in enumerate(c["items"]):
            if iname not in d["items"]:
                key = f"classes.{cname}.items.{k}"
                raise _fail(f"unknown item '{iname}'{nearest(iname, item_names)}; known: "
                            f"{', '.join(item_names)}", source, key, lines)
            irow[k] = item_names.index(iname)
        cls_item.append(irow)
        aff.append(_affinity(c["affinity"]))
    # adversary types: only those placed in this encounter, in first-placement order
    # (the adversary book's order, RO-A3)
    types: list[str] = []
    for k, p in enumerate(enc["placements"]):
        if p["type"] not in d["adversaries"]:
            key = f"encounters.{encounter}.placements.{k}.type"
            raise _fail(f"unknown adversary '{p['type']}'{nearest(p['type'], d['adversaries'])}"
                        f"; known: {', '.join(d['adversaries'])}", source, key, lines)
        if p["type"] not in types:
            types.append(p["type"])
    if len(types) > L.MAX_TYPES:
        raise _fail(f"{len(types)} adversary types; at most {L.MAX_TYPES}", source,
                    f"encounters.{encounter}.placements", lines)
    adv, adv_blk, adv_onadv, block_names = [], [], [], []
    for t in types:
        a = d["adversaries"][t]
        adv.append([a["hp"], a["hp_per_rover"], a["defense"], int(a["flying"]),
                    int(a["ignores_dangerous"]), len(a["blocks"]), int(a["tier"] != "minion")])
        adv_blk.append([block(b["actions"]) for b in a["blocks"]]
                       + [-1] * (L.MAX_BLOCKS - len(a["blocks"])))
        adv_onadv.append([block(b["on_advance"]) if b["on_advance"] else -1
                          for b in a["blocks"]] + [-1] * (L.MAX_BLOCKS - len(a["blocks"])))
        block_names.append([b["name"] for b in a["blocks"]])
        aff.append(_affinity(a["affinity"]))
        if a["large"]:
            skipped.append(f"adversary {t}: large (RO-A9) played as one space")
    placed = []
    for k, p in enumerate(enc["placements"]):
        cell = gm.index.get(tuple(p["at"]))
        key = f"encounters.{encounter}.placements.{k}.at"
        if cell is None:
            raise _fail(f"{p['at']} is not a space of the map ([column, row], from 0)",
                        source, key, lines)
        if gm.terrain[cell] in (L.T_BARRIER, L.T_OPEN, L.T_OBJECT) or cell in set(gm.flags):
            raise _fail(f"{p['at']} cannot hold an adversary (barrier, open air, object or "
                        "a start flag)", source, key, lines)
        placed.append([types.index(p["type"]), cell, p["min_rovers"]])
    if len(placed) > L.MAX_PLACED:
        raise _fail(f"{len(placed)} placements; at most {L.MAX_PLACED}", source,
                    f"encounters.{encounter}.placements", lines)
    obj_type = -1
    if enc["objective"] == "slay_type":
        if enc["objective_type"] not in types:
            raise _fail(f"objective_type '{enc['objective_type']}' is not placed in the "
                        "encounter", source, f"encounters.{encounter}.objective_type", lines)
        obj_type = types.index(enc["objective_type"])
    if enc["objective"] == "reach_exit" and not len(gm.exits):
        raise _fail("objective reach_exit needs exit spaces (E) on the map", source,
                    f"encounters.{encounter}.map", lines)
    story_item = -1
    if d["story"]["free_item"] is not None:
        if d["story"]["free_item"] not in d["items"]:
            raise _fail(f"unknown item '{d['story']['free_item']}'; known: "
                        f"{', '.join(item_names)}", source, "story.free_item", lines)
        story_item = item_names.index(d["story"]["free_item"])
    for s in enc["special"]:
        skipped.append(f"encounter {encounter}: special rule '{s}' needs a hook (not played)")
    rules = np.zeros(L.N_RULES, np.int64)
    rules[L.R_LIMIT] = enc["round_limit"]
    rules[L.R_OBJECTIVE] = L.OBJECTIVES.index(enc["objective"])
    rules[L.R_OBJ_TYPE] = obj_type
    rules[L.R_DANGER] = enc["dangerous_suffer"]
    rules[L.R_TRAP] = enc["trap_suffer"]
    rules[L.R_ABIL] = d["turn"]["abilities"]
    rules[L.R_CARDS] = d["turn"]["skill_cards"]
    rules[L.R_TIE] = L.TIEBREAKS.index(d["ai"]["tiebreak"])
    rules[L.R_CLOSEST] = 0 if d["ai"]["closest"] == "path" else 1
    rules[L.R_UNREACH] = 0 if d["ai"]["unreachable"] == "approach" else 1
    rules[L.R_FEWEST] = int(d["hard"]["tiebreak_fewest_hp"])
    rules[L.R_START_HP] = round(1000 * d["hard"]["start_hp_fraction"])
    rules[L.R_STORY_P] = int(d["story"]["personal_die"])
    rules[L.R_STORY_I] = int(d["story"]["infusion_die"])
    rules[L.R_STORY_ITEM] = story_item
    rules[L.R_RHP] = round(1000 * d["scale"]["rover_hp"])
    rules[L.R_AHP] = round(1000 * d["scale"]["adversary_hp"])
    rules[L.R_LIMIT_ADD] = d["scale"]["round_limit_add"]
    rules[L.R_CLAMP] = int(d["damage"]["clamp_at_zero"])
    rules[L.R_NFLAGS] = len(gm.flags)
    rules[L.R_NPLACED] = len(placed)
    rules[L.R_NTYPES] = len(types)
    rules[L.R_NCELLS] = len(gm.terrain)
    # the tiles at the start: traps (T) and the encounter's ether fields (RO-TI4: one tile
    # a space; a field printed on a trap replaces it)
    tiles = np.zeros(len(gm.terrain), np.int64)
    tiles[gm.traps] = L.TL_TRAP
    for k, ft in enumerate(enc["fields"]):
        cell = gm.index.get(tuple(ft["at"]))
        key = f"encounters.{encounter}.fields.{k}.at"
        if cell is None or gm.terrain[cell] in (L.T_BARRIER, L.T_OPEN, L.T_OBJECT):
            raise _fail(f"{ft['at']} is not a space of the map that can take a field "
                        "(not a barrier, open air or object)", source, key, lines)
        code = L.TL_AURA + FIELDS.index(ft["type"])
        val = {L.TL_AURA: d["damage"]["aura_adversary"],
               L.TL_MIASMA: d["damage"]["miasma_adversary"],
               L.TL_SNAPFROST: d["fields"]["snapfrost"]}.get(code, 0)
        tiles[cell] = code + 16 * (val + 64)
    rules[L.R_FSCOPE] = L.FIELD_SCOPES.index(d["fields"]["scope"])
    rules[L.R_WINDSCREEN] = d["damage"]["windscreen"]
    rules[L.R_AURA_ADV] = d["damage"]["aura_adversary"]
    rules[L.R_MIASMA_ADV] = d["damage"]["miasma_adversary"]
    rules[L.R_SNAPFROST] = d["fields"]["snapfrost"]
    rules[L.R_EVERBLOOM] = d["fields"]["everbloom"]
    rules[L.R_WILDFIRE] = d["fields"]["wildfire"]
    rules[L.R_REACT] = d["turn"]["reactions"]
    rules[L.R_DRAIN_FIRST] = int(d["ether"]["drain_first"])
    rules[L.R_DIM] = d["dim_supply"]
    if rules[L.R_LIMIT] + rules[L.R_LIMIT_ADD] < 1:
        raise _fail("round_limit + scale.round_limit_add is below 1", source,
                    "scale.round_limit_add", lines)
    placeholders = [f"classes.{c}" for c in classes if d["classes"][c]["placeholder"]]
    placeholders += [f"adversaries.{t}" for t in types if d["adversaries"][t]["placeholder"]]
    if enc["placeholder"]:
        placeholders.append(f"encounters.{encounter}")
    placeholders.append("ability_die")

    def arr(rows, width):
        return np.array(rows, np.int64).reshape(-1, width)

    return Compiled(
        rules, gm.terrain, gm.nbr, gm.dist, gm.los, gm.flags, tiles, gm.exits,
        arr(actions, L.A_N), arr(blocks, 2), arr(faces, L.F_N), arr(cls, L.CL_N),
        arr(cls_ab, 4), arr(cls_card, L.CARD_COLS), arr(cls_up, L.CARD_COLS), arr(cls_item, L.MAX_ITEMS),
        arr(items, L.IT_N), arr(aff, 6), arr(adv, L.AD_N), arr(adv_blk, L.MAX_BLOCKS),
        arr(adv_onadv, L.MAX_BLOCKS), arr(placed, L.PL_N),
        np.array(d["ability_die"], np.int64),
        np.array([-1 if f == "dim" else ELEMENTS.index(f) for f in d["damage_die"]],
                 np.int64),
        np.array([ELEMENTS.index(f) for f in d["ether_die"] if f != "dim"], np.int64),
        classes, types, item_names, ability_names, face_names, block_names, placeholders,
        skipped, gm)
