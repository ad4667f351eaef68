"""Turn-cap draws of Atlantis bot mirrors per map, with and without the standoff breaker.

Developer tool, not part of the package (issue 15). For each mirror (aggressive vs
aggressive, defensive vs defensive) and each map (generated maps, and each fixed map of
``scenarios/maps/``) it plays ``--games`` games with the styles as in ``bots.yaml`` and the
same games (same seed: same maps, set-ups and dice streams) with the breaker switched off
on both sides (``standoff_turns: 0``, ``standoff_lead: 0``), and prints the turn-cap draw
share of each (95% Wilson interval), the paired difference (per-game mean, 95% normal
interval), the Sea Witch : Sea King wins, the mean length, attacks and kills per game.

    python tools/atlantis_standoff_audit.py --games 2000 --out /tmp/atl.json
    python tools/atlantis_standoff_audit.py --styles defensive --maps generated \\
        --knobs standoff_turns=2,standoff_lead=0.01      # another breaker setting as "on"
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from deepsim.rulesets.atlantis import RULESET

MAPS = ["generated", *sorted(str(p) for p in Path("scenarios/maps").glob("*.txt"))]
OFF = {"standoff_turns": 0, "standoff_lead": 0.0}


def scenario(style: str, map_file: str, seed: int, games: int, knobs: dict) -> dict:
    side = {"bot": style, **({"knobs": knobs} if knobs else {})}
    sc = {"name": f"standoff-{style}", "ruleset": "atlantis", "players": 2, "seed": seed,
          "games": games, "sides": {"sea_witch": dict(side), "sea_king": dict(side)}}
    if map_file != "generated":
        sc["map"] = {"file": str(Path(map_file).resolve())}
    return sc


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def play(style: str, m: str, seed: int, games: int, knobs: dict, sets: list[str]):
    prep = RULESET.prepare(scenario(style, m, seed, games, knobs), source="<audit>",
                           overrides=sets)
    g, _ = RULESET.run_chunk(prep, 0, games)
    return g


def summary(g) -> dict:
    w = g["winner_side"].to_numpy()
    n = len(w)
    draws = int((w < 0).sum())
    lo, hi = wilson(draws, n)
    return {"games": n, "draws": draws, "draw_share": draws / n, "draw_lo": lo,
            "draw_hi": hi, "witch": int((w == 0).sum()), "king": int((w == 1).sum()),
            "turns_mean": float(g["turns"].mean()), "attacks_mean": float(g["attacks"].mean()),
            "kills_mean": float(g["kills"].mean())}


def paired(a, b) -> tuple[float, float, float]:
    """Mean per-game difference b - a of the draw indicator and its 95% normal interval."""
    d = (b["winner_side"].to_numpy() < 0).astype(float) - \
        (a["winner_side"].to_numpy() < 0).astype(float)
    m = float(d.mean())
    h = 1.96 * float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return m, m - h, m + h


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--styles", default="aggressive,defensive")
    ap.add_argument("--maps", default=",".join(MAPS))
    ap.add_argument("--set", action="append", default=[], help="a rule override PATH=VALUE")
    ap.add_argument("--knobs", default="",
                    help="k=v,...: knob values for the 'on' games (default: bots.yaml)")
    ap.add_argument("--out")
    args = ap.parse_args()
    on_knobs = {k: float(v) for k, v in (kv.split("=", 1) for kv in args.knobs.split(",")
                                         if kv)}
    rows = []
    for style in args.styles.split(","):
        for m in args.maps.split(","):
            t0 = time.time()
            g_on = play(style, m, args.seed, args.games, on_knobs, args.set)
            g_off = play(style, m, args.seed, args.games, OFF, args.set)
            on, off = summary(g_on), summary(g_off)
            dm, dlo, dhi = paired(g_off, g_on)
            row = {"style": style, "map": Path(m).stem, "on": on, "off": off,
                   "draw_change": dm, "draw_change_lo": dlo, "draw_change_hi": dhi,
                   "seconds": time.time() - t0}
            rows.append(row)
            print(f"{style} {row['map']}: draws {100 * off['draw_share']:.1f}% -> "
                  f"{100 * on['draw_share']:.1f}% [{100 * on['draw_lo']:.1f}, "
                  f"{100 * on['draw_hi']:.1f}]  paired {100 * dm:+.1f} pp "
                  f"[{100 * dlo:+.1f}, {100 * dhi:+.1f}]  Witch:King "
                  f"{off['witch']}:{off['king']} -> {on['witch']}:{on['king']}  turns "
                  f"{off['turns_mean']:.1f} -> {on['turns_mean']:.1f}  attacks "
                  f"{off['attacks_mean']:.1f} -> {on['attacks_mean']:.1f}  kills "
                  f"{off['kills_mean']:.2f} -> {on['kills_mean']:.2f}", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(
            {"games": args.games, "seed": args.seed, "knobs_on": on_knobs, "sets": args.set,
             "rows": rows}, indent=1, default=lambda x: x.item() if isinstance(
                 x, np.generic) else str(x)))


if __name__ == "__main__":
    main()
