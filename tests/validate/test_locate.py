"""Each quote located in its source: the span's slice of the document's own text is the
quote, and for a PDF the page span's slice of the page text too; near misses and missing
quotes are said to be so; an external page gives its URL and fetch time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ralph_tui.documents import assemble
from ralph_tui.documents.convert import PAGE_SEPARATOR
from ralph_tui.documents.corpus import Document
from ralph_tui.validate.locate import (
    QuotableText,
    corpus_texts,
    describe_location,
    locate_quote,
    locate_quotes,
)

WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=6)
LINE = st.lists(WORD, min_size=1, max_size=8).map(" ".join)
PAGE = st.lists(LINE, min_size=1, max_size=4).map("\n".join)


@st.composite
def corpus_and_quote(draw: st.DrawFn) -> tuple[list[Document], int, int, int]:
    """Documents (some with pages), and a quote's document and span in its text."""
    documents = []
    for n in range(draw(st.integers(1, 3))):
        pages = draw(st.lists(PAGE, min_size=1, max_size=4)) if draw(st.booleans()) else None
        text = PAGE_SEPARATOR.join(pages) if pages else draw(PAGE)
        fmt = "pdf" if pages else "text"
        documents.append(
            Document(f"d{n}.{fmt}", None, fmt, fmt, "0" * 64, text, pages)  # type: ignore[arg-type]
        )
    index = draw(st.integers(0, len(documents) - 1))
    text = documents[index].text
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    return documents, index, start, end


@settings(max_examples=300, deadline=None)
@given(corpus_and_quote())
def test_an_exact_quote_is_the_slice_of_its_document_and_of_its_page(
    drawn: tuple[list[Document], int, int, int],
) -> None:
    documents, index, start, end = drawn
    quote = documents[index].text[start:end]
    [location] = locate_quotes([quote], corpus_texts(assemble(documents)))
    if not quote.strip():
        assert location.found == "missing"
        return
    assert location.found == "exact" and location.number == 1 and location.text == quote
    found = next(d for d in documents if d.name == location.source)
    assert location.start is not None and location.end is not None
    assert found.text[location.start : location.end] == quote
    if found.pages is None:
        assert location.page is None and location.page_start is None
        return
    assert location.page is not None
    page = found.pages[location.page - 1]
    page_begins = QuotableText(found.name, found.text, found.pages).page_starts()
    begins = page_begins[location.page - 1]
    assert begins <= location.start and location.start < begins + len(page) + len(PAGE_SEPARATOR)
    if location.page_start is None:
        # Only a quote that runs past its page's end has no span in one page.
        assert location.end > begins + len(page)
    else:
        assert page[location.page_start : location.page_end] == quote


def test_a_near_miss_is_located_as_near_and_a_quote_found_nowhere_as_missing() -> None:
    text = "The pump\u2019s seal is \u201creplaced\u201d every    three months."
    sources = [QuotableText("manual.md", text)]
    near = locate_quote(1, 'The pump\'s seal is "replaced" every three months.', sources)
    assert near.found == "near" and (near.start, near.end) == (0, len(text))
    assert describe_location(near) == f"manual.md, chars 0-{len(text)}, near match"
    missing = locate_quote(2, "The impeller is never replaced.", sources)
    assert missing.found == "missing" and missing.source is None
    assert describe_location(missing) == "not found"


def test_a_quote_from_an_external_page_names_its_url_and_fetch_time() -> None:
    url = "https://docs.test/a"
    page = QuotableText(url, "Intro.\n\nClients send a bearer token.", url=url, fetched_at=5.0)
    documents = [QuotableText("notes.md", "Clients send a token.")]
    [local, external] = locate_quotes(
        ["Clients send a token.", "Clients send a bearer token."], documents, [page]
    )
    assert (local.source, local.url, local.start) == ("notes.md", None, 0)
    assert (external.source, external.url, external.fetched_at) == (url, url, 5.0)
    assert page.text[external.start : external.end] == "Clients send a bearer token."
    assert external.number == 2 and "fetched " in describe_location(external)


def test_a_document_is_searched_before_an_external_page_and_exact_before_near() -> None:
    url = "https://docs.test/a"
    documents = [QuotableText("notes.md", "It is \u201cdone\u201d now.")]
    page = QuotableText(url, 'It is "done" now.', url=url)
    [location] = locate_quotes(['It is "done" now.'], documents, [page])
    assert (location.found, location.source) == ("exact", url)
    [location] = locate_quotes(['It is "done" now.'], documents)
    assert (location.found, location.source) == ("near", "notes.md")
