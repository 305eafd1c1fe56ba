"""Building a retriever over a text, as a run does, for the retrieval tests."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.retrieval.cache import IndexCache
from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.embedders import Embedder, WordVectorEmbedder
from ralph_tui.retrieval.index import DocumentIndex, open_index
from ralph_tui.retrieval.retriever import Retriever, SearchOptions
from ralph_tui.retrieval.sources import DocumentSource


def paragraphs_document(paragraphs: list[str], width: int = 200) -> str:
    """Each paragraph padded to ``width`` characters, so with ``Chunking(width, 0)`` chunk
    ``i`` is paragraph ``i``."""
    return "".join(p.ljust(width) for p in paragraphs)


async def index_of(
    text: str,
    *,
    chunking: Chunking | None = None,
    embedder: Embedder | None = None,
    cache: Path | None = None,
    notices: list[str] | None = None,
) -> DocumentIndex:
    return await open_index(
        text,
        chunking=chunking or Chunking(size=200, overlap=0),
        embedder=embedder,
        cache=IndexCache(cache) if cache else None,
        on_notice=notices.append if notices is not None else None,
    )


async def retriever_of(
    text: str, *, dense: bool = True, **options: object
) -> tuple[Retriever, DocumentIndex]:
    embedder = WordVectorEmbedder() if dense else None
    index = await index_of(text, embedder=embedder)
    retriever = Retriever([DocumentSource(index)], embedder, SearchOptions(**options))  # type: ignore[arg-type]
    return retriever, index
