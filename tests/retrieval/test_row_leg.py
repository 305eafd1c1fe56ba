"""The row leg: a question naming a line item finds the table row of that item, though every
word of the question is common in the document and no other leg ranks the row's passage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_tui import api
from ralph_tui.cli import run_cli
from ralph_tui.config import Settings
from ralph_tui.retrieval.cache import IndexCache
from ralph_tui.retrieval.chunks import Chunking, chunk_text
from ralph_tui.retrieval.rows import RowIndex, label_key, row_labels
from ralph_tui.retrieval.run import cache_root
from ralph_tui.retrieval.search import open_corpus_index, read_searchable

KEYLESS = {"embedder": "offline", "env_file": None}
QUESTION = "What did Acme report as its current assets at the end of 2023?"
STATEMENT_ROWS = [
    ("Cash and cash equivalents", "$ 3,412", "$ 2,950"),
    ("Accounts receivable", "6,588", "5,904"),
    ("Inventories", "5,754", "5,346"),
    ("Other current assets", "412", "380"),
    ("Total current assets", "16,166", "14,580"),
    ("Property and equipment", "9,120", "8,733"),
]
NOTES = [
    "At the end of 2023 Acme reported its deferred tax assets, as Acme reported them at the "
    "end of 2022, in the current note on taxes: Acme's current report of assets.",
    "Acme reported plan assets at the end of 2023; the current value of the assets Acme "
    "reports is measured at the end of each year and reported in this current report.",
    "The assets Acme reported as held for sale at the end of 2023 are current: Acme reports "
    "them at the lower of cost and value, as it reported current assets held at the end.",
]
"""Prose holding every word of the question, more often than the statement does."""


def filing_pdf(path: Path) -> Path:
    """A filing: eight pages of notes, each holding the question's words over and over, and
    a balance sheet on page 5 whose rows are laid out in cells (a table)."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=9)
    for page in range(1, 10):
        pdf.add_page()
        if page == 5:
            pdf.set_xy(20, 15)
            pdf.cell(170, 6, "CONSOLIDATED BALANCE SHEETS", align="C")
            pdf.set_xy(20, 21)
            pdf.cell(170, 6, "(In millions)", align="C")
            for column, year in enumerate(("2023", "2022")):
                pdf.set_xy(110 + 40 * column, 30)
                pdf.cell(40, 5, year, align="R")
            pdf.set_xy(20, 40)
            for label, *cells in STATEMENT_ROWS:
                pdf.cell(90, 7, label)
                for cell in cells:
                    pdf.cell(40, 7, cell, align="R")
                pdf.ln(7)
                pdf.set_x(20)
            continue
        pdf.set_xy(20, 20)
        pdf.multi_cell(170, 5, f"Note {page}. " + " ".join(NOTES[page % 3 :] + NOTES[: page % 3]))
    path.write_bytes(bytes(pdf.output()))
    return path


async def test_a_question_naming_a_line_item_finds_its_statement_row(tmp_path: Path) -> None:
    # Lexical legs only (no embedder), three candidates a leg: the notes hold the question's
    # words more often than the statement, so both legs put forward notes only; the row
    # of the line item the question names is a candidate all the same, and its vote puts
    # it above the notes only one leg found.
    pdf = filing_pdf(tmp_path / "acme.pdf")
    out = tmp_path / "out"
    options = {"top_k": 3, "top_n": 3, "embedder": "none", "env_file": None}
    result = await api.asearch(QUESTION, [pdf], out_dir=out, **options)
    found = [p for p in result.passages if "Total current assets\t16,166" in p.text]
    assert found, [p.text[:60] for p in result.passages]
    assert found[0].page == 5
    assert set(found[0].ranks) - {"final"} == {"row"}, found[0].ranks
    # The same from the cached index.
    again = await api.asearch(QUESTION, [pdf], out_dir=out, **options)
    assert [p.text for p in again.passages] == [p.text for p in result.passages]


def test_search_shows_the_row_legs_rank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdf = filing_pdf(tmp_path / "acme.pdf")
    args = ["search", str(pdf), QUESTION, "--embedder", "none", "--topN", "3", "--topK", "3"]
    assert run_cli([*args, "--out", str(tmp_path / "out")]) == 0
    shown = capsys.readouterr().out
    assert "p. 5" in shown and "row #1 (2.000)" in shown, shown


async def test_other_words_around_the_label_do_not_make_a_match(tmp_path: Path) -> None:
    pdf = filing_pdf(tmp_path / "acme.pdf")
    # "assets current" is not the label's run of words.
    for question in ("What assets are current at Acme?", "Acme 2023 report"):
        result = await api.asearch(
            question, [pdf], out_dir=tmp_path / "out", top_k=5, top_n=5, **KEYLESS
        )
        assert result.passages
        assert all("row" not in p.ranks for p in result.passages)


async def test_a_markdown_table_row_is_found_too(tmp_path: Path) -> None:
    notes = "\n\n".join(NOTES * 6)
    table = "| Item | 2023 | 2022 |\n|---|---:|---:|\n" + "".join(
        f"| {label} | {a} | {b} |\n" for label, a, b in STATEMENT_ROWS
    )
    document = tmp_path / "acme.md"
    document.write_text(f"# Acme annual report\n\n{notes}\n\n## Balance sheet\n\n{table}")
    result = await api.asearch(
        QUESTION, [document], out_dir=tmp_path / "out", top_k=3, top_n=3, embedder="none"
    )
    found = [p for p in result.passages if "| Total current assets | 16,166 |" in p.text]
    assert found and "row" in found[0].ranks


def test_a_label_is_its_content_words_less_a_leading_total_or_net() -> None:
    assert label_key("Total current assets") == ("current", "asset")
    assert label_key("Net cash provided by operating activities") == (
        "cash",
        "provid",
        "oper",
        "activ",
    )
    assert label_key("Research and development") == ("research", "develop")
    assert label_key("Other current assets") == ()  # another line item
    assert label_key("Current assets of discontinued operations") != ()
    assert label_key("Revenue") == ()  # one word names too little
    assert label_key("Total") == ()


def test_rows_are_lines_of_cells_with_a_figure_after_the_label() -> None:
    text = (
        "\t2023\t2022\n"  # a header: no label
        "Total current assets\t16,166\t14,580\n"
        "Current assets:\n"  # a label line without figures
        "Accounts receivable\tsee note\n"  # no figure
        "Long-term debt\t(1,200)\n"
        "| Research and development | 7,657 |\n"
        "|---|---|\n"
        "Long-term debt fell in 2023 as notes were repaid.\n"  # prose
    )
    assert [key for _, key in row_labels(text)] == [
        ("current", "asset"),
        ("long", "term", "debt"),
        ("research", "develop"),
    ]


def test_the_row_index_maps_a_label_to_the_chunks_holding_its_row() -> None:
    text = "".join(f"Line item {n}\t{n},000\n" for n in range(200)) + "Total debt due\t9,999\n"
    chunks = chunk_text(text, Chunking(200, 40))
    rows = RowIndex.build(text, chunks)
    holders = rows.rows["debt due"]
    at = text.index("Total debt due")
    assert holders and all(chunks.span(c)[0] <= at < chunks.span(c)[1] for c in holders)
    assert set(rows.match("How much debt due did it have?")) == set(holders)
    assert rows.match("debt") == {} and rows.match("due debt") == {}


@pytest.mark.parametrize(
    "stored",
    [[], {"current asset": "3"}, {"current asset": [99]}, {"current asset": [-1]}],
)
def test_row_files_that_are_no_row_index_are_refused(stored: object) -> None:
    with pytest.raises(ValueError):
        RowIndex.from_json(stored, 10)


async def test_a_cached_index_with_damaged_rows_is_rebuilt(tmp_path: Path) -> None:
    pdf = filing_pdf(tmp_path / "acme.pdf")
    out = tmp_path / "out"
    await api.asearch(QUESTION, [pdf], out_dir=out, **KEYLESS)
    (folder,) = IndexCache(cache_root(out)).entries()
    (folder / "rows.json").write_text(json.dumps({"current asset": [10**6]}))
    notices: list[str] = []
    settings = Settings(_env_file=None, out_dir=out, embedder="offline")
    corpus = read_searchable([pdf], settings)
    index = await open_corpus_index(corpus, settings, on_notice=notices.append)
    assert any("damaged" in notice and "table row" in notice for notice in notices), notices
    assert index.rows is not None and index.rows.rows["current asset"] != [10**6]
