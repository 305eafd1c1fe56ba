"""Fixtures of the documents tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.documents.scans import mixed_pdf, pictures, scan_pages, text_pdf, write_scan


@pytest.fixture(scope="session")
def scans(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a scanned 10-page PDF, a PNG of one page, and a PDF with a text page
    followed by a scanned one. Tests that read them with the cache under ``out`` share what
    OCR read (the first to read a file waits for it)."""
    root = tmp_path_factory.mktemp("scans")
    write_scan(root / "log.pdf", scan_pages(10))
    pictures(text_pdf([scan_pages(10)[6]]))[0].save(root / "sheet.png")
    (root / "mixed.pdf").write_bytes(
        mixed_pdf(["Typed cover page: station report."], [["Handwritten sheet: valve 12 shut."]])
    )
    return root
