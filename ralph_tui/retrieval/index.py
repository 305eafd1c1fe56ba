"""A document's retrieval index: its chunks, the BM25 leg and (when an embedder is at hand)
the chunk vectors of the dense leg; built once and kept in the index cache."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from ralph_tui.llm.errors import LLMError
from ralph_tui.retrieval.cache import IndexCache, StoredLexical
from ralph_tui.retrieval.chunks import Chunking, ChunkTable, chunk_text, indexed_text
from ralph_tui.retrieval.context import chunk_contexts, document_words, named_documents
from ralph_tui.retrieval.embedders import Embedder, WordVectorEmbedder
from ralph_tui.retrieval.lexical import LexicalIndex, idf
from ralph_tui.retrieval.pages import PageLeg, page_units
from ralph_tui.retrieval.rows import RowIndex
from ralph_tui.retrieval.words import Vocabulary

OnIndexProgress = Callable[[str, int, int], None]
"""Indexing progress: stage (chunks, words, lexical, vectors), done, in all."""

OnNotice = Callable[[str], None]
T = TypeVar("T")


@dataclass
class IndexFigures:
    """What building (or loading) an index took."""

    chunks: int = 0
    words: int = 0
    chars: int = 0
    chunk_size: int = 0
    chunk_overlap: int = 0
    lexical_from_cache: bool = False
    vectors_from_cache: bool = False
    ms: dict[str, float] = field(default_factory=dict)
    embedder: str | None = None
    dim: int = 0
    dense_skipped: str | None = None
    cache_folder: str | None = None
    """Where the index is cached: ``None`` when it was neither loaded from nor written to
    the cache."""

    def to_json(self) -> dict[str, Any]:
        return {
            "chunks": self.chunks,
            "words": self.words,
            "chars": self.chars,
            "chunkSize": self.chunk_size,
            "chunkOverlap": self.chunk_overlap,
            "lexicalFromCache": self.lexical_from_cache,
            "vectorsFromCache": self.vectors_from_cache,
            "ms": {k: round(v, 1) for k, v in self.ms.items()},
            "embedder": self.embedder,
            "dim": self.dim,
            "denseSkipped": self.dense_skipped,
            "cacheFolder": self.cache_folder,
        }


@dataclass
class DocumentIndex:
    """Chunks of ``text`` with both legs over them (``vectors`` is ``None``: lexical only)
    and, for paged documents, the page leg."""

    text: str
    chunks: ChunkTable
    lexical: LexicalIndex
    vectors: np.ndarray | None
    embedder: Embedder | None
    figures: IndexFigures
    pages: PageLeg | None = None
    rows: RowIndex | None = None

    def chunk_text(self, index: int) -> str:
        start, end = self.chunks.span(index)
        return self.text[start:end]


class _Timer:
    def __init__(self, figures: IndexFigures) -> None:
        self.figures = figures

    def stage(self, name: str, started: float) -> None:
        self.figures.ms[name] = (time.perf_counter() - started) * 1000


async def open_index(
    text: str,
    *,
    chunking: Chunking,
    embedder: Embedder | None,
    cache: IndexCache | None,
    table: Sequence[dict[str, Any]] | None = None,
    on_progress: OnIndexProgress | None = None,
    on_notice: OnNotice | None = None,
) -> DocumentIndex:
    """The index of ``text``: from the cache when it holds one for this text, chunking and
    embedder, else built (and stored). An embedder that fails leaves the lexical leg alone,
    with a notice and the reason in ``figures.dense_skipped``.

    A cold build tokenizes the chunks once, then builds BM25 and the chunk vectors at once
    (both mostly outside the GIL)."""
    notice = on_notice or (lambda _m: None)
    progress = on_progress or (lambda _s, _d, _t: None)
    figures = IndexFigures(
        chars=len(text),
        chunk_size=chunking.size,
        chunk_overlap=chunking.overlap,
        embedder=embedder.id if embedder else None,
    )
    timer = _Timer(figures)
    started = time.perf_counter()
    key = await asyncio.to_thread(IndexCache.key_of, text, chunking, table) if cache else ""
    stored = cache.load_lexical(key, notice) if cache else None
    figures.lexical_from_cache = stored is not None
    timer.stage("load", started)
    vectors = None
    if embedder is not None and cache and stored is not None:
        vectors = cache.load_vectors(key, embedder.id, len(stored.chunks), notice)
    figures.vectors_from_cache = vectors is not None
    tokens = None
    if stored is None:
        tokens = await asyncio.to_thread(_tokenize, text, chunking, table, progress, timer)
    vocabulary = stored if stored is not None else tokens
    assert vocabulary is not None
    if isinstance(embedder, WordVectorEmbedder):
        embedder.weigh(vocabulary.words, vocabulary.idf)
    lexical_job = (
        asyncio.to_thread(_build_lexical, tokens, progress, timer) if tokens is not None else None
    )
    vectors_job = (
        _embed_chunks(text, vocabulary.chunks, tokens, embedder, progress, timer)
        if embedder is not None and vectors is None
        else None
    )
    built_lexical, built_vectors = await asyncio.gather(_run(lexical_job), _run(vectors_job))
    cached = figures.lexical_from_cache
    if built_lexical is not None:
        stored = built_lexical
        if cache:
            cached = await asyncio.to_thread(cache.save_lexical, key, stored, notice)
    assert stored is not None
    if vectors_job is not None:
        vectors = built_vectors
        if vectors is None:
            figures.dense_skipped = timer.figures.dense_skipped
            notice(f"retrieval: {figures.dense_skipped}; the lexical leg runs alone")
        elif cache and embedder is not None:
            await asyncio.to_thread(cache.save_vectors, key, embedder.id, vectors, notice)
    if embedder is None:
        figures.dense_skipped = "no embedder"
    if vectors is not None:
        figures.dim = int(vectors.shape[1]) if vectors.ndim == 2 else 0
    figures.chunks, figures.words = len(stored.chunks), len(stored.words)
    figures.cache_folder = str(cache.folder_of(key)) if cache and cached else None
    timer.stage("total", started)
    return DocumentIndex(
        text, stored.chunks, stored.lexical, vectors, embedder, figures, stored.pages, stored.rows
    )


async def _run(job: Awaitable[T] | None) -> T | None:
    return await job if job is not None else None


@dataclass
class _Tokens:
    """The chunks of a text as word ids into ``words`` (shared by both legs), with each
    word's IDF; what the lexical leg indexes (each chunk's words and its context's); and
    the pages' words with each chunk's page, for paged documents; the table rows' labels."""

    chunks: ChunkTable
    word_ids: list[list[int]]
    words: list[str]
    idf: np.ndarray
    lexical_ids: list[list[int]]
    rows: RowIndex
    page_ids: list[list[int]] | None = None
    chunk_page: np.ndarray | None = None


def _tokenize(
    text: str,
    chunking: Chunking,
    table: Sequence[dict[str, Any]] | None,
    progress: OnIndexProgress,
    timer: _Timer,
) -> _Tokens:
    started = time.perf_counter()
    chunks = chunk_text(text, chunking, table)
    progress("chunks", len(chunks), len(chunks))
    timer.stage("chunks", started)
    started = time.perf_counter()
    vocabulary = Vocabulary()
    word_ids: list[list[int]] = []
    step = max(1, len(chunks) // 20)
    for number, (start, end) in enumerate(
        zip(chunks.starts.tolist(), chunks.ends.tolist(), strict=True)
    ):
        word_ids.append(vocabulary.encode(indexed_text(text, start, end)))
        if number % step == 0:
            progress("words", number, len(chunks))
    context_ids: dict[str, list[int]] = {}
    lexical_ids = [
        ids + context_ids[context]
        if context in context_ids
        else ids + context_ids.setdefault(context, vocabulary.encode(context))
        for ids, context in zip(word_ids, chunk_contexts(chunks, table), strict=True)
    ]
    names = [document_words(e) if named_documents(table) else "" for e in table or ()]
    units = page_units(chunks, table, names)
    page_ids = None
    if units is not None:
        page_ids = [vocabulary.encode(f"{text[a:b]}\n{name}") for a, b, name in units.spans]
    progress("words", len(chunks), len(chunks))
    rows = RowIndex.build(text, chunks)
    words = vocabulary.words
    idf = inverse_document_frequency(word_ids, len(words))
    timer.stage("words", started)
    return _Tokens(
        chunks,
        word_ids,
        words,
        idf,
        lexical_ids,
        rows,
        page_ids,
        units.chunk_page if units is not None else None,
    )


def _build_lexical(tokens: _Tokens, progress: OnIndexProgress, timer: _Timer) -> StoredLexical:
    started = time.perf_counter()
    lexical = LexicalIndex.build(tokens.lexical_ids, tokens.words)
    pages = None
    if tokens.page_ids is not None and tokens.chunk_page is not None:
        pages = PageLeg(LexicalIndex.build(tokens.page_ids, tokens.words), tokens.chunk_page)
    progress("lexical", len(tokens.chunks), len(tokens.chunks))
    timer.stage("lexical", started)
    return StoredLexical(tokens.chunks, lexical, tokens.words, tokens.idf, pages, tokens.rows)


async def _embed_chunks(
    text: str,
    chunks: ChunkTable,
    tokens: _Tokens | None,
    embedder: Embedder,
    progress: OnIndexProgress,
    timer: _Timer,
) -> np.ndarray | None:
    """The chunk vectors (from the tokens when the embedder pools word vectors), or
    ``None`` (reason in ``timer.figures.dense_skipped``) when the embedder fails."""
    started = time.perf_counter()
    try:
        if isinstance(embedder, WordVectorEmbedder) and tokens is not None:
            vectors = await asyncio.to_thread(
                _word_vectors_of, embedder, tokens.word_ids, tokens.words
            )
        else:
            texts = [indexed_text(text, *chunks.span(i)) for i in range(len(chunks))]
            vectors = await embedder.embed(texts, lambda d, t: progress("vectors", d, t))
    except (LLMError, TypeError) as exc:
        timer.figures.dense_skipped = f"the embedder {embedder.id} failed: {exc}"
        return None
    progress("vectors", len(chunks), len(chunks))
    timer.stage("vectors", started)
    return vectors


def _word_vectors_of(
    embedder: WordVectorEmbedder, word_ids: list[list[int]], words: list[str]
) -> np.ndarray:
    lengths, flat = flatten(word_ids)
    weighted = embedder.vocabulary_vectors(words) * embedder.weights_of(words)[:, None]
    return embedder.embed_word_ids(weighted, flat, lengths)


def flatten(word_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-text lengths and all ids laid end to end."""
    lengths = np.fromiter((len(ids) for ids in word_ids), dtype=np.int64, count=len(word_ids))
    flat = np.fromiter(
        (i for ids in word_ids for i in ids), dtype=np.int64, count=int(lengths.sum())
    )
    return lengths, flat


def inverse_document_frequency(word_ids: list[list[int]], vocabulary_size: int) -> np.ndarray:
    """Each word's IDF over the texts (BM25's form: always positive)."""
    lengths, flat = flatten(word_ids)
    texts = np.repeat(np.arange(len(word_ids), dtype=np.int64), lengths)
    pairs = np.sort(texts * vocabulary_size + flat)
    distinct = pairs[np.r_[True, pairs[1:] != pairs[:-1]]] if len(pairs) else pairs
    df = np.bincount(distinct % max(vocabulary_size, 1), minlength=vocabulary_size)
    return idf(df, len(word_ids))
