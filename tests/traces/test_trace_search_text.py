"""User text made safe for FTS5, and the text extracted from outputs."""

from __future__ import annotations

import pytest

from ralph_tui.traces.search_text import fts_query, output_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("refund policy", '"refund" "policy"'),
        ('what\'s "this" (x)', '"what\'s" """this""" "(x)"'),
        ("penal* NOT", '"penal"* "NOT"'),
        ("a\0b", '"a" "b"'),
        ("  ", None),
        ('( ) " * - :', None),
    ],
)
def test_fts_query_quotes_every_word(text: str, expected: str | None) -> None:
    assert fts_query(text) == expected


def test_output_text_collects_every_string_in_order() -> None:
    output = {"answer": "- one", "evidence": ["q1", "", "q2"], "meta": {"n": 3, "note": "x"}}
    assert output_text(output) == "- one\nq1\nq2\nx"
    assert output_text({}) == ""
