"""Play a chunk's games on several threads, block by block (the kernels release the GIL).

A ruleset's kernel exposes a serial numba function that plays the games of rows
``lo .. hi-1`` of a chunk into output tables allocated once for the chunk, compiled with
``nogil=True``; :func:`run_blocks` cuts the chunk into blocks and plays them on
``numba.get_num_threads()`` Python threads (what ``deepsim run --threads`` sets), each
thread taking the next block when it is done. Every game depends only on (seed, game
index) and writes only its own row, so the results do not depend on the thread count or
the blocks.

numba's ``parallel=True`` with ``prange`` did this before, but its outlined loop body and
the function around it each link and optimise the whole game kernel again: DEEPFALL's
cold compile took 10 s (CPU) longer for the same games per second
(``docs/performance.md``, "Compile time").
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

#: blocks per thread: enough that threads finish together when games differ in length
BLOCKS_PER_THREAD = 16
#: fewest games in a block (each block allocates its game state once)
MIN_BLOCK = 64


def block_bounds(count: int, threads: int) -> list[tuple[int, int]]:
    """``(lo, hi)`` row ranges covering ``0 .. count-1`` in order: one range for one
    thread, else blocks of ``max(MIN_BLOCK, count / (threads * BLOCKS_PER_THREAD))``."""
    if count <= 0:
        return []
    if threads <= 1:
        return [(0, count)]
    size = max(MIN_BLOCK, -(-count // (threads * BLOCKS_PER_THREAD)))
    return [(lo, min(lo + size, count)) for lo in range(0, count, size)]


def run_blocks(play: Callable[[int, int], object], count: int,
               threads: int | None = None) -> None:
    """Call ``play(lo, hi)`` for the blocks of rows ``0 .. count-1`` on ``threads`` threads.

    Parameters
    ----------
    play : callable(lo, hi)
        Plays rows ``lo .. hi-1`` (a numba function compiled with ``nogil=True``, or the
        threads take turns).
    count : int
        Rows (games) in the chunk, >= 0.
    threads : int, optional
        Default ``numba.get_num_threads()``.

    Raises
    ------
    Exception
        The first exception a block raised; the blocks not yet started are cancelled.
    KeyboardInterrupt
        Ctrl-C: blocks not yet started are cancelled, running ones finish.
    """
    if threads is None:
        import numba

        threads = int(numba.get_num_threads())
    bounds = block_bounds(count, threads)
    if len(bounds) <= 1:
        for lo, hi in bounds:
            play(lo, hi)
        return
    pool = ThreadPoolExecutor(max_workers=min(threads, len(bounds)),
                              thread_name_prefix="deepsim-block")
    try:
        futures = [pool.submit(play, lo, hi) for lo, hi in bounds]
        for f in futures:
            f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
