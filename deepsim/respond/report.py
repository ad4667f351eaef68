"""What ``deepsim respond`` writes: the before/after plot, ``respond.md``/``respond.html``,
``styles.yaml`` (a faction bots file playing the best responses) and the text tables."""

from __future__ import annotations

import base64
import html
import io
import math
import re
import sys

import matplotlib

# Files only, no window: the Agg backend, unless the caller already chose one (a notebook's
# inline backend must survive importing deepsim).
if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from deepsim.factionbots import style_block
from deepsim.report import viability as V
from deepsim.respond.search import SearchResult, Settings, slug
from deepsim.respond.verdict import (
    NOT_VIABLE_ANY,
    NOT_VIABLE_BOT,
    ON_TARGET_ANY,
    TOO_EASY_ANY,
    TOO_EASY_BEST,
    TOO_HARD_ANY,
    TOO_HARD_BOT,
    TOO_STRONG_ANY,
    TOO_STRONG_BEST,
    VIABLE_ANY,
)

__all__ = ["before_after_plot", "fmt_ratio", "markdown", "styles_yaml", "to_html"]

DPI = 90
VERDICT_COLOURS = {NOT_VIABLE_ANY: "#c0392b", NOT_VIABLE_BOT: "#e67e22",
                   TOO_STRONG_ANY: "#8e44ad", TOO_STRONG_BEST: "#d35fb7",
                   VIABLE_ANY: "#2b7bba", "inconclusive": "#7f7f7f",
                   TOO_HARD_ANY: "#c0392b", TOO_HARD_BOT: "#e67e22",
                   TOO_EASY_ANY: "#8e44ad", TOO_EASY_BEST: "#d35fb7",
                   ON_TARGET_ANY: "#2b7bba", "unclear": "#7f7f7f"}


def plural(label: str) -> str:
    """``company`` -> ``companies``, ``faction`` -> ``factions``."""
    return label[:-1] + "ies" if label.endswith("y") else label + "s"


def fmt_ratio(v: float, lo: float | None = None, hi: float | None = None) -> str:
    """``0.18 [0.16, 0.20]`` (x fair)."""
    def one(x):
        return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"
    return one(v) if lo is None else f"{one(v)} [{one(lo)}, {one(hi)}]"


def fmt_gain(v: float, lo: float, hi: float) -> str:
    """``+0.09 [+0.05, +0.13]``; ``0 (same games)`` when the start style was the best."""
    if lo == hi == v == 0:
        return "0 (the start style was best)"
    return f"{v:+.3g} [{lo:+.3g}, {hi:+.3g}]"


def before_after_plot(table: pd.DataFrame, *, label: str, min_ratio: float,
                      max_ratio: float, title: str, footer: str = "") -> bytes:
    """Per faction: the start style's default knobs' ratio (grey) and the best response's (coloured by
    verdict), each with its 95% interval, on the confirmation games; lines at the
    viability line, fair (1) and the too-strong line. PNG bytes."""
    d = table.sort_values(["default", "faction"]).reset_index(drop=True)
    n = len(d)
    fig = Figure(figsize=(7.6, 0.28 * n + 1.6))
    ax = fig.add_subplot()
    y = np.arange(n)

    def err(v, lo, hi):
        return np.clip(np.vstack([d[v] - d[lo], d[hi] - d[v]]), 0.0, None)

    ax.errorbar(d["default"], y - 0.15, xerr=err("default", "default_low", "default_high"),
                fmt="o", ms=3.5, color="0.55", ecolor="0.55", elinewidth=1, capsize=2,
                label="start style, default knobs")
    for v, colour in VERDICT_COLOURS.items():
        m = (d["verdict"] == v).to_numpy()
        if m.any():
            e = err("best", "best_low", "best_high")[:, m]
            ax.errorbar(d["best"][m], y[m] + 0.15, xerr=e, fmt="D", ms=3.5, color=colour,
                        ecolor=colour, elinewidth=1, capsize=2,
                        label=f"best response: {v}")
    for i in range(n):
        ax.plot([d["default"][i], d["best"][i]], [i - 0.15, i + 0.15], color="0.8", lw=0.8,
                zorder=0)
    ax.axvline(1.0, color="0.3", lw=1)
    ax.axvline(min_ratio, color="#c0392b", lw=1, ls="--")
    ax.axvline(max_ratio, color="#8e44ad", lw=1, ls=":")
    ax.set_yticks(y, [str(f) for f in d["faction"]], fontsize=7)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel(f"win share / fair share (dashed: viability line {min_ratio:g}; dotted: "
                  f"too-strong line {max_ratio:g})", fontsize=8)
    ax.set_ylabel(label, fontsize=8)
    ax.legend(fontsize=6.5, loc="best")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    if footer:
        fig.text(0.0, -0.01, footer, fontsize=6.5, color="0.35", ha="left", va="top")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.1,
                metadata={"Software": None})
    return buf.getvalue()


def _doc(faction: str, r: pd.Series, info: dict) -> str:
    return (f"best response of {faction} (from {r['style']}; deepsim respond "
            f"{info['scenario_name']}, seed {info['seed']}, trial {int(r['best_trial'])} of "
            f"{info['trials']}): {r['best']:.3g} x fair vs {r['default']:.3g} on "
            f"{int(r['confirm_games']):,} games of seed {info['confirm_seed']}")


def styles_yaml(result: SearchResult, bot_data, info: dict) -> str:
    """A faction bots file (scenario key ``faction_bots: styles.yaml``) giving every
    faction searched its best response; each style block is ready to paste under
    ``styles:`` of the ruleset's bots.yaml too."""
    lines = [(f"# deepsim respond {info['scenario_name']}: best responses, confirmed on "
             f"seed {info['confirm_seed']}"),
             "# play them: add `faction_bots: styles.yaml` (a path relative to the scenario",
             ("# file) to a scenario; or paste a style block under styles: of "
             f"{_rel(bot_data.file)}"), "styles:"]
    factions = []
    for c, (_, r) in zip(result.confirmed, result.table.iterrows(), strict=True):
        if c.best_trial == 0:
            factions.append((c.faction, c.start))
            continue
        name = f"{slug(c.faction)}_br"
        lines.append(style_block(name, c.best_knobs, bot_data, doc=_doc(c.faction, r, info)))
        factions.append((c.faction, name))
    if lines[-1] == "styles:":
        lines[-1] = "styles: {}"
    lines.append("factions:")
    for f, name in factions:
        lines.append(f"  {yaml_key(f)}: {name}")
    return "\n".join(lines) + "\n"


def yaml_key(text: str) -> str:
    """``text`` as a YAML mapping key: bare when it is a plain word, else double-quoted."""
    return text if re.fullmatch(r"[A-Za-z][A-Za-z0-9 _\-]*", text) else '"' + \
        text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rel(path: str) -> str:
    p = str(path)
    i = p.find("deepsim/rulesets/")
    return p[i:] if i >= 0 else p


def knob_changes(c, bot_data) -> list[tuple[str, str, str]]:
    """(knob, start value, best value) of the knobs the best response moved."""
    out = []
    for k, kn in bot_data.knobs.items():
        a, b = c.start_knobs.get(k, kn.default), c.best_knobs.get(k, kn.default)
        if abs(a - b) > 1e-12:
            f = (lambda v: f"{round(v)}") if kn.type in ("int", "bool") else \
                (lambda v: f"{v:.4g}")
            out.append((k, f(a), f(b)))
    return out


def markdown(result: SearchResult, settings: Settings, info: dict, bot_data, *,
             png_name: str = "respond.png") -> str:
    """respond.md: verdicts, the plot, the method, and per faction its knobs and block."""
    t = result.table
    label = info["faction_label"]
    lines = [f"# Best responses: {info['scenario_name']} ({info['ruleset']})", ""]
    lines += [f"- Command: `{info['command_line']}`",
              (f"- Search: {settings.trials} trials (optuna TPE, sampler seed "
              f"{settings.sampler_seed}) per {label}, each on the same "
              f"{settings.games:,} games of seed {info['seed']} in which the {label} sits "
              "(common random numbers)"),
              (f"- Confirmation: {info['confirm_games']:,} fresh games per {label} from seed "
              f"{info['confirm_seed']}, the start style's default knobs and the best response "
              "on the same games"),
              f"- Start style: {info['start_note']}",
              (f"- Time: {info['wall_time_s']:.0f} s on {info['threads']} thread(s) "
              f"({info['backend']}); {info['games_played']:,} games played"), ""]
    what = ("The party's win rate over its target (x target; co-operative game: see "
            "Method)" if info.get("cooperative") else "Win share over fair share")
    lines += ["## Verdicts", "",
              (f"{what} (x fair, baseline bots left out as in the balance "
              f"report), 95% intervals, each with its verdict; gain = best response - default "
              f"knobs on the same "
              f"games, interval at {t['gain_level'].iloc[0]:.4g} (simultaneous over the "
              f"{len(t)} {plural(label)} of this run), Holm-adjusted p of gain = 0. "
              + (f"Band: target {100 * info['target']:g}% +- {100 * settings.coop_band:g} pts."
                 if info.get("cooperative") else
                 f"Viability line {settings.min_ratio:g}, too-strong line "
                 f"{settings.max_ratio:g}.")), ""]
    lines.append(f"| {label} | in the field | start style (default knobs) | best response | "
                 "gain | Holm p | verdict |")
    lines.append("|---|---|---|---|---|---|---|")
    for _, r in t.iterrows():
        lines.append(
            f"| {r['faction']} | {fmt_ratio(r['field'], r['field_low'], r['field_high'])} "
            f"{r['field_verdict']} | {r['style']}: "
            f"{fmt_ratio(r['default'], r['default_low'], r['default_high'])} "
            f"{r['default_verdict']} | "
            f"{fmt_ratio(r['best'], r['best_low'], r['best_high'])} {r['best_verdict']} | "
            f"{fmt_gain(r['gain'], r['gain_low'], r['gain_high'])} | "
            f"{_p(r['p_holm'])} | {_verdict_text(r)} |")
    lines += ["", f"![before and after]({png_name})", "",
              ("*Start style with its default knobs (grey) and best response (coloured by "
               "verdict) per "
              f"{label}, 95% intervals on the confirmation games.*"), ""]
    lines += ["## Method", ""] + [f"{p}" + "\n" for p in method_paragraphs(settings, info)]
    if not result.styles_table.empty:
        lines += [("**The field's styles** (search pass, "
                  f"{info['style_games']:,} games; baseline bots left out):"), "",
                  "| style | seat-games | x fair |", "|---|---|---|"]
        for _, r in result.styles_table.sort_values("ratio", ascending=False).iterrows():
            lines.append(f"| {r['style']} | {int(r['seat_games']):,} | {r['ratio']:.3g} |")
        lines.append("")
    lines += ["## Knobs per " + label, ""]
    for c, (_, r) in zip(result.confirmed, t.iterrows(), strict=True):
        lines += [f"### {c.faction}", ""]
        if c.best_trial == 0:
            lines += [(f"No trial beat the start style {c.start} on the search games "
                      f"({r['search_best']:.3g} x fair)."), ""]
            continue
        lines += [(f"Best trial {c.best_trial} of {settings.trials}: {r['search_best']:.3g} "
                  f"x fair on the search games; confirmed {fmt_ratio(r['best'], r['best_low'], r['best_high'])} "
                  f"against {fmt_ratio(r['default'], r['default_low'], r['default_high'])}."),
                  "", "| knob | " + c.start + " | best response |", "|---|---|---|"]
        lines += [f"| {k} | {a} | {b} |" for k, a, b in knob_changes(c, bot_data)]
        lines += ["", ("Style block (paste under `styles:` of the ruleset's bots.yaml, or "
                  "of a faction bots file; `styles.yaml` holds them all):"), "", "```yaml",
                  style_block(f"{slug(c.faction)}_br", c.best_knobs, bot_data,
                              doc=_doc(c.faction, r, info), indent=2), "```", ""]
    return "\n".join(lines) + "\n"


def method_paragraphs(settings: Settings, info: dict) -> list[str]:
    """The method in prose (shared by markdown and HTML)."""
    label = info["faction_label"]
    return [
        (f"Every seat that plays the {label} plays one style (scenario key `faction_bots`); "
        "the rest of the field is the scenario's. A seat's own bot is drawn first and then "
        "replaced, so every variant plays the same deals and dice."),
        (f"The search plays the scenario as it is from game 0 of seed {info['seed']} until "
        f"every {label} of its field sits in {settings.games:,} games "
        f"({info['search_pass_games']:,} games), and searches each one on its first "
        f"{settings.games:,}; each trial's value is "
        f"`win_ratio[{info['faction_column']}=...]`. The best "
        "trial is then played with the start style's default knobs on fresh games of "
        f"seed {info['confirm_seed']} ({info['confirm_games']:,} per {label}); the values "
        "there are free of the search's selection (the best of many noisy trials is "
        "optimistic on its own games)."),
    ] + (_coop_verdicts(settings, info) if info.get("cooperative") else [
        (f"Columns: *in the field*: the {label}'s seats play the scenario's own bots (a "
         "mix of styles, as `deepsim run` plays them), on the search pass; *start style "
         f"(default knobs)*: every seat of the {label} plays the start style with its "
         "bots.yaml knobs; *best response*: the best knobs found. Each ratio carries the "
         "viability verdict of every balance table (" + V.rule_text(
             V.Lines(min_ratio=settings.min_ratio, max_ratio=settings.max_ratio),
             markdown=True, holm=False) + ")."),
        (f"Verdicts: *{NOT_VIABLE_ANY}*: the best response's and the default knobs' "
         f"intervals both end below {settings.min_ratio:g}; *{NOT_VIABLE_BOT}*: the default "
         f"knobs' ends below {settings.min_ratio:g}, the best response's starts at or above "
         f"it; *{TOO_STRONG_ANY}*: both start above {settings.max_ratio:g}; "
         f"*{TOO_STRONG_BEST}*: the best response's starts above {settings.max_ratio:g}, the "
         f"default knobs' does not; *{VIABLE_ANY}*: both lie within "
         f"[{settings.min_ratio:g}, {settings.max_ratio:g}]; otherwise *inconclusive* (the "
         "wider interval's width is given: more games narrow it)."),
    ]) + [
        ("A best response found here is a lower bound on the best play: the search moves "
        "only the knobs of one bot style within the bounds of the ruleset's bots.yaml."),
    ]


def _coop_verdicts(settings: Settings, info: dict) -> list[str]:
    """The columns and verdicts paragraphs of a co-operative game (party words)."""
    label = info["faction_label"]
    t, b = 100 * info["target"], 100 * settings.coop_band
    return [
        (f"A co-operative game: every seat's win is the party's result and its fair share "
         f"the designer's target ({t:g}%), so each number is the party's win rate in the "
         f"games where the {label} sits over the target (x target). Columns: *in the "
         f"field*: the {label}'s seats play the scenario's own bots; *start style (default "
         f"knobs)*: every seat of the {label} plays the start style with its bots.yaml "
         "knobs; *best response*: the best knobs found. Each carries the party's verdict "
         f"(as the report's headline): *too easy* / *too hard* when the rate's 95% interval "
         f"lies wholly above / below {t:g} +- {b:g} pts (`--coop-band`, the report's "
         "`coop.band`), *on target* inside it, else *unclear*."),
        (f"Verdicts: *{TOO_HARD_ANY}*: the default knobs' and the best response's are "
         f"both too hard; *{TOO_HARD_BOT}*: the default knobs' is too hard, the best "
         f"response's interval starts at or above {t - b:g}%; *{TOO_EASY_ANY}*: both too "
         f"easy; *{TOO_EASY_BEST}*: the best response's only; *{ON_TARGET_ANY}*: both on "
         "target; otherwise *unclear* (the wider interval's width is given, x target)."),
    ]


def _p(p: float) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3g}"


def _verdict_text(r: pd.Series) -> str:
    if r["verdict"] in ("inconclusive", "unclear") and not math.isnan(r["width"]):
        return f"{r['verdict']} (width {r['width']:.3g})"
    return str(r["verdict"])


# --- HTML -----------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:1.5em auto;padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.85em}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code,pre{background:#f3f3f3}pre{padding:.5em;overflow-x:auto}
img{max-width:100%;height:auto;border:1px solid #eee}
"""


def _inline(text: str) -> str:
    s = html.escape(str(text), quote=False)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)
    return s


def to_html(md: str, png: bytes | None, png_name: str = "respond.png") -> str:
    """respond.md as one self-contained HTML page (the plot embedded as a data URI).

    Reads the markdown this module writes: headings, bullet lists, pipe tables, fenced
    code blocks, images and paragraphs.
    """
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">']
    body: list[str] = []
    lines = md.splitlines()
    i = 0
    title = "deepsim respond"
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body.append("<pre>" + html.escape("\n".join(lines[i + 1:j])) + "</pre>")
            i = j + 1
            continue
        m = re.match(r"^(#{1,3}) (.*)$", ln)
        if m:
            level = len(m.group(1))
            if level == 1:
                title = m.group(2)
            body.append(f"<h{level}>{_inline(m.group(2))}</h{level}>")
        elif ln.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            cells = [[c.strip() for c in re.split(r"(?<!\\)\|", r)[1:-1]] for r in rows]
            table = ["<table>", "<tr>" + "".join(f"<th>{_inline(c)}</th>" for c in cells[0])
                     + "</tr>"]
            table += ["<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>"
                      for r in cells[2:]]
            body.append("\n".join(table + ["</table>"]))
            continue
        elif ln.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            body.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif ln.startswith("![") and png is not None and png_name in ln:
            data = base64.b64encode(png).decode("ascii")
            body.append(f'<p><img src="data:image/png;base64,{data}" alt="before and '
                        'after"></p>')
        elif ln.strip():
            body.append(f"<p>{_inline(ln)}</p>")
        i += 1
    out += [f"<title>{html.escape(title)}</title>", f"<style>{_CSS}</style>", "</head>",
            "<body>"] + body + ["</body>", "</html>"]
    return "\n".join(out) + "\n"
