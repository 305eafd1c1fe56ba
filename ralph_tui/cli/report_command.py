"""``ralph-tui report SESSION``: a session's answer and its evidence as a file to share
(HTML, Markdown, or the JSON evidence bundle).

With ``-o FILE`` the format is the file's extension unless ``--format`` says otherwise, the
report is written at once (temp file and rename) and one line says what was written. Without
``-o`` the report goes to stdout, in Markdown unless ``--format`` (or ``--json``) says
otherwise. Bad input is one line and exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.config import Settings
from ralph_tui.documents import InputError
from ralph_tui.reports.render import (
    ReportFormat,
    format_of_path,
    session_report,
    write_report,
)
from ralph_tui.traces.store import TraceStore

STDOUT_FORMAT: ReportFormat = "md"
"""What ``report`` prints when given no file and no format: Markdown reads in a terminal."""


def run_report(args: argparse.Namespace) -> int:
    output: Path | None = args.output
    if output is not None:
        check_output(output)
    fmt = report_format(args)
    settings = settings_from_args(args)
    text = render_session(settings, args.session_id, fmt)
    if output is None:
        print(text, end="")
        return 0
    write_report(output, text)
    size = len(text.encode("utf-8"))
    if args.json:
        print(json.dumps({"path": str(output), "format": fmt, "bytes": size}))
    else:
        print(f"wrote the {fmt} report of {args.session_id} to {output} ({size / 1024:,.0f} KB)")
    return 0


def render_session(settings: Settings, session_text: str, fmt: ReportFormat) -> str:
    store = TraceStore(settings.out_dir)
    try:
        return session_report(store, session_text, settings, fmt)
    finally:
        store.close()


def report_format(args: argparse.Namespace) -> ReportFormat:
    """The format asked for: ``--format``, else the file's extension, else on stdout JSON
    with ``--json`` and Markdown without."""
    if args.output is None and args.json:
        if args.format not in (None, "json"):
            raise InputError(
                f"--json prints the JSON bundle: drop --format {args.format} or give -o"
            )
        return "json"
    if args.format is not None:
        fmt: ReportFormat = args.format
        return fmt
    return format_of_path(args.output) if args.output is not None else STDOUT_FORMAT


def check_output(path: Path) -> None:
    """``InputError`` unless ``path`` can take a report: its folder exists, it is no folder."""
    if path.is_dir():
        raise InputError(f"{path} is a folder: give the report's file name")
    if not path.parent.is_dir():
        raise InputError(f"no folder {path.parent} to write {path.name} in")
