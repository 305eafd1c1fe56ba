"""The needle suite: the fact is where the item says, at its depth, worded apart from its
question; and the sample suite's gold spans are in the handbook."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_tui.evals.needle import HANDBOOK, NEEDLES, needle_suite, parse_depth, parse_size
from ralph_tui.evals.sample import sample_suite
from ralph_tui.words import query_terms


def test_each_needle_is_planted_at_its_depth_in_prose_of_its_size(tmp_path: Path) -> None:
    items = needle_suite(tmp_path, sizes=(8_000, 20_000), depths=(0.0, 0.5, 1.0), seed=3)
    assert [i.id for i in items][:3] == ["needle-8k-d000", "needle-8k-d050", "needle-8k-d100"]
    for item in items:
        text = item.doc.read_text(encoding="utf-8")
        [(start, end)] = item.expect.evidence_spans
        fact = text[start:end]
        assert fact in {n.fact for n in NEEDLES} and text.count(fact) == 1
        size = item.meta["size_tokens"]
        assert size * 4 <= len(text) <= size * 4 * 1.2
        assert abs(start / len(text) - item.meta["depth"]) < 0.1
        assert item.expect.facts[0] in fact


@pytest.mark.parametrize("needle", NEEDLES)
def test_a_needle_names_nothing_the_handbook_does_and_is_asked_in_other_words(
    needle: object,
) -> None:
    handbook = HANDBOOK.read_text(encoding="utf-8").lower()
    fact, question, answer = needle.fact, needle.question, needle.answer  # type: ignore[attr-defined]
    assert answer.lower() not in handbook and answer.lower() not in question.lower()
    fact_words, asked = set(query_terms(fact)), set(query_terms(question))
    assert len(fact_words & asked) * 2 < len(asked), "the question mostly uses other words"
    assert any(word.lower() not in handbook for word in fact_words & asked)


def test_sizes_and_depths_are_checked() -> None:
    assert [parse_size(s) for s in ("8k", "64K", "1m", "2000")] == [8000, 64000, 10**6, 2000]
    for bad in ("big", "0", "5m"):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert parse_depth("0.25") == 0.25
    with pytest.raises(ValueError, match="from 0"):
        parse_depth("1.5")


def test_the_sample_suite_points_at_its_quotes() -> None:
    text = HANDBOOK.read_text(encoding="utf-8")
    for item in sample_suite():
        assert item.expect.facts and item.expect.evidence_spans
        for start, end in item.expect.evidence_spans:
            assert any(fact.lower() in text[start:end].lower() for fact in item.expect.facts)
