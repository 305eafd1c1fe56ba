"""A session's text may be hostile (a file name, the question, the answer, quotes, checks,
model names, search terms, a ``javascript:`` URL): every report format shows it as text. The
Markdown report is rendered by a CommonMark renderer that passes raw HTML through (as many
do), with GFM tables, and the HTML it gives must hold no element or attribute the session
put there."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from lxml import html as lxml_html
from markdown_it import MarkdownIt

from ralph_tui.cli import run_cli
from ralph_tui.documents import Limits
from ralph_tui.documents.corpus import read_one
from ralph_tui.events import RunStarted
from ralph_tui.evidence import Claim, Coverage, DocumentCoverage, QuoteLocation
from ralph_tui.reports.formats import REPORT_FORMATS, ReportFormat
from ralph_tui.reports.markdown import code
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore

pytestmark = pytest.mark.usefixtures("clean_env")

IMG = "<img src=x onerror=alert(1)>"
FILE_NAME = f"a`{IMG}`b | [l](javascript:alert(2)) **x** ``c``\n# h.md"
QUOTE = f"The pump runs every 48 hours {IMG} and [here](javascript:alert(3))"
DOC_TEXT = f"# Pump\n\n{QUOTE}.\n\n<script>alert(4)</script>\n"
QUERY = f'How often? {IMG} "quoted" [q](javascript:alert(5)) | `tick`\n# heading\n---'
ANSWER = [f"- Every 48 hours {IMG} | [a](javascript:alert(6))", "=== <b>bold</b> `x`` y"]
HOSTILE = [
    f"`{IMG}`",
    "<script>alert(7)</script>",
    "[x](javascript:alert(8))",
    "<javascript:alert(9)>",
    "| a | b |",
    "line\n\n<img src=y onerror=alert(10)>",
    "&lt;img src=z onerror=alert(11)&gt;",
]
PAGE_URL = "javascript:alert(12)"


def hostile_session(tmp_path: Path) -> tuple[Path, str]:
    """A finished QA session whose every text is hostile; its out dir and id."""
    docs = tmp_path / "docs"
    docs.mkdir()
    path = docs / FILE_NAME
    path.write_text(DOC_TEXT, encoding="utf-8")
    document = read_one(path, FILE_NAME, Limits())
    start = document.text.index(QUOTE)
    quotes = [
        QuoteLocation(number=1, text=QUOTE, found="exact", source=FILE_NAME, start=start,
                      end=start + len(QUOTE)),
        QuoteLocation(number=2, text=HOSTILE[0], found="exact", source=f"{IMG} page",
                      url=PAGE_URL, fetched_at=1.7e9),
    ]  # fmt: skip
    out = tmp_path / "out"
    store = TraceStore(out)
    handle = store.create_session(
        SessionRecord(
            mode="qa", query=QUERY, doc_path=str(path), created_at=time.time(),
            settings={"provider": "anthropic", "variant": HOSTILE[1]},
            documents=[document.record()],
        )
    )  # fmt: skip
    handle.append_event(
        RunStarted(mode="qa", query=QUERY, doc_path=str(path), doc_chars=1, max_iters=1,
                   generate_model=f"x`{IMG}`", validate_model="``|<b>m</b>|``")
    )  # fmt: skip
    for iteration, passed in ((1, False), (2, True)):
        handle.write_iteration(
            IterationTrace(
                iteration=iteration, query=QUERY, constraints=HOSTILE[:iteration + 2],
                output={"answer": "\n".join(ANSWER), "evidence": [QUOTE]},
                hard_validation={"ok": passed, "rules": [
                    {"name": HOSTILE[2], "ok": passed, "message": HOSTILE[3]},
                    {"name": "bullets", "ok": True, "message": HOSTILE[4]},
                ]},
                judge={"ok": passed, "issues": [] if passed else [{"message": HOSTILE[5]}]},
                passed=passed,
                failure_tag=None if passed else HOSTILE[6],
                quotes=quotes,
                claims=[Claim(line=n, text=line, quotes=[n], verdict=None, missing=HOSTILE[n])
                        for n, line in enumerate(ANSWER, 1)],
                coverage=Coverage(
                    documents=[DocumentCoverage(document=FILE_NAME, chars=len(document.text),
                                                spans=[(0, 10)])],
                    searches=HOSTILE,
                ),
            )
        )  # fmt: skip
    handle.finish("passed")
    store.close()
    return out, handle.session_id


URL_ATTRIBUTES = ("href", "src", "action", "formaction", "data", "xlink:href")


def planted(root: lxml_html.HtmlElement, markdown: bool) -> list[str]:
    """What a renderer would act on: elements and attributes the session's text put there
    (in Markdown also a heading, a rule or raw bold: the report's own title is its one h1)."""
    found = []
    tags = ["img", "script", "iframe", "object", "embed", "form", "input"]
    tags += ["b", "hr"] if markdown else []
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        if element.tag in tags:
            found.append(f"<{element.tag}>")
        for name, value in element.attrib.items():
            if name.lower().startswith("on"):
                found.append(f"{element.tag} {name}={value!r}")
            if name.lower() in URL_ATTRIBUTES and "javascript:" in value.lower():
                found.append(f"{element.tag} {name}={value!r}")
        if markdown and element.tag == "a":
            found.append(f"a href={element.get('href')!r}")
    if markdown and len(list(root.iter("h1"))) != 1:
        found.append("a second <h1>")
    return found


def markdown_as_html(text: str) -> lxml_html.HtmlElement:
    renderer = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return lxml_html.fragment_fromstring(renderer.render(text), create_parent="div")


def report(out: Path, session_id: str, fmt: ReportFormat, target: Path) -> str:
    code_ = run_cli(["report", session_id, "--out", str(out), "--format", fmt, "-o", str(target)])
    assert code_ == 0
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_every_report_format_shows_hostile_text_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: ReportFormat
) -> None:
    out, session_id = hostile_session(tmp_path)
    text = report(out, session_id, fmt, tmp_path / f"report.{fmt}")
    if fmt == "json":
        bundle = json.loads(text)
        assert bundle["query"] == QUERY
        assert {source["name"] for source in bundle["sources"]} >= {FILE_NAME}
        return
    if fmt == "md":
        root = markdown_as_html(text)
        [*_, sources] = root.iter("table")
        widths = {len(row.findall("td")) for row in sources.iter("tr") if row.findall("td")}
        assert widths == {3}, "a name with | or a line break does not split the table"
    else:
        root = lxml_html.document_fromstring(text)
        for hidden in root.xpath("//script | //style"):
            hidden.getparent().remove(hidden)  # the page's own (checked by the HTML tests)
    assert planted(root, markdown=fmt == "md") == []
    shown = " ".join(root.text_content().split())
    for piece in (IMG, "[l](javascript:alert(2))", "<script>alert(7)</script>", "x`" + IMG):
        assert piece in shown, piece


@pytest.mark.parametrize(
    "text",
    ["plain", "a`b", "``", "`start", "end`", " spaced ", "a | b", "two\nlines", IMG, "a\\"],
)
def test_a_code_span_shows_its_text_as_written(text: str) -> None:
    root = markdown_as_html(code(text))
    [span] = root.iter("code")
    assert span.text_content() == text.replace("\n", " ")
