"""The DEEPFALL trace: the kernel's event buffer as named records and as readable lines.

The events come from the same kernel as batch runs (``kernel.trace_game``); which values
each kind carries is declared once in ``layout.EVENT_SPECS``. :func:`decode` turns the
buffer into one record (a dict of named values) per event, :func:`format_events` into the
turn-by-turn text ``deepsim trace`` prints, each line ending with the rulebook section it
applies (``[§7.3]``) or, for a bot's decision, ``[bot]`` and the reason that decided it
(the knob or score; deepsim/rulesets/deepfall/why.py). Units: Glory, Loot, floors 1-6.
"""

from __future__ import annotations

import math

import numpy as np

from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.schema import (
    CALLINGS,
    DICE,
    LINEAGES,
    ROOMS,
    SYMBOLS,
    display_name,
)

#: reason names of the bots' decisions (the ``reason`` code of each why_* event, why.py)
#: and the names of the event's generic values x, y, ... for that reason ("/100": x100)
REASONS: dict[str, dict[int, tuple[str, tuple[str, ...]]]] = {
    "why_press": {
        0: ("random", ()),
        1: ("press_max", ("press_ons", "press_max")),
        2: ("dread_stop", ("uncanceled/100", "stop_line/100", "dread", "cancels/100")),
        3: ("press_risk", ("setback_chance/100", "press_risk/100", "uncanceled/100")),
        4: ("no_limit", ("uncanceled/100", "press_ons", "press_max", "setback_chance/100")),
        5: ("short", ("target_floor", "slot", "steel_needed", "cunning_needed", "steel",
                      "cunning")),
        6: ("in_reach", ("target_floor", "slot", "steel_needed", "cunning_needed", "steel",
                         "cunning")),
        7: ("no_room", ("target_floor",)),
        8: ("bag_empty", ()),
    },
    "why_floor": {
        0: ("random", ("current_floor",)),
        1: ("last_stand_declared", ("deepest_standing",)),
        2: ("last_stand_2", ("target_depth",)),
        3: ("last_stand_here", ("current_floor", "deepest")),
        4: ("target_depth_safe", ("target_depth", "deepest_safe")),
        5: ("safe_floor", ("target_depth", "deepest_safe", "maw_rounds/100",
                           "safety_rounds/100")),
    },
    "why_here": {0: ("random", ()), 1: ("leaving_upward", ()), 2: ("no_claim_here", ()),
                 3: ("here_beats_there", ()), 4: ("there_beats_here", ())},
    "why_exit": {
        0: ("random", ()),
        1: ("last_stand_declared", ()),
        2: ("last_stand_2", ("deepest/100", "target_depth/100")),
        3: ("worthy_end_pays", ("worthy_end/100", "cash_out/100", "held_rooms/100")),
        4: ("cash_out_pays", ("worthy_end/100", "cash_out/100", "held_rooms/100")),
        5: ("floor_falls", ("affordable", "last_stand/100", "price")),
        6: ("cash_loot", ("loot/100", "cash_loot/100", "deepest/100", "cash_depth/100")),
        7: ("stay", ("loot/100", "cash_loot/100", "deepest/100", "cash_depth/100")),
        8: ("exit_via", ("exit_via/100",)),
    },
}
_GENERIC = ("x", "y", "z", "w", "u", "v")
FORECAST = {0: "not next", 1: "falls", 2: "stands", 3: "falls", 4: "falls", 5: "stands"}
#: why an unclaimed room's value does (or cannot) rise at its floor's collapse (``rise``)
RISE_BLOCKED = ("rises", "last floor", "share rounds to 0", "room above gone")


def _val(name: str, v: int):
    return (name[:-4], v / 100) if name.endswith("/100") else (name, int(v))


#: per event kind (layout.EVENT_SPECS): its name, rule, number of values, the values'
#: names ("/100" taken off) and which are x100; worked out once, not per event (a traced
#: game has ~800 events, and tests decode thousands of games)
_KINDS = tuple((name, rule, len(fields),
                tuple(f.removesuffix("/100") for f in fields),
                tuple(f.endswith("/100") for f in fields))
               for name, rule, fields in L.EVENT_SPECS)


def decode(ev: np.ndarray) -> list[dict]:
    """One record per event of ``ev`` (int64[k, layout.EVENT_WIDTH]).

    Each record has ``round``, ``seat`` (-1 = the table), ``event`` (layout.EVENTS name),
    ``rule`` (rulebook section, or "bot") and the event's values by name
    (layout.EVENT_SPECS; x100 values divided back). A bot decision (``why_*``) names its
    ``reason`` (REASONS) and that reason's values instead of x, y, ...; a Maw forecast
    adds ``falls`` (its verdict: the floor falls this round).
    """
    out = []
    for row in ev.tolist():                      # Python ints
        kind = row[2]
        name, rule, n, keys, x100 = _KINDS[kind]
        rec = {"round": row[0], "seat": row[1], "event": name, "rule": rule}
        vals = row[3:3 + n]
        raw = ({k: v / 100 if d else v for k, d, v in zip(keys, x100, vals)} if True in x100
               else dict(zip(keys, vals)))
        if name in REASONS:
            code = raw.pop("reason")
            rname, rfields = REASONS[name][code]
            vals = [raw.pop(g) for g in _GENERIC if g in raw]
            rec.update(raw)
            rec["reason"] = rname
            rec.update(_val(f, v) for f, v in zip(rfields, vals))
        else:
            rec.update(raw)
        if name == "forecast":
            rec["falls"] = FORECAST[rec["verdict"]] == "falls"
        if name == "rise":
            rec["blocked"] = RISE_BLOCKED[rec["blocked"]]
        if name in ("search", "search_room"):
            fields = L.EVENT_SPECS[kind][2]
            for f, v in zip(fields, row[3:3 + len(fields)]):
                if f.startswith("mean") and v == L.NOT_AN_OPTION:
                    rec[f[:-4]] = None
        out.append(rec)
    return out


def _g(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _room(t: int) -> str:
    return display_name(ROOMS[t]) if 0 <= t < len(ROOMS) else "-"


def _line(e: dict, who, dice: list[str], rooms: list[tuple]) -> str | None:
    """The text of one decoded event (None: folded into another line)."""
    k = e["event"]
    s = who(e["seat"])
    if k == "setup":
        names = [_room(e[f"room_{i}"]) for i in range(1, 7) if e[f"room_{i}"] >= 0]
        return f"setup  Floor {e['floor']}: {', '.join(names)}"
    if k == "round":
        return (f"\n== Round {e['round']} ==  first: {s}  Maw steps {e['maw_steps']}, "
                f"Dread track {e['dread']}/{e['dread_track']}, next to fall: "
                f"Floor {e['next_floor']}")
    if k == "bag":
        bag = ", ".join(f"{e['bag_' + d]} {display_name(d)}" for d in DICE
                        if e["bag_" + d])
        return (f"  {s} turn: bag {bag or 'empty'} (discard {e['discard']}), hand of "
                f"{e['hand']}")
    if k == "die":
        dice.append(f"{display_name(DICE[e['die']])}:{SYMBOLS[e['face']]}")
        return None
    if k == "roll":
        drawn = ", ".join(dice)
        dice.clear()
        return (f"  {s} rolls {e['dice']} dice [{drawn}] -> so far steel {e['steel']}, "
                f"cunning {e['cunning']}, faith {e['faith']}, greed {e['greed']}, "
                f"mettle {e['mettle']}, dread {e['dread']}")
    if k == "press":
        return f"  {s} presses on (#{e['press']}); Dread track {e['dread']}"
    if k == "dread":
        return (f"  {s} Dread {e['dread']}: {e['canceled']} canceled, {e['uncanceled']} "
                f"uncanceled")
    if k == "setback":
        if e["immune"]:
            return f"  {s} SETBACK ignored (Golem-born)"
        return (f"  {s} SETBACK: {e['lost']} die(s) returned to the box"
                + (f", {e['healed']} healed" if e["healed"] else ""))
    if k == "produce":
        return (f"  {s} held rooms produce: steel {e['steel']}, cunning {e['cunning']}, "
                f"faith {e['faith']}, greed {e['greed']}, mettle {e['mettle']}")
    if k == "move":
        return (f"  {s} moves Floor {e['from_floor']} -> Floor {e['to_floor']} "
                f"({e['moves']} moves)")
    if k == "room":
        need_s = max(e["threat"] - e["threat_ignore"], 0)
        threat = (f"threat {e['threat']} - {e['threat_ignore']} threat_ignore"
                  if e["threat_ignore"] else f"threat {e['threat']}")
        prog = ""
        if e["progress_steel"] or e["progress_cunning"]:
            prog = (f", assault progress steel {e['progress_steel']} cunning "
                    f"{e['progress_cunning']}")
        return (f"    {_room(e['room'])} (Floor {e['floor']}, slot {e['slot']}): {threat}, "
                f"lock {e['lock']}{prog} -> needs steel "
                f"{max(need_s - e['progress_steel'], 0)}, cunning "
                f"{max(e['lock'] - e['progress_cunning'], 0)}; worth {e['value']} x depth "
                f"{e['depth']} = {e['value'] * e['depth']} Glory at collapse")
    if k == "claim":
        w = e["marker_weight"]
        base = e["strength"] / w - e["marker_bonus"] - e["surplus"] if w else 0.0
        surplus = f" + {e['surplus']} surplus"
        if base < 0:                         # claims.surplus_adds_strength off (A9)
            base += e["surplus"]
            surplus = f" ({e['surplus']} surplus adds nothing, A9)"
        terms = f"{_g(base)} base"
        if e["marker_bonus"]:
            terms += f" + {_g(e['marker_bonus'])} marker_strength"
        terms += surplus
        weight = f" x {_g(w)} marker_weight" if w != 1 else ""
        return (f"  {s} claims {_room(e['room'])} (Floor {e['floor']}, slot {e['slot']}) "
                f"paying steel {e['steel']}, cunning {e['cunning']}: strength ({terms})"
                f"{weight} = {_g(e['strength'])}"
                + (f", +{_g(e['loot'])} Loot" if e["loot"] else ""))
    if k == "assault":
        return (f"  {s} assaults {_room(e['room'])} (Floor {e['floor']}, slot {e['slot']}): "
                f"progress steel {e['progress_steel']}, cunning {e['progress_cunning']}")
    if k == "loot":
        return (f"  {s} loots {e['greed']} Greed x {_g(e['per_greed'])} x depth "
                f"{e['depth']} (Floor {e['floor']}) = +{_g(e['loot'])} Loot (unbanked "
                f"{_g(e['unbanked'])})")
    if k == "recruit":
        return (f"  {s} recruits {e['dice']} {display_name(DICE[e['die']])} die(s) at "
                f"{e['cost']} Mettle each")
    if k == "cash_out":
        return (f"  {s} CASHES OUT (deepest Floor {e['deepest']}): {_g(e['loot'])} Loot x "
                f"{_g(e['glory_per_loot'])} + dividend {_g(e['dividend'])} x deepest "
                f"{e['deepest']} = {_g(e['glory'])} Glory banked")
    if k == "last_stand":
        return (f"  {s} declares a LAST STAND on Floor {e['floor']} (deepest "
                f"{e['deepest']}, paid {e['paid']} Mettle)")
    if k == "stay":
        return f"  {s} stays on Floor {e['floor']} (unbanked Loot {_g(e['unbanked'])})"
    if k == "muster":
        return f"  {s} musters a fresh company on Floor {e['floor']}"
    if k == "maw":
        return (f"-- Maw phase: Floor {e['floor']} COLLAPSES (steps {e['maw_steps']}, "
                f"Dread track {e['dread']})")
    if k == "defer":
        return f"-- Maw: {e['held_back']} step(s) held back by the one-floor-per-round cap"
    if k == "score":
        winners = [who(q) for q in range(L.MAX_SEATS) if e["winners"] >> q & 1]
        plunder = f" + {e['plunder']} plunder" if e["plunder"] else ""
        return (f"   {_room(e['room'])} (slot {e['slot']}) worth ({e['tile_value']}{plunder})"
                f" x depth {e['depth']} = {e['glory']} Glory -> {' & '.join(winners)} "
                f"(+{e['share']} each; {e['claimants']} claimant(s))")
    if k == "rise":
        head = f"   {_room(e['room'])} (slot {e['slot']}) unclaimed: "
        b = e["blocked"]
        if b == "rises":
            return head + f"{e['plunder']} value rises to Floor {e['floor'] - 1}"
        why = {"last floor": f"Floor {e['floor']} is the last, there is no floor above",
               "share rounds to 0": "the share that rises rounds down to 0",
               "room above gone": "the room above it is gone"}[b]
        return head + f"nothing rises ({why})"
    if k == "worthy_end":
        basis = (f"Depth Value {_g(e['basis'])} of deepest Floor {e['deepest']}"
                 if e["basis_is_depth_value"] else f"deepest Floor {e['deepest']}")
        comp = (f" x {_g(e['company_multiplier'])} company"
                if e["company_multiplier"] != 1 else "")
        loot = (f" + {_g(e['loot'])} Loot x {_g(e['glory_per_loot'])}" if e["loot"] else "")
        return (f"   {s} WORTHY END: {basis} x {_g(e['multiplier'])}{comp}{loot} = "
                f"{_g(e['glory'])} Glory")
    if k == "taken":
        if e["last_stand"]:
            return f"   the Maw TAKES {s}: WORTHY END for {_g(e['glory'])} Glory"
        if e["crew_turns"] == 0:
            return (f"   the Maw TAKES {s}'s fresh crew before its first turn (no chance "
                    f"of a Last Stand)")
        return f"   the Maw TAKES {s} without a Last Stand: {_g(e['loot'])} Loot lost"
    if k == "consumed":
        return (f"   the Maw consumes {s}'s {_room(e['room'])} (Floor {e['floor']}, slot "
                f"{e['slot']})")
    if k == "end":
        return (f"\n== Game over after {e['rounds']} rounds: {s} wins with "
                f"{_g(e['glory'])} Glory"
                + (f" ({e['winners']}-way tie, shared)" if e["winners"] > 1 else "")
                + (" [TRUNCATED by max_rounds]" if e["truncated"] else ""))
    if k == "forecast":
        return "    " + _forecast(e)
    if k.startswith("why_"):
        return "    bot: " + _why(e)
    if k == "search_room":
        rooms.append((e["slot"] + 1, "no claim" if e["slot"] < 0
                       else f"slot {e['slot']} ({_room(e['room'])})", e["mean"]))
        return None
    if k == "search":
        line = f"  {s} " + _search_line(e, rooms)
        rooms.clear()
        return line
    return f"  {s} {k} {e}"                                       # a kind added later


def _forecast(e: dict) -> str:
    v = e["verdict"]
    fl = e["floor"]
    if v == 1:
        return (f"Maw forecast: Floor {fl} FALLS this round ({e['steps_needed']} step(s) "
                f"to go, the Maw gains {e['steps_per_round']} a round)")
    if v == 2:
        return (f"Maw forecast: Floor {fl} stands this round ({e['steps_needed']} steps "
                f"to go, at most {e['steps_per_round']} + {e['dread_full_steps']} with a "
                f"full Dread track)")
    if v == 3:
        return f"Maw forecast: Floor {fl} FALLS this round (the Dread track is full)"
    if v in (4, 5):
        mu, m = e["expected"], e["margin"]
        reach = mu + m * math.sqrt(mu)
        word, cmp = ("FALLS", ">=") if v == 4 else ("stands", "<")
        return (f"Maw forecast: Floor {fl} {word} this round if the Dread track fills: "
                f"expected {_g(mu)} Dread ({e['turns_to_come']} turn(s) to come x "
                f"{_g(e['rate'])} a turn) + maw_margin {_g(m)} x sqrt = {_g(reach)} {cmp} "
                f"{e['dread_left']} left on the track")
    return f"Maw forecast: Floor {fl} is not the next to fall"


def _why(e: dict) -> str:
    k, r = e["event"], e.get("reason")
    if k == "why_press":
        act = "presses on" if e["press"] else "stops"
        if r == "random":
            return f"{act}: random bot (a coin)"
        if r == "press_max":
            return f"{act}: press_max {e['press_max']} reached"
        if r == "dread_stop":
            return (f"{act}: uncanceled Dread {_g(e['uncanceled'])} (Dread {e['dread']} - "
                    f"{_g(e['cancels'])} Faith/cancels) at the line setback_threshold - "
                    f"dread_stop = {_g(e['stop_line'])}")
        if r == "press_risk":
            return (f"{act}: next hand's Setback chance {e['setback_chance']:.0%} > "
                    f"press_risk {e['press_risk']:.0%}")
        if r == "no_limit":
            return (f"{act}: Press On {e['press_ons'] + 1} of press_max {e['press_max']}, "
                    f"uncanceled Dread {_g(e['uncanceled'])} below the dread_stop line"
                    + (f", Setback chance {e['setback_chance']:.0%} within press_risk"
                       if e["setback_chance"] >= 0 else ""))
        if r in ("short", "in_reach"):
            why = "out of reach" if r == "short" else "in reach"
            return (f"{act} (press_when_short): the best room of Floor {e['target_floor']} "
                    f"(slot {e['slot']}) needs steel {e['steel_needed']}, cunning "
                    f"{e['cunning_needed']}; the crew has {e['steel']}, {e['cunning']}: "
                    f"{why}")
        if r == "no_room":
            return (f"{act} (press_when_short): no room of Floor {e['target_floor']} is "
                    f"worth a marker")
        return f"{act}: the bag is empty"
    if k == "why_floor":
        f = e["floor"]
        if r == "random":
            return f"aims for Floor {f}: random bot"
        if r == "last_stand_declared":
            return f"aims for Floor {f}: a Last Stand is declared (the deepest standing)"
        if r == "last_stand_2":
            return f"aims for Floor {f}: last_stand 2 heads for target_depth {e['target_depth']}"
        if r == "last_stand_here":
            return (f"stays on Floor {e['current_floor']} for a Last Stand: it falls this "
                    f"round (deepest "
                    f"{e['deepest']}, target_depth - 1 reached)")
        if r == "target_depth_safe" or e["target_depth"] <= e["deepest_safe"]:
            return (f"aims for Floor {f}: target_depth {e['target_depth']} is safe (deepest "
                    f"safe floor {e['deepest_safe']})")
        if e["maw_rounds"] < 0:         # no unsafe floor at or above target_depth (why.floor)
            return (f"aims for Floor {f}, the deepest standing floor, which is safe "
                    f"(target_depth {e['target_depth']} is below it)")
        if e["maw_rounds"] > e["safety_rounds"]:
            why = "the Maw forecast says it falls this round"
        else:
            why = (f"the Maw reaches it in about {_g(e['maw_rounds'])} round(s), not more "
                   f"than safety_rounds {_g(e['safety_rounds'])}")
        return (f"aims for Floor {f}, the deepest safe floor: target_depth "
                f"{e['target_depth']} (or the deepest standing floor above it) is not safe, "
                f"{why}")
    if k == "why_here":
        act = "claims here first" if e["claim_first"] else "moves first"
        if r == "random":
            return f"{act}: random bot (a coin)"
        if r == "leaving_upward":
            return f"{act}: leaving upward (this floor falls sooner)"
        if r == "no_claim_here":
            if e["keep"] > 0:
                return (f"{act}: no claim here worth a marker with the Cunning its Moves "
                        f"leave ({e['cunning']} - {e['keep']} kept for the Moves)")
            return f"{act}: no claim here worth a marker"
        cmp = ">" if r == "here_beats_there" else "<="
        return (f"{act}: best claim here scores {_g(e['here'])} {cmp} {_g(e['there'])} on "
                f"arrival at Floor {e['arrival_floor']}")
    if k == "why_room":
        a = e["action"]
        if a == 2:
            what = (f"{_room(e['room'])} (slot {e['slot']})" if e["slot"] >= 0
                    else "nothing")
            return f"random bot picks {what}" + (" to assault" if e["assault"] else "")
        if a == -1:
            return (f"claims nothing on Floor {e['floor']}: no room worth a marker "
                    f"({e['options']} in reach)")
        verb = "assault" if a == 1 else "claim"
        nxt = (f"; runner-up slot {e['next_slot']} scores {_g(e['next_score'])}"
               if e["next_slot"] >= 0 else "")
        return (f"chooses {_room(e['room'])} (Floor {e['floor']}, slot {e['slot']}) to "
                f"{verb}: score {_g(e['score'])} of {e['options']} option(s){nxt}")
    if k == "why_exit":
        act = {0: "stays", 1: "cashes out", 2: "declares a Last Stand"}[e["exit"]]
        if r == "random":
            return f"{act}: random bot"
        if r == "exit_via":
            return (f"{act}: exit_via {_g(e['exit_via'])} steers the way out (the "
                    f"heuristic leaves here)")
        if r == "last_stand_declared":
            return f"{act}: a Last Stand is declared (no Cash Out after one, A29)"
        if r == "last_stand_2":
            return (f"{act}: last_stand 2 and deepest {_g(e['deepest'])} >= target_depth "
                    f"{_g(e['target_depth'])}")
        if r in ("worthy_end_pays", "cash_out_pays"):
            d = e["worthy_end"] - e["cash_out"]
            cmp = ">" if r == "worthy_end_pays" else "<="
            return (f"{act}: its floor falls; Worthy End {_g(e['worthy_end'])} - Cash Out "
                    f"{_g(e['cash_out'])} = {_g(d)} {cmp} half the held rooms' "
                    f"{_g(e['held_rooms'])} Glory")
        if r == "floor_falls":
            why = ("a Last Stand costs more Mettle than it has" if not e["affordable"]
                   else "last_stand 0")
            return f"{act}: its floor falls and no Last Stand ({why})"
        if r == "cash_loot":
            return (f"{act}: unbanked Loot {_g(e['loot'])} >= cash_loot {_g(e['cash_loot'])}"
                    f" and deepest {_g(e['deepest'])} >= cash_depth {_g(e['cash_depth'])}")
        why = (f"unbanked Loot {_g(e['loot'])} < cash_loot {_g(e['cash_loot'])}"
               if e["loot"] < e["cash_loot"] else
               f"deepest {_g(e['deepest'])} < cash_depth {_g(e['cash_depth'])}")
        return f"{act}: {why}, and its floor is not forecast to fall"
    if k == "why_recruit":
        if e["recruit_max"] < 0:
            return f"wants {e['want']} recruit(s): random bot ({e['mettle']} Mettle)"
        spare = e["mettle"] - e["reserve"]
        afford = spare // e["cost"] if e["cost"] > 0 else 3
        return (f"wants {e['want']} recruit(s): ({e['mettle']} Mettle - {e['reserve']} kept "
                f"for a Last Stand) // {e['cost']} each = {max(afford, 0)}, at most "
                f"recruit_max {e['recruit_max']}")
    return f"{k} {e}"


EXITS = ("Stay", "Cash Out", "Last Stand")
PRESS = ("stop", "press on")
#: what a search event's ``decision`` weighs (kernel.FLOOR_DECISION ..)
DECISIONS = ("target floor", "exit", "room on arrival", "next Press On")
#: the bot's own line (a why_* event) that follows each kind of searched decision
WHY_OF = ("why_floor", "why_exit", "why_room", "why_press")


def _option_name(decision: int, o: int) -> str:
    if decision == 0:
        return f"Floor {o}"
    if decision == 1:
        return EXITS[o]
    if decision == 2:
        return "no claim" if o == 0 else f"slot {o - 1}"
    return PRESS[o]


def _search_line(e: dict, rooms: list[tuple]) -> str:
    """A search bot's decision: each option's mean value over its rollouts (win share +
    the bot's search_glory x relative Glory margin, kernel.outcome_value), the choice
    (a room's options come from the ``search_room`` events before it, in ``rooms``: (option,
    name, mean))."""
    d = e["decision"]

    def name(o: int) -> str:
        return _option_name(d, o)

    if d == 2:
        means = {o: m for o, _n, m in rooms}
        opts = [f"{n} {m:.1f}%" for _o, n, m in rooms]
    else:
        means = {}
        opts = []
        for i in range(6):
            m = e[f"mean_{i + 1}"]
            if m is not None:
                o = i + 1 if d == 0 else i
                means[o] = m
                opts.append(f"{name(o)} {m:.1f}%")
    what = DECISIONS[d]
    chosen, heur = e["chosen"], e["heuristic"]
    if chosen != heur:
        tail = f"the heuristic's {name(heur)} is not among the best"
    elif means and means.get(heur, -1.0) < max(means.values()):
        tail = ("the heuristic's choice, kept: the best option's lead over it is not "
                "clear at the bot's search_margin")
    else:
        tail = "the heuristic's choice"
    return (f"searches its {what} ({e['rollouts']} rollouts per option, mean value): "
            f"{', '.join(opts)} -> {name(chosen)} ({tail})")


def _standings(r: int, glory: list[float], who) -> str:
    """``-- Glory after round 3: S1 12, S2 30 (leads), S3 8``: each seat's Glory so far."""
    top = max(glory) if glory else 0.0
    parts = [f"{who(p).split(' ')[0]} {_g(v)}" + (" (leads)" if v == top and top > 0 else "")
             for p, v in enumerate(glory)]
    return f"-- Glory after round {r}: " + ", ".join(parts)


def format_events(ev: np.ndarray, seat_names: list[str], view=None,
                  standings: bool = True) -> list[str]:
    """Turn int64[k, EVENT_WIDTH] events into log lines, each citing its rule.

    ``view`` (a :class:`deepsim.tracefilter.TraceFilter`) keeps only some seats, rounds or
    kinds of line; ``standings`` adds each seat's Glory so far at the end of every round
    (from the Glory the events credit: rooms scored, Cash Outs, Worthy Ends).
    """
    lines: list[str] = []
    dice: list[str] = []
    rooms: list[tuple] = []
    glory = [0.0] * len(seat_names)

    def who(p: int) -> str:
        return seat_names[p] if 0 <= p < len(seat_names) else "-"

    def show_round(r: int) -> bool:
        return view is None or view.rounds is None or r in view.rounds

    overridden: dict[int, str] = {}     # seat -> the bot line a search just overrode
    last_round = 0
    for e in decode(ev):
        k = e["event"]
        closes = k == "end" or (k == "round" and e["round"] > last_round)
        if standings and closes and last_round >= 1 and show_round(last_round) \
                and (view is None or view.only != "bot"):
            lines.append(_standings(last_round, glory, who))
        if k == "round":
            last_round = e["round"]
        elif k == "score":
            for q in range(L.MAX_SEATS):
                if e["winners"] >> q & 1 and q < len(glory):
                    glory[q] += e["share"]
        elif k in ("cash_out", "worthy_end") and 0 <= e["seat"] < len(glory):
            glory[e["seat"]] += e["glory"]
        text = _line(e, who, dice, rooms)
        if text is None:
            continue
        if k == "search" and e["chosen"] != e["heuristic"]:
            overridden[e["seat"]] = WHY_OF[e["decision"]]
        elif overridden.get(e["seat"]) == k:
            del overridden[e["seat"]]
            text = text.replace("bot: ", "bot (heuristic, overridden by the search above): ",
                                1)
        if view is not None and not view.keeps({**e, "seat": e["seat"] + 1
                                                if e["seat"] >= 0 else -1}):
            continue
        if view is not None and view.only == "bot" and e["seat"] >= 0 \
                and text.startswith("    "):
            # the seat's own lines are left out: name it on each of its bot lines
            text = f"  {who(e['seat']).split(' ')[0]} " + text[4:]
        tag = "[bot]" if e["rule"] == "bot" else f"[{e['rule']}]"
        if k in ("setup", "round", "end"):
            tag = ""
        for part in text.split("\n"):
            lines.append(f"{part}  {tag}" if part and tag else part)
    return lines


#: event values that hold a code of the ruleset's lists, and the list naming it
_CODES = {"die": DICE, "face": SYMBOLS, "room": ROOMS}


def named(rec: dict) -> dict:
    """An event record with a name beside each code (``die_name``: "warrior",
    ``face_name``: "steel", ``room_name``: "vault"; a setup's ``rooms``: the floor's
    themes in slot order), as ``trace --format json`` prints it."""
    out = dict(rec)
    for key, names in _CODES.items():
        v = rec.get(key)
        if isinstance(v, int) and 0 <= v < len(names):
            out[f"{key}_name"] = names[v]
    if rec.get("event") == "setup":
        out["rooms"] = [ROOMS[rec[f"room_{i}"]] for i in range(1, 7)
                        if 0 <= rec.get(f"room_{i}", -1) < len(ROOMS)]
    return out


def seat_label(p: int, lin: int, cal: int, bot: str) -> str:
    return f"S{p + 1} {display_name(LINEAGES[lin])} {display_name(CALLINGS[cal])} ({bot})"
