"""Failures to constraints: rule results, judge issues per category, DocReader hints."""

from __future__ import annotations

import json

import pytest

from ralph_tui.events import JudgeIssue, RuleResult
from ralph_tui.evidence import QuoteLocation
from ralph_tui.validate.feedback import (
    RULE_DIRECTIVES,
    constraints_from_judge,
    constraints_from_rules,
    dedupe,
    doc_reader_hints,
)
from ralph_tui.validate.qa import hard_validate_qa
from ralph_tui.validate.task import hard_validate_task

CATEGORIES = ["missing_scope", "unsupported_claim", "low_specificity", "conflict"]


def test_only_failed_rules_become_constraints_with_their_exact_finding() -> None:
    results = [
        RuleResult(name="bullet_count", ok=True, message="4 bullet lines"),
        RuleResult(name="quote_length", ok=False, message="quote 2 is 170 characters"),
    ]
    assert constraints_from_rules(results) == [
        "Keep every evidence quote at most 160 characters; quote a shorter exact span: "
        "quote 2 is 170 characters"
    ]


def test_every_rule_of_both_validators_has_its_own_directive() -> None:
    qa_names = {result.name for result in hard_validate_qa("", [], "")}
    passage = QuoteLocation(number=1, text="A passage.", found="missing")
    task_rules = hard_validate_task("", "", "", subtasks=[], passages=[passage])
    task_names = {result.name for result in task_rules}
    assert qa_names | task_names == set(RULE_DIRECTIVES)


def test_an_unknown_rule_still_yields_a_constraint() -> None:
    result = RuleResult(name="custom_rule", ok=False, message="it broke")
    assert constraints_from_rules([result]) == ["Fix custom_rule: it broke"]


def test_a_near_miss_constraint_carries_the_exact_document_span() -> None:
    document = "Intro. The “loop” retries — four times. Outro."
    quotes = ['The "loop" retries - four times.', "Intro.", "Outro."]
    links = [[1], [2], [3]]
    constraints = constraints_from_rules(
        hard_validate_qa("- a\n- b\n- c", quotes, document, line_quotes=links)
    )
    (constraint,) = constraints
    assert constraint.startswith("Copy every evidence quote character for character")
    assert json.dumps("The “loop” retries — four times.", ensure_ascii=False) in constraint


def test_qa_judge_issues_become_support_constraints() -> None:
    issues = [JudgeIssue(message="Bullet 2 is not supported by any quote.")]
    assert constraints_from_judge(issues, "qa") == [
        "Support every bullet with the evidence quotes and answer the question: "
        "Bullet 2 is not supported by any quote."
    ]


def test_each_task_category_gets_its_own_targeted_constraint() -> None:
    issues = [JudgeIssue(message=f"issue {n}", category=c) for n, c in enumerate(CATEGORIES)]
    constraints = constraints_from_judge(issues, "task")
    assert len(constraints) == 4
    assert constraints[0].startswith("Cover the part of the task the last output left out")
    assert constraints[1].startswith("Drop or substantiate the claim the brief does not support")
    assert constraints[2].startswith("Be specific: give the names, numbers and details")
    assert constraints[3].startswith("Resolve the conflict")
    assert [c.rsplit(": ", 1)[1] for c in constraints] == [f"issue {n}" for n in range(4)]


@pytest.mark.parametrize("category", [None, "something_new"])
def test_uncategorized_task_issues_get_a_generic_constraint(category: str | None) -> None:
    issue = JudgeIssue(message="The tone is off.", category=category)
    assert constraints_from_judge([issue], "task") == [
        "Address the judge's finding: The tone is off."
    ]


def test_judge_constraints_are_deduplicated_in_order() -> None:
    issues = [
        JudgeIssue(message="Cover the retry policy.", category="missing_scope"),
        JudgeIssue(message="State the budget.", category="low_specificity"),
        JudgeIssue(message="cover the  retry policy.", category="missing_scope"),
    ]
    constraints = constraints_from_judge(issues, "task")
    assert len(constraints) == 2
    assert constraints[0].endswith("Cover the retry policy.")
    assert constraints[1].endswith("State the budget.")


def test_doc_reader_hints_turn_each_category_into_an_extraction_target() -> None:
    issues = [JudgeIssue(message=f"topic {n}", category=c) for n, c in enumerate(CATEGORIES)]
    assert doc_reader_hints(issues) == [
        "Extract what the document says about this part of the task: topic 0",
        "Find the passages that confirm or refute this claim, verbatim: topic 1",
        "Extract concrete details (names, numbers, dates, steps) for: topic 2",
        "Find the passages that settle this conflict: topic 3",
    ]


def test_doc_reader_hints_handle_uncategorized_issues_and_duplicates() -> None:
    issues = [
        JudgeIssue(message="What does the budget cover?"),
        JudgeIssue(message="What does the budget cover?"),
    ]
    assert doc_reader_hints(issues) == [
        "Look in the document for what settles this: What does the budget cover?"
    ]


def test_dedupe_ignores_case_and_spacing_and_drops_blanks() -> None:
    assert dedupe(["Keep  this", "keep this", "  ", "Other"]) == ["Keep  this", "Other"]
