"""Verdicts under the shipped heuristics and under the meta field, side by side.

A balance verdict is a verdict about a game *played by some bots*. ``make findings`` and
``make atlantis-findings`` measure the same ruleset twice: with the shipped heuristics (the
scenario's bots) and with the meta field (the same scenario with ``faction_bots:`` the
styles ``deepsim meta`` found). Per rulebook claim (the ruleset's ``report_claims``) and per
faction (its ``faction_column``, the report's viability verdict) this module puts the two
verdicts side by side; a verdict that is definite under both fields and differs is marked
**depends on play skill**.

Definite verdicts: claims *holds* / *fails*; factions *too strong*, *viable* and *not
viable* (an *inconclusive* or *not measured* one is not a flip: it says the sample is
short, not that the answer changed).

The study that writes such a page from two run folders: :mod:`deepsim.studies.sidebyside`.
"""

from __future__ import annotations

import pandas as pd

from deepsim.report.build import build_report
from deepsim.report.config import ReportConfig
from deepsim.report.context import Context
from deepsim.report.load import RunData
from deepsim.report.verdicts import FAILS, HOLDS
from deepsim.respond.report import plural

__all__ = ["FLIP", "claims_frame", "factions_frame", "markdown", "side_by_side"]

FLIP = "depends on play skill"
_DEFINITE_FACTION = ("too strong", "viable", "not viable")


def _claim_word(verdict: str) -> str:
    v = str(verdict)
    return HOLDS if v.startswith(HOLDS) else FAILS if v.startswith(FAILS) else v


def claims_frame(shipped: list, meta: list) -> pd.DataFrame:
    """One row per claim: its verdict in each field and ``flip`` (both definite, differ).

    ``shipped``, ``meta``: the reports' ``claims`` (:class:`ClaimResult` lists)."""
    by_id = {c.claim.id: c for c in meta}
    rows = []
    for c in shipped:
        m = by_id.get(c.claim.id)
        a, b = _claim_word(c.verdict), _claim_word(m.verdict) if m else "not measured"
        rows.append({"claim": c.claim.id, "text": c.claim.text, "shipped": c.verdict,
                     "meta": m.verdict if m else "not measured",
                     "flip": a in (HOLDS, FAILS) and b in (HOLDS, FAILS) and a != b})
    return pd.DataFrame(rows, columns=["claim", "text", "shipped", "meta", "flip"])


def factions_frame(shipped: RunData, meta: RunData, config: ReportConfig) -> pd.DataFrame:
    """One row per faction: win share over fair share with its 95% interval and the
    report's viability verdict in each field (baseline bots left out), and ``flip``."""
    column = shipped.rs.faction_column
    tabs = []
    for run in (shipped, meta):
        t = Context(run, [], config).win_shares(column)
        tabs.append(t.set_index(t[column].astype(str))[["ratio", "ratio_low", "ratio_high",
                                                      "verdict"]])
    a, b = tabs
    out = a.add_suffix("_shipped").join(b.add_suffix("_meta"), how="outer")
    out.index.name = "faction"
    out = out.reset_index()
    out["flip"] = (out["verdict_shipped"].isin(_DEFINITE_FACTION)
                   & out["verdict_meta"].isin(_DEFINITE_FACTION)
                   & (out["verdict_shipped"] != out["verdict_meta"]))
    return out.sort_values(["ratio_shipped", "faction"], ascending=[False, True],
                           ignore_index=True)


def side_by_side(shipped: list[RunData], meta: RunData, config: ReportConfig | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims and factions frames of the shipped runs (the first is the primary; the
    others serve the claims that need them, as in the report) against the meta run."""
    config = config or ReportConfig.for_ruleset(shipped[0].rs.report_options)
    ra = build_report(shipped, config)
    rb = build_report([meta], config)
    return claims_frame(ra.claims, rb.claims), factions_frame(shipped[0], meta, config)


def _ratio(v, lo, hi) -> str:
    if pd.isna(v):
        return "-"
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def markdown(claims: pd.DataFrame, factions: pd.DataFrame, *, shipped: RunData,
             meta: RunData, label: str, level: int = 2) -> list[str]:
    """The side-by-side section as markdown lines (a heading at ``level``)."""
    h = "#" * level
    n_flip_c, n_flip_f = int(claims["flip"].sum()), int(factions["flip"].sum())
    lines = [f"{h} Shipped heuristics vs the meta field", "",
             (f"The same verdicts under two fields of players: the shipped heuristics "
              f"(`{shipped.path}`: {shipped.label}) and the meta field (`{meta.path}`: "
              f"{meta.label}; every {label} plays the styles `deepsim meta` found, "
              "`faction_bots:` of its scenario). A verdict that is definite under both and "
              f"differs is marked **{FLIP}**: {n_flip_c} claim(s) and {n_flip_f} "
              f"{plural(label) if n_flip_f != 1 else label} here. Inconclusive or not measured is not a flip (the sample "
              "or the runs given cannot say). Claims that need runs of their own (a rule "
              "variant, 2-player matchups) are measured on the shipped field only; under "
              "the meta field those parts are not measured. A claim about a named bot "
              "style reads, under the meta field, only the seats that still play that "
              "style."), ""]
    if not claims.empty:
        lines += ["| claim | shipped heuristics | meta field | |", "|---|---|---|---|"]
        for _, r in claims.iterrows():
            lines.append(f"| {r['claim']} | {r['shipped']} | {r['meta']} | "
                         f"{'**' + FLIP + '**' if r['flip'] else ''} |")
        lines.append("")
    lines += [(f"Per {label}: win share / fair share, 95% interval, the report's viability "
               "verdict (baseline bots left out)."), "",
              f"| {label} | shipped heuristics | verdict | meta field | verdict | |",
              "|---|---|---|---|---|---|"]
    for _, r in factions.iterrows():
        lines.append(
            f"| {r['faction']} | {_ratio(r['ratio_shipped'], r['ratio_low_shipped'], r['ratio_high_shipped'])} "
            f"| {r['verdict_shipped']} | "
            f"{_ratio(r['ratio_meta'], r['ratio_low_meta'], r['ratio_high_meta'])} | "
            f"{r['verdict_meta']} | {'**' + FLIP + '**' if r['flip'] else ''} |")
    lines.append("")
    return lines
