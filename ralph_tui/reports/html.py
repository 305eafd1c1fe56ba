"""The HTML report: one self-contained file (inline CSS, pictures as data URIs, no script,
nothing fetched) that reads on a screen, on a phone and on paper.

Every piece of text from the session is escaped; the markup around it is this module's.
"""

from __future__ import annotations

import base64
import json
from html import escape

from ralph_tui.counts import counted
from ralph_tui.evidence import DocumentCoverage
from ralph_tui.reports.bundle import BundleIteration, EvidenceBundle
from ralph_tui.reports.content import (
    AnswerLine,
    ChildView,
    QuoteView,
    StripCell,
    TimelineStep,
    answer_lines,
    child_views,
    document_strip,
    judge_note,
    percent,
    quote_views,
    source_facts,
    strip_caption,
    timeline,
    usage_words,
    when,
)
from ralph_tui.reports.page_pictures import PagePicture

STYLE = """
:root { --ink: #1d232b; --muted: #5b6470; --line: #d5dae0; --paper: #fff; --soft: #f4f6f8;
  --mark: #ffe27a; --ok: #1f7a3e; --part: #9a6400; --bad: #b3261e; --accent: #2f5d8a; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--soft); color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; background: var(--paper); }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; border-bottom: 2px solid var(--line);
  padding-bottom: .25rem; }
h3 { font-size: 1rem; margin: 0; }
.meta, .muted { color: var(--muted); font-size: .9rem; }
.question { font-size: 1.15rem; font-weight: 600; margin: .75rem 0; }
code, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .85em;
  overflow-wrap: anywhere; }
ul.answer { list-style: none; padding: 0; margin: 0; }
ul.answer li { border-left: 4px solid var(--line); padding: .4rem .75rem; margin: .5rem 0;
  background: var(--soft); }
.verdict { display: inline-block; font-size: .75rem; font-weight: 700; text-transform: uppercase;
  letter-spacing: .03em; padding: 0 .4rem; border-radius: 3px; color: #fff;
  background: var(--muted); margin-right: .4rem; }
li.supported { border-color: var(--ok); } .verdict.supported { background: var(--ok); }
li.partly_supported { border-color: var(--part); }
.verdict.partly_supported { background: var(--part); }
li.unsupported { border-color: var(--bad); } .verdict.unsupported { background: var(--bad); }
.missing { display: block; font-size: .9rem; color: var(--muted); }
a.ref { font-size: .85rem; text-decoration: none; color: var(--accent); margin-left: .25rem; }
article.quote { border: 1px solid var(--line); border-radius: 6px; padding: .75rem;
  margin: 1rem 0; break-inside: avoid; }
.where { font-size: .85rem; color: var(--muted); overflow-wrap: anywhere; margin: .2rem 0 .5rem; }
div.output { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft);
  padding: .5rem .75rem; }
blockquote.passage { margin: 0; padding: .5rem .75rem; background: var(--soft);
  border-left: 3px solid var(--accent); white-space: pre-wrap; overflow-wrap: anywhere; }
mark { background: var(--mark); color: inherit; padding: 0 .1em; }
.note { color: var(--part); font-size: .9rem; }
figure.page { margin: .75rem 0 0; }
figure.page svg { width: 100%; max-width: 48rem; height: auto; border: 1px solid var(--line);
  display: block; background: #fff; }
figure.page rect.hl { fill: #ffd400; fill-opacity: .35; stroke: #e0a800; stroke-width: 2; }
figcaption { font-size: .8rem; color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem;
  border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
th { width: 9rem; color: var(--muted); font-weight: 600; }
ol.timeline { list-style: none; padding: 0; margin: 0; border-left: 3px solid var(--line); }
ol.timeline > li { position: relative; margin: 0 0 1rem; padding-left: 1rem; break-inside: avoid; }
ol.timeline > li::before { content: ""; position: absolute; left: -.55rem; top: .35rem;
  width: .8rem; height: .8rem; border-radius: 50%; background: var(--bad); }
ol.timeline > li.passed::before { background: var(--ok); }
ol.timeline > li.reported h3::after { content: " — reported"; color: var(--accent); }
ul.checks { margin: .25rem 0; padding-left: 1.2rem; }
ul.changes { margin: .25rem 0; padding-left: 0; list-style: none; }
ol.timeline p { margin: .2rem 0; }
.fail { color: var(--bad); } .pass { color: var(--ok); }
.strip { display: flex; height: 1.1rem; border: 1px solid var(--line); margin: .25rem 0 .75rem; }
.strip span { flex: 1; background: var(--accent); border-right: 1px solid #fff; }
.strip span:last-child { border-right: 0; }
.share { font-size: 1.6rem; font-weight: 700; }
details summary { cursor: pointer; color: var(--accent); }
ul.children { list-style: none; padding: 0; margin: 0; }
li.child { border-left: 3px solid var(--line); padding: .25rem .75rem; margin: .5rem 0; }
li.child p { margin: .2rem 0; overflow-wrap: anywhere; }
pre.settings { background: var(--soft); padding: .5rem; overflow-x: auto; font-size: .8rem; }
@media (max-width: 40rem) {
  body { font-size: 15px; } main { padding: 1rem .6rem 2rem; }
  th { width: 6rem; } article.quote { padding: .5rem; }
}
@media print {
  body { background: #fff; font-size: 11pt; } main { max-width: none; padding: 0; }
  a.ref { color: var(--ink); } details { display: block; } details > summary { display: none; }
  h2 { break-after: avoid; } .strip, .verdict, mark, figure.page rect.hl, ol.timeline > li::before {
    -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""


def e(text: object) -> str:
    """Session text made safe inside an element or an attribute."""
    return escape(str(text), quote=True)


def render_html(bundle: EvidenceBundle, pictures: list[PagePicture]) -> str:
    """The report of ``bundle``; ``pictures`` are the PDF pages its quotes stand on."""
    title = f"ralph-tui report: {bundle.query[:80]}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title><style>{STYLE}</style></head><body><main>",
        header(bundle),
        answer_section(bundle),
        evidence_section(bundle, pictures),
        children_section(bundle),
        checks_section(bundle),
        timeline_section(bundle),
        coverage_section(bundle),
        run_section(bundle),
        "</main></body></html>",
    ]
    return "\n".join(parts) + "\n"


def header(bundle: EvidenceBundle) -> str:
    return (
        "<header><h1>ralph-tui report</h1>"
        f'<p class="question">{e(bundle.query)}</p>'
        f'<p class="meta">{e(bundle.mode.upper())} session <code>{e(bundle.session_id)}</code>'
        f" · {e(bundle.status)} · {counted(len(bundle.iterations), 'iteration')}"
        f" · report made {e(when(bundle.created_at))} by {e(bundle.generator)}</p></header>"
    )


def answer_section(bundle: EvidenceBundle) -> str:
    if bundle.mode == "task" and not bundle.claims:
        return (
            f'<section id="answer"><h2>Task output</h2><div class="output">{e(bundle.answer)}</div>'
            "</section>"
        )
    lines = answer_lines(bundle)
    if not lines:
        return '<section id="answer"><h2>Answer</h2><p class="muted">No answer.</p></section>'
    items = "".join(answer_item(line) for line in lines)
    return f'<section id="answer"><h2>Answer</h2><ul class="answer">{items}</ul></section>'


def answer_item(line: AnswerLine) -> str:
    refs = "".join(f'<a class="ref" href="#quote-{n}">[{n}]</a>' for n in line.quotes)
    missing = f'<span class="missing">Missing: {e(line.missing)}</span>' if line.missing else ""
    return (
        f'<li class="{e(line.verdict)}"><span class="verdict {e(line.verdict)}">'
        f"{e(line.verdict_label)}</span>{e(line.shown)}{refs}{missing}</li>"
    )


def evidence_section(bundle: EvidenceBundle, pictures: list[PagePicture]) -> str:
    views = quote_views(bundle)
    if not views:
        return '<section id="evidence"><h2>Evidence</h2><p class="muted">No quotes.</p></section>'
    by_page = {(p.document, p.page): (p, f"page-{n}") for n, p in enumerate(pictures, 1)}
    cards = "".join(quote_card(view, by_page) for view in views)
    return (
        f'<section id="evidence"><h2>Evidence</h2>{page_defs(pictures)}{cards}'
        f"{sources_table(bundle)}</section>"
    )


def page_defs(pictures: list[PagePicture]) -> str:
    """Each page's picture once (``page-1``, ``page-2``... in order), for the quotes'
    figures to show (``<use>``)."""
    if not pictures:
        return ""
    images = "".join(
        f'<image id="page-{n}" width="{p.width}" height="{p.height}" '
        f'href="data:image/png;base64,{base64.b64encode(p.png).decode("ascii")}"/>'
        for n, p in enumerate(pictures, 1)
    )
    return (
        '<svg width="0" height="0" style="position:absolute" aria-hidden="true">'
        f"<defs>{images}</defs></svg>"
    )


PageRefs = dict[tuple[str, int], tuple[PagePicture, str]]
"""Each page picture, and its image's id, by document and page."""


def quote_card(view: QuoteView, by_page: PageRefs) -> str:
    quote = view.quote
    note = f'<p class="note">{e(view.found_note)}</p>' if view.found_note else ""
    unread = ""
    if view.passage is None and quote.source is not None:
        unread = '<p class="note">The source could not be read now: the quote as recorded.</p>'
    passage = (
        f'<blockquote class="passage">{e(view.before)}<mark data-quote="{quote.number}">'
        f"{e(view.marked)}</mark>{e(view.after)}</blockquote>"
    )
    picture = by_page.get((quote.source or "", quote.page or 0))
    figure = page_figure(*picture, quote.number) if picture else ""
    return (
        f'<article class="quote" id="quote-{quote.number}"><h3>Quote {quote.number}</h3>'
        f'<p class="where">{e(view.where)}</p>{note}{unread}{passage}'
        f"{figure}</article>"
    )


def page_figure(picture: PagePicture, image_id: str, number: int) -> str:
    boxes = picture.boxes.get(number, [])
    rects = "".join(
        f'<rect class="hl" data-quote="{number}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
        f'height="{h:.1f}"/>'
        for x, y, w, h in boxes
    )
    caption = f"{picture.document}, page {picture.page}"
    if not boxes:
        caption += ": the quote's characters could not be placed on the page"
    return (
        f'<figure class="page" data-quote="{number}">'
        f'<svg viewBox="0 0 {picture.width} {picture.height}" role="img" '
        f'aria-label="{e(caption)}"><use href="#{image_id}"/>{rects}</svg>'
        f"<figcaption>{e(caption)}</figcaption></figure>"
    )


def sources_table(bundle: EvidenceBundle) -> str:
    if not bundle.sources:
        return ""
    blocks = []
    for source in bundle.sources:
        rows = "".join(
            f"<tr><th>{e(label)}</th><td>{value_cell(label, value)}</td></tr>"
            for label, value in source_facts(source)
        )
        blocks.append(f"<h3>{e(source.name)}</h3><table>{rows}</table>")
    return "<h2>Sources</h2>" + "".join(blocks)


def value_cell(label: str, value: str) -> str:
    return f"<code>{e(value)}</code>" if label in ("SHA-256", "path") else e(value)


def children_section(bundle: EvidenceBundle) -> str:
    """The tree of child agents, each indented under its parent by its level."""
    views = child_views(bundle)
    if not views:
        return ""
    items = "".join(child_item(view) for view in views)
    return (
        f'<section id="children"><h2>Child agents</h2><ul class="children">{items}</ul></section>'
    )


def child_item(view: ChildView) -> str:
    over = f" · over {e(view.context)}" if view.context else ""
    facts = [("Asked", view.prompt), ("Answered", view.answer), ("Error", view.error)]
    rows = "".join(
        f'<p><span class="muted">{label}:</span> {e(text)}</p>' for label, text in facts if text
    )
    quotes = "".join(
        f'<blockquote class="passage">{e(quote.quote.text)}</blockquote>'
        f'<p class="where">{e(quote.where)}</p>'
        for quote in view.quotes
    )
    return (
        f'<li class="child" data-level="{view.level}" style="margin-left:{view.level - 1}rem">'
        f'<h3>{e(view.agent)}</h3><p class="muted">{e(view.ending)}{over}</p>{rows}{quotes}</li>'
    )


def reported_iteration(bundle: EvidenceBundle) -> BundleIteration | None:
    """The iteration whose answer the report shows."""
    return next((it for it in bundle.iterations if it.iteration == bundle.reported_iteration), None)


def checks_section(bundle: EvidenceBundle) -> str:
    reported = reported_iteration(bundle)
    if reported is None:
        return ""
    checks = "".join(
        f'<li class="{"pass" if check.ok else "fail"}">{"✓" if check.ok else "✗"} '
        f"{e(check.name)}{': ' + e(check.message) if check.message else ''}</li>"
        for check in reported.hard_checks
    )
    issues = "".join(
        f"<li>{e(issue.message)}{' (' + e(issue.category) + ')' if issue.category else ''}</li>"
        for issue in reported.judge_issues
    )
    note = judge_note(reported)
    judge = (
        f'<p class="muted">{e(note.capitalize())}.</p>'
        if note
        else f'<ul class="checks">{issues}</ul>'
    )
    return (
        f'<section id="checks"><h2>Checks of iteration {reported.iteration}</h2>'
        f'<h3>Hard checks</h3><ul class="checks">{checks}</ul>'
        f"<h3>Judge</h3>{judge}</section>"
    )


def timeline_section(bundle: EvidenceBundle) -> str:
    items = "".join(timeline_item(step) for step in timeline(bundle))
    return (
        f'<section id="iterations"><h2>Iterations</h2><ol class="timeline">{items}</ol></section>'
    )


def timeline_item(step: TimelineStep) -> str:
    classes = "passed" if step.passed else "failed"
    classes += " reported" if step.reported else ""
    facts = " · ".join(
        filter(None, [step.outcome, step.read, counted(step.constraints, "constraint")])
    )
    changes = [f"<li>+ {e(c)}</li>" for c in step.added]
    changes += [f'<li class="muted">− {e(c)}</li>' for c in step.dropped]
    return (
        f'<li class="{classes}"><h3>Iteration {step.iteration}</h3>'
        f'<p class="muted">{e(facts)}</p>'
        + (f'<ul class="changes">{"".join(changes)}</ul>' if changes else "")
        + "".join(f'<p class="fail">{e(p)}</p>' for p in step.problems)
        + "</li>"
    )


def coverage_section(bundle: EvidenceBundle) -> str:
    coverage = bundle.coverage
    if coverage is None:
        return (
            '<section id="coverage"><h2>What was read</h2>'
            '<p class="muted">The run did not record what it read.</p></section>'
        )
    strips = "".join(coverage_strip(doc, document_strip(bundle, doc)) for doc in coverage.documents)
    searches = ", ".join(f"<code>{e(s)}</code>" for s in coverage.searches) or "none"
    return (
        '<section id="coverage"><h2>What was read</h2>'
        f'<p><span class="share">{percent(coverage.share)}</span> of the text '
        f"({coverage.read_chars:,} of {coverage.total_chars:,} characters)</p>"
        f"<p>Searched the whole text for: {searches}</p>{strips}</section>"
    )


def coverage_strip(doc: DocumentCoverage, cells: list[StripCell]) -> str:
    """A document's strip: a cell per page (or part), as dark as the share of it read."""
    spans = "".join(
        f'<span style="opacity:{max(cell.share, 0.04):.2f}" class="{"read" if cell.share else ""}" '
        f'title="{e(cell.label)}: {percent(cell.share)} read"></span>'
        for cell in cells
    )
    share = percent(doc.read_chars / doc.chars if doc.chars else 0)
    return (
        f'<h3>{e(doc.document)}</h3><p class="muted">{doc.read_chars:,} of {doc.chars:,} '
        f"characters ({share}); {e(strip_caption(cells))}</p>"
        f'<div class="strip" role="img" aria-label="{e(doc.document)}: what was read, '
        f'{e(strip_caption(cells))}">{spans}</div>'
    )


def run_section(bundle: EvidenceBundle) -> str:
    models = "".join(
        f"<tr><th>{e(role)} model</th><td><code>{e(model)}</code></td></tr>"
        for role, model in bundle.models.items()
    )
    settings = json.dumps(bundle.settings, indent=2, ensure_ascii=False, sort_keys=True)
    return (
        '<section id="run"><h2>Models, usage and cost</h2>'
        f"<table>{models}<tr><th>usage</th><td>{e(usage_words(bundle))}</td></tr></table>"
        f'<details><summary>Settings</summary><pre class="settings">{e(settings)}</pre>'
        "</details></section>"
    )
