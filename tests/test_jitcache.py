"""numba's compile cache: one folder per kernel sources, shared by every copy of them.

The proof of sharing is numba's own cache counters (``dispatcher.stats.cache_hits`` and
``cache_misses``), never a timing: two copies of the package in two temporary folders,
one cache folder, and the second copy compiles nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import numba
import pytest
from typer.testing import CliRunner

import deepsim
from deepsim import jitcache, runner
from deepsim.cli import app
from deepsim.output import read_run_json

# a small jitted module of the package: the counter-based RNG
PROBE = """
import json, deepsim, numba
from deepsim import rng
assert rng.game_key(1, 2) == rng.game_key(1, 2)
d = rng.game_key
print(json.dumps({"file": deepsim.__file__, "cache": numba.config.CACHE_DIR,
                  "hits": sum(d.stats.cache_hits.values()),
                  "misses": sum(d.stats.cache_misses.values())}))
"""


def _copy(tmp_path: Path, name: str) -> Path:
    """A copy of the deepsim package (sources only) in ``tmp_path/name``."""
    dst = tmp_path / name
    shutil.copytree(Path(deepsim.__file__).parent, dst / "deepsim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _probe(where: Path, cache: Path, **env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    e.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(where), **env)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=where, env=e, capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(res["file"]).is_relative_to(where)   # this copy, not the installed one
    return res


@pytest.mark.slow
def test_second_copy_of_the_sources_compiles_nothing(tmp_path):
    cache = tmp_path / "cache"
    a, b = _copy(tmp_path, "a"), _copy(tmp_path, "b")
    # a later modification time on every file of the second copy: content is what counts
    for p in (b / "deepsim").rglob("*.py"):
        os.utime(p, (p.stat().st_atime, p.stat().st_mtime + 3600))
    first = _probe(a, cache)
    assert (first["hits"], first["misses"]) == (0, 1)
    second = _probe(b, cache)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert first["cache"] == second["cache"]
    assert Path(first["cache"]).parent == cache
    assert Path(first["cache"]).name == f"src-{jitcache.source_key()}"


@pytest.mark.slow
def test_numba_alone_would_compile_each_copy_again(tmp_path):
    # the control: numba's own locator files entries by the absolute path of the source
    cache = tmp_path / "cache"
    a, b = _copy(tmp_path, "a"), _copy(tmp_path, "b")
    plain = {"NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator"}
    assert _probe(a, cache, **plain)["misses"] == 1
    assert _probe(b, cache, **plain)["misses"] == 1


@pytest.mark.slow
def test_an_edit_to_any_compiled_source_starts_a_fresh_folder(tmp_path):
    cache = tmp_path / "cache"
    a, b = _copy(tmp_path, "a"), _copy(tmp_path, "b")
    # a kernel inlines bots.py: numba alone would not notice this edit
    bots = b / "deepsim" / "rulesets" / "deepfall" / "bots.py"
    bots.write_text(bots.read_text() + "\n# edited\n")
    first, second = _probe(a, cache), _probe(b, cache)
    assert first["cache"] != second["cache"]
    assert (second["hits"], second["misses"]) == (0, 1)


def test_cache_root_and_folder(tmp_path):
    key = jitcache.source_key()
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "c")}
    assert jitcache.cache_root(env) == tmp_path / "c"
    assert jitcache.cache_dir(env) == tmp_path / "c" / f"src-{key}"
    # a child process inherits the keyed folder: same root
    assert jitcache.cache_root({"NUMBA_CACHE_DIR": str(tmp_path / "c" / f"src-{key}")}) \
        == tmp_path / "c"
    assert jitcache.cache_root({"XDG_CACHE_HOME": str(tmp_path / "x")}) \
        == tmp_path / "x" / "deepsim"
    assert jitcache.cache_root({}) == Path.home() / ".cache" / "deepsim"
    # this process: numba points at the keyed folder, with deepsim's locator first
    assert numba.config.CACHE_DIR == str(jitcache.cache_dir())
    assert numba.config.CACHE_LOCATOR_CLASSES.split(",")[0] == jitcache.LOCATOR


def test_source_key_covers_compiled_sources_only(tmp_path):
    pkg = _copy(tmp_path, "a") / "deepsim"
    key = jitcache.source_key(pkg)
    runner_py = pkg / "runner.py"
    runner_py.write_text(runner_py.read_text() + "\n# not compiled\n")
    assert jitcache.source_key(pkg) == key
    layout = pkg / "rulesets" / "atlantis" / "layout.py"   # constants frozen into the code
    layout.write_text(layout.read_text() + "\n# compiled in\n")
    assert jitcache.source_key(pkg) != key


def test_prune_keeps_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    current = jitcache.cache_dir()
    old = tmp_path / "src-0123456789abcdef"
    other = tmp_path / "notes"
    for p in (current, old, other):
        p.mkdir(parents=True)
    assert jitcache.prune() == [old]
    assert current.is_dir() and other.is_dir() and not old.exists()


# --- warming: the status and the compile time apart from the games ---------------------------

@pytest.fixture
def compiling_ruleset(fake_ruleset):
    """The fake ruleset with a kernel (a class): ``warm_up`` compiles a fresh numba
    function the first time, and records each call in ``warmed``."""

    class CompilingRuleset(fake_ruleset):
        compile_estimate_s: ClassVar[dict[str, float]] = {"run": 42.0, "all": 60.0}

        def __init__(self):
            super().__init__()
            self.warmed = []

        def warm_up(self, prepared=None, *, trace=False):
            self.warmed.append((self.calls, trace))
            if len(self.warmed) == 1:   # the first warm-up compiles, later ones find it loaded
                numba.njit(lambda x: x + 1)(1)

    return CompilingRuleset


def test_warm_announces_a_compile_only(tmp_path, monkeypatch, compiling_ruleset):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(jitcache.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    rs = compiling_ruleset()
    seen = []
    first = jitcache.warm(rs, on_compile=seen.append)
    assert seen == ["compiling the Fake game (tests only) kernel (first run only, about 40 s)"]
    assert first.compiled and first.as_info()["kernel_compiled"] is True
    # the measured compile's CPU time now gives the estimate (idle machine: as is)
    assert jitcache.estimate_s(rs) == pytest.approx(round(first.cpu_seconds, 1))
    second = jitcache.warm(rs, on_compile=seen.append)
    assert len(seen) == 1 and second.compiled == []
    assert second.as_info()["kernel_compiled"] is False


def test_the_estimate_grows_with_the_load(tmp_path, monkeypatch, compiling_ruleset):
    """A compile measured on an idle machine takes longer while other jobs run: the
    estimate is the recorded CPU time times (load + 1) / cores, never below it."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(jitcache.os, "cpu_count", lambda: 2)
    rs = compiling_ruleset()                      # nothing recorded: its own 42 s
    monkeypatch.setattr(jitcache.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert jitcache.estimate_s(rs) == pytest.approx(42.0)
    monkeypatch.setattr(jitcache.os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert jitcache.estimate_s(rs) == pytest.approx(42.0 * 5)
    assert jitcache.compile_message(rs).endswith("(first run only, about 4 min)")


def test_run_compiles_before_the_games_and_times_them_apart(fake, tmp_path, monkeypatch,
                                                            compiling_ruleset):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    rs = fake["ruleset"] = compiling_ruleset()
    events = []
    runner.run(fake["scenario"], out=tmp_path / "o", threads=1,
               on_compile=lambda m: events.append(("compile", m)),
               progress=lambda d, t: events.append(("progress", d)))
    assert rs.warmed == [(0, False)]                  # before the first chunk
    assert events[0][0] == "compile" and "Fake game" in events[0][1]
    assert events[1] == ("progress", 0)
    info = read_run_json(tmp_path / "o")
    assert info["kernel_compiled"] is True and info["compile_s"] >= 0
    assert info["numba_cache_dir"] == numba.config.CACHE_DIR
    assert info["games_per_s"] == pytest.approx(info["games"] / info["wall_time_s"], rel=0.01)


def test_a_ruleset_without_warm_up_runs_as_before(fake, tmp_path):
    runner.run(fake["scenario"], out=tmp_path / "o", threads=1)
    info = read_run_json(tmp_path / "o")
    assert info["compile_s"] is None and "kernel_compiled" not in info


def test_cli_run_says_it_compiles_first(fake, tmp_path, monkeypatch, compiling_ruleset):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(jitcache.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    fake["ruleset"] = compiling_ruleset()
    res = CliRunner(env={"COLUMNS": "80"}).invoke(
        app, ["run", str(fake["scenario"]), "--out", "o", "--threads", "1", "--no-report"])
    assert res.exit_code == 0, res.output
    out = res.output
    # the first line printed, before any game
    assert out.splitlines()[0].startswith("compiling the Fake game (tests only) kernel "
                                          "(first run only, about 40 s)")
    assert "(compile time excluded)" in out
    assert "Kernel compile:" in out and "first run of these sources" in out
    # a second run loads it
    res = CliRunner(env={"COLUMNS": "80"}).invoke(
        app, ["run", str(fake["scenario"]), "--out", "o2", "--threads", "1", "--no-report"])
    assert "compiling" not in res.output and "Kernel compile: none" in res.output
