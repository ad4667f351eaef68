"""`deepsim warmup`'s plan: independent parts of the rulesets' kernels spread over parallel
processes, longest first onto the least loaded (no compiling here)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import ClassVar

import numba
import pytest

from deepsim import warmup
from deepsim.warmup import Part, plan


def test_the_plan_leaves_the_busiest_process_the_least_to_do():
    # make test's six batch kernels, as compiled cold (CPU s): longest first onto the least
    # loaded process gives 121 + 62 + 7 | 110 + 79 + 48 = 190 | 237; the best is 220
    cpu = {"rivals": 121.0, "atlantis": 110.0, "abyss": 79.0, "deepfall": 62.0,
           "rove": 48.0, "bank": 7.0}
    parts = [Part(name, None, name, s, trace=False) for name, s in cpu.items()]
    p = plan(parts, 2)
    loads = sorted(sum(x.estimate_cpu_s for x in g) for g in p.groups)
    assert loads == [207.0, 220.0]
    assert sorted(x.key for g in p.groups for x in g) == sorted(x.key for x in parts)
    # too many parts to try every assignment: longest first, each onto the least loaded
    many = [Part(f"r{i}", None, f"R{i}", float(i)) for i in range(1, 21)]
    p = plan(many, 2)
    loads = sorted(sum(x.estimate_cpu_s for x in g) for g in p.groups)
    assert sum(loads) == 210.0 and loads[1] - loads[0] <= 20.0
    assert sorted(x.key for g in p.groups for x in g) == sorted(x.key for x in many)
    assert plan([], 2).groups == []


def test_the_plan_puts_the_longest_parts_first_on_the_least_loaded_process():
    parts = [Part("a", "run", "A batch", 60.0), Part("a", "trace", "A traced", 130.0),
             Part("b", None, "B", 90.0), Part("c", None, "C", 20.0)]
    p = plan(parts, 2)
    assert len(p.groups) == 2
    loads = sorted(sum(x.estimate_cpu_s for x in g) for g in p.groups)
    assert loads == [150.0, 150.0]                 # 130 + 20 | 90 + 60
    assert sorted(x.key for g in p.groups for x in g) == sorted(x.key for x in parts)
    # within a process, the parts keep the order they were listed in
    for g in p.groups:
        assert g == sorted(g, key=parts.index)


def test_one_process_or_one_part_compiles_here():
    parts = [Part("a", None, "A", None), Part("b", None, "B", None)]
    assert len(plan(parts, 1).groups) == 1
    assert len(plan(parts[:1], 8).groups) == 1
    # parts never compiled here count alike: one each
    assert [len(g) for g in plan(parts, 2).groups] == [1, 1]


def test_parts_of_a_ruleset_with_and_without_declared_parts(monkeypatch):
    monkeypatch.setattr("deepsim.jitcache.estimate_cpu_s", lambda rs, what: None)
    one = SimpleNamespace(name="x", title="X", warm_parts={})
    assert [(p.key, p.label) for p in warmup.parts_of(one)] == [("x", "X kernels")]
    two = SimpleNamespace(name="y", title="Y", warm_parts={"run": "batch games",
                                                            "trace": "traced games"})
    assert [(p.key, p.label) for p in warmup.parts_of(two)] == [
        ("y:run", "Y kernels for batch games"), ("y:trace", "Y kernels for traced games")]


def test_a_run_part_is_the_default_batch_kernel_and_has_a_key_of_its_own(monkeypatch):
    monkeypatch.setattr("deepsim.jitcache.estimate_cpu_s", lambda rs, what: {"run": 7.0}[what])
    rs = SimpleNamespace(name="x", title="X", warm_parts={"run": "batch games"})
    p = warmup.run_part(rs)
    assert (p.key, p.label, p.estimate_cpu_s, p.trace) == ("x@run", "X batch kernel", 7.0,
                                                            False)
    # three parts of one ruleset, three child-process arguments
    assert len({p.key, Part("x", None, "X").key, Part("x", "run", "X").key}) == 3


def test_compile_part_passes_what_to_compile(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr("deepsim.jitcache.cache_dir", lambda: tmp_path)

    def warm(rs, prepared, *, trace, part, on_compile):
        calls.append((rs, trace, part))
        return SimpleNamespace(seconds=1.0, cpu_seconds=1.0, compiled=["f"])

    monkeypatch.setattr("deepsim.jitcache.warm", warm)
    monkeypatch.setattr("deepsim.rulesets.get", lambda name: name)
    parts = (Part("x", None, "X"), Part("x", "trace", "X"), Part("x", None, "X", trace=False))
    for part in parts:
        assert not warmup.warmed(part)
        warmup.compile_part(part)
    assert calls == [("x", True, None), ("x", True, "trace"), ("x", False, None)]
    # each part is marked as warmed in the cache of these sources, and only that part
    assert all(warmup.warmed(p) for p in parts)
    assert not warmup.warmed(Part("x", "run", "X")) and not warmup.warmed(Part("y", None, "Y"))
    # beside each marker, the lock its compile held (warmup.wait waits on it)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*(m := ["warmed-x", "warmed-x-at-run", "warmed-x-trace"]), *(f"{x}.lock" for x in m)])


def test_cached_looks_for_an_index_of_the_rulesets_package(tmp_path, monkeypatch):
    monkeypatch.setattr("deepsim.jitcache.cache_dir", lambda: tmp_path / "src-0123456789abcdef")
    ours = type("R", (), {"__module__": "deepsim.rulesets.deepfall.ruleset"})()
    theirs = type("R", (), {"__module__": "mygame.ruleset"})()
    assert warmup.cached(ours) is False                  # no cache folder at all
    folder = tmp_path / "src-0123456789abcdef" / "deepsim.rulesets.deepfall.kernel"
    folder.mkdir(parents=True)
    assert warmup.cached(ours) is False                  # a folder, no index yet
    (folder.parent / "deepsim.rulesets.deepfallish.kernel").mkdir()
    (folder.parent / "deepsim.rulesets.deepfallish.kernel" / "k.f-1.py311.nbi").touch()
    assert warmup.cached(ours) is False                  # another package's entry
    (folder / "kernel.play_block-1998.py311.nbi").touch()
    assert warmup.cached(ours) is True
    assert warmup.cached(theirs) is None                 # numba files it by its path


def test_a_part_is_recorded_apart_from_what_deepsim_run_compiles(monkeypatch):
    """DEEPFALL's part "run" compiles both versions of its batch kernels: its time is kept
    as "part:run", so `deepsim run`'s estimate ("run") is not overwritten by it."""
    from deepsim import jitcache

    recorded = []
    monkeypatch.setattr(jitcache, "_read_times", dict)        # nothing measured here yet
    monkeypatch.setattr(jitcache, "_record", lambda rs, what, rep: recorded.append(what))

    class Parts:
        name, title, plays = "p", "P", True
        warm_parts: ClassVar[dict[str, str]] = {"run": "batch games"}
        compile_estimate_s: ClassVar[dict[str, float]] = {"run": 10.0, "part:run": 30.0}

        def warm_up(self, prepared=None, *, trace=False, part=None):
            numba.njit(lambda x: x + 2)(1)

    rs = Parts()
    seen = []
    jitcache.warm(rs, part="run", on_compile=seen.append)
    assert recorded == ["part:run"]
    assert seen[0].startswith("compiling the P kernels for batch games (first run only")
    assert jitcache.estimate_cpu_s(rs, "part:run") == 30.0
    assert jitcache.estimate_cpu_s(rs, "run") == 10.0


def test_a_partial_compile_does_not_replace_a_cold_compiles_time(monkeypatch, tmp_path):
    """A compile of fewer than half the functions of the recorded one (the rest loaded from
    numba's cache) keeps the recorded time: it is what the next cold compile is told."""
    from deepsim import jitcache

    monkeypatch.setattr(jitcache, "_times_path", lambda: tmp_path / "times.json")

    class Rs:
        name = "p"

    def report(n, cpu):
        return jitcache.CompileReport(seconds=cpu, cpu_seconds=cpu,
                                      compiled=[f"f{i}" for i in range(n)])

    jitcache._record(Rs(), "run", report(54, 60.0))
    jitcache._record(Rs(), "run", report(12, 20.0))           # partial: kept out
    assert jitcache._read_times()["p:run"]["cpu_seconds"] == 60.0
    jitcache._record(Rs(), "run", report(50, 45.0))           # a cold compile again
    rec = jitcache._read_times()["p:run"]
    assert (rec["cpu_seconds"], rec["functions"]) == (45.0, 50)


def test_wait_returns_only_when_the_process_compiling_the_part_has_let_go(tmp_path,
                                                                          monkeypatch):
    """warmup.wait: while another process holds a part's lock (compile_part, e.g. the slow
    tier's background warm-up), it blocks; it compiles nothing itself."""
    import subprocess
    import sys

    monkeypatch.setattr(warmup, "_warmed_path", lambda part: tmp_path / f"warmed-{part.key}")
    lock, done = tmp_path / "warmed-bank.lock", tmp_path / "done"
    holder = subprocess.Popen(
        [sys.executable, "-c", ("import fcntl, sys, time\n"
                                f"f = open({str(lock)!r}, 'a')\n"
                                "fcntl.flock(f, fcntl.LOCK_EX)\n"
                                "print('held', flush=True)\ntime.sleep(1.0)\n"
                                f"open({str(done)!r}, 'w').close()\n"
                                "fcntl.flock(f, fcntl.LOCK_UN)\ntime.sleep(30)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        warmup.wait("bank")
        # the holder writes `done` just before it lets go: wait cannot have returned before
        assert done.exists()
    finally:
        holder.kill()
        holder.wait()
    assert not (tmp_path / "warmed-bank").exists()       # nothing compiled or marked


def test_a_part_is_named_by_ruleset_and_part_and_unknown_parts_are_refused(tmp_path,
                                                                           monkeypatch):
    """warmup.part_named (what wait locks): the ruleset's part, warmed once its marker is
    there; a part the ruleset does not list is refused with the ones it does."""
    monkeypatch.setattr(warmup, "_warmed_path", lambda part: tmp_path / f"warmed-{part.key}")
    (tmp_path / "warmed-deepfall:run").touch()
    assert warmup.warmed(warmup.part_named("deepfall", "run"))
    with pytest.raises(ValueError, match="run, trace"):
        warmup.part_named("deepfall", "everything")
