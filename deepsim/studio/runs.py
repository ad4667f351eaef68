"""One studio run: play a scenario (or a variant of a baseline on the same games) into the
history, then sum it up with the Python API's statistics.

A run plays into a hidden folder of the history (``.pending-<id>``) through the runner,
exactly as ``deepsim run --out`` does; only when its games and its summary are written is
the folder renamed to its id (one atomic rename), so a cancelled or failed run leaves no
half entry and the history's entries are always whole run folders that ``deepsim report``
and ``deepsim trace`` read.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepsim.errors import InputError
from deepsim.studio.history import ENTRY, read_entry


class Cancelled(Exception):
    """The designer cancelled the run."""


@dataclass
class Request:
    """What to play: ``scenario`` (relative to the folder), ``games``, ``sets`` (``path=value``
    strings, the variant's numbers) and ``baseline`` (the entry id a variant pairs with)."""

    scenario: str
    games: int
    sets: list[str] = field(default_factory=list)
    baseline: str | None = None
    label: str = ""


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) or math.isinf(v) else v


def _records(df, columns: list[str]) -> list[dict]:
    rows = []
    for r in df.to_dict("records"):
        rows.append({c: (_num(r[c]) if not isinstance(r[c], str) else r[c])
                     for c in columns if c in r})
    return rows


def summarise(rs: Any, games, seats) -> dict:
    """The page's numbers of one run: headline, win share per faction (Wilson intervals,
    verdicts), seat advantage, game length and the field, from :mod:`deepsim.api` and the
    verdict module (:mod:`deepsim.report.viability`)."""
    from deepsim import api
    from deepsim.report import viability as V
    by = rs.faction_column
    baseline = tuple(seats.attrs.get("baseline_bots", ()))
    kept, left_out = V.balance_seats(seats, baseline)
    shares = api.win_shares(seats, by=by)
    headline = []
    for h in V.headline(kept, rs.headline_groups()):
        def one(r, col=h.column) -> dict:
            return {"name": str(r[col]), "ratio": _num(r["ratio"]),
                    "low": _num(r["ratio_low"]), "high": _num(r["ratio_high"]),
                    "verdict": str(r["verdict"])}
        headline.append({"noun": h.noun, "n": h.n, "too_strong": h.n_strong,
                         "not_viable": h.n_dead, "strongest": one(h.strongest),
                         "weakest": one(h.weakest)})
    field_ = []
    if "bot" in kept.columns and len(kept):
        share = kept["bot"].astype(str).value_counts(normalize=True)
        field_ = [{"bot": str(b), "share": 100 * float(v)} for b, v in share.items()]
    seat = api.seat_advantage(kept)
    length = api.game_length(games)
    party = None
    if getattr(rs, "cooperative", False):
        party = _party(games, seats, by, baseline)
    return {
        "party": party,
        "faction_column": by, "faction_label": rs.faction_label,
        "games": len(games), "headline": headline,
        "win_shares": [{"name": str(r[by]), **{k: r[k] for k in r if k != by}}
                       for r in _records(shares, [by, "games", "win_share", "ci_low",
                                                  "ci_high", "fair_share", "ratio",
                                                  "ratio_low", "ratio_high", "verdict"])],
        "rule": V.rule_text(),
        "field": field_, "baseline_bots": list(baseline), "baseline_left_out": int(left_out),
        "seat_advantage": _records(seat, ["players", "seat", "games", "win_share", "ci_low",
                                          "ci_high", "fair_share", "ratio"]),
        "game_length": _records(length, ["players", "games", "mean", "mean_low", "mean_high",
                                         "sd", "median", "p5", "p95", "truncated"]),
    }


def _party(games, seats, by: str, baseline: tuple) -> dict:
    """A co-operative run: the party's win rate against its target per player count and
    overall (Wilson intervals, verdicts) and each class's presence effect, as the run
    summary reads them (:mod:`deepsim.report.party`)."""
    from deepsim.report import party as P
    judged, _, n_base = P.party_games(games, seats, baseline)
    rates = P.party_rates(judged, band=PARTY_BAND / 100)
    effects = []
    if not seats.empty and by in seats.columns and "game" in seats.columns:
        eff = P.class_effects(judged, seats, by)
        effects = _records(eff[eff["stratum"] == "all"], ["member", "effect", "low", "high"])
    return {"band": PARTY_BAND, "baseline_left_out": int(n_base),
            "lines": P.headline_text(rates, PARTY_BAND / 100),
            "rates": _records(rates, ["group", "games", "rate", "low", "high", "target",
                                      "verdict"]),
            "effects": effects}


def paired(rs: Any, a: tuple, b: tuple, base_summary: dict, var_summary: dict) -> list[dict]:
    """Per faction: B - A win share on the paired games (:func:`deepsim.api.paired_change`)
    with its interval, both verdicts and whether the verdict moved."""
    from deepsim import api
    from deepsim.report import viability as V
    by = rs.faction_column
    ch = api.paired_change(a, b, f"win_share[{by}]", ruleset=rs.name)
    va = {r["name"]: r["verdict"] for r in base_summary["win_shares"]}
    vb = {r["name"]: r["verdict"] for r in var_summary["win_shares"]}
    out = []
    for r in ch.to_dict("records"):
        name = str(r["member"])
        before, after = va.get(name, ""), vb.get(name, "")
        out.append({"name": name, "a": _num(r["a"]), "b": _num(r["b"]),
                    "change": _num(r["change"]), "low": _num(r["low"]),
                    "high": _num(r["high"]), "unit": str(r["unit"]), "games": int(r["games"]),
                    "paired": bool(r["paired"]), "verdict_before": before,
                    "verdict_after": after,
                    "moved": bool(before and after and V.changed(before, after))})
    return out


#: the columns the page's numbers read (those a ruleset declares); the rest stay on disk
GAMES_WANTED = ("game", "seed", "deal", "players", "rounds", "truncated", "adjudicated",
                "winner_side", "won", "outcome", "target")

#: a co-operative run's band around the party's target, in points (the run summary's)
PARTY_BAND = 5.0
SEATS_WANTED = ("game", "seed", "deal", "seat", "players", "bot", "win", "fair")

#: the frames of the last few entries read (a variant reads its baseline again)
_FRAMES: dict[str, tuple] = {}


def _read(run_dir: Path, rs: Any):
    """(games, seats) of a run folder: only the columns the summary and the paired change
    read (a quarter of a second instead of a second for 20,000 DEEPFALL games)."""
    from deepsim import api
    key = str(run_dir.resolve())
    if key in _FRAMES:
        return _FRAMES[key]
    games_cols = [c for c in GAMES_WANTED if c in rs.games_columns]
    seats_cols = list(dict.fromkeys([c for c in (*SEATS_WANTED, *rs.group_columns)
                                     if c in rs.seats_columns]))
    frames = api.load(run_dir, games_columns=games_cols, seats_columns=seats_cols)
    while len(_FRAMES) >= 4:
        _FRAMES.pop(next(iter(_FRAMES)))
    return frames


def remember(run_dir: Path, frames: tuple) -> None:
    """Keep ``frames`` as the frames of ``run_dir`` (its final name after the rename)."""
    while len(_FRAMES) >= 4:
        _FRAMES.pop(next(iter(_FRAMES)))
    _FRAMES[str(run_dir.resolve())] = frames


def play(req: Request, *, folder: Path, history: Path, entry_id: str,
         progress: Callable[[int, int], None], on_compile: Callable[[str], None],
         cancelled: Callable[[], bool]) -> dict:
    """Play ``req`` into ``history/entry_id`` and return its entry (also written there as
    ``entry.json``).

    Raises
    ------
    InputError
        A bad scenario, game count, or number (the message names the parameter and its
        bounds).
    Cancelled
        ``cancelled()`` turned true between chunks: nothing is left in the history.
    """
    from deepsim import runner
    from deepsim.atomic import atomic_write_json
    from deepsim.output import prepare_out_dir
    from deepsim.studio.catalog import inside

    path = inside(folder, req.scenario)
    base = None
    seed = None
    if req.baseline:
        base = read_entry(history, req.baseline)
        if base["scenario"] != req.scenario:
            raise InputError("a variant plays its baseline's scenario")
        req.games, seed = int(base["games"]), int(base["seed"])
    games = runner.check_count(req.games, "games", 1, 10_000_000)
    # about twenty chunks: the bar moves and a cancel waits for one chunk at most; the
    # games do not depend on the chunking
    chunk = max(500, math.ceil(games / 20))
    ruleset, resolved, prepared = runner.resolve(path, games=games, seed=seed,
                                                 chunk_size=chunk, overrides=list(req.sets))
    pending = history / f".pending-{entry_id}"
    shutil.rmtree(pending, ignore_errors=True)
    final = history / entry_id
    try:
        out_dir = prepare_out_dir(pending, scenario_name=str(resolved["name"]), force=True)

        def on_progress(done: int, total: int) -> None:
            if cancelled():
                raise Cancelled()
            progress(done, total)

        def compiling(message: str, *args, **kw) -> None:
            on_compile(message)

        t0 = time.perf_counter()
        result = runner.execute(ruleset, prepared, resolved, out_dir=out_dir,
                                source=str(path), overrides=list(req.sets),
                                threads=runner.set_threads(None), progress=on_progress,
                                on_compile=compiling)
        if cancelled():
            raise Cancelled()
        g, s = _read(out_dir, ruleset)
        summary = summarise(ruleset, g, s)
        entry = {"id": entry_id, "scenario": req.scenario, "ruleset": ruleset.name,
                 "label": req.label or ("baseline" if not req.sets else ", ".join(req.sets)),
                 "sets": list(req.sets), "baseline": req.baseline, "games": games,
                 "seed": int(resolved["seed"]), "created": time.strftime(
                     "%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "seconds": round(time.perf_counter() - t0, 3),
                 "play_seconds": _num(result.info.get("wall_time_s")),
                 "compile_seconds": _num(result.info.get("compile_s")),
                 "placeholders": list(prepared.placeholders),
                 "skipped_rules": list(prepared.skipped_rules),
                 "summary": summary, "paired": None}
        if base is not None:
            a = _read(history / base["id"], ruleset)
            entry["paired"] = paired(ruleset, a, (g, s), base["summary"], summary)
        atomic_write_json(out_dir / ENTRY, entry)
        pending.rename(final)
        remember(final, (g, s))
        return entry
    except BaseException:
        shutil.rmtree(pending, ignore_errors=True)
        raise
