"""A cost or token cap reached while embedding stops the run: it is not an embedder that
failed (which leaves the lexical leg alone and goes on)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from ralph_tui.errors import CostCapReached
from ralph_tui.llm.errors import LLMConnectionError
from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.index import open_index
from ralph_tui.retrieval.sources import PassageInfo, TextSource

TEXT = "The filters are backwashed every Tuesday. The pumps are checked monthly. " * 20


class Stopping:
    """An embedder whose every call raises ``error``."""

    id = "stopping:test:8"
    word_vectors: Callable[[Sequence[str]], np.ndarray] | None = None
    word_weights: Callable[[Sequence[str]], np.ndarray] | None = None

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def embed(self, texts: Sequence[str], on_progress: object = None) -> np.ndarray:
        raise self.error


CAP = CostCapReached("token cap reached: 1,000 tokens used of the 1,000 cap")


async def test_a_cap_while_indexing_the_documents_propagates() -> None:
    with pytest.raises(CostCapReached):
        await open_index(TEXT, chunking=Chunking(size=200, overlap=0), embedder=Stopping(CAP),
                         cache=None)  # fmt: skip


async def test_a_cap_while_indexing_passages_propagates() -> None:
    passages = [PassageInfo("episode", 0, "the filters are backwashed")]
    with pytest.raises(CostCapReached):
        await TextSource.build("episode", passages, Stopping(CAP))


async def test_an_embedder_that_fails_still_leaves_the_lexical_leg() -> None:
    down = Stopping(LLMConnectionError("unreachable"))
    index = await open_index(TEXT, chunking=Chunking(size=200, overlap=0), embedder=down,
                             cache=None)  # fmt: skip
    assert index.figures.dense_skipped and "unreachable" in index.figures.dense_skipped
    passages = [PassageInfo("episode", 0, "the filters are backwashed")]
    assert (await TextSource.build("episode", passages, down)).store is None
