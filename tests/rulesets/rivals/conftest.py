"""Fixtures for the Rivals tests: a hand-built game state around the real kernel functions.

This is the folder's conftest: its tests take the :class:`State` class as the ``new_state``
fixture (``new_state(grid, overrides, ...)``). A state prepares the ruleset on a hand-drawn
map (a text grid, ``maps.py``) with ``--set`` style overrides (dice faces can be fixed, e.g.
every Red face a hit, to make a roll certain), plays the kernel's own ``setup`` for game 0,
then :meth:`State.clear` empties the board so a test can put the models it needs where it
needs them (:meth:`State.add`), write a plan (:meth:`State.plan`) and call one rule function
of ``deepsim.rulesets.rivals.kernel`` on the state. Every State has the trace on
(:meth:`State.events`). Tiles are named ``(col, row)`` of the grid.
"""

from __future__ import annotations

import numpy as np
import pytest

from deepsim.rulesets import hexgrid as H
from deepsim.rulesets.rivals import RULESET
from deepsim.rulesets.rivals import kernel as K
from deepsim.rulesets.rivals import layout as L
from deepsim.rulesets.rivals import state as S

#: a small open map: two spawns each at the ends, sand between
GRID = ("S1 S1 s  s  s  S2 S2\n"
        " s  s  s  s  s  s  s\n"
        "s  s  s  s  s  s  s\n")


@pytest.fixture
def new_state():
    """The State class: ``new_state(grid, overrides, ...)`` is a hand-built Rivals state."""
    return State


class State:
    """A game state on a fixed map with the kernel's arrays (see the module docstring)."""

    def __init__(self, grid: str = GRID, overrides: tuple[str, ...] = (), players: int = 2,
                 builds: tuple[str, ...] = ("balanced", "balanced", "balanced", "balanced"),
                 bot: str = "brawler", seed: int = 1):
        scenario = {"name": "rule-tests", "ruleset": "rivals", "players": players,
                    "seed": seed, "games": 1, "map": {"grid": grid},
                    "seats": [{"build": builds[i], "bot": bot} for i in range(players)]}
        self.prep = RULESET.prepare(scenario, source="<rule-tests>",
                                    overrides=list(overrides))
        self.a = self.prep.compiled["arrays"]
        self.dat = tuple(self.a.kernel_args())
        self.units = self.prep.compiled["units"]
        coords = self.prep.compiled["geometry"]
        self.tile_of = {H.offset_from_axial(int(q), int(r)): i
                        for i, (q, r) in enumerate(coords)}
        self.scr = S.new_scratch(np.int64(50_000), np.int64(len(coords)),
                                 np.int64(self.a.faces.shape[0]))
        K.reset(self.scr)
        self.scr[S.X_E][S.E_TRACE] = 1
        from deepsim.rng import game_key, mix64
        key = game_key(np.int64(seed), np.int64(0))
        self.scr[S.X_KEY][S.K_DICE] = key
        self.scr[S.X_KEY][S.K_BOT] = mix64(np.uint64(key) ^ np.uint64(0x9E6C63D0676A9A99))
        K.setup(self.scr, self.dat, np.int64(0))
        self.scr[S.X_PS][S.PS_ROUND] = 1

    # ---- arrays -----------------------------------------------------------------------------
    @property
    def ps(self):
        return self.scr[S.X_PS]

    @property
    def tiles(self):
        return self.scr[S.X_TILE]

    @property
    def models(self):
        return self.scr[S.X_MOD]

    @property
    def pl(self):
        return self.scr[S.X_PL]

    @property
    def gst(self):
        return self.scr[S.X_GST]

    @property
    def sst(self):
        return self.scr[S.X_SST]

    def t(self, col: int, row: int) -> int:
        """The tile index of grid place (col, row)."""
        return self.tile_of[(col, row)]

    # ---- building ---------------------------------------------------------------------------
    def clear(self) -> State:
        """No model anywhere (in play or reserve); players alive with nothing."""
        m = self.models
        m[:, :] = 0
        m[:, S.MD_TILE] = S.DEAD
        m[:, S.MD_OWNER] = -1
        self.tiles[:, S.TL_OCC_OWNER] = -1
        self.tiles[:, S.TL_OCC_SMALL] = 0
        self.tiles[:, S.TL_OCC_LARGE] = 0
        self.pl[:, S.PL_ON_BOARD] = 0
        self.pl[:, S.PL_RESERVE] = 0
        self.pl[:, S.PL_COST_LEFT] = 0
        self.ps[S.PS_NMODELS] = 0
        return self

    def add(self, owner: int, unit: str, where: tuple[int, int] | None, *, wounds: int = 0,
            swim: int = 0) -> int:
        """A model of ``unit`` for player ``owner`` on grid place ``where`` (None: in
        reserve). Returns its index."""
        u = self.units.index(unit)
        k = int(self.ps[S.PS_NMODELS])
        m = self.models
        row = self.a.units[u]
        m[k, S.MD_OWNER] = owner
        m[k, S.MD_UNIT] = u
        m[k, S.MD_HEARTS] = row[L.U_HEARTS]
        m[k, S.MD_COST] = row[L.U_COST]
        m[k, S.MD_LARGE] = row[L.U_LARGE]
        m[k, S.MD_MINION] = row[L.U_MINION]
        m[k, S.MD_WOUNDS] = wounds
        m[k, S.MD_SWIM] = swim
        self.ps[S.PS_NMODELS] = k + 1
        self.pl[owner, S.PL_COST_LEFT] += row[L.U_COST]
        if where is None:
            m[k, S.MD_TILE] = S.RESERVE
            self.pl[owner, S.PL_RESERVE] += 1
        else:
            K.place(self.scr, np.int64(k), np.int64(self.t(*where)))
            self.pl[owner, S.PL_ON_BOARD] += 1
        return k

    def plan(self, act: int, tile: tuple[int, int] | int, entries: list[tuple]) -> None:
        """Write the bot's plan: an activation, its tile and per model (model, a, b, c)."""
        plan = self.scr[S.X_PLAN]
        plan[:] = 0
        plan[S.PLAN_ACT] = act
        plan[S.PLAN_TILE] = tile if isinstance(tile, int) else self.t(*tile)
        plan[S.PLAN_N_MODELS] = len(entries)
        for i, e in enumerate(entries):
            for j, v in enumerate(e):
                plan[S.PLAN_HEAD + i * S.PLAN_STRIDE + j] = v

    def deck(self, which: str, cards: list[int]) -> None:
        """Put cards on a deck, top card first: ``lurker``, ``loot`` or ``event``."""
        arr = {"lurker": S.X_LDECK, "loot": S.X_LOOT, "event": S.X_EVDECK}[which]
        n_at = {"lurker": S.HS_LDECK_N, "loot": S.HS_LOOT_N, "event": S.HS_EV_N}[which]
        d = self.scr[arr]
        d[:] = -1
        for i, c in enumerate(reversed(cards)):
            d[i] = c
        self.scr[S.X_HS][n_at] = len(cards)

    def tile_of_model(self, m: int):
        t = int(self.models[m, S.MD_TILE])
        if t < 0:
            return t
        inv = {v: k for k, v in self.tile_of.items()}
        return inv[t]

    # ---- reading -----------------------------------------------------------------------------
    def events(self, kind: int | None = None) -> np.ndarray:
        """The trace events so far (int64 rows: round, player, kind, a..h)."""
        n = int(self.scr[S.X_E][S.E_EVN])
        ev = self.scr[S.X_EV][:n]
        return ev if kind is None else ev[ev[:, 2] == kind]
