"""The formats a report is written in, and the file extensions that name them (light: the
command line's argument setup reads them)."""

from __future__ import annotations

from typing import Final, Literal, get_args

ReportFormat = Literal["html", "md", "json"]
REPORT_FORMATS: Final[tuple[ReportFormat, ...]] = get_args(ReportFormat)

FORMAT_OF_SUFFIX: Final[dict[str, ReportFormat]] = {
    ".html": "html",
    ".htm": "html",
    ".md": "md",
    ".markdown": "md",
    ".json": "json",
}
