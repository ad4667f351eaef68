"""Readable Abyss game logs from the kernel's event buffer (``deepsim trace``).

Every auction offer is one line: who was asked, the ally, the price and the answer (buys,
refuses, already bought this turn, cannot pay). Cards in hands and Council stacks are
shown (the trace is the designer's view, not a player's).
"""

from __future__ import annotations

from deepsim.rulesets.abyss import layout as L


def _n(k: int, word: str) -> str:
    """'1 pearl', '2 pearls'."""
    return f"{k} {word}{'' if k == 1 else 's'}"


def card(code: int) -> str:
    """'Crab 3' for an ally code, 'a monster' for MONSTER."""
    code = int(code)
    if code == L.MONSTER:
        return "a monster"
    return f"{L.RACE_TITLES[code // L.CODE_RACE_MUL]} {code % L.CODE_RACE_MUL}"


def _lord(prepared, lid: int) -> str:
    a = prepared.compiled["arrays"]
    row = a.lords[int(lid)]
    req = [L.RACE_TITLES[r] for r in range(L.N_RACES) if (int(row[L.LC_REQ]) >> r) & 1]
    keys = f", {int(row[L.LC_KEYS])} key" if row[L.LC_KEYS] else ""
    return (f"{prepared.compiled['lord_names'][int(lid)]} ({int(row[L.LC_VP])} VP, cost "
            f"{int(row[L.LC_COST])} in exactly {int(row[L.LC_NRACES])} race"
            f"{'s' if row[L.LC_NRACES] != 1 else ''}"
            f"{' incl. ' + '+'.join(req) if req else ''}{keys})")


def _names(prepared, si, n: int) -> list[str]:
    labels = prepared.compiled["bot_labels"]
    return [f"seat {p + 1} ({labels[int(si[0, p, L.S_BOT])]})" for p in range(n)]


def format_game(prepared, seed: int, game_index: int, gi, gf, si, sf, ev) -> list[str]:
    """The whole log of one traced game: header, turns, scores, result."""
    g = gi[0]
    n = int(g[L.G_PLAYERS])
    names = _names(prepared, si, n)
    a = prepared.compiled["arrays"]
    lines = [(f"Abyss game {game_index} of seed {seed}: {n} players, Depth row of "
              f"{int(a.rules[L.R_ROW_LEN])} slots, {a.lords.shape[0]} lords, "
              f"{a.locations.shape[0]} locations")]
    lines += [f"  {nm}" for nm in names]
    if prepared.compiled.get("lords_file"):
        lines.append(f"  lords from {prepared.compiled['lords_file']}")
    if prepared.placeholders:
        lines.append("  placeholder data: " + ", ".join(prepared.placeholders))
    for rule in prepared.skipped_rules:
        lines.append(f"  skipped rule: {rule}")
    lines += format_events(ev, prepared, names)
    lines.append("")
    lines.append("Final scores (AB-G4):")
    for p in range(n):
        s = si[0, p]
        lines.append(
            f"  {names[p]}: {int(s[L.S_SCORE])} = lords {int(s[L.S_LORD_VP])} + locations "
            f"{int(s[L.S_LOC_VP])} + allies {int(s[L.S_ALLY_VP])} + monsters "
            f"{int(s[L.S_MONSTER_VP])}; {_n(int(s[L.S_PEARLS]), 'pearl')}, {int(s[L.S_LORDS])} "
            f"lords, place {int(s[L.S_PLACE])}, win {sf[0, p, L.SF_WIN]:g}")
    cause = L.END_CAUSES[int(g[L.G_END_CAUSE])]
    by = L.TIEBREAKS[int(g[L.G_TIEBREAK])]
    who = ("unresolved (stopped by the safety cap end.max_turns)" if g[L.G_N_WINNERS] == 0
           else "shared" if g[L.G_WINNER_SEAT] < 0 else names[int(g[L.G_WINNER_SEAT])])
    lines.append(f"Result: {who} after {int(g[L.G_TURNS])} turns ({int(g[L.G_ROUNDS])} "
                 f"rounds), end: {cause}, decided by: {by}, margin {gf[0, L.GF_MARGIN]:g}")
    return lines


def format_events(ev, prepared, names: list[str]) -> list[str]:
    """One line per event (turn headers unindented, the rest indented)."""
    out: list[str] = []
    locs = prepared.compiled["location_vp"]
    rules = prepared.compiled["arrays"].rules
    refill_slot = int(rules[L.R_REFILL_SLOT])
    per_loc = int(rules[L.R_KEYS_PER_LOC])
    for row in ev:
        turn, p, kind = int(row[0]), int(row[1]), int(row[2])
        a, b, c, d, e, f = (int(x) for x in row[3:9])
        who = names[p] if 0 <= p < len(names) else f"seat {p + 1}"
        if kind == L.EV_SETUP:
            if a == 0:
                out.append(f"setup: {b} players, {c} Depth cards, {d} lords, {e} locations, "
                           f"{f} Monster tokens (AB-S1..S4)")
            else:
                out.append(f"  face-up location: tile {b} ({locs[b]} VP)")
        elif kind == L.EV_BOT:
            continue
        elif kind == L.EV_COURT_INIT:
            out.append(f"  Court slot {a + 1}: {_lord(prepared, b)}")
        elif kind == L.EV_TURN:
            out.append(f"turn {turn}: {who} ({_n(b, 'pearl')}, {_n(c, 'card')} in hand, "
                       f"{_n(d, 'lord')}, {_n(e, 'key')}; Threat at {f})")
        elif kind == L.EV_PLOT:
            out.append(f"  plots at Court for {c} pearl{'s' if c != 1 else ''}: "
                       f"{_lord(prepared, a)} revealed ({b} lords in the Court, {e} in the "
                       f"deck; {_n(d, 'pearl')} left)")
        elif kind == L.EV_REVEAL:
            out.append(f"  reveals {card(a)} into slot {b}{' (the last slot)' if c else ''}")
        elif kind == L.EV_MONSTER:
            out.append(f"  monster in slot {a}: the Threat token is at position {b}")
        elif kind == L.EV_OFFER:
            q = names[a] if 0 <= a < len(names) else f"seat {a + 1}"
            ans = L.OFFER_ANSWERS[d]
            tail = (f" (now {_n(e, 'pearl')})" if d == L.OF_BUY
                    else f" (has {_n(e, 'pearl')})")
            out.append(f"    offer {card(b)} to {q} for {c} pearl{'s' if c != 1 else ''}: "
                       f"{ans}{tail}")
        elif kind == L.EV_TAKE:
            how = "must take" if c else "takes"
            bonus = f" and gains {d} pearl{'s' if d != 1 else ''} (last slot)" if c else ""
            out.append(f"  {how} {card(a)} from slot {b} for free{bonus}; {_n(e, 'pearl')}")
        elif kind == L.EV_DECLINE:
            out.append(f"  declines {card(a)} in slot {b}")
        elif kind == L.EV_FIGHT:
            bits = []
            if b:
                bits.append(f"{b} Monster token{'s' if b != 1 else ''} ({c} VP)")
            if d:
                bits.append(f"{d} pearl{'s' if d != 1 else ''}")
            if e:
                bits.append(f"{e} Key token{'s' if e != 1 else ''}")
            if f:
                bits.append(f"{f} pearl{'s' if f != 1 else ''} for the last slot")
            out.append(f"  fights the monster at Threat position {a}: "
                       f"{', '.join(bits) or 'nothing left to take'}; Threat back to 1")
        elif kind == L.EV_LEAVE:
            out.append(f"  leaves the monster; the Threat token moves to {a}")
        elif kind == L.EV_STOP:
            out.append(f"  the exploration ends: {L.STOPS[a]}")
        elif kind == L.EV_RESHUFFLE:
            out.append(f"  the Depth deck is empty: {a} discarded cards reshuffled (AMB-A6)")
        elif kind == L.EV_CLEANUP:
            out.append(f"  clean-up: {a} all{'y' if a == 1 else 'ies'} to the Council, {b} "
                       f"monster{'s' if b != 1 else ''} discarded; Council stacks "
                       f"{c}/{d}/{e}/{f // 100}/{f % 100}")
        elif kind == L.EV_COUNCIL:
            out.append(f"  asks the Council: takes the {L.RACE_TITLES[a]} stack of {b} "
                       f"card{'s' if b != 1 else ''} (values sum {c})")
        elif kind == L.EV_RECRUIT:
            top = f" + {e} pearl{'s' if e != 1 else ''}" if e else ""
            out.append(f"  recruits {_lord(prepared, a)} from Court position {b}: {d} "
                       f"card{'s' if d != 1 else ''} worth {c}{top}; {_n(f, 'pearl')} left")
        elif kind == L.EV_PAY:
            out.append(f"    pays {c} x {L.RACE_TITLES[a]} {b}")
        elif kind == L.EV_COURT:
            fail = "; the deck could not fill it: END TRIGGER" if c else ""
            out.append(f"  slot {refill_slot} emptied: gains {a} pearl{'s' if a != 1 else ''}, the "
                       f"Court is refilled with {b} lord{'s' if b != 1 else ''} ({d} left in "
                       f"the deck){fail}")
        elif kind == L.EV_AFFILIATE:
            tie = " (a tie; chosen)" if c & (c - 1) else ""
            out.append(f"  affiliates {L.RACE_TITLES[a]} {b}{tie}; the rest are discarded")
        elif kind == L.EV_LOCATION:
            how = ("takes a face-up location" if a == 0
                   else f"draws {a} from the stack, keeps one (the rest face up)")
            out.append(f"  {per_loc} keys: the location action (AB-K1): {how}: tile {b} "
                       f"({c} VP); {d} face up, {e} in the stack")
        elif kind == L.EV_KEYS_PAID:
            out.append(f"    pays {a} Key token{'s' if a != 1 else ''} and covers {b} "
                       f"lord{'s' if b != 1 else ''} (AB-K3); {c} keys left")
        elif kind == L.EV_COVER:
            out.append(f"    covers {_lord(prepared, a)}")
        elif kind == L.EV_HAND_LIMIT:
            out.append(f"  hand limit: discards {a} card{'s' if a != 1 else ''}")
        elif kind == L.EV_PASS:
            out.append("  passes: no action is possible")
        elif kind == L.EV_TRIGGER:
            why = {L.END_LORDS: f"{names[b]} owns {c} lords",
                   L.END_COURT: "the Court could not be refilled",
                   L.END_BOTH: f"{names[b]} owns {c} lords and the Court could not be "
                               f"refilled"}.get(a, L.END_CAUSES[a])
            out.append(f"END TRIGGER (AB-G1): {why}; every other player takes one last turn")
        elif kind == L.EV_FINAL_AFF:
            out.append(f"final affiliation: {names[a]} adds {L.RACE_TITLES[b]} {c}")
        elif kind in (L.EV_SCORE, L.EV_END):
            continue
        else:
            out.append(f"  event {kind}: {a} {b} {c} {d} {e} {f}")
    return out
