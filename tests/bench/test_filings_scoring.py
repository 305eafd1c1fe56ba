"""The filings benchmark's own scoring: what counts as a hit, which pages a passage is on,
and that the question file holds what the benchmark reads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

from filings import QUESTIONS, Question, check_pages, hit_at, load_questions, passage_pages

from ralph_tui.documents.corpus import Corpus


def _question(pages: set[int], doc: str = "A.pdf") -> Question:
    return Question("q", doc, "metrics", "?", "!", frozenset(pages), min(pages))


def _corpus() -> Corpus:
    """Two documents: A.pdf with pages 1-3 ("aaaa", "bbbb", "cccc"), B.pdf with one page."""
    pages_a = ["aaaa", "bbbb", "cccc"]
    text_a = "\n\n".join(pages_a)
    text = text_a + "\n\n" + "total current assets 15,754"
    spans, start = [], 0
    for number, page in enumerate(pages_a, 1):
        spans.append({"page": number, "start": start, "end": start + len(page)})
        start += len(page) + 2
    b_start = len(text_a) + 2
    table = [
        {"name": "A.pdf", "start": 0, "end": len(text_a), "pages": spans},
        {
            "name": "B.pdf",
            "start": b_start,
            "end": len(text),
            "pages": [{"page": 1, "start": b_start, "end": len(text)}],
        },
    ]
    return Corpus(documents=[], text=text, table=table)


def test_a_hit_needs_the_right_document_and_page_within_k() -> None:
    question = _question({2})
    assert hit_at([("A.pdf", frozenset({2}))], question, 1)
    assert not hit_at([("B.pdf", frozenset({2}))], question, 5)
    assert not hit_at([("A.pdf", frozenset({1})), ("A.pdf", frozenset({2}))], question, 1)
    assert hit_at([("A.pdf", frozenset({1})), ("A.pdf", frozenset({2, 3}))], question, 3)


def test_a_passage_starting_in_a_page_footer_is_labelled_early_but_touches_the_next() -> None:
    corpus = _corpus()
    # "aa\n\nbbbb": starts in page 1's last characters and runs into page 2.
    doc, first, touched = passage_pages(corpus, 2, 10)
    assert (doc, first, touched) == ("A.pdf", 1, frozenset({1, 2}))
    assert passage_pages(corpus, 6, 8) == ("A.pdf", 2, frozenset({2}))


def test_the_page_check_names_a_question_whose_pages_moved() -> None:
    corpus = _corpus()
    right = Question("ok", "B.pdf", "metrics", "?", "!", frozenset({1}), 1, ("15,754",))
    wrong = Question("moved", "A.pdf", "metrics", "?", "!", frozenset({1}), 1, ("cccc",))
    excluded = Question(
        "ex", "A.pdf", "text", "?", "!", frozenset({1}), 1, ("aaaa|bbbb",), frozenset({2})
    )
    assert check_pages([right, wrong, excluded], corpus) == ["moved: recorded [1], found [3]"]


def test_the_question_file_is_whole() -> None:
    questions = load_questions(QUESTIONS)
    assert len(questions) >= 45
    assert len({q.id for q in questions}) == len(questions)
    by_doc: dict[str, int] = {}
    for q in questions:
        assert q.primary in q.pages, q.id
        assert q.kind in {"metrics", "domain", "text"}, q.id
        assert q.found_by and not (q.pages & q.excluded), q.id
        by_doc[q.doc] = by_doc.get(q.doc, 0) + 1
    assert len(by_doc) == 10 and min(by_doc.values()) >= 4
    assert {q.kind for q in questions} == {"metrics", "domain", "text"}


@pytest.mark.parametrize("kind", ["metrics", "domain", "text"])
def test_each_kind_has_questions_in_most_filings(kind: str) -> None:
    docs = {q.doc for q in load_questions(QUESTIONS) if q.kind == kind}
    assert len(docs) >= 8
