"""Breadth-first crawls of external documentation, one per source URL: to a depth, on the
same site (scheme, host and port), every URL checked by the URL policy, at most N pages, a
few fetches at once, robots.txt honoured, every page served from the cache when the refresh
policy allows, and every page that cannot be used listed with its reason (the crawl goes
on)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import httpx2
from protego import Protego

from ralph_tui.config import Settings
from ralph_tui.errors import UsageError
from ralph_tui.external.cache import CachedPage, PageCache, content_hash
from ralph_tui.external.convert import NotADocument, convert_page
from ralph_tui.external.fetch import USER_AGENT, Fetcher, FetchFailed, HostPacer
from ralph_tui.external.policy import UrlPolicy
from ralph_tui.external.urls import same_site

Refresh = Literal["ttl", "always", "never"]


class NotAllowed(FetchFailed):
    """robots.txt disallows the page: it is skipped, not failed."""


class ExternalError(UsageError):
    """External docs cannot be used as asked (a URL not cached with ``--externalRefresh
    never``); the message says what to do."""

    title = "External docs cannot be used"


@dataclass(frozen=True)
class CrawlOptions:
    depth: int = 1
    max_pages: int = 200
    refresh: Refresh = "ttl"
    ttl_min: float = 1440.0
    concurrency: int = 4
    delay_s: float = 0.0
    timeout_s: float = 20.0
    max_bytes: int = 20_000_000
    policy: UrlPolicy = field(default_factory=UrlPolicy)

    @classmethod
    def of(cls, settings: Settings) -> CrawlOptions:
        return cls(
            depth=settings.crawl_depth,
            max_pages=settings.external_max_pages,
            refresh=settings.external_refresh,
            ttl_min=settings.external_ttl_min,
            concurrency=settings.crawl_concurrency,
            delay_s=settings.crawl_delay_s,
            timeout_s=settings.crawl_timeout_s,
            max_bytes=int(settings.external_page_max_mb * 1_000_000),
            policy=UrlPolicy.of(settings),
        )


@dataclass
class CrawlReport:
    """What one source's crawl gave: its usable pages, and the URLs left out and why."""

    source: str
    pages: list[CachedPage] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    fetched: int = 0
    """Pages downloaded (a 304 or a fresh cache entry is not)."""
    from_cache: int = 0
    queued: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "pages": [p.url for p in self.pages],
            "fetched": self.fetched,
            "fromCache": self.from_cache,
            "failed": [{"url": u, "reason": r} for u, r in self.failed],
            "skipped": [{"url": u, "reason": r} for u, r in self.skipped],
        }


OnCrawlProgress = Callable[[CrawlReport, bool], None]
"""A source's report so far, and whether its crawl is done."""


class Crawler:
    """Crawls sources through one HTTP client, one page cache and one robots policy."""

    def __init__(
        self,
        options: CrawlOptions,
        cache: PageCache,
        client: httpx2.AsyncClient,
        on_progress: OnCrawlProgress | None = None,
    ) -> None:
        self.options = options
        self.cache = cache
        self.pacer = HostPacer(options.delay_s)
        self.fetcher = Fetcher(
            client,
            self.pacer,
            timeout_s=options.timeout_s,
            max_bytes=options.max_bytes,
            policy=options.policy,
        )
        self.on_progress = on_progress or (lambda _r, _d: None)
        self._robots: dict[str, Protego | None] = {}
        self._robots_lock = asyncio.Lock()
        self._slots = asyncio.Semaphore(options.concurrency)

    @property
    def requests(self) -> int:
        return self.fetcher.requests

    async def crawl(self, source: str) -> CrawlReport:
        """Breadth-first from ``source``, level by level, in the order links were found."""
        report = CrawlReport(source)
        seen = {source}
        level = [source]
        visited = 0
        for depth in range(self.options.depth + 1):
            room = max(self.options.max_pages - visited, 0)
            batch, over = level[:room], level[room:]
            limit = f"over the {self.options.max_pages}-page limit"
            report.skipped += [(url, limit) for url in over]
            visited += len(batch)
            report.queued = len(batch)
            self.on_progress(report, False)
            found = await asyncio.gather(*(self._visit(url, report) for url in batch))
            if depth == self.options.depth:
                break
            level = []
            for link in (link for links in found for link in links):
                if link in seen:
                    continue
                seen.add(link)
                if same_site(source, link):
                    level.append(link)
                else:
                    report.skipped.append((link, "off the site"))
            if not level:
                break
        report.queued = 0
        self.on_progress(report, True)
        return report

    async def _visit(self, url: str, report: CrawlReport) -> list[str]:
        """Use ``url``'s page (cached or fetched) and return its links."""
        async with self._slots:
            try:
                page = await self._page(url, report)
            except NotAllowed as exc:
                report.skipped.append((url, str(exc)))
                return []
            except FetchFailed as exc:
                report.failed.append((url, str(exc)))
                return []
            finally:
                report.queued -= 1
                self.on_progress(report, False)
        if page.error:
            report.failed.append((url, page.error))
        else:
            report.pages.append(page)
        return page.links

    async def _page(self, url: str, report: CrawlReport) -> CachedPage:
        self.fetcher.check(url)  # before the cache: what is refused is not used from it
        cached = self.cache.load(url)
        refresh = self.options.refresh
        if cached is not None and cached.holds_markdown and refresh != "never":
            cached = None
        if refresh == "never":
            if cached is None:
                raise FetchFailed("not in the cache (--externalRefresh never)")
            report.from_cache += 1
            return cached
        if refresh == "ttl" and cached is not None and cached.age_min() < self.options.ttl_min:
            report.from_cache += 1
            return cached
        if not await self._allowed(url):
            raise NotAllowed("robots.txt disallows it")
        conditional = _conditional_headers(cached) if cached is not None and cached.text else {}
        try:
            fetched = await self.fetcher.get(url, conditional)
        except FetchFailed as exc:
            if exc.permanent:
                self.cache.save(_failed_page(url, str(exc)))
            raise
        if fetched.not_modified and cached is not None:
            revalidated = cached.model_copy(update={"fetched_at": time.time()})
            self.cache.save(revalidated)
            report.from_cache += 1
            return revalidated
        report.fetched += 1
        page = _page_of(
            fetched.url, fetched.final_url, fetched.status, fetched.headers, fetched.body
        )
        self.cache.save(page)
        return page

    async def _allowed(self, url: str) -> bool:
        parsed = httpx2.URL(url)
        origin = f"{parsed.scheme}://{parsed.netloc.decode()}"
        async with self._robots_lock:
            if origin not in self._robots:
                self._robots[origin] = await self._robots_of(origin)
        robots = self._robots[origin]
        return robots is None or robots.can_fetch(url, USER_AGENT)

    async def _robots_of(self, origin: str) -> Protego | None:
        """The site's robots.txt (cached like a page), or ``None`` when it has none."""
        url = f"{origin}/robots.txt"
        cached = self.cache.load(url)
        fresh = cached is not None and cached.age_min() < self.options.ttl_min
        if cached is not None and (fresh or self.options.refresh == "never"):
            text = cached.text
        else:
            try:
                fetched = await self.fetcher.get(url)
                text = fetched.body.decode("utf-8", errors="replace")
            except FetchFailed:
                text = ""
            self.cache.save(
                CachedPage(url=url, final_url=url, fetched_at=time.time(), status=200, text=text)
            )
        if not text.strip():
            return None
        robots = Protego.parse(text)
        delay = robots.crawl_delay(USER_AGENT)
        if delay:
            self.pacer.host_delays[httpx2.URL(origin).host] = float(delay)
        return robots


def _conditional_headers(page: CachedPage) -> dict[str, str]:
    headers = {}
    if page.etag:
        headers["If-None-Match"] = page.etag
    if page.last_modified:
        headers["If-Modified-Since"] = page.last_modified
    return headers


def _failed_page(url: str, reason: str) -> CachedPage:
    return CachedPage(url=url, final_url=url, fetched_at=time.time(), status=0, error=reason)


def _page_of(
    url: str, final_url: str, status: int, headers: dict[str, str], body: bytes
) -> CachedPage:
    content_type = headers.get("content-type", "")
    page = CachedPage(
        url=url,
        final_url=final_url,
        fetched_at=time.time(),
        status=status,
        etag=headers.get("etag"),
        last_modified=headers.get("last-modified"),
        content_type=content_type,
        content_hash=content_hash(body),
    )
    try:
        converted = convert_page(body, content_type, final_url)
    except NotADocument as exc:
        return page.model_copy(update={"error": f"not a document: {exc}"})
    return page.model_copy(
        update={
            "format": converted.format,
            "title": converted.title,
            "text": converted.text,
            "pages": converted.pages,
            "links": converted.links,
            "outline": converted.outline,
            "headings": [(h.level, h.title, h.start) for h in converted.headings],
        }
    )
