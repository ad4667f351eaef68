"""Rove's game log: the kernel's events as readable lines (``deepsim trace``), each with
the rulebook section it follows; the AI's choices with their reason."""

from __future__ import annotations

from deepsim.rulesets.rove import layout as L
from deepsim.rulesets.rove.data import OUTCOME_TEXT, OUTCOMES
from deepsim.rulesets.rove.schema import ELEMENTS

_WHY = {L.WHY_ONLY: "the only enemy it can attack",
        L.WHY_CLOSEST: "the closest enemy it can attack",
        L.WHY_HP: "closest, tie -> the most current HP (Hard Mode: the fewest)",
        L.WHY_TIE: "closest and equal HP: the players decide (ai.tiebreak)",
        L.WHY_MOST: "the most targets it can attack",
        L.WHY_HEAL_MOST: "the ally with the most damage in range",
        L.WHY_HEAL_SELF: "no damaged ally in range: itself",
        L.WHY_APPROACH: "none in reach this turn: approaches it (ai.unreachable)"}


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
        return who.get(int(u), f"unit {u}")

    out = [f"game {game}: encounter {prepared.compiled['encounter']}, {R} Rovers"]
    for rnd, code, a, b, c, d in events.tolist():
        p = f"R{rnd}"
        if code == L.EV_SETUP:
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
        elif code == L.EV_FALL:
            out.append(f"{p}   {name(a)} falls into open air from {cell(b)}: slain (Falling)")
        elif code == L.EV_DOWNED:
            out.append(f"{p}   {name(a)} is downed (The Downed State)")
        elif code == L.EV_SLAIN:
            out.append(f"{p}   {name(a)} is slain (Slaying Rover Enemies)")
        elif code == L.EV_HEAL:
            out.append(f"{p}   {name(a)} heals {name(b)} by {c} (Heal)")
        elif code == L.EV_REVIVE:
            out.append(f"{p}   {name(a)} revives {name(b)} to {c} HP (Revive)")
        elif code == L.EV_DEFENSE:
            out.append(f"{p}   {name(b)} gains {c} Defense (Defense)")
        elif code == L.EV_GENERATE:
            out.append(f"{p}   {name(a)} generates {ELEMENTS[b] if b < 6 else 'Dim'} "
                       "(Generate Ether)")
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
