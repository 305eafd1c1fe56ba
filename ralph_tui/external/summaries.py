"""Section summaries of the ``pageindex`` tree by the generate role, cached with the page
(keyed by model and section text, so a changed section or model is summarised anew). The
offline provider keeps the extractive summaries; a failing call keeps them too, with one
notice."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Protocol

from ralph_tui.external.cache import CachedPage, PageCache
from ralph_tui.external.tree import Node, walk
from ralph_tui.llm.errors import LLMError
from ralph_tui.llm.types import ChatMessage, Completion

PROMPT = (
    "Summarise this section of a documentation page in one or two sentences (at most 40 "
    "words), in its own terms. Reply with the summary only.\n\nSection: {path}\n\n{text}"
)
MIN_SECTION_CHARS = 200
"""A shorter section keeps its extractive summary (it is nearly its own summary)."""
MAX_SECTION_CHARS = 6000
CONCURRENT_CALLS = 4


class ChatClient(Protocol):
    provider: str
    model: str

    async def chat(self, messages: list[ChatMessage], *, max_tokens: int = ...) -> Completion: ...


async def summarise_trees(
    pages: list[CachedPage],
    trees: dict[str, list[Node]],
    client: ChatClient,
    cache: PageCache,
    on_notice: Callable[[str], None],
) -> int:
    """Give each long enough section of ``trees`` a summary by ``client`` (from the page's
    cache when it holds one); how many calls were made."""
    if client.provider == "offline":
        return 0
    slots = asyncio.Semaphore(CONCURRENT_CALLS)
    calls = 0
    failed: list[str] = []

    async def summarise(page: CachedPage, node: Node, path: tuple[str, ...]) -> None:
        nonlocal calls
        text = page.text[node.start : node.own_end].strip()
        if len(text) < MIN_SECTION_CHARS:
            return
        key = f"{client.model}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        if key in page.summaries:
            node.summary = page.summaries[key]
            return
        prompt = PROMPT.format(path=" > ".join(path), text=text[:MAX_SECTION_CHARS])
        async with slots:
            try:
                calls += 1
                reply = await client.chat(
                    [ChatMessage(role="user", content=prompt)], max_tokens=200
                )
            except LLMError as exc:
                failed.append(str(exc))
                return
        summary = " ".join(reply.text.split())
        if summary:
            node.summary = page.summaries[key] = summary

    by_url = {page.url: page for page in pages}
    jobs = [
        summarise(by_url[url], node, path)
        for url, roots in trees.items()
        if url in by_url
        for node, path in walk(roots)
    ]
    await asyncio.gather(*jobs)
    for url in trees:
        if url in by_url and by_url[url].summaries:
            cache.save(by_url[url])
    if failed:
        on_notice(
            f"external docs: {len(failed)} section summaries failed ({failed[0]}); "
            "those sections keep their first sentences as summary"
        )
    return calls
