"""``deepsim tune SCENARIO --param PATH=LOW:HIGH ... --objective NAME --trials N``.

Searches parameter values with optuna's TPE sampler, seeded (``--sampler-seed``), so the
same command gives the same trials. Every trial plays games ``0 .. games-1`` of the same
seed (common random numbers). When the ruleset's defaults lie inside the search space, the
first trial is the baseline (defaults), so the search starts from it and the history shows
it; otherwise the baseline is played once beside the trials (``trial = -1``).

The output folder (``--out``, default ``reports/tunes/<scenario>-<stamp>-<hex>``) holds:

- ``best.yaml``: the best parameter set as a ready-to-paste scenario ``overrides:`` block
  (the scenario's own overrides and ``--set`` values merged in);
- ``trials.parquet``: one row per trial: ``trial``, ``state``, ``baseline``, one column per
  searched path, ``value``, ``low``, ``high`` (95% interval of the objective), one column
  per objective term, ``note`` (worst group), ``seconds``, ``error`` (why the ruleset
  refused a sampled point); rewritten atomically after each trial;
- ``objective.png``: objective vs trial with the best so far;
- ``tune.json``: what was run, the best trial and the confirmation;
- ``confirm-baseline/`` and ``confirm-best/``: real run directories (``deepsim run``'s
  format) of the defaults and of the best point at ``--confirm-games`` games from an
  independent seed (``--confirm-seed``, default the tuning seed + 1), each with its full
  report in ``report/``: the gain is real only if it holds on games the search never saw.
  Both re-runs play the same game indices of that seed, so ``tune.json``'s ``confirm``
  gives the change with a paired bootstrap interval (each game index weighted alike in
  both runs) and ``p_not_better``, the share of replicates where the change is >= 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from deepsim import runner
from deepsim.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text, deferred_sigint
from deepsim.errors import InputError
from deepsim.measure.spec import target_of
from deepsim.output import read_manifest, read_run
from deepsim.params import later_wins
from deepsim.report.load import schema_names
from deepsim.runfolders import (
    DEFAULT_TUNES_ROOT,
    check_out,
    machine,
    make_out,
    utc_now,
    write_parquet,
)
from deepsim.tune import plots
from deepsim.tune.grid import SearchSpace, format_value, parse_search
from deepsim.tune.objectives import (
    Objective,
    Value,
    parse_objective,
    probe_universe,
)
from deepsim.tune.play import Player
from deepsim.tune.settings import Settings

__all__ = ["TuneResult", "overrides_yaml", "run_tune"]

TUNE_FILES = ("best.yaml", "trials.parquet", "objective.png", "tune.json",
              "confirm-baseline", "confirm-best")
#: Replicates of the paired bootstrap of the confirmed change.
BOOTSTRAP_REPS = 400
#: (done games, total games, what is playing) -> None
ProgressFn = Callable[[int, int, str], None]


@dataclass
class TuneResult:
    """What :func:`run_tune` did."""

    out_dir: Path
    trials: pd.DataFrame
    best: dict
    best_value: float
    baseline_value: float
    yaml_block: str
    info: dict
    confirm: dict | None = None
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def overrides_yaml(overrides: dict, header: list[str] | None = None) -> str:
    """A scenario ``overrides:`` block, one ``path: value`` per line, with comment lines."""
    lines = [f"# {h}" for h in header or []]
    lines.append("overrides:")
    for path, value in overrides.items():
        lines.append(f"  {path}: {format_value(value)}")
    return "\n".join(lines) + "\n"


def _suggest(trial, space: SearchSpace):
    if space.categorical:
        return trial.suggest_categorical(space.path, list(space.choices))
    if space.kind == "int":
        return trial.suggest_int(space.path, int(space.low), int(space.high),
                                 step=int(space.step or 1))
    return trial.suggest_float(space.path, float(space.low), float(space.high),
                               step=space.step)


def _clean(value):
    """Floats from a stepped float search are rounded to the step's decimals."""
    if isinstance(value, float):
        return float(f"{value:.12g}")
    return value


def run_tune(scenario_path: Path | str, params: list[str], *, objective: str | None = None,
             trials: int = 30, sampler_seed: int = 0, confirm_games: int | None = None,
             confirm_seed: int | None = None, report: bool = True,
             settings: Settings | None = None, progress: ProgressFn | None = None
             ) -> TuneResult:
    """Run a tune and write its folder; see the module docstring.

    Parameters
    ----------
    scenario_path : Path or str
    params : list of str
        ``PATH=LOW:HIGH[:STEP]`` or ``PATH=a,b,c`` (see :func:`deepsim.tune.grid.parse_search`).
    objective : str, optional
        A built-in objective or a weighted sum (:func:`deepsim.tune.objectives.parse_objective`);
        default: the ruleset's ``default_objective``.
    trials : int
        optuna trials (>= 1), the baseline trial included when it is in the space.
    sampler_seed : int
        Seed of optuna's TPE sampler: same seed, same trials.
    confirm_games : int, optional
        Games of the confirmation runs (default 5 x ``games``; 0 skips them).
    confirm_seed : int, optional
        Their seed (default ``seed + 1``: games the search never saw).
    report : bool
        Write the full report of each confirmation run.
    settings : Settings, optional
        Games per trial and their seed (default: the scenario's), overrides at every
        trial, chunking, threads, interval level, the target of ``length_error``, the
        output folder (default: a new folder under ``reports/tunes``) and plots
        (:class:`deepsim.tune.settings.Settings`; default: all defaults).
    progress : callable(done, total, label), optional

    Raises
    ------
    InputError
        Bad scenario, ``--param``, ``--objective``, ``--set``, trial count, a search range
        whose ends the ruleset refuses, or an existing ``out`` without ``force``: all
        checked before any game runs.
    """
    import optuna

    st = settings or Settings()
    games, seed, sets, chunk_size, threads = (st.games, st.seed, list(st.sets),
                                              st.chunk_size, st.threads)
    out, force, alpha, target_rounds = st.out, st.force, st.alpha, st.target_rounds
    make_plots = st.make_plots
    root = DEFAULT_TUNES_ROOT if st.root is None else st.root
    check_out(out, force)
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InputError(f"expected at least 1 trial, got {trials!r}", key="--trials")
    player = Player(scenario_path, games=games, seed=seed, sets=sets, chunk_size=chunk_size,
                    threads=threads)
    if objective is None:
        objective = player.ruleset.default_objective
    if target_rounds is None:
        target_rounds = target_of(player.ruleset)
    obj: Objective = parse_objective(objective, target_rounds=target_rounds, alpha=alpha)
    spaces = [parse_search(p, player.table) for p in params]
    if not spaces:
        raise InputError("give at least one --param PATH=LOW:HIGH", key="--param")
    paths = [s.path for s in spaces]
    dup = sorted({p for p in paths if paths.count(p) > 1})
    if dup:
        raise InputError(f"'{dup[0]}' is given by two --param options", key="--param")
    set_paths = {o.split("=", 1)[0].strip() for o in sets if "=" in o}
    both = [p for p in paths if p in set_paths]
    if both:
        raise InputError(f"'{both[0]}' is both searched (--param) and fixed (--set); drop one",
                         key="--param")
    if confirm_games is None:
        confirm_games = 5 * player.games
    if isinstance(confirm_games, bool) or not isinstance(confirm_games, int) or confirm_games < 0:
        raise InputError(f"expected a game count >= 0, got {confirm_games!r}",
                         key="--confirm-games")
    confirm_seed = player.seed + 1 if confirm_seed is None else confirm_seed
    # every end of every range must be valid on its own (one parameter at a time)
    baseline_point = player.prepare({})
    obj.bind(probe_universe(player.ruleset, baseline_point.prepared))
    for space in spaces:
        ends = space.choices if space.categorical else (space.low, space.high)
        for v in ends:
            player.prepare({space.path: _clean(v)})
    defaults = {s.path: s.default for s in spaces}
    baseline_in_space = all(s.contains(s.default) for s in spaces)

    out_dir = make_out(out, name=f"{player.name}-tune", force=force, root=root,
                       owned=TUNE_FILES)
    notes: list[str] = []
    history: list[dict] = []
    trials_path = out_dir / "trials.parquet"
    info = {
        "kind": "tune", "scenario_name": player.name, "scenario_path": str(scenario_path),
        "ruleset": baseline_point.prepared.ruleset, "seed": player.seed,
        "games": player.games, "chunk_size": player.chunk_size, "threads": player.threads,
        "common_random_numbers": f"every trial plays games 0..{player.games - 1} of seed "
                                 f"{player.seed}",
        "objective": obj.text, "terms": [[w, n] for w, n in obj.terms], "alpha": alpha,
        "target_rounds": None if math.isnan(target_rounds) else target_rounds, "trials": trials, "sampler": "optuna TPESampler",
        "sampler_seed": sampler_seed, "optuna": optuna.__version__,
        "space": {s.path: s.describe() for s in spaces}, "defaults": defaults,
        "sets": sets, "scenario_overrides": player.scenario_overrides,
        "placeholders": list(baseline_point.prepared.placeholders),
        "versions": runner.versions(), **machine(), "started_utc": utc_now(),
        "finished_utc": None, "wall_time_s": None, "status": "running",
    }
    json_path = out_dir / "tune.json"
    with deferred_sigint():
        atomic_write_json(json_path, info)
    need_s = obj.seats_columns
    need_g = obj.games_columns | {"players"}
    total = (trials + (0 if baseline_in_space else 1)) * player.games
    done = 0
    t0 = time.perf_counter()
    meta = {"kind": "tune", "scenario": player.name, "seed": player.seed,
            "games": player.games, "objective": obj.text}

    def evaluate(point: dict, label: str) -> tuple[Value, dict[str, Value], str]:
        nonlocal done
        try:
            prepared = player.prepare(point)
        except InputError as exc:
            done += player.games
            if progress is not None:
                progress(done, total, label)
            return Value(math.nan, math.nan, math.nan, 0), {}, str(exc)

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total, label)

        g, s = player.play(prepared, seats_columns=need_s, games_columns=need_g,
                           progress=tick)
        value, parts = obj.evaluate(g, s)
        return value, parts, ""

    def record(trial_no: int, point: dict, value: Value, parts: dict, error: str,
               seconds: float, baseline: bool) -> None:
        row = {"trial": trial_no, "state": "FAIL" if error else "COMPLETE",
               "baseline": baseline}
        row.update({p: point.get(p) for p in paths})
        row.update({"value": value.value, "low": value.low, "high": value.high})
        for _, name in obj.terms:
            v = parts.get(name)
            row[name] = v.value if v is not None else math.nan
        row.update({"note": value.note, "seconds": round(seconds, 3), "error": error})
        history.append(row)
        with deferred_sigint():
            write_parquet(trials_path, pd.DataFrame(history), meta)

    if progress is not None:
        progress(0, total, "baseline")
    baseline_value: Value | None = None
    baseline_parts: dict = {}
    if not baseline_in_space:
        t = time.perf_counter()
        baseline_value, baseline_parts, err = evaluate({}, "baseline (defaults)")
        record(-1, dict(defaults), baseline_value, baseline_parts, err,
               time.perf_counter() - t, True)
        notes.append("the defaults lie outside the search space: the baseline was played "
                     "beside the trials (trial -1)")

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=sampler_seed)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    if baseline_in_space:
        study.enqueue_trial(dict(defaults), user_attrs={"baseline": True})

    def objective_fn(trial) -> float:
        nonlocal baseline_value, baseline_parts
        point = {s.path: _clean(_suggest(trial, s)) for s in spaces}
        is_base = bool(trial.user_attrs.get("baseline"))
        label = "baseline (defaults)" if is_base else (
            f"trial {trial.number}: " + ", ".join(f"{k}={format_value(v)}"
                                                  for k, v in point.items()))
        t = time.perf_counter()
        value, parts, err = evaluate(point, label)
        record(trial.number, point, value, parts, err, time.perf_counter() - t, is_base)
        if is_base:
            baseline_value, baseline_parts = value, parts
        if err:
            trial.set_user_attr("error", err)
            return float("nan")  # optuna marks the trial FAIL and goes on
        return float(value.value)

    study.optimize(objective_fn, n_trials=trials, catch=())
    frame = pd.DataFrame(history)
    complete = frame[(frame["state"] == "COMPLETE") & (frame["trial"] >= 0)]
    if complete.empty:
        raise InputError("every trial was refused by the ruleset (see trials.parquet's "
                         f"error column in {out_dir})", key="--param")
    best_row = complete.sort_values(["value", "trial"], kind="stable").iloc[0]
    best = {p: _py(best_row[p]) for p in paths}
    for space in spaces:
        v = best[space.path]
        if not space.categorical and v in (space.low, space.high):
            end = "low" if v == space.low else "high"
            notes.append(f"{space.path} = {format_value(v)} is at the {end} end of its range "
                         f"({space.describe()}): the optimum may lie beyond it; widen the "
                         "range if the rules allow")
    base_val = baseline_value.value if baseline_value is not None else math.nan
    merged = later_wins(player.scenario_overrides, sets, best)
    header = [(f"deepsim tune {player.name}: {obj.text} {base_val:.4g} (defaults) -> "
               f"{best_row['value']:.4g} (trial {int(best_row['trial'])} of {trials}), "
               f"{player.games:,} games of seed {player.seed} per trial"),
              "paste into the scenario file (replaces its overrides: block)"]
    block = overrides_yaml(merged, header)
    files = [trials_path, json_path]
    with deferred_sigint():
        atomic_write_text(out_dir / "best.yaml", block)
    files.append(out_dir / "best.yaml")
    if make_plots:
        png = plots.trials_plot(
            frame[frame["trial"] >= 0], obj.text, baseline=base_val,
            title=f"{obj.text} per trial ({player.name}, TPE seed {sampler_seed})",
            footer=f"{player.games:,} games of seed {player.seed} per trial (common random "
                   "numbers); error bars = 95% intervals")
        atomic_write_bytes(out_dir / "objective.png", png)
        files.append(out_dir / "objective.png")

    confirm = None
    if confirm_games > 0:
        confirm = _confirm(player, obj, best, out_dir, games=confirm_games, seed=confirm_seed,
                           report=report, progress=progress, notes=notes)
    info.update({
        "best": {"trial": int(best_row["trial"]), "params": best, "value": best_row["value"],
                 "low": best_row["low"], "high": best_row["high"], "note": best_row["note"]},
        "baseline": {"value": base_val,
                     "terms": {k: v.value for k, v in baseline_parts.items()}},
        "overrides_block": block, "confirm": confirm, "notes": notes,
        "finished_utc": utc_now(), "wall_time_s": round(time.perf_counter() - t0, 3),
        "status": "complete",
    })
    with deferred_sigint():
        atomic_write_json(json_path, info)
    return TuneResult(out_dir=out_dir, trials=frame, best=best,
                      best_value=float(best_row["value"]), baseline_value=base_val,
                      yaml_block=block, info=info, confirm=confirm, files=files, notes=notes)


def _py(value):
    if hasattr(value, "item"):
        value = value.item()
    return _clean(value)


def _confirm(player: Player, obj: Objective, best: dict, out_dir: Path, *, games: int,
             seed: int, report: bool, progress: ProgressFn | None, notes: list[str]) -> dict:
    """Play the defaults and the best point at ``games`` games of ``seed`` as real runs."""
    result: dict = {"games": games, "seed": seed, "runs": {}}
    total = 2 * games
    offset = 0
    frames: dict = {}
    for name, point in (("baseline", {}), ("best", best)):
        overrides = player.sets + [f"{k}={format_value(v)}" for k, v in point.items()]
        ruleset, scenario, prepared = runner.resolve(player.scenario_path, games=games,
                                                     seed=seed, overrides=overrides)
        run_dir = out_dir / f"confirm-{name}"
        run_dir.mkdir()

        def on_progress(done: int, _total: int, name=name, base=offset) -> None:
            if progress is not None:
                progress(base + done, total, f"confirm {name}: {games:,} games, seed {seed}")

        runner.execute(ruleset, prepared, scenario, out_dir=run_dir,
                       source=str(player.scenario_path), overrides=overrides,
                       threads=player.threads, progress=on_progress)
        offset += games
        manifest = read_manifest(run_dir)
        g_have = set(schema_names(run_dir, manifest, "games") or ())
        s_have = set(schema_names(run_dir, manifest, "seats") or ())
        g, s = read_run(run_dir,
                        games_columns=sorted((obj.games_columns | {"game", "players"}) & g_have),
                        seats_columns=sorted((obj.seats_columns | {"game"}) & s_have))
        frames[name] = (g, s)
        value, parts = obj.evaluate(g, s)
        entry = {"run_dir": str(run_dir), "overrides": overrides, "value": value.value,
                 "low": value.low, "high": value.high, "note": value.note,
                 "terms": {k: {"value": v.value, "low": v.low, "high": v.high, "note": v.note}
                           for k, v in parts.items()}}
        if report:
            try:
                from deepsim.reporting import report_runs

                _, paths = report_runs([run_dir])
                entry["report"] = str(paths[0].parent)
            except Exception as exc:  # noqa: BLE001 - the runs stand; say what failed
                notes.append(f"the report of {run_dir} failed ({exc}); retry with: deepsim "
                             f"report {run_dir}")
        result["runs"][name] = entry
    base, bst = result["runs"]["baseline"]["value"], result["runs"]["best"]["value"]
    result["change"] = bst - base
    result["change_rel"] = (bst - base) / base if base else math.nan
    if progress is not None:
        progress(total, total, "paired bootstrap of the change")
    boot = obj.bootstrap_change(frames["baseline"], frames["best"], reps=BOOTSTRAP_REPS,
                                seed=seed)
    result["change_low"], result["change_high"] = boot["low"], boot["high"]
    result["p_not_better"] = boot["p_not_better"]
    result["bootstrap_reps"] = boot["reps"]
    return result
