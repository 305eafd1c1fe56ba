"""A mixed folder end to end with the offline provider: the sandbox gets every document
and the page table, and each quote is reported with its file and page everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import Settings
from ralph_tui.documents import read_corpus
from ralph_tui.evidence import QuoteLocation
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.core.requests import rerun_request
from ralph_tui.tui.session_detail import iteration_content
from ralph_tui.validate.qa import evidence_windows
from tests.documents.fixtures import HTML_PAGE, docx_bytes, write_pdf

PUMP_PAGE = [
    "The backwash pump runs for ten minutes at every backwash.",
    "The backwash pump is checked by the shift fitter every week.",
]


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    root = tmp_path / "reports"
    write_pdf(root / "manual.pdf", [["Chapter one covers the intake screens."], PUMP_PAGE])
    (root / "q3.docx").write_bytes(docx_bytes("Q3", ["Output rose in July."], [["a", "b"]]))
    (root / "pumps.html").write_text(HTML_PAGE, encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return root


def test_a_folder_run_reports_each_quote_with_its_file_and_page(
    reports: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1"]
    query = "How long does the backwash pump run, and who checks the backwash pump?"
    code = run_cli([*args, "--query", query, "--doc", str(reports), "--out", str(out)])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code in (0, 1), captured.err
    assert "skipped (a folder's images are not read by OCR" in captured.err
    assert "reports/logo.png" in captured.err
    quotes = [QuoteLocation.model_validate(quote) for quote in result["quotes"]]
    assert "reports/manual.pdf p. 2" in [quote.label for quote in quotes]
    on_page = next(quote for quote in quotes if quote.page == 2)
    assert (on_page.page_start, on_page.page_end) == (0, len(on_page.text))
    assert PUMP_PAGE[0].startswith(on_page.text) or PUMP_PAGE[1].startswith(on_page.text)
    [trace] = TraceStore(out).iterations(result["sessionId"])
    assert trace.quotes == quotes
    record = TraceStore(out).load_session(result["sessionId"])
    documents = (record.model_extra or {})["documents"]
    assert [(d["name"], d["format"], d["pages"]) for d in documents] == [
        ("reports/manual.pdf", "pdf", 2),
        ("reports/pumps.html", "html", None),
        ("reports/q3.docx", "docx", None),
    ]
    assert all(len(d["sha256"]) == 64 and d["converter"] for d in documents)
    assert run_cli(["sessions", "show", result["sessionId"], "--out", str(out)]) == 0
    where = f"[reports/manual.pdf p. 2, chars {on_page.page_start}-{on_page.page_end}]"
    assert where in capsys.readouterr().out
    session_view = iteration_content(trace, read_corpus([reports]).text).plain
    assert where in session_view


def test_the_session_records_the_files_it_skipped_and_could_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "pumps.md").write_text("The backwash pump runs for ten minutes.", encoding="utf-8")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "legacy.txt").write_bytes("Le café est fermé.".encode("latin-1"))
    out = tmp_path / "out"
    code = run_cli(["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1",
                    "--query", "How long does the backwash pump run?", "--doc", str(folder),
                    "--out", str(out)])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    folder_record = out / "sessions" / result["sessionId"] / "session.json"
    record = json.loads(folder_record.read_text(encoding="utf-8"))
    assert record["skipped_files"] == ["docs/logo.png"]
    [failed] = record["failed_files"]
    assert failed.startswith(f"{folder / 'legacy.txt'} is not UTF-8 text")
    assert [d["name"] for d in record["documents"]] == ["docs/pumps.md"]


def test_text_output_names_each_quotes_source(
    reports: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--provider", "offline", "--mode", "qa", "--maxIters", "1"]
    query = "How long does the backwash pump run?"
    run_cli([*args, "--query", query, "--doc", str(reports / "manual.pdf"), "--out", str(tmp_path)])
    assert "  [manual.pdf p. 2, chars " in capsys.readouterr().out


def test_a_judge_window_stays_inside_its_document() -> None:
    first, second = "alpha " * 50, "The quote is here. " + "omega " * 50
    text = first + "\n\n" + second
    bounds = {0: (0, len(first)), 1: (len(first) + 2, len(text))}

    def bounds_of(offset: int) -> tuple[int, int]:
        return bounds[0] if offset < len(first) else bounds[1]

    [window] = evidence_windows(text, ["The quote is here."], width=220, bounds=bounds_of)
    assert window.startswith("The quote is here.") and "alpha" not in window
    [unbounded] = evidence_windows(text, ["The quote is here."], width=220)
    assert "alpha" in unbounded


@pytest.mark.parametrize(
    ("pages", "options", "message"),
    [
        ([[], []], {}, "has no text layer on any of its 2 pages"),
        ([["secret"]], {"password": "pw"}, "is an encrypted PDF"),
    ],
)
def test_an_unusable_pdf_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    pages: list[list[str]],
    options: dict[str, str],
    message: str,
) -> None:
    pdf = write_pdf(tmp_path / "in.pdf", pages, **options)
    out = tmp_path / "out"
    args = ["run", "--provider", "offline", "--query", "q", "--doc", str(pdf), "--out", str(out)]
    assert run_cli([*args, "--doc", str(pdf)]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.strip().splitlines()
    assert line.startswith("ralph-tui: error:") and message in line
    assert captured.out == "" and not out.exists()


def test_a_rerun_reads_the_same_documents(reports: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("The weir was cleared on Monday.\n")
    record = SessionRecord(
        mode="qa",
        query="q",
        doc_path=str(reports.resolve()),
        settings={"docs": [str(reports.resolve()), str(notes.resolve())]},
    )
    request = rerun_request(record, [], Settings(_env_file=None))  # type: ignore[call-arg]
    assert request.doc_specs() == [reports.resolve(), notes.resolve()]


def test_the_offline_baseline_quotes_a_sentence_a_pdf_wrapped_over_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = write_pdf(
        tmp_path / "manual.pdf",
        [["The backwash pump runs for ten", "minutes at every scheduled backwash cycle."]],
    )
    args = ["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1"]
    query = "How long does the backwash pump run at each backwash cycle?"
    run_cli([*args, "--query", query, "--doc", str(pdf), "--out", str(tmp_path / "out")])
    result = json.loads(capsys.readouterr().out)
    sentence = "The backwash pump runs for ten\nminutes at every scheduled backwash cycle."
    assert result["output"]["evidence"] == [sentence]
    assert result["output"]["answer"] == "- " + " ".join(sentence.split())


def test_a_bare_title_line_is_not_quoted_as_part_of_the_next_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "guide.html"
    page.write_text(
        "<html><body><h1>Guide</h1><p>The refund window is thirty days from the day of "
        "purchase.</p><table><tr><td>A</td><td>B</td></tr></table></body></html>"
    )
    text = read_corpus([page]).text
    args = ["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1"]
    query = "How long is the refund window after the day of purchase?"
    run_cli([*args, "--query", query, "--doc", str(page), "--out", str(tmp_path / "out")])
    evidence = json.loads(capsys.readouterr().out)["output"]["evidence"]
    assert evidence == ["The refund window is thirty days from the day of purchase."]
    assert all(quote in text for quote in evidence)
