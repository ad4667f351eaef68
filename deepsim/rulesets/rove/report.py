"""Rove's own sections of the report (the ``report_sections`` hook), after the shared
co-operative ones (party win rate, presence effect per class, how games end).

They answer the designer's questions of the scope (part B, §B1) that the placeholder
content allows, each saying so: Q1/Q3 the encounter by Rover count (win rate with its
Wilson interval, how it ends, the round the objective falls, timeouts among losses); Q9
the adversary AI's ties ("the players decide": how often, and how often the choice moved
the expected damage); Q7 the ether economy; Q8/Q10/Q11 damage, positioning and revives.
Games with a baseline bot in the party are left out, as in the headline.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from deepsim.report import party as P
from deepsim.report.fmt import pct
from deepsim.report.metrics import mean_text, share_text
from deepsim.report.model import Section, Table

__all__ = ["sections"]

_PLACEHOLDER = ("**Placeholder content.** The classes, adversaries and the encounter are "
                "invented where the content books are not available (rove.yaml marks each, "
                "with the rulebook's real fragments); these numbers describe the engine on "
                "that content, not the published game.")


def _games(ctx) -> pd.DataFrame:
    run = ctx.primary
    return ctx.cached(("rove-games",), lambda: P.party_games(run.games, run.seats,
                                                            run.baseline_bots)[0])


def by_rovers(ctx, foot: str) -> Section:
    """Q1, Q3: the encounter at each Rover count."""
    g = _games(ctx)
    a = ctx.config.alpha
    s = Section("rove_rovers", "Rove: the encounter by Rover count")
    s.paragraphs.append(
        "Per Rover count R: the party's win rate (Wilson interval), how the encounter "
        "ends, the mean round the objective was met in won games, and the share of losses "
        "that were the round limit (the limit binds when it is most of them). "
        + _PLACEHOLDER)
    rows = []
    for r, sub in g.groupby("rovers"):
        won = sub["won"].to_numpy(bool)
        lost = ~won
        timeouts = (sub["outcome"].astype(str) == "round_limit").to_numpy()
        rows.append({"Rovers": int(r), "Games": len(sub),
                     "Win rate": share_text(int(won.sum()), len(sub), a),
                     "All downed": pct(float(np.mean(sub["outcome"].astype(str)
                                                      == "all_downed"))),
                     "Round limit": pct(float(timeouts.mean())),
                     "Objective round (wins)": mean_text(
                         sub.loc[won, "objective_round"].to_numpy(float), a),
                     "Timeouts among losses": (share_text(int(timeouts.sum()),
                                                          int(lost.sum()), a)
                                               if lost.any() else "-")})
    s.tables.append(Table("", pd.DataFrame(rows)))
    return s


def ai_ties(ctx, foot: str) -> Section:
    """Q9: "the players decide" (AMB-R1) as a hidden difficulty dial."""
    g = _games(ctx)
    a = ctx.config.alpha
    rule = ctx.primary.param("ai.tiebreak", "?")
    s = Section("rove_ai", "Rove: the adversary AI's ties")
    s.paragraphs.append(
        "When an adversary's single-target logic leaves a tie after distance and current "
        "HP, the rulebook lets the players decide (Primary Action Logic). This run read it "
        f"as `ai.tiebreak={rule}`. *Ties* counts those moments per game; *choices that "
        "mattered* the ties where the tied targets would suffer different expected damage, "
        "the only ones where the reading can change a game. Its effect on the win rate: "
        "run the same scenario with `--set ai.tiebreak=adversarial` (the worst case) and "
        "`deepsim compare` the two runs (paired games). " + _PLACEHOLDER)
    s.tables.append(Table("", pd.DataFrame([{
        "Games": len(g), "Ties per game": mean_text(g["ai_ties"].to_numpy(float), a),
        "Choices that mattered per game": mean_text(g["ai_tie_choices"].to_numpy(float), a),
        "Games with such a choice": share_text(int((g["ai_tie_choices"] > 0).sum()), len(g),
                                               a)}])))
    return s


def economy(ctx, foot: str) -> Section:
    """Q7, Q8, Q10, Q11: ether, damage, positioning and revives per game."""
    g = _games(ctx)
    a = ctx.config.alpha
    s = Section("rove_play", "Rove: ether, damage and positioning")
    s.paragraphs.append(
        "Means per game with t intervals. Augments met: ether checks met by a die spent on "
        "a rave; missed: offered and not met. Zero attacks: attacks brought to 0 by "
        "defence. Impact: damage from pushes into barriers or objects; falls: adversaries "
        "slain by falling. " + _PLACEHOLDER)
    cols = [("ether_generated", "Ether generated"), ("ether_wasted", "Ether wasted (limit)"),
            ("rallies", "Rallies"), ("raves", "Raves"), ("augments_met", "Augments met"),
            ("augments_missed", "Augments missed"), ("rover_damage", "Damage by Rovers"),
            ("adversary_damage", "Damage by adversaries"), ("zero_attacks", "Zero attacks"),
            ("pushes", "Pushes and pulls"), ("impact_damage", "Impact damage"),
            ("falls", "Falls"), ("traps", "Traps triggered"),
            ("dangerous", "Dangerous-space triggers"), ("downs", "Rovers downed"),
            ("revives", "Revives"), ("items_used", "Items used")]
    s.tables.append(Table("", pd.DataFrame(
        [{"Per game": label, "Mean (95% CI)": mean_text(g[c].to_numpy(float), a)}
         for c, label in cols if c in g.columns])))
    return s


def sections(ctx) -> list:
    """Rove's sections as ``(key, title, build)``."""
    return [("rove_rovers", "Rove: the encounter by Rover count", by_rovers),
            ("rove_ai", "Rove: the adversary AI's ties", ai_ties),
            ("rove_play", "Rove: ether, damage and positioning", economy)]
