"""deepsim from Python: play a scenario into DataFrames, read a run, and the report's statistics.

    >>> import deepsim
    >>> games, seats = deepsim.simulate("scenarios/deepfall-4p.yaml", games=2000)
    >>> deepsim.win_shares(seats, by="company").head()

Everything here is a thin layer over the same code the command line runs: the scenario is
checked by the ruleset exactly as ``deepsim run`` checks it (bad input raises
:class:`deepsim.errors.InputError`), the games are played by the ruleset's kernel chunk by
chunk (a seed gives the same games whatever the chunking or thread count), and the
statistics are the report's own functions.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from deepsim.errors import InputError

__all__ = [
    "Simulation",
    "dice_odds",
    "estimate",
    "game_length",
    "load",
    "paired_change",
    "seat_advantage",
    "simulate",
    "trace",
    "win_shares",
]

#: the source name of a scenario given as a mapping (in error messages and ``run.json``)
MAPPING_SOURCE = "<dict>"


@dataclass
class Simulation:
    """The games of one :func:`simulate` call. Unpacks as ``games, seats``.

    Attributes
    ----------
    games : DataFrame
        One row per game (``game``, ``seed`` and the ruleset's game columns), sorted by game.
    seats : DataFrame
        One row per seat per game (``game``, ``seat`` (from 1: seat 1 plays first), ``win``
        (1, ``1/k`` on a k-way tie for first, else 0), ``fair`` (1/players) and the ruleset's
        seat columns, e.g. DEEPFALL's ``company``), sorted by game then seat.
    ruleset : str
        The ruleset's name.
    scenario : dict
        The resolved scenario (what ``run.json`` records), with its seed and game count.
    params_hash : str
        SHA-256 of the ruleset parameters after overrides: names the rules variant.
    placeholders : list of str
        Parameter paths whose data is a placeholder, not the rulebook's.
    skipped_rules : list of str
        Rules the engine does not implement (empty when complete).
    out_dir : Path or None
        The run directory when ``out`` was given, else None.
    """

    games: pd.DataFrame
    seats: pd.DataFrame
    ruleset: str
    scenario: dict
    params_hash: str
    placeholders: list[str] = field(default_factory=list)
    skipped_rules: list[str] = field(default_factory=list)
    out_dir: Path | None = None

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter((self.games, self.seats))


def _scenario_mapping(scenario: str | Path | Mapping[str, Any]) -> tuple[dict, str]:
    """(checked scenario mapping, source name) for a path or a mapping."""
    from deepsim.scenario import check_scenario, load_scenario
    if isinstance(scenario, (str, Path)):
        return dict(load_scenario(Path(scenario))), str(scenario)
    if isinstance(scenario, Mapping):
        data = copy.deepcopy(dict(scenario))
        data.setdefault("name", "python")
        return check_scenario(data, source=MAPPING_SOURCE), MAPPING_SOURCE
    raise InputError(f"a scenario is a file path or a mapping, got {type(scenario).__name__}")


def _override_list(overrides: Mapping[str, Any] | Sequence[str] | None) -> list[str]:
    """``--set`` strings from a mapping ``{path: value}`` or a list of ``path=value``."""
    import json
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        # JSON is YAML: lists, booleans and numbers parse back as the same values
        return [f"{k}={json.dumps(v)}" for k, v in overrides.items()]
    if isinstance(overrides, str):
        raise InputError("overrides is a mapping {path: value} or a list of 'path=value' "
                         f"strings, got the string {overrides!r}")
    return [str(o) for o in overrides]


def simulate(scenario: str | Path | Mapping[str, Any], *, games: int | None = None,
             seed: int | None = None, overrides: Mapping[str, Any] | Sequence[str] | None = None,
             threads: int | None = None, chunk_size: int | None = None,
             out: str | Path | None = None, force: bool = False) -> Simulation:
    """Play a scenario and return its games and seats tables in memory.

    Parameters
    ----------
    scenario : str, Path or mapping
        A scenario file, or a mapping with the same keys (``ruleset`` is required; ``name``
        defaults to ``"python"``; a relative file named inside it, such as an Atlantis map,
        is read from the working directory).
    games, seed : int, optional
        Replace the scenario's game count (>= 1) and seed (>= 0).
    overrides : mapping or list of str, optional
        Ruleset parameters to change, as ``{"maw.steps_per_floor": 1}`` or
        ``["maw.steps_per_floor=1"]``; applied after the scenario's ``overrides:``, like
        ``--set``. ``deepsim params RULESET`` lists every path.
    threads : int, optional
        numba threads (default: all cores). The results do not depend on it.
    chunk_size : int, optional
        Games per kernel call (default: the scenario's). The results do not depend on it.
    out : str or Path, optional
        Also write a run directory there, exactly as ``deepsim run --out`` does (readable
        with :func:`load`, ``deepsim report``, ``deepsim trace``). Default: nothing is
        written.
    force : bool, default False
        With ``out``: replace an existing run directory's run files.

    Returns
    -------
    Simulation
        ``games, seats = simulate(...)`` unpacks the two DataFrames; the object also
        carries the resolved scenario, parameter hash, placeholders and skipped rules.

    Raises
    ------
    InputError
        Invalid scenario, value or override (the message names the key and what was
        expected), or ``out`` exists without ``force``.
    """
    from deepsim import runner
    mapping, source = _scenario_mapping(scenario)
    sets = _override_list(overrides)
    n_threads = runner.set_threads(threads)
    ruleset, resolved, prepared = runner.resolve_mapping(
        mapping, source=source, games=games, seed=seed, chunk_size=chunk_size, overrides=sets)
    out_dir = None
    if out is not None:
        from deepsim.output import prepare_out_dir, read_run
        if Path(out).exists() and not force:
            raise InputError("output directory already exists; pass force=True to replace "
                             "its run files", file=str(out))
        out_dir = prepare_out_dir(out, scenario_name=str(resolved["name"]), force=force)
        runner.execute(ruleset, prepared, resolved, out_dir=out_dir, source=source,
                       overrides=sets, threads=n_threads)
        g, s = read_run(out_dir, require_complete=True)
    else:
        n_games = int(prepared.scenario.get("games", resolved["games"]))
        size = int(prepared.scenario.get("chunk_size", resolved["chunk_size"]))
        parts = [ruleset.run_chunk(prepared, start, count)
                 for _, start, count in runner.chunk_ranges(n_games, size)]
        g = pd.concat([p[0] for p in parts], ignore_index=True) if len(parts) > 1 \
            else parts[0][0]
        s = pd.concat([p[1] for p in parts], ignore_index=True) if len(parts) > 1 \
            else parts[0][1]
    s.attrs["baseline_bots"] = list(prepared.baseline_bots)
    return Simulation(games=g, seats=s, ruleset=prepared.ruleset,
                      scenario=dict(prepared.scenario), params_hash=prepared.params_hash,
                      placeholders=list(prepared.placeholders),
                      skipped_rules=list(prepared.skipped_rules), out_dir=out_dir)


def load(run_dir: str | Path, *, games_columns: Sequence[str] | None = None,
         seats_columns: Sequence[str] | None = None, require_complete: bool = True
         ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a run directory's games and seats tables, checking every part.

    Parameters
    ----------
    run_dir : str or Path
        A folder written by ``deepsim run`` (or :func:`simulate` with ``out``).
    games_columns, seats_columns : sequence of str, optional
        Read only these columns (``game`` and ``seat`` always come along).
    require_complete : bool, default True
        Refuse an interrupted run; ``False`` returns its finished chunks.

    Returns
    -------
    games, seats : DataFrame
        As :class:`Simulation` describes them.

    Raises
    ------
    InputError
        Not a run directory, a damaged or missing part, or an incomplete run.
    """
    from deepsim.output import read_run, read_run_json
    games, seats = read_run(run_dir, games_columns=None if games_columns is None
                            else list(games_columns),
                            seats_columns=None if seats_columns is None else list(seats_columns),
                            require_complete=require_complete)
    seats.attrs["baseline_bots"] = list(read_run_json(run_dir).get("baseline_bots") or ())
    return games, seats


def trace(scenario: str | Path | Mapping[str, Any], game: int, *, seed: int | None = None,
          overrides: Mapping[str, Any] | Sequence[str] | None = None,
          records: bool = False, seats: Sequence[int] | None = None,
          rounds: Sequence[int] | None = None,
          only: str | None = None) -> list[str] | list[dict[str, Any]]:
    """One game replayed as the turn-by-turn log ``deepsim trace`` prints.

    Parameters
    ----------
    scenario : str, Path or mapping
        As for :func:`simulate`, or a run directory (``deepsim run --out`` or
        :func:`simulate`'s ``out``): its game is replayed with the scenario, seed and
        overrides its ``run.json`` recorded (a warning if the ruleset data changed since).
    game : int
        Game index (>= 0): the same game as row ``game`` of :func:`simulate`'s tables.
    seed : int, optional
        Replace the scenario's seed (scenarios only).
    overrides : mapping or list of str, optional
        As for :func:`simulate`.
    records : bool, default False
        Return the records ``deepsim trace --format json`` prints (a ``header`` dict with
        the seats, one ``event`` dict per kernel event with its round, seat, rulebook
        section and named values, a bot decision's ``reason``; a ``result`` dict) instead
        of the text lines.
    seats, rounds : sequence of int, optional
        Keep only these seats' lines (from 1; the table's own lines stay) and these
        rounds' (``deepsim trace --seat``, ``--round``).
    only : {"bot", "rules"}, optional
        Keep only the bots' decisions, or only the rules' lines (``--only``).

    Returns
    -------
    list of str, or list of dict when ``records``
        The log lines, or the records.

    Raises
    ------
    InputError
        Invalid scenario, override or game index; ``records`` for a ruleset without a
        record trace (DEEPFALL has one).
    """
    from deepsim import runner
    from deepsim.tracefilter import TraceFilter
    if isinstance(game, bool) or not isinstance(game, int) or game < 0:
        raise InputError(f"game must be a game index >= 0, got {game!r}")
    view = TraceFilter(None if seats is None else frozenset(int(x) for x in seats),
                       None if rounds is None else frozenset(int(x) for x in rounds), only)
    if isinstance(scenario, (str, Path)) and Path(scenario).is_dir():
        # a run folder: replay with the scenario, seed and overrides its run.json recorded
        if seed is not None or overrides:
            raise InputError("seed and overrides apply to a scenario; a run directory "
                             "replays its own", file=str(scenario))
        lines, notes = runner.trace_run(Path(scenario), game,
                                        fmt="json" if records else "text", view=view)
        for note in notes:
            warnings.warn(note, stacklevel=2)
        if records:
            import json
            return [json.loads(line) for line in lines]
        return list(lines)
    mapping, source = _scenario_mapping(scenario)
    ruleset, _, prepared = runner.resolve_mapping(mapping, source=source, seed=seed,
                                                  overrides=_override_list(overrides))
    kw = {}
    if view.active:
        if not ruleset.trace_filters:
            raise InputError(f"the {ruleset.name} trace has no seats/rounds/only filters yet",
                             key="seats")
        kw = {"view": view}
    if records:
        if "json" not in ruleset.trace_formats:
            raise InputError(f"the {ruleset.name} ruleset has no record trace yet (only text)",
                             key="records")
        return list(ruleset.trace_records(prepared, game, **kw))
    return list(ruleset.trace(prepared, game, **kw))


def win_shares(seats: pd.DataFrame | Simulation, by: str, *,
               baseline: Sequence[str] | None = None, alpha: float = 0.05,
               min_ratio: float = 0.8, max_ratio: float = 1.25,
               max_rel_width: float = 0.10) -> pd.DataFrame:
    """Win share per group with its Wilson interval, fair share, Holm test and verdict:
    row by row the table of the run summary and the balance report.

    All three read :func:`deepsim.report.viability.table`: the same verdicts (*too
    strong*, *viable*, *not viable*, *inconclusive*), the same lines (the report's
    defaults, given here by name), the same Holm test in its own column, and the
    baseline bots' seats left out in the same way.

    Parameters
    ----------
    seats : DataFrame or Simulation
        Seats table with columns ``by``, ``win`` and ``fair`` (and ``bot`` to leave
        baseline bots out), as :func:`simulate` or :func:`load` return it; or the
        :class:`Simulation` itself.
    by : str
        Grouping column: one of the ruleset's ``group_columns`` (its faction column, bot,
        seat, ...: ``deepsim.rulesets.get(name).group_columns``).
    baseline : sequence of str, optional
        Bot styles whose seats are left out (their fair share renormalised among the seats
        kept, as in the report). Default: the run's baseline styles (``baseline: true`` in
        the ruleset's ``bots.yaml``), which :func:`simulate` and :func:`load` record in
        ``seats.attrs["baseline_bots"]``; ``()`` keeps every seat.
    alpha : float, default 0.05
        1 - confidence level of the intervals, and the Holm tests' level.
    min_ratio, max_ratio, max_rel_width : float
        The verdict's lines (``viability.min_ratio``, ``viability.max_ratio``,
        ``viability.max_rel_width`` of the report).

    Returns
    -------
    DataFrame
        One row per group, highest win share first: ``<by>``, ``games`` (seat-games),
        ``wins``, ``win_share``, ``ci_low``, ``ci_high`` (Wilson 1927; **percent**, as
        :func:`estimate`), ``fair_share`` (percent), ``ratio`` (win share / fair share,
        "x fair") with ``ratio_low``/``ratio_high``, ``fair_wins``, the Holm-corrected
        one-sided exact binomial tests (``p_over``, ``p_under``, ``p_over_holm``,
        ``p_under_holm``, ``test``: over / under / fair) and ``verdict``.
        ``attrs["baseline_left_out"]``: the seat-games left out.

    Raises
    ------
    KeyError
        A required column is missing.
    """
    from deepsim.report import viability as V
    if isinstance(seats, Simulation):
        seats = seats.seats
    if baseline is None:
        baseline = seats.attrs.get("baseline_bots", ())
    lines = V.Lines(alpha=alpha, min_ratio=min_ratio, max_ratio=max_ratio,
                    max_rel_width=max_rel_width)
    try:
        lines.check()
    except ValueError as exc:
        raise InputError(str(exc)) from None
    kept, left_out = V.balance_seats(seats, tuple(baseline))
    out = V.in_percent(V.table(kept, by, lines))
    out.attrs = {"baseline_left_out": int(left_out), "baseline_bots": list(baseline)}
    return out


def seat_advantage(seats: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Win share by seat position per player count, with Wilson intervals (seat 1 first)."""
    from deepsim.report.metrics import seat_advantage as _seat_advantage
    return _seat_advantage(seats, alpha=alpha)


def game_length(games: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Rounds per game by player count: mean with interval, sd, median, 5th-95th percentile."""
    from deepsim.report.metrics import game_length as _game_length
    return _game_length(games, alpha=alpha)


# --- the metric language --------------------------------------------------------------------

def _frames_of(run: Simulation | tuple[pd.DataFrame, pd.DataFrame]
               ) -> tuple[pd.DataFrame, pd.DataFrame, str | None, dict]:
    if isinstance(run, Simulation):
        return run.games, run.seats, run.ruleset, run.scenario
    if isinstance(run, tuple) and len(run) == 2:
        return run[0], run[1], None, {}
    raise InputError("a run is a Simulation or a (games, seats) pair of DataFrames, got "
                     f"{type(run).__name__}")


def _instances(metric: str, games: pd.DataFrame, seats: pd.DataFrame, ruleset: str | None,
               scenario: dict) -> list:
    from deepsim.measure import (
        expand,
        parse_metric_spec,
        player_counts,
        target_of,
        universe_from_frames,
    )
    from deepsim.rulesets import get
    if ruleset is None:
        raise InputError("name the ruleset (ruleset='RULESET', as the run's scenario does) "
                         "when passing bare frames")
    rs = get(ruleset)
    cols = rs.group_columns
    sel = parse_metric_spec(metric, group_columns=cols, key="metric")
    uni = universe_from_frames(games, seats, player_counts(scenario, seats), cols,
                               rs.faction_column)
    return expand([sel], uni, key_prefix="", target_rounds=target_of(rs), key="metric")


def estimate(run: Simulation | tuple[pd.DataFrame, pd.DataFrame], metric: str, *,
            ruleset: str | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Every number a metric spelling names, with its ``1 - alpha`` interval.

    The same estimates ``deepsim check``, ``compare``, ``sweep`` and ``tune`` use
    (:mod:`deepsim.measure`; README "Metrics"): e.g. ``"win_share[calling]"`` (one row
    per Calling), ``"win_ratio[company=Wisp Wardancer]"``, ``"company_spread"``,
    ``"rounds[players]"``.

    Parameters
    ----------
    run : Simulation or (games, seats)
        A :func:`simulate` result, or two frames (then give ``ruleset``).
    metric : str
        A spelling of the metric language.
    ruleset : str, optional
        The ruleset's name when ``run`` is a pair of frames.
    alpha : float, default 0.05
        1 - confidence level.

    Returns
    -------
    DataFrame
        One row per number: ``label`` (its full spelling), ``member``, ``value``, ``low``,
        ``high`` (in ``unit``: shares in percent), ``unit``, ``clusters`` (games, or deals
        when seats rotate), ``method``.

    Raises
    ------
    InputError
        A malformed or unknown metric, group or member (naming the known ones).
    """
    from deepsim.measure import Codes, estimate_obs
    from deepsim.measure import measure as _measure
    games, seats, name, scenario = _frames_of(run)
    insts = _instances(metric, games, seats, ruleset or name, scenario)
    codes = Codes(seats)
    rows = []
    for inst in insts:
        est = estimate_obs(_measure(inst, games, seats, codes), alpha)
        rows.append({"label": inst.spec, "member": inst.member, "value": est.value,
                     "low": est.low, "high": est.high, "unit": inst.metric.unit,
                     "clusters": est.clusters, "method": est.method})
    return pd.DataFrame(rows)


def paired_change(a: Simulation | tuple[pd.DataFrame, pd.DataFrame],
                  b: Simulation | tuple[pd.DataFrame, pd.DataFrame], metric: str, *,
                  ruleset: str | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """``B - A`` of every number a metric names, on paired games (common random numbers).

    Play A and B from the same seed and game indices (e.g. one scenario with and without
    an override): game ``g`` then has the same dice stream and, unless the change moves
    them, the same companies and bots in both, so the per-game differences cancel most of
    the luck. The interval is the delta-method one over the paired games (deals when seats
    rotate), as ``deepsim compare`` reports it (:func:`deepsim.measure.values.paired`).
    Runs of different seeds are compared unpaired (their variances add).

    Parameters
    ----------
    a, b : Simulation or (games, seats)
        The two variants.
    metric : str
        A spelling of the metric language, e.g. ``"win_share[calling]"``.
    ruleset : str, optional
        The ruleset's name when the runs are bare frames.
    alpha : float, default 0.05
        1 - confidence level.

    Returns
    -------
    DataFrame
        One row per number: ``label``, ``member``, ``a``, ``b``, ``change`` (B - A),
        ``low``, ``high`` (its interval), ``unit`` (of the change: ``pp`` for shares in
        percent), ``games`` (paired games or deals), ``paired`` (bool).

    Raises
    ------
    InputError
        A malformed or unknown metric, or runs of different rulesets.
    """
    import math

    from scipy.stats import norm

    from deepsim.measure import Codes, paired
    from deepsim.measure import measure as _measure
    ga, sa, na, sca = _frames_of(a)
    gb, sb, nb, _ = _frames_of(b)
    if na and nb and na != nb:
        raise InputError(f"a and b are runs of different rulesets ({na}, {nb})")
    insts = _instances(metric, ga, sa, ruleset or na or nb, sca)
    same = (len(ga) == len(gb) and "seed" in ga and "seed" in gb
            and ga["game"].equals(gb["game"]) and ga["seed"].equals(gb["seed"]))
    z = float(norm.isf(alpha / 2))
    ca, cb = Codes(sa), Codes(sb)
    rows = []
    for inst in insts:
        p = paired(_measure(inst, ga, sa, ca), _measure(inst, gb, sb, cb), is_paired=same)
        half = z * p.se if not math.isnan(p.se) else math.nan
        unit = "pp" if inst.metric.unit == "%" else inst.metric.unit
        rows.append({"label": inst.spec, "member": inst.member, "a": p.value_a,
                     "b": p.value_b, "change": p.est, "low": p.est - half,
                     "high": p.est + half, "unit": unit, "games": p.n, "paired": same})
    return pd.DataFrame(rows)


def dice_odds(ruleset: str, question: str, **options):
    """Answer a ``deepsim odds RULESET QUESTION`` question from Python: the exact dice
    odds of ``ruleset``'s data (icepool), options named as the command's (``dice=...``,
    ``sets=["path=value"]``).

    Returns
    -------
    deepsim.odds.table.Result
        The answer: its ``columns`` and ``rows`` (exact probabilities as fractions),
        ``method`` and ``notes`` (:func:`deepsim.odds.table.to_markdown` renders it).

    Raises
    ------
    InputError
        An unknown ruleset, one without odds questions, an unknown question, or a bad
        option or ``--set``.
    """
    from deepsim import rulesets

    book = rulesets.get(ruleset).odds()
    if book is None:
        raise InputError(f"ruleset '{ruleset}' has no odds questions", key="RULESET")
    return book.answer(question, **options)
