"""Rove's game log: the kernel's events as readable lines (``deepsim trace``), each with
the rulebook section it follows; the AI's choices with their reason."""

from __future__ import annotations

from deepsim.rulesets.rove import layout as L
from deepsim.rulesets.rove.data import OUTCOME_TEXT, OUTCOMES
from deepsim.rulesets.rove.schema import ELEMENTS, FIELDS

_WHY = {L.WHY_ONLY: "the only enemy it can attack",
        L.WHY_CLOSEST: "the closest enemy it can attack",
        L.WHY_HP: "closest, tie -> the most current HP (Hard Mode: the fewest)",
        L.WHY_TIE: "closest and equal HP: the players decide (ai.tiebreak)",
        L.WHY_MOST: "the most targets it can attack",
        L.WHY_HEAL_MOST: "the ally with the most damage in range",
        L.WHY_HEAL_SELF: "no damaged ally in range: itself",
        L.WHY_APPROACH: "none in reach this turn: approaches it (ai.unreachable)"}


#: events whose line is one template: A, B the units a and b, c a number, cell_b b's space
_SIMPLE = {L.EV_FALL: "{A} falls into open air from {cell_b}: slain (Falling)",
           L.EV_DOWNED: "{A} is downed (The Downed State)",
           L.EV_SLAIN: "{A} is slain (Slaying Rover Enemies)",
           L.EV_HEAL: "{A} heals {B} by {c} (Heal)",
           L.EV_REVIVE: "{A} revives {B} to {c} HP (Revive)",
           L.EV_DEFENSE: "{B} gains {c} Defense (Defense)"}


def format_game(prepared, game: int, gi, si, events) -> list[str]:
    """One line per event of a traced game, then the result.

    ``gi`` int64[len(GAME_INT)], ``si`` int64[MAX_R, len(SEAT_INT)] (the game's rows),
    ``events`` int64[k, EV_COLS] = (round, code, a, b, c, d).
    """
    comp = prepared.compiled["content"]
    labels = prepared.compiled["bot_labels"]
    classes = comp.classes
    types = comp.types
    coords = comp.gamemap.coords
    R = int(gi[L.G_ROVERS])
    who: dict[int, str] = {}
    counts: dict[int, int] = {}

    def cell(c: int) -> str:
        return f"({int(coords[c][0])},{int(coords[c][1])})"

    def name(u: int) -> str:
        if u < 0:
            return "the space"                # an Everbloom's or the terrain's doing
        return who.get(int(u), f"unit {u}")

    out = [f"game {game}: encounter {prepared.compiled['encounter']}, {R} Rovers"]
    for rnd, code, a, b, c, d in events.tolist():
        p = f"R{rnd}"
        if code in _SIMPLE:
            out.append(f"{p}   " + _SIMPLE[code].format(A=name(a), B=name(b), c=c,
                                                        cell_b=cell(b)))
        elif code == L.EV_SETUP:
            who[a] = f"{classes[b]} (S{a + 1})"
            out.append(f"  S{a + 1}: {classes[b]}, bot {labels[c]}, on {cell(d)} "
                       "(Setting Up the Game)")
        elif code == L.EV_PLACE:
            counts[b] = counts.get(b, 0) + 1
            who[a] = f"{types[b]} {counts[b]}"
            out.append(f"  {who[a]} placed on {cell(c)}, {d} HP (Map Icons)")
        elif code == L.EV_ROUND:
            out.append(f"-- round {a} --")
        elif code == L.EV_TURN:
            out.append(f"{p} {name(a)}'s turn (Rover Phase)")
        elif code == L.EV_ABILITY:
            out.append(f"{p}   ability {comp.ability_names[int(si[a, L.S_CLASS])][b]}")
        elif code == L.EV_CARD:
            kind = "rave" if c == L.FACE_RAVE else "rally"
            out.append(f"{p}   plays {kind} {comp.face_names[b]} (Skill Cards; flips)")
        elif code == L.EV_ITEM:
            out.append(f"{p}   uses item {comp.items_names[b]} (Items)")
        elif code == L.EV_MOVE:
            how = "teleports" if d < 0 else f"moves {d}"
            out.append(f"{p}   {name(a)} {how}: {cell(b)} -> {cell(c)} (Actions)")
        elif code == L.EV_FOCUS:
            out.append(f"{p}   {name(a)} targets {name(b)}: {_WHY.get(d, '?')} "
                       "(Primary Action Logic)")
        elif code == L.EV_ATTACK:
            x, face, mod = c // 1000, (c % 1000) // 100 - 1, c % 100 - 50
            dv, dmg = d // 1000, d % 1000
            fname = "Dim" if face < 0 else ELEMENTS[face]
            out.append(f"{p}   {name(a)} attacks {name(b)}: {x} + die {fname} {mod:+d} - "
                       f"defence {dv} = {dmg} (Damage Resolution)")
        elif code == L.EV_PUSH:
            extra = f", impact {d - 100} (Impact Damage)" if d >= 100 else ""
            out.append(f"{p}   {name(a)} pushed/pulled {cell(b)} -> {cell(c)}{extra} (Push)")
        elif code == L.EV_GENERATE:
            out.append(f"{p}   {name(a)} generates {ELEMENTS[b] if b < 6 else 'Dim'} "
                       "(Generate Ether)")
        elif code == L.EV_FIELD:
            fname = FIELDS[c - L.TL_AURA]
            if d == 0:
                out.append(f"{p}   {name(a)} places {fname} on {cell(b)} (Ether Fields)")
            elif c == L.TL_WINDSCREEN:
                out.append(f"{p}   {fname} on {cell(b)}: {name(a)} suffers {d} less, "
                           "removed (Ether Fields)")
            else:
                out.append(f"{p}   {fname} on {cell(b)} takes effect on {name(a)} "
                           "(Ether Fields)")
        elif code == L.EV_DRAIN:
            gain = "takes a Dim die" if c else "no Dim die left"
            out.append(f"{p}   {name(a)} drains {ELEMENTS[b]}: {gain} (Drain)")
        elif code == L.EV_REACT:
            out.append(f"{p}   {name(a)} reacts to {name(c)}'s attack: "
                       f"{comp.face_names[b]} (Reactions; flips)")
        elif code == L.EV_WASTE:
            pool = "personal" if b == 0 else "infusion"
            out.append(f"{p}   {name(a)} discards a die from the {pool} pool (ether limit)")
        elif code == L.EV_TRACK:
            out.append(f"{p} {types[a]}: ability die {d}, track {b} -> {c} "
                       f"({comp.block_names[a][c]}) (Adversary Phase)")
        elif code == L.EV_BLOCK:
            out.append(f"{p} {name(a)} performs {comp.block_names[b][c]}")
        elif code == L.EV_TERRAIN:
            what = ("dangerous space", "trap", "ends its turn on the dangerous space")[c]
            out.append(f"{p}   {name(a)}: {what} {cell(b)}, suffers {d} (Map Spaces; Tiles)")
        elif code == L.EV_END:
            names = list(OUTCOMES)
            out.append(f"R{b} the encounter ends: {names[a]} ({OUTCOME_TEXT[names[a]]})")
    names = list(OUTCOMES)
    outcome = names[int(gi[L.G_OUTCOME])]
    result = "the party wins" if OUTCOMES[outcome] == "won" else "the party loses"
    hp = ", ".join(f"S{s + 1} {int(si[s, L.S_HP])} HP" for s in range(R))
    out.append(f"result: {result}, {outcome} in {int(gi[L.G_ROUNDS])} rounds ({hp}; "
               f"{int(gi[L.G_SLAIN])} of {int(gi[L.G_PLACED])} adversaries slain)")
    return out
