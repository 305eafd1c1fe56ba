"""The QA hard checks: every rule passing and failing, with messages fit for constraints."""

from __future__ import annotations

import json

import pytest

from ralph_tui.events import RuleResult
from ralph_tui.validate.qa import all_ok, evidence_windows, hard_validate_qa

DOCUMENT = (
    "The outer loop generates a candidate, validates it and retries with constraints.\n"
    "Each quote must be a verbatim substring of the document.\n"
    "The judge runs on a different provider than the generator.\n"
    "Memory is trimmed to a budget of 1500 characters.\n"
)
QUOTES = [
    "The outer loop generates a candidate",
    "Each quote must be a verbatim substring of the document.",
    "The judge runs on a different provider than the generator.",
]
ANSWER = "- The loop retries with constraints.\n- Quotes are verbatim.\n- The judge is separate."
LINKS = [[1], [2], [3]]

RULE_NAMES = [
    "bullet_format",
    "bullet_count",
    "evidence_count",
    "quote_length",
    "no_duplicate_quotes",
    "quotes_verbatim",
    "line_quotes",
]


def rule(results: list[RuleResult], name: str) -> RuleResult:
    (found,) = [result for result in results if result.name == name]
    return found


def test_a_good_candidate_passes_every_rule_in_a_fixed_order() -> None:
    results = hard_validate_qa(ANSWER, QUOTES, DOCUMENT, line_quotes=LINKS)
    assert [result.name for result in results] == RULE_NAMES
    assert all_ok(results)


def test_all_ok_is_false_when_any_rule_fails() -> None:
    results = [RuleResult(name="a", ok=True), RuleResult(name="b", ok=False)]
    assert not all_ok(results)
    assert all_ok([])


@pytest.mark.parametrize("count", [3, 7])
def test_three_to_seven_bullets_pass(count: int) -> None:
    answer = "\n".join(f"- point {n}" for n in range(count))
    assert rule(hard_validate_qa(answer, QUOTES, DOCUMENT), "bullet_count").ok


@pytest.mark.parametrize("count", [0, 2, 8])
def test_too_few_or_too_many_bullets_fail_with_the_count(count: int) -> None:
    answer = "\n".join(f"- point {n}" for n in range(count))
    result = rule(hard_validate_qa(answer, QUOTES, DOCUMENT), "bullet_count")
    assert not result.ok
    assert result.message.startswith(f"{count} bullet lines")
    assert "3 to 7" in result.message


def test_blank_lines_between_bullets_are_allowed() -> None:
    answer = "- one\n\n- two\n   \n- three\n"
    assert all_ok(hard_validate_qa(answer, QUOTES, DOCUMENT, line_quotes=LINKS))


def test_a_non_bullet_line_fails_and_is_named() -> None:
    answer = "Here is the answer:\n- one\n- two\n* three\n- four"
    result = rule(hard_validate_qa(answer, QUOTES, DOCUMENT), "bullet_format")
    assert not result.ok
    assert 'line 1 does not start with "- ": "Here is the answer:"' in result.message
    assert 'line 4 does not start with "- ": "* three"' in result.message
    assert "line 2" not in result.message


def test_an_empty_bullet_fails_format_and_does_not_count() -> None:
    answer = "- one\n- \n- two\n- three"
    results = hard_validate_qa(answer, QUOTES, DOCUMENT)
    assert rule(results, "bullet_format").message == "line 2 is an empty bullet"
    assert rule(results, "bullet_count").message == "3 bullet lines"


def test_a_dash_without_space_is_not_a_bullet() -> None:
    result = rule(hard_validate_qa("-one\n- two\n- three", QUOTES, DOCUMENT), "bullet_format")
    assert not result.ok
    assert "line 1" in result.message


@pytest.mark.parametrize("count", [3, 8])
def test_three_to_eight_quotes_pass(count: int) -> None:
    quotes = [f"quote number {n}" for n in range(count)]
    assert rule(hard_validate_qa(ANSWER, quotes, DOCUMENT), "evidence_count").ok


@pytest.mark.parametrize("count", [0, 2, 9])
def test_too_few_or_too_many_quotes_fail(count: int) -> None:
    quotes = [f"quote number {n}" for n in range(count)]
    result = rule(hard_validate_qa(ANSWER, quotes, DOCUMENT), "evidence_count")
    assert not result.ok
    assert result.message == f"{count} evidence quotes; give 3 to 8 quotes"


def test_a_quote_of_160_characters_passes_and_161_fails_with_its_length() -> None:
    document = "x" * 400
    ok = rule(hard_validate_qa(ANSWER, ["x" * 160], document), "quote_length")
    assert ok.ok
    too_long = rule(hard_validate_qa(ANSWER, ["short", "y" * 161], document), "quote_length")
    assert not too_long.ok
    assert too_long.message.startswith('quote 2 is 161 characters (max 160): "yyy')
    assert "quote 1" not in too_long.message


def test_duplicate_quotes_fail_and_name_the_first_occurrence() -> None:
    quotes = [QUOTES[0], QUOTES[1], QUOTES[0] + "  ", QUOTES[2]]
    result = rule(hard_validate_qa(ANSWER, quotes, DOCUMENT), "no_duplicate_quotes")
    assert not result.ok
    assert result.message == f'quote 3 repeats quote 1: "{QUOTES[0]}"'


def test_distinct_quotes_pass_the_duplicate_rule() -> None:
    assert rule(hard_validate_qa(ANSWER, QUOTES, DOCUMENT), "no_duplicate_quotes").ok


def test_a_quote_absent_from_the_document_fails_and_is_quoted() -> None:
    quotes = [*QUOTES, "The loop never retries."]
    result = rule(hard_validate_qa(ANSWER, quotes, DOCUMENT), "quotes_verbatim")
    assert not result.ok
    assert result.message == 'quote 4 is not in the document: "The loop never retries."'


def test_an_empty_quote_is_not_verbatim() -> None:
    result = rule(hard_validate_qa(ANSWER, [*QUOTES, "  "], DOCUMENT), "quotes_verbatim")
    assert result.message == "quote 4 is empty"


def near_miss_message(document: str, quote: str) -> str:
    result = rule(hard_validate_qa(ANSWER, [quote], document), "quotes_verbatim")
    assert not result.ok, "a near miss must still fail"
    return result.message


@pytest.mark.parametrize(
    ("document_text", "quote", "kind"),
    [
        ("the “Ralph loop” retries", 'the "Ralph loop" retries', "quote marks"),
        ('the "Ralph loop" retries', "the “Ralph loop” retries", "quote marks"),
        ("it’s the judge’s call", "it's the judge's call", "quote marks"),
        ("retries — up to four times", "retries - up to four times", "dashes"),
        ("pages 10–12 of the spec", "pages 10-12 of the spec", "dashes"),
        ("a state‑of‑the‑art loop", "a state-of-the-art loop", "dashes"),
        ("the memory\n   is trimmed", "the memory is trimmed", "whitespace"),
        ("the memory is  trimmed", "the memory is trimmed", "whitespace"),
        ("the memory\u00a0is trimmed", "the memory is trimmed", "whitespace"),
        ("a ﬁle-based memory", "a file-based memory", "character forms"),
        ("and so on… until done", "and so on... until done", "character forms"),
        ("the cafe\u0301 menu", "the caf\u00e9 menu", "character forms"),
    ],
)
def test_a_near_miss_fails_but_quotes_the_exact_document_span(
    document_text: str, quote: str, kind: str
) -> None:
    document = f"Intro line.\n{document_text}\nOutro line."
    message = near_miss_message(document, quote)
    assert message.startswith(f"quote 1 differs from the document only in {kind} (")
    assert message.endswith(json.dumps(document_text, ensure_ascii=False))


def test_a_near_miss_message_names_each_difference() -> None:
    message = near_miss_message("He said “stop” — then left.", 'He said "stop" - then left.')
    assert "quote marks (document has '“' where the quote has '\"'" in message
    assert "dashes (document has '—' where the quote has '-')" in message


def test_a_near_miss_shows_code_points_of_lookalike_characters() -> None:
    message = near_miss_message("the cafe\u0301 menu", "the caf\u00e9 menu")
    assert "U+0065 U+0301" in message
    assert "U+00E9" in message


def test_a_near_miss_span_over_160_characters_says_so() -> None:
    words = " ".join(f"word{n}" for n in range(25))
    document = "Start. " + words.replace(" ", "\n\n    ") + " end."
    message = near_miss_message(document, words)
    assert "characters, over 160: quote part of it" in message


def test_quote_marks_inside_a_near_miss_span_are_escaped_as_json() -> None:
    message = near_miss_message(
        'She wrote: "ok" —\tthen stopped.', 'She wrote: "ok" - then stopped.'
    )
    assert message.endswith('"She wrote: \\"ok\\" —\\tthen stopped."')


def test_every_failing_quote_is_reported_in_one_message() -> None:
    quotes = ["The outer loop generates a candidate", "not there at all", "The judge runs on a"]
    document = DOCUMENT.replace("The judge runs on a", "The judge  runs on a")
    message = rule(hard_validate_qa(ANSWER, quotes, document), "quotes_verbatim").message
    assert message.startswith('quote 2 is not in the document: "not there at all"; quote 3 differs')


def test_evidence_windows_are_centred_on_each_quote() -> None:
    document = "a" * 500 + "NEEDLE" + "b" * 500
    (window,) = evidence_windows(document, ["NEEDLE"], width=220)
    assert len(window) == 220
    assert window == "a" * 107 + "NEEDLE" + "b" * 107


def test_evidence_windows_stay_inside_the_document_at_its_edges() -> None:
    document = "START of the text " + "x" * 400 + " the END"
    start, end = evidence_windows(document, ["START", "END"], width=100)
    assert start == document[:100]
    assert end == document[-100:]


def test_evidence_windows_for_a_short_document_is_the_whole_document() -> None:
    assert evidence_windows("tiny doc", ["tiny"]) == ["tiny doc"]


def test_evidence_windows_find_near_misses_and_skip_missing_quotes() -> None:
    document = "x" * 300 + "the “loop” retries" + "y" * 300
    near, missing = evidence_windows(document, ['the "loop" retries', "absent"], width=60)
    assert "the “loop” retries" in near
    assert len(near) == 60
    assert missing == ""


def test_evidence_windows_keep_a_quote_longer_than_the_width_whole() -> None:
    document = "z" * 50 + "q" * 30 + "z" * 50
    assert evidence_windows(document, ["q" * 30], width=10) == ["q" * 30]
