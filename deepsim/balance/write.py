"""The files of a ``deepsim balance`` folder (see :mod:`deepsim.balance.run`)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import yaml

from deepsim.atomic import atomic_write_text, deferred_sigint
from deepsim.balance.levers import Lever
from deepsim.params import later_wins
from deepsim.runfolders import write_parquet
from deepsim.tune.grid import format_value
from deepsim.tune.tune import overrides_yaml

__all__ = ["before_after", "folder", "markdown", "patched_scenario"]

#: scenario keys naming a file relative to the scenario's own folder
PATH_KEYS = ("extends", "faction_bots")


def merged_overrides(player, point: dict) -> dict:
    """The scenario's own overrides, then ``--set``, then the patch, in that order
    (``params.later_wins``: a path given again is applied at its last place)."""
    return later_wins(player.scenario_overrides, player.sets, point)


def patched_scenario(scenario_path: Path, out_dir: Path, overrides: dict, name: str) -> str:
    """The scenario file's own mapping with ``overrides`` and a new name, its relative
    file paths rewritten to stay valid from ``out_dir``."""
    raw = yaml.safe_load(Path(scenario_path).read_text()) or {}
    raw = dict(raw)
    raw["name"] = name
    for key in PATH_KEYS:
        v = raw.get(key)
        if isinstance(v, str) and not os.path.isabs(v):
            target = (Path(scenario_path).parent / v).resolve()
            raw[key] = os.path.relpath(target, Path(out_dir).resolve())
    raw["overrides"] = {k: v for k, v in overrides.items()}
    head = (f"# {name}: {scenario_path} with the patch of deepsim balance (patch.yaml)\n")
    return head + yaml.safe_dump(raw, sort_keys=False, allow_unicode=True, width=100)


def before_after(before, candidates) -> pd.DataFrame:
    """One row per candidate and faction (or expectation): before and after, with
    intervals and verdicts, on the same confirmation games."""
    rows = []
    if before is None:
        return pd.DataFrame()
    b = before.table.set_index("name")
    for i, c in enumerate(candidates):
        if c.after is None:
            continue
        for _, r in c.after.table.iterrows():
            name = r["name"]
            br = b.loc[name] if name in b.index else None
            rows.append({
                "candidate": i + 1, "patch": "; ".join(f"{k}={format_value(v)}"
                                                       for k, v in c.point.items()),
                "name": name,
                "before": float(br["value"]) if br is not None else float("nan"),
                "before_low": float(br["low"]) if br is not None else float("nan"),
                "before_high": float(br["high"]) if br is not None else float("nan"),
                "before_verdict": str(br["verdict"]) if br is not None else "",
                "after": float(r["value"]), "after_low": float(r["low"]),
                "after_high": float(r["high"]), "after_verdict": str(r["verdict"]),
                "change": float(r.get("change", float("nan"))),
                "change_low": float(r.get("change_low", float("nan"))),
                "change_high": float(r.get("change_high", float("nan")))})
    return pd.DataFrame(rows)


def front(state) -> pd.DataFrame:
    """The front of changes against violation: per number of changes, the smallest
    violation the search reached, its trial and its change (``patch``: "path default ->
    value; ...", "the defaults" for none)."""
    f = state.frame()
    f = f[f["error"] == ""] if "error" in f else f
    if f.empty:
        return pd.DataFrame()
    best = f.sort_values(["n_changed", "violation", "size", "trial"]).groupby(
        "n_changed", as_index=False).first()
    best["patch"] = [
        "; ".join(f"{lv.path} {format_value(lv.default)} -> {format_value(r[lv.path])}"
                  for lv in state.levers if format_value(r[lv.path]) != format_value(
                      lv.default)) or "the defaults"
        for _, r in best.iterrows()]
    return best[["n_changed", "patch", "violation", "size", "trial", "note"]]


def _table_md(frame: pd.DataFrame, cols: list[tuple[str, str]]) -> list[str]:
    out = ["| " + " | ".join(h for _, h in cols) + " |",
           "|" + "|".join("---" for _ in cols) + "|"]
    for _, r in frame.iterrows():
        cells = []
        for c, _ in cols:
            v = r[c]
            cells.append(f"{v:.3g}" if isinstance(v, float) else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return out


def markdown(*, player, levers: list[Lever], target, state, before, candidates, chosen,
             answer: str, info: dict) -> str:
    """balance.md: the answer, the patch, before/after, candidates, the front, the method."""
    label = getattr(player.ruleset, "faction_label", "faction")
    md = [f"# deepsim balance: {player.name}", "", f"**{answer}**", ""]
    if chosen is not None:
        md += ["## The patch (patch.yaml)", "", "```yaml",
               overrides_yaml(merged_overrides(player, chosen.point)).rstrip(), "```", ""]
        if any(lv.placeholder and lv.path in chosen.point for lv in levers):
            md += [("The patch changes placeholder data (--include-placeholders): a number "
                   "the rulebook does not give."), ""]
    ba = before_after(before, candidates)
    if not ba.empty:
        md += [f"## Before and after, per {label if target.name == 'verdicts' else 'test'}",
               "", f"{info['confirm_games']:,} games of seed {info['confirm_seed']} for both "
               "(paired: the same deals and dice; the paired change's interval comes from the "
               "per-game differences); values are "
               + ("party win rate error, points" if target.cooperative else
                  "win share / fair share (x fair)" if target.name == "verdicts" else
                  "each requirement's estimate" if target.name == "require" else
                  "each expectation's estimate") + ", 95% intervals.", ""]
        for i, grp in ba.groupby("candidate"):
            md += [f"### Candidate {i}: {grp['patch'].iloc[0]}", ""]
            show = grp.assign(
                b=[f"{r.before:.2f} [{r.before_low:.2f}-{r.before_high:.2f}] {r.before_verdict}"
                   for r in grp.itertuples()],
                a=[f"{r.after:.2f} [{r.after_low:.2f}-{r.after_high:.2f}] {r.after_verdict}"
                   for r in grp.itertuples()],
                d=["" if r.change != r.change else
                   f"{r.change:+.2f} [{r.change_low:+.2f}, {r.change_high:+.2f}]"
                   for r in grp.itertuples()])
            cols = [("name", label.capitalize()), ("b", "before"), ("a", "after")]
            if grp["change"].notna().any():
                cols.append(("d", "paired change"))
            md += _table_md(show, cols) + [""]
    if candidates:
        md += ["## Candidates", ""]
        for i, c in enumerate(candidates):
            ch = "; ".join(f"{k} = {format_value(v)}" for k, v in c.point.items())
            md.append(f"{i + 1}. {ch} (trial {c.trial}): {c.status or 'not checked'}")
            if c.robust is not None and not c.robust.table.empty:
                worst = c.robust.table.sort_values("value", ascending=False).iloc[0]
                unit = " points off target" if target.cooperative else "x fair"
                md.append(f"   best-response field: highest {worst['name']} "
                          f"{worst['value']:.2f}{unit} [{worst['low']:.2f}-"
                          f"{worst['high']:.2f}] {worst['verdict']}")
        md.append("")
    fr = front(state)
    if not fr.empty:
        md += ["## Changes against violation (the search's front)", ""]
        md += _table_md(fr, [("n_changed", "numbers changed"), ("patch", "best change"),
                             ("violation", "violation"),
                             ("size", "size (grid steps)"), ("trial", "trial"),
                             ("note", "worst")]) + [""]
    md += ["## Levers", ""]
    md += [f"- `{lv.path}`: default {format_value(lv.default)}, {lv.describe()}"
           + (" (placeholder)" if lv.placeholder else "") for lv in levers] + [""]
    md += ["## Method", "",
           f"- Target: {target.describe()}.",
           (f"- Search: {info['common_random_numbers']} (common random numbers); order: "
           "violation, numbers changed, size of the change. For K = 1 .. "
           f"{info['args']['budget']['max_changes']}, every subset of K levers, each number "
           "changed: the whole grid when it has at most "
           f"{info['args']['budget']['grid_max']} points, else "
           f"{info['args']['budget']['trials']} optuna TPE trials (sampler seed "
           f"{info['args']['budget']['sampler_seed']}); stop at the first K that meets it."),
           (f"- Trials: {len(state.rows)} ({state.games_played:,} games played); K searched: "
           f"{', '.join(map(str, state.k_done)) or 'none (the defaults meet the target)'}."),
           *_times(info, state),
           (f"- Confirmation: the best {info['args']['budget']['confirm']} candidates that "
           f"met the target in the search, on {info['confirm_games']:,} fresh games of seed "
           f"{info['confirm_seed']}, the defaults on the same games; a candidate is "
           "confirmed when the target is met with every verdict decided (no inconclusive)."
           + ("" if state.met_at is not None else
              " None met it: the closest change was played instead, to say how close it "
              "comes.")),
           (f"- Robustness: every {label}'s best response under the patch (deepsim respond's "
            f"search: {info['args']['budget']['respond_trials']} trials on "
            f"{info['args']['budget']['respond_games']:,} games of seed "
            f"{info['respond_seed']}), replayed on the confirmation games; a patch is broken "
            f"when a {label} is too strong there (its interval's lower end above the line)."
            + ("" if any(c.robust is not None for c in candidates) else
               " Not run: no candidate was confirmed.")
            if info['args']['budget']['respond_trials'] > 0 else
            "- Robustness: not checked (--respond-trials 0)."),
           ""]
    return "\n".join(md) + "\n"


def _times(info: dict, state) -> list[str]:
    """The method's lines on time: per phase, per K, the threads (empty when unknown)."""
    ph = info.get("phase_seconds")
    if not ph:
        return []
    ks = info.get("k_seconds") or {}
    per_k = ", ".join(f"K={k} {float(v):.0f} s" for k, v in ks.items() if k != "0")
    played = float(info.get("trial_seconds") or 0.0)
    lines = [f"- Time (wall, {info.get('threads')} threads, this run): search "
             f"{ph.get('search', 0):.0f} s" + (f" ({per_k})" if per_k else "")
             + f", confirmation {ph.get('confirm', 0):.0f} s, best responses "
             f"{ph.get('best_responses', 0):.0f} s; the trials' own seconds, summed "
             f"over every trial (an earlier run's included on --resume): {played:.0f} s."]
    for e in info.get("earlier_runs") or []:
        if e.get("wall_time_s") is not None:
            lines.append(f"- An earlier run of this folder (--resume read its trials back): "
                         f"{e['wall_time_s']:.0f} s wall, {e.get('games_played') or 0:,} "
                         f"games of search, {e.get('status')}, started "
                         f"{e.get('started_utc')}.")
    return lines


def folder(out_dir: Path, *, player, levers, target, state, before, candidates, chosen,
           answer: str, info: dict, scenario_path: Path) -> list[Path]:
    """Write patch.yaml, the patched scenario, before_after/candidates parquet and
    balance.md/html; return the paths written."""
    from deepsim.respond.report import to_html

    files = []
    meta = {"kind": "balance", "scenario": player.name}
    with deferred_sigint():
        if chosen is not None:
            merged = merged_overrides(player, chosen.point)
            head = [f"deepsim balance {player.name}: {answer}",
                    f"run it: deepsim run {scenario_path} --set "
                    + " --set ".join(f"{k}={format_value(v)}" for k, v in chosen.point.items())]
            atomic_write_text(out_dir / "patch.yaml", overrides_yaml(merged, head))
            files.append(out_dir / "patch.yaml")
            name = f"{player.name}-balanced"
            p = out_dir / f"{name}.yaml"
            atomic_write_text(p, patched_scenario(scenario_path, out_dir, merged, name))
            files.append(p)
        ba = before_after(before, candidates)
        if not ba.empty:
            write_parquet(out_dir / "before_after.parquet", ba, meta)
            files.append(out_dir / "before_after.parquet")
        cand = pd.DataFrame([{"candidate": i + 1, "trial": c.trial,
                              "patch": "; ".join(f"{k}={format_value(v)}"
                                                 for k, v in c.point.items()),
                              "numbers": len(c.point), "size": c.size,
                              "violation": c.after.violation if c.after else float("nan"),
                              "confirmed": bool(c.after and c.after.confirmed),
                              "broken": bool(c.robust and c.robust.broken),
                              "status": c.status} for i, c in enumerate(candidates)])
        if not cand.empty:
            write_parquet(out_dir / "candidates.parquet", cand, meta)
            files.append(out_dir / "candidates.parquet")
        md = markdown(player=player, levers=levers, target=target, state=state,
                      before=before, candidates=candidates, chosen=chosen, answer=answer,
                      info=info)
        atomic_write_text(out_dir / "balance.md", md)
        atomic_write_text(out_dir / "balance.html", to_html(md, None))
        files += [out_dir / "balance.md", out_dir / "balance.html"]
    return files
