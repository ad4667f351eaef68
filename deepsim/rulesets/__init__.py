"""Ruleset registry: the games deepsim ships, and those installed packages add.

A ruleset is an object keeping the contract of :mod:`deepsim.rulesets.base` (a
``Ruleset`` or an ``OddsRuleset``). deepsim finds them in three places, by name:

- **built-in**: each sub-package of ``deepsim/rulesets/`` exposing ``RULESET``;
- **plugin**: an entry point of the group ``deepsim.rulesets`` of any installed package
  (its ``pyproject.toml``: ``[project.entry-points."deepsim.rulesets"] pig =
  "deepsim_pig:RULESET"``); the entry point's name is the ruleset's name, its value the
  ``RULESET`` object (or a module exposing one). ``deepsim new-ruleset`` writes such a
  package;
- **registered**: :func:`register` in this process (tests and notebooks, no install).

Every command that names or enumerates rulesets goes through :func:`get`,
:func:`available` and :func:`playable`, so a plugin is run, reported, checked, swept,
tuned, warmed up and listed as a built-in is. A plugin is imported only when it is asked
for (or listed): a plugin that fails to import, or whose ``RULESET`` breaks the contract,
is listed with its error by ``deepsim rulesets`` (:func:`describe`), refused with that
error by :func:`get` (exit 2), and left out of :func:`playable`; it never stops the other
rulesets from working. A plugin whose name is a built-in's is never loaded (the built-in
keeps its name; the listing says so), and two packages declaring one name are both
refused until one is uninstalled.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import pkgutil
import sys
import traceback
import types
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deepsim.errors import InputError
from deepsim.params import nearest

__all__ = ["ENTRY_POINT_GROUP", "Entry", "available", "builtin", "describe", "entries", "get",
           "playable", "refresh", "register", "unregister"]

_HERE = Path(__file__).parent

#: the entry point group a package declares its rulesets in
ENTRY_POINT_GROUP = "deepsim.rulesets"

BUILTIN = "built-in"
PLUGIN = "plugin"
REGISTERED = "registered"


@dataclass
class Entry:
    """One ruleset deepsim knows of, loaded or not.

    Attributes
    ----------
    name : str
        The name scenarios and commands give (the folder's or the entry point's).
    source : {"built-in", "plugin", "registered"}
        Where it comes from.
    package : str
        The distribution that provides it (``deepsim`` for the built-ins).
    version : str
        That distribution's version (``""`` when unknown).
    target : str
        What is imported: ``deepsim.rulesets.abyss`` or an entry point value
        ``module:attribute``.
    error : str or None
        Why it cannot be used (a name clash, an import error, a broken contract); set at
        discovery for a clash, else by the first :func:`get` or :func:`describe`.
    """

    name: str
    source: str
    package: str
    version: str
    target: str
    error: str | None = None
    obj: Any = field(default=None, repr=False)
    loaded: bool = field(default=False, repr=False)
    _load: Any = field(default=None, repr=False)

    @property
    def origin(self) -> str:
        """``built-in``, ``plugin deepsim-pig 0.1.0`` or ``registered``: one phrase."""
        if self.source == PLUGIN:
            return f"plugin {self.package} {self.version}".rstrip()
        return self.source

    @property
    def location(self) -> str:
        """The folder or file of the ruleset's module (``""`` before it is imported)."""
        mod = sys.modules.get(self.target.split(":", 1)[0])
        path = getattr(mod, "__file__", None) if mod is not None else None
        if not path:
            return ""
        p = Path(path)
        return str(p.parent if p.name == "__init__.py" else p)


# --- discovery ---------------------------------------------------------------------------------

_ENTRIES: list[Entry] | None = None
_REGISTERED: dict[str, Entry] = {}


def builtin() -> list[str]:
    """Names of the rulesets shipped (one folder each under deepsim/rulesets/)."""
    return sorted(m.name for m in pkgutil.iter_modules([str(_HERE)]) if m.ispkg)


def _deepsim_version() -> str:
    from deepsim.version import __version__
    return __version__


def _entry_points() -> list[md.EntryPoint]:
    """The installed ``deepsim.rulesets`` entry points (one per distribution and name)."""
    try:
        eps = md.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # a corrupt metadata file somewhere on sys.path  # noqa: BLE001
        return []
    seen, out = set(), []
    for ep in eps:
        dist = getattr(ep, "dist", None)
        key = (ep.name, ep.value, getattr(dist, "name", None))
        if key not in seen:
            seen.add(key)
            out.append(ep)
    return out


def _discover() -> list[Entry]:
    version = _deepsim_version()
    out = [Entry(n, BUILTIN, "deepsim", version, f"deepsim.rulesets.{n}") for n in builtin()]
    taken = {e.name for e in out}
    plugins: dict[str, list[Entry]] = {}
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        pkg = (dist.metadata["Name"] if dist is not None else None) or "?"
        ver = getattr(dist, "version", "") or ""
        e = Entry(ep.name, PLUGIN, pkg, ver, ep.value, _load=ep.load)
        plugins.setdefault(ep.name, []).append(e)
    for name, group in sorted(plugins.items()):
        for e in group:
            if name in taken:
                e.error = (f"the name '{name}' is a built-in ruleset's; the built-in is used "
                           f"and this plugin is not loaded (rename its entry point in "
                           f"{e.package}'s pyproject.toml, [project.entry-points."
                           f"\"{ENTRY_POINT_GROUP}\"])")
            elif len(group) > 1:
                others = ", ".join(f"{o.package} {o.version}".rstrip() for o in group)
                e.error = (f"the name '{name}' is declared by several installed packages "
                           f"({others}); none is loaded: uninstall all but one")
            out.append(e)
    for name, reg in sorted(_REGISTERED.items()):
        e = replace(reg, error=None, obj=None, loaded=False)
        if any(o.name == name and o.error is None for o in out):
            e.error = (f"the name '{name}' is already a {_first(out, name).origin} ruleset's; "
                       "the registration is not used")
        out.append(e)
    return out


def _first(entries: list[Entry], name: str) -> Entry:
    return next(e for e in entries if e.name == name and e.error is None)


def entries() -> list[Entry]:
    """Every ruleset deepsim knows of (built-in first, then plugins and registered ones by
    name), usable or not. Discovery reads package metadata only; nothing is imported."""
    global _ENTRIES
    if _ENTRIES is None:
        _ENTRIES = _discover()
    return _ENTRIES


def refresh() -> None:
    """Forget what was discovered and loaded (after installing a package in this process,
    or putting one on ``sys.path``); the next call looks again."""
    global _ENTRIES
    _ENTRIES = None
    importlib.invalidate_caches()


def register(name: str, target: Any, *, package: str = "", version: str = "") -> None:
    """Make a ruleset known in this process without installing its package.

    Parameters
    ----------
    name : str
        The ruleset's name (its ``RULESET.name``).
    target : str or object
        ``"module:attribute"`` (or ``"module"`` exposing ``RULESET``), imported on first
        use, or the ruleset object itself.
    package, version : str
        Shown by ``deepsim rulesets``.
    """
    if isinstance(target, str):
        e = Entry(name, REGISTERED, package, version, target,
                  _load=lambda: _import_target(target))
    else:
        mod = type(target).__module__
        e = Entry(name, REGISTERED, package, version, mod, _load=lambda: target)
    _REGISTERED[name] = e
    refresh()


def unregister(name: str) -> None:
    """Undo :func:`register` (no error when ``name`` was not registered)."""
    if _REGISTERED.pop(name, None) is not None:
        refresh()


def _import_target(target: str) -> Any:
    mod_name, _, attr = target.partition(":")
    obj = importlib.import_module(mod_name)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


# --- loading -----------------------------------------------------------------------------------

def _where(exc: BaseException) -> str:
    """`` (file.py:12)``: the innermost frame of an exception raised while importing."""
    tb = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}:{exc.lineno})"
    if not tb:
        return ""
    f = tb[-1]
    return f" ({f.filename}:{f.lineno})"


def _load(e: Entry) -> None:
    """Import the entry's ruleset once; set ``obj`` or ``error``."""
    from deepsim.rulesets.base import RulesetInfo, check_ruleset

    if e.loaded or e.error is not None:
        return
    e.loaded = True
    try:
        obj = (importlib.import_module(e.target) if e.source == BUILTIN else e._load())
    except (Exception, SystemExit) as exc:  # noqa: BLE001 (any import failure is listed)
        e.error = (f"cannot import {e.target}: {type(exc).__name__}: {exc}{_where(exc)}")
        return
    if isinstance(obj, types.ModuleType):
        obj = getattr(obj, "RULESET", None)
    elif isinstance(obj, type) and issubclass(obj, RulesetInfo):
        try:
            obj = obj()
        except Exception as exc:  # noqa: BLE001 (an abstract method left out, any error)
            e.error = f"{e.target} cannot be made: {type(exc).__name__}: {exc}"
            return
    problems = check_ruleset(obj)
    if not problems and obj.name != e.name:
        problems = [(f"RULESET.name is '{obj.name}' but the ruleset is registered as "
                     f"'{e.name}' (the entry point's name): make them equal")]
    if problems:
        e.error = f"breaks the ruleset contract: {'; '.join(problems)}"
        return
    e.obj = obj


def _usable(name: str) -> list[Entry]:
    """The entries of ``name`` that are not refused at discovery (a clash)."""
    return [e for e in entries() if e.name == name]


def available() -> list[str]:
    """Names of every ruleset known (built-in, installed plugins, registered), sorted;
    broken ones included (:func:`get` names their error)."""
    return sorted({e.name for e in entries()})


def get(name: str):
    """The ``RULESET`` object of ruleset ``name`` (a :class:`~deepsim.rulesets.base.Ruleset`
    or an odds-only :class:`~deepsim.rulesets.base.OddsRuleset`).

    Raises
    ------
    InputError
        When no such ruleset exists (naming the nearest ones), when its plugin cannot be
        imported or breaks the contract of ``base.py``, or when its name is ambiguous
        (saying which package and how to fix it).
    """
    found = _usable(name)
    if not found:
        names = available()
        raise InputError(f"unknown ruleset '{name}'{nearest(name, names)}; "
                         f"known: {', '.join(names)}", key="ruleset")
    good = [e for e in found if e.error is None]
    e = good[0] if good else found[0]
    _load(e)
    if e.error is not None:
        where = (f"deepsim/rulesets/{name}/" if e.source == BUILTIN
                 else f"{e.origin}, {e.target}")
        raise InputError(f"ruleset '{name}' ({where}) {_verb(e.error)}", key="ruleset")
    return e.obj


def _verb(error: str) -> str:
    return error if error.startswith(("breaks", "cannot")) else f"is not used: {error}"


def playable() -> list[str]:
    """Names of the usable rulesets that have a kernel (``Ruleset.plays``), built-in and
    installed; broken plugins are left out (``deepsim rulesets`` shows why)."""
    out = []
    for name in available():
        try:
            if get(name).plays:
                out.append(name)
        except InputError:
            continue
    return out


def describe() -> list[Entry]:
    """Every entry, each loaded (so ``obj`` or ``error`` is set): ``deepsim rulesets``."""
    for e in entries():
        _load(e)
    return list(entries())
