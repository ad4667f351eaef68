"""Turn validated Abyss data and a scenario into the arrays the kernel reads.

Every array is C-contiguous with the dtype and shape of the contract in ``layout.py``;
:meth:`AbyssArrays.kernel_args` gives them in the order of ``kernel.play_games`` after
``(seed, start, count)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deepsim.params import value_at
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.abyss.schema import ENUMS, AbyssData, lord_keys
from deepsim.rulesets.base import KernelInputs


@dataclass
class AbyssArrays(KernelInputs):
    """Kernel inputs (all numpy, C-contiguous).

    The fields, in this order, are the kernel's arguments after ``(seed, start, count)``
    (:meth:`~deepsim.rulesets.base.KernelInputs.kernel_args`).

    Attributes
    ----------
    rules : float64[N_RULES]
        One value per ``layout.RULES`` entry (enums as their index in ``schema.ENUMS``).
    depth : int64[n_cards]
        The Depth deck before shuffling: ally codes ``race * 16 + value``, then monsters
        (``layout.MONSTER``); AB-C1.
    lords : int64[n_lords, LC_N]
        The lord deck (``layout.LCOLS``); AB-C2.
    locations : int64[n_locations]
        VP of each location tile (AB-K4).
    threat : int64[n_positions, TH_N]
        Reward per Threat position: tokens, pearls, keys (AB-E6, AMB-A5).
    tokens : int64[n_tokens]
        VP of each Monster token (AB-C3).
    knobs : float64[n_profiles, N_KNOBS]
        Bot profiles: the styles of bots.yaml, then one per seat with knob overrides.
    seat_bot : int64[MAX_P]
        Profile row of each seat spec; -1 = drawn per game from ``bot_pool``.
    bot_pool : int64[k]
        Profile rows a seat with ``bot: any`` draws from, uniformly per game.
    player_opts : int64[m]
        Player counts a game draws from, uniformly per game.
    fmix : float64[n_profiles, 2, M]
        Per profile row (the faction: a seat's bot style), its own bot profiles (scenario
        key ``faction_bots``; deepsim.factionmix).
    """

    rules: np.ndarray
    depth: np.ndarray
    lords: np.ndarray
    locations: np.ndarray
    threat: np.ndarray
    tokens: np.ndarray
    knobs: np.ndarray
    seat_bot: np.ndarray
    bot_pool: np.ndarray
    player_opts: np.ndarray
    fmix: np.ndarray


def rule_vector(d: AbyssData, *, rotate: bool = True) -> np.ndarray:
    """float64[N_RULES]: the scalar rules in ``layout.RULES`` order."""
    raw = d.model_dump()
    out = np.zeros(L.N_RULES, np.float64)
    for i, (name, path) in enumerate(L.RULES):
        if name == "rotate":
            out[i] = 1.0 if rotate else 0.0
        elif name == "ally_mean":
            counts = d.depth.ally_counts
            out[i] = sum((v + 1) * c for v, c in enumerate(counts)) / sum(counts)
        elif name == "pearl_supply":
            out[i] = -1.0 if d.pearl_supply is None else float(d.pearl_supply)
        else:
            v = value_at(raw, path)
            if path in ENUMS:
                v = ENUMS[path].index(v)
            out[i] = float(v)
    return out


def depth_cards(d: AbyssData) -> np.ndarray:
    """int64[n]: the Depth deck, allies race by race and value by value, then monsters."""
    cards = [r * L.CODE_RACE_MUL + (v + 1) for r in range(L.N_RACES)
             for v, c in enumerate(d.depth.ally_counts) for _ in range(c)]
    cards += [L.MONSTER] * d.depth.monsters
    return np.asarray(cards, np.int64)


def lord_table(d: AbyssData) -> np.ndarray:
    """int64[n_lords, LC_N] of the lord deck (``layout.LCOLS``)."""
    out = np.zeros((len(d.lords.deck), L.LC_N), np.int64)
    for i, lord in enumerate(d.lords.deck):
        out[i, L.LC_COLOUR] = L.COLOURS.index(lord.colour)
        out[i, L.LC_VP] = lord.vp
        out[i, L.LC_COST] = lord.cost
        out[i, L.LC_NRACES] = lord.races
        out[i, L.LC_REQ] = sum(1 << L.RACES.index(r) for r in lord.required)
        out[i, L.LC_KEYS] = lord_keys(lord)
        out[i, L.LC_EFFECT] = L.EFFECTS.index(lord.effect)
    return out


def build(d: AbyssData, *, knobs: np.ndarray, seat_bot: list[int], bot_pool: list[int],
          players: list[int], rotate: bool, fmix: np.ndarray | None = None) -> AbyssArrays:
    """All kernel arrays for data ``d`` and a scenario's bots and player counts (``fmix``:
    per profile row, its own bot profiles, deepsim.factionmix; default none)."""
    if fmix is None:
        from deepsim.factionbots import empty_fmix
        fmix = empty_fmix(knobs.shape[0])
    sb = np.full(L.MAX_P, -1, np.int64)
    sb[:len(seat_bot)] = seat_bot
    threat = np.array([[s.tokens, s.pearls, s.keys] for s in d.threat.track], np.int64)
    tokens = np.array([vp for vp, n in sorted(d.monster_tokens.items(), reverse=True)
                       for _ in range(n)], np.int64)
    return AbyssArrays(
        rules=rule_vector(d, rotate=rotate), depth=depth_cards(d), lords=lord_table(d),
        locations=np.asarray(d.locations.vp, np.int64), threat=threat.reshape(-1, L.TH_N),
        tokens=tokens, knobs=np.ascontiguousarray(knobs, np.float64), seat_bot=sb,
        bot_pool=np.asarray(bot_pool, np.int64), player_opts=np.asarray(players, np.int64),
        fmix=np.ascontiguousarray(fmix, np.float64))
