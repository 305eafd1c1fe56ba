"""The lexical leg: BM25 over word stems, on ``bm25s``.

A query is a bag of stems scored with BM25 against every chunk (an OR of its words, never an
AND), so a natural-language question finds a passage holding only some of its words.

A query's rare terms (held by at most one chunk in ``RARE_SHARE``: a name, a code, a term
of art) rank the chunks that hold them first. BM25 alone lets a chunk holding several common
words of a long question outscore the one chunk holding the name it asks about, and the
larger the document, the more such chunks there are.

No query term weighs more than ``WEIGHT_CAP`` times the median IDF of the query's terms
(``capped``), here as in the MaxSim rerank. The words a question is phrased with ("how much
did Boeing *carry*", "why did the cash *go* up", "how much did Adobe *hold*") are rare in a
filing, and with their full IDF one of them outweighed the words the answer is stated in,
so passages that happen to hold it ("carrying amounts", "going concern") came before the
statement that answers. A name or a term of art still counts the most (its IDF is only
capped, not cut) and, in a large document, still ranks first as a rare term.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np

from ralph_tui.words import folded_words, stems_of

logging.getLogger("bm25s").setLevel(logging.WARNING)

RARE_SHARE = 2000
"""A query term held by at most one chunk in this many is rare (so a document of fewer
chunks has no rare terms: there, BM25's IDF tells names apart well enough)."""


WEIGHT_CAP = 2.0
"""The most a query term weighs, in medians of its query's term weights."""


def capped(weights: np.ndarray) -> np.ndarray:
    """``weights`` with none above ``WEIGHT_CAP`` times their median (as they are, for a
    query of one term)."""
    if len(weights) < 2:
        return weights
    return np.minimum(weights, WEIGHT_CAP * float(np.median(weights)))


def idf(df: np.ndarray, n: int) -> np.ndarray:
    """Each term's inverse document frequency from how many of ``n`` texts hold it
    (``df``), in BM25's form (``bm25s``'s too): always positive, highest for a term no text
    holds. The one IDF of the retrieval: the word weights of the dense leg, and how much a
    question's term says for the offline baseline (``LexicalIndex.rarity``)."""
    df = np.asarray(df, dtype=np.float64)
    return np.log((n - df + 0.5) / (df + 0.5) + 1.0).astype(np.float32)


@dataclass(frozen=True)
class LexicalHits:
    """A query's BM25 score of every chunk, and how many of its rare terms each holds."""

    scores: np.ndarray
    rare: np.ndarray

    def within(self, allowed: np.ndarray | None) -> LexicalHits:
        """These hits with every chunk outside the boolean mask ``allowed`` scored 0."""
        if allowed is None:
            return self
        return LexicalHits(self.scores * allowed, self.rare * allowed)

    def top(self, n: int) -> np.ndarray:
        """The ``n`` best chunks: those holding the most rare terms first, then by score."""
        holders = np.flatnonzero(self.rare)
        holders = holders[np.lexsort((-self.scores[holders], -self.rare[holders]))][:n]
        rest = top(self.scores, n + len(holders))
        rest = rest[~np.isin(rest, holders)][: n - len(holders)]
        return np.concatenate([holders, rest]).astype(np.int64)


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
        # Lists of the same int objects, not new ones per chunk: 14 M words of a 100 MB
        # document would otherwise hold ~400 MB of ints.
        stem_of = stem_of_word.tolist().__getitem__
        corpus = [list(map(stem_of, ids)) for ids in word_ids]
        model = bm25s.BM25()
        model.index(bm25s.tokenization.Tokenized(ids=corpus, vocab=stem_ids), show_progress=False)
        return cls(model)

    def search(self, query: str) -> LexicalHits | None:
        """BM25 score of every chunk and its rare terms, or ``None`` when no query word
        occurs in any chunk. Each term's score is scaled down where its IDF is over the
        cap (``capped``)."""
        known = Counter(self._known[s] for s in stems_of(folded_words(query)) if s in self._known)
        if not known:
            return None
        terms = list(known)
        weights = self._idf(terms)
        scale = capped(weights) / weights
        scores: np.ndarray | None = None
        rare: np.ndarray | None = None
        for term, factor in zip(terms, scale.tolist(), strict=True):
            term_scores = np.asarray(self._model.get_scores([term]), dtype=np.float32)
            held = term_scores > 0
            if scores is None or rare is None:
                scores = np.zeros_like(term_scores)
                rare = np.zeros(len(term_scores), dtype=np.int32)
            scores += term_scores * (known[term] * factor)
            if int(held.sum()) <= len(term_scores) // RARE_SHARE:
                rare += held
        assert scores is not None and rare is not None
        return LexicalHits(scores, rare)

    def rarity(self, terms: Sequence[str]) -> dict[str, float]:
        """Each of ``terms`` (stems, as ``ralph_tui.words.stem`` gives them) that a chunk
        holds, with its IDF over the indexed chunks (``idf``): what a term says about where
        to look, high for a name in a few chunks, low for a word in every other one."""
        held = [(term, self._known[term]) for term in terms if term in self._known]
        weights = self._idf([i for _, i in held])
        return {term: float(w) for (term, _), w in zip(held, weights, strict=True)}

    def _idf(self, ids: Sequence[int]) -> np.ndarray:
        """The IDF (``idf``) of each of the terms ``ids`` over the indexed chunks."""
        indptr = self._model.scores["indptr"]
        n = int(self._model.scores["num_docs"])
        df = np.array([int(indptr[i + 1] - indptr[i]) for i in ids], dtype=np.int64)
        return idf(df, n)

    def scores(self, query: str) -> np.ndarray | None:
        """BM25 score of every chunk, or ``None`` when no query word occurs in any."""
        hits = self.search(query)
        return hits.scores if hits is not None else None

    # Saved and loaded in worker threads beside a run that prints: nothing here may swap
    # the process-wide ``sys.stderr`` (``show_progress=False`` keeps bm25s quiet).
    def save(self, folder: Path) -> None:
        self._model.save(str(folder), show_progress=False)

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex:
        return cls(bm25s.BM25.load(str(folder), mmap=True, show_progress=False))


def top(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` highest positive scores, best first."""
    if n <= 0 or scores.size == 0:
        return np.zeros(0, dtype=np.int64)
    n = min(n, scores.size)
    picked = np.argpartition(-scores, n - 1)[:n]
    picked = picked[scores[picked] > 0]
    return picked[np.argsort(-scores[picked], kind="stable")]
