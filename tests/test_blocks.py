"""deepsim.blocks: a chunk's rows in blocks on several threads, each row played once."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from deepsim.blocks import MIN_BLOCK, block_bounds, run_blocks


@pytest.mark.parametrize("count", [0, 1, 63, 64, 1000, 10_001])
@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_blocks_cover_every_row_once_in_order(count, threads):
    bounds = block_bounds(count, threads)
    rows = [r for lo, hi in bounds for r in range(lo, hi)]
    assert rows == list(range(count))
    assert all(hi > lo for lo, hi in bounds)
    if threads == 1:
        assert len(bounds) <= 1
    else:
        assert all(hi - lo >= MIN_BLOCK for lo, hi in bounds[:-1])


def test_run_blocks_plays_each_row_once_on_several_threads():
    out = np.zeros(5000, np.int64)
    names = set()
    bounds = block_bounds(5000, 3)
    # the first two blocks wait for each other: they only both pass if two threads run
    # them at once (one thread playing both in turn would break the barrier)
    meet = threading.Barrier(2, timeout=60)
    first_two = {bounds[0][0], bounds[1][0]}

    def play(lo, hi):
        if lo in first_two:
            meet.wait()
        names.add(threading.current_thread().name)
        out[lo:hi] += np.arange(lo, hi)

    run_blocks(play, 5000, threads=3)
    assert (out == np.arange(5000)).all()
    assert len(names) >= 2 and all(n.startswith("deepsim-block") for n in names)


def test_run_blocks_raises_a_blocks_error():
    def play(lo, hi):
        if lo > 0:
            raise ValueError("bad block")

    with pytest.raises(ValueError, match="bad block"):
        run_blocks(play, 2000, threads=2)
