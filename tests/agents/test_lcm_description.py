"""The LCM mode describes the documents by their headings, read from the structure kept
beside the text (an HTML or Word file's text holds no ``#`` marks), or from a Markdown
text's own ``#`` lines when no table is given."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.agents.lcm_prompt import describe_document
from ralph_tui.documents import read_corpus
from tests.documents.fixtures import HTML_PAGE, docx_bytes


def test_headings_come_from_the_table_at_their_offsets_in_context(tmp_path: Path) -> None:
    (tmp_path / "pump.html").write_text(HTML_PAGE, encoding="utf-8")
    (tmp_path / "q3.docx").write_bytes(docx_bytes("Quarterly report", ["Output rose."], [["a"]]))
    corpus = read_corpus([tmp_path])
    description = describe_document(corpus.text, corpus.table)
    for title, level in [("Pump maintenance", 1), ("Spare parts", 2), ("Figures", 2)]:
        at = corpus.text.index(f"\n{title}\n") + 1
        assert f"- {at:,}: {'#' * level} {title}" in description
    assert "#" not in corpus.text


def test_a_text_without_a_table_has_its_markdown_headings_listed() -> None:
    text = "# Guide\n\nIntro.\n\n## Setup\n\nSteps."
    description = describe_document(text)
    assert "- 2: # Guide" in description and f"- {text.index('Setup')}: ## Setup" in description
    assert "It has no headings." in describe_document("Plain words only.", [])
