"""The claims in fields of admissible play (DEEPFALL; the bots' knobs as a constrained
robustness dimension, never free knobs that make a claim hold).

How a table plays (how often it presses on, §6A.2; how deep it heads, when it cashes out,
§7) moves the game's length (§9, B1) and much else, and a designer does not choose it:
players do. So a claim is judged over the fields competent players could be: each
company's setting of **every searchable knob of the bot data** (``bots.yaml``, within its
bounds) whose win rate is within ``tolerance`` (2 points) of the company's best response
(``deepsim respond``'s search), and the claim then reads "holds for fields whose every
company plays within 2 points of its best response".

1. **Best responses.** Every company's best response under the point's rules
   (:func:`deepsim.tune.respondcheck.best_responses`: respond's optuna search over every
   searchable knob of one style, ``trials`` trials on the first ``search_games`` games the
   company sits in, seed ``seed``), as in the claims tunes' respond check.
2. **Settings per company** (:func:`one_at_a_time`, :func:`joint_draws`), each played on
   the same ``eval_games`` games the company sits in (seed + 2: neither the search's nor
   the confirmation's games; common random numbers), every other seat as shipped:

   - *one knob at a time*: the best response with one knob moved to each value of a grid
     over its bounds (an ``int`` knob: every whole value, at most 9; a ``bool``: the other
     value; a ``float``: its two bounds and the midpoints between each bound and the best
     response's value);
   - *joint draws*: ``joint`` settings moving every knob at once, a Latin hypercube
     (scipy's ``qmc.LatinHypercube``, seeded) over the box of each knob's values that were
     admissible alone (the hull of them and the best response's value): interactions are
     measured, not assumed.

   A setting is *admissible* when its **point estimate** of the company's win rate is at
   most ``tolerance`` below the best response's on the same games (the paired difference
   ``>= -tolerance``; :func:`judge_settings`). Its 95% paired interval is kept beside it;
   the counts a strict rule (the whole interval above ``-tolerance``) and a lenient one
   (the interval reaching it) would give are reported, so the reader sees how much the
   noise of ``eval_games`` games decides. The reference is the best response itself, not
   the best of the settings tried (that maximum of many noisy estimates is biased up).
3. **The fields.** The confirmation games (``confirm_games`` of ``confirm_seed``) replayed
   with the shipped styles, with every company on its best response, and in the
   *admissible fields*: every company on its least pressing admissible setting (fewest
   Press Ons per turn on its games), every company on its most pressing one, and
   ``fields`` random fields in which each company draws one of its admissible settings
   other than the best response itself (uniformly, seeded; the best response when it has
   none). Each claim is judged in each field by the verdict's own code, with the field's
   Press Ons per player-turn and mean rounds per player count.

A claim that holds in every admissible field tried reads "holds for fields whose every
company plays within 2 points of its best response (n of n tried)"; otherwise the fields
that break it are named, and where the Press Ons per player-turn separate the fields that
hold from those that break, the reading says so ("holds for admissible fields pressing on
at most ..."). The admissible set is sampled, not enumerated: the verdict is about the
fields tried.

Respond's search at the FINDINGS budget (20 trials x 500 games) is not always a best
response within 2 points: where a setting tried here beats it, "within 2 points of the
best response" is the looser rule. ``--reference found`` judges admissibility against
each company's best setting measured instead (:func:`rejudge_found`), and
``--reuse-settings DIR`` takes the settings an earlier run measured (the same point and
budget), so only the fields are played again.

``python -m deepsim.studies.deepfall_fields --out DIR`` writes ``fields.md``,
``fields_settings.parquet`` (one row per company and setting: its knobs, win rate, paired
difference and interval, admissible), ``fields_members.parquet`` (which setting each
company plays in each admissible field), ``fields_claims.parquet`` (one row per field and
claim) and ``fields.json`` (the budget, wall and CPU time).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from deepsim.errors import InputError

__all__ = ["FIXED_FIELDS", "TOLERANCE", "admissible_fields", "claim_reading",
           "draw_fields", "fields_md", "joint_draws", "judge_settings", "one_at_a_time",
           "rejudge_found"]

SCENARIO = Path("scenarios/deepfall-mixed.yaml")
#: admissible: at most this much win rate below the best response (2 points)
TOLERANCE = 0.02
#: the fields every run plays; the random admissible fields are named "field 1", ...
FIXED_FIELDS = ("shipped", "best responses", "least pressing admissible",
                "most pressing admissible")
#: at most this many whole values of an int knob are tried alone (else evenly spaced)
INT_VALUES = 9
#: the label of a company's best response among its settings
BEST = "best response"


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_")


def one_at_a_time(best: dict[str, float], knobs) -> list[tuple[str, str, dict[str, float]]]:
    """The best response with one knob moved at a time.

    Parameters
    ----------
    best : dict
        ``{knob: value}``, the best response's every knob (float).
    knobs : list of deepsim.botdata.Knob
        The searchable knobs (``type``, ``low``, ``high``).

    Returns
    -------
    list of (label, knob, {knob: value})
        ``label`` ``"<knob>=<value>"``; a value equal to the best response's is left out.
        An ``int`` knob: every whole value in its bounds (at most :data:`INT_VALUES`,
        else that many evenly spaced and rounded); ``bool``: the other value; ``float``:
        ``low``, ``(low + b) / 2``, ``(b + high) / 2``, ``high`` for the best value ``b``.
    """
    out = []
    for k in knobs:
        b = float(best[k.name])
        if k.type == "bool":
            vals = [1.0 - round(b)]
        elif k.type == "int":
            lo, hi = int(k.low), int(k.high)
            vals = (list(range(lo, hi + 1)) if hi - lo + 1 <= INT_VALUES
                    else sorted({round(x) for x in np.linspace(lo, hi, INT_VALUES)}))
            vals = [float(v) for v in vals]
        else:
            vals = [k.low, (k.low + b) / 2, (b + k.high) / 2, k.high]
        seen = set()
        for v in vals:
            v = float(v)
            if abs(v - b) < 1e-9 or v in seen:
                continue
            seen.add(v)
            out.append((f"{k.name}={v:g}", k.name, {**best, k.name: v}))
    return out


def joint_draws(best: dict[str, float], knobs, ranges: dict[str, tuple[float, float]],
                n: int, seed: int) -> list[tuple[str, dict[str, float]]]:
    """``n`` settings moving every knob at once: a Latin hypercube over ``ranges``.

    Parameters
    ----------
    ranges : dict
        ``{knob: (low, high)}`` inclusive; a knob missing keeps the best response's value.
        ``int`` and ``bool`` knobs take whole values (each whole value of the range an
        equal share of the unit interval).
    seed : int
        scipy ``qmc.LatinHypercube``'s seed: the same draws every time.

    Returns
    -------
    list of (label ``"joint <i>"``, {knob: value})
    """
    if n <= 0:
        return []
    from scipy.stats import qmc
    names = [k for k in knobs if k.name in ranges]
    if not names:
        return []
    u = qmc.LatinHypercube(d=len(names), seed=seed).random(n)
    out = []
    for i in range(n):
        s = dict(best)
        for j, k in enumerate(names):
            lo, hi = ranges[k.name]
            if k.type in ("int", "bool"):
                lo, hi = round(lo), round(hi)
                s[k.name] = float(min(hi, lo + math.floor(u[i, j] * (hi - lo + 1))))
            else:
                s[k.name] = float(lo + u[i, j] * (hi - lo))
        out.append((f"joint {i + 1}", s))
    return out


def judge_settings(wins: dict[str, np.ndarray], *, reference: str = BEST,
                   tolerance: float = TOLERANCE) -> pd.DataFrame:
    """Each setting's win rate against the reference's on the same seats (paired).

    Parameters
    ----------
    wins : dict
        ``{label: float64[seat-games]}``: 1 won, 0 lost (a shared win a fraction), the
        same seat-games in the same order for every label; ``reference`` among them.

    Returns
    -------
    DataFrame
        One row per label: ``label``, ``win`` (mean), ``diff`` (mean paired difference to
        the reference), ``diff_low``/``diff_high`` (95% normal interval of it),
        ``admissible`` (``diff >= -tolerance``: the point estimate), ``strict`` (the
        whole interval ``>= -tolerance``), ``lenient`` (``diff_high >= -tolerance``).

    Raises
    ------
    InputError
        The reference missing, or arrays of different lengths.
    """
    if reference not in wins:
        raise InputError(f"no setting named {reference!r} to compare with", key="reference")
    ref = np.asarray(wins[reference], float)
    rows = []
    for label, w in wins.items():
        w = np.asarray(w, float)
        if w.shape != ref.shape:
            raise InputError(f"{label}: {w.size} seat-games, the reference has {ref.size}",
                             key="wins")
        d = w - ref
        mean = float(d.mean()) if d.size else math.nan
        half = (1.96 * float(d.std(ddof=1)) / math.sqrt(d.size)) if d.size > 1 else 0.0
        rows.append({"label": label, "win": float(w.mean()) if w.size else math.nan,
                     "diff": mean, "diff_low": mean - half, "diff_high": mean + half,
                     "admissible": bool(mean >= -tolerance - 1e-12),
                     "strict": bool(mean - half >= -tolerance - 1e-12),
                     "lenient": bool(mean + half >= -tolerance - 1e-12)})
    return pd.DataFrame(rows)


def draw_fields(admissible: dict[str, list[str]], k: int, seed: int
                ) -> list[dict[str, str]]:
    """``k`` random admissible fields: each company draws one of its admissible settings
    other than :data:`BEST` (uniformly; :data:`BEST` when it has no other), seeded by
    ``seed`` (numpy's PCG64): ``[{company: label}]``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        pick = {}
        for f in sorted(admissible):
            other = [x for x in admissible[f] if x != BEST]
            pick[f] = other[int(rng.integers(len(other)))] if other else BEST
        out.append(pick)
    return out


def _measure(fld, styles, chosen, knobs, *, eval_games, joint, sample_seed, tolerance,
             say) -> pd.DataFrame:
    """Step 2 of the module docstring: every company's settings on its eval games."""
    from deepsim.respond.search import faction_games

    eseed = fld.seed + 2      # neither the search's games nor the confirmation's
    say(f"the games each company sits in ({eval_games:,} each, seed {eseed})")
    sp = faction_games(fld, eseed, chosen, eval_games)
    cols = {fld.column, "bot", "win", "fair", "press_ons", "turns"}
    rows, knob_of = [], {}

    def play(f, label, values, i):
        style = (f"{_slug(f)}_s{i}", {k: float(v) for k, v in values.items()})
        v = fld.variant({f: style}, seed=eseed)
        _g, s = fld.play(v, sp.games[f], seats_columns=cols, games_columns=set())
        s = s[s[fld.column].astype(str) == f].sort_values(["game", "seat"])
        rate = float(s["press_ons"].sum() / max(s["turns"].sum(), 1))
        return s["win"].to_numpy(float), rate, len(s)

    for i, f in enumerate(chosen):
        _name, best = styles[f]
        best = {k: float(v) for k, v in best.items()}
        alone = one_at_a_time(best, knobs)
        say(f"[{i + 1}/{len(chosen)}] {f}: {len(alone)} one-knob settings, {joint} joint")
        wins, rate, values, kind = {}, {}, {}, {}
        wins[BEST], rate[BEST], n_seats = play(f, BEST, best, 0)
        values[BEST], kind[BEST], knob_of[(f, BEST)] = best, "best", ""
        for j, (label, knob, vals) in enumerate(alone, start=1):
            wins[label], rate[label], _n = play(f, label, vals, j)
            values[label], kind[label], knob_of[(f, label)] = vals, "alone", knob
        first = judge_settings(wins, tolerance=tolerance).set_index("label")
        ranges = {}
        for k in knobs:
            ok = [best[k.name]] + [values[lab][k.name] for lab in first.index
                                   if knob_of[(f, lab)] == k.name
                                   and first.loc[lab, "admissible"]]
            ranges[k.name] = (min(ok), max(ok))
        draws = joint_draws(best, knobs, ranges, joint, sample_seed + 1000 * (i + 1))
        for j, (label, vals) in enumerate(draws, start=len(alone) + 1):
            wins[label], rate[label], _n = play(f, label, vals, j)
            values[label], kind[label], knob_of[(f, label)] = vals, "joint", ""
        judged = judge_settings(wins, tolerance=tolerance)
        for r in judged.to_dict("records"):
            lab = r["label"]
            rows.append({"faction": f, "label": lab, "kind": kind[lab],
                         "knob": knob_of[(f, lab)],
                         **{k.name: float(values[lab][k.name]) for k in knobs},
                         "win": r["win"], "press_per_turn": rate[lab], "diff": r["diff"],
                         "diff_low": r["diff_low"], "diff_high": r["diff_high"],
                         "admissible": r["admissible"], "strict": r["strict"],
                         "lenient": r["lenient"], "seat_games": n_seats})
    return pd.DataFrame(rows)


def rejudge_found(settings: pd.DataFrame, tolerance: float = TOLERANCE) -> pd.DataFrame:
    """``settings`` with ``admissible`` judged against each company's best setting
    measured (its highest ``diff``, at least the best response's 0) instead of the best
    response: ``diff >= top - tolerance``. A maximum of many noisy estimates is biased up,
    so this rule is the stricter of the two; it is the one to read where respond's search
    was beaten by a setting tried here. ``strict``/``lenient`` stay against the best
    response. Adds ``top`` (float64, the company's best ``diff``)."""
    out = settings.copy()
    out["top"] = out.groupby("faction")["diff"].transform("max").clip(lower=0.0)
    out["admissible"] = out["diff"] >= out["top"] - tolerance - 1e-12
    return out


def admissible_fields(scenario: Path | str = SCENARIO, sets: list[str] | None = None, *,
                      seed: int | None = None, trials: int = 20, search_games: int = 500,
                      eval_games: int = 2000, joint: int = 24, fields: int = 16,
                      confirm_games: int = 20_000, confirm_seed: int | None = None,
                      sample_seed: int = 0, companies: list[str] | None = None,
                      tolerance: float = TOLERANCE, reference: str = "response",
                      settings_in: pd.DataFrame | None = None, threads: int | None = None,
                      progress=None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Best responses, each company's admissible settings of every knob and the claims
    in the shipped, best-response and admissible fields (see the module docstring).

    ``companies`` restricts step 2 to those companies (the others play their best
    response in every field); ``sample_seed`` seeds the joint draws (plus the company's
    position) and the fields' draws. ``reference="found"`` judges admissibility against
    each company's best setting measured instead (:func:`rejudge_found`: the stricter
    rule when respond's search fell short); ``settings_in`` (a ``settings`` frame of an
    earlier run with the same scenario, rules and budget) skips step 2.

    Returns
    -------
    settings : DataFrame
        One row per (``faction``, ``label``): ``kind`` (best / alone / joint), ``knob``
        (the one moved alone, else ""), each searchable knob's value, ``win``,
        ``press_per_turn``, ``diff``, ``diff_low``, ``diff_high``, ``admissible``,
        ``strict``, ``lenient`` (see :func:`judge_settings`), ``seat_games`` (int).
    members : DataFrame
        One row per (admissible ``field``, ``faction``): ``label`` played.
    claims : DataFrame
        One row per (``field``, ``claim``): ``verdict`` (str), ``distance`` (float64,
        multiples of the claim's tolerance, 0 = holds), ``press_per_turn``,
        ``rounds_<n>p`` (mean rounds at ``n`` players) of the field.

    Raises
    ------
    InputError
        Bad scenario, ``sets``, companies or budget; a ruleset without bot data.
    """
    from deepsim.tune.claimsobj import claim_scores
    from deepsim.tune.respondcheck import RespondBudget, best_responses, replay

    for key, v, least in (("--trials", trials, 1), ("--search-games", search_games, 1),
                          ("--eval-games", eval_games, 1),
                          ("--confirm-games", confirm_games, 1), ("--joint", joint, 0),
                          ("--fields", fields, 0), ("--sample-seed", sample_seed, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < least:
            raise InputError(f"expected a whole number >= {least}, got {v!r}", key=key)
    if reference not in ("response", "found"):
        raise InputError(f"expected response or found, got {reference!r}", key="--reference")
    if not 0 <= tolerance < 1:
        raise InputError(f"expected a win-rate tolerance in [0, 1), got {tolerance!r}",
                         key="--tolerance")
    say = progress or (lambda m: None)
    if seed is None:
        from deepsim.tune.play import Player
        seed = Player(scenario, sets=list(sets or [])).seed
    say("best responses")
    fld, _starts, styles, _table = best_responses(scenario, list(sets or []), seed,
                                                  RespondBudget(trials, search_games),
                                                  threads=threads)
    names = list(styles)
    if companies:
        from deepsim.factionbots import match_name
        chosen = [match_name(c, names, what="company", key="--company") for c in companies]
    else:
        chosen = names
    cseed = fld.seed + 1 if confirm_seed is None else int(confirm_seed)
    knobs = fld.bot_data.searchable()
    if settings_in is not None:
        settings = settings_in.copy()
        missing = [c for c in ("faction", "label", "kind", "diff", "admissible",
                               "press_per_turn", *(k.name for k in knobs))
                   if c not in settings.columns]
        if missing:
            raise InputError(f"the settings of an earlier run lack {', '.join(missing)}",
                             key="--reuse-settings")
        chosen = list(dict.fromkeys(settings["faction"].astype(str)))
        unknown = [f for f in chosen if f not in styles]
        if unknown:
            raise InputError(f"the settings name companies this field lacks: "
                             f"{', '.join(unknown[:5])}", key="--reuse-settings")
    else:
        settings = _measure(fld, styles, chosen, knobs, eval_games=eval_games,
                            joint=joint, sample_seed=sample_seed, tolerance=tolerance,
                            say=say)
    if reference == "found":
        settings = rejudge_found(settings, tolerance)
    ok = settings[settings["admissible"]]
    adm = {f: list(ok[ok["faction"] == f]["label"]) for f in chosen}
    knob_values = {(r["faction"], r["label"]): {k.name: r[k.name] for k in knobs}
                   for r in settings.to_dict("records")}

    def corner(most: bool):
        out = {}
        for f in chosen:
            x = ok[ok["faction"] == f].sort_values(["press_per_turn", "label"],
                                                   ascending=[not most, True])
            out[f] = str(x.iloc[0]["label"])
        return out

    admissible_sets = {"least pressing admissible": corner(False),
                       "most pressing admissible": corner(True)}
    for k, pick in enumerate(draw_fields(adm, fields, sample_seed), start=1):
        admissible_sets[f"field {k}"] = pick

    def field_styles(pick):
        st = dict(styles)
        for f, lab in pick.items():
            if lab != BEST:
                st[f] = (f"{_slug(f)}_adm", {**{k: float(v) for k, v in styles[f][1].items()},
                                             **knob_values[(f, lab)]})
        return st

    members = pd.DataFrame([{"field": fl, "faction": f, "label": lab}
                            for fl, pick in admissible_sets.items()
                            for f, lab in pick.items()])
    plays = {"shipped": {}, "best responses": styles,
             **{fl: field_styles(p) for fl, p in admissible_sets.items()}}
    crow = []
    for label, st in plays.items():
        say(f"{label}: {confirm_games:,} confirmation games")
        prepared, g, s = replay(fld, st, confirm_games, cseed)
        sc = claim_scores(fld.ruleset, prepared, g, s)
        ppt = float(s["press_ons"].sum() / max(s["turns"].sum(), 1))
        rounds = {f"rounds_{int(n)}p": float(x["rounds"].mean())
                  for n, x in g.groupby("players")}
        for c, v in sc.items():
            crow.append({"field": label, "claim": c, "verdict": v.verdict,
                         "distance": float(v.distance), "press_per_turn": ppt, **rounds})
    return settings, members, pd.DataFrame(crow)


def claim_reading(held: dict[str, bool], rates: dict[str, float], *,
                  shipped: bool = False, best: str = "its best response") -> str:
    """How a claim reads over the admissible fields tried.

    ``held``: ``{field: holds}`` over the admissible fields only; ``rates``: each field's
    Press Ons per player-turn; ``shipped``: whether it holds with the shipped styles;
    ``best``: what admissibility was judged against.
    """
    n, x = len(held), sum(held.values())
    if n and x == n:
        return (f"holds for fields whose every company plays within 2 points of {best} "
                f"({n} of {n} tried)")
    if x == 0:
        return ("holds in no admissible field tried"
                + (" (only with the shipped styles)" if shipped else ""))
    yes = [rates[f] for f in held if held[f]]
    no = [rates[f] for f in held if not held[f]]
    broken = [f for f in held if not held[f]]
    text = (f"holds in {x} of {n}; breaks in {', '.join(broken)}" if x >= n - x else
            f"holds in {x} of {n}: only in {', '.join(f for f in held if held[f])}")
    if max(yes) < min(no):
        text += (f" (holds for admissible fields pressing on at most {max(yes):.3f} Press "
                 "Ons per player-turn)")
    elif min(yes) > max(no):
        text += (f" (holds for admissible fields pressing on at least {min(yes):.3f} Press "
                 "Ons per player-turn)")
    return text


def fields_md(settings: pd.DataFrame, members: pd.DataFrame, claims: pd.DataFrame, *,
              budget: dict, where: str = "the defaults") -> str:
    """The section "Claims in fields of admissible play" (markdown)."""
    knobs = [k for k in budget["knobs"] if k in settings.columns]
    n_f = settings["faction"].nunique()
    if budget.get("reference") == "found":
        return _found_md(settings, claims, budget=budget, where=where)
    lines = [f"### Claims in fields of admissible play: {where}", "",
             (f"At {where}: every company's best response (`deepsim respond`'s search over "
              f"its {len(knobs)} searchable knobs, {budget['trials']} trials x "
              f"{budget['search_games']:,} games it sits in, seed {budget['seed']}). Then, "
              f"on {budget['eval_games']:,} other games it sits in (seed "
              f"{budget['seed'] + 2}, the same games for every setting), each knob moved "
              "alone over a grid of its bounds (`bots.yaml`), and "
              f"{budget['joint']} joint settings moving every knob at once (a Latin "
              "hypercube over each knob's values admissible alone). A setting is "
              "*admissible* when its win rate is at most 2 points below the best "
              "response's on the same games (paired, point estimate). The claims on "
              f"{budget['confirm_games']:,} confirmation games (seed "
              f"{budget['confirm_seed']}) with the shipped styles, the best responses, and "
              f"{2 + budget['fields']} admissible fields: every company at its least / its "
              f"most pressing admissible setting, and {budget['fields']} fields in which "
              "every company draws one of its admissible settings (seed "
              f"{budget['sample_seed']}). `python -m deepsim.studies.deepfall_fields`."),
             "", ("| knob | bounds | values tried alone | admissible alone | companies "
                  "with every value admissible |"), "|---|---|---|---|---|"]
    alone = settings[settings["kind"] == "alone"]
    for k in knobs:
        a = alone[alone["knob"] == k]
        every = int(a.groupby("faction")["admissible"].all().sum()) if len(a) else 0
        lo, hi = budget["bounds"][k]
        lines.append(f"| {k} | {lo:g}-{hi:g} | {len(a) / max(n_f, 1):.1f} a company | "
                     f"{int(a['admissible'].sum())} of {len(a)} | {every} of {n_f} |")
    j = settings[settings["kind"] == "joint"]
    per = j.groupby("faction")["admissible"].sum() if len(j) else pd.Series(dtype=float)
    ns = settings[settings["kind"] != "best"]
    lines += ["", (f"Joint settings admissible: {int(j['admissible'].sum())} of {len(j)} "
                   f"(per company median {per.median() if len(per) else 0:.0f} of "
                   f"{budget['joint']}, fewest {int(per.min()) if len(per) else 0}). "
                   f"Of all {len(ns):,} settings tried, {int(ns['admissible'].sum()):,} are "
                   f"admissible by the point estimate; {int(ns['strict'].sum()):,} by the "
                   "whole 95% interval (strict), "
                   f"{int(ns['lenient'].sum()):,} by any of it (lenient)."), ""]
    pm = alone[(alone["knob"] == "press_max") & (alone["press_max"] == 0)]
    if len(pm):
        lines += [(f"Never pressing on (`press_max` 0, the rest of the best response kept) "
                   f"is admissible for {int(pm['admissible'].sum())} of {len(pm)} companies "
                   f"(win rate against the best response: median {pm['diff'].median():+.3f}, "
                   f"range {pm['diff'].min():+.3f} to {pm['diff'].max():+.3f})."), ""]
    return "\n".join(lines + _claims_lines(claims, budget))


def _found_md(settings: pd.DataFrame, claims: pd.DataFrame, *, budget: dict,
              where: str) -> str:
    """The section when admissibility is judged against each company's best setting."""
    ns = settings[settings["kind"] != "best"]
    beaten = settings.groupby("faction")["top"].max()
    sig = ns[ns["diff_low"] > TOLERANCE]["faction"].nunique()
    br_ok = settings[settings["kind"] == "best"]["admissible"]
    lines = [(f"### Claims in fields of admissible play, against the best setting found: "
              f"{where}"), "",
             ("The same settings as above" + (f" (`{Path(budget['reused']).name}`)"
                                              if budget.get("reused") else "")
              + ", now admissible when the company's win rate is at most 2 points below "
              "its *best setting measured* (the best response or any setting tried, "
              "point estimates on the same games; the maximum of many noisy estimates is "
              "biased up, so this rule is the stricter). Respond's search was beaten by "
              f"more than 2 points for {int((beaten > TOLERANCE).sum())} of "
              f"{len(beaten)} companies (by the whole 95% interval for {sig}; the "
              f"largest gain {beaten.max():+.3f}); the best response itself stays "
              f"admissible for {int(br_ok.sum())} of {len(br_ok)}. Admissible settings: "
              f"{int(ns['admissible'].sum()):,} of {len(ns):,} (per company median "
              f"{ns.groupby('faction')['admissible'].sum().median():.0f}). The fields "
              f"are drawn again from these (seed {budget['sample_seed']})."), ""]
    return "\n".join(lines + _claims_lines(claims, budget))


def _claims_lines(claims: pd.DataFrame, budget: dict) -> list[str]:
    from deepsim.report.verdicts import short_verdict

    lines = []
    first = claims.drop_duplicates("field").set_index("field")
    order = list(dict.fromkeys(claims["field"]))
    rand = [f for f in order if f not in FIXED_FIELDS]
    admissible = [f for f in order if f not in ("shipped", "best responses")]
    rcols = sorted([c for c in claims.columns if c.startswith("rounds_")],
                   key=lambda c: int(c.split("_")[1].rstrip("p")))
    lines += ["| field | Press Ons per player-turn | "
              + " | ".join(c.split("_")[1] + " rounds" for c in rcols) + " |",
              "|---|---|" + "---|" * len(rcols)]
    for f in [f for f in order if f in FIXED_FIELDS]:
        r = first.loc[f]
        lines.append(f"| {f} | {r['press_per_turn']:.3f} | "
                     + " | ".join(f"{r[c]:.2f}" for c in rcols) + " |")
    if rand:
        r = first.loc[rand]
        lines.append(f"| {len(rand)} drawn fields (range) | "
                     f"{r['press_per_turn'].min():.3f}-{r['press_per_turn'].max():.3f} | "
                     + " | ".join(f"{r[c].min():.2f}-{r[c].max():.2f}" for c in rcols)
                     + " |")
    lines += ["", "| claim | shipped | best responses | admissible fields holding | reads |",
              "|---|---|---|---|---|"]
    rates = {f: float(first.loc[f, "press_per_turn"]) for f in admissible}
    for c in dict.fromkeys(claims["claim"]):
        cc = claims[claims["claim"] == c].set_index("field")
        measured = [f for f in admissible if not math.isnan(float(cc.loc[f, "distance"]))]
        held = {f: str(cc.loc[f, "verdict"]).startswith("holds") for f in admissible}
        shipped = str(cc.loc["shipped", "verdict"]).startswith("holds")
        if len(measured) < len(admissible):
            reads = f"not measured in {len(admissible) - len(measured)} admissible fields"
        else:
            reads = claim_reading(held, rates, shipped=shipped,
                                  best=("its best setting found"
                                        if budget.get("reference") == "found"
                                        else "its best response"))
            broken = [f for f in admissible if not held[f]]
            if 0 < len(broken) <= len(admissible) - len(broken):
                kinds = {}
                for f in broken:
                    kinds.setdefault(short_verdict(cc.loc[f, "verdict"]), []).append(f)
                reads += " [" + "; ".join(f"{v}: {len(fs)}" for v, fs in kinds.items()) + "]"
        lines.append(f"| {c} | {short_verdict(cc.loc['shipped', 'verdict'])} | "
                     f"{short_verdict(cc.loc['best responses', 'verdict'])} | "
                     f"{sum(held.values())} of {len(admissible)} | {reads} |")
    together = {f: [c for c in dict.fromkeys(claims["claim"])
                    if str(claims[(claims["field"] == f) & (claims["claim"] == c)]
                           ["verdict"].iloc[0]).startswith("holds")] for f in order}
    if admissible:
        counts = [len(together[f]) for f in admissible]
        top = max(admissible, key=lambda f: len(together[f]))
        lines += ["", (f"Claims holding together: shipped {len(together['shipped'])} "
                       f"({', '.join(together['shipped']) or 'none'}), best responses "
                       f"{len(together['best responses'])}, admissible fields "
                       f"{min(counts)}-{max(counts)} (the most: {top}, "
                       f"{', '.join(together[top]) or 'none'}; "
                       f"{sum(c == max(counts) for c in counts)} of {len(counts)} fields "
                       "hold that many).")]
    lines += ["", (f"Budget: about {budget['games_played']:,} games, wall "
                   f"{budget['wall_s'] / 60:.1f} min, CPU {budget['cpu_s'] / 60:.1f} min "
                   "(this process, nice 10, on a shared 2-core machine)."), ""]
    return lines


def _reused(run: Path, sets: list[str], a) -> pd.DataFrame:
    """The settings frame of an earlier run; InputError unless it was made at the same
    point with the same budget (the same best responses and games)."""
    files = [run / "fields_settings.parquet", run / "fields.json"]
    if not all(f.is_file() for f in files):
        raise InputError(f"{run}: not a finished fields run", key="--reuse-settings")
    b = json.loads(files[1].read_text(encoding="utf-8"))
    want = {"sets": sets, "trials": a.trials, "search_games": a.search_games,
            "eval_games": a.eval_games, "joint": a.joint, "sample_seed": a.sample_seed}
    diff = [k for k, v in want.items() if b.get(k) != v]
    if diff:
        raise InputError(f"{run}: made with another {', '.join(diff)} "
                         f"({', '.join(f'{k}={b.get(k)!r}' for k in diff)})",
                         key="--reuse-settings")
    return pd.read_parquet(files[0])


def _md_only(out: Path) -> int:
    """fields.md again from a run's files (no games); exit 2 when one is missing."""
    names = ("fields_settings.parquet", "fields_members.parquet", "fields_claims.parquet",
             "fields.json")
    missing = [n for n in names if not (out / n).is_file()]
    if missing:
        print(f"error: {out}: not a finished fields run (missing {', '.join(missing)})",
              file=sys.stderr)
        return 2
    budget = json.loads((out / "fields.json").read_text(encoding="utf-8"))
    frames = [pd.read_parquet(out / n) for n in names[:3]]
    tmp = out / ".fields.md.tmp"
    tmp.write_text(fields_md(*frames, budget=budget, where=budget["where"]),
                   encoding="utf-8")
    tmp.replace(out / "fields.md")
    print(out / "fields.md")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m deepsim.studies.deepfall_fields --help``); 0, or 2 on
    bad input before any game is played."""
    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.deepfall_fields",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=str(SCENARIO))
    ap.add_argument("--set", action="append", default=[], help="PATH=VALUE (a reading)")
    ap.add_argument("--tune", default=None, help="a claims tune's folder: with --trial, "
                                                 "study that trial's point")
    ap.add_argument("--trial", default=None,
                    help="a trial number of --tune, or best (the trial holding the most "
                         "claims, as its confirmation picks it)")
    ap.add_argument("--trials", type=int, default=20, help="respond's trials per company")
    ap.add_argument("--search-games", type=int, default=500)
    ap.add_argument("--eval-games", type=int, default=2000,
                    help="games a company sits in, per setting (paired)")
    ap.add_argument("--joint", type=int, default=24,
                    help="joint settings (every knob moved) per company")
    ap.add_argument("--fields", type=int, default=16,
                    help="random admissible fields (besides the two pressing corners)")
    ap.add_argument("--sample-seed", type=int, default=0)
    ap.add_argument("--company", action="append", default=[],
                    help="study only this company's settings (repeatable; the others "
                         "play their best response)")
    ap.add_argument("--confirm-games", type=int, default=20_000)
    ap.add_argument("--reference", choices=("response", "found"), default="response",
                    help="admissible within 2 points of the best response (respond's "
                         "search; default) or of the company's best setting measured")
    ap.add_argument("--reuse-settings", default=None, metavar="DIR",
                    help="the settings measured by an earlier run at the same point and "
                         "budget (DIR/fields_settings.parquet): only the fields are played")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--md-only", action="store_true",
                    help="rewrite DIR/fields.md from the files of an earlier run in --out "
                         "(no games)")
    a = ap.parse_args(argv)
    if a.md_only:
        return _md_only(Path(a.out))
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
        settings_in = None
        if a.reuse_settings is not None:
            settings_in = _reused(Path(a.reuse_settings), sets, a)
        settings, members, claims = admissible_fields(
            a.scenario, sets, trials=a.trials, search_games=a.search_games,
            eval_games=a.eval_games, joint=a.joint, fields=a.fields,
            sample_seed=a.sample_seed, companies=a.company or None,
            confirm_games=a.confirm_games, threads=a.threads, reference=a.reference,
            settings_in=settings_in,
            progress=lambda m: print(m, file=sys.stderr, flush=True))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import yaml

    from deepsim.respond.play import Field
    knobs = Field(a.scenario, sets=sets).bot_data.searchable()
    seed = int(yaml.safe_load(Path(a.scenario).read_text())["seed"])
    n_all = claims["field"].nunique()
    budget = {"trials": a.trials, "search_games": a.search_games, "eval_games": a.eval_games,
              "joint": a.joint, "fields": a.fields, "sample_seed": a.sample_seed,
              "confirm_games": a.confirm_games, "seed": seed, "confirm_seed": seed + 1,
              "knobs": [k.name for k in knobs],
              "bounds": {k.name: [k.low, k.high] for k in knobs},
              "sets": sets, "where": where, "companies": a.company,
              "reference": a.reference, "reused": a.reuse_settings,
              "settings": len(settings),
              "games_played": int(36 * a.trials * a.search_games
                                  + (0 if a.reuse_settings else len(settings))
                                  * a.eval_games
                                  + n_all * a.confirm_games),
              "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    # every file to a temporary name first: an interrupted write leaves the last run whole
    files = {"fields_settings.parquet": settings, "fields_members.parquet": members,
             "fields_claims.parquet": claims}
    for fname, frame in files.items():
        frame.to_parquet(out / f".{fname}.tmp")
    (out / ".fields.json.tmp").write_text(json.dumps(budget, indent=1), encoding="utf-8")
    (out / ".fields.md.tmp").write_text(
        fields_md(settings, members, claims, budget=budget, where=where), encoding="utf-8")
    for fname in [*files, "fields.json", "fields.md"]:
        (out / f".{fname}.tmp").replace(out / fname)
    print(out / "fields.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
