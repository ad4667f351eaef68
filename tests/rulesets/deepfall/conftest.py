"""Shared fixtures of the DEEPFALL tests: a hand-built game state around the real kernel.

The fixture ``new_state`` gives the :class:`State` class: ``new_state(companies, ...)`` runs
the kernel's own ``setup`` (so the §3 scaling table and the §4 company effects come from the
ruleset data exactly as in a real game), then lets a test rewrite any part of the state
(dungeon tiles, markers, crew floors, bags, die faces, bot knobs) and call one rule function
of ``deepsim.rulesets.deepfall.kernel`` on it. The fixture ``prepared`` gives the function
that prepares the ruleset for a whole scenario (``prepared(overrides, **scenario)``).

Floors are given as rulebook floor *numbers* (1 = top, 6 = bottom) everywhere in these
fixtures; the kernel's 0-based floor index is ``floor - 1``. Every State has the kernel's
event trace switched on, so tests can read what the kernel did (``events``).
"""

from __future__ import annotations

import dataclasses
import inspect
from functools import lru_cache

import numpy as np
import pytest

from deepsim.rng import game_key
from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall import board as B
from deepsim.rulesets.deepfall import kernel as K
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.schema import CALLINGS, DICE, LINEAGES, ROOMS, SYMBOLS

SCENARIO = {"name": "rule-tests", "ruleset": "deepfall", "players": 4, "seed": 1,
            "games": 1}

#: A bot that does nothing by itself: no Press On, stays on its floor (``target_depth`` is
#: set to the crew's floor by :meth:`State.stay_put`), never Cashes Out, no Last Stand, no
#: recruits, no contesting. Tests switch on exactly the decision they need.
STILL = {"random": 0.0, "press_max": 0.0, "dread_stop": 0.0, "press_when_short": 0.0,
         "target_depth": 1.0, "safety_rounds": 0.0, "cash_loot": 1e9, "cash_depth": 0.0,
         "last_stand": 0.0, "recruit_max": 0.0, "contest": 0.0, "reinforce": 0.0,
         "maw_margin": 0.0, "assault_reach": 3.0, "press_risk": 1.0, "rollouts": 0.0,
         "search_room": 0.0, "search_press": 0.0, "search_margin": 0.0,
         "search_extra": 0.0, "search_glory": 0.0, "search_opponents": 0.0,
         "search_paired": 1.0, "exit_via": 0.0}

SYM = {name: i for i, name in enumerate(SYMBOLS)}
DIE = {name: i for i, name in enumerate(DICE)}
ROOM = {name: i for i, name in enumerate(ROOMS)}
RULE = {name: i for i, (name, _) in enumerate(L.RULES)}
KNOB = {name: i for i, name in enumerate(L.KNOBS)}


@lru_cache(maxsize=64)
def _prepared_arrays(overrides: tuple[str, ...], players: int):
    prep = RULESET.prepare(dict(SCENARIO, players=players), source="<rule-tests>",
                           overrides=list(overrides))
    return prep.compiled["arrays"]


def arrays(overrides=(), players: int = 4):
    """Fresh (mutable) kernel arrays of the ruleset after ``--set`` style overrides."""
    a = _prepared_arrays(tuple(overrides), players)
    return dataclasses.replace(
        a, **{f.name: getattr(a, f.name).copy() for f in dataclasses.fields(a)
              if isinstance(getattr(a, f.name), np.ndarray)})


def prepared(overrides=(), **scenario):
    """A Prepared of the ruleset for a scenario (defaults: 4 players, seed 1)."""
    return RULESET.prepare(dict(SCENARIO, **scenario), source="<rule-tests>",
                           overrides=list(overrides))


class State:
    """One game state after the kernel's ``setup``, with handles on every part of it.

    Parameters
    ----------
    companies : list of (lineage, calling)
        One per seat; the player count is its length.
    overrides : sequence of str
        ``path=value`` ruleset overrides (as ``--set``).
    """

    def __init__(self, companies, overrides=(), seed: int = 1, trace: bool = True):
        self.n = len(companies)
        self.a = arrays(overrides, self.n)
        a = self.a
        self.st = B.new_state()
        self.st.key[0] = game_key(np.int64(seed), np.int64(0))
        spec = -np.ones((L.MAX_SEATS, 3), np.int64)
        for p, (lin, cal) in enumerate(companies):
            spec[p, 0] = LINEAGES.index(lin)
            spec[p, 1] = CALLINGS.index(cal)
            spec[p, 2] = p                     # one bot profile per seat
        a.seat_spec = spec
        a.unique = 0
        a.player_opts = np.array([self.n], np.int64)
        a.knobs = np.tile(np.array([STILL[k] for k in L.KNOBS], np.float64),
                          (L.MAX_SEATS, 1))
        self.g[B.GS_TRACE] = 1 if trace else 0
        self.call(K.setup)
        self.g[B.GS_ROUND] = 1

    # ---- named parts of the game state (board.State) -------------------------------------
    theme = property(lambda self: self.st.theme)
    plunder = property(lambda self: self.st.plunder)
    gone = property(lambda self: self.st.gone)
    act_str = property(lambda self: self.st.act_str)
    act_cnt = property(lambda self: self.st.act_cnt)
    fallen = property(lambda self: self.st.fallen)
    sd = property(lambda self: self.st.sd)
    bag = property(lambda self: self.st.bag)
    drawn = property(lambda self: self.st.drawn)
    eff = property(lambda self: self.st.eff)
    glory = property(lambda self: self.st.glory)
    loot = property(lambda self: self.st.loot)
    carry = property(lambda self: self.st.carry)
    g = property(lambda self: self.st.g)
    sym = property(lambda self: self.st.sym)
    rolled = property(lambda self: self.st.rolled)
    trin = property(lambda self: self.st.trin)
    gi = property(lambda self: self.st.gi)      # int64[N_GAME_INT]: the game's row
    si = property(lambda self: self.st.si)      # int64[MAX_SEATS, N_SEAT_INT]
    sf = property(lambda self: self.st.sf)      # float64[MAX_SEATS, N_SEAT_FLT]
    ev = property(lambda self: self.st.ev)

    def data(self):
        """The kernel's data bundle (board.Data) of the arrays as a test has set them."""
        return self.a.kernel_data()

    @property
    def slots(self) -> int:
        return int(self.g[B.GS_SLOTS])

    # ---- building the state ----------------------------------------------------------------
    def set_floor(self, floor: int, themes, close_rest: bool = True):
        """Tiles of ``floor`` from slot 0; other slots closed (``gone``) unless asked."""
        fi = floor - 1
        for s in range(self.slots):
            if s < len(themes):
                self.theme[fi, s] = ROOM[themes[s]]
                self.gone[fi, s] = 0
            elif close_rest:
                self.gone[fi, s] = 1
            self.plunder[fi, s] = 0

    def empty_dungeon(self):
        """Close every room of every floor (a test then opens the rooms it needs)."""
        for fi in range(L.N_FLOORS):
            self.set_floor(fi + 1, [])

    def place(self, floor: int, slot: int, p: int, strength: float, count: int = 1):
        """Add ``count`` active markers of total weighted ``strength`` for seat p."""
        self.act_str[floor - 1, slot, p] += strength
        self.act_cnt[floor - 1, slot, p] += count

    def put_crew(self, p: int, floor: int, deepest: int | None = None):
        """Move seat p's crew to ``floor``; its bot then targets that floor (stays).

        The crew counts as having played a turn (it got there by playing), so a Taking
        counts as ``taken_no_stand``, not ``taken_unplayed`` (B4)."""
        self.sd[p, B.SD_FLOOR] = floor
        self.sd[p, B.SD_DEEPEST] = floor if deepest is None else deepest
        self.sd[p, B.SD_CREW_TURNS] = max(1, int(self.sd[p, B.SD_CREW_TURNS]))
        self.stay_put(p)

    def stay_put(self, p: int):
        """The seat's bot targets the floor its crew is on."""
        self.knob(p, target_depth=self.sd[p, B.SD_FLOOR])

    def knob(self, p: int, **kw):
        for k, v in kw.items():
            self.a.knobs[p, KNOB[k]] = float(v)

    def set_bag(self, p: int, **counts):
        self.bag[p, :] = 0
        for die, c in counts.items():
            self.bag[p, DIE[die]] = c

    def bag_of(self, p: int) -> dict:
        return {d: int(self.bag[p, i]) for i, d in enumerate(DICE) if self.bag[p, i]}

    def die_faces(self, die: str, symbol: str):
        """Make every face of die type ``die`` show ``symbol`` (the roll becomes certain)."""
        self.a.faces[DIE[die], :] = SYM[symbol]

    def set_rule(self, name: str, value: float):
        self.a.rules[RULE[name]] = value

    def rule(self, name: str) -> float:
        return float(self.a.rules[RULE[name]])

    def sync_marks(self):
        """Rebuild each seat's ``SD_MARKS`` bit set from ``act_cnt`` (the kernel's cache)."""
        bits = np.left_shift(np.int64(1), np.arange(L.N_FLOORS * L.MAX_SLOTS, dtype=np.int64))
        has = (self.act_cnt > 0).reshape(L.N_FLOORS * L.MAX_SLOTS, L.MAX_SEATS)
        self.sd[:, B.SD_MARKS] = (has * bits[:, None]).sum(axis=0)

    # ---- calling the rules ---------------------------------------------------------------
    def call(self, fn, **given):
        """Call kernel function ``fn`` (parameters ``st``, ``dat``, then its own).

        ``st`` is this state, ``dat`` the data bundle of the arrays as the test set them,
        ``kn`` (a bot's knob row) defaults to seat ``p``'s; every other parameter comes
        from ``given`` (a name ``fn`` does not take is an error). The crews' marker bit
        sets (``SD_MARKS``) are rebuilt from ``act_cnt`` first, since a test may have
        written markers directly.
        """
        self.sync_marks()
        names = list(inspect.signature(fn.py_func).parameters)
        unknown = set(given) - set(names)
        if unknown:
            raise TypeError(f"{fn.__name__} takes no {sorted(unknown)}")
        args = []
        for name in names:
            if name in given:
                v = given[name]
            elif name == "st":
                v = self.st
            elif name == "dat":
                v = self.data()
            elif name == "kn" and "p" in given:
                v = self.a.knobs[int(given["p"])]
            else:
                raise TypeError(f"{fn.__name__}: no value for parameter {name!r}")
            args.append(v)
        return fn(*args)

    def collapse(self, floor: int):
        self.call(K.collapse, fi=np.int64(floor - 1))

    def maw_phase(self):
        self.call(K.maw_phase)

    def taken(self, p: int, floor: int, final: bool = False):
        self.call(K.taken, p=np.int64(p), fi=np.int64(floor - 1), final=bool(final))

    def cash_out(self, p: int):
        self.call(K.cash_out, p=np.int64(p))

    def muster(self, p: int):
        self.call(K.muster, p=np.int64(p))

    def claim_cost(self, floor: int, slot: int, p: int):
        need = self.call(K.claim_cost, fi=np.int64(floor - 1), s=np.int64(slot),
                         p=np.int64(p))
        return int(need[0]), int(need[1])

    def trinity_ok(self, p: int, room: str, steel=0, cunning=0, faith=0):
        self.trin[:] = 0
        self.trin[L.STEEL], self.trin[L.CUNNING], self.trin[L.FAITH] = steel, cunning, faith
        ok, solo = self.call(K.trinity_ok, p=np.int64(p), th=np.int64(ROOM[room]))
        return bool(ok), bool(solo)

    def do_claim(self, floor: int, slot: int, p: int, surplus_s=0, surplus_c=0):
        """Place a marker paying the room's current cost plus the given surplus."""
        need_s, need_c = self.claim_cost(floor, slot, p)
        self.sym[L.STEEL] += need_s + surplus_s
        self.sym[L.CUNNING] += need_c + surplus_c
        return self.call(K.do_claim, fi=np.int64(floor - 1), s=np.int64(slot),
                         p=np.int64(p), surplus_s=np.int64(surplus_s),
                         surplus_c=np.int64(surplus_c), solo_used=False)

    def try_claim(self, p: int, steel=0, cunning=0, trinity=(0, 0, 0),
                  allow_assault=False, keep_c=0) -> bool:
        """The kernel's claim step with exactly these symbols to spend this turn."""
        self.sym[:] = 0
        self.sym[L.STEEL] = steel
        self.sym[L.CUNNING] = cunning
        self.trin[:] = 0
        self.trin[L.STEEL], self.trin[L.CUNNING], self.trin[L.FAITH] = trinity
        return bool(self.call(K.try_claim, p=np.int64(p), kn=self.a.knobs[p],
                              allow_assault=bool(allow_assault), keep_c=np.int64(keep_c)))

    def last_stand_price(self, p: int) -> int:
        return int(self.call(K.last_stand_price, p=np.int64(p)))

    def play_turn(self, p: int):
        self.call(K.play_turn, p=np.int64(p))

    # ---- reading what happened --------------------------------------------------------------
    def events(self, kind: int | None = None) -> np.ndarray:
        ev = self.ev[: self.g[B.GS_EV]]
        if kind is None:
            return ev
        return ev[ev[:, 2] == kind]

    def seat_int(self, p: int, col: int) -> int:
        return int(self.si[p, col])

    def seat_flt(self, p: int, col: int) -> float:
        return float(self.sf[p, col])


# ---- fixtures: what the test modules of this folder receive -------------------------------
@pytest.fixture
def new_state():
    """The State class: ``new_state(companies, overrides=(), seed=1, trace=True)`` is a
    set-up game."""
    return State


# the fixture is called `prepared` like the function it gives, so its own def needs another name
@pytest.fixture(name="prepared")
def prepared_fixture():
    """The function ``prepared(overrides=(), **scenario)``: a Prepared of the ruleset."""
    return prepared
