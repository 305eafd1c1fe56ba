"""Text in UTF-16 and UTF-32 read by its byte-order mark; a file that is not readable text
refused saying what it looks like and what to do."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.documents import InputError, read_corpus

TEXT = "Backwash the filters weekly; 逆洗は毎週. Le café ferme à midi.\n"

MARKED = [
    ("UTF-8", codecs.BOM_UTF8 + TEXT.encode("utf-8")),
    ("UTF-16LE", codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le")),
    ("UTF-16BE", codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be")),
    ("UTF-32LE", codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le")),
    ("UTF-32BE", codecs.BOM_UTF32_BE + TEXT.encode("utf-32-be")),
]


@pytest.mark.parametrize(("encoding", "data"), MARKED)
def test_text_with_a_byte_order_mark_is_read_in_its_encoding(
    tmp_path: Path, encoding: str, data: bytes
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    [document] = read_corpus([path]).documents
    assert document.text == TEXT
    assert (document.format, document.converter) == ("text", encoding.lower())


def test_a_utf16_html_page_is_read_as_html(tmp_path: Path) -> None:
    page = "<!doctype html><html><body><h1>Pumps</h1><p>Der Filter wird wöchentlich gespült.</p>"
    path = tmp_path / "page.html"
    path.write_bytes(codecs.BOM_UTF16_LE + page.encode("utf-16-le"))
    [document] = read_corpus([path]).documents
    assert document.format == "html" and "Der Filter wird wöchentlich gespült." in document.text


def test_a_folder_reads_its_utf16_files_instead_of_skipping_them(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_bytes(MARKED[1][1])
    (folder / "b.md").write_text("# B\n\nThe weir was cleared.", encoding="utf-8")
    corpus = read_corpus([folder])
    assert [d.name for d in corpus.documents] == ["docs/a.txt", "docs/b.md"]
    assert corpus.skipped == [] and TEXT.strip() in corpus.text


FRENCH = "Le café est fermé le dimanche; les élèves déjà partis reviendront à Noël.\n"


@pytest.mark.parametrize(
    ("data", "what", "hint"),
    [
        (FRENCH.encode("latin-1"), "is not UTF-8 text (byte 6, 0xE9, after 'Le caf', is "
         "invalid in UTF-8): it looks like text in a single-byte legacy encoding",
         "iconv -f WINDOWS-1252 -t UTF-8"),
        ("逆洗は毎週行います。フィルターを交換してください。".encode("shift_jis"),
         "multi-byte legacy encoding (perhaps SHIFT_JIS)", "iconv -f SHIFT_JIS -t UTF-8"),
        (FRENCH.encode("utf-16-le"), "looks like UTF-16LE text saved without a byte-order mark",
         "save it as UTF-8, or as UTF-16LE with a byte-order mark"),
        (FRENCH.encode("utf-32-be"), "looks like UTF-32BE text saved without a byte-order mark",
         "save it as UTF-8"),
        (codecs.BOM_UTF16_LE + b"a\x00\x00\xd8", "starts with a UTF-16LE byte-order mark but is "
         "not valid UTF-16LE text", "damaged or cut short"),
        (b"GIF89a\x01\x00\x01\x00\x00\x00\x00", "is a GIF image", "ralph-tui reads plain text"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "is a legacy Office file",
         "save it as .docx or PDF"),
        (bytes(range(1, 32)) * 4, "is binary data, not text (100 control bytes in its first 124)",
         "ralph-tui reads plain text"),
        (codecs.BOM_UTF16_LE + " \n".encode("utf-16-le"), "holds no text (UTF-16LE, white space "
         "only)", None),
    ],
)  # fmt: skip
def test_a_file_that_is_not_readable_text_is_named_with_what_it_looks_like(
    tmp_path: Path, data: bytes, what: str, hint: str | None
) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as refused:
        read_corpus([path])
    message = str(refused.value)
    assert message.startswith(f"{path} ") and what in message
    if hint is None:
        assert refused.value.hint is None
    else:
        assert refused.value.hint is not None and hint in refused.value.hint
    assert "\n" not in refused.value.one_line()


def test_in_a_corpus_an_unreadable_file_is_listed_with_what_to_do(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text("The weir was cleared on Monday.", encoding="utf-8")
    legacy = tmp_path / "legacy.txt"
    legacy.write_bytes(FRENCH.encode("cp1252"))
    corpus = read_corpus([good, legacy])
    [failure] = corpus.failed
    assert failure.startswith(f"{legacy} is not UTF-8 text") and "(convert it to UTF-8" in failure


def test_search_finds_a_term_of_a_utf16_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_EMBEDDER", "offline")
    path = tmp_path / "notes.txt"
    path.write_bytes(codecs.BOM_UTF16_LE + FRENCH.encode("utf-16-le"))
    code = run_cli(["search", str(path), "dimanche", "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "lexical #1" in captured.out and "Le café est fermé le dimanche" in captured.out
