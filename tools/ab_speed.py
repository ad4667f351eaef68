"""Interleaved A/B rounds of a kernel's speed: two source trees, the bench's CPU-time figure.

Usage::

    python tools/ab_speed.py TREE_A TREE_B [TREE_C ...] [--ruleset deepfall]
                             [--players 4] [--games 20000] [--repeats 6] [--rounds 4]

Each tree is a folder holding a ``deepsim`` package (a checkout, or ``git archive`` of a
commit). For each round, and in turn (A B C, then C B A, ...), a fresh process imports that
tree (``PYTHONPATH``), loads its kernel from numba's cache (the first round compiles;
the cache is keyed by the sources, so the trees do not share entries), plays ``run_chunk``
of the ruleset's bench scenario at ``--players`` on one numba thread, and reports the best
of ``--repeats`` batches of ``--games`` games as games/s of CPU time
(``time.process_time()``: what a busy machine disturbs least; the figure ``deepsim bench``
prints as "1T CPU g/s"). Prints every round and each tree's mean change against A.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import json, sys, time
import numba
numba.set_num_threads(1)
from deepsim.bench import _prepare
ruleset, players, games, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rs, prep = _prepare(ruleset, players)
rs.run_chunk(prep, 0, 64)               # compile or load, warm the caches
best = float("inf")
for r in range(repeats):
    c = time.process_time()
    rs.run_chunk(prep, 1000 + r * games, games)
    best = min(best, time.process_time() - c)
print("@@" + json.dumps({"cpu_games_per_s": games / best}))
"""


def one(tree: str, ruleset: str, players: int, games: int, repeats: int) -> float:
    """games/s of CPU time, best of ``repeats`` batches, in a fresh process on ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", _CHILD, ruleset, str(players), str(games),
                          str(repeats)], env=env, check=True, capture_output=True, text=True,
                         cwd=os.path.abspath(tree))
    line = [x for x in out.stdout.splitlines() if x.startswith("@@")][-1]
    return json.loads(line[2:])["cpu_games_per_s"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", help="A (the reference), B, and more trees")
    ap.add_argument("--ruleset", default="deepfall")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args(argv)
    trees = a.trees
    names = [chr(ord("A") + i) for i in range(len(trees))]
    for tree in trees:                  # compile (or load) before the timed rounds
        one(tree, a.ruleset, a.players, min(a.games, 200), 1)
    res: dict[str, list[float]] = {k: [] for k in names}
    for r in range(a.rounds):
        order = names if r % 2 == 0 else names[::-1]
        for k in order:
            res[k].append(one(trees[names.index(k)], a.ruleset, a.players, a.games,
                              a.repeats))
        ref = res["A"][-1]
        print(f"round {r + 1}: " + "  ".join(
            f"{k} {res[k][-1]:,.0f}" + ("" if k == "A" else f" ({res[k][-1] / ref - 1:+.1%})")
            for k in names), flush=True)
    ma = statistics.mean(res["A"])
    for k, tree in zip(names, trees, strict=True):
        m = statistics.mean(res[k])
        print(f"{k} {tree}: mean {m:,.1f} games/s of CPU ({m / ma - 1:+.2%} against A)")
    print(f"{a.ruleset} {a.players} players, best of {a.repeats} x {a.games:,} games, "
          f"{a.rounds} rounds")


if __name__ == "__main__":
    main()
