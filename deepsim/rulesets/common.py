"""Plumbing every ruleset folder uses: its data file and overrides, strict schemas, the
checks of a scenario's player counts and bots, and the seats table's bot column.

A ruleset's ``__init__`` makes one :class:`DataFile` of its ``ruleset.yaml`` and its
pydantic model and calls :func:`merge_overrides` and :meth:`DataFile.load_merged` in
``prepare``; its schema classes derive from :class:`StrictModel`. Nothing here knows a
game (see ``base.py`` for the contract itself).
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from deepsim.errors import InputError
from deepsim.params import (
    apply_overrides,
    later_wins,
    leaf_paths,
    load_yaml,
    nearest,
    override_lines,
    parameter_table,
    parse_override,
    validate,
    validation_error,
)

__all__ = ["DataFile", "Overrides", "StrictModel", "bot_column", "check_bot", "check_bot_pool",
           "check_players", "knobs_need_a_bot", "mark_unresolved", "merge_overrides",
           "player_counts"]


# --- strict schemas ----------------------------------------------------------------------------

def _is_number_annotation(ann: Any) -> bool:
    """``int``, ``float`` or an optional/union of them (``float | None``)."""
    if ann in (int, float):
        return True
    args = typing.get_args(ann)
    return (typing.get_origin(ann) in (typing.Union, types.UnionType)
            and any(a in (int, float) for a in args))


class StrictModel(BaseModel):
    """Base of every ruleset data model: unknown keys are refused, assignments validated,
    and a boolean is never read as a number (pydantic's lax mode reads ``true`` as 1; a
    designer who writes ``hand_size: true`` made a mistake), optional numbers included."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    @model_validator(mode="before")
    @classmethod
    def _no_bool_for_numbers(cls, data):
        if isinstance(data, dict):
            for name, fld in cls.model_fields.items():
                if _is_number_annotation(fld.annotation) and isinstance(data.get(name), bool):
                    raise ValueError(f"{name}: expected a number, got {data[name]!r}")
        return data


# --- the data file -----------------------------------------------------------------------------

class DataFile:
    """A ruleset's data file (``ruleset.yaml``) read against its pydantic model.

    Parameters
    ----------
    path : Path
        The YAML file (its comments beside the keys name the rulebook sections).
    model : callable returning a pydantic model class
        Called on first use (a schema module may be slow to import).
    paths : callable, optional
        ``paths(leaf_paths) -> dict``: the settable paths from the defaulted data's leaf
        paths, for a ruleset whose mappings take keys the defaults leave out (DEEPFALL's
        starting bags: every die, count 0 when absent). Default: the leaf paths.
    on_overrides : callable, optional
        ``on_overrides(data, paths)``: adjusts (in place) the data after the override
        ``paths`` were applied, before validation (e.g. clears a placeholder flag whose data
        the designer supplied whole).
    """

    def __init__(self, path: Path | str, model: Callable[[], type[BaseModel]], *,
                 paths: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 on_overrides: Callable[[dict, list[str]], None] | None = None):
        self.path = Path(path)
        self._model = model
        self._paths_of = paths
        self._on_overrides = on_overrides

    @cached_property
    def model(self) -> type[BaseModel]:
        """The data's pydantic model class."""
        return self._model()

    @cached_property
    def _read(self) -> tuple[dict, dict[str, int]]:
        return load_yaml(self.path)

    def default_data(self) -> dict:
        """The shipped data as read from the file (shared: copy before changing it)."""
        return self._read[0]

    def default_lines(self) -> dict[str, int]:
        """``{dotted key: line}`` of the file."""
        return self._read[1]

    @cached_property
    def _defaults(self) -> dict:
        # a designer edits this file: a bad value is an InputError naming the file, key
        # and line (exit 2), never a pydantic traceback
        data = self.default_data()
        try:
            return self.model.model_validate(data).model_dump()
        except ValidationError as exc:
            raise validation_error(exc, data, model=self.model, source=str(self.path),
                                   lines=self.default_lines()) from None

    @cached_property
    def _paths(self) -> dict[str, Any]:
        leaves = leaf_paths(self._defaults)
        return self._paths_of(leaves) if self._paths_of else leaves

    def parameter_paths(self) -> dict[str, Any]:
        """Every settable dotted path of the data with its default value."""
        return self._paths

    def load(self, overrides: dict | list[str] | None = None, *, source: str = "--set",
             lines: dict[str, int] | None = None) -> BaseModel:
        """Validated data after dotted-path overrides (``{path: value}`` or ``path=value``
        strings); ``lines`` maps an override path (or a parent of it) to its line in
        ``source``.

        Raises
        ------
        InputError
            Unknown path (with the nearest valid ones) or a value out of its bounds.
        """
        base = copy.deepcopy(self._defaults)
        data = apply_overrides(base, overrides or {}, valid_paths=self._paths, source=source,
                               lines=lines)
        if self._on_overrides and overrides:
            self._on_overrides(data, [str(k) for k in overrides] if isinstance(overrides, dict)
                               else [parse_override(o)[0] for o in overrides])
        return validate(self.model, data, source=source if overrides else str(self.path),
                        lines=(lines or {}) if overrides else self.default_lines())

    def load_merged(self, ov: Overrides) -> BaseModel:
        """:meth:`load` with a scenario's merged overrides; an error caused by a line of the
        scenario's ``overrides:`` block names the scenario file, not ``--set``.

        Raises
        ------
        InputError
            As :meth:`load`.
        """
        try:
            return self.load(ov.merged, source=ov.src, lines=ov.lines)
        except InputError as exc:
            if exc.line is None or ov.src == ov.source:
                raise
            raise InputError(exc.message, file=ov.source, key=exc.key, line=exc.line) from None

    def parameters(self) -> list[dict]:
        """Rows of ``deepsim params``: path, default, type, bounds and the data file's note
        (the comment beside the key or its nearest commented parent)."""
        return parameter_table(self.model, self.path, self._paths, self.default_lines())


@dataclass(frozen=True)
class Overrides:
    """A scenario's ``overrides:`` merged with ``--set`` (later wins).

    Attributes
    ----------
    merged : dict
        ``{dotted path: value}``.
    sets : list of str
        The paths a ``--set`` gave.
    source : str
        The scenario's file (or ``<dict>``).
    src : str
        ``source``, or ``"source / --set"`` when there were ``--set`` overrides (where an
        error may come from).
    lines : dict
        ``{path: line}`` of the scenario's ``overrides:`` block, without the paths a
        ``--set`` touches.
    """

    merged: dict
    sets: list[str]
    source: str
    src: str
    lines: dict[str, int]


def merge_overrides(scenario_overrides: dict, sets: Sequence[str] | None, *, source: str,
                    lines: dict[str, int]) -> Overrides:
    """Merge a scenario's ``overrides:`` (first) with ``--set path=value`` strings, in the
    order given (a path given twice is applied at its last place).

    Raises
    ------
    InputError
        A ``--set`` that is not ``path=value``.
    """
    # applied in order, the last wins (params.later_wins: ``--set turn.hand_size=5 --set
    # turn=... --set turn.hand_size=1`` sets 1 under the new ``turn``)
    pairs = [parse_override(o) for o in sets or []]
    merged = later_wins(scenario_overrides, pairs)
    keys = [k for k, _ in pairs]
    src = source if not sets else f"{source} / --set"
    return Overrides(merged, keys, source, src, override_lines(lines, keys))


# --- scenario checks ---------------------------------------------------------------------------

def player_counts(players: int | list[int]) -> list[int]:
    """A scenario's ``players`` (a count or a list) as a list."""
    return list(players) if isinstance(players, list) else [players]


def check_players(title: str, counts: Sequence[int], low: int, high: int, *, source: str,
                  lines: dict[str, int]) -> None:
    """Refuse player counts outside the data's ``players.min``..``players.max``.

    Raises
    ------
    InputError
        Naming the counts outside and the range.
    """
    outside = [c for c in counts if not low <= c <= high]
    if outside:
        raise InputError(f"{title} plays {low}-{high} players with these parameters "
                         f"(players.min {low}, players.max {high}), got "
                         f"{', '.join(map(str, outside))}", file=source, key="players",
                         line=lines.get("players"))


def check_bot_pool(bots: Sequence[str], names: Sequence[str], *, source: str,
                   lines: dict[str, int]) -> None:
    """Refuse a style of the scenario's ``bots:`` pool that the bot data does not define.

    Raises
    ------
    InputError
        Naming ``bots.i``, the nearest styles and every known one.
    """
    for i, b in enumerate(bots):
        if b not in names:
            raise InputError(f"unknown bot '{b}'{nearest(b, names)}; known: "
                             f"{', '.join(names)}", file=source, key=f"bots.{i}",
                             line=lines.get(f"bots.{i}"))


def check_bot(bot: str, names: Sequence[str], *, source: str, key: str,
              lines: dict[str, int]) -> None:
    """Refuse a seat's bot style that is neither ``any`` nor a known style.

    Raises
    ------
    InputError
        Naming ``key``, the nearest styles and every known one.
    """
    if bot != "any" and bot not in names:
        raise InputError(f"unknown bot '{bot}'{nearest(bot, names)}; known: any, "
                         f"{', '.join(names)}", file=source, key=key, line=lines.get(key))


def knobs_need_a_bot(what: str, *, source: str, key: str, lines: dict[str, int]) -> InputError:
    """The error of knob overrides on a ``what`` (seat, side) whose bot is ``any``."""
    return InputError(f"knobs need a fixed bot style on the {what} (not 'any')", file=source,
                      key=key, line=lines.get(key))


# --- tables ------------------------------------------------------------------------------------

def seat_profiles(seats: Sequence[Any], styles: dict[str, dict], bots: Sequence[str],
                  checked_knobs: Callable[[int, Any], dict[str, float]], *, source: str,
                  lines: dict[str, int]) -> tuple[list[dict], list[str], list[int]]:
    """The bot profiles a scenario plays: the named styles, then one per distinct knobbed
    seat, with their labels and each seat's profile.

    Parameters
    ----------
    seats : sequence
        The scenario's seats (each with ``bot``: a style or ``any``, and ``knobs``).
    styles : dict
        Style name -> its knob values (the ruleset's ``bots.yaml``), in the kernel's order.
    bots : sequence of str
        The scenario's ``bots`` pool (checked against ``styles``).
    checked_knobs : callable
        ``(seat index, seat) -> {knob: float}``: the seat's knob overrides, checked by the
        ruleset (raising :class:`InputError` naming ``seats.I.knobs.K``).
    source, lines
        The scenario file and its key -> line map, for errors.

    Returns
    -------
    profiles : list of dict
        Knob values per profile: the styles first, then each knobbed seat's.
    labels : list of str
        A name per profile: the style, or ``style[knob=value ...]`` (spaces, not commas, so
        a label stays one group name in a metric spec).
    seat_bot : list of int
        Each seat's profile index; -1 for ``any`` (drawn per game from ``bots``).

    Raises
    ------
    InputError
        A pool or seat naming an unknown style, or knobs on an ``any`` seat.
    """
    names = list(styles)
    check_bot_pool(bots, names, source=source, lines=lines)
    profiles = [dict(styles[n]) for n in names]
    labels = list(names)
    seat_bot: list[int] = []
    for i, seat in enumerate(seats):
        if seat.bot == "any":
            if seat.knobs:
                raise knobs_need_a_bot("seat", source=source, key=f"seats.{i}.knobs",
                                       lines=lines)
            seat_bot.append(-1)
            continue
        check_bot(seat.bot, names, source=source, key=f"seats.{i}.bot", lines=lines)
        if not seat.knobs:
            seat_bot.append(names.index(seat.bot))
            continue
        prof = dict(styles[seat.bot])
        prof.update(checked_knobs(i, seat))
        label = f"{seat.bot}[" + " ".join(f"{k}={v:g}" for k, v in seat.knobs.items()) + "]"
        if label in labels:
            seat_bot.append(labels.index(label))
        else:
            profiles.append(prof)
            labels.append(label)
            seat_bot.append(len(profiles) - 1)
    return profiles, labels, seat_bot


def bot_column(labels: Sequence[str], codes: np.ndarray) -> pd.Categorical:
    """The seats table's ``bot`` column: ``labels[code]`` per row as a categorical whose
    categories are the distinct labels in first-seen order (two profiles with one label,
    e.g. two knobbed seats of one style, share a category).

    Parameters
    ----------
    labels : sequence of str
        The label of each bot profile (the kernel's profile index).
    codes : int array, shape (rows,)
        Each row's profile index.
    """
    names = list(dict.fromkeys(labels))
    remap = np.array([names.index(b) for b in labels], np.int64)
    return pd.Categorical.from_codes(remap[np.asarray(codes)], categories=names)


def seat_number(index: np.ndarray) -> np.ndarray:
    """Kernel seat indices as the seat numbers every table shows.

    Kernels index seats from 0 (seat 0 plays first); the games and seats tables, reports,
    metrics (``win_edge[seat=1]``), traces and errors number them from 1, one numbering for
    users (parquet schema version 2; version 1 runs are renumbered when read, see
    :func:`deepsim.output.read_run`).

    Parameters
    ----------
    index : int array, any shape
        Seat indices from 0; a negative value (no seat: a shared win, the table) is kept.

    Returns
    -------
    int64 array, same shape
        ``index + 1`` where ``index >= 0``, else ``index``.
    """
    index = np.asarray(index, dtype=np.int64)
    return np.where(index >= 0, index + 1, index)


def mark_unresolved(games: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """The seats table with ``win`` = NaN on every seat of an unresolved game.

    The contract's rule for a game a safety cap stopped (:data:`deepsim.rulesets.base.
    UNRESOLVED`): its games row has ``truncated`` = True and, unless the ruleset's optional
    ``adjudicated`` column is True for it (a documented, opt-in adjudication decided it),
    it has no result: neither a win, a loss nor a draw for any seat. A ruleset calls this
    on the tables it builds, whatever its kernel wrote for the stopped game.

    Parameters
    ----------
    games : DataFrame
        The games table (``game``, ``truncated``, optional ``adjudicated``).
    seats : DataFrame
        The seats table of the same games (``game``, ``win`` float64).

    Returns
    -------
    DataFrame
        ``seats`` itself when no game is unresolved, else a copy with those wins NaN.
    """
    flags = games["truncated"].to_numpy().astype(bool)
    if "adjudicated" in games.columns:
        flags &= ~games["adjudicated"].to_numpy().astype(bool)
    if not flags.any():
        return seats
    gone = games["game"].to_numpy()[flags]
    out = seats.copy()
    hit = np.isin(out["game"].to_numpy(), gone)
    out["win"] = np.where(hit, np.nan, out["win"].to_numpy(dtype=np.float64))
    return out


def coop_columns(game_int: Sequence[str], seat_int: Sequence[str],
                 extra_games: dict[str, str] | None = None) -> tuple[dict, dict]:
    """The games and seats columns (name -> dtype) of a co-operative kernel ruleset, as the
    contract declares them (docs/contract.md, "Co-operative rulesets"): the kernel's int
    columns ``game_int`` / ``seat_int`` (its games ``outcome`` code becomes the categorical
    ``outcome``; its seats ``bot`` and ``class`` codes categoricals), the party's ``won``
    and ``target``, each seat's ``class``, ``win`` and ``fair``; then ``extra_games``."""
    games = {"game": "int64", "seed": "int64", "truncated": "bool",
             **{c: "int64" for c in game_int if c not in ("truncated", "outcome")},
             "outcome": "category", "won": "bool", "target": "float64",
             **(extra_games or {})}
    seats = {"game": "int64", "seat": "int64", "players": "int64", "class": "category",
             "bot": "category", **{c: "int64" for c in seat_int if c not in ("bot", "class")},
             "win": "float64", "fair": "float64"}
    return games, seats
