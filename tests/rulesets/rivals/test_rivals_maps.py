"""Rivals maps: line of sight on hand-drawn maps (RV-L1/L2, AMB-36), the segment/hexagon
primitive, the placeholder generator and its mulligan (RV-S7, AMB-17..19), text grids."""

from __future__ import annotations

import numpy as np
import pytest

from deepsim.errors import InputError
from deepsim.rulesets.rivals import hexgrid as H
from deepsim.rulesets.rivals import layout as L
from deepsim.rulesets.rivals import maps, odds


def los_of(text: str, adjacent: bool = True):
    """(los uint8[T, T], {(col, row): cell}) of a hand-drawn map."""
    fm = maps.parse_grid(text, source="<test>")
    pool = maps.fixed_pool(fm, los_adjacent=adjacent)
    cells = {H.offset_from_axial(int(q), int(r)): i for i, (q, r) in enumerate(fm.coords)}
    return pool.los[0], cells


def sees(text: str, a: tuple[int, int], b: tuple[int, int], adjacent: bool = True) -> bool:
    los, cells = los_of(text, adjacent)
    return bool(los[cells[a], cells[b]])


# ---- the primitive ---------------------------------------------------------------------

def test_segment_touching_a_hexagon_corner_or_edge_counts():
    corners = H.CORNERS
    normals = H.NORMALS
    ap = H.APOTHEM
    # the hexagon at the origin: its top corner is (0, -1), its right edge x = sqrt(3)/2
    t = lambda ax, ay, bx, by: H.segment_touches(ax, ay, bx, by, 0.0, 0.0, corners, normals,
                                          ap, H.EPS)
    assert t(-3.0, -1.0, 3.0, -1.0)                  # grazes the top corner
    assert not t(-3.0, -1.0 - 1e-6, 3.0, -1.0 - 1e-6)  # just above it
    assert t(ap, -3.0, ap, 3.0)                      # runs along the right edge
    assert not t(ap + 1e-6, -3.0, ap + 1e-6, 3.0)
    assert t(-0.1, 0.0, 0.1, 0.0)                    # inside
    assert not t(2.0, 2.0, 3.0, 3.0)                 # far away
    assert t(0.0, -1.0, 0.0, -5.0)                   # starts on the corner


# ---- hand-drawn maps -------------------------------------------------------------------

def test_a_rock_between_two_tiles_in_a_row_blocks():
    row = "S1 s r s S2\n"
    assert not sees(row, (1, 0), (3, 0))
    assert not sees(row, (0, 0), (4, 0))
    assert sees("S1 s s s S2\n", (0, 0), (4, 0))


def test_a_corner_shared_with_a_rock_is_obstructed_but_others_see_past():
    """The centre line from (0,0) to (1,1) grazes the rock's bottom corner, yet a line from
    the shooter's lower corner passes under the rock: the corner rule sees."""
    grid = ("S1 r  s\n"
            " s  s  S2\n")
    assert sees(grid, (0, 0), (1, 1))
    # wall it in below too: every corner line now touches a rock
    walled = ("S1 r  s\n"
              " r  s  S2\n")
    assert not sees(walled, (0, 0), (1, 1), adjacent=False)


def test_both_on_rocks_see_each_other_through_rocks():
    """RV-L2: "LOS is still blocked unless both models are on ROCKS"."""
    grid = "S1 r r r S2\n"
    assert sees(grid, (1, 0), (3, 0))           # rock to rock over a rock
    assert not sees(grid, (0, 0), (4, 0))       # neither on a rock
    grid2 = "S1 s r r S2\n"
    assert not sees(grid2, (1, 0), (3, 0))      # only the target on a rock


def test_adjacent_tiles_always_see_each_other_by_default():
    grid = ("r  r  r\n"
            " r  S1 S2\n"
            "r  r  r\n")
    assert sees(grid, (1, 1), (2, 1))
    # without AMB-36's rule the strict corner rule applies: every corner of S1 is shared
    # with a rock (its shared edge's two ends touch the rocks above and below), so S1 sees
    # nothing, not even its neighbour
    los, cells = los_of(grid, adjacent=False)
    assert los[cells[(1, 1)], cells[(2, 1)]] == 0
    open_ = ("s  s  s\n"
             " s  S1 S2\n"
             "s  s  s\n")
    assert sees(open_, (1, 1), (2, 1), adjacent=False)


def test_a_wall_with_a_gap_is_seen_through_straight_only():
    grid = ("S1 s  s  s  s\n"
            " r  r  s  r  r\n"
            "s  s  s  s  S2\n")
    assert sees(grid, (2, 0), (2, 2))           # straight down through the gap
    assert not sees(grid, (0, 0), (4, 2))       # across the wall at a slant


def test_line_of_sight_is_symmetric_and_reflexive_on_generated_maps():
    d = odds.data()
    pool = maps.build_pool(d.map, [2, 3, 4], 7, los_adjacent=True)
    los = pool.los
    assert (los == los.transpose(0, 2, 1)).all()
    assert (los[:, np.arange(61), np.arange(61)] == 1).all()
    # a rock-free map sees everything
    geo = pool.geometry
    clear = maps.los_table(geo, np.full(geo.size, L.TT_SAND), True)
    assert clear.all()
    # the rocks do block something on most maps
    assert (los == 0).any(axis=(1, 2)).mean() > 0.9


# ---- the generator ---------------------------------------------------------------------

def test_pool_is_the_same_for_a_seed_and_differs_for_another():
    d = odds.data()
    a = maps.generate_pool(d.map, [2, 4], 3, los_adjacent=True)
    b = maps.generate_pool(d.map, [2, 4], 3, los_adjacent=True)
    c = maps.generate_pool(d.map, [2, 4], 4, los_adjacent=True)
    assert (a.types == b.types).all() and (a.owners == b.owners).all()
    assert (a.los == b.los).all()
    assert (a.types != c.types).any()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_generated_maps_follow_the_setup(players):
    """RV-S7: 52/52/58 tiles with 3 spawns per player on the rim, each player's spawns
    adjacent; the rest from the mix; the mulligan's conditions hold unless it gave up."""
    d = odds.data()
    pool = maps.build_pool(d.map, [players], 11, los_adjacent=True)
    geo = pool.geometry
    rim = set(maps.rim_cells(d.map.radius))
    lo, n = pool.first[players], pool.count[players]
    assert n == d.map.pool
    for m in range(lo, lo + n):
        types, owners = pool.types[m], pool.owners[m]
        assert (types != L.TT_VOID).sum() == d.map.tiles[players]
        for p in range(players):
            cells = np.nonzero(owners == p)[0]
            assert len(cells) == 3 and set(cells.tolist()) <= rim
            assert (types[cells] == L.TT_SPAWN).all()
            # the three spawns are connected
            assert sum(geo.dist[a, b] == 1 for a in cells for b in cells) >= 4
        assert (owners[types != L.TT_SPAWN] == -1).all()
        for kind, tt in (("rock", L.TT_ROCK), ("den", L.TT_DEN), ("coral", L.TT_CORAL)):
            assert (types == tt).sum() <= d.map.mix[kind]
        if pool.mulligans[m] < d.map.mulligan.tries:
            assert not maps.uneven(geo, types, owners, players, 2, 1)
    assert pool.mulligans[lo:lo + n].mean() > 0      # the mulligan does act


def test_the_map_mulligan_can_be_switched_off():
    d = odds.data(["map.mulligan.tries=0"])
    pool = maps.generate_pool(d.map, [2], 5, los_adjacent=True)
    assert (pool.mulligans == 0).all()
    geo = pool.geometry
    assert any(maps.uneven(geo, pool.types[m], pool.owners[m], 2, 2, 1)
               for m in range(len(pool.types)))


# ---- text grids ------------------------------------------------------------------------

def test_text_grid_round_trip_and_errors():
    d = odds.data()
    pool = maps.build_pool(d.map, [3], 2, los_adjacent=True)
    geo = pool.geometry
    text = maps.format_grid(geo.coords, pool.types[0], pool.owners[0])
    fm = maps.parse_grid(text, source="<t>")
    assert fm.players == 3
    again = maps.format_grid(fm.coords, fm.types, fm.owners)
    assert again == text
    with pytest.raises(InputError, match=r"column 4: unknown tile 'x'") as e:
        maps.parse_grid("S1 x S2\n", source="m.txt", first_line=3)
    assert e.value.line == 3 and e.value.file == "m.txt"
    with pytest.raises(InputError, match="S3 but no S2"):
        maps.parse_grid("S1 s S3\n", source="m.txt")
    with pytest.raises(InputError, match="not all connected"):
        maps.parse_grid("S1 s . . S2\n", source="m.txt")
