"""Atlantis data side: ruleset.yaml totals and parameters, scenario checks, forces, the map
text grid, the map generator, hex geometry and the compiled arrays' contract."""

from __future__ import annotations

import re
from collections import deque

import numpy as np
import pytest

from deepsim.errors import InputError
from deepsim.params import load_yaml, yaml_comment
from deepsim.rulesets.atlantis import (
    DATA_FILE,
    RULESET,
    current_rows,
    load_data,
    maps,
    parameter_paths,
    terrain_codes,
)
from deepsim.rulesets.atlantis import layout as L
from deepsim.rulesets.atlantis.compile import gen_vector, terrain_table
from deepsim.scenario import load_scenario

BASE = {"name": "t", "ruleset": "atlantis"}


def prep(tmp_path=None, text=None, sets=None, **scenario):
    """Prepare a scenario given as a dict, or as YAML text written to a file."""
    if text is not None:
        path = tmp_path / "sc.yaml"
        path.write_text(text)
        return RULESET.prepare(load_scenario(path), source=str(path), overrides=sets)
    return RULESET.prepare({**BASE, **scenario}, overrides=sets)


# ---- ruleset.yaml ------------------------------------------------------------------------

@pytest.mark.parametrize("side, units, ad, dr, chits, large, types", [
    ("sea_king", 32, 80, 61, 11, 9, 25),
    ("sea_witch", 33, 81, 71, 9, 8, 26),
])
def test_force_totals(side, units, ad, dr, chits, large, types):
    table = getattr(load_data().units, side)
    assert len(table) == types
    assert sum(u.count for u in table.values()) == units
    assert sum(u.count * u.ad for u in table.values()) == ad
    assert sum(u.count * u.dr for u in table.values()) == dr
    assert sum(u.count * u.spells for u in table.values()) == chits
    assert sum(u.count for u in table.values() if u.large) == large


def test_tables_complete():
    d = load_data()
    assert len(d.units.neutral) == 6 and all(u.count == 0 for u in d.units.neutral.values())
    assert tuple(d.terrain) == L.TERRAINS and tuple(d.spell_list) == L.SPELLS
    assert sum(s.chits for s in d.spell_list.values()) == 28            # AT-C4
    t = terrain_table(d)
    # AT-M5: Large units barred from exactly the shallow 2-cost types
    barred = {L.TERRAINS[i] for i in range(L.N_TERRAIN)
              if t[i, L.T_PASSABLE] and not t[i, L.T_LARGE_OK]}
    assert barred == {"sandy_surf", "coral_reef", "kelp_forest", "mangrove_estuary", "ruins",
                      "buildings", "hydrothermal_vent", "sunken_ship", "sea_temple"}
    assert {L.TERRAINS[i] for i in range(L.N_TERRAIN) if not t[i, L.T_PASSABLE]} == {
        "mountain_peaks", "land", "shoreline"}
    assert t[L.TR_CREVASSE, L.T_DEEP] == 1                               # AMB-T12 default
    assert terrain_table(load_data({"map.crevasse_deep": False}))[L.TR_CREVASSE, L.T_DEEP] == 0


#: every ambiguity of the digest: its parameter path(s) and the digest's default
AMB_DEFAULTS = {
    "AMB-T1": [("combat.hit_faces", [1])],
    "AMB-T2": [("combat.failed_search_consumes_attack", True)],
    "AMB-T3": [("combat.search_reveals", False)],
    "AMB-T4": [("combat.ranged_min", 1)],
    "AMB-T5": [("combat.los", False)],
    "AMB-T6": [("hide.dash_can_hide", True)],
    "AMB-T7": [("end.terrain_scope", "active")],
    "AMB-T8": [("specials.siren_full_move", True),
               ("specials.siren_counter_on_source_death", "keep")],
    "AMB-T9": [("combat.temple_bonus_scope", "attacker_in_hex")],
    "AMB-T10": [("spells.per_caster_per_end", 1), ("spells.single_use", True)],
    "AMB-T11": [("specials.any_target", True), ("specials.without_attack", True)],
    "AMB-T12": [("map.crevasse_deep", True)],
    "AMB-T13": [("spells.murky_depths_friendly_only", True)],
    "AMB-T14": [("setup.neutrals_in_scenario", False)],
    "AMB-T15": [("spells.resurrection_full_health", True),
                ("spells.resurrection_gets_chits", False)],
    "AMB-T16": [("spells.healing_pool", True)],
    "AMB-T17": [("end.current_blocked", "stay")],
    "AMB-T18": [("specials.sting_counters_per_attack", 1)],
    "AMB-T19": [("combat.split_one_search", True)],
    "AMB-T20": [("specials.martyr_forces_ranged", False),
                ("specials.martyr_forces_specials", False)],
    "AMB-T21": [("specials.entangle_release", "own_counter")],
    "AMB-T22": [("setup.deploy_rows", 2)],
    "AMB-T23": [("end.max_turns", 1000), ("end.at_cap", "unresolved")],
    "AMB-T24": [("combat.penalty_floor_scope", "terrain_only")],
    "AMB-T25": [("spells.luminescence_timing", "any_time")],
    "AMB-T26": [("spells.hidden_occupies", True)],
    "AMB-T27": [("spells.sirens_song_turns", "own")],
    "AMB-T28": [("specials.special_discards_hide", True)],
}


def test_every_ambiguity_is_a_parameter_with_its_default():
    assert sorted(AMB_DEFAULTS, key=lambda k: int(k[5:])) == [f"AMB-T{i}"
                                                               for i in range(1, 29)]
    paths = parameter_paths()
    _, lines = load_yaml(DATA_FILE)
    for amb, entries in AMB_DEFAULTS.items():
        for path, default in entries:
            assert paths[path] == default, path
            # the yaml comment cites the ambiguity (what `deepsim params atlantis` shows)
            assert re.search(rf"\b{amb}\b", yaml_comment(DATA_FILE, lines[path])), path


def test_rule_vector_names_every_rules_path():
    paths = parameter_paths()
    for _, path in L.RULES + L.GEN:
        assert path in paths, path
    rows = {r["path"]: r for r in RULESET.parameters()}
    assert rows["combat.search_min"]["section"].startswith("AT-A3")
    assert rows["end.max_turns"]["bounds"] == ">= 1, <= 100000"
    assert "AMB-T1" in rows["combat.hit_faces"]["section"]


def test_hit_faces_compile_to_a_bitmask():
    a = prep().compiled["arrays"]
    assert a.rules[L.R_HIT_MASK] == 1 << 1
    a = prep(overrides={"combat.hit_faces": [6, 5]}).compiled["arrays"]
    assert a.rules[L.R_HIT_MASK] == (1 << 5) | (1 << 6)


# ---- overrides and --set errors ----------------------------------------------------------

def test_override_errors_name_file_key_and_line(tmp_path):
    text = ("name: t\nruleset: atlantis\noverrides:\n  combat.search_min: 5\n"
            "  end.max_turns: 0\n")
    with pytest.raises(InputError) as e:
        prep(tmp_path, text)
    assert e.value.line == 5 and e.value.key == "end.max_turns"
    assert "sc.yaml:5" in str(e.value) and "game might never end" in str(e.value)
    with pytest.raises(InputError, match=r"did you mean 'combat.search_min'"):
        prep(tmp_path, "name: t\nruleset: atlantis\noverrides:\n  combat.serch_min: 5\n")


def test_set_errors(tmp_path):
    text = "name: t\nruleset: atlantis\n"
    with pytest.raises(InputError) as e:
        prep(tmp_path, text, sets=["combat.hit_faces=[0, 7]"])
    assert "sc.yaml / --set" in str(e.value) and "die faces 1-6" in str(e.value)
    with pytest.raises(InputError, match="expected a number, got True"):
        prep(tmp_path, text, sets=["units.sea_witch.leviathan.dr=true"])
    with pytest.raises(InputError, match="unknown name; expected one of 'active'"):
        prep(tmp_path, text, sets=["end.terrain_scope=everyone"])
    with pytest.raises(InputError, match="2-player game"):
        prep(tmp_path, text + "players: 3\n")
    with pytest.raises(InputError, match="2-player game"):
        prep(tmp_path, text + "players: 4\n")
    # a file without `players` gets the ruleset's default, 2 (and run.json records 2)
    assert prep(tmp_path, text).scenario["players"] == 2
    assert RULESET.prepare(dict(BASE), source="run.json").scenario["players"] == 2
    # a --set wins over the scenario's overrides
    p = prep(tmp_path, text + "overrides:\n  end.max_turns: 10\n", sets=["end.max_turns=20"])
    assert p.compiled["arrays"].rules[L.R_MAX_TURNS] == 20


def test_bad_sides_and_bots(tmp_path):
    with pytest.raises(InputError, match=r"did you mean 'aggressive'"):
        prep(sides={"sea_king": {"bot": "agressive"}})
    with pytest.raises(InputError, match="knobs need a fixed bot"):
        prep(sides={"sea_king": {"knobs": {"hide": 1}}})
    with pytest.raises(InputError, match="unknown name"):
        prep(sides={"sea_king": {"bot": "random", "knobs": {"hidee": 1}}})
    with pytest.raises(InputError, match="unknown key"):
        prep(sides={"sea_kings": {"bot": "random"}})
    p = prep(sides={"sea_witch": {"bot": "aggressive"},
                    "sea_king": {"bot": "defensive", "knobs": {"hide": 0.25}}})
    a, labels = p.compiled["arrays"], p.compiled["bot_labels"]
    assert labels[a.side_bot[L.WITCH]] == "aggressive"
    assert labels[a.side_bot[L.KING]] == "defensive*"
    assert a.knobs[a.side_bot[L.KING], L.K_HIDE] == 0.25


# ---- forces ------------------------------------------------------------------------------

def _roster(p, side):
    r = p.compiled["arrays"].roster[side]
    names = p.compiled["unit_names"]
    return [names[i] for i in r if i >= 0]


def test_forces_remove_and_add():
    base = prep()
    assert len(_roster(base, L.WITCH)) == 33 and len(_roster(base, L.KING)) == 32
    assert _roster(base, L.WITCH)[0] == "sea_witch" and _roster(base, L.KING)[0] == "sea_king"
    p = prep(forces={"sea_witch": {"leviathan": 0, "sea_knights": 1},
                     "sea_king": {"mermen": 2, "water_elemental": 1}})
    w, k = _roster(p, L.WITCH), _roster(p, L.KING)
    assert "leviathan" not in w and w.count("sea_knights") == 1 and len(w) == 33
    assert k.count("mermen") == 2 and k.count("water_elemental") == 1 and len(k) == 31
    units = p.compiled["arrays"].units
    row = p.compiled["unit_names"].index("sea_knights")
    assert units[row, L.U_COUNT] == 3 and units[row, L.U_SIDE] == L.KING


def test_forces_errors():
    with pytest.raises(InputError, match=r"unknown unit 'leviathn'.*did you mean 'leviathan'"):
        prep(forces={"sea_witch": {"leviathn": 0}})
    with pytest.raises(InputError, match="leader"):
        prep(forces={"sea_king": {"sea_king": 0}})
    with pytest.raises(InputError, match="leader"):
        prep(forces={"sea_king": {"sea_king": 2}})
    with pytest.raises(InputError, match="cannot join"):
        prep(forces={"sea_king": {"sea_witch": 1}})
    with pytest.raises(InputError, match="expected a count"):
        prep(forces={"sea_king": {"mermen": -1}})
    with pytest.raises(InputError, match="does not fit its 2 deployment rows"):
        prep(forces={"sea_king": {"mermen": 10}})
    with pytest.raises(InputError, match="unknown name"):
        prep(forces={"sea_kong": {"mermen": 1}})


# ---- the map text grid -------------------------------------------------------------------

def _codes():
    d = load_data()
    return terrain_codes(d), current_rows(d)


GOOD = """# a comment line
O  O  F  Cb   # trailing comment
 I  C3 M  T

P  R0 Sg O
 O  O  O  O
"""


def test_grid_parses():
    codes, cur = _codes()
    m = maps.parse_grid(GOOD, codes, cur, source="g.txt")
    assert (m.width, m.height) == (4, 4)
    assert m.terrain[4 + 1] == L.TR_CURRENT and m.current[4 + 1] == 3
    assert m.terrain[8 + 1] == L.TR_RIVER_OUTFLOW and m.current[8 + 1] == 0
    assert m.terrain[3] == L.TR_CLAM_BED and m.current[3] == -1
    inv = {v: k for k, v in codes.items()}
    again = maps.parse_grid(maps.format_grid(m.terrain, m.current, 4, inv), codes, cur,
                            source="g2")
    assert np.array_equal(again.terrain, m.terrain) and np.array_equal(again.current,
                                                                       m.current)


@pytest.mark.parametrize("text, line, msg", [
    ("O O O O\nO Xx O O\nO O O O\nO O O O\n", 2, r"column 3 \(hex 2 of row 1\): unknown"),
    ("O O O O\nO O O O\nO C O O\nO O O O\n", 3, "column 3.*needs its direction digit"),
    ("O O O O\nO O O O\nO O C7 O\nO O O O\n", 3, "direction 7 is not 0-5"),
    ("O O O O\nO O O O\nO O F2 O\nO O O O\n", 3, "only a current takes a direction"),
    ("O O O O\nO O O O O\nO O O O\nO O O O\n", 2, "row 1 has 5 hexes but row 0"),
    ("# nothing\n", 1, "no rows"),
])
def test_grid_errors(text, line, msg):
    codes, cur = _codes()
    with pytest.raises(InputError) as e:
        maps.parse_grid(text, codes, cur, source="bad.txt")
    assert e.value.line == line and e.value.file == "bad.txt"
    assert re.search(msg, str(e.value)), str(e.value)


def test_map_file_and_inline_grid_in_scenarios(tmp_path):
    (tmp_path / "maps").mkdir()
    grid = "\n".join(" ".join(["O"] * 18) for _ in range(14)) + "\n"
    (tmp_path / "maps" / "open.txt").write_text(grid)
    p = prep(tmp_path, "name: t\nruleset: atlantis\nmap: {file: maps/open.txt}\n")
    a = p.compiled["arrays"]
    assert a.rules[L.R_MAP_SOURCE] == 1 and a.rules[L.R_MAP_WIDTH] == 18
    assert (a.fixed_terrain == L.TR_OPEN_OCEAN).all() and (a.fixed_current == -1).all()
    assert p.placeholders == [] and p.params["map"]["grid"] == grid
    # an inline grid: the error names the scenario file and the line inside it
    bad = "O O O O O\n" * 3 + "O O Q O O\n"
    text = "name: t\nruleset: atlantis\nmap:\n  grid: |\n" + "".join(
        "    " + r + "\n" for r in bad.splitlines())
    with pytest.raises(InputError) as e:
        prep(tmp_path, text)
    assert e.value.file.endswith("sc.yaml") and e.value.line == 8
    with pytest.raises(InputError, match="no such map file"):
        prep(tmp_path, "name: t\nruleset: atlantis\nmap: {file: maps/none.txt}\n")
    with pytest.raises(InputError, match="fixed map decides"):
        prep(tmp_path, "name: t\nruleset: atlantis\nmap: {file: maps/open.txt}\n",
             sets=["map.width=20"])
    with pytest.raises(InputError, match="needs a map in the scenario"):
        prep(sets=["map.source=fixed"])
    # a fixed map without room for a force is refused, naming the map file
    walls = grid.replace("O", "M", 18 * 2)
    (tmp_path / "maps" / "walls.txt").write_text(walls)
    with pytest.raises(InputError, match="Sea Witch's force of 33 units") as e:
        prep(tmp_path, "name: t\nruleset: atlantis\nmap: {file: maps/walls.txt}\n")
    assert e.value.file.endswith("walls.txt")


def test_shipped_scenarios_and_maps_prepare():
    from pathlib import Path
    root = Path(__file__).resolve().parents[3] / "scenarios"
    for f in ("atlantis.yaml", "atlantis-hit56.yaml"):
        p = RULESET.prepare(load_scenario(root / f), source=str(root / f))
        assert p.scenario["games"] >= 100_000
    codes, cur = _codes()
    for f in sorted((root / "maps").glob("*.txt")):
        m = maps.load_map_file(f, codes, cur)
        assert (m.width, m.height) == (18, 14), f


# ---- the generator -----------------------------------------------------------------------

def _gen(**over):
    d = load_data({f"map.generator.{k}": v for k, v in over.items()})
    return gen_vector(d), d


def test_generator_deterministic():
    g, _ = _gen()
    a = maps.generate(g, 18, 14, 7, 3)
    b = maps.generate(g, 18, 14, 7, 3)
    c = maps.generate(g, 18, 14, 7, 4)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    cur = set(np.flatnonzero(np.isin(a[0], [L.TR_CURRENT, L.TR_RIVER_OUTFLOW])))
    assert set(np.flatnonzero(a[1] >= 0)) == cur and (a[1] <= 5).all()


def _category(t):
    open_ = {L.TR_OPEN_OCEAN, L.TR_MUD_FLATS, L.TR_CLAM_BED}
    imp = {L.TR_MOUNTAIN, L.TR_LAND, L.TR_SHORELINE}
    haz = {L.TR_UPWELLING, L.TR_CURRENT, L.TR_VORTEX, L.TR_RIVER_OUTFLOW, L.TR_WHIRL_POOL,
           L.TR_VENT, L.TR_LAVA}
    return np.select([np.isin(t, list(open_)), np.isin(t, list(imp)),
                      np.isin(t, list(haz))], [0, 2, 3], 1)


def test_generator_shares():
    g, d = _gen()
    w, h = 18, 14
    mid = np.arange(3 * w, (h - 3) * w)        # rows outside deployment and hazard-free rows
    cats = np.concatenate([_category(maps.generate(g, w, h, 1, k)[0])[mid]
                           for k in range(150)])
    shares = np.bincount(cats, minlength=4) / len(cats)
    gs = d.map.generator
    # temples/beds sit outside the middle rows; 150 maps x 144 hexes: sd ~ 0.004
    for got, want in zip(shares, (gs.open_share, gs.cover_share, gs.impassable_share,
                                  gs.hazard_share)):
        assert abs(got - want) < 0.02, shares
    ter = np.concatenate([maps.generate(g, w, h, 2, k)[0] for k in range(100)])
    deep = terrain_table(d)[ter, L.T_DEEP]
    assert abs(deep.mean() - 0.5) < 0.05


def _zones(w, h, rows):
    return [np.arange(rows * w), np.arange((h - rows) * w, h * w)]


def test_generator_deployment_rows_and_hazard_free_rows():
    g, d = _gen(hazard_share=0.5, lethal_hazards=True)
    t = terrain_table(d)
    w, h = 18, 14
    for k in range(60):
        ter, _ = maps.generate(g, w, h, 3, k)
        for zone in _zones(w, h, d.setup.deploy_rows):
            assert t[ter[zone], L.T_PASSABLE].all() and t[ter[zone], L.T_LARGE_OK].all()
            assert not np.isin(ter[zone], [L.TR_CURRENT, L.TR_RIVER_OUTFLOW, L.TR_WHIRL_POOL,
                                           L.TR_VENT, L.TR_UPWELLING]).any()
        for zone in _zones(w, h, d.map.generator.hazard_free_rows):
            assert not np.isin(ter[zone], [L.TR_VORTEX, L.TR_LAVA]).any()
        assert np.isin(ter, [L.TR_VORTEX, L.TR_LAVA]).any() or k < 59
        assert (ter == L.TR_SEA_TEMPLE).sum() == 1 and (ter == L.TR_SPAWNING_BED).sum() == 1
        assert np.flatnonzero(ter == L.TR_SEA_TEMPLE)[0] // w == h - 1 - 2
        assert np.flatnonzero(ter == L.TR_SPAWNING_BED)[0] // w == 2
    g, d = _gen(hazard_share=0.5, lethal_hazards=False)
    ter = np.concatenate([maps.generate(g, w, h, 4, k)[0] for k in range(30)])
    assert not np.isin(ter, [L.TR_VORTEX, L.TR_LAVA]).any()


def test_generator_both_forces_fit_and_the_map_connects():
    g, d = _gen()
    t = terrain_table(d)
    w, h = 18, 14
    nb = maps.neighbor_table(w, h)
    for k in range(30):
        ter, _ = maps.generate(g, w, h, 5, k)
        cap = maps.deploy_capacity(t, ter, w, h, d.setup.deploy_rows)
        assert cap[L.WITCH][0] >= 33 and cap[L.WITCH][1] >= 8
        assert cap[L.KING][0] >= 32 and cap[L.KING][1] >= 9
        # the two deployment zones are joined through passable hexes (not a rule, but the
        # generator's shares keep maps open: a wall would make leader kills impossible)
        seen = {0}
        todo = deque([0])
        while todo:
            c = todo.popleft()
            for n in nb[c]:
                if n >= 0 and n not in seen and t[ter[n], L.T_PASSABLE]:
                    seen.add(n)
                    todo.append(n)
        assert w * h - 1 in seen


def test_generator_mirrored_is_point_symmetric():
    g, _ = _gen(mirrored=True, temples=2, spawning_beds=2)
    w, h = 18, 14
    swap = {L.TR_SEA_TEMPLE: L.TR_SPAWNING_BED, L.TR_SPAWNING_BED: L.TR_SEA_TEMPLE}
    for k in range(20):
        ter, cur = maps.generate(g, w, h, 6, k)
        for c in range(w * h):
            m = maps.mirror_cell(c, w, h)
            assert ter[m] == swap.get(int(ter[c]), ter[c])
            assert cur[m] == ((cur[c] + 3) % 6 if cur[c] >= 0 else -1)
        assert (ter == L.TR_SEA_TEMPLE).sum() == 2
    with pytest.raises(InputError, match="temples .* must equal"):
        _gen(mirrored=True, temples=2, spawning_beds=1)
    with pytest.raises(InputError, match="even map.height"):
        load_data({"map.generator.mirrored": True, "map.height": 13})


# ---- geometry ----------------------------------------------------------------------------

@pytest.mark.parametrize("w, h", [(18, 14), (5, 7)])
def test_neighbours_and_distances(w, h):
    nb = maps.neighbor_table(w, h)
    dist = maps.distance_table(w, h)
    n = w * h
    for c in range(n):
        r, col = divmod(c, w)
        if 0 < r < h - 1 and 0 < col < w - 1:
            assert (nb[c] >= 0).all()                      # 6 neighbours inside
        for d in range(6):
            o = nb[c, d]
            if o >= 0:
                assert nb[o, (d + 3) % 6] == c             # symmetric, opposite direction
                assert dist[c, o] == 1
        assert (dist[c] == 1).sum() == (nb[c] >= 0).sum()
    assert np.array_equal(dist, dist.T) and (np.diag(dist) == 0).all()
    # distances equal breadth-first steps over the neighbour table
    for start in (0, n // 2, n - 1):
        steps = {start: 0}
        todo = deque([start])
        while todo:
            c = todo.popleft()
            for o in nb[c]:
                if o >= 0 and o not in steps:
                    steps[o] = steps[c] + 1
                    todo.append(o)
        assert all(dist[start, c] == s for c, s in steps.items())
    rng = np.random.default_rng(0)
    a, b, c = rng.integers(0, n, (3, 500))
    assert (dist[a, c] <= dist[a, b] + dist[b, c]).all()


def test_half_turn_is_a_grid_symmetry_for_even_heights():
    w, h = 18, 14
    nb = maps.neighbor_table(w, h)
    for c in range(w * h):
        m = maps.mirror_cell(c, w, h)
        for d in range(6):
            o = nb[c, d]
            assert nb[m, (d + 3) % 6] == (maps.mirror_cell(o, w, h) if o >= 0 else -1)


# ---- compiled arrays and frames ----------------------------------------------------------

def test_kernel_args_contract():
    a = prep().compiled["arrays"]
    c = 18 * 14
    shapes = {
        "rules": ((L.N_RULES,), np.float64), "gen": ((L.N_GEN,), np.float64),
        "terrain": ((L.N_TERRAIN, L.N_TCOL), np.int64),
        "spells": ((L.N_SPELLS, L.N_SPCOL), np.int64),
        "units": ((57, L.N_UCOL), np.int64), "roster": ((2, L.MAX_UNITS), np.int64),
        "neighbors": ((c, 6), np.int64), "dist": ((c, c), np.int64),
        "fixed_terrain": ((c,), np.int64), "fixed_current": ((c,), np.int64),
        "knobs": (None, np.float64), "side_bot": ((2,), np.int64),
        "bot_pool": (None, np.int64), "special_types": ((4,), np.int64),
        "fmix": ((2, 2, 1), np.float64),    # no side with bots of its own (faction_bots)
    }
    args = a.kernel_args()
    assert len(args) == len(shapes)
    for arr, (name, (shape, dtype)) in zip(args, shapes.items()):
        if name == "knobs":
            shape = (3, L.N_KNOBS)          # the three styles of bots.yaml, no custom side
        if name == "bot_pool":
            shape = (3,)                    # the scenario default pool
        assert arr.shape == shape and arr.dtype == dtype and arr.flags.c_contiguous, name
    names = prep().compiled["unit_names"]
    assert [names[i] for i in a.special_types] == ["brain_coral", "island_fish",
                                                   "water_elemental", "giant_oyster"]
    sp = a.spells
    assert names[sp[L.SP_OYSTER, L.SPC_CREATES]] == "giant_oyster"
    assert sp[L.SP_ANEMONE, L.SPC_TARGET_TERRAIN] == L.TR_SANDY_SURF   # "Rocky bottom" alias
    assert sp[L.SP_FREEZE, L.SPC_SETS_TERRAIN] == L.TR_PACK_ICE
    assert sp[L.SP_VORTEX, L.SPC_NEEDS_DEPTH] == 1 and sp[L.SP_VORTEX, L.SPC_NEEDS_EMPTY] == 1
    assert (sp[:, L.SPC_CHITS] == 2).all()
    assert a.rules[L.R_FIRST_SIDE] == 0 and a.rules[L.R_MAX_TURNS] == 1000
    u = a.units[names.index("kraken")]
    assert (u[L.U_AD], u[L.U_DR], u[L.U_LARGE], u[L.U_ENTANGLE], u[L.U_SPLIT],
            u[L.U_SIDE]) == (6, 8, 1, 1, 1, L.WITCH)
    u = a.units[names.index("sea_king")]
    assert (u[L.U_LEADER], u[L.U_SPELLS], u[L.U_HF_DASH]) == (1, 3, 1)
    u = a.units[names.index("coral_warriors")]
    assert (u[L.U_HF], u[L.U_HF_TERRAIN], u[L.U_HF_TERRAIN_BONUS]) == (1, L.TR_CORAL, 2)


def test_frames_from_kernel_outputs():
    p = prep(sides={"sea_witch": {"bot": "aggressive"}, "sea_king": {"bot": "defensive"}})
    n = 3
    gi = np.zeros((n, len(L.GAME_INT)), np.int64)
    gf = np.zeros((n, len(L.GAME_FLT)), np.float64)
    si = np.zeros((n, 2, L.N_SEAT_INT), np.int64)
    sf = np.zeros((n, 2, len(L.SEAT_FLT)), np.float64)
    gi[:, L.G_WINNER_SIDE] = [L.WITCH, L.KING, -1]
    gi[:, L.G_END_CAUSE] = [L.END_ATTACK, L.END_POISON, L.END_TURN_CAP]
    gi[:, L.G_TRUNCATED] = [0, 0, 1]
    gi[:, L.G_KILLER_TYPE] = [0, p.compiled["unit_names"].index("sea_snakes"), -1]
    si[:, 0, L.S_SIDE], si[:, 1, L.S_SIDE] = L.WITCH, L.KING
    si[:, 0, L.S_BOT], si[:, 1, L.S_BOT] = 1, 2
    sf[:, 0, L.SF_WIN] = [1, 0, 0]     # the kernel gives a stopped game's seats no win
    sf[:, 1, L.SF_WIN] = [0, 1, 0]
    games, seats = RULESET.frames(p, np.arange(100, 103, dtype=np.int64), gi, gf, si, sf)
    assert list(games["game"]) == [100, 101, 102]
    assert list(games["winner"]) == ["Sea Witch", "Sea King", "unresolved"]
    assert list(games["end"]) == ["attack", "poison", "turn_cap"]
    assert list(games["killer"]) == ["Sea King", "Sea Snakes", ""]
    assert list(games["truncated"]) == [False, False, True]
    assert list(games["first"]) == ["Sea Witch"] * 3
    assert len(seats) == 6 and (seats["players"] == 2).all() and (seats["fair"] == 0.5).all()
    assert list(seats["faction"][:2]) == ["Sea Witch", "Sea King"]
    assert list(seats["bot"][:2]) == ["aggressive", "defensive"]
    assert list(seats["outcome"]) == ["win", "loss", "loss", "win", "unresolved", "unresolved"]
    # a game the safety cap stopped is neither a win, a loss nor a draw (win is NaN)
    assert seats["win"].iloc[:4].tolist() == [1, 0, 0, 1] and seats["win"].iloc[4:].isna().all()
    assert list(seats["first"]) == [True, False] * 3
    assert "side" not in seats and set(L.SEAT_INT[2:]) <= set(seats.columns)


def test_fixed_map_and_forces_reach_the_kernel():
    """A fixed map file and a forces: change arrive in the games (a few games, one thread)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[3] / "scenarios"
    sc = {**BASE, "seed": 4, "map": {"file": "maps/arena-18x14.txt"},
          "sides": {"sea_witch": {"bot": "aggressive"}, "sea_king": {"bot": "defensive"}},
          "forces": {"sea_witch": {"leviathan": 0}, "sea_king": {"mermen": 6}}}
    p = RULESET.prepare(sc, source=str(root / "x.yaml"))
    games, seats = RULESET.run_chunk(p, 0, 4)
    assert len(games) == 4 and len(seats) == 8
    start = dict(zip(seats["faction"].astype(str), seats["units_start"]))
    assert start == {"Sea Witch": 32, "Sea King": 34}
    assert set(games["winner"].astype(str)) <= {"Sea Witch", "Sea King", "unresolved"}
    g1, _ = RULESET.trace_result(p, 2)
    assert g1.iloc[0].to_dict() == games.iloc[2].to_dict()


@pytest.mark.parametrize("w,h", [(18, 14), (7, 9), (1, 5), (10, 2)])
def test_distance_table_is_symmetric_and_contiguous(w, h):
    """The kernel reads dist[cj] as the distances *to* cj (compute_fields, leader_threat:
    the contiguous row instead of the column), which needs a symmetric table."""
    d = maps.distance_table(w, h)
    assert d.shape == (w * h, w * h) and d.flags["C_CONTIGUOUS"]
    assert (d == d.T).all() and (np.diag(d) == 0).all()
