"""Passages found by search say when OCR read their text: ``ralph-tui search --json`` rows,
the sandbox's ``retrieve()`` dicts (from a real sandbox cell) and the DocReader's retrieved
context carry the mark of the documents table's OCR'd pages, and a passage of a page with a
text layer does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, RetrievalDone
from ralph_tui.retrieval.run import RunRetrieval
from ralph_tui.retrieval.search import read_searchable
from ralph_tui.sandbox import Sandbox
from tests.documents.scans import mixed_pdf

TYPED = [
    "Typed cover page of the station report for the eastern district.",
    "The report covers the pumps, the filters and the chlorine dosing plant.",
    "It was typed by the district engineer after the spring inspection round.",
]
SCANNED = [
    "Handwritten sheet: valve 12 shut.",
    "Gauge at the outlet read 4.2 bar.",
    "Next check due in May.",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PDF whose page 1 has a text layer and whose page 2 is a scan; its out folder
    (under which its OCR'd text is cached) beside it."""
    folder = tmp_path_factory.mktemp("marks")
    path = folder / "station.pdf"
    path.write_bytes(mixed_pdf(TYPED, [SCANNED]))
    return path


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


def search_rows(report: Path, query: str, capsys: pytest.CaptureFixture[str]) -> list[dict]:  # type: ignore[type-arg]
    out = str(report.parent / "out")
    args = ["search", str(report), query, "--out", out, "--chunk-size", "120", "--json"]
    assert run_cli([*args, "--chunkOverlap", "0"]) == 0
    rows: list[dict] = json.loads(capsys.readouterr().out)["passages"]  # type: ignore[type-arg]
    return rows


def test_search_json_rows_say_which_passages_ocr_read(
    report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = search_rows(report, "valve shut outlet gauge bar", capsys)
    scanned = [row for row in rows if row["pages"] == [2]]
    typed = [row for row in rows if row["pages"] == [1]]
    assert scanned and typed, rows
    assert all(row["ocr"] is True for row in scanned)
    assert all(row["ocr"] is False for row in typed)
    assert any("valve 12" in row["text"] for row in scanned)

    out = str(report.parent / "out")
    assert run_cli(["search", str(report), "valve 12 shut", "--out", out]) == 0
    # (the text form says it after the page, as the quote labels do)
    assert " p. 2 (OCR) " in capsys.readouterr().out.splitlines()[0]


async def test_retrieve_in_the_sandbox_and_the_retrieved_context_carry_the_mark(
    report: Path,
) -> None:
    settings = Settings(
        _env_file=None,
        out_dir=report.parent / "out",
        chunk_size=120,
        chunk_overlap=0,
        embedder="none",
    )
    corpus = read_searchable([report], settings)
    events: list[BaseEvent] = []
    retrieval = await RunRetrieval.open(
        corpus.text,
        settings,
        None,
        table=corpus.table,
        emit=events.append,
        on_notice=lambda _m: None,
    )
    code = (
        "for h in retrieve('valve shut gauge outlet district engineer report', k=4):\n"
        "    print(h['pages'], h['ocr'])\n"
    )
    async with await Sandbox.start(
        globals={"context": corpus.text}, functions={"retrieve": retrieval.sandbox_retrieve}
    ) as sandbox:
        result = await sandbox.execute(code)
    assert result.error is None, result.error
    lines = set(result.output.splitlines())
    assert "[2] True" in lines and "[1] False" in lines, lines
    [search] = [event for event in events if isinstance(event, RetrievalDone)]
    assert {(tuple(p.pages), p.ocr) for p in search.passages} >= {((2,), True), ((1,), False)}

    found = await retrieval.search("valve 12 shut", "prephase", 1)
    [label_line, *_] = found.context_text().splitlines()
    assert label_line.endswith("] (OCR)"), label_line
