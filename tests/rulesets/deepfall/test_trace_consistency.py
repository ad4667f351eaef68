"""A DEEPFALL trace never contradicts the game: over 1,200 traced games of 2-6 players and
every bot style, each bot reason agrees with the state it read and with the choice that
follows it.

- ``why_here`` "claims here first" (a positive score here) is followed, before the crew
  Moves, by the claim it scored (same score); "moves first" with the best claim on arrival
  is followed, after the Move, by the room chosen there with the score printed, on the
  floor printed;
- ``why_room``: a claim is followed by that claim, an assault by that assault, "nothing"
  by neither; the slot chosen is the best-scored one;
- ``why_floor``: the crew's Move goes toward the floor it aims for, never past it;
- ``why_press``: "presses on" is followed by a Press On, "stops" by none;
- ``why_exit``: Stay, Cash Out or Last Stand is the exit taken;
- every unclaimed room of a collapsing floor has its ``rise`` line (its value rising, or
  why it cannot), one per room the games table counts in ``rooms_unclaimed``.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from deepsim.rulesets.deepfall import RULESET

GAMES = 1200


@pytest.fixture(scope="module")
def traced():
    sc = {"name": "t", "ruleset": "deepfall", "players": [2, 3, 4, 5, 6], "games": GAMES,
          "seed": 44, "chunk_size": GAMES, "companies": {"unique": True},
          "bots": ["random", "cautious", "balanced", "greedy", "martyr"]}
    p = RULESET.prepare(sc, source="<test>")
    games, _ = RULESET.run_chunk(p, 0, GAMES)
    records = [[r for r in RULESET.trace_records(p, k) if r["type"] == "event"]
               for k in range(GAMES)]
    return games, records


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 0.011            # x100 rounding of the kernel's scores


def _violations(ev: list[dict]) -> list[str]:
    bad = []
    by_seat = defaultdict(list)
    for i, e in enumerate(ev):
        by_seat[e["seat"]].append(i)

    def after(i: int, seat: int, kinds: tuple[str, ...], stop: tuple[str, ...] = ()):
        """The first event of ``seat`` after index i whose kind is in ``kinds`` (None when
        an event of a kind in ``stop`` or the seat's next turn comes first)."""
        for j in by_seat[seat]:
            if j <= i:
                continue
            k = ev[j]["event"]
            if k in kinds:
                return ev[j]
            if k in stop or k == "bag":
                return None
        return None

    for i, e in enumerate(ev):
        k, r, p = e["event"], e.get("reason"), e["seat"]
        if r == "random":
            continue
        if k == "why_here":
            if r == "here_beats_there":
                room = after(i, p, ("why_room",), stop=("move",))
                if room is None or room["action"] != 0 or not _close(room["score"], e["here"]):
                    bad.append(f"claims here first scoring {e['here']}, then {room}")
                if room is not None and room["floor"] != e["current_floor"]:
                    bad.append(f"claims here on Floor {e['current_floor']}, then {room}")
            elif r == "there_beats_here":
                if after(i, p, ("claim", "assault"), stop=("move",)) is not None:
                    bad.append("moves first, but claims before the Move")
                room = after(i, p, ("why_room",), stop=("why_exit",))
                if room is None:
                    continue            # claims.per_turn used up, or a Last Stand
                score = room["score"] if room["action"] in (0, 1) else 0.0
                if not _close(score, e["there"]) or room["floor"] != e["arrival_floor"]:
                    bad.append(f"moves first: {e['there']} on arrival at Floor "
                               f"{e['arrival_floor']}, then {room}")
            elif r == "no_claim_here" and after(i, p, ("claim", "assault"),
                                                stop=("move",)) is not None:
                bad.append("no claim here worth a marker, then a claim before the Move")
        elif k == "why_room" and e["action"] in (-1, 0, 1):
            prev = [ev[j] for j in by_seat[p] if j < i]
            if prev and prev[-1]["event"] == "search" and prev[-1]["chosen"] != \
                    prev[-1]["heuristic"]:
                continue                 # a search bot overrode the heuristic's room
            nxt = after(i, p, ("claim", "assault", "move", "loot", "why_exit", "stay",
                               "cash_out", "last_stand", "why_room", "why_recruit"))
            nk = nxt["event"] if nxt else None
            if e["action"] == 0 and not (nk == "claim" and nxt["slot"] == e["slot"]):
                bad.append(f"chooses slot {e['slot']} to claim, then {nxt}")
            if e["action"] == 1 and not (nk == "assault" and nxt["slot"] == e["slot"]):
                bad.append(f"chooses slot {e['slot']} to assault, then {nxt}")
            if e["action"] == -1 and nk in ("claim", "assault"):
                bad.append(f"claims nothing, then {nxt}")
            if e["action"] in (0, 1) and e["slot"] != e["best_slot"]:
                bad.append(f"chooses slot {e['slot']}, best slot {e['best_slot']}")
        elif k == "why_floor":
            mv = after(i, p, ("move",), stop=("why_exit", "why_floor"))
            if mv is not None:
                f, a, b = e["floor"], mv["from_floor"], mv["to_floor"]
                if not (min(a, f) <= b <= max(a, f)):
                    bad.append(f"aims for Floor {f}, then moves {a} -> {b}")
        elif k == "why_press":
            nxt = after(i, p, ("press", "dread"))
            if bool(e["press"]) != (nxt is not None and nxt["event"] == "press"):
                bad.append(f"why_press press={e['press']}, then {nxt}")
        elif k == "why_exit":
            nxt = after(i, p, ("stay", "cash_out", "last_stand"))
            want = ("stay", "cash_out", "last_stand")[e["exit"]]
            if nxt is None or nxt["event"] != want:
                bad.append(f"exit {want}, then {nxt}")
    return bad


def test_every_bot_reason_agrees_with_the_state_and_the_choice_that_follows(traced):
    _, records = traced
    seen = Counter()
    problems = []
    for g, ev in enumerate(records):
        for e in ev:
            if e["event"].startswith("why_"):
                seen[(e["event"], e.get("reason", e.get("action")))] += 1
        problems += [f"game {g}: {b}" for b in _violations(ev)]
    assert not problems, f"{len(problems)} contradictions, e.g.\n" + "\n".join(problems[:20])
    # every kind of reason was met (the test can fail)
    for needed in [("why_here", "here_beats_there"), ("why_here", "there_beats_here"),
                   ("why_here", "no_claim_here"), ("why_room", 0), ("why_room", 1),
                   ("why_room", -1), ("why_exit", "stay"), ("why_exit", "cash_loot"),
                   ("why_press", "short"), ("why_floor", "target_depth_safe")]:
        assert seen[needed] > 0, needed


def test_the_checker_finds_a_contradiction():
    """The case of the issue, as the old trace printed it: a claim here scored, then none."""
    ev = [{"event": "why_here", "seat": 3, "reason": "here_beats_there", "claim_first": 1,
           "here": 2.0, "there": 0.0, "current_floor": 1, "arrival_floor": 6},
          {"event": "why_room", "seat": 3, "action": -1, "floor": 1, "slot": -1,
           "score": 0.0, "options": 0, "best_slot": -1},
          {"event": "move", "seat": 3, "from_floor": 1, "to_floor": 5}]
    assert _violations(ev)


def test_every_unclaimed_room_has_its_rise_line(traced):
    games, records = traced
    for g, ev in enumerate(records):
        rise = [e for e in ev if e["event"] == "rise"]
        assert len(rise) == games.loc[games["game"] == g, "rooms_unclaimed"].iloc[0], g
        for e in rise:
            # a room rises its value's share to the slot above, or says why it cannot
            assert (e["plunder"] > 0) == (e["blocked"] == "rises"), e
