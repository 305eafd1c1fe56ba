"""Search that knows the shape of a filing: passages follow pages and headings, say every
page they span and are labelled where their text is; in a folder, the document a question
names is the one searched; the keyless rerank does not undo the fusion."""

from __future__ import annotations

import itertools
from pathlib import Path

from ralph_tui import api
from ralph_tui.evidence import page_label
from ralph_tui.retrieval.cache import IndexCache
from ralph_tui.retrieval.chunks import Chunking, chunk_text
from ralph_tui.retrieval.context import chunk_contexts
from ralph_tui.retrieval.naming import name_terms, named_documents
from tests.documents.fixtures import write_pdf
from tests.retrieval.helpers import paragraphs_document, retriever_of

KEYLESS = {"embedder": "offline", "env_file": None}


def paged(lengths: list[int]) -> tuple[str, list[dict[str, object]]]:
    """A text of pages of the given lengths (``x``), joined as a PDF's are (a blank line
    between pages), with its one-document table."""
    pages, text = [], ""
    for number, length in enumerate(lengths, 1):
        if text:
            text += "\n\n"
        pages.append({"page": number, "start": len(text), "end": len(text) + length})
        text += "x" * length
    return text, [{"name": "a.pdf", "start": 0, "end": len(text), "pages": pages}]


def test_chunks_end_at_page_breaks_and_the_next_starts_there() -> None:
    text, table = paged([800, 900, 700])
    chunks = chunk_text(text, Chunking(500, 100), table)
    pages: list[dict[str, int]] = table[0]["pages"]  # type: ignore[assignment]
    ends = chunks.ends.tolist()
    starts = chunks.starts.tolist()
    for before, after in itertools.pairwise(pages):
        assert after["start"] in starts
        assert after["start"] in ends or before["end"] in ends
    assert chunks.first_pages.tolist() == chunks.last_pages.tolist(), "none spans a break"


def test_a_chunk_starting_in_a_footer_is_labelled_by_the_page_its_text_is_on() -> None:
    # Page 1 ends 12 characters past a window: the next window starts in its last 110
    # characters (a footer) and holds 388 of page 2 — too little of page 1 to cut there.
    text, table = paged([510, 1000])
    chunks = chunk_text(text, Chunking(500, 100), table)
    spanning = [i for i in range(len(chunks)) if chunks.page_range(i) == [1, 2]]
    assert spanning, "one chunk runs over the page break"
    for index in spanning:
        assert int(chunks.first_pages[index]) == 1
        assert int(chunks.pages[index]) == 2, "labelled by where most of its text is"
    assert page_label(2, [1, 2]) == "p. 1\u20132" and page_label(2, [2]) == "p. 2"


def test_chunks_prefer_to_end_at_a_heading() -> None:
    text = "y" * 2000
    table = [
        {
            "name": "a.md",
            "start": 0,
            "end": 2000,
            "pages": [],
            "headings": [{"level": 2, "title": "Liquidity", "start": 1150}],
        }
    ]
    chunks = chunk_text(text, Chunking(500, 100), table)
    assert 1150 in chunks.ends.tolist() and 1150 in chunks.starts.tolist()


def test_a_chunks_context_names_its_document_and_its_headings() -> None:
    text = "z" * 3000
    table = [
        {"name": "ACME_2023_10K.pdf", "start": 0, "end": 1000, "pages": [], "headings": []},
        {
            "name": "GLOBEX_2023_10K.pdf",
            "start": 1002,
            "end": 3000,
            "pages": [],
            "headings": [
                {"level": 1, "title": "Item 7. Management's Discussion", "start": 1002},
                {"level": 2, "title": "Liquidity and Capital Resources", "start": 2000},
            ],
        },
    ]
    chunks = chunk_text(text, Chunking(500, 100), table)
    contexts = chunk_contexts(chunks, table)
    assert contexts[0] == "ACME 2023 10K"
    last = contexts[-1]
    assert last.startswith("GLOBEX 2023 10K")
    assert "Item 7. Management's Discussion\nLiquidity and Capital Resources" in last


def test_a_query_names_the_documents_of_its_most_specific_name_word() -> None:
    names = ["ADOBE 2019 10K", "MICROSOFT 2019 10K", "APPLE 2017 10K"]
    terms = name_terms(names)
    assert named_documents("How much did Adobe hold in current assets in 2019?", terms) == [0]
    assert named_documents("Compare Adobe and Apple", terms) == [0, 2]
    assert named_documents("What is in every 10-K?", terms) == []
    assert named_documents("What was revenue?", terms) == []
    assert named_documents("Adobe", name_terms(["ADOBE 2019 10K"])) == []


def test_the_index_cache_tells_layouts_of_the_same_text_apart() -> None:
    text, table = paged([800, 900])
    other = [{**table[0], "name": "b.pdf"}]
    chunking = Chunking(500, 100)
    assert IndexCache.key_of(text, chunking, table) != IndexCache.key_of(text, chunking, other)
    assert IndexCache.key_of(text, chunking, table) == IndexCache.key_of(text, chunking, table)


FILLER = [
    "The company designs and sells office furniture through dealers in many countries.",
    "Its products include desks, chairs, storage cabinets and meeting room tables.",
    "Competition is intense and is based on price, design, quality and delivery times.",
    "The company relies on suppliers of steel, wood and fabric for its raw materials.",
    "Seasonal demand peaks in the third quarter when schools and offices refurnish.",
    "Employees are organised in design, manufacturing, sales and service teams.",
]


async def test_search_over_a_pdf_labels_the_balance_sheet_with_its_page(tmp_path: Path) -> None:
    page_one = [*FILLER, *FILLER[:1], "Acme Corp 2023 Annual Report   41"]
    page_two = [
        "CONSOLIDATED BALANCE SHEETS (in thousands)",
        "Cash and cash equivalents 4,210",
        "Accounts receivable, net 7,330",
        "Inventories 4,214",
        "Total current assets 15,754",
        *FILLER[2:],
    ]
    pdf = write_pdf(tmp_path / "acme.pdf", [page_one, page_two, FILLER])
    result = await api.asearch(
        "current assets balance sheet", [pdf], out_dir=tmp_path / "out", top_k=3, **KEYLESS
    )
    best = result.passages[0]
    assert "Total current assets 15,754" in best.text
    assert best.page == 2 and 2 in best.pages
    assert best.label == f"acme.pdf {page_label(best.page, best.pages)}"
    for passage in result.passages:
        assert passage.page in passage.pages


async def test_in_a_folder_the_document_a_question_names_wins(tmp_path: Path) -> None:
    folder = tmp_path / "filings"
    folder.mkdir()
    body = "\n\n".join(
        [
            "Balance sheet at the end of the fiscal year.",
            "Total current assets were {assets} thousand dollars.",
            *FILLER,
        ]
    )
    # Acme's filing says "total current assets" more often: without the name, it wins.
    acme = body.format(assets="15,754") + "\n\nTotal current assets rose as current assets grew."
    (folder / "ACME_2023_10K.md").write_text(acme, encoding="utf-8")
    (folder / "GLOBEX_2023_10K.md").write_text(body.format(assets="9,821"), encoding="utf-8")
    out = tmp_path / "out"
    asked = await api.asearch(
        "What were Globex's total current assets?", [folder], out_dir=out, **KEYLESS
    )
    assert asked.passages[0].document == "filings/GLOBEX_2023_10K.md"
    assert "9,821" in asked.passages[0].text
    assert {p.document for p in asked.passages} == {"filings/GLOBEX_2023_10K.md"}
    either = await api.asearch("total current assets", [folder], out_dir=out, **KEYLESS)
    assert {str(p.document).split("/")[-1] for p in either.passages} == {
        "ACME_2023_10K.md",
        "GLOBEX_2023_10K.md",
    }


REPAIRS = [
    "The repair shop does bicycle repair and repair of scooters; repair prices are posted.",
    "Mechanics fixing a broken car engine replace the spark plugs and the timing belt.",
    "The choir sang hymns at the cathedral on Sunday morning.",
    "Ducks swim on the pond behind the old mill.",
]


async def test_the_rerank_keeps_the_passage_both_legs_rank_first() -> None:
    # The car paragraph matches "automobile" more closely word by word (a higher MaxSim),
    # but the lexical and dense legs both put the repair shop first: a rerank that replaced
    # the fused order with its own would lift it above; a vote beside the legs does not.
    text = paragraphs_document(REPAIRS)
    fused_only, _ = await retriever_of(text, rerank="off", top_k=2, top_n=4)
    reranked, _ = await retriever_of(text, rerank="auto", top_k=2, top_n=4)
    before = await fused_only.search("automobile repair")
    after = await reranked.search("automobile repair")
    assert [p.info.chunk for p in before.passages] == [0, 1]
    assert before.passages[0].ranks["lexical"] == before.passages[0].ranks["dense"] == 1
    assert after.passages[1].scores["maxsim"] > after.passages[0].scores["maxsim"]
    assert [p.info.chunk for p in after.passages] == [0, 1]
    assert "rerank" in after.diagnostics["ms"] and "rerank" not in after.diagnostics["skipped"]
    assert before.diagnostics["skipped"]["rerank"].startswith("turned off")
