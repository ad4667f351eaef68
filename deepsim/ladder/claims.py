"""The ruleset's rulebook claims measured at every rung of a ladder (``deepsim ladder
--runs DIR`` keeps each rung's field as a run directory).

Per claim (the ruleset's ``report_claims``, measured on each rung's run alone, as the
balance report measures a run) its verdict at each rung, and two flags:

- **depends on play skill**: definite verdicts (holds / fails) that differ somewhere along
  the ladder;
- **not settled by this ladder**: the two strongest rungs that measure it do not agree
  on a definite verdict (they differ, or either is inconclusive). A rung that cannot
  measure the claim (e.g. a claim about a named bot style the rung does not play) is left
  out; a claim neither of the two strongest rungs measures is not flagged (the runs
  cannot say).

Parts that need runs of their own (a rule variant, 2-player matchups) are not measured
here: the rungs' fields are the ladder scenario's. Shared code: it names no game.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from deepsim.ladder import NOT_SETTLED
from deepsim.report.config import ReportConfig
from deepsim.report.context import Context
from deepsim.report.model import Section, Table
from deepsim.report.verdicts import FAILS, HOLDS, INCONCLUSIVE, NOT_MEASURED
from deepsim.reporting import load_run

__all__ = ["FLIP", "before_after_table", "claims_by_rung", "claims_frame", "claims_sections",
           "flags", "runs_base", "short_frame"]

FLIP = "depends on play skill"
_SHORT = {HOLDS: "holds", FAILS: "fails", INCONCLUSIVE: "?", NOT_MEASURED: "-"}


def _word(verdict: str) -> str:
    v = str(verdict)
    for w in (HOLDS, FAILS, INCONCLUSIVE):
        if v.startswith(w):
            return w
    return NOT_MEASURED


def flags(verdicts: list[str]) -> list[str]:
    """The flags of one claim from its verdicts along the ladder (weakest first):
    :data:`FLIP` and/or :data:`NOT_SETTLED` (see the module's docstring)."""
    words = [_word(v) for v in verdicts]
    definite = {w for w in words if w in (HOLDS, FAILS)}
    out = []
    if len(definite) > 1:
        out.append(FLIP)
    top = [w for w in words[-2:] if w != NOT_MEASURED]
    if top and (INCONCLUSIVE in top or len(set(top)) > 1):
        out.append(NOT_SETTLED)
    return out


def runs_base(result) -> Path:
    """The folder of a ladder's rung runs (``runs_dir`` of ladder.json; a relative one
    from the working folder, else from the ladder's folder)."""
    base = Path(result.info["runs_dir"])
    if not base.is_absolute() and not base.exists():
        base = result.out_dir / base
    return base


def claims_by_rung(result) -> dict[str, list]:
    """``{rung label: [ClaimResult, ...]}``: each rung's run reported alone.

    Raises
    ------
    InputError
        A rung's run directory missing or unreadable.
    """

    base = runs_base(result)
    out = {}
    for rung, name in zip(result.rungs, result.info["rung_runs"], strict=True):
        run = load_run(base / name)
        config = ReportConfig.for_ruleset(run.rs.report_options)
        ctx = Context(run, [], config)
        out[rung.label] = list(run.rs.report_claims(ctx))
    return out


def claims_frame(by_rung: dict[str, list]) -> pd.DataFrame:
    """One row per claim: ``claim``, ``text``, its verdict at each rung (columns named by
    the rungs, in ladder order) and ``flags`` (a list)."""
    order = list(by_rung)
    if not order or not by_rung[order[0]]:
        return pd.DataFrame(columns=["claim", "text", *order, "flags"])
    rows = []
    for c in by_rung[order[0]]:
        cid = c.claim.id
        verdicts = []
        for label in order:
            m = next((x for x in by_rung[label] if x.claim.id == cid), None)
            verdicts.append(m.verdict if m is not None else NOT_MEASURED)
        rows.append({"claim": cid, "text": c.claim.text, **dict(zip(order, verdicts,
                                                                     strict=True)),
                     "flags": flags(verdicts)})
    return pd.DataFrame(rows)


def _short(verdict: str) -> str:
    w = _word(verdict)
    return _SHORT[w] + ("*" if w != NOT_MEASURED and "not measured" in str(verdict) else "")


def claims_sections(result, by_rung: dict[str, list] | None = None) -> list[Section]:
    """The sections "Claims per rung" (the verdict table, 80 columns) and "Claims per
    rung: what changed" (for every flagged claim, each rung's measured parts) of a ladder
    that kept its rungs' runs; none when the ruleset has no claims."""
    by_rung = claims_by_rung(result) if by_rung is None else by_rung
    df = claims_frame(by_rung)
    if df.empty:
        return []
    order = list(by_rung)
    s = Section("ladder-claims", "Claims per rung")
    n_flip = int(df["flags"].map(lambda f: FLIP in f).sum())
    n_open = int(df["flags"].map(lambda f: NOT_SETTLED in f).sum())
    games = result.info["games"]
    s.paragraphs.append(
        f"Each rulebook claim measured on each rung's field alone ({games:,} games per rung, "
        "the same deals at every rung), as the balance report measures a run. "
        f"**{FLIP}**: definite verdicts (holds / fails) differ along the ladder "
        f"({n_flip} claim(s)); **{NOT_SETTLED}**: the two strongest rungs that measure it "
        f"do not agree on a definite verdict ({n_open}). Parts that need runs of their "
        "own (a rule variant, 2-player matchups) are not measured here (* on a verdict: "
        "part not measured; -: not measured at all, e.g. a claim about a bot style the "
        "rung does not play).")
    s.tables.append(Table("Claim verdict per rung (R1 weakest)", short_frame(df)))
    d = Section("ladder-claims-parts", "Claims per rung: what changed")
    for _, r in df.iterrows():
        if not r["flags"]:
            continue
        lines = []
        for j, lab in enumerate(order):
            c = next((x for x in by_rung[lab] if x.claim.id == r["claim"]), None)
            parts = "; ".join(f"{p.label}: {p.measured} -> {p.verdict}" for p in c.parts
                              if p.verdict != NOT_MEASURED) if c is not None else ""
            lines.append(f"R{j + 1} {lab}: **{r[lab]}**" + (f" ({parts})" if parts else ""))
        d.paragraphs.append(f"**{r['claim']}** *{r['text']}* ({', '.join(r['flags'])}): "
                            + " | ".join(lines))
    return [s, d] if d.paragraphs else [s]


def short_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A :func:`claims_frame` as the table "Claim verdict per rung" prints it: ``claim``,
    ``R1``..``Rn`` (holds / fails / ? / -, * for a part not measured) and ``flag`` (the
    flags joined by ", "); the form a ladder's claims are kept in (``claims.csv``)."""
    order = [c for c in df.columns if c not in ("claim", "text", "flags")]
    rows = [[r["claim"], *[_short(r[lab]) for lab in order], ", ".join(r["flags"])]
            for _, r in df.iterrows()]
    return pd.DataFrame(rows, columns=["claim", *[f"R{j + 1}" for j in range(len(order))],
                                       "flag"])


def before_after_table(before: pd.DataFrame, after: pd.DataFrame, before_name: str,
                       after_name: str) -> Table:
    """Each claim's verdict per rung in two ladders side by side: ``before`` and ``after``
    in the form of :func:`short_frame` (columns ``claim``, ``R1``..``Rn``, ``flag``),
    rungs matched by position. A claim missing from one side shows ``-`` there."""
    rungs = [c for c in after.columns if c.startswith("R")]
    b = before.set_index("claim")
    rows = []
    for _, r in after.iterrows():
        old = b.loc[r["claim"]] if r["claim"] in b.index else None
        rows.append([r["claim"],
                     " ".join("-" if old is None or k not in old.index else str(old[k])
                              for k in rungs),
                     "" if old is None or pd.isna(old.get("flag")) else str(old["flag"]),
                     " ".join(str(r[k]) for k in rungs), r["flag"]])
    return Table("Claim verdicts per rung, before and after", pd.DataFrame(rows, columns=[
        "claim", f"{before_name}: {' '.join(rungs)}", "flag before",
        f"{after_name}: {' '.join(rungs)}", "flag after"]),
        note="Verdicts per rung, weakest first (holds / fails / ? inconclusive / - not "
             "measured; * a part not measured).")

