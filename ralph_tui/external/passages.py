"""External pages as retrieval passages. The ``local`` provider chunks each page's text
like the document's; the ``pageindex`` provider chunks each section of the page's tree on
its own, so a passage never spans two sections and carries its section's path and node id.
Every passage is a verbatim span of the cached page text, labelled with its URL, its page's
title (or section path) and its character span there."""

from __future__ import annotations

from collections.abc import Sequence

from ralph_tui.external.cache import CachedPage
from ralph_tui.external.tree import Node, page_tree, walk
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


def page_trees(pages: Sequence[CachedPage]) -> dict[str, list[Node]]:
    """Each page's section tree, by URL."""
    return {page.url: page_tree(page) for page in pages if page.text}


def pageindex_passages(
    pages: Sequence[CachedPage], chunking: Chunking, trees: dict[str, list[Node]] | None = None
) -> list[PassageInfo]:
    """Every page's sections (``trees``, built when not given) chunked on their own."""
    trees = trees if trees is not None else page_trees(pages)
    passages: list[PassageInfo] = []
    for page in pages:
        if page.url not in trees:
            continue
        roots = trees[page.url]
        for node, path in walk(roots):
            start, end = node.start, node.own_end
            if not page.text[start:end].strip():
                continue
            table = [{"start": start, "end": end, "pages": []}]
            chunks = chunk_text(page.text, chunking, table)
            for number in range(len(chunks)):
                a, b = chunks.span(number)
                passages.append(
                    PassageInfo(
                        kind="external",
                        chunk=len(passages),
                        text=page.text[a:b],
                        span=(a, b),
                        url=page.url,
                        extra={
                            "title": f"{' > '.join(path)} (node {node.node_id})",
                            "node": node.node_id,
                            "path": " > ".join(path),
                        },
                    )
                )
    return passages
