"""Turn validated Rivals data and a scenario into the arrays the kernel reads.

Every array is C-contiguous with the dtype and shape of the contract in ``layout.py``;
:meth:`RivalsArrays.kernel_args` gives them in the order of ``kernel.play_listed`` after
``(seed, games)``. Colours are indexed strongest first (``degrade_order``), situations as
``schema.SITUATIONS``, units and builds in the data's order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deepsim.rulesets.base import KernelInputs
from deepsim.rulesets.rivals import dice
from deepsim.rulesets.rivals import layout as L
from deepsim.rulesets.rivals.schema import (
    ENUMS,
    EVENT_EFFECTS,
    LOOT_EFFECTS,
    LOOT_SLOTS,
    SITUATIONS,
    RivalsData,
    colour_list,
)


def colour_index(d: RivalsData) -> dict[str, int]:
    """``{colour: kernel index}``, strongest first."""
    return {c: i for i, c in enumerate(colour_list(d))}


def counts(d: RivalsData, colours: list[str]) -> np.ndarray:
    """int64[C]: a list of colour names as dice per colour (strongest first)."""
    idx = colour_index(d)
    out = np.zeros(len(idx), np.int64)
    for c in colours:
        out[idx[c]] += 1
    return out


def dice_arrays(d: RivalsData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(faces int64[C, MAX_FACES], nfaces int64[C], dr float64[dice.DR_N]): the colours'
    face tables (layout.F_* codes) and the dice rules of a roll."""
    cols = colour_list(d)
    faces = np.full((len(cols), L.MAX_FACES), -1, np.int64)
    nfaces = np.zeros(len(cols), np.int64)
    for i, c in enumerate(cols):
        fs = d.colours[c].faces
        nfaces[i] = len(fs)
        faces[i, :len(fs)] = [L.FACE_NAMES.index(f) for f in fs]
    idx = colour_index(d)
    dr = np.zeros(dice.DR_N, np.float64)
    dr[dice.DR_EXTRA] = idx[d.explode.extra_die]
    dr[dice.DR_RECURSIVE] = 1.0 if d.explode.recursive else 0.0
    dr[dice.DR_CAP] = d.explode.cap
    dr[dice.DR_DEF_EXPLODES] = 1.0 if d.explode.defender else 0.0
    dr[dice.DR_POOL_CAP] = -1.0 if d.combat.pool_cap is None else d.combat.pool_cap
    dr[dice.DR_BEYOND_TOP] = idx[d.upgrade_beyond_top_adds]
    return faces, nfaces, dr


def modifier_table(d: RivalsData) -> np.ndarray:
    """int64[N_SITUATIONS, MOD_N + 2 C]: per situation (``schema.SITUATIONS``) its
    degrades, upgrades and automatic shields (``layout.MOD_*``), then the dice it adds to
    an attack pool, then to a defence pool (per colour)."""
    c = len(d.colours)
    out = np.zeros((len(SITUATIONS), L.MOD_N + 2 * c), np.int64)
    for i, s in enumerate(SITUATIONS):
        m = d.modifiers[s]
        out[i, L.MOD_DEG_ATT] = m.degrade_attack
        out[i, L.MOD_UP_ATT] = m.upgrade_attack
        out[i, L.MOD_DEG_DEF] = m.degrade_defence
        out[i, L.MOD_UP_DEF] = m.upgrade_defence
        out[i, L.MOD_AUTO] = m.auto_shields
        out[i, L.MOD_N:L.MOD_N + c] = counts(d, m.add_attack)
        out[i, L.MOD_N + c:] = counts(d, m.add_defence)
    return out


def enum_index(d: RivalsData, path: str) -> int:
    """Index of an enumerated parameter's value in ``schema.ENUMS``."""
    group, key = path.split(".")
    return ENUMS[path].index(getattr(getattr(d, group), key))


def rule_vector(d: RivalsData, *, rotate: bool = True) -> np.ndarray:
    """float64[N_RULES]: the scalar rules in ``layout.RULES`` order (enumerations as their
    index in ``schema.ENUMS``, colours as their kernel index)."""
    raw = d.model_dump()
    idx = colour_index(d)
    out = np.zeros(L.N_RULES, np.float64)
    for i, (name, path) in enumerate(L.RULES):
        if name == "rotate":
            out[i] = 1.0 if rotate else 0.0
            continue
        v = raw
        for part in path.split("."):
            v = v[part]
        if path in ENUMS:
            v = ENUMS[path].index(v)
        elif name in ("rock_die", "coral_die"):
            v = idx[v]
        out[i] = float(v)
    return out


def unit_table(d: RivalsData) -> np.ndarray:
    """int64[n_units, U_N + 2 C]: the roster's units (layout.UCOLS, then attack and
    defence dice per colour)."""
    c = len(d.colours)
    units = list(d.roster.units.values())
    out = np.zeros((len(units), L.U_N + 2 * c), np.int64)
    for i, u in enumerate(units):
        out[i, L.U_MINION] = 1 if u.role == "minion" else 0
        out[i, L.U_LARGE] = 1 if u.size == "large" else 0
        out[i, L.U_COST] = u.cost
        out[i, L.U_SPEED] = u.speed
        out[i, L.U_RANGE] = u.range
        out[i, L.U_HEARTS] = u.hearts
        out[i, L.U_ABILITY] = u.ability_cost
        out[i, L.U_N:L.U_N + c] = counts(d, u.attack)
        out[i, L.U_N + c:] = counts(d, u.defence)
    return out


def team_table(d: RivalsData) -> tuple[np.ndarray, np.ndarray]:
    """(teams int64[n_builds, MAX_P + 1, n_units], hearts_bonus int64[n_builds]): each
    build's models per unit at each player count (RV-S6)."""
    names = list(d.roster.units)
    builds = list(d.roster.builds.values())
    teams = np.zeros((len(builds), L.MAX_P + 1, len(names)), np.int64)
    for b, spec in enumerate(builds):
        for n, team in spec.teams.items():
            for u, k in team.items():
                teams[b, n, names.index(u)] = k
    return teams, np.array([b.hearts_bonus for b in builds], np.int64)


def lurker_table(d: RivalsData) -> np.ndarray:
    """int64[n_cards, LK_N + 2 C]: the Lurker deck (layout.LKCOLS, then its dice)."""
    c = len(d.colours)
    out = np.zeros((len(d.lurkers.deck), L.LK_N + 2 * c), np.int64)
    for i, card in enumerate(d.lurkers.deck):
        out[i, L.LK_TREASURE] = 1 if card.kind == "treasure" else 0
        out[i, L.LK_HEARTS] = card.hearts
        out[i, L.LK_LOOT] = card.loot
        out[i, L.LK_AETHER] = card.aether
        out[i, L.LK_N:L.LK_N + c] = counts(d, card.attack)
        out[i, L.LK_N + c:] = counts(d, card.defence)
    return out


def loot_table(d: RivalsData) -> np.ndarray:
    """int64[n_cards, LT_N]: the loot deck, copies expanded (slot, effect, value)."""
    rows = [(LOOT_SLOTS.index(c.slot), LOOT_EFFECTS.index(c.effect), c.value)
            for c in d.loot.deck for _ in range(c.count)]
    return np.asarray(rows, np.int64).reshape(-1, L.LT_N)


def event_table(d: RivalsData) -> np.ndarray:
    """int64[n_cards, 2]: the event deck, copies expanded (effect, value)."""
    rows = [(EVENT_EFFECTS.index(c.effect), c.value) for c in d.events.deck
            for _ in range(c.count)]
    return np.asarray(rows, np.int64).reshape(-1, 2)


@dataclass
class RivalsArrays(KernelInputs):
    """Kernel inputs (all numpy, C-contiguous), in ``kernel.play_listed``'s order.

    Attributes
    ----------
    rules : float64[N_RULES]
    dr : float64[dice.DR_N]
        Dice rules of a roll (extra die, chains, cap, defender explosions, pool cap).
    faces : int64[C, MAX_FACES]; nfaces : int64[C]
        Each colour's faces (strongest colour first).
    modtab : int64[N_SIT, MOD_N + 2 C]
        The situations' modifiers (:func:`modifier_table`).
    units : int64[n_units, U_N + 2 C]
    teams : int64[n_builds, MAX_P + 1, n_units]; build_hearts : int64[n_builds]
    lurk : int64[n_cards, LK_N + 2 C]; loot : int64[n_cards, LT_N]; events : int64[n, 2]
    nb : int64[T, 6]; dist : int64[T, T]
        The map geometry (maps.Geometry).
    mtype, mowner : int64[M, T]; mlos : uint8[M, T, T]; mmull : int64[M]
        The run's map pool; ``pool_first``/``pool_count`` (int64[MAX_P + 1]) its rows per
        player count.
    seat_build, seat_bot : int64[MAX_P]
        Build and bot profile row of each seat spec (-1: drawn per game from
        ``build_pool`` / ``bot_pool``).
    player_opts : int64[m]
        Player counts a game draws from, uniformly.
    fmix : float64[n_builds, 2, M]
        Per build, its own bot profiles (scenario key ``faction_bots``).
    knobs : float64[n_profiles, N_KNOBS]
    evtab : float32[P, P, K]; pidx : int64[(D + 1) ** C]; evmeta : int64[2]
        The bots' table of P(net hits >= k) (dice.net_table), its pool index and (D, K).
    """

    rules: np.ndarray
    dr: np.ndarray
    faces: np.ndarray
    nfaces: np.ndarray
    modtab: np.ndarray
    units: np.ndarray
    teams: np.ndarray
    build_hearts: np.ndarray
    lurk: np.ndarray
    loot: np.ndarray
    events: np.ndarray
    nb: np.ndarray
    dist: np.ndarray
    mtype: np.ndarray
    mowner: np.ndarray
    mlos: np.ndarray
    mmull: np.ndarray
    pool_first: np.ndarray
    pool_count: np.ndarray
    seat_build: np.ndarray
    build_pool: np.ndarray
    seat_bot: np.ndarray
    bot_pool: np.ndarray
    player_opts: np.ndarray
    fmix: np.ndarray
    knobs: np.ndarray
    evtab: np.ndarray
    pidx: np.ndarray
    evmeta: np.ndarray


def bots_table(d: RivalsData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(evtab, pidx, evmeta) of :func:`dice.net_table` for the data's dice."""
    faces, nfaces, dr = dice_arrays(d)
    fl = [list(faces[i, :nfaces[i]]) for i in range(len(nfaces))]
    dmax, pidx, tab = dice.net_table(fl, int(dr[dice.DR_EXTRA]), d.explode.recursive,
                                     d.explode.defender, len(nfaces))
    return tab, pidx, np.array([dmax, tab.shape[2]], np.int64)


def build(d: RivalsData, pool, *, knobs: np.ndarray, seat_build: list[int],
          build_pool: list[int], seat_bot: list[int], bot_pool: list[int],
          players: list[int], rotate: bool, fmix: np.ndarray | None = None) -> RivalsArrays:
    """All kernel arrays for data ``d``, a map pool (maps.MapPool) and a scenario's builds,
    bots and player counts."""
    if fmix is None:
        from deepsim.factionbots import empty_fmix
        fmix = empty_fmix(len(d.roster.builds))
    sb = np.full(L.MAX_P, -1, np.int64)
    sb[:len(seat_build)] = seat_build
    sbot = np.full(L.MAX_P, -1, np.int64)
    sbot[:len(seat_bot)] = seat_bot
    faces, nfaces, dr = dice_arrays(d)
    teams, hearts = team_table(d)
    evtab, pidx, evmeta = bots_table(d)
    c = np.ascontiguousarray
    return RivalsArrays(
        rules=rule_vector(d, rotate=rotate), dr=dr, faces=faces, nfaces=nfaces,
        modtab=modifier_table(d), units=unit_table(d), teams=teams, build_hearts=hearts,
        lurk=lurker_table(d), loot=loot_table(d), events=event_table(d),
        nb=c(pool.geometry.nb), dist=c(pool.geometry.dist), mtype=c(pool.types),
        mowner=c(pool.owners), mlos=c(pool.los), mmull=c(pool.mulligans),
        pool_first=c(pool.first), pool_count=c(pool.count), seat_build=sb,
        build_pool=np.asarray(build_pool, np.int64), seat_bot=sbot,
        bot_pool=np.asarray(bot_pool, np.int64), player_opts=np.asarray(players, np.int64),
        fmix=c(fmix, np.float64), knobs=c(knobs, np.float64), evtab=evtab, pidx=pidx,
        evmeta=evmeta)


__all__ = ["RivalsArrays", "bots_table", "build", "colour_index", "counts", "dice_arrays",
           "enum_index", "event_table", "loot_table", "lurker_table", "modifier_table",
           "rule_vector", "team_table", "unit_table"]
