"""Build a balance report from one or more runs and write it to disk.

``deepsim report RUN_DIR [RUN_DIR ...]`` (:func:`deepsim.reporting.report_runs`) loads the
runs with their ruleset and calls :func:`build_report`. The first run is the *primary* one: every section describes it. Which sections there are, which claims are
measured and what the other runs are used for is the ruleset's (its report hooks,
:class:`deepsim.rulesets.base.Ruleset`); by default the shared sections
(:mod:`deepsim.report.sections`), no claims, and the other runs shown side by side.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from deepsim.atomic import atomic_write_json
from deepsim.errors import InputError
from deepsim.report.config import ReportConfig
from deepsim.report.context import Context
from deepsim.report.load import RunData
from deepsim.report.model import Report, Section, Table
from deepsim.report.render import claim_details, claims_table, to_html, to_markdown
from deepsim.report.sections import footer, headline, language_table, method_settings

__all__ = ["FORMATS", "REPORT_DIR", "build_report", "parse_formats", "write_report"]

FORMATS = ("md", "html")
REPORT_DIR = "report"

#: the Method section's account of the shared numbers (a ruleset may give its own)
METHOD = (
    "Intervals are 95% (1 - alpha). Shares: Wilson score intervals (statsmodels "
    "`proportion_confint`); over/under tests: exact one-sided binomial tests (scipy "
    "`binomtest`) of the rounded win count against the fair share, Holm-corrected "
    "(statsmodels `multipletests`); means: t intervals (statsmodels `DescrStatsW`); "
    "differences of two shares: statsmodels `confint_proportions_2indep`. Seats of one "
    "game are not independent (one winner per game); with many games this makes the "
    "per-seat intervals slightly conservative or liberal, not wrong in direction.")


def _method(ctx: Context) -> Section:
    s = Section("method", "Method")
    s.paragraphs.append(ctx.rs.method_text(ctx) or METHOD)
    s.paragraphs.append("Settings (change with `deepsim report ... --option KEY=VALUE`):")
    s.tables.append(method_settings(ctx))
    s.tables.append(language_table(ctx))
    return s


def _roles(ctx: Context) -> list[str]:
    own = ctx.rs.report_roles(ctx)
    if own is not None:
        return own
    labels = ctx.run_labels()
    roles = []
    for run, label in zip(ctx.others, labels[1:], strict=True):
        diff = ctx.diff_paths(run)
        roles.append(f"side-by-side comparison ({label})" if diff else
                     f"side-by-side comparison ({label}; same rules)")
    return roles


def _sections(ctx: Context) -> list[Section]:
    """The ruleset's sections; one that needs a column the run lacks (``KeyError``) is
    kept as a section that says so."""
    foot = footer(ctx.primary)
    out: list[Section] = []
    for key, title, build in ctx.rs.report_sections(ctx):
        try:
            made = build(ctx, foot)
        except KeyError as exc:
            out.append(Section(key, title, missing=str(exc).strip("'\"")))
            continue
        out += made if isinstance(made, list) else [made]
    return out


def build_report(runs: Sequence[RunData], config: ReportConfig | None = None) -> Report:
    """Compute every section and the claims for ``runs`` (the first is the primary).

    Raises
    ------
    InputError
        No run given, or the runs' ruleset is not installed.
    """
    t0 = time.perf_counter()
    if not runs:
        raise InputError("no run directory given")
    ctx = Context(runs[0], list(runs[1:]), config)
    sections = _sections(ctx)
    results = list(ctx.rs.report_claims(ctx))
    if results:
        claims = Section("claims", ctx.rs.claims_title)
        claims.paragraphs.append(
            "Each rulebook claim, the numbers that test it and a verdict: **holds** (the 95% "
            "interval lies inside what the claim asserts), **fails** (entirely outside), "
            "**inconclusive** (straddles the border at this sample size) or **not measured** "
            "(the runs given cannot measure it; the details say which run is needed). The "
            "thresholds are in the Method section.")
        claims.tables.append(Table("", claims_table(results)))
        details = Section("claim-details", "Claims: definitions, rule readings and notes",
                          paragraphs=claim_details(results))
        # the answer first: the headline, then the win shares (DEEPFALL: the heatmap), then
        # the claims and the rest
        sections = [*sections[:1], claims, details, *sections[1:]]
    if ctx.rs.cooperative:       # one result per game, the party's: its own headline
        from deepsim.report.partysections import headline as party_headline
        sections = [party_headline(ctx), *sections]
    else:
        sections = [headline(ctx), *sections]
    r = ctx.primary
    report = Report(
        title=f"Balance report: {r.scenario_name} ({r.manifest.get('ruleset', '?')})",
        primary=r, others=ctx.others, config=ctx.config,
        sections=[*sections, _method(ctx)], claims=results, roles=_roles(ctx),
        created_utc=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"))
    report.elapsed_s = time.perf_counter() - t0
    return report


def summary_json(report: Report) -> dict:
    """Machine-readable summary: the runs (identity, placeholders) and the claims."""
    def run_obj(run: RunData) -> dict:
        return {"path": str(run.path), "scenario_name": run.scenario_name, "seed": run.seed,
                "games": run.n_games, "status": run.status, "params_hash": run.params_hash,
                "overrides": run.overrides, "placeholders": run.placeholders,
                "skipped_rules": run.skipped_rules}
    return {
        "title": report.title, "created_utc": report.created_utc,
        "run": run_obj(report.primary),
        "other_runs": [{**run_obj(o), "used_for": role}
                       for o, role in zip(report.others, report.roles, strict=False)],
        "config": {k: v for k, v, _ in report.config.rows()},
        "sections": [{"key": s.key, "title": s.title, "missing": s.missing}
                     for s in report.sections],
        "claims": [{"id": c.claim.id, "section": c.claim.section, "text": c.claim.text,
                    "verdict": c.verdict, "interpretation": c.interpretation,
                    "parts": [{"label": p.label, "measured": p.measured,
                               "interval": p.interval, "verdict": p.verdict, "run": p.run,
                               "note": p.note} for p in c.parts]}
                   for c in report.claims],
    }


def write_report(report: Report, out_dir: Path | str,
                 formats: Sequence[str] = FORMATS) -> list[Path]:
    """Write ``report.md`` / ``report.html``, the PNGs and ``report.json`` into ``out_dir``.

    Returns
    -------
    list of Path
        The files written (report files first).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if "md" in formats:
        p = out / "report.md"
        p.write_text(to_markdown(report), encoding="utf-8")
        written.append(p)
    if "html" in formats:
        p = out / "report.html"
        p.write_text(to_html(report), encoding="utf-8")
        written.append(p)
    p = out / "report.json"
    atomic_write_json(p, summary_json(report))
    written.append(p)
    for f in report.figures:
        p = out / f.name
        p.write_bytes(f.png)
        written.append(p)
    return written


def parse_formats(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"md,html"`` -> ``("md", "html")``; refuses unknown formats."""
    items = text.split(",") if isinstance(text, str) else list(text)
    fmts = tuple(dict.fromkeys(i.strip().lower() for i in items if i.strip()))
    bad = [f for f in fmts if f not in FORMATS]
    if bad or not fmts:
        raise InputError(f"unknown report format(s) {', '.join(bad) or '(none)'}; choose from "
                         f"{', '.join(FORMATS)}", key="--format")
    return fmts
