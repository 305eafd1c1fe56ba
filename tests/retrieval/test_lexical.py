"""The lexical leg: BM25 over stems, an OR of the query's words."""

from __future__ import annotations

import sys
from pathlib import Path

import bm25s
import numpy as np
import pytest

from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.lexical import LexicalIndex, top
from tests.retrieval.helpers import index_of, paragraphs_document

PARAGRAPHS = [
    "The lighthouse keeper climbs the spiral stairs every evening to light the lamp.",
    "Gardeners prune the roses in early spring, before the first buds open.",
    "The ferry to the island leaves the harbour twice a day in summer.",
    "Our gardener said the rose beds need pruning and compost each spring.",
    "A violin needs new strings after a season of concerts.",
]


async def test_bm25_ranks_the_passages_holding_the_rare_words_first() -> None:
    index = await index_of(paragraphs_document(PARAGRAPHS))
    scores = index.lexical.scores("pruning roses in spring")
    assert scores is not None
    ranked = top(scores, 5).tolist()
    assert set(ranked[:2]) == {1, 3}
    assert set(ranked) == {1, 3}, "passages sharing no word score nothing"


async def test_stems_match_other_forms_of_a_word() -> None:
    index = await index_of(paragraphs_document(PARAGRAPHS))
    scores = index.lexical.scores("gardener")
    assert scores is not None and set(top(scores, 5).tolist()) == {1, 3}


async def test_a_question_with_stop_words_finds_a_passage_holding_only_some_of_its_words() -> None:
    index = await index_of(paragraphs_document(PARAGRAPHS))
    scores = index.lexical.scores("How often does the boat to the island sail from the harbour?")
    assert scores is not None
    assert top(scores, 1).tolist() == [2]


async def test_a_query_of_unknown_or_stop_words_scores_nothing() -> None:
    index = await index_of(paragraphs_document(PARAGRAPHS))
    assert index.lexical.scores("what is the") is None
    assert index.lexical.scores("xylophone zeppelin") is None


def test_top_keeps_positive_scores_best_first() -> None:
    scores = np.array([0.0, 2.0, 0.5, 3.0, 0.0], dtype=np.float32)
    assert top(scores, 3).tolist() == [3, 1, 2]
    assert top(scores, 10).tolist() == [3, 1, 2]
    assert top(scores, 0).tolist() == []


async def test_saving_and_loading_leave_the_process_stderr_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indexes are saved and loaded in worker threads while a run prints its progress: a
    swapped ``sys.stderr`` there would swallow that progress, or stay swapped for good when
    two threads restore it out of order."""
    index = await index_of(paragraphs_document(["pump seals", "valve"]))
    seen: list[object] = []
    save, load = bm25s.BM25.save, bm25s.BM25.load.__func__  # type: ignore[attr-defined]

    def saving(self: bm25s.BM25, *args: object, **kwargs: object) -> None:
        seen.append(sys.stderr)
        save(self, *args, **kwargs)

    def loading(cls: type[bm25s.BM25], *args: object, **kwargs: object) -> bm25s.BM25:
        seen.append(sys.stderr)
        return load(cls, *args, **kwargs)

    monkeypatch.setattr(bm25s.BM25, "save", saving)
    monkeypatch.setattr(bm25s.BM25, "load", classmethod(loading))
    stderr = sys.stderr
    index.lexical.save(tmp_path)
    loaded = LexicalIndex.load(tmp_path)
    assert seen == [stderr, stderr]
    assert loaded.scores("seals") is not None


async def test_a_rare_phrasing_word_of_a_question_does_not_outweigh_the_words_it_asks_about() -> (
    None
):
    # "carry" is in one chunk of 47, "current", "assets" and "year" in 15 or 16 each: with
    # its full IDF (3.3 times theirs) "carry" alone outscored the chunk holding all three;
    # capped at twice the query's median IDF, it does not.
    notes = [
        "Note {}: the current portion is shown beside the prior period's.",
        "Note {}: these assets are measured at fair value by the trustee.",
        "Note {}: the year's figures are shown beside the prior period's.",
    ]
    filing = [
        "The notes carry interest at a floating rate set each quarter by the lender.",
        "Total current assets were 8,269 at the end of the year, as the balance sheet shows.",
    ] + [notes[i % 3].format(i) for i in range(45)]
    index = await index_of(paragraphs_document(filing, 100), chunking=Chunking(100, 0))
    scores = index.lexical.scores("How much did they carry in current assets that year?")
    assert scores is not None
    assert top(scores, 2).tolist() == [1, 0]
    rarity = index.lexical.rarity(["carri", "current", "asset", "year"])
    assert rarity["carri"] > 3 * rarity["current"], "the case the cap is for"
