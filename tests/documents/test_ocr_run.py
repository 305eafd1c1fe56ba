"""A scanned PDF through the real entry points: found by ``api.asearch``, answered keyless
by the offline provider through the CLI with its quote marked as OCR, the mark kept in the
evidence bundle and the report, and ``verify`` reading the page by OCR again: the bundle
holds, a tampered one does not, and without the engine its quote is not checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph_tui import api
from ralph_tui.cli import run_cli
from ralph_tui.errors import ExitCode
from tests.documents.scans import SEAL_KIT

QUESTION = (
    "What is the part number of the seal kit, how often is the seal kit replaced, and where "
    "are spare seal kits kept?"
)


async def test_a_scanned_pdf_is_searchable(scans: Path) -> None:
    found = await api.asearch("seal kit part number", scans / "log.pdf", out_dir=scans / "out")
    top = found.passages[0]
    assert SEAL_KIT[0] in top.text
    assert top.page == 7
    assert top.label == "log.pdf p. 7 (OCR)"
    assert any("read by OCR" in note for note in found.notes)


@pytest.fixture(scope="module")
def answered(scans: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:  # type: ignore[type-arg]
    """A keyless run over the scanned PDF (its result) and the bundle its report wrote."""
    out = scans / "out"
    capture = tmp_path_factory.mktemp("answered")
    args = ["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "2"]
    args += ["--query", QUESTION, "--doc", str(scans / "log.pdf"), "--out", str(out)]
    stdout = capture / "stdout"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", stdout.open("w", encoding="utf-8"))
        code = run_cli(args)
        sys.stdout.close()
    result = json.loads(stdout.read_text(encoding="utf-8"))
    assert code == ExitCode.OK, result
    bundle = capture / "bundle.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", (capture / "said").open("w", encoding="utf-8"))
        made = run_cli(
            ["report", result["sessionId"], "--out", str(out), "-o", str(bundle), "--json"]
        )
        sys.stdout.close()
    assert made == 0
    return result, bundle


def test_a_scanned_pdf_is_answered_keyless_with_its_quote_marked_as_ocr(
    answered: tuple[dict, Path],  # type: ignore[type-arg]
) -> None:
    result, _bundle = answered
    assert "4471-B" in result["output"]["answer"]
    quote = next(quote for quote in result["quotes"] if "4471-B" in quote["text"])
    assert quote["ocr"] is True and quote["page"] == 7
    assert all(quote["ocr"] for quote in result["quotes"])


def test_the_bundle_and_the_report_keep_the_mark(
    answered: tuple[dict, Path],
    scans: Path,  # type: ignore[type-arg]
) -> None:
    _result, bundle_path = answered
    bundle = json.loads(bundle_path.read_text(encoding="utf-8"))
    [source] = bundle["sources"]
    assert source["ocr_pages"] == list(range(1, 11))
    assert "; OCR rapidocr" in source["converter"]
    assert any(quote["ocr"] and "4471-B" in quote["text"] for quote in bundle["quotes"])
    markdown = scans / "report.md"
    out = str(scans / "out")
    assert run_cli(["report", bundle["session_id"], "--out", out, "-o", str(markdown)]) == 0
    shown = markdown.read_text(encoding="utf-8")
    assert "log.pdf p. 7 (OCR)" in shown
    assert "read by OCR from a picture of the page" in shown
    assert "read by OCR | pages 1, 2, 3" in shown


def _verify(capsys: pytest.CaptureFixture[str], bundle: Path, out: Path) -> tuple[int, str]:
    capsys.readouterr()
    code = run_cli(["verify", str(bundle), "--out-dir", str(out)])
    return code, capsys.readouterr().out


def test_verify_reads_the_page_by_ocr_again_and_the_bundle_holds(
    answered: tuple[dict, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[type-arg]
) -> None:
    _result, bundle = answered
    code, out = _verify(capsys, bundle, tmp_path / "fresh")  # (a fresh cache: OCR runs again)
    assert code == ExitCode.OK, out
    assert "log.pdf p. 7" in out and "(OCR)" in out
    assert "every quote holds" in out


def test_verify_fails_a_tampered_ocr_quote(
    answered: tuple[dict, Path],
    scans: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[type-arg]
) -> None:
    _result, bundle_path = answered
    bundle = json.loads(bundle_path.read_text(encoding="utf-8"))
    for quote in bundle["quotes"]:
        quote["text"] = quote["text"].replace("4471-B", "4477-B")
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(bundle), encoding="utf-8")
    code, out = _verify(capsys, tampered, scans / "out")
    assert code == ExitCode.FAILED, out
    assert "changed" in out


def test_verify_without_the_engine_does_not_check_an_ocr_quote(
    answered: tuple[dict, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[type-arg]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _result, bundle = answered
    monkeypatch.setitem(sys.modules, "rapidocr", None)
    code, out = _verify(capsys, bundle, tmp_path / "fresh")
    assert code == ExitCode.FAILED, out
    assert "not checked" in out
    assert "pip install 'ralph-tui[ocr]'" in out


def test_a_run_without_the_engine_says_which_page_it_did_not_read(
    scans: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr", None)
    args = ["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1"]
    args += ["--query", "Which valve is shut?", "--doc", str(scans / "mixed.pdf")]
    run_cli([*args, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert "mixed.pdf: page 2 not read (no text layer): OCR is not installed" in err
    assert "pip install 'ralph-tui[ocr]'" in err


def test_the_search_command_says_which_pages_ocr_read(
    scans: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(scans / "out")
    assert run_cli(["search", str(scans / "log.pdf"), "seal kit part number", "--out", out]) == 0
    captured = capsys.readouterr()
    assert "log.pdf: pages 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 read by OCR" in captured.err
    assert captured.out.startswith("1. ") and " p. 7 (OCR) " in captured.out.splitlines()[0]
