"""Where the offline RLM worker reads ``context``: around the hits where the most of the
question's words meet, each word's best hit at least, whole paragraphs or whole sentences."""

from __future__ import annotations

from ralph_tui.llm.offline.sentences import paragraph_span, ranked_hits, reading_spans

FILLER = " ".join(["Filter beds are washed daily."] * 10)
"""A paragraph of 300 characters holding one of the words many times."""


def test_hits_where_rare_words_meet_come_first() -> None:
    hits = {"common": [0, 5000, 10000, 15000], "rare": [15010], "alone": [30000]}
    ranked = ranked_hits(hits)
    assert ranked[:2] == [(15010, "rare"), (15000, "common")]
    assert sorted(ranked) == sorted((at, term) for term, spots in hits.items() for at in spots)


def paragraphs(*texts: str) -> str:
    return "\n\n".join(texts)


def test_the_best_paragraphs_are_read_and_every_word_once() -> None:
    text = paragraphs(
        *[FILLER] * 3, "Filter the saffron.", *[FILLER] * 5, "The simmer is long.", *[FILLER] * 3
    )
    hits = {
        word: [n for n in range(len(text)) if text.lower().startswith(word, n)]
        for word in ("filter", "saffron", "simmer")
    }
    spans = reading_spans(text, hits, limit=1)
    assert [text[a:b] for a, b in spans] == ["Filter the saffron.", "The simmer is long."]


def test_a_hit_is_read_with_its_whole_paragraph() -> None:
    text = "First paragraph here.\n\nThe saffron is steeped. It turns gold.\n \nLast one."
    start, end = paragraph_span(text, text.index("saffron"))
    assert text[start:end] == "The saffron is steeped. It turns gold."


def test_a_paragraph_longer_than_the_reach_is_cut_at_sentence_ends() -> None:
    sentence = "Water flows through the filter beds every day. "
    text = sentence * 200 + "The saffron is steeped here. " + sentence * 200
    at = text.index("saffron")
    start, end = paragraph_span(text, at, reach=500)
    window = text[start:end]
    assert "saffron" in window and at - start <= 500 and end - at <= 500
    assert window.startswith("Water") and window.endswith("day.")


def test_overlapping_paragraphs_are_read_once() -> None:
    text = paragraphs("One saffron line and one simmer line in a paragraph.", "Another.")
    hits = {"saffron": [text.index("saffron")], "simmer": [text.index("simmer")]}
    assert reading_spans(text, hits) == [(0, text.index("\n\n"))]


def test_a_table_is_read_from_the_heading_above_it() -> None:
    text = paragraphs(
        "Other text.",
        "## Maintenance",
        "Tasks are listed below.",
        "| Task | Who |\n|---|---|\n| Valves | Fitters |",
    )
    start, end = paragraph_span(text, text.index("Valves"))
    assert text[start:end] == text[text.index("## Maintenance") :]
