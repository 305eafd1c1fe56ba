"""``ralph-tui report``: its arguments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ralph_tui.cli.settings_flags import add_settings_flags
from ralph_tui.reports.formats import REPORT_FORMATS


def add_report_arguments(report: argparse.ArgumentParser) -> None:
    report.description = (
        "Write a session's report: the question, the answer line by line with "
        "its verdicts, each quote in its passage (PDF pages as pictures), the checks, the "
        "iterations, what was read, models, usage and cost."
    )
    report.add_argument("session_id", metavar="SESSION", help="a session id or a unique end of one")
    report.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        help="html, md or json (default: the -o file's extension; md on stdout)",
    )
    report.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write here instead of stdout"
    )
    add_settings_flags(report, (), also=("out_dir",))
    report.add_argument(
        "--json",
        action="store_true",
        help="without -o: print the JSON evidence bundle; with -o: say what was written as JSON",
    )
