"""``deepsim balance``: search, confirm, check robustness, write the folder.

:func:`run_balance` runs the three phases and writes the output folder (``--out``, default
``reports/balances/<scenario>-balance-<stamp>-<hex>``):

- ``trials.parquet``: every trial (:mod:`deepsim.balance.search`), rewritten atomically
  after each, so an interrupted run keeps what it finished (``--resume DIR`` goes on);
- ``patch.yaml``: the chosen patch as a scenario ``overrides:`` block (the scenario's own
  overrides and ``--set`` merged in), ready to paste or run with ``deepsim run``;
- ``<scenario>-balanced.yaml``: the scenario with the patch applied (its file paths
  rewritten to stay valid from the folder);
- ``before_after.parquet``: per candidate and faction (or expectation), the value, its 95%
  interval and verdict before and after, on the same confirmation games;
- ``candidates.parquet``: the candidates confirmed, their verdict on fresh games and their
  best-response check;
- ``balance.md`` / ``balance.html``: the answer first, then the tables and the method;
- ``balance.json``: the command's settings (what ``--resume`` reads), seeds, times, result.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from deepsim.atomic import atomic_write_json, deferred_sigint
from deepsim.balance.levers import Lever, parse_levers
from deepsim.balance.robust import Robustness, respond_check
from deepsim.balance.search import Budget, SearchState, plan_counts, search, sort_key
from deepsim.balance.target import Judgement, make_target, paired_changes
from deepsim.errors import InputError
from deepsim.report import viability as V

__all__ = ["DEFAULT_ROOT", "FILES", "BalanceResult", "Candidate", "run_balance"]

DEFAULT_ROOT = Path("reports") / "balances"
FILES = ("balance.json", "trials.parquet", "patch.yaml", "before_after.parquet",
         "candidates.parquet", "balance.md", "balance.html")


@dataclass
class Candidate:
    """One candidate patch through confirmation and the best-response check."""

    point: dict
    trial: int
    size: float
    after: Judgement | None = None
    robust: Robustness | None = None
    status: str = ""

    @property
    def accepted(self) -> bool:
        return bool(self.after is not None and self.after.confirmed and
                    (self.robust is None or not self.robust.broken))


@dataclass
class BalanceResult:
    """What :func:`run_balance` found and wrote."""

    out_dir: Path
    levers: list[Lever]
    state: SearchState
    before: Judgement | None
    candidates: list[Candidate]
    chosen: Candidate | None
    answer: str
    info: dict
    files: list[Path] = field(default_factory=list)


def _info_of(resume: Path) -> dict:
    """The earlier run's balance.json (its ``args`` are what ``--resume`` reads)."""
    import json

    path = Path(resume) / "balance.json"
    if not path.is_file():
        raise InputError("no balance.json here: not a deepsim balance folder",
                         file=str(resume), key="--resume")
    try:
        doc = json.loads(path.read_text())
        if not isinstance(doc.get("args"), dict):
            raise KeyError("args")
        return doc
    except (ValueError, KeyError, AttributeError) as exc:
        raise InputError(f"balance.json is unreadable ({exc})", file=str(path),
                         key="--resume") from None


def run_balance(scenario_path: Path | str | None = None, levers: list[str] | None = None, *,
                target: str = "verdicts", budget: Budget | None = None,
                seed: int | None = None, sets: list[str] | None = None,
                include_placeholders: bool = False, require: list[str] | None = None,
                alpha: float = 0.05,
                min_ratio: float = V.DEFAULT.min_ratio, max_ratio: float = V.DEFAULT.max_ratio,
                coop_band: float = 5.0, threads: int | None = None,
                out: Path | str | None = None, force: bool = False,
                resume: Path | str | None = None, responder: Any = None,
                progress=None, on_folder=None, log=None, root: Path | str = DEFAULT_ROOT
                ) -> BalanceResult:
    """Find the smallest change to the printed numbers that meets ``target``.

    Parameters
    ----------
    scenario_path : path
        Scenario YAML (any ruleset). Optional with ``resume``.
    levers : list of str
        ``PATH[:STEP]`` items (:func:`deepsim.balance.levers.parse_levers`).
    target : {"verdicts", "expect", "require"}
        See :mod:`deepsim.balance.target`.
    budget : Budget
        K, trials, grid size, games, confirmation, best-response budget, sampler seed.
    seed : int, optional
        Seed of the search's games (default: the scenario's); confirmation plays seed + 1,
        the best-response search seed + 2.
    sets : list of str
        ``path=value`` overrides fixed at every point (never levers).
    require : list of str
        ``SPEC<=X`` / ``SPEC>=X`` numbers of the metric language the target adds
        (:func:`deepsim.balance.target.parse_requirement`; ``verdicts`` and ``require``).
    alpha, min_ratio, max_ratio : float
        The verdict scale's level and lines (the report's defaults).
    coop_band : float
        A co-operative game's band around its target, in points.
    out, force : path, bool
        Output folder (default: new under ``root``); an existing one needs ``force``.
    resume : path, optional
        An earlier run's folder: its settings and finished trials are reused.
    responder : callable, optional
        The best-response check (default :func:`deepsim.balance.robust.respond_check`).
    progress : callable(done, total, label), optional
    on_folder : callable(Path), optional
        Told the output folder once it exists (what ``--resume`` takes after a Ctrl-C).
    log : callable(str), optional
        Told, in one line each, the search's plan, each K's best point when it is done, and
        each phase as it starts (the terminal prints them above the bar; a CI log, where
        the bar is not drawn, shows the run going on).

    Raises
    ------
    InputError
        Bad scenario, lever, target, budget or ``out``: all before the first game.
    """
    from deepsim.runfolders import check_out, machine, make_out, utc_now, write_parquet
    from deepsim.tune.play import Player

    t0 = time.perf_counter()
    cached_rows: list[dict] = []
    earlier: list[dict] = []
    if resume is not None:
        prior = _info_of(Path(resume))
        args = prior["args"]
        # what the earlier runs took (their time stays on record: the trials read back
        # here cost nothing now)
        earlier = list(prior.get("earlier_runs") or []) + [
            {k: prior.get(k) for k in ("started_utc", "finished_utc", "status",
                                       "wall_time_s", "games_played", "phase_seconds",
                                       "k_seconds", "threads")}]
        scenario_path = args["scenario"]
        levers = args["levers"]
        target, seed, sets = args["target"], args["seed"], args["sets"]
        include_placeholders, alpha = args["include_placeholders"], args["alpha"]
        require = args.get("require") or []
        min_ratio, max_ratio, coop_band = args["min_ratio"], args["max_ratio"], args["coop_band"]
        budget = Budget(**args["budget"])
        out, force = Path(resume), True
        tp = Path(resume) / "trials.parquet"
        if tp.is_file():
            cached_rows = pd.read_parquet(tp).to_dict(orient="records")
    if scenario_path is None:
        raise InputError("give a SCENARIO (or --resume DIR)", key="SCENARIO")
    budget = budget or Budget()
    budget.check()
    lines = V.Lines(alpha=alpha, min_ratio=min_ratio, max_ratio=max_ratio)
    try:
        lines.check()
    except ValueError as exc:
        raise InputError(str(exc), key="--max-ratio") from None
    if resume is None:
        check_out(out, force)
    player = Player(scenario_path, games=budget.games, seed=seed, sets=list(sets or []),
                    threads=threads)
    base = player.prepare({})
    levs = parse_levers(levers or [], player.table, ruleset=player.ruleset,
                        placeholders=base.prepared.placeholders,
                        include_placeholders=include_placeholders)
    set_paths = {o.split("=", 1)[0].strip() for o in sets or [] if "=" in o}
    both = [lv.path for lv in levs if lv.path in set_paths]
    if both:
        raise InputError(f"'{both[0]}' is both a lever and fixed by --set; drop one",
                         key="--levers")
    tgt = make_target(target, player.ruleset, base.prepared, player.scenario,
                      source=str(scenario_path), lines=lines, coop_band=coop_band,
                      requirements=list(require or []))
    games = player.games
    confirm_games = budget.confirm_games or 4 * games
    confirm_seed = player.seed + 1
    respond_seed = player.seed + 2
    responder = responder or respond_check
    out_dir = make_out(out, name=f"{player.name}-balance", force=force, root=root,
                       owned=FILES if resume is None else ("patch.yaml",
                                                           "before_after.parquet",
                                                           "candidates.parquet",
                                                           "balance.md", "balance.html"))
    args = {"scenario": str(scenario_path), "levers": list(levers or []), "target": target,
            "seed": player.seed, "sets": list(sets or []),
            "include_placeholders": include_placeholders, "require": list(require or []),
            "alpha": alpha,
            "min_ratio": min_ratio, "max_ratio": max_ratio, "coop_band": coop_band,
            "budget": dataclasses.asdict(budget)}
    info: dict[str, Any] = {
        "kind": "balance", "scenario_name": player.name, "ruleset": player.ruleset.name,
        "faction_label": getattr(player.ruleset, "faction_label", "faction"),
        "args": args, "target": tgt.describe(), "games": games, "seed": player.seed,
        "confirm_games": confirm_games, "confirm_seed": confirm_seed,
        "respond_seed": respond_seed, "threads": player.threads,
        "levers": [{"path": lv.path, "default": lv.default, "grid": lv.describe(),
                    "values": len(lv.grid), "placeholder": lv.placeholder}
                   for lv in levs],
        "common_random_numbers": f"every trial plays games 0..{games - 1} of seed "
                                 f"{player.seed}",
        "started_utc": utc_now(), "status": "running", **machine(),
    }
    if earlier:
        info["earlier_runs"] = earlier
    json_path = out_dir / "balance.json"
    with deferred_sigint():
        atomic_write_json(json_path, info)
    if on_folder is not None:
        on_folder(out_dir)

    state = SearchState(levs)
    for r in cached_rows:
        if r.get("key") and not r.get("error"):
            state.cache.setdefault(str(r["key"]), {"violation": r["violation"],
                                                   "met": bool(r["met"]),
                                                   "note": r.get("note", ""), "error": "",
                                                   "seconds": float(r.get("seconds", 0.0))})
    trials_path = out_dir / "trials.parquet"
    meta = {"kind": "balance", "scenario": player.name, "seed": player.seed,
            "games": games}

    def on_trial(st: SearchState) -> None:
        with deferred_sigint():
            from deepsim.runfolders import write_parquet as wp
            wp(trials_path, st.frame(), meta)

    def evaluate(point: dict) -> dict:
        try:
            prepared = player.prepare(point)
        except InputError as exc:
            return {"violation": float("nan"), "met": False, "note": "", "error": str(exc)}
        j = _judge(tgt, player, prepared.prepared, prepared, games, alpha)
        return {"violation": j.violation, "met": j.met, "note": j.note, "error": ""}

    def search_progress(done, total, label):
        # the bar counts games: every trial plays `games`
        if progress is not None:
            progress(done * games, total * games, f"search: {label}")

    say = log or (lambda text: None)
    plan = plan_counts(levs, budget)
    say(f"Search: {len(levs)} lever{'s' if len(levs) != 1 else ''}, {games:,} games per "
        f"trial of seed {player.seed}; at most "
        + "; ".join(f"K={k}: {n:,} subset{'s' if n != 1 else ''}, {t:,} trials"
                    for k, n, t in plan)
        + f" ({(1 + sum(t for _, _, t in plan)) * games:,} games)")
    k_seconds: dict[str, float] = {}
    t_k = [time.perf_counter()]

    def on_k(k: int, st: SearchState) -> None:
        now = time.perf_counter()
        k_seconds[str(k)] = round(now - t_k[0], 2)
        t_k[0] = now
        if k == 0:
            base = st.rows[0]
            say(f"K=0 (no lever changed): violation {base['violation']:.3g}"
                + (f" (worst {base['note']})" if base["note"] else "")
                + ("; the target is met" if base["met"] else ""))
            return
        rows = [r for r in st.rows if r["k"] == k and not r["error"]]
        if not rows:
            return
        best = min(rows, key=sort_key)
        changed = {lv.path: _py(best[lv.path]) for lv in levs
                   if _py(best[lv.path]) != lv.default}
        met = sum(1 for r in rows if r["met"])
        say(f"K={k} done: {len(rows):,} trials in {k_seconds[str(k)]:.0f} s; best "
            f"{_fmt_change(levs, changed)}, violation {best['violation']:.3g}"
            + (f" (worst {best['note']})" if best["note"] else "")
            + (f"; {met} met the target" if met else "; none met the target"))

    t_search = time.perf_counter()
    try:
        search(levs, evaluate, budget, state=state, on_trial=on_trial,
               progress=search_progress, games=games, on_k=on_k)
    except KeyboardInterrupt:
        # on record for --resume: how far this run got and what it took
        info.update({"status": "interrupted", "finished_utc": utc_now(),
                     "wall_time_s": round(time.perf_counter() - t0, 2),
                     "games_played": state.games_played, "k_searched": state.k_done,
                     "k_seconds": k_seconds, "trials": len(state.rows)})
        with deferred_sigint():
            atomic_write_json(json_path, info)
        raise
    phase_seconds = {"search": round(time.perf_counter() - t_search, 2)}
    frame = state.frame()
    rows = frame.to_dict(orient="records")

    # --- candidates: the met points, fewest and smallest changes first ------------------
    def point_of(r: dict) -> dict:
        return {lv.path: _py(r[lv.path]) for lv in levs if _py(r[lv.path]) != lv.default}

    ok = [r for r in rows if not r["error"]]
    if state.met_at == 0:
        picks: list[dict] = []
    elif state.met_at is not None:
        met = sorted((r for r in ok if r["met"]),
                     key=lambda r: (r["n_changed"], r["size"], r["violation"], r["trial"]))
        picks = _distinct(met, budget.confirm)
    else:
        picks = _distinct(sorted((r for r in ok if r["trial"] > 0), key=sort_key), 1)
    candidates = [Candidate(point_of(r), int(r["trial"]), float(r["size"])) for r in picks]

    # --- confirmation on fresh paired games, then best responses ------------------------
    before = None
    chosen = None
    total = len(candidates) + 1
    t_confirm = time.perf_counter()
    respond_s = 0.0
    if candidates or state.met_at == 0:
        say(f"Confirming {len(candidates)} candidate{'s' if len(candidates) != 1 else ''} "
            f"on {confirm_games:,} fresh games of seed {confirm_seed}, the defaults on the "
            "same games")
        if progress is not None:
            progress(0, total * confirm_games, f"confirm: {confirm_games:,} games of seed "
                                               f"{confirm_seed}")
        bp = player.prepare({}, games=confirm_games, seed=confirm_seed)
        kept_before: dict = {}
        before = _judge(tgt, player, bp.prepared, bp, confirm_games, alpha, kept_before)
        for i, c in enumerate(candidates):
            if progress is not None:
                progress((i + 1) * confirm_games, total * confirm_games,
                         f"confirm: {confirm_games:,} games of seed {confirm_seed}")
            cp = player.prepare(c.point, games=confirm_games, seed=confirm_seed)
            kept_after: dict = {}
            c.after = _judge(tgt, player, cp.prepared, cp, confirm_games, alpha, kept_after)
            if "frames" in kept_after:
                # the paired change per faction: the same games before and after
                ch = paired_changes(tgt, kept_before["frames"], kept_after.pop("frames"))
                if not ch.empty:
                    c.after.table = c.after.table.merge(ch, on="name", how="left")
            if not c.after.met:
                c.status = "not met on fresh games" + (f" ({c.after.note})"
                                                       if c.after.note else "")
                continue
            if not c.after.confirmed:
                c.status = ("inconclusive on fresh games (an interval too wide: raise "
                            "--confirm-games)")
                continue
            if state.met_at is None:
                break
            if budget.respond_trials > 0:
                def r_progress(done, tot, label, i=i):
                    if progress is not None:
                        progress(done, tot, f"best responses, candidate {i + 1}: {label}")
                say(f"Best responses under candidate {i + 1} "
                    f"({_fmt_change(levs, c.point)}): {budget.respond_trials} trials x "
                    f"{budget.respond_games:,} games per {info['faction_label']}")
                t_respond = time.perf_counter()
                try:
                    c.robust = responder(
                        scenario_path, list(sets or []) + _overrides(c.point),
                        seed=respond_seed, games=budget.respond_games,
                        confirm_seed=confirm_seed, confirm_games=confirm_games,
                        trials=budget.respond_trials, target=tgt, threads=threads,
                        progress=r_progress)
                except InputError as exc:
                    c.status = f"confirmed; no best-response check ({exc})"
                    chosen = c
                    break
                finally:
                    respond_s += time.perf_counter() - t_respond
                if c.robust.broken:
                    c.status = f"confirmed, but broken by a best response: {c.robust.note}"
                    continue
                c.status = ("confirmed; survives best responses" if c.robust.moved != 0 else
                            f"confirmed; no {info['faction_label']} found a better style in "
                            f"{budget.respond_trials} trials x {budget.respond_games:,} games, "
                            "so the best-response check replayed the start styles (raise "
                            "--respond-trials / --respond-games)")
            else:
                c.status = "confirmed (best responses not checked: --respond-trials 0)"
            chosen = c
            break
        for c in candidates:
            if not c.status:
                c.status = "not played (an earlier candidate was accepted)"
        if progress is not None:
            progress(total * confirm_games, total * confirm_games, "confirm: done")
    phase_seconds["confirm"] = round(time.perf_counter() - t_confirm - respond_s, 2)
    phase_seconds["best_responses"] = round(respond_s, 2)
    info.update({"plan": [{"k": k, "subsets": n, "trials_at_most": t} for k, n, t in plan],
                 "k_seconds": k_seconds, "phase_seconds": phase_seconds,
                 "trial_seconds": round(float(frame["seconds"].sum()), 2)
                 if "seconds" in frame else 0.0})
    answer = _answer(player, tgt, levs, state, candidates, chosen, before)
    from deepsim.balance import write

    files = write.folder(out_dir, player=player, levers=levs, target=tgt, state=state,
                         before=before, candidates=candidates, chosen=chosen, answer=answer,
                         info=info, scenario_path=Path(scenario_path))
    with deferred_sigint():
        write_parquet(trials_path, frame, meta)
    info.update({"status": "complete", "finished_utc": utc_now(),
                 "wall_time_s": round(time.perf_counter() - t0, 2),
                 "games_played": state.games_played, "met_at_k": state.met_at,
                 "k_searched": state.k_done, "trials": len(rows), "answer": answer,
                 "chosen": None if chosen is None else {
                     "point": chosen.point, "status": chosen.status, "trial": chosen.trial},
                 "candidates": [{"point": c.point, "trial": c.trial, "status": c.status}
                                for c in candidates]})
    with deferred_sigint():
        atomic_write_json(json_path, info)
    return BalanceResult(out_dir, levs, state, before, candidates, chosen, answer, info,
                         [json_path, trials_path, *files])


def _judge(tgt, player, prepared, point, games: int, alpha: float, keep: dict | None = None
           ) -> Judgement:
    """Judge a point's games; ``keep["frames"]`` gets (games, seats) when asked."""
    if tgt.name == "expect":
        return tgt.judge_expect(player.ruleset, prepared, games, alpha)
    g, s = player.play(point, games=games)
    if keep is not None:
        keep["frames"] = (g, s)
    return tgt.judge(prepared, g, s)


def _py(v):
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float):
        return float(f"{v:.12g}")
    return v


def _overrides(point: dict) -> list[str]:
    from deepsim.tune.grid import point_overrides
    return point_overrides(point)


def _distinct(rows: list[dict], n: int) -> list[dict]:
    out, seen = [], set()
    for r in rows:
        if r["key"] in seen:
            continue
        seen.add(r["key"])
        out.append(r)
        if len(out) == n:
            break
    return out


def _fmt_change(levers: list[Lever], point: dict) -> str:
    from deepsim.tune.grid import format_value

    d = {lv.path: lv for lv in levers}
    return "; ".join(f"{p} {format_value(d[p].default)} -> {format_value(v)}"
                     for p, v in point.items())


def _answer(player, tgt, levers, state, candidates, chosen, before) -> str:
    """The terminal's first line(s): the answer."""
    label = getattr(player.ruleset, "faction_label", "faction")
    labels = getattr(player.ruleset, "factions_label", None) or f"{label}s"
    if state.met_at == 0:
        return ("No change needed: the scenario as it is meets the target ("
                f"{tgt.describe()})" + ("" if before is None or before.confirmed else
                                         "; on fresh games it is not decided, see below"))
    if chosen is not None:
        n = len(chosen.point)
        what = (f"all {len(chosen.after.table) - len(tgt.requirements)} {labels} viable, "
                "none too strong" + (", every requirement met" if tgt.requirements else "")
                if tgt.name == "verdicts" and not tgt.cooperative else
                "every requirement met" if tgt.name == "require" else
                "the party on target" if tgt.cooperative else "every expectation passes")
        return (f"{n} number{'s' if n != 1 else ''}: {_fmt_change(levers, chosen.point)} -> "
                f"{what}; {chosen.status}")
    if state.met_at is None:
        best = candidates[0] if candidates else None
        k = max(state.k_done or [0])
        head = f"No patch of at most {_n(k, 'change')} meets the target"
        if best is None or best.after is None:
            return head
        if before is not None and best.after.violation >= before.violation:
            return (f"{head}, and none comes closer than the defaults (violation "
                    f"{before.violation:.3g} on fresh games; the search's best change, "
                    f"{_fmt_change(levers, best.point)}: {best.after.violation:.3g})")
        return (f"{head}. Closest: {_fmt_change(levers, best.point)}, violation "
                f"{best.after.violation:.3g} on fresh games (before {before.violation:.3g})"
                f"{_tally(best.after, before, labels)}{_resisting(best.after.table)}")
    return ("Patches met the target in the search but none held: "
            + "; ".join(f"{_fmt_change(levers, c.point)}: {c.status}" for c in candidates))


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _tally(after: Judgement, before: Judgement | None, labels: str) -> str:
    """": 12 of 36 companies viable, 8 too strong, 16 not viable (before: 3, 6, 27)"
    for the verdicts target; "" for the others."""
    words = (V.VIABLE, V.TOO_STRONG, V.NOT_VIABLE, V.INCONCLUSIVE)
    if not after.counts or any(w not in after.counts for w in words):
        return ""
    ca = after.counts
    n = sum(ca[w] for w in words)
    shown = [w for w in words if w == V.VIABLE or ca[w]
             or (before is not None and before.counts.get(w))]
    text = f": {ca[V.VIABLE]} of {n} {labels} viable" + "".join(
        f", {ca[w]} {w}" for w in shown[1:])
    if before is not None and before.counts:
        text += " (before: " + ", ".join(str(before.counts.get(w, 0)) for w in shown) + ")"
    return text


def _resisting(table: pd.DataFrame, most: int = 4) -> str:
    """"; resisting, too strong: A, B, C, D and 4 more; not viable: ..." (the worst first,
    as the table is ordered); the full list is in balance.md."""
    parts = []
    for word in (V.TOO_STRONG, V.NOT_VIABLE, "fail", "off target"):
        names = [str(x) for x in table.loc[table["verdict"] == word, "name"]]
        if word == V.NOT_VIABLE:
            names = names[::-1]  # the table runs strongest first: the weakest lead here
        if names:
            more = f" and {len(names) - most} more" if len(names) > most else ""
            parts.append(f"{word}: {', '.join(names[:most])}{more}")
    return ("; resisting, " + "; ".join(parts)) if parts else ""
