"""Reports of run directories: each run's ruleset looked up in the registry and handed to
the report kit (:mod:`deepsim.report`), which never asks the registry itself.

``deepsim report RUN_DIR [RUN_DIR ...]`` calls :func:`report_runs`; tools that read a run
for its report numbers call :func:`load_run`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from deepsim import rulesets
from deepsim.errors import InputError
from deepsim.output import read_manifest
from deepsim.report import load
from deepsim.report.build import FORMATS, REPORT_DIR, build_report, write_report
from deepsim.report.config import ReportConfig
from deepsim.report.load import RunData
from deepsim.report.model import Report

__all__ = ["load_run", "report_runs", "ruleset_of", "run_ruleset", "run_ruleset_of"]


def run_ruleset(name: str | None, where: str = ""):
    """The installed ruleset a run was made with (:func:`deepsim.rulesets.get`).

    Raises
    ------
    InputError
        The ruleset is not installed here (or is odds-only: it makes no runs).
    """
    try:
        rs = rulesets.get(str(name or ""))
    except InputError as exc:
        raise InputError(f"the run's ruleset cannot be loaded: {exc.message}",
                         file=where or None) from None
    if not rs.plays:
        raise InputError(f"ruleset '{rs.name}' is odds-only: it makes no runs",
                         file=where or None)
    return rs


def ruleset_of(run_dir: Path | str):
    """The ruleset of a run directory, from its manifest (before loading its tables).

    Raises
    ------
    InputError
        Not a run directory, or its ruleset is not installed.
    """
    if not os.path.isdir(run_dir):  # os.path: never raises (a too long name)
        raise InputError("run directory not found", file=str(run_dir))
    manifest = read_manifest(Path(run_dir))
    if not manifest.get("ruleset") and (Path(run_dir) / "run.json").is_file():
        from deepsim.output import read_run_json
        return run_ruleset(read_run_json(Path(run_dir)).get("ruleset"), str(run_dir))
    return run_ruleset(manifest.get("ruleset"), str(run_dir))


#: the name it had in ``deepsim.report.build``
run_ruleset_of = ruleset_of


def load_run(run_dir: Path | str) -> RunData:
    """A run directory read for the report (:func:`deepsim.report.load.load_run`) with the
    ruleset its manifest names.

    Raises
    ------
    InputError
        Not a run directory, a run of a ruleset not installed here, or a part that fails
        the manifest checks of :func:`deepsim.output.read_run`.
    """
    return load.load_run(run_dir, ruleset_of(run_dir))


def report_runs(run_dirs: Sequence[Path | str], *, out_dir: Path | str | None = None,
                formats: Sequence[str] = FORMATS, options: list[str] | None = None
                ) -> tuple[Report, list[Path]]:
    """Load ``run_dirs``, build the report and write it (default ``RUN_DIR/report/`` of the
    first run).

    Raises
    ------
    InputError
        A directory that is not a readable run, a bad option or format.
    """
    if not run_dirs:
        raise InputError("no run directory given")
    rs = ruleset_of(run_dirs[0])
    config = ReportConfig.for_ruleset(rs.report_options).with_options(options)
    runs = [load_run(d) for d in run_dirs]
    report = build_report(runs, config)
    target = Path(out_dir) if out_dir is not None else runs[0].path / REPORT_DIR
    return report, write_report(report, target, formats)
