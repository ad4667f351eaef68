"""Strength and cost of the DEEPFALL search bot, company by company (docs/performance.md).

    python tools/search_strength.py play --label new --base greedy [--knobs k=v,...]
        [--rollouts 32] [--companies all|six|Lineage:Calling,...]
        [--opponents greedy,martyr,balanced,cautious] [--deals 100] [--seed 4601]
        [--players 2] --out FILE.csv
    python tools/search_strength.py compare A.csv [B.csv ...] [--min 0.55]

``play``: for each company and each opponent style, 2-player games of identical companies
(both seats the company; each deal played twice with the seats swapped: ``rotate_seats``;
with ``--players N``, N seats of the company, each deal played in its N rotations):
one seat a search bot (the style ``--base`` with ``rollouts`` and ``--knobs``; ``--base
auto:FILE`` reads a base style per company from a CSV with columns company, base), the
other the opponent. Writes one row per deal: label, company, opponent, deal, the search
seat's wins over the deal's two games (1/k for a k-way tie, as the kernel counts), and
the cell's CPU seconds (``time.process_time`` on one numba thread: games/s per core).

Every run with the same ``--seed`` and ``--deals`` plays the same deals (the game's own
stream depends only on seed and game index), so two files are paired deal by deal:
``compare`` prints each file's win share per opponent with its 95% Wilson interval
(seat-games; the two plays of a deal share its dungeon, so slightly optimistic), the
lowest company and the companies below ``--min``, games/s per core, and each later
file's paired difference in win share against the first with a 95% normal interval over
deals (a deal's two seat-games summed: they are not independent).
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from deepsim.rulesets.deepfall import RULESET
from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES, display_name
from deepsim.stats import wilson_interval

SIX = [("dvergar", "reaver"), ("wisp", "warden"), ("revenant", "hierophant"),
       ("gnoll", "prospector"), ("sylphid", "wardancer"), ("golem_born", "lorekeeper")]


def companies(spec: str) -> list[tuple[str, str]]:
    if spec == "all":
        return [(a, b) for a in LINEAGES for b in CALLINGS]
    if spec == "six":
        return SIX
    return [tuple(x.split(":")) for x in spec.split(",")]   # type: ignore[misc]


def name(lin: str, cal: str) -> str:
    return f"{display_name(lin)} {display_name(cal)}"


def scenario(base: str, knobs: dict, lin: str, cal: str, opponent: str, deals: int,
             seed: int, players: int = 2) -> dict:
    return {"name": f"search-{players}p", "ruleset": "deepfall", "players": players,
            "seed": seed, "games": deals, "companies": {"unique": False},
            "rotate_seats": True,
            "seats": [{"lineage": lin, "calling": cal, "bot": base, "knobs": knobs}]
            + [{"lineage": lin, "calling": cal, "bot": opponent}] * (players - 1)}


def strongest_bases(comps: list[tuple[str, str]], seed: int, deals: int) -> dict[str, str]:
    """Per company, its strongest shipped heuristic in 2-player games of the company
    against itself: both seats draw their bot from the non-baseline heuristic styles
    (every style without rollouts that is not a baseline), seats swapped per deal; the
    style with the highest win share over ``deals`` deals of a seed other than the
    measurement's (so that the choice is not fitted to the games it is judged on)."""
    bd = RULESET.bot_data()
    pool = [n for n, st in bd.styles.items()
            if not st.baseline and st.knobs.get("rollouts", 0) == 0]
    out = {}
    for lin, cal in comps:
        sc = {"name": "strongest", "ruleset": "deepfall", "players": 2, "seed": seed,
              "games": deals, "companies": {"unique": False}, "rotate_seats": True,
              "bots": pool, "seats": [{"lineage": lin, "calling": cal},
                                      {"lineage": lin, "calling": cal}]}
        _g, s = RULESET.run_chunk(RULESET.prepare(sc, source="<strongest>"), 0, 2 * deals)
        per = s.groupby(s["bot"].astype(str))["win"].mean()
        out[name(lin, cal)] = str(per.idxmax())
        print(f"strongest heuristic of {name(lin, cal)}: {per.idxmax()} "
              f"({', '.join(f'{k} {v:.3f}' for k, v in per.items())})", flush=True)
    return out


def parse_knobs(text: str) -> dict:
    out = {}
    for part in [p for p in text.split(",") if p]:
        k, v = part.split("=")
        out[k.strip()] = float(v)
    return out


def play(a) -> None:
    numba.set_num_threads(1)
    knobs = {"rollouts": float(a.rollouts)} | parse_knobs(a.knobs)
    bases = {}
    if a.base.startswith("auto:"):
        bases = dict(pd.read_csv(a.base[5:])[["company", "base"]].itertuples(index=False))
    elif a.base == "strongest":
        bases = strongest_bases(companies(a.companies), a.seed + 1, a.pick_deals)
    # compile (or load) the kernels outside the timings
    lin, cal = companies(a.companies)[0]
    RULESET.run_chunk(RULESET.prepare(scenario(bases.get(name(lin, cal), a.base)
                                               if bases else a.base, knobs, lin, cal,
                                               "greedy", 1, a.seed), source="<warm>"), 0, 2)
    out = Path(a.out)
    done = set()
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old["company"], old["opponent"], strict=True))
    new = not out.exists()
    with out.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["label", "company", "opponent", "base", "deal", "wins", "cpu_s"])
        for lin, cal in companies(a.companies):
            for opp in a.opponents.split(","):
                comp = name(lin, cal)
                if (comp, opp) in done:
                    continue
                base = bases.get(comp, a.base)
                sc = scenario(base, knobs, lin, cal, opp, a.deals, a.seed, a.players)
                p = RULESET.prepare(sc, source="<search_strength>")
                t = time.process_time()
                _g, s = RULESET.run_chunk(p, 0, a.players * a.deals)
                dt = time.process_time() - t
                wins = _search_wins(s, a.players)
                for d, x in enumerate(wins):
                    w.writerow([a.label, comp, opp, base, d, f"{x:.6g}", f"{dt:.3f}"])
                fh.flush()
                n = a.players * a.deals
                print(f"{a.label} {comp:24s} vs {opp:9s}: {wins.sum() / n:.3f} "
                      f"({n / dt:.1f} games/s per core)", flush=True)


def _search_wins(s: pd.DataFrame, players: int = 2) -> np.ndarray:
    """The search seat's wins per deal (its ``players`` seat-games summed; rows game-major,
    a deal's plays consecutive games). The search seat is the one whose bot is not the
    opponent's style name (knob overrides label it ``name*``)."""
    mine = s[s["bot"].astype(str).str.endswith("*")].sort_values("game")
    return mine["win"].to_numpy(float).reshape(-1, players).sum(axis=1)


def share(w: np.ndarray, players: int = 2) -> str:
    wins, n = float(w.sum()), players * len(w)
    lo, hi = wilson_interval(np.array([wins]), np.array([n]))
    return f"{wins / n:.3f} [{float(lo[0]):.3f}, {float(hi[0]):.3f}]"


def paired(w: np.ndarray, base: np.ndarray, players: int = 2) -> str:
    d = (w - base) / players
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    return f"{d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]"


def compare(a) -> None:
    frames = [pd.read_csv(f) for f in a.files]
    first = frames[0]
    key = ["company", "opponent", "deal"]
    for f, df in zip(a.files, frames, strict=True):
        label = df["label"].iloc[0]
        cells = df.groupby(["company", "opponent"], sort=False)
        cpu = cells["cpu_s"].first().sum()
        k = a.players
        games = k * len(df)
        print(f"\n{label} ({os.path.basename(f)}): {games} games, "
              f"{games / cpu:.1f} games/s per core ({cpu:.0f} CPU s)")
        for opp, g in df.groupby("opponent", sort=False):
            per = g.groupby("company")["wins"].sum() / (k * g.groupby("company").size())
            low = per[per < a.min]
            line = (f"  vs {opp:9s} {share(g['wins'].to_numpy(), k)}; lowest {per.min():.3f} "
                    f"({per.idxmin()}); {len(low)} of {len(per)} companies below {a.min}")
            if df is not first:
                m = g.merge(first, on=key, suffixes=("", "_0"))
                if len(m):
                    line += (f"; vs {first['label'].iloc[0]} on {len(m)} deals: "
                             f"{paired(m['wins'].to_numpy(), m['wins_0'].to_numpy(), k)}")
            print(line)
            if a.verbose:
                for c, v in per.sort_values().items():
                    print(f"      {c:24s} {v:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("play")
    p.add_argument("--label", required=True)
    p.add_argument("--base", default="greedy")
    p.add_argument("--knobs", default="")
    p.add_argument("--rollouts", type=int, default=32)
    p.add_argument("--companies", default="all")
    p.add_argument("--opponents", default="greedy,martyr,balanced,cautious")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=4601)
    p.add_argument("--pick-deals", type=int, default=2000,
                   help="deals per company to find its strongest heuristic (--base strongest)")
    p.add_argument("--players", type=int, default=2,
                   help="seats: the search seat and players - 1 opponents (all the company)")
    p.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("files", nargs="+")
    c.add_argument("--players", type=int, default=2, help="the files' --players")
    c.add_argument("--min", type=float, default=0.55)
    c.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    play(a) if a.cmd == "play" else compare(a)


if __name__ == "__main__":
    main()
