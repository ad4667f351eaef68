"""The ladder's report, built through the shared report model and renderers
(:mod:`deepsim.report.model`, :mod:`deepsim.report.render`): ``ladder.md`` /
``ladder.html`` with the section "Does it depend on skill?" and the plot of each
faction's verdict along the ladder (``ladder.png``, embedded in the HTML).

``deepsim report LADDER_DIR`` renders it again from a ladder's folder
(:func:`load_result`, :func:`report_ladder`). Shared code: it names no game.
"""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from deepsim.errors import InputError
from deepsim.ladder import NOT_SETTLED, LadderResult, Rung
from deepsim.report import viability as V
from deepsim.report.model import Figure, Report, Section, Table

__all__ = ["build", "is_ladder_dir", "load_result", "markdown", "plot",
           "report_ladder", "skill_section", "verdict_cells", "write_report"]

COLOURS = {V.TOO_STRONG: "#c0392b", V.VIABLE: "#27ae60", V.NOT_VIABLE: "#2c3e50",
           V.INCONCLUSIVE: "#bdc3c7"}
#: the files a ladder folder holds (``ladder.json`` marks one)
FILES = ("ladder.json", "verdicts.csv", "depth.csv")


def _r(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def _labels(result) -> list[str]:
    return [r.label for r in result.rungs]


def verdict_cells(result, sep: str = " ") -> pd.DataFrame:
    """One row per faction: at each rung (columns ``R1..Rn``, weakest first) its win share
    over fair share and its verdict, in the words of every other table
    (:mod:`deepsim.report.viability`), joined by ``sep`` (``"\\n"``: two lines, so five
    rungs fit 80 columns); and ``settled`` (``yes`` or :data:`NOT_SETTLED`)."""
    v = result.verdicts
    order = _labels(result)
    label = str(result.info["faction_label"])
    cols = [label, *[f"R{j + 1}" for j in range(len(order))], "settled"]
    rows = []
    if v.empty:
        return pd.DataFrame(rows, columns=cols)
    for f, g in v.groupby("faction", sort=True):
        by = {r.rung: r for r in g.itertuples(index=False)}
        ok = bool(g["settled"].iloc[0])
        cells = [f"{_r(by[r].ratio)}{sep}{by[r].verdict}" if r in by else "-"
                 for r in order]
        rows.append([f, *cells, "yes" if ok else NOT_SETTLED])
    return pd.DataFrame(rows, columns=cols)


def _counts(result) -> pd.DataFrame:
    v = result.verdicts
    rows = []
    for j, label in enumerate(_labels(result)):
        c = v.loc[v["rung"] == label, "verdict"].value_counts() if not v.empty else {}
        rows.append([f"R{j + 1}", label, *[int(c.get(k, 0)) for k in COLOURS]])
    return pd.DataFrame(rows, columns=["", "rung", *COLOURS])


def _depth(result) -> pd.DataFrame:
    rows = [[r.rung, r.below, f"{int(r.deals):,}", _r(r.ratio),
             f"{_r(r.ratio_low)}-{_r(r.ratio_high)}", _r(r.luck)]
            for r in result.depth.itertuples(index=False)]
    return pd.DataFrame(rows, columns=["rung", "vs", "deals", "win/fair", "95% interval",
                                       "luck"])


def skill_summary(result) -> str:
    """The section's first paragraph: how many verdicts change along the ladder and how
    many the two strongest rungs leave unsettled."""
    v = result.verdicts
    order = _labels(result)
    label = result.info["faction_label"]
    if v.empty:
        return "No games were played."
    piv = v.pivot(index="faction", columns="rung", values="verdict")[order]
    definite = piv.where(piv != "inconclusive")
    flips = piv[definite.nunique(axis=1) > 1]
    unsettled = sorted(v.loc[~v["settled"].astype(bool), "faction"].unique())
    top, second = order[-1], order[-2]
    text = (f"{len(flips)} of {len(piv)} {label} verdicts change between definite "
            f"verdicts (too strong / viable / not viable) somewhere along the ladder"
            + (f" ({', '.join(sorted(flips.index))})" if 0 < len(flips) <= 12 else "")
            + f"; {len(unsettled)} differ between the two strongest rungs ({second} and "
            f"{top}) or are inconclusive at one of them: *{NOT_SETTLED}*"
            + (f" ({', '.join(unsettled)})" if 0 < len(unsettled) <= 12 else "") + ".")
    return text


def skill_section(result) -> Section:
    """The section "Does it depend on skill?": the verdict flips along the ladder, the
    factions not settled by it, the verdict per rung (abbreviated, 80 columns), the plot,
    and skill depth and luck per rung."""
    order = _labels(result)
    label = result.info["faction_label"]
    s = Section("skill", "Does it depend on skill?")
    s.paragraphs.append(skill_summary(result))
    s.paragraphs.append("Rungs, weakest first: " + "; ".join(
        f"R{j + 1} {r}" for j, r in enumerate(order)) + ". Each cell: win share / fair "
        "share and the verdict (" + V.rule_text(V.Lines(min_ratio=result.info["min_ratio"],
                                                        max_ratio=result.info["max_ratio"],
                                                        max_rel_width=result.info[
                                                            "max_rel_width"]),
                                                markdown=True, holm=False) + ").")
    if result.verdicts.empty:
        return s
    s.figures.append(Figure("ladder.png", plot(result),
                            f"Each {label}'s verdict along the ladder (cell: win share / "
                            "fair share)"))
    s.tables.append(Table("Verdicts per rung", _counts(result)))
    if not result.depth.empty:
        s.tables.append(Table(
            "Skill depth and luck", _depth(result),
            note=(f"Each rung against the rung below, head to head: the {label} halves "
                  "swapped on the same deals; win/fair: the upper rung's wins over its "
                  "fair share, 95% interval over deals. Luck: 1 - mean^2 / mean square of "
                  "the upper rung's per-game result, the mean taken per table make-up "
                  "(1 = pure chance, 0 = pure skill).")))
    s.tables.append(Table(f"Verdict per {label} and rung", verdict_cells(result)))
    return s


def _shares_section(result) -> Section:
    label = result.info["faction_label"]
    order = _labels(result)
    s = Section("shares", f"Win share over fair share per {label} and rung")
    s.paragraphs.append(f"Per {label} and rung: win share / fair share (95% Wilson "
                        "interval) and the verdict.")
    rows = []
    v = result.verdicts
    if not v.empty:
        for f, g in v.groupby("faction", sort=True):
            by = {r.rung: r for r in g.itertuples(index=False)}
            cells = []
            for lab in order:
                r = by.get(lab)
                cells.append("-" if r is None else
                             f"{r.verdict} ({_r(r.ratio)}, {_r(r.ratio_low)}-"
                             f"{_r(r.ratio_high)})")
            rows.append([f, *cells])
    s.tables.append(Table("", pd.DataFrame(rows, columns=[label, *order])))
    return s


def check_summary(result) -> str:
    """One paragraph: in how many (faction, plain heuristic) pairs the top search rung
    beats the heuristic, and the pairs where it is weaker (:mod:`deepsim.ladder.check`)."""
    c = result.check
    info = result.info
    label = info["faction_label"]
    beats = int((c["verdict"] == "beats").sum())
    weaker = c[c["verdict"] == "weaker"]
    text = (f"The top search rung ({info.get('check_rung')}) against each plain heuristic, "
            f"per {label}, paired on the same games ({info.get('check_games'):,} a pass): "
            f"it beats the heuristic in {beats} of {len(c)} ({label}, heuristic) pairs, is "
            f"weaker in {len(weaker)}, and the rest are not shown either way at 95%.")
    if len(weaker):
        text += " Weaker: " + "; ".join(
            f"{r.faction} vs {r.heuristic} ({r.diff:+.3f})"
            for r in weaker.itertuples(index=False)) + "."
    return text


def _check_section(result) -> Section:
    label = result.info["faction_label"]
    s = Section("search-check", "Does the search rung beat every plain heuristic?")
    s.paragraphs.append(check_summary(result))
    c = result.check
    rows = [[r.faction, r.heuristic, f"{int(r.games):,}", _r(r.search_share),
             _r(r.heuristic_share),
             f"{r.diff:+.3f} ({r.diff_low:+.3f}, {r.diff_high:+.3f})", r.verdict]
            for r in c.itertuples(index=False)]
    s.tables.append(Table("", pd.DataFrame(rows, columns=[
        label, "heuristic", "games", "search", "heuristic_share", "difference (95%)",
        "verdict"]), note=(
        f"Per {label}: its seats' mean win per seat-game on the search rung (its half of "
        f"the {label}s searching, the other half on the heuristic; only games whose other "
        "seats all play the heuristic) and on the heuristic (every seat on it), the same "
        "games; the difference with a 95% normal interval over games.")))
    return s


def _method_section(result) -> Section:
    info = result.info
    label = info["faction_label"]
    s = Section("method", "Method")
    s.paragraphs.append(
        f"Every rung plays the same {info['games']:,} game indices (the same deals and dice "
        "streams: common random numbers), every seat with the rung's bots. Verdicts: the "
        f"report's viability rule (too strong: interval above {info['max_ratio']} x fair; "
        f"not viable: below {info['min_ratio']} x fair; inconclusive: wider than "
        f"{info['max_rel_width']:.0%} of fair; 95% Wilson intervals). A {label} whose "
        f"verdict differs between the two strongest rungs, or is inconclusive at either, "
        f"is marked *{NOT_SETTLED}*. Skill depth: {info['depth_games']:,} deals x 2 per "
        "head-to-head (ratio estimator, delta-method interval over deals).")
    if result.strongest:
        searched = any(str(lab).startswith("search-") for lab in _labels(result))
        s.paragraphs.append(
            f"Strongest heuristic: **{result.strongest}** (highest win share over fair share "
            "of the non-baseline styles in the scenario's own field)"
            + ("." if not searched else
               "; the search rungs search on "
               + ("each " + label + "'s own strongest heuristic in that field "
                  if info.get("search_base") in (None, "per-faction") else
                  f"the heuristic {info.get('search_base')} ")
               + "and play it in their rollouts."))
        bases = info.get("search_bases") or {}
        if searched and bases and len(set(bases.values())) > 1:
            s.tables.append(Table(f"Search base per {label}", pd.DataFrame(
                sorted(bases.items()), columns=[label, "heuristic"])))
    styles = info.get("styles")
    if styles:
        s.tables.append(Table("Styles in the scenario's own field", pd.DataFrame(
            [[x["style"], f"{int(x['seat_games']):,}", _r(x["ratio"])] for x in styles],
            columns=["style", "seat-games", "win/fair"])))
    speed = info.get("games_per_s_by_rung") or {}
    if speed:
        s.tables.append(Table("Speed per rung (wall clock)", pd.DataFrame(
            [[k, f"{v:,.1f}"] for k, v in speed.items()], columns=["rung", "games/s"])))
    return s


def _header(result) -> list[str]:
    info = result.info
    lines = [(f"Scenario `{info['scenario']}`, seed **{info['seed']}**, "
              f"**{info['games']:,}** games per rung, {info['depth_games']:,} deals x 2 per "
              "head-to-head"),
             (f"{info['games_played']:,} games in {info['wall_time_s']:.0f} s wall on "
              f"{info['threads']} thread(s)"
              + (f", {info['cpu_time_s']:.0f} s CPU" if info.get("cpu_time_s") else ""))]
    if info.get("runs_dir"):
        lines.append(f"Each rung's field kept as a run directory under `{info['runs_dir']}`")
    return lines


def build(result, extra: Sequence[Section] = ()) -> Report:
    """The ladder's :class:`~deepsim.report.model.Report`: "Does it depend on skill?",
    ``extra`` sections (e.g. the claims per rung, :mod:`deepsim.ladder.claims`), the win
    shares per faction and rung, the method."""
    t0 = time.perf_counter()
    check = [_check_section(result)] if len(result.check) else []
    sections = [skill_section(result), *check, *extra, _shares_section(result),
                _method_section(result)]
    rep = Report(title=f"Skill ladder: {result.info['scenario']}", primary=None, others=[],
                 config=None, sections=sections, claims=[],
                 created_utc=datetime.now(UTC).isoformat(timespec="seconds")
                 .replace("+00:00", "Z"), header=_header(result))
    rep.elapsed_s = time.perf_counter() - t0
    return rep


def markdown(result) -> str:
    """ladder.md (the report of :func:`build` as markdown)."""
    from deepsim.report.render import to_markdown

    return to_markdown(build(result))


def write_report(report: Report, out_dir: Path, formats: Sequence[str] = ("md", "html"),
                 stem: str = "ladder") -> list[Path]:
    """Write ``<stem>.md`` / ``<stem>.html`` and the PNGs into ``out_dir`` (each file whole
    or not at all: atomic writes). Returns the files written, reports first."""
    from deepsim.atomic import atomic_write_text
    from deepsim.report.render import to_html, to_markdown

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    if "md" in formats:
        atomic_write_text(out_dir / f"{stem}.md", to_markdown(report))
        written.append(out_dir / f"{stem}.md")
    if "html" in formats:
        atomic_write_text(out_dir / f"{stem}.html", to_html(report))
        written.append(out_dir / f"{stem}.html")
    for f in report.figures:
        tmp = out_dir / f".tmp-{f.name}"
        tmp.write_bytes(f.png)
        tmp.replace(out_dir / f.name)
        written.append(out_dir / f.name)
    return written


def is_ladder_dir(path: Path | str) -> bool:
    """Does ``path`` hold a ladder's output (``ladder.json``)? False for a path the system
    cannot even look at (too long, a symlink loop): the run-folder checks then say why."""
    try:
        return (Path(path) / "ladder.json").is_file()
    except OSError:
        return False


def load_result(path: Path | str):
    """A :class:`~deepsim.ladder.LadderResult` from a ladder's folder.

    Raises
    ------
    InputError
        A file of :data:`FILES` missing or unreadable (file and what was expected).
    """
    d = Path(path)
    for name in FILES:
        if not (d / name).is_file():
            raise InputError(f"not a ladder's folder: no {name}", file=str(d))
    try:
        info = json.loads((d / "ladder.json").read_text(encoding="utf-8"))
        verdicts = pd.read_csv(d / "verdicts.csv")
        depth = pd.read_csv(d / "depth.csv")
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the ladder: {exc}", file=str(d)) from None
    need = {"rungs", "scenario", "seed", "games", "depth_games", "faction_label",
            "games_played", "wall_time_s", "threads", "min_ratio", "max_ratio",
            "max_rel_width"}
    missing = sorted(need - set(info))
    if missing:
        raise InputError(f"ladder.json lacks {', '.join(missing)}", file=str(d / "ladder.json"))
    for name, frame, cols in (
            ("verdicts.csv", verdicts, ("faction", "rung", "seat_games", "ratio", "ratio_low",
                                        "ratio_high", "verdict", "settled")),
            ("depth.csv", depth, ("rung", "below", "deals", "ratio", "ratio_low",
                                  "ratio_high", "luck"))):
        gone = [c for c in cols if c not in frame.columns]
        if gone and not (frame.empty and len(frame.columns) == 0):
            raise InputError(f"lacks the column(s) {', '.join(gone)}; expected the columns "
                             f"{', '.join(cols)} as deepsim ladder writes them",
                             file=str(d / name))
    if not verdicts.empty:
        verdicts["settled"] = verdicts["settled"].astype(str).str.lower() == "true"
    rungs = [Rung(label, "played") for label in info["rungs"]]
    check = pd.DataFrame()
    if (d / "search_check.csv").is_file():
        try:
            check = pd.read_csv(d / "search_check.csv")
        except (OSError, ValueError):
            check = pd.DataFrame()       # an empty check (a ladder without a search rung)
    return LadderResult(rungs, info.get("strongest"), verdicts, depth, info, d, check)


def report_ladder(path: Path | str, *, out_dir: Path | str | None = None,
                  formats: Sequence[str] = ("md", "html")) -> tuple[Report, list[Path]]:
    """``deepsim report LADDER_DIR``: the ladder's report rendered again (default into the
    ladder's own folder), with the claims per rung when it kept its rungs' runs.

    Raises
    ------
    InputError
        Not a ladder's folder (see :func:`load_result`).
    """
    result = load_result(path)
    extra = []
    runs_dir = result.info.get("runs_dir")
    if runs_dir:
        from deepsim.ladder.claims import claims_sections, runs_base
        if runs_base(result).is_dir():
            extra += claims_sections(result)
        else:  # the rung runs were removed: the rest of the report stands
            extra.append(Section("ladder-claims", "Claims per rung",
                                 missing=f"the rung runs under {runs_dir} are gone"))
    rep = build(result, extra)
    target = Path(out_dir) if out_dir is not None else Path(path)
    return rep, write_report(rep, target, formats)


def plot(result) -> bytes:
    """PNG: one row per faction, one column per rung, each cell coloured by its verdict
    and labelled with win share over fair share."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    v = result.verdicts
    order = _labels(result)
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
