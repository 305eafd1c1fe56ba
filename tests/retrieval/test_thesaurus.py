"""A reader's word for a line item ("headcount", "buy back", "cash from operations") finds the
passage that states it in a report's words ("employees", "repurchased", "operating
activities"), which share no word with the question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.thesaurus import READER_CHANGES, READER_TERMS, expansions, reader_terms

from .helpers import paragraphs_document, retriever_of

FILLER = [
    "Acme's backlog at the end of 2023 was $41 billion across its programs.",
    "The total of Acme's lease payments due after 2023 is $2 billion.",
    "Acme's stock of parts grew, as customers order spares early.",
    "Total deferred tax assets at the end of the year are listed below.",
    "Acme's own stock is listed in New York; its cash is held in several banks.",
    "Acme's operations in 2023 spanned 40 countries; why is told below.",
    "Cash held abroad went up as Acme sold assets in Asia.",
    "Acme looks back on a century of work; it was founded in 1923.",
]
"""Paragraphs holding two or three of a question's words, but not the reader's phrase."""

STATEMENTS = {
    "headcount": (
        "What was Acme's total headcount at the end of 2023?",
        "As of December 31, 2023, we had approximately 142,000 employees worldwide.",
    ),
    "buy back": (
        "How much of its own stock did Acme buy back in 2023?",
        "In 2023 we repurchased 150 million shares for $16.8 billion under our program.",
    ),
    "cash from operations": (
        "Why did Acme's cash from operations go up in 2023?",
        "The increase in net cash provided by operating activities reflects the timing of "
        "receipts from customers.",
    ),
}


def report(statement: str) -> str:
    """The filler paragraphs and ``statement``, each a chunk of its own."""
    return paragraphs_document([*FILLER, statement, *FILLER[::-1]])


@pytest.mark.parametrize("reader", sorted(STATEMENTS))
async def test_a_readers_word_finds_the_report_s_word_first(reader: str) -> None:
    question, statement = STATEMENTS[reader]
    retriever, _ = await retriever_of(report(statement), top_k=3)
    result = await retriever.search(question)
    shown = [p.info.text.strip()[:50] for p in result.passages]
    assert result.passages[0].info.text.strip() == statement, shown


async def test_the_readers_own_word_still_finds_a_report_that_uses_it() -> None:
    statement = "Acme's headcount was 9,800 at the end of 2023, up from 9,100."
    retriever, _ = await retriever_of(report(statement), top_k=3)
    result = await retriever.search("What was Acme's total headcount at the end of 2023?")
    assert result.passages[0].info.text.strip() == statement


def test_reader_phrases_are_matched_by_stem_and_as_runs_of_words() -> None:
    assert expansions(reader_terms("How many shares were bought back?")) == ["repurchase"]
    assert expansions(reader_terms("Is Acme buying back shares?")) == ["repurchase"]
    assert expansions(reader_terms("What were Acme's SG&A and R&D costs?")) == [
        "selling general and administrative",
        "research and development",
    ]
    # A phrase asked many times adds its words once.
    assert reader_terms("headcount " * 10_000) == {"headcount": ["employees", "workforce"]}
    # "back" alone, or the words of a phrase apart, are not the phrase.
    assert expansions(reader_terms("Did Acme buy a building back in 2019?")) == []
    assert expansions(reader_terms("Where is the back office?")) == []


def test_every_entry_names_report_words_and_no_entry_maps_to_itself() -> None:
    for reader, stated in [*READER_TERMS.items(), *READER_CHANGES.items()]:
        assert reader == reader.lower() and stated, reader
        assert reader not in stated, reader


def test_search_says_what_it_also_searched_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question, statement = STATEMENTS["headcount"]
    doc = tmp_path / "acme.md"
    doc.write_text("\n\n".join([*FILLER, statement]) + "\n", encoding="utf-8")
    common = ["--out", str(tmp_path / "out"), "--embedder", "offline"]
    assert run_cli(["search", str(doc), question, *common]) == 0
    out = capsys.readouterr().out
    assert "also searched for: employees, workforce (for headcount)" in out
    assert run_cli(["search", str(doc), question, *common, "--json"]) == 0
    diagnostics = json.loads(capsys.readouterr().out)["diagnostics"]
    assert diagnostics["readerTerms"] == {"headcount": ["employees", "workforce"]}


async def test_the_cover_page_s_offices_come_before_the_officers_certifications() -> None:
    cover = "Address of principal executive offices: One Riverside Plaza, Acme, New York 14831."
    certificate = (
        "I, the principal executive officer of Acme, certify that this report fairly presents "
        "the financial condition of Acme; the other principal executive officer agrees."
    )
    retriever, _ = await retriever_of(paragraphs_document([certificate] * 4 + [cover]), top_k=3)
    result = await retriever.search("Where are Acme's headquarters?")
    assert result.passages[0].info.text.strip() == cover
    result = await retriever.search("Where are Acme's principal executive offices?")
    assert result.passages[0].info.text.strip() == cover
