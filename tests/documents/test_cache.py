"""Converted text is kept by file hash and converter version; damaged entries are rebuilt."""

from __future__ import annotations

import json
from pathlib import Path

from ralph_tui.documents import read_corpus
from ralph_tui.documents.cache import CACHE_VERSION, ExtractionCache
from tests.documents.fixtures import HTML_PAGE, write_pdf


def entries(cache: ExtractionCache) -> list[Path]:
    return sorted(cache.folder.glob("*.json"))


def test_a_pdf_is_converted_once_then_read_from_the_cache(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "cache")
    pdf = write_pdf(tmp_path / "manual.pdf", [["First page."], ["Second page."]])
    first = read_corpus([pdf], cache=cache)
    [entry] = entries(cache)
    assert entry.name.startswith(first.documents[0].sha256 + "-pypdfium2-")
    # Mark the stored text: a second read must come from the entry, not the converter.
    stored = json.loads(entry.read_text())
    stored["text"] = stored["text"].replace("Second", "Cached")
    stored["pages"][1] = stored["pages"][1].replace("Second", "Cached")
    entry.write_text(json.dumps(stored))
    again = read_corpus([pdf], cache=cache)
    assert "Cached page." in again.text and again.table == first.table


def test_a_changed_file_converts_again(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "cache")
    pdf = write_pdf(tmp_path / "manual.pdf", [["Old text."]])
    read_corpus([pdf], cache=cache)
    write_pdf(pdf, [["New text."]])
    assert read_corpus([pdf], cache=cache).text == "New text."
    assert len(entries(cache)) == 2


def test_a_damaged_entry_is_rebuilt_with_a_notice(tmp_path: Path) -> None:
    notices: list[str] = []
    cache = ExtractionCache(tmp_path / "cache", notices.append)
    pdf = write_pdf(tmp_path / "manual.pdf", [["Good text."]])
    read_corpus([pdf], cache=cache)
    [entry] = entries(cache)
    entry.write_text('{"version": 1, "text": "trunc')
    assert read_corpus([pdf], cache=cache).text == "Good text."
    assert notices == ["the cached text of manual.pdf was damaged: converting it again"]
    assert json.loads(entry.read_text())["text"] == "Good text."


def test_headings_are_kept_in_the_cache_and_old_entries_are_not_read(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "cache")
    page = tmp_path / "page.html"
    page.write_text(HTML_PAGE, encoding="utf-8")
    first = read_corpus([page], cache=cache)
    [entry] = entries(cache)
    old = entry.with_name(entry.name.replace(f"-v{CACHE_VERSION}.json", ".json"))
    converter = first.documents[0].converter
    old.write_text(json.dumps({"version": 1, "converter": converter, "text": "# Pump maintenance"}))
    stored = json.loads(entry.read_text())
    assert stored["headings"][0] == {"level": 1, "title": "Pump maintenance", "start": 0}
    again = read_corpus([page], cache=cache)
    assert again.documents[0].headings == first.documents[0].headings
    assert again.text == first.text and not again.text.startswith("#")


def test_plain_text_is_not_cached(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "cache")
    doc = tmp_path / "notes.txt"
    doc.write_text("Plain.")
    read_corpus([doc], cache=cache)
    assert not cache.folder.exists()


def test_an_entry_past_the_json_bounds_is_a_miss_not_a_crash(tmp_path: Path) -> None:
    """Nesting past the bounded reader's depth (a RecursionError before) is damage."""
    notices: list[str] = []
    cache = ExtractionCache(tmp_path / "cache", notices.append)
    pdf = write_pdf(tmp_path / "manual.pdf", [["Good text."]])
    read_corpus([pdf], cache=cache)
    [entry] = entries(cache)
    entry.write_text('{"version": 1, "text": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert read_corpus([pdf], cache=cache).text == "Good text."
    assert notices == ["the cached text of manual.pdf was damaged: converting it again"]
