"""FINDINGS' section "The smallest fix to the printed numbers" from a finished
``deepsim balance`` folder::

    python -m deepsim.studies.balance_findings reports/balance/deepfall \\
        [--replace reports/FINDINGS.md]

prints the section, or puts it in place of the section of that title in an existing
FINDINGS.md (only that section: from its heading to the next ``## `` heading), or, when
there is none, before "## Win share per company, Lineage and Calling" (else at the end).
The other sections of FINDINGS.md (written by ``make findings`` and the reconstruction's and
the ladder's own writers) are left as they are. What it reads: the folder's
``balance.json`` (the command, the answer, times), ``before_after.parquet`` (per company,
before and after on the confirmation games) and ``trials.parquet`` (the front of changes
against violation).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from deepsim.errors import InputError

__all__ = ["HEADING", "main", "section_md", "splice"]

HEADING = "## The smallest fix to the printed numbers (deepsim balance)"
#: the section goes before this one when FINDINGS.md has none yet
ANCHOR = "## Win share per company, Lineage and Calling"


def _command(info: dict) -> str:
    """The ``deepsim balance`` command line a folder's settings stand for."""
    a, b = info["args"], info["args"]["budget"]
    parts = [f"deepsim balance {a['scenario']}"]
    parts += [f"--levers '{lv}'" for lv in a["levers"]]
    if a.get("target", "verdicts") != "verdicts":
        parts.append(f"--target {a['target']}")
    parts += [f"--require '{r}'" for r in a.get("require") or []]
    parts += [f"-k {b['max_changes']}", f"--games {info['games']}", f"--trials {b['trials']}",
              f"--grid-max {b['grid_max']}", f"--confirm {b['confirm']}",
              f"--confirm-games {info['confirm_games']}",
              f"--respond-trials {b['respond_trials']}",
              f"--respond-games {b['respond_games']}"]
    return " ".join(parts)


def _front(trials: pd.DataFrame, levers: list[dict]) -> list[str]:
    from deepsim.tune.grid import format_value

    t = trials[trials["error"] == ""] if "error" in trials else trials
    if t.empty:
        return []
    best = t.sort_values(["n_changed", "violation", "size", "trial"]).groupby(
        "n_changed", as_index=False).first()
    out = ["| numbers changed | the search's best change | violation (search games) | worst |",
           "|---|---|---|---|"]
    for _, r in best.iterrows():
        change = "; ".join(
            f"`{lv['path']}` {format_value(lv['default'])} -> {format_value(r[lv['path']])}"
            for lv in levers if format_value(r[lv["path"]]) != format_value(lv["default"]))
        out.append(f"| {int(r['n_changed'])} | {change or 'the defaults'} | "
                   f"{float(r['violation']):.2f} | {r['note']} |")
    return out


def section_md(folder: str | Path) -> str:
    """The section's markdown for a finished balance ``folder``.

    Raises
    ------
    InputError
        Not a finished ``deepsim balance`` folder.
    """
    folder = Path(folder)
    path = folder / "balance.json"
    if not path.is_file():
        raise InputError("no balance.json here: not a deepsim balance folder", file=str(folder))
    info = json.loads(path.read_text(encoding="utf-8"))
    if info.get("status") != "complete":
        raise InputError("the balance did not finish (go on with deepsim balance --resume)",
                         file=str(path))
    label = info.get("faction_label") or "faction"
    runs = [*(info.get("earlier_runs") or []), info]
    search_s = sum(float(r.get("wall_time_s") or 0) for r in runs[:-1]) or float(
        info.get("wall_time_s") or 0)
    lines = [HEADING, "",
             (f"What should a designer change? `deepsim balance` (docs/guide/balance.md) "
              f"searches the fewest printed numbers to change, on a printable grid, to meet "
              f"its target: {info['target']}; on the field of "
              f"`{Path(info['args']['scenario']).name}` (baseline bots never count). "
              "Levers: "
              + ", ".join(f"`{lv['path']}` ({lv['grid']})" for lv in info["levers"])
              + ". Command (the committed folder `"
              + str(folder) + "`):"), "", "```sh", _command(info), "```", "",
             f"**{info['answer']}**", ""]
    tp = folder / "trials.parquet"
    if tp.is_file():
        front = _front(pd.read_parquet(tp), info["levers"])
        if front:
            lines += [(f"The front of changes against violation: for each number of changes, "
                       f"the smallest violation the search reached ({info['trials']:,} "
                       f"trials of {info['games']:,} games, seed {info['seed']}; the "
                       f"violation sums how far each {label}'s win share over fair share "
                       "lies outside the viable band, x fair)."), "", *front, ""]
    ba = folder / "before_after.parquet"
    if ba.is_file():
        frame = pd.read_parquet(ba)
        chosen = (info.get("chosen") or {}).get("trial")
        cand = frame[frame["candidate"] == 1]
        lines += [(f"Before and after{' the patch' if chosen is not None else ', the closest change'}"
                   f" (`{cand['patch'].iloc[0]}`), per {label}, on "
                   f"{info['confirm_games']:,} fresh games of seed {info['confirm_seed']} "
                   "played with the defaults and with the change (paired: the same deals "
                   "and dice); win share over fair share with 95% Wilson intervals, the "
                   "paired change with its 95% interval:"), "",
                  f"| {label.capitalize()} | before | after | paired change |",
                  "|---|---|---|---|"]
        for r in cand.itertuples():
            ch = ("" if r.change != r.change else
                  f"{r.change:+.2f} [{r.change_low:+.2f}, {r.change_high:+.2f}]")
            lines.append(f"| {r.name} | {r.before:.2f} [{r.before_low:.2f}-"
                         f"{r.before_high:.2f}] {r.before_verdict} | {r.after:.2f} "
                         f"[{r.after_low:.2f}-{r.after_high:.2f}] {r.after_verdict} | {ch} |")
        lines.append("")
    cands = info.get("candidates") or []
    lines += [("Candidates: " + "; ".join(
        f"`{'; '.join(f'{k}={v}' for k, v in c['point'].items())}`: {c['status']}"
        for c in cands) + "." if cands else "No candidate to confirm.")
        + ("" if info.get("chosen") else " No candidate was confirmed, so no best-response "
           "check ran."), ""]
    threads = info.get("threads")
    lines += [(f"Run time: {search_s / 60:.0f} min wall on {threads} threads of the shared "
               f"2-core machine ({sum(int(r.get('games_played') or 0) for r in runs):,} "
               "games of search)"
               + (f"; the folder was rewritten by `--resume` (trials read back, confirmation "
                  f"replayed: {float(info.get('wall_time_s') or 0):.0f} s)"
                  if len(runs) > 1 else "") + ". The budget for an idle 2-core machine and "
               "how it was measured: docs/guide/balance.md."), ""]
    return "\n".join(lines)


def splice(text: str, section: str) -> str:
    """``text`` (FINDINGS.md) with the section replaced (from :data:`HEADING` to the next
    ``## `` heading), else inserted before :data:`ANCHOR`, else appended."""
    block = section.rstrip("\n") + "\n\n"
    if HEADING in text:
        start = text.index(HEADING)
        nxt = text.find("\n## ", start + len(HEADING))
        return text[:start] + block + (text[nxt + 1:] if nxt >= 0 else "")
    if ANCHOR in text:
        i = text.index(ANCHOR)
        return text[:i] + block + text[i:]
    return text.rstrip("\n") + "\n\n" + block


def main(argv: list[str] | None = None) -> int:
    """The command line: write the balance section of FINDINGS from a balance folder; 0, or 2
    on bad input (the message names the file)."""
    import argparse

    from deepsim.atomic import atomic_write_text

    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.balance_findings",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="a finished deepsim balance folder")
    ap.add_argument("--replace", default=None,
                    help="a FINDINGS.md whose section to replace (or insert)")
    a = ap.parse_args(argv)
    try:
        md = section_md(a.folder)
        if a.replace is None:
            print(md)
            return 0
        path = Path(a.replace)
        if not path.is_file():
            raise InputError("no such file", file=str(path), key="--replace")
        atomic_write_text(path, splice(path.read_text(encoding="utf-8"), md))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
