"""Balance report: a run's parquet turned into the answer a designer came for.

``deepsim report RUN_DIR [RUN_DIR ...]`` (and the end of ``deepsim run``) writes
``RUN_DIR/report/report.md``, a self-contained ``report.html``, ``report.json`` and PNG
plots. Modules: :mod:`~deepsim.report.metrics` (numbers), :mod:`~deepsim.report.claims`
(the rulebook's claims B1-B8 and their verdicts), :mod:`~deepsim.report.plots`
(matplotlib), :mod:`~deepsim.report.render` (markdown, HTML), :mod:`~deepsim.report.build`
(sections, writing), :mod:`deepsim.rulesets.deepfall.findings` (``reports/FINDINGS.md``).
"""

from deepsim.report.build import FORMATS, build_report, parse_formats, report_runs, write_report
from deepsim.report.config import ReportConfig

__all__ = ["FORMATS", "ReportConfig", "build_report", "parse_formats", "report_runs",
           "write_report"]
