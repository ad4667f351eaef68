"""Hex-grid geometry for hex-map rulesets: coordinates, neighbours, distances and exact
corner-to-corner line of sight (used by Atlantis's odd-r rectangles and Rivals' hexagons).

Conventions (shared by every hex ruleset, so a map means the same in each):

- pointy-top hexes in **axial** coordinates ``(q, r)``; cube coordinates are
  ``(x, y, z) = (q, -q - r, r)``; the distance of two hexes is the largest absolute cube
  difference (Patel, "Hexagonal Grids", Red Blob Games, 2013);
- text grids and rectangular maps use **odd-r offset** rows (odd rows shifted half a hex
  right): ``q = col - (row - (row & 1)) // 2``, ``r = row``; row 0 is the top ("north");
- direction ``d`` in 0..5 is E, NE, NW, W, SW, SE, and the opposite of ``d`` is
  ``(d + 3) % 6``;
- in the plane a hex of axial ``(q, r)`` has its centre at ``(sqrt(3) * (q + r / 2),
  1.5 * r)`` and corner ``k`` at angle ``30 + 60 k`` degrees, circumradius 1.

Line of sight (:func:`touch_masks`, :func:`corner_los`) is the corner rule: hex ``a`` sees
hex ``b`` when some straight segment from a corner of ``a`` to a corner of ``b`` touches no
part of a blocking hex other than ``a`` and ``b`` themselves. "Touches" includes grazing a
corner or running along an edge (a closed-set test with tolerance :data:`EPS`), so a corner
shared with a blocking hex is obstructed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["APOTHEM", "AXIAL_DIRS", "CORNERS", "EPS", "NORMALS", "N_DIRS", "axial_distance_table", "axial_from_offset",
           "axial_neighbors", "center_los", "centers", "corner_los", "cube_coords", "distance_table",
           "hexagon", "neighbor_table", "offset_from_axial", "ring", "segment_touches", "touch_masks"]

N_DIRS = 6
#: axial (dq, dr) of directions E, NE, NW, W, SW, SE
AXIAL_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
#: tolerance of the closed-set segment/hexagon test: a gap below it is a touch
EPS = 1e-9
#: (d_col, d_row) of the six directions on odd-r offset rows, for even and for odd rows
_DELTA_EVEN = ((1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1))
_DELTA_ODD = ((1, 0), (1, -1), (0, -1), (-1, 0), (0, 1), (1, 1))


# ---- rectangular odd-r maps ------------------------------------------------------------

def neighbor_table(width: int, height: int) -> np.ndarray:
    """int64[C, 6]: neighbour cell of each cell ``row * width + col`` of a ``width`` x
    ``height`` odd-r rectangle in directions E, NE, NW, W, SW, SE; -1 off the map."""
    out = -np.ones((width * height, N_DIRS), np.int64)
    for r in range(height):
        deltas = _DELTA_ODD if r & 1 else _DELTA_EVEN
        for c in range(width):
            for d, (dc, dr) in enumerate(deltas):
                cc, rr = c + dc, r + dr
                if 0 <= cc < width and 0 <= rr < height:
                    out[r * width + c, d] = rr * width + cc
    return out


def cube_coords(width: int, height: int) -> np.ndarray:
    """int64[C, 3]: cube coordinates (x, y, z) of every cell of an odd-r rectangle
    (x + y + z = 0)."""
    cells = np.arange(width * height)
    row, col = cells // width, cells % width
    x = col - (row - (row & 1)) // 2
    z = row
    return np.stack([x, -x - z, z], axis=1).astype(np.int64)


def distance_table(width: int, height: int) -> np.ndarray:
    """int64[C, C]: hex distance between every pair of cells of an odd-r rectangle."""
    cube = cube_coords(width, height)
    diff = np.abs(cube[:, None, :] - cube[None, :, :])
    return np.ascontiguousarray(diff.max(axis=2), dtype=np.int64)


# ---- any set of cells, in axial coordinates --------------------------------------------

def axial_from_offset(col: int, row: int) -> tuple[int, int]:
    """Axial ``(q, r)`` of odd-r offset ``(col, row)``."""
    return col - (row - (row & 1)) // 2, row


def offset_from_axial(q: int, r: int) -> tuple[int, int]:
    """Odd-r offset ``(col, row)`` of axial ``(q, r)``."""
    return q + (r - (r & 1)) // 2, r


def hexagon(radius: int) -> np.ndarray:
    """int64[3 R (R + 1) + 1, 2]: axial cells of the hexagon of ``radius`` R around (0, 0),
    row by row (top row first, west to east)."""
    out = [(q, r) for r in range(-radius, radius + 1)
           for q in range(-radius, radius + 1) if abs(q + r) <= radius]
    return np.asarray(out, np.int64).reshape(-1, 2)


def ring(radius: int) -> np.ndarray:
    """int64[6 R, 2]: axial cells at distance R from (0, 0), walking the ring once
    (consecutive cells are neighbours; the last is a neighbour of the first), starting at
    the east corner ``(R, 0)`` and going counter-clockwise on the page (north first)."""
    if radius <= 0:
        return np.zeros((1, 2), np.int64)
    q, r = radius, 0
    out = []
    # from the east corner the sides run NW, W, SW, SE, E, NE
    for d in (2, 3, 4, 5, 0, 1):
        dq, dr = AXIAL_DIRS[d]
        for _ in range(radius):
            out.append((q, r))
            q, r = q + dq, r + dr
    return np.asarray(out, np.int64)


def axial_neighbors(coords: np.ndarray) -> np.ndarray:
    """int64[T, 6]: for cells ``coords`` (int64[T, 2] axial), the index of the neighbour in
    each direction E, NE, NW, W, SW, SE, or -1 when that hex is not among the cells."""
    index = {(int(q), int(r)): i for i, (q, r) in enumerate(coords)}
    out = -np.ones((len(coords), N_DIRS), np.int64)
    for i, (q, r) in enumerate(coords):
        for d, (dq, dr) in enumerate(AXIAL_DIRS):
            out[i, d] = index.get((int(q) + dq, int(r) + dr), -1)
    return out


def axial_distance_table(coords: np.ndarray) -> np.ndarray:
    """int64[T, T]: hex distance between every pair of cells ``coords`` (axial; the
    straight count of hexes, whether or not the hexes between are among the cells)."""
    q = coords[:, 0][:, None] - coords[:, 0][None, :]
    r = coords[:, 1][:, None] - coords[:, 1][None, :]
    return np.ascontiguousarray(np.maximum(np.maximum(np.abs(q), np.abs(r)), np.abs(q + r)),
                                dtype=np.int64)


def centers(coords: np.ndarray) -> np.ndarray:
    """float64[T, 2]: plane centres (x, y) of axial cells (circumradius 1, y down)."""
    q = coords[:, 0].astype(np.float64)
    r = coords[:, 1].astype(np.float64)
    return np.stack([np.sqrt(3.0) * (q + r / 2.0), 1.5 * r], axis=1)


# ---- line of sight ---------------------------------------------------------------------

_ANG = np.deg2rad(30.0 + 60.0 * np.arange(6))
#: corner offsets of a pointy-top hex of circumradius 1 (corner k at 30 + 60 k degrees)
CORNERS = np.stack([np.cos(_ANG), np.sin(_ANG)], axis=1)
#: unit normals of a pointy-top hex's three edge directions (0, 60, 120 degrees)
NORMALS = np.stack([np.cos(np.deg2rad([0.0, 60.0, 120.0])),
                     np.sin(np.deg2rad([0.0, 60.0, 120.0]))], axis=1)
APOTHEM = np.sqrt(3.0) / 2.0


@njit(cache=True)
def segment_touches(ax, ay, bx, by, cx, cy, corners, normals, apothem, eps):
    """Whether the closed segment (ax, ay)-(bx, by) meets the closed hexagon centred at
    (cx, cy) (separating-axis test: the hexagon's three edge normals and the segment's
    normal; a gap below ``eps`` counts as touching)."""
    for k in range(3):
        nx = normals[k, 0]
        ny = normals[k, 1]
        c = cx * nx + cy * ny
        pa = ax * nx + ay * ny
        pb = bx * nx + by * ny
        lo = min(pa, pb)
        hi = max(pa, pb)
        if lo > c + apothem + eps or hi < c - apothem - eps:
            return False
    dx = bx - ax
    dy = by - ay
    ln = np.sqrt(dx * dx + dy * dy)
    if ln > 0.0:
        nx = -dy / ln
        ny = dx / ln
        s = ax * nx + ay * ny
        lo = 1e300
        hi = -1e300
        for k in range(6):
            p = (cx + corners[k, 0]) * nx + (cy + corners[k, 1]) * ny
            lo = min(lo, p)
            hi = max(hi, p)
        if s < lo - eps or s > hi + eps:
            return False
    return True


@njit(cache=True)
def _touch_masks(xy, corners, normals, apothem, eps, words):
    t = xy.shape[0]
    out = np.zeros((t, t, 36, words), np.uint64)
    one = np.uint64(1)
    for a in range(t):
        for b in range(a + 1, t):
            for ca in range(6):
                ax = xy[a, 0] + corners[ca, 0]
                ay = xy[a, 1] + corners[ca, 1]
                for cb in range(6):
                    bx = xy[b, 0] + corners[cb, 0]
                    by = xy[b, 1] + corners[cb, 1]
                    k = ca * 6 + cb
                    xlo = min(ax, bx) - 1.0 - eps
                    xhi = max(ax, bx) + 1.0 + eps
                    ylo = min(ay, by) - 1.0 - eps
                    yhi = max(ay, by) + 1.0 + eps
                    for c in range(t):
                        if c == a or c == b:
                            continue
                        cx = xy[c, 0]
                        cy = xy[c, 1]
                        if cx < xlo or cx > xhi or cy < ylo or cy > yhi:
                            continue
                        if segment_touches(ax, ay, bx, by, cx, cy, corners, normals, apothem, eps):
                            out[a, b, k, c >> 6] |= one << np.uint64(c & 63)
            for k in range(36):
                # b -> a is the same set of segments, reversed
                out[b, a, (k % 6) * 6 + k // 6, :] = out[a, b, k, :]
    return out


def touch_masks(coords: np.ndarray) -> np.ndarray:
    """uint64[T, T, 36, W]: for each pair of cells (a, b) and each of the 36 corner pairs
    ``k = corner_a * 6 + corner_b``, the bit set (W words of 64 bits) of the other cells
    whose closed hexagon the closed segment between those corners touches.

    ``coords``: int64[T, 2] axial cells. Computed once per map geometry (about 0.3 s for
    61 cells); a map's line of sight is then :func:`corner_los` of its blocking set.
    """
    coords = np.ascontiguousarray(coords, np.int64)
    words = max(1, (len(coords) + 63) // 64)
    return _touch_masks(centers(coords), CORNERS, NORMALS, APOTHEM, EPS, words)


@njit(cache=True)
def corner_los(masks, blocking, both_blocking_clear, adjacent_clear, dist):
    """uint8[T, T]: 1 where cell a sees cell b by the corner rule.

    Parameters
    ----------
    masks : uint64[T, T, 36, W]
        :func:`touch_masks` of the map's cells.
    blocking : uint8[T]
        1 for a cell that obstructs vision (a Rivals rock).
    both_blocking_clear : bool
        Two blocking cells always see each other (Rivals: both models on rocks).
    adjacent_clear : bool
        Neighbouring cells always see each other.
    dist : int64[T, T]
        Hex distances (for ``adjacent_clear``).
    """
    t = masks.shape[0]
    w = masks.shape[3]
    block = np.zeros(w, np.uint64)
    one = np.uint64(1)
    for c in range(t):
        if blocking[c]:
            block[c >> 6] |= one << np.uint64(c & 63)
    out = np.zeros((t, t), np.uint8)
    for a in range(t):
        out[a, a] = 1
        for b in range(a + 1, t):
            clear = ((both_blocking_clear & (blocking[a] != 0) & (blocking[b] != 0))
                     | (adjacent_clear & (dist[a, b] == 1)))
            if not clear:
                for k in range(36):
                    hit = False
                    for j in range(w):
                        if masks[a, b, k, j] & block[j]:
                            hit = True
                            break
                    if not hit:
                        clear = True
                        break
            if clear:
                out[a, b] = 1
                out[b, a] = 1
    return out


@njit(cache=True)
def _center_los(xy, blocking, corners, normals, apothem, eps):
    t = xy.shape[0]
    out = np.ones((t, t), np.uint8)
    for a in range(t):
        for b in range(a + 1, t):
            ax, ay, bx, by = xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1]
            for c in range(t):
                if c == a or c == b or not blocking[c]:
                    continue
                if segment_touches(ax, ay, bx, by, xy[c, 0], xy[c, 1], corners, normals,
                                   apothem, eps):
                    out[a, b] = 0
                    out[b, a] = 0
                    break
    return out


def center_los(coords: np.ndarray, blocking: np.ndarray, *, graze_blocks: bool = True
               ) -> np.ndarray:
    """uint8[T, T]: 1 where the straight line from the centre of cell a to the centre of
    cell b crosses no blocking cell other than a and b (the centre rule: Rove's
    "Line-of-Sight").

    ``coords``: int64[T, 2] axial cells; ``blocking``: uint8[T]. ``graze_blocks``: a line
    that only touches a blocking hexagon's corner or edge is blocked (the closed-set test;
    ``False``: it must pass through the interior to be blocked).
    """
    coords = np.ascontiguousarray(coords, np.int64)
    eps = EPS if graze_blocks else -EPS
    return _center_los(centers(coords), np.ascontiguousarray(blocking, np.uint8), CORNERS,
                       NORMALS, APOTHEM, eps)
