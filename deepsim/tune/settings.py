"""What ``deepsim sweep`` and ``deepsim tune`` share: how the games of every point are
played and where the results go (their flags ``--games``, ``--seed``, ``--set``,
``--chunk-size``, ``--threads``, ``--alpha``, ``--target-rounds``, ``--out``, ``--force``,
``--no-plots``), one object instead of a dozen arguments."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """How a sweep or a tune plays and writes.

    Attributes
    ----------
    games, seed, chunk_size : int or None
        Replace the scenario's values (None: the scenario's).
    sets : tuple of str
        ``path=value`` overrides applied at every point.
    threads : int or None
        numba threads (None: all cores); never changes results.
    alpha : float
        Interval level (1 - confidence).
    target_rounds : float or None
        The target of ``length_error`` in rounds (None: the ruleset's ``target_rounds``).
    out : Path or None
        Output folder (None: a new folder under ``root``); an existing one needs ``force``.
    force : bool
        Replace the command's files in an existing ``out``.
    make_plots : bool
        Write the PNG plots.
    root : Path or None
        Where a new folder goes (None: the command's default, ``reports/sweeps`` or
        ``reports/tunes``).
    """

    games: int | None = None
    seed: int | None = None
    sets: tuple[str, ...] = ()
    chunk_size: int | None = None
    threads: int | None = None
    alpha: float = 0.05
    target_rounds: float | None = None
    out: Path | str | None = None
    force: bool = False
    make_plots: bool = True
    root: Path | str | None = None
