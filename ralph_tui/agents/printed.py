"""What a sandbox cell's output showed of the document, however the code got the text:
the output's lines found verbatim in it.

The child notes the slices a cell takes of ``context``; text that reaches the output another
way (lines of ``context.split(...)``, sentences a search picked, JSON strings of them) is
found here. A line shorter than ``MIN_LINE_CHARS`` is left out (it could stand anywhere),
and the search stops once ``SCAN_BUDGET_CHARS`` of text were scanned, so a cell over a
very large document costs the host a bounded time.
"""

from __future__ import annotations

import json

from ralph_tui.evidence import Span

MIN_LINE_CHARS = 40
SCAN_BUDGET_CHARS = 100_000_000
"""About 0.1 s of ``str.find`` here."""


def printed_lines(output: str) -> list[str]:
    """The output's lines long enough to place, each once; a JSON string line decoded."""
    lines: dict[str, None] = {}
    for raw in output.splitlines():
        line = raw.strip()
        if line.startswith('"') and line.endswith('"'):
            try:
                decoded = json.loads(line)
            except ValueError:
                decoded = None
            line = decoded.strip() if isinstance(decoded, str) else line
        if len(line) >= MIN_LINE_CHARS:
            lines.setdefault(line, None)
    return list(lines)


def printed_spans(document: str, output: str, known: list[Span] | None = None) -> list[Span]:
    """Where the output's lines stand in ``document`` (the first place each does); a line
    inside one of the ``known`` spans is placed there without scanning the document."""
    spans: list[Span] = []
    budget = SCAN_BUDGET_CHARS
    for line in printed_lines(output):
        at = next(
            (
                start + found
                for start, end in known or []
                if (found := document[start:end].find(line)) >= 0
            ),
            -1,
        )
        if at < 0:
            if budget < len(document):
                break
            budget -= len(document)
            at = document.find(line)
        if at >= 0:
            spans.append((at, at + len(line)))
    return spans
