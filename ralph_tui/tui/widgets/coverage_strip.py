"""How much of the documents the iteration read: one line saying it (and what was searched
for), over a one-line strip whose cells are the documents' pages or sections, each shaded
by the part of it that was read. Hidden until a run reports what it read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widget import Widget

if TYPE_CHECKING:
    from ralph_tui.evidence import Coverage, DocumentCoverage, Span

SHADES = ("·", "░", "▒", "▓", "█")
"""Unread, then read up to a third, two thirds, not all, all of it."""
MIN_CELLS = 8


def shade(share: float) -> str:
    if share <= 0:
        return SHADES[0]
    if share >= 1:
        return SHADES[-1]
    return SHADES[1 + min(2, int(share * 3))]


def units_of(document: DocumentCoverage, parts: int) -> list[Span]:
    """The document's pages or sections, or else ``parts`` equal parts of its text."""
    if document.sections:
        return document.sections
    size = max(1, document.chars)
    parts = max(1, min(parts, size))
    return [(size * n // parts, size * (n + 1) // parts) for n in range(parts)]


def strip_shares(coverage: Coverage, width: int) -> list[float]:
    """The share read of each cell of a strip ``width`` cells wide: a page or section
    spans several cells when there are few, adjacent ones share a cell when they do not fit;
    a document without pages or sections is cut into parts by its length."""
    total = max(1, coverage.total_chars)
    units: list[tuple[int, float]] = []  # (characters, characters read)
    for document in coverage.documents:
        parts = max(1, round(width * document.chars / total))
        spans = units_of(document, parts)
        units += [
            (end - start, share * (end - start))
            for (start, end), share in zip(spans, document.shares(spans), strict=True)
        ]
    if not units or width <= 0:
        return []
    cells = []
    for n in range(width):
        first = len(units) * n // width
        group = units[first : max(first + 1, len(units) * (n + 1) // width)]
        size = sum(s for s, _ in group)
        cells.append(sum(r for _, r in group) / size if size else 0.0)
    return cells


def kind_of(coverage: Coverage) -> str:
    kinds = {document.section_kind for document in coverage.documents}
    if kinds == {"page"}:
        return "pages"
    return "sections" if kinds <= {"section", "page"} else "parts"


class CoverageStrip(Widget):
    """The iteration's coverage: a line saying it, a strip showing where."""

    DEFAULT_CSS = """
    CoverageStrip { height: 2; padding: 0 1; display: none; }
    CoverageStrip.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.coverage: Coverage | None = None
        self.absent = False

    def show(self, coverage: Coverage | None, *, absent: bool = False) -> None:
        """Show ``coverage`` (hide the strip for ``None``); ``absent``: the answer says the
        documents do not hold what was asked, so the line says that first."""
        self.coverage, self.absent = coverage, absent
        self.set_class(coverage is not None, "-shown")
        self.refresh()

    def render(self) -> Content:
        if self.coverage is None:
            return Content("")
        width = max(MIN_CELLS, self.content_size.width)
        line, strip = coverage_lines(self.coverage, width, absent=self.absent)
        return Content("\n").join([line.truncate(width, ellipsis=True), strip])


def coverage_lines(coverage: Coverage, width: int, *, absent: bool = False) -> list[Content]:
    """How much was read, then what was searched for ("Not found:" first for an answer of
    absence; the share first, as a narrow pane cuts the line's end), over the strip by page
    or section ``width`` cells wide."""
    from ralph_tui.evidence import percent

    searched = f"  searched for: {', '.join(coverage.searches)}" if coverage.searches else ""
    line = Content.assemble(
        ("Not found: " if absent else "", "bold $text-warning"),
        (
            f"read {percent(coverage.share)}" if absent else f"Read {percent(coverage.share)}",
            "bold",
        ),
        f" of {coverage.total_chars:,} characters",
        (searched, "" if absent else "$text-muted"),
    )
    kind = kind_of(coverage)
    shares = strip_shares(coverage, width - len(kind) - 1)
    cells = Content("").join(
        Content.styled(shade(s), "$text-accent" if s > 0 else "$text-muted") for s in shares
    )
    strip = Content.assemble(cells, (f" {kind}", "$text-muted"))
    return [line, strip]
