"""The party's exact win probability of a Bank game by dynamic programming (``rules.md``).

A fixed party (each seat's class powers and bot knobs, seats in play order) faces a game
whose state between turns is (turn number, pool, clock). One turn of a seat, from a pool
``need`` points short of the goal with ``room`` clock steps left, ends in one of: the
clock reaching its limit (B3, a loss), or ``gain`` points banked (0 on a bust, B4) with
``ticks`` clock steps; :func:`turn_outcomes` gives their probabilities by propagating the
probability of every in-turn state (turn total, steps, re-rolls and shields left) in an
order no roll goes back in (a roll raises the turn total, or keeps it and spends a
re-roll). :func:`win_probability` then sums over turns backwards from the last (B6).

The bots' rules are those of ``kernel.holds``: bank a win, hold at ``hold_at``, hold once
the clock is ``hold_near`` steps from its limit, or (the random bot) hold with
probability ``hold_p``. Exact up to floating-point rounding; pure Python (a few seconds
for the shipped numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

__all__ = ["SeatSpec", "party_from_data", "turn_outcomes", "win_probability"]


@dataclass(frozen=True)
class SeatSpec:
    """One seat: its class's powers (B7) and its bot's knobs (bots.yaml)."""

    rerolls: int = 0
    shields: int = 0
    random: bool = False
    hold_p: float = 0.5
    hold_at: int = 12
    hold_near: int = 0


@dataclass(frozen=True)
class Dice:
    """The numbers of B2-B4: faces, the bust face and the clock faces."""

    faces: int
    bust: int
    clock: frozenset[int]


def _hold_probability(seat: SeatSpec, turn: int, need: int, steps_left: int) -> float:
    """The chance the bot holds after a roll that did not bust (``kernel.holds``)."""
    if turn >= need:
        return 1.0
    if seat.random:
        return float(seat.hold_p)
    if seat.hold_near > 0 and steps_left <= seat.hold_near:
        return 1.0
    return 1.0 if turn >= seat.hold_at else 0.0


@cache
def turn_outcomes(dice: Dice, seat: SeatSpec, need: int, room: int
                  ) -> tuple[float, tuple[tuple[int, int, float], ...]]:
    """How one turn of ``seat`` ends, ``need`` points short of the goal with ``room`` clock
    steps before the limit (B2-B5, B7).

    Returns
    -------
    lost : float
        The probability the clock reaches its limit during the turn (B3).
    ends : tuple of (gain, ticks, probability)
        Every other ending: ``gain`` points banked (0: a bust; ``gain >= need``: the
        goal reached, a win) after ``ticks`` clock steps.
    """
    p_face = 1.0 / dice.faces
    # in-turn state: (turn total, ticks, re-rolls left, shields left) -> probability
    states: dict[tuple[int, int, int, int], float] = {(0, 0, seat.rerolls, seat.shields): 1.0}
    lost = 0.0
    ends: dict[tuple[int, int], float] = {}
    while states:
        # the state no roll leads back to: the least turn total, then the most re-rolls
        key = min(states, key=lambda s: (s[0], -s[2]))
        p = states.pop(key)
        turn, ticks, rerolls, shields = key
        for face in range(1, dice.faces + 1):
            q = p * p_face
            t, sh = ticks, shields
            if face in dice.clock:                        # B3 (B7: a shield first)
                if sh > 0:
                    sh -= 1
                else:
                    t += 1
                    if t >= room:
                        lost += q
                        continue
            if face == dice.bust:                         # B4 (B7: a re-roll first)
                if rerolls > 0:
                    nxt = (turn, t, rerolls - 1, sh)
                    states[nxt] = states.get(nxt, 0.0) + q
                else:
                    ends[(0, t)] = ends.get((0, t), 0.0) + q
                continue
            total = turn + face                           # B5
            h = _hold_probability(seat, total, need, room - t)
            if h > 0:
                ends[(total, t)] = ends.get((total, t), 0.0) + q * h
            if h < 1:
                nxt = (total, t, rerolls, sh)
                states[nxt] = states.get(nxt, 0.0) + q * (1 - h)
    return lost, tuple((g, k, v) for (g, k), v in sorted(ends.items()))


def win_probability(dice: Dice, party: Sequence[SeatSpec], goal: int, limit: int,
                    rounds: int) -> float:
    """The exact probability the party banks ``goal`` points (B5) before the clock reaches
    ``limit`` (B3) and within ``rounds`` rounds (B6), seats playing in the order given.

    Parameters
    ----------
    dice : Dice
    party : sequence of SeatSpec
        Seat 1 first.
    goal, limit, rounds : int
        ``goal.total``, ``clock.limit``, ``goal.rounds``.

    Returns
    -------
    float
        In [0, 1].
    """
    n = len(party)
    turns = rounds * n
    # after[pool][clock]: the win probability from the state before the next turn
    after = [[0.0] * limit for _ in range(goal)]          # B6: no turn left, lost
    for i in range(turns - 1, -1, -1):
        seat = party[i % n]
        now = [[0.0] * limit for _ in range(goal)]
        for pool in range(goal):
            for clock in range(limit):
                _lost, ends = turn_outcomes(dice, seat, goal - pool, limit - clock)
                v = 0.0
                for gain, ticks, p in ends:
                    if pool + gain >= goal:
                        v += p                            # B5: a win at once
                    else:
                        v += p * after[pool + gain][clock + ticks]
                now[pool][clock] = v
        after = now
    return after[0][0]


def party_from_data(data: Mapping, seats: Sequence[tuple[str, Mapping[str, float]]]
                    ) -> tuple[Dice, list[SeatSpec], int, int, int]:
    """The inputs of :func:`win_probability` from a data mapping (``ruleset.yaml`` after
    overrides: ``Prepared.params``) and seats ``(class name, bot knobs)`` in play order."""
    dice = Dice(int(data["die"]["faces"]), int(data["die"]["bust_face"]),
                frozenset(int(f) for f in data["clock"]["faces"]))
    party = []
    for cls, kn in seats:
        powers = data["classes"][cls]
        party.append(SeatSpec(int(powers["rerolls"]), int(powers["shields"]),
                              bool(kn.get("random", 0) > 0.5), float(kn.get("hold_p", 0.5)),
                              int(kn.get("hold_at", 12)), int(kn.get("hold_near", 0))))
    return (dice, party, int(data["goal"]["total"]), int(data["clock"]["limit"]),
            int(data["goal"]["rounds"]))
