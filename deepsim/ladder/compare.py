"""Two ladders of one scenario side by side: what changed when the bots changed.

A ladder played again after its bots changed (a stronger search, a new heuristic) answers
"did the verdicts move?" only on the same deals: both ladders play game indices
0..games-1 of the same seed, so when the later ladder played at least as many games and
kept its rungs' runs, its first ``games`` games are the earlier ladder's deals exactly and
:func:`verdicts_at` gives its verdicts at the earlier budget (a paired comparison in
which only the bots differ). :func:`compare_section` puts the counts side by side: the
verdicts that change between definite verdicts along the ladder, the factions not settled
by it, the verdicts per rung, the skill depth, and the factions whose top-rung verdict or
settledness moved. Rungs are matched by position (R1 weakest). Shared code: it names no
game.
"""

from __future__ import annotations

import math

import pandas as pd

from deepsim.errors import InputError
from deepsim.ladder import verdict_table
from deepsim.report import viability as V
from deepsim.report.model import Section, Table

__all__ = ["compare_section", "flips_and_unsettled", "verdicts_at"]


def flips_and_unsettled(verdicts: pd.DataFrame, order: list[str]
                        ) -> tuple[list[str], list[str]]:
    """The factions whose verdict changes between definite verdicts (too strong / viable /
    not viable) somewhere along the rungs ``order``, and those not settled (the column
    ``settled`` of :func:`deepsim.ladder.verdict_table` False), each sorted."""
    if verdicts.empty:
        return [], []
    piv = verdicts.pivot(index="faction", columns="rung", values="verdict")[order]
    definite = piv.where(piv != V.INCONCLUSIVE)
    flips = sorted(map(str, piv.index[definite.nunique(axis=1) > 1]))
    unsettled = sorted(map(str, verdicts.loc[~verdicts["settled"].astype(bool),
                                             "faction"].unique()))
    return flips, unsettled


def verdicts_at(result, games: int) -> pd.DataFrame:
    """The verdict table (:func:`deepsim.ladder.verdict_table`) of a ladder that kept its
    rungs' runs, from the games with index below ``games`` only (the deals a ladder of
    ``games`` games per rung on the same seed plays).

    Raises
    ------
    InputError
        The ladder kept no rung runs, played fewer than ``games`` games per rung, or a
        rung's run is missing.
    """
    from deepsim.ladder.claims import runs_base
    from deepsim.output import read_run

    info = result.info
    if not info.get("runs_dir") or not info.get("rung_runs"):
        raise InputError("the ladder kept no rung runs: its verdicts at fewer games need "
                         "`deepsim ladder --runs DIR`", file=str(result.out_dir))
    if int(info["games"]) < games:
        raise InputError(f"the ladder played {info['games']:,} games per rung, fewer than "
                         f"{games:,}", file=str(result.out_dir))
    column = str(info["faction_column"])
    base = runs_base(result)
    per_rung = {}
    for rung, name in zip(result.rungs, info["rung_runs"], strict=True):
        _g, s = read_run(base / name, games_columns=[],
                         seats_columns=[column, "game", "players", "win", "fair"],
                         require_complete=True)
        s = s[s["game"] < games]
        per_rung[rung.label] = V.table(s, column, V.Lines(
            min_ratio=info["min_ratio"], max_ratio=info["max_ratio"],
            max_rel_width=info["max_rel_width"]))
    return verdict_table(per_rung, column)


def _plural(label: str) -> str:
    return label[:-1] + "ies" if label.endswith("y") and label[-2:-1] not in "aeiou" \
        else label + "s"


def _counts(verdicts: pd.DataFrame, label: str) -> str:
    v = verdicts.loc[verdicts["rung"] == label, "verdict"].value_counts()
    return " / ".join(str(int(v.get(k, 0))) for k in (V.TOO_STRONG, V.VIABLE, V.NOT_VIABLE,
                                                       V.INCONCLUSIVE))


def _ratio(r) -> str:
    return "-" if r is None or math.isnan(r) else f"{r:.2f}"


def _depth(depth: pd.DataFrame, j: int) -> str:
    if depth.empty or j - 1 >= len(depth):
        return "-"
    r = depth.iloc[j - 1]
    return f"{_ratio(r['ratio'])} ({_ratio(r['ratio_low'])}-{_ratio(r['ratio_high'])})"


def compare_section(before, after, *, before_label: str, after_label: str) -> Section:
    """The section "Before and after": ``before`` and ``after``
    (:class:`~deepsim.ladder.LadderResult`, the same scenario, seed and number of rungs)
    side by side, and ``after`` at ``before``'s budget on the same deals when it kept its
    rungs' runs and played at least as many games (:func:`verdicts_at`).

    ``before_label`` / ``after_label``: what differs between the two (e.g. the search's
    version), printed in the section.

    Raises
    ------
    InputError
        The ladders differ in scenario, seed or number of rungs.
    """
    bi, ai = before.info, after.info
    for key in ("scenario", "seed"):
        if str(bi[key]) != str(ai[key]):
            raise InputError(f"the ladders differ in {key}: {bi[key]} before, {ai[key]} "
                             "after", key="--ladder-before")
    if len(before.rungs) != len(after.rungs):
        raise InputError(f"the ladders have {len(before.rungs)} and {len(after.rungs)} "
                         "rungs", key="--ladder-before")
    label = str(ai["faction_label"])
    nb, na = int(bi["games"]), int(ai["games"])
    b_order = [r.label for r in before.rungs]
    a_order = [r.label for r in after.rungs]
    cols = [(f"before ({nb:,} games)", before.verdicts, b_order, before.depth)]
    paired = None
    if na > nb and ai.get("runs_dir"):
        paired = verdicts_at(after, nb)
        cols.append((f"after, its first {nb:,} games", paired, a_order, pd.DataFrame()))
    elif na == nb:
        paired = after.verdicts
    cols.append((f"after ({na:,} games)", after.verdicts, a_order, after.depth))

    s = Section("ladder-before-after", "Before and after")
    s.paragraphs.append(
        f"Before: {before_label} ({nb:,} games per rung). After: {after_label} ({na:,} "
        f"games per rung). Both play scenario `{ai['scenario']}` from seed {ai['seed']}, "
        "game indices from 0, so "
        + (f"the after ladder's first {nb:,} games are the before ladder's deals exactly: "
           "in that column only the bots changed (a rung whose bots did not change gives "
           "the before column's verdicts there)." if paired is not None else
           "the two differ in budget as well as in bots.")
        + f" Rungs are matched by position (R1 weakest). Verdicts per rung: too strong / "
        f"viable / not viable / inconclusive {_plural(label)}.")
    rows = []
    lists = []
    for name, verdicts, order, _d in cols:
        lists.append(flips_and_unsettled(verdicts, order))
    rows.append(["verdicts changing between definite verdicts along the ladder",
                 *[str(len(f)) for f, _u in lists]])
    rows.append([f"{_plural(label)} not settled by this ladder", *[str(len(u)) for _f, u in lists]])
    for j, lab in enumerate(a_order):
        rows.append([f"R{j + 1} {lab}: verdicts",
                     *[_counts(v, order[j]) for _n, v, order, _d in cols]])
    for j in range(1, len(a_order)):
        rows.append([f"skill depth R{j + 1} vs R{j}: win / fair (95%)",
                     *[_depth(d, j) for _n, _v, _o, d in cols]])
    s.tables.append(Table("Before and after", pd.DataFrame(
        rows, columns=["", *[c[0] for c in cols]]),
        note="Skill depth: each rung against the rung below head to head (- : not played "
             "in that ladder, or not at that budget)."))
    # the factions whose top-rung verdict or settledness moved
    tops = [(v, order[-1]) for _n, v, order, _d in cols]
    by = [{r.faction: r for r in v[v["rung"] == top].itertuples(index=False)}
          for v, top in tops]
    moved = []
    for f in sorted(by[0]):
        cells = [by_k.get(f) for by_k in by]
        if any(c is None for c in cells):
            continue
        keys = {(c.verdict, bool(c.settled)) for c in cells}
        if len(keys) > 1:
            moved.append([f, *[f"{_ratio(c.ratio)} {c.verdict}"
                               + ("" if c.settled else " (not settled)") for c in cells]])
    if moved:
        s.tables.append(Table(
            f"{_plural(label).capitalize()} whose top-rung verdict or settledness moved",
            pd.DataFrame(moved, columns=[label, *[c[0] for c in cols]]),
            note="Cell: win share / fair share at the top rung and its verdict."))
    else:
        s.paragraphs.append(f"No {label}'s top-rung verdict or settledness moved.")
    return s
