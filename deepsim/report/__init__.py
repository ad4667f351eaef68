"""Balance report: a run's parquet turned into the answer a designer came for.

``deepsim report RUN_DIR [RUN_DIR ...]`` (and the end of ``deepsim run``) writes
``RUN_DIR/report/report.md``, a self-contained ``report.html``, ``report.json`` and PNG
plots. Modules: :mod:`~deepsim.report.metrics` (numbers), :mod:`~deepsim.report.verdicts`
(claims and their verdicts), :mod:`~deepsim.report.context` (the runs and settings a report
is computed in), :mod:`~deepsim.report.sections` (the sections every ruleset shares),
:mod:`~deepsim.report.plots` (matplotlib), :mod:`~deepsim.report.fmt` (number formatting),
:mod:`~deepsim.report.render` (markdown, HTML), :mod:`~deepsim.report.build` (assembling,
writing). A ruleset's own sections and claims live in its folder and plug in through its
report hooks (:class:`deepsim.rulesets.base.Ruleset`).
"""

from deepsim.report.build import FORMATS, build_report, parse_formats, report_runs, write_report
from deepsim.report.config import ReportConfig

__all__ = ["FORMATS", "ReportConfig", "build_report", "parse_formats", "report_runs",
           "write_report"]
