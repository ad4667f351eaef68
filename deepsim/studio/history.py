"""The studio's history on disk: one run folder per entry (``<id>/``, with ``entry.json``
beside the run's games), written whole or not at all (:mod:`deepsim.studio.runs`), read
back after a restart."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import yaml

from deepsim.errors import InputError

#: the entry's file inside its run folder
ENTRY = "entry.json"

#: an entry id: the time it was queued and a counter (sorts by age)
ID_RE = re.compile(r"^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$")


def new_id(counter: int) -> str:
    """A fresh entry id (UTC time, then 6 hex digits of a counter)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{counter % 0xFFFFFF:06x}"


def read_entry(history: Path, entry_id: str) -> dict:
    """The entry ``entry_id`` of the history.

    Raises
    ------
    InputError
        Not an id (a path, ``..``) or no such entry.
    """
    if not isinstance(entry_id, str) or not ID_RE.match(entry_id):
        raise InputError(f"not a history entry: {entry_id!r}")
    path = history / entry_id / ENTRY
    if not path.is_file():
        raise InputError(f"no history entry {entry_id}")
    return json.loads(path.read_text(encoding="utf-8"))


def entries(history: Path) -> list[dict]:
    """Every whole entry, newest first, without its tables (id, scenario, label, sets,
    baseline, games, seconds, created)."""
    out = []
    if not history.is_dir():
        return out
    for d in sorted(history.iterdir(), reverse=True):
        if not ID_RE.match(d.name) or not (d / ENTRY).is_file():
            continue
        try:
            e = json.loads((d / ENTRY).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue        # a damaged entry is left out, never fatal
        out.append({k: e.get(k) for k in ("id", "scenario", "ruleset", "label", "sets",
                                          "baseline", "games", "seed", "seconds", "created")})
    return out


def export_sets(entry: dict) -> str:
    """The entry's numbers as a command line's ``--set`` list."""
    return " ".join(f"--set '{s}'" for s in entry.get("sets") or [])


def export_scenario(folder: Path, entry: dict) -> str:
    """The entry as a scenario file: its scenario with ``overrides:`` holding its numbers,
    its seed and game count (YAML text)."""
    from deepsim.params import later_wins
    from deepsim.studio.catalog import inside
    src = inside(folder, entry["scenario"])
    data = yaml.safe_load(src.read_text(encoding="utf-8")) or {}
    overrides = later_wins(data.get("overrides") or {}, entry.get("sets") or [])
    data["name"] = f"{data.get('name', 'scenario')}-{entry['id']}"
    data["games"], data["seed"] = int(entry["games"]), int(entry["seed"])
    data["chunk_size"] = min(int(data.get("chunk_size") or entry["games"]), int(entry["games"]))
    if overrides:
        data["overrides"] = overrides
    head = (f"# exported by deepsim studio from {entry['scenario']} "
            f"({entry.get('label', '')})\n")
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
