"""`deepsim warmup`: compile rulesets' kernels into numba's cache ahead of time, the
independent parts in parallel processes when the machine has the cores.

numba compiles on one core. A ruleset lists the parts of its kernels that share little
compiled code (``Ruleset.warm_parts``: DEEPFALL's batch kernels and its traced ones); a
ruleset without parts is one part. The parts are spread over ``processes`` child
processes so that the busiest has the least to do (by the CPU time each part took when
last compiled on this machine, :func:`deepsim.jitcache.estimate_cpu_s`), and each child
compiles its parts in turn into the shared per-user cache. With one process (one core, or
``--jobs 1``) everything compiles here, in this process. A part compiles under a lock
file in the cache folder, so another process about to compile it (a second warm-up on
the same cache) waits and then loads it, and a process about to play it can wait for it
(:func:`wait`: the slow tier's tests, while its background warm-up runs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import product

#: CPU seconds assumed for a part never compiled here and without an estimate
UNKNOWN_S = 60.0


@dataclass(frozen=True)
class Part:
    """One unit of compile work: ``warm_up(part=part)`` of a ruleset, or its whole
    ``warm_up(trace=True)`` when ``part`` is None, or with ``trace`` False only what
    ``deepsim run`` of its default scenario compiles (``warm_up()``).

    Attributes
    ----------
    ruleset : str
        Registry name.
    part : str or None
        One of the ruleset's ``warm_parts``, or None for everything.
    label : str
        What it compiles, for people: ``DEEPFALL kernels for traced games``.
    estimate_cpu_s : float or None
        CPU seconds it took when last compiled here (or the ruleset's estimate).
    trace : bool, default True
        False (with ``part`` None): only the default scenario's batch kernel.
    """

    ruleset: str
    part: str | None
    label: str
    estimate_cpu_s: float | None = None
    trace: bool = True

    @property
    def key(self) -> str:
        """``ruleset``, ``ruleset:part`` or ``ruleset@run`` (``trace`` False): a child
        process's argument."""
        if self.part is not None:
            return f"{self.ruleset}:{self.part}"
        return self.ruleset if self.trace else f"{self.ruleset}@run"


@dataclass
class PartResult:
    """What compiling one :class:`Part` did (``compiled`` 0: all of it was in the cache)."""

    part: Part
    seconds: float
    cpu_seconds: float
    compiled: int
    error: str | None = None


@dataclass
class Plan:
    """The parts, and which process compiles which (``groups[i]``: process i's parts, in
    order)."""

    parts: list[Part]
    groups: list[list[Part]] = field(default_factory=list)


def parts_of(ruleset) -> list[Part]:
    """The parts of one ruleset that can warm (``jitcache.can_warm``)."""
    from deepsim import jitcache

    parts = dict(getattr(ruleset, "warm_parts", {}) or {})
    if not parts:
        return [Part(ruleset.name, None, f"{ruleset.title} kernels",
                     jitcache.estimate_cpu_s(ruleset, "all"))]
    return [Part(ruleset.name, name, f"{ruleset.title} kernels for {what}",
                 jitcache.estimate_cpu_s(ruleset, f"part:{name}"))
            for name, what in parts.items()]


#: Largest number of assignments of parts to processes :func:`plan` tries one by one
#: (2 processes and up to 15 parts, 3 and up to 9); beyond it, longest first (LPT)
EXACT_PLANS = 40_000


def plan(parts: list[Part], processes: int) -> Plan:
    """Spread ``parts`` over at most ``processes`` processes so that the busiest process
    has the least to compile (by ``estimate_cpu_s``; unknown = :data:`UNKNOWN_S`): every
    assignment when there are at most :data:`EXACT_PLANS`, else longest first, each to the
    least loaded process (LPT, which can leave one process ~20% busier: the six batch
    kernels of `make test`'s warm-up came out 237 s against 190, where 220 against 207
    was possible). A ruleset's parts stay in the order it lists them within a process."""
    if not parts:
        return Plan([], [])
    n = max(1, min(processes, len(parts)))
    cost = [p.estimate_cpu_s or UNKNOWN_S for p in parts]
    if n ** len(parts) <= EXACT_PLANS:
        best, best_key = None, None
        # the first part always goes to process 0: the processes are interchangeable
        for rest in product(range(n), repeat=len(parts) - 1):
            who = (0, *rest)
            if len(set(who)) < n:
                continue                       # every process gets something
            loads = [0.0] * n
            for c, i in zip(cost, who, strict=True):
                loads[i] += c
            key = sorted(loads, reverse=True)  # busiest first, then the next busiest
            if best_key is None or key < best_key:
                best, best_key = who, key
        groups: list[list[Part]] = [[] for _ in range(n)]
        for p, i in zip(parts, best, strict=True):
            groups[i].append(p)
        return Plan(list(parts), groups)
    loads = [0.0] * n
    groups = [[] for _ in range(n)]
    for k in sorted(range(len(parts)), key=lambda k: -cost[k]):
        i = min(range(n), key=lambda j: loads[j])
        groups[i].append(parts[k])
        loads[i] += cost[k]
    rank = {p: i for i, p in enumerate(parts)}
    for g in groups:
        g.sort(key=lambda p: rank[p])
    return Plan(list(parts), [g for g in groups if g])


def run_part(ruleset) -> Part:
    """The part ``deepsim run`` of the ruleset's default scenario compiles: its batch
    kernel, without the traced and other versions ``deepsim warmup`` compiles too."""
    from deepsim import jitcache

    return Part(ruleset.name, None, f"{ruleset.title} batch kernel",
                jitcache.estimate_cpu_s(ruleset, "run"), trace=False)


def package_cached(package: str) -> bool:
    """True when numba's cache of these sources (:func:`deepsim.jitcache.cache_dir`) holds
    an index of some function of ``package`` (``deepsim.rulesets.deepfall``): its kernels
    were compiled, or began to be, with these sources."""
    from deepsim import jitcache

    try:
        folders = [p for p in jitcache.cache_dir().iterdir()
                   if p.is_dir() and p.name.startswith(package + ".")]
    except OSError:
        return False
    return any(any(f.glob("*.nbi")) for f in folders)


def cached(ruleset) -> bool | None:
    """:func:`package_cached` for the package the ruleset's class comes from; None for a
    ruleset outside the ``deepsim`` package (numba files those by their source path:
    :mod:`deepsim.numba_locator`), whose cache this cannot see."""
    package = type(ruleset).__module__.rpartition(".")[0]
    if not package.startswith("deepsim."):
        return None
    return package_cached(package)


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _warmed_path(part: Part):
    from deepsim import jitcache

    return jitcache.cache_dir() / f"warmed-{part.key.replace(':', '-').replace('@', '-at-')}"


def warmed(part: Part) -> bool:
    """True when ``part`` was compiled (or loaded) in full into numba's cache of these
    sources (:func:`deepsim.jitcache.cache_dir`) by :func:`compile_part`: a marker file
    there, written when it ended. It tells a caller that would start processes to compile
    the part that there is nothing to do; a cache emptied by hand since is not seen (the
    part is then compiled by whatever plays it)."""
    return _warmed_path(part).is_file()


@contextmanager
def _part_lock(part: Part) -> Iterator[None]:
    """Hold an exclusive lock on ``part`` in numba's cache of these sources (a file beside
    its :func:`warmed` marker) while it is compiled: another process about to compile the
    same part (a second ``deepsim warmup`` on a shared cache) waits for it, then loads
    what this one compiled instead of compiling it again; :func:`wait` waits for it. No
    lock where the platform (not POSIX) or a cache this process cannot write has none."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    marker = _warmed_path(part)
    try:
        handle = open(marker.with_name(marker.name + ".lock"), "a")  # noqa: SIM115
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def compile_part(part: Part, on_compile: Callable[[str], None] | None = None) -> PartResult:
    """Compile (or load) one part in this process, then mark it :func:`warmed`; while
    another process compiles the same part (:func:`_part_lock`), wait for it and load."""
    from deepsim import jitcache
    from deepsim.rulesets import get

    rs = get(part.ruleset)
    with _part_lock(part):
        rep = jitcache.warm(rs, None, trace=part.trace, part=part.part,
                            on_compile=on_compile)
        try:
            _warmed_path(part).touch()
        except OSError:  # a read-only cache: the marker only saves a later check's work
            pass
    return PartResult(part, rep.seconds, rep.cpu_seconds, len(rep.compiled))


def part_named(ruleset: str, part: str | None = None) -> Part:
    """The :class:`Part` ``part`` of a registered ruleset (None: all of its kernels).

    Raises
    ------
    deepsim.errors.InputError
        ``ruleset`` is not registered (``deepsim.rulesets.get``).
    ValueError
        ``part`` is not one of its ``warm_parts``.
    """
    from deepsim import jitcache
    from deepsim.rulesets import get

    rs = get(ruleset)
    names = dict(getattr(rs, "warm_parts", {}) or {})
    if part is not None and part not in names:
        raise ValueError(f"{rs.title} has no warm-up part {part!r}: "
                         f"{', '.join(names) or 'it has none'}")
    label = f"{rs.title} kernels" + (f" for {names[part]}" if part else "")
    return Part(rs.name, part, label,
                jitcache.estimate_cpu_s(rs, f"part:{part}" if part else "all"))


def wait(ruleset: str, part: str | None = None) -> None:
    """Wait while another process compiles one part of a ruleset's kernels (holds its
    lock: a background warm-up), so that this process then loads it instead of compiling
    it a second time at once; compiles nothing itself, and returns at once when no
    process is compiling it. Raises as :func:`part_named`."""
    with _part_lock(part_named(ruleset, part)):
        pass


def run(plan_: Plan, on_done: Callable[[PartResult], None] | None = None,
        on_compile: Callable[[str], None] | None = None, *,
        children: bool = False) -> list[PartResult]:
    """Compile the plan's parts: in this process when it has one group (unless
    ``children``: a background warm-up that leaves this process free), else one child
    process per group (``python -m deepsim.warmup KEY ...``), all at once; ``on_done`` is
    called as each part finishes (from a reader thread per child; calls are serialised).

    Raises
    ------
    RuntimeError
        A child process failed (its last lines of error output in the message), after
        every child has ended.
    """
    results: list[PartResult] = []
    if len(plan_.groups) <= 1 and not children:
        for p in plan_.parts:
            r = compile_part(p, on_compile=on_compile)
            results.append(r)
            if on_done:
                on_done(r)
        return results
    lock = threading.Lock()
    by_key = {p.key: p for p in plan_.parts}
    procs = [subprocess.Popen([sys.executable, "-m", "deepsim.warmup",
                               *[p.key for p in group]],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for group in plan_.groups]
    errors: list[str] = []

    def read(proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            if not line.startswith("@@"):
                continue
            rec = json.loads(line[2:])
            r = PartResult(by_key[rec["key"]], rec["seconds"], rec["cpu_seconds"],
                           rec["compiled"])
            with lock:
                results.append(r)
                if on_done:
                    on_done(r)

    threads = [threading.Thread(target=read, args=(p,), daemon=True) for p in procs]
    for t in threads:
        t.start()
    try:
        for proc, t in zip(procs, threads, strict=True):
            err = proc.stderr.read()
            proc.wait()
            t.join()
            if proc.returncode != 0:
                errors.append("\n".join(err.strip().splitlines()[-5:]))
    except BaseException:
        for proc in procs:
            proc.kill()
        raise
    if errors:
        raise RuntimeError("a warm-up process failed:\n" + "\n".join(errors))
    return results


def _child(keys: list[str]) -> int:
    """``python -m deepsim.warmup KEY ...``: compile each ``ruleset[:part]`` in turn,
    printing one ``@@{json}`` line as each ends."""
    from deepsim.rulesets import get

    for key in keys:
        name, at, _ = key.partition("@")
        name, _, part = name.partition(":")
        rs = get(name)
        p = Part(name, part or None, rs.title, trace=not at)
        t0 = time.perf_counter()
        r = compile_part(p)
        print("@@" + json.dumps({"key": key, "seconds": time.perf_counter() - t0,
                                 "cpu_seconds": r.cpu_seconds, "compiled": r.compiled}),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
