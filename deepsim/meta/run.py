"""``deepsim meta``'s run: :func:`run_meta` (see :mod:`deepsim.meta`)."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from deepsim.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text, deferred_sigint
from deepsim.errors import InputError
from deepsim.meta.budget import DEFAULT_GAMES, DEFAULT_ROOT, DEFAULT_TRIALS, FILES
from deepsim.meta.rounds import EVAL_OFFSET, MetaRun, play_rounds
from deepsim.params import later_wins
from deepsim.respond.play import Field
from deepsim.respond.search import Settings, resolve_factions
from deepsim.runfolders import check_out, machine, make_out, utc_now, write_parquet

__all__ = ["MetaResult", "run_meta"]


@dataclass
class MetaResult:
    """What :func:`run_meta` did and wrote."""

    out_dir: Path
    run: MetaRun
    info: dict
    files: list[Path] = field(default_factory=list)


def _command(scenario_path) -> str:
    if Path(sys.argv[0]).name == "deepsim":
        return " ".join(shlex.quote(a) for a in ["deepsim", *sys.argv[1:]])
    return f"deepsim meta {scenario_path}"


def run_meta(scenario_path: Path | str, *, rounds: int, factions: list[str] | None = None,
             every: bool = False, settings: Settings | None = None,
             seed: int | None = None, eval_games: int | None = None,
             sets: list[str] | None = None, threads: int | None = None,
             out: Path | str | None = None, force: bool = False, backend: Any = None,
             plots: bool = True, progress: Callable[[int, int, str], None] | None = None,
             root: Path | str = DEFAULT_ROOT) -> MetaResult:
    """Play up to ``rounds`` rounds of iterated best response and write the output folder.

    Parameters
    ----------
    scenario_path : path
        Scenario YAML file (any ruleset with ``factions`` and ``bot_data``).
    rounds : int
        At most this many rounds (>= 1); fewer when a round finds no confirmed change.
    factions : list of str, optional
        The factions that respond (the others keep the scenario's bots); default (and
        ``every``): every faction of the ruleset but baseline styles.
    settings : Settings
        respond's budget per round and faction (trials, games, confirmation games; its
        ``confirm_seed`` is not used: round r confirms on seed + 2r + 1).
    seed : int, optional
        Search seed S (default: the scenario's).
    eval_games : int, optional
        Games per faction measuring each field (default: the confirmation games).

    Raises
    ------
    InputError
        Bad scenario, option or faction, or an existing ``out`` without ``force``: all
        before any game is played.
    """

    settings = settings or Settings(trials=DEFAULT_TRIALS, games=DEFAULT_GAMES)
    settings.check()
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise InputError(f"expected a whole number >= 1, got {rounds!r}", key="--rounds")
    if eval_games is not None and (isinstance(eval_games, bool) or eval_games < 1):
        raise InputError(f"expected a whole number >= 1, got {eval_games!r}",
                         key="--eval-games")
    if settings.style is not None:
        raise InputError("meta starts round 0 from respond's start style and each later "
                         "round from the round before; --style is respond's", key="--style")
    check_out(out, force)
    t0 = time.perf_counter()
    fld = Field(scenario_path, seed=seed, sets=sets, threads=threads, backend=backend)
    names = resolve_factions(fld, factions, every or not factions)
    overrides = later_wins(sets or [])
    out_dir = make_out(out, name=f"{fld.name}-meta", force=force, root=root, owned=FILES)
    confirm_games = settings.confirm_games or 10 * settings.games
    info: dict[str, Any] = {
        "kind": "meta", "scenario_name": fld.name, "scenario_path": str(scenario_path),
        "ruleset": fld.ruleset.name, "faction_column": fld.column,
        "faction_label": fld.ruleset.faction_label, "factions": names,
        "rounds": rounds, "rounds_played": 0, "stopped": "",
        "seed": fld.seed, "eval_seed": fld.seed + EVAL_OFFSET,
        "eval_games": eval_games or confirm_games, "games": settings.games,
        "confirm_games": confirm_games, "trials": settings.trials,
        "sampler": "optuna TPESampler", "sampler_seed": settings.sampler_seed,
        "alpha": settings.alpha, "min_ratio": settings.min_ratio,
        "max_ratio": settings.max_ratio, "sets": list(sets or []),
        "baseline_bots": list(fld.baseline), "threads": fld.threads,
        "backend": "dask" if backend is not None else "local",
        "command_line": _command(scenario_path), "started_utc": utc_now(),
        "finished_utc": None, "wall_time_s": None, "round_seconds": [],
        "round_cpu_seconds": [],
        "games_played": 0, "status": "running", **machine(),
    }
    json_path = out_dir / "meta.json"
    with deferred_sigint():
        atomic_write_json(json_path, info)
    meta = {"kind": "meta", "scenario": fld.name, "seed": fld.seed}

    from deepsim.meta import report

    def write(run: MetaRun) -> list[Path]:
        info.update({"rounds_played": len(run.rounds), "stopped": run.stopped,
                     "round_seconds": [r.seconds for r in run.rounds],
                     "round_cpu_seconds": [r.cpu_seconds for r in run.rounds],
                     "games_played": run.games_played,
                     "wall_time_s": round(time.perf_counter() - t0, 2)})
        trials = pd.concat([r.search.trials.assign(round=r.index) for r in run.rounds],
                           ignore_index=True)
        files = [out_dir / n for n in ("trials.parquet", "rounds.parquet",
                                       "meta-bots.yaml", "last-bots.yaml", "scenario.yaml")]
        with deferred_sigint():
            write_parquet(files[0], trials, meta)
            write_parquet(files[1], report.rounds_frame(run), meta)
            atomic_write_text(files[2], report.bots_yaml(run, fld.bot_data, info))
            atomic_write_text(files[3], report.bots_yaml(run, fld.bot_data, info, last=True))
            atomic_write_text(files[4], report.scenario_yaml(fld.scenario, info,
                                                             "meta-bots.yaml", overrides))
            atomic_write_json(json_path, info)
        return files

    def on_round(run: MetaRun) -> None:
        write(run)

    run = play_rounds(fld, names, settings, rounds, eval_games=eval_games,
                      progress=progress, on_round=on_round)
    files = [json_path, *write(run)]
    spread = report.spread_frame(run)
    info.update({"spread": spread.to_dict(orient="records"),
                 "final_eval_seconds": run.final_eval_seconds,
                 "wall_time_s": round(time.perf_counter() - t0, 2),
                 "finished_utc": utc_now(), "status": "complete"})
    png = None
    if plots:
        png = report.spread_plot(
            run, label=fld.ruleset.faction_label, min_ratio=settings.min_ratio,
            max_ratio=settings.max_ratio, title=f"Spread per field ({fld.name})",
            footer=f"{run.eval_games:,} games per {fld.ruleset.faction_label} of seed "
                   f"{run.eval_seed} per field; baseline bots left out")
    md = report.markdown(run, info)
    from deepsim.respond.report import to_html

    with deferred_sigint():
        write_parquet(out_dir / "spread.parquet", spread, meta)
        if png is not None:
            atomic_write_bytes(out_dir / "spread.png", png)
        atomic_write_text(out_dir / "meta.md", md)
        atomic_write_text(out_dir / "meta.html", to_html(md, png, png_name="spread.png"))
        atomic_write_json(json_path, info)
    files += [out_dir / n for n in ("spread.parquet", "meta.md", "meta.html")]
    if png is not None:
        files.append(out_dir / "spread.png")
    return MetaResult(out_dir, run, info, files)
