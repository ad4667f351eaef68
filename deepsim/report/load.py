"""Load one or more run directories for the report (only the columns it uses)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from deepsim.errors import InputError
from deepsim.output import read_manifest, read_run, read_run_json

__all__ = ["GAMES_COLUMNS", "SEATS_COLUMNS", "RulesetMeta", "RunData", "flatten", "load_run",
           "report_hook", "ruleset_meta"]

GAMES_COLUMNS = [
    "players", "rounds", "truncated", "n_winners", "margin", "margin_rel", "rooms_scored",
    "rooms_contested", "contested_markers", "deferred_steps", "warned",
    "taken_after_warning", "floors_collapsed", "deal", "rotation",
]
SEATS_COLUMNS = [
    "players", "lineage", "calling", "company", "bot", "place", "win", "fair", "glory",
    "glory_cash_out", "glory_worthy_end", "cash_outs", "last_stands", "worthy_ends",
    "taken_no_stand", "taken_no_stand_final", "taken_unplayed", "crews", "lineage_ability",
    "calling_ability", "rotation",
]
_SEATS_PREFIXES = ("claims_",)


@dataclass(frozen=True)
class RulesetMeta:
    """What the shared code needs to know of a ruleset (see :mod:`deepsim.rulesets.base`):
    its name, the seats column of what a player plays and its noun, the seats columns win
    shares may be grouped by and the sweep/tune metrics used when none are named."""

    name: str
    title: str = ""
    faction_column: str = "faction"
    faction_label: str = "faction"
    group_columns: tuple[str, ...] = ("faction", "bot", "seat")
    default_metrics: tuple[str, ...] = ("faction_spread", "draw_share", "seat_advantage",
                                        "rounds")

    @property
    def is_deepfall(self) -> bool:
        return self.name == "deepfall"

    @property
    def factions_label(self) -> str:
        """The noun's plural ("companies", "factions")."""
        w = self.faction_label
        return w[:-1] + "ies" if w.endswith("y") and w[-2:-1] not in "aeiou" else w + "s"


def ruleset_meta(name: str | None) -> RulesetMeta:
    """The metadata of ruleset ``name`` (looked up with :func:`deepsim.runner.get_ruleset`).

    A ruleset that cannot be loaded (not installed here, or broken), or that lacks some of
    the contract's metadata attributes, gets the generic defaults (column ``faction``), so
    a report of its runs still builds.
    """
    from deepsim import runner

    name = str(name or "")
    try:
        rs = runner.get_ruleset(name)
    except Exception:  # noqa: BLE001 - unknown or broken ruleset: generic metadata
        return RulesetMeta(name=name)
    generic = RulesetMeta(name=name)
    column = str(getattr(rs, "faction_column", None) or generic.faction_column)
    groups = getattr(rs, "group_columns", None) or (column, "bot", "seat")
    metrics = getattr(rs, "default_metrics", None) or generic.default_metrics
    return RulesetMeta(
        name=name, title=str(getattr(rs, "title", "")), faction_column=column,
        faction_label=str(getattr(rs, "faction_label", None) or column),
        group_columns=tuple(groups), default_metrics=tuple(metrics))


def report_hook(name: str | None):
    """The object that adds a ruleset's own report sections, or None.

    Either the ruleset's ``RULESET`` (when it has ``report_sections``) or its
    ``deepsim.rulesets.<name>.report`` module (when that has ``report_sections``). The hook
    may also give ``report_claims(ctx) -> list[ClaimResult]`` and ``GAMES_COLUMNS`` /
    ``SEATS_COLUMNS`` (the columns its sections read, loaded besides the shared ones).
    """
    import importlib

    from deepsim import runner

    if not name:
        return None
    try:
        rs = runner.get_ruleset(str(name))
    except Exception:  # noqa: BLE001 - fall back to the module
        rs = None
    if rs is not None and callable(getattr(rs, "report_sections", None)):
        return rs
    modname = f"deepsim.rulesets.{name}.report"
    try:
        mod = importlib.import_module(modname)
    except ModuleNotFoundError as exc:
        if exc.name and (modname == exc.name or modname.startswith(exc.name + ".")):
            return None
        raise
    return mod if callable(getattr(mod, "report_sections", None)) else None


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
    _meta: RulesetMeta | None = field(default=None, repr=False, compare=False)
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
    def baseline_bots(self) -> tuple[str, ...]:
        """Bot styles marked ``baseline: true`` when the run was made (``run.json``); for an
        older run without the record, the ruleset's current bot data (none if unknown)."""
        if "baseline_bots" in self.info:
            return tuple(str(b) for b in self.info["baseline_bots"] or ())
        from deepsim import runner
        try:
            return tuple(runner.get_ruleset(self.ruleset).bot_data().baseline_styles)
        except Exception:  # noqa: BLE001 - no bot data: nothing is a baseline
            return ()

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

    @property
    def meta(self) -> RulesetMeta:
        """The run's ruleset metadata (faction column and noun, group columns)."""
        if self._meta is None:
            self._meta = ruleset_meta(self.ruleset)
        return self._meta


def _schema_names(run_dir: Path, manifest: dict, kind: str) -> list[str] | None:
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


def load_run(run_dir: Path | str) -> RunData:
    """Read a run directory's ``run.json``, manifest and the report's columns.

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
    meta = ruleset_meta(manifest.get("ruleset"))
    hook = report_hook(meta.name)
    g_want = list(dict.fromkeys([*GAMES_COLUMNS, *getattr(hook, "GAMES_COLUMNS", ())]))
    s_want = list(dict.fromkeys([*SEATS_COLUMNS, *meta.group_columns, meta.faction_column,
                                 *getattr(hook, "SEATS_COLUMNS", ())]))
    games_cols = _pick(_schema_names(run_dir, manifest, "games"), g_want)
    seats_cols = _pick(_schema_names(run_dir, manifest, "seats"), s_want, _SEATS_PREFIXES)
    games, seats = read_run(run_dir, games_columns=games_cols, seats_columns=seats_cols)
    return RunData(path=run_dir, info=info, manifest=manifest, games=games, seats=seats,
                   params=flatten(info.get("params") or {}))
