"""The claims in fields of admissible pressing (DEEPFALL; a bot knob as a constrained
robustness dimension, never a free knob that makes a claim hold).

How often a table presses on (``press_max``, §6A.2) moves the game's length (§9, B1) and
much else, and a designer does not choose it: players do. So a claim is judged over the
fields competent players could be: each company's setting within ``tolerance`` (2 points)
of win rate of its best response (``deepsim respond``'s search), and the claim then reads
"holds for fields that ...".

1. **Best responses.** Every company's best response under the point's rules
   (:func:`deepsim.tune.respondcheck.best_responses`: respond's optuna search over every
   knob of one style, ``trials`` trials on the first ``search_games`` games the company
   sits in, seed ``seed``), as in the claims tunes' respond check.
2. **Admissible pressing per company.** On ``eval_games`` games the company sits in, of
   an independent seed (the search seed + 2), the company plays its best response with
   ``press_max`` set to each value of ``grid`` (and at the value the search found), every
   other seat as shipped (common random numbers: the same games for every value). A
   value is *admissible* when the company's win rate there is within ``tolerance`` of the
   best value's (the paired difference, point estimate; its 95% interval is reported).
3. **The fields.** The confirmation games (``confirm_games`` of ``confirm_seed``) replayed
   with the shipped styles, with every company on its best response, and with every
   company on its best response at its *least* and at its *most* pressing admissible
   value: each claim judged in each field by the verdict's own code, with the field's
   Press Ons per player-turn and mean rounds per player count.

A claim that holds in every admissible field tried "holds for every admissible field"; one
that holds only in the least pressing "holds for fields that press on at most ...", and so
on. Two corners and the best responses are tried, not every admissible field: the
verdict is about those fields.

``python -m deepsim.studies.deepfall_fields --out DIR`` writes ``fields.md``,
``fields_press.parquet`` (one row per company and value), ``fields_claims.parquet`` (one
row per field and claim) and ``fields.json`` (the budget, wall and CPU time).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import pandas as pd

from deepsim.errors import InputError

__all__ = ["GRID", "admissible_fields", "fields_md"]

SCENARIO = Path("scenarios/deepfall-mixed.yaml")
#: press_max values tried per company (bots.yaml bounds 0-8)
GRID = (0, 1, 2, 3, 4, 6, 8)
#: admissible: within this much win rate of the best value (2 points)
TOLERANCE = 0.02
FIELDS = ("shipped", "best responses", "least pressing admissible",
          "most pressing admissible")


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_")


def admissible_fields(scenario: Path | str = SCENARIO, sets: list[str] | None = None, *,
                      seed: int | None = None, trials: int = 20, search_games: int = 500,
                      eval_games: int = 2000, confirm_games: int = 20_000,
                      confirm_seed: int | None = None, grid=GRID,
                      tolerance: float = TOLERANCE, threads: int | None = None,
                      progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Best responses, each company's admissible ``press_max`` and the claims in four
    fields (see the module docstring).

    Returns
    -------
    press : DataFrame
        One row per (``faction``, ``press_max``): ``found`` (bool: the value the search
        found), ``win`` (the company's win rate on its ``eval_games`` games, float64),
        ``press_per_turn`` (its Press Ons per turn), ``diff``, ``diff_low``,
        ``diff_high`` (paired difference to the best value's win rate, 95% normal
        interval), ``admissible`` (bool), ``seat_games`` (int).
    claims : DataFrame
        One row per (``field``, ``claim``): ``verdict`` (str), ``distance`` (float64,
        multiples of the claim's tolerance, 0 = holds), ``press_per_turn``, ``rounds_<n>p``
        (mean rounds at ``n`` players) of the field.

    Raises
    ------
    InputError
        Bad scenario, ``sets`` or budget; a ruleset without bot data or factions.
    """
    from deepsim.respond.search import faction_games
    from deepsim.tune.claimsobj import claim_scores
    from deepsim.tune.respondcheck import RespondBudget, best_responses, replay

    for key, v in (("--trials", trials), ("--search-games", search_games),
                   ("--eval-games", eval_games), ("--confirm-games", confirm_games)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError(f"expected a whole number >= 1, got {v!r}", key=key)
    say = progress or (lambda m: None)
    if seed is None:
        from deepsim.tune.play import Player
        seed = Player(scenario, sets=list(sets or [])).seed
    say("best responses")
    fld, _starts, styles, _table = best_responses(scenario, list(sets or []), seed,
                                                  RespondBudget(trials, search_games),
                                                  threads=threads)
    cseed = fld.seed + 1 if confirm_seed is None else int(confirm_seed)
    names = list(styles)
    eseed = fld.seed + 2      # neither the search's games nor the confirmation's
    say(f"the games each company sits in ({eval_games:,} each, seed {eseed})")
    sp = faction_games(fld, eseed, names, eval_games)
    cols = {fld.column, "bot", "win", "fair", "press_ons", "turns"}
    rows = []
    for i, f in enumerate(names):
        say(f"[{i + 1}/{len(names)}] {f}: press_max {', '.join(map(str, grid))}")
        _name, knobs = styles[f]
        found = round(float(knobs["press_max"]))
        wins, rates, n_seats = {}, {}, 0
        for p in sorted(set(grid) | {found}):
            style = (f"{_slug(f)}_press{p}", {**{k: float(v) for k, v in knobs.items()},
                                               "press_max": float(p)})
            v = fld.variant({f: style}, seed=eseed)
            _g, s = fld.play(v, sp.games[f], seats_columns=cols, games_columns=set())
            s = s[s[fld.column].astype(str) == f].sort_values(["game", "seat"])
            wins[p] = s["win"].to_numpy(float)
            rates[p] = float(s["press_ons"].sum() / max(s["turns"].sum(), 1))
            n_seats = len(s)
        best = max(wins, key=lambda k: (wins[k].mean(), k == found))
        for p in sorted(wins):
            d = wins[p] - wins[best]
            half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if p != best else 0.0
            rows.append({"faction": f, "press_max": p, "found": p == found,
                         "win": float(wins[p].mean()), "press_per_turn": rates[p],
                         "diff": float(d.mean()), "diff_low": float(d.mean() - half),
                         "diff_high": float(d.mean() + half),
                         "admissible": bool(d.mean() >= -tolerance), "seat_games": n_seats})
    press = pd.DataFrame(rows)
    ok = press[press["admissible"]]
    lo = ok.groupby("faction")["press_max"].min()
    hi = ok.groupby("faction")["press_max"].max()

    def at(values):
        out = {}
        for f in names:
            _name, knobs = styles[f]
            out[f] = (f"{_slug(f)}_press{int(values[f])}",
                      {**{k: float(v) for k, v in knobs.items()},
                       "press_max": float(values[f])})
        return out

    fields = {"shipped": {}, "best responses": styles,
              "least pressing admissible": at(lo), "most pressing admissible": at(hi)}
    crow = []
    for label, st in fields.items():
        say(f"{label}: {confirm_games:,} confirmation games")
        prepared, g, s = replay(fld, st, confirm_games, cseed)
        sc = claim_scores(fld.ruleset, prepared, g, s)
        ppt = float(s["press_ons"].sum() / max(s["turns"].sum(), 1))
        rounds = {f"rounds_{int(n)}p": float(x["rounds"].mean())
                  for n, x in g.groupby("players")}
        for c, v in sc.items():
            crow.append({"field": label, "claim": c, "verdict": v.verdict,
                         "distance": float(v.distance), "press_per_turn": ppt, **rounds})
    return press, pd.DataFrame(crow)


def _reads(held: dict[str, bool], lo_rate: float, hi_rate: float) -> str:
    adm = [k for k in FIELDS[1:]]
    if all(held[k] for k in adm):
        return "holds for every admissible field tried"
    if not any(held[k] for k in adm):
        return ("holds in no admissible field tried"
                + (" (only with the shipped styles)" if held["shipped"] else ""))
    if held["least pressing admissible"] and not held["most pressing admissible"]:
        return (f"holds for fields that press on little (at most {lo_rate:.2f} Press Ons "
                "per player-turn), not at the most admissible pressing")
    if held["most pressing admissible"] and not held["least pressing admissible"]:
        return (f"holds for fields that press on much ({hi_rate:.2f} Press Ons per "
                "player-turn), not at the least admissible pressing")
    return ("holds at " + ", ".join(k for k in adm if held[k]) + "; not at "
            + ", ".join(k for k in adm if not held[k]))


def fields_md(press: pd.DataFrame, claims: pd.DataFrame, *, budget: dict,
              where: str = "the defaults") -> str:
    """The section "Claims in fields of admissible pressing" (markdown)."""
    ok = press[press["admissible"]]
    rng = ok.groupby("faction")["press_max"].agg(["min", "max"])
    found = press[press["found"]].set_index("faction")["press_max"]
    groups = (rng.assign(found=found).reset_index()
              .groupby(["min", "max"])["faction"].apply(list))
    lines = [f"### Claims in fields of admissible pressing: {where}", "",
             (f"At {where}: every company's best response (`deepsim respond`'s search, "
              f"{budget['trials']} trials x {budget['search_games']:,} games it sits in, "
              f"seed {budget['seed']}); then, on {budget['eval_games']:,} other games it "
              f"sits in (seed {budget['seed'] + 2}, the same games for every value), "
              "the best response at each `press_max` "
              f"({', '.join(map(str, budget['grid']))}): a value is *admissible* when the "
              "company's win rate is within 2 points of the best value's (paired). The "
              f"claims on {budget['confirm_games']:,} confirmation games (seed "
              f"{budget['confirm_seed']}) in four fields: the shipped styles, every company "
              "on its best response, and every company on its best response at its least "
              "and at its most pressing admissible value. "
              "`python -m deepsim.studies.deepfall_fields`."), "",
             "| admissible press_max | companies | search found |", "|---|---|---|"]
    for (lo, hi), fs in groups.items():
        fnd = sorted({int(found[f]) for f in fs})
        lines.append(f"| {int(lo)}-{int(hi)} | {len(fs)}: {', '.join(fs)} | "
                     f"{', '.join(map(str, fnd))} |")
    never = ok[ok["press_max"] == 0]["faction"].nunique()
    drop = press[press["press_max"] == 0]["diff"]
    lines += ["", (f"Never pressing on (`press_max` 0) is admissible for {never} of "
                   f"{press['faction'].nunique()} companies (win rate change against the best "
                   f"value: median {drop.median():+.3f}, range {drop.min():+.3f} to "
                   f"{drop.max():+.3f})."), ""]
    fields = [f for f in FIELDS if f in set(claims["field"])]
    first = claims.drop_duplicates("field").set_index("field")
    rcols = sorted([c for c in claims.columns if c.startswith("rounds_")],
                   key=lambda c: int(c.split("_")[1].rstrip("p")))
    lines += ["| field | Press Ons per player-turn | "
              + " | ".join(c.split("_")[1] + " rounds" for c in rcols) + " |",
              "|---|---|" + "---|" * len(rcols)]
    for f in fields:
        r = first.loc[f]
        lines.append(f"| {f} | {r['press_per_turn']:.3f} | "
                     + " | ".join(f"{r[c]:.2f}" for c in rcols) + " |")
    lines += ["", "| claim | " + " | ".join(fields) + " | reads |",
              "|---|" + "---|" * len(fields) + "---|"]
    from deepsim.report.verdicts import short_verdict
    lo_rate = float(first.loc["least pressing admissible", "press_per_turn"])
    hi_rate = float(first.loc["most pressing admissible", "press_per_turn"])
    for c in dict.fromkeys(claims["claim"]):
        cc = claims[claims["claim"] == c].set_index("field")
        held = {f: str(cc.loc[f, "verdict"]).startswith("holds") for f in fields}
        measured = [f for f in fields if not math.isnan(float(cc.loc[f, "distance"]))]
        reads = (_reads(held, lo_rate, hi_rate) if len(measured) == len(fields)
                 else "not measured in every field")
        lines.append(f"| {c} | " + " | ".join(short_verdict(cc.loc[f, "verdict"])
                                               for f in fields) + f" | {reads} |")
    lines += ["", (f"Budget: about {budget['games_played']:,} games, wall "
                   f"{budget['wall_s'] / 60:.1f} min, CPU {budget['cpu_s'] / 60:.1f} min "
                   "(this process, nice 10, on a shared 2-core machine)."), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.deepfall_fields",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=str(SCENARIO))
    ap.add_argument("--set", action="append", default=[], help="PATH=VALUE (a reading)")
    ap.add_argument("--tune", default=None, help="a claims tune's folder: with --trial, "
                                                 "study that trial's point")
    ap.add_argument("--trial", default=None,
                    help="a trial number of --tune, or best (the trial holding the most "
                         "claims, as its confirmation picks it)")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--search-games", type=int, default=500)
    ap.add_argument("--eval-games", type=int, default=2000)
    ap.add_argument("--confirm-games", type=int, default=20_000)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        sets, where = list(a.set), "the defaults"
        if (a.tune is None) != (a.trial is None):
            raise InputError("give --tune and --trial together", key="--trial")
        if a.tune is not None:
            from deepsim.tune.grid import point_overrides
            from deepsim.tune.play import Player
            from deepsim.tune.reconstruct import best_trial, trial_points
            player = Player(a.scenario, sets=sets)
            if a.trial == "best":
                number = best_trial(a.tune)
            elif str(a.trial).isdigit():
                number = int(a.trial)
            else:
                raise InputError(f"--trial takes a trial number or best, got {a.trial!r}",
                                 key="--trial")
            name, ov = trial_points(player, a.tune, [number])[0]
            sets += point_overrides(ov)
            where = f"{name} of `{Path(a.tune).name}`"
        press, claims = admissible_fields(
            a.scenario, sets, trials=a.trials, search_games=a.search_games,
            eval_games=a.eval_games, confirm_games=a.confirm_games, threads=a.threads,
            progress=lambda m: print(m, file=sys.stderr, flush=True))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import yaml
    seed = int(yaml.safe_load(Path(a.scenario).read_text())["seed"])
    n_f = press["faction"].nunique()
    budget = {"trials": a.trials, "search_games": a.search_games, "eval_games": a.eval_games,
              "confirm_games": a.confirm_games, "seed": seed, "confirm_seed": seed + 1,
              "grid": list(GRID), "sets": sets, "where": where,
              "games_played": int(n_f * a.trials * a.search_games
                                  + press["seat_games"].count() * a.eval_games
                                  + len(FIELDS) * a.confirm_games),
              "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    press.to_parquet(out / "fields_press.parquet")
    claims.to_parquet(out / "fields_claims.parquet")
    (out / "fields.json").write_text(json.dumps(budget, indent=1), encoding="utf-8")
    (out / "fields.md").write_text(fields_md(press, claims, budget=budget, where=where),
                                   encoding="utf-8")
    print(out / "fields.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
