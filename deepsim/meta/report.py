"""What ``deepsim meta`` writes: the per-round tables, the spread plot, ``meta.md`` /
``meta.html``, and the faction bots files (the final mixture, the last round's styles)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from deepsim.factionbots import style_block
from deepsim.meta.rounds import MetaRun, spread_row
from deepsim.respond.report import fmt_gain, fmt_ratio, plural, yaml_key
from deepsim.tune.plots import figure_png

__all__ = ["bots_yaml", "field_labels", "markdown", "rounds_frame", "scenario_yaml",
           "spread_frame", "spread_plot"]


def field_labels(run: MetaRun) -> list[str]:
    """One label per field measured: the scenario's, then each round's mixture."""
    return (["scenario"] + [f"rounds 0-{r.index}" if r.index else "round 0"
                            for r in run.rounds])


def rounds_frame(run: MetaRun) -> pd.DataFrame:
    """One row per (round, faction): the faction's ratio in the field the round responded
    to (evaluation games), its style before and after, the confirmation (previous style and
    best response on the same games), the paired change with its corrected interval, Holm
    p, respond's verdict, and whether the change's interval excludes 0."""
    rows = []
    for rd in run.rounds:
        ft = rd.field_table.set_index("faction")
        for _, t in rd.search.table.iterrows():
            f = t["faction"]
            e = ft.loc[f]
            rows.append({
                "round": rd.index, "faction": f,
                "field": e["ratio"], "field_low": e["low"], "field_high": e["high"],
                "field_verdict": e["verdict"], "start": t["style"],
                "style": rd.styles[f], "best_trial": int(t["best_trial"]),
                "previous": t["default"], "previous_low": t["default_low"],
                "previous_high": t["default_high"],
                "best": t["best"], "best_low": t["best_low"], "best_high": t["best_high"],
                "change": t["gain"], "change_low": t["gain_low"],
                "change_high": t["gain_high"], "change_level": t["gain_level"],
                "p_holm": t["p_holm"], "adopted": bool(rd.adopted.get(f, False)),
                "changed": bool(t["gain_low"] > 0),
                "verdict": t["verdict"], "confirm_games": int(t["confirm_games"])})
    return pd.DataFrame(rows)


def spread_frame(run: MetaRun) -> pd.DataFrame:
    """One row per field measured (the scenario's, then the mixture after each round): its
    spread (:func:`deepsim.meta.rounds.spread_row`), the round's time, how many factions
    changed and whether the round converged."""
    tables = [r.field_table for r in run.rounds] + [run.final_table]
    labels = field_labels(run)
    rows = []
    for k, (lab, tab) in enumerate(zip(labels, tables, strict=True)):
        row = {"field": k, "label": lab, **spread_row(tab)}
        if k < len(run.rounds):
            rd = run.rounds[k]
            t = rd.search.table
            row.update({"round_seconds": rd.seconds, "changed": int((t["gain_low"] > 0).sum()),
                        "converged": rd.converged})
        else:
            row.update({"round_seconds": run.final_eval_seconds, "changed": 0,
                        "converged": False})
        rows.append(row)
    return pd.DataFrame(rows)


def spread_plot(run: MetaRun, *, label: str, min_ratio: float, max_ratio: float,
                title: str, footer: str = "") -> bytes:
    """Per field (the scenario's, each round's mixture): every faction's ratio (a dot, the
    weakest and strongest named), the range between them, and lines at the viability line,
    fair (1) and the too-strong line. PNG bytes."""
    tables = [r.field_table for r in run.rounds] + [run.final_table]
    labels = field_labels(run)
    fig = Figure(figsize=(1.5 * len(tables) + 3.0, 4.2))
    ax = fig.add_subplot()
    rng = np.random.default_rng(0)
    for k, tab in enumerate(tables):
        r = tab["ratio"].to_numpy(np.float64)
        ok = np.isfinite(r)
        x = k + rng.uniform(-0.18, 0.18, size=r.size)
        colours = np.where(tab["verdict"] == "not viable", "#c0392b",
                           np.where(tab["verdict"] == "too strong", "#8e44ad", "#2b7bba"))
        ax.scatter(x[ok], r[ok], s=12, c=colours[ok], alpha=0.8, linewidths=0)
        if ok.any():
            ax.plot([k, k], [r[ok].min(), r[ok].max()], color="0.4", lw=2, alpha=0.5,
                    zorder=0)
            for i in (int(np.nanargmin(r)), int(np.nanargmax(r))):
                ax.annotate(str(tab["faction"].iloc[i]), (x[i], r[i]), fontsize=6,
                            xytext=(4, 0), textcoords="offset points", va="center")
    ax.axhline(1.0, color="0.3", lw=1)
    ax.axhline(min_ratio, color="#c0392b", lw=1, ls="--")
    ax.axhline(max_ratio, color="#8e44ad", lw=1, ls=":")
    ax.set_xticks(range(len(tables)), labels, fontsize=8)
    ax.set_xlim(-0.5, len(tables) - 0.3)
    ax.set_ylabel(f"win share / fair share per {label}", fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return figure_png(fig, footer)


def _knobs_doc(run: MetaRun, name: str) -> str:
    rounds = [f"{f} round {k}" for f, names in run.history.items()
              for k, n in enumerate(names) if n == name]
    return "deepsim meta: " + ", ".join(rounds)


def bots_yaml(run: MetaRun, bot_data, info: dict, *, last: bool = False) -> str:
    """A faction bots file (scenario key ``faction_bots: FILE``): the final mixture (each
    faction draws its styles of every round, per game, by weight), or with ``last`` the
    last round's styles. Every new style is written with all its knobs (a block ready to
    paste under ``styles:`` of the ruleset's bots.yaml); styles of bots.yaml are named."""
    spec = run.last_spec if last else run.spec
    what = ("the last round's best responses" if last else
            "the meta field: each faction's styles of every round, drawn per game by weight "
            "(the fictitious-play mixture)")
    lines = [f"# deepsim meta {info['scenario_name']} ({info['ruleset']}): {what}",
             f"# made by: {info['command_line']}",
             f"# {info['rounds_played']} round(s), stopped {info['stopped']}",
             ("# play it: `faction_bots: THIS_FILE` in a scenario (a path relative to the "
             "scenario file)"), "styles:"]
    for name, knobs in spec["styles"].items():
        lines.append(style_block(name, knobs, bot_data, doc=_knobs_doc(run, name)))
    if lines[-1] == "styles:":
        lines[-1] = "styles: {}"
    lines.append("factions:")
    for f, v in spec["factions"].items():
        if isinstance(v, str):
            lines.append(f"  {yaml_key(f)}: {v}")
        else:
            body = ", ".join(f"{s}: {w:.6g}" for s, w in v.items())
            lines.append(f"  {yaml_key(f)}: {{{body}}}")
    return "\n".join(lines) + "\n"


def scenario_yaml(scenario: dict, info: dict, bots_file: str, overrides: dict) -> str:
    """The scenario of the meta field: the input scenario with ``faction_bots: bots_file``
    (and the run's ``--set`` values as ``overrides:``)."""
    import yaml

    body = {k: v for k, v in scenario.items() if k not in ("faction_bots",)}
    body["name"] = f"{info['scenario_name']}-meta"
    body["description"] = (f"{info['scenario_name']} with every "
                           f"{info['faction_label']} playing its deepsim meta styles")
    if overrides:
        body["overrides"] = {**dict(body.get("overrides") or {}), **overrides}
    if not body.get("overrides"):
        body.pop("overrides", None)
    body["faction_bots"] = bots_file
    head = (f"# deepsim meta: {info['scenario_name']} played by the meta field "
            f"({bots_file}).\n# made by: {info['command_line']}\n")
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True)


def _fmt_s(s: float) -> str:
    return f"{s / 60:.1f} min" if s >= 120 else f"{s:.0f} s"


def markdown(run: MetaRun, info: dict, *, png_name: str = "spread.png") -> str:
    """meta.md: the spread per field, each faction's ratio per field, the change per round,
    the method and the files."""
    label = info["faction_label"]
    labels = field_labels(run)
    sp = spread_frame(run)
    rf = rounds_frame(run)
    lines = [f"# Meta field: {info['scenario_name']} ({info['ruleset']})", "",
             f"- Command: `{info['command_line']}`",
             (f"- Rounds: {info['rounds_played']} of at most {info['rounds']}; stopped "
              f"{run.stopped}"),
             (f"- Per round and {label}: {info['trials']} trials x {info['games']:,} games "
              f"(search seed {info['seed']} + 2 x round), confirmation on "
              f"{info['confirm_games']:,} games (seed + 2 x round + 1)"),
             (f"- Every field measured on the same games of seed {run.eval_seed}: "
              f"{run.eval_games:,} per {label}"),
             (f"- Time: {info['wall_time_s'] / 60:.1f} min on {info['threads']} thread(s) "
              f"({info['backend']}); {info['games_played']:,} games played; per round: "
              + ", ".join(_fmt_s(r.seconds) for r in run.rounds)), ""]
    lines += ["## Spread per field", "",
              (f"Win share over fair share of every {label} (baseline bots left out) in the "
               "scenario's field and in the field after each round (each faction drawing "
               "its styles of the rounds so far); verdicts by the report's viability rule "
               f"(not viable: the 95% interval below {info['min_ratio']:g}; too strong: "
               f"above {info['max_ratio']:g})."), "",
              ("| field | min | max | max/min | sd | too strong | not viable | changed in the "
              "round |"), "|---|---|---|---|---|---|---|---|"]
    for _, r in sp.iterrows():
        changed = (f"{int(r['changed'])} of {r['factions']}" if r["field"] < len(run.rounds)
                   else "-")
        lines.append(f"| {r['label']} | {r['min']:.3g} ({r['weakest']}) | {r['max']:.3g} "
                     f"({r['strongest']}) | {r['max_over_min']:.3g} | {r['sd']:.3g} | "
                     f"{r['too_strong']} | {r['not_viable']} | {changed} |")
    lines += ["", f"![spread per field]({png_name})", ""]
    tables = [r.field_table.set_index("faction") for r in run.rounds] + \
        [run.final_table.set_index("faction")]
    lines += [f"## Each {label} per field", "",
              "x fair, 95% interval, on the evaluation games.", "",
              f"| {label} | " + " | ".join(labels) + " |",
              "|---" * (len(labels) + 1) + "|"]
    for f in run.factions:
        cells = [fmt_ratio(t.loc[f, "ratio"], t.loc[f, "low"], t.loc[f, "high"])
                 for t in tables]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    lines += ["", "## Change per round", "",
              (f"Each round: the {label}'s previous style against its best response to "
               "the round's field, on the same fresh games; change = best - previous (x "
               f"fair), interval at {rf['change_level'].iloc[0]:.4g} (simultaneous over the "
               f"{len(run.factions)} {plural(label)} of a round). A change below 0 is "
               "rejected (the style kept, marked *kept*). The rounds stop when no interval "
               "lies above 0."), "",
              f"| {label} | " + " | ".join(f"round {r.index}" for r in run.rounds) + " |",
              "|---" * (len(run.rounds) + 1) + "|"]
    for f in run.factions:
        cells = []
        for r in run.rounds:
            x = rf[(rf["round"] == r.index) & (rf["faction"] == f)].iloc[0]
            kept = "" if x["adopted"] or x["best_trial"] == 0 else " (kept)"
            cells.append(f"{x['style']}{kept}: "
                         f"{fmt_gain(x['change'], x['change_low'], x['change_high'])}")
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    lines += ["", "## Method", "",
              (f"Iterated best response (fictitious play; Brown 1951). Round 0 is `deepsim "
               f"respond --all`: each {label} searches the knobs of one style (optuna TPE) "
               "against the scenario's field, from respond's start style. Round r responds "
               f"to the field of rounds 0..r-1: a seat of {label} F plays, per game, one of "
               "F's styles of those rounds, each with weight 1/r (drawn by the kernel's "
               "counter-based faction-style draw: the same on any thread count), and F's "
               "search starts from its style of round r-1. A best response that does not "
               "beat its start on the search games keeps the start style."), "",
              ("Files: `meta-bots.yaml` (the final mixture as a faction bots file), "
               "`last-bots.yaml` (the last round's styles), `scenario.yaml` (the input "
               "scenario playing `meta-bots.yaml`), `rounds.parquet` (one row per round "
               f"and {label}), `spread.parquet` (one row per field), `trials.parquet` "
               "(every trial, with its round), `meta.json`."), ""]
    return "\n".join(lines) + "\n"

