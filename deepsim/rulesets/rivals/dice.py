"""Rivals dice in numba: pools, upgrades and degrades, exploding rolls, attack resolution.

The same law as ``odds.py`` (``deepsim odds rivals attack``), from the same data: a pool is
a count of dice per colour, colours indexed **strongest first** (``degrade_order``), so
the weakest die of a pool is its highest-index colour with a die.

- :func:`build_pool`: printed dice + added dice (situations: cave, rock...), then the
  upgrades, then the degrades, each on the weakest die (RV-D5/D6; an upgrade of the
  strongest colour keeps it and adds ``upgrade_beyond_top_adds``; a degrade of the weakest
  removes it), then ``combat.pool_cap`` per colour (AMB-02). ``odds.attack`` orders them
  the same way: add -> upgrade -> degrade -> cap.
- :func:`roll_pool`: each die shows a uniform face of its colour; each exploding face adds
  one ``explode.extra_die`` die to the same roll (RV-D3), those explode again when
  ``explode.recursive``, and at most ``explode.cap`` extra dice are rolled (AMB-01; pending
  explosions past the cap are dropped). The pending explosions are resolved one at a time,
  which is the Markov chain ``odds.roll`` iterates exactly.
- :func:`attack_roll`: both rolls; net hits = hits - shields - automatic shields, at least
  0 (RV-C6); each side's Aether faces (RV-C7); AMB-05 the attacker's shields and the
  defender's hits count for nothing; AMB-31 the defender's explosions only with
  ``explode.defender``.

The Python part (:func:`net_table`) builds the bots' table of P(net hits >= k) per pair of
pools: an approximation for decisions (no explosion cap), never used to resolve a roll.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from deepsim.rng import below
from deepsim.rulesets.rivals.layout import (
    F_AETHER,
    F_HIT,
    F_SHIELD,
    F_XAETHER,
    F_XHIT,
    MOD_AUTO,
    MOD_DEG_ATT,
    MOD_DEG_DEF,
    MOD_N,
    MOD_UP_ATT,
    MOD_UP_DEF,
)

#: the dice numbers of the rules vector a roll reads, in a float64[DR_N] (compile.py)
DR_EXTRA, DR_RECURSIVE, DR_CAP, DR_DEF_EXPLODES, DR_POOL_CAP, DR_BEYOND_TOP = range(6)
DR_N = 6
#: what a roll returns, int64[RR_N]: hits, shields, Aether, exploding faces, extra dice
#: rolled, hits of the pool's own dice (before the extra dice), dice rolled in all
RR_HITS, RR_SHIELDS, RR_AETHER, RR_EXPLOSIONS, RR_EXTRA, RR_BASE_HITS, RR_DICE = range(7)
RR_N = 7
#: the faces buffer: one entry per die rolled, colour * FACE_MUL + face (+ EXTRA_FLAG for an
#: extra die of an explosion)
FACE_MUL = 8
EXTRA_FLAG = 64
MAX_ROLLED = 128
#: typed constants (a Python literal argument makes numba compile the callee per value)
_TRUE = np.bool_(True)
_ZERO = np.int64(0)


@njit(cache=True, inline="always")
def upgrade_weakest(pool, beyond_top):
    """RV-D5: the weakest die steps up one colour; the strongest keeps and adds a
    ``beyond_top`` die; an empty pool gets a die of the weakest colour (``odds.upgrade``)."""
    n = pool.shape[0]
    i = n - 1
    while i >= 0 and pool[i] == 0:
        i -= 1
    if i < 0:
        pool[n - 1] += 1
    elif i > 0:
        pool[i] -= 1
        pool[i - 1] += 1
    else:
        pool[beyond_top] += 1


@njit(cache=True, inline="always")
def degrade_weakest(pool):
    """RV-D5/D6: the weakest die steps down one colour; the weakest colour is removed."""
    n = pool.shape[0]
    i = n - 1
    while i >= 0 and pool[i] == 0:
        i -= 1
    if i < 0:
        return
    pool[i] -= 1
    if i + 1 < n:
        pool[i + 1] += 1


@njit(cache=True)
def build_pool(base, add, ups, downs, pool_cap, beyond_top, out):
    """Into ``out`` (int64[C]): ``base`` + ``add`` dice, ``ups`` upgrades, ``downs``
    degrades, at most ``pool_cap`` dice per colour (``pool_cap`` < 0: no cap)."""
    for c in range(out.shape[0]):
        out[c] = base[c] + add[c]
    for _ in range(ups):
        upgrade_weakest(out, beyond_top)
    for _ in range(downs):
        degrade_weakest(out)
    if pool_cap >= 0:
        for c in range(out.shape[0]):
            out[c] = min(out[c], pool_cap)


@njit(cache=True)
def situated_pool(base, sit, defending, modtab, ups, downs, dr, out):
    """A model's pool in its situations (RV-C2/C3), into ``out`` (int64[C]).

    ``base``: its printed dice (int64[C]); ``sit``: how many times each situation of
    ``layout.SITUATIONS`` applies (int64[N_SIT]; Charge may count twice, AMB-30);
    ``defending``: read the defence half of each modifier, else the attack half;
    ``ups``/``downs``: further upgrades (loot, Focus) and degrades. The added dice, the
    upgrades and the degrades of every situation are summed, then applied as
    :func:`build_pool` does (add -> upgrade -> degrade -> cap), the order of
    ``odds.attack``. Returns the automatic shields (a defender's, AMB-07).
    """
    c = out.shape[0]
    off = MOD_N + c if defending else MOD_N
    auto = 0
    for k in range(c):
        out[k] = base[k]
    for s in range(sit.shape[0]):
        n = sit[s]
        if n == 0:
            continue
        for k in range(c):
            out[k] += n * modtab[s, off + k]
        if defending:
            ups += n * modtab[s, MOD_UP_DEF]
            downs += n * modtab[s, MOD_DEG_DEF]
            auto += n * modtab[s, MOD_AUTO]
        else:
            ups += n * modtab[s, MOD_UP_ATT]
            downs += n * modtab[s, MOD_DEG_ATT]
    beyond = np.int64(dr[DR_BEYOND_TOP])
    for _ in range(ups):
        upgrade_weakest(out, beyond)
    for _ in range(downs):
        degrade_weakest(out)
    cap = np.int64(dr[DR_POOL_CAP])
    if cap >= 0:
        for k in range(c):
            out[k] = min(out[k], cap)
    return auto


@njit(cache=True, inline="always")
def _face(faces, nfaces, c, key, eng, ctr_at):
    f = faces[c, below(key, np.uint64(eng[ctr_at]), nfaces[c])]
    eng[ctr_at] += 1
    return f


@njit(cache=True)
def roll_pool(pool, explodes, faces, nfaces, dr, key, eng, ctr_at, res, buf):
    """Roll ``pool`` (int64[C], strongest colour first) with explosions.

    Parameters
    ----------
    pool : int64[C]
    explodes : bool
        False: exploding faces count as their hit or Aether but add no die (AMB-31 for a
        defender without ``explode.defender``).
    faces : int64[C, F]
        Face codes of each colour (layout.F_*), ``nfaces[c]`` of them used.
    dr : float64[DR_N]
        Dice rules (extra die colour, recursive, cap, ...).
    key : uint64
        The game's dice stream; draw ``eng[ctr_at]`` is the next (advanced in place).
    res : int64[RR_N]
        Receives the roll's totals.
    buf : int64[MAX_ROLLED]
        Receives each die rolled (colour * FACE_MUL + face, + EXTRA_FLAG for an extra die),
        ``res[RR_DICE]`` of them (at most MAX_ROLLED kept).
    """
    for k in range(RR_N):
        res[k] = 0
    pending = 0
    nd = 0
    for c in range(pool.shape[0]):
        for _ in range(pool[c]):
            f = _face(faces, nfaces, c, key, eng, ctr_at)
            if nd < buf.shape[0]:
                buf[nd] = c * FACE_MUL + f
            nd += 1
            if f == F_HIT or f == F_XHIT:
                res[RR_HITS] += 1
            elif f == F_SHIELD:
                res[RR_SHIELDS] += 1
            if f == F_AETHER or f == F_XAETHER:
                res[RR_AETHER] += 1
            if f == F_XHIT or f == F_XAETHER:
                res[RR_EXPLOSIONS] += 1
                pending += 1
    res[RR_BASE_HITS] = res[RR_HITS]
    if not explodes:
        pending = 0
    xc = np.int64(dr[DR_EXTRA])
    recursive = dr[DR_RECURSIVE] > 0.5
    cap = np.int64(dr[DR_CAP])
    while pending > 0 and res[RR_EXTRA] < cap:
        pending -= 1
        res[RR_EXTRA] += 1
        f = _face(faces, nfaces, xc, key, eng, ctr_at)
        if nd < buf.shape[0]:
            buf[nd] = xc * FACE_MUL + f + EXTRA_FLAG
        nd += 1
        if f == F_HIT or f == F_XHIT:
            res[RR_HITS] += 1
        elif f == F_SHIELD:
            res[RR_SHIELDS] += 1
        if f == F_AETHER or f == F_XAETHER:
            res[RR_AETHER] += 1
        if f == F_XHIT or f == F_XAETHER:
            res[RR_EXPLOSIONS] += 1
            if recursive:
                pending += 1
    res[RR_DICE] = nd


@njit(cache=True)
def attack_roll(apool, dpool, auto_shields, def_explodes, faces, nfaces, dr, key, eng,
                ctr_at, ares, dres, abuf, dbuf):
    """One attack's dice (RV-C2..C7): the attacker's roll, then the defender's.

    Returns net hits (int64): attacker hits - defender shields - ``auto_shields``, at least
    0. ``ares``/``dres`` receive each roll's totals, ``abuf``/``dbuf`` its faces
    (:func:`roll_pool`).
    """
    roll_pool(apool, _TRUE, faces, nfaces, dr, key, eng, ctr_at, ares, abuf)
    roll_pool(dpool, def_explodes, faces, nfaces, dr, key, eng, ctr_at, dres, dbuf)
    net = ares[RR_HITS] - dres[RR_SHIELDS] - auto_shields
    return max(0, net)


@njit(cache=True)
def sample_attacks(key, n, apool, dpool, auto_shields, faces, nfaces, dr):
    """``n`` attacks of ``apool`` against ``dpool`` from the stream ``key`` with
    :func:`attack_roll`, the game kernel's own code.

    Returns
    -------
    (net, attacker_aether, defender_aether) : int64[n] each
    """
    net = np.zeros(n, np.int64)
    aa = np.zeros(n, np.int64)
    da = np.zeros(n, np.int64)
    eng = np.zeros(1, np.int64)
    ares = np.zeros(RR_N, np.int64)
    dres = np.zeros(RR_N, np.int64)
    abuf = np.zeros(MAX_ROLLED, np.int64)
    dbuf = np.zeros(MAX_ROLLED, np.int64)
    dex = dr[DR_DEF_EXPLODES] > 0.5
    for i in range(n):
        net[i] = attack_roll(apool, dpool, auto_shields, dex, faces, nfaces, dr, key, eng,
                             _ZERO, ares, dres, abuf, dbuf)
        aa[i] = ares[RR_AETHER]
        da[i] = dres[RR_AETHER]
    return net, aa, da


# ---- the bots' table of P(net hits >= k) -------------------------------------------------

def pool_space(n_colours: int, limit: int = 220) -> tuple[int, np.ndarray, np.ndarray]:
    """The pools the bots' table covers: every count vector of ``n_colours`` colours with
    at most D dice, D the largest with at most ``limit`` pools.

    Returns
    -------
    (D, pools int64[P, C], index int64[(D + 1) ** C])
        ``index`` maps a pool's mixed-radix code ``sum(count[c] * (D + 1) ** c)`` to its row
        (-1 for more than D dice).
    """
    d = 1
    while d < 12 and comb(d + 1 + n_colours, n_colours) <= limit:
        d += 1
    pools = []
    index = -np.ones((d + 1) ** n_colours, np.int64)
    for code in range((d + 1) ** n_colours):
        counts, x = [], code
        for _ in range(n_colours):
            counts.append(x % (d + 1))
            x //= d + 1
        if sum(counts) <= d:
            index[code] = len(pools)
            pools.append(counts)
    return d, np.asarray(pools, np.int64).reshape(-1, n_colours), index


def _die_law(faces: list[list[int]], colour: int, which: int, extra: np.ndarray | None,
             length: int) -> np.ndarray:
    """Law (float64[length]) of the hits (``which`` = 0) or shields (1) one die of
    ``colour`` adds, its explosion's extra die adding ``extra`` (None: nothing)."""
    out = np.zeros(length)
    fs = faces[colour]
    for f in fs:
        v = (1 if f in (F_HIT, F_XHIT) else 0) if which == 0 else (1 if f == F_SHIELD else 0)
        part = np.zeros(length)
        part[v] = 1.0
        if f in (F_XHIT, F_XAETHER) and extra is not None:
            part = np.convolve(part, extra)[:length]
        out += part / len(fs)
    return out


def net_table(faces: list[list[int]], extra_colour: int, recursive: bool,
              defender_explodes: bool, n_colours: int, k_max: int = 12):
    """The bots' table: ``tab[a, d, j]`` = P(hits of pool a - shields of pool d >= j + 1)
    for the pools of :func:`pool_space`, j < ``k_max``.

    Explosions chain as ``recursive`` says, with no cap (an approximation: the cap of
    AMB-01 is reached with probability far below what a bot's choice can feel).

    Returns
    -------
    (D, index int64[(D + 1) ** C], tab float32[P, P, k_max])
    """
    d, pools, index = pool_space(n_colours)
    length = 8 * d + 24
    law = []
    for which in (0, 1):
        x = np.zeros(length)
        x[0] = 1.0
        if recursive:
            for _ in range(60):                 # fixed point of the extra die's chain
                x = _die_law(faces, extra_colour, which, x, length)
        else:
            x = _die_law(faces, extra_colour, which, None, length)
        explode = x if (which == 0 or defender_explodes) else None
        law.append([_die_law(faces, c, which, explode, length) for c in range(n_colours)])
    dist = []
    for which in (0, 1):
        rows = np.zeros((len(pools), length))
        for i, counts in enumerate(pools):
            p = np.zeros(length)
            p[0] = 1.0
            for c, k in enumerate(counts):
                for _ in range(int(k)):
                    p = np.convolve(p, law[which][c])[:length]
            rows[i] = p
        dist.append(rows)
    hits, shields = dist
    # survival of hits: S[a, x] = P(hits >= x)
    surv = np.cumsum(hits[:, ::-1], axis=1)[:, ::-1]
    surv = np.concatenate([surv, np.zeros((len(pools), k_max + 1))], axis=1)
    tab = np.zeros((len(pools), len(pools), k_max), np.float32)
    for j in range(k_max):
        # P(h - s >= j + 1) = sum_s P(s) P(h >= s + j + 1)
        shifted = surv[:, j + 1: j + 1 + length]
        tab[:, :, j] = (shifted @ shields.T).astype(np.float32)
    return d, index, np.ascontiguousarray(tab)
