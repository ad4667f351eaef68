"""``deepsim tune SCENARIO --objective claims --space readings,rounding,placeholders``.

Searches the ruleset's declared spaces (:mod:`deepsim.tune.spaces`) and any ``--param``
for points where the rulebook's own claims hold (:mod:`deepsim.tune.claimsobj`). With two
or more objectives (one per scored claim, plus the metric-language terms' weighted sum if
any) the sampler is optuna's NSGA-II (``--sampler-seed``), and the result is the Pareto
set over the claims' distances; with one objective, TPE. Trial 0 is the baseline (every
dim at its default: the ruleset's own reading). Every trial plays games ``0 .. games-1``
of the same seed (common random numbers).

Files in the output folder:

- ``trials.parquet``: a row per trial: ``trial``, ``state``, ``baseline``, each dim's value
  (``readings``: the alternative's name), per claim ``d_<id>`` (distance) and ``v_<id>``
  (verdict), ``holds`` (claims holding), ``value`` (weighted total), ``changes`` (dims off
  their default), ``pareto``, ``seconds``, ``error``; rewritten after each trial;
- ``front.yaml``: each Pareto point's overrides as a scenario ``overrides:`` block;
- ``front.png``: the Pareto points' distances per claim (0 = holds);
- ``confirm.parquet``: the baseline and at most ``confirm_points`` points (the one holding
  the most claims, then Pareto points) replayed
  on ``confirm_games`` fresh games (seed ``confirm_seed``, the same games for every point:
  paired), each claim's verdict and distance, and the paired change of the total;
- ``respond_claims.parquet``, ``respond_factions.parquet`` (``--respond-trials``): the
  baseline and the confirmed points with every faction's best response under the point's
  rules, the claims on the same confirmation games (:mod:`deepsim.tune.respondcheck`);
- ``findings.md``: "Readings under which the claims hold" (see :func:`findings_md`);
- ``tune.json``: what was run, the best point, the notes.
"""

from __future__ import annotations

import io
import itertools
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from deepsim import runner
from deepsim.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text, deferred_sigint
from deepsim.errors import InputError
from deepsim.measure.spec import target_of
from deepsim.report.verdicts import short_verdict
from deepsim.runfolders import (
    DEFAULT_TUNES_ROOT,
    check_out,
    machine,
    make_out,
    utc_now,
    write_parquet,
)
from deepsim.tune.claimsobj import (
    UNMEASURED_PENALTY,
    ClaimsObjective,
    claim_scores,
    holds,
    parse_claims_objective,
)
from deepsim.tune.grid import format_value, parse_search
from deepsim.tune.objectives import parse_objective, probe_universe
from deepsim.tune.play import Player
from deepsim.tune.respondcheck import RespondBudget, respond_check, respond_md
from deepsim.tune.spaces import Dim, build_spaces, merge_overrides, param_dim

__all__ = ["ReconstructResult", "best_trial", "findings_md", "refresh_findings",
           "run_claims_tune", "trial_points"]

FILES = ("trials.parquet", "front.yaml", "front.png", "confirm.parquet", "findings.md",
         "tune.json", "respond_claims.parquet", "respond_factions.parquet")
#: games of the probe that lists the ruleset's claims before any trial
PROBE_GAMES = 30


@dataclass
class ReconstructResult:
    """A finished reconstruction: its folder, every trial, the claims searched, the Pareto
    front, the front's confirmation on fresh games (None when not run) and the findings
    text."""

    out_dir: Path
    trials: pd.DataFrame
    claims: list[str]
    front: pd.DataFrame
    confirm: pd.DataFrame | None
    findings: str
    info: dict
    notes: list[str] = field(default_factory=list)


def _dims_of(player: Player, spaces: list[str], params: list[str]) -> list[Dim]:
    dims = build_spaces(player.ruleset.search_spaces() if spaces else {}, spaces, player.table)
    for p in params:
        dims.append(param_dim(parse_search(p, player.table)))
    names = [pn for d in dims for pn, _, _ in d.params]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"'{dup[0]}' is searched twice (a --space and a --param)",
                         key="--param")
    return dims


def run_claims_tune(scenario_path: Path | str, *, objective: str = "claims",
                    spaces: list[str] | None = None, params: list[str] | None = None,
                    trials: int = 30, games: int | None = None, seed: int | None = None,
                    sampler_seed: int = 0, sets: list[str] | None = None,
                    chunk_size: int | None = None, threads: int | None = None,
                    out: Path | str | None = None, force: bool = False, alpha: float = 0.05,
                    target_rounds: float | None = None, confirm_games: int | None = None,
                    confirm_seed: int | None = None, confirm_points: int = 5,
                    make_plots: bool = True, root: Path | str = DEFAULT_TUNES_ROOT,
                    respond: RespondBudget | None = None,
                    progress=None) -> ReconstructResult:
    """Search readings, rounded numbers and placeholder data toward the claims; see the
    module docstring. ``respond``: check the baseline and the confirmed points with
    every faction's best response (:mod:`deepsim.tune.respondcheck`; needs claims and
    confirmation games).

    Raises
    ------
    InputError
        Bad ``--objective`` (unknown claim), ``--space``, ``--param``, ``--set``, trial
        count or ``out``: all checked before any trial runs.
    """
    import optuna

    check_out(out, force)
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InputError(f"expected at least 1 trial, got {trials!r}", key="--trials")
    spaces, params, sets = list(spaces or []), list(params or []), list(sets or [])
    cobj: ClaimsObjective = parse_claims_objective(objective)
    player = Player(scenario_path, games=games, seed=seed, sets=sets, chunk_size=chunk_size,
                    threads=threads)
    dims = _dims_of(player, spaces, params)
    if not dims:
        raise InputError("nothing to search: give --space readings|rounding|placeholders "
                         "or --param PATH=LOW:HIGH", key="--space")
    base_point = player.prepare({})
    metric = None
    if cobj.metric_text:
        tr = target_of(player.ruleset) if target_rounds is None else target_rounds
        metric = parse_objective(cobj.metric_text, target_rounds=tr, alpha=alpha)
        metric.bind(probe_universe(player.ruleset, base_point.prepared))
    probe_g, probe_s = player.play(base_point, games=PROBE_GAMES)
    ids = list(claim_scores(player.ruleset, base_point.prepared, probe_g, probe_s))
    if cobj.all_weight or cobj.weights:
        cobj.check(ids)
    scored = cobj.selected(ids)
    # every dim's alternatives must be accepted by the ruleset on their own
    for d in dims:
        for pn, kind, spec in d.params:
            ends = spec if kind == "cat" else spec[:2]
            for v in ends:
                vals = dict(d.default)
                vals[pn] = v
                player.prepare(merge_overrides([d], vals, player.table))
    if confirm_games is None:
        confirm_games = 5 * player.games
    if respond is not None:
        respond.check()
        if not scored or confirm_games <= 0 or confirm_points <= 0:
            raise InputError("--respond-trials checks the confirmed points' claims: it "
                             "needs a claims objective and --confirm-games above 0",
                             key="--respond-trials")
    confirm_seed = player.seed + 1 if confirm_seed is None else confirm_seed

    out_dir = make_out(out, name=f"{player.name}-claims", force=force, root=root, owned=FILES)
    names = [f"d_{c}" for c in scored] + (["metric"] if metric is not None else [])
    multi = len(names) >= 2
    info = {
        "kind": "tune-claims", "scenario_name": player.name,
        "scenario_path": str(scenario_path), "ruleset": base_point.prepared.ruleset,
        "seed": player.seed, "games": player.games, "objective": objective,
        "claims_scored": scored, "objectives": names, "spaces": spaces, "params": params,
        "dims": {d.name: {"space": d.space, "section": d.section,
                          "default": d.describe(d.default)} for d in dims},
        "sampler": "optuna NSGAIISampler" if multi else "optuna TPESampler",
        "sampler_seed": sampler_seed, "optuna": optuna.__version__, "trials": trials,
        "common_random_numbers": f"every trial plays games 0..{player.games - 1} of seed "
                                 f"{player.seed}",
        "distance_scale": "each claim part's distance is in multiples of the claim's own "
                          "tolerance (deepsim.report.verdicts); a claim's distance sums its "
                          "measured parts; 0 = holds",
        "placeholders_note": "tuned bags and floor weights stay flagged placeholder",
        "integers_kept": (list(player.ruleset.search_spaces().get("integers") or [])
                          if "rounding" in spaces else []),
        "sets": sets, "versions": runner.versions(), **machine(),
        "started_utc": utc_now(), "status": "running",
    }
    json_path = out_dir / "tune.json"
    with deferred_sigint():
        atomic_write_json(json_path, info)
    history: list[dict] = []
    notes: list[str] = []
    t0, c0 = time.perf_counter(), time.process_time()
    total_games = trials * player.games
    done = 0

    def score(prepared_point, n_games=None, progress_label=""):
        nonlocal done

        def tick(count):
            nonlocal done
            done += count
            if progress is not None:
                progress(min(done, total_games), total_games, progress_label)

        g, s = player.play(prepared_point, games=n_games, progress=tick if n_games is None
                           else None)
        sc = claim_scores(player.ruleset, prepared_point.prepared, g, s)
        mv = metric.evaluate(g, s)[0].value if metric is not None else math.nan
        return sc, mv

    def row_of(number, values, sc, mv, err, seconds, baseline):
        row = {"trial": number, "state": "FAIL" if err else "COMPLETE", "baseline": baseline}
        for d in dims:
            row[d.name] = d.describe(values) if values else None
        for c in ids:
            s = sc.get(c) if sc else None
            row[f"d_{c}"] = s.distance if s else math.nan
            row[f"v_{c}"] = s.verdict if s else ""
        row["holds"] = sum(holds(sc[c]) for c in scored) if sc else 0
        row["metric"] = mv
        row["value"] = (sum(cobj.weight(c) * _pen(row[f"d_{c}"]) for c in scored)
                        + (mv if metric is not None else 0.0)) if sc else math.nan
        row["changes"] = sum(not d.is_default(values) for d in dims) if values else 0
        row["seconds"] = round(seconds, 3)
        row["error"] = err
        return row

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if multi:
        sampler = optuna.samplers.NSGAIISampler(seed=sampler_seed)
        study = optuna.create_study(directions=["minimize"] * len(names), sampler=sampler)
    else:
        sampler = optuna.samplers.TPESampler(seed=sampler_seed)
        study = optuna.create_study(direction="minimize", sampler=sampler)
    base_values = {}
    for d in dims:
        base_values.update(d.default)
    study.enqueue_trial(base_values, user_attrs={"baseline": True})
    values_by_trial: dict[int, dict] = {}

    def fn(trial):
        values = {}
        for d in dims:
            values.update(d.suggest(trial))
        values_by_trial[trial.number] = values
        is_base = bool(trial.user_attrs.get("baseline"))
        t = time.perf_counter()
        label = "baseline (defaults)" if is_base else f"trial {trial.number}"
        try:
            pp = player.prepare(merge_overrides(dims, values, player.table))
        except InputError as exc:
            history.append(row_of(trial.number, values, None, math.nan, str(exc),
                                  time.perf_counter() - t, is_base))
            done_write()
            return tuple([float("nan")] * len(names)) if multi else float("nan")
        sc, mv = score(pp, progress_label=label)
        row = row_of(trial.number, values, sc, mv, "", time.perf_counter() - t, is_base)
        history.append(row)
        done_write()
        vec = [_pen(row[n]) if n != "metric" else float(mv) for n in names]
        return tuple(vec) if multi else vec[0]

    trials_path = out_dir / "trials.parquet"
    meta = {"kind": "tune-claims", "scenario": player.name, "seed": player.seed,
            "games": player.games, "objective": objective}

    def done_write():
        with deferred_sigint():
            write_parquet(trials_path, pd.DataFrame(history), meta)

    study.optimize(fn, n_trials=trials, catch=())
    frame = pd.DataFrame(history)
    ok = frame[frame["state"] == "COMPLETE"]
    if ok.empty:
        raise InputError(f"every trial was refused by the ruleset (see {trials_path})",
                         key="--space")
    frame["pareto"] = False
    obj_cols = names
    front_idx = _pareto(ok, obj_cols)
    frame.loc[front_idx, "pareto"] = True
    done_write()
    front = frame.loc[front_idx].sort_values(["holds", "value", "changes", "trial"],
                                             ascending=[False, True, True, True])
    # overrides of every Pareto point
    blocks = []
    for _, r in front.iterrows():
        ov = merge_overrides(dims, values_by_trial[int(r["trial"])], player.table)
        ov = {k: v for k, v in ov.items() if _differs(player, k, v)}
        held = ", ".join(c for c in scored if str(r[f"v_{c}"]).startswith("holds")) or "none"
        blocks.append(f"# trial {int(r['trial'])}: {int(r['holds'])} of {len(scored)} claims "
                      f"hold ({held}); total distance {r['value']:.3f}; "
                      f"{int(r['changes'])} changes from the defaults\n"
                      + _block(ov))
    header = (f"# deepsim tune {player.name} --objective {objective}: the Pareto set over "
              f"{', '.join(names)} ({len(front)} points, {trials} trials x "
              f"{player.games:,} games of seed {player.seed}).\n# Each block is a scenario "
              "overrides: block (only the values that differ from the defaults).\n\n")
    files_written = []
    with deferred_sigint():
        atomic_write_text(out_dir / "front.yaml", header + "\n".join(blocks))
    files_written.append("front.yaml")
    if make_plots:
        png = _front_plot(front, scored, f"{player.name}: Pareto set of {trials} trials "
                          f"({player.games:,} games each)")
        atomic_write_bytes(out_dir / "front.png", png)
        files_written.append("front.png")
    confirm = None
    confirmed_points: list[tuple[str, dict]] = []
    confirmed_scores: dict[str, dict] = {}
    if confirm_games > 0 and confirm_points > 0:
        # the point holding the most claims first (a distance of 0 with an inconclusive
        # verdict can dominate it, so it need not be on the front), then the front's
        others = frame[(frame["state"] == "COMPLETE") & ~frame["baseline"].astype(bool)]
        top = others.sort_values(["holds", "value", "changes", "trial"],
                                 ascending=[False, True, True, True]).head(1)
        pick = pd.concat([top, front[~front["baseline"].astype(bool)]]).drop_duplicates(
            "trial").head(confirm_points)  # baseline: once
        rows = []
        base_sc = None
        base_total = math.nan
        for name, vals in [("baseline", base_values)] + [
                (f"trial {int(r['trial'])}", values_by_trial[int(r["trial"])])
                for _, r in pick.iterrows()]:
            pp = player.prepare(merge_overrides(dims, vals, player.table), games=confirm_games,
                                seed=confirm_seed)
            if progress is not None:
                progress(total_games, total_games, f"confirm {name}: {confirm_games:,} "
                                                   f"games, seed {confirm_seed}")
            g, s = player.play(pp, games=confirm_games)
            sc = claim_scores(player.ruleset, pp.prepared, g, s)
            confirmed_points.append((name, merge_overrides(dims, vals, player.table)))
            confirmed_scores[name] = sc
            tot = sum(cobj.weight(c) * _pen(sc[c].distance) for c in scored)
            if base_sc is None:
                base_sc, base_total = sc, tot
            row = {"point": name, "games": confirm_games, "seed": confirm_seed,
                   "holds": sum(holds(sc[c]) for c in scored), "total": tot,
                   "change_vs_baseline": tot - base_total}
            for c in ids:
                row[f"v_{c}"] = sc[c].verdict
                row[f"d_{c}"] = sc[c].distance
            rows.append(row)
        confirm = pd.DataFrame(rows)
        with deferred_sigint():
            write_parquet(out_dir / "confirm.parquet", confirm, meta)
        files_written.append("confirm.parquet")
    respond_block = ""
    if respond is not None and confirmed_points:
        t_r = time.perf_counter()

        def rprog(i, n, what):
            if progress is not None:
                progress(total_games, total_games, what)

        rclaims, rfactions = respond_check(
            player, confirmed_points, scored=scored, weight=cobj.weight,
            penalty=UNMEASURED_PENALTY, budget=respond, confirm_games=confirm_games,
            confirm_seed=confirm_seed, shipped=confirmed_scores, progress=rprog)
        with deferred_sigint():
            write_parquet(out_dir / "respond_claims.parquet", rclaims, meta)
            write_parquet(out_dir / "respond_factions.parquet", rfactions, meta)
        files_written += ["respond_claims.parquet", "respond_factions.parquet"]
        respond_block = respond_md(rclaims, rfactions, scored, respond)
        info["respond"] = {"trials": respond.trials, "games": respond.games,
                           "wall_time_s": round(time.perf_counter() - t_r, 3),
                           "points": rclaims[["point", "holds_shipped", "holds_start",
                                              "holds_br", "changed"]]
                           .to_dict(orient="records")}
    md = findings_md(frame, dims, scored, player=player.name, games=player.games,
                     seed=player.seed, trials=trials, objective=objective, confirm=confirm,
                     integers=info["integers_kept"], sets=sets)
    if respond_block:
        md = md.rstrip("\n") + "\n\n" + respond_block
    with deferred_sigint():
        atomic_write_text(out_dir / "findings.md", md)
    files_written.append("findings.md")
    best = front.iloc[0]
    info.update({
        "best": {"trial": int(best["trial"]), "holds": int(best["holds"]),
                 "value": float(best["value"]),
                 "point": {d.name: best[d.name] for d in dims}},
        "pareto_trials": [int(t) for t in front["trial"]], "notes": notes,
        "finished_utc": utc_now(), "wall_time_s": round(time.perf_counter() - t0, 3),
        "cpu_time_s": round(time.process_time() - c0, 3),
        "status": "complete", "files": files_written,
    })
    with deferred_sigint():
        atomic_write_json(json_path, info)
    return ReconstructResult(out_dir, frame, scored, front, confirm, md, info, notes)


def trial_points(player: Player, folder: Path | str,
                 numbers: list[int]) -> list[tuple[str, dict]]:
    """The overrides of trials ``numbers`` of the finished claims tune in ``folder``, as
    ``[("trial N", {path: value}), ...]``: a point that is not on the tune's front (its
    ``front.yaml`` lists only those) replayed on its own, e.g. by
    ``python -m deepsim.studies.respond_check --trial N``.

    Each dim's value is read back from the trial's row of ``trials.parquet``: a reading by
    its name, a bag by its counts, floor weights by their list, a printed number or Maw pace by the value it was
    written with (4 decimals: within 5e-5 of the trial's, and a pace still scales the
    same whole number of fine steps unless it sat within that of a rounding edge).
    ``player`` must be the tune's scenario with its ``--set`` overrides.

    Raises
    ------
    InputError
        The folder is not a finished claims tune, a trial number is not one of its
        completed trials, or a dim's value cannot be read back.
    """
    import json

    d = Path(folder)
    for name in ("tune.json", "trials.parquet"):
        if not (d / name).is_file():
            raise InputError(f"not a finished claims tune (no {name})", file=str(d))
    info = json.loads((d / "tune.json").read_text(encoding="utf-8"))
    if info.get("kind") != "tune-claims":
        raise InputError("not a claims tune's tune.json", file=str(d / "tune.json"))
    dims = _dims_of(player, list(info.get("spaces") or []), list(info.get("params") or []))
    frame = pd.read_parquet(d / "trials.parquet")
    out = []
    for n in numbers:
        hit = frame[(frame["trial"] == n) & (frame["state"] == "COMPLETE")]
        if hit.empty:
            raise InputError(f"trial {n} is not a completed trial of this tune",
                             file=str(d / "trials.parquet"), key="--trial")
        row = hit.iloc[0]
        values: dict = {}
        for dim in dims:
            if dim.name not in row.index:
                raise InputError(f"trials.parquet has no column {dim.name!r}",
                                 file=str(d / "trials.parquet"))
            values.update(_values_back(dim, str(row[dim.name])))
        out.append((f"trial {n}", merge_overrides(dims, values, player.table)))
    return out


def best_trial(folder: Path | str) -> int:
    """The trial of the claims tune in ``folder`` holding the most claims (then the smallest
    total distance, fewest changes, earliest), the baseline left out: the point the
    tune's confirmation replays first.

    Raises
    ------
    InputError
        No ``trials.parquet`` in ``folder``, or no completed trial but the baseline.
    """
    p = Path(folder) / "trials.parquet"
    if not p.is_file():
        raise InputError("not a finished claims tune (no trials.parquet)", file=str(folder))
    t = pd.read_parquet(p)
    t = t[(t["state"] == "COMPLETE") & ~t["baseline"].astype(bool)]
    if t.empty:
        raise InputError("no completed trial but the baseline", file=str(p))
    return int(t.sort_values(["holds", "value", "changes", "trial"],
                             ascending=[False, True, True, True]).iloc[0]["trial"])


def refresh_findings(folder: Path | str) -> str:
    """Write the finished claims tune's ``findings.md`` again from its files
    (``tune.json``, ``trials.parquet``, ``confirm.parquet``, the respond check's parquet
    files) with today's :func:`findings_md`, and return it: a tune run before a change of
    the section's wording need not be played again.

    Raises
    ------
    InputError
        The folder is not a finished claims tune, or its scenario no longer loads.
    """
    import json

    d = Path(folder)
    for name in ("tune.json", "trials.parquet"):
        if not (d / name).is_file():
            raise InputError(f"not a finished claims tune (no {name})", file=str(d))
    info = json.loads((d / "tune.json").read_text(encoding="utf-8"))
    if info.get("kind") != "tune-claims" or info.get("status") != "complete":
        raise InputError("not a finished claims tune", file=str(d / "tune.json"))
    player = Player(info["scenario_path"], games=int(info["games"]), seed=int(info["seed"]),
                    sets=list(info.get("sets") or []))
    dims = _dims_of(player, list(info.get("spaces") or []), list(info.get("params") or []))
    frame = pd.read_parquet(d / "trials.parquet")
    confirm = (pd.read_parquet(d / "confirm.parquet")
               if (d / "confirm.parquet").is_file() else None)
    md = findings_md(frame, dims, list(info.get("claims_scored") or []),
                     player=info["scenario_name"], games=int(info["games"]),
                     seed=int(info["seed"]), trials=int(info["trials"]),
                     objective=info["objective"], confirm=confirm,
                     integers=info.get("integers_kept"), sets=info.get("sets"))
    if (d / "respond_claims.parquet").is_file() and info.get("respond"):
        budget = RespondBudget(int(info["respond"]["trials"]), int(info["respond"]["games"]))
        block = respond_md(pd.read_parquet(d / "respond_claims.parquet"),
                           pd.read_parquet(d / "respond_factions.parquet"),
                           list(info.get("claims_scored") or []), budget)
        md = md.rstrip("\n") + "\n\n" + block
    with deferred_sigint():
        atomic_write_text(d / "findings.md", md)
    return md


def _values_back(dim: Dim, text: str) -> dict:
    """Optuna values of ``dim`` from its :meth:`Dim.describe` text (see trial_points)."""
    if dim.kind == "reading":
        if text not in dim.data["alternatives"]:
            raise InputError(f"{dim.name}: no reading named {text!r}", key="--trial")
        return {dim.name: text}
    if dim.kind in ("rounding", "pace"):
        return {dim.params[0][0]: float(text.split(" ")[0])}
    if dim.kind == "param":
        pname, kind, spec = dim.params[0]
        if kind == "cat":
            for c in spec:
                if format_value(c) == text or str(c) == text:
                    return {pname: c}
            raise InputError(f"{dim.name}: no choice {text!r}", key="--trial")
        return {pname: int(text) if kind == "int" else float(text)}
    if dim.kind == "bag":
        counts = {k: int(v) for k, v in (p.rsplit(" ", 1) for p in text.split(", ") if p)}
        size = sum(counts.values())
        mix = [p for p, _, _ in dim.params if p != dim.data.get("size_param")]
        vals = {p: counts.get(die, 0) / size for p, die in zip(mix, dim.data["dice"],
                                                              strict=True)}
        if dim.data.get("size_param"):
            vals[dim.data["size_param"]] = size
        return vals
    if dim.kind == "weights":     # written in full (format_value): read back exactly
        import yaml
        w = yaml.safe_load(text)
        if not isinstance(w, list) or len(w) != len(dim.params):
            raise InputError(f"{dim.name}: expected {len(dim.params)} weights, got {text!r}",
                             key="--trial")
        return {p: float(x) for (p, _, _), x in zip(dim.params, w, strict=True)}
    raise InputError(f"{dim.name}: a {dim.kind} dim is not read back from trials.parquet; "
                     "give the tune's front.yaml instead", key="--trial")


def _pen(d) -> float:
    d = float(d)
    return UNMEASURED_PENALTY if math.isnan(d) else d


def _differs(player: Player, path: str, value) -> bool:
    row = player.table.get(path)
    return row is None or row.get("default") != value


def _block(ov: dict) -> str:
    lines = ["overrides:"] + [f"  {k}: {format_value(v)}" for k, v in ov.items()]
    if not ov:
        lines = ["overrides: {}"]
    return "\n".join(lines) + "\n"


def _pareto(frame: pd.DataFrame, cols: list[str]) -> list:
    """Index labels of the rows no other row dominates (<= everywhere, < somewhere) on
    ``cols`` (NaN counted as the unmeasured penalty)."""
    vals = frame[cols].astype(float).fillna(UNMEASURED_PENALTY).to_numpy()
    keep = []
    for i in range(len(vals)):
        dominated = ((vals <= vals[i]).all(axis=1) & (vals < vals[i]).any(axis=1)).any()
        if not dominated:
            keep.append(frame.index[i])
    return keep


def _front_plot(front: pd.DataFrame, scored: list[str], title: str) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    n = len(front)
    data = front[[f"d_{c}" for c in scored]].astype(float).to_numpy()
    fig, ax = plt.subplots(figsize=(1.2 + 0.7 * len(scored), 1.5 + 0.35 * n), dpi=110)
    shown = np.log10(1 + np.nan_to_num(data, nan=UNMEASURED_PENALTY))
    im = ax.imshow(shown, aspect="auto", cmap="magma_r")
    ax.set_xticks(range(len(scored)), scored)
    ax.set_yticks(range(n), [f"trial {int(t)} ({int(h)} hold)"
                             for t, h in zip(front["trial"], front["holds"], strict=True)])
    for i, j in itertools.product(range(n), range(len(scored))):
        v = data[i, j]
        held = str(front[f"v_{scored[j]}"].iloc[i]).startswith("holds")
        ax.text(j, i, "holds" if held else ("-" if math.isnan(v) else f"{v:.2g}"),
                ha="center", va="center", fontsize=7,
                color="black" if shown[i, j] < 0.6 else "white")
    fig.colorbar(im, ax=ax, label="log10(1 + distance)")
    ax.set_title(title, fontsize=9)
    fig.text(0.01, 0.005, "distance: how far each claim's point estimate lies outside its "
             "holds region, in multiples of the claim's tolerance (0 = holds)", fontsize=6)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _changes(row: pd.Series, dims: list[Dim], base: pd.Series) -> list[str]:
    """Readings, numbers and ``--param`` values that differ from the defaults, one each;
    changed placeholder tables counted (their values: ``front.yaml``, trials.parquet)."""
    diff = [d for d in dims if row[d.name] != base[d.name]]
    out = [f"{d.name}: {row[d.name]}" for d in diff if d.space != "placeholders"]
    ph = [d.name for d in diff if d.space == "placeholders"]
    if ph:
        out.append(f"{len(ph)} placeholder table(s) changed ({', '.join(ph)})")
    return out


def findings_md(frame: pd.DataFrame, dims: list[Dim], scored: list[str], *, player: str,
                games: int, seed: int, trials: int, objective: str,
                confirm: pd.DataFrame | None = None, integers: list | None = None,
                sets: list[str] | None = None) -> str:
    """The "Readings under which the claims hold" section (markdown): the best point for
    each claim alone, for all jointly, the claims that conflict (no trial holds both;
    evidence from the trials searched, not a proof), the fewest changes from the defaults
    that make the most claims hold, and each rounded number's continuous value there."""
    ok = frame[frame["state"] == "COMPLETE"].copy()
    base = ok[ok["baseline"]].iloc[0] if ok["baseline"].any() else None
    lines = ["## Readings under which the claims hold", "",
             f"`deepsim tune {player} --objective {objective}`: {trials} trials of "
             f"{games:,} games (seed {seed}, the same games every trial); searched: "
             + ", ".join(f"{d.name} ({d.space}{', ' + d.section if d.section else ''})"
                         for d in dims) + (f"; on top of --set {', '.join(sets)}" if sets else "")
             + ". Distances are in multiples of each claim's "
             "tolerance (0 = the claim holds). Readings are judged under their own rules: "
             "a claim part that needs a run of another reading is left out. Tuned bags and "
             "floor weights remain placeholder data.", ""]
    if not scored:  # a metric objective over declared spaces: no claims to tabulate
        best = ok.sort_values(["value", "changes", "trial"]).iloc[0]
        ch = _changes(best, dims, base) if base is not None else []
        lines.append(f"No claim is scored by {objective!r}. Best point: trial "
                     f"{int(best['trial'])}, value {best['value']:.4g}"
                     + (f" (defaults {base['value']:.4g})" if base is not None else "")
                     + f"; changes: {'; '.join(ch) or 'none'}.")
        return "\n".join(lines) + "\n"
    if base is not None:
        held = [c for c in scored if str(base[f"v_{c}"]).startswith("holds")]
        lines.append(f"At the defaults {len(held)} of {len(scored)} claims hold"
                     f" ({', '.join(held) or 'none'}).")
        lines.append("")
    lines += ["| claim | best trial | distance | verdict | changes from the defaults |",
              "|---|---|---|---|---|"]
    for c in scored:
        ranked = ok.assign(_held=~ok[f"v_{c}"].astype(str).str.startswith("holds"))
        d = ranked.sort_values(["_held", f"d_{c}", "changes", "trial"]).iloc[0]
        ch = _changes(d, dims, base) if base is not None else []
        lines.append(f"| {c} | {int(d['trial'])} | {d[f'd_{c}']:.3g} | {d[f'v_{c}']} | "
                     f"{'; '.join(ch) or 'none'} |")
    lines.append("")
    joint = ok.sort_values(["holds", "value", "changes", "trial"],
                           ascending=[False, True, True, True]).iloc[0]
    held = [c for c in scored if str(joint[f"v_{c}"]).startswith("holds")]
    lines.append(f"**Jointly**: at most {int(joint['holds'])} of {len(scored)} claims hold at "
                 f"one point (trial {int(joint['trial'])}, total distance "
                 f"{joint['value']:.3g}: {', '.join(held) or 'none'}).")
    # a rounded number's continuous value still prints as the rulebook's number: not a
    # change (as the summary over several tunes counts them)
    most = ok[ok["holds"] == ok["holds"].max()].copy()
    kept = [d for d in dims if d.kind not in ("rounding", "pace")]
    most["_nchg"] = (sum((most[d.name] != base[d.name]).astype(int) for d in kept)
                     if base is not None and kept else 0)
    moved = [d for d in dims if d.kind in ("rounding", "pace")]
    most["_nround"] = (sum((most[d.name] != base[d.name]).astype(int) for d in moved)
                       if base is not None and moved else 0)
    small = most.sort_values(["_nchg", "_nround", "value", "trial"]).iloc[0]
    ch = _changes(small, kept, base) if base is not None else []
    cont = [f"{d.name} = {small[d.name]}" for d in dims if d.kind in ("rounding", "pace")
            and base is not None and small[d.name] != base[d.name]]
    lines.append(f"**Fewest changes** from the defaults for {int(small['holds'])} claims "
                 "holding (a rounded number's continuous value is not a change): "
                 f"{int(small['_nchg'])} (trial {int(small['trial'])}): "
                 f"{'; '.join(ch) or 'none'}"
                 + (f"; with the printed numbers read as {'; '.join(cont)}" if cont else "")
                 + ".")
    conflicts = []
    for a, b in itertools.combinations(scored, 2):
        ha = ok[f"v_{a}"].str.startswith("holds")
        hb = ok[f"v_{b}"].str.startswith("holds")
        if ha.any() and hb.any() and not (ha & hb).any():
            conflicts.append(f"{a}-{b}")
    never = [c for c in scored if not ok[f"v_{c}"].str.startswith("holds").any()]
    lines.append("**Conflicts** (each holds at some trial, never both at one): "
                 + (", ".join(conflicts) or "none found") + ". "
                 + (f"Never held in these trials: {', '.join(never)}." if never else ""))
    rounding = [d for d in dims if d.kind == "rounding"]
    if rounding:
        lines.append("**Continuous values** behind the printed numbers at the joint best "
                     "point: " + "; ".join(f"{d.name} = {joint[d.name]}" for d in rounding)
                     + ".")
    if integers:
        lines.append("**Printed integers kept** (the interval that rounds to an integer the "
                     "kernel counts with holds no other playable integer; neighbours only "
                     "through --param): " + "; ".join(
                         f"{i.get('section', i['path'])} ({i['path']}: {i.get('printed', '')})"
                         for i in integers) + ".")
    if confirm is not None and len(confirm):
        lines += ["", (f"Confirmed on {int(confirm['games'].iloc[0]):,} fresh games (seed "
                       f"{int(confirm['seed'].iloc[0])}, the same games for every point: "
                       "paired):"),
                  "", "| point | claims holding | total distance | change vs defaults | "
                  + " | ".join(scored) + " |",
                  "|---|---|---|---|" + "---|" * len(scored)]
        for _, r in confirm.iterrows():
            lines.append(f"| {r['point']} | {int(r['holds'])} | {r['total']:.3g} | "
                         f"{r['change_vs_baseline']:+.3g} | "
                         + " | ".join(short_verdict(r[f'v_{c}']) for c in scored) + " |")
        lines.append("")
        lines.append("\\* holds or fails on the parts measurable under the point's own "
                     "reading (a part needing another reading's run is left out).")
    lines.append("")
    return "\n".join(lines)
