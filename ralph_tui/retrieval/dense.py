"""The dense leg's store: chunk vectors searched by cosine similarity.

``VectorStore`` is the one seam a larger engine would slot into (Qdrant, pgvector: see
docs/guide/retrieval.md); ``ExactVectorStore`` is exact brute force with numpy, which stays
within tens of milliseconds up to a few hundred thousand chunks.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

QUERY_BLOCK_ROWS = 131_072
"""Rows multiplied at once: bounds the temporary memory of a search over a mapped file."""


class VectorStore(Protocol):
    dim: int

    def search(
        self, query: np.ndarray, n: int, allowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` rows most similar to the unit vector ``query``: (ids, cosines), best
        first; only rows where the boolean mask ``allowed`` is true, when given."""
        ...


class ExactVectorStore:
    """Every unit vector in one (possibly memory-mapped) matrix."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.dim = int(vectors.shape[1]) if vectors.ndim == 2 else 0

    def search(
        self, query: np.ndarray, n: int, allowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        rows = self.vectors.shape[0]
        if rows == 0 or n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        query = np.asarray(query, dtype=np.float32)
        scores = np.empty(rows, dtype=np.float32)
        for start in range(0, rows, QUERY_BLOCK_ROWS):
            block = self.vectors[start : start + QUERY_BLOCK_ROWS]
            scores[start : start + len(block)] = block @ query
        if allowed is not None:
            scores[~allowed] = -np.inf
            n = min(n, int(allowed.sum()))
            if n <= 0:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        n = min(n, rows)
        picked = np.argpartition(-scores, n - 1)[:n]
        picked = picked[np.argsort(-scores[picked], kind="stable")]
        return picked, scores[picked]
