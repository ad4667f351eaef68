"""Play a skill ladder: every rung's field, then each rung against the rung below.

Shared code: it plays a scenario through :class:`deepsim.respond.play.Field` (faction_bots
variants on listed games) and names no game.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from deepsim.atomic import atomic_write_text
from deepsim.errors import InputError
from deepsim.ladder import (
    LadderResult,
    Rung,
    default_rungs,
    head_to_head_ratio,
    luck_share,
    parse_rungs,
    verdict_table,
)
from deepsim.ladder.check import CHECK_COLUMNS, search_check
from deepsim.ladder.claims import claims_sections
from deepsim.ladder.report import build, write_report
from deepsim.output import prepare_out_dir, read_run
from deepsim.report.config import ReportConfig
from deepsim.report.metrics import win_share_table
from deepsim.respond.play import Field, Variant, with_faction_styles
from deepsim.respond.search import strongest_by_faction, strongest_style
from deepsim.stats import resolved_seats

__all__ = ["LadderResult", "run_ladder"]


def _meta_path(field: Field) -> str | None:
    fb = field.scenario.get("faction_bots")
    if isinstance(fb, str):
        p = Path(fb)
        return str(p if p.is_absolute() else (field.path.parent / p).resolve())
    return None


def _spec(rung: Rung, faction: str, bot_data: Any) -> tuple[str, dict[str, float]]:
    """The style (name, knobs) a faction's seats play at ``rung``: a search rung's on the
    faction's base style (``rung.bases``, else ``rung.style``), named ``LABEL-BASE``."""
    if rung.kind != "search":
        return rung.style, rung.knobs
    base = rung.bases.get(str(faction), rung.style)
    return (f"{rung.label}-{base}",
            dict(bot_data.styles[base].knobs) | {"rollouts": float(rung.rollouts)})


def _variant(field: Field, styles: dict, resolved: dict | None) -> Variant:
    scenario = with_faction_styles(field.scenario, resolved, field.bot_data, styles)
    scenario["seed"] = field.seed
    prepared = field.ruleset.prepare(scenario, source=field.source, overrides=list(field.sets))
    return Variant(scenario, prepared, field.seed)


def _meta_resolved(field: Field, rung: Rung) -> dict:
    scenario = dict(field.scenario)
    scenario["faction_bots"] = rung.path
    prepared = field.ruleset.prepare(scenario, source=field.source, overrides=list(field.sets))
    return prepared.scenario.get("faction_bots") or {}


def _rung_variant(field: Field, rung: Rung) -> Variant:
    if rung.kind == "meta":
        return _variant(field, {}, _meta_resolved(field, rung))
    bd = field.bot_data
    return _variant(field, {f: _spec(rung, f, bd) for f in field.factions}, None)


def _pair_variant(field: Field, up: Rung, low: Rung, up_f: list[str], low_f: list[str]
                  ) -> Variant:
    bd = field.bot_data
    if up.kind == "meta":
        return _variant(field, {f: _spec(low, f, bd) for f in low_f},
                        _meta_resolved(field, up))
    if low.kind == "meta":
        return _variant(field, {f: _spec(up, f, bd) for f in up_f},
                        _meta_resolved(field, low))
    styles = {f: _spec(up, f, bd) for f in up_f} | {f: _spec(low, f, bd) for f in low_f}
    return _variant(field, styles, None)


def _upper_totals(seats: pd.DataFrame, column: str, up_f: set[str]
                  ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Per game: the upper rung's wins, fair wins and seats; per play score (mean win
    per upper seat minus its fair share; plays with both rungs seated) and its stratum
    (upper seats x 100 + players: :func:`deepsim.ladder.luck_share`)."""
    # the seats of unresolved games (win NaN: a safety cap stopped them) count for neither
    seats = resolved_seats(seats)
    s = seats.assign(up=seats[column].astype(str).isin(up_f))
    g = s[s["up"]].groupby("game")
    per = pd.DataFrame({"wins": g["win"].sum(), "fair": g["fair"].sum(), "n": g.size()})
    per = per.reindex(sorted(s["game"].unique()), fill_value=0)
    players = s.groupby("game")["players"].first().reindex(per.index)
    mixed = (per["n"] > 0) & (per["n"] < players)
    score = ((per["wins"] - per["fair"]) / per["n"].where(per["n"] > 0, 1))[mixed]
    strata = (per["n"] * 100 + players)[mixed]
    return per, score.to_numpy(np.float64), strata.to_numpy(np.int64)


def run_ladder(scenario_path: Path | str, *, rungs: str | None = None, games: int = 20_000,
               depth_games: int | None = None, seed: int | None = None,
               sets: list[str] | None = None, threads: int | None = None,
               out: Path | str | None = None, runs: Path | str | None = None,
               search_base: str | None = None, check_games: int | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> LadderResult:
    """Play the ladder of ``scenario_path`` and write its report to ``out``.

    Parameters
    ----------
    rungs : str, optional
        ``R1,R2,...`` weakest first (see :mod:`deepsim.ladder`); default
        :func:`deepsim.ladder.default_rungs`.
    search_base : str, optional
        The heuristic a search rung searches on: default (None or ``per-faction``) each
        faction its own strongest heuristic in the scenario's field
        (:func:`deepsim.respond.search.strongest_by_faction`); ``strongest`` the field's
        strongest style for every faction; or a style of the ruleset's bots.
    check_games : int, optional
        Games of the search check (:mod:`deepsim.ladder.check`): per plain heuristic, the
        games of its field each faction sits in, replayed with that faction on the top
        search rung; default ``games // 10``; 0 skips it (as does a ladder without a
        search rung).
    games : int
        Games per rung's field (the same game indices at every rung), and of the
        scenario's own field when ``strongest`` must be found.
    depth_games : int, optional
        Games per pass of each head-to-head (two passes, the factions' halves swapped);
        default ``games // 2``; 0 skips the head-to-heads.
    runs : Path or str, optional
        Keep each rung's field as a run directory ``runs/R<j>-<rung>/`` (every column, the
        same games: :func:`deepsim.runner.execute`), e.g. for the ruleset's claims per rung
        (:mod:`deepsim.ladder.claims`); its verdicts are read from those runs.
    progress : callable(done, size, label), optional
        Called as games finish, per phase (finding the strongest heuristic, each rung,
        each head-to-head's two passes): the phase's games done so far, its size and its
        label.

    Raises
    ------
    InputError
        Bad scenario, rungs, counts, or an output or runs folder that exists.
    """
    t0 = time.perf_counter()
    c0 = time.process_time()
    if games < 1:
        raise InputError(f"--games must be >= 1, got {games}", key="--games")
    depth_games = max(1, games // 2) if depth_games is None else int(depth_games)
    if depth_games < 0:
        raise InputError(f"--depth-games must be >= 0, got {depth_games}",
                         key="--depth-games")
    field = Field(scenario_path, seed=seed, sets=sets, threads=threads)
    bd = field.bot_data
    meta = _meta_path(field)
    if rungs is not None and not rungs.strip(" ,"):
        raise InputError("--rungs is empty; give R1,R2,... or leave the option out for the "
                         "default ladder", key="--rungs")
    text = rungs or default_rungs(bd, meta)
    ladder = parse_rungs(text, bd, base=field.path.parent)
    out_dir = Path(out) if out else Path("reports/ladder") / (
        f"{field.name}-{time.strftime('%Y%m%d-%H%M%S')}")
    for key, folder in (("--out", out_dir), ("--runs", Path(runs) if runs else None)):
        if folder is not None and folder.exists() and not folder.is_dir():
            raise InputError("exists and is not a directory; choose another folder",
                             file=str(folder), key=key)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise InputError(f"output folder {out_dir} exists and is not empty", key="--out")
    runs_dir = Path(runs) if runs is not None else None
    if runs_dir is not None and runs_dir.exists() and any(runs_dir.iterdir()):
        raise InputError(f"runs folder {runs_dir} exists and is not empty", key="--runs")
    cfg = ReportConfig()
    column = field.column
    ids = np.arange(games, dtype=np.int64)
    cols = {column, "win", "fair", "bot"}
    played = 0

    def tick(label: str, size: int):
        """A progress callback for one phase (``size`` games): the phase's own count, so
        that each phase's bar runs from 0 to its size."""
        done = 0

        def f(n: int) -> None:
            nonlocal played, done
            played += n
            done += n
            if progress is not None:
                progress(done, size, label)
        return f

    searched = [r for r in ladder if r.kind == "search"]
    check_games = max(1, games // 10) if check_games is None else int(check_games)
    if check_games < 0:
        raise InputError(f"--check-games must be >= 0, got {check_games}",
                         key="--check-games")
    base_mode = search_base or "per-faction"
    heuristics = [n for n, st in bd.styles.items()
                  if not st.baseline and st.knobs.get("rollouts", 0) <= 0]
    if base_mode not in ("per-faction", "strongest") and base_mode not in heuristics:
        raise InputError(f"--search-base {base_mode}: expected per-faction, strongest or "
                         f"a heuristic style ({', '.join(heuristics)})", key="--search-base")
    needs_strongest = any(r.kind in ("strongest", "search") for r in ladder)
    strongest = None
    style_table = None
    bases: dict[str, str] = {}
    if needs_strongest:
        _g, s = field.play(field.variant(), ids, seats_columns=cols, games_columns=set(),
                           progress=tick("strongest heuristic", games))
        strongest, style_table = strongest_style(field, s, cfg.alpha)
        if searched:
            if base_mode == "per-faction":
                bases, _t = strongest_by_faction(field, s, strongest)
            else:
                one = strongest if base_mode == "strongest" else base_mode
                bases = {str(f): one for f in field.factions}
        for r in ladder:
            if r.kind == "strongest":
                r.style = strongest
                r.label = f"strongest ({strongest})"
            elif r.kind == "search":
                r.style = strongest
                r.bases = dict(bases)
                r.knobs = dict(bd.styles[strongest].knobs) | {"rollouts": float(r.rollouts)}
    per_rung: dict[str, pd.DataFrame] = {}
    speed: dict[str, float] = {}
    for j, r in enumerate(ladder):
        t = time.perf_counter()
        if runs_dir is None:
            _g, s = field.play(_rung_variant(field, r), ids, seats_columns=cols,
                               games_columns=set(), progress=tick(f"rung {r.label}", games))
        else:
            s = _kept_run(field, _rung_variant(field, r), runs_dir / _run_name(j, r), games,
                          cols, tick(f"rung {r.label}", games))
        speed[r.label] = games / max(time.perf_counter() - t, 1e-9)
        per_rung[r.label] = win_share_table(s, column, alpha=cfg.alpha,
                                            min_ratio=cfg.min_ratio,
                                            max_rel_width=cfg.max_rel_width,
                                            max_ratio=cfg.max_ratio)
    verdicts = verdict_table(per_rung, column)
    # skill depth: each rung against the rung below, the factions' halves swapped
    halves = (field.factions[0::2], field.factions[1::2])
    dids = np.arange(depth_games, dtype=np.int64)
    rows = []
    for low, up in (itertools.pairwise(ladder) if depth_games > 0 else []):
        wins = np.zeros(depth_games)
        fair = np.zeros(depth_games)
        scores, strata = [], []
        pair_tick = tick(f"{up.label} vs {low.label}", 2 * depth_games)
        for k in range(2):
            up_f, low_f = (halves[0], halves[1]) if k == 0 else (halves[1], halves[0])
            _g, s = field.play(_pair_variant(field, up, low, list(up_f), list(low_f)), dids,
                               seats_columns=cols, games_columns=set(),
                               progress=pair_tick)
            per, sc, st = _upper_totals(s, column, set(up_f))
            wins += per["wins"].reindex(dids, fill_value=0).to_numpy()
            fair += per["fair"].reindex(dids, fill_value=0).to_numpy()
            scores.append(sc)
            strata.append(st)
        ratio, lo, hi = head_to_head_ratio(wins, fair)
        rows.append({"rung": up.label, "below": low.label, "deals": depth_games,
                     "ratio": ratio, "ratio_low": lo, "ratio_high": hi,
                     "luck": luck_share(np.concatenate(scores), np.concatenate(strata))})
    depth = pd.DataFrame(rows, columns=["rung", "below", "deals", "ratio", "ratio_low",
                                        "ratio_high", "luck"])
    top_search = searched[-1] if searched else None
    check = pd.DataFrame(columns=CHECK_COLUMNS)
    if top_search is not None and check_games > 0:
        check = search_check(field, heuristics, check_games,
                             lambda f: _spec(top_search, f, bd),
                             lambda styles: _variant(field, styles, None), progress=tick)
    info = {"scenario": str(scenario_path), "seed": field.seed, "games": games,
            "depth_games": depth_games, "rungs": [r.label for r in ladder],
            "strongest": strongest, "faction_column": column,
            "faction_label": field.ruleset.faction_label,
            "games_played": played, "wall_time_s": time.perf_counter() - t0,
            "cpu_time_s": time.process_time() - c0,
            "runs_dir": str(runs_dir) if runs_dir is not None else None,
            "rung_runs": ([_run_name(j, r) for j, r in enumerate(ladder)]
                          if runs_dir is not None else None),
            "games_per_s_by_rung": speed, "threads": field.threads,
            "search_base": base_mode if searched else None,
            "search_bases": bases if searched else None,
            "check_games": check_games if top_search is not None else 0,
            "check_rung": top_search.label if top_search is not None else None,
            "min_ratio": cfg.min_ratio, "max_ratio": cfg.max_ratio,
            "max_rel_width": cfg.max_rel_width}
    if style_table is not None:
        info["styles"] = style_table.to_dict(orient="records")
    result = LadderResult(ladder, strongest, verdicts, depth, info, out_dir, check)
    write(result)
    return result


def _run_name(j: int, rung: Rung) -> str:
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in rung.label).strip("-")
    return f"R{j + 1}-{slug[:40]}"


def _kept_run(field: Field, variant: Variant, out_dir: Path, games: int, cols: set[str],
              tick: Callable[[int], None]) -> pd.DataFrame:
    """Play ``variant`` on games 0..games-1 into the run directory ``out_dir`` and return
    its seats (``cols``): the same games :meth:`Field.play` plays."""
    from deepsim import runner

    scenario = dict(variant.scenario)
    scenario["games"] = games
    scenario["chunk_size"] = min(int(scenario.get("chunk_size") or games), games)
    scenario["name"] = f"{field.name}-{out_dir.name}"
    ruleset, scenario, prepared = runner.resolve_mapping(scenario, source=field.source,
                                                         overrides=list(field.sets))
    d = prepare_out_dir(out_dir, scenario_name=scenario["name"])
    done = 0

    def progress(n: int, _total: int) -> None:
        nonlocal done
        if n > done:
            tick(n - done)
            done = n

    # every seat plays the rung: there are no yardstick seats to leave out of the
    # balance verdicts (a rung of a baseline style is the field), so the report of this
    # run judges the seats the ladder judged
    runner.execute(ruleset, prepared, scenario, out_dir=d, source=field.source,
                   overrides=list(field.sets), threads=field.threads, progress=progress,
                   extra_info={"baseline_bots": [], "ladder_rung": out_dir.name})
    _g, s = read_run(d, games_columns=[], seats_columns=sorted(cols | {"players"}),
                     require_complete=True)
    return s


def write(result: LadderResult) -> None:
    """Write ladder.md, ladder.html, ladder.png, verdicts.csv, depth.csv and ladder.json
    (each whole or not at all: atomic writes); with kept rung runs, the claims per rung
    (:mod:`deepsim.ladder.claims`) join the report."""

    d = result.out_dir
    d.mkdir(parents=True, exist_ok=True)
    atomic_write_text(d / "verdicts.csv", result.verdicts.to_csv(index=False))
    atomic_write_text(d / "depth.csv", result.depth.to_csv(index=False))
    atomic_write_text(d / "search_check.csv", result.check.to_csv(index=False))
    atomic_write_text(d / "ladder.json", json.dumps(_jsonable(result.info), indent=2))
    extra = []
    if result.info.get("runs_dir"):
        extra += claims_sections(result)
    write_report(build(result, extra), d)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x

