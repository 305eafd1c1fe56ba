"""Searchable collections of passages, one per source kind: the document's chunks, past
episodes, external-doc chunks. Each has a lexical leg, maybe a dense one, and labels."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ralph_tui.evidence import page_label
from ralph_tui.llm.errors import LLMError
from ralph_tui.retrieval.context import document_words
from ralph_tui.retrieval.dense import ExactVectorStore, VectorStore
from ralph_tui.retrieval.embedders import Embedder
from ralph_tui.retrieval.index import DocumentIndex
from ralph_tui.retrieval.lexical import LexicalIndex
from ralph_tui.retrieval.naming import name_terms, named_documents
from ralph_tui.retrieval.pages import PageLeg
from ralph_tui.retrieval.rows import RowIndex
from ralph_tui.retrieval.words import Vocabulary

SourceKind = Literal["doc", "episode", "external"]
SOURCE_KINDS: tuple[SourceKind, ...] = ("doc", "episode", "external")


@dataclass
class PassageInfo:
    """Where a passage comes from: enough to label it and to find it again."""

    kind: SourceKind
    chunk: int
    text: str
    span: tuple[int, int] | None = None
    """Character span in the source's text (the document's, or a cached external page's)."""
    url: str | None = None
    document: str | None = None
    page: int | None = None
    """The page it is labelled with: where most of its text is."""
    pages: list[int] = field(default_factory=list)
    """Every page it spans, in order (``[page]`` for a passage within one page)."""
    ocr: bool = False
    """Whether any of its text was read by OCR: one of ``pages`` is marked ``"ocr"`` in the
    documents table (a scanned page, an image)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.url or ''}:{self.chunk}"

    @property
    def label(self) -> str:
        where = ""
        if self.url:
            where = f" url={self.url}"
        if self.span is not None:
            where += f" chars {self.span[0]}-{self.span[1]}"
        if self.document:
            where += f" {self.document}" + (f" {self.page_label}" if self.page else "")
        title = self.extra.get("title")
        noun = {"doc": "chunk", "episode": "iteration", "external": "chunk"}[self.kind]
        number = self.extra.get("iteration", self.chunk) if self.kind == "episode" else self.chunk
        label = f"[source={self.kind} {noun} {number}{where}"
        return label + (f" {title}]" if title else "]")

    @property
    def page_label(self) -> str:
        """``p. 53`` or, for a passage over a page break, ``p. 53–54`` (empty without a
        page)."""
        return page_label(self.page, self.pages)


class PassageSource:
    """Passages of one kind with their legs; subclasses say what a passage is."""

    kind: SourceKind
    lexical: LexicalIndex | None
    store: VectorStore | None
    embedder_id: str | None
    pages: PageLeg | None = None
    """The page leg (paged documents only)."""
    rows: RowIndex | None = None
    """The row leg: the chunks holding each table row label (documents only)."""

    def __len__(self) -> int:
        raise NotImplementedError

    def info(self, index: int) -> PassageInfo:
        raise NotImplementedError

    def named(self, query: str) -> tuple[np.ndarray | None, list[str]]:
        """The passages of the documents ``query`` names (a boolean mask) and their names;
        ``(None, [])`` when it names none (see ``naming``)."""
        return None, []


class DocumentSource(PassageSource):
    """The run's document (a corpus of several, joined), by chunk."""

    kind: SourceKind = "doc"

    def __init__(self, index: DocumentIndex, table: Sequence[dict[str, Any]] | None = None):
        self.index = index
        self.lexical = index.lexical
        self.pages = index.pages
        self.rows = index.rows
        self.store = ExactVectorStore(index.vectors) if index.vectors is not None else None
        self.embedder_id = index.figures.embedder if index.vectors is not None else None
        self._names = [str(entry["name"]) for entry in table] if table and len(table) > 1 else []
        self._paged = [bool(entry.get("pages")) for entry in table] if table else []
        self._ocr_pages = [
            frozenset(page["page"] for page in entry.get("pages") or () if page.get("ocr"))
            for entry in table or ()
        ]
        """Each document's pages whose text OCR read, as the table marks them."""
        self._name_terms = name_terms([document_words(entry) for entry in table or ()])

    def named(self, query: str) -> tuple[np.ndarray | None, list[str]]:
        numbers = named_documents(query, self._name_terms)
        if not numbers:
            return None, []
        mask = np.isin(self.index.chunks.documents, numbers)
        return mask, [self._names[number] for number in numbers]

    def __len__(self) -> int:
        return len(self.index.chunks)

    def info(self, index: int) -> PassageInfo:
        chunks = self.index.chunks
        start, end = chunks.span(index)
        number = int(chunks.documents[index])
        paged = self._paged[number] if number < len(self._paged) else False
        pages = chunks.page_range(index) if paged else []
        ocr = number < len(self._ocr_pages) and not self._ocr_pages[number].isdisjoint(pages)
        return PassageInfo(
            kind="doc",
            chunk=index,
            text=self.index.text[start:end],
            span=(start, end),
            document=self._names[number] if self._names else None,
            page=int(chunks.pages[index]) if paged else None,
            pages=pages,
            ocr=ocr,
        )


class TextSource(PassageSource):
    """A small collection of whole texts (episodes, external chunks), indexed in memory."""

    def __init__(
        self,
        kind: SourceKind,
        passages: list[PassageInfo],
        lexical: LexicalIndex | None,
        store: VectorStore | None,
        embedder_id: str | None,
    ) -> None:
        self.kind = kind
        self.passages = passages
        self.lexical = lexical
        self.store = store
        self.embedder_id = embedder_id

    def __len__(self) -> int:
        return len(self.passages)

    def info(self, index: int) -> PassageInfo:
        return self.passages[index]

    @classmethod
    async def build(
        cls, kind: SourceKind, passages: list[PassageInfo], embedder: Embedder | None
    ) -> TextSource:
        """Index ``passages``; an embedder that fails leaves the lexical leg alone."""
        if not passages:
            return cls(kind, [], None, None, None)
        vocabulary = Vocabulary()
        word_ids = [vocabulary.encode(p.text) for p in passages]
        lexical = await asyncio.to_thread(LexicalIndex.build, word_ids, vocabulary.words)
        store, embedder_id = None, None
        if embedder is not None:
            try:
                vectors = await embedder.embed([p.text for p in passages])
            except LLMError:
                vectors = None
            if vectors is not None and len(vectors) == len(passages):
                store, embedder_id = ExactVectorStore(np.asarray(vectors)), embedder.id
        return cls(kind, passages, lexical, store, embedder_id)


def episode_passages(episodes: Sequence[dict[str, Any]]) -> list[PassageInfo]:
    """One passage per past episode: what its iteration found and produced."""
    passages = []
    for number, episode in enumerate(episodes):
        text = "\n".join(
            str(episode.get(field_name) or "")
            for field_name in ("memoryUpdate", "brief", "output")
            if episode.get(field_name)
        ).strip()
        if text:
            passages.append(
                PassageInfo(
                    kind="episode",
                    chunk=number,
                    text=text,
                    extra={"iteration": episode.get("iteration", number + 1)},
                )
            )
    return passages
