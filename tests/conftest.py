"""Shared fixtures and session set-up of deepsim's suite.

The tests mirror the source tree: ``tests/rulesets/<game>/`` for one game's kernel, data,
rules and traces, ``tests/rulesets/`` for the contract every ruleset meets (conformance,
golden digests), ``tests/<package>/`` for ``deepsim/<package>/`` (report, gate, tune, ...),
``tests/docs/`` for the documents' own checks, and ``tests/test_<module>.py`` for the
top-level modules.

What several test files share comes from ``conftest.py`` files as fixtures, never from a
helper module imported by name: this one for the whole suite (the fake and Duel rulesets,
an odds-only ruleset, the session's warm-up of the numba cache),
``tests/rulesets/<game>/conftest.py`` for one game's hand-built states (``new_state``;
Rove's ``build`` and ``action``), and
``tests/studio/conftest.py`` for the studio's test client. ``tests/test_layers.py`` checks
that no test module imports from ``tests``.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
import yaml

from deepsim.errors import InputError
from deepsim.output import hash_json
from deepsim.rulesets.base import OddsRuleset, Prepared, Ruleset, check_ruleset

# --- the fake ruleset: the runner, output and CLI tests (numpy only, no numba) ----------------
#
# It keeps the contract of deepsim/rulesets/base.py (``prepare`` / ``run_chunk`` / ``trace``),
# with results that depend only on (seed, game index).

FAKE_COMPANIES = [("Dvergar", "Reaver"), ("Dvergar", "Warden"), ("Elf", "Reaver"),
                  ("Elf", "Warden")]
FAKE_BOTS = ["random", "cautious", "greedy"]


class FakeRuleset(Ruleset):
    """A contract-conforming ruleset: games of 2-4 players with random Glory."""

    name = "fake"
    title = "Fake game (tests only)"
    faction_column = "company"
    faction_label = "company"
    group_columns = ("company", "bot", "seat")
    default_metrics = ("company_spread", "seat_advantage", "mean_rounds")
    default_objective = "company_spread"
    target_rounds = 10.0
    games_columns: ClassVar = {"game": "int64", "seed": "int64", "truncated": "bool",
                               "players": "int64", "rounds": "int64", "margin": "int64"}
    seats_columns: ClassVar = {"game": "int64", "seat": "int64", "players": "int64",
                               "win": "float64", "fair": "float64", "bot": "category",
                               "company": "category", "lineage": "category",
                               "calling": "category", "glory": "int64"}
    seat_order = "seat 1 plays first"
    score_label = "Glory"

    def __init__(self, interrupt_at_chunk: int | None = None):
        self.interrupt_at_chunk = interrupt_at_chunk
        self.calls = 0

    def prepare(self, scenario, *, source="<scenario>", overrides=None):
        params = {"glory_max": 20, "rounds_base": 8}
        for item in overrides or []:
            path, sep, value = item.partition("=")
            if not sep or path not in params:
                raise InputError(f"unknown parameter {path!r}; valid: {sorted(params)}",
                                 file=source, key=path)
            try:
                params[path] = int(value)
            except ValueError:
                raise InputError(f"expected an integer, got {value!r}", file=source,
                                 key=path) from None
        players = scenario.get("players", [2, 4])
        return Prepared(ruleset="fake", scenario=dict(scenario), params=params,
                        params_hash=hash_json(params), placeholders=["bags.starting"],
                        skipped_rules=[], compiled={"players": players})

    def _game(self, prepared, g):
        seed = int(prepared.scenario["seed"])
        rng = np.random.default_rng([seed, g])
        lo, hi = prepared.compiled["players"]
        n = int(rng.integers(lo, hi + 1))
        glory = rng.integers(0, prepared.params["glory_max"] + 1, size=n)
        companies = [FAKE_COMPANIES[i] for i in rng.integers(0, len(FAKE_COMPANIES), size=n)]
        bots = [FAKE_BOTS[i] for i in rng.integers(0, len(FAKE_BOTS), size=n)]
        rounds = int(prepared.params["rounds_base"] + rng.integers(0, 5))
        return n, glory, companies, bots, rounds

    def run_chunk(self, prepared, start, count):
        self.calls += 1
        if self.interrupt_at_chunk is not None and self.calls > self.interrupt_at_chunk:
            raise KeyboardInterrupt
        grows, srows = [], []
        seed = int(prepared.scenario["seed"])
        for g in range(start, start + count):
            n, glory, companies, bots, rounds = self._game(prepared, g)
            top = glory.max()
            leaders = np.flatnonzero(glory == top)
            order = np.sort(glory)[::-1]
            margin = int(order[0] - order[1])
            grows.append({
                "game": g, "seed": seed, "players": n, "rounds": rounds, "truncated": False,
                "n_winners": len(leaders), "winner_seat": int(leaders[0]) + 1, "margin": margin,
                "margin_rel": margin / max(int(top), 1), "maw_steps": rounds,
                "floors_collapsed": 5, "dread_fills": 1, "deferred_steps": 0, "press_ons": 3,
                "setbacks": 1, "rooms_scored": 10, "rooms_contested": 2,
                "contested_markers": 1, "rooms_unclaimed": 3, "rooms_consumed": 1,
                "taken_after_warning": 0, "top_glory": int(top),
            })
            for s in range(n):
                place = 1 + int((glory > glory[s]).sum())
                srows.append({
                    "game": g, "seat": s + 1, "players": n, "lineage": companies[s][0],
                    "calling": companies[s][1], "company": " ".join(companies[s]),
                    "bot": bots[s], "glory": int(glory[s]), "glory_rooms": int(glory[s]),
                    "glory_cash_out": 0, "glory_worthy_end": 0, "place": place,
                    "win": (1.0 / len(leaders)) if glory[s] == top else 0.0,
                    "fair": 1.0 / n, "cash_outs": 1, "last_stands": 0, "worthy_ends": 0,
                    "taken_no_stand": 0, "taken_no_stand_final": 0, "rooms_claimed": 2,
                    "vaults_claimed": 0, "thrones_claimed": 0, "dice_recruited": 1,
                    "setbacks": 0, "dice_lost": 0, "press_ons": 1, "deepest": 3,
                    "turns": rounds, "loot_lost": 0, "lineage_ability": 1,
                    "calling_ability": 1,
                })
        games = pd.DataFrame(grows)
        seats = pd.DataFrame(srows)
        for col in ("lineage", "calling", "company", "bot"):
            seats[col] = seats[col].astype("category")
        return games, seats

    def trace(self, prepared, game_index):
        n, glory, companies, bots, _rounds = self._game(prepared, game_index)
        lines = [f"game {game_index} seed {prepared.scenario['seed']}: {n} players"]
        lines += [f"seat {s} {' '.join(companies[s])} ({bots[s]}): glory {int(glory[s])}"
                  for s in range(n)]
        return lines

    def trace_result(self, prepared, game_index):
        return self.run_chunk(prepared, game_index, 1)

    def parameters(self):
        return [{"path": "glory_max", "default": 20, "type": "int", "bounds": "", "section": ""},
                {"path": "rounds_base", "default": 8, "type": "int", "bounds": "",
                 "section": ""}]

    def bot_data(self):
        return {b: {} for b in FAKE_BOTS}

    def golden_cases(self):
        return []


def _load_scenario(path, *, chunk_size: int):
    """A test ruleset's scenario loader (the runner's, monkeypatched by ``fake`` and
    ``duel``): the YAML mapping of ``path``, ``chunk_size`` unless it gives one."""
    path = Path(path)
    if not path.is_file():
        raise InputError("scenario file not found", file=str(path))
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping", file=str(path))
    data.setdefault("chunk_size", chunk_size)
    return data


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """The fake ruleset routed through the runner, in a temporary working directory:
    ``{"ruleset": FakeRuleset(), "scenario": Path}`` (a test may replace the ruleset)."""
    from deepsim import runner
    holder = {"ruleset": FakeRuleset()}

    def get_ruleset(name):
        if name != "fake":
            raise InputError(f"unknown ruleset {name!r}; available: fake", key="ruleset")
        return holder["ruleset"]

    from deepsim import rulesets

    assert check_ruleset(holder["ruleset"]) == []    # the fake keeps the contract
    monkeypatch.setattr(runner, "load_scenario", partial(_load_scenario, chunk_size=100))
    monkeypatch.setattr(runner, "get_ruleset", get_ruleset)
    monkeypatch.setattr(rulesets, "get", get_ruleset)
    monkeypatch.setattr(runner, "available_rulesets", lambda: ["fake"])
    # `deepsim rulesets` lists the registry's entries: the fake as a registered ruleset
    monkeypatch.setattr(rulesets, "_REGISTERED", {})
    rulesets.register("fake", holder["ruleset"], package="tests", version="0")
    monkeypatch.setattr(rulesets, "_ENTRIES", None)     # undone: discovered again after
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scenarios").mkdir()
    scen = tmp_path / "scenarios" / "fake.yaml"
    scen.write_text("name: fake-small\nruleset: fake\ngames: 250\nseed: 3\nchunk_size: 60\n"
                    "players: [2, 4]\n")
    holder["scenario"] = scen
    return holder


@pytest.fixture
def fake_ruleset():
    """The fake ruleset's class (``fake_ruleset(interrupt_at_chunk=2)`` stops a run with
    KeyboardInterrupt at its third chunk; tests subclass it to break one hook)."""
    return FakeRuleset


# --- Duel: a three-faction game with exact odds and a known minimal fix (the balance tests) ---
#
# Every game seats the three factions once, in an order drawn per game; the winner is drawn
# with probability proportional to each faction's ``power``. With powers ``A = B = 6`` and
# ``C = 12`` a faction's win share over its fair share (1/3) is ``3 * power / total``: C 1.5x
# fair (too strong), A and B 0.75x (not viable). One number fixes it: C's power. C at 8
# gives 1.2x / 0.9x (viable, 0.05x inside the line); C at 9 gives 1.29x (too strong); so the
# smallest change of one number is ``power.C: 12 -> 8`` (4 steps), and C at 5..8 all meet
# the target. Changing A or B alone never does (raising one sinks the other). Results depend
# only on (seed, game index): a counter-based hash, as deepsim's streams (numpy only).

DUEL_FACTIONS = ("A", "B", "C")
DUEL_PERMS = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
DUEL_DEFAULTS = {"power.A": 6, "power.B": 6, "power.C": 12, "spice": 0.5, "luck": 1.0,
            "bonus": 0, "name": "duel"}
DUEL_ROWS = [
    {"path": "power.A", "type": "int", "bounds": ">= 1, <= 20", "section": "D1"},
    {"path": "power.B", "type": "int", "bounds": ">= 1, <= 20", "section": "D1"},
    {"path": "power.C", "type": "int", "bounds": ">= 1, <= 20", "section": "D1"},
    {"path": "spice", "type": "float", "bounds": ">= 0.0, <= 1.0", "section": "D2"},
    {"path": "luck", "type": "float", "bounds": ">= 0.0", "section": "D3"},
    {"path": "bonus", "type": "int", "bounds": ">= 0, <= 3", "section": "placeholder"},
    {"path": "name", "type": "str", "bounds": "", "section": ""},
]


def _duel_mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 (a counter-based hash)."""
    with np.errstate(over="ignore"):        # arithmetic modulo 2**64, as intended
        x = (x + np.uint64(0x9E3779B97F4A7C15))
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


class DuelRuleset(Ruleset):
    """Three factions, one winner drawn in proportion to power (tests only)."""

    name = "duel"
    title = "Duel (tests only)"
    faction_column = "faction"
    faction_label = "faction"
    group_columns = ("faction", "bot", "seat")
    default_metrics = ("faction_spread",)
    default_objective = "faction_spread"
    target_rounds = None
    games_columns: ClassVar = {"game": "int64", "seed": "int64", "players": "int64",
                               "rounds": "int64", "truncated": "bool"}
    seats_columns: ClassVar = {"game": "int64", "seat": "int64", "players": "int64",
                               "win": "float64", "fair": "float64", "bot": "category",
                               "faction": "category"}
    seat_order = "seat 1 plays first"
    score_label = "points"

    def prepare(self, scenario, *, source="<scenario>", overrides=None):
        params = dict(DUEL_DEFAULTS)
        items = list((scenario.get("overrides") or {}).items())
        for o in overrides or []:
            path, sep, value = o.partition("=")
            if not sep:
                raise InputError("expected path=value", key=o)
            items.append((path.strip(), yaml.safe_load(value)))
        for path, value in items:
            if path not in params:
                raise InputError(f"unknown parameter {path!r}", file=source, key=path)
            if path.startswith("power.") and not (isinstance(value, int) and 1 <= value <= 20):
                raise InputError(f"expected an integer in 1..20, got {value!r}", file=source,
                                 key=path)
            params[path] = value
        return Prepared(ruleset="duel", scenario=dict(scenario), params=params,
                        params_hash=hash_json(params), placeholders=["bonus"],
                        skipped_rules=[], compiled={})

    def run_chunk(self, prepared, start, count):
        seed = np.uint64(int(prepared.scenario["seed"]))
        g = np.arange(start, start + count, dtype=np.uint64)
        h1 = _duel_mix(_duel_mix(np.array([seed], np.uint64))[0] ^ g)
        h2 = _duel_mix(h1 ^ np.uint64(0xD1B54A32D192ED03))
        perm = DUEL_PERMS[(h1 % np.uint64(6)).astype(np.int64)]          # faction of each seat
        power = np.array([prepared.params[f"power.{f}"] for f in DUEL_FACTIONS], np.float64)
        p_seat = power[perm]                                         # (count, 3)
        cum = np.cumsum(p_seat, axis=1) / p_seat.sum(axis=1, keepdims=True)
        u = (h2 >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        winner = (u[:, None] >= cum).sum(axis=1)                     # seat index 0..2
        games = pd.DataFrame({"game": g.astype(np.int64), "seed": int(seed), "players": 3,
                              "rounds": 1, "truncated": False})
        seat = np.tile(np.arange(3), count)
        seats = pd.DataFrame({
            "game": np.repeat(g.astype(np.int64), 3), "seat": seat + 1, "players": 3,
            "win": (seat == np.repeat(winner, 3)).astype(np.float64), "fair": 1.0 / 3,
            "bot": pd.Categorical(["basic"] * (3 * count)),
            "faction": pd.Categorical(np.array(DUEL_FACTIONS)[perm.ravel()],
                                      categories=list(DUEL_FACTIONS))})
        return games, seats

    def trace(self, prepared, game_index):
        return [f"game {game_index}"]

    def trace_result(self, prepared, game_index):
        return self.run_chunk(prepared, game_index, 1)

    def parameters(self):
        return [{**r, "default": DUEL_DEFAULTS[r["path"]]} for r in DUEL_ROWS]

    def bot_data(self):
        return {"basic": {}}

    def golden_cases(self):
        return []


@pytest.fixture
def duel_ruleset():
    """The Duel ruleset's class (three factions, the winner drawn in proportion to power)."""
    return DuelRuleset


@pytest.fixture
def duel(monkeypatch, tmp_path):
    """A scenario file of the Duel ruleset (6,000 games, 3 players, seed 7), routed through
    the runner, in a temporary working directory."""
    from deepsim import rulesets, runner

    ruleset = DuelRuleset()
    assert check_ruleset(ruleset) == []

    def get_ruleset(name):
        if name != "duel":
            raise InputError(f"unknown ruleset {name!r}; available: duel", key="ruleset")
        return ruleset

    monkeypatch.setattr(runner, "load_scenario", partial(_load_scenario, chunk_size=5000))
    monkeypatch.setattr(runner, "get_ruleset", get_ruleset)
    monkeypatch.setattr(rulesets, "get", get_ruleset)
    monkeypatch.chdir(tmp_path)
    scen = tmp_path / "duel.yaml"
    scen.write_text("name: duel\nruleset: duel\ngames: 6000\nseed: 7\nplayers: [3]\n")
    return scen


# --- an odds-only ruleset (no kernel): Rove's dice questions under another name ---------------

class DiceOnlyRuleset(OddsRuleset):
    """An odds-only ruleset: it answers Rove's dice questions and plays no games."""

    name = "diceonly"
    title = "Dice only"

    def odds(self):
        from deepsim import rulesets
        return rulesets.get("rove").odds()

    def parameters(self):
        from deepsim import rulesets
        return rulesets.get("rove").parameters()


@pytest.fixture
def dice_only():
    """The odds-only ruleset, registered as ``diceonly`` for the test (unregistered after)."""
    from deepsim import rulesets
    rulesets.register("diceonly", DiceOnlyRuleset())
    yield rulesets.get("diceonly")
    rulesets.unregister("diceonly")


# --- the session: heavy files first, the numba cache warmed before the workers ---------------

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
