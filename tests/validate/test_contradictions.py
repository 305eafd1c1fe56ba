"""Contradiction heuristics: clear contradictions caught, look-alikes left alone."""

from __future__ import annotations

import pytest

from ralph_tui.validate.contradictions import expand_contractions, find_contradictions
from ralph_tui.validate.task import check_no_contradictions


@pytest.mark.parametrize(
    "text",
    [
        "The cache is not enabled by default. The cache is enabled by default.",
        "The cache isn't enabled by default. Later on, the cache is enabled by default.",
        "The loader does not cache results. The loader caches results for speed.",
        "The loader doesn't retry requests. In practice the loader retries requests.",
        "The sandbox cannot reach the network. The sandbox can reach the network.",
        "The sandbox can't reach the network; the sandbox can reach the network.",
        "The judge will not see the brief. The judge will see the brief.",
        "The judge won't see the brief, but the judge will see the brief.",
        "The worker never writes files. The worker always writes files.",
        "The memory file is never trimmed. The memory file is always trimmed.",
        "- Quotes are not checked verbatim\n- Quotes are checked verbatim against the document",
    ],
)
def test_a_negated_statement_and_its_affirmation_are_reported(text: str) -> None:
    assert find_contradictions(text), text


@pytest.mark.parametrize(
    "text",
    [
        # Different subjects.
        "The API is fast. The CLI is not fast.",
        # Same opening, different predicates.
        "It is not possible to edit traces. It is possible to replay sessions.",
        "The parser is not thread-safe. The parser is fast and small.",
        # Conditions and questions.
        "If the flag is not set, the default is used. The flag is set by the installer.",
        "Is the cache not enabled? The cache is enabled by default.",
        "The budget is not exceeded until the fifth block. The budget is exceeded by then.",
        # Hedged negations.
        "The loop is not only fast. The loop is only fast when cached.",
        "The judge is not always right. The judge is right about quotes.",
        # A lone pronoun and one word are too little shared context.
        "It is not fast. It is fast.",
        # Affirmation of a different verb.
        "The loader does not cache results. The loader stores results on disk.",
    ],
)
def test_look_alikes_are_not_reported(text: str) -> None:
    assert find_contradictions(text) == [], text


def test_contradictions_come_back_as_clause_pairs() -> None:
    text = "Memory is not trimmed by default. Also, memory is trimmed by default."
    assert find_contradictions(text) == [
        ("Memory is not trimmed by default.", "memory is trimmed by default.")
    ]


def test_at_most_the_limit_of_pairs_is_reported() -> None:
    text = " ".join(
        f"The worker {verb} not stop. The worker {verb} stop."
        for verb in ("does", "can", "will", "should", "must")
    )
    assert len(find_contradictions(text, limit=2)) == 2


def test_contractions_are_spelled_out() -> None:
    assert expand_contractions("isn't can't won't doesn't") == ("is not can not will not does not")


@pytest.mark.parametrize(
    ("denied", "affirmed"),
    [
        ("The depot in Αθήνα is not open on Sundays.", "The depot in Πάτρα is open on Sundays."),
        ("The depot in 東京 is not open on Sundays.", "The depot in 大阪 is open on Sundays."),
        ("The depot at Malmö is not open on Sundays.", "The depot at Gävle is open on Sundays."),
    ],
)
def test_statements_about_different_non_english_names_do_not_contradict(
    denied: str, affirmed: str
) -> None:
    """Words of any script are words: two places named in Greek, Chinese or Swedish are
    two places, not one the ASCII letters left over."""
    assert find_contradictions(f"{denied} {affirmed}") == []
    assert check_no_contradictions(f"{denied}\n{affirmed}").ok


def test_a_statement_about_a_non_english_name_and_its_negation_contradict() -> None:
    text = "The depot in Αθήνα is not open on Sundays. The depot in Αθήνα is open on Sundays."
    assert find_contradictions(text) == [
        ("The depot in Αθήνα is not open on Sundays.", "The depot in Αθήνα is open on Sundays.")
    ]


def test_a_chinese_full_stop_ends_a_clause_of_the_check() -> None:
    text = "The depot is not open on Sundays。The depot is open on Sundays。"
    assert find_contradictions(text) == [
        ("The depot is not open on Sundays。", "The depot is open on Sundays。")
    ]
