"""`deepsim warmup`'s plan: independent parts of the rulesets' kernels spread over parallel
processes, longest first onto the least loaded (no compiling here)."""

from __future__ import annotations

from types import SimpleNamespace

from deepsim import warmup
from deepsim.warmup import Part, plan


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
