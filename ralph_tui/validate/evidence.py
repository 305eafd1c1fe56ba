"""Whether one quote is acceptable evidence: long enough to mean something, and in the document.

``check_quote`` is the single place this is decided; the QA hard checks, the TUI's verified
marks and the offline baseline all ask it. A quote such as ``"1"`` or ``" "`` is a substring of
almost any document, so it proves nothing: a quote needs a minimum of characters and of words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ralph_tui.config import Settings
from ralph_tui.words import word_count

Problem = Literal["empty", "too_short", "not_found"]


@dataclass(frozen=True)
class EvidenceMinimum:
    """The least a quote must hold to count as evidence (the defaults are the settings')."""

    chars: int = Settings.model_fields["evidence_min_chars"].default
    words: int = Settings.model_fields["evidence_min_words"].default

    @classmethod
    def of(cls, settings: Settings) -> EvidenceMinimum:
        return cls(chars=settings.evidence_min_chars, words=settings.evidence_min_words)


@dataclass(frozen=True)
class QuoteCheck:
    """The verdict on one quote: acceptable evidence, or the first problem found."""

    quote: str
    problem: Problem | None
    span: tuple[int, int] | None = None
    """Where the quote sits in the document (``document[start:end] == quote``), when found."""
    url: str | None = None
    """The external page the quote was found in instead (``span`` is then in its text)."""

    @property
    def ok(self) -> bool:
        return self.problem is None

    def describe(self, minimum: EvidenceMinimum) -> str:
        """Why the quote is not evidence, as words for a user or a model ("" when it is)."""
        if self.problem == "empty":
            return "is empty"
        if self.problem == "too_short":
            return (
                f"is too short to be evidence (at least {minimum.chars} characters"
                f" and {minimum.words} words)"
            )
        if self.problem == "not_found":
            return "is not in the document"
        return ""


def check_quote(quote: str, document: str, minimum: EvidenceMinimum | None = None) -> QuoteCheck:
    """Whether ``quote`` is acceptable evidence found verbatim in ``document``, and where."""
    minimum = minimum or EvidenceMinimum()
    if not quote.strip():
        return QuoteCheck(quote, "empty")
    if len(quote.strip()) < minimum.chars or word_count(quote) < minimum.words:
        return QuoteCheck(quote, "too_short")
    start = document.find(quote)
    if start < 0:
        return QuoteCheck(quote, "not_found")
    return QuoteCheck(quote, None, (start, start + len(quote)))


def check_quote_anywhere(
    quote: str,
    document: str,
    external: Mapping[str, str] | None = None,
    minimum: EvidenceMinimum | None = None,
) -> QuoteCheck:
    """As ``check_quote`` against ``document``, then, if not there, against each external
    page's cached text (``external``: text by URL); a quote found in a page says which."""
    check = check_quote(quote, document, minimum)
    if check.problem != "not_found" or not external:
        return check
    for url, text in external.items():
        start = text.find(quote)
        if start >= 0:
            return QuoteCheck(quote, None, (start, start + len(quote)), url)
    return check
