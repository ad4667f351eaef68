"""The ladder's report: ladder.md (with its "Does it depend on skill?" section) and the
plot of each faction's verdict along the ladder (ladder.png)."""

from __future__ import annotations

import io
import math

import pandas as pd

from deepsim.ladder import NOT_SETTLED

__all__ = ["markdown", "plot", "skill_section"]

COLOURS = {"too strong": "#c0392b", "viable": "#27ae60", "not viable": "#2c3e50",
           "inconclusive": "#bdc3c7"}


def _r(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def skill_section(result) -> list[str]:
    """The "Does it depend on skill?" section: verdict flips along the ladder, the
    factions not settled by it, skill depth and luck per rung."""
    v = result.verdicts
    order = [r.label for r in result.rungs]
    lines = ["## Does it depend on skill?", ""]
    if v.empty:
        return lines + ["No games were played.", ""]
    piv = v.pivot(index="faction", columns="rung", values="verdict")[order]
    flips = piv[piv.nunique(axis=1) > 1]
    unsettled = sorted(v.loc[~v["settled"], "faction"].unique())
    top, second = order[-1], order[-2]
    lines.append(f"{len(flips)} of {len(piv)} {result.info['faction_label']} verdicts change "
                 f"somewhere along the ladder; {len(unsettled)} differ between the two "
                 f"strongest rungs ({second} and {top}) or are inconclusive at one of them: "
                 f"*{NOT_SETTLED}*.")
    lines.append("")
    for label in order:
        sub = v[v["rung"] == label]
        counts = sub["verdict"].value_counts()
        parts = [f"{counts.get(k, 0)} {k}" for k in ("too strong", "viable", "not viable",
                                                     "inconclusive")]
        lines.append(f"- {label}: " + ", ".join(parts))
    lines.append("")
    d = result.depth
    if not d.empty:
        lines += [("Skill depth (each rung against the rung below, head to head, the "
                   f"{result.info['faction_label']} halves swapped; win share over fair "
                   "share of the upper rung, 95% interval over deals) and luck (1 - mean^2 "
                   "/ mean square of the upper rung's per-game result: 1 = pure chance, "
                   "0 = pure skill):"), "",
                  "| rung | vs | win/fair | 95% interval | luck |", "|---|---|---|---|---|"]
        for r in d.itertuples(index=False):
            lines.append(f"| {r.rung} | {r.below} | {_r(r.ratio)} | "
                         f"{_r(r.ratio_low)}-{_r(r.ratio_high)} | {_r(r.luck)} |")
        lines.append("")
    return lines


def markdown(result) -> str:
    """ladder.md: the settings, per faction its verdict at each rung, the skill section."""
    info = result.info
    order = [r.label for r in result.rungs]
    lines = [f"# Skill ladder: {info['scenario']}", "",
             (f"Rungs (weakest first): {', '.join(order)}. {info['games']:,} games per rung "
              f"(the same game indices at every rung: common random numbers), "
              f"{info['depth_games']:,} deals x 2 per head-to-head; seed {info['seed']}; "
              f"{info['games_played']:,} games in {info['wall_time_s']:.0f} s on "
              f"{info['threads']} thread(s)."), ""]
    if result.strongest:
        lines += [(f"Strongest heuristic: **{result.strongest}** (highest win share over "
                   "fair share of the non-baseline styles in the scenario's own field); the "
                   "search rungs search on its heuristic and play it in their rollouts."),
                  ""]
    lines += [(f"Verdicts: the report's viability rule (too strong: interval above "
               f"{info['max_ratio']} x fair; not viable: below {info['min_ratio']} x fair; "
               f"inconclusive: wider than {info['max_rel_width']:.0%} of fair). A "
               f"{info['faction_label']} whose verdict differs between the two strongest "
               f"rungs is marked *{NOT_SETTLED}*."), ""]
    lines += skill_section(result)
    lines += [f"## Win share over fair share per {info['faction_label']} and rung", "",
              "| " + info["faction_label"] + " | " + " | ".join(order) + " | settled |",
              "|---" * (len(order) + 2) + "|"]
    v = result.verdicts
    for f, g in v.groupby("faction", sort=True):
        cells = []
        by = {r.rung: r for r in g.itertuples(index=False)}
        for label in order:
            r = by.get(label)
            cells.append("-" if r is None else
                         f"{_r(r.ratio)} ({_r(r.ratio_low)}-{_r(r.ratio_high)}) {r.verdict}")
        ok = bool(g["settled"].iloc[0])
        lines.append(f"| {f} | " + " | ".join(cells) + f" | {'yes' if ok else NOT_SETTLED} |")
    lines += ["", "![verdict along the ladder](ladder.png)", ""]
    return "\n".join(lines)


def plot(result) -> bytes:
    """PNG: one row per faction, one column per rung, each cell coloured by its verdict
    and labelled with win share over fair share."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    v = result.verdicts
    order = [r.label for r in result.rungs]
    factions = sorted(v["faction"].unique()) if not v.empty else []
    fig_h = max(2.5, 0.28 * len(factions) + 1.5)
    fig, ax = plt.subplots(figsize=(1.6 * len(order) + 3, fig_h))
    cell = {(r.faction, r.rung): r for r in v.itertuples(index=False)}
    for i, f in enumerate(factions):
        for j, label in enumerate(order):
            r = cell.get((f, label))
            if r is None:
                continue
            ax.add_patch(plt.Rectangle((j, i), 1, 1, color=COLOURS.get(r.verdict, "#eee")))
            ax.text(j + 0.5, i + 0.5, _r(r.ratio), ha="center", va="center", fontsize=7,
                    color="white" if r.verdict in ("too strong", "not viable") else "black")
    ax.set_xlim(0, len(order))
    ax.set_ylim(0, len(factions))
    ax.set_xticks([j + 0.5 for j in range(len(order))], order, rotation=20, fontsize=8)
    ax.set_yticks([i + 0.5 for i in range(len(factions))], factions, fontsize=7)
    ax.invert_yaxis()
    ax.set_title("Verdict along the ladder (cell: win share / fair share)", fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    ax.legend(handles, list(COLOURS), fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


_ = pd
