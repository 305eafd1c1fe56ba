"""How search reads a PDF's headings, a MaxSim rerank that no phrasing word of a question
decides alone, and pages before repeats of a page: the choices measured on the filings
benchmark (``bench/filings.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ralph_tui.retrieval.chunks import Chunking, chunk_text, section_headings
from ralph_tui.retrieval.context import chunk_contexts
from ralph_tui.retrieval.lexical import WEIGHT_CAP, capped
from ralph_tui.retrieval.rerank import maxsim
from ralph_tui.retrieval.retriever import pages_first
from ralph_tui.retrieval.sources import PassageInfo


def _filing() -> tuple[str, list[dict[str, object]]]:
    text = "w" * 1800 + "\n\n" + "v" * 1800
    pages = [{"page": 1, "start": 0, "end": 1800}, {"page": 2, "start": 1802, "end": 3602}]
    headings = [
        {"level": 1, "title": "PART II", "start": 0},
        {"level": 2, "title": "Item 7. Management's Discussion", "start": 1150},
        {"level": 3, "title": "Liquidity and Capital Resources", "start": 2950},
    ]
    entry = {"name": "a.pdf", "start": 0, "end": len(text), "pages": pages, "headings": headings}
    return text, [entry]


def test_a_pdfs_chunks_end_at_its_parts_and_items_not_at_its_deeper_headings() -> None:
    text, table = _filing()
    assert [h["title"] for h in section_headings(table[0])] == [
        "PART II",
        "Item 7. Management's Discussion",
    ]
    chunks = chunk_text(text, Chunking(500, 100), table)
    assert 1150 in chunks.ends.tolist() and 1150 in chunks.starts.tolist()
    assert 2950 not in chunks.starts.tolist()


def test_a_pdfs_heading_titles_are_not_indexed_with_its_chunks() -> None:
    text, table = _filing()
    chunks = chunk_text(text, Chunking(500, 100), table)
    assert set(chunk_contexts(chunks, table)) == {""}
    unpaged = [{**table[0], "pages": []}]
    contexts = chunk_contexts(chunk_text(text, Chunking(500, 100), unpaged), unpaged)
    assert "PART II\nItem 7. Management's Discussion\nLiquidity and Capital Resources" in contexts


WORDS = {
    "hold": [1.0, 0.0, 0.0, 0.0],
    "holds": [0.84, 0.54, 0.0, 0.0],
    "current": [0.0, 0.0, 1.0, 0.0],
    "assets": [0.0, 0.0, 0.0, 1.0],
    "degree": [0.0, 1.0, 0.0, 0.0],
}
RARITY = {"hold": 8.0, "current": 1.5, "assets": 1.2}


def _vectors(words: Sequence[str]) -> np.ndarray:
    rows = np.array([WORDS.get(word, [0.0, 0.0, 0.0, 0.0]) for word in words], dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)


def _weights(words: Sequence[str]) -> np.ndarray:
    return np.array([RARITY.get(word, 1.0) for word in words], dtype=np.float32)


def test_a_rare_phrasing_word_does_not_outweigh_the_words_a_passage_answers_with() -> None:
    # "hold" is rare in a filing; uncapped it is 8/10.7 of the query's weight, and a
    # passage that "holds a degree" outscored the balance sheet's "current assets".
    scores = maxsim(
        "how much did they hold in current assets",
        ["total current assets", "she holds a degree"],
        _vectors,
        _weights,
    )
    assert scores[0] > scores[1]
    assert capped(np.array([8.0, 1.5, 1.2])).tolist() == [WEIGHT_CAP * 1.5, 1.5, 1.2]
    assert capped(np.array([8.0])).tolist() == [8.0]


def _passage(chunk: int, page: int | None, document: str = "a.pdf") -> PassageInfo:
    return PassageInfo("doc", chunk, f"text {chunk}", (chunk, chunk + 1), None, document, page)


def test_each_pages_first_passage_comes_before_any_pages_second() -> None:
    infos = {
        info.key: info
        for info in [
            _passage(1, 33),
            _passage(2, 33),
            _passage(3, 32),
            _passage(4, 33),
            _passage(5, 35),
            _passage(6, 35, "b.pdf"),
            _passage(7, None, "notes.md"),
            _passage(8, None, "notes.md"),
        ]
    }
    order = list(infos)
    plain = dict.fromkeys(order, (True, 0))
    chunks = [infos[key].chunk for key in pages_first(order, infos, plain)]
    assert chunks == [1, 3, 5, 6, 7, 8, 2, 4]
    # A passage that holds the query's exact phrase keeps its precedence, repeat or not.
    phrase = {**plain, order[1]: (False, 0)}
    chunks = [infos[key].chunk for key in pages_first(order, infos, phrase)]
    assert chunks[0] == 2
