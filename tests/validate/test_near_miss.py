"""The normalized document copy and its map back to original positions."""

from __future__ import annotations

import time
import unicodedata

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ralph_tui.validate.normalize import (
    find_near_miss,
    normalize_quote,
    normalize_text,
    normalized_document,
)

# Characters that exercise every path: plain ASCII, whitespace of all kinds, one-to-one
# replacements, expansions, deletions and combining marks.
ALPHABET = "ab -.\n\t\u00a0\u2009“”‘’—–‑ﬁ…\u00ad\u200b\u0301\u0308éü½"


def test_normalization_collapses_whitespace_and_maps_punctuation() -> None:
    text = normalize_text("“Quoted”\n\n  text — with ﬁne\u00a0details…").text
    assert text == '"Quoted" text - with fine details...'


def test_normalization_drops_invisible_characters_and_composes_accents() -> None:
    assert normalize_text("soft\u00adhy\u200bphen cafe\u0301").text == "softhyphen café"


def test_a_pure_ascii_document_maps_one_to_one_except_whitespace_runs() -> None:
    normalized = normalize_text("one\ttwo\n\nthree")
    assert normalized.text == "one two three"
    assert normalized.source_span(8, 13) == (9, 14)


def test_normalize_quote_strips_the_ends() -> None:
    assert normalize_quote("  \n“a”  ") == '"a"'


def test_the_source_span_covers_an_expanded_character_wholly() -> None:
    source = "a ﬁle"
    normalized = normalize_text(source)
    start = normalized.text.index("ile")
    assert normalized.source_span(start, start + 3) == (2, 5)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=60), st.data())
def test_every_normalized_span_maps_to_a_source_span_that_normalizes_to_contain_it(
    source: str, data: st.DataObject
) -> None:
    normalized = normalize_text(source)
    if not normalized.text:
        return
    start = data.draw(st.integers(0, len(normalized.text) - 1))
    end = data.draw(st.integers(start + 1, len(normalized.text)))
    source_start, source_end = normalized.source_span(start, end)
    assert 0 <= source_start < source_end <= len(source)
    assert normalized.text[start:end] in normalize_text(source[source_start:source_end]).text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40), st.text(alphabet=ALPHABET, min_size=1))
def test_a_verbatim_quote_is_always_found_as_a_near_miss_too(prefix: str, quote: str) -> None:
    # A quote opening with a bare combining mark cuts a composed character in two;
    # such a quote has no normalized twin and is out of scope.
    assume(not unicodedata.combining(normalize_quote(quote)[:1] or "a"))
    document = prefix + quote + " tail"
    span = find_near_miss(document, quote)
    if not normalize_quote(quote):
        assert span is None
        return
    assert span is not None
    assert normalize_quote(document[span[0] : span[1]]) == normalize_quote(quote)


def test_the_normalized_document_is_built_once_per_document() -> None:
    document = "A cached “document” " * 10
    first = normalized_document(document)
    assert normalized_document(document) is first
    assert normalized_document("".join(["A cached “document” "] * 10)) is first


def test_a_near_miss_lookup_in_a_20_mb_document_completes() -> None:
    paragraph = (
        "The “outer loop” generates a candidate — validates it — and retries.\n\n"
        "    Each quote must be verbatim; the ﬁrst check is cheap…\n"
    )
    filler = paragraph * (20_000_000 // len(paragraph))
    target = "the “decisive” passage\n   sits — right here"
    document = filler + target + "\n" + paragraph
    started = time.perf_counter()
    span = find_near_miss(document, 'the "decisive" passage sits - right here')
    built = time.perf_counter()
    again = find_near_miss(document, "the ﬁrst check is cheap...")
    looked_up = time.perf_counter()
    assert span is not None
    assert document[span[0] : span[1]] == target
    assert again is not None
    assert document[again[0] : again[1]] == "the ﬁrst check is cheap…"
    print(
        f"20 MB: first near-miss lookup (builds the copy) {built - started:.2f} s, "
        f"second lookup {looked_up - built:.3f} s"
    )
