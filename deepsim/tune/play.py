"""Play one scenario at many parameter points with common random numbers.

A ruleset's results depend only on (seed, game index), so playing games ``0 .. games-1``
from the same seed at every grid point (or tune trial) gives every point the same deals,
dice streams and bot coin flips: differences between points come from the parameters, not
from different games. Games are played in memory, chunk by chunk, keeping only the columns
the metrics need; nothing is written per point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from deepsim import runner
from deepsim.distributed import worker_versions
from deepsim.errors import InputError
from deepsim.output import hash_json
from deepsim.params import parse_override
from deepsim.tune.grid import (
    check_path,
    coerce_value,
    format_value,
    kind_of,
    parameter_table,
    point_overrides,
)

__all__ = ["Player", "PreparedPoint", "check_sets"]

#: Games per in-memory chunk unless the scenario's chunk size is smaller.
DEFAULT_CHUNK = 10_000


@dataclass
class PreparedPoint:
    """One parameter point, validated by the ruleset and ready to play."""

    index: int
    point: dict
    overrides: list[str]
    prepared: Any
    #: The scenario mapping ``runner.resolve`` prepared (for a worker to prepare it again).
    scenario: dict | None = None
    params_hash: str = field(init=False)

    def __post_init__(self):
        self.params_hash = str(self.prepared.params_hash)

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={format_value(v)}" for k, v in self.point.items()) or "baseline"


def check_sets(sets: list[str], table: dict[str, dict]) -> list[str]:
    """Check each ``--set`` path against the parameter table before anything runs.

    Raises
    ------
    InputError
        A ``--set`` without ``=``, an unknown path (naming the nearest valid ones) or a
        value of the wrong type (``true`` for a number, ``2.5`` for an integer).
    """

    for item in sets:
        if "=" not in item:
            raise InputError(f"override '{item}' must look like path=value", key="--set")
        path, value = parse_override(item)
        row = check_path(path, table, "--set")
        # the parameter's type, strictly: an integer parameter refuses true and 2.5
        coerce_value(value, item.split("=", 1)[1].strip(), kind_of(row), row, path, "--set")
    return list(sets)


class Player:
    """A scenario, its seed and game count, and the fixed ``--set`` overrides.

    Parameters
    ----------
    scenario_path : Path or str
        Scenario YAML file.
    games, seed : int, optional
        Replace the scenario's values.
    sets : list of str
        ``path=value`` overrides applied at every point (after the scenario's own).
    chunk_size : int, optional
        Games per in-memory chunk (default: the scenario's, at most 10,000).
    threads : int, optional
        numba threads (default: all cores); results do not depend on it.
    backend : DaskBackend, optional
        Started; plays each point's chunks as Dask tasks (same results).
    """

    def __init__(self, scenario_path: Path | str, *, games: int | None = None,
                 seed: int | None = None, sets: list[str] | None = None,
                 chunk_size: int | None = None, threads: int | None = None,
                 backend: Any = None):
        self.backend = backend
        self.scenario_path = Path(scenario_path)
        self.threads = runner.set_threads(threads)
        self.sets = list(sets or [])
        ruleset, scenario, prepared = runner.resolve(self.scenario_path, games=games,
                                                     seed=seed, chunk_size=chunk_size)
        self.ruleset = ruleset
        self.scenario = scenario
        self.table = parameter_table(ruleset)
        check_sets(self.sets, self.table)
        resolved = prepared.scenario if isinstance(prepared.scenario, dict) else scenario
        self.name = str(resolved.get("name") or self.scenario_path.stem)
        self.games = int(resolved.get("games", scenario["games"]))
        self.seed = int(resolved.get("seed", scenario["seed"]))
        self.chunk_size = (int(chunk_size) if chunk_size is not None else
                           min(int(resolved.get("chunk_size") or DEFAULT_CHUNK), DEFAULT_CHUNK))
        self.scenario_overrides = dict(resolved.get("overrides") or {})

    def prepare(self, point: dict, index: int = 0, *, games: int | None = None,
                seed: int | None = None) -> PreparedPoint:
        """Validate ``point`` (``{path: value}``) on top of the ``--set`` overrides.

        Raises
        ------
        InputError
            The ruleset refuses the point; the message names the point.
        """
        overrides = self.sets + point_overrides(point)
        try:
            _, scenario, prepared = runner.resolve(self.scenario_path, games=games or self.games,
                                            seed=self.seed if seed is None else seed,
                                            overrides=overrides)
        except InputError as exc:
            where = ", ".join(point_overrides(point)) or "the --set overrides"
            raise InputError(f"{where}: {exc}", key="--param" if point else "--set") from None
        return PreparedPoint(index=index, point=dict(point), overrides=overrides,
                             prepared=prepared, scenario=scenario)

    def spec(self, point: PreparedPoint) -> dict:
        """What a Dask worker needs to prepare ``point`` again (and check it is the same)."""

        return {"ruleset": self.ruleset.name, "scenario_input": point.scenario,
                "overrides": list(point.overrides), "source": str(self.scenario_path),
                "params_hash": point.params_hash,
                "scenario_hash": hash_json(point.prepared.scenario),
                "versions": worker_versions()}

    def play(self, point: PreparedPoint, *, seats_columns: set[str] | None = None,
             games_columns: set[str] | None = None, games: int | None = None,
             progress: Callable[[int], None] | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``0 .. games-1`` of ``point`` from the seed it was prepared with.

        Parameters
        ----------
        seats_columns, games_columns : set of str, optional
            Columns to keep (``None``: all); ``game`` (and ``seat``) are always kept.
        games : int, optional
            Default: the scenario's (or ``--games``).
        progress : callable(count), optional
            Called after each chunk with the games it played.
        """
        total = int(games or point.prepared.scenario.get("games", self.games))
        keep_s = None if seats_columns is None else {"game", "seat"} | set(seats_columns)
        keep_g = None if games_columns is None else {"game"} | set(games_columns)
        if self.backend is not None:
            chunks = list(runner.chunk_ranges(total, self.chunk_size))
            return self.backend.frames(self.spec(point), chunks, keep_g, keep_s, progress)
        g_parts, s_parts = [], []
        for _, start, count in runner.chunk_ranges(total, self.chunk_size):
            g, s = self.ruleset.run_chunk(point.prepared, start, count)
            if keep_g is not None:
                g = g[[c for c in g.columns if c in keep_g]]
            if keep_s is not None:
                s = s[[c for c in s.columns if c in keep_s]]
            g_parts.append(g)
            s_parts.append(s)
            if progress is not None:
                progress(count)
        games_df = pd.concat(g_parts, ignore_index=True) if len(g_parts) > 1 else g_parts[0]
        seats_df = pd.concat(s_parts, ignore_index=True) if len(s_parts) > 1 else s_parts[0]
        return games_df, seats_df

    def columns(self, point: PreparedPoint) -> tuple[list[str], list[str]]:
        """(seats columns, games columns) this ruleset writes (from one played game)."""
        g, s = self.ruleset.run_chunk(point.prepared, 0, 1)
        return list(s.columns), list(g.columns)
