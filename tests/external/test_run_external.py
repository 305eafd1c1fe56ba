"""External docs in a run, through the CLI and the real openai SDK: the site crawled first,
its passages labelled with URL and title reaching the DocReader beside the document's, the
session recording what was kept and left out; bad input is one line, exit 2, nothing
written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import ExternalProgress, event_from_json
from ralph_tui.traces.store import TraceStore
from tests.external.site import Site, serve_site
from tests.loops.baseline_server import LOCAL_MODELS, BaselineServer, use_server

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
LOCAL = "--allow-local-docs"
"""The site runs on this machine: its user allows a local docs server."""
TASK = "Explain how clients authenticate with a bearer token and the rate limits per key."


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as running:
        running.slow_s = 0.0
        yield running


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


def test_external_passages_reach_the_doc_reader_with_their_urls(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], site: Site
) -> None:
    server = BaselineServer()
    use_server(monkeypatch, server)
    out = tmp_path / "out"
    code = run_cli(
        [
            "run", "--json", "--mode", "task", "--query", TASK, "--doc", str(SAMPLE),
            "--out", str(out), "--maxIters", "1", *LOCAL_MODELS,
            "--externalDocs", site.base + "/docs/", "--allow-local-docs",
            "--externalTopK", "2", "--externalWeight", "1",
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code in (0, 1), captured.err
    assert "external page not used" in captured.err and "HTTP 404" in captured.err

    session = TraceStore(out).load_session(str(result["sessionId"]))
    external = session.model_extra["external"]  # type: ignore[index]
    [source] = external["sources"]
    assert (
        source["source"] == site.base + "/docs/" and site.base + "/docs/a.html" in source["pages"]
    )
    assert {"url": site.base + "/docs/missing.html", "reason": "HTTP 404"} in source["failed"]

    [trace] = TraceStore(out).iterations(str(result["sessionId"]))
    searches = trace.model_extra["retrieval"]  # type: ignore[index]
    [prephase] = [search for search in searches if search["origin"] == "prephase"]
    chosen = [s for s in prephase["selected"] if s["source"] == "external"]
    assert 1 <= len(chosen) <= 2
    first_request = "\n".join(str(m["content"]) for m in server.bodies["doc_reader"][0]["messages"])
    auth = next(s for s in chosen if s["url"] == site.base + "/docs/a.html")
    assert auth["label"].endswith(" Authentication]") and auth["label"] in first_request
    assert "bearer token" in first_request

    events = [
        event_from_json(line)
        for line in (out / "sessions" / str(result["sessionId"]) / "events.jsonl")
        .read_text()
        .splitlines()
    ]
    done = [e for e in events if isinstance(e, ExternalProgress) and e.done]
    assert len(done) == 1 and done[0].fetched >= 5


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--externalDocs", "ftp://example.org/docs"], "http(s) only"),
        (["--externalDocs", "not a url"], "has no scheme"),
        (["--externalDocs", "https://example.org", "--crawlDepth", "-1"], "crawl_depth"),
        (["--externalDocsFile", "MISSING"], "does not exist"),
        (
            ["--externalDocs", "https://example.org/x", "--externalRefresh", "never"],
            "is not in the external docs cache",
        ),
        (["--externalTopK", "9", "--externalTopN", "3"], "externalTopK (9)"),
    ],
)
def test_bad_external_input_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], expected: str
) -> None:
    out = tmp_path / "out"
    flags = [str(tmp_path / "missing.txt") if f == "MISSING" else f for f in flags]
    code = run_cli(
        ["run", "--mode", "qa", "--query", "q", "--doc", str(SAMPLE), "--out", str(out),
         "--provider", "offline", *flags]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert len(captured.err.strip().splitlines()) == 1 and expected in captured.err
    assert not out.exists()


def test_an_external_docs_file_lists_urls_with_comments(tmp_path: Path) -> None:
    from ralph_tui.config import load_settings
    from ralph_tui.external.urls import external_urls

    listing = tmp_path / "urls.txt"
    listing.write_text(
        "# vendor docs\nhttps://Docs.Example.org/api#intro\n\nhttps://b.example/  # b\n"
    )
    settings = load_settings(
        {"external_docs_file": listing, "external_docs": "https://docs.example.org/api"}
    )
    assert external_urls(settings) == ["https://docs.example.org/api", "https://b.example/"]


def test_the_external_command_lists_refreshes_and_clears_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], site: Site
) -> None:
    out = ["--out", str(tmp_path / "out")]
    assert run_cli(["external", "refresh", site.base + "/clean/", LOCAL, *out]) == 0
    refreshed = capsys.readouterr().out
    assert "2 pages, 2 downloaded" in refreshed and "HTTP 404" in refreshed
    assert run_cli(["external", "list", "--json", *out]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {p["url"] for p in listed} == {
        site.base + "/clean/",
        site.base + "/clean/one.html",
        site.base + "/clean/gone.html",
    }
    before = len(site.requests)
    assert run_cli(["external", "refresh", LOCAL, *out]) == 0
    assert "unchanged" in capsys.readouterr().out
    assert len(site.requests) - before == 3, "each cached page revalidated once"
    assert run_cli(["external", "clear", site.base + "/clean/one.html", *out]) == 0
    assert "removed 1 of 1" in capsys.readouterr().out
    # Not cached (any more, or ever): said so, and still exit 0 - it is not in the cache.
    gone = site.base + "/clean/one.html"
    assert run_cli(["external", "clear", gone, site.base + "/clean/", *out]) == 0
    cleared = capsys.readouterr().out.splitlines()
    assert cleared[0] == f"not cached, nothing to remove: {gone}"
    assert cleared[1].startswith("removed 1 of 2 pages from ")
    assert "external list" in cleared[2]
    assert run_cli(["external", "clear", *out]) == 0
    assert "removed 1 page" in capsys.readouterr().out
    assert run_cli(["external", "clear", "ftp://x", *out]) == 2
    assert "http(s) only" in capsys.readouterr().err
