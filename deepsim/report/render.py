"""Render a :class:`~deepsim.report.model.Report` as markdown or self-contained HTML.

Markdown refers to the PNGs beside it by file name; HTML embeds them as base64 data URIs,
so ``report.html`` is one file that opens anywhere.
"""

from __future__ import annotations

import base64
import html
import re

import pandas as pd

from deepsim.report.model import Report, Section, Table
from deepsim.report.verdicts import ClaimResult

__all__ = ["claim_details", "claims_table", "compress_paths", "md_section", "run_lines", "to_html",
           "to_markdown"]

#: a cell whose text (before any " (") is a verdict gets its colour: green for a claim that
#: holds, a viable faction or a party on target; red for a claim that fails, a faction too
#: strong or not viable, a party too easy or too hard; yellow for inconclusive or unclear
VERDICT_CLASSES = {"holds": "v-holds", "fails": "v-fails", "inconclusive": "v-inc",
                   "not measured": "v-nm", "viable": "v-holds", "not viable": "v-fails",
                   "too strong": "v-fails", "on target": "v-holds", "too easy": "v-fails",
                   "too hard": "v-fails", "unclear": "v-inc",
                   "over": "v-over", "under": "v-under"}


def compress_paths(paths: list[str]) -> list[str]:
    """``lineages.a.start_bag, lineages.b.start_bag`` -> ``lineages.*.start_bag (a, b)``."""
    groups: dict[tuple[str, str], list[str]] = {}
    order: list[tuple[str, str]] = []
    for p in paths:
        parts = p.split(".")
        key = (parts[0], ".".join(parts[2:])) if len(parts) >= 3 else (p, "")
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(parts[1] if len(parts) >= 3 else "")
    out = []
    for key in order:
        mids = groups[key]
        if key[1] and len(mids) > 1:
            out.append(f"{key[0]}.*.{key[1]} ({', '.join(mids)})")
        elif key[1]:
            out.append(f"{key[0]}.{mids[0]}.{key[1]}")
        else:
            out.append(key[0])
    return out


def run_lines(report: Report) -> list[str]:
    """Bullet lines naming every run: seed, games, rules hash, placeholders, skipped rules
    (``report.header`` instead when it is set)."""
    if report.header is not None:
        return list(report.header)
    r = report.primary
    lines = [
        f"Run: `{r.path}`: scenario **{r.scenario_name}** ({r.manifest.get('ruleset', '?')}),"
        f" seed **{r.seed}**, **{r.n_games:,}** games"
        + ("" if r.status == "complete" else f" (status **{r.status}**: partial results)"),
        f"Rules hash (params_hash): `{r.params_hash}`; scenario hash "
        f"`{r.manifest.get('scenario_hash', '?')}`"
        + (f"; overrides: {', '.join('`' + o + '`' for o in r.overrides)}" if r.overrides
           else "; no overrides (rule defaults)"),
        "Placeholder data used: " + (", ".join(f"`{p}`" for p in compress_paths(r.placeholders))
                                     if r.placeholders else "none"),
    ]
    if r.safety_caps:
        lines.append("Invented safety caps (not in the rulebook; a game one stops is "
                     "unresolved): " + ", ".join(f"`{c['path']}` = {c['value']}"
                                                 for c in r.safety_caps))
    if r.skipped_rules:
        lines.append("Skipped rules: " + "; ".join(r.skipped_rules))
    versions = r.info.get("versions") or {}
    if versions:
        lines.append("Made with " + ", ".join(f"{k} {v}" for k, v in versions.items())
                     + (f"; {r.info['games_per_s']:,.0f} games/s" if r.info.get("games_per_s")
                        else ""))
    for other, role in zip(report.others, report.roles, strict=False):
        lines.append(f"Also read: `{other.path}`: {other.label}; placeholders "
                     + (", ".join(f"`{p}`" for p in compress_paths(other.placeholders))
                        or "none") + f". Used for: {role}")
    return lines


def claims_table(results: list[ClaimResult]) -> pd.DataFrame:
    """One row per claim part: Claim, Part, Measured, 95% interval, Verdict (and Reading,
    the keys of the readings a part is a conjunct of, when a claim has several)."""
    rows = []
    readings = any(res.readings for res in results)
    for res in results:
        for i, part in enumerate(res.parts):
            row = {"Claim": f"{res.claim.id}: {res.verdict}" if i == 0 else "",
                   "Part": part.label, "Measured": part.measured,
                   "95% interval": part.interval, "Verdict": part.verdict}
            if readings:
                row["Reading"] = (", ".join(part.readings) if part.readings else
                                  ("all" if res.readings else ""))
            rows.append(row)
    cols = ["Claim", *(["Reading"] if readings else []), "Part", "Measured", "95% interval",
            "Verdict"]
    return pd.DataFrame(rows, columns=cols)


def claim_details(results: list[ClaimResult]) -> list[str]:
    """One paragraph per claim: what it says, how measured, interpretation, the verdict of
    each reading, notes."""
    out = []
    for res in results:
        c = res.claim
        notes = " ".join(f"*{p.label}*: {p.note}." for p in res.parts if p.note)
        runs = sorted({p.run for p in res.parts if p.run})
        per = ""
        if res.readings:
            rv = res.reading_verdicts()
            per = "Verdict per reading: " + "; ".join(
                f"{k} ({res.readings[k]}): **{v}**" for k, v in rv.items()) + ". "
            per += "".join(f"{k}: {why}. " for k, why in res.untestable.items())
        out.append(f"**{c.id}** ({c.section}) {c.text} Verdict: **{res.verdict}**. "
                   + per + f"Measured: {c.measure} Rule reading: "
                   f"{res.interpretation or '-'}. "
                   + (f"Run(s): {'; '.join(runs)}. " if runs else "") + notes)
    return out


# --- markdown -------------------------------------------------------------------------------

def _md_cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _md_table(t: Table) -> list[str]:
    lines = [f"**{t.caption}**", ""] if t.caption else []
    df = t.frame
    lines.append("| " + " | ".join(_md_cell(c) for c in df.columns) + " |")
    lines.append("|" + "|".join("---" for _ in df.columns) + "|")
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
    if t.note:
        lines += ["", t.note]
    return lines + [""]


def md_section(s: Section, image_prefix: str, level: int = 2) -> list[str]:
    lines = [f"{'#' * level} {s.title}", ""]
    if s.missing:
        return lines + [f"Not available for this run: {s.missing}.", ""]
    for p in s.paragraphs:
        lines += [p, ""]
    for f in s.figures:
        lines += [f"![{f.caption}]({image_prefix}{f.name})", "", f"*{f.caption}*", ""]
    for t in s.tables:
        lines += _md_table(t)
    return lines


def to_markdown(report: Report, image_prefix: str = "") -> str:
    """The report as GitHub-flavoured markdown; images are ``image_prefix + name``."""
    lines = [f"# {report.title}", ""]
    lines += [f"- {line}" for line in run_lines(report)] + [""]
    lines += ["Contents: " + " | ".join(f"[{s.title}](#{_anchor(s.title)})"
                                        for s in report.sections), ""]
    for s in report.sections:
        lines += md_section(s, image_prefix)
    lines.append(f"*Generated {report.created_utc} in {report.elapsed_s:.1f} s.*")
    return "\n".join(lines) + "\n"


def _anchor(title: str) -> str:
    a = re.sub(r"[^\w\- ]", "", title.lower()).strip()
    return re.sub(r"\s", "-", a)


# --- HTML -----------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;
margin:1.5em auto;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.85em}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}
td.v-holds{background:#d9f2d9!important}td.v-fails{background:#f7d4d4!important}
td.v-inc{background:#fff2cc!important}td.v-nm{background:#eee!important;color:#666}
td.v-over{color:#a02020;font-weight:600}td.v-under{color:#2050a0;font-weight:600}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}code{background:#f3f3f3;padding:0 .2em}
.matrix td,.matrix th{padding:.1em .25em;font-size:.8em;text-align:right}
.runs li{margin:.2em 0}nav a{margin-right:.8em}
"""


def _inline(text: str) -> str:
    """Escape, then `code`, **bold** and *italic* to HTML."""
    s = html.escape(str(text), quote=False)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)
    return s


def _html_table(t: Table, css_class: str = "") -> list[str]:
    cls = f' class="{css_class}"' if css_class else ""
    out = [f"<table{cls}>"]
    if t.caption:
        out.append(f"<caption>{_inline(t.caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(c))}</th>"
                                       for c in t.frame.columns) + "</tr></thead>")
    out.append("<tbody>")
    for row in t.frame.itertuples(index=False):
        cells = []
        for v in row:
            text = str(v)
            vc = VERDICT_CLASSES.get(text.split(" (")[0].strip())
            attr = f' class="{vc}"' if vc else ""
            cells.append(f"<td{attr}>{_inline(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if t.note:
        out.append(f"<p>{_inline(t.note)}</p>")
    return out


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (PNGs embedded as data URIs)."""
    title = html.escape(report.title)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{title}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f"<h1>{title}</h1>", '<ul class="runs">']
    out += [f"<li>{_inline(line)}</li>" for line in run_lines(report)]
    out.append("</ul>")
    out.append("<nav>" + "".join(f'<a href="#{s.key}">{html.escape(s.title)}</a>'
                                 for s in report.sections) + "</nav>")
    for s in report.sections:
        out.append(f'<section id="{s.key}">')
        out.append(f"<h2>{html.escape(s.title)}</h2>")
        if s.missing:
            out.append(f"<p>Not available for this run: {_inline(s.missing)}.</p>")
            out.append("</section>")
            continue
        out += [f"<p>{_inline(p)}</p>" for p in s.paragraphs]
        for f in s.figures:
            data = base64.b64encode(f.png).decode("ascii")
            out.append(f'<figure><img src="data:image/png;base64,{data}" '
                       f'alt="{html.escape(f.caption)}"><figcaption>{_inline(f.caption)}'
                       f"</figcaption></figure>")
        for t in s.tables:
            out += _html_table(t, "matrix" if s.key == "matchups" and
                               t.caption.startswith("Matchup") else "")
        out.append("</section>")
    out.append(f"<p><em>Generated {html.escape(report.created_utc)} in "
               f"{report.elapsed_s:.1f} s.</em></p>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"

