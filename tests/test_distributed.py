"""``--backend dask``: a run on a Dask LocalCluster equals a local run, byte for byte.

A LocalCluster of 2 worker processes (one thread each) on 127.0.0.1 plays a DEEPFALL
scenario (3,000 games in 6 chunks); its ``read_run`` frames and its parquet parts must be
identical to a local run of the same scenario and seed, also when a worker process dies
mid-task (the test hook ``crash_once`` makes the first attempt of one chunk ``os._exit``
while it writes its part) and when a half-finished run is resumed on the cluster.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

pytest.importorskip("distributed")
import psutil  # a dependency of distributed

from deepsim import runner
from deepsim.cli import app
from deepsim.distributed import DaskBackend, _Lister
from deepsim.errors import InputError
from deepsim.output import (
    KINDS,
    RunWriter,
    read_manifest,
    read_run,
    read_run_json,
    write_chunk_parts,
)

# a Dask LocalCluster per test (worker processes, each loading the kernels): the slow
# tier (make test-slow, .ci/run)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "deepfall-4p.yaml"
RUN = {"games": 3000, "chunk_size": 500, "seed": 11}  # 6 chunks


def _assert_identical(a: Path, b: Path) -> None:
    """Same frames (read_run) and the same parquet parts, byte for byte."""
    ga, sa = read_run(a, require_complete=True)
    gb, sb = read_run(b, require_complete=True)
    pd.testing.assert_frame_equal(ga, gb)
    pd.testing.assert_frame_equal(sa, sb)
    for kind in KINDS:
        names_a = sorted(p.name for p in (a / kind).iterdir())
        names_b = sorted(p.name for p in (b / kind).iterdir())
        assert names_a == names_b  # no temporary files or extra parts either
        for name in names_a:
            assert (a / kind / name).read_bytes() == (b / kind / name).read_bytes(), name
    ma, mb = read_manifest(a), read_manifest(b)
    for key in ("scenario_hash", "params_hash", "seed", "games", "chunk_size", "chunks",
                "status"):
        assert ma[key] == mb[key], key


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    """The reference: the same scenario and seed on the local backend (warms numba's cache)."""
    out = tmp_path_factory.mktemp("local") / "run"
    runner.run(SCENARIO, out=out, **RUN)
    return out


@pytest.fixture(scope="module")
def backend(local_run):
    """A LocalCluster of 2 worker processes, one thread each, on 127.0.0.1."""
    with DaskBackend(workers=2) as be:
        yield be


def test_local_cluster_run_is_bit_identical(backend, local_run, tmp_path):
    info = backend.client.scheduler_info()
    assert len(info["workers"]) == 2
    assert all(w["nthreads"] == 1 for w in info["workers"].values())
    assert all(addr.startswith("tcp://127.0.0.1:") for addr in info["workers"])
    assert backend.client.scheduler.address.startswith("tcp://127.0.0.1:")
    # every socket the cluster listens on (scheduler and nannies here, workers in their
    # processes) is on loopback
    pids = [os.getpid(), *backend.client.run(os.getpid).values()]
    listening = [c.laddr for pid in pids for c in psutil.Process(pid).net_connections("inet")
                 if c.status == psutil.CONN_LISTEN]
    assert listening and all(addr.ip == "127.0.0.1" for addr in listening), listening
    calls = []
    res = runner.run(SCENARIO, out=tmp_path / "dask", backend=backend,
                     progress=lambda done, total: calls.append((done, total)), **RUN)
    _assert_identical(tmp_path / "dask", local_run)
    # progress: once before the tasks, then once per finished task
    assert calls[0] == (0, 3000) and calls[-1] == (3000, 3000) and len(calls) == 7
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    recorded = read_run_json(tmp_path / "dask")["backend"]
    assert recorded["name"] == "dask" and recorded["local_cluster"] is True
    assert recorded["workers"] == 2 and recorded["numba_threads_per_task"] == 1
    assert res.info["games_per_s"] > 0
    assert backend.last["tasks"] == 6 and list(backend.last["chunk_workers"]) == list(range(6))
    assert len(set(backend.last["chunk_workers"].values())) <= 2
    assert backend.last["rewritten"] == []


def test_worker_killed_mid_task_gives_identical_result(backend, local_run, tmp_path):
    marker = tmp_path / "crashed"
    backend.crash_once = (2, str(marker))
    try:
        runner.run(SCENARIO, out=tmp_path / "dask", backend=backend, **RUN)
    finally:
        backend.crash_once = None
    assert marker.is_file(), "chunk 2's first attempt did not run"
    dead = marker.read_text()
    # the process that died is gone; chunk 2 was played again by another one
    assert not backend.last["chunk_workers"][2].endswith(f":{dead}")
    assert list(backend.last["chunk_workers"]) == list(range(6))
    with pytest.raises(ProcessLookupError):
        os.kill(int(dead), 0)
    # its half-written temporary part is gone, and the result is the local run's
    _assert_identical(tmp_path / "dask", local_run)


def test_resume_on_the_cluster_is_bit_identical(backend, local_run, tmp_path):
    """A run cut after 3 chunks (one half-written part left) is finished by the cluster."""
    cut = tmp_path / "cut"
    runner.run(SCENARIO, out=cut, threads=1, **RUN)
    manifest = json.loads((cut / "manifest.json").read_text())
    manifest["chunks"], manifest["status"] = manifest["chunks"][:3], "running"
    (cut / "manifest.json").write_text(json.dumps(manifest))
    for index in (4, 5):  # chunk 3's parts stay: renamed into place, never listed
        for kind in KINDS:
            (cut / kind / f"part-{index:05d}.parquet").unlink()
    (cut / "seats" / ".part-00004.parquet.tmp-0badc0de").write_bytes(b"half")
    calls = []
    res = runner.resume(cut, backend=backend, progress=lambda d, t: calls.append(d))
    assert calls[0] == 1500 and calls[-1] == 3000
    assert backend.last["tasks"] == 3
    assert "3 of 6 chunks were finished" in res.notes[0]
    _assert_identical(cut, local_run)


def test_parts_finished_before_the_first_chunk_get_its_schema(tmp_path):
    """A local run casts every part to the first chunk's schema; the client does the same."""
    ident = {"scenario_hash": "s" * 64, "params_hash": "p" * 64, "seed": 3,
             "placeholders": [], "skipped_rules": []}

    def frames(start: int, int_type: str):
        games = pd.DataFrame({"game": range(start, start + 2),
                              "rounds": pd.Series([5, 6], dtype=int_type)})
        seats = pd.DataFrame({"game": [start, start + 1], "seat": [1, 1],
                              "company": ["a", "b"]})
        return games, seats

    def writer(out: Path) -> RunWriter:
        out.mkdir()
        return RunWriter(out, ruleset="fake", scenario_name="x", scenario_hash=ident[
            "scenario_hash"], params_hash=ident["params_hash"], seed=3, games=4, chunk_size=2)

    local = writer(tmp_path / "local")
    local.write_chunk(0, 0, 2, *frames(0, "int64"))
    local.write_chunk(1, 2, 2, *frames(2, "int32"))
    local.complete()

    dist = writer(tmp_path / "dist")
    lister = _Lister(dist, ident, tmp_path / "dist", [(0, 0, 2), (1, 2, 2)])
    results = {}
    for index, int_type in ((1, "int32"), (0, "int64")):  # chunk 1 finishes first
        schemas: dict = {}
        entry = write_chunk_parts(tmp_path / "dist", ident, index, index * 2, 2,
                                  *frames(index * 2, int_type), schemas)
        results[index] = {"entry": entry, "schemas": schemas}
    lister.add(results[1])
    assert dist.manifest["chunks"] == [] and len(lister.waiting) == 1  # waits for chunk 0
    lister.add(results[0])
    assert [c["index"] for c in dist.manifest["chunks"]] == [0, 1]
    assert lister.rewritten == ["games/part-00001.parquet"]
    dist.complete()
    games, _ = read_run(tmp_path / "dist", require_complete=True)
    assert games["rounds"].dtype == "int64"
    _assert_identical(tmp_path / "dist", tmp_path / "local")
    schema = pq.read_schema(tmp_path / "dist" / "games" / "part-00001.parquet")
    assert schema.metadata[b"deepsim.chunk"] == b"1"


def test_unreachable_scheduler_is_an_input_error():
    with (pytest.raises(InputError, match="cannot reach the Dask scheduler"),
          DaskBackend("tcp://127.0.0.1:9", connect_timeout_s=1)):
        pass


@pytest.mark.parametrize("args, expected", [
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler need --backend dask"),
    (["--workers", "3"], "--workers need --backend dask"),
    (["--backend", "spark"], "unknown backend 'spark'; expected one of local, dask"),
    (["--backend", "dask", "--workers", "0"], "expected an integer >= 1, got 0"),
    (["--backend", "dask", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"],
     "--workers sizes the LocalCluster started without --scheduler"),
])
def test_cli_backend_options_bad_use_exit_2(args, expected, tmp_path):
    res = CliRunner().invoke(app, ["run", str(SCENARIO), "--games", "10", "--out",
                                   str(tmp_path / "o"), *args])
    assert res.exit_code == 2, res.output
    assert expected in " ".join(res.output.split()), res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "o").exists()


def test_cli_run_backend_dask(local_run, tmp_path):
    """`deepsim run --backend dask --workers 1`: the CLI's own LocalCluster, same games."""
    out = tmp_path / "cli"
    res = CliRunner().invoke(app, ["run", str(SCENARIO), "--games", "600", "--chunk-size",
                                   "200", "--seed", str(RUN["seed"]), "--backend", "dask",
                                   "--workers", "1", "--out", str(out), "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().endswith(str(out))
    assert read_run_json(out)["backend"]["workers"] == 1
    games, seats = read_run(out, require_complete=True)
    ref_games, ref_seats = read_run(local_run)
    # results depend only on (seed, game index): games 0..599 are the reference's
    ref_games = ref_games[ref_games["game"] < 600].reset_index(drop=True)
    ref_seats = ref_seats[ref_seats["game"] < 600].reset_index(drop=True)
    pd.testing.assert_frame_equal(games, ref_games, check_categorical=False)
    pd.testing.assert_frame_equal(seats, ref_seats, check_categorical=False)


def test_warm_up_loads_the_kernel(local_run):
    from deepsim.distributed import warm_up

    assert warm_up(ruleset="deepfall") >= 0


def test_sweep_on_local_cluster_equals_local_sweep(local_run, tmp_path):
    """`deepsim sweep --backend dask`: a 2-point sweep gives the local sweep's sweep.parquet."""
    args = ["sweep", str(SCENARIO), "--param", "exits.worthy_end_multiplier=2.0,3.0", "--games", "600",
            "--chunk-size", "200", "--seed", str(RUN["seed"]), "--no-plots", "-q"]
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "dask"), "--backend", "dask",
                                   "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "dask" / "sweep.json").read_text())["backend"]["workers"] == 2
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "local" / "sweep.parquet"),
                                  pd.read_parquet(tmp_path / "dask" / "sweep.parquet"))
