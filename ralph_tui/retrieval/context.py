"""What a chunk is about beyond its own words: the document it is from (when the index
holds several) and the headings it stands under. The lexical leg indexes these words with
the chunk's, so "Adobe's current assets" finds the balance sheet of Adobe's filing in a
folder of filings, and "liquidity" finds the paragraphs under "Liquidity and Capital
Resources" that never repeat the word. The chunk's text (what a passage quotes) is unchanged.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from ralph_tui.retrieval.chunks import ChunkTable, section_headings


def document_words(entry: dict[str, Any]) -> str:
    """A document's name as words (``ADOBE_2019_10K.pdf`` -> ``ADOBE 2019 10K``) and its
    title when the table knows one."""
    name = re.sub(r"[\W_]+", " ", PurePath(str(entry.get("name") or "")).stem).strip()
    title = str(entry.get("title") or "")
    return " ".join(part for part in (name, title) if part)


def named_documents(table: Sequence[dict[str, Any]] | None) -> bool:
    """Whether documents' names tell chunks apart: only when there are several."""
    return bool(table) and len(table or ()) > 1


def chunk_contexts(chunks: ChunkTable, table: Sequence[dict[str, Any]] | None) -> list[str]:
    """Each chunk's context words: its document's name and title (several documents), then
    the titles of the headings it stands under, outermost first (none of a document with
    pages: a PDF's section titles, indexed with each chunk below them, lowered hit@5 on the
    filings benchmark — they are words of the page its section starts on, where the page
    leg counts them)."""
    if not table:
        return [""] * len(chunks)
    named = named_documents(table)
    paths = [_heading_paths(entry) for entry in table]
    contexts = []
    for start, number in zip(chunks.starts.tolist(), chunks.documents.tolist(), strict=True):
        entry = table[number]
        starts, titles = paths[number]
        index = bisect.bisect_right(starts, start) - 1
        under = titles[index] if index >= 0 else ""
        name = document_words(entry) if named else ""
        contexts.append(f"{name}\n{under}".strip())
    return contexts


def _heading_paths(entry: dict[str, Any]) -> tuple[list[int], list[str]]:
    """Each heading's start and the titles of its path (its ancestors and itself)."""
    starts: list[int] = []
    titles: list[str] = []
    stack: list[tuple[int, str]] = []
    if entry.get("pages"):
        return starts, titles
    for heading in sorted(section_headings(entry), key=lambda h: int(h["start"])):
        level = int(heading.get("level") or 1)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, str(heading.get("title") or "")))
        starts.append(int(heading["start"]))
        titles.append("\n".join(title for _, title in stack))
    return starts, titles
