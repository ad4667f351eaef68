"""Readable turn-by-turn log from the Atlantis kernel's event buffer (same kernel as batches).

Cells are printed as (col,row) of the odd-r offset grid: row 0 is the Sea Witch's edge,
the last row the Sea King's. Dice are listed as rolled; "hits" counts the faces of the
hit rule (AMB-T1).
"""

from __future__ import annotations

import numpy as np

from deepsim.rulesets.atlantis import layout as L

#: EV_SPECIAL kinds (kernel.SPX_*)
SPECIAL_NAMES = ("Entangle", "Net", "Mesmerize", "Siren's Call", "Sting")
CAUSE_TEXT = {L.END_ATTACK: "attack", L.END_POISON: "poison", L.END_HAZARD: "hazard",
              L.END_SPELL: "spell", L.END_TURN_CAP: "stopped by the safety cap end.max_turns"}
SIDE_SHORT = ("Witch", "King", "neutral")


def hit_rule(mask: int) -> str:
    """The faces a die needs to hit (AT-A5; ``combat.hit_faces``, AMB-T1), as text."""
    faces = [f for f in range(1, 7) if mask >> f & 1]
    if not faces:
        return ", no face hits"
    if len(faces) == 1:
        return f", a hit on a {faces[0]}"
    return f", a hit on {', '.join(map(str, faces[:-1]))} or {faces[-1]}"


def _dice(packed: int, n: int) -> str:
    faces = [(packed >> (3 * k)) & 7 for k in range(min(n, 20))]
    more = "" if n <= 20 else f" +{n - 20} more"
    return "[" + " ".join(str(f) for f in faces) + more + "]"


def format_events(ev: np.ndarray, names=None, width: int | None = None, *,
                  terrain_names=None, spell_names=None) -> list[str]:
    """Turn int64[k, EVENT_WIDTH] kernel events into log lines.

    Parameters
    ----------
    ev : int64[k, EVENT_WIDTH]
        ``trace_game``'s events (turn, active side, kind, a..g).
    names : Prepared or list of str
        A prepared Atlantis scenario (unit titles and map width are read from it) or the
        unit titles by type row.
    width : int, optional
        Map width (needed with a plain list of names).
    terrain_names, spell_names : list of str, optional
        Defaults: ``layout.TERRAINS`` / ``layout.SPELLS`` with underscores as spaces.
    """
    need = ""
    if names is not None and hasattr(names, "compiled"):
        prepared = names
        titles = list(prepared.compiled["unit_titles"])
        width = int(prepared.compiled["arrays"].rules[L.R_MAP_WIDTH])
        need = hit_rule(int(prepared.compiled["arrays"].rules[L.R_HIT_MASK]))
    else:
        titles = list(names or [])
    if width is None:
        setup = ev[ev[:, 2] == L.EV_SETUP]
        width = int(setup[0, 3]) if len(setup) else 1
    tnames = terrain_names or [t.replace("_", " ") for t in L.TERRAINS]
    snames = spell_names or [s.replace("_", " ") for s in L.SPELLS]
    side_of: dict[int, int] = {}
    type_of: dict[int, int] = {}

    def cell(c: int) -> str:
        if c < 0:
            return "(off map)"
        return f"({c % width},{c // width})"

    def title(t: int) -> str:
        return titles[t] if 0 <= t < len(titles) else f"type {t}"

    def unit(slot: int, t: int | None = None) -> str:
        if slot < 0:
            return "-"
        if t is None:
            t = type_of.get(slot, -1)
        s = side_of.get(slot, -1)
        tag = SIDE_SHORT[s] if 0 <= s < 3 else "?"
        return f"{title(t)} #{slot} ({tag})"

    lines: list[str] = []
    for turn, side, kind, a, b, c, d, e, f, h in ev.tolist():
        who = SIDE_SHORT[side] if 0 <= side < 3 else "-"
        if kind == L.EV_SETUP:
            lines.append(f"setup: {a}x{b} {'fixed' if c else 'generated'} map, "
                         f"{L.SIDE_TITLES[d]} moves first")
        elif kind == L.EV_DEPLOY:
            type_of[a] = b
            side_of[a] = e
            how = ("deployed", "created by a spell", "placed as a neutral")[d] if 0 <= d < 3 \
                else "placed"
            lines.append(f"  {unit(a, b)} {how} at {cell(c)}")
        elif kind == L.EV_CHITS:
            sp = [snames[x] for x in (c, d, e, f, h) if x >= 0]
            lines.append(f"  {unit(a, b)} draws spell chits: {', '.join(sp) or 'none'}")
        elif kind == L.EV_TURN:
            lines.append("")
            lines.append(f"== Turn {turn}: {L.SIDE_TITLES[side]} ==  units: Sea Witch {b}, "
                         f"Sea King {c}")
        elif kind == L.EV_MOVE:
            phase = h // 10
            forced = " (Siren counter: toward the Siren)" if h % 10 == 1 else ""
            lines.append(f"  [{who}] swim {phase}: {unit(a, b)} {cell(c)} -> {cell(d)} "
                         f"cost {e}, {f} move(s) left{forced}")
        elif kind == L.EV_ENTER_HAZARD:
            if e:
                lines.append(f"    {unit(a, b)} enters {tnames[d]} at {cell(c)}: destroyed")
            else:
                lines.append(f"    {unit(a, b)} enters {tnames[d]} at {cell(c)}: 1 AD attack"
                             f"{need} {_dice(h, 1)} -> {f} hit(s)")
        elif kind == L.EV_ATTACK:
            lines.append(f"  [{who}] {unit(a, b)} attacks {unit(c, d)} with {e} dice{need} "
                         f"{_dice(h, e)} -> {f} hit(s)")
        elif kind == L.EV_SEARCH:
            lines.append(f"  [{who}] {unit(a, b)} search roll vs hidden {unit(c, f)}: {d} -> "
                         f"{'found' if e else 'failed'}")
        elif kind == L.EV_HIDE:
            lines.append(f"  [{who}] {unit(a, b)} tries to hide at {cell(c)}: {d} + {e} -> "
                         f"{'hidden' if f else 'failed'}")
        elif kind == L.EV_SPECIAL:
            name = SPECIAL_NAMES[d] if 0 <= d < len(SPECIAL_NAMES) else f"special {d}"
            if d == 4:
                lines.append(f"    {name}: {unit(c, h)} gets {f} Paralyzation counter(s)")
            else:
                what = "Siren counter" if d == 3 else "Paralyzation counter"
                lines.append(f"  [{who}] {unit(a, b)} {name} on {unit(c, h)}: roll {e} -> "
                             f"{what if f else 'no effect'}")
        elif kind == L.EV_DAMAGE:
            src = f" from {unit(e)}" if e >= 0 else ""
            lines.append(f"    {unit(a, b)} takes {f} damage{src}: {c}/{d}"
                         + (" (poison)" if h else ""))
        elif kind == L.EV_DESTROYED:
            by = f" by {unit(e, f)}" if e >= 0 else ""
            lines.append(f"    ** {unit(a, b)} DESTROYED at {cell(c)} ({CAUSE_TEXT.get(d, d)}"
                         f"{by})")
        elif kind == L.EV_CURRENT:
            if e == 0:
                lines.append(f"  [{who}] current pushes {unit(a, b)} {cell(c)} -> {cell(d)}")
            else:
                lines.append(f"  [{who}] current at {cell(c)} blocked for {unit(a, b)}")
        elif kind == L.EV_TERRAIN_END:
            if f == 2:
                lines.append(f"  [{who}] {tnames[d]} at {cell(c)} attacks {unit(a, b)}"
                             f"{need}: {_dice(h, 1)} -> {e} hit(s)")
            else:
                lines.append(f"  [{who}] {tnames[d]} at {cell(c)} next to {unit(a, b)}: roll {e}"
                             f" -> {'sucked in' if f else 'safe'}")
        elif kind == L.EV_SPELL:
            sp = snames[c] if 0 <= c < len(snames) else f"spell {c}"
            if c == L.SP_RESURRECTION:
                tgt = f" brings back {unit(d)} at {cell(e)}"
            elif c in (L.SP_HEALING,):
                tgt = f" (rolled {e} removals)"
            elif c == L.SP_SIRENS_SONG:
                tgt = f" (Siren's Call for {e} turns)"
            elif c in (L.SP_MURKY_DEPTHS, L.SP_LUMINESCENCE):
                tgt = f" ({e} Hide marker(s) {'placed' if c == L.SP_MURKY_DEPTHS else 'removed'})"
            else:
                tgt = f" at {cell(d)}"
                if e >= 0 and c in (L.SP_TANGLE_KELP, L.SP_FREEZE):
                    tgt += f" on {unit(e)}"
            lines.append(f"  [{who}] {unit(a, b)} casts {sp}{tgt}")
        elif kind == L.EV_RECOVER:
            what = "Paralyzation" if e == 0 else "Siren"
            lines.append(f"  [{who}] recovery {unit(a, b)}: roll {c} -> "
                         f"{'one ' + what + ' counter removed' if d else 'keeps its counters'}")
        elif kind == L.EV_END:
            lines.append("")
            res = ("unresolved: no winner" if a < 0 else f"{L.SIDE_TITLES[a]} wins"
                   + (" by material (end.at_cap)" if b == L.END_TURN_CAP else ""))
            killer = f", killer {title(c)}" if c >= 0 else ""
            lines.append(f"== Game over after {d} player-turns: {res} "
                         f"({CAUSE_TEXT.get(b, b)}{killer}); material Sea Witch {e}, "
                         f"Sea King {f}")
    return lines
