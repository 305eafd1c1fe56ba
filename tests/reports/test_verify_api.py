"""``verify`` from the Python API: quotes of a real offline run hold in their document and
stop holding when it is edited; PDF quotes keep their page spans; an external page is
fetched anew (through a mocked transport) or, offline, left "not checked"; a quote the run
found as a near miss holds as long as the text around it does."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx2
import pytest

from ralph_tui import QuoteResult, VerifyReport, ask, averify, verify
from ralph_tui.documents.convert import converter_version
from ralph_tui.documents.errors import InputError
from ralph_tui.evidence import QuoteLocation
from ralph_tui.external.cache import content_hash
from ralph_tui.external.convert import convert_page
from ralph_tui.reports.bundle import BundleSource
from tests.documents.fixtures import write_pdf
from tests.reports.bundles import locate, make_bundle, read_source, write_bundle

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"
QUESTION = "How often are the filters backwashed, and what triggers an early backwash?"
URL = "https://docs.example.test/guide/auth.html"
PAGE_QUOTE = "Clients send a bearer token with every request to the API."


@pytest.fixture(autouse=True)
def isolated(clean_env: None) -> None:
    return None


def test_the_quotes_of_an_offline_run_hold_until_the_document_is_edited(tmp_path: Path) -> None:
    document = tmp_path / "sample.md"
    shutil.copy(SAMPLE, document)
    result = ask(QUESTION, document, provider="offline", out_dir=tmp_path / "out", max_iters=1)
    located = [e for e in result.evidence if e.start is not None and e.end is not None]
    assert len(located) >= 3, result.evidence
    source, _ = read_source(document)
    quotes = [
        QuoteLocation(
            number=n, text=e.quote, found="exact", source=e.document, start=e.start, end=e.end
        )
        for n, e in enumerate(located, 1)
    ]
    bundle = write_bundle(tmp_path / "bundle.json", make_bundle([source], quotes))

    report = verify(bundle, out_dir=tmp_path / "out")
    assert isinstance(report, VerifyReport)
    assert report.ok and report.exit_code == 0
    assert [q.status for q in report.quotes] == ["holds"] * len(quotes)
    assert all(isinstance(q, QuoteResult) and q.found == q.saved for q in report.quotes)

    text = document.read_text(encoding="utf-8")
    first = located[0].quote
    document.write_text(text.replace(first, first.upper()), encoding="utf-8")
    edited = verify(bundle, out_dir=tmp_path / "out")
    assert not edited.ok and edited.exit_code == 1
    assert edited.quotes[0].status == "changed"
    assert edited.quotes[0].closest is not None
    assert edited.quotes[0].closest.text == first.upper()


def test_a_pdf_quote_keeps_its_page_span_and_moves_with_its_page(tmp_path: Path) -> None:
    quote = "The maintenance manual says pumps are greased every 500 hours."
    pdf = write_pdf(tmp_path / "manual.pdf", [["Contents of the manual."], ["Pumps.", quote]])
    source, document = read_source(pdf)
    location = locate(1, quote, document)
    assert location.page == 2 and location.page_start is not None
    by_page_only = location.model_copy(update={"number": 2, "start": None, "end": None})
    bundle = write_bundle(tmp_path / "b.json", make_bundle([source], [location, by_page_only]))

    report = verify(bundle, out_dir=tmp_path / "out")
    assert report.ok, report.quotes
    for checked in report.quotes:
        assert checked.found is not None
        assert (checked.found.page, checked.found.page_start, checked.found.page_end) == (
            2,
            location.page_start,
            location.page_end,
        )
        assert (checked.found.start, checked.found.end) == (location.start, location.end)

    write_pdf(pdf, [["A new preface."], ["Contents of the manual."], ["Pumps.", quote]])
    moved = verify(bundle, out_dir=tmp_path / "out").quotes[0]
    assert moved.status == "moved" and moved.found is not None
    assert moved.found.page == 3
    assert (moved.found.page_start, moved.found.page_end) == (
        location.page_start,
        location.page_end,
    )
    assert moved.found.text == quote


def test_a_near_miss_quote_holds_while_its_text_stands(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("Intro.\n\nThe operator’s log is signed — every shift.\n", "utf-8")
    source, read = read_source(document)
    there = "The operator’s log is signed — every shift."
    start = read.text.index(there)
    near = QuoteLocation(
        number=1,
        text="The operator's log is signed - every shift.",
        found="near",
        source="notes.md",
        start=start,
        end=start + len(there),
    )
    bundle = write_bundle(tmp_path / "b.json", make_bundle([source], [near]))
    assert verify(bundle, out_dir=tmp_path / "out").quotes[0].status == "holds"

    as_exact = near.model_copy(update={"found": "exact"})
    write_bundle(bundle, make_bundle([source], [as_exact]))
    changed = verify(bundle, out_dir=tmp_path / "out").quotes[0]
    assert changed.status == "changed" and changed.closest is not None
    assert changed.closest.text == there
    assert "quote marks" in changed.detail and "dashes" in changed.detail


def test_a_quote_the_bundle_places_nowhere_is_not_located(tmp_path: Path) -> None:
    document = tmp_path / "notes.md"
    document.write_text("The spare impeller is kept in the store room.\n", "utf-8")
    source, _ = read_source(document)
    nowhere = QuoteLocation(number=1, text="The impeller is kept in the office.", found="missing")
    bundle = write_bundle(tmp_path / "b.json", make_bundle([source], [nowhere]))
    report = verify(bundle, out_dir=tmp_path / "out")
    assert report.quotes[0].status == "unlocated" and not report.ok
    assert report.summary == "1 quote: 1 not located; not every quote holds"


def page_html(sentence: str) -> bytes:
    return (
        "<!doctype html><html><head><title>Authentication</title></head><body><main>"
        f"<h1>Authentication</h1><p>{sentence}</p><p>Tokens expire after one hour and "
        "are renewed with the refresh endpoint.</p></main></body></html>"
    ).encode()


class Site:
    """The page's server, behind ``httpx2.MockTransport``: its body and status can change."""

    def __init__(self, body: bytes) -> None:
        self.body, self.status, self.requests = body, 200, 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        assert str(request.url) == URL
        headers = {"content-type": "text/html; charset=utf-8"}
        return httpx2.Response(self.status, headers=headers, content=self.body)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle))


def page_bundle(tmp_path: Path, body: bytes) -> Path:
    converted = convert_page(body, "text/html", URL)
    start = converted.text.index(PAGE_QUOTE)
    source = BundleSource(
        name=URL,
        kind="page",
        url=URL,
        sha256=content_hash(body),
        format="html",
        converter=converter_version("html"),
        fetched_at=1.0,
    )
    quote = QuoteLocation(
        number=1,
        text=PAGE_QUOTE,
        found="exact",
        source=URL,
        url=URL,
        start=start,
        end=start + len(PAGE_QUOTE),
        fetched_at=1.0,
    )
    return write_bundle(tmp_path / "bundle.json", make_bundle([source], [quote]))


async def test_an_external_page_is_fetched_anew_and_checked(tmp_path: Path) -> None:
    body = page_html(PAGE_QUOTE)
    bundle = page_bundle(tmp_path, body)
    site = Site(body)
    async with site.client() as client:
        report = await averify(bundle, http_client=client, out_dir=tmp_path / "out")
        assert report.ok and site.requests == 1
        assert report.sources[0].status == "read" and not report.sources[0].notes

        site.body = page_html("Clients send an API key with every request to the API.")
        changed = await averify(bundle, http_client=client, out_dir=tmp_path / "out")
        assert changed.quotes[0].status == "changed"
        assert changed.quotes[0].closest is not None
        assert "API key" in changed.quotes[0].closest.text
        assert "the page changed since the bundle" in changed.sources[0].notes[0]

        site.status = 404
        gone = await averify(bundle, http_client=client, out_dir=tmp_path / "out")
        assert gone.quotes[0].status == "source_missing"
        assert "HTTP 404" in gone.quotes[0].detail

        site.status = 503
        down = await averify(bundle, http_client=client, out_dir=tmp_path / "out")
        assert down.quotes[0].status == "not_checked" and not down.ok


async def test_offline_leaves_an_external_page_not_checked(tmp_path: Path) -> None:
    body = page_html(PAGE_QUOTE)
    bundle = page_bundle(tmp_path, body)
    site = Site(body)
    async with site.client() as client:
        report = await averify(bundle, offline=True, http_client=client, out_dir=tmp_path)
    assert site.requests == 0
    [quote] = report.quotes
    assert quote.status == "not_checked" and quote.detail == "not fetched (--offline)"
    assert not report.ok and report.exit_code == 1
    assert report.summary == "1 quote: 1 not checked; not every quote holds"


def test_bad_input_raises_before_anything_is_read(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text('{"bundle_version": 9}', encoding="utf-8")
    with pytest.raises(InputError, match="bundle version 9"):
        verify(bundle, out_dir=tmp_path / "out")
    with pytest.raises(InputError, match="no such file or folder"):
        verify(page_bundle(tmp_path, page_html(PAGE_QUOTE)), docs=[tmp_path / "gone.md"])
    assert not (tmp_path / "out").exists()
