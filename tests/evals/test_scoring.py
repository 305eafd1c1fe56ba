"""Scoring by hand: facts in the answer, evidence against the gold spans by characters,
and the suite's means and its size-by-depth table."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.evals.scoring import facts_in, score_item, span_overlap, summarise
from ralph_tui.evals.suite import EvalItem, Expectation

DOC = "Alpha beta. The key is held by Tamsin Orrell at Fenwick. Gamma delta epsilon."


def test_facts_are_found_whatever_the_case_and_spacing() -> None:
    assert facts_in("- It is TAMSIN  orrell, at 41 days.", ["Tamsin Orrell", "41 days", "Bob"]) == 2


def test_span_overlap_by_characters() -> None:
    assert span_overlap([(0, 10)], [(5, 15)]) == (0.5, 0.5)
    assert span_overlap([(0, 10), (20, 30)], [(0, 10)]) == (0.5, 1.0)
    assert span_overlap([], [(0, 10)]) == (None, 0.0)
    assert span_overlap([(0, 4)], []) == (None, None)


def item(**meta: object) -> EvalItem:
    start = DOC.index("The key")
    return EvalItem(
        id="n", query="Who keeps the key?", doc=Path("doc.md"), meta=dict(meta),
        expect=Expectation(facts=["Tamsin Orrell"], evidence_spans=[(start, start + 45)]),
    )  # fmt: skip


def test_an_item_is_scored_from_its_outcome() -> None:
    quote = "The key is held by Tamsin Orrell at Fenwick."
    outcome = {
        "status": "failed", "session_id": "s1", "iterations": 2,
        "output": {"answer": "- The key is held by Tamsin Orrell.", "evidence": [quote, "nowhere"]},
        "usage": {"calls": 5, "inputTokens": 100, "outputTokens": 20, "costUsd": 0.01},
    }  # fmt: skip
    score = score_item(item(), outcome, DOC, 1.23456)
    assert not score.passed and score.found and score.facts_found == 1
    assert score.evidence_precision == 1.0 and score.evidence_recall == pytest.approx(44 / 45)
    assert (score.llm_calls, score.tokens, score.cost_usd, score.wall_s) == (5, 120, 0.01, 1.235)


def test_an_item_it_could_not_answer_is_missed() -> None:
    outcome = {"status": "error", "error": "boom", "output": None}
    score = score_item(item(), outcome, DOC, 0.1)
    assert not score.found and score.evidence_recall == 0.0 and score.error == "boom"


def test_the_summary_has_means_and_the_needle_grid() -> None:
    good = {"status": "passed", "output": {"answer": "Tamsin Orrell"}, "usage": {"costUsd": 0.5}}
    bad = {"status": "failed", "output": {"answer": "unknown"}, "usage": {"costUsd": None}}
    scores = [
        score_item(item(size_tokens=8000, depth=0.0), good, DOC, 1.0),
        score_item(item(size_tokens=8000, depth=1.0), bad, DOC, 3.0),
    ]
    summary = summarise(scores)
    assert (summary.passed, summary.found, summary.mean_wall_s) == (0.5, 0.5, 2.0)
    assert summary.total_cost_usd is None  # one cost unknown: the total is unknown
    assert summary.by_size_depth == {"8000": {"0.00": 1.0, "1.00": 0.0}}


def test_kept_scores_read_back_in_the_suites_order(tmp_path: Path) -> None:
    from ralph_tui.evals.store import ordered_scores
    from ralph_tui.evals.suite import write_suite

    items = [item().model_copy(update={"id": name}) for name in ("a", "b", "c")]
    write_suite(tmp_path / "suite.jsonl", items)
    finished = [score_item(i, {"status": "passed"}, DOC, 0.1) for i in reversed(items)]
    lines = "".join(s.model_dump_json() + "\n" for s in finished) + '{"id": "torn'
    (tmp_path / "results.jsonl").write_text(lines, encoding="utf-8")
    assert [s.id for s in ordered_scores(tmp_path)] == ["a", "b", "c"]
