"""A run's retrieval: its documents indexed once (or loaded from the cache), past episodes
added as they accumulate, and one search that the task loop's pre-phase and the sandbox's
``retrieve()`` both use, each reported as a ``RetrievalDone`` event."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ralph_tui.config import Settings
from ralph_tui.events import Emit, IndexProgress, RetrievalDone, RetrievedPassage
from ralph_tui.llm.usage import MeteredClient
from ralph_tui.retrieval.cache import IndexCache
from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.embedders import APIEmbedder, Embedder, WordVectorEmbedder
from ralph_tui.retrieval.index import DocumentIndex, open_index
from ralph_tui.retrieval.retriever import RetrievalResult, Retriever, SearchOptions
from ralph_tui.retrieval.sources import (
    DocumentSource,
    PassageInfo,
    PassageSource,
    TextSource,
    episode_passages,
)

PASSAGE_PREVIEW_CHARS = 600
"""Text of a retrieved passage kept in its event (the pane shows it; the trace keeps spans)."""

SANDBOX_RETRIEVE_DOC = (
    "`retrieve(query, k=5, sources=None) -> list[dict]`: search the document (and past "
    "episodes) for passages about `query` (lexical BM25 and semantic search, fused), best "
    "first. Each dict has `text` (verbatim from the source), `source` (`doc`, `episode` or "
    "`external`), `label`, `span` (`[start, end)` in `context` for `doc`), `url`, "
    "`document`, `page` (the page holding most of its text), `pages` (every page it "
    "spans), `ocr` (true when OCR read some of its text from a scan or an image: a figure "
    "may be misread) and `scores`. `sources` narrows the kinds, e.g. `['doc']`. Use it to "
    "find where to look before scanning `context`."
)


SANDBOX_PASSAGE_KEYS = (
    "text",
    "source",
    "label",
    "span",
    "url",
    "document",
    "page",
    "pages",
    "ocr",
    "scores",
)
"""What a passage of the sandbox's ``retrieve()`` holds."""


def chunking_of(settings: Settings) -> Chunking:
    return Chunking(size=settings.chunk_size, overlap=settings.chunk_overlap)


def search_options_of(settings: Settings) -> SearchOptions:
    weights: dict[Any, float] = {
        "doc": 1.0,
        "episode": settings.episode_weight,
        "external": settings.external_weight,
    }
    return SearchOptions(
        top_n=settings.top_n,
        top_k=settings.top_k,
        rerank=settings.rerank,
        weights=weights,
        kind_top_n={"external": settings.external_top_n},
        kind_top_k={"external": settings.external_top_k},
    )


def embedder_of(settings: Settings, client: MeteredClient | None) -> Embedder | None:
    """The dense leg's embedder: none, the embeddings API through ``client``, or the
    offline word vectors."""
    if settings.embedder == "none":
        return None
    if client is not None:
        return APIEmbedder(client)
    return WordVectorEmbedder()


def cache_root(out_dir: Path) -> Path:
    return out_dir / "cache" / "retrieval"


async def open_document_index(
    text: str,
    settings: Settings,
    embedder: Embedder | None,
    *,
    table: Sequence[dict[str, Any]] | None = None,
    emit: Emit | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> DocumentIndex:
    """The index of ``text`` under the out dir's cache, reporting progress as events."""

    def progress(stage: str, done: int, total: int) -> None:
        if emit is not None:
            emit(IndexProgress(stage=stage, done=done, total=total))

    index = await open_index(
        text,
        chunking=chunking_of(settings),
        embedder=embedder,
        cache=IndexCache(cache_root(Path(settings.out_dir))),
        table=table,
        on_progress=progress,
        on_notice=on_notice,
    )
    if emit is not None:
        count = len(index.chunks)
        emit(IndexProgress(stage="ready", done=count, total=count, figures=index.figures.to_json()))
    return index


class RunRetrieval:
    """Search over a run's documents and episodes, reporting every search as an event."""

    def __init__(self, retriever: Retriever, emit: Emit) -> None:
        self.retriever = retriever
        self.emit = emit
        self.iteration = 0
        """The iteration searches are reported under (the loop sets it)."""
        self._diagnostics: list[dict[str, Any]] = []

    def take_diagnostics(self) -> list[dict[str, Any]]:
        """Each search's diagnostics since the last call, with its origin."""
        taken, self._diagnostics = self._diagnostics, []
        return taken

    @classmethod
    async def open(
        cls,
        text: str,
        settings: Settings,
        embed_client: MeteredClient | None,
        *,
        table: Sequence[dict[str, Any]] | None,
        emit: Emit,
        on_notice: Callable[[str], None],
        external: Sequence[PassageInfo] = (),
    ) -> RunRetrieval:
        """The run's retrieval over ``text`` and the ``external`` docs' passages."""
        embedder = embedder_of(settings, embed_client)
        index = await open_document_index(
            text, settings, embedder, table=table, emit=emit, on_notice=on_notice
        )
        sources: list[PassageSource] = [DocumentSource(index, table)]
        if external:
            sources.append(await TextSource.build("external", list(external), embedder))
        retriever = Retriever(
            sources,
            embedder,
            search_options_of(settings),
            on_notice=on_notice,
            index_figures=index.figures.to_json(),
        )
        return cls(retriever, emit)

    def rarity(self, terms: Sequence[str]) -> dict[str, float]:
        """Each term's IDF over the run's documents (``LexicalIndex.rarity``): how much the
        term says, for the offline baseline's weighing of a question's terms."""
        for source in self.retriever.sources:
            if isinstance(source, DocumentSource) and source.lexical is not None:
                return source.lexical.rarity(terms)
        return dict.fromkeys(terms, 1.0)

    async def add_episodes(self, episodes: Sequence[dict[str, Any]]) -> None:
        """Make the episodes so far searchable (replacing the earlier set)."""
        source = await TextSource.build(
            "episode", episode_passages(episodes), self.retriever.embedder
        )
        self.retriever.replace_source(source)

    async def search(
        self,
        query: str,
        origin: str,
        k: int | None = None,
        sources: Sequence[str] | str | None = None,
    ) -> RetrievalResult:
        kinds = [sources] if isinstance(sources, str) else sources
        result = await self.retriever.search(query, k, kinds)
        self._diagnostics.append({"origin": origin, **result.diagnostics})
        self.emit(
            RetrievalDone(
                iteration=self.iteration,
                origin="sandbox" if origin == "sandbox" else "prephase",
                query=result.diagnostics["query"],
                passages=[passage_of(p.to_json(PASSAGE_PREVIEW_CHARS)) for p in result.passages],
                diagnostics=result.diagnostics,
            )
        )
        return result

    async def sandbox_retrieve(
        self, query: str, k: int = 5, sources: Sequence[str] | str | None = None
    ) -> list[dict[str, Any]]:
        """The sandbox's ``retrieve()``: passages as plain dicts (text whole)."""
        result = await self.search(query, "sandbox", k, sources)
        return [
            {key: value for key, value in passage.to_json().items() if key in SANDBOX_PASSAGE_KEYS}
            for passage in result.passages
        ]


def passage_of(data: dict[str, Any]) -> RetrievedPassage:
    return RetrievedPassage(
        id=data["id"],
        source=data["source"],
        label=data["label"],
        text=data["text"],
        span=data["span"],
        url=data["url"],
        document=data["document"],
        page=data["page"],
        pages=data["pages"],
        ocr=data["ocr"],
        ranks=data["ranks"],
        scores=data["scores"],
    )
