"""Stage 2: late-interaction MaxSim (ColBERT-style) over the stage-1 candidates.

Each query word vector meets each passage word vector; a query word scores its best match,
and a passage scores the sum over query words, each weighted by its rarity (IDF) when the
embedder knows it, so a name matched exactly outweighs a common word matched loosely.

No query word weighs more than ``WEIGHT_CAP`` times the median of the query's words (the
lexical leg's rule, ``lexical.capped``). Rarity
is the document's: the words a question is phrased with ("how much did Adobe *hold*", "why
did the cash *go* up") are rare in a filing, and uncapped one of them was a third to a half
of the score, so a passage matching it loosely ("holds a degree", "going concern") rose over
the balance sheet that answers (measured on the filings benchmark: the rerank lost two
questions that fusion alone found; capped, none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ralph_tui.retrieval.lexical import capped
from ralph_tui.words import folded_words

WordVectors = Callable[[Sequence[str]], np.ndarray]
WordWeights = Callable[[Sequence[str]], np.ndarray]


def maxsim(
    query: str,
    passages: Sequence[str],
    word_vectors: WordVectors,
    word_weights: WordWeights | None = None,
) -> list[float]:
    """MaxSim score of each passage for ``query`` (0 where either has no words)."""
    query_words = list(dict.fromkeys(folded_words(query)))
    if not query_words:
        return [0.0] * len(passages)
    q = word_vectors(query_words)
    if word_weights is not None:
        weights = capped(word_weights(query_words))
        q = q * (weights / max(float(weights.sum()), 1e-9))[:, None]
    scores = []
    for passage in passages:
        words = list(dict.fromkeys(folded_words(passage)))
        if not words:
            scores.append(0.0)
            continue
        similarity = q @ word_vectors(words).T
        scores.append(float(similarity.max(axis=1).sum()))
    return scores
