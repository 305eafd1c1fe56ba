"""A paragraph a filing repeats on several pages is shown once, from the page that says
most about the question."""

from __future__ import annotations

from pathlib import Path

from ralph_tui import api

QUESTION = "Which reportable segments does Acme have?"
BOILERPLATE = (
    "Segments that do not meet the quantitative threshold for separate reporting are "
    "grouped as All Other, which is mostly the results of new businesses and of research "
    "programs that have not yet become reportable segments."
)
SEGMENTS = (
    "Acme has three reportable segments: Display Glass, Optical Fiber and Specialty "
    "Materials, each reviewed by the chief operating decision maker."
)
CITIES = ("Oslo", "Lyon", "Porto", "Turin", "Ghent", "Basel")


def filing_pdf(path: Path) -> Path:
    """Six pages, each opening with a line of its own about Acme; the boilerplate on pages
    2, 4 and 6, and the segments on page 6 only."""
    from fpdf import FPDF

    pdf = FPDF(format="letter")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=9)
    for page in range(1, 7):
        pdf.add_page()
        pdf.set_xy(20, 20)
        city = CITIES[page - 1]
        paragraphs = [f"Acme opened its plant in {city} in {2000 + page}; {city} ships glass."]
        if page % 2 == 0:
            paragraphs.append(BOILERPLATE)
        if page == 6:
            paragraphs.append(SEGMENTS)
        for paragraph in paragraphs:
            pdf.multi_cell(170, 5, paragraph)
            pdf.ln(40)
            pdf.set_x(20)
    path.write_bytes(bytes(pdf.output()))
    return path


async def test_a_repeated_paragraph_is_shown_once_from_the_page_that_answers(
    tmp_path: Path,
) -> None:
    pdf = filing_pdf(tmp_path / "acme.pdf")
    options = {"top_k": 3, "embedder": "none", "env_file": None, "chunk_size": 240}
    result = await api.asearch(QUESTION, [pdf], out_dir=tmp_path / "out", **options)
    shown = [(p.page, p.text[:40]) for p in result.passages]
    assert result.passages[0].page == 6, shown
    copies = [p for p in result.passages if "grouped as All Other" in p.text]
    assert len(copies) <= 1 and all(p.page == 6 for p in copies), shown
