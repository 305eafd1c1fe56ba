"""The task-mode hard checks: lengths, duplicates, contradictions, linkage, coverage."""

from __future__ import annotations

import pytest

from ralph_tui.events import RuleResult
from ralph_tui.validate.qa import all_ok
from ralph_tui.validate.task import hard_validate_task, subtask_key_terms

BRIEF = (
    "The memory file keeps findings across iterations. When it exceeds the memory budget of "
    "1500 characters, the oldest blocks are dropped and a trimmed marker is prepended. "
    "Episodes are written to an episode log; after six episodes a compaction step writes a "
    "summary block and rotates the episode log. Every write is atomic: a temporary file is "
    "fsynced and renamed over the memory file."
)
OUTPUT = (
    "The memory file keeps findings across iterations and stays within a memory budget of "
    "1500 characters: the oldest blocks are dropped first and a trimmed marker records how "
    "many.\n\nAfter six episodes, compaction writes a summary block and rotates the episode "
    "log. Each write is atomic, because a temporary file is fsynced and renamed over the "
    "memory file."
)
MEMORY_UPDATE = "Memory budget is 1500 characters; compaction after six episodes."


def rule(results: list[RuleResult], name: str) -> RuleResult:
    (found,) = [result for result in results if result.name == name]
    return found


def test_a_grounded_output_passes_every_rule_in_a_fixed_order() -> None:
    results = hard_validate_task(OUTPUT, MEMORY_UPDATE, BRIEF)
    assert [result.name for result in results] == [
        "output_length",
        "memory_update_length",
        "no_duplicate_paragraphs",
        "no_contradictions",
        "evidence_linkage",
    ]
    assert all_ok(results), results


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("", "output is empty"),
        ("   \n ", "output is empty"),
        ("x" * 79, "output is 79 characters; it needs at least 80"),
    ],
)
def test_an_empty_or_short_output_fails(output: str, message: str) -> None:
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "output_length")
    assert not result.ok
    assert result.message == message


def test_an_output_of_exactly_80_characters_passes_the_length_rule() -> None:
    assert rule(hard_validate_task("x" * 80, MEMORY_UPDATE, BRIEF), "output_length").ok


@pytest.mark.parametrize(
    ("update", "ok", "message"),
    [
        ("", False, "memoryUpdate is empty"),
        ("too short", False, "memoryUpdate is 9 characters; it needs at least 20"),
        ("y" * 20, True, "memoryUpdate is 20 characters"),
    ],
)
def test_the_memory_update_needs_20_characters(update: str, ok: bool, message: str) -> None:
    result = rule(hard_validate_task(OUTPUT, update, BRIEF), "memory_update_length")
    assert (result.ok, result.message) == (ok, message)


def test_a_repeated_paragraph_fails_regardless_of_case_and_spacing() -> None:
    paragraph = "The oldest blocks are dropped when the budget is exceeded."
    output = f"{paragraph}\n\nSomething else entirely here.\n\n{paragraph.upper()}  \n"
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "no_duplicate_paragraphs")
    assert not result.ok
    assert result.message.startswith("paragraph 3 repeats paragraph 1:")


def test_a_repeated_list_item_fails() -> None:
    output = (
        "Findings:\n\n"
        "- the summary block replaces every iteration block\n"
        "- episodes are rotated after compaction\n"
        "* The summary block replaces every iteration block"
    )
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "no_duplicate_paragraphs")
    assert not result.ok
    assert "paragraph 4 repeats paragraph 2" in result.message


def test_repeated_short_headings_are_not_duplicates() -> None:
    output = (
        "## Notes\n\nFirst part of the findings goes here.\n\n## Notes\n\nA second part, different."
    )
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "no_duplicate_paragraphs")
    assert result.ok


def test_a_contradiction_fails_and_quotes_both_clauses() -> None:
    output = OUTPUT + "\n\nThe memory file is not atomic. The file is atomic on every platform."
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "no_contradictions")
    assert not result.ok
    assert result.message == (
        '"The memory file is not atomic." contradicts "The file is atomic on every platform."'
    )


def test_an_output_unrelated_to_the_brief_fails_linkage_and_names_brief_phrases() -> None:
    output = (
        "Quarterly revenue grew strongly in northern markets while marketing spend declined. "
        "Analysts expect shipping delays to ease once new warehouses open near major ports."
    )
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "evidence_linkage")
    assert not result.ok
    assert result.message.startswith("only 0% of the output's content-word pairs (0 of ")
    assert "need 10%" in result.message
    assert "the brief's terms include: memory file, episode log" in result.message


def test_linkage_is_not_checked_against_a_trivial_brief() -> None:
    result = rule(hard_validate_task(OUTPUT, MEMORY_UPDATE, "Short brief."), "evidence_linkage")
    assert result.ok
    assert result.message.startswith("not checked")


def test_linkage_is_not_checked_for_a_trivial_output() -> None:
    output = "Revenue grew. Spending declined. Shipping is late. Nothing else is known here."
    result = rule(hard_validate_task(output, MEMORY_UPDATE, BRIEF), "evidence_linkage")
    assert result.ok
    assert result.message.startswith("not checked")


def test_linkage_reports_the_share_when_it_passes() -> None:
    result = rule(hard_validate_task(OUTPUT, MEMORY_UPDATE, BRIEF), "evidence_linkage")
    assert result.ok
    assert "of the output's content-word pairs" in result.message


def test_subtask_coverage_is_only_checked_when_subtasks_are_given() -> None:
    names = [result.name for result in hard_validate_task(OUTPUT, MEMORY_UPDATE, BRIEF)]
    assert "subtask_coverage" not in names


def test_covered_subtasks_pass() -> None:
    subtasks = ["Explain the memory budget and trimming", "Describe episode log rotation"]
    results = hard_validate_task(OUTPUT, MEMORY_UPDATE, BRIEF, subtasks=subtasks)
    assert rule(results, "subtask_coverage").ok


def test_an_uncovered_subtask_fails_and_names_its_missing_terms() -> None:
    subtasks = ["Describe episode log rotation", "Summarize the retry policy for network errors"]
    result = rule(
        hard_validate_task(OUTPUT, MEMORY_UPDATE, BRIEF, subtasks=subtasks), "subtask_coverage"
    )
    assert not result.ok
    assert result.message == (
        'sub-task 2 "Summarize the retry policy for network errors" is not covered '
        "(missing key terms: retry, policy, network, errors)"
    )


def test_subtask_key_terms_skip_task_verbs_and_stop_words() -> None:
    assert subtask_key_terms("Describe how the caches are flushed") == {
        "cach": "caches",
        "flush": "flushed",
    }
