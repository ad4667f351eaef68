"""Interrupted runs lose nothing: ``deepsim run --resume DIR`` and ``deepsim run --from DIR``.

The unit tests use the fake ruleset of tests/conftest.py (``fake``, ``fake_ruleset``);
``test_killed_deepfall_run_resumes`` kills a real ``deepsim run`` subprocess (SIGKILL) and
checks that the resumed run equals an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim import runner
from deepsim.atomic import atomic_write_json
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.output import read_manifest, read_run, read_run_json

ROOT = Path(__file__).resolve().parents[1]

cli = CliRunner(env={"COLUMNS": "200"})


def _run(scen, out, **kw):
    return runner.run(scen, out=out, threads=1, **kw)


def _assert_same_run(a: Path, b: Path) -> None:
    ga, sa = read_run(a, require_complete=True)
    gb, sb = read_run(b, require_complete=True)
    pd.testing.assert_frame_equal(ga, gb)
    pd.testing.assert_frame_equal(sa, sb)


@pytest.fixture
def interrupted(fake, fake_ruleset):
    """``interrupted(out, at_chunk=2)``: the fake scenario played into ``out`` until a
    KeyboardInterrupt after ``at_chunk`` chunks (checked), then the fake made whole again."""

    def play(out: Path, at_chunk: int = 2) -> None:
        fake["ruleset"] = fake_ruleset(interrupt_at_chunk=at_chunk)
        with pytest.raises(runner.RunInterrupted) as info:
            _run(fake["scenario"], out)
        assert info.value.out_dir == out and info.value.chunks_done == at_chunk
        fake["ruleset"] = fake_ruleset()

    return play


# --- resume (fake ruleset) ------------------------------------------------------------------

def test_resume_plays_only_missing_chunks_and_matches(fake, tmp_path, interrupted):
    interrupted(tmp_path / "cut")
    assert read_manifest(tmp_path / "cut")["status"] == "running"
    result = runner.resume(tmp_path / "cut", threads=1)
    assert fake["ruleset"].calls == 3  # chunks 2, 3, 4 of 5
    assert result.manifest["status"] == "complete"
    assert [c["index"] for c in result.manifest["chunks"]] == [0, 1, 2, 3, 4]
    assert "2 of 5 chunks were finished" in result.notes[0]
    info = read_run_json(tmp_path / "cut")
    assert info["resumes"][0]["chunks_finished_before"] == 2
    assert info["finished_utc"] is not None
    _run(fake["scenario"], tmp_path / "whole")
    _assert_same_run(tmp_path / "cut", tmp_path / "whole")


def test_resume_removes_temp_files_and_unlisted_parts(fake, tmp_path, interrupted):
    _run(fake["scenario"], tmp_path / "whole")
    cut = tmp_path / "cut"
    interrupted(cut)
    # a kill after chunk 2's games part was renamed into place, before the manifest listed
    # it; plus half-written temporary files
    shutil.copy(tmp_path / "whole" / "games" / "part-00002.parquet",
                cut / "games" / "part-00002.parquet")
    (cut / "seats" / ".part-00002.parquet.tmp-0badc0de").write_bytes(b"half")
    (cut / ".manifest.json.tmp-12345678").write_text("{")
    (cut / "notes.txt").write_text("mine")
    result = runner.resume(cut, threads=1)
    removed = " ".join(result.notes)
    assert "games/part-00002.parquet" in removed and ".tmp-0badc0de" in removed
    assert not [p for p in cut.rglob("*") if ".tmp-" in p.name]
    assert (cut / "notes.txt").read_text() == "mine"
    _assert_same_run(cut, tmp_path / "whole")


def test_resume_after_last_chunk_only_marks_complete(fake, tmp_path, fake_ruleset):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    manifest = read_manifest(out)
    manifest["status"] = "running"  # killed between the last chunk and complete()
    atomic_write_json(out / "manifest.json", manifest)
    fake["ruleset"] = fake_ruleset()
    result = runner.resume(out, threads=1)
    assert fake["ruleset"].calls == 0
    assert result.manifest["status"] == "complete"


def test_resume_refuses_complete_run(fake, tmp_path):
    _run(fake["scenario"], tmp_path / "out")
    with pytest.raises(InputError, match="already complete"):
        runner.resume(tmp_path / "out", threads=1)


def test_resume_refuses_changed_parameters(fake, tmp_path, interrupted):
    cut = tmp_path / "cut"
    interrupted(cut)
    info = read_run_json(cut)
    info["overrides"] = ["glory_max=25"]  # now prepares another ruleset variant
    atomic_write_json(cut / "run.json", info)
    with pytest.raises(InputError, match=r"parameters changed.*glory_max 20 -> 25"):
        runner.resume(cut, threads=1)
    assert read_manifest(cut)["status"] == "running"


def test_resume_refuses_foreign_or_missing_finished_part(fake, tmp_path, interrupted):
    _run(fake["scenario"], tmp_path / "other", seed=4)
    cut = tmp_path / "cut"
    interrupted(cut)
    # same row count (60 games), another run's seed
    shutil.copy(tmp_path / "other" / "games" / "part-00001.parquet",
                cut / "games" / "part-00001.parquet")
    with pytest.raises(InputError, match="does not belong"):
        runner.resume(cut, threads=1)
    (cut / "games" / "part-00001.parquet").unlink()
    with pytest.raises(InputError, match="missing"):
        runner.resume(cut, threads=1)


def test_resume_refuses_manifest_disagreeing_with_run_json(fake, tmp_path, interrupted):
    cut = tmp_path / "cut"
    interrupted(cut)
    manifest = read_manifest(cut)
    manifest["seed"] = 99
    atomic_write_json(cut / "manifest.json", manifest)
    with pytest.raises(InputError, match="disagree on seed"):
        runner.resume(cut, threads=1)


def test_resume_not_a_run_dir(fake, tmp_path):
    with pytest.raises(InputError, match="not found"):
        runner.resume(tmp_path / "nothing", threads=1)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="run.json not found"):
        runner.resume(tmp_path / "empty", threads=1)


# --- --from (fake ruleset) ------------------------------------------------------------------

def test_rerun_reproduces_the_recorded_run(fake, tmp_path):
    _run(fake["scenario"], tmp_path / "a", seed=11, games=130, chunk_size=40,
         overrides=["glory_max=9"])
    result = runner.rerun(tmp_path / "a", out=tmp_path / "b", threads=1)
    info = read_run_json(tmp_path / "b")
    assert info["rerun_of"] == str(tmp_path / "a")
    assert (info["seed"], info["games"], info["chunk_size"]) == (11, 130, 40)
    assert info["overrides"] == ["glory_max=9"]
    assert info["params_hash"] == read_run_json(tmp_path / "a")["params_hash"]
    assert result.manifest["status"] == "complete"
    _assert_same_run(tmp_path / "a", tmp_path / "b")


def test_rerun_refuses_its_own_dir_and_existing_out(fake, tmp_path):
    _run(fake["scenario"], tmp_path / "a", games=20)
    with pytest.raises(InputError, match="the run being re-run"):
        runner.rerun(tmp_path / "a", out=tmp_path / "a", force=True, threads=1)
    (tmp_path / "b").mkdir()
    with pytest.raises(InputError, match="--force"):
        runner.rerun(tmp_path / "a", out=tmp_path / "b", threads=1)
    assert read_manifest(tmp_path / "a")["status"] == "complete"


# --- CLI (fake ruleset) ---------------------------------------------------------------------

@pytest.mark.slow
def test_cli_interrupt_names_resume_then_resume(fake, tmp_path, fake_ruleset):
    fake["ruleset"] = fake_ruleset(interrupt_at_chunk=3)
    res = cli.invoke(app, ["run", str(fake["scenario"]), "--out", "o", "--threads", "1"])
    assert res.exit_code == 130
    assert "3 of 5 chunks finished" in res.output
    assert "deepsim run --resume o" in res.output
    fake["ruleset"] = fake_ruleset()
    res = cli.invoke(app, ["run", "--resume", "o", "--threads", "1"])
    assert res.exit_code == 0, res.output
    assert "3 of 5 chunks were finished" in res.output and "Win share" in res.output
    res = cli.invoke(app, ["run", "--from", "o", "--out", "p", "--threads", "1", "-q"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == "p"
    _assert_same_run(tmp_path / "o", tmp_path / "p")


@pytest.mark.parametrize(("args", "expected"), [
    (["run"], "give a SCENARIO file, --resume RUN_DIR or --from RUN_DIR"),
    (["run", "--resume", "o", "--from", "o"], "give one of them"),
    (["run", "{scen}", "--resume", "o"], "drop SCENARIO"),
    (["run", "--resume", "o", "--seed", "3", "--games", "0"], "drop --games, --seed"),
    (["run", "--resume", "o", "--out", "x", "--force"], "drop --out, --force"),
    (["run", "--resume", "o", "--set", "glory_max=3"], "drop --set"),
    (["run", "--from", "o", "--chunk-size", "7"], "drop --chunk-size"),
    (["run", "--resume", "nowhere"], "run directory not found"),
    (["run", "--from", "nowhere"], "run directory not found"),
    (["run", "--resume", "o"], "already complete"),
])
def test_cli_resume_and_from_bad_use_exit_2(fake, tmp_path, args, expected):
    _run(fake["scenario"], tmp_path / "o", games=20)
    args = [a.format(scen=fake["scenario"]) for a in args]
    res = cli.invoke(app, args + ["--threads", "1"])
    assert res.exit_code == 2, res.output
    assert expected in " ".join(res.output.split()), res.output
    assert "Traceback" not in res.output


# --- a real DEEPFALL run, killed and resumed ------------------------------------------------

def _manifest_chunks(path: Path) -> int:
    try:
        return len(json.loads(path.read_text())["chunks"])
    except (OSError, ValueError, KeyError):
        return 0  # not written yet (each write is atomic, so never half a manifest)


@pytest.mark.slow
def test_killed_deepfall_run_resumes_identical(tmp_path):
    """SIGKILL a real run after some chunks, resume it, compare with an uninterrupted run."""
    scenario = ROOT / "scenarios" / "deepfall-4p.yaml"
    base = ["--games", "2000", "--chunk-size", "100", "--seed", "13"]  # 20 chunks
    n_chunks = 20
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    cmd = [sys.executable, "-c", "from deepsim.cli import app; app(prog_name='deepsim')"]

    # The uninterrupted reference first: it also leaves numba's cache warm for the rest.
    whole = tmp_path / "whole"
    ref = subprocess.run([*cmd, "run", str(scenario), *base, "--out", str(whole), "-q"],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=300,
                         check=False)
    assert ref.returncode == 0, ref.stderr

    # One thread makes each chunk slow enough to kill between chunks on any machine.
    cut = tmp_path / "cut"
    proc = subprocess.Popen([*cmd, "run", str(scenario), *base, "--threads", "1",
                             "--out", str(cut), "-q"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    manifest = cut / "manifest.json"
    deadline = time.monotonic() + 240
    try:
        while _manifest_chunks(manifest) < 1:
            assert proc.poll() is None, f"run ended before it could be killed: " \
                                        f"{proc.communicate()}"
            assert time.monotonic() < deadline, "no chunk finished in time"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    state = json.loads(manifest.read_text())
    finished = len(state["chunks"])
    assert state["status"] == "running"
    assert 1 <= finished < n_chunks, finished

    res = subprocess.run([*cmd, "run", "--resume", str(cut), "-q"], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300, check=False)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str(cut)
    assert read_manifest(cut)["status"] == "complete"
    assert read_run_json(cut)["resumes"][0]["chunks_finished_before"] == finished
    assert not [p for p in cut.rglob("*") if ".tmp-" in p.name]
    _assert_same_run(cut, whole)
    print(f"killed after {finished} of {n_chunks} chunks; resumed run identical")


# --- read_run on a real DEEPFALL run: a missing or foreign part is reported ----------------

def test_read_run_reports_missing_and_foreign_deepfall_parts(tmp_path):
    scenario = ROOT / "scenarios" / "deepfall-4p.yaml"
    common = {"games": 300, "chunk_size": 100, "seed": 2, "threads": 1}
    runner.run(scenario, out=tmp_path / "a", **common)
    # same seed, games and chunking; only a parameter differs: every part has the same
    # shape and row count, so only the run identity in its metadata gives it away
    runner.run(scenario, out=tmp_path / "b", overrides=["exits.cash_out_dividend=6"],
               **common)
    a = tmp_path / "a"
    games, seats = read_run(a, require_complete=True)
    assert len(games) == 300 and len(seats) == 1200
    shutil.copy(a / "seats" / "part-00001.parquet", tmp_path / "keep.parquet")
    shutil.copy(tmp_path / "b" / "seats" / "part-00001.parquet",
                a / "seats" / "part-00001.parquet")
    with pytest.raises(InputError, match=r"part-00001.parquet: part does not belong to this "
                                         r"run: deepsim.(scenario|params)_hash"):
        read_run(a)
    (a / "seats" / "part-00001.parquet").unlink()
    with pytest.raises(InputError, match=r"part listed in the manifest is missing \(chunk 1, "
                                         r"games 100..199\)"):
        read_run(a)
    shutil.copy(tmp_path / "keep.parquet", a / "seats" / "part-00001.parquet")
    assert len(read_run(a)[1]) == 1200
