"""DEEPFALL bot decisions on hand-built states (issue 15: the heuristics' blind spots).

Each test builds a state with ``tests/deepfall_state.py`` (the kernel's own setup, then the
parts a test needs rewritten), asks one decision of ``deepsim.rulesets.deepfall.bots`` and
checks the choice. The bots are heuristics, not rules: these tests pin what each fix of
``docs/RULES.md`` (Bots) promises.
"""

from __future__ import annotations

import numpy as np
from deepfall_state import State

from deepsim.rulesets.deepfall import board as B
from deepsim.rulesets.deepfall import bots
from deepsim.rulesets.deepfall import layout as L

PLAIN = ("wisp", "lorekeeper")
RIVAL = ("golem_born", "warden")


def state(first=PLAIN, second=RIVAL, players=2):
    comps = [first, second, ("sylphid", "hierophant"), ("revenant", "wardancer")][:players]
    st = State(comps)
    st.empty_dungeon()
    return st


def choose_room(st, p, floor, steel=0, cunning=0, allow_assault=True, keep_c=0):
    st.sym[:] = 0
    st.sym[L.STEEL] = steel
    st.sym[L.CUNNING] = cunning
    s, assault = st.call(bots.choose_room, p=np.int64(p), fi=np.int64(floor - 1),
                         keep_c=np.int64(keep_c), kn=st.a.knobs[p],
                         allow_assault=bool(allow_assault))
    return int(s), bool(assault)


def test_assault_skips_a_room_it_cannot_pour_into():
    """A Dvergar crew with only Steel keeps chipping at its Forge rather than targeting a
    richer Library that needs only Cunning (nothing it could pour; the kernel would leave
    the target as it is, §7.1 A25)."""
    st = state(first=("dvergar", "lorekeeper"))
    st.set_floor(3, ["forge", "library"])
    st.plunder[2, 1] = 10                              # the Library is worth far more
    st.put_crew(0, 3)
    st.sd[0, B.SD_PROG_FLOOR], st.sd[0, B.SD_PROG_SLOT] = 2, 0
    st.sd[0, B.SD_PROG_STEEL] = 1
    assert choose_room(st, 0, 3, steel=1) == (0, True)    # the Forge still needs (2, 1)
    # with Cunning to pour, the Library is worth the switch
    assert choose_room(st, 0, 3, steel=1, cunning=1) == (1, True)
    # through the kernel: the progress on the Forge grows
    assert st.try_claim(0, steel=1, allow_assault=True) is False
    assert (st.sd[0, B.SD_PROG_SLOT], st.sd[0, B.SD_PROG_STEEL]) == (0, 2)
