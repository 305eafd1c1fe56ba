"""Task mode's passages: the output's statements with the passages they cite, and the hard
check that every passage stands in the document and every cited marker names one."""

from __future__ import annotations

from ralph_tui.evidence import QuoteLocation
from ralph_tui.validate.feedback import constraints_from_rules
from ralph_tui.validate.locate import QuotableText, locate_quotes
from ralph_tui.validate.passages import (
    RULE,
    check_passages,
    cited,
    marked_passages,
    passage_claims,
)
from ralph_tui.validate.task import hard_validate_task

DOCUMENT = "Filters are backwashed every 48 hours. Alarms escalate after 10 minutes."
PASSAGES = ["Filters are backwashed every 48 hours.", "Alarms escalate after 10 minutes."]


def located(passages: list[str]) -> list[QuoteLocation]:
    return locate_quotes(passages, [QuotableText("doc.txt", DOCUMENT)])


def test_each_statement_cites_its_passages_by_number_and_reads_without_markers() -> None:
    output = (
        "How the plant is run:\n\n"
        "- Filters are backwashed every 48 hours [P1].\n"
        "- Alarms escalate after ten minutes [P2][P1] ; both are logged."
    )
    claims = passage_claims(output)
    assert [(c.line, c.quotes) for c in claims] == [(1, []), (2, [1]), (3, [2, 1])]
    assert claims[1].text == "Filters are backwashed every 48 hours."
    assert claims[2].text == "Alarms escalate after ten minutes; both are logged."
    assert all(c.verdict is None for c in claims)


def test_the_reasoner_reads_each_passage_after_its_marker() -> None:
    assert marked_passages(PASSAGES) == [f"[P{n}] {p}" for n, p in enumerate(PASSAGES, 1)]
    assert cited("see [P2], [P10] and [P2] again; not P3 or [p4]") == [2, 10]


def test_passages_in_the_document_pass_and_their_spans_are_the_passages() -> None:
    locations = located(PASSAGES)
    result = check_passages("Backwashing every 48 hours [P1].", locations)
    assert result.ok and result.name == RULE
    for location, passage in zip(locations, PASSAGES, strict=True):
        assert location.start is not None and location.end is not None
        assert DOCUMENT[location.start : location.end] == passage


def test_a_passage_not_in_the_document_is_missing_and_fails_with_a_constraint() -> None:
    locations = located([PASSAGES[0], "Filters are backwashed daily."])
    assert [location.found for location in locations] == ["exact", "missing"]
    rules = hard_validate_task("x", "y", "", passages=locations)
    result = next(rule for rule in rules if rule.name == RULE)
    assert not result.ok
    assert '[P2] is not in the document: "Filters are backwashed daily."' in result.message
    [constraint] = [c for c in constraints_from_rules(rules) if "[P2]" in c]
    assert constraint.startswith("Copy every passage of the brief character for character")


def test_a_marker_naming_no_passage_fails() -> None:
    result = check_passages("Alarms escalate [P3].", located(PASSAGES))
    assert not result.ok
    assert "cites [P3], but the brief's passages are [P1] to [P2]" in result.message


def test_without_passages_the_rule_is_not_applied() -> None:
    names = [rule.name for rule in hard_validate_task("x", "y", "")]
    assert RULE not in names
