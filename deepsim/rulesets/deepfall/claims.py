"""The DEEPFALL rulebook's claims B1-B8: what each says, how deepsim measures it, and the
rule that turns the measurement into a verdict (:mod:`deepsim.report.verdicts`).

This module is the product's own copy of the claims (it reads nothing outside the
package). The thresholds ("~11 rounds", "a touch", "almost never", "tight", "constant")
are the ruleset's report options (``claims.*``, :data:`deepsim.rulesets.deepfall.
REPORT_OPTIONS`), fixed before looking at the data and printed with every report.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

from deepsim.report import metrics as M
from deepsim.report.context import Context
from deepsim.report.load import RunData
from deepsim.report.verdicts import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    Claim,
    ClaimPart,
    ClaimResult,
    Region,
    combine,
    fmt_ci,
    fmt_num,
    not_measured,
    part_distance,
)
from deepsim.rulesets.deepfall import metrics as DM

__all__ = ["CLAIMS", "evaluate_claims"]


CLAIMS: dict[str, Claim] = {c.id: c for c in [
    Claim("B1", "§9", "Games last ~11 rounds at every player count (2-6).",
          "Rounds per game by player count (mean with t interval, median, 5th-95th "
          "percentile), under maw.steps_per_floor 2 (default) and 1 (A1). Holds when every "
          "player count's mean lies within claims.rounds_tolerance of claims.rounds_target.",
          ("maw.steps_per_floor", "maw.steps_per_round", "maw.dread_full_steps")),
    Claim("B2", "§4", "All 36 Lineage x Calling companies are viable (no dead picks).",
          "Win share of each company against its fair share (sum of 1/n over the games it "
          "played) with 95% Wilson intervals, in mixed fields; each company gets the "
          "viability verdict. Holds when every company is viable. Seats of baseline bot "
          "styles (bots.yaml: random, cautious) are left out of B2, B3 and B5, and the fair "
          "share is then the kept seats' mean win at each player count.",
          ("lineages.*.start_bag (placeholder, A3)",
           "dungeon.floor_weights (placeholder, A21)")),
    Claim("B3", "§4", "Dvergar and Reaver run 'a touch strong'; Wardancer 'a touch swingy'.",
          "Win share by Lineage and by Calling: 'a touch strong' = win/fair ratio interval "
          "inside (1, 1 + claims.touch_max]. Swing: variance of Glory and of finishing "
          "place (scaled 0-1), Wardancer against the other Callings pooled, Brown-Forsythe "
          "test: holds when both are larger at level alpha.",
          ("lineages.dvergar.threat_ignore", "callings.reaver.claim_loot",
           "callings.wardancer.worthy_end_multiplier", "callings.wardancer.free_last_stand")),
    Claim("B4", "§7.3", "Being Taken without a Last Stand 'almost never happens'.",
          "Crews Taken without a Last Stand after playing at least one turn, as a share of "
          "player-games with at least one and as a share of crews (Wilson), heuristic bot "
          "styles (the baseline styles left out), mid-game and with the final collapse of "
          "Floor 1 (where every crew still on it is Taken); a crew Taken before its first "
          "turn never had the chance and is counted apart. Each part holds when its "
          "interval is at or below claims.almost_never. Every style in the Exits section.",
          ("exits.taken_loses_markers", "exits.last_stand_cost", "end.max_rounds")),
    Claim("B5", "§7.3 note",
          "Under greedy play Cash Out and Worthy End are substitutes; aggression slightly "
          "over-wins.",
          "Greedy seats: win rate of player-games that only Cashed Out against those that "
          "only took Worthy Ends (ratio of proportions, statsmodels); substitutes when the "
          "interval is inside 1 +- claims.substitute_tolerance. Aggression: the greedy "
          "style's win/fair ratio interval inside (1, 1 + claims.touch_max], against the "
          "styles that are not baselines.",
          ("exits.cash_out_dividend", "exits.worthy_end_multiplier",
           "exits.worthy_end_basis", "exits.worthy_end_keeps_loot")),
    Claim("B6", "§9", "Tight margins.",
          "Winner's Glory minus runner-up's, absolute and relative to the winner's Glory. "
          "Holds when most games (the Wilson interval of the share is above 1/2) are "
          "decided by at most claims.tight_margin of the winner's Glory, i.e. the median "
          "relative margin is at most that.",
          ("end.tie_rule", "maw.tie_split")),
    Claim("B7", "§9", "Rooms-per-floor scaling keeps contention constant across player counts.",
          "By player count: share of scored rooms with 2+ claimants and control markers per "
          "contested room (games as clusters). Constant when the largest player count's "
          "value is at most 1 + claims.contention_tolerance times the smallest (checked on "
          "the interval ends).",
          ("scaling.*.rooms_per_floor", "claims.reinforce_own", "claims.fallen_strength")),
    Claim("B8", "§6B",
          "The Maw never eats more than one floor a round, so 'one floor away' is an honest "
          "warning.",
          "The kernel enforces at most maw.max_collapses_per_round collapses a round (A31); "
          "measured: how often the cap binds (games with a held-back collapse) at the default "
          "maw.steps_per_floor 2, where it cannot bind, and at 1; and what becomes of crews "
          "on the next floor to fall at the start of a round.",
          ("maw.max_collapses_per_round", "maw.defer_extra_steps", "maw.steps_per_floor")),
]}


def _needs(ctx: Context, path: str, value) -> str:
    scen = ctx.primary.info.get("scenario_path") or "SCENARIO"
    return (f"needs a run with {path}={value}: `deepsim run {scen} --set {path}={value}`, "
            f"then `deepsim report {ctx.primary.path} RUN_DIR`")


# --- B1 -----------------------------------------------------------------------------------

def _b1(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    lo, hi = c.rounds_target - c.rounds_tolerance, c.rounds_target + c.rounds_tolerance
    variants = ctx.variants("maw.steps_per_floor")
    parts = []
    first = ctx.primary.param("maw.steps_per_floor", 2)
    values = [first] + sorted({2, 1, *[v for v in variants if v is not None]} - {first})
    for value in values:
        label = f"maw.steps_per_floor={value}"
        run = variants.get(value)
        if run is None:
            parts.append(not_measured(label, _needs(ctx, "maw.steps_per_floor", value)))
            continue
        try:
            gl = M.game_length(run.games, alpha=c.alpha)
        except KeyError as exc:
            parts.append(not_measured(label, str(exc)))
            continue
        region = Region(lo, hi, scale=c.rounds_tolerance)
        scored = [region.part(r.mean, r.mean_low, r.mean_high) for r in gl.itertuples()]
        verdicts = [v for v, _ in scored]
        missing = sorted(set(range(2, 7)) - set(gl["players"]))
        verdict = combine(verdicts)
        note = (f"median {', '.join(f'{int(r.players)}p {r.median:g}' for r in gl.itertuples())}"
                f"; 5th-95th pct {', '.join(f'{r.p5:g}-{r.p95:g}' for r in gl.itertuples())}")
        if missing:
            note += f"; no games at {', '.join(map(str, missing))} players"
            if verdict == HOLDS:
                verdict = INCONCLUSIVE
        parts.append(ClaimPart(
            label,
            "mean rounds " + ", ".join(f"{int(r.players)}p {r.mean:.2f}"
                                       for r in gl.itertuples()),
            "; ".join(f"{int(r.players)}p {fmt_ci(r.mean_low, r.mean_high, '.2f')}"
                      for r in gl.itertuples()),
            verdict, run.label, note,
            part_distance(verdict, max((d for _, d in scored), default=0.0))))
    return parts


# --- B2 -----------------------------------------------------------------------------------

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


def _b2(ctx: Context) -> list[ClaimPart]:
    try:
        ws = ctx.win_shares("company")
    except KeyError as exc:
        return [not_measured("all companies", str(exc))]
    if ws.empty:  # every seat played a baseline style: no seat is left to judge
        return [not_measured("all companies", "every seat plays a baseline style (left out "
                             "of balance verdicts)")]
    n_exp = _expected_companies(ctx.primary)
    counts = ws["verdict"].value_counts()
    # B2 asks about dead picks: a too strong company is a live one
    counts["viable"] = counts.get("viable", 0) + counts.get("too strong", 0)
    worst = ws.sort_values("ratio_high").iloc[0]
    verdict = FAILS if counts.get("not viable", 0) else (
        HOLDS if counts.get("viable", 0) == n_exp else INCONCLUSIVE)
    over = int((ws["test"] == "over").sum())
    under = int((ws["test"] == "under").sum())
    dead = ws.loc[ws["verdict"] == "not viable", "company"].tolist()
    note = (f"Holm: {over} over, {under} under fair share; "
            f"win/fair ratio ranges {ws['ratio'].min():.2f}-{ws['ratio'].max():.2f}")
    if dead:
        note += f"; not viable: {', '.join(dead)}"
    if len(ws) < n_exp:
        note += f"; only {len(ws)} of {n_exp} companies played"
    elif n_exp < 36:
        note += f"; the scenario's seats allow {n_exp} companies, all judged"
    if ctx.baseline_note():
        note += f"; {ctx.baseline_note()}"
    min_ratio = ctx.config.min_ratio
    region = Region(min_ratio, scale=(1 - min_ratio) if 0 < min_ratio < 1 else 0.2)
    raw = max((region.raw_distance(r) for r in ws["ratio"]), default=0.0)
    return [ClaimPart(
        f"viability (ratio >= {ctx.config.min_ratio:g} x fair within the interval)",
        f"{counts.get('viable', 0)} of {n_exp} viable, {counts.get('not viable', 0)} not "
        f"viable, {counts.get('inconclusive', 0)} inconclusive; weakest {worst['company']} "
        f"at {worst['ratio']:.2f} x fair",
        f"weakest: {fmt_ci(worst['ratio_low'], worst['ratio_high'], '.2f')} x fair",
        verdict, ctx.primary.label, note, part_distance(verdict, raw))]


# --- B3 -----------------------------------------------------------------------------------

def _strong(ctx: Context, by: str, group: str, what: str) -> ClaimPart:
    label = f"{group} {what}"
    try:
        ws = ctx.win_shares(by).set_index(by)
    except KeyError as exc:
        return not_measured(label, str(exc))
    if group not in ws.index:
        return not_measured(label, f"no {by} {group!r} in the run")
    r = ws.loc[group]
    rank = int((ws["ratio"] > r["ratio"]).sum()) + 1
    touch = ctx.config.touch_max
    verdict, dist = Region(1.0, 1.0 + touch, lo_open=True, scale=touch).part(
        r["ratio"], r["ratio_low"], r["ratio_high"])
    return ClaimPart(
        label, f"win share {r['win_share']:.3f} vs fair {r['fair_share']:.3f}: "
               f"{r['ratio']:.3f} x fair (rank {rank} of {len(ws)} {by}s)",
        f"{fmt_ci(r['ratio_low'], r['ratio_high'])} x fair",
        verdict, ctx.primary.label,
        f"claimed region (1, {1 + ctx.config.touch_max:g}]; Holm test: {r['test']}"
        + (f"; {ctx.baseline_note()}" if ctx.baseline_note() else ""), dist)


def _direction(ratio: float, p: float, alpha: float) -> str:
    if math.isnan(ratio) or math.isnan(p) or p >= alpha:
        return INCONCLUSIVE
    return HOLDS if ratio > 1 else FAILS


def _b3(ctx: Context) -> list[ClaimPart]:
    parts = [_strong(ctx, "lineage", "Dvergar", "a touch strong"),
             _strong(ctx, "calling", "Reaver", "a touch strong")]
    label = "Wardancer a touch swingy"
    try:
        t = ctx.cached(("swing", "calling", "Wardancer"),
                       lambda: DM.swing_test(ctx.balance_seats, "calling", "Wardancer"))
    except KeyError as exc:
        return [*parts, not_measured(label, str(exc))]
    if t["n_group"] == 0:
        return [*parts, not_measured(label, "no Wardancer in the run")]
    a = ctx.config.alpha
    verdict = combine([_direction(t["glory_ratio"], t["glory_p"], a),
                       _direction(t["place_ratio"], t["place_p"], a)])
    # the claimed direction as a region on each variance ratio: (1, inf), in touch_max units
    swing = Region(1.0, lo_open=True, scale=ctx.config.touch_max)
    raw = max(swing.raw_distance(t["glory_ratio"]), swing.raw_distance(t["place_ratio"]))
    parts.append(ClaimPart(
        label,
        f"variance vs other Callings: Glory x{t['glory_ratio']:.2f}, "
        f"place x{t['place_ratio']:.3f}",
        f"Brown-Forsythe p: Glory {t['glory_p']:.2g}, place {t['place_p']:.2g}",
        verdict, ctx.primary.label,
        "holds when both variances are larger at level alpha; Glory variance grows with "
        "mean Glory, so the place variance is the scale-free one",
        part_distance(verdict, raw)))
    return parts


# --- B4 -----------------------------------------------------------------------------------

def _b4(ctx: Context) -> list[ClaimPart]:
    seats = ctx.primary.seats
    labels = ("mid-game", "with the final collapse of Floor 1")
    if "bot" not in seats.columns:
        return [not_measured(lbl, "no bot column") for lbl in labels]
    pop = ctx.balance_seats if ctx.primary.baseline_bots else seats[seats["bot"] != "random"]
    left = ", ".join(ctx.primary.baseline_bots) or "random"
    try:
        eu = ctx.cached(("exits", "heuristic"), lambda: DM.exit_usage(pop, None,
                                                                     ctx.config.alpha))
    except KeyError as exc:
        return [not_measured(lbl, str(exc)) for lbl in labels]
    if eu.empty:
        return [not_measured(lbl, "no heuristic bot seats") for lbl in labels]
    r = eu.iloc[0]
    cap = ctx.config.almost_never
    who = (f"{int(r['player_games']):,} heuristic-bot player-games, "
           f"{r['crews_pg'] * r['player_games']:,.0f} crews (baseline bots {left} left "
           f"out)")
    if not math.isnan(r["taken_unplayed_pg"]):
        fin = r["taken_final_pg"]
        unplayed = r["taken_unplayed_pg"]
        who += (f"; crews Taken before their first turn (mustered in the last round, no "
                f"chance to declare a Last Stand) are not counted: {unplayed:.3f} per "
                f"player-game, {unplayed / (unplayed + fin) if unplayed + fin else 0:.0%} "
                f"of the Takings without a Last Stand at the final collapse")
    parts = []
    note = f"claimed: at most {cap:g}; {who}"
    region = Region(0.0, cap, scale=cap if cap > 0 else 0.05)
    for label, sfx in zip(labels, ("_mid", ""), strict=True):
        verdict, dist = region.part(r["fb_pg" + sfx], r[f"fb_pg{sfx}_low"],
                                    r[f"fb_pg{sfx}_high"])
        parts.append(ClaimPart(
            f"per player-game, {label}",
            f"{r['fb_pg' + sfx]:.3f} of player-games have a crew Taken without a Last Stand",
            fmt_ci(r[f"fb_pg{sfx}_low"], r[f"fb_pg{sfx}_high"]),
            verdict, ctx.primary.label, note if not parts else "", dist))
    for label, sfx in zip(labels, ("_mid", ""), strict=True):
        verdict, dist = region.part(r["fb_crew" + sfx], r[f"fb_crew{sfx}_low"],
                                    r[f"fb_crew{sfx}_high"])
        parts.append(ClaimPart(
            f"per crew, {label}",
            f"{r['fb_crew' + sfx]:.3f} of crews are Taken without a Last Stand",
            fmt_ci(r[f"fb_crew{sfx}_low"], r[f"fb_crew{sfx}_high"]),
            verdict, ctx.primary.label, "", dist))
    return parts


# --- B5 -----------------------------------------------------------------------------------

def _b5(ctx: Context) -> list[ClaimPart]:
    c = ctx.config
    seats = ctx.primary.seats
    parts = []
    label = "Cash Out and Worthy End substitutes (greedy seats)"
    need = ["bot", "win", "cash_outs", "worthy_ends"]
    if not set(need) <= set(seats.columns) or not (seats["bot"] == "greedy").any():
        parts.append(not_measured(label, "needs greedy bot seats with exit columns"))
    else:
        g = seats[seats["bot"] == "greedy"]
        co = g[(g["cash_outs"] > 0) & (g["worthy_ends"] == 0)]
        we = g[(g["worthy_ends"] > 0) & (g["cash_outs"] == 0)]
        k1, n1 = float(round(co["win"].sum())), len(co)
        k2, n2 = float(round(we["win"].sum())), len(we)
        est, lo, hi = M.proportion_ratio_ci(k1, n1, k2, n2, c.alpha)
        varied = len(g) > 2 and g["cash_outs"].nunique() > 1 and g["worthy_ends"].nunique() > 1
        rho = sps.spearmanr(g["cash_outs"], g["worthy_ends"]).statistic if varied else np.nan
        tol = 1.0 + c.substitute_tolerance
        sub = Region(1.0 / tol, tol, scale=c.substitute_tolerance)
        if n1 and n2:
            verdict, dist = sub.part(est, lo, hi)
        else:
            verdict, dist = INCONCLUSIVE, math.nan
        parts.append(ClaimPart(
            label,
            f"win rate Cash-Out-only {k1 / max(n1, 1):.3f} (n={n1:,}) vs Worthy-End-only "
            f"{k2 / max(n2, 1):.3f} (n={n2:,}): ratio {fmt_num(est)}",
            f"ratio {fmt_ci(lo, hi)}",
            verdict,
            ctx.primary.label,
            f"claimed region [{1 / tol:.2f}, {tol:.2f}]; per greedy player-game "
            f"{g['cash_outs'].mean():.2f} Cash Outs, {g['worthy_ends'].mean():.2f} Worthy "
            f"Ends, Spearman correlation {fmt_num(float(rho), '.2f')}", dist))
    label = "aggression (greedy style) slightly over-wins"
    try:
        ws = ctx.win_shares("bot", balance=True).set_index("bot")
    except KeyError as exc:
        return [*parts, not_measured(label, str(exc))]
    if "greedy" not in ws.index:
        return [*parts, not_measured(label, "needs greedy bot seats")]
    r = ws.loc["greedy"]
    others = ", ".join(f"{b} {ws.loc[b, 'ratio']:.2f}" for b in ws.index if b != "greedy")
    verdict, dist = Region(1.0, 1.0 + c.touch_max, lo_open=True, scale=c.touch_max).part(
        r["ratio"], r["ratio_low"], r["ratio_high"])
    parts.append(ClaimPart(
        label, f"greedy win share {r['win_share']:.3f} = {r['ratio']:.3f} x fair",
        f"{fmt_ci(r['ratio_low'], r['ratio_high'])} x fair",
        verdict, ctx.primary.label,
        f"claimed region (1, {1 + c.touch_max:g}]; other styles x fair: {others}. "
        + (f"The fair share is that of the styles kept ({ctx.baseline_note()}: weak "
           f"yardsticks would raise every stronger style's ratio)"
           if ctx.baseline_note() else
           "The fair share is against the whole field"), dist))
    return parts


# --- B6 -----------------------------------------------------------------------------------

def _b6(ctx: Context) -> list[ClaimPart]:
    games = ctx.primary.games
    label = f"median relative margin <= {ctx.config.tight_margin:g}"
    try:
        M.require(games, ["margin", "margin_rel"], "games")
    except KeyError as exc:
        return [not_measured(label, str(exc))]
    n = len(games)
    if n == 0:
        return [not_measured(label, "no games")]
    k = float((games["margin_rel"] <= ctx.config.tight_margin).sum())
    lo, hi = M.wilson(k, n, ctx.config.alpha)
    # share of tight games; distances in units of 0.1 (ten percentage points of games)
    verdict, dist = Region(0.5, 1.0, lo_open=True, scale=0.1).part(k / n, lo, hi)
    return [ClaimPart(
        label,
        f"{k / n:.3f} of games within {ctx.config.tight_margin:g} of the winner's Glory; "
        f"median relative margin {games['margin_rel'].median():.3f}, median margin "
        f"{games['margin'].median():g} Glory",
        f"{fmt_ci(lo, hi)} of games", verdict,
        ctx.primary.label, "holds when more than half the games are that tight", dist)]


# --- B7 -----------------------------------------------------------------------------------

def _b7(ctx: Context) -> list[ClaimPart]:
    tol = 1.0 + ctx.config.contention_tolerance
    names = (("contested_share", "share of scored rooms with 2+ claimants", ".3f"),
             ("markers_per_contested", "markers per contested room", ".2f"))
    try:
        ct = ctx.cached("contention", lambda: DM.contention(ctx.primary.games, ctx.config.alpha))
    except KeyError as exc:
        return [not_measured(label, str(exc)) for _, label, _ in names]
    parts = []
    for col, label, spec in names:
        d = ct.dropna(subset=[col])
        if len(d) < 2:
            parts.append(not_measured(label, "needs games at 2+ player counts "
                                              "(e.g. scenarios/deepfall-mixed.yaml)"))
            continue
        worst = d[f"{col}_high"].max() / d[f"{col}_low"].min()
        best = d[f"{col}_low"].max() / d[f"{col}_high"].min()
        verdict = HOLDS if worst <= tol else (FAILS if best > tol else INCONCLUSIVE)
        region = Region(hi=tol, scale=ctx.config.contention_tolerance or 0.25)
        dist = part_distance(verdict, region.raw_distance(d[col].max() / d[col].min()))
        parts.append(ClaimPart(
            label,
            ", ".join(f"{int(r.players)}p {format(getattr(r, col), spec)}"
                      for r in d.itertuples()) +
            f" (largest / smallest x{d[col].max() / d[col].min():.2f})",
            "; ".join(f"{int(r.players)}p "
                      f"{fmt_ci(getattr(r, col + '_low'), getattr(r, col + '_high'), spec)}"
                      for r in d.itertuples()),
            verdict, ctx.primary.label, f"constant: largest / smallest <= {tol:g}", dist))
    return parts


# --- B8 -----------------------------------------------------------------------------------

def _b8(ctx: Context) -> list[ClaimPart]:
    variants = ctx.variants("maw.steps_per_floor")
    parts = []
    for value in (2, 1):
        label = f"at most one floor a round, maw.steps_per_floor={value}"
        run = variants.get(value)
        if run is None:
            parts.append(not_measured(label, _needs(ctx, "maw.steps_per_floor", value)))
            continue
        try:
            d = DM.deferral(run.games, ctx.config.alpha)
        except KeyError as exc:
            parts.append(not_measured(label, str(exc)))
            continue
        cap = run.param("maw.max_collapses_per_round", 1)
        note = ""
        try:
            w = DM.warning_honesty(run.games, run.seats, ctx.config.alpha)
            k = float((w["taken_if_warned"] * w["warned_pg"] * w["games"]).sum())
            n = float((w["warned_pg"] * w["games"]).sum())
            note = (f"crews on the next floor to fall at the start of a round are Taken that "
                    f"round {k / n:.3f} of the time" if n else "")
            if "unwarned_taken_pg" in w.columns:
                un = float((w["unwarned_taken_pg"] * w["games"]).sum() / w["games"].sum())
                note += (f"; {un:.2f} crews per game are Taken after moving onto the falling "
                         f"floor during the round (not warned at its start)")
        except KeyError:
            pass
        parts.append(ClaimPart(
            label,
            f"cap {cap} collapse(s) a round; it binds (a collapse held back) in "
            f"{d['binds_share']:.4f} of games, {d['deferred_per_game']:.3f} per game",
            f"{fmt_ci(d['binds_low'], d['binds_high'], '.4f')} of games",
            HOLDS if cap == 1 else INCONCLUSIVE, run.label,
            ("enforced by the kernel (§9, A31), so the verdict holds by construction; "
             + note) if cap == 1 else f"the run allows {cap} collapses a round; " + note,
            # the cap is a rule, not a measurement: 0 when enforced, else the binding share
            # in units of claims.almost_never
            part_distance(HOLDS if cap == 1 else INCONCLUSIVE,
                          d["binds_share"] / (ctx.config.almost_never or 0.05))))
    return parts


_EVALUATORS: dict[str, Callable[[Context], list[ClaimPart]]] = {
    "B1": _b1, "B2": _b2, "B3": _b3, "B4": _b4, "B5": _b5, "B6": _b6, "B7": _b7, "B8": _b8,
}


def evaluate_claims(ctx: Context) -> list[ClaimResult]:
    """Measure every claim B1-B8 on the context's runs."""
    out = []
    for cid, claim in CLAIMS.items():
        parts = _EVALUATORS[cid](ctx)
        out.append(ClaimResult(claim, parts, ctx.interpretation(claim)))
    return out
