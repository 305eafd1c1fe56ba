"""The offline baseline gathers its quotes from every fetched page it retrieves, as it does
from the documents: a question the crawled site answers on several pages is answered with
several quotes, enough for the count check, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from tests.external.site import page, serve_site

DATA = Path(__file__).parents[1] / "offline" / "data"

PAGES = {
    "/docs/limits.html": (
        "Rate limits",
        "The API allows 600 requests per minute for each token. A client that sends more"
        " requests per minute gets status 429 until the minute ends.",
    ),
    "/docs/retries.html": (
        "Retries",
        "A client that is rate limited waits for the number of seconds the Retry-After"
        " header gives before it sends the request again.",
    ),
    "/docs/batches.html": (
        "Batches",
        "A batch request counts as one request against the rate limit, whatever the number"
        " of items it holds.",
    ),
    "/docs/tokens.html": (
        "Tokens",
        "Each token has its own rate limit, so two tokens of one account may each send 600"
        " requests per minute.",
    ),
}


FILLER = [
    "The guide describes each endpoint with its path, its parameters and an example.",
    "Responses are JSON objects whose fields are named in lower case with underscores.",
    "Dates are written in ISO 8601 form and always carry a time zone offset.",
    "Every list endpoint returns at most one hundred items and a cursor for the next page.",
    "Errors come as an object with a code, a message and a link to this guide.",
    "The examples use curl, but any HTTP client that sends the headers works as well.",
]
"""Paragraphs every page of the site holds around the one that answers."""


def long_page(body: str, topic: int) -> str:
    """A page of the site: filler paragraphs, the page's own paragraph in the middle."""
    before = [f"{text} This page is about topic {topic}." for text in FILLER[:3]]
    after = [f"{text} See topic {topic + 1} next." for text in FILLER[3:]]
    return "</p><p>".join([*before, body, *after])


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


@pytest.mark.parametrize("inner", ["rlm", "lcm"])
def test_keyless_qa_quotes_each_fetched_page_that_answers(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "plant.txt"
    document.write_text((DATA / "GPL-3.txt").read_text(encoding="utf-8"))
    html = "text/html; charset=utf-8"
    with serve_site() as site:
        site.slow_s = 0.0
        site.routes = {"/robots.txt": (200, "text/plain", b"User-agent: *\n")}
        site.routes["/docs/"] = (200, html, page("API Guide", "The guide.", list(PAGES)))
        for n, (path, (title, body)) in enumerate(PAGES.items()):
            site.routes[path] = (200, html, page(title, long_page(body, n), []))
        code = run_cli(["run", "--provider", "offline", "--json", "--mode", "qa",
                        "--inner", inner, "--doc", str(document),
                        "--query", "How many requests per minute does the rate limit allow?",
                        "--externalDocs", site.base + "/docs/", "--allowLocalDocs",
                        "--out", str(tmp_path / "out"), "--maxIters", "2"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    output = result["output"]
    assert (code, result["status"]) == (0, "passed"), output
    assert len(output["evidence"]) >= 3
    bodies = [body for _, body in PAGES.values()]
    assert all(any(quote in body for body in bodies) for quote in output["evidence"])
