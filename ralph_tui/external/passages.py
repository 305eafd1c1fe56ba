"""External pages as retrieval passages. The ``local`` provider chunks each page's text
like the document's; every chunk is a verbatim span of the cached page text, labelled with
its URL, its page's title and its character span there."""

from __future__ import annotations

from collections.abc import Sequence

from ralph_tui.external.cache import CachedPage
from ralph_tui.retrieval.chunks import Chunking, chunk_text
from ralph_tui.retrieval.sources import PassageInfo


def local_passages(pages: Sequence[CachedPage], chunking: Chunking) -> list[PassageInfo]:
    """Every page's chunks, in page order."""
    passages = []
    for page in pages:
        if not page.text:
            continue
        chunks = chunk_text(page.text, chunking)
        for number in range(len(chunks)):
            start, end = chunks.span(number)
            passages.append(
                PassageInfo(
                    kind="external",
                    chunk=number,
                    text=page.text[start:end],
                    span=(start, end),
                    url=page.url,
                    extra={"title": page.title} if page.title else {},
                )
            )
    return passages
