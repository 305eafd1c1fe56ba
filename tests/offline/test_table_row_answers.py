"""The keyless QA answers a question about a line item from the table rows that state it:
each row quoted whole and verbatim, its answer line what a reader of the table reads (the
row's cells named by the header row where the judge's window around the row holds that
header, else the row itself), and the judge passes such a line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from ralph_tui.cli import run_cli
from ralph_tui.llm.offline.sentences import (
    JUDGED_WINDOW,
    MAX_QUOTE_CHARS,
    label_asks,
    read_in,
    row_readings,
    sentences_of,
)
from ralph_tui.llm.offline.text import Asked, DocumentsRarity
from ralph_tui.validate import qa
from ralph_tui.validate.qa import evidence_windows
from ralph_tui.words import query_terms

TOPICS = [
    ("Fleet", "The fleet counts nine ferries, the oldest built in 1998 and refitted twice."),
    ("Safety", "Every crossing is logged, and crews drill evacuation of each vessel monthly."),
    ("Staff", "Deckhands train for six weeks before they serve on a crossing alone."),
    ("Harbours", "The company leases berths in four harbours and owns the one at Skelmor."),
    ("Weather", "Storms cancelled forty crossings, most of them in the winter months."),
    ("Tickets", "Season passes are sold at the harbour offices and on the boats."),
    ("Fuel", "The ferries burn marine diesel bought under a contract renewed each spring."),
    ("Outlook", "Two new vessels are ordered, the first to sail on the northern route."),
]


def annual_report(tmp_path: Path) -> tuple[Path, str]:
    """A ferry company's annual report in Markdown: its results as a Markdown table, its
    statement of operations as tab-separated rows (as a PDF table is kept), and its
    highlights as a label followed by figures on a line with no cells (an unruled PDF
    table), amid sections about other things."""
    prose = "\n\n".join(
        f"## {title}\n\n" + " ".join(f"{text[:-1]}, as in {year}." for year in range(2015, 2021))
        for title, text in TOPICS
    )
    text = (
        "# Harbourline annual report 2023\n\n"
        "Harbourline runs the ferries between the islands of the western sound.\n\n"
        f"{prose}\n\n"
        "## Results of operations\n\n"
        "The following table summarises the results, in thousands of euros.\n\n"
        "| Line item | 2023 | 2022 |\n|---|---|---|\n"
        "| Total revenues | 54,000 | 50,000 |\n| Operating income | 6,100 | 5,200 |\n\n"
        "## Consolidated statements of operations\n\n"
        "(in thousands of euros)\n\t2023\t2022\n"
        "Total revenues\t€ 54,100\t€ 50,050\nFuel costs\t(14,300)\t(13,100)\n\n"
        "## Revenues by service\n\n"
        "\t2023\t2022\nCrossings to the northern islands and back\t30,000\t28,000\n"
        "Crossings to the southern islands and back\t24,100\t22,150\n"
        "Total revenues\t€ 54,100\t€ 50,150\n\n"
        "## Highlights\n\n"
        "Financial highlights\n"
        "Total revenues € 54,000 € 50,000 8 %\nFerry crossings 18,250 17,900 2 %\n"
    )
    path = tmp_path / "HARBOURLINE_2023_annual.md"
    path.write_text(text, encoding="utf-8")
    return path, text


@pytest.mark.parametrize("inner", ["rlm", "direct", "lcm"])
def test_a_line_item_is_answered_from_its_table_rows_quoted_verbatim(
    inner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, text = annual_report(tmp_path)
    question = "What were Harbourline's total revenues in 2023?"
    code = run_cli(["run", "--provider", "offline", "--json", "--mode", "qa", "--inner", inner,
                    "--query", question, "--doc", str(path),
                    "--out", str(tmp_path / "out"), "--maxIters", "2"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    output = result["output"]
    answer = str(output["answer"])
    assert (code, result["status"]) == (0, "passed"), answer
    lines = {line.strip() for line in text.splitlines()}
    # Each quote is the document's text as it stands there, ending with a whole row.
    for quote in output["evidence"]:
        assert quote in text and quote.split("\n")[-1] in lines, quote
    assert "| Total revenues | 54,000 | 50,000 |" in output["evidence"]
    assert "Total revenues\t€ 54,100\t€ 50,050" in output["evidence"]
    assert "Total revenues € 54,000 € 50,000 8 %" in output["evidence"]
    # Each row's line names its cells by the header above it, never passed off as a quote.
    assert "- Line item: Total revenues; 2023: 54,000; 2022: 50,000" in answer.splitlines()
    assert "- Total revenues; 2023: € 54,100; 2022: € 50,050" in answer.splitlines()
    assert "- Total revenues € 54,000 € 50,000 8 %" in answer.splitlines()
    # A row beyond the judge's window around it from its header is quoted from the header.
    assert "- Total revenues; 2023: € 54,100; 2022: € 50,150" in answer.splitlines()
    assert "2023\t2022\nCrossings to the northern" in "".join(output["evidence"])
    assert not any("2023:" in quote for quote in output["evidence"])


def test_a_row_is_named_by_its_header_only_where_its_quote_shows_the_header() -> None:
    rows = "".join(f"Item {n} revenues\t{n},000\t{n},500\n" for n in range(1, 9))
    text = f"Results\n\t2023\t2022\n{rows}End of table."
    readings = row_readings(text)
    near = "Item 1 revenues\t1,000\t1,500"
    assert readings[near] == (near, "Item 1 revenues; 2023: 1,000; 2022: 1,500")
    # Beyond the judge's window around the row, the quote runs from the header to the row.
    quote, reading = readings["Item 5 revenues\t5,000\t5,500"]
    assert quote.startswith("2023\t2022\nItem 1") and quote.endswith(
        "Item 5 revenues\t5,000\t5,500"
    )
    assert quote in text and len(quote) <= MAX_QUOTE_CHARS
    assert reading == "Item 5 revenues; 2023: 5,000; 2022: 5,500"
    # Farther than a quote reaches: the row alone, no column named.
    far = "Item 8 revenues\t8,000\t8,500"
    assert readings[far] == (far, "Item 8 revenues; 8,000; 8,500")
    window = evidence_windows(text, [far])[0]
    assert len(window) == JUDGED_WINDOW and "2023" not in window


def test_the_judges_window_is_the_one_the_rows_are_read_for() -> None:
    assert evidence_windows("x" * 1000, ["x"])[0] == "x" * JUDGED_WINDOW
    # And a quote's bound, stated again in the sandbox's module, is the validator's.
    assert MAX_QUOTE_CHARS == qa.MAX_QUOTE_CHARS


def test_a_label_followed_by_figures_is_a_row_not_prose() -> None:
    text = (
        "Results of operations\nTotal revenues $ 29,697,844 $ 24,996,056 19 %\n"
        "Operating income $ 6,194,509 $ 4,585,289 35 %\n"
        "Revenues grew in 2021 because\nmemberships grew by 2,000 and 3,000 in the two halves."
    )
    assert sentences_of(text) == [
        "Revenues grew in 2021 because\nmemberships grew by 2,000 and 3,000 in the two halves."
    ]


def test_a_row_found_first_inside_a_longer_row_is_not_quoted() -> None:
    text = (
        "Five-year summary\nNet sales $ 229,234 $ 215,639 $ 233,715 $ 182,795\n\n"
        "Results\nNet sales $ 229,234 $ 215,639 $ 233,715\nOther notes follow."
    )
    # Its quote would be placed in the five-year row, where the validator finds it first.
    assert read_in(text, "Net sales $ 229,234 $ 215,639 $ 233,715") is None
    five_years = "Net sales $ 229,234 $ 215,639 $ 233,715 $ 182,795"
    assert read_in(text, five_years) == (five_years, five_years)
    assert read_in(text, "Net sales $ 229,234") is None, "the start of a longer line"


def test_a_header_a_pdf_kept_without_cells_names_a_row_with_a_cell_for_each_name() -> None:
    text = (
        "Net sales by product\n2017 Change 2016\nNet Sales by Product:\n"
        "iPhone\t$ 141,319\t3%\t$ 136,700\nMac\t25,850\t13%\nThe table ends here."
    )
    readings = row_readings(text)
    assert readings["iPhone\t$ 141,319\t3%\t$ 136,700"][1] == (
        "iPhone; 2017: $ 141,319; Change: 3%; 2016: $ 136,700"
    )
    # A row with fewer cells than names: which name goes with which cell is not known.
    assert readings["Mac\t25,850\t13%"] == ("Mac\t25,850\t13%", "Mac; 25,850; 13%")


def test_a_groups_label_inside_a_table_keeps_the_tables_header() -> None:
    text = (
        "Statements of income\n\t2022\t2021\nREVENUE\nNet sales\t$ 222,730\t$ 192,052\n"
        "Membership fees\t4,224\t3,877\nOther income (expense):\nInterest\t(158)\t(171)\n"
        "The table ends here."
    )
    readings = row_readings(text)
    assert (
        readings["Net sales\t$ 222,730\t$ 192,052"][1]
        == "Net sales; 2022: $ 222,730; 2021: $ 192,052"
    )
    assert readings["Interest\t(158)\t(171)"][1] == "Interest; 2022: (158); 2021: (171)"


def test_a_row_answers_when_its_label_names_the_line_item_asked() -> None:
    asked = set(query_terms("What were the total revenues in 2021?"))
    assert label_asks("Total revenues\t$ 29,697,844\t$ 24,996,056", asked)
    # A region's or segment's revenues, or another line item, is not the total asked for.
    assert not label_asks("Revenues\t$ 9,699,819\t$ 7,772,252", asked)
    assert not label_asks("Cost of revenues\t17,332,683\t15,276,319", asked)
    assert not label_asks("Streaming revenues $ 29,515,496 $ 24,756,675 19 %", asked)
    net_sales = set(query_terms("What were the net sales in 2017?"))
    assert label_asks("Net sales\t$ 229,234\t$ 215,639", net_sales)
    assert label_asks("Total net sales\t$ 229,234\t$ 215,639", net_sales)


def test_the_company_a_report_is_named_after_need_not_be_named_by_every_line() -> None:
    def rarity(terms: Sequence[str]) -> dict[str, float]:
        return dict.fromkeys(terms, 2.0)

    question = Asked.question("What were Netflix's total revenues in 2021?")
    one = DocumentsRarity.of(rarity, ["NETFLIX_2021_10K.pdf"])
    assert one.subjects == {"netflix"}
    assert question.weighed(one).telling_names == frozenset()
    assert question.weighed(one).addressed_by("Total revenues $ 29,697,844 $ 24,996,056 19 %")
    # Over reports of several companies, the name tells them apart: a line must hold it.
    several = DocumentsRarity.of(rarity, ["NETFLIX_2021_10K.pdf", "APPLE_2017_10K.pdf"])
    assert several.subjects == frozenset()
    assert question.weighed(several).telling_names == {"netflix"}
    assert not question.weighed(several).addressed_by("Total revenues $ 29,697,844 $ 24,996")


def test_a_line_holding_total_and_the_year_alone_does_not_answer() -> None:
    def rarity(terms: Sequence[str]) -> dict[str, float]:
        return dict.fromkeys(terms, 2.0)

    weighed = DocumentsRarity.of(rarity, ["NETFLIX_2021_10K.pdf"])
    asked = Asked.question("What were Netflix's total revenues in 2021?").weighed(weighed)
    assert not asked.addressed_by(
        "Total lease obligations as of December 31, 2021 increased $677 million."
    )
    assert not asked.addressed_by("As of December 31, 2021, we had $7.4 billion of total content")
    # The row gives its year in the header above it; a line about revenues answers.
    assert asked.addressed_by("Total revenues $ 29,697,844 $ 24,996,056 $ 20,156,447 19 %")
    assert asked.addressed_by("Streaming revenues grew 19% in 2021, as paid memberships grew.")
    # A question of nothing but such words still has terms to answer by.
    assert Asked.question("What was the total in 2021?").weighed(weighed).telling
