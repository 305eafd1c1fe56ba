"""One normaliser: what counts as the same term for every part that compares terms."""

from __future__ import annotations

from ralph_tui.words import (
    fold,
    key_terms,
    names_of,
    parts_of,
    query_terms,
    query_words,
    term_pairs,
    term_set,
    terms,
)


def test_folding_takes_unicode_forms_and_case_together() -> None:
    assert fold("ﬁLE") == "file"
    assert fold("Straße") == "strasse"
    assert term_set("ﬁles") == term_set("FILES") == {"file"}


def test_inflections_of_one_word_are_one_term() -> None:
    assert term_set("terminated termination terminate") == {"termin"}
    assert term_set("license licenses") == {"licens"}


def test_a_compound_word_is_its_whole_and_its_parts() -> None:
    assert parts_of("asn1Coding") == ["asn1", "Coding", "asn"]
    assert parts_of("bzip2recover") == ["bzip2", "recover", "bzip"]
    assert parts_of("HTMLParser") == ["HTML", "Parser"]
    assert parts_of("plain") == parts_of("Plain") == parts_of("NASA") == []
    assert terms("asn1Coding") == ["asn1cod", "asn1", "code", "asn"]


def test_a_question_names_whole_words_and_a_text_holds_their_parts() -> None:
    assert query_terms("What does asn1Coding do?") == ["asn1cod"]
    assert "asn1cod" in term_set("'asn1Coding' generates a DER encoding")
    assert {"bzip2", "recov"} <= term_set("You can use bzip2recover on damaged files.")
    assert key_terms("bzip2recover files") == ["bzip2recov", "file"]


def test_a_question_is_about_its_subject_not_its_phrasing() -> None:
    assert query_words("Summarise how bzip2 recovers data from damaged files") == {
        "bzip2": "bzip2",
        "recov": "recovers",
        "data": "data",
        "damag": "damaged",
        "file": "files",
    }


def test_names_are_capitalised_past_a_sentence_start_or_compound() -> None:
    assert names_of("Which Python version does the interpreter require?") == ["python"]
    assert names_of("Summarise how bzip2 recovers data. Then list it.") == ["bzip2"]
    assert names_of("How many goats graze beside the flotation units?") == []


def test_phrases_are_pairs_of_consecutive_terms() -> None:
    assert term_pairs("Planned maintenance is scheduled") == {
        ("plan", "mainten"),
        ("mainten", "schedul"),
    }
