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


def test_a_quote_too_long_for_the_budget_is_not_compared() -> None:
    from ralph_tui.reports.closest import WORK_BUDGET, TooLong

    found = closest_passage(FILLER, FILLER[:40_000])
    assert isinstance(found, TooLong)
    assert 1_000 < found.longest < 40_000
    assert not isinstance(closest_passage(FILLER, FILLER[: found.longest]), TooLong)
    assert isinstance(closest_passage(FILLER, FILLER[: found.longest + 1]), TooLong)
    assert closest_passage(FILLER, QUOTE, budget=WORK_BUDGET) is not None


def test_the_search_stops_at_a_checkpoint() -> None:
    import pytest

    from ralph_tui.reports.closest import WordIndex
    from ralph_tui.reports.stoppable import Stopped

    calls = 0

    def checkpoint() -> None:
        nonlocal calls
        calls += 1
        raise Stopped()

    words = WordIndex(FILLER + EDITED)
    with pytest.raises(Stopped):
        closest_passage(FILLER + EDITED, QUOTE, index=words, checkpoint=checkpoint)
    assert calls == 1
