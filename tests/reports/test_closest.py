"""The passage most like a quote that is no longer in a text: found across a long text,
trimmed to whole words, the nearest of equally alike ones, none when nothing is alike."""

from __future__ import annotations

from ralph_tui.reports.closest import closest_passage

FILLER = "Routine inspection notes follow for the record. " * 400
QUOTE = "The intake heater must stay on below 4 degrees Celsius."
EDITED = "The intake heater must stay on below 6 degrees Celsius."


def test_the_edited_sentence_is_found_in_a_long_text_trimmed_to_it() -> None:
    text = FILLER + EDITED + " " + FILLER
    found = closest_passage(text, QUOTE)
    assert found is not None
    assert text[found.start : found.end] == EDITED
    assert 0.95 < found.similarity < 1


def test_of_two_equal_passages_the_one_nearest_the_saved_place_wins() -> None:
    text = EDITED + " " + FILLER + EDITED
    late = text.rindex(EDITED)
    found = closest_passage(text, QUOTE, near=late - 3)
    assert found is not None and found.start == late
    found = closest_passage(text, QUOTE, near=0)
    assert found is not None and found.start == 0


def test_letter_case_does_not_hide_the_passage() -> None:
    text = FILLER + EDITED.upper() + " " + FILLER
    found = closest_passage(text, QUOTE)
    assert found is not None and text[found.start : found.end] == EDITED.upper()


def test_a_text_sharing_no_word_with_the_quote_has_no_closest_passage() -> None:
    assert closest_passage(FILLER, "Zebras graze quietly.") is None
    assert closest_passage("", QUOTE) is None
    assert closest_passage(FILLER, "—") is None
