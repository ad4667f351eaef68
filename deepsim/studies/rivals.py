"""``reports/rivals/README.md``: the designer's questions (scope part A, §A1) answered from
measured runs.

``python -m deepsim.studies.rivals RUNS_DIR --out reports/rivals/README.md`` (run
by ``make rivals-findings``) reads the run directories under ``RUNS_DIR``:

- ``mixed``: scenarios/rivals.yaml (2-4 players, builds and heuristic bots drawn per seat);
- ``no-lurkers``, ``no-mulligan``, ``no-chains``: the same scenario and seed with
  ``lurkers.enabled=false``, ``map.mulligan.tries=0``, ``explode.recursive=false`` (their
  games are paired with the first games of ``mixed``: same seeds, maps drawn from the
  same stream, same builds and bots);
- ``vs-random``: scenarios/rivals-vs-random.yaml (each heuristic style against ``random``
  at 2 players);
- ``mirror``: scenarios/rivals-mirror.yaml (four copies of one build at 4 players);
- ``hearts`` and ``hearts-plus``: scenarios/rivals-hearts.yaml, and the same with one more
  heart on every unit of one copy (paired games);

and writes every number of the answers from them, with the intervals of
:mod:`deepsim.rulesets.rivals.report` (Wilson, t, Newcombe, Holm), so the text cannot drift
from the runs. Each answer names the placeholder data it rests on.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm
from statsmodels.stats.multitest import multipletests

from deepsim.report import metrics as M
from deepsim.report.load import RunData
from deepsim.reporting import load_run
from deepsim.rulesets.rivals.report import DEPENDS, build_matrix, builds_by_players, map_spread
from deepsim.studies.pagewriter import page_main

ALPHA = 0.05
RUNS = ("mixed", "no-lurkers", "no-mulligan", "no-chains", "vs-random", "mirror", "hearts",
        "hearts-plus")


def _pct(x: float, d: int = 1) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{d}f}%"


def _share(k: float, n: int) -> str:
    if n <= 0:
        return "-"
    lo, hi = M.wilson(k, n, ALPHA)
    return f"{_pct(k / n)} ({100 * lo:.1f}-{100 * hi:.1f}%)"


def _mean(x, spec: str = ".2f") -> str:
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return "-"
    m, lo, hi = M.mean_ci(x, ALPHA)
    return f"{m:{spec}} ({lo:{spec}}-{hi:{spec}})"


def _dep(run: RunData, key: str) -> str:
    active = [p for p in DEPENDS[key] if p in run.placeholders]
    return ("*Rests on placeholder data: " + ", ".join(f"`{p}`" for p in active) + ".*"
            if active else "*Rests on no placeholder data.*")


def _table(df: pd.DataFrame) -> list[str]:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(str(v) for v in row) + " |")
    return out


def _runs_lines(runs: dict[str, RunData]) -> list[str]:
    out = []
    for key, r in runs.items():
        over = f", `{' '.join('--set ' + o for o in r.overrides)}`" if r.overrides else ""
        out.append(f"- `{key}`: {r.scenario_name}, seed {r.seed}, {r.n_games:,} games, "
                   f"params `{r.params_hash[:12]}`{over}")
    return out


def _balance(run: RunData) -> pd.DataFrame:
    seats, _ = run.balance_seats()
    return seats


def paired_winner_change(a: RunData, b: RunData) -> tuple[int, int]:
    """Games (by index, in both runs) whose winning seat differs: (changed, paired)."""
    ga = a.games.set_index("game")["winner_seat"]
    gb = b.games.set_index("game")["winner_seat"]
    common = ga.index.intersection(gb.index)
    return int((ga.loc[common] != gb.loc[common]).sum()), len(common)


# ---- the answers ---------------------------------------------------------------------------

def q1(m: RunData) -> list[str]:
    t = builds_by_players(_balance(m), ALPHA)
    rows = [{"Players": r.players, "Build": f"`{r.build}`", "Seat-games": f"{r.games:,}",
             "Win share": f"{_pct(r.share)} ({100 * r.low:.1f}-{100 * r.high:.1f}%)",
             "x fair": f"{r.ratio:.2f}"} for r in t.itertuples()]
    best = t.loc[t.groupby("players")["ratio"].idxmax()]
    worst = t.loc[t.groupby("players")["ratio"].idxmin()]
    lead = "; ".join(f"{int(b.players)} players `{b.build}` {b.ratio:.2f} x fair, weakest "
                     f"`{w.build}` {w.ratio:.2f}" for b, w in zip(best.itertuples(),
                                                                 worst.itertuples(),
                                                                 strict=True))
    out = ["## Q1 Builds per player count", "",
           (f"**Strongest and weakest build at each player count:** {lead}. The builds are "
           "team lists of the five placeholder archetypes (no faction exists yet): this is a "
           "question about team shapes under the budget (125 Aether at 2 players, 75 at 3-4)."),
           "", *_table(pd.DataFrame(rows)), ""]
    mx = build_matrix(_balance(m))
    if not mx.empty:
        names = sorted(set(mx["build"].astype(str)))
        grid = []
        for a in names:
            row = {"Row vs column": f"`{a}`"}
            for b in names:
                h = mx[(mx["build"].astype(str) == a) & (mx["build_o"].astype(str) == b)]
                row[b] = (f"{_pct(float(h['sum'].iloc[0] / h['count'].iloc[0]))}"
                          if len(h) else "-")
            grid.append(row)
        out += ["2 players, the row build's win share against the column build:", "",
                *_table(pd.DataFrame(grid)), ""]
    out += [_dep(m, "q1"), ""]
    return out


def q3(m: RunData) -> list[str]:
    s = _balance(m)
    rows = []
    for b, g in s.groupby("build", observed=True, sort=True):
        turns = g["turns"].sum()
        rows.append({"Build": f"`{b}`", "Models": f"{g['models_start'].mean():.1f}",
                     "In reserve at the start": f"{g['reserve_start'].mean():.1f}",
                     "Attacks per attack activation":
                         f"{g['attacks'].sum() / max(1, g['attack_acts'].sum()):.2f}",
                     "Attacks per turn": f"{g['attacks'].sum() / max(1, turns):.2f}",
                     "x fair": f"{g['win'].sum() / g['fair'].sum():.2f}"})
    df = pd.DataFrame(rows)
    return ["## Q3 Swarm against elite", "",
            ("One attack activation attacks with every model of a tile (up to three small "
            "models, or one large): the swarm makes the most attacks per activation, the "
            "elite build the fewest. Which wins is the Q1 tables (same budget)."), "",
            *_table(df), "", _dep(m, "q3"), ""]


def q4(m: RunData) -> list[str]:
    s = _balance(m)
    rows = []
    per = s.groupby(["players", "seat"])["win"].agg(wins="sum", games="count").reset_index()
    fl = M.first_against_last(per, ALPHA).set_index("players")
    for n, g in per.groupby("players", sort=True):
        f, last, d = g.iloc[0], g.iloc[-1], fl.loc[n]
        rows.append({"Players": int(n), "Seat 1": _share(f["wins"], int(f["games"])),
                     "Last seat": _share(last["wins"], int(last["games"])),
                     "Fair": _pct(1 / n),
                     "Seat 1 minus last": f"{100 * d['diff']:+.1f} pp "
                                          f"({100 * d['diff_low']:+.1f} to "
                                          f"{100 * d['diff_high']:+.1f})"})
    return ["## Q4 Turn order", "",
            ("Seat 1 moves first every round (seats rotate over games, so builds and bots sit "
            "in every seat alike):"), "", *_table(pd.DataFrame(rows)), "", _dep(m, "q4"), ""]


def q5(m: RunData, nol: RunData) -> list[str]:
    g = m.games
    changed, paired = paired_winner_change(m, nol)
    wl = g["lurker_wounds"].sum() / max(1, g["wounds"].sum() + g["lurker_wounds"].sum())
    kl = g["lurker_kills"].sum() / max(1, g["kills"].sum())
    rows = [{"Players": int(n), "Dens revealed / game": f"{h['lurkers_revealed'].mean():.2f}",
             "Treasure / game": f"{h['treasures'].mean():.2f}",
             "Lurkers slain / game": f"{h['lurkers_killed'].mean():.2f}",
             "Lurker wounds / game": f"{h['lurker_wounds'].mean():.2f}",
             "Rounds with Lurkers off": f"{nol.games[nol.games['players'] == n]['rounds'].mean():.1f}"
                                        f" (on: {h['rounds'].mean():.1f})"}
            for n, h in g.groupby("players", sort=True)]
    return ["## Q5 Lurkers and events", "",
            (f"**Lurkers swing the winner of {_share(changed, paired)} of games**: the same "
            f"games (seed, maps, builds and bots) with `lurkers.enabled=false` have another "
            f"winning seat. Lurkers deal {_pct(wl)} of all wounds and {_pct(kl)} of all "
            "kills."), "", *_table(pd.DataFrame(rows)), "",
            ("**Events: not answerable yet.** The Event deck's 25 cards are not in the text "
            "(RV-E1 skipped): the draw after each turn is in the kernel, and the same paired "
            "design measures a designer's deck once it is supplied (`data:` files)."), "",
            _dep(m, "q5"), ""]


def q6(m: RunData) -> list[str]:
    g = m.games
    rows = []
    for n, h in g.groupby("players", sort=True):
        q = h["rounds"].quantile([0.05, 0.5, 0.95]).to_numpy()
        rows.append({"Players": int(n), "Games": f"{len(h):,}",
                     "Rounds": _mean(h["rounds"], ".1f"),
                     "Median (5th-95th)": f"{q[1]:g} ({q[0]:g}-{q[2]:g})",
                     "At the round cap": _share(float(h["truncated"].sum()), len(h)),
                     "First elimination (round)":
                         _mean(h["first_elim_round"][h["first_elim_round"] >= 0], ".1f")})
    return ["## Q6 Game length", "",
            ("Rounds until one player is left; the round cap (`end.max_rounds`, 40) is a "
            "deepsim safety cap, not a rule:"), "", *_table(pd.DataFrame(rows)), "",
            _dep(m, "q6"), ""]


def q7(m: RunData) -> list[str]:
    s = m.seats
    rows = []
    for n, h in s[s["players"] >= 3].groupby("players", sort=True):
        win = h[h["win"] >= 1.0]
        out = h[h["elim_round"] >= 0]
        rows.append({"Players": int(n),
                     "Winner made no kill": _share(float((win["kills"] == 0).sum()), len(win)),
                     "Winner's kills": f"{win['kills'].mean():.2f}",
                     "Eliminated by 2+ rivals": _share(float((out["killers"] >= 2).sum()),
                                                       len(out))})
    return ["## Q7 Multiplayer dynamics", "",
            "At 3-4 players (who targets whom is the bots' `target_leader`, a bot effect):", "",
            *_table(pd.DataFrame(rows)), "", _dep(m, "q7"), ""]


def q8(m: RunData) -> list[str]:
    g = m.games
    s = _balance(m)
    tries = g["rock_tries"].sum()
    turns = g["turns"].sum()
    on_rock = s["model_rounds_on_rock"] > 0
    return ["## Q8 Terrain", "",
            (f"Rock entries succeed {_share(float(tries - g['rock_fails'].sum()), int(tries))} "
            f"of {int(tries):,} rolls; per turn {g['swims'].sum() / turns:.2f} Swims, "
            f"{g['charges'].sum() / turns:.2f} Charges, {g['lands'].sum() / turns:.2f} Lands; "
            f"{g['coral_searches'].mean():.2f} coral searches and {g['loot_found'].mean():.2f} "
            f"loot cards a game. Seats whose models spent a round on a rock win "
            f"{s[on_rock]['win'].sum() / s[on_rock]['fair'].sum():.2f} x fair, the others "
            f"{s[~on_rock]['win'].sum() / s[~on_rock]['fair'].sum():.2f} (observational: "
            "survivors stand on rocks longer)."), "", _dep(m, "q8"), ""]


def q9(m: RunData, noc: RunData) -> list[str]:
    g = m.games
    changed, paired = paired_winner_change(m, noc)
    cap = m.param("explode.cap")
    return ["## Q9 The dice", "",
            (f"Explosions: {g['explosions'].sum() / max(1, g['attacks'].sum() + g['lurker_attacks'].sum()):.2f} "
            f"exploding faces per attack; the most extra dice in one roll averages "
            f"{g['max_extra_dice'].mean():.2f} a game; "
            f"{_share(float(g['kills_by_extra_dice'].sum()), int(g['kills'].sum()))} of kills "
            "needed the extra dice. The cap "
            f"({cap}) was reached in {_share(float((g['max_extra_dice'] >= cap).sum()), len(g))} "
            f"of games. With chains off (`explode.recursive=false`) the same games have another "
            f"winner in {_share(changed, paired)} of them."), "", _dep(m, "q9"), ""]


def q10(m: RunData) -> list[str]:
    s = m.seats
    g = m.games
    return ["## Q10 Aether", "",
            (f"A seat gains {_mean(s['aether_gained'], '.1f')} Aether a game, spends "
            f"{_mean(s['aether_spent'], '.1f')} (on the placeholder Focus, "
            f"{s['focus_used'].sum() / max(1, s['turns'].sum()):.2f} uses a turn) and ends with "
            f"{_mean(s['aether_end'], '.1f')}; the bank of 30 is empty "
            f"{g['bank_empty_rounds'].mean():.2f} rounds a game. Whether minions' pay-once "
            "Focus makes swarms cheap needs real ability texts (one placeholder ability)."),
            "", _dep(m, "q10"), ""]


def q11(m: RunData, nom: RunData) -> list[str]:
    a = map_spread(m.games, m.seats)
    b = map_spread(nom.games, nom.seats)
    rows = []
    for r in a.itertuples():
        rb = b[b["players"] == r.players]
        rows.append({"Players": r.players, "Maps": r.maps,
                     "Games / map": f"{r.games_per_map:.0f}",
                     "Seat 1 SD over maps": f"{r.sd:.3f} (chance alone {r.noise_sd:.3f})",
                     "chi2 p": f"{r.p:.3g}",
                     "Without mulligan": (f"{float(rb['sd'].iloc[0]):.3f} (p "
                                          f"{float(rb['p'].iloc[0]):.3g})" if len(rb) else "-"),
                     "Mulligans / map": f"{r.mulligans:.2f}"})
    return ["## Q11 Map fairness", "",
            ("Seat 1's win share on each map of the pool (the placeholder generator), its spread "
            "against the spread chance alone gives, the chi-square test of one share on every "
            "map, and the same without the mulligan (`map.mulligan.tries=0`):"), "",
            *_table(pd.DataFrame(rows)), "", _dep(m, "q11"), ""]


def q2() -> list[str]:
    return ["## Q2 Cost efficiency per unit: not answerable yet", "",
            ("Pricing a unit needs teams whose unit counts vary independently (random legal "
            "teams drawn under the budget: a `build: draft` mode, not built) and the real 34 "
            "character cards; with five placeholder archetypes a regression would price our "
            "invention."), ""]


def competence(vr: RunData, mirror: RunData, hearts: RunData, plus: RunData) -> list[str]:
    s = vr.seats
    rows = []
    for bot, h in s[s["bot"].astype(str) != "random"].groupby("bot", observed=True):
        k = float((h["win"] >= 1.0).sum())
        rows.append({"Style": f"`{bot}`", "Games": f"{len(h):,}",
                     "Beats random": _share(k, len(h))})
    ms = mirror.seats.groupby("build", observed=True)["win"].agg(["sum", "count"])
    z = (ms["sum"] / ms["count"] - 0.25) / np.sqrt(0.25 * 0.75 / ms["count"])
    p = 2 * norm.sf(np.abs(z.to_numpy()))
    reject, _, _, _ = multipletests(p, alpha=ALPHA, method="holm")
    mrows = [{"Copy": f"`{b}`", "Win share": _share(float(r["sum"]), int(r["count"])),
              "Holm p": f"{pp:.3f}", "Within": "yes" if not rj else "no"}
             for (b, r), pp, rj in zip(ms.iterrows(), p, reject, strict=True)]
    wb = hearts.seats[hearts.seats["build"].astype(str) == "balanced_b"].set_index("game")["win"]
    wp = plus.seats[plus.seats["build"].astype(str) == "balanced_b"].set_index("game")["win"]
    d = (wp - wb.reindex(wp.index)).to_numpy()
    d = d[~np.isnan(d)]            # pairs resolved in both arms (a capped game has no result)
    mean = d.mean()
    half = 1.96 * d.std(ddof=1) / np.sqrt(d.size)
    return ["## Bots and kernel: competence and fairness checks", "",
            ("Each heuristic style against the `random` baseline at 2 players (a game at the "
            "round cap counts as not beaten):"), "", *_table(pd.DataFrame(rows)), "",
            (f"Four copies of one build under different names at 4 players, seats rotating "
            f"({mirror.n_games:,} games; Holm-corrected tests of 1/4):"), "",
            *_table(pd.DataFrame(mrows)), "",
            (f"One more heart on every unit of one copy, {d.size:,} paired 2-player games: its "
            f"win share rises by {100 * mean:+.1f} points ({100 * (mean - half):+.1f} to "
            f"{100 * (mean + half):+.1f})."), ""]


def speed(m: RunData) -> list[str]:
    info = m.info
    gps = info.get("games_per_s")
    comp = info.get("compile_s")
    return ["## Speed", "",
            f"`mixed` played {m.n_games:,} games at {gps:,.0f} games/s"
            + (f" ({info.get('threads')} threads)" if info.get("threads") else "")
            + (f"; kernel compile {comp:.0f} s" if comp else "") + ". `make bench` has the "
            "per-core figures (`deepsim bench rivals`).", ""] if gps else []


def build(runs_dir: Path) -> str:
    """The README text from the runs under ``runs_dir`` (module docstring).

    Raises
    ------
    InputError
        A run directory missing or unreadable (run ``make rivals-findings``).
    """
    runs = {k: load_run(runs_dir / k) for k in RUNS}
    m = runs["mixed"]
    ph = ", ".join(f"`{p}`" for p in m.placeholders)
    skipped = ", ".join(r.split(" ", 1)[0] for r in m.skipped_rules)
    lines = [
        "# Rivals: Masters of the Deep: the designer's questions, measured", "",
        ("Made by `make rivals-findings` (`deepsim/studies/rivals.py`): every "
         "number below comes from these runs (95% intervals in brackets: Wilson for shares, "
         "t for means, Newcombe for differences of shares; paired runs share seeds, maps, "
         "builds and bots game by game):"), "",
        *_runs_lines(runs), "",
        ("**Read every answer with its caveats.** The rulebook prints none of the numbers "
         f"that decide balance: these runs use placeholder data ({ph}) and skip the rules "
         f"whose cards are missing ({skipped}; docs/RULES.md, \"Rivals\"). The players are "
         "bots (`deepsim/rulesets/rivals/bots.yaml`): `brawler` closes in, `sniper` keeps "
         "range and takes rocks, `looter` works the coral and dens; `random` is the "
         "baseline, left out of the balance tables. The answers describe this placeholder "
         "Rivals played by these bots. The full tables are the reports "
         "(`reports/rivals/*/report.md`)."), "",
    ]
    lines += q1(m) + q2() + q3(m) + q4(m) + q5(m, runs["no-lurkers"]) + q6(m) + q7(m)
    lines += q8(m) + q9(m, runs["no-chains"]) + q10(m) + q11(m, runs["no-mulligan"])
    lines += competence(runs["vs-random"], runs["mirror"], runs["hearts"],
                        runs["hearts-plus"])
    lines += speed(m)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return page_main(build, "reports/rivals/README.md", __doc__.split("\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["build", "main", "paired_winner_change"]
