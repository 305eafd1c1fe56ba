"""Two-stage search: fusion by reciprocal rank, exact phrases first, weights per source kind,
the MaxSim rerank, and the diagnostics of each search."""

from __future__ import annotations

import logging

import pytest

from ralph_tui.retrieval.embedders import WordVectorEmbedder
from ralph_tui.retrieval.fusion import exact_phrases, rrf
from ralph_tui.retrieval.retriever import RetrievalError, Retriever, SearchOptions
from ralph_tui.retrieval.sources import DocumentSource, PassageInfo, TextSource
from tests.retrieval.helpers import index_of, paragraphs_document, retriever_of

REPAIRS = [
    "The repair shop does bicycle repair and repair of scooters; repair prices are posted.",
    "Mechanics fixing a broken car engine replace the spark plugs and the timing belt.",
    "The choir sang hymns at the cathedral on Sunday morning.",
    "Ducks swim on the pond behind the old mill.",
]


def test_rrf_sums_reciprocal_ranks_and_applies_weights() -> None:
    fused = rrf([["a", "b"], ["b", "c"]], {"c": 0.5})
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["c"] == pytest.approx(0.5 / 62)
    assert sorted(fused, key=lambda key: -fused[key]) == ["b", "a", "c"]


def test_exact_phrases_are_the_quoted_ones_or_a_short_query() -> None:
    assert exact_phrases('where is the "spiral   Stairs" mentioned') == ["spiral stairs"]
    assert exact_phrases("Orla Fenwick") == ["orla fenwick"]
    assert exact_phrases("word") == []
    assert exact_phrases("a much longer question that is not a name or a term at all") == []


async def test_a_passage_holding_the_exact_phrase_comes_first() -> None:
    paragraphs = [
        "Stairs, stairs and more stairs: the spiral of the shell, a spiral of stairs, spiral.",
        "Dust lay on the old spiral stairs of the tower.",
        "Nothing here about the tower at all.",
    ]
    retriever, _ = await retriever_of(paragraphs_document(paragraphs), dense=False)
    loose = await retriever.search("spiral stairs spiral")
    assert loose.passages[0].info.chunk == 0, "without a phrase BM25 prefers the repetitions"
    result = await retriever.search('"spiral stairs"')
    assert [p.info.chunk for p in result.passages[:2]] == [1, 0]
    assert result.passages[0].phrase and not result.passages[1].phrase
    assert result.diagnostics["exactPhrases"] == ["spiral stairs"]


def crowd(count: int) -> list[str]:
    """Filler, and every twentieth paragraph holding several common words of the question
    below (none of the name)."""
    return [
        "The old keeper stores the spyglass in the old tower, by the tower stairs."
        if i % 20 == 0
        else f"Paragraph {i}: ducks swim on the pond behind the mill."
        for i in range(count)
    ]


@pytest.mark.parametrize("rerank", ["off", "auto"])
async def test_a_rare_name_outranks_many_common_words_in_a_large_document(rerank: str) -> None:
    needle = "Orla Fenwick keeps a brass telescope in the cellar of the lighthouse."
    paragraphs = crowd(2100)
    paragraphs.insert(1234, needle)
    question = "Where does Orla Fenwick store the old spyglass of the tower keeper?"
    retriever, index = await retriever_of(paragraphs_document(paragraphs), rerank=rerank)
    bm25 = index.lexical.scores(question)
    assert bm25 is not None and int((bm25 > bm25[1234]).sum()) > 15, "BM25 alone buries it"
    result = await retriever.search(question)
    assert result.passages[0].info.chunk == 1234
    assert result.passages[0].rare_terms == 2 and result.passages[1].rare_terms == 0


async def test_a_small_document_has_no_rare_terms() -> None:
    retriever, _ = await retriever_of(paragraphs_document(REPAIRS), dense=False)
    result = await retriever.search("automobile repair")
    assert all(p.rare_terms == 0 for p in result.passages)


async def test_without_an_embedder_the_lexical_leg_runs_alone_and_says_why() -> None:
    retriever, _ = await retriever_of(paragraphs_document(REPAIRS), dense=False)
    result = await retriever.search("bicycle repair")
    assert result.passages[0].info.chunk == 0
    skipped = result.diagnostics["skipped"]
    assert "no embedder" in skipped["dense"] and "no token vectors" in skipped["rerank"]
    assert result.diagnostics["candidates"]["dense"] == {}


async def test_diagnostics_name_each_leg_and_selected_chunk() -> None:
    retriever, index = await retriever_of(paragraphs_document(REPAIRS), top_k=2, top_n=3)
    result = await retriever.search("bicycle repair prices")
    diagnostics = result.diagnostics
    assert diagnostics["embedder"] == index.figures.embedder
    assert diagnostics["candidates"]["lexical"] == {"doc": 1}
    assert diagnostics["candidates"]["dense"] == {"doc": 3}
    first = diagnostics["selected"][0]
    assert first["span"] == [0, 200] and first["ranks"]["lexical"] == 1
    assert {"lexical", "dense", "fused", "maxsim"} <= set(first["scores"])
    assert {"lexical", "embedQuery", "dense", "fusion", "rerank", "total"} <= set(diagnostics["ms"])
    assert result.passages[0].info.label == "[source=doc chunk 0 chars 0-200]"
    assert result.context_text().startswith("[source=doc chunk 0 chars 0-200]\nThe repair shop")


async def test_external_passages_weigh_less_than_the_document() -> None:
    index = await index_of(paragraphs_document(["The tide tables list high water at noon."]))
    external = await TextSource.build(
        "external",
        [
            PassageInfo(
                "external", 0, "The tide tables list high water at noon.", url="https://x.test/t"
            )
        ],
        None,
    )
    both = Retriever([DocumentSource(index), external], None)
    result = await both.search("tide tables")
    assert [p.info.kind for p in result.passages] == ["doc", "external"]
    assert result.passages[1].info.label == "[source=external chunk 0 url=https://x.test/t]"
    only_external = await both.search("tide tables", kinds=["external"])
    assert [p.info.kind for p in only_external.passages] == ["external"]
    heavier = Retriever(
        [DocumentSource(index), external], None, SearchOptions(weights={"doc": 0.1, "external": 1})
    )
    assert (await heavier.search("tide tables")).passages[0].info.kind == "external"


@pytest.mark.parametrize(
    ("query", "k", "kinds", "message"),
    [
        ("   ", None, None, "the query is empty"),
        ("tide", 0, None, "k must be positive"),
        ("tide", None, ["web"], "unknown source 'web'"),
    ],
)
async def test_bad_searches_say_what_is_wrong(
    query: str, k: int | None, kinds: list[str] | None, message: str
) -> None:
    retriever, _ = await retriever_of(paragraphs_document(REPAIRS), dense=False)
    with pytest.raises(RetrievalError, match=message):
        await retriever.search(query, k, kinds)


def test_top_k_above_top_n_is_refused() -> None:
    with pytest.raises(RetrievalError, match=r"topK \(6\) cannot exceed topN \(5\)"):
        SearchOptions(top_n=5, top_k=6)
    with pytest.raises(RetrievalError, match="must be positive"):
        SearchOptions(top_n=0, top_k=0)


async def test_offline_embedder_vectors_are_unit_length() -> None:
    vectors = await WordVectorEmbedder().embed(["a lighthouse by the sea", "", "tide"])
    norms = (vectors**2).sum(axis=1)
    assert norms[0] == pytest.approx(1, abs=1e-5) and norms[1] == 0


def test_loading_the_offline_embedder_leaves_logging_alone() -> None:
    """wordllama's import configures the root logger at INFO, which would print every SDK
    request over the app's screen; a fresh process shows it put back."""
    import subprocess
    import sys

    code = (
        "import logging\n"
        "from ralph_tui.retrieval.embedders import WordVectorEmbedder\n"
        "WordVectorEmbedder()\n"
        "root = logging.getLogger()\n"
        "print(len(root.handlers), root.level)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert shown.stdout.split() == ["0", str(logging.WARNING)]
