"""Smoke test of `deepsim bench --quick`: it runs and writes valid JSON (no speed asserted)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from deepsim.cli import app


@pytest.mark.slow
def test_bench_quick_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    res = CliRunner().invoke(app, ["bench", "deepfall", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    row = data["players"]["4"]
    for key in ("games_per_s_per_core_1_thread", "scaling_2_threads", "python_games_per_s",
                "jit_vs_python", "rng_draws_per_game", "fraction_of_floor"):
        assert row[key] > 0, key
    assert data["rng_ns_per_draw"] > 0
    assert data["split"]["kernel_s"] > 0 and data["split"]["write_s"] >= 0
    assert set(data["peak_rss_mb"]) == {"1000", "2000"}


def test_bench_writes_nothing_unless_asked(tmp_path, monkeypatch):
    """Without --out the bench keeps no file (reports/bench.json is refreshed on purpose)."""
    import deepsim.bench
    seen = {}

    def fake(ruleset, *, quick, out, log):
        seen.update(quick=quick, out=out)
        raise SystemExit(0)

    monkeypatch.setattr(deepsim.bench, "run_bench", fake)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["bench", "deepfall", "--quick"])
    assert res.exit_code == 0, res.output
    assert seen == {"quick": True, "out": None}
    assert not any(tmp_path.iterdir())
