"""The crawler against a real HTTP server on 127.0.0.1 (no other network): depth and page
caps, robots.txt, redirects, formats, failures listed with reasons, the cache and its
refresh policies."""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from ralph_tui.external.cache import PageCache
from ralph_tui.external.crawl import Crawler, CrawlOptions, CrawlReport
from ralph_tui.external.policy import UrlPolicy
from ralph_tui.external.transport import policy_client
from tests.external.site import PDF_TEXT, TABLE_ROW, Site, serve_site

LOCAL_DOCS = UrlPolicy(allow_loopback=True)
"""The site runs on this machine: the policy of a user who allows a local docs server."""


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as running:
        yield running


async def crawl(
    site: Site, path: str, cache: Path, **options: object
) -> tuple[CrawlReport, Crawler]:
    settings = {"timeout_s": 1.0, "policy": LOCAL_DOCS, **options}
    async with policy_client(LOCAL_DOCS) as client:
        crawler = Crawler(CrawlOptions(**settings), PageCache(cache), client)  # type: ignore[arg-type]
        report = await crawler.crawl(site.base + path)
    return report, crawler


def by_path(site: Site, pairs: list[tuple[str, str]]) -> dict[str, str]:
    return {url.removeprefix(site.base): reason for url, reason in pairs}


async def test_depth_one_uses_every_readable_page_and_lists_the_rest(
    site: Site, tmp_path: Path
) -> None:
    report, crawler = await crawl(site, "/docs/", tmp_path)
    pages = {p.url.removeprefix(site.base): p for p in report.pages}
    assert set(pages) == {
        "/docs/", "/docs/a.html", "/docs/b.html", "/docs/moved", "/docs/manual.pdf",
        "/docs/table.html",
    }  # fmt: skip
    assert pages["/docs/moved"].final_url == site.base + "/docs/c.html"
    assert "reached by a redirect" in pages["/docs/moved"].text
    assert pages["/docs/manual.pdf"].format == "pdf" and PDF_TEXT in pages["/docs/manual.pdf"].text
    assert TABLE_ROW in pages["/docs/table.html"].text
    assert pages["/docs/a.html"].title == "Authentication"
    failed = by_path(site, report.failed)
    assert failed["/docs/missing.html"] == "HTTP 404"
    assert failed["/docs/slow.html"].startswith("timed out after 1 s")
    assert failed["/docs/logo.png"].startswith("not a document")
    skipped = dict(report.skipped)
    assert skipped[site.base + "/private/secret.html"] == "robots.txt disallows it"
    assert skipped["https://elsewhere.test/x"] == "off the site"
    assert "/private/secret.html" not in site.paths() and "/docs/deep.html" not in site.paths()
    assert site.requests[0][2]["User-Agent"].startswith("ralph-tui/")
    assert crawler.requests == len(site.requests)


async def test_depth_and_page_caps(site: Site, tmp_path: Path) -> None:
    deep, _ = await crawl(site, "/docs/", tmp_path / "a", depth=2)
    assert site.base + "/docs/deep.html" in {p.url for p in deep.pages}
    capped, _ = await crawl(site, "/docs/", tmp_path / "b", depth=2, max_pages=3)
    assert len(capped.pages) + len(capped.failed) == 3
    assert any(reason == "over the 3-page limit" for _u, reason in capped.skipped)
    alone, _ = await crawl(site, "/docs/", tmp_path / "c", depth=0)
    assert [p.url for p in alone.pages] == [site.base + "/docs/"]


async def test_robots_crawl_delay_spaces_the_requests(tmp_path: Path) -> None:
    with serve_site("User-agent: *\nCrawl-delay: 0.3\n") as site:
        await crawl(site, "/clean/", tmp_path)
        times = [t for t, path, _h in site.requests if path != "/robots.txt"]
    assert len(times) == 3
    assert all(later - earlier >= 0.28 for earlier, later in pairwise(times))


async def test_a_redirect_loop_is_a_failure_with_its_path(site: Site, tmp_path: Path) -> None:
    report, _ = await crawl(site, "/loop/1", tmp_path)
    [(_url, reason)] = report.failed
    assert reason.startswith("redirect loop") and "/loop/2" in reason


async def test_a_page_over_the_size_cap_is_refused(site: Site, tmp_path: Path) -> None:
    report, _ = await crawl(site, "/docs/manual.pdf", tmp_path, max_bytes=100)
    [(_url, reason)] = report.failed
    assert reason.startswith("larger than 0.0001 MB")


async def test_a_second_crawl_within_the_ttl_makes_no_request(site: Site, tmp_path: Path) -> None:
    first, _ = await crawl(site, "/clean/", tmp_path)
    assert first.fetched == 2 and by_path(site, first.failed) == {"/clean/gone.html": "HTTP 404"}
    before = len(site.requests)
    second, crawler = await crawl(site, "/clean/", tmp_path)
    assert crawler.requests == 0 and len(site.requests) == before
    assert [p.url for p in second.pages] == [p.url for p in first.pages]
    assert second.from_cache == 3 and second.fetched == 0, "the 404 is remembered too"
    assert second.failed == first.failed


async def test_refresh_always_revalidates_with_a_conditional_get(
    site: Site, tmp_path: Path
) -> None:
    await crawl(site, "/clean/", tmp_path)
    cache = PageCache(tmp_path)
    stamp = cache.load(site.base + "/clean/")
    assert stamp is not None and stamp.etag
    time.sleep(0.01)
    before = len(site.requests)
    again, _ = await crawl(site, "/clean/", tmp_path, refresh="always")
    conditional = [h.get("If-None-Match") for _t, _p, h in site.requests[before:]]
    assert stamp.etag in conditional
    assert again.fetched == 0 and again.from_cache == 2
    renewed = cache.load(site.base + "/clean/")
    assert renewed is not None and renewed.fetched_at > stamp.fetched_at


async def test_an_expired_ttl_fetches_a_changed_page_anew(site: Site, tmp_path: Path) -> None:
    await crawl(site, "/clean/", tmp_path)
    status, kind, _body = site.routes["/clean/one.html"]
    site.routes["/clean/one.html"] = (
        status,
        kind,
        b"<html><body><p>Rewritten text.</p></body></html>",
    )
    report, _ = await crawl(site, "/clean/", tmp_path, ttl_min=1e-9)
    changed = next(p for p in report.pages if p.url.endswith("one.html"))
    assert "Rewritten text." in changed.text and report.fetched == 1


async def test_refresh_never_uses_the_cache_only(site: Site, tmp_path: Path) -> None:
    cold, crawler = await crawl(site, "/clean/", tmp_path, refresh="never")
    assert crawler.requests == 0 and not cold.pages
    assert cold.failed == [(site.base + "/clean/", "not in the cache (--externalRefresh never)")]
    await crawl(site, "/clean/", tmp_path)
    before = len(site.requests)
    warm, crawler = await crawl(site, "/clean/", tmp_path, refresh="never", ttl_min=1e-9)
    assert crawler.requests == 0 and len(site.requests) == before and len(warm.pages) == 2


async def test_a_refused_connection_is_listed_and_the_crawl_ends(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with policy_client(LOCAL_DOCS) as client:
        options = CrawlOptions(timeout_s=2.0, policy=LOCAL_DOCS)
        crawler = Crawler(options, PageCache(tmp_path), client)
        report = await crawler.crawl(f"http://127.0.0.1:{port}/docs/")
    [(url, reason)] = report.failed
    assert url.endswith("/docs/") and reason.startswith("cannot connect")
    assert not report.pages


async def test_a_page_cached_as_markdown_is_fetched_anew_as_visible_text(
    site: Site, tmp_path: Path
) -> None:
    await crawl(site, "/docs/table.html", tmp_path, depth=0)
    cache = PageCache(tmp_path)
    url = site.base + "/docs/table.html"
    fresh = cache.load(url)
    assert fresh is not None and fresh.headings == [(1, "Limits table", 0)]
    assert fresh.text.startswith("Limits table\n\n") and f"Free\t{TABLE_ROW}" in fresh.text
    cache.save(fresh.model_copy(update={"text": "# Limits table", "headings": None}))
    before = len(site.requests)
    again, _ = await crawl(site, "/docs/table.html", tmp_path, depth=0)
    assert again.fetched == 1 and len(site.requests) > before
    assert again.pages[0].text == fresh.text and again.pages[0].headings == fresh.headings
