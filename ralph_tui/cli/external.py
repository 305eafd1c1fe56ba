"""``ralph-tui external list|refresh|clear``: the external documentation cache."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from ralph_tui.cli.settings_flags import settings_from_args
from ralph_tui.config import Settings
from ralph_tui.counts import counted
from ralph_tui.events import BaseEvent, ExternalProgress
from ralph_tui.external.cache import CachedPage, PageCache
from ralph_tui.external.run import gather_external
from ralph_tui.external.urls import external_urls, parse_url


def run_external(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    cache = PageCache(settings.external_cache)
    if args.action == "list":
        return _list(cache, as_json=args.json)
    if args.action == "clear":
        return _clear(cache, [parse_url(url, "URL") for url in args.urls])
    return asyncio.run(_refresh(settings, cache, args.urls))


def _list(cache: PageCache, *, as_json: bool) -> int:
    pages = list(cache.pages())
    if as_json:
        print(json.dumps([_summary(page) for page in pages], ensure_ascii=False))
        return 0
    if not pages:
        print(f"no cached pages in {cache.root}")
        return 0
    for page in pages:
        age = _age(page.fetched_at)
        what = f"error: {page.error}" if page.error else f"{len(page.text):,} chars  {page.title}"
        print(f"{page.url}  ({age} ago, {page.format or '-'})  {what}")
    print(f"{counted(len(pages), 'page')} in {cache.root}")
    return 0


def _clear(cache: PageCache, urls: list[str]) -> int:
    """Remove the pages of ``urls`` (all pages when none is given), saying which were not
    cached. Exit 0 either way: afterwards none of them is in the cache, as asked."""
    if not urls:
        print(f"removed {counted(cache.clear(), 'page')} from {cache.root}")
        return 0
    distinct = list(dict.fromkeys(urls))
    absent = [url for url in distinct if not cache.remove(url)]
    for url in absent:
        print(f"not cached, nothing to remove: {url}")
    removed = len(distinct) - len(absent)
    print(f"removed {removed:,} of {counted(len(distinct), 'page')} from {cache.root}")
    if absent:
        print("(`ralph-tui external list` shows the cached pages)")
    return 0


async def _refresh(settings: Settings, cache: PageCache, given: list[str]) -> int:
    urls = [parse_url(url, "URL") for url in given] + external_urls(settings)
    if urls:
        chosen = settings.model_copy(update={"external_refresh": "always"})
    else:
        urls = [p.url for p in cache.pages()]
        chosen = settings.model_copy(update={"external_refresh": "always", "crawl_depth": 0})
    if not urls:
        print(f"nothing to refresh: no URL given and no page in {cache.root}")
        return 0
    docs = await gather_external(chosen, list(dict.fromkeys(urls)), _progress)
    for report in docs.reports:
        print(
            f"{report.source}: {counted(len(report.pages), 'page')}, {report.fetched} downloaded, "
            f"{report.from_cache} unchanged, {len(report.failed)} failed, "
            f"{len(report.skipped)} skipped"
        )
        for url, reason in report.failed:
            print(f"  failed: {url}: {reason}")
    for note in docs.notes:
        print(note)
    return 0


def _progress(event: BaseEvent) -> None:
    if isinstance(event, ExternalProgress) and not event.done:
        print(
            f"crawling {event.source}: {counted(event.kept, 'page')} kept, {event.queued} queued, "
            f"{event.failed} failed, {event.skipped} skipped",
            file=sys.stderr,
            flush=True,
        )


def _summary(page: CachedPage) -> dict[str, Any]:
    return {
        "url": page.url,
        "finalUrl": page.final_url,
        "fetchedAt": page.fetched_at,
        "format": page.format,
        "title": page.title,
        "chars": len(page.text),
        "error": page.error,
    }


def _age(fetched_at: float) -> str:
    minutes = max(0.0, (time.time() - fetched_at) / 60)
    if minutes < 60:
        return f"{minutes:.0f} min"
    if minutes < 48 * 60:
        return f"{minutes / 60:.0f} h"
    return f"{minutes / 1440:.0f} days"
