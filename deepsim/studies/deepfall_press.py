"""Game length against how often the table presses on (DEEPFALL, §6A.2, §9, claim B1).

§9 ties the game's length to the table's greed: every Press On adds a Dread, a full track
pulls the Maw a step further (§6B.1). So "~11 rounds" is not one number but a function of
how often players press on. This study draws that curve, and marks which pressing a
competent player would actually choose (the bot knob enters only as a constrained
robustness dimension, never as a free knob to make a claim hold):

1. **The curve.** The mixed field (``scenarios/deepfall-mixed.yaml``: 2-6 players, random
   companies, the shipped styles drawn per seat) with every seat's ``press_max`` (Press Ons
   per turn at most) set to each value of the grid, the rest of each style as shipped;
   (``faction_bots``: every company draws one of the three styles, equal weights, each at
   that value); per value: Press Ons per player-turn (``press_ons`` / (rounds x players)), and the
   mean rounds per player count with a 95% t interval. Every value plays games
   ``0 .. games-1`` of the scenario's seed (common random numbers).
2. **The constraint.** The same field with seat 1 playing ``balanced`` (the claims' named
   reference style) at each ``press_max``, every other seat as shipped, on the same
   games: seat 1's win share. A value is *admissible* when
   its win share is within ``tolerance`` (2 points) of the best value's on the grid: a
   best response restricted to this knob (respond's search over every knob is not run
   here). The paired difference to the best value has a 95% interval (games are paired).

A claim about length then reads "holds for tables that press on at rate r" and the
designer sees whether the admissible pressing gets there.

``python -m deepsim.studies.deepfall_press --games 20000 --out DIR`` writes ``press.md``
(the section), ``press.png`` (the curve), ``press_curve.parquet`` (one row per share and
player count) and ``press_seat.parquet`` (one row per seat-1 setting).
"""

from __future__ import annotations

import argparse
import io
import math
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml
from scipy import stats

from deepsim.errors import InputError
from deepsim.tune.play import Player

__all__ = ["GRID", "press_curve", "press_md"]

SCENARIO = Path("scenarios/deepfall-mixed.yaml")
#: press_max values (bots.yaml bounds 0-8; the shipped styles use 1-4)
#: seat 1's settings: press_max values (bots.yaml bounds 0-8), -1 = as shipped
GRID = (-1, 0, 1, 2, 4, 8)
#: the share of seat draws that never press on (press_max 0), the rest as shipped
SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: admissible: within this much win rate of the best setting (2 points)
TOLERANCE = 0.02
MAX_SEATS = 6


#: the shipped styles of the mixed field (drawn per seat with equal weights)
STYLES = ("balanced", "greedy", "martyr")
#: the style seat 1 plays in the constraint (the claims' named reference style)
SEAT_STYLE = "balanced"


def _scenario(tmp: Path, name: str, **keys) -> Path:
    p = tmp / f"{name}.yaml"
    p.write_text(yaml.safe_dump({"extends": str(SCENARIO.resolve()), "name": name,
                                 **keys}), encoding="utf-8")
    return p


def _table_wide(q: float) -> dict:
    """faction_bots: every company draws one of the shipped styles (equal weights, as the
    field's ``bots:`` pool), in a share ``q`` of the draws with ``press_max`` 0 (never
    presses on), else as shipped."""
    from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES

    styles = {f"{s}_still": {"base": s, "press_max": 0} for s in STYLES}
    mix = {}
    for s_ in STYLES:
        if q > 0:
            mix[f"{s_}_still"] = round(q, 6)
        if q < 1:
            mix[s_] = round(1 - q, 6)
    return {"styles": styles,
            "factions": {f"{lin} {cal}": dict(mix) for lin in LINEAGES for cal in CALLINGS}}


def _play(path: Path, games: int, threads: int | None):
    pl = Player(path, games=games, threads=threads)
    return pl.play(pl.prepare({}))


def press_curve(games: int = 20_000, shares=SHARES, grid=GRID, threads: int | None = None,
                progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play the curve and the constraint (see the module docstring).

    Returns
    -------
    curve : DataFrame
        One row per (``share``, ``players``; players 0 = all counts): ``share`` (float64,
        the share of seat draws that never press on), ``press_per_turn`` (Press Ons per
        player-turn), ``rounds`` (mean), ``low``, ``high`` (95% t interval), ``games``.
    seat : DataFrame
        One row per seat-1 setting (``press_max``: an int, or -1 = as shipped): ``win``
        (seat 1's win rate, ties split), ``press_per_turn`` (seat 1's), ``diff`` (paired
        difference to the best setting's), ``diff_low``, ``diff_high`` (95% normal
        interval), ``admissible`` (bool: ``diff`` >= -0.02).
    """
    rows, wins, rates = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for q in shares:
            if progress:
                progress(f"share {q:g} of seats never pressing: the table")
            g, st = _play(_scenario(tmp, f"press-share-{q:g}", faction_bots=_table_wide(q)),
                          games, threads)
            for n, gg in [(0, g)] + list(g.groupby("players")):
                ss = st[st["game"].isin(gg["game"])]
                r = gg["rounds"].to_numpy(float)
                half = stats.t.ppf(0.975, len(r) - 1) * r.std(ddof=1) / math.sqrt(len(r))
                rows.append({"share": q, "players": int(n),
                             "press_per_turn": float(ss["press_ons"].sum()
                                                     / ss["turns"].sum()),
                             "rounds": r.mean(), "low": r.mean() - half,
                             "high": r.mean() + half, "games": len(r)})
        for v in grid:
            if progress:
                progress(f"seat 1 {SEAT_STYLE} at press_max {v}")
            seat = {"bot": SEAT_STYLE} if v < 0 else {"bot": SEAT_STYLE,
                                                      "knobs": {"press_max": int(v)}}
            _g, s1 = _play(_scenario(tmp, f"press-seat-{v}",
                                     seats=[seat] + [{"bot": "any"}] * (MAX_SEATS - 1)),
                           games, threads)
            s1 = s1[s1["seat"] == 1].sort_values("game")
            wins[v] = s1["win"].to_numpy(float)
            rates[v] = float(s1["press_ons"].sum() / s1["turns"].sum())
    curve = pd.DataFrame(rows)
    best = max(wins, key=lambda k: wins[k].mean())
    out = []
    for v in grid:
        d = wins[v] - wins[best]
        half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if v != best else 0.0
        out.append({"press_max": v, "win": wins[v].mean(), "press_per_turn": rates[v],
                    "diff": d.mean(), "diff_low": d.mean() - half,
                    "diff_high": d.mean() + half, "admissible": bool(d.mean() >= -TOLERANCE)})
    return curve, pd.DataFrame(out)


def admissible_shares(curve: pd.DataFrame, seat: pd.DataFrame) -> set[float]:
    """Shares of the curve whose every component (never pressing: press_max 0; as
    shipped: -1) is an admissible setting for one seat."""
    ok = dict(zip(seat["press_max"], seat["admissible"], strict=True))
    return {float(q) for q in curve["share"].unique()
            if (q == 0 or ok.get(0, False)) and (q == 1 or ok.get(-1, False))}


def press_png(curve: pd.DataFrame, seat: pd.DataFrame, band=(10.0, 12.0)) -> bytes:
    """The curve: mean rounds (95% t intervals) against Press Ons per player-turn, one line
    per player count, a point per share of never-pressing seats; admissible points filled,
    others hollow; B1's band shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    ax.axhspan(*band, color="0.9", label="B1: ~11 rounds")
    ok = admissible_shares(curve, seat)
    for n, c in curve[curve["players"] > 0].groupby("players"):
        c = c.sort_values("press_per_turn")
        line, = ax.plot(c["press_per_turn"], c["rounds"], "-", lw=1, label=f"{n} players")
        ax.errorbar(c["press_per_turn"], c["rounds"],
                    yerr=[c["rounds"] - c["low"], c["high"] - c["rounds"]], fmt="none",
                    ecolor=line.get_color(), lw=0.8)
        for _, r in c.iterrows():
            ax.plot(r["press_per_turn"], r["rounds"], "o", ms=4, color=line.get_color(),
                    mfc=line.get_color() if float(r["share"]) in ok else "white")
    ax.set_xlabel("Press Ons per player-turn (a share of seats never pressing, the rest "
                  "as shipped)", fontsize=8)
    ax.set_ylabel("mean rounds per game")
    ax.set_title("DEEPFALL: game length against how often the table presses on", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.text(0.01, 0.005, "filled: every seat's setting within 2 points of win rate of the "
             "best press_max for one seat (paired games); hollow: not admissible",
             fontsize=6)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def press_md(curve: pd.DataFrame, seat: pd.DataFrame, games: int, seed: int,
             image: str | None = None, band=(10.0, 12.0)) -> str:
    """The section "Game length against how often the table presses on" (markdown)."""
    counts = sorted(int(n) for n in curve["players"].unique() if n > 0)
    ok = admissible_shares(curve, seat)
    lines = ["### Game length against how often the table presses on", "",
             (f"The mixed field with a share of the seats' style draws never pressing on "
              f"(`press_max` 0; the rest of each shipped style unchanged; the other draws "
              f"as shipped), {games:,} games of seed {seed} per share (the same games for "
              "every share). Rounds: mean and 95% t interval per player count; B1's band "
              f"is [{band[0]:g}, {band[1]:g}]. A share is *admissible* when each setting "
              "in it is within 2 points of win rate of the best setting for one seat: "
              f"seat 1 plays `{SEAT_STYLE}` at each `press_max` (or as shipped) against the "
              "shipped field on the same games (a best response over this knob alone; "
              "the paired difference with its 95% interval). "
              "`python -m deepsim.studies.deepfall_press`."),
             "", "| seats never pressing | Press Ons per player-turn | "
             + " | ".join(f"{n}p rounds" for n in counts) + " | admissible |",
             "|---|---|" + "---|" * len(counts) + "---|"]
    for q in sorted(curve["share"].unique()):
        c = curve[curve["share"] == q].set_index("players")
        cells = [f"{c.loc[n, 'rounds']:.2f} [{c.loc[n, 'low']:.2f}, {c.loc[n, 'high']:.2f}]"
                 for n in counts]
        lines.append(f"| {q:.0%} | {c.loc[0, 'press_per_turn']:.3f} | " + " | ".join(cells)
                     + f" | {'yes' if float(q) in ok else 'no'} |")
    lines += ["", f"Seat 1 (`{SEAT_STYLE}`) alone, against the shipped field:", "",
              ("| press_max | its Press Ons per turn | win rate | vs the best (95%) | "
              "admissible |"), "|---|---|---|---|---|"]
    for _, r in seat.iterrows():
        name = "as shipped" if r["press_max"] < 0 else str(int(r["press_max"]))
        lines.append(f"| {name} | {r['press_per_turn']:.3f} | {r['win']:.4f} | "
                     f"{r['diff']:+.4f} [{r['diff_low']:+.4f}, {r['diff_high']:+.4f}] | "
                     f"{'yes' if r['admissible'] else 'no'} |")
    per = curve[curve["players"] > 0]
    inb = {q: bool(((c["low"] >= band[0]) & (c["high"] <= band[1])).all())
           for q, c in per.groupby("share")}
    hit = [q for q, v in inb.items() if v]
    lines += ["", "Shares that put every player count's mean inside the band (whole "
              "interval): " + (", ".join(f"{q:.0%}" + ("" if q in ok else " (not admissible)")
                                          for q in hit) or "none of those played") + "."]
    if image:
        lines += ["", f"![Game length against Press Ons per player-turn]({image})"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.deepfall_press",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", required=True, help="folder for press.md, press.png and the "
                                                 "two parquet tables")
    ap.add_argument("--image", default=None, help="the PNG's path as press.md links it "
                                                  "(default press.png)")
    a = ap.parse_args(argv)
    try:
        if a.games < 2:
            raise InputError(f"expected at least 2 games, got {a.games}", key="--games")
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        curve, seat = press_curve(a.games, threads=a.threads,
                                  progress=lambda m: print(m, file=sys.stderr))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seed = int(yaml.safe_load(SCENARIO.read_text())["seed"])
    (out / "press.png").write_bytes(press_png(curve, seat))
    curve.to_parquet(out / "press_curve.parquet")
    seat.to_parquet(out / "press_seat.parquet")
    (out / "press.md").write_text(press_md(curve, seat, a.games, seed,
                                           image=a.image or "press.png"), encoding="utf-8")
    print(out / "press.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
