"""`deepsim bench RULESET`: how fast a ruleset's kernel plays, against plain Python and
against the RNG floor.

Every figure comes from this one invocation on this machine (a benchmark, never a test), on
the ruleset's own bench scenario (``Ruleset.bench_scenario``, at each of its
``bench_players``):

- games/s per core on 1 thread and on 2 threads (scaling ratio), per player count, on the
  full rules with the bench scenario's bots;
- the same kernel under ``NUMBA_DISABLE_JIT=1`` (plain Python) on a small game count, and
  the JIT/Python ratio;
- cold compile time (empty numba cache; wall and CPU time, run and trace entry points)
  and cached start time, in fresh processes;
- random draws per game (when the kernel counts them: a games column ``rng_draws``) and ns
  per draw of the counter-based RNG alone, measured with LLVM loop and SLP vectorisation
  off; their product is the floor in games/s, and the measured speed is reported as a
  fraction of it;
- the time split of an end-to-end run (kernel, parquet writing, report);
- peak resident memory of whole ``deepsim run`` processes at two game counts.

Results are printed; ``--out FILE`` also writes them atomically as JSON (the reference
figures in ``reports/bench.json`` are refreshed only on purpose, on an idle machine).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from deepsim.atomic import atomic_write_json
from deepsim.errors import InputError
from deepsim.rulesets import get


def bench_ruleset(name: str):
    """The ruleset ``name`` if it declares a bench scenario.

    Raises
    ------
    InputError
        Unknown ruleset, or one without a kernel or without a bench scenario.
    """
    rs = get(name)
    if not rs.plays or not rs.bench_players():
        raise InputError(f"ruleset '{name}' declares no bench scenario (Ruleset."
                         "bench_scenario); nothing to time", key="RULESET")
    return rs


def _scenario(ruleset: str, players: int, seed: int = 1) -> dict:
    """The ruleset's bench scenario at ``players`` players."""
    sc = dict(bench_ruleset(ruleset).bench_scenario(players))
    return {"name": f"bench-{players}p", **sc, "ruleset": ruleset, "players": players,
            "seed": seed}


def _prepare(ruleset: str, players: int):
    rs = bench_ruleset(ruleset)
    return rs, rs.prepare(_scenario(ruleset, players), source="<bench>")


#: seconds a timed batch of ``kernel_speed`` aims at (its game count is at most ``games``)
BATCH_S = 2.0
#: fewest games in a timed batch
MIN_BATCH = 200


def kernel_speed(ruleset: str, players: int, games: int, threads: int, repeats: int = 3
                 ) -> dict:
    """Best-of-``repeats`` wall-clock games/s of ``run_chunk`` after a warm-up.

    Each batch plays ``games`` games, or fewer for a slow kernel: about ``BATCH_S``
    seconds' worth at the warm-up's speed (at least ``MIN_BATCH``).

    Returns
    -------
    dict
        ``games_per_s`` (float, games/s on ``threads`` threads), ``per_core`` (games/s
        divided by threads), ``games`` (per batch) and ``rng_draws_per_game`` (mean random
        draws per game; None when the kernel does not count them).
    """
    rs, prep = _prepare(ruleset, players)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        rs.run_chunk(prep, 0, 16)                        # compile or load
        t0 = time.perf_counter()
        rs.run_chunk(prep, 0, 256)                       # warm caches; a first speed
        rate = 256 / max(time.perf_counter() - t0, 1e-9)
        games = int(min(games, max(MIN_BATCH, rate * BATCH_S)))
        best = float("inf")
        draws = 0.0
        for r in range(repeats):
            t0 = time.perf_counter()
            g, _ = rs.run_chunk(prep, (r + 1) * games, games)
            best = min(best, time.perf_counter() - t0)
            draws = float(g["rng_draws"].mean()) if "rng_draws" in g.columns else None
    finally:
        numba.set_num_threads(old)
    gps = games / best
    return {"games_per_s": gps, "per_core": gps / threads, "games": games,
            "rng_draws_per_game": draws}


def _child_env(**extra: str) -> dict:
    env = dict(os.environ)
    env.update(extra)
    return env


_PYREF = """
import json, sys, time
from deepsim.bench import _prepare
rs, p = _prepare(sys.argv[1], int(sys.argv[2]))
cap, budget = int(sys.argv[3]), float(sys.argv[4])
rs.run_chunk(p, 0, 1)
start, n, played, spent = 1, 1, 0, 0.0
while played < cap and (spent < budget or played < 3):
    n = min(n, cap - played)
    t = time.perf_counter()
    rs.run_chunk(p, start, n)
    spent += time.perf_counter() - t
    start += n
    played += n
    n *= 2
print(json.dumps([played, spent]))
"""


def python_reference(ruleset: str, players: int, games: int, budget_s: float = 20.0
                     ) -> float:
    """games/s of the same kernel code run as plain Python (``NUMBA_DISABLE_JIT=1``).

    Plays batches of 1, 2, 4, ... games (after one untimed game) until ``games`` games or
    ``budget_s`` seconds of play (at least 3 games), so a slow kernel is timed on fewer.
    """
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", _PYREF, ruleset,
                          str(players), str(games), str(budget_s)], check=True,
                         capture_output=True, text=True, env=_child_env(NUMBA_DISABLE_JIT="1"))
    played, spent = json.loads(out.stdout.strip().splitlines()[-1])
    return played / spent


_START = """
import json, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t, c = time.perf_counter(), cpu()
from deepsim import jitcache
from deepsim.bench import _prepare
rs, p = _prepare(sys.argv[1], int(sys.argv[2]))
out = {"import_s": time.perf_counter() - t}
def warm(trace):
    if jitcache.can_warm(rs):
        return len(jitcache.warm(rs, p, trace=trace).compiled)
    (rs.trace(p, 0) if trace else rs.run_chunk(p, 0, 1))
    return 0
n = warm(False)
out.update(run_s=time.perf_counter() - t, run_cpu_s=cpu() - c, run_functions=n)
t2, c2 = time.perf_counter(), cpu()
n = warm(True)
out.update(trace_s=time.perf_counter() - t2, trace_cpu_s=cpu() - c2, trace_functions=n)
rs.run_chunk(p, 0, 1)
print(json.dumps(out))
"""


def _start(env: dict, ruleset: str, players: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _START, ruleset, str(players)], check=True,
                         capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def start_times(ruleset: str, players: int, cold: bool = True) -> dict:
    """Seconds to import, compile (or load) the kernel and play one game of the bench
    scenario at ``players`` players in a fresh process.

    With an empty numba cache (``cold``), then with the cache it filled. Compile time is
    given as wall time and as the process's CPU time (user + system, single-threaded, so
    a busy machine disturbs it less): ``cold_compile_s`` / ``cold_compile_cpu_s`` for
    what ``deepsim run`` compiles (import and prepare included), ``cold_trace_cpu_s`` for
    what ``deepsim trace`` adds (the trace entry point). With ``cold`` False only the
    cached start is timed, with the current cache.
    """
    out: dict = {"cold_compile_s": None, "cold_compile_cpu_s": None, "cold_trace_cpu_s": None,
                 "cold_functions": None}
    with tempfile.TemporaryDirectory() as cache:
        env = _child_env(NUMBA_CACHE_DIR=cache) if cold else _child_env()
        if cold:
            first = _start(env, ruleset, players)
            out.update(cold_compile_s=first["run_s"], cold_compile_cpu_s=first["run_cpu_s"],
                       cold_trace_cpu_s=first["trace_cpu_s"],
                       cold_functions=first["run_functions"] + first["trace_functions"])
        again = _start(env, ruleset, players)
        out["cached_start_s"] = again["run_s"]
        out["cached_start_functions"] = again["run_functions"] + again["trace_functions"]
    return out


def rng_ns_per_draw(draws: int = 50_000_000) -> float:
    """ns per draw of ``rng.below`` alone, with LLVM loop and SLP vectorisation off."""
    code = (
        "import time, numpy as np; from numba import njit; from deepsim.rng import below, "
        "game_key\n"
        "@njit\n"
        "def loop(key, n):\n"
        "    t = 0\n"
        "    for i in range(n):\n"
        "        t += below(key, np.uint64(i), 6)\n"
        "    return t\n"
        "k = game_key(1, 2); loop(k, 10); t0 = time.perf_counter(); "
        f"loop(k, {draws}); print((time.perf_counter() - t0) / {draws} * 1e9)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=_child_env(NUMBA_LOOP_VECTORIZE="0",
                                                   NUMBA_SLP_VECTORIZE="0"))
    return float(out.stdout.strip().splitlines()[-1])


class _TimedRuleset:
    """Wraps a ruleset so the runner's calls to ``run_chunk`` are timed (kernel time)."""

    def __init__(self, ruleset):
        self._rs = ruleset
        self.kernel_s = 0.0

    def __getattr__(self, name):
        return getattr(self._rs, name)

    def run_chunk(self, prepared, start, count):
        t0 = time.perf_counter()
        try:
            return self._rs.run_chunk(prepared, start, count)
        finally:
            self.kernel_s += time.perf_counter() - t0


def _cli() -> str:
    return str(Path(sys.executable).with_name("deepsim"))


def end_to_end_split(ruleset: str, players: int, games: int, chunk_size: int, threads: int,
                     workdir: Path) -> dict:
    """Seconds in the kernel, in parquet writing and in the report for one whole run.

    The run goes through the real runner (``runner.execute``); the kernel's share
    (``run_chunk``: play and frames) is timed inside it, ``write_s`` is the rest of the
    run's wall time (the writing not hidden behind the next chunk's play: the runner
    writes chunk k while chunk k+1 plays), ``total_s`` the whole run, and the report is a
    separate ``deepsim report`` process when that command exists.
    """
    from deepsim import runner
    rs, prep = _prepare(ruleset, players)
    numba.set_num_threads(threads)
    rs.run_chunk(prep, 0, 64)
    timed = _TimedRuleset(rs)
    scenario = dict(_scenario(ruleset, players), games=games, chunk_size=chunk_size)
    prep = rs.prepare(scenario, source="<bench>")
    out_dir = workdir / "split"
    out_dir.mkdir(parents=True)
    t0 = time.perf_counter()
    runner.execute(timed, prep, scenario, out_dir=out_dir, source="<bench>", overrides=[],
                   threads=threads)
    total = time.perf_counter() - t0
    result = {"games": games, "threads": threads, "chunk_size": chunk_size,
              "kernel_s": timed.kernel_s, "write_s": total - timed.kernel_s,
              "total_s": total, "report_s": None}
    t0 = time.perf_counter()
    rep = subprocess.run([_cli(), "report", str(out_dir)], capture_output=True, text=True,
                         check=False)
    if rep.returncode == 0:
        result["report_s"] = time.perf_counter() - t0
    else:
        result["report_error"] = " ".join((rep.stderr or rep.stdout).strip().splitlines()[-2:])
    return result


def peak_rss_mb(ruleset: str, players: int, games: int, workdir: Path) -> float:
    """Peak resident memory (MiB) of a whole ``deepsim run`` process of the bench scenario.

    Results stream to parquet chunk by chunk, so this should not grow with ``games``.
    """
    import yaml
    scenario = workdir / f"bench-{ruleset}-{players}p.yaml"
    scenario.write_text(yaml.safe_dump(_scenario(ruleset, players), sort_keys=False))
    args = [_cli(), "run", str(scenario), "--games", str(games),
            "--out", str(workdir / f"rss-{games}"), "--quiet"]
    helptext = subprocess.run([_cli(), "run", "--help"], capture_output=True, text=True,
                              check=False).stdout
    if "--no-report" in helptext:
        args.append("--no-report")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"deepsim run failed: {' '.join(args)}")
    return usage.ru_maxrss / 1024.0


#: seconds of 2-thread play the end-to-end run aims at (a slow kernel plays fewer games)
SPLIT_S = 60.0


def run_bench(ruleset: str, *, quick: bool = False, out: Path | None = None,
              log=print) -> dict:
    """Run every measurement on ``ruleset``'s bench scenario; return the results, and write
    them to ``out`` (JSON, atomically) when given (``deepsim bench --out``; nothing is
    written by default).

    ``quick`` shrinks every game count and times the middle player count only (for a smoke
    test): the numbers are then not meaningful, only the shape of the output. A slow
    kernel's end-to-end run and memory runs play fewer games: about ``SPLIT_S`` seconds'
    worth on 2 threads (at most 1,000,000; memory at a tenth of that and at that).

    Raises
    ------
    InputError
        Unknown ruleset, or one that declares no bench scenario.
    """
    rs = bench_ruleset(ruleset)
    players = tuple(rs.bench_players())
    mid = players[len(players) // 2]
    n_fast = 2_000 if quick else 40_000
    n_py = 10 if quick else 300
    counts = (mid,) if quick else players
    threads_max = min(2, numba.config.NUMBA_NUM_THREADS)
    res: dict = {"machine": {"python": platform.python_version(), "numba": numba.__version__,
                             "numpy": np.__version__, "cpu_count": os.cpu_count(),
                             "platform": platform.platform()},
                 "ruleset": rs.name, "title": rs.title, "quick": quick, "players": {}}
    for n in counts:
        log(f"kernel speed, {n} players ...")
        one = kernel_speed(ruleset, n, n_fast, 1)
        two = kernel_speed(ruleset, n, n_fast, threads_max)
        log(f"plain-Python reference, {n} players ...")
        py = python_reference(ruleset, n, n_py, 2.0 if quick else 20.0)
        res["players"][str(n)] = {
            "games_per_s_1_thread": one["games_per_s"],
            "games_per_s_per_core_1_thread": one["per_core"],
            "games_per_s_2_threads": two["games_per_s"],
            "games_per_s_per_core_2_threads": two["per_core"],
            "scaling_2_threads": two["games_per_s"] / one["games_per_s"],
            "python_games_per_s": py,
            "jit_vs_python": one["games_per_s"] / py,
            "rng_draws_per_game": one["rng_draws_per_game"],
            "games_timed": one["games"],
        }
    log("RNG alone ...")
    ns = rng_ns_per_draw(5_000_000 if quick else 50_000_000)
    res["rng_ns_per_draw"] = ns
    for row in res["players"].values():
        draws = row["rng_draws_per_game"]
        floor = 1e9 / (draws * ns) if draws else None
        row["rng_floor_games_per_s"] = floor
        row["fraction_of_floor"] = (row["games_per_s_per_core_1_thread"] / floor
                                    if floor else None)
    log("cold compile and cached start ...")
    res.update(start_times(ruleset, mid, cold=not quick))
    if quick:
        n_split, rss_counts = 5_000, (1_000, 2_000)
    else:
        rate = res["players"][str(mid)]["games_per_s_2_threads"]
        n_split = int(min(1_000_000, max(10_000, round(rate * SPLIT_S, -4))))
        rss_counts = (n_split // 10, n_split)
    with tempfile.TemporaryDirectory() as tmp:
        log(f"end-to-end split, {n_split:,} games ...")
        res["split"] = end_to_end_split(ruleset, mid, n_split, min(100_000, n_split),
                                        threads_max, Path(tmp))
        res["peak_rss_mb"] = {}
        for n in rss_counts:
            log(f"peak memory, {n:,} games ...")
            res["peak_rss_mb"][str(n)] = peak_rss_mb(ruleset, mid, n, Path(tmp))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(out, res)
    return res
