"""Quotes a person can find in the source: an offline run over an HTML page and a Word file
quotes text that stands, white space aside, in what the page shows in a browser and in the
Word file's paragraphs and cells, with no Markdown mark, and locates each quote there."""

from __future__ import annotations

import io
import json
from pathlib import Path

import docx
import lxml.html
import pytest

from ralph_tui.cli import run_cli
from ralph_tui.documents import read_corpus
from ralph_tui.evidence import QuoteLocation
from tests.documents.fixtures import docx_bytes

PAGE = """<!DOCTYPE html>
<html><head><title>bzip2 manual</title><style>p { margin: 0 }</style></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article>
<h1>The <code>bzip2</code> manual</h1>
<p>The <code>bzip2</code> program compresses files using the <em>Burrows-Wheeler</em> block
sorting algorithm.</p>
<h2>Memory management</h2>
<p>Compression with the flag <code>-9</code> will cause the compressor to use <b>20000 * 8</b>
bytes of memory for every block it sorts.</p>
<table><tr><th>Flag</th><th>Block size</th></tr><tr><td><code>-1</code></td><td>100 k</td></tr>
<tr><td><code>-9</code></td><td>900 k</td></tr></table>
<p>Decompression memory is about half of the compression memory for the same block size.</p>
</article>
<footer>Copyright the authors.</footer>
</body></html>
"""

BLOCKS = {"p", "div", "li", "tr", "td", "th", "br", "pre", "blockquote", "article", "section"}
BLOCKS |= {f"h{level}" for level in range(1, 7)}


def flat(text: str) -> str:
    return " ".join(text.split())


def page_as_shown(html: str) -> str:
    """The page's text as a browser lays it out: block elements apart, inline markup
    (code, emphasis, bold) part of the line, scripts and styles not shown."""
    tree = lxml.html.fromstring(html)
    for hidden in tree.xpath("//script|//style|//head"):
        hidden.drop_tree()
    for element in tree.iter():
        if element.tag in BLOCKS:
            element.tail = " " + (element.tail or "")
            element.text = " " + (element.text or "")
    return flat(tree.text_content())


def word_file_as_shown(data: bytes) -> str:
    """A Word file's paragraphs' and table cells' text."""
    document = docx.Document(io.BytesIO(data))
    cells = [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return flat(" ".join([p.text for p in document.paragraphs] + cells))


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "bzip2.html").write_text(PAGE, encoding="utf-8")
    paragraphs = [
        "The main filter was backwashed every 48 hours during the quarter.",
        "Compression memory rose with the larger block size of the new flag.",
    ]
    table = [["Site", "Ml/d"], ["North", "12"]]
    (folder / "report.docx").write_bytes(docx_bytes("Quarterly report", paragraphs, table))
    return folder


def test_every_quote_of_an_html_and_a_word_run_stands_in_the_source_as_shown(
    sources: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = (
        "How much memory does compression with the flag -9 use for every block, and how "
        "often was the main filter backwashed?"
    )
    args = ["run", "--provider", "offline", "--mode", "qa", "--json", "--maxIters", "1"]
    code = run_cli([*args, "--query", query, "--doc", str(sources), "--out", str(tmp_path)])
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result["error"]
    quotes = [QuoteLocation.model_validate(quote) for quote in result["quotes"]]
    shown = {
        "docs/bzip2.html": page_as_shown(PAGE),
        "docs/report.docx": word_file_as_shown((sources / "report.docx").read_bytes()),
    }
    assert {quote.source for quote in quotes} == set(shown), "both files are quoted"
    assert any("20000 * 8" in quote.text for quote in quotes)
    texts = {document.name: document.text for document in read_corpus([sources]).documents}
    for quote in quotes:
        assert quote.found == "exact" and quote.source is not None
        assert flat(quote.text) in shown[quote.source], quote.text
        assert not any(mark in quote.text for mark in ("`", "\\*", "**", "# "))
        assert texts[quote.source][quote.start : quote.end] == quote.text


def test_the_text_of_a_page_is_what_it_shows(tmp_path: Path) -> None:
    page = tmp_path / "bzip2.html"
    page.write_text(PAGE, encoding="utf-8")
    [document] = read_corpus([page]).documents
    shown = page_as_shown(PAGE)
    for line in document.text.split("\n"):
        assert flat(line) in shown, line
    assert [(h.level, h.title) for h in document.headings] == [
        (1, "The bzip2 manual"),
        (2, "Memory management"),
    ]
