"""The HTML report, parsed: every quote highlighted inside its passage, a PDF quote's page
picture with its highlight boxes on the quote's characters, everything escaped, nothing
fetched, and the Markdown report's content."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from lxml import html as lxml_html
from PIL import Image, ImageStat

from ralph_tui.events import RuleResult
from ralph_tui.reports.build import build_bundle
from ralph_tui.reports.bundle import BundleIteration, EvidenceBundle
from ralph_tui.reports.content import judge_note
from ralph_tui.reports.render import render
from ralph_tui.traces.store import TraceStore
from tests.reports.sessions import ANSWER, PAGE_URL, QUOTES, SAMPLES, record_session

pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.fixture
def bundle(tmp_path: Path) -> EvidenceBundle:
    settings, session_id = record_session(tmp_path)
    store = TraceStore(settings.out_dir)
    try:
        return build_bundle(store, session_id, settings)
    finally:
        store.close()


def parsed(bundle: EvidenceBundle) -> lxml_html.HtmlElement:
    return lxml_html.document_fromstring(render(bundle, "html"))


def test_every_quote_is_highlighted_inside_its_passage(bundle: EvidenceBundle) -> None:
    page = parsed(bundle)
    passages = {p.quote: p for p in bundle.passages}
    for quoted, quote in zip(QUOTES, bundle.quotes, strict=True):
        card = page.get_element_by_id(f"quote-{quote.number}")
        marks = card.xpath(".//blockquote[@class='passage']/mark")
        assert [mark.text_content() for mark in marks] == [quoted.text]
        passage = marks[0].getparent()
        assert passage.text_content() == passages[quote.number].text
        assert passage.text_content() != quoted.text  # the quote stands in its context


def test_each_quote_names_its_file_page_or_url(bundle: EvidenceBundle) -> None:
    page = parsed(bundle)
    where = {
        number: page.get_element_by_id(f"quote-{number}").find_class("where")[0].text_content()
        for number in range(1, len(QUOTES) + 1)
    }
    assert where[1].startswith("notes.md, characters ")
    assert where[2].startswith("pump.pdf p. 1,") and where[3].startswith("pump.pdf p. 2,")
    assert where[5] == f"{PAGE_URL}, fetched 2025-10-09 08:53 UTC"


def test_answer_lines_show_their_verdicts_and_link_their_quotes(bundle: EvidenceBundle) -> None:
    items = parsed(bundle).get_element_by_id("answer").xpath(".//li")
    assert [item.find_class("verdict")[0].text for item in items] == [
        "supported", "supported", "partly supported", "unsupported"
    ]  # fmt: skip
    assert [[a.get("href") for a in item.xpath(".//a")] for item in items] == [
        ["#quote-1"], ["#quote-2", "#quote-3"], ["#quote-4"], ["#quote-5"]
    ]  # fmt: skip
    assert "<Chlorine> stays at 0.8 mg/l." in items[2].text_content()
    assert "Missing: the quote does not say <why>" in items[2].text_content()


def test_session_text_is_escaped(bundle: EvidenceBundle) -> None:
    text = render(bundle, "html")
    assert "<triggers>" not in text and "&lt;triggers&gt;" in text
    assert "<stays>" not in text and "<why>" not in text and "<more>" not in text
    page = parsed(bundle)
    assert not page.xpath("//triggers | //stays | //why | //more | //chlorine")


def test_the_report_is_self_contained(bundle: EvidenceBundle) -> None:
    page = parsed(bundle)
    assert not page.xpath("//script | //link | //iframe | //object")
    for element in page.xpath("//*[@src or @href]"):
        target = element.get("src") or element.get("href")
        assert target.startswith(("#", "data:image/png;base64,")), target
    assert "@media print" in render(bundle, "html")
    assert page.xpath("//meta[@name='viewport']")


def charbox_rects(
    pdf_path: Path, page_number: int, text: str, scale: float
) -> list[tuple[float, ...]]:
    """The quote's characters' boxes on the page, in the picture's pixels, found here
    independently of the report: by pdfium's own search."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    page = pdf[page_number - 1]
    text_page = page.get_textpage()
    searcher = text_page.search(text)
    found = searcher.get_next()
    assert found is not None
    start, count = found
    height = page.get_height()
    boxes = []
    for index in range(start, start + count):
        left, bottom, right, top = text_page.get_charbox(index)
        if right > left:
            boxes.append(
                (left * scale, (height - top) * scale, right * scale, (height - bottom) * scale)
            )
    searcher.close()
    text_page.close()
    page.close()
    pdf.close()
    return boxes


def test_a_pdf_quote_shows_its_page_with_highlights_on_its_characters(
    bundle: EvidenceBundle,
) -> None:
    page = parsed(bundle)
    for quote in (q for q in bundle.quotes if q.source == "pump.pdf"):
        figure = page.get_element_by_id(f"quote-{quote.number}").xpath(".//figure")[0]
        svg = figure.xpath(".//svg")[0]
        width, height = (float(v) for v in svg.get("viewbox").split()[2:])
        image_id = svg.xpath(".//use")[0].get("href").removeprefix("#")
        image = page.xpath(f"//image[@id='{image_id}']")[0]
        data = base64.b64decode(image.get("href").removeprefix("data:image/png;base64,"))
        picture = Image.open(io.BytesIO(data))
        assert picture.format == "PNG" and picture.size == (width, height)
        scale = width / 595.0
        chars = charbox_rects(SAMPLES / "pump.pdf", quote.page or 0, quote.text, scale)
        rects = [
            tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
            for r in svg.xpath(".//rect[@class='hl']")
        ]
        assert rects
        # Every highlight lies within the quote's characters' extent, and every character
        # lies within a highlight.
        left, top = min(c[0] for c in chars), min(c[1] for c in chars)
        right, bottom = max(c[2] for c in chars), max(c[3] for c in chars)
        for x, y, w, h in rects:
            assert left - 0.2 <= x and x + w <= right + 0.2, (rects, chars)
            assert top - 0.2 <= y and y + h <= bottom + 0.2, (rects, chars)
        for x0, y0, x1, y1 in chars:
            assert any(
                x - 0.2 <= x0 and x1 <= x + w + 0.2 and y - 0.2 <= y0 and y1 <= y + h + 0.2
                for x, y, w, h in rects
            )
        # The highlight sits on ink: the picture is darker under it than the page around.
        grey = picture.convert("L")
        x, y, w, h = (int(v) for v in rects[0])
        under = ImageStat.Stat(grey.crop((x, y, x + w, y + h))).mean[0]
        assert under < 250


def test_a_pdf_that_changed_since_the_run_shows_no_page_picture(tmp_path: Path) -> None:
    settings, session_id = record_session(tmp_path)
    (tmp_path / "docs" / "pump.pdf").write_bytes(b"%PDF-1.4 not the same file")
    store = TraceStore(settings.out_dir)
    bundle = build_bundle(store, session_id, settings)
    store.close()
    page = parsed(bundle)
    assert not page.xpath("//figure") and not page.xpath("//image")
    card = page.get_element_by_id("quote-2")
    assert "could not be read now" in card.text_content()
    assert card.xpath(".//mark")[0].text_content() == QUOTES[1].text


def test_the_timeline_coverage_and_usage_are_shown(bundle: EvidenceBundle) -> None:
    page = parsed(bundle)
    steps = page.get_element_by_id("iterations").xpath("./ol/li")
    assert [step.get("class") for step in steps] == ["failed", "failed", "passed reported"]
    changes = [li.text_content() for li in steps[2].xpath("./ul/li")]
    # Only what changed since the iteration before is listed: added (+), dropped (−).
    assert changes == [
        "+ constraint 0 of iteration 3 & <more>",
        "+ constraint 1 of iteration 3 & <more>",
        "− constraint 0 of iteration 2 & <more>",
    ]
    assert "2 constraints" in steps[2].text_content()
    assert "judge: line 2 is vague & short" in steps[1].text_content()
    coverage = page.get_element_by_id("coverage")
    assert "94 %" in coverage.text_content() and "backwash" in coverage.text_content()
    notes_strip, pdf_strip = coverage.find_class("strip")
    assert len(notes_strip) == 40
    # Page 1 is inside the first span read; page 2 straddles its end and the last 10 chars.
    pdf = next(source for source in bundle.sources if source.name == "pump.pdf")
    (_, end_one), (start_two, end_two) = pdf.page_spans
    first_read = int(end_two * 0.9)
    page_two = (first_read - start_two + 10) / (end_two - start_two)
    assert end_one < first_read < end_two - 10
    assert [cell.get("title") for cell in pdf_strip] == [
        "p. 1: 100 % read", f"p. 2: {page_two * 100:.0f} % read"
    ]  # fmt: skip
    run = page.get_element_by_id("run").text_content()
    assert "openai:gpt-5" in run and "$0.0421" in run and "12,345 tokens in" in run


def test_the_markdown_report_says_the_same(bundle: EvidenceBundle) -> None:
    text = render(bundle, "md")
    assert "**Question:** How often are the filters backwashed, & what \\<triggers\\> it?" in text
    assert "- **partly supported:** \\<Chlorine\\> stays at 0.8 mg/l. [4]" in text
    for line in ANSWER:
        assert line.split()[-1].rstrip(".") in text
    assert "> **The filters are backwashed every 48 hours, or sooner when the head loss " in text
    assert "Pump maintenance **The pump seals are inspected every three months** by" in text
    assert f"**[5]** {PAGE_URL}, fetched 2025-10-09 08:53 UTC" in text
    assert "3. **passed** (reported), read 94 %, 2 constraints" in text
    assert "   - \\+ constraint 1 of iteration 3 & \\<more\\>" in text
    assert "   - − constraint 0 of iteration 2 & \\<more\\>" in text
    # The PDF's strip has a cell per page: page 1 read whole, page 2 mostly.
    assert "- pump.pdf: 95 % `|█▇|` (a cell per page, p. 1 to p. 2)" in text
    assert re.search(r"- notes\.md: 93 % `\|[█▂ ]{40}\|` \(40 equal parts of the text", text)
    assert "- validate model: `openai:gpt-5`" in text


def test_a_task_output_is_shown_as_written() -> None:
    output = "# Summary\n\n<b>bold?</b> and ```code``` & more\n- a list"
    bundle = EvidenceBundle(
        generator="ralph-tui test", created_at=0.0, session_id="2026-01-01/task-00000000",
        mode="task", query="Summarise", status="failed", answer=output,
    )  # fmt: skip
    page = lxml_html.document_fromstring(render(bundle, "html"))
    [shown] = page.get_element_by_id("answer").find_class("output")
    assert shown.text_content() == output and not page.xpath("//b")
    text = render(bundle, "md")
    assert f"## Task output\n\n````text\n{output}\n````\n" in text


def test_a_judge_never_asked_is_not_reported_as_finding_no_issues() -> None:
    """An iteration whose hard checks failed never reached the judge: both formats say so,
    never "no issues"."""
    failed = RuleResult(name="bullet_count", ok=False, message="1 bullet lines")
    never_asked = BundleIteration(iteration=1, passed=False, hard_checks=[failed])
    assert judge_note(never_asked) == "not asked: a hard check failed"
    stopped = BundleIteration(iteration=1, passed=False, failure_tag="judge_error")
    assert judge_note(stopped) == "not asked: the iteration stopped at judge_error"
    assert judge_note(BundleIteration(iteration=1, passed=True, judge_ok=True)) == "no issues"
    rejected = BundleIteration(iteration=1, passed=False, judge_ok=False)
    assert judge_note(rejected) == "rejected the answer without naming an issue"
