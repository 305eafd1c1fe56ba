"""Evidence quotes against their document: verified or not, and where they sit in it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONTEXT_CHARS = 700
"""Characters of document shown on each side of a quote."""


@dataclass(frozen=True)
class Quote:
    """One evidence quote and whether it is a verbatim substring of the document."""

    text: str
    verified: bool | None
    """``None`` when the document could not be read, so nothing can be said."""


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


def check_quotes(quotes: list[str], document: str | None) -> list[Quote]:
    """Mark each quote verified if it appears in ``document`` character for character."""
    return [Quote(q, None if document is None else (bool(q) and q in document)) for q in quotes]


def locate(quote: str, document: str, context: int = CONTEXT_CHARS) -> QuoteInPlace | None:
    """The quote's first occurrence with ``context`` characters around it, or ``None``."""
    start = document.find(quote) if quote else -1
    if start < 0:
        return None
    end = start + len(quote)
    window_start = max(0, start - context)
    window_end = min(len(document), end + context)
    return QuoteInPlace(
        before=document[window_start:start],
        quote=quote,
        after=document[end:window_end],
        line=document.count("\n", 0, start) + 1,
        clipped_start=window_start > 0,
        clipped_end=window_end < len(document),
    )
