"""numba's compile cache: one per user, shared by every copy of the same kernel sources.

numba compiles a ruleset's kernel on first use and keeps the machine code on disk. Out of
the box it files that code under the absolute path of each source file (and stamps it with
that one file's content), so a second checkout, a pip-installed copy or a CI job of the
same sources compiles everything again, and an edit to a file a kernel inlines from
(``bots.py``) would not invalidate it. deepsim therefore:

- names the cache folder by a hash of every compiled source of the package
  (:func:`source_key`: the modules with jitted code, and the layouts and schemas whose
  constants numba freezes into it): ``<root>/src-<key>/``, where the root is
  ``NUMBA_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/deepsim`` or ``~/.cache/deepsim``;
- files each deepsim function under its module name inside that folder instead of its
  absolute path (:class:`deepsim.numba_locator.SourceKeyedLocator`, registered through
  numba's ``NUMBA_CACHE_LOCATOR_CLASSES``), so any copy of the same sources finds it;
- compiles a ruleset's kernels before its games start, behind a status line, and times
  that apart from the games (:func:`warm`), remembering how long a compile took on this
  machine to announce the next one.

:func:`configure` runs when ``deepsim`` is imported, before numba reads its settings.
Nothing here names a ruleset: a ruleset exposes ``warm_up`` (see
:mod:`deepsim.rulesets.base`) and its ``title``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PACKAGE_ROOT = Path(__file__).resolve().parent
#: the locator class numba loads (by this dotted path) for functions of the deepsim package
LOCATOR = "deepsim.numba_locator.SourceKeyedLocator"
#: numba's own locators, tried after ours (for jitted code outside the package)
NUMBA_LOCATORS = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator",
                  "IPythonCacheLocator", "ZipCacheLocator")
#: per-ruleset record of the last compile on this machine (in the cache root)
TIMES_FILE = "compile-times.json"
_LEAF = re.compile(r"^src-[0-9a-f]{16}$")
#: a line decorating a function for numba (a module with one is a compiled source)
_JIT_LINE = re.compile(rb"^[ \t]*@(?:numba\.)?(?:njit|jit|vectorize|guvectorize)\b",
                       re.MULTILINE)


def source_key(root: Path = PACKAGE_ROOT) -> str:
    """16 hex digits: SHA-256 of the package's compiled sources (names and bytes).

    Compiled sources are the modules that contain numba-compiled functions, and every
    ``layout.py`` and ``schema.py`` (their constants are frozen into the machine code).
    Editing the runner, a report or a ruleset's ``__init__`` leaves the key unchanged.
    """
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        text = p.read_bytes()
        if _JIT_LINE.search(text) or p.name in ("layout.py", "schema.py"):
            h.update(p.relative_to(root).as_posix().encode())
            h.update(text)
    return h.hexdigest()[:16]


def cache_root(environ: dict | None = None) -> Path:
    """The per-user cache root: ``NUMBA_CACHE_DIR`` (without a ``src-<key>`` leaf deepsim
    added) when set, else ``$XDG_CACHE_HOME/deepsim``, else ``~/.cache/deepsim``."""
    env = os.environ if environ is None else environ
    base = env.get("NUMBA_CACHE_DIR")
    if base:
        path = Path(base).expanduser()
        # a child process inherits the keyed folder of its parent: go back to the root
        return path.parent if _LEAF.match(path.name) else path
    xdg = env.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "deepsim"


def cache_dir(environ: dict | None = None) -> Path:
    """The folder numba's cache of these sources lives in: ``cache_root()/src-<key>``."""
    return cache_root(environ) / f"src-{source_key()}"


def ci_key() -> str:
    """A key for a CI cache of :func:`cache_dir`: the source key, Python, numba and the
    machine type (``src-<key>-py3.11-numba0.68.1-x86_64``); numba itself also keys
    entries by CPU model, so a restored cache built on another CPU compiles again."""
    import importlib.metadata
    import platform

    try:
        numba_version = importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        numba_version = "unknown"
    return (f"src-{source_key()}-py{sys.version_info[0]}.{sys.version_info[1]}"
            f"-numba{numba_version}-{platform.machine()}")


def configure() -> Path:
    """Point numba at :func:`cache_dir` and at deepsim's cache locator; return the folder.

    Sets ``NUMBA_CACHE_DIR`` and (unless the user set it) ``NUMBA_CACHE_LOCATOR_CLASSES``
    in ``os.environ``, which numba reads at import and again before each compile, and
    child processes (Dask workers, benchmarks) inherit. Does not import numba.
    """
    target = cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    if not os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
        os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = ",".join((LOCATOR, *NUMBA_LOCATORS))
    numba = sys.modules.get("numba")
    if numba is not None:   # numba read the variables at import: set its config too
        numba.config.CACHE_DIR = str(target)
        numba.config.CACHE_LOCATOR_CLASSES = os.environ["NUMBA_CACHE_LOCATOR_CLASSES"]
    return target


# --- warming: compile before the games, with a status and a time of its own ------------------

@dataclass
class CompileReport:
    """What :func:`warm` did.

    Attributes
    ----------
    seconds : float
        Wall seconds to compile or load the kernels (not game time).
    cpu_seconds : float
        CPU seconds of this process in that time.
    compiled : list of str
        numba functions compiled (cache misses, inner functions included); empty when
        everything came from the cache.
    cache_dir : str
        The cache folder used.
    """

    seconds: float
    cpu_seconds: float
    compiled: list[str] = field(default_factory=list)
    cache_dir: str = ""

    def as_info(self) -> dict:
        """The ``run.json`` entries: ``compile_s``, ``kernel_compiled``, ``numba_cache_dir``."""
        return {"compile_s": round(self.seconds, 3), "kernel_compiled": bool(self.compiled),
                "numba_cache_dir": self.cache_dir}


def can_warm(ruleset: Any) -> bool:
    """True when the ruleset defines ``warm_up`` (``Ruleset.warm_up`` is not None: its
    kernels can be compiled up front)."""
    return ruleset.plays and ruleset.warm_up is not None


def _times_path() -> Path:
    return cache_root() / TIMES_FILE


def _read_times() -> dict:
    try:
        data = json.loads(_times_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def busy_factor() -> float:
    """How much longer than its CPU time a one-thread job takes here now: the 1-minute
    load average plus this job over the cores, at least 1 (1.0 where the OS has no load
    average). A compile is one thread, so on an idle machine its wall time is its CPU time."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return 1.0
    return max(1.0, (load + 1.0) / (os.cpu_count() or 1))


def estimate_s(ruleset: Any, what: str = "run") -> float | None:
    """Seconds (wall) a cold compile of ``ruleset``'s kernels for ``what`` should take now.

    The CPU time of the last compile measured on this machine (any sources; the wall time
    of records without one), else the ruleset's own ``compile_estimate_s`` (a mapping
    ``{what: seconds}`` measured on an idle 2-core machine), times :func:`busy_factor`
    (a CPU time, unlike a wall time, does not carry the load of the run that measured it);
    None when neither is known.
    """
    rec = _read_times().get(f"{ruleset.name}:{what}")
    base = None
    if isinstance(rec, dict):
        for key in ("cpu_seconds", "seconds"):
            if isinstance(rec.get(key), (int, float)):
                base = float(rec[key])
                break
    if base is None:
        est = ruleset.compile_estimate_s.get(what)
        base = None if est is None else float(est)
    return None if base is None else base * busy_factor()


def estimate_cpu_s(ruleset: Any, what: str) -> float | None:
    """CPU seconds a cold compile of ``what`` (``run``, ``all`` or ``part:<name>``) took when last
    measured on this machine, else the ruleset's ``compile_estimate_s``, else None (CPU
    time: what ``deepsim warmup`` balances its processes by)."""
    rec = _read_times().get(f"{ruleset.name}:{what}")
    if isinstance(rec, dict) and isinstance(rec.get("cpu_seconds"), (int, float)):
        return float(rec["cpu_seconds"])
    est = ruleset.compile_estimate_s.get(what)
    return None if est is None else float(est)


def _record(ruleset: Any, what: str, report: CompileReport) -> None:
    from deepsim.atomic import atomic_write_json

    times = _read_times()
    old = times.get(f"{ruleset.name}:{what}")
    if (isinstance(old, dict) and isinstance(old.get("functions"), int)
            and len(report.compiled) < old["functions"] / 2):
        # a partial compile (most functions came from numba's cache, e.g. after a test
        # compiled some of them): its time is no estimate of a cold compile, which the
        # next first run would be told (a 20 s estimate for a 60 s compile, measured)
        return
    times[f"{ruleset.name}:{what}"] = {
        "seconds": round(report.seconds, 1), "cpu_seconds": round(report.cpu_seconds, 1),
        "functions": len(report.compiled), "source_key": source_key(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    try:
        _times_path().parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(_times_path(), times)
    except OSError:  # a read-only cache root: the estimate is a nicety
        pass


def _about(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 10:
        return f", about {max(1, round(seconds))} s"
    if seconds < 120:
        return f", about {5 * round(seconds / 5)} s"
    return f", about {round(seconds / 60)} min"


def compile_message(ruleset: Any, what: str = "run") -> str:
    """``compiling the DEEPFALL kernel (first run only, about 25 s)``, with the ruleset's
    title and :func:`estimate_s` (``what`` ``part:<name>``, a part of ``warm_parts``:
    ``compiling the DEEPFALL kernels for traced games ...``)."""
    title = ruleset.title
    parts = getattr(ruleset, "warm_parts", {}) or {}
    part = what.removeprefix("part:")
    is_part = what.startswith("part:") and part in parts
    noun = "kernels" if what == "all" or is_part else "kernel"
    which = f" for {parts[part]}" if is_part else ""
    return (f"compiling the {title} {noun}{which} "
            f"(first run only{_about(estimate_s(ruleset, what))})")


def warm(ruleset: Any, prepared: Any = None, *, trace: bool = False, part: str | None = None,
         on_compile: Callable[[str], None] | None = None) -> CompileReport:
    """Compile (or load from the cache) the kernels a ruleset's games need, before them.

    Parameters
    ----------
    ruleset : Ruleset
        Must have ``warm_up(prepared=None, *, trace=False)`` (:func:`can_warm`).
    prepared : Prepared, optional
        The scenario about to be played (its argument types are the ones compiled);
        default: the ruleset's own default scenario.
    trace : bool, default False
        Also the kernels of ``trace`` (``deepsim warmup`` compiles everything).
    part : str, optional
        One of the ruleset's ``warm_parts``: ``warm_up(part=part)`` compiles that part of
        everything alone (``deepsim warmup`` compiles the parts in parallel processes);
        its time is recorded as ``part:<name>``.
    on_compile : callable(message), optional
        Called once, when numba starts compiling (not when everything is in the cache),
        with :func:`compile_message`; the CLI shows it with a spinner.

    Returns
    -------
    CompileReport

    Raises
    ------
    AttributeError
        The ruleset has no ``warm_up``.
    """
    from numba.core import config as numba_config
    from numba.core import event

    # a part has its own record: DEEPFALL's part "run" (batch kernels, heuristic and search
    # versions) is not what `deepsim run` compiles (one version)
    what = f"part:{part}" if part is not None else "all" if trace else "run"
    compiled: list[str] = []
    announced = False

    class _Listener(event.Listener):
        def on_start(self, ev):
            nonlocal announced
            disp = ev.data.get("dispatcher")
            fn = getattr(disp, "py_func", None)
            compiled.append(f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}")
            if not announced and on_compile is not None:
                announced = True
                on_compile(compile_message(ruleset, what))

        def on_end(self, ev):
            pass

    t0, c0 = time.perf_counter(), time.process_time()
    with event.install_listener("numba:compile", _Listener()):
        if part is None:
            ruleset.warm_up(prepared, trace=trace)
        else:
            ruleset.warm_up(prepared, trace=trace, part=part)
    report = CompileReport(seconds=time.perf_counter() - t0,
                           cpu_seconds=time.process_time() - c0, compiled=compiled,
                           cache_dir=str(numba_config.CACHE_DIR))
    if compiled:
        _record(ruleset, what, report)
    return report


def prune(keep: Path | None = None) -> list[Path]:
    """Remove every ``src-<key>`` folder of the cache root but ``keep`` (default: the
    current sources'); return the removed folders."""
    keep = (keep or cache_dir()).resolve()
    removed = []
    root = cache_root()
    if not root.is_dir():
        return removed
    for p in sorted(root.iterdir()):
        if p.is_dir() and _LEAF.match(p.name) and p.resolve() != keep:
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed
