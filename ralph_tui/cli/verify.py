"""``ralph-tui verify BUNDLE``: whether an evidence bundle's quotes still stand in their
sources. Exit 0 when every quote holds, 1 when one does not (or was not checked), 2 for bad
input (nothing written)."""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from collections.abc import Sequence

from ralph_tui.api import averify
from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.cli.stopping import run_async
from ralph_tui.evidence import OCR_MARK
from ralph_tui.reports.sources import PATH_FROM_LABELS, SourceCheck
from ralph_tui.reports.verify import (
    QUOTE_STATUS_LABELS,
    ChildQuoteResult,
    QuoteResult,
    VerifyReport,
    load_bundle,
)

PREVIEW_CHARS = 70


def run_verify(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    # Read before the event loop runs: in it, SIGTERM waits for the parse of a large bundle
    # to end (seconds); out of it, SIGTERM and Ctrl-C stop the parse at once.
    loaded = load_bundle(args.bundle)
    report = run_async(
        averify(
            args.bundle,
            loaded=loaded,
            docs=args.doc,
            offline=args.offline,
            trust_paths=args.trust_paths,
            settings=settings,
        )
    )
    if args.json:
        # The same escapes are JSON's own: the object read back is the same.
        print(_escaped(json.dumps(report.model_dump(mode="json"), ensure_ascii=False)))
    else:
        print(report_text(report))
    return int(report.exit_code)


_UNPRINTABLE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters but the line break, and the bidirectional overrides: a bundle from
someone else must not drive the terminal (colours, titles, text shown reversed)."""


def report_text(report: VerifyReport) -> str:
    """The report as a person reads it: the sources, a table of the quotes, the summary;
    whatever the bundle names (sources, paths, its session id) with its control characters
    shown as escapes."""
    return _escaped(_report_lines(report))


def _escaped(text: str) -> str:
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _report_lines(report: VerifyReport) -> str:
    lines = [f"verify {report.bundle} (session {report.session_id})", "", "sources:"]
    lines += [f"  {_source_line(source)}" for source in report.sources] or ["  (none)"]
    lines += [f"  note: {note}" for note in report.notes]
    if report.quotes:
        lines += ["", *_quote_table(report.quotes)]
    if report.child_quotes:
        lines += ["", "quotes of child agents:", *_quote_table(report.child_quotes)]
    lines += ["", report.summary]
    return "\n".join(lines)


def _source_line(source: SourceCheck) -> str:
    if source.status == "read" and source.kind == "page":
        line = f"{source.name}: fetched anew"
    elif source.status == "read":
        used = PATH_FROM_LABELS[source.path_from or "bundle"]
        line = f"{source.name}: read from {source.path} ({used})"
    else:
        state = "missing" if source.status == "missing" else "not checked"
        line = f"{source.name}: {state}: {source.detail}"
    return "; ".join([line, *source.notes])


def _quote_table(quotes: Sequence[QuoteResult]) -> list[str]:
    rows = [("#", "status", "where", "quote")]
    rows += [
        (_number(q), QUOTE_STATUS_LABELS[q.status], _where(q), _preview(q.text)) for q in quotes
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = []
    for row, quote in zip(rows, [None, *quotes], strict=True):
        cells = [row[0].rjust(widths[0]), row[1].ljust(widths[1]), row[2].ljust(widths[2])]
        lines.append("  ".join([*cells, row[3]]).rstrip())
        if quote is not None and quote.status != "holds":
            indent = " " * (widths[0] + 2)
            lines += textwrap.wrap(
                quote.detail, 96, initial_indent=indent, subsequent_indent=indent
            )
            if quote.closest is not None:
                lines.append(f"{indent}now there: {_preview(quote.closest.text, 200)}")
    return lines


def _number(quote: QuoteResult) -> str:
    """``3``, or ``worker/1.2 [3]`` for a child agent's quote."""
    if isinstance(quote, ChildQuoteResult):
        return f"{quote.agent} [{quote.number}]"
    return str(quote.number)


def _where(quote: QuoteResult) -> str:
    source = quote.source or "-"
    mark = f" {OCR_MARK}" if quote.ocr else ""
    if quote.status == "moved" and quote.saved and quote.found:
        return f"{source} {quote.saved.label} -> {quote.found.label}{mark}"
    place = quote.found or quote.saved
    return f"{source} {place.label}{mark}" if place else f"{source}{mark}"


def _preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)
