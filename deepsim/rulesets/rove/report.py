"""Rove's own sections of the report (the ``report_sections`` hook), after the shared
co-operative ones (party win rate, presence effect per class, how games end).

They answer the designer's questions of the scope (part B, §B1) that the placeholder
content allows, each saying so: Q1/Q3 the encounter by Rover count (win rate with its
Wilson interval, how it ends, the round the objective falls, timeouts among losses); Q9
the adversary AI's ties ("the players decide": how often, and how often the choice moved
the expected damage); Q5 the adversaries (damage, downs and units standing per type, the
damage of each ability block, the win rate by the block the ability die put active in
round 2); Q6 the ability track (how often each block is active, how often the track
stays); Q7 the ether economy; Q8/Q10/Q11 damage, positioning and revives.
Games with a baseline bot in the party are left out, as in the headline.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from deepsim.report import party as P
from deepsim.report.fmt import pct
from deepsim.report.metrics import mean_text, share_text
from deepsim.report.model import Section, Table
from deepsim.rulesets.rove.layout import MAX_BLOCKS, MAX_TYPES, TRACK_ROUNDS

__all__ = ["adversary_names", "adversary_table", "block_table", "sections", "track_slots",
           "track_table"]

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


def adversary_names(run) -> tuple[list[str], list[list[str]]]:
    """The encounter's adversary types (the ``adv{t}_*`` slots, first-placement order) and
    each type's block names (the ``blk{t}_{j}_damage`` slots), compiled again from the
    run's recorded scenario and overrides; ``type t`` / ``block j`` names when that fails
    (a designer's content file moved since the run)."""
    try:
        prep = run.rs.prepare(dict(run.info["scenario_input"]),
                              source=str(run.info.get("scenario_path") or "<scenario>"),
                              overrides=list(run.overrides))
        comp = prep.compiled["content"]
        return list(comp.types), [list(b) for b in comp.block_names]
    except Exception:  # noqa: BLE001 - names only: the numbers below stand without them
        g = run.games
        n = [t for t in range(MAX_TYPES)
             if f"adv{t}_damage" in g.columns and (g[f"adv{t}_damage"].to_numpy() > 0).any()]
        k = max(n) + 1 if n else 0
        seen = [int(track_slots(g, t).max()) + 1 if f"adv{t}_track" in g.columns
                else MAX_BLOCKS for t in range(k)]
        return ([f"type {t + 1}" for t in range(k)],
                [[f"block {j + 1}" for j in range(seen[t])] for t in range(k)])


def track_slots(games: pd.DataFrame, t: int) -> np.ndarray:
    """int64[games, TRACK_ROUNDS]: the block type ``t`` performed in each round 1-8, from
    ``adv{t}_track`` (4 bits a round: slot + 1); -1 where the round's Adversary Phase was
    not reached or the type had no unit left."""
    code = games[f"adv{t}_track"].to_numpy(np.int64)
    out = np.empty((len(games), TRACK_ROUNDS), np.int64)
    for r in range(TRACK_ROUNDS):
        out[:, r] = ((code >> (4 * r)) & 15) - 1
    return out


def adversary_table(games: pd.DataFrame, types: list[str], alpha: float = 0.05
                    ) -> pd.DataFrame:
    """Per adversary type: damage to Rovers and Rovers downed per game (t intervals), its
    share of all adversary damage, units standing at the end per game, and the share of
    lost games in which it still stood (the party lost with it on the map)."""
    total = sum(games[f"adv{t}_damage"].to_numpy(float).sum() for t in range(len(types)))
    lost = ~games["won"].to_numpy(bool)
    rows = []
    for t, name in enumerate(types):
        dmg = games[f"adv{t}_damage"].to_numpy(float)
        left = games[f"adv{t}_left"].to_numpy(float)
        rows.append({"Adversary": name,
                     "Damage to Rovers / game": mean_text(dmg, alpha),
                     "Share of damage": pct(dmg.sum() / total) if total > 0 else "-",
                     "Rovers downed / game": mean_text(games[f"adv{t}_downs"].to_numpy(float),
                                                       alpha),
                     "Standing at the end / game": mean_text(left, alpha),
                     "Losses with it standing": (share_text(int((left[lost] > 0).sum()),
                                                            int(lost.sum()), alpha)
                                                 if lost.any() else "-")})
    return pd.DataFrame(rows)


def block_table(games: pd.DataFrame, types: list[str], blocks: list[list[str]],
                alpha: float = 0.05) -> pd.DataFrame:
    """Per (type, ability block): damage per game dealt while the block was performed,
    the rounds it was active per game, damage per active round, and the party's win rate
    in the games where its type performed it in round 2 (the die roll, not the party, picks the
    block, so the rows of one type are a randomised comparison)."""
    rows = []
    won = games["won"].to_numpy(bool)
    for t, name in enumerate(types):
        slots = track_slots(games, t)
        r2 = slots[:, 1] >= 0
        for j, bname in enumerate(blocks[t]):
            dmg = games[f"blk{t}_{j}_damage"].to_numpy(float)
            active = (slots == j).sum(axis=1).astype(float)
            at2 = r2 & (slots[:, 1] == j)
            rows.append({"Adversary": name, "Block": f"{j + 1}. {bname}",
                         "Damage / game": mean_text(dmg, alpha),
                         "Rounds performed / game": mean_text(active, alpha),
                         "Damage / round performed": (f"{dmg.sum() / active.sum():.2f}"
                                                   if active.sum() > 0 else "-"),
                         "Win rate, performed in round 2": share_text(int(won[at2].sum()),
                                                                   int(at2.sum()), alpha)})
    return pd.DataFrame(rows)


def track_table(games: pd.DataFrame, types: list[str], blocks: list[list[str]],
                die=None) -> pd.DataFrame:
    """Per adversary type: the rounds (1-8) it acted in, the share of consecutive acting
    rounds in which its token stayed on its block, and the share of acting rounds each block
    was performed (``name: share`` in columns ``Block 1`` .. up to the longest track); with
    ``die`` (the ability die's faces) the share a fair die gives for staying: faces that are
    a multiple of the track's length (RO-A2, the advance wraps)."""
    rows = []
    width = max((len(b) for b in blocks), default=0)
    for t, name in enumerate(types):
        slots = track_slots(games, t)
        played = slots >= 0
        both = played[:, 1:] & played[:, :-1]
        stay = (slots[:, 1:] == slots[:, :-1]) & both
        row = {"Adversary": name, "Rounds acted": f"{int(played.sum()):,}",
               "Stayed": pct(float(stay.sum() / max(1, both.sum())))}
        if die:
            row["Stay, fair die"] = pct(float(np.mean([int(f) % max(1, len(blocks[t])) == 0
                                                       for f in die])))
        for j in range(width):
            row[f"Block {j + 1}"] = (
                f"{blocks[t][j]}: {pct(float((slots == j).sum() / max(1, played.sum())))}"
                if j < len(blocks[t]) else "")
        rows.append(row)
    return pd.DataFrame(rows)


def adversaries(ctx, foot: str) -> Section:
    """Q5: which adversary, and which of its ability blocks, makes the party lose."""
    g = _games(ctx)
    a = ctx.config.alpha
    types, blocks = ctx.cached(("rove-names",), lambda: adversary_names(ctx.primary))
    s = Section("rove_adversaries", "Rove: the adversaries and their ability blocks")
    if not all(f"adv{t}_damage" in g.columns for t in range(len(types))):
        s.paragraphs.append("This run has no per-adversary columns (made before they "
                            "existed): run it again.")
        return s
    s.paragraphs.append(
        "Per adversary type of the encounter: the damage its units dealt to Rovers and the "
        "Rovers they downed (push impacts included), the units still standing at the end, "
        "and the share of lost games in which it still stood. " + _PLACEHOLDER)
    s.tables.append(Table("Adversaries", adversary_table(g, types, a)))
    s.paragraphs.append(
        "Per ability block: the damage dealt while performing it (On Advance actions count "
        "in the type's total only), the rounds it was performed, and the party's "
        "win rate in games where the type performed it in round 2 (set by the die). The "
        "die, not the party, chooses that block, so within one adversary the win rates "
        "compare like with like: the block with the lowest one makes the encounter "
        "hardest. To measure a block's weight directly, edit it in a content file and "
        "`deepsim compare` paired runs (same seed). " + _PLACEHOLDER)
    s.tables.append(Table("Ability blocks", block_table(g, types, blocks, a)))
    return s


def track(ctx, foot: str) -> Section:
    """Q6: the ability track: how often each block is active, how often it stays."""
    g = _games(ctx)
    types, blocks = ctx.cached(("rove-names",), lambda: adversary_names(ctx.primary))
    s = Section("rove_track", "Rove: the ability track")
    if not all(f"adv{t}_track" in g.columns for t in range(len(types))):
        s.paragraphs.append("This run has no track columns: run it again.")
        return s
    die = ctx.primary.param("ability_die")
    s.paragraphs.append(
        "Each round from the second the ability die moves a type's token along its track "
        f"(with wrap; die faces {die}, placeholder). Per type: the rounds (1-8) it acted, "
        "the share of them each block was performed, and the share of consecutive acting "
        "rounds in which the token stayed on its block, beside what a fair die gives (faces "
        "that are a multiple of the track's length: the advance wraps). "
        + _PLACEHOLDER)
    s.tables.append(Table("", track_table(g, types, blocks, die)))
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
            ("rove_adversaries", "Rove: the adversaries and their ability blocks",
             adversaries),
            ("rove_track", "Rove: the ability track", track),
            ("rove_ai", "Rove: the adversary AI's ties", ai_ties),
            ("rove_play", "Rove: ether, damage and positioning", economy)]
