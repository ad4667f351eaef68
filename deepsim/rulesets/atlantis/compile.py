"""Turn validated Atlantis data and a scenario into the arrays the kernel reads.

Every array is C-contiguous with the dtype and shape of the contract in ``layout.py``;
:meth:`AtlantisArrays.kernel_args` gives them in the order of ``kernel.play_games`` after
``(seed, start, count)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deepsim.params import value_at
from deepsim.rulesets.atlantis import layout as L
from deepsim.rulesets.atlantis.schema import ENUMS, SPECIALS, UNIT_GROUPS, AtlantisData
from deepsim.rulesets.base import KernelInputs
from deepsim.rulesets.hexgrid import distance_table, neighbor_table

_SIDE_OF_GROUP = {"sea_witch": L.WITCH, "sea_king": L.KING, "neutral": L.NEUTRAL}
_SPECIAL_COL = {name: L.U_POISON + i for i, name in enumerate(SPECIALS)}
assert [L.UCOLS[_SPECIAL_COL[s]] for s in SPECIALS] == list(SPECIALS)


@dataclass
class AtlantisArrays(KernelInputs):
    """Kernel inputs (all numpy, C-contiguous). Shapes and meaning: see ``layout.py``.

    The fields, in this order, are the kernel's arguments after ``(seed, start, count)``
    (:meth:`~deepsim.rulesets.base.KernelInputs.kernel_args`).

    Attributes
    ----------
    rules : float64[N_RULES]
    gen : float64[N_GEN]
    terrain : int64[N_TERRAIN, N_TCOL]
    spells : int64[N_SPELLS, N_SPCOL]
    units : int64[N_TYPES, N_UCOL]
        Sea King types, Sea Witch types, neutrals (ruleset.yaml order).
    roster : int64[2, MAX_UNITS]
        Row WITCH/KING: unit type row of each unit copy of that side's force, -1 padded.
    neighbors : int64[C, 6]
        Odd-r offset neighbours (E, NE, NW, W, SW, SE), -1 off the map; C = width*height.
    dist : int64[C, C]
        Hex distances.
    fixed_terrain : int64[C]
        Terrain rows of a fixed map (zeros when generated).
    fixed_current : int64[C]
        Direction 0-5 of a fixed map's current hexes, -1 elsewhere.
    knobs : float64[n_profiles, N_KNOBS]
    side_bot : int64[2]
        Profile row per side (WITCH, KING); -1 = drawn per game from ``bot_pool``.
    bot_pool : int64[k]
    special_types : int64[4]
        Unit rows of brain_coral, island_fish, water_elemental, giant_oyster.
    fmix : float64[2, 2, M]
        Per side (WITCH, KING), its own bot profiles (scenario key ``faction_bots``;
        deepsim.factionmix).
    """

    rules: np.ndarray
    gen: np.ndarray
    terrain: np.ndarray
    spells: np.ndarray
    units: np.ndarray
    roster: np.ndarray
    neighbors: np.ndarray
    dist: np.ndarray
    fixed_terrain: np.ndarray
    fixed_current: np.ndarray
    knobs: np.ndarray
    side_bot: np.ndarray
    bot_pool: np.ndarray
    special_types: np.ndarray
    fmix: np.ndarray


def _scalar(path: str, value) -> float:
    """One rule value as float64: bools 0/1, enumerations their index (schema.ENUMS)."""
    if path == "combat.hit_faces":
        # AMB-T1: bit f set = face f hits
        return float(sum(1 << int(f) for f in value))
    if path in ENUMS:
        return float(ENUMS[path].index(value))
    return float(value)


def rule_vector(d: AtlantisData) -> np.ndarray:
    """float64[N_RULES]: every scalar rule, in ``layout.RULES`` order."""
    raw = d.model_dump()
    return np.array([_scalar(path, value_at(raw, path)) for _, path in L.RULES], np.float64)


def gen_vector(d: AtlantisData) -> np.ndarray:
    """float64[N_GEN]: the generator settings, in ``layout.GEN`` order."""
    raw = d.model_dump()
    return np.array([float(value_at(raw, path)) for _, path in L.GEN], np.float64)


def terrain_table(d: AtlantisData) -> np.ndarray:
    """int64[N_TERRAIN, N_TCOL]; derived columns: deep (AMB-T12), large_ok (AT-M5)."""
    out = np.zeros((L.N_TERRAIN, L.N_TCOL), np.int64)
    for i, name in enumerate(L.TERRAINS):
        t = d.terrain[name]
        deep = t.depth == "deep" or (t.depth == "shallow_or_deep" and d.map.crevasse_deep)
        row = out[i]
        row[L.T_COST] = t.cost if t.passable else 0
        row[L.T_PASSABLE] = int(t.passable)
        row[L.T_DEEP] = int(deep)
        row[L.T_HIDE] = t.hide
        # AT-M5: Large units may not enter shallow terrain that costs 2 moves
        row[L.T_LARGE_OK] = int(t.passable and (deep or t.cost < 2))
        row[L.T_ENTRY_DEATH] = int(t.entry_death)
        row[L.T_ENTRY_ATTACK] = t.entry_attack
        row[L.T_ADJ_DEATH_FACES] = t.adj_death_faces
        row[L.T_ADJ_ATTACK] = t.adj_attack
        row[L.T_ATTACK_PENALTY] = t.attack_penalty
        row[L.T_CURRENT] = int(t.current)
        row[L.T_BONUS_SIDE] = -1 if t.bonus_side == "none" else L.SIDES.index(t.bonus_side)
        row[L.T_BONUS_AD] = t.bonus_ad
    return out


def unit_rows(d: AtlantisData) -> dict[str, int]:
    """``{unit name: row}`` of the unit table (Sea King's, Sea Witch's, neutrals)."""
    return {u: i for i, u in enumerate(d.unit_names())}


def spell_table(d: AtlantisData) -> np.ndarray:
    """int64[N_SPELLS, N_SPCOL] (layout.SPCOLS); terrain aliases resolved to rows."""
    rows = unit_rows(d)
    out = np.zeros((L.N_SPELLS, L.N_SPCOL), np.int64)
    for i, name in enumerate(L.SPELLS):
        s = d.spell_list[name]
        out[i, L.SPC_CHITS] = s.chits
        out[i, L.SPC_RANGE] = s.range
        out[i, L.SPC_AMOUNT] = s.amount
        out[i, L.SPC_BASE] = s.base
        out[i, L.SPC_CREATES] = rows[s.creates] if s.creates != "none" else -1
        out[i, L.SPC_TARGET_TERRAIN] = (d.terrain_of(s.target_terrain)
                                        if s.target_terrain not in ("any", "none") else -1)
        out[i, L.SPC_SETS_TERRAIN] = (d.terrain_of(s.sets_terrain)
                                      if s.sets_terrain not in ("any", "none") else -1)
        out[i, L.SPC_NEEDS_EMPTY] = int(s.needs_empty)
        out[i, L.SPC_NEEDS_DEPTH] = {"any": -1, "shallow": 0, "deep": 1}[s.needs_depth]
    return out


def force_counts(d: AtlantisData, forces: dict[str, dict[str, int]] | None = None
                 ) -> dict[str, dict[str, int]]:
    """``{side: {unit: count}}`` of both forces: the Basic game's, with ``forces`` applied.

    ``forces[side][unit]`` is an absolute count replacing that side's Basic count of the
    unit (0 removes it; a type of another table is added). Checked by the scenario.
    """
    out = {}
    for side in L.SIDES:
        counts = {u: x.count for u, x in getattr(d.units, side).items()}
        for u, n in ((forces or {}).get(side) or {}).items():
            counts[u] = int(n)
        out[side] = {u: n for u, n in counts.items() if n > 0}
    return out


def unit_table(d: AtlantisData, counts: dict[str, dict[str, int]]) -> np.ndarray:
    """int64[N_TYPES, N_UCOL]; U_COUNT = copies of the type over both rosters."""
    types = [(g, u, x) for g in UNIT_GROUPS for u, x in getattr(d.units, g).items()]
    out = np.zeros((len(types), L.N_UCOL), np.int64)
    for i, (group, name, x) in enumerate(types):
        row = out[i]
        row[L.U_SIDE] = _SIDE_OF_GROUP[group]
        row[L.U_COUNT] = sum(counts[s].get(name, 0) for s in L.SIDES)
        row[L.U_AD] = x.ad
        row[L.U_DR] = x.dr
        row[L.U_LARGE] = int(x.large)
        row[L.U_MV] = x.mv
        row[L.U_HF] = 0 if x.hf == "-" else x.hf
        row[L.U_HF_DASH] = int(x.hf == "-")
        row[L.U_LEADER] = int(x.leader)
        row[L.U_SPELLS] = x.spells
        row[L.U_HIDDEN_AD] = x.hidden_ad
        row[L.U_HF_TERRAIN] = L.TERRAINS.index(x.hf_terrain) if x.hf_terrain != "none" else -1
        row[L.U_HF_TERRAIN_BONUS] = x.hf_terrain_bonus
        for s in x.specials:
            row[_SPECIAL_COL[s]] = 1
    return out


def roster_array(d: AtlantisData, counts: dict[str, dict[str, int]]) -> np.ndarray:
    """int64[2, MAX_UNITS]: per side, one unit type row per copy, -1 padded.

    Order: the side's own table (its leader first), then types added from the other tables
    (``forces:``), each in table order.
    """
    rows = unit_rows(d)
    out = -np.ones((2, L.MAX_UNITS), np.int64)
    for s, side in enumerate(L.SIDES):
        own = list(getattr(d.units, side))
        entries = []
        for name in own + [u for u in d.unit_names() if u not in own]:
            entries += [rows[name]] * counts[side].get(name, 0)
        if len(entries) > L.MAX_UNITS:
            raise ValueError(f"{side} force has {len(entries)} units; at most "
                             f"{L.MAX_UNITS}")
        out[s, :len(entries)] = entries
    return out


def build(data: AtlantisData, *, forces: dict | None = None, map_spec=None,
          knobs: np.ndarray, side_bot, bot_pool, fmix: np.ndarray | None = None
          ) -> AtlantisArrays:
    """Build the kernel arrays.

    Parameters
    ----------
    data : AtlantisData
        Validated ruleset data after overrides (map.source/width/height already set to
        the fixed grid's when ``map_spec`` is given).
    forces : dict or None
        ``{side: {unit: count}}`` absolute counts replacing the Basic ones (validated).
    map_spec : maps.FixedMap or None
        A fixed map (terrain rows and current directions); None = generated per game.
    knobs : float64[n_profiles, N_KNOBS]
        Bot profiles.
    side_bot : sequence of 2 int
        Profile row per side (WITCH, KING), -1 = drawn per game from ``bot_pool``.
    bot_pool : sequence of int
        Profile rows a side with -1 draws from.
    fmix : float64[2, 2, M], optional
        Per side, its own bot profiles (deepsim.factionmix); default none.
    """
    if fmix is None:
        from deepsim.factionbots import empty_fmix
        fmix = empty_fmix(2)
    w, h = data.map.width, data.map.height
    c = w * h
    counts = force_counts(data, forces)
    rows = unit_rows(data)
    if map_spec is not None:
        if (map_spec.width, map_spec.height) != (w, h):
            raise ValueError(f"fixed map is {map_spec.width}x{map_spec.height} but map.width/"
                             f"height are {w}x{h}")
        fixed_terrain = np.ascontiguousarray(map_spec.terrain, np.int64)
        fixed_current = np.ascontiguousarray(map_spec.current, np.int64)
    else:
        fixed_terrain = np.zeros(c, np.int64)
        fixed_current = -np.ones(c, np.int64)
    neighbors = neighbor_table(w, h)
    return AtlantisArrays(
        rules=np.ascontiguousarray(rule_vector(data)),
        gen=np.ascontiguousarray(gen_vector(data)),
        terrain=np.ascontiguousarray(terrain_table(data)),
        spells=np.ascontiguousarray(spell_table(data)),
        units=np.ascontiguousarray(unit_table(data, counts)),
        roster=np.ascontiguousarray(roster_array(data, counts)),
        neighbors=np.ascontiguousarray(neighbors),
        dist=np.ascontiguousarray(distance_table(w, h)),
        fixed_terrain=fixed_terrain,
        fixed_current=fixed_current,
        knobs=np.ascontiguousarray(np.asarray(knobs, np.float64).reshape(-1, L.N_KNOBS)),
        side_bot=np.ascontiguousarray(np.asarray(side_bot, np.int64).reshape(2)),
        bot_pool=np.ascontiguousarray(np.asarray(bot_pool, np.int64).reshape(-1)),
        special_types=np.array([rows["brain_coral"], rows["island_fish"],
                                rows["water_elemental"], rows["giant_oyster"]], np.int64),
        fmix=np.ascontiguousarray(fmix, np.float64),
    )
