"""Balance report kit: what a ruleset's report sections and claims are made of.

Modules: :mod:`~deepsim.report.metrics` (numbers), :mod:`~deepsim.report.verdicts` (claims
and their verdicts), :mod:`~deepsim.report.context` (the runs and settings a report is
computed in), :mod:`~deepsim.report.load` (a run read for the report),
:mod:`~deepsim.report.sections` (the sections every ruleset shares),
:mod:`~deepsim.report.plots` (matplotlib), :mod:`~deepsim.report.fmt` (number formatting),
:mod:`~deepsim.report.render` (markdown, HTML), :mod:`~deepsim.report.build` (assembling,
writing). A ruleset's own sections and claims live in its folder and plug in through its
report hooks (:class:`deepsim.rulesets.base.Ruleset`). The kit never asks the registry:
``deepsim report RUN_DIR [RUN_DIR ...]`` (:func:`deepsim.reporting.report_runs`) looks up
each run's ruleset and writes ``RUN_DIR/report/report.md``, ``report.html``,
``report.json`` and PNG plots.

Importing this package loads nothing else: the names below are read on first use.
"""

from __future__ import annotations

import importlib
import warnings

__all__ = ["FORMATS", "ReportConfig", "ReportOption", "build_report", "parse_formats",
           "write_report"]

#: names that asked the registry, moved to :mod:`deepsim.reporting` (the old names work,
#: with a DeprecationWarning, in deepsim 0.1)
MOVED = ("report_runs", "run_ruleset", "run_ruleset_of")

_WHERE = {"FORMATS": "build", "build_report": "build", "parse_formats": "build",
          "write_report": "build", "ReportConfig": "config", "ReportOption": "config"}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"deepsim.report.{_WHERE[name]}"), name)
    if name in MOVED:
        warnings.warn(f"deepsim.report.{name} moved to deepsim.reporting.{name} (the report "
                      f"kit never asks the registry); the old name goes in deepsim 0.2",
                      DeprecationWarning, stacklevel=2)
        import deepsim.reporting
        return getattr(deepsim.reporting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
