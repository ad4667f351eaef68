"""Scenario files: which ruleset, players, companies, bots, game count and seed.

The generic keys are checked here; the ruleset checks the rest (its seats, bots and
overrides) in ``Ruleset.prepare``, with the same error style.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from deepsim.params import KeyLines, load_yaml, validate

#: key-path -> line tables of loaded scenario files, by source path (for later errors).
LINES: dict[str, dict[str, int]] = {}


class ScenarioBase(BaseModel):
    """Keys every scenario has; rulesets subclass it with their own (and forbid others)."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    ruleset: str = Field(min_length=1)
    description: str = ""
    games: int = Field(100_000, ge=1, le=10_000_000_000)
    seed: int = Field(0, ge=0, le=2**63 - 1)
    chunk_size: int = Field(50_000, ge=1, le=10_000_000)
    # None = the ruleset's own default (DEEPFALL 4, Atlantis 2); see load_scenario
    players: int | list[int] | None = None
    overrides: dict[str, Any] = Field(default_factory=dict)
    # `deepsim check` expectations, validated by deepsim.gate.expect; excluded from the
    # resolved scenario, so they never change a run's scenario hash.
    expect: Any = Field(None, exclude=True)
    # every seat of a faction plays bots of its own: a file or a mapping, checked by the
    # ruleset (deepsim.factionbots); the ruleset records what it resolves to
    faction_bots: str | dict[str, Any] | None = Field(None, exclude=True)

    @field_validator("players", mode="before")
    @classmethod
    def _player_counts(cls, value: Any) -> Any:
        # one clear message instead of one per member of the int | list[int] union
        def is_count(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        if value is None or is_count(value) or (isinstance(value, list) and value
                               and all(is_count(v) for v in value)):
            return value
        raise ValueError(f"expected a player count (an integer) or a non-empty list of "
                         f"player counts, got {value!r}")


def players_within(value: int | list[int], low: int, high: int, says: str
                   ) -> int | list[int]:
    """A scenario's ``players`` (a count or a list) when every count is in ``low .. high``
    (a ruleset's ``players`` validator).

    Raises
    ------
    ValueError
        ``"{says}, got N, M"`` naming the counts outside (``says``: "DEEPFALL plays 2-6
        players").
    """
    counts = value if isinstance(value, list) else [value]
    outside = [c for c in counts if not low <= c <= high]
    if outside:
        raise ValueError(f"{says}, got {', '.join(map(str, outside))}")
    return value


def one_seat_per_player(seats: list, players: int | list[int] | None) -> list:
    """A scenario's ``seats`` when they list one seat per player of the largest count (or
    none; a game with n players uses the first n). ``players`` is None when it failed its
    own check.

    Raises
    ------
    ValueError
        Naming the seats listed and the largest player count.
    """
    if seats and players is not None:
        largest = max(players) if isinstance(players, list) else players
        if len(seats) != largest:
            raise ValueError(f"lists {len(seats)} seats but the largest player count is "
                             f"{largest}: give one seat per player (a game with n players "
                             f"uses the first n)")
    return seats


def numeric_knobs(value):
    """A seat's ``knobs`` mapping when every value is a finite number (a ruleset's
    ``knobs`` validator, ``mode="before"``); anything not a mapping is returned for pydantic
    to reject.

    Raises
    ------
    ValueError
        Naming the knob: a value that is not a number (a bool is not) or not finite.
    """
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ValueError(f"knob {k}: expected a number, got {v!r}")  # noqa: TRY004
            if not math.isfinite(float(v)):
                raise ValueError(f"knob {k} is not a finite number; give a number")
    return value


#: how deep ``extends:`` may chain (a.yaml extends b.yaml extends ...)
MAX_EXTENDS = 16


class BotSeat(BaseModel):
    """A seat of a scenario's ``seats:`` list: a bot style of the ruleset's bots.yaml
    (``any``: drawn per game) and knob overrides of its bot (numbers only,
    :func:`numeric_knobs`). A ruleset's own seat model extends it with its other keys."""

    model_config = ConfigDict(extra="forbid")
    bot: str = "any"
    knobs: dict[str, float] = Field(default_factory=dict)

    @field_validator("knobs", mode="before")
    @classmethod
    def _numbers(cls, value):
        return numeric_knobs(value)


def load_scenario(path: Path | str) -> dict:
    """Read a scenario YAML file and check its generic keys.

    A scenario may extend another (``extends: base.yaml``, a path relative to its own
    file): it starts from that scenario's keys and adds or overrides its own
    (:func:`merge_extends`); the chain is followed to its root.

    Returns
    -------
    dict
        The scenario mapping with defaults filled in for the generic keys (``extends``
        resolved and removed: an extending file and the same keys written out in one file
        give the same scenario and hash).

    Raises
    ------
    InputError
        Naming the file, key, line and what was expected; for ``extends:`` a missing file,
        a cycle, a chain deeper than :data:`MAX_EXTENDS` or a scenario of another ruleset.
    """
    path = Path(path)
    data, lines = load_yaml(path)
    LINES[str(path)] = lines
    if isinstance(data, dict) and "extends" in data:
        data = _extended(data, path, lines, chain=[])
        # an inherited key's errors name the file and line it was written at
        lines = KeyLines(lines, {k: v for k, v in
                                 _ORIGINS.pop(str(path.resolve()), {}).items()
                                 if k not in lines and k.split(".", 1)[0] != "extends"})
        LINES[str(path)] = lines
    return check_scenario(data, source=str(path), lines=lines)


#: per extending file (resolved path): dotted key -> (file, line) of every key its
#: chain of parents wrote, filled by :func:`_extended`
_ORIGINS: dict[str, dict[str, tuple[str, int]]] = {}


def _extended(data: dict, path: Path, lines: dict[str, int], chain: list[Path]) -> dict:
    """``data`` (read from ``path``) on top of the scenario it extends, recursively."""
    from deepsim.errors import InputError

    here = path.resolve()
    chain = [*chain, here]
    ref = data.get("extends")
    line = lines.get("extends")
    if not isinstance(ref, str) or not ref.strip():
        raise InputError(f"expected the path of a scenario file (relative to this one), got "
                         f"{ref!r}", file=str(path), key="extends", line=line)
    base = (path.parent / ref).resolve() if not Path(ref).is_absolute() else Path(ref)
    if base in chain:
        loop = " -> ".join(p.name for p in [*chain, base])
        raise InputError(f"extends makes a cycle: {loop}", file=str(path), key="extends",
                         line=line)
    if len(chain) > MAX_EXTENDS:
        raise InputError(f"extends chains more than {MAX_EXTENDS} files deep",
                         file=str(path), key="extends", line=line)
    if not base.is_file():
        raise InputError(f"no such scenario file {ref!r} (looked for {base})", file=str(path),
                         key="extends", line=line)
    parent, parent_lines = load_yaml(base)
    if not isinstance(parent, dict):
        raise InputError(f"{ref!r} is not a scenario (a mapping of keys)", file=str(path),
                         key="extends", line=line)
    if "extends" in parent:
        parent = _extended(parent, base, parent_lines, chain)
        origins = {k: v for k, v in _ORIGINS.pop(str(base), {}).items()
                   if k not in parent_lines}
    else:
        check_scenario(parent, source=str(base), lines=parent_lines)   # its own errors
        origins = {}
    try:                                           # as the user would type it, if near
        shown = os.path.relpath(base)
    except ValueError:                             # another drive
        shown = str(base)
    shown = str(base) if shown.startswith("..") else shown
    origins.update({k: (shown, ln) for k, ln in parent_lines.items()})
    _ORIGINS[str(here)] = origins
    mine, theirs = data.get("ruleset"), parent.get("ruleset")
    if mine is not None and theirs is not None and mine != theirs:
        raise InputError(f"{ref!r} is a scenario of the {theirs!r} ruleset, this file's is "
                         f"{mine!r}: a scenario extends one of its own ruleset",
                         file=str(path), key="extends", line=line)
    return merge_extends(parent, data, base_dir=base.parent, own_dir=path.parent,
                         own_name=path.stem)


def merge_extends(parent: dict, child: dict, *, base_dir: Path, own_dir: Path,
                  own_name: str) -> dict:
    """The scenario ``child`` extends ``parent`` into: the parent's keys, each of the
    child's added or put in place (mappings merged key by key, so ``overrides:`` or
    ``companies:`` change only the keys the child names; lists and values replaced), and
    ``extends`` removed. ``name`` is the child's own (default its file name), never
    inherited; a ``faction_bots`` file inherited from a scenario in another folder is
    rewritten relative to the child's."""
    def merge(a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            out = dict(a)
            for k, v in b.items():
                out[k] = merge(a[k], v) if k in a else v
            return out
        return b

    child = {k: v for k, v in child.items() if k != "extends"}
    inherited = {k: v for k, v in parent.items() if k != "name"}
    fb = inherited.get("faction_bots")
    if (isinstance(fb, str) and "faction_bots" not in child and not Path(fb).is_absolute()
            and base_dir.resolve() != own_dir.resolve()):
        import os
        inherited["faction_bots"] = os.path.relpath(base_dir / fb, own_dir)
    out = merge(inherited, child)
    out.setdefault("name", own_name)
    return out


def check_scenario(data: Any, *, source: str = "<scenario>",
                   lines: dict[str, int] | None = None) -> dict:
    """Check a scenario mapping's generic keys (as :func:`load_scenario` does for a file).

    Returns
    -------
    dict
        A copy of the mapping with defaults filled in for the generic keys.

    Raises
    ------
    InputError
        Naming ``source``, the key, its line (when ``lines`` has it) and what was expected.
    """
    if not isinstance(data, dict):
        from deepsim.errors import InputError
        raise InputError(f"a scenario is a mapping of keys, got {type(data).__name__}",
                         file=source)
    model = validate(ScenarioBase, data, source=source, lines=lines or {})
    out = dict(data)
    # players stays absent when the file names none, so the ruleset's default applies
    out.update({k: getattr(model, k) for k in ScenarioBase.model_fields
                if k != "expect" and (k not in ("players", "faction_bots") or k in data)})
    return out
