"""The DEEPFALL rulebook's claims B1-B8: what each says, which of its parts must all hold
(conjuncts) and which are alternative readings (each judged on its own), the instrument
that measures it and how the instrument was calibrated.

This module is the product's own copy of the claims (it reads nothing outside the
package). The thresholds ("~11 rounds", "a touch", "almost never", "tight", "constant",
"dead") are the ruleset's report options (``claims.*``, :data:`deepsim.rulesets.deepfall.
REPORT_OPTIONS`), fixed in code; the one threshold a reference measures (the margins of
mirror games, B6) and every instrument's calibration figure come from
``calibration.yaml`` (:mod:`deepsim.rulesets.deepfall.calibration`), made by ``make
findings-calibration`` on seeds apart from the verdict runs and committed before them. A
reading whose instrument failed its calibration is *untestable as worded*, never "fails".

Each reading says what decides it: ``the games`` (the measurement), ``construction`` (a
rule the kernel enforces, or the rules alone fix the answer) or ``bot design`` (the bots
avoid the situation by the way they are written).

The instruments are :mod:`deepsim.rulesets.deepfall.instruments` (pure numpy; their error
rates are tested on synthetic data). The functions named ``measure_*`` below take frames
and return instrument estimates: the claims use them on a run, the calibration on its
reference games.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from deepsim.report import metrics as M
from deepsim.report.context import Context
from deepsim.report.load import RunData
from deepsim.report.verdicts import (
    HOLDS,
    INCONCLUSIVE,
    Claim,
    ClaimPart,
    ClaimResult,
    Region,
    fmt_ci,
    not_measured,
    part_distance,
)
from deepsim.rulesets.deepfall import instruments as I

__all__ = ["CALIBRATION_FILE", "CLAIMS", "CLAIM_TABLE", "STUDY_PREFIX", "ClaimSpec", "Reading",
           "arm_seats", "b5_pair", "calibrated_threshold", "evaluate_claims", "is_study_run",
           "measure_feel_bad", "measure_length", "measure_rest_view", "measure_strong",
           "measure_swing", "measure_tiers", "relative_glory", "rest_view", "study_runs",
           "variant_runs"]

#: scenario names of the paired-game runs a claim needs of its own (B5), e.g.
#: ``claims-b5-exits-a``: read by the claims only, never by the report's other sections
STUDY_PREFIX = "claims-"

GAMES, CONSTRUCTION, BOT_DESIGN = "the games", "construction", "bot design"


@dataclass(frozen=True)
class Reading:
    """One way to read a claim, judged on its own.

    ``key``: short id; ``label``: what it means; ``basis``: what decides it (the games,
    construction, bot design); ``calibration``: the keys of ``calibration.yaml`` entries of
    the instruments it reads."""

    key: str
    label: str
    basis: str
    calibration: tuple[str, ...]


@dataclass(frozen=True)
class ClaimSpec:
    """A claim's conjuncts (all must hold, in every reading) and alternative readings."""

    claim: Claim
    conjuncts: tuple[str, ...]
    readings: tuple[Reading, ...]


def _claim(cid, section, text, measure, params) -> Claim:
    return Claim(cid, section, text, measure, params)


#: The claims: what each says, its conjuncts and readings (shown in FINDINGS).
CLAIM_TABLE: dict[str, ClaimSpec] = {s.claim.id: s for s in [
    ClaimSpec(
        _claim("B1", "§9", "Games last ~11 rounds at every player count (2-6).",
               "Rounds per game by player count: the mean with a t interval (simultaneous "
               "over the player counts), median, 5th-95th percentile. Holds when every "
               "player count's mean lies within claims.rounds_tolerance of "
               "claims.rounds_target.",
               ("maw.steps_per_floor", "maw.steps_per_round", "maw.dread_full_steps")),
        ("the mean at 2, 3, 4, 5 and 6 players",),
        (Reading("spf2", "maw.steps_per_floor=2 (A1: a floor is threatened, then "
                         "collapsed; the default)", GAMES, ("B1",)),
         Reading("spf1", "maw.steps_per_floor=1 (§6B as printed: a floor a round; 6 "
                         "floors allow at most 6 rounds)", CONSTRUCTION, ("B1",)))),
    ClaimSpec(
        _claim("B2", "§4", "All 36 Lineage x Calling companies are viable (no dead picks).",
               "Win share of each company over its fair share (the sum of 1/n over its "
               "games), Wilson intervals simultaneous over the companies. Two tiers: "
               "'dead' below claims.dead_ratio x fair, 'weak' below viability.min_ratio x "
               "fair; each reading holds when every company's interval lies at or above its "
               "line. 'Without the too strong': the games in which no company the report "
               "calls too strong sits (one company far above fair drags every other below "
               "it by arithmetic), fair share renormalised among them. Seats of baseline "
               "bot styles are left out.",
               ("lineages.*.start_bag (placeholder, A3)",
                "dungeon.floor_weights (placeholder, A21)")),
        ("every one of the 36 companies",),
        (Reading("dead", "no dead picks (every company >= claims.dead_ratio x fair)",
                 GAMES, ("B2.dead",)),
         Reading("weak", "every company viable at the balance standard (>= "
                         "viability.min_ratio x fair)", GAMES, ("B2.weak",)),
         Reading("dead-rest", "no dead picks, in games without the too strong companies",
                 GAMES, ("B2.dead",)),
         Reading("weak-rest", "viable at the balance standard, in games without the too "
                              "strong companies", GAMES, ("B2.weak",)))),
    ClaimSpec(
        _claim("B3", "§4", "Dvergar and Reaver run 'a touch strong'; Wardancer 'a touch "
                           "swingy'.",
               "'A touch strong': the group's win share over fair share (Wilson) inside "
               "(1, 1 + claims.touch_max]. 'A touch swingy': the coefficient of variation "
               "(sd / mean) of Glory over the game's mean Glory, Wardancer seats over the "
               "other Callings' (delta method, games as clusters), inside (1, 1 + "
               "claims.touch_max]: scale-free, so a Calling that scores more is not "
               "swingier for its larger numbers, nor steadier for usually finishing first.",
               ("lineages.dvergar.threat_ignore", "callings.reaver.claim_loot",
                "callings.wardancer.worthy_end_multiplier",
                "callings.wardancer.free_last_stand")),
        ("Dvergar a touch strong", "Reaver a touch strong", "Wardancer a touch swingy"),
        (Reading("field", "strength against the whole field", GAMES,
                 ("B3.strong", "B3.swing")),
         Reading("rest", "strength among the rest: in games without the too strong "
                         "companies", GAMES, ("B3.strong", "B3.swing")))),
    ClaimSpec(
        _claim("B4", "§7.3", "Being Taken without a Last Stand 'almost never happens'.",
               "Crews Taken without a Last Stand after playing at least one turn, as a "
               "share of crews and as the share of player-games with one (Wilson), "
               "heuristic bot styles (the baselines left out), mid-game and with the final "
               "collapse of Floor 1; a crew Taken before its first turn never had the "
               "chance and is counted apart. Holds when the interval lies at or below "
               "claims.almost_never.",
               ("exits.taken_loses_markers", "exits.last_stand_cost", "end.max_rounds")),
        (),
        (Reading("crew-mid", "per crew, mid-game", BOT_DESIGN, ("B4",)),
         Reading("crew-all", "per crew, with the final collapse of Floor 1", BOT_DESIGN,
                 ("B4",)),
         Reading("pg-mid", "per player-game, mid-game", BOT_DESIGN, ("B4",)),
         Reading("pg-all", "per player-game, with the final collapse of Floor 1",
                 BOT_DESIGN, ("B4",)))),
    ClaimSpec(
        _claim("B5", "§7.3 note",
               "Under greedy play Cash Out and Worthy End are substitutes; aggression "
               "slightly over-wins.",
               "Paired games (a crossover): each deal (seed and game index: player count, "
               "dungeon, companies) is played twice, half the seats with one behaviour and "
               "half with the other, swapped in the second arm, so only the behaviour "
               "differs. Substitutes: greedy bots steered to leave by Cash Out (knob "
               "exit_via 1) against greedy bots steered to leave by a Last Stand (exit_via "
               "2) at the same moments; holds when the ratio of their win shares over fair "
               "is inside [1/(1 + claims.substitute_tolerance), 1 + "
               "claims.substitute_tolerance]. Aggression: greedy (presses on hard, stays "
               "deep) against the reference style balanced (the middle of the road); holds "
               "when greedy's win share over fair is inside (1, 1 + claims.touch_max].",
               ("exits.cash_out_dividend", "exits.worthy_end_multiplier",
                "exits.worthy_end_basis", "exits.worthy_end_keeps_loot")),
        ("Cash Out and Worthy End substitutes under greedy play",
         "aggression (greedy) slightly over-wins"),
        (Reading("paired", "paired games, aggression against the reference style balanced",
                 GAMES, ("B5",)),)),
    ClaimSpec(
        _claim("B6", "§9", "Tight margins.",
               "Winner's Glory minus the runner-up's over the winner's Glory (relative "
               "margin). Holds when most games (the Wilson interval of the share above 1/2) "
               "are at most the threshold: claims.tight_margin as printed, or (1 + "
               "claims.mirror_tolerance) x the median relative margin of mirror games "
               "(every seat the same company and bot: as tight as luck alone makes them) "
               "at the game's player count, measured by the calibration.",
               ("end.tie_rule", "maw.tie_split")),
        (),
        (Reading("literal", "median relative margin <= claims.tight_margin", GAMES,
                 ("B6.literal",)),
         Reading("mirror", "margins as tight as mirror games' (within "
                           "claims.mirror_tolerance)", GAMES, ("B6.mirror",)))),
    ClaimSpec(
        _claim("B7", "§9",
               "Rooms-per-floor scaling keeps contention constant across player counts.",
               "By player count, ratios of sums over games (games as clusters, intervals "
               "simultaneous over the player counts). Constant when the largest player "
               "count's value is at most 1 + claims.contention_tolerance times the smallest "
               "(checked on the interval ends).",
               ("scaling.*.rooms_per_floor", "claims.reinforce_own",
                "claims.fallen_strength")),
        ("every player count 2-6",),
        (Reading("share", "share of scored rooms with 2+ claimants", GAMES, ("B7.share",)),
         Reading("markers", "control markers per contested room", GAMES,
                 ("B7.markers",)))),
    ClaimSpec(
        _claim("B8", "§6B",
               "The Maw never eats more than one floor a round, so 'one floor away' is an "
               "honest warning.",
               "The kernel enforces at most maw.max_collapses_per_round collapses a round "
               "(A31; how often the cap binds is measured). 'One floor away' is honest when "
               "no crew is Taken on a floor that was not the next to fall when the round "
               "began (blindsided): every Taking is classed where it happens (warned, moved "
               "onto the floor, mustered onto it, blindsided); holds when no game has a "
               "blindsided Taking.",
               ("maw.max_collapses_per_round", "maw.defer_extra_steps",
                "maw.steps_per_floor")),
        ("at most one floor a round", "no crew Taken unwarned (blindsided)"),
        (Reading("spf2", "maw.steps_per_floor=2 (the default)", CONSTRUCTION, ("B8",)),
         Reading("spf1", "maw.steps_per_floor=1 (the literal Maw)", CONSTRUCTION,
                 ("B8",)))),
]}

#: the claims alone (id -> :class:`~deepsim.report.verdicts.Claim`)
CLAIMS: dict[str, Claim] = {cid: spec.claim for cid, spec in CLAIM_TABLE.items()}


# --- calibration ------------------------------------------------------------------------------

#: the committed calibration (made by deepsim/rulesets/deepfall/calibration.py)
CALIBRATION_FILE = Path(__file__).with_name("calibration.yaml")


def load_calibration(path: str | Path | None = None) -> dict:
    """The committed calibration (``calibration.yaml``): ``instruments`` (key -> reference,
    figure, passed, numbers), ``thresholds``, ``runs`` and how it was made; ``{}`` when the
    file is absent (every reading is then testable and the mirror reading unmeasured)."""
    p = Path(path) if path else CALIBRATION_FILE
    if not p.is_file():
        return {}
    with open(p, encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


@lru_cache(maxsize=1)
def _calibration() -> dict:
    return load_calibration()


def _untestable(spec: ClaimSpec) -> dict[str, str]:
    """Reading key -> why, for the readings whose instrument failed its calibration."""
    cal = _calibration().get("instruments") or {}
    out = {}
    for r in spec.readings:
        bad = [f"{k}: {cal[k]['figure']}" for k in r.calibration
               if k in cal and not cal[k].get("passed", True)]
        if bad:
            out[r.key] = "the instrument failed its calibration (" + "; ".join(bad) + ")"
    return out


def calibrated_threshold(key: str):
    """A threshold the committed calibration sets (``calibration.yaml`` ``thresholds``:
    ``key`` -> value); None when it has none."""
    return (_calibration().get("thresholds") or {}).get(key)


# --- runs --------------------------------------------------------------------------------------

def is_study_run(run: RunData) -> bool:
    """A run of a claim's own paired games (scenario name ``claims-...``)."""
    return run.scenario_name.startswith(STUDY_PREFIX)


def study_runs(ctx: Context) -> dict[str, RunData]:
    """The paired-game runs given, by scenario name (``claims-b5-exits-a``, ...)."""
    return {r.scenario_name: r for r in ctx.others if is_study_run(r)}


def variant_runs(ctx: Context, path: str) -> dict:
    """Runs whose rules differ from the primary's at most in ``path``, by its value (the
    run with the most games per value; study runs left out)."""
    out: dict = {}
    for run in ctx.runs:
        if run is not ctx.primary and (is_study_run(run)
                                       or not ctx.diff_paths(run) <= {path}):
            continue
        value = run.param(path)
        if value is None and run is not ctx.primary:
            continue
        if value not in out or run.n_games > out[value].n_games:
            out[value] = run
    return out


def _needs(ctx: Context, path: str, value) -> str:
    scen = ctx.primary.info.get("scenario_path") or "SCENARIO"
    return (f"needs a run with {path}={value}: `deepsim run {scen} --set {path}={value}`, "
            f"then `deepsim report {ctx.primary.path} RUN_DIR`")


def _scale(tol: float, default: float) -> float:
    return tol if tol > 0 else default


# --- measurements on frames (the claims' and the calibration's) ------------------------------

def measure_length(games: pd.DataFrame, lo: float, hi: float, alpha: float) -> I.Estimate:
    """B1: rounds per game by player count against ``[lo, hi]``."""
    M.require(games, ["rounds", "players"], "games")
    return I.band_means(games["rounds"].to_numpy(), games["players"].to_numpy(), lo, hi,
                        alpha)


def _renormalised(seats: pd.DataFrame) -> pd.DataFrame:
    """``fair`` = the seats' mean win at each player count (the rule of the report's
    baseline renormalisation)."""
    fair = seats.groupby("players")["win"].transform("mean")
    return seats.assign(fair=fair.to_numpy())


def measure_rest_view(seats: pd.DataFrame, strong: list[str],
                      by: str = "company") -> pd.DataFrame:
    """The seats of the games in which no ``by`` group in ``strong`` sits, the fair share
    renormalised among them (the view "without the too strong")."""
    if not strong:
        return seats
    bad = seats.loc[seats[by].astype(str).isin(strong), "game"].unique()
    rest = seats[~seats["game"].isin(bad)]
    return _renormalised(rest) if len(rest) else rest


def measure_tiers(seats: pd.DataFrame, by: str, line: float, alpha: float
                  ) -> tuple[dict, I.Estimate]:
    """B2: each group's ratio table and the floor verdict at ``line`` x fair."""
    M.require(seats, [by, "win", "fair"], "seats")
    t = I.ratio_table(seats["win"].to_numpy(), seats["fair"].to_numpy(),
                      seats[by].astype(str).to_numpy(), alpha)
    return t, I.floor_verdict(t, line)


def measure_strong(seats: pd.DataFrame, by: str, group: str, touch: float, alpha: float
                   ) -> I.Estimate | None:
    """B3: "``group`` runs a touch strong": its ratio interval against (1, 1 + touch]
    (None when the group did not play)."""
    M.require(seats, [by, "win", "fair"], "seats")
    t = I.ratio_table(seats["win"].to_numpy(), seats["fair"].to_numpy(),
                      seats[by].astype(str).to_numpy(), alpha, simultaneous=False)
    where = np.flatnonzero(t["group"] == group)
    if not where.size:
        return None
    i = int(where[0])
    rank = int((t["ratio"] > t["ratio"][i]).sum()) + 1
    return I.Estimate(float(t["ratio"][i]), float(t["low"][i]), float(t["high"][i]),
                      I.region_verdict(t["low"][i], t["high"][i], 1.0, 1.0 + touch,
                                       lo_open=True),
                      {"rank": rank, "of": len(t["group"]),
                       "win_share": float(t["wins"][i] / t["n"][i]),
                       "fair": float(t["fair"][i])})


def relative_glory(seats: pd.DataFrame) -> np.ndarray:
    """Each seat's Glory over its game's mean Glory (NaN in a game where no one scored)."""
    M.require(seats, ["game", "glory"], "seats")
    g = seats["glory"].to_numpy(dtype=np.float64)
    mean = seats.groupby("game")["glory"].transform("mean").to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mean > 0, g / mean, np.nan)


def measure_swing(seats: pd.DataFrame, by: str, group: str, touch: float, alpha: float
                  ) -> I.Estimate | None:
    """B3: "``group`` runs a touch swingy": the coefficient of variation of Glory over the
    game's mean, the group's over the rest's, against (1, 1 + touch]."""
    M.require(seats, [by, "glory", "game"], "seats")
    rel = relative_glory(seats)
    ok = ~np.isnan(rel)
    grp = (seats[by].astype(str) == group).to_numpy()
    if not (grp & ok).any():
        return None
    e = I.cv_ratio(rel[ok], grp[ok], seats["game"].to_numpy()[ok], alpha)
    return I.Estimate(e.value, e.low, e.high,
                      I.region_verdict(e.low, e.high, 1.0, 1.0 + touch, lo_open=True),
                      e.detail)


def measure_feel_bad(seats: pd.DataFrame, cap: float, alpha: float) -> dict[str, I.Estimate]:
    """B4: the four readings' shares against "at most ``cap``" (keys as the readings)."""
    M.require(seats, ["taken_no_stand", "taken_no_stand_final", "crews"], "seats")
    tns = seats["taken_no_stand"].to_numpy(dtype=np.float64)
    fin = seats["taken_no_stand_final"].to_numpy(dtype=np.float64)
    crews = float(seats["crews"].sum())
    n = len(seats)
    out = {}
    for sfx, t in (("mid", tns - fin), ("all", tns)):
        out[f"crew-{sfx}"] = I.rare_rate(float(t.sum()), crews, cap, alpha)
        out[f"pg-{sfx}"] = I.rare_rate(float((t > 0).sum()), n, cap, alpha)
    return out


def crossover_frame(run: RunData, x_seats: set[int]) -> pd.DataFrame:
    """Per game of a crossover arm: wins and summed fair shares of the X seats (``x_seats``,
    numbered from 1) and of the others."""
    s = run.seats
    isx = s["seat"].isin(x_seats).to_numpy()
    win = s["win"].to_numpy(dtype=np.float64)
    fair = s["fair"].to_numpy(dtype=np.float64)
    d = pd.DataFrame({"game": s["game"].to_numpy(), "wx": win * isx, "fx": fair * isx,
                      "wy": win * ~isx, "fy": fair * ~isx})
    return d.groupby("game", sort=True).sum().reset_index()


def measure_crossover(a: pd.DataFrame, b: pd.DataFrame, alpha: float) -> dict:
    """:func:`~deepsim.rulesets.deepfall.instruments.crossover` of two arms' frames
    (:func:`crossover_frame`; both with X as the same behaviour), deals by game index."""
    d = pd.concat([a, b], ignore_index=True)
    return I.crossover(d["wx"], d["fx"], d["wy"], d["fy"], d["game"], alpha)


def measure_tight(games: pd.DataFrame, threshold, alpha: float) -> I.Estimate:
    """B6: the share of games whose relative margin is at most ``threshold`` (a number,
    or a dict player count -> number)."""
    M.require(games, ["margin_rel", "players"], "games")
    m = games["margin_rel"].to_numpy(dtype=np.float64)
    if isinstance(threshold, dict):
        t = games["players"].map({int(k): float(v) for k, v in threshold.items()})
        if t.isna().any():
            raise KeyError(f"no mirror margin for {sorted(set(games['players'][t.isna()]))} "
                           f"players in calibration.yaml")
        return I.tight_share(m - t.to_numpy(dtype=np.float64), 0.0, alpha)
    return I.tight_share(m, float(threshold), alpha)


def measure_contention(games: pd.DataFrame, which: str, tol: float, alpha: float,
                       groups: np.ndarray | None = None) -> I.Estimate:
    """B7: ``which`` = ``share`` (contested rooms / rooms scored) or ``markers`` (markers /
    contested rooms), constant across player counts (or ``groups``)."""
    M.require(games, ["players", "rooms_scored", "rooms_contested", "contested_markers"],
              "games")
    y, x = (("rooms_contested", "rooms_scored") if which == "share"
            else ("contested_markers", "rooms_contested"))
    g = games["players"].to_numpy() if groups is None else groups
    return I.constant_ratio(games[y].to_numpy(), games[x].to_numpy(), g, tol, alpha)


def measure_blindsided(games: pd.DataFrame, alpha: float) -> I.Estimate:
    """B8: games with a crew Taken on a floor that was not the next to fall."""
    M.require(games, ["taken_blindsided"], "games")
    k = int((games["taken_blindsided"] > 0).sum())
    return I.never(k, len(games), alpha)


# --- the claims on a report's runs --------------------------------------------------------------

def _part(label, measured, interval, verdict, run, note, distance, readings=()
          ) -> ClaimPart:
    return ClaimPart(label, measured, interval, verdict, run, note, distance,
                     tuple(readings))


def _b1(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    lo, hi = c.rounds_target - c.rounds_tolerance, c.rounds_target + c.rounds_tolerance
    variants = variant_runs(ctx, "maw.steps_per_floor")
    region = Region(lo, hi, scale=_scale(c.rounds_tolerance, 1.0))
    parts = []
    for value in (2, 1):
        key = f"spf{value}"
        label = f"mean rounds at every player count, maw.steps_per_floor={value}"
        run = variants.get(value)
        if run is None:
            parts.append(_part(label, "-", "-", "not measured", "",
                               _needs(ctx, "maw.steps_per_floor", value), None, (key,)))
            continue
        try:
            e = measure_length(run.games, lo, hi, c.alpha)
        except KeyError as exc:
            parts.append(_part(label, "-", "-", "not measured", "", str(exc), None, (key,)))
            continue
        d = e.detail
        missing = sorted(set(range(2, 7)) - {int(p) for p in d["group"]})
        verdict = e.verdict
        note = (f"band [{lo:g}, {hi:g}]; intervals simultaneous over the {len(d['group'])} "
                f"player counts")
        if missing:
            note += f"; no games at {', '.join(map(str, missing))} players"
            if verdict == HOLDS:
                verdict = INCONCLUSIVE
        raw = max((region.raw_distance(m) for m in d["mean"]), default=math.nan)
        parts.append(_part(
            label,
            "mean rounds " + ", ".join(f"{int(p)}p {m:.2f}"
                                       for p, m in zip(d["group"], d["mean"], strict=True)),
            "; ".join(f"{int(p)}p {fmt_ci(a, b, '.2f')}"
                      for p, a, b in zip(d["group"], d["low"], d["high"], strict=True)),
            verdict, run.label, note, part_distance(verdict, raw), (key,)))
    return parts


def _too_strong(ctx: Context) -> list[str]:
    try:
        ws = ctx.win_shares("company")
    except KeyError:
        return []
    return sorted(ws.loc[ws["verdict"] == "too strong", "company"].astype(str))


def rest_view(ctx: Context) -> tuple[pd.DataFrame, list[str]]:
    """The balance seats of games without the too strong companies, and those companies
    (the B2/B3 "among the rest" readings)."""
    strong = _too_strong(ctx)
    return ctx.cached(("rest-view", tuple(strong)), lambda: measure_rest_view(
        ctx.balance_seats, strong)), strong


def _b2(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    seats = ctx.balance_seats
    if "company" not in seats.columns:
        return [not_measured("every company", "no company column")]
    if seats.empty:
        return [not_measured("every company", "every seat plays a baseline style (left out "
                             "of balance verdicts)")]
    rest, strong = rest_view(ctx)
    n_exp = _expected_companies(ctx.primary)
    parts = []
    for key, line, tier in (("dead", c.dead_ratio, "dead"), ("weak", c.min_ratio, "weak")):
        for view, frame, rkey in (("whole field", seats, key),
                                  ("without the too strong", rest, f"{key}-rest")):
            label = f"no company {tier} (< {line:g} x fair), {view}"
            if frame.empty:
                parts.append(_part(label, "-", "-", "not measured", "",
                                   "no game without a too strong company", None, (rkey,)))
                continue
            t, e = measure_tiers(frame, "company", line, c.alpha)
            judged = len(t["group"])
            verdict = e.verdict
            if judged + (len(strong) if view != "whole field" else 0) < n_exp \
                    and verdict == HOLDS:
                verdict = INCONCLUSIVE
            note = (f"{judged} companies judged, intervals simultaneous over them; "
                    f"ratios {np.nanmin(t['ratio']):.2f}-{np.nanmax(t['ratio']):.2f}")
            if e.detail["below"]:
                note += f"; {tier}: {', '.join(e.detail['below'])}"
            if e.detail["unsure"]:
                note += f"; not settled: {', '.join(e.detail['unsure'])}"
            if view != "whole field":
                players = sorted(int(p) for p in frame["players"].unique())
                note += (f"; {frame['game'].nunique():,} games at "
                         f"{', '.join(map(str, players))} players without "
                         f"{', '.join(strong) or 'a too strong company'}")
            region = Region(line, scale=_scale(1 - line, 0.2) if line < 1 else 0.2)
            raw = max((region.raw_distance(r) for r in t["ratio"]), default=math.nan)
            below = len(e.detail["below"])
            parts.append(_part(
                label,
                f"{judged - below - len(e.detail['unsure'])} of {judged} at or above the "
                f"line, {below} below; weakest {e.detail['weakest']} at {e.value:.2f} x fair",
                f"weakest {fmt_ci(e.low, e.high, '.2f')} x fair", verdict,
                ctx.primary.label, note, part_distance(verdict, raw), (rkey,)))
    if ctx.baseline_note():
        parts[0].note += f"; {ctx.baseline_note()}"
    return parts


def _expected_companies(run: RunData) -> int:
    """Companies that can play in this run: every Lineage x Calling, or, when the scenario
    fixes seats, only those its seats can draw (a fixed-seat scenario of 3 companies is
    judged on those 3, not on 36)."""
    lin = {k.split(".")[1] for k in run.params if k.startswith("lineages.")}
    cal = {k.split(".")[1] for k in run.params if k.startswith("callings.")}
    n_all = len(lin) * len(cal) if lin and cal else 36
    seats = (run.info.get("scenario") or {}).get("seats") or []
    if not seats or not lin or not cal:
        return n_all
    used = seats[:max(run.player_counts or [len(seats)])]
    possible = set()
    for seat in used:
        ls = lin if seat.get("lineage") in (None, "random") else {seat["lineage"]}
        cs = cal if seat.get("calling") in (None, "random") else {seat["calling"]}
        possible |= {(a, b) for a in ls for b in cs}
    return min(len(possible), n_all)


def _b3(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    touch = c.touch_max
    region = Region(1.0, 1.0 + touch, lo_open=True, scale=_scale(touch, 0.2))
    rest, strong = rest_view(ctx)
    parts = []
    for view, frame, key in (("whole field", ctx.balance_seats, "field"),
                             ("without the too strong", rest, "rest")):
        for by, group in (("lineage", "Dvergar"), ("calling", "Reaver")):
            label = f"{group} a touch strong, {view}"
            try:
                e = measure_strong(frame, by, group, touch, c.alpha) if len(frame) else None
            except KeyError as exc:
                parts.append(_part(label, "-", "-", "not measured", "", str(exc), None,
                                   (key,)))
                continue
            if e is None:
                parts.append(_part(label, "-", "-", "not measured", "",
                                   f"no {by} {group} in these games", None, (key,)))
                continue
            note = f"claimed region (1, {1 + touch:g}]"
            if key == "rest":
                note += (f"; games without {', '.join(strong) or 'a too strong company'}, "
                         f"fair share renormalised")
            parts.append(_part(
                label,
                f"win share {e.detail['win_share']:.3f} vs fair {e.detail['fair']:.3f}: "
                f"{e.value:.3f} x fair (rank {e.detail['rank']} of {e.detail['of']} {by}s)",
                f"{fmt_ci(e.low, e.high)} x fair", e.verdict, ctx.primary.label, note,
                part_distance(e.verdict, region.raw_distance(e.value)), (key,)))
    label = "Wardancer a touch swingy"
    try:
        e = ctx.cached(("swing-cv", "Wardancer"), lambda: measure_swing(
            ctx.balance_seats, "calling", "Wardancer", touch, c.alpha))
    except KeyError as exc:
        parts.append(not_measured(label, str(exc)))
        return parts
    if e is None:
        parts.append(not_measured(label, "no Wardancer in the run"))
        return parts
    d = e.detail
    parts.append(_part(
        label,
        f"CV of Glory over the game's mean: Wardancer {d['cv_group']:.3f}, other Callings "
        f"{d['cv_rest']:.3f}: x{e.value:.3f}",
        f"{fmt_ci(e.low, e.high)}", e.verdict, ctx.primary.label,
        f"claimed region (1, {1 + touch:g}]; scale-free (sd / mean), {d['n_group']:,} "
        f"Wardancer seat-games; the same in both readings",
        part_distance(e.verdict, region.raw_distance(e.value))))
    return parts


def _b4(ctx: Context) -> list[ClaimPart]:
    seats = ctx.primary.seats
    spec = CLAIM_TABLE["B4"]
    if "bot" not in seats.columns:
        return [not_measured(r.label, "no bot column") for r in spec.readings]
    pop = ctx.balance_seats if ctx.primary.baseline_bots else seats[seats["bot"] != "random"]
    left = ", ".join(ctx.primary.baseline_bots) or "random"
    if pop.empty:
        return [not_measured(r.label, "no heuristic bot seats") for r in spec.readings]
    cap = ctx.config.almost_never
    try:
        est = measure_feel_bad(pop, cap, ctx.config.alpha)
    except KeyError as exc:
        return [not_measured(r.label, str(exc)) for r in spec.readings]
    region = Region(0.0, cap, scale=_scale(cap, 0.05))
    who = (f"claimed: at most {cap:g}; {len(pop):,} heuristic-bot player-games, "
           f"{float(pop['crews'].sum()):,.0f} crews (baseline bots {left} left out)")
    if "taken_unplayed" in pop.columns:
        unplayed = float(pop["taken_unplayed"].mean())
        who += (f"; crews Taken before their first turn (mustered in the last round, no "
                f"chance to declare a Last Stand) are counted apart: {unplayed:.3f} per "
                f"player-game")
    parts = []
    for r in spec.readings:
        e = est[r.key]
        unit = "crews are" if r.key.startswith("crew") else "player-games have a crew"
        parts.append(_part(
            r.label, f"{e.value:.4f} of {unit} Taken without a Last Stand",
            fmt_ci(e.low, e.high, ".4f"), e.verdict, ctx.primary.label,
            who if not parts else "",
            part_distance(e.verdict, region.raw_distance(e.value)), (r.key,)))
    return parts


def arm_seats(run: RunData, style: dict) -> set[int]:
    """Seats (from 1) of a crossover arm that play ``style`` (a seat entry of the
    scenario)."""
    seats = (run.info.get("scenario") or {}).get("seats") or []
    return {i + 1 for i, s in enumerate(seats) if _seat_key(s) == _seat_key(style)}


def _seat_key(seat: dict) -> tuple:
    return (seat.get("bot"), tuple(sorted((seat.get("knobs") or {}).items())))


def _exit_use(run: RunData, x: set[int]) -> str:
    s = run.seats
    if not {"cash_outs", "worthy_ends"} <= set(s.columns):
        return ""
    isx = s["seat"].isin(x)
    return (f"{s.loc[isx, 'cash_outs'].mean():.2f} Cash Outs and "
            f"{s.loc[isx, 'worthy_ends'].mean():.2f} Worthy Ends per player-game")


def b5_pair(ctx: Context, kind: str) -> tuple[RunData, RunData, dict, dict] | str:
    """B5's two paired runs of ``kind`` (``exits`` or ``aggression``) and the two arms' seat
    styles, or a sentence saying why they cannot be paired."""
    runs = study_runs(ctx)
    a, b = runs.get(f"claims-b5-{kind}-a"), runs.get(f"claims-b5-{kind}-b")
    if a is None or b is None:
        return (f"needs the paired runs scenarios/claims/b5-{kind}-a.yaml and -b.yaml "
                f"(`make findings` plays them; then `deepsim report {ctx.primary.path} "
                f"RUN_A RUN_B`)")
    if a.seed != b.seed or a.n_games != b.n_games:
        return (f"the two arms are not paired: seeds {a.seed} and {b.seed}, "
                f"{a.n_games:,} and {b.n_games:,} games")
    seats_a = (a.info.get("scenario") or {}).get("seats") or []
    if not seats_a or "seat" not in a.seats.columns:
        return "the arms' runs list no seats"
    x_style, y_style = seats_a[0], seats_a[1]
    return a, b, x_style, y_style


def _b5(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    parts = []
    specs = (("exits", "Cash Out and Worthy End substitutes under greedy play"),
             ("aggression", "aggression (greedy) slightly over-wins, reference balanced"))
    for kind, label in specs:
        got = b5_pair(ctx, kind)
        if isinstance(got, str):
            parts.append(not_measured(label, got))
            continue
        a, b, xs, ys = got
        xa, xb = arm_seats(a, xs), arm_seats(b, xs)
        r = measure_crossover(crossover_frame(a, xa), crossover_frame(b, xb), c.alpha)
        run_label = f"{a.label}; {b.label}"
        use = (f"X seats {_exit_use(a, xa)}; Y seats "
               f"{_exit_use(a, arm_seats(a, ys))} (arm a)")
        if kind == "exits":
            tol = 1.0 + c.substitute_tolerance
            region = Region(1.0 / tol, tol, scale=_scale(c.substitute_tolerance, 0.25))
            e = r["ratio"]
            verdict = region.verdict(e.low, e.high)
            parts.append(_part(
                label,
                f"greedy steered to Cash Out {r['x'].value:.3f} x fair vs to Worthy End "
                f"{r['y'].value:.3f} x fair: ratio {e.value:.3f}",
                f"ratio {fmt_ci(e.low, e.high)}", verdict, run_label,
                f"claimed region [{1 / tol:.2f}, {tol:.2f}]; {a.n_games:,} deals played "
                f"by both arms (X = Cash Out: exit_via 1, Y = Worthy End: exit_via 2); "
                f"{use}",
                part_distance(verdict, region.raw_distance(e.value))))
        else:
            region = Region(1.0, 1.0 + c.touch_max, lo_open=True, scale=_scale(c.touch_max,
                                                                                0.2))
            e = r["x"]
            verdict = region.verdict(e.low, e.high)
            parts.append(_part(
                label,
                f"greedy {e.value:.3f} x fair, balanced {r['y'].value:.3f} x fair (ratio "
                f"{r['ratio'].value:.3f})",
                f"greedy {fmt_ci(e.low, e.high)} x fair", verdict, run_label,
                f"claimed region (1, {1 + c.touch_max:g}]; {a.n_games:,} deals played by "
                f"both arms, half the seats greedy and half balanced, swapped",
                part_distance(verdict, region.raw_distance(e.value))))
    return parts


def _b6(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    games = ctx.primary.games
    parts = []
    mirror = calibrated_threshold("B6.mirror_median")
    tol = c.mirror_tolerance
    for key in ("literal", "mirror"):
        if key == "literal":
            label = f"median relative margin <= {c.tight_margin:g}"
            threshold = c.tight_margin
        else:
            label = f"median relative margin <= {1 + tol:g} x mirror games'"
            if not mirror:
                parts.append(_part(label, "-", "-", "not measured", "",
                                   "no mirror margins in calibration.yaml (make "
                                   "findings-calibration)", None, (key,)))
                continue
            threshold = {int(p): (1 + tol) * float(v) for p, v in mirror.items()}
        try:
            e = measure_tight(games, threshold, c.alpha)
        except KeyError as exc:
            parts.append(_part(label, "-", "-", "not measured", "", str(exc), None, (key,)))
            continue
        med = float(games["margin_rel"].median())
        region = Region(0.5, 1.0, lo_open=True, scale=0.1)
        if key == "literal":
            measured = (f"{e.value:.3f} of games within {c.tight_margin:g} of the winner's "
                        f"Glory; median relative margin {med:.3f}, median margin "
                        f"{games['margin'].median():g} Glory")
            note = "holds when more than half the games are that tight"
        else:
            measured = (f"{e.value:.3f} of games within {1 + tol:g} x the mirror median of "
                        f"their player count")
            note = ("mirror medians (calibration): "
                    + ", ".join(f"{int(p)}p {float(v):.3f}" for p, v in sorted(
                        mirror.items(), key=lambda kv: int(kv[0]))))
        parts.append(_part(label, measured, f"{fmt_ci(e.low, e.high)} of games", e.verdict,
                           ctx.primary.label, note,
                           part_distance(e.verdict, region.raw_distance(e.value)), (key,)))
    return parts


def _b7(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    tol = c.contention_tolerance
    parts = []
    for key, label, spec in (("share", "share of scored rooms with 2+ claimants", ".3f"),
                             ("markers", "markers per contested room", ".2f")):
        try:
            e = measure_contention(ctx.primary.games, key, tol, c.alpha)
        except KeyError as exc:
            parts.append(_part(label, "-", "-", "not measured", "", str(exc), None, (key,)))
            continue
        d = e.detail
        if math.isnan(e.value):
            parts.append(_part(label, "-", "-", "not measured", "",
                               "needs games at 2+ player counts (e.g. "
                               "scenarios/deepfall-mixed.yaml)", None, (key,)))
            continue
        region = Region(hi=1.0 + tol, scale=_scale(tol, 0.25))
        parts.append(_part(
            label,
            ", ".join(f"{int(p)}p {format(r, spec)}"
                      for p, r in zip(d["group"], d["ratio"], strict=True))
            + f" (largest / smallest x{e.value:.2f})",
            f"largest / smallest [{e.low:.2f}, {e.high:.2f}]; " + "; ".join(
                f"{int(p)}p {fmt_ci(a, b, spec)}"
                for p, a, b in zip(d["group"], d["low"], d["high"], strict=True)),
            e.verdict, ctx.primary.label,
            f"constant: largest / smallest <= {1 + tol:g}; intervals simultaneous over the "
            f"player counts",
            part_distance(e.verdict, region.raw_distance(e.value)), (key,)))
    return parts


def _b8(ctx: Context) -> list[ClaimPart]:
    from deepsim.rulesets.deepfall import metrics as DM

    c = ctx.config
    variants = variant_runs(ctx, "maw.steps_per_floor")
    parts = []
    for value in (2, 1):
        key = f"spf{value}"
        run = variants.get(value)
        labels = (f"at most one floor a round, maw.steps_per_floor={value}",
                  f"no crew Taken unwarned, maw.steps_per_floor={value}")
        if run is None:
            parts += [_part(lb, "-", "-", "not measured", "",
                            _needs(ctx, "maw.steps_per_floor", value), None, (key,))
                      for lb in labels]
            continue
        cap = run.param("maw.max_collapses_per_round", 1)
        try:
            d = DM.deferral(run.games, c.alpha)
        except KeyError as exc:
            parts += [_part(lb, "-", "-", "not measured", "", str(exc), None, (key,))
                      for lb in labels]
            continue
        v_cap = HOLDS if cap == 1 else INCONCLUSIVE
        parts.append(_part(
            labels[0],
            f"cap {cap} collapse(s) a round; it binds (a collapse held back) in "
            f"{d['binds_share']:.4f} of games, {d['deferred_per_game']:.3f} per game",
            f"{fmt_ci(d['binds_low'], d['binds_high'], '.4f')} of games", v_cap, run.label,
            "enforced by the kernel (§9, A31): holds by construction" if cap == 1 else
            f"the run allows {cap} collapses a round",
            part_distance(v_cap, d["binds_share"] / _scale(c.almost_never, 0.05)), (key,)))
        try:
            e = measure_blindsided(run.games, c.alpha)
        except KeyError as exc:
            parts.append(_part(labels[1], "-", "-", "not measured", "", str(exc), None,
                               (key,)))
            continue
        g = run.games
        per = {col: float(g[col].mean()) for col in ("taken_after_warning", "taken_moved_in",
                                                       "taken_mustered", "taken_blindsided")
               if col in g.columns}
        parts.append(_part(
            labels[1],
            f"{int(g['taken_blindsided'].sum()):,} crews Taken on a floor that was not the "
            f"next to fall, in {e.value:.4f} of games",
            f"{fmt_ci(e.low, e.high, '.2g')} of games", e.verdict, run.label,
            "Takings per game: " + ", ".join(
                f"{k.removeprefix('taken_').replace('_', ' ')} {v:.2f}"
                for k, v in per.items())
            + "; holds by construction while the cap is 1 (the floor that falls is the one "
              "that was next when the round began)",
            part_distance(e.verdict, e.value / _scale(c.almost_never, 0.05)), (key,)))
    return parts


_EVALUATORS: dict[str, Callable[[Context], list[ClaimPart]]] = {
    "B1": _b1, "B2": _b2, "B3": _b3, "B4": _b4, "B5": _b5, "B6": _b6, "B7": _b7, "B8": _b8,
}


def evaluate_claims(ctx: Context) -> list[ClaimResult]:
    """Measure every claim B1-B8 on the context's runs: each reading judged on its own;
    a reading whose instrument failed its calibration is untestable as worded."""
    out = []
    for cid, spec in CLAIM_TABLE.items():
        parts = _EVALUATORS[cid](ctx)
        out.append(ClaimResult(spec.claim, parts, ctx.interpretation(spec.claim),
                               readings={r.key: r.label for r in spec.readings},
                               untestable=_untestable(spec)))
    return out
