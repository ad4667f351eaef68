"""What a report is made of, independent of its output format."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from deepsim.report.config import ReportConfig
from deepsim.report.load import RunData
from deepsim.report.verdicts import ClaimResult

__all__ = ["Figure", "Report", "Section", "Table"]


@dataclass
class Table:
    """A table to print: ``frame`` holds display strings; ``caption`` goes above it."""

    caption: str
    frame: pd.DataFrame
    note: str = ""


@dataclass
class Figure:
    """A PNG plot: ``name`` is its file name beside the report."""

    name: str
    png: bytes
    caption: str


@dataclass
class Section:
    """One section: paragraphs (light markdown: `code`, **bold**), tables and figures.

    ``missing`` says why the section could not be computed (a column the run lacks).
    """

    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    missing: str | None = None


@dataclass
class Report:
    """A whole report: the runs it read, its sections and the claims' results.

    ``header``: the bullet lines under the title when the report is not about one run
    directory (e.g. a skill ladder's report, :mod:`deepsim.ladder.report`); ``None``: the
    runs' lines (:func:`deepsim.report.render.run_lines`), and ``primary`` is required.
    """

    title: str
    primary: RunData | None
    others: list[RunData]
    config: ReportConfig
    sections: list[Section]
    claims: list[ClaimResult]
    roles: list[str] = field(default_factory=list)  # what each of ``others`` was used for
    created_utc: str = ""
    elapsed_s: float = 0.0
    header: list[str] | None = None

    @property
    def figures(self) -> list[Figure]:
        return [f for s in self.sections for f in s.figures]
