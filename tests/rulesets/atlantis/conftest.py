"""This folder's conftest: a hand-built Atlantis game state around the real kernel functions.

Its fixture ``new_state`` gives the :class:`State` class (call it to build a state). A
:class:`State` takes the ruleset's compiled arrays (``RULESET.prepare`` with ``--set``
style overrides), swaps in a small map of the test's size filled with one terrain, and
lets a test place units (:meth:`State.add`), change hexes (:meth:`State.terrain`), queue
the d6 results the kernel will roll (:meth:`State.dice`) and call one rule function of
``deepsim.rulesets.atlantis.kernel`` on the state. Cells are given as (col, row) of the
odd-r offset grid. Every State has the kernel's event trace on (``events``).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np
import pytest

from deepsim.rulesets import hexgrid
from deepsim.rulesets.atlantis import RULESET
from deepsim.rulesets.atlantis import board as B
from deepsim.rulesets.atlantis import kernel as K
from deepsim.rulesets.atlantis import layout as L

SCENARIO = {"name": "rule-tests", "ruleset": "atlantis", "players": 2, "seed": 1,
            "games": 1, "bots": ["random", "aggressive", "defensive"],
            "sides": {"sea_witch": {"bot": "aggressive"}, "sea_king": {"bot": "aggressive"}}}

TERRAIN = {name: i for i, name in enumerate(L.TERRAINS)}
SPELL = {name: i for i, name in enumerate(L.SPELLS)}
RULE = {name: i for i, (name, _) in enumerate(L.RULES)}
KNOB = {name: i for i, name in enumerate(L.KNOBS)}
SIDE = {"sea_witch": L.WITCH, "witch": L.WITCH, "sea_king": L.KING, "king": L.KING,
        "neutral": L.NEUTRAL}

#: a heuristic bot with every weight zero: it stays where it is (moving only costs), never
#: hides or casts by choice, and attacks the first best target it may attack; tests switch
#: on what they need. It is the bot of both sides of a State (row ``knob_row``).
STILL = {k: 0.0 for k in L.KNOBS}


@lru_cache(maxsize=64)
def _prepared(overrides: tuple[str, ...]):
    return RULESET.prepare(dict(SCENARIO), source="<rule-tests>", overrides=list(overrides))


def prepared(overrides=(), **scenario):
    """A Prepared of the ruleset for a scenario (default: aggressive vs aggressive)."""
    return RULESET.prepare(dict(SCENARIO, **scenario), source="<rule-tests>",
                           overrides=list(overrides))


class State:
    """A game state on a ``width`` x ``height`` map of one terrain, no units yet.

    Parameters
    ----------
    width, height : int
        Map size (the compiled neighbour and distance tables are rebuilt for it).
    overrides : sequence of str
        ``path=value`` ruleset overrides (as ``--set``).
    fill : str
        Terrain of every hex.
    seed : int
        Seed of the game's dice stream (game 0).
    """

    def __init__(self, width=7, height=7, overrides=(), fill="open_ocean", seed=1,
                 max_events=20_000):
        prep = _prepared(tuple(overrides))
        self.prepared = prep
        a = prep.compiled["arrays"]
        self.names = list(prep.compiled["unit_names"])
        self.titles = list(prep.compiled["unit_titles"])
        arrays = dataclasses.replace(
            a, **{f.name: getattr(a, f.name).copy() for f in dataclasses.fields(a)
                  if isinstance(getattr(a, f.name), np.ndarray)})
        arrays.rules[L.R_MAP_WIDTH] = width
        arrays.rules[L.R_MAP_HEIGHT] = height
        arrays.rules[L.R_MAP_SOURCE] = 1
        arrays.neighbors = np.ascontiguousarray(hexgrid.neighbor_table(width, height))
        arrays.dist = np.ascontiguousarray(hexgrid.distance_table(width, height))
        arrays.fixed_terrain = np.full(width * height, TERRAIN[fill], np.int64)
        arrays.fixed_current = np.full(width * height, -1, np.int64)
        arrays.knobs = np.ascontiguousarray(np.vstack([arrays.knobs,
                                                       np.zeros((1, L.N_KNOBS))]))
        arrays.side_bot = np.full(2, arrays.knobs.shape[0] - 1, np.int64)
        self.knob_row = arrays.knobs.shape[0] - 1
        self.arrays = arrays
        self.w = width
        self.h = height
        self.dat = arrays.kernel_args()
        self.scr = B.new_scratch(width * height, max_events)
        K.reset(self.scr)
        g = self.scr[B.X_G]
        g[B.GS_W] = width
        g[B.GS_H] = height
        g[B.GS_C] = width * height
        g[B.GS_TRACE] = 1
        g[B.GS_TURN] = 1
        g[B.GS_ACTIVE] = L.WITCH
        g[B.GS_LEADER_W] = -1
        g[B.GS_LEADER_K] = -1
        g[B.GS_BOT_W] = self.knob_row
        g[B.GS_BOT_K] = self.knob_row
        self.scr[B.X_KEY][0] = np.uint64(K.game_key(np.int64(seed), np.int64(0)))
        self.scr[B.X_TER][:] = TERRAIN[fill]
        B.rebuild_entry(self.scr, self.dat)        # the entry keys follow X_TER
        self.scr[B.X_CUR][:] = -1
        self.scr[B.X_POOL][:] = self.dat[B.D_SPELLS][:, L.SPC_CHITS]
        self.set_knobs(STILL)

    # ---- geometry -----------------------------------------------------------------------
    def cell(self, pos) -> int:
        """Cell index of (col, row)."""
        col, row = pos
        return row * self.w + col

    def pos(self, cell: int) -> tuple[int, int]:
        return cell % self.w, cell // self.w

    def neighbor(self, pos, d: int) -> tuple[int, int]:
        """(col, row) of the neighbour of ``pos`` in direction d (E, NE, NW, W, SW, SE)."""
        return self.pos(int(self.dat[B.D_NB][self.cell(pos), d]))

    # ---- building the state ---------------------------------------------------------------
    def type_of(self, name: str) -> int:
        return self.names.index(name)

    def terrain(self, pos, name: str, current: int = -1, spell_by: int = -1) -> None:
        """Make hex ``pos`` terrain ``name`` (a current direction for Current hexes)."""
        c = self.cell(pos)
        B.set_terrain(self.scr, self.dat, c, TERRAIN[name])     # X_TER and X_ENTRY
        self.scr[B.X_CUR][c] = current
        self.scr[B.X_TSRC][c] = spell_by

    def add(self, name: str, side: str, pos, damage=0, hidden=False, chits=()) -> int:
        """Place a unit of type ``name`` for ``side`` on ``pos``; returns its slot."""
        t = self.type_of(name)
        i = K.new_unit(self.scr, self.dat, t, SIDE[side], self.cell(pos))
        assert i >= 0
        u = self.u
        u[i, B.UC_DMG] = damage
        u[i, B.UC_HIDDEN] = int(hidden)
        for k, sp in enumerate(chits):
            self.scr[B.X_CHITS][i, k] = SPELL[sp]
        u[i, B.UC_NCHITS] = len(chits)
        if self.dat[B.D_UNITS][t, L.U_LEADER] == 1:
            g = self.g
            if SIDE[side] == L.WITCH and g[B.GS_LEADER_W] < 0:
                g[B.GS_LEADER_W] = i
            elif SIDE[side] == L.KING and g[B.GS_LEADER_K] < 0:
                g[B.GS_LEADER_K] = i
        return i

    def dice(self, *faces: int) -> None:
        """Queue d6 results: the next ``len(faces)`` d6 rolls of the kernel return them."""
        g = self.g
        forced = self.scr[B.X_FORCED]
        n = g[B.GS_FORCED_N] - g[B.GS_FORCED_POS]
        rest = forced[g[B.GS_FORCED_POS]:g[B.GS_FORCED_N]].copy()
        forced[:n] = rest
        forced[n:n + len(faces)] = faces
        g[B.GS_FORCED_POS] = 0
        g[B.GS_FORCED_N] = n + len(faces)

    def dice_left(self) -> int:
        g = self.g
        return int(g[B.GS_FORCED_N] - g[B.GS_FORCED_POS])

    def set_knobs(self, knobs: dict) -> np.ndarray:
        """Set the bot knobs of both sides (``self.kn``, a view of their profile row)."""
        row = self.arrays.knobs[self.knob_row]
        row[:] = 0.0
        for k, v in knobs.items():
            row[KNOB[k]] = v
        self.kn = row
        return row

    def rule(self, name: str, value: float) -> None:
        self.arrays.rules[RULE[name]] = value

    # ---- views --------------------------------------------------------------------------
    @property
    def g(self) -> np.ndarray:
        return self.scr[B.X_G]

    @property
    def u(self) -> np.ndarray:
        return self.scr[B.X_U]

    def at(self, slot: int) -> tuple[int, int]:
        return self.pos(int(self.u[slot, B.UC_CELL]))

    def alive(self, slot: int) -> bool:
        return bool(self.u[slot, B.UC_ALIVE])

    def damage_of(self, slot: int) -> int:
        return int(self.u[slot, B.UC_DMG])

    def paralysis(self, slot: int) -> int:
        return int(self.u[slot, B.UC_PARA] + self.u[slot, B.UC_NENT])

    def hidden(self, slot: int) -> bool:
        return bool(self.u[slot, B.UC_HIDDEN])

    def stat(self, side: str, col: int) -> int:
        return int(self.scr[B.X_SSTAT][SIDE[side], col])

    @property
    def events(self) -> np.ndarray:
        return self.scr[B.X_EV][:self.g[B.GS_EV]].copy()

    def kinds(self, kind: int) -> np.ndarray:
        ev = self.events
        return ev[ev[:, 2] == kind]

    def log(self) -> list[str]:
        from deepsim.rulesets.atlantis.trace import format_events
        return format_events(self.events, self.titles, self.w)

    # ---- running rule functions --------------------------------------------------------
    def reach(self, slot: int, budget: int) -> dict[tuple[int, int], int]:
        """{(col, row): move cost} of every cell slot can reach with ``budget`` moves."""
        n = K.reach(self.scr, self.dat, slot, budget)
        lst = self.scr[B.X_PLIST][:n]
        pk = self.scr[B.X_PKEY]
        return {self.pos(int(c)): int(pk[c] >> 3) for c in lst}

    def active(self, side: str) -> None:
        self.g[B.GS_ACTIVE] = SIDE[side]


# ---- fixtures -------------------------------------------------------------------------------
@pytest.fixture
def new_state():
    """The State class: call it (same arguments) to build a hand-built Atlantis game state."""
    return State
