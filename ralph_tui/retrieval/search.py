"""Documents indexed and searched outside a run, without any LLM (unless the embedder is the
OpenAI API): what ``ralph-tui index``, ``ralph-tui search``, the Python API's ``search`` and
the MCP server's ``search_documents`` share. Nothing here prints: progress comes as events,
remarks through ``on_notice``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ralph_tui.config import Settings
from ralph_tui.documents import Confinement, Corpus, InputError, Limits, read_corpus
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.documents.corpus import OnProgress
from ralph_tui.events import Emit
from ralph_tui.llm.factory import embeddings_client
from ralph_tui.llm.usage import UsageLedger
from ralph_tui.retrieval.cache import IndexCache
from ralph_tui.retrieval.index import DocumentIndex
from ralph_tui.retrieval.retriever import RetrievalResult, Retriever
from ralph_tui.retrieval.run import (
    cache_root,
    chunking_of,
    embedder_of,
    open_document_index,
    search_options_of,
)
from ralph_tui.retrieval.sources import DocumentSource

Notice = Callable[[str], None]


def check_query(query: str) -> None:
    """``InputError`` for a query with nothing to look for (checked before any work)."""
    if not query.strip():
        raise InputError("the query is empty: say what to look for")


def read_searchable(
    docs: Sequence[Path],
    settings: Settings,
    within: Confinement | None = None,
    on_progress: OnProgress | None = None,
) -> Corpus:
    """The documents' text (through the out dir's extraction cache), confined to ``within``
    if given; ``InputError`` when there is none to index. ``on_progress``: the conversion's
    (a scan's OCR takes seconds a page)."""
    corpus = read_corpus(
        list(docs),
        Limits.of(settings),
        on_progress,
        cache=ExtractionCache(settings.out_dir / "cache" / "documents"),
        within=within,
    )
    if not corpus.text.strip():
        named = ", ".join(str(doc) for doc in docs)
        raise InputError(f"{named} has no text to index (a scan without a text layer?)")
    return corpus


async def open_corpus_index(
    corpus: Corpus,
    settings: Settings,
    *,
    rebuild: bool = False,
    emit: Emit | None = None,
    on_notice: Notice | None = None,
) -> DocumentIndex:
    """The corpus's index from the cache, or built (anew when ``rebuild``)."""
    if rebuild:
        IndexCache(cache_root(settings.out_dir)).drop(
            IndexCache.key_of(corpus.text, chunking_of(settings), corpus.table)
        )
    embedder = embedder_of(settings, embeddings_client(settings, UsageLedger()))
    return await open_document_index(
        corpus.text, settings, embedder, table=corpus.table, emit=emit, on_notice=on_notice
    )


async def search_index(
    index: DocumentIndex,
    corpus: Corpus,
    settings: Settings,
    query: str,
    *,
    on_notice: Notice | None = None,
) -> RetrievalResult:
    """The passages of the corpus that best match ``query``, best first."""
    retriever = Retriever(
        [DocumentSource(index, corpus.table)],
        index.embedder,
        search_options_of(settings),
        on_notice=on_notice,
        index_figures=index.figures.to_json(),
    )
    return await retriever.search(query)
