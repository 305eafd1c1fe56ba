"""Answer lines as claims: linking, the line_quotes hard check and its constraint, and the
judge's ok and issues derived from its verdicts on the lines."""

from __future__ import annotations

from ralph_tui.validate.claims import (
    LineJudgement,
    check_line_quotes,
    claims_of,
    judge_claims,
    link_claims,
)
from ralph_tui.validate.feedback import constraints_from_rules

ANSWER = "- Filters are backwashed every 48 hours.\n\n- Alarms escalate.\n- Chlorine is dosed."


def test_claims_are_the_non_empty_lines_with_their_quotes() -> None:
    claims = link_claims(ANSWER, [[1], [2, 3], [4]])
    assert [(c.line, c.text, c.quotes) for c in claims] == [
        (1, "Filters are backwashed every 48 hours.", [1]),
        (2, "Alarms escalate.", [2, 3]),
        (3, "Chlorine is dosed.", [4]),
    ]
    assert all(claim.verdict is None for claim in claims)


def test_an_output_without_links_still_reads_as_claims_without_quotes() -> None:
    claims = claims_of({"answer": ANSWER, "evidence": ["a", "b"]})
    assert [c.quotes for c in claims] == [[], [], []]
    assert [c.quotes for c in claims_of({"answer": ANSWER, "lineQuotes": [[2]]})] == [
        [2],
        [],
        [],
    ]
    assert claims_of(None) == [] and claims_of({"output": "task text"}) == []


def test_every_line_naming_a_quote_passes() -> None:
    result = check_line_quotes(ANSWER, [[1], [2, 3], [4]], quote_count=4)
    assert result.ok and result.name == "line_quotes"


def test_a_line_with_no_quote_fails_and_is_named() -> None:
    result = check_line_quotes(ANSWER, [[1], [], [2]], quote_count=3)
    assert not result.ok and result.message == "line 2 names no quote"


def test_a_quote_number_past_the_quotes_is_not_a_quote() -> None:
    result = check_line_quotes(ANSWER, [[1], [0, 5], [2]], quote_count=3)
    assert not result.ok
    assert result.message == "line 2 names quote 0, 5, but the quotes are numbered 1 to 3"


def test_missing_or_extra_entries_are_counted_and_the_lines_left_over_named() -> None:
    short = check_line_quotes(ANSWER, [[1]], quote_count=3)
    assert short.message == (
        "lineQuotes has 1 entries for 3 answer lines; line 2 names no quote; line 3 names no quote"
    )
    extra = check_line_quotes(ANSWER, [[1], [2], [3], [1]], quote_count=3)
    assert not extra.ok and extra.message == "lineQuotes has 4 entries for 3 answer lines"
    missing = check_line_quotes(ANSWER, None, quote_count=3)
    assert not missing.ok and missing.message == "no lineQuotes given for the 3 answer lines"


def test_the_failure_becomes_a_constraint_that_says_what_to_do() -> None:
    result = check_line_quotes(ANSWER, [[1], [], [2]], quote_count=3)
    [constraint] = constraints_from_rules([result])
    assert constraint.startswith("Name the quotes behind every answer line: in lineQuotes give")
    assert constraint.endswith(": line 2 names no quote")


CLAIMS = link_claims(ANSWER, [[1], [2], [3]])


def verdicts(*given: tuple[int, str, str]) -> list[LineJudgement]:
    return [LineJudgement(line, verdict, missing) for line, verdict, missing in given]  # type: ignore[arg-type]


def test_all_lines_supported_and_no_answer_issue_is_ok() -> None:
    judged = judge_claims(
        CLAIMS, verdicts((1, "supported", ""), (2, "supported", "x"), (3, "supported", "")), []
    )
    assert judged.ok and judged.issues == []
    assert [c.verdict for c in judged.claims] == ["supported"] * 3
    assert judged.claims[1].missing == "", "a supported line lacks nothing"


def test_each_line_not_supported_is_one_issue_saying_what_is_missing() -> None:
    judged = judge_claims(
        CLAIMS,
        verdicts(
            (1, "supported", ""),
            (2, "partly_supported", "to whom"),
            (3, "unsupported", "any dosing"),
        ),
        [],
    )
    assert not judged.ok
    assert judged.issues == [
        "Line 2 is partly supported (the quotes do not show: to whom): Alarms escalate.",
        "Line 3 is unsupported (the quotes do not show: any dosing): Chlorine is dosed.",
    ]
    assert [c.missing for c in judged.claims] == ["", "to whom", "any dosing"]


def test_an_answer_issue_fails_even_with_every_line_supported() -> None:
    supported = verdicts(*[(n, "supported", "") for n in (1, 2, 3)])
    judged = judge_claims(CLAIMS, supported, ["It does not say how often alarms are tested."])
    assert not judged.ok and judged.issues == ["It does not say how often alarms are tested."]


def test_a_line_the_judge_left_out_is_not_passed_and_its_first_verdict_counts() -> None:
    judged = judge_claims(
        CLAIMS, verdicts((1, "supported", ""), (1, "unsupported", "all"), (3, "supported", "")), []
    )
    assert [c.verdict for c in judged.claims] == ["supported", None, "supported"]
    assert judged.issues == ["Line 2 got no verdict: Alarms escalate."]
    assert not judged.ok


def test_no_claims_is_never_ok() -> None:
    assert not judge_claims([], [], []).ok
