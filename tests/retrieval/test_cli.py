"""``ralph-tui index`` and ``ralph-tui search``: figures, ranked passages with where they
come from, the cache reused, and bad input as one line, exit 2 and nothing written."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.events import IndexProgress, RetrievalDone
from ralph_tui.progress_lines import IndexProgressLines, ProgressPrinter

PARAGRAPHS = [
    "The pump station lifts raw water from the river intake into the settling basins.",
    "Free chlorine residual leaving the works must stay between 0.4 and 0.7 mg/L.",
    "Filters are backwashed after 48 hours in service or sooner on high head loss.",
    "The night shift checks the fluoride analyser calibration every Tuesday.",
] * 3


@pytest.fixture(autouse=True)
def offline_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "handbook.md"
    path.write_text("\n\n".join(PARAGRAPHS), encoding="utf-8")
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_index_prints_figures_then_reuses_the_cache(
    doc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, stdout, _ = run(["index", str(doc), "--out", str(out), "--chunk-size", "120"], capsys)
    assert code == 0
    assert "1 document," in stdout and "lexical (BM25): built" in stdout
    assert "wordllama" in stdout and "dense: " in stdout and "built" in stdout
    code, stdout, _ = run(
        ["index", str(doc), "--out", str(out), "--chunk-size", "120", "--json"], capsys
    )
    figures = json.loads(stdout)
    assert code == 0 and figures["lexicalFromCache"] and figures["vectorsFromCache"]
    assert figures["chunks"] > 1 and Path(figures["cacheFolder"]).is_relative_to(out)
    code, stdout, _ = run(
        ["index", str(doc), "--out", str(out), "--chunk-size", "120", "--rebuild", "--json"],
        capsys,
    )
    assert code == 0 and not json.loads(stdout)["lexicalFromCache"]


def test_index_reports_the_chunking_it_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = tmp_path / "short.md"
    short.write_text("The weir was cleared on Monday.", encoding="utf-8")
    args = ["index", str(short), "--out", str(tmp_path / "out"), "--chunk-size", "120"]
    code, stdout, _ = run([*args, "--chunk-overlap", "20"], capsys)
    assert code == 0
    assert "1 chunks (120-char windows, 20 shared with the next)" in stdout.splitlines()[0]
    code, stdout, _ = run([*args, "--chunk-overlap", "20", "--json"], capsys)
    figures = json.loads(stdout)
    assert (figures["chunkSize"], figures["chunkOverlap"], figures["chunks"]) == (120, 20, 1)


def test_index_prints_no_cache_path_it_did_not_write(
    doc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "cache").write_text("a file where the cache folder would go", encoding="utf-8")
    code, stdout, stderr = run(["index", str(doc), "--out", str(out)], capsys)
    assert code == 0 and "retrieval index not cached" in stderr
    assert "  cache: not written (the next run builds it again)" in stdout.splitlines()
    assert str(out) not in stdout
    code, stdout, _ = run(["index", str(doc), "--out", str(out), "--json"], capsys)
    assert code == 0 and json.loads(stdout)["cacheFolder"] is None


def test_search_ranks_the_passage_that_answers(
    doc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["search", str(doc), "chlorine residual range", "--out", str(tmp_path / "out")]
    code, stdout, _ = run([*args, "--chunk-size", "90", "--chunk-overlap", "0"], capsys)
    assert code == 0
    first = stdout.splitlines()[0]
    assert first.startswith("1. [source=doc chunk") and "lexical #1" in first
    assert "Free chlorine residual" in stdout.splitlines()[1]
    code, stdout, _ = run(
        [*args, "--chunk-size", "90", "--chunk-overlap", "0", "--top-k", "2", "--json"], capsys
    )
    result = json.loads(stdout)
    assert code == 0 and result["query"] == "chlorine residual range"
    assert len(result["passages"]) == 2
    best = result["passages"][0]
    start, end = best["span"]
    assert doc.read_text(encoding="utf-8")[start:end] == best["text"]
    assert "Free chlorine residual" in best["text"]


def test_search_without_an_embedder_says_the_dense_leg_was_skipped(
    doc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, _ = run(
        ["search", str(doc), "backwash filters", "--embedder", "none", "--out", str(tmp_path)],
        capsys,
    )
    assert code == 0 and "(dense: no embedder" in stdout and "lexical #1" in stdout


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["search", "QUERY_EMPTY"], "the query is empty"),
        (["search", "pumps", "--top-k", "9", "--top-n", "3"], "topK (9) cannot exceed topN (3)"),
        (["index", "--chunk-size", "0"], "chunk_size"),
        (["index", "--chunk-size", "50", "--chunk-overlap", "50"], "overlap"),
        (["index", "--embedder", "bogus"], "embedder"),
        (["index", "EMPTY_DOC"], "is empty"),
        (["index", "MISSING_DOC"], "document not found"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    doc: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    expected: str,
) -> None:
    out = tmp_path / "out"
    command, *rest = extra
    path = doc
    if "EMPTY_DOC" in rest:
        path = tmp_path / "empty.md"
        path.write_text("", encoding="utf-8")
    if "MISSING_DOC" in rest:
        path = tmp_path / "missing.md"
    rest = [
        "  " if arg == "QUERY_EMPTY" else arg
        for arg in rest
        if arg not in ("EMPTY_DOC", "MISSING_DOC")
    ]
    positional = [str(path), rest.pop(0)] if command == "search" else [str(path)]
    code, stdout, stderr = run([command, *positional, *rest, "--out", str(out)], capsys)
    assert code == 2, stderr
    assert stdout == ""
    assert len(stderr.strip().splitlines()) == 1 and expected in stderr
    assert not out.exists()


def test_openai_embedder_without_a_key_exits_3(
    doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RALPH_OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    code, stdout, stderr = run(
        ["index", str(doc), "--embedder", "openai", "--out", str(tmp_path / "out")], capsys
    )
    assert code == 3 and stdout == ""
    assert "OPENAI_API_KEY" in stderr


def test_index_progress_lines_are_throttled_and_silent_for_a_quick_index() -> None:
    now = [0.0]
    lines = IndexProgressLines(interval_s=1.0, clock=lambda: now[0])
    quick = [
        IndexProgress(stage="chunks", done=10, total=10),
        IndexProgress(stage="ready", done=10, total=10),
    ]
    assert [lines(e) for e in quick] == [None, None]
    shown = []
    for second in (0.0, 0.5, 1.2, 1.6, 2.5):
        now[0] = 10 + second
        shown.append(lines(IndexProgress(stage="vectors", done=int(second * 10), total=30)))
    now[0] = 13.0
    shown.append(lines(IndexProgress(stage="ready", done=30, total=30)))
    assert shown == [
        None,
        None,
        "  indexing for retrieval: vectors 12/30",
        None,
        "  indexing for retrieval: vectors 25/30",
        "  retrieval index ready in 3.0 s",
    ]


def test_a_run_prints_its_retrieval_pre_phase() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream)
    diagnostics: dict[str, object] = {"ms": {"total": 12.4}}
    printer(RetrievalDone(iteration=1, origin="prephase", query="q", diagnostics=diagnostics))
    printer(RetrievalDone(iteration=1, origin="sandbox", query="q"))
    assert stream.getvalue() == "  retrieval (prephase): 0 passages in 12 ms\n"


def test_search_over_a_pdf_names_the_page_and_the_page_leg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.documents.fixtures import write_pdf

    pages = [PARAGRAPHS[:4], ["CONSOLIDATED BALANCE SHEETS", "Total current assets 15,754"]]
    pdf = write_pdf(tmp_path / "annual.pdf", [*pages, PARAGRAPHS[:4]])
    args = ["search", str(pdf), "current assets balance sheets", "--out", str(tmp_path / "o")]
    code, stdout, _ = run(args, capsys)
    first = stdout.splitlines()[0]
    assert code == 0 and "p. 2" in first and "page #1" in first
    code, stdout, _ = run([*args, "--json"], capsys)
    best = json.loads(stdout)["passages"][0]
    assert best["page"] == 2 and best["pages"] == [2] and best["ranks"]["page"] == 1
