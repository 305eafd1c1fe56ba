"""The section tree in the PageIndex shape: pre-order zero-padded ids, spans that are
substrings of the page and nest inside their parents; passages that stay inside one section
and carry its path and node id."""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ralph_tui.config import load_settings
from ralph_tui.external.cache import CachedPage
from ralph_tui.external.passages import page_trees, pageindex_passages
from ralph_tui.external.run import HOSTED_PAGEINDEX_NOTE, gather_external
from ralph_tui.external.tree import page_tree, walk
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.usage import MeteredClient, UsageLedger
from ralph_tui.retrieval.chunks import Chunking
from tests.external.site import serve_site
from tests.llm.llm_wire import FakeAPI

GUIDE = """Intro text before any heading explains the guide.

# Authentication

Clients authenticate with tokens.

## Tokens

Bearer tokens go in the Authorization header.

### Refresh

Refresh a token before it expires after one hour.

## Keys

API keys are for servers only.

# Rate limits

Fifty requests a second per key.
"""


def page_of(text: str, **fields: Any) -> CachedPage:
    return CachedPage(
        url="https://docs.test/guide", final_url="https://docs.test/guide",
        fetched_at=time.time(), status=200, title="Guide", text=text, **fields,
    )  # fmt: skip


def test_the_tree_follows_the_headings_in_pre_order() -> None:
    roots = page_tree(page_of(GUIDE))
    shape = [(node.node_id, " > ".join(path)) for node, path in walk(roots)]
    assert shape == [
        ("0001", "Guide"),
        ("0002", "Authentication"),
        ("0003", "Authentication > Tokens"),
        ("0004", "Authentication > Tokens > Refresh"),
        ("0005", "Authentication > Keys"),
        ("0006", "Rate limits"),
    ]
    tokens = roots[1].nodes[0].to_json()
    assert set(tokens) == {"title", "node_id", "start_index", "end_index", "summary", "nodes"}
    assert GUIDE[tokens["start_index"] : tokens["end_index"]].startswith("## Tokens")
    assert "### Refresh" in GUIDE[tokens["start_index"] : tokens["end_index"]]
    assert tokens["summary"] == "Bearer tokens go in the Authorization header."


def test_a_pdf_without_headings_is_grouped_by_pages() -> None:
    pages = [f"Page {n} text about pumps." for n in range(1, 13)]
    roots = page_tree(page_of("\n\n".join(pages), pages=pages, format="pdf"))
    assert [node.to_json()["start_index"] for node in roots] == [1, 6, 11]
    assert [node.to_json()["end_index"] for node in roots] == [5, 10, 12]
    assert [node.title for node in roots] == ["Pages 1-5", "Pages 6-10", "Pages 11-12"]


def test_passages_stay_in_their_section_and_say_where_they_are() -> None:
    trees = page_trees([page_of(GUIDE)])
    passages = pageindex_passages([page_of(GUIDE)], Chunking(size=60, overlap=10), trees)
    refresh = [p for p in passages if p.extra["node"] == "0004"]
    assert refresh and all(p.extra["path"] == "Authentication > Tokens > Refresh" for p in refresh)
    assert "(node 0004)" in refresh[0].label and "url=https://docs.test/guide" in refresh[0].label
    for passage in passages:
        assert passage.span is not None
        assert GUIDE[passage.span[0] : passage.span[1]] == passage.text
    assert trees["https://docs.test/guide"][1].title == "Authentication"


sections = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=4),
        st.text(alphabet="abc xyz", min_size=1, max_size=12).filter(str.strip),
        st.text(alphabet="lorem ipsum.\n", max_size=80),
    ),
    max_size=12,
)


@given(st.text(alphabet="intro text.\n", max_size=40), sections)
def test_node_spans_are_in_the_page_and_children_nest(intro: str, parts: list[Any]) -> None:
    text = intro + "".join(f"\n{'#' * level} {title}\n{body}\n" for level, title, body in parts)
    roots = page_tree(page_of(text))
    ids = [node.node_id for node, _path in walk(roots)]
    assert ids == [f"{n:04d}" for n in range(1, len(ids) + 1)]

    def check(nodes: list[Any], low: int, high: int) -> None:
        for node in nodes:
            assert low <= node.start <= node.own_end <= node.end <= high
            check(node.nodes, node.start, node.end)
        for left, right in pairwise(nodes):
            assert left.end <= right.start

    check(roots, 0, len(text))


async def test_the_pageindex_provider_gives_trees_and_says_the_hosted_service_is_not_used(
    tmp_path: Path,
) -> None:
    settings = load_settings(
        {
            "out_dir": tmp_path,
            "external_provider": "pageindex",
            "pageindex_api_key": "pi-test",
            "crawl_timeout_s": 1.0,
            "allow_local_docs": True,
        },
        env_file=Path("/nonexistent"),
    )
    with serve_site() as site:
        site.slow_s = 0.0
        docs = await gather_external(settings, [site.base + "/docs/"], lambda _e: None)
    assert docs.provider == "pageindex" and docs.notes == [HOSTED_PAGEINDEX_NOTE]
    tree = docs.trees[site.base + "/docs/a.html"]
    assert tree[0]["title"] == "Authentication" and tree[0]["node_id"] == "0001"
    labels = [p.label for p in docs.passages if p.url == site.base + "/docs/a.html"]
    assert labels and all("(node 0001)" in label for label in labels)
    assert docs.to_json()["trees"] == docs.trees


def test_a_pdf_outline_gives_the_tree_with_page_numbers() -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    from ralph_tui.external.convert import convert_page
    from tests.documents.fixtures import pdf_bytes

    pages = [["Cover page of the manual."], ["Install the pump."], ["Wire it."], ["Grease it."]]
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    setup = writer.add_outline_item(title="Setup", page_number=1)
    writer.add_outline_item(title="Wiring", page_number=2, parent=setup)
    writer.add_outline_item(title="Maintenance", page_number=3)
    buffer = io.BytesIO()
    writer.write(buffer)
    converted = convert_page(buffer.getvalue(), "application/pdf", "https://docs.test/m.pdf")
    assert converted.outline == [(0, "Setup", 1), (1, "Wiring", 2), (0, "Maintenance", 3)]
    page = page_of(converted.text, pages=converted.pages, outline=converted.outline)
    tree = [node.to_json() for node in page_tree(page)]
    assert [(n["title"], n["start_index"], n["end_index"]) for n in tree] == [
        ("Guide", 1, 1),
        ("Setup", 2, 3),
        ("Maintenance", 4, 4),
    ]
    [wiring] = tree[1]["nodes"]
    assert (wiring["title"], wiring["node_id"], wiring["start_index"]) == ("Wiring", "0003", 3)


def test_a_pdf_without_an_outline_gets_its_tree_from_its_headings_with_page_numbers() -> None:
    from ralph_tui.external.convert import convert_page
    from tests.documents.fixtures import pdf_bytes

    pages = [
        ["ACME Corp annual report 2023.", "Form 10-K."],
        ["PART I", "Item 1. Business", "We make pumps for water works."],
        ["Item 1A. Risk Factors", "Pumps can fail in cold weather."],
        ["PART II", "Item 7. Management's Discussion and Analysis", "Sales rose by a tenth."],
        ["Revenue was 12 million."],
    ]
    converted = convert_page(pdf_bytes(pages), "application/pdf", "https://docs.test/k.pdf")
    assert converted.outline == []  # (a filing's numbered items, no bookmarks)
    page = page_of(
        converted.text,
        pages=converted.pages,
        headings=[(h.level, h.title, h.start) for h in converted.headings],
    )
    tree = [node.to_json() for node in page_tree(page)]
    assert [(n["title"], n["start_index"], n["end_index"]) for n in tree] == [
        ("Guide", 1, 1),
        ("PART I", 2, 3),
        ("PART II", 4, 5),
    ]
    items = [(n["title"], n["start_index"], n["end_index"]) for n in tree[1]["nodes"]]
    assert items == [("Item 1. Business", 2, 2), ("Item 1A. Risk Factors", 3, 3)]
    [mdna] = tree[2]["nodes"]
    assert (mdna["start_index"], mdna["end_index"], mdna["summary"]) == (
        4,
        5,
        "Sales rose by a tenth. Revenue was 12 million.",
    )


async def test_sections_are_summarised_by_the_model_once_then_from_the_cache(
    tmp_path: Path,
) -> None:
    from ralph_tui.external.cache import PageCache
    from ralph_tui.external.summaries import summarise_trees
    from tests.llm.llm_wire import openai_completion

    long_tokens = "Bearer tokens go in the Authorization header of every request. " * 5
    text = GUIDE.replace("Bearer tokens go in the Authorization header.", long_tokens)
    page = page_of(text)
    cache = PageCache(tmp_path)
    api = FakeAPI()
    api.reply(200, openai_completion({"role": "assistant", "content": "Tokens: where they go."}))
    client = metered(api)
    notices: list[str] = []
    trees = page_trees([page])
    calls = await summarise_trees([page], trees, client, cache, notices.append)
    tokens = trees[page.url][1].nodes[0]
    assert calls == 1 and tokens.summary == "Tokens: where they go." and not notices
    assert trees[page.url][1].summary == "Clients authenticate with tokens.", "short: extractive"
    stored = cache.load(page.url)
    assert stored is not None and list(stored.summaries.values()) == ["Tokens: where they go."]
    again = page_trees([stored])
    assert await summarise_trees([stored], again, client, cache, notices.append) == 0
    assert again[page.url][1].nodes[0].summary == "Tokens: where they go."


async def test_a_failing_summary_keeps_the_first_sentences_and_says_so(tmp_path: Path) -> None:
    from ralph_tui.external.cache import PageCache
    from ralph_tui.external.summaries import summarise_trees

    text = GUIDE.replace("Bearer tokens go in", "Bearer tokens always go in the header. " * 6)
    page = page_of(text)
    api = FakeAPI()
    api.reply(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
    client = metered(api)
    notices: list[str] = []
    trees = page_trees([page])
    await summarise_trees([page], trees, client, PageCache(tmp_path), notices.append)
    assert trees[page.url][1].nodes[0].summary.startswith("Bearer tokens always go in the header.")
    [notice] = notices
    assert "1 section summaries failed" in notice and "first sentences" in notice


def metered(api: FakeAPI) -> MeteredClient:
    """The real openai SDK on ``api``'s fake network, metered as a run's clients are."""
    client = OpenAIClient(
        "gpt-4o-mini", api_key="sk-test", base_url="https://openai.test/v1",
        http_client=api.http_client(),
    )  # fmt: skip
    return MeteredClient(client, UsageLedger())


def test_a_page_with_its_headings_beside_its_text_gives_the_same_tree() -> None:
    plain = GUIDE.replace("### ", "").replace("## ", "").replace("# ", "")
    titles = [(1, "Authentication"), (2, "Tokens"), (3, "Refresh"), (2, "Keys"), (1, "Rate limits")]
    headings = [(level, title, plain.index(f"\n{title}\n") + 1) for level, title in titles]
    marked = [(node.node_id, " > ".join(path)) for node, path in walk(page_tree(page_of(GUIDE)))]
    roots = page_tree(page_of(plain, headings=headings))
    assert [(node.node_id, " > ".join(path)) for node, path in walk(roots)] == marked
    tokens = next(node for node, _path in walk(roots) if node.title == "Tokens")
    assert tokens.summary == "Bearer tokens go in the Authorization header."


async def test_a_cap_reached_while_summarising_stops_the_run_not_one_summary(
    tmp_path: Path,
) -> None:
    """A cap is not a failing summary: it propagates to the run, which ends ``capped``."""
    from ralph_tui.errors import CostCapReached
    from ralph_tui.external.cache import PageCache
    from ralph_tui.external.summaries import summarise_trees
    from ralph_tui.llm.usage import ModelUsage

    text = GUIDE.replace("Bearer tokens go in", "Bearer tokens always go in the header. " * 6)
    page = page_of(text)
    api = FakeAPI()
    ledger = UsageLedger(token_cap=1000)
    ledger.carry(ModelUsage(input_tokens=1000, calls=1))  # an earlier leg used the cap up
    client = OpenAIClient(
        "gpt-4o-mini", api_key="sk-test", base_url="https://openai.test/v1",
        http_client=api.http_client(),
    )  # fmt: skip
    notices: list[str] = []
    with pytest.raises(CostCapReached, match="token cap reached"):
        await summarise_trees(
            [page], page_trees([page]), MeteredClient(client, ledger), PageCache(tmp_path),
            notices.append,
        )  # fmt: skip
    assert notices == [] and api.requests == []
