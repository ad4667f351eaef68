"""What the rules say about the board, asked by the kernel and the bots alike.

Functions here read the public state only (tiles, models, revealed Lurkers: state.py) and
the compiled data, so a bot asking "where can this model go?" gets the rules' own answer:

- :func:`can_pass` / :func:`can_stop`: RV-M2 (through empty or friendly tiles only; stop
  only where there is room), RV-T2 (one Large or ``small_per_tile`` Small models; never with
  Rivals or Lurkers), AMB-33 (dens: a cleared cave only, or never);
- :func:`reach`: every tile a model can end a move on within a number of steps, with the
  fewest rock entries (RV-T1: entering a rock from another tile needs a die roll, and a
  failed roll ends the move where it is, so a rock is entered only from a tile the model
  could stop on; AMB-08: only while swimming, with ``rock_entry_requires_swim``);
- :func:`path_to`: one such move's tiles, for the kernel to walk;
- :func:`model_pool`: a model's attack or defence dice where it stands (RV-C2/C3 with the
  situations of RV-T1/RV-M4 and its loot);
- :func:`target_ok`: RANGE and line of sight (RV-C1, RV-L1).

The data tuple's positions (``D_*``) are defined here: the kernel, the bots and the tests
index the compiled arrays with them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from deepsim.rulesets.rivals.dice import situated_pool
from deepsim.rulesets.rivals.layout import (
    DEN_CAVE,
    N_SIT,
    R_DEN_ENTERABLE,
    R_SMALL_PER_TILE,
    SIT_CAVE,
    SIT_CHARGE,
    SIT_CORAL,
    SIT_ROCK,
    SIT_SWIM,
    TT_CORAL,
    TT_DEN,
    TT_ROCK,
    TT_VOID,
    U_N,
)
from deepsim.rulesets.rivals.state import (
    FALSE,
    TRUE,
    ZERO,
    MD_CHARGES,
    MD_LARGE,
    MD_OWNER,
    MD_SWIM,
    MD_TILE,
    MD_UNIT,
    MD_UP_ATT,
    MD_UP_DEF,
    TL_DEN,
    TL_OCC_LARGE,
    TL_OCC_OWNER,
    TL_OCC_SMALL,
    TL_TYPE,
)

# ---- positions in the data tuple (the compiled arrays, compile.RivalsArrays) ----------
(D_RULES, D_DR, D_FACES, D_NFACES, D_MODTAB, D_UNITS, D_TEAMS, D_BUILD_HEARTS, D_LURK,
 D_LOOT, D_EVENTS, D_NB, D_DIST, D_MTYPE, D_MOWNER, D_MLOS, D_MMULL, D_POOL_FIRST,
 D_POOL_COUNT, D_SEAT_BUILD, D_BUILD_POOL, D_SEAT_BOT, D_BOT_POOL, D_PLAYER_OPTS, D_FMIX,
 D_KNOBS, D_EVTAB, D_PIDX, D_EVMETA) = range(29)
N_DATA = 29

INF = 1 << 30


@njit(cache=True, inline="always")
def enterable(tiles, rules, t):
    """A tile a model may stand on at all: a tile (not a gap) that is no den, or a
    cleared den (a cave) where dens may be entered once cleared (AMB-33)."""
    ty = tiles[t, TL_TYPE]
    if ty == TT_VOID:
        return False
    if ty == TT_DEN:
        # bool & bool, not `and`: numba's `and` as a value is ~30x slower here
        return (rules[R_DEN_ENTERABLE] < 0.5) & (tiles[t, TL_DEN] == DEN_CAVE)
    return True


@njit(cache=True, inline="always")
def can_pass(tiles, rules, owner, t):
    """RV-M2: a model of ``owner`` may move through tile ``t`` (empty or friendly)."""
    if not enterable(tiles, rules, t):
        return False
    o = tiles[t, TL_OCC_OWNER]
    return (o < 0) | (o == owner)


@njit(cache=True, inline="always")
def can_stop(tiles, rules, owner, large, t, leaving):
    """RV-M2/RV-T2: a model of ``owner`` (``large`` or small) may end its move on ``t``.

    ``leaving``: the tile the model stands on now (it does not count against the room of
    its own tile), or -1.
    """
    if not can_pass(tiles, rules, owner, t):
        return False
    small = tiles[t, TL_OCC_SMALL]
    big = tiles[t, TL_OCC_LARGE]
    if t == leaving:
        if large:
            big -= 1
        else:
            small -= 1
    if large:
        return (small == 0) & (big == 0)
    return (big == 0) & (small < np.int64(rules[R_SMALL_PER_TILE]))


@njit(cache=True)
def reach(tiles, rules, nb, owner, large, start, steps, rock_ok, lay, par, out):
    """Every tile a model can end a move on, with the fewest rock entries.

    Parameters
    ----------
    tiles : int64[T, TL_N]
    nb : int64[T, 6]
    owner, large, start : int
        The model's player, size and tile.
    steps : int
        Tiles it may move (SPEED and bonuses), at most layout.MAX_SPEED.
    rock_ok : bool
        Whether it may enter rocks on this move (AMB-08).
    lay, par : int64 buffers of at least (steps + 1) * T
        Work: ``lay[s * T + t]`` the fewest rock entries to be on t after s steps (INF: not
        possible), ``par`` the tile before.
    out : int64[T]
        Receives, per tile, the fewest rock entries of a move ending there, or -1 where it
        cannot end (the start tile: 0).

    Returns
    -------
    int64
        The number of tiles the move can end on, the start included.
    """
    t_n = tiles.shape[0]
    for i in range((steps + 1) * t_n):
        lay[i] = INF
    for t in range(t_n):
        out[t] = -1
    lay[start] = 0
    out[start] = 0
    n = 1
    for s in range(1, steps + 1):
        base0 = (s - 1) * t_n
        base1 = s * t_n
        any_new = False
        for t in range(t_n):
            e = lay[base0 + t]
            if e >= INF:
                continue
            from_rock = tiles[t, TL_TYPE] == TT_ROCK
            for d in range(6):
                u = nb[t, d]
                if u < 0:
                    continue
                if not can_pass(tiles, rules, owner, u):
                    continue
                cost = e
                if tiles[u, TL_TYPE] == TT_ROCK and not from_rock:
                    # RV-T1: a rock is entered by a roll; a miss ends the move on t, so t
                    # must be a tile the model may stop on
                    if not rock_ok:
                        continue
                    if t != start and not can_stop(tiles, rules, owner, large, t, start):
                        continue
                    cost = e + 1
                if cost < lay[base1 + u]:
                    lay[base1 + u] = cost
                    par[base1 + u] = t
                    any_new = True
        if not any_new:
            break
        for t in range(t_n):
            e = lay[base1 + t]
            if (e < INF and (out[t] < 0 or e < out[t]) and t != start
                    and can_stop(tiles, rules, owner, large, t, start)):
                if out[t] < 0:
                    n += 1
                out[t] = e
    return n


@njit(cache=True)
def path_to(tiles, rules, nb, owner, large, start, steps, rock_ok, dest, lay, par, path):
    """The tiles of a move from ``start`` to ``dest`` with the fewest rock entries (then the
    fewest steps), into ``path`` (start first). Returns its length (0: unreachable)."""
    out = par[(steps + 1) * tiles.shape[0]:]
    reach(tiles, rules, nb, owner, large, start, steps, rock_ok, lay, par, out)
    if out[dest] < 0:
        return 0
    if dest == start:
        path[0] = start
        return 1
    t_n = tiles.shape[0]
    best_s = -1
    for s in range(1, steps + 1):
        if lay[s * t_n + dest] == out[dest]:
            best_s = s
            break
    k = best_s
    t = dest
    while k >= 0:
        path[k] = t
        if k > 0:
            t = par[k * t_n + t]
        k -= 1
    return best_s + 1


#: the classes of tiles a pool depends on (the situations of RV-T1)
CLS_PLAIN, CLS_CORAL, CLS_ROCK, CLS_CAVE = range(4)
N_CLS = 4


@njit(cache=True, inline="always")
def tile_class(tiles, t):
    """The situation a model on tile ``t`` is in: plain, coral, rock or cave (``CLS_*``)."""
    ty = tiles[t, TL_TYPE]
    if ty == TT_CORAL:
        return CLS_CORAL
    if ty == TT_ROCK:
        return CLS_ROCK
    if ty == TT_DEN and tiles[t, TL_DEN] == DEN_CAVE:
        return CLS_CAVE
    return CLS_PLAIN


@njit(cache=True)
def class_pool(models, units, modtab, dr, m, cls, defending, swimming, charges, ups, sit,
               out):
    """Model ``m``'s dice (RV-C2/C3) on a tile of class ``cls`` (``CLS_*``), ``swimming``
    or not, with ``charges`` Charges degrading its attack and ``ups`` more upgrades
    (Focus): its printed pool, the dice its situations add (cave, rock by their reading),
    its loot's upgrades, then the situations' degrades (coral, Swim, Charge), as
    :func:`dice.situated_pool`.

    ``sit`` (int64[N_SIT]) is work; ``out`` (int64[C]) receives the pool. Returns the
    automatic shields (a defender's).
    """
    c = out.shape[0]
    u = models[m, MD_UNIT]
    for s in range(N_SIT):
        sit[s] = 0
    if cls == CLS_CORAL:
        sit[SIT_CORAL] = 1
    elif cls == CLS_ROCK:
        sit[SIT_ROCK] = 1
    elif cls == CLS_CAVE:
        sit[SIT_CAVE] = 1
    if swimming:
        sit[SIT_SWIM] = 1
    sit[SIT_CHARGE] = charges
    if defending:
        return situated_pool(units[u, U_N + c:U_N + 2 * c], sit, TRUE, modtab,
                             models[m, MD_UP_DEF] + ups, ZERO, dr, out)
    return situated_pool(units[u, U_N:U_N + c], sit, FALSE, modtab,
                         models[m, MD_UP_ATT] + ups, ZERO, dr, out)


@njit(cache=True)
def model_pool(models, tiles, units, modtab, dr, m, tile, defending, swimming, charges, ups,
               sit, out):
    """:func:`class_pool` for model ``m`` standing on ``tile``."""
    return class_pool(models, units, modtab, dr, m, tile_class(tiles, tile), defending,
                      swimming, charges, ups, sit, out)


@njit(cache=True)
def current_pool(models, tiles, units, modtab, dr, m, defending, ups, sit, out):
    """:func:`model_pool` where model ``m`` stands now, as it is now."""
    return model_pool(models, tiles, units, modtab, dr, m, models[m, MD_TILE], defending,
                      models[m, MD_SWIM] != 0, models[m, MD_CHARGES], ups, sit, out)


@njit(cache=True, inline="always")
def target_ok(dist, los, a, b, rng):
    """RV-C1/RV-L1: a model on tile ``a`` with RANGE ``rng`` may target tile ``b``."""
    return (a != b) & (dist[a, b] <= rng) & (los[a, b] != 0)


@njit(cache=True, inline="always")
def is_large(models, m):
    return models[m, MD_LARGE] != 0


@njit(cache=True, inline="always")
def owner_of(models, m):
    return models[m, MD_OWNER]
