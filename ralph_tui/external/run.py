"""A run's external documentation: every source crawled (at once, each reporting progress
as an event), the pages kept, the ones left out listed, and the passages they give."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx2

from ralph_tui.config import Settings
from ralph_tui.documents import InputError
from ralph_tui.events import Emit, ExternalProgress
from ralph_tui.external.cache import CachedPage, PageCache
from ralph_tui.external.crawl import Crawler, CrawlOptions, CrawlReport
from ralph_tui.external.passages import local_passages, page_trees, pageindex_passages
from ralph_tui.external.policy import REFUSED
from ralph_tui.external.summaries import ChatClient, summarise_trees
from ralph_tui.external.transport import policy_client
from ralph_tui.external.urls import external_urls
from ralph_tui.retrieval.chunks import Chunking
from ralph_tui.retrieval.sources import PassageInfo

HOSTED_PAGEINDEX_NOTE = (
    "PAGEINDEX_API_KEY is set, but the hosted PageIndex service is not called: the section "
    "trees are built here, from each page's headings"
)


@dataclass
class ExternalDocs:
    """The crawled sources of a run and the passages their pages give."""

    reports: list[CrawlReport] = field(default_factory=list)
    passages: list[PassageInfo] = field(default_factory=list)
    requests: int = 0
    provider: str = "local"
    trees: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    """Each page's section tree (``pageindex`` provider), by URL."""
    notes: list[str] = field(default_factory=list)

    @property
    def pages(self) -> list[CachedPage]:
        return [page for report in self.reports for page in report.pages]

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "requests": self.requests,
            "sources": [r.to_json() for r in self.reports],
            "trees": self.trees,
            "notes": self.notes,
        }


def _refusal_notes(reports: list[CrawlReport]) -> list[str]:
    """A note for each source the URL policy refused outright, and one more when that
    leaves the run with no external docs at all."""
    refused = [
        f"external docs {report.source} not fetched: {reason}"
        for report in reports
        for url, reason in report.failed
        if url == report.source and reason.startswith(REFUSED)
    ]
    if refused and len(refused) == len(reports):
        refused.append("no external documentation was used: the URL policy refused every URL given")
    return refused


def check_external(settings: Settings) -> list[str]:
    """The run's external URLs, checked before anything is written: bad ones, or (with
    ``--externalRefresh never``) ones not in the cache, are an ``InputError``."""
    urls = external_urls(settings)
    if settings.external_refresh == "never":
        cache = PageCache(settings.external_cache)
        missing = [url for url in urls if cache.load(url) is None]
        if missing:
            raise InputError(
                f"{missing[0]} is not in the external docs cache ({settings.external_cache}) "
                "and --externalRefresh is never: run once with ttl or always to fetch it"
            )
    return urls


async def gather_external(
    settings: Settings,
    urls: list[str],
    emit: Emit,
    client: httpx2.AsyncClient | None = None,
    summariser: ChatClient | None = None,
) -> ExternalDocs:
    """Crawl every source of ``urls`` and chunk its pages (with ``pageindex``, section by
    section, each section summarised by ``summariser`` when one is given)."""
    docs = ExternalDocs()
    if not urls:
        return docs

    def progress(report: CrawlReport, done: bool) -> None:
        emit(
            ExternalProgress(
                source=report.source,
                kept=len(report.pages),
                fetched=report.fetched,
                from_cache=report.from_cache,
                queued=max(report.queued, 0),
                failed=len(report.failed),
                skipped=len(report.skipped),
                done=done,
                pages=[page.url for page in report.pages] if done else [],
                cache_dir=str(settings.external_cache) if done else None,
            )
        )

    cache = PageCache(settings.external_cache)
    own = client is None
    options = CrawlOptions.of(settings)
    http = client or policy_client(options.policy)
    try:
        crawler = Crawler(options, cache, http, progress)
        docs.reports = list(await asyncio.gather(*(crawler.crawl(url) for url in urls)))
        docs.requests = crawler.requests
    finally:
        if own:
            await http.aclose()
    docs.notes += _refusal_notes(docs.reports)
    chunking = Chunking(size=settings.chunk_size, overlap=settings.chunk_overlap)
    docs.provider = settings.external_provider
    if settings.external_provider == "pageindex":
        trees = page_trees(docs.pages)
        if summariser is not None:
            await summarise_trees(docs.pages, trees, summariser, cache, docs.notes.append)
        docs.passages = pageindex_passages(docs.pages, chunking, trees)
        docs.trees = {url: [node.to_json() for node in roots] for url, roots in trees.items()}
        if settings.pageindex_api_key is not None:
            docs.notes.append(HOSTED_PAGEINDEX_NOTE)
    else:
        docs.passages = local_passages(docs.pages, chunking)
    return docs
