"""docs/ci.md's GitHub Actions recipe: its deepsim steps run as written and agree.

The workflow is read from the document itself, so the recipe cannot drift from the code:
the key/folder step's shell script runs with a ``GITHUB_OUTPUT`` file, the cache step must
cache the folder it printed under the key it printed, and the warm-up step, run twice,
compiles at most once and then loads everything from the cache.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deepsim import jitcache

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def _workflow() -> dict:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.DOTALL)
    flows = [yaml.safe_load(b) for b in blocks if b.startswith("name: balance")]
    assert len(flows) == 1, "docs/ci.md should hold one workflow named 'balance'"
    return flows[0]


def _steps() -> list[dict]:
    return _workflow()["jobs"]["gate"]["steps"]


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _bash(script: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], env=env,
                          capture_output=True, text=True, timeout=1800, check=False)


@pytest.mark.slow
def test_cache_step_uses_the_printed_key_and_folder(tmp_path):
    steps = _steps()
    key_step = next(s for s in steps if s.get("id") == "numba")
    cache_step = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache"))
    env = _env()
    env["GITHUB_OUTPUT"] = str(tmp_path / "out")
    res = _bash(key_step["run"], env)
    assert res.returncode == 0, res.stderr
    outputs = dict(line.split("=", 1) for line in
                   (tmp_path / "out").read_text().splitlines())
    assert outputs["key"] == jitcache.ci_key()
    assert outputs["key"].startswith(f"src-{jitcache.source_key()}-py")
    assert outputs["dir"] == str(jitcache.cache_dir())
    assert Path(outputs["dir"]).name == f"src-{jitcache.source_key()}"
    assert cache_step["with"]["path"] == "${{ steps.numba.outputs.dir }}"
    assert "${{ steps.numba.outputs.key }}" in cache_step["with"]["key"]
    # pip installs the package before the key step runs deepsim
    names = [s.get("run", "") for s in steps]
    assert names.index(next(n for n in names if "pip install" in n)) \
        < steps.index(key_step)


@pytest.mark.slow
def test_warm_up_step_compiles_once_then_loads():
    warm = next(s for s in _steps() if "deepsim warmup" in str(s.get("run", ""))
                and "--print" not in s["run"])
    env = _env()
    first = _bash(warm["run"], env)
    assert first.returncode == 0, first.stderr
    assert "DEEPFALL kernels for batch games:" in first.stdout, first.stdout
    assert f"Cache: {jitcache.cache_dir()}" in first.stdout.replace("\n", "")
    # a second job with the cache restored: nothing is compiled (no numba cache miss)
    second = _bash(warm["run"], env)
    assert second.returncode == 0, second.stderr
    # each part of DEEPFALL's kernels (batch games, traced games) says so
    for part in ("batch games", "traced games"):
        assert f"DEEPFALL kernels for {part}: in the cache" in second.stdout, second.stdout
    assert "compiled" not in second.stdout, second.stdout
    assert "compiling" not in second.stderr
