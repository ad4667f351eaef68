"""Atlantis bots' blind spots and frozen endings, counted from traced games.

Developer tool, not part of the package. Replays ``--games`` games of a scenario with the
kernel's event log on (``kernel.trace_game``: the batch's code path) and counts, per game:

- ``hides_ok``, ``hides_undone``: successful hides (AT-A7) and those lost later in the
  same player-turn by the unit's own move or a current's push (AT-M6, AT-E1);
- ``leader_entry_deaths``: a leader destroyed by a Whirl Pool / Vent entry attack (AT-M7)
  on a move or push of its own side's turn; ``leader_risky_entries``: a leader entering
  such a hex (or being pushed into one) with no more hit points left than the hex's attack
  dice (damage tracked from the damage events; a Healing spell is not followed, so a healed
  leader may be counted);
- ``same_terrain_casts``: a terrain spell (Freeze excepted: its counters still act) cast on
  a hex that already has the terrain it makes (two Whirlpools on one hex);
- ``poison_leader_deaths``: a leader destroyed by poison (AT-X1);
- for a game the safety cap stopped: the units left per side, how many of them can move
  (MV > 0), and whether any of a side's movers can reach the enemy leader at all (a path of
  passable, non-lethal hexes open to it, AT-M5/M7/M8; units ignored), and the player-turn
  of the last attack.

    python tools/atlantis_bot_audit.py scenarios/atlantis.yaml --games 2000 --seed 1 \\
        --out /tmp/audit.parquet
    PYTHONPATH=/tmp/before python tools/atlantis_bot_audit.py ...    # another source tree

Prints the totals (and shares with 95% Wilson intervals); ``--out`` keeps the per-game
rows (parquet) for paired comparisons (``--compare A.parquet B.parquet``: per-game paired
differences with 95% normal intervals, the games matched by index).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np
import pandas as pd

import deepsim
from deepsim.rulesets.atlantis import layout as L


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def _terrain_map(prepared, seed: int, game: int):
    from deepsim.rulesets.atlantis import maps
    a = prepared.compiled["arrays"]
    w, h = int(a.rules[L.R_MAP_WIDTH]), int(a.rules[L.R_MAP_HEIGHT])
    if a.rules[L.R_MAP_SOURCE] > 0.5:
        return np.array(a.fixed_terrain, np.int64).copy(), w, h
    ter, _cur = maps.generate(a.gen, w, h, seed, game)
    return np.array(ter, np.int64).copy(), w, h


def _reach_leader(ter, a, start: int, goal: int, large: int) -> bool:
    """A path of passable, non-lethal hexes (open to a Large unit when ``large``) from
    ``start`` to a hex next to ``goal`` (units ignored)."""
    terrain = a.terrain
    nb = a.neighbors
    seen = {start}
    q = deque([start])
    while q:
        c = q.popleft()
        if a.dist[c, goal] <= 1:
            return True
        for d in range(nb.shape[1]):
            n = int(nb[c, d])
            if n < 0 or n in seen:
                continue
            t = ter[n]
            if not terrain[t, L.T_PASSABLE] or terrain[t, L.T_ENTRY_DEATH]:
                continue
            if large and not terrain[t, L.T_LARGE_OK]:
                continue
            seen.add(n)
            q.append(n)
    return False


def audit_game(prepared, game: int, max_events: int = 400_000) -> dict:
    """The counts of one traced game (see the module docstring)."""
    from deepsim.rulesets.atlantis.kernel import trace_game
    a = prepared.compiled["arrays"]
    seed = int(prepared.scenario["seed"])
    gi, _gf, _si, _sf, ev = trace_game(np.int64(seed), np.int64(game), max_events,
                                    *a.kernel_args())
    units = a.units
    spells = a.spells
    terrain = a.terrain
    ter, _w, _h = _terrain_map(prepared, seed, game)
    cell, utype, side, alive, dmg = {}, {}, {}, {}, {}
    hid_turn = {}
    out = {"game": game, "hides_ok": 0, "hides_undone": 0, "hides_undone_move": 0,
           "hides_undone_push": 0, "leader_entry_deaths": 0,
           "leader_risky_entries": 0, "same_terrain_casts": 0, "poison_leader_deaths": 0,
           "last_attack_turn": 0, "events": len(ev), "truncated": bool(gi[0, L.G_TRUNCATED]),
           "king_won": int(gi[0, L.G_WINNER_SIDE] == L.KING),
           "witch_won": int(gi[0, L.G_WINNER_SIDE] == L.WITCH),
           "turns": int(gi[0, L.G_TURNS])}
    entry_unit = -1          # the unit whose hazard entry the last events are about
    for row in ev:
        turn, _act, kind = int(row[0]), int(row[1]), int(row[2])
        x = [int(v) for v in row[3:]]
        if kind == L.EV_DESTROYED:
            via_entry = entry_unit == x[0]
        if not (kind == L.EV_DAMAGE and x[0] == entry_unit):
            entry_unit = x[0] if kind == L.EV_ENTER_HAZARD else -1
        if kind == L.EV_DEPLOY:
            i = x[0]
            cell[i], utype[i], side[i], alive[i], dmg[i] = x[2], x[1], x[4], True, 0
        elif kind == L.EV_MOVE or (kind == L.EV_CURRENT and x[4] == 0):
            i = x[0]
            if hid_turn.get(i) == turn:
                out["hides_undone"] += 1
                out["hides_undone_push" if kind == L.EV_CURRENT else "hides_undone_move"] += 1
                hid_turn.pop(i)
            cell[i] = x[3]
        elif kind == L.EV_HIDE and x[5] == 1:
            out["hides_ok"] += 1
            hid_turn[x[0]] = turn
        elif kind == L.EV_ENTER_HAZARD:
            i = x[0]                  # its cell: the move's or push's (a step on the way)
            t = utype.get(i, x[1])
            if units[t, L.U_LEADER] and x[4] == 0:
                ad = int(terrain[x[3], L.T_ENTRY_ATTACK])
                if units[t, L.U_DR] - dmg.get(i, 0) <= ad:
                    out["leader_risky_entries"] += 1
        elif kind == L.EV_DAMAGE:
            dmg[x[0]] = x[2]
        elif kind == L.EV_ATTACK:
            out["last_attack_turn"] = turn
        elif kind == L.EV_DESTROYED:
            i = x[0]
            alive[i] = False
            hid_turn.pop(i, None)
            if units[x[1], L.U_LEADER]:
                if via_entry:
                    out["leader_entry_deaths"] += 1
                if x[3] == L.END_POISON:
                    out["poison_leader_deaths"] += 1
        elif kind == L.EV_SPELL:
            sp, target = x[2], x[3]
            sets = int(spells[sp, L.SPC_SETS_TERRAIN])
            if sets >= 0 and 0 <= target < ter.shape[0]:
                if ter[target] == sets and sp != L.SP_FREEZE:
                    out["same_terrain_casts"] += 1
                ter[target] = sets
            if sp == L.SP_RESURRECTION and x[3] >= 0 and x[4] >= 0:
                cell[x[3]], alive[x[3]], dmg[x[3]] = x[4], True, 0   # back next to its caster
    if out["truncated"]:
        leaders = {s: next((i for i in alive if alive[i] and side.get(i) == s
                            and units[utype[i], L.U_LEADER]), None) for s in (0, 1)}
        for s, name in ((0, "witch"), (1, "king")):
            mine = [i for i in alive if alive[i] and side.get(i) == s]
            movers = [i for i in mine if units[utype[i], L.U_MV] > 0]
            foe = leaders[1 - s]
            out[f"left_{name}"] = len(mine)
            out[f"movers_{name}"] = len(movers)
            out[f"can_reach_{name}"] = bool(foe is not None and any(
                _reach_leader(ter, a, cell[i], cell[foe], int(units[utype[i], L.U_LARGE]))
                for i in movers))
    return out


def run(scenario: Path, games: int, seed: int | None, sets: list[str], first: int = 0
        ) -> pd.DataFrame:
    from deepsim import runner
    _rs, _sc, prep = runner.resolve(scenario, seed=seed, games=games, overrides=sets)
    rows = [audit_game(prep, g) for g in range(first, first + games)]
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> list[str]:
    n = len(df)
    lines = [f"games {n:,}; deepsim {deepsim.__file__}"]
    h, u = int(df["hides_ok"].sum()), int(df["hides_undone"].sum())
    lo, hi = wilson(u, h)
    lines.append(f"hides undone in the same turn: {u:,} of {h:,} successful hides "
                 f"({100 * u / max(h, 1):.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]; by a move "
                 f"{int(df['hides_undone_move'].sum()):,}, by a current "
                 f"{int(df['hides_undone_push'].sum()):,})")
    for col, what in (("leader_entry_deaths", "games lost by a leader's hazard entry"),
                      ("leader_risky_entries", "leader entries at <= the hex's dice"),
                      ("same_terrain_casts", "terrain spells cast on their own terrain"),
                      ("poison_leader_deaths", "games ended by poison on a leader")):
        k = int(df[col].sum())
        lo, hi = wilson(min(k, n), n)
        lines.append(f"{what}: {k:,} ({100 * k / n:.2f}% of games [{100 * lo:.2f}, "
                     f"{100 * hi:.2f}])")
    t = df[df["truncated"]]
    lines.append(f"stopped by the cap: {len(t):,}")
    if len(t):
        cw = t["can_reach_witch"].astype(bool).to_numpy()
        ck = t["can_reach_king"].astype(bool).to_numpy()
        lines.append(f"  where neither side has a mover that could reach the enemy leader: "
                     f"{int((~cw & ~ck).sum())}")
    return lines


def compare(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    m = a.merge(b, on="game", suffixes=("_a", "_b"))
    for col in ("hides_undone_move", "hides_undone_push"):
        for k in ("_a", "_b"):
            if col + k not in m.columns:
                m[col + k] = np.nan              # an audit made before the split
    lines = [f"paired games: {len(m):,} (B - A per game, 95% normal interval)"]
    for col in ("hides_ok", "hides_undone", "hides_undone_move", "hides_undone_push",
                "leader_entry_deaths", "leader_risky_entries",
                "same_terrain_casts", "poison_leader_deaths", "truncated", "king_won",
                "witch_won", "turns"):
        d = m[f"{col}_b"].astype(float) - m[f"{col}_a"].astype(float)
        se = float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else math.nan
        lines.append(f"  {col}: A {m[f'{col}_a'].astype(float).sum():,.0f}, B "
                     f"{m[f'{col}_b'].astype(float).sum():,.0f}; per game {d.mean():+.4f} "
                     f"[{d.mean() - 1.96 * se:+.4f}, {d.mean() + 1.96 * se:+.4f}]")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", nargs="?", type=Path)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = ap.parse_args(argv)
    if args.compare:
        print("\n".join(compare(pd.read_parquet(args.compare[0]),
                                pd.read_parquet(args.compare[1]))))
        return 0
    t0 = time.perf_counter()
    df = run(args.scenario, args.games, args.seed, args.sets, args.first)
    print("\n".join(summary(df)))
    print(f"({time.perf_counter() - t0:.0f} s)")
    if args.out:
        df.to_parquet(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
