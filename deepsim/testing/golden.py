"""Golden results: SHA-256 digests of what a ruleset's games produce at a fixed seed.

Each ruleset declares a handful of frozen scenarios (``golden.yaml`` in its folder, read by
:func:`deepsim.rulesets.golden.load_cases`); :func:`play_case` plays one, and
:func:`digest_tables` reduces its games and seats tables to digests that do not depend on row order, chunking or thread count. A
change to a kernel, a bot or a data file that alters any game changes a digest; a change that
keeps every game identical (speed, structure) changes none. The stored digests live with the
tests (``tests/golden.json``) and are refreshed with ``python -m tests.golden --update``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from deepsim.rulesets.golden import GoldenCase


def __getattr__(name: str):
    # the cases are the engines' (a ruleset declares them); kept here for one version
    if name in ("DEFAULT_GAMES", "load_cases"):
        import warnings

        from deepsim.rulesets import golden
        warnings.warn(f"deepsim.testing.golden.{name} moved to deepsim.rulesets.golden.{name};"
                      " the old name goes in deepsim 0.2", DeprecationWarning, stacklevel=2)
        return getattr(golden, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: columns that depend on the machine or the clock, never on the game (none today: the
#: kernels' tables are pure functions of seed and game index; listed for tables that grow one)
WALL_CLOCK_COLUMNS: frozenset[str] = frozenset({"wall_time_s", "elapsed_s"})

def play_case(ruleset: Any, case: GoldenCase) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play a golden case's games 0..games-1 in one chunk; return (games, seats) frames."""
    prepared = ruleset.prepare(dict(case.scenario), source=case.source,
                               overrides=list(case.overrides))
    return ruleset.run_chunk(prepared, 0, case.games)


def _column_bytes(s: pd.Series) -> bytes:
    """A column's values as bytes with their type: categories by label, numbers raw."""
    if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype == object:
        return ("str\0" + "\0".join(map(str, s.tolist()))).encode()
    arr = s.to_numpy()
    if arr.dtype == bool:
        arr = arr.astype(np.uint8)
    elif arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        # +0.0 and -0.0 are the same result; NaN payloads are not results either
        arr = np.where(arr == 0, 0.0, arr).astype("<f8")
        arr[np.isnan(arr)] = np.nan
    return arr.dtype.str.encode() + b"\0" + np.ascontiguousarray(arr).tobytes()


def digest_table(df: pd.DataFrame, keys: list[str]) -> dict[str, Any]:
    """SHA-256 of a table sorted by ``keys``, and a short digest per column.

    Wall-clock columns (:data:`WALL_CLOCK_COLUMNS`) are left out; columns are taken in name
    order, so adding a column changes the table digest and names the new column.

    Returns
    -------
    dict
        ``{"sha256": hex, "rows": int, "columns": {name: 12-hex digest}}``.
    """
    df = df.sort_values(keys, kind="stable").reset_index(drop=True)
    total = hashlib.sha256()
    cols = {}
    for c in sorted(df.columns):
        if c in WALL_CLOCK_COLUMNS:
            continue
        b = _column_bytes(df[c])
        cols[c] = hashlib.sha256(b).hexdigest()[:12]
        total.update(c.encode() + b"\0" + b + b"\1")
    return {"sha256": total.hexdigest(), "rows": len(df), "columns": cols}


def digest_tables(games: pd.DataFrame, seats: pd.DataFrame) -> dict[str, Any]:
    """Digests of a run's games table (sorted by game) and seats table (by game, seat)."""
    return {"games": digest_table(games, ["game"]),
            "seats": digest_table(seats, ["game", "seat"])}


def compare(stored: dict[str, Any] | None, now: dict[str, Any]) -> list[str]:
    """What differs between two digests of one case, one line per table; empty if equal."""
    if stored is None:
        return ["no stored digest (a new case)"]
    out = []
    for table in ("games", "seats"):
        a, b = stored.get(table, {}), now[table]
        if a.get("sha256") == b["sha256"]:
            continue
        ca, cb = a.get("columns", {}), b["columns"]
        changed = sorted(c for c in cb if c in ca and ca[c] != cb[c])
        added = sorted(set(cb) - set(ca))
        removed = sorted(set(ca) - set(cb))
        parts = []
        if a.get("rows") != b["rows"]:
            parts.append(f"rows {a.get('rows')} -> {b['rows']}")
        for label, names in (("changed", changed), ("new", added), ("gone", removed)):
            if names:
                shown = ", ".join(names[:8]) + (f" (+{len(names) - 8} more)"
                                                if len(names) > 8 else "")
                parts.append(f"{label}: {shown}")
        out.append(f"{table}: " + ("; ".join(parts) or "digest differs"))
    return out


def read_digests(path: Path | str) -> dict[str, Any]:
    """The stored digests ``{ruleset/case: {...}}`` (empty when the file does not exist)."""
    p = Path(path)
    if not p.exists():
        return {}
    return json.loads(p.read_text())["cases"]


def write_digests(path: Path | str, digests: dict[str, Any], *,
                  refresh: str | None = None) -> None:
    """Write the digest file atomically (sorted keys, one case per block); ``refresh`` is
    the command that rewrites it, named in the file (default: ``deepsim golden --digests
    PATH --update``)."""
    refresh = refresh or f"deepsim golden --digests {path} --update"
    from deepsim.atomic import atomic_write_text
    doc = {"about": f"golden result digests: {refresh} refreshes them; "
                    "a commit that changes one says why",
           "cases": {k: digests[k] for k in sorted(digests)}}
    atomic_write_text(Path(path), json.dumps(doc, indent=1, sort_keys=True) + "\n")


# --- a ruleset's own digest file (a plugin's tests/golden.json) --------------------------------

def refresh_command(digests: Path | str, ruleset: str, case: str | None = None) -> str:
    """The command that refreshes ``digests`` for a ruleset (or one case of it)."""
    return f"deepsim golden --digests {digests} --update {case or ruleset}"


def check_case(ruleset: Any, case: GoldenCase, digests: Path | str) -> str | None:
    """The failure message of one golden case against the digest file ``digests`` (saying
    what changed and the command that refreshes it), or None when its digests are equal.

    For a ruleset that keeps its digests itself (a plugin's ``tests/golden.json``); the
    built-in rulesets' are checked by deepsim's ``tests/rulesets/test_golden.py``.
    """
    games, seats = play_case(ruleset, case)
    diff = compare(read_digests(digests).get(case.key), digest_tables(games, seats))
    if not diff:
        return None
    return (f"golden case {case.key} ({case.source}) changed:\n  " + "\n  ".join(diff)
            + f"\nIf intended, run `{refresh_command(digests, ruleset.name, case.key)}` and "
              "say why in the commit message.")
