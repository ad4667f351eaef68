"""Bank's game log: the kernel's events as readable lines (``deepsim trace``)."""

from __future__ import annotations

from deepsim.rulesets.bank import kernel as K
from deepsim.rulesets.bank.data import OUTCOME_TEXT, OUTCOMES


def format_game(labels: list[str], classes: list[str], game: int, gi, si,
                events) -> list[str]:
    """One line per event of a traced game, then the result.

    ``labels``: the bot label of each profile row; ``classes``: the class names in data
    order; ``gi`` int64[len(GAME_INT)], ``si`` int64[MAX_P, len(SEAT_INT)] (the game's
    rows), ``events`` int64[k, EV_COLS]. Seats are numbered from 1 (S1 plays first).
    """
    n = int(gi[K.G_PLAYERS])
    names = list(OUTCOMES)
    out = [f"game {game}: a party of {n}"]
    for rnd, seat, code, a, b in events.tolist():
        who = f"S{seat + 1}"
        if code == K.EV_SEAT:
            out.append(f"  {who}: {classes[b]}, bot {labels[a]} (B1, B7)")
        elif code == K.EV_ROLL:
            out.append(f"R{rnd} {who} rolls {a} ({b} rolled this turn before it) (B2)")
        elif code == K.EV_TICK:
            out.append(f"R{rnd} {who}: the clock advances to {a} of {b} (B3)")
        elif code == K.EV_SHIELD:
            out.append(f"R{rnd} {who}: a shield stops the clock at {b} (B7)")
        elif code == K.EV_REROLL:
            out.append(f"R{rnd} {who}: bust {a}, rolled again (B7)")
        elif code == K.EV_BUST:
            out.append(f"R{rnd} {who}: bust {a}, loses the turn total {b} (B4)")
        elif code == K.EV_HOLD:
            out.append(f"R{rnd} {who} holds: banks {a}, pool {b} (B5)")
        elif code == K.EV_END:
            out.append(f"R{rnd} the game ends: {names[a]} ({OUTCOME_TEXT[names[a]]})")
    banked = ", ".join(f"S{s + 1} {int(si[s, K.S_BANKED])}" for s in range(n))
    outcome = names[int(gi[K.G_OUTCOME])]
    result = "the party wins" if OUTCOMES[outcome] == "won" else "the party loses"
    out.append(f"result: {result}, {outcome} (pool {int(gi[K.G_POOL])}, clock "
               f"{int(gi[K.G_CLOCK])}; banked {banked}; {int(gi[K.G_ROUNDS])} rounds)")
    return out
