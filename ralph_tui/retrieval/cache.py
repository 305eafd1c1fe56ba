"""The index cache on disk: one folder per document text and chunking, holding the chunk
table, the BM25 index and one vector file per embedder.

Folders and files appear whole (written aside, then renamed), so a crash leaves the old
state or the new. Anything unreadable is reported and rebuilt, never a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ralph_tui.atomic import write_atomic_with
from ralph_tui.json_input import read_json
from ralph_tui.retrieval.chunks import Chunking, ChunkTable
from ralph_tui.retrieval.lexical import LexicalIndex
from ralph_tui.retrieval.pages import PageLeg
from ralph_tui.retrieval.rows import RowIndex

FORMAT = 6
"""Bumped when what is stored changes shape or the words it was built from change (3: text
without spaces is indexed as character pairs; 4: chunks end at page breaks and headings,
carry their page range and context words, and paged documents have a page leg; 5: the
table rows' labels, ``rows.json``; 6: "officer" no longer stems as "offices" does): older
folders are then rebuilt."""

CACHE_ERRORS = (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile)

OnNotice = Callable[[str], None]


@dataclass
class StoredLexical:
    """The embedder-independent part: chunks, BM25, the vocabulary with each word's IDF,
    the page leg and the table rows' labels."""

    chunks: ChunkTable
    lexical: LexicalIndex
    words: list[str]
    idf: np.ndarray
    pages: PageLeg | None = None
    rows: RowIndex | None = None


class IndexCache:
    """Index folders under ``root`` (``<out>/retrieval``)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key_of(text: str, chunking: Chunking, table: Sequence[dict[str, Any]] | None = None) -> str:
        """The folder name of ``text``'s index: its digest with the layout the chunks follow
        (documents, their names, pages and headings) and the chunking."""
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
        digest.update(_layout(table).encode("utf-8", "surrogatepass"))
        return f"{digest.hexdigest()[:20]}-{chunking.key}"

    def folder_of(self, key: str) -> Path:
        return self.root / key

    def drop(self, key: str) -> None:
        """Forget the index of ``key`` (``index --rebuild``)."""
        shutil.rmtree(self.folder_of(key), ignore_errors=True)

    def load_lexical(self, key: str, notice: OnNotice) -> StoredLexical | None:
        folder = self.folder_of(key)
        if not folder.is_dir():
            return None
        try:
            meta = read_json(folder / "meta.json")
            if meta.get("format") != FORMAT:
                # An index another version of ralph-tui built, not a damaged one.
                notice(f"retrieval index cache {folder} is of an older format; rebuilding it")
                shutil.rmtree(folder, ignore_errors=True)
                return None
            with np.load(folder / "chunks.npz") as arrays:
                chunks = ChunkTable.from_arrays(arrays)
                chunk_page = arrays.get("chunk_page")
            lexical = LexicalIndex.load(folder / "bm25")
            pages = None
            if chunk_page is not None:
                if len(chunk_page) != len(chunks):
                    raise ValueError(f"{len(chunk_page)} chunk pages for {len(chunks)} chunks")
                pages = PageLeg(LexicalIndex.load(folder / "pages_bm25"), chunk_page)
            words = read_json(folder / "words.json")
            idf = np.load(folder / "idf.npy")
            if len(words) != meta["words"] or len(idf) != len(words):
                raise ValueError(f"{len(words)} words and {len(idf)} weights, not {meta['words']}")
            rows = RowIndex.from_json(read_json(folder / "rows.json"), len(chunks))
            return StoredLexical(chunks, lexical, words, idf, pages, rows)
        except CACHE_ERRORS as exc:
            notice(f"retrieval index cache {folder} is damaged ({_reason(exc)}); rebuilding it")
            shutil.rmtree(folder, ignore_errors=True)
            return None

    def save_lexical(self, key: str, stored: StoredLexical, notice: OnNotice) -> bool:
        """Keep ``stored`` under ``key``; whether it was written (why not goes to ``notice``)."""
        target = self.folder_of(key)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            aside = Path(tempfile.mkdtemp(dir=self.root, prefix=f".{key}."))
            try:
                arrays = stored.chunks.arrays()
                if stored.pages is not None:
                    arrays["chunk_page"] = stored.pages.chunk_page
                    stored.pages.lexical.save(aside / "pages_bm25")
                np.savez(aside / "chunks.npz", **arrays)  # type: ignore[arg-type]
                stored.lexical.save(aside / "bm25")
                words = json.dumps(stored.words, ensure_ascii=False)
                (aside / "words.json").write_text(words, encoding="utf-8")
                np.save(aside / "idf.npy", stored.idf)
                rows = stored.rows.rows if stored.rows is not None else {}
                (aside / "rows.json").write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
                meta = {"format": FORMAT, "words": len(stored.words), "chunks": len(stored.chunks)}
                (aside / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
                shutil.rmtree(target, ignore_errors=True)
                os.replace(aside, target)
            finally:
                shutil.rmtree(aside, ignore_errors=True)
        except OSError as exc:
            notice(f"retrieval index not cached ({_reason(exc)}): the next run rebuilds it")
            return False
        return True

    def load_vectors(
        self, key: str, embedder_id: str, chunks: int, notice: OnNotice
    ) -> np.ndarray | None:
        path = self._vectors_path(key, embedder_id)
        if not path.is_file():
            return None
        try:
            vectors = np.load(path, mmap_mode="r")
            if vectors.ndim != 2 or vectors.shape[0] != chunks:
                raise ValueError(f"{vectors.shape} vectors for {chunks} chunks")
            return vectors
        except CACHE_ERRORS as exc:
            notice(f"retrieval vectors {path} are damaged ({_reason(exc)}); rebuilding them")
            with contextlib.suppress(OSError):
                path.unlink()
            return None

    def save_vectors(
        self, key: str, embedder_id: str, vectors: np.ndarray, notice: OnNotice
    ) -> None:
        path = self._vectors_path(key, embedder_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            array = np.ascontiguousarray(vectors, dtype=np.float32)
            write_atomic_with(path, lambda handle: np.save(handle, array))
        except OSError as exc:
            notice(f"retrieval vectors not cached ({_reason(exc)}): the next run rebuilds them")

    def _vectors_path(self, key: str, embedder_id: str) -> Path:
        return self.folder_of(key) / f"vectors-{_slug(embedder_id)}.npy"

    def entries(self) -> list[Path]:
        return sorted(p for p in self.root.glob("*") if p.is_dir() and not p.name.startswith("."))


def _layout(table: Sequence[dict[str, Any]] | None) -> str:
    """What of a corpus table shapes its chunks and their context, as text."""
    return json.dumps(
        [
            [
                entry.get("name"),
                entry.get("title"),
                entry.get("start"),
                entry.get("end"),
                [[p.get("page"), p.get("start"), p.get("end")] for p in entry.get("pages") or []],
                [
                    [h.get("level"), h.get("title"), h.get("start")]
                    for h in entry.get("headings") or []
                ],
            ]
            for entry in table or ()
        ],
        ensure_ascii=False,
        default=str,
    )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
