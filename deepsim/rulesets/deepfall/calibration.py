"""Calibrating the claims' instruments on games whose answer is known.

Before a claim's verdict means anything, its instrument must give the known answer on a
reference (:mod:`deepsim.rulesets.deepfall.claims`):

- **B1** (mean length in a band): the literal Maw (``maw.steps_per_floor=1``) allows at
  most 6 rounds, and with no Dread step (``maw.dread_full_steps=0``) the Maw takes exactly
  12 rounds at 2 steps a floor; the instrument must read 6.00 (fails) and 12.00 (holds)
  exactly.
- **B2, B3** (win share over fair share; swing): mirror games (every seat the same company
  and bot, ``companies.mirror``) relabelled many times with company labels drawn as the
  field draws companies: one company under 36 labels with identical numbers. Every label
  must be called viable and none too strong, no label "a touch strong" nor "a touch
  swingy", at the instrument's stated error rate (the share of relabellings that err).
- **B4** ("almost never"): a field that does not avoid the disaster by design (every seat
  the uniform-random baseline) must fail.
- **B5** (the crossover of paired games): two halves of seats playing the same style, the
  arms from different games: the interval must cover 1 at its stated rate (blocks of
  deals).
- **B6** (margins): mirror games are as tight as luck alone makes a game; their median
  relative margin per player count, measured on one half of the mirror games, is the
  threshold of the reading "as tight as mirror games" (checked on the other half); the
  printed threshold must let mirror games pass, or that reading is untestable as worded.
- **B7** (constant across player counts): games of one player count under random pseudo
  player-count labels must be called constant at the stated error rate.
- **B8** ("never" unwarned): with the one-collapse cap lifted (``max_collapses_per_round
  2`` at ``steps_per_floor 1``) crews are Taken unwarned; the instrument must fail.

``make findings-calibration`` plays the references on seeds apart from every verdict run
(:data:`RUNS`) and writes ``calibration.yaml`` beside this module, which is committed
before the verdict runs: the claims read their calibration and the mirror margins from it
(:func:`load_calibration`). The study that plays them is
:mod:`deepsim.studies.calibration`::

    python -m deepsim.studies.calibration --runs DIR [--games N] [--out FILE]
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from deepsim.errors import InputError
from deepsim.report.config import ReportConfig
from deepsim.report.load import RunData
from deepsim.rulesets.deepfall import claims as C
from deepsim.rulesets.deepfall import instruments as I
from deepsim.rulesets.deepfall.claims import CALIBRATION_FILE, load_calibration
from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES, display_name

__all__ = ["CALIBRATION_FILE", "REPS", "RUNS", "calibrate", "load_calibration", "relabel",
           "write_calibration"]

#: relabellings (B2, B3, B7) and blocks of deals (B5) the error rates are counted over
REPS = 200

#: The reference runs: folder name -> scenario, seed (apart from every verdict run's:
#: 7, 11, 21, 22), ``--set`` overrides, and the share of ``--games`` it plays (an exact
#: answer needs few games).
RUNS = {
    "mirror": {"scenario": "scenarios/claims/cal-mirror.yaml", "seed": 1001, "sets": [],
               "share": 1.0},
    "spf1": {"scenario": "scenarios/deepfall-mixed.yaml", "seed": 1002,
             "sets": ["maw.steps_per_floor=1"], "share": 0.1},
    "no-dread-step": {"scenario": "scenarios/deepfall-mixed.yaml", "seed": 1003,
                      "sets": ["maw.dread_full_steps=0"], "share": 0.1},
    "random": {"scenario": "scenarios/claims/cal-random.yaml", "seed": 1004, "sets": [],
               "share": 0.25},
    "no-cap": {"scenario": "scenarios/deepfall-mixed.yaml", "seed": 1005,
               "sets": ["maw.steps_per_floor=1", "maw.max_collapses_per_round=2"],
               "share": 0.1},
    "aa": {"scenario": "scenarios/claims/cal-b5-aa.yaml", "seed": 1006, "sets": [],
           "share": 1.0},
}


def relabel(seats: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """``seats`` with ``lineage``, ``calling`` and ``company`` replaced by labels drawn as
    a field with ``companies.unique`` draws companies: per game, distinct Lineages and
    distinct Callings at random. On mirror games (every seat the same company and bot) the
    labels carry no information: each label's true win share is its fair share."""
    games = seats["game"].to_numpy()
    _, gi = np.unique(games, return_inverse=True)
    n_games = int(gi.max()) + 1 if gi.size else 0
    seat = seats["seat"].to_numpy() - 1
    lin = rng.permuted(np.tile(np.arange(len(LINEAGES)), (n_games, 1)), axis=1)
    cal = rng.permuted(np.tile(np.arange(len(CALLINGS)), (n_games, 1)), axis=1)
    ln = np.array([display_name(x) for x in LINEAGES])[lin[gi, seat]]
    cn = np.array([display_name(x) for x in CALLINGS])[cal[gi, seat]]
    return seats.assign(lineage=ln, calling=cn,
                        company=np.char.add(np.char.add(ln.astype(str), " "), cn))


def _mc(rate: float, reps: int) -> float:
    """``rate`` + three Monte Carlo standard errors over ``reps`` replicates."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / reps)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _entry(reference: str, figure: str, passed: bool, runs: list[str], **numbers) -> dict:
    return {"reference": reference, "figure": figure, "passed": bool(passed), "runs": runs,
            "numbers": {k: (float(v) if isinstance(v, (int, float, np.floating)) else v)
                        for k, v in numbers.items()}}


def _b1(spf1: RunData, nodread: RunData, c) -> dict:
    lo, hi = c.rounds_target - c.rounds_tolerance, c.rounds_target + c.rounds_tolerance
    a = C.measure_length(spf1.games, lo, hi, c.alpha)
    b = C.measure_length(nodread.games, lo, hi, c.alpha)
    exact6 = all(x == 6 for x in a.detail["low"] + a.detail["high"])
    exact12 = all(x == 12 for x in b.detail["low"] + b.detail["high"])
    ok = exact6 and exact12 and a.verdict == I.FAILS and b.verdict == I.HOLDS
    return _entry(
        "the literal Maw (maw.steps_per_floor=1) allows 6 rounds; with no Dread step "
        "(maw.dread_full_steps=0) the Maw takes exactly 12 rounds",
        f"reads {min(a.detail['mean']):.2f}-{max(a.detail['mean']):.2f} rounds ({a.verdict}) "
        f"and {min(b.detail['mean']):.2f}-{max(b.detail['mean']):.2f} ({b.verdict}) at every "
        f"player count, intervals of zero width: both known lengths",
        ok, ["spf1", "no-dread-step"], spf1_mean=min(a.detail["mean"]),
        no_dread_mean=min(b.detail["mean"]))


def _relabelled(mirror: RunData, reps: int, seed: int):
    rng = np.random.default_rng(seed)
    seats = mirror.balance_seats()[0]
    for _ in range(reps):
        yield relabel(seats, rng)


def _b2_b3(mirror: RunData, c, reps: int, seed: int) -> dict:
    out = {}
    n_games = mirror.n_games
    tiers = {"dead": c.dead_ratio, "weak": c.min_ratio}
    false = {k: 0 for k in tiers}
    ok = {k: 0 for k in tiers}
    strong_false = swing_false = 0
    swing_vals = []
    for frame in _relabelled(mirror, reps, seed):
        strong = False
        for key, line in tiers.items():
            t, e = C.measure_tiers(frame, "company", line, c.alpha)
            too = bool((t["low"] > c.max_ratio).any())
            strong = strong or too
            false[key] += e.verdict == I.FAILS or too
            ok[key] += e.verdict == I.HOLDS and not too
        a = C.measure_strong(frame, "lineage", "Dvergar", c.touch_max, c.alpha)
        b = C.measure_strong(frame, "calling", "Reaver", c.touch_max, c.alpha)
        strong_false += any(x is not None and x.verdict == I.HOLDS for x in (a, b))
        s = C.measure_swing(frame, "calling", "Wardancer", c.touch_max, c.alpha)
        swing_false += s is not None and s.verdict == I.HOLDS
        if s is not None:
            swing_vals.append(s.value)
    what = (f"{reps} relabellings of {n_games:,} mirror games (every seat one company and "
            f"bot, drawn per game; labels drawn as the field draws companies)")
    ref = ("one company under 36 labels with identical numbers: every label viable, none "
           "too strong")
    for key, line in tiers.items():
        f, o = false[key] / reps, ok[key] / reps
        out[f"B2.{key}"] = _entry(
            ref, f"{what}: every label called viable and none too strong in {_pct(o)}; a "
                 f"label called {key} (< {line:g} x fair) or too strong in {_pct(f)} (stated "
                 f"error rate at most {_pct(c.alpha)})",
            f <= _mc(c.alpha, reps) and o >= 1 - _mc(c.alpha, reps), ["mirror"],
            false_rate=f, holds_rate=o, reps=reps)
    f = strong_false / reps
    out["B3.strong"] = _entry(
        "labels with identical numbers: none 'a touch strong'",
        f"{what}: the Dvergar or Reaver label called a touch strong in {_pct(f)} (stated at "
        f"most {_pct(c.alpha)})", f <= _mc(c.alpha, reps), ["mirror"], false_rate=f,
        reps=reps)
    f = swing_false / reps
    out["B3.swing"] = _entry(
        "labels with identical numbers: none 'a touch swingy'",
        f"{what}: the Wardancer label called swingier in {_pct(f)} (stated at most "
        f"{_pct(c.alpha / 2)} one-sided); CV ratio {min(swing_vals):.3f}-"
        f"{max(swing_vals):.3f}", f <= _mc(c.alpha, reps), ["mirror"], false_rate=f,
        reps=reps)
    return out


def _b4(random_run: RunData, c) -> dict:
    est = C.measure_feel_bad(random_run.seats, c.almost_never, c.alpha)
    ok = all(e.verdict == I.FAILS for e in est.values())
    return {"B4": _entry(
        "a field that does not avoid the disaster by design (every seat the uniform-random "
        "baseline)",
        f"{random_run.n_games:,} games: {est['crew-all'].value:.3f} of crews "
        f"({est['crew-mid'].value:.3f} mid-game) and {est['pg-all'].value:.3f} of "
        f"player-games ({est['pg-mid'].value:.3f}) Taken without a Last Stand: every reading "
        f"{'fails, as it must' if ok else 'does not fail'}",
        ok, ["random"], **{k.replace("-", "_"): e.value for k, e in est.items()})}


def _b5(aa: RunData, c, reps: int) -> dict:
    """A/A: the run's first half of games is arm a (X = odd seats), the second arm b (X =
    even seats); a deal pairs game i with game i + N/2 (independent games)."""
    n = aa.n_games
    half = n // 2
    games = np.sort(aa.games["game"].to_numpy())
    first, second = set(games[:half]), set(games[half:2 * half])
    odd = {1, 3, 5}
    even = {2, 4, 6}
    fa = C.crossover_frame(_sub(aa, first), odd)
    fb = C.crossover_frame(_sub(aa, second), even)
    fb["game"] = fb["game"].rank(method="first").astype(int) - 1
    fa["game"] = fa["game"].rank(method="first").astype(int) - 1
    whole = C.measure_crossover(fa, fb, c.alpha)["ratio"]
    blocks = np.array_split(np.arange(half), reps)
    miss = 0
    for b in blocks:
        keep = set(b.tolist())
        r = C.measure_crossover(fa[fa["game"].isin(keep)], fb[fb["game"].isin(keep)],
                                c.alpha)["ratio"]
        miss += r.low > 1 or r.high < 1
    rate = miss / reps
    ok = whole.low <= 1 <= whole.high and rate <= _mc(c.alpha, reps)
    return {"B5": _entry(
        "two halves of the seats playing the same style (greedy), arms from different "
        "games: the ratio is 1",
        f"{half:,} deals: ratio {whole.value:.3f} [{whole.low:.3f}, {whole.high:.3f}]; in "
        f"{reps} blocks of {half // reps:,} deals the interval missed 1 in {_pct(rate)} "
        f"(stated at most {_pct(c.alpha)})", ok, ["aa"], ratio=whole.value,
        miss_rate=rate, reps=reps)}


def _sub(run: RunData, games: set) -> RunData:
    return RunData(path=run.path, info=run.info, manifest=run.manifest,
                   games=run.games[run.games["game"].isin(games)],
                   seats=run.seats[run.seats["game"].isin(games)], params=run.params,
                   rs=run.rs)


def _b6(mirror: RunData, c) -> tuple[dict, dict]:
    g = mirror.games.sort_values("game")
    half = len(g) // 2
    derive, check = g.iloc[:half], g.iloc[half:]
    medians = {int(p): float(d["margin_rel"].median()) for p, d in derive.groupby("players")}
    tol = c.mirror_tolerance
    e = C.measure_tight(check, {p: (1 + tol) * m for p, m in medians.items()}, c.alpha)
    lit = C.measure_tight(g, c.tight_margin, c.alpha)
    med_txt = ", ".join(f"{p}p {m:.3f}" for p, m in sorted(medians.items()))
    out = {
        "B6.mirror": _entry(
            "mirror games (every seat the same company and bot) are as tight as luck alone "
            "makes a game: 'tight' = within (1 + claims.mirror_tolerance) x their median",
            f"median relative margin of {half:,} mirror games: {med_txt}; on the other "
            f"{len(check):,} mirror games {e.value:.3f} [{e.low:.3f}, {e.high:.3f}] are "
            f"within {1 + tol:g} x it ({e.verdict})", e.verdict == I.HOLDS, ["mirror"],
            share=e.value),
        "B6.literal": _entry(
            "mirror games must pass 'tight' (no field is tighter than one whose players "
            "are all the same)",
            f"{len(g):,} mirror games: {lit.value:.3f} [{lit.low:.3f}, {lit.high:.3f}] "
            f"within {c.tight_margin:g} of the winner's Glory, median "
            f"{float(g['margin_rel'].median()):.3f} ({lit.verdict}"
            + ("" if lit.verdict == I.HOLDS else
               ": the printed threshold is below what mirror games reach") + ")",
            lit.verdict == I.HOLDS, ["mirror"], share=lit.value)}
    return out, {"B6.mirror_median": medians}


def _b7(mirror: RunData, c, reps: int, seed: int) -> dict:
    g = mirror.games
    p = int(g["players"].mode().iloc[0])
    one = g[g["players"] == p]
    rng = np.random.default_rng(seed)
    counts = {k: {"false": 0, "ok": 0} for k in ("share", "markers")}
    for _ in range(reps):
        labels = rng.integers(2, 7, len(one))
        for k, v in counts.items():
            e = C.measure_contention(one, k, c.contention_tolerance, c.alpha, groups=labels)
            v["false"] += e.verdict == I.FAILS
            v["ok"] += e.verdict == I.HOLDS
    out = {}
    for k, v in counts.items():
        f, o = v["false"] / reps, v["ok"] / reps
        out[f"B7.{k}"] = _entry(
            "games of one player count under random player-count labels: contention "
            "constant",
            f"{reps} relabellings of {len(one):,} {p}-player mirror games into 5 pseudo "
            f"player counts: called constant in {_pct(o)}, not constant in {_pct(f)} "
            f"(stated at most {_pct(c.alpha)})",
            f <= _mc(c.alpha, reps) and o >= 1 - _mc(c.alpha, reps), ["mirror"],
            false_rate=f, holds_rate=o, reps=reps)
    return out


def _b8(nocap: RunData, c) -> dict:
    e = C.measure_blindsided(nocap.games, c.alpha)
    return {"B8": _entry(
        "with the one-collapse cap lifted (maw.steps_per_floor=1, "
        "maw.max_collapses_per_round=2) a full Dread track eats two floors in a round",
        f"{nocap.n_games:,} games: {e.value:.3f} of them have a crew Taken on a floor that "
        f"was not the next to fall ({int(nocap.games['taken_blindsided'].sum()):,} crews): "
        f"the claim {'fails, as it must' if e.verdict == I.FAILS else 'is not refuted'}",
        e.verdict == I.FAILS, ["no-cap"], share=e.value)}


def calibrate(runs: dict[str, RunData], config: ReportConfig | None = None,
              reps: int = REPS, seed: int = 0) -> dict:
    """Every instrument's calibration on the reference runs (:data:`RUNS`, loaded).

    Returns
    -------
    dict
        ``instruments``: key (``B1``, ``B2.dead``, ...) -> ``reference``, ``figure``,
        ``passed``, ``runs``, ``numbers``; ``thresholds``: ``B6.mirror_median`` (player
        count -> median relative margin of mirror games); ``runs``: name -> label.

    Raises
    ------
    InputError
        A reference run is missing.
    """
    from deepsim.rulesets.deepfall import REPORT_OPTIONS

    missing = [n for n in RUNS if n not in runs]
    if missing:
        raise InputError(f"calibration needs the reference runs {', '.join(missing)} "
                         f"(`make findings-calibration` plays them)")
    c = config or ReportConfig.for_ruleset(REPORT_OPTIONS)
    inst: dict = {}
    inst["B1"] = _b1(runs["spf1"], runs["no-dread-step"], c)
    inst.update(_b2_b3(runs["mirror"], c, reps, seed))
    inst.update(_b4(runs["random"], c))
    inst.update(_b5(runs["aa"], c, reps))
    b6, thresholds = _b6(runs["mirror"], c)
    inst.update(b6)
    inst.update(_b7(runs["mirror"], c, reps, seed + 1))
    inst.update(_b8(runs["no-cap"], c))
    return {"instruments": dict(sorted(inst.items())), "thresholds": thresholds,
            "runs": {n: {"label": r.label, "path": str(r.path),
                         "scenario": RUNS[n]["scenario"], "seed": RUNS[n]["seed"],
                         "sets": RUNS[n]["sets"], "games": r.n_games}
                     for n, r in runs.items() if n in RUNS},
            "alpha": c.alpha, "reps": reps}


def write_calibration(result: dict, path: str | Path, made_by: str) -> Path:
    """Write ``result`` (:func:`calibrate`) as YAML with a header saying how it was made."""
    from deepsim.atomic import atomic_write_text
    from deepsim.version import __version__

    doc = {"made_by": made_by, "made_utc": dt.datetime.now(dt.UTC).strftime(
        "%Y-%m-%d %H:%M"), "deepsim": __version__, **result}
    head = ("# The claims' instruments calibrated on references whose answer is known\n"
            "# (deepsim/rulesets/deepfall/calibration.py). Made by `make findings-calibration`\n"
            "# on seeds apart from the verdict runs and committed before them; do not edit.\n")
    p = Path(path)
    atomic_write_text(p, head + yaml.safe_dump(doc, sort_keys=False, width=100,
                                               allow_unicode=True))
    return p
