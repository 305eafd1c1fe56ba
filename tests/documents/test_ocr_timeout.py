"""OCR's time limit a page (``RALPH_OCR_PAGE_TIMEOUT_S``): a page the engine does not read in
time is listed as unread, saying why, and the pages after it are read; when the engine is
still busy with that page once the next one's time is up, the rest are listed as unread
too; a conversion that lost a page to time is not cached. The engine is replaced by a
stand-in, slow on the pages a test says, at the one place the engine is made (``_engine``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.documents import InputError, Limits, read_corpus
from ralph_tui.documents import ocr as ocr_module
from ralph_tui.documents.cache import ExtractionCache
from tests.documents.scans import pictures, scan_pages, text_pdf, write_scan

UNREAD = "a page was not read in 1 s (RALPH_OCR_PAGE_TIMEOUT_S raises the limit)"


@dataclass
class Found:
    """What the engine returns: text boxes (four corners each) and their text."""

    boxes: list[list[tuple[float, float]]]
    txts: list[str]


@dataclass
class StandIn:
    """An OCR engine that reads "Text of call N." off any picture at once, except on the
    calls in ``slow``, which take ``seconds`` (or until ``release`` is set)."""

    slow: set[int]
    seconds: float
    calls: int = 0
    release: threading.Event = field(default_factory=threading.Event)

    def __call__(self, _image: Any) -> Found:
        self.calls += 1
        if self.calls in self.slow:
            self.release.wait(self.seconds)
        corners = [(10.0, 10.0), (300.0, 10.0), (300.0, 30.0), (10.0, 30.0)]
        return Found([corners], [f"Text of call {self.calls}."])


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    stand_in = StandIn(slow=set(), seconds=0.0)
    monkeypatch.setattr(ocr_module, "_engine", lambda: stand_in)
    yield stand_in
    stand_in.release.set()  # (a call given up ends, and gives the engine back)
    with ocr_module._ENGINE_LOCK:
        pass


def test_a_page_past_the_limit_is_unread_saying_why_and_the_next_pages_are_read(
    engine: StandIn, tmp_path: Path
) -> None:
    engine.slow, engine.seconds = {2}, 1.4  # (the next page gets the engine 0.4 s into its 1)
    scan = write_scan(tmp_path / "log.pdf", scan_pages(4))
    cache = ExtractionCache(tmp_path / "cache")
    started = time.monotonic()
    corpus = read_corpus([scan], Limits(ocr_page_timeout_s=1.0), cache=cache)
    assert time.monotonic() - started < 5
    [document] = corpus.documents
    assert document.ocr_pages == [1, 3, 4] and document.unread_pages == [2]
    assert document.pages is not None and document.pages[2] == "Text of call 3."
    assert f"log.pdf: page 2 not read (no text layer): {UNREAD}; it cannot be quoted" in (
        corpus.notices()
    )

    engine.slow = set()
    again = read_corpus([scan], Limits(ocr_page_timeout_s=1.0), cache=cache)
    assert again.documents[0].ocr_pages == [1, 2, 3, 4], "not cached: read again"
    assert engine.calls == 8
    read_corpus([scan], Limits(ocr_page_timeout_s=1.0), cache=cache)
    assert engine.calls == 8, "a whole conversion is cached"


def test_once_the_engine_is_still_busy_the_rest_of_the_document_is_unread(
    engine: StandIn, tmp_path: Path
) -> None:
    engine.slow, engine.seconds = {2}, 30.0
    scan = write_scan(tmp_path / "log.pdf", scan_pages(5))
    started = time.monotonic()
    corpus = read_corpus([scan], Limits(ocr_page_timeout_s=0.5))
    assert time.monotonic() - started < 5, "about two limits, not one a page"
    [document] = corpus.documents
    assert document.ocr_pages == [1] and document.unread_pages == [2, 3, 4, 5]
    [_read, unread] = corpus.notices()
    assert unread.startswith("log.pdf: pages 2, 3, 4, 5 not read (no text layer): a page was ")
    assert "OCR stopped: it was still reading a page past its time limit" in unread
    assert engine.calls == 2, "no page was sent while the engine was busy"


def test_an_image_ocr_did_not_read_in_time_is_refused_saying_why(
    engine: StandIn, tmp_path: Path
) -> None:
    engine.slow, engine.seconds = {1}, 30.0
    pictures(text_pdf([["Sheet."]]))[0].save(tmp_path / "sheet.png")
    with pytest.raises(InputError) as refused:
        read_corpus([tmp_path / "sheet.png"], Limits(ocr_page_timeout_s=0.3))
    assert refused.value.one_line().endswith(
        "sheet.png is an image OCR did not read: a page was not read in 0.3 s "
        "(RALPH_OCR_PAGE_TIMEOUT_S raises the limit)"
    )


@pytest.mark.parametrize("given_by", ["env", "flag"])
def test_the_limit_is_a_setting_the_search_command_reads(
    given_by: str,
    engine: StandIn,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine.slow, engine.seconds = {2}, 1.4
    scan = write_scan(tmp_path / "log.pdf", scan_pages(3))
    args = ["search", str(scan), "text of call", "--out", str(tmp_path / "out")]
    if given_by == "env":
        monkeypatch.setenv("RALPH_OCR_PAGE_TIMEOUT_S", "1")
    else:
        args += ["--ocrPageTimeout", "1"]
    assert run_cli([*args, "--embedder", "none"]) == 0
    assert f"log.pdf: page 2 not read (no text layer): {UNREAD}" in capsys.readouterr().err


def test_a_process_that_gave_up_on_a_page_ends_with_its_own_exit_code(
    scans: Path, tmp_path: Path
) -> None:
    """The real engine, still reading a page given up when the command ends: the process
    waits for it and exits as the command says (not aborted by onnxruntime's C++ runtime)."""
    env = {**os.environ, "RALPH_OCR_PAGE_TIMEOUT_S": "0.05", "RALPH_EMBEDDER": "none"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    args = ["search", str(scans / "log.pdf"), "seal kit", "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, "-m", "ralph_tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "OCR did not read them: a page was not read in 0.05 s" in done.stderr
    assert "terminate called" not in done.stderr
