"""Strength and cost of the DEEPFALL search bot (issue 21; docs/performance.md).

    python tools/search_strength.py [--rollouts 8,32,128] [--games 2000] [--threads 1]
                                    [--variants all,turn-ends,all@2]

For each rollout count K and each search variant (which decisions the bot searches: the
knobs ``search_room`` and ``search_press``; the target floor and the exit are always
searched; ``NAME@M`` adds ``search_margin: M``, the search overriding the heuristic only
by more than M standard errors): a search bot (``search`` style: greedy's heuristic, K rollouts per option)
against the strongest heuristic style (greedy, the highest win share of the heuristic
styles in 2-player games) in

- 2-player games of identical companies (both seats the same company; each deal played
  twice, seats swapped: ``rotate_seats``), over the six companies listed below;
- a 4-player field (one search seat, three greedy seats, random companies, seats rotated).

Prints the search bot's win share with its 95% Wilson interval (seat-games; the two plays
of a deal share its dungeon, so the interval is slightly optimistic), and games/s per core:
games per second of the process's CPU time (``time.process_time``, all threads; a busy
shared machine disturbs it less than wall time). Every variant plays the same games
(common random numbers: same seed, deals and game numbers), so each variant after the
first also gets its paired difference in win share against the first, with a 95% normal
interval over deals (the two seat-games of a deal summed: they are not independent).
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

#: which decisions a variant searches beyond the target floor and the exit
VARIANTS = {"all": {"search_room": 1, "search_press": 1},
            "turn-ends": {"search_room": 0, "search_press": 0},
            "room": {"search_room": 1, "search_press": 0},
            "press": {"search_room": 0, "search_press": 1}}


def two_player(knobs: dict, lin: str, cal: str, games: int, seed: int) -> dict:
    return {"name": "search-2p", "ruleset": "deepfall", "players": 2, "seed": seed,
            "games": games, "companies": {"unique": False}, "rotate_seats": True,
            "seats": [{"lineage": lin, "calling": cal, "bot": "search", "knobs": knobs},
                      {"lineage": lin, "calling": cal, "bot": "greedy"}]}


def four_player(knobs: dict, games: int, seed: int) -> dict:
    return {"name": "search-4p", "ruleset": "deepfall", "players": 4, "seed": seed,
            "games": games, "companies": {"unique": True}, "rotate_seats": True,
            "seats": [{"bot": "search", "knobs": knobs}, {"bot": "greedy"},
                      {"bot": "greedy"}, {"bot": "greedy"}]}


def play(sc: dict, rows: int):
    p = RULESET.prepare(sc, source="<search_strength>")
    t = time.process_time()
    g, s = RULESET.run_chunk(p, 0, rows)
    return g, s, time.process_time() - t


def search_wins(s, seats: int) -> np.ndarray:
    """The search seat's win per deal (float64[deals]): its seat-games of a deal summed
    (rows are game-major; each deal is ``seats`` consecutive games)."""
    mine = s[s["bot"].astype(str).str.startswith("search")].sort_values("game")
    return mine["win"].to_numpy(float).reshape(-1, seats).sum(axis=1)


def share(w: np.ndarray, seats: int) -> str:
    wins, n = float(w.sum()), len(w) * seats
    lo, hi = wilson_interval(np.array([wins]), np.array([n]))
    return f"{wins / n:.3f} [{float(lo[0]):.3f}, {float(hi[0]):.3f}]"


def paired(w: np.ndarray, base: np.ndarray, seats: int) -> str:
    d = (w - base) / seats                 # per deal: difference in win share
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    return f"{d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rollouts", default="8,32,128")
    ap.add_argument("--variants", default="all",
                    help=f"comma list of {', '.join(VARIANTS)} (the first is the base)")
    ap.add_argument("--games", type=int, default=2000, help="2-player games per K")
    ap.add_argument("--games4", type=int, default=800, help="4-player games per K")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2101)
    a = ap.parse_args()
    numba.set_num_threads(a.threads)
    variants = a.variants.split(",")
    # compile once outside the timings
    play(two_player({"rollouts": 1}, *COMPANIES[0], 2, a.seed), 2)
    for k in [int(x) for x in a.rollouts.split(",")]:
        base2 = base4 = None
        for v in variants:
            name, _, margin = v.partition("@")
            knobs = {"rollouts": k, "search_margin": float(margin or 0)} | VARIANTS[name]
            per = max(2, a.games // len(COMPANIES) // 2 * 2)
            ws, cpu, played = [], 0.0, 0
            for lin, cal in COMPANIES:
                g, s, dt = play(two_player(knobs, lin, cal, per // 2, a.seed), per)
                ws.append(search_wins(s, 2))
                cpu += dt
                played += len(g)
            w2 = np.concatenate(ws)
            extra = "" if base2 is None else f"; vs {variants[0]}: {paired(w2, base2, 2)}"
            base2 = w2 if base2 is None else base2
            print(f"K={k:4d} {v:9s} 2p identical companies: search win share "
                  f"{share(w2, 2)} over {played} games{extra}; {played / cpu:.1f} games/s "
                  f"per core ({cpu:.1f} CPU s)", flush=True)
            if a.games4 <= 0:
                continue
            rows = max(4, a.games4 // 4 * 4)
            g, s, dt = play(four_player(knobs, rows // 4, a.seed), rows)
            w4 = search_wins(s, 4)
            extra = "" if base4 is None else f"; vs {variants[0]}: {paired(w4, base4, 4)}"
            base4 = w4 if base4 is None else base4
            print(f"K={k:4d} {v:9s} 4p field (3 greedy): search win share {share(w4, 4)} "
                  f"(fair 0.25) over {len(g)} games{extra}; {len(g) / dt:.1f} games/s "
                  f"per core", flush=True)


if __name__ == "__main__":
    main()
