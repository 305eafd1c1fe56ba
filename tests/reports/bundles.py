"""Evidence bundles built by the tests from documents they wrote: each source read the way a
run reads it, each quote located by searching the document's own text (and, for a PDF, its
page's text), so a bundle says what a run's would."""

from __future__ import annotations

import time
from pathlib import Path

from ralph_tui.documents import Document, Limits
from ralph_tui.documents.corpus import read_one
from ralph_tui.evidence import QuoteLocation
from ralph_tui.reports.bundle import BundleSource, EvidenceBundle


def read_source(path: Path, name: str | None = None) -> tuple[BundleSource, Document]:
    document = read_one(path, name or path.name, Limits())
    source = BundleSource(
        name=document.name,
        kind="file",
        path=str(path.resolve()),
        sha256=document.sha256,
        format=document.format,
        converter=document.converter,
        pages=len(document.pages) if document.pages is not None else None,
    )
    return source, document


def locate(number: int, quote: str, document: Document) -> QuoteLocation:
    """Where ``quote`` stands in ``document``: its span, and for a PDF its page and the span
    in that page, each found by a search of its own."""
    start = document.text.index(quote)
    location = QuoteLocation(
        number=number,
        text=quote,
        found="exact",
        source=document.name,
        start=start,
        end=start + len(quote),
    )
    for page, text in enumerate(document.pages or [], 1):
        if quote in text:
            location.page = page
            location.page_start = text.index(quote)
            location.page_end = location.page_start + len(quote)
            break
    return location


def make_bundle(sources: list[BundleSource], quotes: list[QuoteLocation]) -> EvidenceBundle:
    return EvidenceBundle(
        generator="ralph-tui test",
        created_at=time.time(),
        session_id="2026-11-25/qa-0123abcd",
        mode="qa",
        query="What does the manual say?",
        status="passed",
        answer="- It says so.",
        quotes=quotes,
        sources=sources,
    )


def write_bundle(path: Path, bundle: EvidenceBundle) -> Path:
    path.write_text(bundle.model_dump_json(indent=2), encoding="utf-8")
    return path
