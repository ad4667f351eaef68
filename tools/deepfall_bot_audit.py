"""Measure the DEEPFALL bots' known weaknesses (issue 15) on fixed seeds, paired.

Developer tool, not part of the package: it plays two fields with the kernel and reads
their tables and traced games.

- ``gm``: 4 players, every seat ``greedy`` or ``martyr`` (drawn per seat), random companies
  (seed 15). Figures: share of player-games with a crew Taken mid-game (not at the final
  collapse) without a Last Stand, per style and pooled; Throne claims.
- ``mixed``: ``scenarios/deepfall-mixed.yaml`` (2-6 players, every style) at seed 7.
  Figures: Throne, Forge and Vault claims and assaults, win shares by company, Lineage,
  Calling and bot (the paired comparison of two audits is ``--compare``).

Traced games (the first ``--traces`` of each field) give decision-level figures:
greedy Press Ons with 2 uncanceled Dread and how many of those turns end in a Setback,
assaults per room theme, crews Taken before they played a turn (B4) and, when the kernel
emits them, the shadow events 90-99 of a diagnostic patch (counted by kind).

    python tools/deepfall_bot_audit.py --games 20000 --traces 3000 --out /tmp/a.json
    python tools/deepfall_bot_audit.py --compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter

import numpy as np
import pandas as pd

from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.kernel import trace_game
from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES, ROOMS
from deepsim.runner import load_scenario

FIELDS = {
    "gm": {"name": "audit-gm", "ruleset": "deepfall", "players": 4, "seed": 15,
           "games": 1, "companies": {"unique": True}, "bots": ["greedy", "martyr"]},
}
THEMES = ("forge", "vault", "throne")
KNOBS_SET: list[str] = []


def field_scenario(name: str) -> dict:
    if name == "mixed":
        sc = load_scenario("scenarios/deepfall-mixed.yaml")
        return dict(sc)
    return dict(FIELDS[name])


def play(scenario: dict, games: int, sets: list[str]) -> tuple:
    sc = dict(scenario, games=games)
    prep = RULESET.prepare(sc, source=f"<audit {sc['name']}>", overrides=sets)
    g, s = RULESET.run_chunk(prep, 0, games)
    return prep, g, s


def seat_figures(s: pd.DataFrame) -> dict:
    mid = (s["taken_no_stand"] - s["taken_no_stand_final"]) > 0
    out = {"player_games": len(s),
           "feel_bad_mid_pg": float(mid.mean()),
           "feel_bad_pg": float((s["taken_no_stand"] > 0).mean()),
           "taken_no_stand_per_pg": float(s["taken_no_stand"].mean()),
           "taken_final_per_pg": float(s["taken_no_stand_final"].mean()),
           "crews_per_pg": float(s["crews"].mean()),
           "claims_per_pg": float(s["rooms_claimed"].mean()),
           "assaults_per_pg": float(s["assaults"].mean()),
           "setbacks_per_pg": float(s["setbacks"].mean()),
           "press_ons_per_pg": float(s["press_ons"].mean()),
           "last_stands_per_pg": float(s["last_stands"].mean()),
           "cash_outs_per_pg": float(s["cash_outs"].mean()),
           "glory_mean": float(s["glory"].mean())}
    if "taken_unplayed" in s.columns:
        out["taken_unplayed_per_pg"] = float(s["taken_unplayed"].mean())
    for th in THEMES:
        out[f"claims_{th}"] = int(s[f"claims_{th}"].sum())
    by_bot = {}
    for b, grp in s.groupby("bot", observed=True):
        m = (grp["taken_no_stand"] - grp["taken_no_stand_final"]) > 0
        by_bot[str(b)] = {"player_games": len(grp), "feel_bad_mid_pg": float(m.mean()),
                          "win": float(grp["win"].mean()), "fair": float(grp["fair"].mean()),
                          "claims_per_pg": float(grp["rooms_claimed"].mean()),
                          "glory_mean": float(grp["glory"].mean())}
    out["by_bot"] = by_bot
    return out


def _eff(lin: int, cal: int) -> dict:
    ln, cn = LINEAGES[lin], CALLINGS[cal]
    return {"faith_penalty": 1 if ln in ("dvergar", "gnoll") else 0,
            "no_faith": ln == "revenant", "immune": ln == "golem_born",
            "cancel": 1 if cn == "hierophant" else 0}


def trace_figures(prep, games: int) -> dict:
    a = prep.compiled["arrays"]
    labels = prep.compiled["bot_labels"]
    seed = int(prep.scenario["seed"])
    press2 = press2_setback = 0
    assaults = Counter()
    unplayed = 0
    shadow = Counter()
    for gidx in range(games):
        gi, _gf, si, _sf, ev = trace_game(np.int64(seed), np.int64(gidx), 200_000,
                                        *a.kernel_args())
        n = int(gi[0, L.G_PLAYERS])
        bots = [labels[int(si[0, p, L.S_BOT])] for p in range(n)]
        effs = [_eff(int(si[0, p, L.S_LINEAGE]), int(si[0, p, L.S_CALLING])) for p in range(n)]
        last_roll = [None] * n
        prod_faith = [0] * n
        turn_press2 = [False] * n
        played = [False] * n
        for r, p, kind, x1, x2, x3, x4, x5, x6, x7 in ev.tolist():
            if kind >= 90:
                shadow[int(kind)] += 1
                continue
            if kind == L.EV_PRODUCE:
                prod_faith[p] = x3                # Faith to spend after production
            elif kind == L.EV_ROLL:
                if last_roll[p] is None:          # first hand of a turn
                    turn_press2[p] = False
                last_roll[p] = (x4 + prod_faith[p], x7)   # faith, dread so far
                played[p] = True
            elif kind == L.EV_PRESS and bots[p] == "greedy":
                e = effs[p]
                if last_roll[p] is not None and not e["immune"]:
                    faith, dread = last_roll[p]
                    cancel = e["cancel"] + (0 if e["no_faith"]
                                            else max(0, faith - e["faith_penalty"]))
                    if dread - cancel == 2:
                        turn_press2[p] = True
            elif kind == L.EV_DREAD:
                if turn_press2[p]:
                    press2 += 1
                    setback = x3 >= 3
                    press2_setback += int(setback)
                last_roll[p] = None
                prod_faith[p] = 0
            elif kind == L.EV_ASSAULT:
                assaults[ROOMS[x3]] += 1
            elif kind == L.EV_MUSTER:
                played[p] = False
            elif kind == L.EV_TAKEN and not played[p] and not x2:
                unplayed += 1
    return {"traced_games": games, "greedy_turns_pressed_at_2_dread": press2,
            "of_which_setback": press2_setback,
            "setback_share": press2_setback / press2 if press2 else math.nan,
            "assaults_by_theme": dict(assaults), "taken_before_first_turn": unplayed,
            "shadow_events": {str(k): v for k, v in sorted(shadow.items())}}


def audit(games: int, traces: int, mixed_games: int, sets: list[str]) -> dict:
    out = {"sets": sets, "knobs": KNOBS_SET, "fields": {}}
    for name, n in (("gm", games), ("mixed", mixed_games)):
        t0 = time.time()
        prep, g, s = play(field_scenario(name), n, sets)
        f = {"games": n, "seats": seat_figures(s), "traces": trace_figures(prep, traces),
             "rounds_mean": float(g["rounds"].mean())}
        out["fields"][name] = f
        out.setdefault("_tables", {})[name] = s
        print(f"{name}: {n} games, {time.time() - t0:.0f} s", file=sys.stderr)
    return out


def win_table(s: pd.DataFrame, by: str) -> pd.DataFrame:
    grp = s.groupby(by, observed=True)
    return pd.DataFrame({"win": grp["win"].sum(), "fair": grp["fair"].sum(),
                         "n": grp.size()})


def paired(before: pd.DataFrame, after: pd.DataFrame, by: str) -> pd.DataFrame:
    """Win share per group after minus before on the same seats (same seed and games)."""
    keys = ["game", "seat"]
    m = before[keys + [by, "win", "fair"]].merge(after[keys + ["win"]], on=keys,
                                                  suffixes=("_a", "_b"))
    rows = []
    for name, grp in m.groupby(by, observed=True):
        d = grp["win_b"].to_numpy() - grp["win_a"].to_numpy()
        fair = grp["fair"].sum()
        se = d.std(ddof=1) * math.sqrt(len(d)) / fair if len(d) > 1 else math.nan
        rows.append({by: str(name), "n": len(d),
                     "before": grp["win_a"].sum() / fair, "after": grp["win_b"].sum() / fair,
                     "diff": d.sum() / fair, "diff_lo": d.sum() / fair - 1.96 * se,
                     "diff_hi": d.sum() / fair + 1.96 * se})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--mixed-games", type=int, default=10000)
    ap.add_argument("--traces", type=int, default=2000)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--knob", action="append", default=[],
                    help="STYLE.KNOB=VALUE: a bot style's knob for this audit (bots.yaml)")
    ap.add_argument("--out")
    ap.add_argument("--tables", help="folder for the seats tables (for --compare)")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="two --tables folders: paired win-share differences")
    args = ap.parse_args()
    if args.knob:
        from deepsim.rulesets.deepfall import bot_data
        for spec in args.knob:
            path, value = spec.split("=", 1)
            style, knob = path.split(".", 1)
            bot_data().styles[style].knobs[knob] = float(value)
            KNOBS_SET.append(spec)
    if args.compare:
        for field in ("gm", "mixed"):
            a = pd.read_parquet(f"{args.compare[0]}/{field}.parquet")
            b = pd.read_parquet(f"{args.compare[1]}/{field}.parquet")
            for by in ("bot", "lineage", "calling", "company"):
                t = paired(a, b, by)
                if by == "company":
                    t = t.reindex(t["diff"].abs().sort_values(ascending=False).index).head(8)
                print(f"\n[{field}] win/fair by {by}, paired (after - before):")
                print(t.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
        return
    res = audit(args.games, args.traces, args.mixed_games, args.set)
    tables = res.pop("_tables")
    if args.tables:
        from pathlib import Path
        Path(args.tables).mkdir(parents=True, exist_ok=True)
        for k, s in tables.items():
            s.to_parquet(f"{args.tables}/{k}.parquet")
    text = json.dumps(res, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
