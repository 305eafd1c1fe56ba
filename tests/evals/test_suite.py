"""Suite files: each line checked before anything runs, a bad one named with what is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.evals.suite import EvalItem, SuiteError, load_suite


def write(tmp_path: Path, *lines: str) -> Path:
    (tmp_path / "doc.md").write_text("Some text.", encoding="utf-8")
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps({"id": "a", "mode": "qa", "query": "q?", "doc": "doc.md",
                   "expect": {"facts": ["x"], "evidence_spans": [[0, 4]]}})  # fmt: skip


def test_a_good_suite_resolves_documents_beside_it(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, "", json.dumps({"id": "b", "query": "q", "doc": "doc.md"}))
    first, second = load_suite(path)
    assert first.doc == tmp_path / "doc.md" and first.expect.evidence_spans == [(0, 4)]
    assert second.mode == "qa" and second.expect.facts == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"id": "b", "query": "q", "doc": "doc.md"', ":2: not valid JSON"),
        ('["a"]', ":2: a line must be a JSON object, not list"),
        ('{"id": "b", "doc": "doc.md"}', ":2: query: Field required"),
        ('{"id": "b", "query": "q", "doc": "doc.md", "mode": "chat"}', ":2: mode: Input should be"),
        ('{"id": "b", "query": "q", "doc": "doc.md", "expect": {"evidence_spans": [[5, 2]]}}',
         ":2: expect.evidence_spans: Value error, a span is [start, end]"),
        ('{"id": "a", "query": "q", "doc": "doc.md"}', ":2: the id 'a' is used twice"),
        ('{"id": "b", "query": "q", "doc": "missing.md"}', ":2: the document"),
    ],
)  # fmt: skip
def test_a_bad_line_is_named_with_what_is_wrong(tmp_path: Path, line: str, problem: str) -> None:
    with pytest.raises(SuiteError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        load_suite(write(tmp_path, GOOD, line))


def test_an_evidence_span_past_the_documents_end_is_refused(tmp_path: Path) -> None:
    beyond = json.dumps({"id": "b", "query": "q", "doc": "doc.md",
                         "expect": {"evidence_spans": [[0, 10], [5, 11]]}})  # fmt: skip
    path = write(tmp_path, GOOD, beyond)
    with pytest.raises(SuiteError) as refused:
        load_suite(path)
    assert str(refused.value) == (
        f"{path}:2: the evidence span [5, 11] ends past the end of doc.md, whose text is 10 "
        "characters long"
    )
    assert refused.value.hint is not None and "ralph-tui search" in refused.value.hint
    ending = json.dumps({"id": "b", "query": "q", "doc": "doc.md",
                         "expect": {"evidence_spans": [[0, 10]]}})  # fmt: skip
    assert [i.id for i in load_suite(write(tmp_path, GOOD, ending))] == ["a", "b"]


def test_spans_on_a_document_that_cannot_be_read_name_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    (tmp_path / "doc.md").write_bytes(b"caf\xe9 au lait")
    with pytest.raises(SuiteError, match=r":1: .*doc.md is not UTF-8 text"):
        load_suite(path)


def test_an_empty_or_missing_suite_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="no items"):
        load_suite(write(tmp_path, ""))
    with pytest.raises(SuiteError, match="cannot read the suite"):
        load_suite(tmp_path / "nope.jsonl")


def test_items_round_trip_as_json(tmp_path: Path) -> None:
    item = EvalItem(id="a", query="q", doc=tmp_path / "doc.md", meta={"depth": 0.5})
    assert EvalItem.model_validate_json(item.model_dump_json()) == item
