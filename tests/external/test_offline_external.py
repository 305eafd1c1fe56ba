"""The offline baseline answers from a fetched page: its worker takes candidate passages
from the run's index, the document's and the external pages' alike, in both inner modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.external.cache import PageCache
from ralph_tui.loops.runner import RunRequest, execute_run
from tests.external.site import serve_site
from tests.loops.test_sdk_run import DOCUMENT, settings_for

PAGE_QUOTE = "Clients send a bearer token with every request."


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
async def test_the_offline_worker_quotes_a_fetched_page(tmp_path: Path, inner: str) -> None:
    document = tmp_path / "doc.txt"
    document.write_text(DOCUMENT)
    with serve_site() as site:
        site.slow_s = 0.0
        settings = settings_for(
            tmp_path,
            provider="offline",
            inner=inner,
            max_iters=1,
            external_docs=site.base + "/docs/",
            allow_local_docs=True,
            crawl_timeout_s=1.0,
        )
        outcome = await execute_run(
            RunRequest(mode="qa", query="How do clients send a bearer token?",
                       doc_path=document, settings=settings),
            on_event=lambda event: None,
        )  # fmt: skip
        page = site.base + "/docs/a.html"
    assert outcome.output is not None, outcome.error
    assert outcome.output["evidence"] == [PAGE_QUOTE]
    [location] = outcome.quotes
    assert (location.source, location.url, location.page, location.found) == (
        page,
        page,
        None,
        "exact",
    )
    cached = PageCache(settings.external_cache).load(page)
    assert cached is not None and location.fetched_at == cached.fetched_at
    assert cached.text[location.start : location.end] == PAGE_QUOTE
