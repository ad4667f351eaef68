"""Readable Rivals traces: the kernel's event rows (kernel.py, ``layout.EVENTS``) as lines
and as records (``deepsim trace --format json``).

Every activation, every move with its rock rolls, every attack with both pools after their
modifiers, every die (extra dice of explosions marked ``+``), net hits, wounds and Aether,
every Focus paid, search, loot card, Lurker reveal and Lurker-phase roll, each
elimination, and the end: the same kernel code path as the batch, so the last line is the
batch row's result.

Tiles are named by their place in the map's text grid (``r<row>c<col>``, the grid printed
at the top); models as ``S<seat>.<unit>#<index>``.
"""

from __future__ import annotations

import numpy as np

from deepsim.rulesets import common
from deepsim.rulesets.rivals import hexgrid
from deepsim.rulesets.rivals import layout as L

HOW_LOOT = ("equipped", "sold", "dropped (no slot)", "kept in the Loot Supply")
PASSES = ("passes a movement activation", "passes an attack activation", "ends the turn")


class _Names:
    """Names of tiles, models, colours and cards of one traced game."""

    def __init__(self, prepared, gi, ev):
        comp = prepared.compiled
        self.units = comp["units"]
        self.colours = comp["colours"]
        self.lurkers = comp["lurkers"]
        self.loot = comp["loot"]
        self.events = comp["events"]
        self.builds = comp["builds"]
        self.labels = comp["bot_labels"]
        coords = comp["geometry"]
        offs = [hexgrid.offset_from_axial(int(q), int(r)) for q, r in coords]
        r0 = min(r for _, r in offs)
        r0 -= r0 & 1
        c0 = min(c for c, _ in offs)
        self.tile = [f"r{r - r0}c{c - c0}" for c, r in offs]
        self.models: dict[int, str] = {}
        a = comp["arrays"]
        n = int(gi[0, L.G_PLAYERS])
        # the models in the kernel's order: seat by seat, unit by unit (kernel.setup)
        k = 0
        for s in range(n):
            b = int(ev[(ev[:, 2] == L.EV_SEAT) & (ev[:, 3] == s)][0, 4])
            for u in range(a.units.shape[0]):
                for _ in range(int(a.teams[b, n, u])):
                    self.models[k] = f"S{s + 1}.{self.units[u]}#{k}"
                    k += 1

    def model(self, m: int) -> str:
        if m < 0:
            return f"Lurker slot {-1 - m}"
        return self.models.get(int(m), f"model {m}")

    def t(self, i: int) -> str:
        return self.tile[int(i)] if 0 <= int(i) < len(self.tile) else "reserve"

    def pool(self, packed: int) -> str:
        dice = []
        for c, name in enumerate(self.colours):
            n = (int(packed) >> (6 * c)) & 63
            dice += [name[0].upper()] * n
        return " ".join(dice) if dice else "(no dice)"

    def colour(self, c: int) -> str:
        return self.colours[int(c)]


def _by(by: int) -> str:
    if by >= 0:
        return f"seat {by + 1}"
    return {L.BY_LURKER: "a Lurker", L.BY_EVENT: "an event"}.get(int(by), "-")


def event_text(e: np.ndarray, nm: _Names, dice_line: list[str]) -> str | None:
    """One event row as text (None: folded into the next line, as the dice of a roll)."""
    kind = int(e[2])
    a, b, c, d, f, g, h, i = (int(x) for x in e[3:11])
    name = L.EVENTS[kind]
    if kind == L.EV_DIE:
        face = L.FACE_NAMES[c]
        dice_line.append(f"{'+' if d else ''}{nm.colour(b)[0].upper()}:{face}")
        return None
    lead = f"r{int(e[0])} "
    if kind == L.EV_SETUP:
        return (f"{lead}setup: {a} players, map {c} of the pool ({d} mulligans), bank "
                f"{f} Aether, decks: {g} Lurker, {h} loot, {i} event cards (RV-S1..S9)")
    if kind == L.EV_SEAT:
        return f"{lead}seat {a + 1}: build {nm.builds[b]}, bot {nm.labels[c]}"
    if kind == L.EV_DEPLOY:
        where = nm.t(c) if c >= 0 else "reserve (RV-S8)"
        return f"{lead}  deploy {nm.model(b)} -> {where}"
    if kind == L.EV_TURN:
        return (f"{lead}--- seat {a + 1}'s turn {b}: {c} Aether, {d} models on the board, "
                f"{f} in reserve")
    if kind == L.EV_ACTIVATION:
        act = L.ACTS[b]
        if act in ("search_coral", "search_den"):
            return f"{lead}activation: {act.replace('_', ' ')} by {nm.model(f)}"
        return f"{lead}activation: {act} on {nm.t(c)} ({d} models)"
    if kind == L.EV_MOVE:
        ma = L.MACTIONS[g]
        res = f"{nm.t(c)} -> {nm.t(d)}" if c != d else f"stays on {nm.t(c)}"
        short = "" if d == f else f" (aimed at {nm.t(f)})"
        return (f"{lead}  move {nm.model(b)}: {res}{short}, {h} steps planned"
                f"{'' if ma == 'none' else ', ' + ma}")
    if kind == L.EV_ROCK:
        ok = "enters" if g else "fails: the move ends (RV-T1)"
        return (f"{lead}    rock roll for {nm.t(c)}: {nm.colour(d)} die shows "
                f"{L.FACE_NAMES[f]}, {ok}")
    if kind == L.EV_SWIM:
        return f"{lead}    {nm.model(b)} swims (RV-M4)"
    if kind == L.EV_LAND:
        return f"{lead}    {nm.model(b)} lands on {nm.t(c)}"
    if kind == L.EV_CHARGE:
        return f"{lead}    {nm.model(b)} charges ({c} attack degrade this turn)"
    if kind == L.EV_REINFORCE:
        return f"{lead}  reinforcement: {nm.model(b)} enters on {nm.t(c)} (RV-A8)"
    if kind == L.EV_ATTACK:
        tgt = nm.model(d) if c == 0 else f"the {nm.lurkers[i]} (Lurker slot {d})"
        return (f"{lead}  attack: {nm.model(b)} on {nm.t(g)} -> {tgt} on {nm.t(h)}, range "
                f"{f}, in line of sight")
    if kind == L.EV_POOL:
        side = "attack" if a == 0 else "defence"
        extra = []
        if d:
            extra.append(f"{d} Focus upgrade(s)")
        if a == 0 and f:
            extra.append(f"{f} Charge degrade(s)")
        if a == 1 and f:
            extra.append(f"{f} automatic shield(s)")
        if g:
            extra.append("swimming")
        note = f" ({', '.join(extra)})" if extra else ""
        return f"{lead}    {side} pool of {nm.model(b)}: {nm.pool(c)}{note}"
    if kind == L.EV_RESULT:
        return (f"{lead}    result: {a} hits - {b} shields - {c} automatic = {d} net, "
                f"{f} wounds; Aether +{g} attacker, +{h} defender; {i} extra dice")
    if kind == L.EV_KILL:
        if a < 0:
            return f"{lead}    the {nm.lurkers[d]} is slain by seat {c + 1} (a cave now)"
        return (f"{lead}    {nm.model(b)} is destroyed by {_by(c)} (cost {d}"
                f"{', the kill needed the extra dice' if f else ''})")
    if kind == L.EV_FOCUS:
        paid = f"pays {c} Aether" if c else "free (minion already paid, RV-C9)"
        return f"{lead}    Focus for {nm.model(b)}: {paid}"
    if kind == L.EV_SEARCH:
        if d == 0:
            return (f"{lead}  {nm.model(b)} searches the coral on {nm.t(c)}: "
                    f"{nm.colour(f)} die shows {L.FACE_NAMES[g]} ({'loot' if h else 'nothing'})")
        return f"{lead}  {nm.model(b)} searches the den on {nm.t(c)} (RV-X3)"
    if kind == L.EV_LOOT:
        return f"{lead}    loot: {nm.loot[c]} for {nm.model(b)}, {HOW_LOOT[d]}"
    if kind == L.EV_LURKER_REVEAL:
        if b < 0:
            return f"{lead}    the den on {nm.t(a)} stays empty: no Lurker card left (AMB-16)"
        what = "treasure" if d else f"the {nm.lurkers[b]} (Lurker slot {f})"
        return f"{lead}    the den on {nm.t(a)} reveals {what}"
    if kind == L.EV_LURKER_PHASE:
        return f"{lead}=== Lurker phase (RV-P3)"
    if kind == L.EV_LURKER_ATTACK:
        return (f"{lead}  the {nm.lurkers[b]} on {nm.t(c)} attacks the {d} model(s) beside "
                f"it with {nm.pool(f)}")
    if kind == L.EV_EVENT:
        return f"{lead}event card: {L.EVENT_EFFECTS[c]} {d} (RV-E1)"
    if kind == L.EV_ELIMINATED:
        return f"{lead}*** seat {a + 1} is out (last model lost to {_by(b)}), place {c}"
    if kind == L.EV_PASS:
        return f"{lead}  seat {a + 1} {PASSES[b]}"
    if kind == L.EV_RESHUFFLE:
        return f"{lead}  the Lurker deck takes back {b} defeated Lurkers (AMB-16)"
    if kind == L.EV_BANK_EMPTY:
        return f"{lead}the Aether bank is empty (AMB-24)"
    if kind == L.EV_END:
        return None
    return f"{lead}{name} {a} {b} {c} {d} {f} {g} {h} {i}"


def _lines(ev: np.ndarray, nm: _Names) -> list[str]:
    out: list[str] = []
    dice: list[str] = []
    pending_side = None
    for e in ev:
        kind = int(e[2])
        if kind == L.EV_DIE:
            side = int(e[3])
            if pending_side is not None and side != pending_side and dice:
                out.append(f"r{int(e[0])}     dice: {' '.join(dice)}")
                dice = []
            pending_side = side
            event_text(e, nm, dice)
            continue
        if dice:
            out.append(f"r{int(e[0])}     dice: {' '.join(dice)}")
            dice = []
            pending_side = None
        line = event_text(e, nm, dice)
        if line is not None:
            out.append(line)
    return out


def result_line(gi: np.ndarray, si: np.ndarray, sf: np.ndarray) -> str:
    g = gi[0]
    n = int(g[L.G_PLAYERS])
    winners = [s + 1 for s in range(n) if sf[0, s, L.SF_WIN] > 0]
    end = L.END_CAUSES[int(g[L.G_END_CAUSE])]
    if not winners:
        # AMB-26: the round cap (a safety cap) stopped it: unresolved, no place for survivors
        who = "no result (unresolved: stopped at the round cap end.max_rounds)"
    elif len(winners) == 1:
        who = f"seat {winners[0]} wins"
    else:
        who = "seats " + ", ".join(map(str, winners)) + " share the win"
    places = [int(si[0, s, L.S_PLACE]) for s in range(n)]
    return (f"Result: {who} ({end}) after {int(g[L.G_ROUNDS])} rounds and "
            f"{int(g[L.G_TURNS])} turns; places "
            + ", ".join(f"S{s + 1}={p if p > 0 else '-'}" for s, p in enumerate(places)))


def format_game(prepared, seed: int, game: int, gi, si, sf, ev) -> list[str]:
    """The trace lines of one game: header (seats, map, placeholders, skipped rules), the
    events, the result (equal to the batch row)."""
    from deepsim.rulesets.rivals import maps
    nm = _Names(prepared, gi, ev)
    n = int(gi[0, L.G_PLAYERS])
    a = prepared.compiled["arrays"]
    m = int(a.pool_first[n] + gi[0, L.G_MAP])
    lines = [(f"Rivals game {game} of seed {seed}: {n} players, map {int(gi[0, L.G_MAP])} of "
             f"the {'fixed map' if prepared.compiled['fixed_map'] else 'pool'} "
             f"({int(gi[0, L.G_MULLIGANS])} mulligans)")]
    for s in range(n):
        lines.append(f"  seat {s + 1}: build {nm.builds[int(si[0, s, L.S_BUILD])]}, bot "
                     f"{nm.labels[int(si[0, s, L.S_BOT])]}")
    if prepared.placeholders:
        lines.append("  PLACEHOLDER data: " + ", ".join(prepared.placeholders))
    for rule in prepared.skipped_rules:
        lines.append(f"  skipped rule: {rule}")
    grid = maps.format_grid(prepared.compiled["geometry"], a.mtype[m], a.mowner[m])
    lines.append("  map (S1..S4 spawns, s sand, c coral, r rock, d den; rows r0.., "
                 "columns c0..):")
    lines += ["    " + row for row in grid.splitlines()]
    lines += _lines(ev, nm)
    lines.append("")
    lines.append(result_line(gi, si, sf))
    return lines


def records(prepared, seed: int, game: int, gi, si, sf, ev) -> list[dict]:
    """The trace as records: a header, one record per event (round, seat, event, rule
    values a..h and the line), the result."""
    nm = _Names(prepared, gi, ev)
    n = int(gi[0, L.G_PLAYERS])
    out: list[dict] = [{"type": "header", "ruleset": "rivals", "seed": seed, "game": game,
                        "players": n,
                        "seats": [{"seat": s + 1,
                                   "build": nm.builds[int(si[0, s, L.S_BUILD])],
                                   "bot": nm.labels[int(si[0, s, L.S_BOT])]}
                                  for s in range(n)],
                        "placeholders": list(prepared.placeholders),
                        "skipped_rules": list(prepared.skipped_rules)}]
    dice: list[str] = []
    for e in ev:
        text = event_text(e, nm, dice)
        out.append({"type": "event", "round": int(e[0]),
                    "seat": int(common.seat_number(np.int64(e[1]))),
                    "event": L.EVENTS[int(e[2])],
                    "values": [int(x) for x in e[3:11]],
                    "text": text if text is not None else dice[-1] if dice else ""})
    out.append({"type": "result", "text": result_line(gi, si, sf),
                "winner_seat": int(common.seat_number(np.int64(gi[0, L.G_WINNER_SEAT]))),
                "rounds": int(gi[0, L.G_ROUNDS]), "truncated": bool(gi[0, L.G_TRUNCATED])})
    return out
