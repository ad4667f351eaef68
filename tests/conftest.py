"""Shared test setup for deepsim's suite.

The tests mirror the source tree: ``tests/rulesets/<game>/`` for one game's kernel, data,
rules and traces (with ``state.py``, the hand-built game state its rule tests use),
``tests/rulesets/`` for the contract every ruleset meets (conformance, golden digests),
``tests/<package>/`` for ``deepsim/<package>/`` (report, gate, tune, ...), ``tests/docs/``
for the documents' own checks, and ``tests/test_<module>.py`` for the top-level modules.

``tests`` is a package, so shared helpers are imported by their package path
(``from tests.rulesets.deepfall.state import State``, ``from tests.golden import ...``)
and ``python -m tests.golden`` runs from the repository root. The helpers' ``assert``
statements are rewritten by pytest like the tests' own (registered below, before any test
module imports them), so a failing check inside a helper shows its values.
"""

import time

import pytest

pytest.register_assert_rewrite(
    "tests.golden",
    "tests.rulesets.abyss.state",
    "tests.rulesets.atlantis.state",
    "tests.rulesets.deepfall.state",
    "tests.rulesets.rivals.state",
)

#: the files whose tests take the most CPU (measured with a warm numba cache under `make
#: test` and `make test-slow`: docs/ci.md), heaviest first. They are collected first, and
#: the Makefile's `--no-loadscope-reorder` keeps that order for pytest-xdist, which deals
#: whole files (`--dist loadfile`) to its workers: started first, none of them is the last
#: file left running on one worker while the other waits (xdist's own order, most tests
#: first, put the one-test 150 s file last). Only the order changes; a file not listed
#: keeps its place after these.
HEAVY_FIRST = (
    "tests/rulesets/deepfall/test_properties.py",
    "tests/gate/test_gate.py",
    "tests/rulesets/rivals/test_rivals_competence.py",
    "tests/test_hostile_input.py",
    "tests/docs/test_docs_site.py",
    "tests/rulesets/test_conformance.py",
    "tests/rulesets/deepfall/test_search_deepfall.py",
    "tests/report/test_report.py",
    "tests/rulesets/test_golden.py",
    "tests/balance/test_balance.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    root = config.rootpath

    def key(item):
        try:
            rel = item.path.relative_to(root).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(rel, len(rank))

    items[:] = sorted(items, key=key)          # stable: each file's own order is kept


def _selects_slow(config) -> bool:
    """True unless the session runs only the quick tier (pyproject's ``-m 'not slow'``)."""
    return (config.option.markexpr or "").strip() != "not slow"


def pytest_sessionstart(session):
    """The whole suite in pytest-xdist workers (`make test`) on an empty numba cache: first
    compile each ruleset's batch kernel for its default scenario (what most test files
    need first) once, in as many processes as workers, then start the workers. Without
    this the two workers compiled the same kernel side by side whenever two files needed
    it at once (measured cold: 154 of 877 s of compile CPU done twice, 104 s of it
    Atlantis's batch kernel). The quick tier's traced versions are left to its tests:
    `deepsim warmup`'s everything would compile ~100 s of DEEPFALL versions no quick test
    needs (measured: the suite took 11 min 34 s that way against 10 min 34 s without).

    A session with the slow tests (`make test-slow`, `make test-all`) compiles, besides,
    the parts of the rulesets that list them (`warm_parts`: DEEPFALL's batch and traced
    kernels, each with its search bot's version), which its tests play and the CI
    recipe's test compiles in processes of its own. The slow tier alone compiles them in
    the background, one process per part, while the workers run the tests (measured cold
    on 6 December: waiting for them kept one core idle for 24 of 96 s; the tier 365 ->
    302 s with that session's other changes), and a slow test that plays one of them
    first waits for it (`warmup.wait`: a lock per part), so no part is compiled twice at
    once; `make test-all` compiles them first, as its quick tests do not wait. Only what
    is not in the cache is compiled, so a warm cache costs nothing; a failing warm-up is
    reported and the tests go on (they compile what they need)."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None) or 0
    if (hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2
            or config.args_source != pytest.Config.ArgsSource.TESTPATHS):
        return
    from deepsim import jitcache, warmup

    slow = _selects_slow(config)
    # the quick look first: importing every ruleset to ask would delay a warm suite's start
    built_in = sorted(p.parent.name for p in
                      (config.rootpath / "deepsim" / "rulesets").glob("*/ruleset.py"))
    if not slow and all(warmup.package_cached(f"deepsim.rulesets.{name}")
                        for name in built_in):
        return
    from deepsim.rulesets import get, playable

    # the slow tier alone: the parts in the background; with the quick tier too (make
    # test-all), first, as its quick tests (the traced conformance) play them unwaited
    slow_only = (config.option.markexpr or "").strip() == "slow"
    parts, later = [], []
    for rs in (get(name) for name in playable()):
        if not jitcache.can_warm(rs):
            continue
        whole = ([p for p in warmup.parts_of(rs) if not warmup.warmed(p)]
                 if slow and getattr(rs, "warm_parts", None) else [])
        if whole and not slow_only:      # its parts hold the batch kernel too
            parts += whole
            continue
        if warmup.cached(rs) is False:
            parts.append(warmup.run_part(rs))
        later += whole
    tr = config.pluginmanager.get_plugin("terminalreporter")
    say = tr.write_line if tr is not None else print
    if parts:
        plan = warmup.plan(parts, min(workers, warmup.available_cores()))
        say(f"numba's cache of these sources ({jitcache.cache_dir()}) lacks kernels the "
            f"tests play: compiling {len(parts)} first, in {len(plan.groups)} processes:")
        t0 = time.perf_counter()

        def done(r):
            say(f"  {r.part.label}: {r.compiled} functions, {r.seconds:,.0f} s "
                f"({r.cpu_seconds:,.0f} s CPU)")

        try:
            warmup.run(plan, on_done=done)
        except RuntimeError as exc:
            say(f"the warm-up failed; the tests compile what they need: {exc}")
        say(f"compiled in {time.perf_counter() - t0:,.0f} s")
    if later:
        # one process per part: each takes its part's lock within its first seconds
        # (before the workers have collected), so a test waiting for one (warmup.wait)
        # does not find it free before it is compiled
        say(f"in the background, while the tests run: {', '.join(p.label for p in later)}")
        config._warmup_later = _Background(warmup.plan(later, len(later)))


class _Background:
    """A warm-up in child processes (``warmup.run(..., children=True)``) started now and
    waited for by a thread of this (the controller's) process; its report is printed at
    the end of the session."""

    def __init__(self, plan):
        import threading

        from deepsim import warmup

        self.lines, self.t0 = [], time.perf_counter()

        def work():
            try:
                warmup.run(plan, on_done=self.done, children=True)
            except RuntimeError as exc:
                self.lines.append(f"the background warm-up failed: {exc}")

        self.thread = threading.Thread(target=work, daemon=True)
        self.thread.start()

    def done(self, r):
        self.lines.append(f"  {r.part.label}: {r.compiled} functions, {r.seconds:,.0f} s "
                          f"({r.cpu_seconds:,.0f} s CPU) after "
                          f"{time.perf_counter() - self.t0:,.0f} s")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The background warm-up's report (pytest_sessionstart), after it has ended."""
    later = getattr(config, "_warmup_later", None)
    if later is None:
        return
    later.thread.join()
    terminalreporter.write_line("the background warm-up:")
    for line in later.lines:
        terminalreporter.write_line(line)
