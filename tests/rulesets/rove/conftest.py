"""Fixtures for the Rove rule tests: hand-built states (a text map, units on it, and the
kernel's state arrays), so a test calls one kernel function on a position the rulebook draws.

This is the folder's conftest: its tests take :func:`build` (a :class:`State` on a map) and
:func:`action` (one action row) as the fixtures ``build`` and ``action``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from deepsim.rulesets.rove import kernel as K
from deepsim.rulesets.rove import layout as L
from deepsim.rulesets.rove.compile import parse_map


@dataclass
class State:
    """A position: map arrays, units ``U``, ``occ``, ``trap``, the game bundle ``G``, output
    rows ``gi``/``si``, an empty event buffer, the rules array and an affinity table."""

    gm: object
    U: np.ndarray
    occ: np.ndarray
    trap: np.ndarray
    G: np.ndarray
    gi: np.ndarray
    si: np.ndarray
    ev: np.ndarray
    rules: np.ndarray
    aff: np.ndarray
    damage_die: np.ndarray = field(default_factory=lambda: np.array(
        [0, 1, 2, 3, 4, 5, -1, -1], np.int64))
    names: dict = field(default_factory=dict)

    def cell(self, col: int, row: int) -> int:
        return self.gm.index[(col, row)]

    def at(self, name: str) -> tuple[int, int]:
        c = int(self.U[self.names[name], L.U_CELL])
        return int(self.gm.coords[c][0]), int(self.gm.coords[c][1])

    def hp(self, name: str) -> int:
        return int(self.U[self.names[name], L.U_HP])

    def u(self, name: str) -> int:
        return self.names[name]


def build(text: str, units: list[tuple], *, danger: int = 1, trap: int = 2,
          tiebreak: int = L.TIE_ROVER, fewest: int = 0) -> State:
    """A state on map ``text`` (the encounter grammar; no start flag needed).

    ``units``: (name, faction "rover"/"adv", (col, row), hp, max_hp, defence, flying);
    Rovers first. Affinities are 0 (row per unit).
    """
    gm = parse_map(text, need_flag=False)
    U = np.zeros((L.MAX_UNITS, L.U_N), np.int64)
    U[:, L.U_STATE] = L.ST_GONE
    occ = np.full(len(gm.terrain), -1, np.int64)
    names = {}
    nr = 0
    for i, (name, fac, (c, r), hp, mhp, dfn, fly) in enumerate(units):
        cell = gm.index[(c, r)]
        U[i, L.U_FACTION] = L.ROVER if fac == "rover" else L.ADVERSARY
        U[i, L.U_CELL] = cell
        U[i, L.U_HP] = hp
        U[i, L.U_MAXHP] = mhp
        U[i, L.U_BASEDEF] = dfn
        U[i, L.U_FLY] = int(fly)
        U[i, L.U_STATE] = L.ST_ACTIVE
        U[i, L.U_AFF] = i
        occ[cell] = i
        names[name] = i
        nr += fac == "rover"
    G = np.zeros(K.GS_N, np.int64)
    G[K.GS_R] = nr
    G[K.GS_NU] = len(units)
    G[K.GS_ROUND] = 1
    rules = np.zeros(L.N_RULES, np.int64)
    rules[L.R_CLAMP] = 1
    rules[L.R_DANGER] = danger
    rules[L.R_TRAP] = trap
    rules[L.R_TIE] = tiebreak
    rules[L.R_FEWEST] = fewest
    rules[L.R_LIMIT] = 5
    return State(gm, U, occ, np.zeros(len(gm.terrain), np.int64), G,
                 np.zeros(len(L.GAME_INT), np.int64),
                 np.zeros((L.MAX_R, len(L.SEAT_INT)), np.int64),
                 np.zeros((0, L.EV_COLS), np.int64), rules,
                 np.zeros((L.MAX_UNITS, 6), np.int64), names=names)


def action(op: str, x: int = 0, rmin: int = 0, rmax: int = 0, targets: int = 1,
           push: int = 0, pull: int = 0) -> np.ndarray:
    """One action row of the grammar."""
    row = np.zeros(L.A_N, np.int64)
    row[L.A_OP] = L.OP[op]
    row[L.A_X] = x
    row[L.A_RMIN] = rmin
    row[L.A_RMAX] = rmax
    row[L.A_TGT] = targets
    row[L.A_PUSH] = push
    row[L.A_PULL] = pull
    row[L.A_ELEM] = -1
    return row


# the fixtures return the functions above under their names (pytest's ``name=``): defined as
# ``build``/``action`` themselves, they would replace the functions they return in this module
@pytest.fixture(name="build")
def build_fixture():
    """The function ``build(text, units, ...)``: a hand-built Rove State on a text map."""
    return build


@pytest.fixture(name="action")
def action_fixture():
    """The function ``action(op, x, rmin, rmax, ...)``: one action row of the grammar."""
    return action
