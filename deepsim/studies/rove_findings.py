"""``reports/rove/README.md``: the Rove designer's questions (scope part B, §B1; issue
"Fifth ruleset: Rove") answered from measured runs, on PLACEHOLDER content.

``python -m deepsim.studies.rove_findings RUNS_DIR --out reports/rove/README.md`` (run by
``make rove-findings``) reads the run directories under ``RUNS_DIR``: ``base``
(scenarios/rove.yaml: the placeholder ``skirmish`` at 2-4 Rovers, the striker and guardian
party styles) and one run per variant in :data:`VARIANTS`, each the same scenario, seed and
game count with one ``--set`` (so game ``i`` of a variant is game ``i`` of ``base``: the
same Rover count, classes, party style and dice stream; differences are paired). Every
number of the page is computed from those runs, with Wilson intervals for shares, Newcombe
intervals for differences of independent shares, and paired intervals
(:func:`deepsim.stats.paired_difference`, common random numbers) for the variants; every
answer names the placeholder data and the skipped rules it rests on.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

from deepsim.errors import InputError
from deepsim.report import metrics as M
from deepsim.report.load import RunData
from deepsim.report.party import class_effects
from deepsim.reporting import load_run
from deepsim.rulesets.rove.report import (
    adversary_names,
    adversary_table,
    block_table,
    track_slots,
    track_table,
)
from deepsim.stats import paired_difference
from deepsim.studies.pagewriter import page_main

ALPHA = 0.05

#: (run key, --set override, group, what it is, expected direction of the win rate or None)
VARIANTS = (
    ("story-personal", "story.personal_die=true", "Story",
     "Story Mode: +1 ether die in each personal pool", +1),
    ("story-infusion", "story.infusion_die=true", "Story",
     "Story Mode: +1 ether die in each infusion pool", +1),
    ("hard-hp", "hard.start_hp_fraction=0.7", "Hard",
     "Hard Mode: Rovers start at 70% of max HP (placeholder share)", -1),
    ("hard-tie", "hard.tiebreak_fewest_hp=true", "Hard",
     "Hard Mode: single-target ties go to the fewest HP", None),
    ("tougher", "scale.adversary_hp=1.5", "Challenge",
     "Challenge `tougher` (placeholder): adversary HP x1.5", -1),
    ("hurried", "scale.round_limit_add=-1", "Challenge",
     "Challenge `hurried` (placeholder): one round fewer", -1),
    ("rover-hp2", "scale.rover_hp=2", "Response check", "Rover HP x2", +1),
    ("adversary-hp2", "scale.adversary_hp=2", "Response check", "Adversary HP x2", -1),
    ("limit-plus2", "scale.round_limit_add=2", "Response check", "Round limit +2", +1),
    ("tie-adversarial", "ai.tiebreak=adversarial", "Tie rule",
     "AI ties broken against the party (worst case)", None),
    ("tie-first", "ai.tiebreak=first", "Tie rule",
     "AI ties broken by the first candidate (standee order)", None),
)
RUNS = ("base", *(v[0] for v in VARIANTS))

#: the placeholder data and skipped rules each answer rests on (every answer is a whole
#: encounter played on invented content, so each rests on all of the content)
CONTENT = ("ability_die", "classes.", "items.", "adversaries.", "encounters.")


def _pct(x: float, d: int = 1) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{d}f}%"


def _share(k: float, n: int) -> str:
    if n <= 0:
        return "-"
    lo, hi = M.wilson(k, n, ALPHA)
    return f"{_pct(k / n)} ({100 * lo:.1f}-{100 * hi:.1f}%)"


def _pp(est: float, lo: float, hi: float) -> str:
    return f"{est:+.2f} pts ({lo:+.2f} to {hi:+.2f})"


def _table(df: pd.DataFrame) -> list[str]:
    cols = list(df.columns)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(str(v) for v in row) + " |")
    return out


def _rests(run: RunData, what: str = "the whole encounter", rules: tuple[str, ...] = ()
           ) -> str:
    """The caveat line of an answer: the placeholder data it rests on and the skipped
    rules that weigh most on it (``rules``: prefixes of ``run.skipped_rules``; every
    answer also plays without the others, listed at the end of the page)."""
    ph = list(run.placeholders)
    named = [r.split(" (", 1)[0].split(":", 1)[0] for r in run.skipped_rules
             if r.startswith(rules)] if rules else []
    text = (f"*Rests on {what} played on placeholder data ("
            + (", ".join(f"`{p}`" for p in ph) if ph else "every class, adversary and the "
               "encounter") + ")")
    text += (", without the skipped rules (" + "; ".join(named) + ") and the others listed "
             "at the end." if named else ", without the skipped rules listed at the end.")
    return text + "*"


def paired(base: RunData, var: RunData, rovers: int | None = None) -> tuple[float, float,
                                                                           float, int]:
    """The variant's win rate minus the base run's on the same games (points), its paired
    interval and the games paired; ``rovers`` restricts to one Rover count.

    Raises
    ------
    InputError
        The runs do not share their games (different seeds or counts).
    """
    a = base.games.set_index("game")
    b = var.games.set_index("game")
    common = a.index.intersection(b.index)
    if len(common) == 0 or base.seed != var.seed:
        raise InputError(f"{var.path.name} is not paired with {base.path.name} (seed "
                         f"{var.seed} vs {base.seed}, {len(common)} games in common)")
    a, b = a.loc[common], b.loc[common]
    if not (a["rovers"].to_numpy() == b["rovers"].to_numpy()).all():
        raise InputError(f"{var.path.name}: its games have other Rover counts than "
                         f"{base.path.name}'s: not the same deal")
    if rovers is not None:
        keep = a["rovers"].to_numpy() == rovers
        a, b = a[keep], b[keep]
    ya = a["won"].to_numpy(float)
    yb = b["won"].to_numpy(float)
    one = np.ones_like(ya)
    p = paired_difference(ya, one, yb, one, scale=100.0)
    z = float(norm.ppf(1 - ALPHA / 2))
    return p.est, p.est - z * p.se, p.est + z * p.se, len(ya)


# ---- the answers ---------------------------------------------------------------------------

def q_rovers(base: RunData) -> list[str]:
    """Q1: the win rate at 2, 3 and 4 Rovers; does the minions-per-Rover rule keep it level."""
    g = base.games
    rows, rates = [], {}
    for r, sub in g.groupby("rovers", sort=True):
        k, n = int(sub["won"].sum()), len(sub)
        rates[int(r)] = (k, n)
        rows.append({"Rovers": int(r), "Games": f"{n:,}", "Win rate": _share(k, n),
                     "Adversaries placed": f"{sub['placed'].mean():.1f}",
                     "All downed": _pct(float((sub['outcome'].astype(str)
                                               == 'all_downed').mean())),
                     "Round limit": _pct(float((sub['outcome'].astype(str)
                                                == 'round_limit').mean()))})
    diffs = []
    rs = sorted(rates)
    for lo_r, hi_r in itertools.pairwise(rs):
        d, lo, hi = M.proportion_diff_ci(*rates[hi_r], *rates[lo_r], ALPHA)
        diffs.append((lo_r, hi_r, d, lo, hi))
    level = all(lo <= 0 <= hi for *_, lo, hi in diffs)
    dtext = "; ".join(f"{b} minus {a} Rovers {_pp(100 * d, 100 * lo, 100 * hi)}"
                      for a, b, d, lo, hi in diffs)
    verdict = ("**it keeps the encounter level**: no step between Rover counts is "
               "distinguishable from 0" if level else
               "**it does not keep this encounter level**: " + (
                   "at least one step between Rover counts is outside 0"))
    return ["## Q1 The party's win rate at 2, 3 and 4 Rovers", "",
            (f"Overall {_share(int(g['won'].sum()), len(g))} against the designer's target "
             f"{_pct(float(base.param('party.target_win_rate', 0.5)))}. The encounter adds a "
             "minion by meeples (a placement with `min_rovers`) and adversary HP per Rover; "
             f"with those rules {verdict} ({dtext}; Newcombe intervals)."), "",
            *_table(pd.DataFrame(rows)), "", _rests(base, rules=("Spawning", "Large")), ""]


def q_steps(base: RunData, runs: dict[str, RunData]) -> list[str]:
    """Q2: how much each Story, Hard and Challenge step moves the win rate (paired)."""
    rows = []
    rs = sorted(int(r) for r in base.games["rovers"].unique())
    for key, over, group, what, _ in VARIANTS:
        if group not in ("Story", "Hard", "Challenge"):
            continue
        v = runs[key]
        est, lo, hi, n = paired(base, v)
        row = {"Step": f"{group}: {what}", "Set": f"`{over}`", "Games": f"{n:,}",
               "All Rovers": _pp(est, lo, hi)}
        for r in rs:
            e, a, b, _ = paired(base, v, r)
            row[f"{r} Rovers"] = f"{e:+.1f} ({a:+.1f} to {b:+.1f})"
        rows.append(row)
    odd = []
    for key, over, group, what, sign in VARIANTS:
        if group in ("Story", "Hard", "Challenge"):
            est, lo, hi, _ = paired(base, runs[key])
            if sign is None:
                continue
            if (sign > 0 and lo <= 0) or (sign < 0 and hi >= 0):
                odd.append(f"`{over}` ({_pp(est, lo, hi)}: not clearly "
                           f"{'up' if sign > 0 else 'down'})")
    if odd:
        note = ("**Steps that do not move it the way their mode intends:** " + "; ".join(odd)
                + ". Hard Mode's tie-break (fewest HP) has no intended direction of its own "
                "here: it is listed for what it does.")
    else:
        note = ("Every Story step raises it and every Hard and Challenge step with an "
                "intended direction lowers it; Hard Mode's tie-break (fewest HP) has none of "
                "its own here: it is listed for what it does.")
    return ["## Q2 How much each Story, Hard and Challenge step moves it", "", note, "",
            ("Each step is the base run's games played again with one setting changed "
             "(same seeds, Rover counts, classes and party styles): the paired difference "
             "of the win rate in points, with its 95% interval. Story Mode's free item is "
             "a skipped rule (not measured). The encounter's challenges are placeholders "
             "(`encounters.skirmish.challenges`), applied here as their overrides."), "",
            *_table(pd.DataFrame(rows)), "",
            _rests(base, rules=("Items beyond", "Challenges", "Ether Fields")), ""]


def q_classes(base: RunData) -> list[str]:
    """Q4: which class is carried (presence effect, stratified by Rover count)."""
    g = base.games.assign(players=base.games["rovers"])
    eff = class_effects(g, base.seats, "class", alpha=ALPHA)
    pooled = eff[eff["stratum"] == "all"].sort_values("effect")
    rows = [{"Class": f"`{r.member}`", "With": f"{_pct(r.with_rate)} ({r.with_games:,})",
             "Without": f"{_pct(r.without_rate)} ({r.without_games:,})",
             "Presence effect": _pp(100 * r.effect, 100 * r.low, 100 * r.high)}
            for r in pooled.itertuples()]
    carried = pooled.iloc[0] if len(pooled) else None
    lead = (f"**Carried (the party wins least with it at the table): `{carried.member}`**, "
            f"{_pp(100 * carried.effect, 100 * carried.low, 100 * carried.high)}; "
            f"the strongest is `{pooled.iloc[-1].member}` "
            f"({_pp(100 * pooled.iloc[-1].effect, 100 * pooled.iloc[-1].low, 100 * pooled.iloc[-1].high)})."
            if carried is not None else "No class effect could be estimated.")
    return ["## Q4 Which class is carried", "",
            (lead + " Presence effect: the party's win rate with the class in the party "
             "minus without it, within each Rover count (parties are drawn at random, so "
             "the comparison is randomised), pooled over Rover counts. The five classes are "
             "placeholders shaped on the rulebook's ratings: the numbers show the engine "
             "tells classes apart, not that the published classes are unbalanced."), "",
            *_table(pd.DataFrame(rows)), "", _rests(base, "the placeholder classes",
                                                   ("Target Pattern", "Creations",
                                                    "Reaction", "Drain", "Ether Fields")),
            ""]


def q_blocks(base: RunData) -> list[str]:
    """Q5/Q6: which adversary ability block makes the encounter hardest."""
    g = base.games
    types, blocks = adversary_names(base)
    if not types or f"adv{len(types) - 1}_track" not in g.columns:
        return ["## Q5 Which adversary ability block makes the encounter hardest", "",
                "The base run has no per-adversary columns: run it again.", ""]
    adv = adversary_table(g, types, ALPHA)
    blk = block_table(g, types, blocks, ALPHA)
    won = g["won"].to_numpy(bool)
    worst = []
    for t, name in enumerate(types):
        rates = []
        slot2 = track_slots(g, t)[:, 1]
        for j, bname in enumerate(blocks[t]):
            sel = slot2 == j
            if sel.sum():
                rates.append((won[sel].mean(), j, bname, int(won[sel].sum()), int(sel.sum())))
        if len(rates) >= 2:
            rates.sort()
            lo_, hi_ = rates[0], rates[-1]
            d, a, b = M.proportion_diff_ci(lo_[3], lo_[4], hi_[3], hi_[4], ALPHA)
            worst.append(f"`{name}` {bname_fmt(lo_)} against {bname_fmt(hi_)}: "
                         f"{_pp(100 * d, 100 * a, 100 * b)}")
    return ["## Q5 Which adversary ability block makes the encounter hardest", "",
            ("Per adversary type: the damage it dealt to Rovers, the Rovers it downed, its "
             "units standing at the end and the share of losses with it still on the map:"),
            "", *_table(adv), "",
            ("Per ability block: the damage dealt while performing it, the rounds it was "
             "performed, and the party's win rate in the games where the ability die made it "
             "the block its type performed in round 2. The die, not the party, picks that "
             "block, so "
             "within one adversary the rows are a randomised comparison. The hardest block "
             "of each adversary (lowest win rate) against its easiest, Newcombe interval: "
             + ("; ".join(worst) if worst else "none measurable") + "."), "",
            *_table(blk), "", _rests(base, "the placeholder adversaries' blocks",
                                                   ("Target Pattern", "Large", "Spawning",
                                                    "Ether Fields")), ""]


def q_track(base: RunData) -> list[str]:
    """Q6: the ability track: how often each block is active and how often it stays."""
    g = base.games
    types, blocks = adversary_names(base)
    if not types or f"adv{len(types) - 1}_track" not in g.columns:
        return []
    die = base.param("ability_die")
    return ["## Q6 The ability track", "",
            (f"Each round from the second the ability die (faces {die}, placeholder) moves "
             "a type's token along its track, with wrap. Per type: the rounds (1-8) it "
             "acted in, the share of them each block was performed, and how often the token "
             "stayed between two acting rounds, beside what a fair die gives (faces that "
             "are a multiple of the track's length, since the advance wraps):"),
            "", *_table(track_table(g, types, blocks, die)), "",
            _rests(base, "the placeholder ability die and tracks", ("Spawning",)), ""]


def bname_fmt(r) -> str:
    """``(win rate, block slot, block name)`` as "block 2 *Hunker* 34.6%"."""
    return f"block {r[1] + 1} *{r[2]}* {_pct(r[0])}"


def q_ties(base: RunData, runs: dict[str, RunData]) -> list[str]:
    """Q9: "the players decide" (AMB-R1) as a hidden difficulty dial."""
    g = base.games
    rows = []
    for key, over, group, what, _ in VARIANTS:
        if group != "Tie rule" and key != "hard-tie":
            continue
        v = runs[key]
        est, lo, hi, n = paired(base, v)
        rows.append({"Reading": what, "Set": f"`{over}`", "Games": f"{n:,}",
                     "Win rate": _share(int(v.games["won"].sum()), len(v.games)),
                     "Minus the rule's reading": _pp(est, lo, hi)})
    ties = g["ai_ties"].to_numpy(float)
    mattered = g["ai_tie_choices"].to_numpy(float)
    return ["## Q9 The tie rule as a hidden difficulty dial", "",
            (f"The rule lets the players break the adversary AI's single-target ties "
             f"(`ai.tiebreak=rover_favoured`; the base run: "
             f"{_share(int(g['won'].sum()), len(g))}). Ties after distance and HP happen "
             f"{ties.mean():.2f} times a game; {int((mattered > 0).sum()):,} of "
             f"{len(g):,} games had a tie whose targets would suffer different expected "
             "damage, the only ties where the reading can matter. Reading it another way, "
             "on the same games:"), "",
            *_table(pd.DataFrame(rows)), "",
            ("On this placeholder encounter the dial is nearly idle: tied targets are "
             "almost always alike. Real content with affinities and defence spread wider "
             "gives it more room; re-run the page on it."), "",
            _rests(base, rules=("Adversary ties", "Ether Fields")), ""]


def q_checks(base: RunData, runs: dict[str, RunData]) -> list[str]:
    """The engine's response checks: each dial moves the win rate the way it must."""
    rows = []
    for key, over, group, what, sign in VARIANTS:
        if group != "Response check" and key != "tie-adversarial":
            continue
        est, lo, hi, n = paired(base, runs[key])
        if key == "tie-adversarial":
            want, ok = "not up (upper end <= +1 pt)", hi <= 1.0
        elif sign > 0:
            want, ok = "up (interval above 0)", lo > 0
        else:
            want, ok = "down (interval below 0)", hi < 0
        rows.append({"Change": what, "Set": f"`{over}`", "Games": f"{n:,}",
                     "Paired difference": _pp(est, lo, hi), "Expected": want,
                     "Holds": "yes" if ok else "**no**"})
    return ["## Response checks", "",
            ("Dials whose direction is known before any game: the engine must move the "
             "win rate that way on paired games (the issue's Done means, at this budget)."),
            "", *_table(pd.DataFrame(rows)), "", _rests(base), ""]


def build(runs_dir: Path) -> str:
    """The page from the runs under ``runs_dir`` (each of :data:`RUNS`).

    Raises
    ------
    InputError
        A run is missing or unreadable, or a variant is not paired with ``base``.
    """
    runs_dir = Path(runs_dir)
    runs: dict[str, RunData] = {}
    for key in RUNS:
        if not (runs_dir / key).is_dir():
            raise InputError(f"run '{key}' not found (make rove-findings makes it)",
                             file=str(runs_dir / key))
        runs[key] = load_run(runs_dir / key)
    base = runs["base"]
    lines = ["# Rove: the designer's questions, measured on placeholder content", "",
             ("Made by `make rove-findings` (`deepsim/studies/rove_findings.py`): every "
              "number below comes from these runs (95% intervals in brackets: Wilson for "
              "shares, Newcombe for differences of independent shares, paired intervals "
              "for a variant against `base`, whose games it replays with one setting "
              "changed):"), ""]
    for key, r in runs.items():
        over = f", `{' '.join('--set ' + o for o in r.overrides)}`" if r.overrides else ""
        lines.append(f"- `{key}`: {r.scenario_name}, seed {r.seed}, {r.n_games:,} games, "
                     f"params `{r.params_hash[:12]}`{over}")
    lines += ["", (f"Budget: {base.n_games:,} games per run ({len(runs)} runs), chosen to fit "
                   "a shared 2-core machine: at 20,000 a run the whole target took about 80 "
                   "CPU-seconds on one thread with a warm numba cache (a cold compile of the "
                   "Rove kernel adds about 80 more). `make rove-findings ROVE_GAMES=100000` "
                   "plays a larger one (intervals about 2.2 times narrower)."), "",
              ("**Read every answer with its caveats.** Rove's content (classes, cards, "
               "items, adversaries, encounters) is in books the project does not have: "
               "every class, adversary, the ability die and the `skirmish` encounter are "
               "placeholders (`deepsim/rulesets/rove/rove.yaml` marks each, and keeps the "
               "rulebook's worked-example fragments as real), and the engine skips the "
               "rules listed in docs/RULES.md, \"Rove\". The party is the `striker` and "
               "`guardian` bots (`deepsim/rulesets/rove/bots.yaml`, one style per game); "
               "the numbers describe this placeholder encounter played by these bots."), ""]
    lines += q_rovers(base)
    lines += q_steps(base, runs)
    lines += q_classes(base)
    lines += q_blocks(base)
    lines += q_track(base)
    lines += q_ties(base, runs)
    lines += q_checks(base, runs)
    lines += ["## Skipped rules", "", *(f"- {r}" for r in base.skipped_rules), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m deepsim.studies.rove_findings RUNS_DIR [--out PAGE]``."""
    return page_main(build, "reports/rove/README.md",
                     "Write reports/rove/README.md from the Rove study's runs.", argv)


if __name__ == "__main__":
    raise SystemExit(main())
