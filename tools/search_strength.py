"""Strength and cost of the DEEPFALL search bot (issue 21; docs/performance.md).

    python tools/search_strength.py [--rollouts 8,32,128] [--games 2000] [--threads 1]

For each rollout count K: a search bot (``search`` style: greedy's heuristic, K rollouts per
option) against the strongest heuristic style (greedy, the highest win share of the
heuristic styles in 2-player games) in

- 2-player games of identical companies (both seats the same company; each deal played
  twice, seats swapped: ``rotate_seats``), over the six companies listed below;
- a 4-player field (one search seat, three greedy seats, random companies, seats rotated).

Prints the search bot's win share with its 95% Wilson interval (seat-games; the two plays
of a deal share its dungeon, so the interval is slightly optimistic), and games/s per core:
games per second of the process's CPU time (``time.process_time``, all threads; a busy
shared machine disturbs it less than wall time).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from deepsim.rulesets.deepfall import RULESET
from deepsim.stats import wilson_interval

COMPANIES = [("dvergar", "reaver"), ("wisp", "warden"), ("revenant", "hierophant"),
             ("gnoll", "prospector"), ("sylphid", "wardancer"), ("golem_born", "lorekeeper")]


def two_player(k: int, lin: str, cal: str, games: int, seed: int) -> dict:
    return {"name": f"s{k}-2p", "ruleset": "deepfall", "players": 2, "seed": seed,
            "games": games, "companies": {"unique": False}, "rotate_seats": True,
            "seats": [{"lineage": lin, "calling": cal, "bot": "search",
                       "knobs": {"rollouts": k}},
                      {"lineage": lin, "calling": cal, "bot": "greedy"}]}


def four_player(k: int, games: int, seed: int) -> dict:
    return {"name": f"s{k}-4p", "ruleset": "deepfall", "players": 4, "seed": seed,
            "games": games, "companies": {"unique": True}, "rotate_seats": True,
            "seats": [{"bot": "search", "knobs": {"rollouts": k}}, {"bot": "greedy"},
                      {"bot": "greedy"}, {"bot": "greedy"}]}


def play(sc: dict, rows: int):
    p = RULESET.prepare(sc, source="<search_strength>")
    t = time.process_time()
    g, s = RULESET.run_chunk(p, 0, rows)
    return g, s, time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rollouts", default="8,32,128")
    ap.add_argument("--games", type=int, default=2000, help="2-player games per K")
    ap.add_argument("--games4", type=int, default=800, help="4-player games per K")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2101)
    a = ap.parse_args()
    numba.set_num_threads(a.threads)
    # compile once outside the timings
    play(two_player(1, *COMPANIES[0], 2, a.seed), 2)
    for k in [int(x) for x in a.rollouts.split(",")]:
        wins = n = 0.0
        wall = 0.0
        played = 0
        per = max(2, a.games // len(COMPANIES) // 2 * 2)
        for lin, cal in COMPANIES:
            g, s, dt = play(two_player(k, lin, cal, per // 2, a.seed), per)
            mine = s[s["bot"].astype(str).str.startswith("search")]
            wins += float(mine["win"].sum())
            n += len(mine)
            wall += dt
            played += len(g)
        lo, hi = wilson_interval(np.array([wins]), np.array([n]))
        print(f"K={k:4d} 2p identical companies: search win share {wins / n:.3f} "
              f"[{float(lo[0]):.3f}, {float(hi[0]):.3f}] over {played} games; "
              f"{played / wall:.1f} games/s per core "
              f"({played} games in {wall:.1f} CPU s)", flush=True)
        rows = max(4, a.games4 // 4 * 4)
        g, s, dt = play(four_player(k, rows // 4, a.seed), rows)
        mine = s[s["bot"].astype(str).str.startswith("search")]
        w, m = float(mine["win"].sum()), len(mine)
        lo, hi = wilson_interval(np.array([w]), np.array([m]))
        print(f"K={k:4d} 4p field (3 greedy): search win share {w / m:.3f} "
              f"[{float(lo[0]):.3f}, {float(hi[0]):.3f}] (fair 0.25) over {len(g)} games; "
              f"{len(g) / dt:.1f} games/s per core", flush=True)


if __name__ == "__main__":
    main()
