"""The lexical leg: BM25 over word stems, on ``bm25s``.

A query is a bag of stems scored with BM25 against every chunk (an OR of its words, never an
AND), so a natural-language question finds a passage holding only some of its words.
"""

from __future__ import annotations

import contextlib
import io
import logging
from pathlib import Path

import bm25s
import numpy as np

from ralph_tui.retrieval.words import stems_of, words_of

logging.getLogger("bm25s").setLevel(logging.WARNING)


class LexicalIndex:
    """BM25 over the chunks' stems."""

    def __init__(self, model: bm25s.BM25) -> None:
        self._model = model
        self._known: dict[str, int] = model.vocab_dict

    @classmethod
    def build(cls, word_ids: list[list[int]], words: list[str]) -> LexicalIndex:
        """Index texts given as word ids into ``words`` (the shared vocabulary)."""
        stems = stems_of(words)
        stem_ids: dict[str, int] = {}
        stem_of_word = np.fromiter(
            (stem_ids.setdefault(stem, len(stem_ids)) for stem in stems),
            dtype=np.int64,
            count=len(stems),
        )
        corpus = [stem_of_word[ids].tolist() if ids else [] for ids in word_ids]
        model = bm25s.BM25()
        model.index(bm25s.tokenization.Tokenized(ids=corpus, vocab=stem_ids), show_progress=False)
        return cls(model)

    def scores(self, query: str) -> np.ndarray | None:
        """BM25 score of every chunk, or ``None`` when no query word occurs in any."""
        known = [self._known[s] for s in stems_of(words_of(query)) if s in self._known]
        if not known:
            return None
        return np.asarray(self._model.get_scores(known), dtype=np.float32)

    def save(self, folder: Path) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            self._model.save(str(folder), show_progress=False)

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex:
        with contextlib.redirect_stderr(io.StringIO()):
            model = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
        return cls(model)


def top(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` highest positive scores, best first."""
    if n <= 0 or scores.size == 0:
        return np.zeros(0, dtype=np.int64)
    n = min(n, scores.size)
    picked = np.argpartition(-scores, n - 1)[:n]
    picked = picked[scores[picked] > 0]
    return picked[np.argsort(-scores[picked], kind="stable")]
