"""Readable turn-by-turn log from the kernel's event buffer (the same kernel as batch runs)."""

from __future__ import annotations

import numpy as np

from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.schema import CALLINGS, DICE, LINEAGES, ROOMS, display_name


def _g(x: int) -> str:
    v = x / 100
    return f"{v:g}"


def format_events(ev: np.ndarray, seat_names: list[str]) -> list[str]:
    """Turn int64[k, EVENT_WIDTH] events into log lines (units: Glory, Loot, floors 1-6)."""
    lines: list[str] = []

    def who(p: int) -> str:
        return seat_names[p] if 0 <= p < len(seat_names) else "-"

    for r, p, kind, a, b, c, d, e, f, h in ev.tolist():
        if kind == L.EV_SETUP:
            names = [ROOMS[t] for t in (a, b, c, d, e, f, h)[1:] if t >= 0]
            lines.append(f"setup  Floor {a}: {', '.join(names)}")
        elif kind == L.EV_ROUND:
            lines.append("")
            lines.append(f"== Round {r} ==  first: {who(p)}  Maw steps {a}, Dread track "
                         f"{b}/{c}, next to fall: Floor {d}")
        elif kind == L.EV_PRODUCE:
            lines.append(f"  {who(p)} held rooms produce: steel {a}, cunning {b}, faith {c}, "
                         f"greed {d}, mettle {e}")
        elif kind == L.EV_ROLL:
            lines.append(f"  {who(p)} rolls {a} dice -> so far steel {b}, cunning {c}, "
                         f"faith {d}, greed {e}, mettle {f}, dread {h}")
        elif kind == L.EV_PRESS:
            lines.append(f"  {who(p)} presses on (#{a}); Dread track {b}")
        elif kind == L.EV_DREAD:
            lines.append(f"  {who(p)} Dread {a}: {b} canceled, {c} uncanceled")
        elif kind == L.EV_SETBACK:
            if c:
                lines.append(f"  {who(p)} SETBACK ignored (Golem-born)")
            else:
                lines.append(f"  {who(p)} SETBACK: {a} die(s) returned to the box"
                             + (f", {b} healed" if b else ""))
        elif kind == L.EV_MOVE:
            lines.append(f"  {who(p)} moves Floor {a} -> Floor {b} ({c} moves)")
        elif kind == L.EV_CLAIM:
            lines.append(f"  {who(p)} claims {ROOMS[c]} (Floor {a}, slot {b}) with "
                         f"strength {_g(d)} (steel {e}, cunning {f})"
                         + (f", +{_g(h)} Loot" if h else ""))
        elif kind == L.EV_ASSAULT:
            lines.append(f"  {who(p)} assaults {ROOMS[c]} (Floor {a}, slot {b}): progress "
                         f"steel {d}, cunning {e}")
        elif kind == L.EV_LOOT:
            lines.append(f"  {who(p)} loots {a} Greed at Floor {b}: +{_g(c)} Loot "
                         f"(unbanked {_g(d)})")
        elif kind == L.EV_RECRUIT:
            lines.append(f"  {who(p)} recruits {a} {DICE[b]} die(s) at {c} Mettle each")
        elif kind == L.EV_CASH_OUT:
            lines.append(f"  {who(p)} CASHES OUT (deepest Floor {a}): banks {_g(c)} Glory")
        elif kind == L.EV_LAST_STAND:
            lines.append(f"  {who(p)} declares a LAST STAND on Floor {a} (deepest {b}, "
                         f"paid {c} Mettle)")
        elif kind == L.EV_STAY:
            lines.append(f"  {who(p)} stays on Floor {a} (unbanked Loot {_g(b)})")
        elif kind == L.EV_MUSTER:
            lines.append(f"  {who(p)} musters a fresh company on Floor {a}")
        elif kind == L.EV_MAW:
            lines.append(f"-- Maw phase: Floor {a} COLLAPSES (steps {b}, Dread track {c})")
        elif kind == L.EV_DEFER:
            lines.append(f"-- Maw: {a} step(s) held back by the one-floor-per-round cap")
        elif kind == L.EV_SCORE:
            winners = [who(q) for q in range(len(seat_names)) if e >> q & 1]
            lines.append(f"   {ROOMS[c]} (slot {b}) worth {d} Glory -> "
                         f"{' & '.join(winners)} (+{f} each; {h} claimant(s))")
        elif kind == L.EV_RISE:
            lines.append(f"   {ROOMS[c]} (slot {b}) unclaimed: {d} value rises to Floor {a - 1}")
        elif kind == L.EV_TAKEN:
            if b:
                lines.append(f"   the Maw TAKES {who(p)}: WORTHY END for {_g(c)} Glory")
            elif e == 0:
                lines.append(f"   the Maw TAKES {who(p)}'s fresh crew before its first "
                             f"turn (no chance of a Last Stand)")
            else:
                lines.append(f"   the Maw TAKES {who(p)} without a Last Stand: "
                             f"{_g(d)} Loot lost")
        elif kind == L.EV_CONSUMED:
            lines.append(f"   the Maw consumes {who(p)}'s {ROOMS[c]} (Floor {a}, slot {b})")
        elif kind == L.EV_END:
            lines.append("")
            lines.append(f"== Game over after {a} rounds: {who(p)} wins with {_g(c)} Glory"
                         + (f" ({b}-way tie, shared)" if b > 1 else "")
                         + (" [TRUNCATED by max_rounds]" if e else ""))
    return lines


def seat_label(p: int, lin: int, cal: int, bot: str) -> str:
    return f"S{p + 1} {display_name(LINEAGES[lin])} {display_name(CALLINGS[cal])} ({bot})"
