"""One function decides whether a quote is evidence; the validator and the TUI agree with it."""

from __future__ import annotations

import pytest

from ralph_tui.config import Settings
from ralph_tui.tui.core.evidence import check_quotes
from ralph_tui.tui.screens.evidence_modal import EvidenceModal
from ralph_tui.validate.evidence import EvidenceMinimum, check_quote
from ralph_tui.validate.qa import check_quotes_verbatim

DOCUMENT = (
    "Section 1. Filters are backwashed every 48 hours.\n"
    "Section 2. Chlorine is dosed at 2 mg per litre.\n"
)


@pytest.mark.parametrize("quote", ["1", "2", "4", "48", "Section 2", " ", "\n", ""])
def test_trivial_or_blank_quotes_are_not_evidence(quote: str) -> None:
    assert quote in DOCUMENT  # each is a substring, and still proves nothing
    check = check_quote(quote, DOCUMENT)
    assert not check.ok and check.span is None
    assert check.problem in ("empty", "too_short")


def test_a_sentence_in_the_document_is_evidence_with_its_span() -> None:
    quote = "Filters are backwashed every 48 hours."
    check = check_quote(quote, DOCUMENT)
    assert check.ok
    assert check.span is not None and DOCUMENT[check.span[0] : check.span[1]] == quote


def test_a_long_quote_missing_from_the_document_is_not_found() -> None:
    assert check_quote("Filters are replaced every year.", DOCUMENT).problem == "not_found"


def test_the_minimum_comes_from_the_settings() -> None:
    settings = Settings(evidence_min_chars=5, evidence_min_words=1)
    assert check_quote("Chlorine", DOCUMENT, EvidenceMinimum.of(settings)).ok
    assert not check_quote("Chlorine", DOCUMENT).ok
    assert EvidenceMinimum() == EvidenceMinimum.of(Settings())


def test_the_validator_rejects_trivial_quotes_and_names_them() -> None:
    result = check_quotes_verbatim(["4", " ", "Filters are backwashed every 48 hours."], DOCUMENT)
    assert not result.ok
    assert 'quote 1 is too short to be evidence (at least 12 characters and 3 words): "4"' in (
        result.message
    )
    assert "quote 2 is empty" in result.message


def test_zero_quotes_are_not_called_all_in_the_document() -> None:
    result = check_quotes_verbatim([], DOCUMENT)
    assert not result.ok and result.message == "no quotes to check"


@pytest.mark.parametrize(
    "quote",
    [" ", "4", "Section 2", "Filters are backwashed every 48 hours.", "Not in this text at all."],
)
def test_the_tui_marks_exactly_what_the_validator_accepts(quote: str) -> None:
    (mark,) = check_quotes([quote], DOCUMENT)
    assert mark.verified == check_quotes_verbatim([quote], DOCUMENT).ok
    assert mark.reason == check_quote(quote, DOCUMENT).describe(EvidenceMinimum())


def test_the_evidence_modal_says_why_a_trivial_quote_is_not_verified() -> None:
    modal = EvidenceModal("4", DOCUMENT, "handbook.md")
    assert modal.place is None
    assert modal.where() == "handbook.md — not verified"
    assert "too short to be evidence" in modal.body().plain
