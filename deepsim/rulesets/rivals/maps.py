"""The Lurk map (RV-S7, RV-T1, RV-L1): the placeholder generator, map text grids, and the
pool of maps a run's games draw from, each with its line-of-sight table.

**Generator** (``map.source: generated``; INVENTED, AMB-17/18/19: the rulebook says only
"in a circular pattern, as shown in the diagrams", and the diagrams are missing):

1. a hexagon of ``map.radius`` (61 cells at radius 4), its rim walked as a ring;
2. a random rotation; player i's spawns are ``spawns_per_player`` consecutive rim cells
   centred at ``rotation + i * rim / players`` (opposite sides at 2 players);
3. rim cells that are not spawns are removed, round-robin over the players' sectors (the
   rim cells nearest each player's spawn centre), until ``map.tiles[players]`` remain;
4. the other cells take tiles drawn without replacement from ``map.mix`` (sand, coral,
   rock, den);
5. the map mulligan (RV-S7: "spawn tiles surrounded by Rocks, or all Lurkers are on one
   side"): the tiles are drawn again (step 4) while some player's spawns have fewer than
   ``mulligan.min_open_neighbours`` neighbouring tiles that are neither rock nor den, or the
   dens nearest each player differ in number by more than ``mulligan.max_den_imbalance``,
   at most ``mulligan.tries`` times (then the last draw stands).

A run builds ``map.pool`` maps per player count from its seed (numpy's PCG64 seeded by
(seed, player count, map index): the pool is the same for any thread count or chunking),
and each game draws one from its own stream. Line of sight is precomputed per map by the
corner rule (:mod:`hexgrid`; RV-L1/L2, AMB-36).

**Text grid** (``map.source: file``, a scenario's ``map:``): odd-r rows of
whitespace-separated tokens, as the Atlantis maps: ``.`` no tile, ``S1`` .. ``S4`` a spawn
of that player, ``s`` sand, ``c`` coral, ``r`` rock, ``d`` den; ``#`` starts a comment.
The number of players is the highest spawn number; every player needs a spawn.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from deepsim.errors import InputError
from deepsim.rulesets.rivals import hexgrid
from deepsim.rulesets.rivals import layout as L

#: salt of the map pool's seed sequence ("RIVALMAP")
MAP_SALT = 0x524956414C4D4150
#: text-grid tokens -> tile type (a spawn's owner follows its S)
CODES = {".": L.TT_VOID, "s": L.TT_SAND, "c": L.TT_CORAL, "r": L.TT_ROCK, "d": L.TT_DEN}
TYPE_CODE = {L.TT_VOID: ".", L.TT_SAND: "s", L.TT_CORAL: "c", L.TT_ROCK: "r",
             L.TT_DEN: "d"}


@dataclass
class Geometry:
    """The cells every map of a pool shares.

    Attributes
    ----------
    coords : int64[T, 2]
        Axial coordinates of the cells.
    nb : int64[T, 6]
        Neighbour in each direction (E, NE, NW, W, SW, SE), -1 none.
    dist : int64[T, T]
        Hex distances.
    masks : uint64[T, T, 36, W]
        Corner-segment touch sets (:func:`hexgrid.touch_masks`).
    width, height, col0, row0 : int
        The odd-r text grid the cells are drawn in (cell i at column ``col[i] - col0``,
        row ``row[i] - row0``).
    """

    coords: np.ndarray
    nb: np.ndarray
    dist: np.ndarray
    masks: np.ndarray

    @property
    def size(self) -> int:
        return len(self.coords)


@lru_cache(maxsize=8)
def hexagon_geometry(radius: int) -> Geometry:
    """The generator's cells: a hexagon of ``radius`` (cached: its masks take a while)."""
    coords = hexgrid.hexagon(radius)
    return Geometry(coords, hexgrid.axial_neighbors(coords),
                    hexgrid.axial_distance_table(coords), hexgrid.touch_masks(coords))


def grid_geometry(coords: np.ndarray) -> Geometry:
    """The geometry of a text grid's cells."""
    coords = np.ascontiguousarray(coords, np.int64)
    return Geometry(coords, hexgrid.axial_neighbors(coords),
                    hexgrid.axial_distance_table(coords), hexgrid.touch_masks(coords))


@dataclass
class MapPool:
    """A run's maps: one geometry, ``M`` maps, an index range per player count.

    Attributes
    ----------
    geometry : Geometry
    types : int64[M, T]
        Tile type of each cell (``layout.TT_*``; ``TT_VOID``: no tile).
    owners : int64[M, T]
        Player (0-based sector) whose spawn a cell is, -1 elsewhere.
    los : uint8[M, T, T]
        1 where a model on cell a may see one on cell b (RV-L1/L2).
    mulligans : int64[M]
        Mulligans before the map stood (generator only; 0 for a file map).
    first, count : int64[MAX_P + 1]
        Maps of ``n`` players are rows ``first[n] .. first[n] + count[n] - 1``.
    """

    geometry: Geometry
    types: np.ndarray
    owners: np.ndarray
    los: np.ndarray
    mulligans: np.ndarray
    first: np.ndarray
    count: np.ndarray


# ---- the generator ---------------------------------------------------------------------

@lru_cache(maxsize=8)
def rim_cells(radius: int) -> list[int]:
    """Cell indices of the hexagon's rim, walked once (hexgrid.ring order)."""
    geo = hexagon_geometry(radius)
    index = {(int(q), int(r)): i for i, (q, r) in enumerate(geo.coords)}
    return [index[(int(q), int(r))] for q, r in hexgrid.ring(radius)]


def _sectors(n_ring: int, centres: list[int]) -> np.ndarray:
    """Sector (player) of each rim position: the nearest spawn centre around the ring
    (ties to the lower player)."""
    out = np.zeros(n_ring, np.int64)
    for p in range(n_ring):
        best, who = n_ring, 0
        for i, c in enumerate(centres):
            dd = min((p - c) % n_ring, (c - p) % n_ring)
            if dd < best:
                best, who = dd, i
        out[p] = who
    return out


def _nearest_player(geo: Geometry, owners: np.ndarray, players: int) -> np.ndarray:
    """Per cell, the player whose spawn is nearest (-1 on a tie): its side of the map."""
    t = geo.size
    d = np.full((players, t), 10**6, np.int64)
    for p in range(players):
        cells = np.nonzero(owners == p)[0]
        if len(cells):
            d[p] = geo.dist[cells].min(axis=0)
    best = d.min(axis=0)
    who = d.argmin(axis=0)
    ties = (d == best[None, :]).sum(axis=0) > 1
    return np.where(ties, -1, who)


def uneven(geo: Geometry, types: np.ndarray, owners: np.ndarray, players: int,
           min_open: int, max_imbalance: int) -> bool:
    """The mulligan test (AMB-19): some player's spawns have fewer than ``min_open``
    neighbouring tiles that are neither rock nor den, or the dens nearest each player differ
    in number by more than ``max_imbalance``."""
    for p in range(players):
        spawn = set(np.nonzero(owners == p)[0].tolist())
        around = {int(n) for c in spawn for n in geo.nb[c] if n >= 0} - spawn
        open_ = [c for c in around if types[c] not in (L.TT_VOID, L.TT_ROCK, L.TT_DEN)]
        if len(open_) < min_open:
            return True
    side = _nearest_player(geo, owners, players)
    dens = [int(((types == L.TT_DEN) & (side == p)).sum()) for p in range(players)]
    return max(dens) - min(dens) > max_imbalance


def generate(spec, players: int, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray, int]:
    """One generated map of ``players`` players (``spec``: the data's ``map`` group).

    Returns
    -------
    (types int64[T], owners int64[T], mulligans)
        On the cells of :func:`hexagon_geometry` of ``spec.radius``.
    """
    geo = hexagon_geometry(spec.radius)
    ring = rim_cells(spec.radius)
    n_ring = len(ring)
    rot = int(rng.integers(n_ring))
    centres = [(rot + round(i * n_ring / players)) % n_ring for i in range(players)]
    k = spec.spawns_per_player
    owners = -np.ones(geo.size, np.int64)
    for p, c in enumerate(centres):
        for j in range(k):
            owners[ring[(c - (k - 1) // 2 + j) % n_ring]] = p
    # trim the rim round-robin over the sectors
    sector = _sectors(n_ring, centres)
    removable = {p: [i for i in range(n_ring) if sector[i] == p and owners[ring[i]] < 0]
                 for p in range(players)}
    for lst in removable.values():
        rng.shuffle(lst)
    alive = np.ones(geo.size, bool)
    to_remove = geo.size - spec.tiles[players]
    p = 0
    while to_remove > 0:
        if removable[p]:
            alive[ring[removable[p].pop()]] = False
            to_remove -= 1
        p = (p + 1) % players
    # the tiles: spawns, then the mix drawn without replacement (redrawn while uneven)
    bag = [t for name, t in (("sand", L.TT_SAND), ("coral", L.TT_CORAL),
                             ("rock", L.TT_ROCK), ("den", L.TT_DEN))
           for _ in range(spec.mix.get(name, 0))]
    free = [c for c in range(geo.size) if alive[c] and owners[c] < 0]
    mull = spec.mulligan
    tries = 0
    while True:
        drawn = rng.permutation(len(bag))[:len(free)]
        types = np.full(geo.size, L.TT_VOID, np.int64)
        types[owners >= 0] = L.TT_SPAWN
        types[free] = np.asarray(bag, np.int64)[drawn]
        if tries >= mull.tries or not uneven(geo, types, owners, players,
                                             mull.min_open_neighbours, mull.max_den_imbalance):
            return types, owners, tries
        tries += 1


def los_table(geo: Geometry, types: np.ndarray, adjacent_always: bool) -> np.ndarray:
    """uint8[T, T] line of sight of one map (RV-L1: rocks block by the corner rule; RV-L2:
    two rocks see each other; AMB-36: neighbours always see each other)."""
    rocks = (types == L.TT_ROCK).astype(np.uint8)
    return hexgrid.corner_los(geo.masks, rocks, True, bool(adjacent_always), geo.dist)


_POOLS: dict[tuple, MapPool] = {}


def build_pool(spec, counts: list[int], seed: int, *, los_adjacent: bool) -> MapPool:
    """``spec.pool`` generated maps per player count of ``counts`` for a run of ``seed``
    (the last few pools are kept: a pool depends only on these arguments)."""
    memo = (spec.model_dump_json(), tuple(sorted(set(counts))), int(seed), bool(los_adjacent))
    if memo not in _POOLS:
        if len(_POOLS) >= 4:
            _POOLS.pop(next(iter(_POOLS)))
        _POOLS[memo] = generate_pool(spec, counts, seed, los_adjacent=los_adjacent)
    return _POOLS[memo]


def generate_pool(spec, counts: list[int], seed: int, *, los_adjacent: bool) -> MapPool:
    """:func:`build_pool` without its memory: always built anew."""
    geo = hexagon_geometry(spec.radius)
    n = spec.pool
    m = n * len(counts)
    types = np.zeros((m, geo.size), np.int64)
    owners = np.zeros((m, geo.size), np.int64)
    los = np.zeros((m, geo.size, geo.size), np.uint8)
    mull = np.zeros(m, np.int64)
    first = np.zeros(L.MAX_P + 1, np.int64)
    count = np.zeros(L.MAX_P + 1, np.int64)
    row = 0
    for players in sorted(set(counts)):
        first[players] = row
        count[players] = n
        for i in range(n):
            rng = np.random.Generator(np.random.PCG64(
                np.random.SeedSequence([int(seed), MAP_SALT, players, i])))
            t, o, k = generate(spec, players, rng)
            types[row], owners[row], mull[row] = t, o, k
            los[row] = los_table(geo, t, los_adjacent)
            row += 1
    return MapPool(geo, types[:row], owners[:row], los[:row], mull[:row], first, count)


# ---- text grids ------------------------------------------------------------------------

@dataclass
class FixedMap:
    """A map from a text grid: its cells, tiles, spawns and text.

    ``players`` is the highest spawn number; ``text`` is recorded in the run's parameters
    (a changed grid changes the parameters hash); ``source`` names the file or scenario.
    """

    coords: np.ndarray
    types: np.ndarray
    owners: np.ndarray
    players: int
    text: str
    source: str


def _token(tok: str) -> tuple[int, int] | None:
    if tok in CODES:
        return CODES[tok], -1
    if len(tok) == 2 and tok[0] == "S" and tok[1] in "1234":
        return L.TT_SPAWN, int(tok[1]) - 1
    return None


def parse_grid(text: str, *, source: str, first_line: int = 1) -> FixedMap:
    """Parse a Rivals map text grid (module docstring).

    Raises
    ------
    InputError
        Naming ``source``, the line and column, and what was expected.
    """
    cells, types, owners = [], [], []
    row = 0
    for i, raw in enumerate(text.splitlines()):
        line_no = first_line + i
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        pos = 0
        for col, tok in enumerate(body.split()):
            at = body.index(tok, pos) + 1
            pos = at - 1 + len(tok)
            got = _token(tok)
            if got is None:
                known = [*CODES, "S1", "S2", "S3", "S4"]
                close = difflib.get_close_matches(tok, known, n=2, cutoff=0.3)
                hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
                raise InputError(f"column {at}: unknown tile {tok!r}; expected . (no tile), "
                                 f"S1-S4 (a player's spawn), s (sand), c (coral), r (rock) "
                                 f"or d (den){hint}", file=source, line=line_no)
            t, o = got
            if t == L.TT_VOID:
                continue
            cells.append(hexgrid.axial_from_offset(col, row))
            types.append(t)
            owners.append(o)
        row += 1
    if not cells:
        raise InputError("the map grid has no tiles; expected rows of tile codes "
                         "(s, c, r, d, S1-S4; . for no tile)", file=source, line=first_line)
    if len(cells) > L.MAX_TILES:
        raise InputError(f"the map has {len(cells)} tiles; the engine takes at most "
                         f"{L.MAX_TILES}", file=source, line=first_line)
    owners_a = np.asarray(owners, np.int64)
    players = int(owners_a.max()) + 1 if (owners_a >= 0).any() else 0
    missing = [p + 1 for p in range(players) if not (owners_a == p).any()]
    if players < 2 or missing:
        if players == 0:
            got = "it has no spawn"
        elif missing:
            got = f"it has S{players} but no {', '.join(f'S{m}' for m in missing)}"
        else:
            got = "it has only S1"
        raise InputError(f"the map needs spawn tiles of players 1 to n, n >= 2; {got}",
                         file=source, line=first_line)
    coords = np.asarray(cells, np.int64)
    nb = hexgrid.axial_neighbors(coords)
    seen = {0}
    todo = [0]
    while todo:
        c = todo.pop()
        for n in nb[c]:
            if n >= 0 and int(n) not in seen:
                seen.add(int(n))
                todo.append(int(n))
    if len(seen) != len(cells):
        raise InputError(f"the map's tiles are not all connected ({len(cells) - len(seen)} "
                         f"cannot be reached from the first)", file=source, line=first_line)
    return FixedMap(coords, np.asarray(types, np.int64), owners_a, players, text, source)


def fixed_pool(fm: FixedMap, *, los_adjacent: bool) -> MapPool:
    """The pool of one text-grid map (for its player count)."""
    geo = grid_geometry(fm.coords)
    first = np.zeros(L.MAX_P + 1, np.int64)
    count = np.zeros(L.MAX_P + 1, np.int64)
    count[fm.players] = 1
    return MapPool(geo, fm.types[None, :].copy(), fm.owners[None, :].copy(),
                   los_table(geo, fm.types, los_adjacent)[None, :, :],
                   np.zeros(1, np.int64), first, count)


def format_grid(coords: np.ndarray, types: np.ndarray, owners: np.ndarray) -> str:
    """The text grid of a map (inverse of :func:`parse_grid`; odd rows indented)."""
    offs = [hexgrid.offset_from_axial(int(q), int(r)) for q, r in coords]
    cols = [c for c, _ in offs]
    rows = [r for _, r in offs]
    c0, r0 = min(cols), min(rows)
    # keep odd-r parity: shift rows by an even number only
    r0 -= r0 & 1
    w, h = max(cols) - c0 + 1, max(rows) - r0 + 1
    grid = [["." for _ in range(w)] for _ in range(h)]
    for i, (c, r) in enumerate(offs):
        if types[i] == L.TT_VOID:
            continue
        tok = f"S{owners[i] + 1}" if types[i] == L.TT_SPAWN else TYPE_CODE[int(types[i])]
        grid[r - r0][c - c0] = tok
    lines = []
    for r, cells in enumerate(grid):
        lines.append((" " if (r + r0) & 1 else "") + " ".join(f"{t:<2}" for t in cells).rstrip())
    return "\n".join(lines) + "\n"
