"""The runner writes chunk k on a writer thread while chunk k+1 plays
(``runner._play_overlapped``): overlap, order, and what a failure or Ctrl-C keeps."""

from __future__ import annotations

import threading

import pytest

from deepsim import runner
from deepsim.errors import OutputError

WAIT = 10.0  # s: generous; a test only waits this long when it is about to fail


class FakeRuleset:
    def __init__(self, fail_at: int | None = None, exc: BaseException | None = None):
        self.started: list[int] = []
        self.fail_at, self.exc = fail_at, exc
        self.playing = {k: threading.Event() for k in range(8)}

    def run_chunk(self, prepared, start, count):
        index = start // count
        self.started.append(index)
        self.playing[index].set()
        if index == self.fail_at:
            raise self.exc
        return f"games{index}", f"seats{index}"


class FakeWriter:
    def __init__(self, rs: FakeRuleset, fail_at: int | None = None):
        self.rs, self.fail_at = rs, fail_at
        self.listed: list[int] = []
        self.threads: set[str] = set()

    def write_chunk(self, index, start, count, games, seats):
        self.threads.add(threading.current_thread().name)
        assert (games, seats) == (f"games{index}", f"seats{index}")
        # chunk k is still being written when chunk k+1 starts playing
        if index + 1 in self.rs.playing and index + 1 < 4:
            assert self.rs.playing[index + 1].wait(WAIT), "no overlap"
        if index == self.fail_at:
            raise OutputError("cannot write games/part-00001.parquet: disk full")
        self.listed.append(index)


TODO = [(k, k * 10, 10) for k in range(4)]


def test_each_chunk_is_written_on_the_writer_thread_while_the_next_plays():
    rs = FakeRuleset()
    w = FakeWriter(rs)
    wrote: list[int] = []
    runner._play_overlapped(rs, None, w, TODO, wrote.append)
    assert w.listed == [0, 1, 2, 3] and rs.started == [0, 1, 2, 3]
    assert wrote == [10, 10, 10, 10]
    assert w.threads and all(t.startswith("deepsim-writer") for t in w.threads)


def test_ctrl_c_while_the_next_chunk_plays_keeps_the_chunk_being_written():
    rs = FakeRuleset(fail_at=2, exc=KeyboardInterrupt())
    w = FakeWriter(rs)
    wrote: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        runner._play_overlapped(rs, None, w, TODO, wrote.append)
    assert w.listed == [0, 1] and wrote == [10, 10]


def test_a_failed_write_stops_the_run_and_no_later_chunk_is_written():
    rs = FakeRuleset()
    w = FakeWriter(rs, fail_at=1)
    wrote: list[int] = []
    with pytest.raises(OutputError, match="disk full"):
        runner._play_overlapped(rs, None, w, TODO, wrote.append)
    assert w.listed == [0] and wrote == [10]
    assert 3 not in rs.started            # the failure surfaced before chunk 3 played
