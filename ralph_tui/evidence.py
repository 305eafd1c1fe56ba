"""The evidence a run gives, as data: where each quote stands in its source, which quotes
back which answer line and how the judge found it, and how much of the documents was read.

Events carry these, iteration traces keep them, and reports, ``verify`` and every front end
read them; they are declared here once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, get_args

from pydantic import BaseModel, Field, computed_field

Verdict = Literal["supported", "partly_supported", "unsupported"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
"""The judge's verdict on one answer line, best first."""

VERDICT_LABELS: dict[Verdict, str] = {
    "supported": "supported",
    "partly_supported": "partly supported",
    "unsupported": "unsupported",
}

Found = Literal["exact", "near", "missing"]
"""How a quote was found in its source: character for character, as a near miss (it
differs only in quote marks, dashes or white space), or not at all."""

OCR_MARK = "(OCR)"
"""After the label of a place whose text OCR read: ``scan.pdf p. 3 (OCR)``."""

Span = tuple[int, int]
"""``[start, end)`` character offsets."""

SectionKind = Literal["page", "section"]
"""What a document's coverage strip is cut by: PDF pages, or the parts under its headings."""


def page_label(page: int | None, pages: Sequence[int] = ()) -> str:
    """How a person names a passage's page: ``p. 53``, or ``p. 53–54`` when ``pages`` (every
    page it spans) runs over a page break; empty without a page."""
    if not page:
        return ""
    if len(pages) > 1 and pages[0] != pages[-1]:
        return f"p. {pages[0]}\u2013{pages[-1]}"
    return f"p. {page}"


class QuoteLocation(BaseModel):
    """Where one evidence quote stands in its source."""

    number: int
    """1-based, in the candidate's evidence list."""
    text: str
    found: Found
    source: str | None = None
    """The document's name in the run (``manual.pdf``; ``docs/a.md`` in a folder), or the
    external page's URL; ``None`` when the quote was found nowhere."""
    start: int | None = None
    """Span in the document's own text (not the run's joined text)."""
    end: int | None = None
    page: int | None = None
    """1-based page, for a document with pages (PDF)."""
    page_start: int | None = None
    """Span in its page's text."""
    page_end: int | None = None
    url: str | None = None
    """An external page's URL."""
    fetched_at: float | None = None
    """When that page was fetched (seconds since the epoch)."""
    ocr: bool = False
    """Whether the text it was found in was read by OCR (a scanned page, an image file):
    it stands in the source as the OCR engine read it, which may differ from the page."""

    @property
    def label(self) -> str:
        """``manual.pdf p. 12``, ``scan.pdf p. 3 (OCR)``, ``notes.md``, a URL, or
        ``not found``."""
        if self.source is None:
            return "not found"
        where = f"{self.source} p. {self.page}" if self.page else self.source
        return f"{where} {OCR_MARK}" if self.ocr else where


class Claim(BaseModel):
    """One answer line, the quotes that back it, and the judge's verdict on it."""

    line: int
    """1-based, among the answer's lines."""
    text: str
    quotes: list[int] = Field(default_factory=list)
    """1-based numbers of the evidence quotes that support it."""
    verdict: Verdict | None = None
    """``None`` until judged."""
    missing: str = ""
    """For a line partly supported or unsupported: what the quotes do not show."""


PASSAGE_MARKER = re.compile(r"\[P(\d+)\]")
"""How a task's brief and output cite the brief's passages: ``[P3]`` is the third."""


def passage_marker(number: int) -> str:
    """The marker of the ``number``-th passage of a brief: ``[P3]``."""
    return f"[P{number}]"


class DocumentCoverage(BaseModel):
    """Which spans of one document the agent looked at."""

    document: str
    chars: int
    """The document's length, in characters."""
    spans: list[Span] = Field(default_factory=list)
    """Sorted, merged spans of the document's own text that were read."""
    sections: list[Span] = Field(default_factory=list)
    """Where each page (a PDF) or section (under a heading) stands in the document's own
    text, for a strip by page or section; empty when it has neither."""
    section_kind: SectionKind | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def read_chars(self) -> int:
        return sum(end - start for start, end in self.spans)

    def shares(self, parts: list[Span]) -> list[float]:
        """The part of each of ``parts`` (spans of the document's text) that was read."""
        return [
            sum(max(0, min(end, e) - max(start, s)) for s, e in self.spans) / (end - start)
            if end > start
            else 0.0
            for start, end in parts
        ]


class Coverage(BaseModel):
    """What one iteration read of the documents, and the searches it made over them."""

    documents: list[DocumentCoverage] = Field(default_factory=list)
    searches: list[str] = Field(default_factory=list)
    """What was searched for across the whole text (patterns, words, retrieval queries)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def read_chars(self) -> int:
        return sum(document.read_chars for document in self.documents)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_chars(self) -> int:
        return sum(document.chars for document in self.documents)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def share(self) -> float:
        """The part of the text read, from 0 to 1."""
        return self.read_chars / self.total_chars if self.total_chars else 0.0

    def describe(self) -> str:
        """``searched the whole text for: saffron, simmer; read 4 % of it`` (the searches
        part only when there were some), for a person judging an answer of absence."""
        read = f"read {percent(self.share)} of it"
        if not self.searches:
            return f"searched nothing; {read}"
        named = ", ".join(self.searches[:SEARCHES_NAMED])
        more = len(self.searches) - SEARCHES_NAMED
        if more > 0:
            named += f" and {more} more"
        return f"searched the whole text for: {named}; {read}"


SEARCHES_NAMED = 12
"""Searches a one-line description names (the rest it counts)."""


def percent(share: float) -> str:
    """A share as a person reads it: ``4 %``, ``under 1 %`` (never ``0 %`` for some)."""
    if 0 < share < 0.01:
        return "under 1 %"
    return f"{round(share * 100)} %"


ABSENCE_PHRASES = (
    "not in the document",
    "does not address",
    "doesn't address",
    "does not mention",
    "doesn't mention",
    "not mentioned",
    "does not say",
    "doesn't say",
    "does not contain",
    "no information",
)
"""What an answer of absence says (the offline baseline: "The document does not address
this question; it lacks: ...")."""


def answers_absence(output: dict[str, object] | None) -> bool:
    """Whether a QA answer says the documents do not hold what was asked: it quotes nothing,
    or it says so in words."""
    if not output or not isinstance(output.get("answer"), str):
        return False
    answer = str(output["answer"]).lower()
    if not output.get("evidence"):
        return bool(answer.strip())
    return any(phrase in answer for phrase in ABSENCE_PHRASES)


def merge_spans(spans: list[Span]) -> list[Span]:
    """``spans`` sorted, with overlapping and touching ones joined, empty ones dropped."""
    merged: list[Span] = []
    for start, end in sorted(span for span in spans if span[1] > span[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
