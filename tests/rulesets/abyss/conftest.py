"""Fixtures of the Abyss tests: a hand-built game state around the real kernel functions.

This is the folder's conftest: the tests take what they need as fixtures (``new_state``,
``code``) and import nothing from here.

A :class:`State` (the ``new_state`` fixture) takes the ruleset's compiled arrays
(``RULESET.prepare`` with ``--set`` style overrides), an empty game state of ``players``
players (no cards anywhere, every deck empty) and one bot profile per player (:data:`STILL`
with the test's knobs). A test puts cards where it needs them (:meth:`State.hand`,
:meth:`State.deck`, :meth:`State.court`, ...), calls one rule function of
``deepsim.rulesets.abyss.kernel`` on the state and checks the outcome; every State has the
kernel's event trace on (:meth:`State.events`).

Cards are given as (race, value) pairs with race a name ("crab") or index, or "monster".
Decks are given top card first.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from deepsim.rulesets.abyss import RULESET
from deepsim.rulesets.abyss import kernel as K
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.abyss import state as S

SCENARIO = {"name": "rule-tests", "ruleset": "abyss", "players": 4, "seed": 1, "games": 1,
            "bots": ["random", "courtier", "merchant", "hunter"]}
RACE = {name: i for i, name in enumerate(L.RACES)}
KNOB = {name: i for i, name in enumerate(L.KNOBS)}

#: a bot that does nothing by choice: never buys, takes, fights, plots or tops up, takes the
#: Council only when nothing else is legal, recruits only when exploring is impossible; tests
#: switch on what they need
STILL = {k: 0.0 for k in L.KNOBS} | {"take_min": 1e9, "fight_min": 1e9, "council_min": 1e9,
                                      "recruit_min": 1e9, "buy_value": 0.0}


@lru_cache(maxsize=32)
def _prepared(overrides: tuple[str, ...]):
    return RULESET.prepare(dict(SCENARIO), source="<rule-tests>", overrides=list(overrides))


def code(card) -> int:
    """Card code of ``(race, value)`` or ``"monster"``."""
    if card == "monster":
        return L.MONSTER
    r, v = card
    r = RACE[r] if isinstance(r, str) else int(r)
    return r * L.CODE_RACE_MUL + int(v)


def lord_id(name: str, overrides=()) -> int:
    """Row of the lord called ``name`` in the (overridden) deck."""
    return _prepared(tuple(overrides)).compiled["lord_names"].index(name)


class State:
    """An empty ``players``-player Abyss state (trace on), bots :data:`STILL`.

    Parameters
    ----------
    players : int
        2-4.
    overrides : sequence of str
        ``path=value`` ruleset overrides (as ``--set``).
    """

    def __init__(self, players: int = 3, overrides=()):
        self.prepared = _prepared(tuple(overrides))
        a = self.prepared.compiled["arrays"]
        self.knobs = np.array([[STILL[k] for k in L.KNOBS] for _ in range(L.MAX_P)],
                              np.float64)
        self.dat = (a.rules, a.depth, a.lords, a.locations, a.threat, a.tokens, self.knobs,
                    a.seat_bot, a.bot_pool, a.player_opts, a.fmix)
        self.a = a
        self.scr = S.new_scratch(20_000)
        K.reset(self.scr)
        self.scr[S.X_E][S.E_TRACE] = 1
        self.scr[S.X_KEY][0] = np.uint64(12345)
        self.ps[S.PS_PLAYERS] = players
        self.ps[S.PS_BANK] = -1
        self.ps[S.PS_KEY_SUPPLY] = int(a.rules[L.R_KEY_SUPPLY])
        for p in range(L.MAX_P):
            self.ph[p, S.PH_BOT] = p

    # ---- the arrays ----------------------------------------------------------------------
    @property
    def ps(self):
        return self.scr[S.X_PS]

    @property
    def pl(self):
        return self.scr[S.X_PL]

    @property
    def ph(self):
        return self.scr[S.X_PH]

    @property
    def hands(self):
        return self.scr[S.X_HAND]

    @property
    def rules(self):
        return self.a.rules

    # ---- building a state -------------------------------------------------------------------
    def set_knobs(self, p: int, **knobs) -> State:
        """Player ``p``'s knobs (the rest stay :data:`STILL`'s)."""
        for k, v in knobs.items():
            self.knobs[p, KNOB[k]] = v
        return self

    def random_bot(self, p: int) -> State:
        return self.set_knobs(p, random=1)

    def hand(self, p: int, cards) -> State:
        """Give player ``p`` these cards (added to its hand)."""
        for c in cards:
            x = code(c)
            self.hands[p, x // 16, x % 16] += 1
            self.ph[p, S.PH_HAND_N] += 1
        return self

    def hand_cards(self, p: int) -> list[tuple[str, int]]:
        out = []
        for r in range(L.N_RACES):
            for v in range(1, L.NV):
                out += [(L.RACES[r], v)] * int(self.hands[p, r, v])
        return out

    def deck(self, cards) -> State:
        """The Depth deck, top card first."""
        codes = [code(c) for c in cards]
        d = self.scr[S.X_DECK]
        d[:] = -1
        for i, x in enumerate(reversed(codes)):
            d[i] = x
        self.ps[S.PS_DEPTH_N] = len(codes)
        return self

    def discard_pile(self, cards) -> State:
        d = self.scr[S.X_DISC]
        d[:] = -1
        for i, c in enumerate(cards):
            d[i] = code(c)
        self.ps[S.PS_DISC_N] = len(cards)
        return self

    def court(self, names) -> State:
        """Court lords by name, in Court order."""
        c = self.scr[S.X_COURT]
        c[:] = -1
        for i, n in enumerate(names):
            c[i] = self.lid(n)
        self.ps[S.PS_COURT_N] = len(names)
        return self

    def court_names(self) -> list[str]:
        names = self.prepared.compiled["lord_names"]
        return [names[int(x)] for x in self.scr[S.X_COURT][:self.ps[S.PS_COURT_N]]]

    def lord_deck(self, names) -> State:
        """The lord deck, top first."""
        d = self.scr[S.X_LDECK]
        d[:] = -1
        for i, n in enumerate(reversed(list(names))):
            d[i] = self.lid(n)
        self.ps[S.PS_LDECK_N] = len(names)
        return self

    def lid(self, name: str) -> int:
        return self.prepared.compiled["lord_names"].index(name)

    def give_lord(self, p: int, name: str, covered: bool = False) -> State:
        lid = self.lid(name)
        k = self.pl[p, S.PL_LORDS]
        self.scr[S.X_PLORD][p, k] = lid
        self.scr[S.X_PCOV][p, k] = int(covered)
        self.pl[p, S.PL_LORDS] = k + 1
        self.pl[p, S.PL_LORD_VP] += self.a.lords[lid, L.LC_VP]
        if not covered:
            self.pl[p, S.PL_KEYS] += self.a.lords[lid, L.LC_KEYS]
        return self

    def council(self, race: str, values) -> State:
        r = RACE[race]
        for v in values:
            self.scr[S.X_CNCL][r, v] += 1
            self.scr[S.X_CN][r] += 1
        return self

    def locations(self, face_up=(), stack=()) -> State:
        """Face-up tiles and the stack (top first), by tile index."""
        vis = self.scr[S.X_LVIS]
        vis[:] = -1
        for i, t in enumerate(face_up):
            vis[i] = t
        self.ps[S.PS_LVIS_N] = len(face_up)
        st = self.scr[S.X_LSTACK]
        st[:] = -1
        for i, t in enumerate(reversed(list(stack))):
            st[i] = t
        self.ps[S.PS_LSTACK_N] = len(stack)
        return self

    def tokens(self, vps) -> State:
        """The Monster token pile, top first."""
        t = self.scr[S.X_TOK]
        t[:] = -1
        for i, v in enumerate(reversed(list(vps))):
            t[i] = v
        self.ps[S.PS_TOKENS_LEFT] = len(vps)
        return self

    def pearls(self, p: int, n: int) -> State:
        self.pl[p, S.PL_PEARLS] = n
        return self

    def active(self, p: int) -> State:
        self.ps[S.PS_ACTIVE] = p
        return self

    # ---- reading it -----------------------------------------------------------------------
    def events(self, kind: int | None = None) -> np.ndarray:
        ev = self.scr[S.X_EV][:self.scr[S.X_E][S.E_EVN]]
        return ev if kind is None else ev[ev[:, 2] == kind]

    def row(self) -> list[int]:
        return [int(x) for x in self.scr[S.X_ROW][:self.ps[S.PS_ROW_N]]]

    def council_sizes(self) -> list[int]:
        return [int(x) for x in self.scr[S.X_CN]]

    def aff(self, p: int) -> list[tuple[str, int]]:
        out = []
        for r in range(L.N_RACES):
            for v in range(1, L.NV):
                out += [(L.RACES[r], v)] * int(self.scr[S.X_AFF][p, r, v])
        return out

    def discards(self) -> list[int]:
        return [int(x) for x in self.scr[S.X_DISC][:self.ps[S.PS_DISC_N]]]

    def gstat(self, name: str) -> int:
        return int(self.scr[S.X_GST][L.GAME_INT.index(name)])

    def sstat(self, p: int, name: str) -> int:
        return int(self.scr[S.X_SST][p, L.SEAT_INT.index(name)])

    # ---- the kernel's rules on this state -------------------------------------------------
    def explore(self, p: int) -> State:
        self.active(p)
        K.explore(self.scr, self.dat, p)
        return self

    def turn(self, p: int) -> State:
        self.ps[S.PS_TURN] += 1
        K.play_turn(self.scr, self.dat, p)
        return self

    def payment(self, cards) -> np.ndarray:
        """A payment array (N_RACES x NV counts, flat) of these cards."""
        pay = np.zeros(L.N_RACES * L.NV, np.int64)
        for c in cards:
            x = code(c)
            pay[(x // 16) * L.NV + x % 16] += 1
        return pay

    def recruit(self, p: int, name: str, cards) -> State:
        """Player ``p`` recruits Court lord ``name`` paying ``cards`` (+ pearls)."""
        i = self.court_names().index(name)
        self.active(p)
        K.recruit(self.scr, self.dat, p, i, self.payment(cards), 0)
        return self


# ---- the fixtures -------------------------------------------------------------------------
# Each gives the class or function itself (a factory), so a test builds as many states as it
# needs, with its own arguments.

@pytest.fixture
def new_state():
    """The State class: ``new_state(players, overrides)`` is an empty hand-built Abyss state."""
    return State


@pytest.fixture(name="code")
def code_fixture():
    """The function ``code(card)``: the card code of ``(race, value)`` or ``"monster"``."""
    return code
