"""A failing disk or an unusable output folder: one clear line, the right exit status, and
never a run that looks whole.

Fault injection (mandatory): ``OSError`` ENOSPC while a part is written (with and without an
``errno``, as pyarrow raises it) and while the manifest is rewritten, EROFS on ``mkdir`` and
on the write check of an existing ``--out`` with ``--force``, ENOTDIR. The run stops with
exit 4 naming the file, the chunks kept and the ``--resume`` command; the manifest stays
``running`` and lists only whole chunks; ``--resume`` then finishes a run equal to one never
interrupted. Folder problems found before a run exit 2 and write nothing. A real tmpfs
(mounted in a private mount namespace when the machine allows it) checks the same with the
kernel's own ENOSPC and EROFS.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim import output, runner
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.output import read_manifest, read_run

cli = CliRunner(env={"COLUMNS": "400"})

SCENARIO = "name: disk\nruleset: deepfall\ngames: 40\nchunk_size: 10\nseed: 7\n"
RUN = ["--threads", "1", "-q", "--no-report"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    """The scenario file and the frames of an uninterrupted run of it."""
    base = tmp_path_factory.mktemp("disk_ref")
    scen = base / "s.yaml"
    scen.write_text(SCENARIO)
    res = cli.invoke(app, ["run", str(scen), "--out", str(base / "ref"), *RUN])
    assert res.exit_code == 0, res.output
    games, seats = read_run(base / "ref", require_complete=True)
    return scen, games, seats


def _failing(real, fail_on: int, exc: OSError):
    """``real`` that raises ``exc`` on its ``fail_on``-th call (1-based)."""
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(1)
        if len(calls) == fail_on:
            raise exc
        return real(*args, **kwargs)

    return wrapper


def _one_line(res, code: int) -> str:
    assert res.exit_code == code, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


def _no_temp_files(run_dir: Path) -> None:
    assert not [p for p in run_dir.rglob("*") if ".tmp-" in p.name]


def _resume_equals_reference(run_dir: Path, reference) -> None:
    res = cli.invoke(app, ["run", "--resume", str(run_dir), *RUN])
    assert res.exit_code == 0, res.output
    games, seats = read_run(run_dir, require_complete=True)
    pd.testing.assert_frame_equal(games, reference[1])
    pd.testing.assert_frame_equal(seats, reference[2])


@pytest.mark.parametrize("exc", [
    OSError(errno.ENOSPC, "No space left on device"),
    # pyarrow's own: an OSError without errno, the number only in its text
    OSError("Error writing bytes to file. Detail: [Errno 28] No space left on device"),
], ids=["errno", "pyarrow"])
def test_disk_full_while_writing_a_part(tmp_path, monkeypatch, reference, exc):
    out = tmp_path / "run"
    # parts are written games then seats per chunk: call 3 is chunk 1's games part
    monkeypatch.setattr(output.pq, "write_table", _failing(output.pq.write_table, 3, exc))
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), *RUN])
    line = _one_line(res, 4)
    assert line.startswith(f"error: {out}: cannot write games/part-00001.parquet: the disk is "
                           "full")
    assert "stopped with 1 of 4 chunks (10 of 40 games) kept" in line
    assert f"deepsim run --resume {out}" in line
    manifest = read_manifest(out)
    assert manifest["status"] == "running" and len(manifest["chunks"]) == 1
    assert sorted(p.name for p in (out / "games").iterdir()) == ["part-00000.parquet"]
    _no_temp_files(out)
    monkeypatch.undo()
    _resume_equals_reference(out, reference)


def test_disk_full_while_rewriting_the_manifest(tmp_path, monkeypatch, reference):
    out = tmp_path / "run"
    # manifest writes: 1 when the run starts, then one per chunk; 3 lists chunk 1
    real = output.atomic_write_json
    calls = []

    def manifest_fails(path, obj):
        if Path(path).name == "manifest.json":
            calls.append(1)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, obj)

    monkeypatch.setattr(output, "atomic_write_json", manifest_fails)
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), *RUN])
    line = _one_line(res, 4)
    assert f"{out}: cannot write manifest.json: the disk is full" in line
    assert "1 of 4 chunks (10 of 40 games) kept" in line
    manifest = read_manifest(out)
    assert manifest["status"] == "running" and len(manifest["chunks"]) == 1
    # chunk 1's parts were written but never listed: read_run refuses them, resume removes
    with pytest.raises(InputError, match="not listed in the manifest"):
        read_run(out)
    monkeypatch.undo()
    # --resume on a folder that cannot be written: exit 2, nothing removed or played
    files = sorted(p.name for p in out.rglob("*"))

    def read_only(path, data):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(output, "atomic_write_bytes", read_only)
    res = cli.invoke(app, ["run", "--resume", str(out), *RUN])
    line = _one_line(res, 2)
    assert "key '--resume'" in line and "read-only file system" in line
    assert sorted(p.name for p in out.rglob("*")) == files
    monkeypatch.undo()
    _resume_equals_reference(out, reference)


def test_disk_full_before_the_first_chunk(tmp_path, monkeypatch, reference):
    out = tmp_path / "run"
    monkeypatch.setattr(output, "atomic_write_json", _failing(
        output.atomic_write_json, 1, OSError(errno.ENOSPC, "No space left on device")))
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), *RUN])
    line = _one_line(res, 4)
    assert f"{out}: cannot write run.json: the disk is full" in line
    assert "no game was played, so nothing is kept" in line


def test_read_only_mkdir_exits_2_before_the_run(tmp_path, monkeypatch, reference):
    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(tmp_path / "new"), *RUN])
    line = _one_line(res, 2)
    assert "key '--out'" in line and "cannot create the folder" in line
    assert "read-only file system" in line
    assert not (tmp_path / "new").exists()
    with pytest.raises(InputError, match="cannot create the folder for runs.*read-only"):
        runner.run(reference[0], runs_root=tmp_path / "runs", threads=1)


def test_read_only_existing_out_with_force_keeps_the_earlier_run(tmp_path, monkeypatch,
                                                                    reference):
    out = tmp_path / "old"
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), "--games", "10",
                           *RUN])
    assert res.exit_code == 0, res.output
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def read_only(path, data):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(output, "atomic_write_bytes", read_only)
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), "--force", *RUN])
    line = _one_line(res, 2)
    assert "key '--out'" in line and "cannot write in this folder" in line
    assert "read-only file system" in line
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before  # refused before anything of the earlier run was removed


def test_not_a_directory(tmp_path, reference):
    blocker = tmp_path / "file"
    blocker.write_text("mine")
    for out in (blocker / "run", blocker / "a" / "b"):
        with pytest.raises(InputError, match=f"{blocker} is a file, not a folder") as info:
            runner.run(reference[0], out=out, threads=1)
        assert info.value.key == "--out"
    with pytest.raises(InputError, match="is a file, not a folder"):
        runner.run(reference[0], out=blocker, force=True, threads=1)
    assert blocker.read_text() == "mine"


def test_ctrl_c_before_the_run_folder_exists(tmp_path, monkeypatch, reference):
    out = tmp_path / "run"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "resolve", interrupted)
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), *RUN])
    assert res.exit_code == 130, res.output
    assert "before the run started: no game was played and nothing was written" in res.output
    assert "--resume" not in res.output and "Traceback" not in res.output
    assert not out.exists()
    # and just after the folder was made, before its first file: the empty folder goes
    monkeypatch.undo()
    monkeypatch.setattr(runner, "execute", interrupted)
    res = cli.invoke(app, ["run", str(reference[0]), "--out", str(out), *RUN])
    assert res.exit_code == 130 and "nothing was written" in res.output, res.output
    assert not out.exists()


# --- a real file system: tmpfs in a private mount namespace ----------------------------------

def _can_mount() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c",
                            "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d"],
                           capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _can_mount(), reason="cannot mount a tmpfs here (needs unshare -m)")
def test_real_tmpfs_full_then_read_only(tmp_path, reference):
    """A 320 KB tmpfs holds run.json and two 1,000-game chunks (~136 KB each): the third
    chunk fails with the kernel's ENOSPC. Made bigger, --resume finishes it; made
    read-only, a new --out and an existing one with --force are refused (exit 2)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    exe = Path(sys.executable).with_name("deepsim")
    scen = tmp_path / "big.yaml"
    scen.write_text(SCENARIO.replace("games: 40", "games: 4000").replace(
        "chunk_size: 10", "chunk_size: 1000"))
    script = textwrap.dedent(f"""\
        mount -t tmpfs -o size=320k tmpfs {mnt} || exit 99
        run() {{ "{exe}" "$@" --threads 1 -q --no-report; }}
        run run {scen} --out {mnt}/run > {tmp_path}/1.out 2>&1; echo $? > {tmp_path}/1.rc
        ls -a {mnt}/run/games {mnt}/run/seats > {tmp_path}/1.ls
        mount -o remount,size=2m {mnt}
        run run --resume {mnt}/run > {tmp_path}/2.out 2>&1; echo $? > {tmp_path}/2.rc
        cp -r {mnt}/run {tmp_path}/copy
        mount -o remount,ro {mnt}
        run run {scen} --out {mnt}/new > {tmp_path}/3.out 2>&1; echo $? > {tmp_path}/3.rc
        run run {scen} --out {mnt}/run --force > {tmp_path}/4.out 2>&1
        echo $? > {tmp_path}/4.rc
        """)
    env = {**os.environ, "COLUMNS": "400"}
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr

    def result(i: int) -> tuple[int, str]:
        return (int((tmp_path / f"{i}.rc").read_text()),
                (tmp_path / f"{i}.out").read_text().strip())

    rc, out = result(1)
    assert rc == 4 and out.startswith("error: ") and len(out.splitlines()) == 1, out
    assert "the disk is full" in out and "2 of 4 chunks (2,000 of 4,000 games) kept" in out, out
    assert f"deepsim run --resume {mnt}/run" in out
    listing = (tmp_path / "1.ls").read_text()
    assert ".tmp-" not in listing and "part-00002" not in listing, listing
    rc, out = result(2)
    assert rc == 0, out
    games, _ = read_run(tmp_path / "copy", require_complete=True)
    assert len(games) == 4000
    for i in (3, 4):
        rc, out = result(i)
        assert rc == 2 and "read-only file system" in out and "key '--out'" in out, out


def test_other_commands_name_the_flag(tmp_path, reference):
    """report --out, run --from --out and trace get the same one-line answers."""
    ref = reference[0].parent / "ref"
    loop = tmp_path / "loop"
    os.symlink(tmp_path / "loop2", loop)
    os.symlink(loop, tmp_path / "loop2")
    cases = [
        (["report", str(ref), "--out", "/proc/deepsim-report", "--format", "md"],
         ["key '--out'", "cannot create the folder"]),
        (["run", "--from", str(ref), "--out", str(loop), *RUN],
         ["key '--out'", "symbolic link loop"]),
        (["run", "--from", str(ref), "--out", str(ref), *RUN],
         ["key '--out'", "is the run being re-run"]),   # not "pass --force" first
        (["trace", str(loop), "--game", "0"], [str(loop), "symbolic link loop"]),
        (["run", str(tmp_path / ("x" * 5000))], ["the path is too long"]),
        (["run", "--resume", str(tmp_path / ("x" * 5000))], ["run directory not found"]),
        (["trace", str(tmp_path / ("x" * 5000)), "--game", "0"], ["no such run directory"]),
        (["report", str(tmp_path / ("x" * 5000))], ["run directory not found"]),
    ]
    for args, fragments in cases:
        line = _one_line(cli.invoke(app, args), 2)
        for fragment in fragments:
            assert fragment in line, (args, line)


def test_a_dask_workers_write_failure_is_recognised():
    """A worker's OutputError travels pickled and arrives as the cause of the backend's
    RuntimeError; the runner finds it there (and nothing in an unrelated error)."""
    import pickle

    from deepsim.errors import OutputError

    sent = OutputError("cannot write seats/part-00002.parquet: the disk is full",
                       out_dir="/runs/x")
    got = pickle.loads(pickle.dumps(sent))
    assert (got.message, got.out_dir) == (sent.message, "/runs/x")
    try:
        try:
            raise got
        except OutputError as exc:
            raise RuntimeError("chunk 2 failed on the Dask cluster") from exc
    except RuntimeError as wrapped:
        assert runner._write_failure(wrapped) == sent.message
    try:
        try:
            raise FileNotFoundError(errno.ENOENT, "gone", "/somewhere")
        except OSError:
            raise RuntimeError("unrelated") from None
    except RuntimeError as unrelated:
        assert runner._write_failure(unrelated) is None
