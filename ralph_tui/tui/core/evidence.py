"""Evidence quotes against their document: verified or not, and where they sit in it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph_tui.documents import Corpus
from ralph_tui.evidence import QuoteLocation
from ralph_tui.validate.evidence import EvidenceMinimum, QuoteCheck, check_quote_anywhere
from ralph_tui.validate.locate import (
    QuotableText,
    corpus_texts,
    describe_location,
    locate_quotes,
)

CONTEXT_CHARS = 700
"""Characters of document shown on each side of a quote."""


@dataclass(frozen=True)
class Quote:
    """One evidence quote and whether it is acceptable evidence found in the document."""

    text: str
    verified: bool | None
    """``None`` when the document could not be read, so nothing can be said."""
    reason: str = ""
    """Why the quote is not evidence (empty when verified or unknown)."""
    location: QuoteLocation | None = None
    """Where it stands in its source (``None`` when that is unknown)."""

    @property
    def source(self) -> str:
        """Where it was found, e.g. ``manual.pdf p. 12, chars 5810-5874`` (empty when
        unknown or not found)."""
        if self.location is None or self.location.found == "missing":
            return ""
        return describe_location(self.location)

    @property
    def one_line(self) -> str:
        """The quote as a list shows it: a quote from a PDF may span its lines."""
        return " ".join(self.text.split())


@dataclass(frozen=True)
class QuoteInPlace:
    """A window of the document around a quote: ``before + quote + after``."""

    before: str
    quote: str
    after: str
    line: int
    """The quote's first line number in the document (1-based)."""
    clipped_start: bool
    clipped_end: bool


def evidence_of(output: dict[str, Any] | None) -> list[str]:
    """The evidence quotes of a QA candidate (an empty list for any other shape)."""
    if not output:
        return []
    quotes = output.get("evidence")
    if not isinstance(quotes, list):
        return []
    return [str(quote) for quote in quotes]


def check_quotes(
    quotes: list[str],
    document: str | None,
    minimum: EvidenceMinimum | None = None,
    corpus: Corpus | None = None,
    external: Mapping[str, str] | None = None,
    locations: list[QuoteLocation] | None = None,
) -> list[Quote]:
    """Mark each quote verified if it is acceptable evidence found in ``document`` (or in
    an ``external`` page's cached text, by URL), and say where it stands: ``locations`` as
    the run located them, else located here when ``corpus`` (the documents ``document``
    joins) is known."""
    if locations is None or len(locations) != len(quotes):
        locations = _located(quotes, corpus, external) if corpus is not None else None
    located: list[QuoteLocation | None] = [*locations] if locations else [None] * len(quotes)
    if document is None:
        return [
            Quote(quote, None, location=where) for quote, where in zip(quotes, located, strict=True)
        ]
    minimum = minimum or EvidenceMinimum()
    checks = [check_quote_anywhere(quote, document, external, minimum) for quote in quotes]
    return [
        Quote(check.quote, check.ok, check.describe(minimum), where)
        for check, where in zip(checks, located, strict=True)
    ]


def _located(
    quotes: list[str], corpus: Corpus, external: Mapping[str, str] | None
) -> list[QuoteLocation]:
    pages = [QuotableText(url, text, url=url) for url, text in (external or {}).items()]
    return locate_quotes(quotes, corpus_texts(corpus), pages)


def source_label(check: QuoteCheck, corpus: Corpus | None) -> str:
    if check.url is not None:
        return check.url
    source = corpus.source_of(check.span[0]) if corpus and check.span else None
    return source.label if source else ""


def locate(
    check: QuoteCheck,
    document: str,
    context: int = CONTEXT_CHARS,
    bounds: tuple[int, int] | None = None,
) -> QuoteInPlace | None:
    """An accepted quote's place with ``context`` characters around it, or ``None``.

    ``bounds`` (its document's or page's span in a corpus) keeps the window, and the line
    count, inside the file and page the quote came from.
    """
    if check.span is None:
        return None
    return place_of_span(document, check.span, context, bounds)


def place_of_span(
    document: str,
    span: tuple[int, int] | list[int],
    context: int = CONTEXT_CHARS,
    bounds: tuple[int, int] | None = None,
) -> QuoteInPlace:
    """``document[start:end]`` with ``context`` characters around it, kept inside
    ``bounds`` (its file's or page's span in a corpus) as ``locate`` keeps a quote."""
    start, end = span
    low, high = bounds or (0, len(document))
    window_start = max(low, start - context)
    window_end = min(high, end + context)
    return QuoteInPlace(
        before=document[window_start:start],
        quote=document[start:end],
        after=document[end:window_end],
        line=document.count("\n", low, start) + 1,
        clipped_start=window_start > low,
        clipped_end=window_end < high,
    )
