"""A QA answer may cite an external page: the quote is checked verbatim against the page's
cached text, the judge sees its window there, and the run says which URL it came from."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from ralph_tui.events import BaseEvent, HardValidation
from ralph_tui.loops.runner import RunRequest, execute_run
from ralph_tui.traces.store import TraceStore
from tests.external.site import serve_site
from tests.loops.test_sdk_run import (
    ALL_SUPPORTED,
    DOCUMENT,
    QUOTES,
    Network,
    settings_for,
    worker_reply,
)

PAGE_QUOTE = "Clients send a bearer token with every request."


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


async def test_a_quote_from_an_external_page_is_verified_against_its_cached_text(
    tmp_path: Path,
) -> None:
    document = tmp_path / "doc.txt"
    document.write_text(DOCUMENT)
    network = Network()
    code = "print(retrieve('bearer token for requests', k=1, sources=['external'])[0]['url'])"
    evidence = [PAGE_QUOTE, *QUOTES[:2]]
    answer = "- Send a bearer token.\n- Two days of supply.\n- Backwash every 48 hours."
    network.scripts["anthropic.test"] = [
        worker_reply({"code": code, "resultReady": False}),
        worker_reply({"answer": answer, "evidence": evidence, "resultReady": True}),
    ]
    network.scripts["openai.test"] = [ALL_SUPPORTED]
    with serve_site() as site:
        site.slow_s = 0.0
        settings = settings_for(
            tmp_path,
            max_iters=1,
            external_docs=site.base + "/docs/",
            crawl_timeout_s=1.0,
            allow_local_docs=True,
        )
        events: list[BaseEvent] = []
        outcome = await execute_run(
            RunRequest(mode="qa", query="How do clients authenticate?", doc_path=document,
                       settings=settings),
            on_event=events.append,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
        )  # fmt: skip
        page = site.base + "/docs/a.html"
    assert outcome.status == "passed", outcome.error
    observation = json.dumps(network.requests["anthropic.test"][1]["messages"][-1]["content"])
    assert page in observation, "retrieve() found the external page"
    [hard] = [e for e in events if isinstance(e, HardValidation)]
    verbatim = next(r for r in hard.rules if r.name == "quotes_verbatim")
    assert verbatim.ok and verbatim.message.endswith("(1 in external pages)")
    external, local = outcome.quotes[:2]
    assert (external.source, external.url, external.found) == (page, page, "exact")
    assert external.fetched_at is not None and external.label == page
    assert (local.source, local.url, local.label) == ("doc.txt", None, "doc.txt")
    assert DOCUMENT[local.start : local.end] == QUOTES[0]
    judged = json.dumps(network.requests["openai.test"][0])
    assert PAGE_QUOTE in judged
    [trace] = TraceStore(settings.out_dir).iterations(outcome.session_id)
    assert trace.quotes == outcome.quotes


async def test_a_quote_in_no_source_still_fails(tmp_path: Path) -> None:
    from ralph_tui.validate.qa import check_quotes_verbatim

    pages = {"https://docs.test/a": "Clients send a bearer token with every request."}
    result = check_quotes_verbatim(
        ["Clients send a secret token with every request."], "doc", None, pages
    )
    assert not result.ok and "is not in the document" in result.message
