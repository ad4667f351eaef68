"""Hex geometry, the seeded map generator and the text-grid map format of Atlantis.

Geometry (the shared :mod:`deepsim.rulesets.hexgrid`): "odd-r" offset rows of pointy-top
hexes (odd rows shifted half a hex right); ``cell = row * width + col``; direction ``d`` in
0..5 = E, NE, NW, W, SW, SE ("N" = row - 1, towards the Sea Witch's edge at row 0); the
opposite of ``d`` is ``(d + 3) % 6``. Distances come from cube coordinates
``x = col - (row - (row & 1)) / 2, z = row, y = -x - z``.

The generator (:func:`generate_map`) is numba code called by the kernel once per game when
``map.source`` is ``generated``; everything it does is INVENTED (the rulebook says only "use
a hex map", AT-S1) and documented in ``docs/atlantis-maps.md``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from deepsim.errors import InputError
from deepsim.rng import below, uniform
from deepsim.rulesets.atlantis import layout as L
from deepsim.rulesets.hexgrid import neighbor_table

# ---- geometry ---------------------------------------------------------------------------

def mirror_cell(cell: int, width: int, height: int) -> int:
    """The cell a half turn of the map sends ``cell`` to (a grid symmetry when height is even)."""
    return width * height - 1 - cell


# ---- generator pools (invented) ---------------------------------------------------------
# Terrain drawn for a hex of depth (0 shallow, 1 deep) and class (0 open, 1 cover,
# 2 impassable, 3 hazard); a name repeated is drawn more often. Lethal hazards (Vortex, Lava
# Flow) come last in their pool, so a pool without them is a prefix.
_OPEN, _COVER, _IMPASSABLE, _HAZARD = range(4)
_POOLS = {
    (0, _OPEN): [L.TR_MUD_FLATS, L.TR_MUD_FLATS, L.TR_MUD_FLATS, L.TR_CLAM_BED],
    (1, _OPEN): [L.TR_OPEN_OCEAN],
    (0, _COVER): [L.TR_SANDY_SURF, L.TR_CORAL, L.TR_KELP, L.TR_MANGROVE, L.TR_RUINS,
                  L.TR_BUILDINGS, L.TR_SUNKEN_SHIP, L.TR_CREVASSE],
    (1, _COVER): [L.TR_PACK_ICE, L.TR_SARGASSO],
    (0, _IMPASSABLE): [L.TR_LAND, L.TR_SHORELINE],
    (1, _IMPASSABLE): [L.TR_MOUNTAIN],
    (0, _HAZARD): [L.TR_RIVER_OUTFLOW, L.TR_WHIRL_POOL, L.TR_VENT, L.TR_LAVA],
    (1, _HAZARD): [L.TR_UPWELLING, L.TR_CURRENT, L.TR_VORTEX],
}
_LETHAL = (L.TR_VORTEX, L.TR_LAVA)
_POOL_W = max(len(v) for v in _POOLS.values())
POOL = -np.ones((2, 4, _POOL_W), np.int64)
POOL_LEN = np.zeros((2, 4), np.int64)
POOL_SAFE_LEN = np.zeros((2, 4), np.int64)   # length without the lethal hazards
for (_d, _k), _names in _POOLS.items():
    POOL[_d, _k, :len(_names)] = _names
    POOL_LEN[_d, _k] = len(_names)
    POOL_SAFE_LEN[_d, _k] = sum(1 for t in _names if t not in _LETHAL)
    assert all(t in _LETHAL for t in _names[POOL_SAFE_LEN[_d, _k]:])
#: terrains a generated deployment row may hold: passable, no hazard, open to Large units
#: whatever AMB-T12 says (no shallow 2-cost terrain, no Crevasse)
DEPLOY_SAFE = (L.TR_OPEN_OCEAN, L.TR_MUD_FLATS, L.TR_CLAM_BED, L.TR_PACK_ICE, L.TR_SARGASSO)


@njit(cache=True)
def generate_map(key, ctr, gen, width, height, neighbors, terrain_out, current_out):
    """Draw one map into ``terrain_out``/``current_out`` from the game's stream.

    Parameters
    ----------
    key : uint64
        The game's stream key (``rng.game_key``).
    ctr : int64 or uint64
        Next unused counter of the stream.
    gen : float64[N_GEN]
        Generator settings (``layout.GEN``).
    width, height : int64
        Map size; ``height`` is even when ``gen[GN_MIRRORED]`` is set.
    neighbors : int64[C, 6]
        Unused by this generator (kept for the contract: a smoother may need it).
    terrain_out : int64[C]
        Receives each hex's terrain row.
    current_out : int64[C]
        Receives the direction 0-5 of Current / River Outflow hexes, -1 elsewhere.

    Returns
    -------
    int64
        The next unused counter. The map depends only on (key, ctr, gen, width, height).

    Notes
    -----
    Per hex: depth (deep with probability ``deep_share``), class (open / cover /
    impassable / hazard by the normalised shares), then a terrain of that depth and class
    uniformly from the pools above. Deployment rows (``deploy_rows`` from each edge) draw
    only open or cover classes and only DEPLOY_SAFE terrain (shallow cover becomes Mud
    Flats), so every deployment hex takes any unit, Large ones included. No Vortex or Lava
    within ``hazard_free_rows`` of either edge, nor anywhere unless ``lethal_hazards``.
    Sea Temples go on row ``height - 1 - feature_depth``, Spawning Beds on row
    ``feature_depth``, in distinct random columns. ``mirrored``: the second half of the
    cells is the half turn of the first (currents turned by 3), and each Spawning Bed sits
    at the half turn of a Sea Temple.
    """
    k_ctr = np.uint64(ctr)        # the caller may keep its counter as int64
    n_cells = width * height
    s_open = max(gen[L.GN_OPEN], 0.0)
    s_cover = max(gen[L.GN_COVER], 0.0)
    s_imp = max(gen[L.GN_IMPASSABLE], 0.0)
    s_haz = max(gen[L.GN_HAZARD], 0.0)
    total = s_open + s_cover + s_imp + s_haz
    safe_total = s_open + s_cover
    deep_share = gen[L.GN_DEEP]
    lethal = gen[L.GN_LETHAL] > 0.5
    hazard_free = np.int64(gen[L.GN_HAZARD_FREE_ROWS])
    deploy_rows = np.int64(gen[L.GN_DEPLOY_ROWS])
    mirrored = gen[L.GN_MIRRORED] > 0.5
    n_draw = n_cells // 2 if mirrored else n_cells
    for cell in range(n_draw):
        r = cell // width
        edge = min(r, height - 1 - r)
        depth = 1 if uniform(key, k_ctr) < deep_share else 0
        k_ctr += np.uint64(1)
        u = uniform(key, k_ctr)
        k_ctr += np.uint64(1)
        if edge < deploy_rows:
            k = _OPEN if u * safe_total < s_open else _COVER
        else:
            x = u * total
            if x < s_open:
                k = _OPEN
            elif x < s_open + s_cover:
                k = _COVER
            elif x < s_open + s_cover + s_imp:
                k = _IMPASSABLE
            else:
                k = _HAZARD
        if edge < deploy_rows and depth == 0 and k == _COVER:
            k = _OPEN          # shallow cover would bar Large units from a deployment hex
        n = POOL_LEN[depth, k]
        if k == _HAZARD and (not lethal or edge < hazard_free):
            n = POOL_SAFE_LEN[depth, k]
        t = POOL[depth, k, below(key, k_ctr, n)]
        k_ctr += np.uint64(1)
        if edge < deploy_rows and t == L.TR_CREVASSE:
            t = L.TR_MUD_FLATS
        terrain_out[cell] = t
        current_out[cell] = -1
        if t == L.TR_CURRENT or t == L.TR_RIVER_OUTFLOW:
            current_out[cell] = below(key, k_ctr, 6)
            k_ctr += np.uint64(1)
    if mirrored:
        for cell in range(n_draw):
            m = n_cells - 1 - cell
            terrain_out[m] = terrain_out[cell]
            d = current_out[cell]
            current_out[m] = (d + 3) % 6 if d >= 0 else -1
    depth_row = np.int64(gen[L.GN_FEATURE_DEPTH])
    temples = np.int64(gen[L.GN_TEMPLES])
    beds = np.int64(gen[L.GN_BEDS])
    temple_row = height - 1 - depth_row
    for i in range(min(temples, width)):
        col = below(key, k_ctr, width)
        k_ctr += np.uint64(1)
        tries = 0
        while terrain_out[temple_row * width + col] == L.TR_SEA_TEMPLE and tries < 4 * width:
            col = below(key, k_ctr, width)
            k_ctr += np.uint64(1)
            tries += 1
        cell = temple_row * width + col
        terrain_out[cell] = L.TR_SEA_TEMPLE
        current_out[cell] = -1
        if mirrored:
            m = n_cells - 1 - cell
            terrain_out[m] = L.TR_SPAWNING_BED
            current_out[m] = -1
    if not mirrored:
        for i in range(min(beds, width)):
            col = below(key, k_ctr, width)
            k_ctr += np.uint64(1)
            tries = 0
            while terrain_out[depth_row * width + col] == L.TR_SPAWNING_BED and tries < 4 * width:
                col = below(key, k_ctr, width)
                k_ctr += np.uint64(1)
                tries += 1
            cell = depth_row * width + col
            terrain_out[cell] = L.TR_SPAWNING_BED
            current_out[cell] = -1
    return np.int64(k_ctr)


def generate(gen: np.ndarray, width: int, height: int, seed: int, game: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """One generated map of game ``game`` of ``seed`` from counter 0 (tests, docs, trace).

    Returns
    -------
    (terrain int64[C], current int64[C])
    """
    from deepsim.rng import game_key
    terrain = np.zeros(width * height, np.int64)
    current = -np.ones(width * height, np.int64)
    generate_map(np.uint64(game_key(np.int64(seed), np.int64(game))), np.uint64(0),
                 np.ascontiguousarray(gen, np.float64), np.int64(width), np.int64(height),
                 neighbor_table(width, height), terrain, current)
    return terrain, current


# ---- fixed maps: the text-grid format ---------------------------------------------------

@dataclass
class FixedMap:
    """A map given by a scenario: size, terrain rows and current directions.

    Attributes
    ----------
    width, height : int
    terrain : int64[C]
        Terrain row of each hex (``layout.TERRAINS``).
    current : int64[C]
        Direction 0-5 of a Current / River Outflow hex, -1 elsewhere.
    text : str
        The grid as given (recorded in the run's parameters, so a changed file changes
        the parameter hash).
    source : str
        Where it came from (file path, or scenario file and key).
    """

    width: int
    height: int
    terrain: np.ndarray
    current: np.ndarray
    text: str
    source: str


def parse_grid(text: str, codes: dict[str, int], current_rows: set[int], *,
               source: str, first_line: int = 1) -> FixedMap:
    """Parse a map text grid: one line per hex row, one whitespace-separated token per hex.

    A token is a terrain code (``codes``: code -> terrain row, from ruleset.yaml), and for a
    current terrain (``current_rows``) its code followed by a direction digit 0-5
    (E, NE, NW, W, SW, SE), e.g. ``C0``. ``#`` starts a comment; blank lines are skipped.

    Parameters
    ----------
    first_line : int
        File line number of the text's first line (for a grid inside a scenario file).

    Raises
    ------
    InputError
        Naming ``source``, the line, the column and what was expected.
    """
    rows: list[list[int]] = []
    dirs: list[list[int]] = []
    width = None
    first_row_line = None
    by_code = sorted(codes)
    for i, raw in enumerate(text.splitlines()):
        line_no = first_line + i
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        row_t, row_d = [], []
        pos = 0
        for tok in body.split():
            col = body.index(tok, pos) + 1
            pos = col - 1 + len(tok)
            t, d = _token(tok, codes, current_rows)
            if t is None:
                close = difflib.get_close_matches(tok, by_code, n=3, cutoff=0.3)
                hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
                raise InputError(f"column {col} (hex {len(row_t) + 1} of row {len(rows)}): "
                                 f"{d}; expected a terrain code ({', '.join(by_code)}) or, "
                                 f"for a current ({_current_codes(codes, current_rows)}), "
                                 f"its code and a direction digit 0-5 (E, NE, NW, W, SW, SE; "
                                 f"e.g. '{_current_example(codes, current_rows)}'){hint} "
                                 f"(got {tok!r})", file=source, line=line_no)
            row_t.append(t)
            row_d.append(d)
        if width is None:
            width, first_row_line = len(row_t), line_no
        elif len(row_t) != width:
            raise InputError(f"row {len(rows)} has {len(row_t)} hexes but row 0 (line "
                             f"{first_row_line}) has {width}: every row needs the same "
                             f"number of hexes", file=source, line=line_no)
        rows.append(row_t)
        dirs.append(row_d)
    if not rows:
        raise InputError("the map grid has no rows; expected one line of terrain codes per "
                         "hex row", file=source, line=first_line)
    height = len(rows)
    if not 4 <= width <= 64 or not 4 <= height <= 64:
        raise InputError(f"the map grid is {width} wide and {height} high; expected 4 to "
                         f"64 hexes each way", file=source, line=first_line)
    return FixedMap(width=width, height=height,
                    terrain=np.array([t for r in rows for t in r], np.int64),
                    current=np.array([d for r in dirs for d in r], np.int64),
                    text=text, source=source)


def _current_codes(codes: dict[str, int], current_rows: set[int]) -> str:
    return ", ".join(c for c, row in codes.items() if row in current_rows)


def _current_example(codes: dict[str, int], current_rows: set[int]) -> str:
    for code, row in codes.items():
        if row in current_rows:
            return f"{code}0"
    return "C0"


def _token(tok: str, codes: dict[str, int], current_rows: set[int]):
    """(terrain row, direction) of one token, or (None, reason)."""
    if tok in codes:
        t = codes[tok]
        if t in current_rows:
            return None, "a current needs its direction digit 0-5 after the code"
        return t, -1
    head, last = tok[:-1], tok[-1:]
    if head in codes and last.isdigit():
        t = codes[head]
        if t not in current_rows:
            return None, f"only a current takes a direction digit; {head!r} is not one"
        if int(last) > 5:
            return None, f"direction {last} is not 0-5 (E, NE, NW, W, SW, SE)"
        return t, int(last)
    return None, "unknown terrain code"


def load_map_file(path: Path, codes: dict[str, int], current_rows: set[int]) -> FixedMap:
    """Read and parse a map text file (errors name the file, line and column)."""
    if not path.exists():
        raise InputError("no such map file", file=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the map file: {exc}", file=str(path)) from None
    return parse_grid(text, codes, current_rows, source=str(path))


def format_grid(terrain: np.ndarray, current: np.ndarray, width: int,
                codes: dict[int, str]) -> str:
    """The text grid of a map (inverse of :func:`parse_grid`); odd rows indented a space."""
    lines = []
    for r in range(len(terrain) // width):
        toks = []
        for c in range(width):
            i = r * width + c
            tok = codes[int(terrain[i])] + (str(int(current[i])) if current[i] >= 0 else "")
            toks.append(f"{tok:<3}")
        lines.append((" " if r & 1 else "") + " ".join(toks).rstrip())
    return "\n".join(lines) + "\n"


def deploy_capacity(terrain_tab: np.ndarray, terrain: np.ndarray, width: int, height: int,
                    rows: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Deployment room of a fixed map: per side (WITCH, KING), (hexes a unit may deploy on,
    of those the ones a Large unit may enter).

    A deployment hex is passable and does not destroy a unit entering it (AT-M7).
    """
    out = []
    for side in (L.WITCH, L.KING):
        rr = range(rows) if side == L.WITCH else range(height - rows, height)
        cells = [r * width + c for r in rr for c in range(width)]
        ok = [c for c in cells if terrain_tab[terrain[c], L.T_PASSABLE]
              and not terrain_tab[terrain[c], L.T_ENTRY_DEATH]]
        large = [c for c in ok if terrain_tab[terrain[c], L.T_LARGE_OK]]
        out.append((len(ok), len(large)))
    return out[0], out[1]
