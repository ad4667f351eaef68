"""Moved to :mod:`deepsim.runfolders` (the tools' output folders); kept for one version."""

from deepsim.runfolders import (
    DEFAULT_SWEEPS_ROOT,
    DEFAULT_TUNES_ROOT,
    check_out,
    machine,
    make_out,
    utc_now,
    write_parquet,
)

__all__ = ["DEFAULT_SWEEPS_ROOT", "DEFAULT_TUNES_ROOT", "check_out", "machine", "make_out",
           "utc_now", "write_parquet"]
