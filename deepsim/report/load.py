"""A run directory read for the report: :class:`RunData` (only the columns the report and
the run's ruleset read).

The kit never asks the registry which ruleset made a run: the caller passes it in
(:func:`load_run`); :func:`deepsim.reporting.load_run` is the service that looks it up.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from deepsim.errors import InputError
from deepsim.output import read_manifest, read_run, read_run_json

__all__ = ["GAMES_COLUMNS", "SEATS_COLUMNS", "RunData", "flatten", "load_run", "schema_names"]

#: columns the shared sections read (besides the ruleset's group and faction columns and its
#: own ``report_*_columns``); a column a run lacks is simply not loaded
GAMES_COLUMNS = ["players", "truncated", "adjudicated", "deal", "rotation"]
SEATS_COLUMNS = ["players", "bot", "win", "fair", "rotation"]


def flatten(obj, prefix: str = "") -> dict:
    """Nested mappings -> ``{"a.b.c": leaf}``."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict) and v:
                out.update(flatten(v, key))
            else:
                out[key] = v
    return out


@dataclass
class RunData:
    """One run: where it is, what it was (``run.json``, manifest) and its frames."""

    path: Path
    info: dict
    manifest: dict
    games: pd.DataFrame
    seats: pd.DataFrame
    params: dict = field(default_factory=dict)
    #: the run's ruleset (:class:`deepsim.rulesets.base.Ruleset`), given by who loaded it
    rs: Any = field(default=None, repr=False, compare=False)
    _balance: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def n_games(self) -> int:
        return len(self.games)

    @property
    def seed(self):
        return self.manifest.get("seed")

    @property
    def params_hash(self) -> str:
        return str(self.manifest.get("params_hash", ""))

    @property
    def scenario_name(self) -> str:
        return str(self.manifest.get("scenario_name") or self.info.get("scenario_name")
                   or self.path.name)

    @property
    def placeholders(self) -> list[str]:
        return list(self.info.get("placeholders") or self.manifest.get("placeholders") or [])

    @property
    def safety_caps(self) -> list[dict]:
        """The run's safety caps (``run.json`` ``safety_caps``; for a run made before it was
        recorded: the ruleset's declared caps with the run's parameter values)."""
        if "safety_caps" in self.info:
            return list(self.info.get("safety_caps") or [])
        from deepsim.params import safety_cap_values
        try:
            return safety_cap_values(self.rs, self.params)
        except Exception:  # noqa: BLE001 - a run of a ruleset not installed: none known
            return []

    @property
    def baseline_bots(self) -> tuple[str, ...]:
        """Bot styles marked ``baseline: true`` in the ruleset's bot data when the run was
        made (``run.json`` ``baseline_bots``, from ``Prepared.baseline_bots``); none for an
        older run without the record (today's bot data may not be the run's)."""
        return tuple(str(b) for b in self.info.get("baseline_bots") or ())

    def balance_seats(self) -> tuple[pd.DataFrame, int]:
        """The seats balance headlines read: baseline bots left out, the fair share
        renormalised among the rest (:func:`deepsim.botdata.split_baseline`); and the
        number of seat-games left out."""
        if self._balance is None:
            from deepsim.botdata import split_baseline
            self._balance = split_baseline(self.seats, self.baseline_bots)
        return self._balance

    @property
    def skipped_rules(self) -> list[str]:
        return list(self.info.get("skipped_rules") or self.manifest.get("skipped_rules")
                    or [])

    @property
    def overrides(self) -> list[str]:
        return [str(o) for o in self.info.get("overrides") or []]

    @property
    def status(self) -> str:
        return str(self.manifest.get("status", "?"))

    @property
    def label(self) -> str:
        """``name, seed S, N games, params <hash12>``."""
        over = f", {' '.join('--set ' + o for o in self.overrides)}" if self.overrides else ""
        return (f"{self.scenario_name}, seed {self.seed}, {self.n_games:,} games, "
                f"params {self.params_hash[:12]}{over}")

    @property
    def player_counts(self) -> list[int]:
        if "players" not in self.games.columns or self.games.empty:
            return []
        return sorted(int(p) for p in self.games["players"].unique())

    def param(self, path: str, default=None):
        return self.params.get(path, default)

    @property
    def ruleset(self) -> str:
        return str(self.manifest.get("ruleset") or self.info.get("ruleset") or "")



def schema_names(run_dir: Path | str, manifest: dict, kind: str) -> list[str] | None:
    """The column names of a run's ``kind`` (``"games"`` or ``"seats"``) parts, read from
    the first part's parquet schema (None when there is no part or it cannot be read:
    :func:`deepsim.output.read_run` then reports the bad part properly)."""
    run_dir = Path(run_dir)
    for chunk in manifest.get("chunks", []):
        rel = chunk.get(f"{kind}_part")
        if rel:
            try:
                return list(pq.read_schema(run_dir / rel).names)
            except Exception:  # noqa: BLE001 - read_run reports a bad part properly
                return None
    return None


def _pick(names: list[str] | None, wanted: Iterable[str], prefixes=()) -> list[str] | None:
    if names is None:
        return None
    want = [c for c in wanted if c in names]
    want += [c for c in names if c.startswith(tuple(prefixes)) and c not in want]
    return want


def load_run(run_dir: Path | str, ruleset: Any) -> RunData:
    """Read a run directory's ``run.json``, manifest and the columns the report and
    ``ruleset`` (the :class:`~deepsim.rulesets.base.Ruleset` that made the run) read.

    The kit never asks the registry: :func:`deepsim.reporting.load_run` is this with the
    ruleset the run's manifest names.

    Raises
    ------
    InputError
        Not a run directory, or a part that fails the manifest checks of
        :func:`deepsim.output.read_run`.
    """
    run_dir = Path(run_dir)
    if not os.path.isdir(run_dir):  # os.path: never raises (a too long name)
        raise InputError("run directory not found", file=str(run_dir))
    manifest = read_manifest(run_dir)
    info = read_run_json(run_dir) if (run_dir / "run.json").is_file() else {}
    rs = ruleset
    g_want = list(dict.fromkeys([*rs.report_games_columns, *GAMES_COLUMNS]))
    s_want = list(dict.fromkeys([*rs.report_seats_columns, *SEATS_COLUMNS, *rs.group_columns,
                                 rs.faction_column]))
    games_cols = _pick(schema_names(run_dir, manifest, "games"), g_want)
    seats_cols = _pick(schema_names(run_dir, manifest, "seats"), s_want,
                       rs.report_seats_prefixes)
    games, seats = read_run(run_dir, games_columns=games_cols, seats_columns=seats_cols)
    return RunData(path=run_dir, info=info, manifest=manifest, games=games, seats=seats,
                   params=flatten(info.get("params") or {}), rs=rs)
