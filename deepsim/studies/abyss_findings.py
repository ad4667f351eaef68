"""``reports/abyss/README.md``: the digest's balance questions answered from measured runs.

``python -m deepsim.studies.abyss_findings RUNS_DIR --out reports/abyss/README.md`` (run by
``make abyss-findings``) reads the run directories ``RUNS_DIR/mixed`` (scenarios/abyss.yaml),
``4p`` (scenarios/abyss-4p.yaml), ``threat`` (scenarios/abyss-threat.yaml) and ``auction``
(scenarios/abyss-auction.yaml) and writes every number of the answers from them, with the
intervals of :mod:`deepsim.rulesets.abyss.report` (Wilson, t, cluster ratio, Newcombe), so
the text can never drift from the runs. Each answer names the placeholder data it rests on.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from deepsim.report import metrics as M
from deepsim.report.load import RunData
from deepsim.reporting import load_run
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.abyss.report import (
    DEPENDS,
    auction_prices,
    court_end_text,
    seat_turns,
    threat_curve,
)
from deepsim.stats import resolved_seats
from deepsim.studies.pagewriter import page_main

ALPHA = 0.05


def _pct(x: float, d: int = 1) -> str:
    return "-" if x is None or math.isnan(x) else f"{100 * x:.{d}f}%"


def _share(k: float, n: int) -> str:
    lo, hi = M.wilson(k, n, ALPHA)
    return f"{_pct(k / n)} ({100 * lo:.1f}-{100 * hi:.1f}%)"


def _mean(x, spec: str = ".2f") -> str:
    m, lo, hi = M.mean_ci(np.asarray(x, dtype=np.float64), ALPHA)
    return f"{m:{spec}} ({lo:{spec}}-{hi:{spec}})"


def _ratio(y, x, spec: str = ".2f") -> str:
    m, lo, hi = M.ratio_of_sums(np.asarray(y, np.float64), np.asarray(x, np.float64), ALPHA)
    return f"{m:{spec}} ({lo:{spec}}-{hi:{spec}})"


def _rng(values, spec: str = ".1f", unit: str = "") -> str:
    """'a-b' (or 'a' when equal; 'a to b' for signed formats) of numbers, formatted."""
    lo, hi = min(values), max(values)
    a, b = format(lo, spec), format(hi, spec)
    if a == b:
        return f"{a}{unit}"
    return f"{a}{unit} to {b}{unit}" if "+" in spec else f"{a}-{b}{unit}"


def _prng(values, d: int = 1) -> str:
    return _rng([100 * v for v in values], f".{d}f", "%")


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


def _by_style(run: RunData) -> pd.DataFrame:
    s = run.seats
    rows = []
    for bot, h in s.groupby("bot", observed=True, sort=False):
        rows.append({"Style": f"`{bot}`", "Seat-games": f"{len(h):,}",
                     "Win share": _share(float(h["win"].sum()), len(h)),
                     "x fair": f"{h['win'].sum() / h['fair'].sum():.2f}"})
    return pd.DataFrame(rows)


def _runs_line(runs: dict[str, RunData]) -> list[str]:
    out = []
    for key, r in runs.items():
        out.append(f"- `{key}`: {r.scenario_name} (`scenarios/{r.scenario_name}.yaml`), "
                   f"seed {r.seed}, {r.n_games:,} games, params `{r.params_hash[:12]}`; "
                   f"report `reports/abyss/{key}/report.md`")
    return out


def e1(m: RunData, four: RunData) -> list[str]:
    st = seat_turns(m.games, m.seats, ALPHA)
    rows, diffs = [], []
    fl = M.first_against_last(st, ALPHA).set_index("players")
    for n, g in st.groupby("players"):
        f, last = g.iloc[0], g.iloc[-1]
        d = fl.loc[n]
        diffs.append((int(n), f["win_share"] - 1 / n, d["diff"]))
        rows.append({"Players": int(n),
                     "Seat 1 (start)": _share(f["wins"], int(f["games"])),
                     "Last seat": _share(last["wins"], int(last["games"])),
                     "Fair": _pct(1 / n),
                     "First minus last": f"{100 * d['diff']:+.1f} pp "
                                         f"({100 * d['diff_low']:+.1f} to "
                                         f"{100 * d['diff_high']:+.1f})",
                     "Turns seat 1 / last": f"{f['turns']:.1f} / {last['turns']:.1f}",
                     "Seat 1 triggers the end": _pct(f["triggered"])})
    st4 = seat_turns(four.games, four.seats, ALPHA)
    order = ", ".join(f"{100 * r.win_share:.1f}%" for r in st4.itertuples())
    worst = max(diffs, key=lambda d: d[1])
    falls = all((g["win_share"].diff().dropna() < 0).all() for _, g in st.groupby("players"))
    ahead = all(d[1] > 0 for d in diffs)
    head = ("The start player wins more than its fair share at every player count"
            if ahead else "The start player's edge depends on the player count")
    trend = ("falls from each seat to the next" if falls
             else "does not fall steadily from seat to seat")
    return [
        "## §E1 Seat (start-player) advantage",
        "",
        (f"**{head}; the win share {trend}.** Seat 1's edge over the fair share is largest at "
        f"{worst[0]} players ({100 * worst[1]:+.1f} points; first minus last seat "
        f"{_rng([100 * d[2] for d in diffs], '+.1f')} points at 2-4 players). The seats "
        f"before the player who triggers the end get one turn more than the seats after it "
        f"(AB-G2: every other player plays once more), so the earlier a seat, the more "
        f"turns it plays on average; it also triggers the end more often."),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        (f"With fixed styles rotating over the seats (`4p`: random, courtier, merchant, hunter "
        f"each in every seat equally often) seats 1-4 win {order}."),
        "",
        _dep(m, "e1"),
        "",
    ]


def e2(m: RunData, auction: RunData) -> list[str]:
    g, s = m.games, m.seats
    ap = auction_prices(g)
    rows = []
    for r in ap.itertuples():
        h = g[g["players"] == r.players]
        rows.append({"Players": r.players, "Buys / game": f"{r.buys / r.games:.2f}",
                     "at 1 pearl": f"{r.buys_p1 / r.games:.2f}",
                     "at 2": f"{r.buys_p2 / r.games:.3f}", "at 3": f"{r.buys_p3 / r.games:.3f}",
                     "Offers accepted": _share(float(r.buys), int(r.offers)),
                     "Active player's income / Explore": _ratio(h["pearls_auction"],
                                                               h["explores"])})
    styles = []
    for bot, h in s.groupby("bot", observed=True, sort=False):
        pg = h.groupby("game")
        styles.append({"Style": f"`{bot}`", "Buys / game": f"{h['buys'].mean():.2f}",
                       "Takes / Explore": _ratio(pg["takes"].sum(), pg["explores"].sum()),
                       "Income / Explore": _ratio(pg["sale_pearls"].sum(),
                                                  pg["explores"].sum()),
                       "Value per ally bought": _ratio(pg["bought_value"].sum(),
                                                       pg["buys"].sum()),
                       "Value per ally taken": _ratio(pg["take_value"].sum(),
                                                      pg["takes"].sum())})
    ab = _by_style(auction)
    ws = auction.seats.groupby("bot", observed=True)["win"].mean()
    best, worst = ws.idxmax(), ws.idxmin()
    tot = ap[["buys_p1", "buys_p2", "buys_p3", "buys_p4plus"]].sum()
    shares = tot / tot.sum()
    inc = {str(b): h["sale_pearls"].sum() / max(h["explores"].sum(), 1)
           for b, h in s.groupby("bot", observed=True)}
    top = max(inc, key=inc.get)
    rest = [v for k, v in inc.items() if k != top]
    return [
        "## §E2 Auction pricing",
        "",
        (f"**Buying pays, cheaply: among merchants that differ only in how much they pay "
        f"(`auction`, 4 players, rotating seats) `{best}` wins most and `{worst}` least.** "
        f"{_pct(shares.iloc[0])} of all purchases in the default field are the turn's first "
        f"(1 pearl), {_pct(shares.iloc[1])} the second (2 pearls), {_pct(shares.iloc[2], 2)} "
        f"the third (3 pearls, 4 players only)."),
        "",
        *_table(ab),
        "",
        (f"The active player's income per Explore grows with the number of opponents; the "
        f"style that lets unsold allies pass (`{top}`, the *bait* question) earns "
        f"{inc[top] / (sum(rest) / len(rest)):.1f} times the others' income per Explore:"),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        *_table(pd.DataFrame(styles)),
        "",
        _dep(m, "e2"),
        "",
    ]


def e3(m: RunData) -> list[str]:
    s = m.seats
    rows = []
    mean_v = _deck_mean(m)
    for bot, h in s.groupby("bot", observed=True, sort=False):
        t = h["turns"].sum()
        pg = h.groupby("game")
        rows.append({"Style": f"`{bot}`", "Explore": _pct(h["explores"].sum() / t),
                     "Council": _pct(h["councils"].sum() / t),
                     "Recruit": _pct(h["recruits"].sum() / t),
                     "Cards per Council": _ratio(pg["council_cards"].sum(),
                                                 pg["councils"].sum()),
                     "Value per Council card": _ratio(pg["council_value"].sum(),
                                                      pg["council_cards"].sum()),
                     "Value per ally taken from the row": _ratio(pg["take_value"].sum(),
                                                                 pg["takes"].sum())})
    cv = s["council_value"].sum() / max(s["council_cards"].sum(), 1)
    sh = {k: [h[k].sum() / h["turns"].sum() for _, h in s.groupby("bot", observed=True)]
          for k in ("explores", "councils", "recruits")}
    cards = [h["council_cards"].sum() / max(h["councils"].sum(), 1)
             for _, h in s.groupby("bot", observed=True)]
    return [
        "## §E3 Action mix and the Council",
        "",
        (f"**Explore {_prng(sh['explores'], 0)} of the turns, recruit {_prng(sh['recruits'], 0)}"
        f", Council {_prng(sh['councils'], 0)}; the Council is a poorer source than its "
        f"size suggests.** A Council card is worth {cv:.2f} on average against "
        f"{mean_v:.2f} for a Depth card, because the Council holds what the active players "
        f"declined (the low cards): counting cards overstates a stack by about "
        f"{100 * (1 - cv / mean_v):.0f}%. The heuristics take stacks of "
        f"{_rng(cards, '.1f')} cards on average."),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        _dep(m, "e3"),
        "",
    ]


def _deck_mean(run: RunData) -> float:
    counts = run.param("depth.ally_counts") or []
    return sum((v + 1) * c for v, c in enumerate(counts)) / sum(counts) if counts else math.nan


def e4(m: RunData, threat: RunData) -> list[str]:
    track = m.param("threat.track") or []
    tc = threat_curve(m.games, track)
    pre = "monster_tokens."
    tok = {k[len(pre):]: v for k, v in m.params.items() if k.startswith(pre)}
    tmean = sum(float(k) * int(v) for k, v in tok.items()) / sum(int(v) for v in tok.values())
    locs = m.param("locations.vp") or [0]
    key_vp = sum(locs) / len(locs) / (m.param("keys.per_location") or 3)
    rows = []
    for r in tc.itertuples():
        rows.append({"Position": r.position,
                     "Reward": f"{r.tokens} token, {r.pearls} pearl, {r.keys} key",
                     "Worth (VP)": f"{r.tokens * tmean + r.pearls + r.keys * key_vp:.2f}",
                     "Share of fights (default field)": _pct(r.share)})
    tb = _by_style(threat)
    ws = threat.seats.groupby("bot", observed=True)["win"].mean().sort_values()
    best, last = ws.index[-1], ws.index[0]
    worth = [r.tokens * tmean + r.pearls + r.keys * key_vp for r in tc.itertuples()]
    return [
        "## §E4 The Threat curve",
        "",
        (f"**Among hunters that differ only in the Threat position from which they fight "
        f"(`threat`), `{best}` wins most and `{last}` least.** The placeholder track pays "
        f"{_rng(worth, '.2f')} VP per fight by position (a Monster token {tmean:.2f} VP on "
        f"average, a key {key_vp:.2f} VP: a location's mean VP per key, a pearl one point "
        f"of ally value), against {_deck_mean(m):.2f} for an average ally. Leaving a "
        f"monster keeps the exploration going (more auction income, more cards to the "
        f"Council) but hands the grown reward to the next explorer."),
        "",
        *_table(tb),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        _dep(m, "e4"),
        "",
    ]


def e5(m: RunData) -> list[str]:
    g, s = m.games, m.seats
    n = len(g)
    court = int(g["end"].astype(str).isin(["court", "both"]).sum())
    rows = []
    for p, h in g.groupby("players", sort=True):
        w = s[(s["players"] == p) & (s["win"] > 0)]
        rows.append({"Players": int(p), "Rounds": _mean(h["rounds"], ".1f"),
                     "Lords left in the deck": f"{h['lord_deck_left'].mean():.1f}",
                     "Locations / game": f"{h['locations'].mean():.2f}",
                     "Winner's score from locations": _pct(w["loc_vp"].sum()
                                                           / w["score"].sum())})
    trig = []
    for bot, h in s.groupby("bot", observed=True, sort=False):
        t = h[h["triggered"] > 0]
        trig.append({"Style": f"`{bot}`", "Triggers the end": _share(float(len(t)), len(h)),
                     "Wins when it triggers": _share(float(t["win"].sum()), len(t))})
    left = [h["lord_deck_left"].mean() for _, h in g.groupby("players")]
    rounds = [h["rounds"].mean() for _, h in g.groupby("players")]
    locw = [(s[(s["players"] == p) & (s["win"] > 0)]["loc_vp"].sum()
             / s[(s["players"] == p) & (s["win"] > 0)]["score"].sum())
            for p in sorted(g["players"].unique())]
    tr = s.groupby("bot", observed=True)["triggered"].mean()
    wt = [float(h.loc[h["triggered"] > 0, "win"].mean()) for _, h in
          s.groupby("bot", observed=True)]
    caveat = court_end_text(m, sorted(int(p) for p in g["players"].unique()))
    head = (f"**{m.param('end.lords_to_end', 7)} lords end "
            f"{'every game' if court == 0 else f'{_pct(1 - court / n)} of the games'}; the "
            f"Court {'never runs dry' if court == 0 else f'runs dry in {_pct(court / n, 2)}'}"
            f"** ({court:,} of {n:,} games end by an empty Court).")
    if caveat:
        head = caveat + " " + head.replace("**", "")
    return [
        "## §E5 End-trigger pace",
        "",
        (f"{head} The deck still holds {_rng(left, '.0f')} lords at the end (35 lords, "
        f"6 in the Court, refills only when slot 4 empties). Games last "
        f"{_rng(rounds, '.0f')} rounds and locations bring {_prng(locw, 0)} of the "
        f"winner's score: the lords race ends the game before keys pile up. "
        f"`{tr.idxmax()}` triggers the end most often ({_pct(tr.max())} of its games); the "
        f"player who triggers it wins {_prng(wt, 0)} of those games, by style."),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        *_table(pd.DataFrame(trig)),
        "",
        _dep(m, "e5"),
        "",
    ]


def e6(m: RunData) -> list[str]:
    g = m.games
    per = m.param("keys.per_location") or 3
    rows = []
    tot = float(g["locations"].sum())
    for label, nc, vc in [("face up", "loc_face_up", "loc_vp_face_up")] + [
            (f"draw {i}", f"loc_draw{i}", f"loc_vp_draw{i}") for i in range(1, 5)]:
        k = float(g[nc].sum())
        rows.append({"Way (AB-K2)": label, "Share": _pct(k / tot if tot else math.nan),
                     "Mean VP": _ratio(g[vc], g[nc]) if k else "-",
                     "VP per key": f"{g[vc].sum() / k / per:.2f}" if k else "-"})
    s = m.seats
    cov = s["lords_covered"].sum() / max(s["locations"].sum(), 1)
    ways = {r["Way (AB-K2)"]: float(g[vc].sum()) / float(g[nc].sum())
            for r, (nc, vc) in zip(rows, [("loc_face_up", "loc_vp_face_up")]
                                   + [(f"loc_draw{i}", f"loc_vp_draw{i}") for i in range(1, 5)],
                                   strict=True) if g[nc].sum() > 0}
    # a way the bots took for fewer than 1% of the locations is named apart, not ranked:
    # its mean rests on a handful of tiles (and a "0.0%" share may still be a few)
    counts = {label: float(g[nc].sum()) for label, nc in
              [("face up", "loc_face_up")] + [(f"draw {i}", f"loc_draw{i}") for i in range(1, 5)]}
    unused = [w for w, k in counts.items() if k == 0]
    rare = [w for w, k in counts.items() if 0 < k < 0.01 * tot]
    ranked = sorted((w for w in ways if w not in rare), key=ways.get, reverse=True)
    why = (": their expected best tile minus the tiles the draw turns face up for the others "
           "is higher at the ends.")
    return [
        "## §E6 Keys and locations",
        "",
        f"**A key is worth {_rng([v / per for v in ways.values()], '.1f')} VP; by mean VP "
        f"of the tile kept: {', then '.join(ranked)}.** Each location covers {cov:.2f} "
        f"lords on average (the rest of its keys are Key tokens). Covering costs nothing "
        f"here: the lords have no abilities (AB-L5 skipped), so whether covering a passive "
        f"lord is too costly cannot be answered without the real lord texts."
        + (f" The heuristics never {' or '.join(unused)}" + why if unused else "")
        + (f" They choose {' or '.join(rare)} for fewer than 1% of the locations ("
           + " and ".join(f"{int(counts[w]):,}" for w in rare) + f" of {int(tot):,})"
           + why if rare else ""),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        _dep(m, "e6"),
        "",
    ]


def e8(m: RunData) -> list[str]:
    g, s = m.games, m.seats
    rows = []
    for p, h in s.groupby("players", sort=True):
        gg = g[g["players"] == p]
        rows.append({"Players": int(p), "Ally VP / player-game": _mean(h["ally_vp"]),
                     "Share of the score": _pct(h["ally_vp"].sum() / h["score"].sum()),
                     "From the final affiliation": _mean(h["final_aff_gain"]),
                     "Ally VP if highest": _mean(h["ally_vp_other_reading"]),
                     "Winner differs if highest": _share(
                         float(gg["winner_differs_other_reading"].sum()), len(gg))})
    by = list(s.groupby("players", sort=True))
    ally = [h["ally_vp"].mean() for _, h in by]
    share = [h["ally_vp"].sum() / h["score"].sum() for _, h in by]
    fin = [h["final_aff_gain"].mean() for _, h in by]
    more = [(h["ally_vp_other_reading"] - h["ally_vp"]).mean() for _, h in by]
    diff = [gg["winner_differs_other_reading"].mean() for _, gg in g.groupby("players")]
    reading = m.param("end.final_affiliation", "lowest")
    other = "highest" if reading == "lowest" else "lowest"
    return [
        "## §E8 Affiliation scoring",
        "",
        (f"**The best ally per race brings {_rng(ally, '.1f')} points a player "
        f"({_prng(share, 0)} of the score); the final affiliation ({reading} hand card per "
        f"race, AMB-A3) adds {_rng(fin, '.1f')} of them; reading it as the {other} card "
        f"would add {_rng(more, '.1f')} more and change the winner in {_prng(diff)} of the "
        f"games** (same play, other final tally)."),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        _dep(m, "e8"),
        "",
    ]


def e9(m: RunData) -> list[str]:
    g, s = m.games, m.seats
    rows = []
    for p, h in g.groupby("players", sort=True):
        row = {"Players": int(p), "From the bank / game": f"{h['pearls_from_bank'].mean():.1f}",
               "Auction / game": f"{h['pearls_auction'].mean():.1f}"}
        for r in L.PEARL_ROUNDS:
            x = h[f"pearls_r{r}"]
            x = x[x >= 0]
            row[f"Held after round {r}"] = f"{x.mean():.1f}" if len(x) else "-"
        row["Pearl tie-break decides"] = _share(
            float((h["decided_by"].astype(str) == "pearls").sum()), len(h))
        rows.append(row)
    bonus = s["refill_bonus_pearls"].sum() / max(len(g), 1)
    inflow = g["pearls_from_bank"].sum()
    outflow = g["pearls_to_bank"].sum()
    curve = []
    for p, h in g.groupby("players", sort=True):
        a, b = h[f"pearls_r{L.PEARL_ROUNDS[0]}"], h[f"pearls_r{L.PEARL_ROUNDS[-1]}"]
        a, b = a[a >= 0].mean(), b[b >= 0].mean()
        curve.append((int(p), a, b))
    grows = any(b > 1.5 * a for _, a, b in curve)
    path = "; ".join(f"{p} players {a:.1f} -> {b:.1f}" for p, a, b in curve)
    tb = [float((h["decided_by"].astype(str) == "pearls").mean())
          for _, h in g.groupby("players")]
    return [
        "## §E9 The pearl economy",
        "",
        (f"**{'Pearls inflate' if grows else 'No inflation'}: the pearls held by the whole "
        f"table from round {L.PEARL_ROUNDS[0]} to round {L.PEARL_ROUNDS[-1]}: {path}** "
        f"({100 * outflow / inflow:.0f}% of the pearls taken from the bank go back as "
        f"top-ups and plots). The slot-4 refill bonus brings "
        f"{bonus:.1f} pearls a game; the pearl tie-break decides {_prng(tb)} of the games."),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        _dep(m, "e9"),
        "",
    ]


def e10(m: RunData) -> list[str]:
    g, s = m.games, m.seats
    rows = []
    for p, h in g.groupby("players", sort=True):
        sh = s[s["players"] == p]
        seat_ws = sh.groupby("seat")["win"].mean()
        bot_ws = sh.groupby("bot", observed=True)["win"].mean()
        rows.append({"Players": int(p), "Rounds": _mean(h["rounds"], ".1f"),
                     "Buys per Explore": _ratio(h["buys"], h["explores"]),
                     "Relative margin": _mean(h["margin_rel"], ".3f"),
                     "Score SD": f"{sh['score'].std():.1f}",
                     "Seat spread": f"{100 * (seat_ws - 1 / p).abs().max():.1f} pp",
                     "Style spread": f"{100 * (bot_ws - 1 / p).abs().max():.1f} pp"})
    by = {int(p): h for p, h in g.groupby("players", sort=True)}
    lo, hi = min(by), max(by)
    bpe = {p: h["buys"].sum() / h["explores"].sum() for p, h in by.items()}
    rr = {p: h["rounds"].mean() for p, h in by.items()}
    mr = {p: h["margin_rel"].mean() for p, h in by.items()}
    return [
        "## §E10 Player-count scaling",
        "",
        (f"**From {lo} to {hi} players: rounds {rr[lo]:.1f} -> {rr[hi]:.1f}, purchases per "
        f"Explore x{bpe[hi] / bpe[lo]:.1f}, relative margin {mr[lo]:.3f} -> {mr[hi]:.3f}.** "
        + ("More competition in the auction does not slow the game in rounds (each player "
           "is fed allies through the others' explorations); it is longer in turns. "
           if rr[hi] < rr[lo] else "More players make the game longer in rounds. ")
        + "Swing: the score spread and the seat and style spreads below."),
        "",
        *_table(pd.DataFrame(rows)),
        "",
        _dep(m, "e10"),
        "",
    ]


def build(runs_dir: Path) -> str:
    """The README text from the four runs under ``runs_dir``.

    Raises
    ------
    InputError
        A run directory missing or unreadable (run ``make abyss-findings``).
    """
    runs = {k: load_run(runs_dir / k) for k in ("mixed", "4p", "threat", "auction")}
    for run in runs.values():
        # a game the safety cap stopped is unresolved: out of every answer (its seats' win
        # is NaN; deepsim.rulesets.base.UNRESOLVED)
        run.seats = resolved_seats(run.seats)
    m = runs["mixed"]
    ph = ", ".join(f"`{p}`" for p in m.placeholders)
    lines = [
        "# Abyss: the digest's balance questions, measured",
        "",
        ("Made by `make abyss-findings` (`deepsim/studies/abyss_findings.py`): every number "
        "below comes from these runs (95% intervals in brackets: Wilson for shares, t for "
        "means, games as clusters for ratios, Newcombe for differences of shares):"),
        "",
        *_runs_line(runs),
        "",
        ("**Read every answer with its caveats.** The card contents are not in the source: "
        f"the runs use placeholder data ({ph}) and no lord has an ability (AB-L5 skipped). "
        "The players are bots (`deepsim/rulesets/abyss/bots.yaml`): `courtier` rushes "
        "lords, `merchant` trades in the auction, `hunter` fights monsters and prizes keys, "
        "`random` is the baseline. Answers describe this vanilla Abyss played by these bots; "
        "§E7 (lord pricing) needs the real cards and is not answered. Each question's "
        "section in the reports (`reports/abyss/*/report.md`) has the full tables."),
        "",
        "## The styles",
        "",
        *_table(_by_style(m)),
        "",
        (f"In the default field (2-4 players, styles drawn per seat) "
        f"`{m.seats.groupby('bot', observed=True)['win'].mean().idxmax()}` wins most. With "
        f"the random baseline at the table (`4p`):"),
        "",
        *_table(_by_style(runs["4p"])),
        "",
    ]
    lines += e1(m, runs["4p"])
    lines += e2(m, runs["auction"])
    lines += e3(m)
    lines += e4(m, runs["threat"])
    lines += e5(m)
    lines += e6(m)
    lines += e8(m)
    lines += e9(m)
    lines += e10(m)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return page_main(build, "reports/abyss/README.md", __doc__.split("\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
