"""The evidence bundle built from a recorded session, and its published JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ralph_tui.reports.build import build_bundle, passage_bounds
from ralph_tui.reports.bundle import EvidenceBundle
from ralph_tui.reports.render import render
from ralph_tui.reports.schema import bundle_schema
from ralph_tui.traces.store import TraceStore
from tests.reports.sessions import ANSWER, FETCHED_AT, PAGE_URL, QUOTES, record_session

pytestmark = pytest.mark.usefixtures("clean_env")


def bundle_of(tmp_path: Path, iterations: int = 3) -> EvidenceBundle:
    settings, session_id = record_session(tmp_path, iterations)
    store = TraceStore(settings.out_dir)
    try:
        return build_bundle(store, session_id, settings)
    finally:
        store.close()


def test_the_bundle_holds_the_reported_iterations_answer_quotes_and_claims(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path)
    assert bundle.reported_iteration == 3
    assert bundle.answer == "\n".join(ANSWER)
    assert [quote.text for quote in bundle.quotes] == [quoted.text for quoted in QUOTES]
    assert [claim.verdict for claim in bundle.claims] == [
        "supported", "supported", "partly_supported", "unsupported"
    ]  # fmt: skip
    assert bundle.coverage is not None and bundle.coverage.share > 0.9
    assert [it.iteration for it in bundle.iterations] == [1, 2, 3]
    assert [it.passed for it in bundle.iterations] == [False, False, True]
    assert bundle.iterations[0].judge_issues[0].message == "line 1 is vague & short"
    assert bundle.models == {"generate": "anthropic:claude-sonnet-4-5", "validate": "openai:gpt-5"}
    assert (bundle.usage.input_tokens, bundle.usage.cost_usd) == (12_345, 0.0421)
    assert bundle.status == "passed" and bundle.mode == "qa"


def test_sources_carry_their_hash_converter_and_fetch_time(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path)
    by_name = {source.name: source for source in bundle.sources}
    pdf = by_name["pump.pdf"]
    assert pdf.kind == "file" and pdf.pages == 2 and pdf.converter.startswith("pypdfium2 ")
    assert len(pdf.page_spans) == 2 and pdf.page_spans[0][0] == 0
    page_two = next(q for q in bundle.quotes if q.page == 2)
    assert pdf.page_spans[1][0] <= (page_two.start or 0) < pdf.page_spans[1][1]
    assert pdf.path is not None
    import hashlib

    assert pdf.sha256 == hashlib.sha256(Path(pdf.path).read_bytes()).hexdigest()
    page = by_name[PAGE_URL]
    assert (page.kind, page.url, page.fetched_at) == ("page", PAGE_URL, FETCHED_AT)


def test_each_passage_holds_its_quote_at_its_span(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path)
    texts = {quote.number: quote.text for quote in bundle.quotes}
    assert sorted(passage.quote for passage in bundle.passages) == sorted(texts)
    for passage in bundle.passages:
        assert passage.text[passage.start : passage.end] == texts[passage.quote]
        assert len(passage.text) > len(texts[passage.quote])


def test_a_source_changed_since_the_run_gives_no_passages(tmp_path: Path) -> None:
    settings, session_id = record_session(tmp_path)
    notes = tmp_path / "docs" / "notes.md"
    notes.write_text("Rewritten: " + notes.read_text(encoding="utf-8"), encoding="utf-8")
    store = TraceStore(settings.out_dir)
    bundle = build_bundle(store, session_id, settings)
    store.close()
    from_notes = {q.number for q in bundle.quotes if q.source == "notes.md"}
    assert from_notes and not from_notes & {p.quote for p in bundle.passages}
    assert {p.quote for p in bundle.passages} == {2, 3, 5}


def test_passages_stop_at_paragraph_breaks_and_words() -> None:
    text = "First paragraph.\n\nSecond one with the quote here and more.\n\nThird."
    start = text.index("the quote")
    low, high = passage_bounds(text, start, start + len("the quote"))
    assert text[low:high] == "Second one with the quote here and more."
    long = "word " * 200 + "QUOTE" + " word" * 200
    start = long.index("QUOTE")
    low, high = passage_bounds(long, start, start + 5)
    assert long[low:high].startswith("word ") and long[low:high].endswith(" word")
    assert start - low <= 320 and high - start - 5 <= 320


def test_the_json_report_is_the_bundle_and_valid_against_its_schema(tmp_path: Path) -> None:
    bundle = bundle_of(tmp_path)
    data = json.loads(render(bundle, "json"))
    jsonschema.validate(data, bundle_schema())
    assert EvidenceBundle.model_validate(data) == bundle
    assert data["bundle_version"] == 1


def test_the_schema_rejects_a_bundle_of_another_version_or_with_a_field_missing(
    tmp_path: Path,
) -> None:
    data = json.loads(render(bundle_of(tmp_path), "json"))
    schema = bundle_schema()
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**data, "bundle_version": 2}, schema)
    without_query = {key: value for key, value in data.items() if key != "query"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(without_query, schema)
