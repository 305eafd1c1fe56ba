"""pdfium is not thread-safe, not even over two documents: two threads in it at once end the
process (the app's estimate read a filing while a run started on it, and the process died
of a segmentation fault). Every use of it in the process holds one lock; here, PDFs read and
a scan's pages pictured for OCR by three threads at once never meet inside pdfium."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from ralph_tui.documents.pdf import pdf_pages
from ralph_tui.documents.scans import read_scanned_pages
from tests.documents.fixtures import write_pdf
from tests.documents.scans import scan_pages, write_scan


class Inside:
    """How many threads are in pdfium's page calls at once, at most."""

    def __init__(self) -> None:
        self.now = self.most = 0
        self.lock = threading.Lock()

    def tracked(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            try:
                time.sleep(0.005)  # (long enough for another thread to come in, if it may)
                return real(*args, **kwargs)
            finally:
                with self.lock:
                    self.now -= 1

        return call


def test_threads_reading_pdfs_and_picturing_scans_never_meet_in_pdfium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = Inside()
    for name in ("get_textpage", "render"):
        monkeypatch.setattr(pdfium.PdfPage, name, inside.tracked(getattr(pdfium.PdfPage, name)))
    report = write_pdf(tmp_path / "report.pdf", [[f"Page {n} of the report."] for n in range(20)])
    scan = write_scan(tmp_path / "scan.pdf", scan_pages(3))
    failures: list[BaseException] = []

    def read() -> None:
        try:
            assert len(pdf_pages(report)) == 20
        except BaseException as exc:  # handed to the test
            failures.append(exc)

    def picture() -> None:
        try:
            read_scanned_pages(scan, [1, 2, 3], max_pages=3)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=read), threading.Thread(target=read)]
    threads.append(threading.Thread(target=picture))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    assert inside.most == 1
