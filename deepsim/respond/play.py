"""Play a scenario's field with one faction's bots replaced, on listed games.

:class:`Field` holds a scenario (its own ``faction_bots`` included) and plays it, in this
process or on a Dask cluster, either as it is or with some factions' bots replaced
(:func:`with_faction_styles`), on a list of game indices. Every game depends only on
(seed, game index) and a faction's bots replace the seat's bot after it was drawn, so the
same index is the same deal, dice and opponents in every variant: common random numbers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from deepsim import runner
from deepsim.distributed import prepared_from_spec, worker_versions
from deepsim.errors import InputError
from deepsim.output import hash_json

__all__ = ["Field", "Variant", "with_faction_styles"]

#: games per local call and per Dask task
BLOCK = 10_000


@dataclass
class Variant:
    """The scenario with some factions' bots replaced, prepared."""

    scenario: dict
    prepared: Any
    seed: int


def with_faction_styles(scenario: dict, resolved: dict | None, bot_data: Any,
                        styles: dict[str, tuple[str, dict[str, float]]]) -> dict:
    """``scenario`` whose ``faction_bots`` gives each faction of ``styles`` one style.

    Parameters
    ----------
    scenario : dict
        The scenario mapping (not changed).
    resolved : dict or None
        The scenario's own ``faction_bots`` as its ruleset resolved it (kept for the
        factions not in ``styles``).
    bot_data : BotData
        The ruleset's bots (a style of its ``bots.yaml`` is named, not redefined).
    styles : dict
        ``{faction: (style name, {knob: value})}``; a name of ``bots.yaml`` with its own
        knobs is played by name.
    """
    named = bot_data.styles
    new_styles = {n: dict(k) for n, k in (resolved or {}).get("styles", {}).items()
                  if n not in named}
    factions = {f: {s: w for s, w in mix}
                for f, mix in (resolved or {}).get("factions", {}).items()}
    for faction, (name, knobs) in styles.items():
        if name in named and all(named[name].knobs[k] == v for k, v in knobs.items()):
            factions[faction] = name
            continue
        if name in named:
            raise ValueError(f"style {name} of {bot_data.file} with other knobs")
        new_styles[name] = {k: float(v) for k, v in knobs.items()}
        factions[faction] = name
    out = copy.deepcopy(scenario)
    out["faction_bots"] = {"styles": new_styles, "factions": factions}
    return out


class Field:
    """A scenario and how to play it (threads or a Dask backend).

    Raises
    ------
    InputError
        Bad scenario, seed or ``--set``; a ruleset without the faction data respond needs
        (``factions``, ``bot_data``); a scenario with ``rotate_seats``.
    """

    def __init__(self, scenario_path: Path | str, *, seed: int | None = None,
                 sets: list[str] | None = None, threads: int | None = None,
                 backend: Any = None):
        self.path = Path(scenario_path)
        self.source = str(scenario_path)
        self.sets = list(sets or [])
        self.backend = backend
        self.threads = runner.set_threads(threads)
        ruleset, scenario, prepared = runner.resolve(self.path, seed=seed,
                                                     overrides=self.sets)
        factions = ruleset.factions(prepared)
        if factions is None:
            raise InputError(f"the {ruleset.name} ruleset does not say what its factions "
                             f"are (Ruleset.factions); respond cannot search it",
                             file=self.source)
        if prepared.scenario.get("rotations"):
            raise InputError("respond plays the games a faction sits in: a scenario with "
                             "rotate_seats counts deals, not games; drop rotate_seats",
                             file=self.source, key="rotate_seats")
        self.ruleset = ruleset
        self.scenario = scenario
        self.prepared = prepared
        self.seed = int(prepared.scenario.get("seed", scenario["seed"]))
        self.name = str(prepared.scenario.get("name") or self.path.stem)
        self.bot_data = ruleset.bot_data()
        self.column = ruleset.faction_column
        self.factions = list(factions)
        self.baseline = tuple(prepared.baseline_bots)
        self.resolved_bots = prepared.scenario.get("faction_bots")

    def with_bots(self, spec: dict) -> Field:
        """This field with ``spec`` (``{"styles": {name: {knob: value}}, "factions":
        {faction: {style: weight}}}``, an inline ``faction_bots`` value) as the scenario's
        ``faction_bots``: the field every later :meth:`variant` starts from (``deepsim
        meta``'s field of earlier rounds).

        Raises
        ------
        InputError
            ``spec`` names an unknown faction, style or knob (the scenario key's checks).
        """
        new = copy.copy(self)
        new.scenario = copy.deepcopy(self.scenario)
        new.scenario["faction_bots"] = copy.deepcopy(spec)
        new.prepared = self.ruleset.prepare(new.scenario, source=self.source,
                                            overrides=list(self.sets))
        new.resolved_bots = new.prepared.scenario.get("faction_bots")
        return new

    def variant(self, styles: dict[str, tuple[str, dict[str, float]]] | None = None, *,
                seed: int | None = None) -> Variant:
        """The scenario with ``styles`` (``{faction: (name, knobs)}``) played, at ``seed``."""
        scenario = (with_faction_styles(self.scenario, self.resolved_bots, self.bot_data,
                                        styles) if styles else dict(self.scenario))
        seed = self.seed if seed is None else int(seed)
        scenario["seed"] = seed
        prepared = self.ruleset.prepare(scenario, source=self.source,
                                        overrides=list(self.sets))
        return Variant(scenario, prepared, seed)

    def play(self, variant: Variant, games: np.ndarray, *,
             seats_columns: set[str], games_columns: set[str],
             progress: Callable[[int], None] | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play the games of index ``games`` (int64, ascending) of ``variant``.

        Returns (games, seats) with only the columns asked for (``game``, ``seat`` and
        ``players`` always), rows in game order.
        """
        games = np.ascontiguousarray(games, dtype=np.int64)
        keep_s = {"game", "seat", "players"} | set(seats_columns)
        keep_g = {"game", "players"} | set(games_columns)
        blocks = [games[i:i + BLOCK] for i in range(0, games.size, BLOCK)]
        if self.backend is not None:
            parts = self._dask(variant, blocks, keep_g, keep_s, progress)
        else:
            parts = []
            for b in blocks:
                parts.append(_frames(self.ruleset, variant.prepared, b, keep_g, keep_s))
                if progress is not None:
                    progress(int(b.size))
        if not parts:
            g, s = _frames(self.ruleset, variant.prepared, games[:0], keep_g, keep_s)
            return g, s
        g = pd.concat([p[0] for p in parts], ignore_index=True)
        s = pd.concat([p[1] for p in parts], ignore_index=True)
        return g, s

    def spec(self, variant: Variant) -> dict:
        """What a Dask worker needs to prepare ``variant`` again (and check it)."""

        return {"ruleset": self.ruleset.name, "scenario_input": variant.scenario,
                "overrides": list(self.sets), "source": self.source,
                "params_hash": variant.prepared.params_hash,
                "scenario_hash": hash_json(variant.prepared.scenario),
                "versions": worker_versions()}

    def _dask(self, variant: Variant, blocks: list[np.ndarray], keep_g: set[str],
              keep_s: set[str], progress: Callable[[int], None] | None) -> list:

        client = self.backend.client
        spec = self.spec(variant)
        kg, ks = sorted(keep_g), sorted(keep_s)
        job = hash_json([spec, [int(b[0]) if b.size else -1 for b in blocks],
                         [int(b.size) for b in blocks], kg, ks])[:16]
        futures = [client.submit(_listed_task, spec, b, kg, ks,
                                 key=f"deepsim-respond-{job}-{i:05d}",
                                 retries=self.backend.retries)
                   for i, b in enumerate(blocks)]
        out = []
        try:
            for f, b in zip(futures, blocks, strict=True):
                try:
                    out.append(f.result())
                except Exception as exc:
                    raise RuntimeError(f"a block of games failed on the Dask cluster "
                                       f"({type(exc).__name__}: {exc})") from exc
                f.release()
                if progress is not None:
                    progress(int(b.size))
        except BaseException:
            client.cancel(futures)
            raise
        return out


def _frames(ruleset: Any, prepared: Any, games: np.ndarray, keep_g: set[str],
            keep_s: set[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The listed games' frames (:meth:`deepsim.rulesets.base.Ruleset.run_games`), only the
    kept columns."""
    g, s = ruleset.run_games(prepared, games)
    g = g[[c for c in g.columns if c in keep_g]]
    s = s[[c for c in s.columns if c in keep_s]]
    return g.reset_index(drop=True), s.reset_index(drop=True)


def _listed_task(spec: dict, games: np.ndarray, keep_g: list[str], keep_s: list[str]
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A Dask task: the listed games' frames, played on the worker with one numba thread."""
    import numba


    numba.set_num_threads(1)
    ruleset, prepared = prepared_from_spec(spec)
    return _frames(ruleset, prepared, np.asarray(games, np.int64), set(keep_g), set(keep_s))
