"""Where each evidence quote stands in its source: which document (or external page), which
page, and its character span in that document's own text and in its page.

One function, ``locate_quotes``, decides it for every front end: the iteration traces, the
run's outcome, ``--json``, the API, the app and ``sessions show`` all read what it gives.
A quote is looked for verbatim in each source first, then as a near miss (differing only in
quote marks, dashes or white space, as ``normalize`` compares), documents before external
pages, so it is located where the hard checks found it.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ralph_tui.documents import Corpus
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.evidence import Found, QuoteLocation
from ralph_tui.validate.normalize import find_near_miss


@dataclass(frozen=True)
class QuotableText:
    """A text quotes are located in: a document of the run, or a fetched external page."""

    name: str
    """The document's name in the run, or the page's URL."""
    text: str
    pages: list[str] | None = None
    """Its pages, for a PDF (``text`` is them joined by ``PAGE_SEPARATOR``)."""
    url: str | None = None
    fetched_at: float | None = None
    ocr_pages: frozenset[int] = frozenset()
    """Its pages whose text OCR read (every page of an image file)."""

    def page_starts(self) -> list[int]:
        """Where each page starts in ``text``."""
        lengths = [len(page) + len(PAGE_SEPARATOR) for page in self.pages or []]
        return [0, *accumulate(lengths)][: len(lengths)]


def corpus_texts(corpus: Corpus) -> list[QuotableText]:
    """The run's documents as texts to locate quotes in, in corpus order."""
    return [
        QuotableText(doc.name, doc.text, doc.pages, ocr_pages=frozenset(doc.ocr_pages))
        for doc in corpus.documents
    ]


Finder = Callable[[str, str], tuple[int, int] | None]


def _exact(text: str, quote: str) -> tuple[int, int] | None:
    start = text.find(quote)
    return (start, start + len(quote)) if start >= 0 else None


FINDERS: tuple[tuple[Found, Finder], ...] = (("exact", _exact), ("near", find_near_miss))
"""How a quote is looked for, in order: verbatim, then as a near miss."""


def locate_quotes(
    quotes: Sequence[str],
    documents: Sequence[QuotableText],
    external: Sequence[QuotableText] = (),
) -> list[QuoteLocation]:
    """Each quote's location (numbered from 1, in order), ``missing`` when found nowhere."""
    return [locate_quote(n, str(quote), documents, external) for n, quote in enumerate(quotes, 1)]


def locate_quote(
    number: int,
    quote: str,
    documents: Sequence[QuotableText],
    external: Sequence[QuotableText] = (),
) -> QuoteLocation:
    """Where ``quote`` stands: the first source holding it exactly (documents, then external
    pages), else the first holding it as a near miss."""
    if quote.strip():
        for found, finder in FINDERS:
            for source in (*documents, *external):
                span = finder(source.text, quote)
                if span is not None:
                    return _location(number, quote, found, source, span)
    return QuoteLocation(number=number, text=quote, found="missing")


def _location(
    number: int, quote: str, found: Found, source: QuotableText, span: tuple[int, int]
) -> QuoteLocation:
    """The location of ``span`` of ``source``; the page span only when the quote stays on
    one page (one crossing a page break has its first page and no page span)."""
    start, end = span
    page = page_start = page_end = None
    if source.pages:
        starts = source.page_starts()
        index = bisect_right(starts, start) - 1
        page = index + 1
        if end - starts[index] <= len(source.pages[index]):
            page_start, page_end = start - starts[index], end - starts[index]
    return QuoteLocation(
        number=number,
        text=quote,
        found=found,
        source=source.name,
        start=start,
        end=end,
        page=page,
        page_start=page_start,
        page_end=page_end,
        url=source.url,
        fetched_at=source.fetched_at,
        ocr=page in source.ocr_pages,
    )


def describe_location(location: QuoteLocation) -> str:
    """Where a quote stands, in words: ``manual.pdf p. 2, chars 7-64`` (the span in the
    place named: the page, else the document's own text), with ``near match`` or the page's
    fetch time where they apply; ``not found`` for a quote found nowhere; no span for an
    older trace's quote."""
    parts = [location.label]
    if location.page_start is not None and location.page_end is not None:
        parts.append(f"chars {location.page_start}-{location.page_end}")
    elif location.page is None and location.start is not None and location.end is not None:
        parts.append(f"chars {location.start}-{location.end}")
    if location.found == "near":
        parts.append("near match")
    if location.fetched_at is not None:
        fetched = time.strftime("%Y-%m-%d %H:%M", time.localtime(location.fetched_at))
        parts.append(f"fetched {fetched}")
    return ", ".join(parts)
