"""A run's retrieval: ``retrieve()`` called from a real sandbox cell, each search reported as
an event with its diagnostics, episodes searchable once added."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, IndexProgress, RetrievalDone
from ralph_tui.retrieval.run import RunRetrieval
from ralph_tui.sandbox import Sandbox
from tests.retrieval.helpers import paragraphs_document
from tests.retrieval.test_lexical import PARAGRAPHS


async def open_retrieval(tmp_path: Path, text: str, events: list[BaseEvent]) -> RunRetrieval:
    settings = Settings(_env_file=None, out_dir=tmp_path, chunk_size=200, chunk_overlap=0)
    return await RunRetrieval.open(
        text, settings, None, table=None, emit=events.append, on_notice=lambda _m: None
    )


async def test_retrieve_from_a_sandbox_cell_returns_verbatim_passages(tmp_path: Path) -> None:
    text = paragraphs_document(PARAGRAPHS)
    events: list[BaseEvent] = []
    retrieval = await open_retrieval(tmp_path, text, events)
    retrieval.iteration = 3
    code = (
        "hits = retrieve('When do gardeners prune roses?', k=2, sources=['doc'])\n"
        "for h in hits:\n"
        "    assert context[h['span'][0]:h['span'][1]] == h['text']\n"
        "    print(h['source'], h['span'], h['label'])\n"
    )
    async with await Sandbox.start(
        globals={"context": text}, functions={"retrieve": retrieval.sandbox_retrieve}
    ) as sandbox:
        result = await sandbox.execute(code)
        refused = await sandbox.execute("retrieve('   ')")
    assert result.error is None, result.error
    lines = result.output.splitlines()
    assert len(lines) == 2 and all(line.startswith("doc [") for line in lines)
    assert {line.split("]")[0] for line in lines} == {"doc [200, 400", "doc [600, 800"}
    assert refused.error is not None and "the query is empty" in refused.error

    [ready] = [e for e in events if isinstance(e, IndexProgress) and e.stage == "ready"]
    assert ready.figures is not None and ready.figures["chunks"] == len(PARAGRAPHS)
    [search] = [e for e in events if isinstance(e, RetrievalDone)]
    assert search.origin == "sandbox" and search.iteration == 3
    assert sorted(p.span or [] for p in search.passages) == [[200, 400], [600, 800]]
    [diagnostics] = retrieval.take_diagnostics()
    assert diagnostics["origin"] == "sandbox" and diagnostics["k"] == 2
    assert retrieval.take_diagnostics() == []


async def test_episodes_become_searchable_once_added(tmp_path: Path) -> None:
    events: list[BaseEvent] = []
    retrieval = await open_retrieval(tmp_path, paragraphs_document(PARAGRAPHS), events)
    await retrieval.add_episodes(
        [{"iteration": 1, "brief": "The walrus colony moved north.", "output": "", "x": 1}]
    )
    result = await retrieval.search("walrus colony", "prephase")
    assert result.passages[0].info.kind == "episode"
    assert result.passages[0].info.label == "[source=episode iteration 1]"


async def test_retrieve_gives_the_pages_a_passage_spans(tmp_path: Path) -> None:
    # Two pages as a PDF's text has them (a blank line between): the passage about the
    # balance sheet is on page 2, labelled with it, its events saying the same.
    first = " ".join(PARAGRAPHS[:3])
    second = "Consolidated balance sheets. Total current assets were 15,754 thousand dollars."
    text = f"{first}\n\n{second}"
    pages = [
        {"page": 1, "start": 0, "end": len(first)},
        {"page": 2, "start": len(first) + 2, "end": len(text)},
    ]
    table = [{"name": "a.pdf", "start": 0, "end": len(text), "pages": pages}]
    events: list[BaseEvent] = []
    settings = Settings(_env_file=None, out_dir=tmp_path, chunk_size=200, chunk_overlap=40)
    retrieval = await RunRetrieval.open(
        text, settings, None, table=table, emit=events.append, on_notice=lambda _m: None
    )
    code = (
        "[hit] = retrieve('total current assets balance sheet', k=1)\n"
        "print(hit['page'], hit['pages'], sorted(hit))\n"
    )
    async with await Sandbox.start(
        globals={"context": text}, functions={"retrieve": retrieval.sandbox_retrieve}
    ) as sandbox:
        result = await sandbox.execute(code)
    assert result.error is None, result.error
    assert result.output.startswith("2 [2] ")
    assert "'pages'" in result.output and "'page'" in result.output
    [search] = [e for e in events if isinstance(e, RetrievalDone)]
    assert search.passages[0].page == 2 and search.passages[0].pages == [2]
    assert "page" in search.passages[0].ranks


async def test_a_search_of_sources_the_run_has_none_of_warns_of_nothing(tmp_path: Path) -> None:
    """The offline worker searches the external docs too; a run without any has nothing
    there to search, which is no reason to say the dense leg is missing."""
    notices: list[str] = []
    settings = Settings(_env_file=None, out_dir=tmp_path, chunk_size=200, chunk_overlap=0)
    retrieval = await RunRetrieval.open(
        paragraphs_document(PARAGRAPHS),
        settings,
        None,
        table=None,
        emit=lambda _e: None,
        on_notice=notices.append,
    )
    assert retrieval.retriever.embedder_id is not None, "the offline word vectors"
    nothing = await retrieval.search("When do gardeners prune roses?", "sandbox", 2, "external")
    found = await retrieval.search("When do gardeners prune roses?", "sandbox", 2, "doc")
    assert nothing.passages == [] and len(found.passages) == 2
    assert "dense" not in found.diagnostics["skipped"] and notices == []
