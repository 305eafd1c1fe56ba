"""Fetched external pages on disk: one JSON file per URL, written atomically, holding what
a later run needs to skip the request (fresh within the TTL) or make it conditional (ETag,
Last-Modified), and the page's text and links so a cached crawl needs no network at all."""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ralph_tui.atomic import write_atomic

PAGES_FOLDER = "pages"


class CachedPage(BaseModel):
    """One fetched URL: a page with its text, or a page that could not be used and why."""

    url: str
    final_url: str
    fetched_at: float
    status: int
    etag: str | None = None
    last_modified: str | None = None
    content_type: str = ""
    content_hash: str = ""
    format: str | None = None
    title: str = ""
    text: str = ""
    pages: list[str] | None = None
    """A PDF's pages (``text`` is them joined by a blank line)."""
    outline: list[tuple[int, str, int]] = Field(default_factory=list)
    """A PDF's bookmarks: ``(level, title, page index)``."""
    headings: list[tuple[int, str, int]] | None = None
    """The page's headings beside its text: ``(level, title, offset in text)``; ``None``
    in an entry cached before headings were kept (its HTML text holds Markdown marks)."""
    summaries: dict[str, str] = Field(default_factory=dict)
    """Section summaries by a model, keyed by model and section text hash."""
    links: list[str] = Field(default_factory=list)
    """Same-document links found on the page, absolute and normalised."""
    error: str | None = None
    """Why the page has no text (not a supported format, robots.txt, ...)."""

    @property
    def is_robots(self) -> bool:
        """A site's robots.txt, kept beside its pages (not a page itself)."""
        return self.url.endswith("/robots.txt")

    @property
    def holds_markdown(self) -> bool:
        """An HTML page cached when its text was converted to Markdown: fetched anew, so
        quotes from it are the text a person sees on the page."""
        return self.format == "html" and self.headings is None

    def age_min(self, now: float | None = None) -> float:
        return ((now or time.time()) - self.fetched_at) / 60


class PageCache:
    """Pages under ``root/pages``, by URL."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / PAGES_FOLDER

    def path_of(self, url: str) -> Path:
        return self.folder / f"{hashlib.sha256(url.encode()).hexdigest()[:32]}.json"

    def load(self, url: str) -> CachedPage | None:
        """The cached page of ``url``; ``None`` when absent or unreadable (fetched anew)."""
        try:
            return CachedPage.model_validate_json(self.path_of(url).read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def save(self, page: CachedPage) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path_of(page.url), page.model_dump_json())

    def pages(self) -> Iterator[CachedPage]:
        """Every readable cached page (robots.txt records aside)."""
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("*.json")):
            try:
                page = CachedPage.model_validate_json(path.read_bytes())
            except (OSError, ValidationError, ValueError):
                continue
            if not page.is_robots:
                yield page

    def remove(self, url: str) -> bool:
        path = self.path_of(url)
        existed = path.exists()
        path.unlink(missing_ok=True)
        return existed

    def clear(self) -> int:
        """Remove every cached page (and robots.txt record); how many pages there were."""
        count = sum(1 for _ in self.pages())
        shutil.rmtree(self.folder, ignore_errors=True)
        return count


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def external_texts(root: Path, urls: list[str]) -> dict[str, str]:
    """The cached text of each page of ``urls`` under ``root`` that has one, by URL."""
    cache = PageCache(root)
    pages = (cache.load(url) for url in urls)
    return {page.url: page.text for page in pages if page is not None and page.text}
