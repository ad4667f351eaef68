"""Measure an Atlantis bot knob change: speed, paired win shares and a head-to-head.

Both modes set the knob values given (``name=value[,name=value]``) on every bot profile
of the bench scenario (scenarios/atlantis.yaml's field: each side's bot drawn from
aggressive / defensive) in the compiled knob array, so the old and the new setting run
from the same compiled code (docs/performance.md, Atlantis fourth pass).

Usage (from the checkout, ``PYTHONPATH=$PWD``)::

    python tools/atlantis_knob_audit.py speed ROUNDS edge_moves=1
    python tools/atlantis_knob_audit.py play GAMES edge_moves=1 [--deals N] [--seed S]

``speed``: CPU time (``time.process_time()``), best of 6 x 400 games on 1 numba thread
per variant, the old setting (the scenario's) and the new in turn, ROUNDS rounds; prints
games/s per core per round and the mean ratio with its standard error.

``play``: (a) the same GAMES games (seed S, game indices 0 .. GAMES-1: common random
numbers) with the old and the new setting: the Sea Witch's, the Sea King's and the draw
share, Wilson intervals, and the paired change with its interval from the per-game
differences; (b) the new setting against the old, for every pair of styles in the pool
(each side's style fixed), each deal played twice with the seats swapped: the new
setting's score (wins + half the draws) with a 95% interval over the deals (0.5 = as
strong).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time

import numba
import numpy as np


def _setup():
    from deepsim.bench import _prepare
    numba.set_num_threads(1)
    rs, prep = _prepare("atlantis", 2)
    rs.warm_up(prep)
    return prep.compiled["arrays"]


def _knobs(base: np.ndarray, spec: str) -> np.ndarray:
    from deepsim.rulesets.atlantis import layout as L
    kn = base.copy()
    for item in spec.split(","):
        name, value = item.split("=")
        kn[:, L.KNOBS.index(name)] = float(value)
    return kn


def _args(arr, knobs=None, side_bot=None) -> tuple:
    """``kernel.play_games``' arrays with the knob table and the sides' bots replaced."""
    change = {}
    if knobs is not None:
        change["knobs"] = knobs
    if side_bot is not None:
        change["side_bot"] = np.asarray(side_bot, np.int64)
    return dataclasses.replace(arr, **change).kernel_args()


def speed(rounds: int, spec: str) -> None:
    """Best of 6 x 400 games per variant and round, CPU time, the variants in turn."""
    from deepsim.rulesets.atlantis import kernel as K
    arr = _setup()
    variants = {"old": _args(arr), spec: _args(arr, _knobs(arr.knobs, spec))}
    best = {v: [] for v in variants}
    for r in range(rounds):
        for v, args in variants.items():
            top = 0.0
            for rep in range(6):
                t0 = time.process_time()
                K.play_games(np.int64(1), np.int64(rep * 400), np.int64(400), *args)
                top = max(top, 400 / (time.process_time() - t0))
            best[v].append(top)
            print(f"round {r}: {v} {top:.1f} games/s per core", flush=True)
    old, new = (np.array(x) for x in best.values())
    ratio = new / old - 1.0
    se = ratio.std(ddof=1) / math.sqrt(len(ratio)) if len(ratio) > 1 else math.nan
    print(f"old mean {old.mean():.1f}, {spec} mean {new.mean():.1f}: "
          f"{100 * ratio.mean():+.1f}% per round (standard error {100 * se:.1f}%)")


def _share(x: np.ndarray) -> str:
    from deepsim.stats import wilson_interval
    lo, hi = wilson_interval(int(x.sum()), len(x))
    return f"{x.mean():.4f} [{float(lo):.4f}, {float(hi):.4f}]"


def _mean_ci(d: np.ndarray, signed: bool = True) -> str:
    from deepsim.report.metrics import mean_ci
    m, lo, hi = mean_ci(d)
    f = "+.4f" if signed else ".4f"
    return f"{m:{f}} [{lo:{f}}, {hi:{f}}]"


def play(games: int, spec: str, deals: int, seed: int) -> None:
    """(a) paired shares on the shipped field; (b) head-to-head with seats swapped."""
    from deepsim.rulesets.atlantis import kernel as K
    from deepsim.rulesets.atlantis import layout as L
    arr = _setup()
    old, new = arr.knobs.copy(), _knobs(arr.knobs, spec)

    def run(knobs, count, side_bot=None):
        return K.play_games(np.int64(seed), np.int64(0), np.int64(count),
                            *_args(arr, knobs, side_bot))[0][:, L.G_WINNER_SIDE]

    w0, w1 = run(old, games), run(new, games)
    print(f"(a) the shipped field, {games} paired games (seed {seed}): old | {spec} | "
          "paired change")
    for name, code in (("Sea Witch", L.WITCH), ("Sea King", L.KING), ("draw", -1)):
        a, b = w0 == code, w1 == code
        print(f"  {name:9s} {_share(a)} | {_share(b)} | "
              f"{_mean_ci(b.astype(float) - a.astype(float))}")
    print(f"  same winner in {np.mean(w0 == w1):.3f} of the pairs")
    both = np.vstack([old, new])
    p = len(old)
    scores = []
    print(f"(b) head-to-head, {deals} deals per style pair, seats swapped: {spec}'s score")
    for wb in (int(x) for x in arr.bot_pool):
        for kb in (int(x) for x in arr.bot_pool):
            as_w = run(both, deals, [wb + p, kb])        # the new setting as the Sea Witch
            as_k = run(both, deals, [wb, kb + p])        # ... as the Sea King, same deals
            sw = np.where(as_w == L.WITCH, 1.0, np.where(as_w == -1, 0.5, 0.0))
            sk = np.where(as_k == L.KING, 1.0, np.where(as_k == -1, 0.5, 0.0))
            scores.append((sw + sk) / 2)
            print(f"  styles {wb} vs {kb}: as Sea Witch {sw.mean():.4f}, as Sea King "
                  f"{sk.mean():.4f}, mean {scores[-1].mean():.4f}", flush=True)
    d = np.concatenate(scores)
    print(f"  over {len(d)} deals: {_mean_ci(d, signed=False)} (0.5 = as strong)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("speed", "play"))
    ap.add_argument("count", type=int, help="rounds (speed) or paired games (play)")
    ap.add_argument("knobs", help="new setting: name=value[,name=value]")
    ap.add_argument("--deals", type=int, default=10_000, help="per style pair (play)")
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    if a.mode == "speed":
        speed(a.count, a.knobs)
    else:
        play(a.count, a.knobs, a.deals, a.seed)


if __name__ == "__main__":
    main()
