"""What the studio offers: the folder's scenario files (checked as ``deepsim scenarios``
checks them), a scenario's field of bots and its ruleset's parameters."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from deepsim.errors import InputError

#: where a folder keeps its scenario files: the folder itself, then its ``scenarios/``
PLACES = (".", "scenarios")


@dataclass(frozen=True)
class Entry:
    """One scenario file: ``name`` is its path relative to the folder (what the page sends
    back), ``error`` the first problem when it does not load."""

    name: str
    ruleset: str = ""
    title: str = ""
    players: str = ""
    games: int | None = None
    bots: str = ""
    error: str = ""


def inside(folder: Path, name: str) -> Path:
    """The file ``name`` (relative) of ``folder``, refusing any path that leaves it.

    Raises
    ------
    InputError
        An absolute path, ``..``, or a link that resolves outside ``folder``.
    """
    root = folder.resolve()
    if not name or Path(name).is_absolute() or "\\" in name or "\x00" in name:
        raise InputError(f"not a file of the studio's folder: {name!r}")
    path = (root / name).resolve()
    if path != root and root not in path.parents:
        raise InputError(f"not a file of the studio's folder: {name!r}")
    return path


def _players(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return "" if value is None else str(value)


def _bots(scen: dict) -> str:
    bots = scen.get("bots")
    if bots is None:
        return ""
    if isinstance(bots, (list, tuple)):
        return ", ".join(str(b) for b in bots)
    return str(bots)


class Catalog:
    """The scenario files of ``folder``, each checked once per change of its file."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._cache: dict[str, tuple[float, Entry]] = {}
        self._lock = threading.Lock()

    def files(self) -> list[str]:
        """Relative names of the scenario files (``*.yaml``, ``*.yml``)."""
        out = []
        for place in PLACES:
            d = self.folder / place
            if not d.is_dir():
                continue
            for pattern in ("*.yaml", "*.yml"):
                for p in sorted(d.glob(pattern)):
                    if p.is_file():
                        out.append(p.relative_to(self.folder).as_posix())
        return out

    def entry(self, name: str) -> Entry:
        """The checked entry of one file (``InputError`` if the name leaves the folder)."""
        from deepsim.gate.scenariofile import check_scenario_file
        path = inside(self.folder, name)
        if not path.is_file():
            raise InputError(f"no such scenario file: {name}")
        mtime = path.stat().st_mtime
        with self._lock:
            hit = self._cache.get(name)
            if hit and hit[0] == mtime:
                return hit[1]
        try:
            scen = check_scenario_file(path)
            e = Entry(name, ruleset=str(scen.get("ruleset", "")), title=str(scen.get("name", "")),
                      players=_players(scen.get("players")), games=scen.get("games"),
                      bots=_bots(scen))
        except InputError as exc:
            e = Entry(name, error=str(exc))
        with self._lock:
            self._cache[name] = (mtime, e)
        return e

    def entries(self) -> list[Entry]:
        """Every scenario file, checked; a bad one carries its error."""
        return [self.entry(n) for n in self.files()]


def parameters(ruleset: str) -> list[dict]:
    """Every parameter ``deepsim params`` lists, grouped by its first path part: rows with
    ``path``, ``group``, ``default``, ``type``, ``bounds``, ``section`` and
    ``placeholder``. Values are JSON-safe (lists stay lists)."""
    from deepsim import runner
    rs = runner.get_ruleset(ruleset)
    out = []
    for row in rs.parameters():
        path = str(row["path"])
        out.append({"path": path, "group": path.split(".", 1)[0],
                    "default": row["default"], "type": str(row["type"]),
                    "bounds": str(row["bounds"]), "section": str(row["section"]),
                    "placeholder": bool(row.get("placeholder", False))})
    return out
