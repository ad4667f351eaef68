"""`deepsim trace` on DEEPFALL (issue 27): the audit lines against the batch row.

A traced game is the batch's game (the events never draw or decide); its dice, rooms,
exit arithmetic and the bots' reasons are checked against that game's games/seats rows
and against each other: the Cash Out, Worthy End and room-scoring sums equal the Glory
the seats table credits, and every bot reason agrees with the decision the bot took.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.schema import DICE, ROOMS, SYMBOLS

GAMES = 24
TRACED = range(0, GAMES, 2)


@pytest.fixture(scope="module")
def mixed():
    """2-6 players, random companies, every bot style (random included), and its batch."""
    sc = {"name": "t", "ruleset": "deepfall", "players": [2, 3, 4, 5, 6], "games": GAMES,
          "seed": 11, "chunk_size": GAMES, "companies": {"unique": True},
          "bots": ["random", "cautious", "balanced", "greedy", "martyr"]}
    p = RULESET.prepare(sc, source="<test>")
    games, seats = RULESET.run_chunk(p, 0, GAMES)
    records = {k: RULESET.trace_records(p, k) for k in TRACED}
    return p, games, seats, records


def _events(recs):
    return [r for r in recs if r["type"] == "event"]


def test_traced_game_is_the_batch_row(mixed):
    _, games, seats, records = mixed
    for k, recs in records.items():
        header, result = recs[0], recs[-1]
        g = games[games["game"] == k].iloc[0]
        s = seats[seats["game"] == k].sort_values("seat").reset_index(drop=True)
        assert header["type"] == "header" and result["type"] == "result"
        assert header["players"] == g["players"] == len(header["seats"])
        # one numbering for users: the JSON trace's seats are the seats table's, from 1
        assert ([x["seat"] for x in header["seats"]] == list(s["seat"])
                == list(range(1, len(s) + 1)))
        assert g["winner_seat"] in set(s.loc[s["place"] == 1, "seat"])
        assert [x["lineage"] for x in header["seats"]] == list(s["lineage"])
        assert [x["bot"] for x in header["seats"]] == list(s["bot"])
        assert result["rounds"] == g["rounds"]
        assert [x["glory"] for x in result["seats"]] == list(s["glory"])
        assert [x["place"] for x in result["seats"]] == list(s["place"])
        ev = _events(recs)
        end = [e for e in ev if e["event"] == "end"]
        assert len(end) == 1 and end[0]["rounds"] == g["rounds"]
        assert end[0]["glory"] == pytest.approx(g["top_glory"])
        count = Counter((e["event"], e["seat"]) for e in ev)
        for p in range(int(g["players"])):     # row p of s is seat p + 1
            assert count[("cash_out", p + 1)] == s.loc[p, "cash_outs"]
            assert count[("worthy_end", p + 1)] == s.loc[p, "worthy_ends"]
            assert count[("last_stand", p + 1)] == s.loc[p, "last_stands"]
            assert count[("press", p + 1)] == s.loc[p, "press_ons"]
            assert count[("bag", p + 1)] == s.loc[p, "turns"]
        assert sum(e["event"] == "maw" for e in ev) == g["floors_collapsed"]


def test_exit_and_scoring_arithmetic_adds_up_to_the_glory(mixed):
    _, _, seats, records = mixed
    seen = Counter()
    for k, recs in records.items():
        cash, worthy, rooms = defaultdict(float), defaultdict(float), defaultdict(float)
        for e in _events(recs):
            if e["event"] == "cash_out":             # §7.3 Loot x rate + dividend x deepest
                total = e["loot"] * e["glory_per_loot"] + e["dividend"] * e["deepest"]
                assert total == pytest.approx(e["glory"], abs=0.011)
                cash[e["seat"]] += e["glory"]
                seen["cash_out"] += 1
            elif e["event"] == "worthy_end":         # §7.3 basis x 2.5 (x company) + Loot
                total = (e["basis"] * e["multiplier"] * e["company_multiplier"]
                         + e["loot"] * e["glory_per_loot"])
                assert total == pytest.approx(e["glory"], abs=0.011)
                assert e["basis"] == e["deepest"]    # default A6: the deepest floor
                worthy[e["seat"]] += e["glory"]
                seen["worthy_end"] += 1
            elif e["event"] == "score":              # §6B.2 (tile + plunder) x depth, split
                assert (e["tile_value"] + e["plunder"]) * e["depth"] == e["glory"]
                winners = e["winners"]              # seat numbers, from 1
                assert e["share"] == e["glory"] // len(winners)
                for q in winners:
                    rooms[q] += e["share"]
                seen["score"] += 1
            elif e["event"] == "loot":               # §6A.4 Greed x rate x Depth Value
                assert e["greed"] * e["per_greed"] * e["depth"] == pytest.approx(e["loot"])
        s = seats[seats["game"] == k].sort_values("seat").reset_index(drop=True)
        for p in range(len(s)):                      # row p of s is seat p + 1
            assert cash[p + 1] == pytest.approx(s.loc[p, "glory_cash_out"], abs=0.011)
            assert worthy[p + 1] == pytest.approx(s.loc[p, "glory_worthy_end"], abs=0.011)
            assert rooms[p + 1] == pytest.approx(s.loc[p, "glory_rooms"])
    assert min(seen.values()) > 0 and len(seen) == 3     # every kind was exercised


def test_dice_drawn_make_up_each_roll(mixed):
    _, _, _, records = mixed
    for recs in records.values():
        faces = Counter()
        drawn = 0
        for e in _events(recs):
            if e["event"] == "bag":
                faces, drawn = Counter(), 0
                bag = sum(v for f, v in e.items() if f.startswith("bag_"))
            elif e["event"] == "die":
                faces[SYMBOLS[e["face"]]] += 1
                drawn += 1
                assert drawn <= bag                 # §6A.1 drawn from the bag
            elif e["event"] == "roll":
                for sym in SYMBOLS:                 # "so far" = the faces shown this turn
                    assert e[sym] == faces[sym]


EXIT_OF_REASON = {"last_stand_declared": 0, "last_stand_2": 2, "worthy_end_pays": 2,
                  "cash_out_pays": 1, "floor_falls": 1, "cash_loot": 1, "stay": 0}
PRESS_OF_REASON = {"press_max": 0, "dread_stop": 0, "press_risk": 0, "in_reach": 0,
                   "no_room": 0, "bag_empty": 0, "no_limit": 1, "short": 1}


def test_bot_reasons_agree_with_the_decisions_taken(mixed):
    """why.py retraces each decision of bots.py: its reason must imply what the bot did."""
    _, _, _, records = mixed
    seen = Counter()
    for recs in records.values():
        ev = _events(recs)
        for i, e in enumerate(ev):
            r = e.get("reason")
            if r is None or r == "random":
                continue
            seen[(e["event"], r)] += 1
            if e["event"] == "why_press":
                assert e["press"] == PRESS_OF_REASON[r], e
                nxt = next(x for x in ev[i + 1:] if x["seat"] == e["seat"])
                assert (nxt["event"] == "press") == bool(e["press"])
            elif e["event"] == "why_exit":
                assert e["exit"] == EXIT_OF_REASON[r], e
            elif e["event"] == "why_here":
                assert e["claim_first"] == (r in ("leaving_upward", "here_beats_there")), e
            elif e["event"] == "why_floor":
                if r in ("target_depth_safe", "safe_floor"):
                    assert e["floor"] == min(e["target_depth"], e["deepest_safe"]), e
                elif r == "last_stand_here":
                    assert e["floor"] == e["current_floor"], e
        for e in ev:
            if e["event"] == "why_room" and e["action"] in (0, 1):
                assert e["slot"] == e["best_slot"], e     # the bot's choice = best score
                assert e["assault"] == e["action"]
                seen[("why_room", e["action"])] += 1
    for needed in [("why_press", "press_max"), ("why_press", "short"),
                   ("why_exit", "stay"), ("why_exit", "cash_loot"),
                   ("why_room", 0), ("why_room", 1), ("why_floor", "target_depth_safe")]:
        assert seen[needed] > 0, needed


def test_every_event_cites_a_rule_or_the_bot(mixed):
    _, _, _, records = mixed
    kinds = set()
    for recs in records.values():
        for e in _events(recs):
            assert e["rule"] == "bot" or e["rule"].startswith("§"), e
            assert e["event"] in L.EVENTS
            kinds.add(e["event"])
    assert {"bag", "die", "room", "forecast", "why_press", "why_exit"} <= kinds


def test_forecast_verdicts_read_as_the_bots_read_them(mixed):
    """A forecast that says the floor falls makes a heuristic bot leave it or exit."""
    _, _, _, records = mixed
    falls = 0
    for recs in records.values():
        for e in _events(recs):
            if e["event"] != "forecast":
                continue
            assert e["falls"] == (e["verdict"] in (1, 3, 4))
            if e["verdict"] in (4, 5):          # by the forecast: expected + margin sds
                reach = e["expected"] + e["margin"] * e["expected"] ** 0.5
                assert (reach >= e["dread_left"]) == e["falls"] or \
                    abs(reach - e["dread_left"]) < 0.05           # x100 rounding
            falls += e["falls"]
    assert falls > 0


def test_text_trace_shows_dice_rooms_arithmetic_and_reasons(mixed):
    p, _, _, _ = mixed
    lines = RULESET.trace(p, 2)
    text = "\n".join(lines)
    assert " dice [" in text and "turn: bag " in text
    assert "    bot: " in text and "[bot]" in text
    assert "Glory at collapse  [§7.2]" in text
    assert " x depth " in text and "[§6B.2]" in text
    for ln in lines:
        if "CASHES OUT" in ln:
            assert "+ dividend" in ln and ln.endswith("[§7.3]")


runner = CliRunner()


def test_cli_json_format(tmp_path):
    res = runner.invoke(app, ["trace", "scenarios/deepfall-4p.yaml", "--game", "3",
                              "--format", "json"])
    assert res.exit_code == 0, res.output
    recs = [json.loads(ln) for ln in res.output.splitlines() if ln.startswith("{")]
    assert recs[0]["type"] == "header" and len(recs[0]["seats"]) == 4
    assert recs[-1]["type"] == "result"
    assert all(r["type"] == "event" for r in recs[1:-1])
    assert {"round", "seat", "event", "rule"} <= set(recs[1])
    text = runner.invoke(app, ["trace", "scenarios/deepfall-4p.yaml", "--game", "3"])
    final = [ln for ln in text.output.splitlines() if " Glory (rooms " in ln]
    assert [float(ln.split(": ")[1].split(" Glory")[0]) for ln in final] == \
        [s["glory"] for s in recs[-1]["seats"]]


def test_cli_format_refused():
    res = runner.invoke(app, ["trace", "scenarios/deepfall-4p.yaml", "--game", "3",
                              "--format", "xml"])
    assert res.exit_code == 2 and "--format" in res.output


def test_json_names_dice_faces_and_room_themes():
    res = runner.invoke(app, ["trace", "scenarios/deepfall-4p.yaml", "--game", "3",
                              "--format", "json"])
    recs = [json.loads(ln) for ln in res.output.splitlines() if ln.startswith("{")]
    dice = [r for r in recs if r.get("event") == "die"]
    assert dice and all(r["die_name"] == DICE[r["die"]] for r in dice)
    assert all(r["face_name"] == SYMBOLS[r["face"]] for r in dice)
    rooms = [r for r in recs if r.get("event") in ("room", "claim", "score")]
    assert rooms and all(r["room_name"] == ROOMS[r["room"]] for r in rooms)
    setup = [r for r in recs if r.get("event") == "setup"]
    assert setup and all(len(r["rooms"]) >= 2 and all(isinstance(x, str) for x in r["rooms"])
                         for r in setup)


def test_trace_filters_seat_round_and_bot_lines():
    base = ["trace", "scenarios/deepfall-4p.yaml", "--game", "0", "--seed", "1"]
    full = runner.invoke(app, base)
    assert full.exit_code == 0
    # each round closes with the seats' Glory so far; the last one with the final Glory
    standings = [ln for ln in full.output.splitlines() if ln.startswith("-- Glory after")]
    rounds = [ln for ln in full.output.splitlines() if ln.startswith("== Round ")]
    assert len(standings) == len(rounds)
    final = [float(ln.split(": ")[1].split(" Glory")[0]) for ln in full.output.splitlines()
             if " Glory (rooms " in ln]
    last = standings[-1].split(": ", 1)[1].split(", ")
    assert [float(x.split()[1]) for x in last] == final
    # --seat: that seat's lines and the table's; --round: that round only
    res = runner.invoke(app, [*base, "--seat", "3", "--round", "1"])
    assert res.exit_code == 0, res.output
    out = res.output.splitlines()
    body = [ln for ln in out if ln.startswith("  S") and "[" in ln]
    assert body and all(ln.startswith("  S3 ") for ln in body)
    assert "== Round 1 ==" in res.output and "== Round 2 ==" not in res.output
    assert "-- Glory after round 1" in res.output and "round 2:" not in res.output
    # --only bot: the bots' lines, each naming its seat
    res = runner.invoke(app, [*base, "--only", "bot", "--round", "2"])
    lines = [ln for ln in res.output.splitlines() if ln.endswith("]")]
    assert lines and all(ln.endswith("[bot]") or "Maw forecast" in ln for ln in lines)
    assert all(ln.startswith("  S") for ln in lines)
    # the JSON records filter the same way
    res = runner.invoke(app, [*base, "--format", "json", "--seat", "2", "--only", "bot"])
    ev = [json.loads(ln) for ln in res.output.splitlines() if ln.startswith("{")][1:-1]
    assert ev and all(e["seat"] in (2, -1) or e["event"] in ("round", "setup", "end")
                      for e in ev)
    assert all(e["rule"] == "bot" or e["event"] in ("round", "setup", "end", "forecast")
               for e in ev)
    # bad filters: exit 2, one line
    for bad in (["--seat", "0"], ["--round", "3-1"], ["--only", "bots"], ["--seat", "x"],
                ["--width", "-1"]):
        res = runner.invoke(app, [*base, *bad])
        assert res.exit_code == 2 and "error:" in res.output, (bad, res.output)


def test_trace_lines_wrap_to_the_width():
    base = ["trace", "scenarios/deepfall-4p.yaml", "--game", "0", "--seed", "1"]
    wide = runner.invoke(app, base).output.splitlines()
    assert max(len(ln) for ln in wide) > 150          # a pipe gets whole lines (tools)
    res = runner.invoke(app, [*base, "--width", "80"])
    lines = res.output.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    # every word is kept: the wrapped text joins back to the whole one
    assert " ".join(" ".join(lines).split()) == " ".join(" ".join(wide).split())
