"""Turn validated Rivals data and a scenario into the arrays the kernel reads.

Every array is C-contiguous with the dtype and shape of the contract in ``layout.py``;
:meth:`RivalsArrays.kernel_args` gives them in the order of ``kernel.play_listed`` after
``(seed, games)``. Colours are indexed strongest first (``degrade_order``), situations as
``schema.SITUATIONS``, units and builds in the data's order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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


__all__ = [
    "EVENT_EFFECTS",
    "LOOT_EFFECTS",
    "LOOT_SLOTS",
    "RivalsArrays",
    "colour_index",
    "counts",
    "dice_arrays",
    "enum_index",
    "modifier_table",
]


@dataclass
class RivalsArrays:
    """Kernel inputs (all numpy, C-contiguous); filled in by :func:`build`."""

    rules: np.ndarray
