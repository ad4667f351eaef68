"""``deepsim respond``: is a faction weak, or is its bot? A best-response search per faction.

:func:`run_respond` searches (:mod:`deepsim.respond.search`), confirms and writes the
output folder (``--out``, default ``reports/responds/<scenario>-respond-<stamp>-<hex>``):

- ``trials.parquet``: one row per trial: faction, trial, start (trial 0 is the start
  style), style, value (win share over fair share on the search games), low, high (95%),
  games, seconds, and every knob's value; rewritten after each faction;
- ``confirm.parquet``: one row per faction: the start style, the ratio in the scenario's
  field as it is, the start style's (default knobs) and the best response's ratios on the
  confirmation games with 95% intervals, the paired gain with its family-corrected interval and Holm
  p, the verdict and the interval width;
- ``respond.md``, ``respond.html`` (self-contained), ``respond.png``: the verdicts, the
  before/after plot, the method, and per faction its knobs and a style block ready to paste;
- ``styles.yaml``: a faction bots file (scenario key ``faction_bots: styles.yaml``) that
  plays every faction's best response;
- ``respond.json``: the command, settings, seeds, times and the results.
"""

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
from deepsim.respond.play import Field
from deepsim.respond.search import (
    SearchResult,
    Settings,
    resolve_factions,
    run_search,
)

__all__ = ["DEFAULT_ROOT", "FILES", "RespondResult", "Settings", "run_respond"]

DEFAULT_ROOT = Path("reports") / "responds"
FILES = ("respond.json", "trials.parquet", "confirm.parquet", "respond.md", "respond.html",
         "respond.png", "styles.yaml")


@dataclass
class RespondResult:
    """What :func:`run_respond` did and wrote."""

    out_dir: Path
    search: SearchResult
    info: dict
    files: list[Path] = field(default_factory=list)


def run_respond(scenario_path: Path | str, *, factions: list[str] | None = None,
                every: bool = False, settings: Settings | None = None,
                seed: int | None = None, sets: list[str] | None = None,
                threads: int | None = None, out: Path | str | None = None,
                force: bool = False, backend: Any = None, plots: bool = True,
                progress: Callable[[int, int, str], None] | None = None,
                root: Path | str = DEFAULT_ROOT) -> RespondResult:
    """Search and confirm a best response per faction and write the output folder.

    Parameters
    ----------
    scenario_path : path
        Scenario YAML file (any ruleset with ``factions`` and ``bot_data``).
    factions : list of str, optional
        Faction names, matched ignoring case, spaces, ``-`` and ``_``.
    every : bool
        Every faction of the ruleset (``--all``) instead.
    settings : Settings
        Trials, games, confirmation games and seed, sampler seed, start style, lines.
    seed : int, optional
        Search seed (default: the scenario's).
    backend : DaskBackend, optional
        Started; plays the games as Dask tasks (the same results).

    Raises
    ------
    InputError
        Bad scenario, option, faction or style, or an existing ``out`` without ``force``:
        all before any game is played.
    """
    from deepsim.runfolders import check_out, machine, make_out, utc_now, write_parquet

    settings = settings or Settings()
    settings.check()
    check_out(out, force)
    t0 = time.perf_counter()
    fld = Field(scenario_path, seed=seed, sets=sets, threads=threads, backend=backend)
    names = resolve_factions(fld, factions, every)
    if settings.style is not None:
        from deepsim.respond.search import start_style
        start_style(fld, names[0], settings, None)
    out_dir = make_out(out, name=f"{fld.name}-respond", force=force, root=root, owned=FILES)
    confirm_games = settings.confirm_games or 10 * settings.games
    confirm_seed = (settings.confirm_seed if settings.confirm_seed is not None
                    else fld.seed + 1)
    info: dict[str, Any] = {
        "kind": "respond", "scenario_name": fld.name, "scenario_path": str(scenario_path),
        "ruleset": fld.ruleset.name, "faction_column": fld.column,
        "faction_label": fld.ruleset.faction_label, "factions": names,
        "cooperative": bool(fld.ruleset.cooperative),
        "seed": fld.seed, "confirm_seed": confirm_seed, "games": settings.games,
        "confirm_games": confirm_games, "trials": settings.trials,
        "sampler": "optuna TPESampler", "sampler_seed": settings.sampler_seed,
        "style": settings.style, "alpha": settings.alpha, "min_ratio": settings.min_ratio,
        "max_ratio": settings.max_ratio, "sets": list(sets or []),
        **({"target": fld.ruleset.target_win_rate(fld.prepared.params, source=fld.source),
            "coop_band": settings.coop_band} if fld.ruleset.cooperative else {}),
        "baseline_bots": list(fld.baseline),
        "threads": fld.threads, "backend": "dask" if backend is not None else "local",
        "command_line": " ".join(shlex.quote(a) for a in ["deepsim", *sys.argv[1:]])
        if Path(sys.argv[0]).name == "deepsim" else f"deepsim respond {scenario_path}",
        "started_utc": utc_now(), "finished_utc": None, "wall_time_s": None,
        "status": "running", **machine(),
    }
    json_path = out_dir / "respond.json"
    with deferred_sigint():
        atomic_write_json(json_path, info)
    trials_path = out_dir / "trials.parquet"
    meta = {"kind": "respond", "scenario": fld.name, "seed": fld.seed}

    def on_faction(trials: pd.DataFrame) -> None:
        with deferred_sigint():
            write_parquet(trials_path, trials, meta)

    try:
        result = run_search(fld, names, settings, progress=progress, on_faction=on_faction)
    except InputError as exc:
        # found only by playing (a faction the field never seats): the folder says so
        with deferred_sigint():
            atomic_write_json(json_path, {**info, "status": "failed", "error": str(exc),
                                          "finished_utc": utc_now()})
        raise
    files = [json_path, trials_path]
    with deferred_sigint():
        write_parquet(trials_path, result.trials, meta)
        write_parquet(out_dir / "confirm.parquet", result.table,
                      {**meta, "confirm_seed": confirm_seed})
    files.append(out_dir / "confirm.parquet")
    played = (result.search_pass.played + result.confirm_pass.played
              + len(names) * settings.trials * settings.games
              + sum(c.games * (1 if c.best_trial == 0 else 2) for c in result.confirmed))
    starts = sorted({c.start for c in result.confirmed})
    info.update({
        "games_played": played, "strongest_style": result.strongest,
        "search_pass_games": result.search_pass.played,
        "confirm_pass_games": result.confirm_pass.played, "seconds": result.seconds,
        "style_games": result.search_pass.played,
        "start_note": _start_note(settings, result, starts),
        "results": result.table.to_dict(orient="records"),
        "finished_utc": utc_now(), "wall_time_s": round(time.perf_counter() - t0, 2),
        "status": "complete"})
    from deepsim.respond import report

    png = None
    if plots:
        lo, hi = settings.min_ratio, settings.max_ratio
        if fld.ruleset.cooperative:      # the band's edges, x target
            lo = 1 - settings.coop_band / info["target"]
            hi = 1 + settings.coop_band / info["target"]
        png = report.before_after_plot(
            result.table, label=fld.ruleset.faction_label, min_ratio=lo, max_ratio=hi,
            title=f"Default knobs vs best response ({fld.name})",
            footer=f"{confirm_games:,} games per {fld.ruleset.faction_label} of seed "
                   f"{confirm_seed}; 95% intervals; baseline bots left out")
    md = report.markdown(result, settings, info, fld.bot_data)
    with deferred_sigint():
        atomic_write_text(out_dir / "styles.yaml", report.styles_yaml(result, fld.bot_data,
                                                                      info))
        if png is not None:
            atomic_write_bytes(out_dir / "respond.png", png)
        atomic_write_text(out_dir / "respond.md", md)
        atomic_write_text(out_dir / "respond.html", report.to_html(md, png))
        atomic_write_json(json_path, info)
    files += [out_dir / n for n in ("styles.yaml", "respond.md", "respond.html")]
    if png is not None:
        files.append(out_dir / "respond.png")
    return RespondResult(out_dir, result, info, files)


def _start_note(settings: Settings, result: SearchResult, starts: list[str]) -> str:
    if settings.style is not None:
        return (f"{settings.style} (--style). --style sets trial 0 and the comparison "
                "column (that style's default knobs), not where the search looks: from "
                "trial 1 on, every searchable knob is drawn over its whole bots.yaml range "
                "whatever the start style (the knobs not searched keep its values), so "
                "another --style can find the same best response")
    if result.strongest is not None and starts == [result.strongest]:
        return (f"{result.strongest}, the field's strongest non-baseline style on the "
                "search pass")
    return ", ".join(starts) + (" (each faction's own style in the scenario, else the "
                                f"field's strongest, {result.strongest})")
