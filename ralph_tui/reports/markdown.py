"""The Markdown report: the HTML report's content as text to paste into an issue or a
document (GitHub-flavoured Markdown; a quote stands in bold inside its passage).

Everything the report quotes of a session (file names, the question, the answer, quotes,
checks, model names, search terms) may be hostile: it is written as literal text, never as
Markdown or HTML a renderer would act on — escaped (``md``), in a code span whose fence no
backtick inside can close (``code``), or in a fenced block likewise (``fenced``)."""

from __future__ import annotations

import re

from ralph_tui.counts import counted
from ralph_tui.reports.bundle import EvidenceBundle
from ralph_tui.reports.content import (
    CHILDREN_CUT,
    QuoteView,
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

MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>|~]|&(?=#?\w+;))")
"""Characters that mean something anywhere in a line of Markdown (``&`` only where it would
start an entity)."""
LINE_START_SPECIALS = re.compile(r"^(\s*(?:\d+)?)([#>+=.)-])")
"""What means something only at the start of a line: a heading, a quote, a list item, a
rule or a heading's underline (escaping one that would mean nothing is harmless)."""
LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
"""What ends a line for some reader: inside a code span, a table row or a list item it
would end the span, the row or the item."""
STRIP_BLOCKS = " ▁▂▃▄▅▆▇█"
"""Coverage strip cells, from nothing read to all read."""


def md(text: str) -> str:
    """Session text as literal Markdown on one line: its white space runs made single
    spaces (kept at its ends, so the parts of a passage join as they stood), its special
    characters escaped."""
    escaped = MARKDOWN_SPECIALS.sub(r"\\\1", re.sub(r"\s+", " ", text))
    return LINE_START_SPECIALS.sub(r"\1\\\2", escaped)


def code(text: str, *, in_table: bool = False) -> str:
    """``text`` as an inline code span, shown as written: its fence longer than any run of
    backticks inside it, a space inside the fence where the text starts or ends with a
    backtick or a space (CommonMark strips one), its line breaks made spaces, and in a table
    its ``|`` escaped (GFM splits cells on a ``|`` even inside a code span)."""
    flat = LINE_BREAKS.sub(" ", text)
    if not flat:
        return ""
    if in_table:
        flat = flat.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def render_markdown(bundle: EvidenceBundle) -> str:
    """The report of ``bundle`` as Markdown."""
    parts = [
        f"# ralph-tui report\n\n**Question:** {md(bundle.query)}\n",
        f"{md(bundle.mode.upper())} session {code(bundle.session_id)} · {md(bundle.status)} · "
        f"{counted(len(bundle.iterations), 'iteration')} · "
        f"report made {when(bundle.created_at)} by "
        f"{md(bundle.generator)}\n",
        "## Answer\n" if bundle.mode == "qa" else "## Task output\n",
        *answer_part(bundle),
        "## Evidence\n",
        *(quote_part(view) for view in quote_views(bundle)),
        *([] if bundle.quotes else ["No quotes.\n"]),
        *sources_part(bundle),
        *children_part(bundle),
        *checks_part(bundle),
        "## Iterations\n",
        *iterations_part(bundle),
        *coverage_part(bundle),
        "## Models, usage and cost\n",
        *[f"- {md(role)} model: {code(model)}" for role, model in bundle.models.items()],
        f"- usage: {usage_words(bundle)}\n",
    ]
    return "\n".join(parts)


def answer_part(bundle: EvidenceBundle) -> list[str]:
    if bundle.mode == "task" and not bundle.claims:
        return [fenced(bundle.answer)]
    lines = answer_lines(bundle)
    if not lines:
        return ["No answer.\n"]
    items = []
    for line in lines:
        refs = " ".join(f"[{n}]" for n in line.quotes)
        missing = f" — missing: {md(line.missing)}" if line.missing else ""
        text = md(line.shown)
        items.append(f"- **{md(line.verdict_label)}:** {text} {refs}{missing}".rstrip())
    return ["\n".join(items) + "\n"]


def fenced(text: str) -> str:
    """``text`` as a fenced block, shown as written: its fence longer than any run of
    backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}\n"


def quote_part(view: QuoteView) -> str:
    quote = view.quote
    notes = [note for note in (view.found_note,) if note]
    if view.passage is None and quote.source is not None:
        notes.append("the source could not be read now: the quote as recorded")
    note = "".join(f"\n\n*{md(n)}*" for n in notes)
    marked = view.marked.strip()
    passage = f"{md(view.before)}**{md(marked)}**{md(view.after)}".strip()
    return f"**[{quote.number}]** {md(view.where)}{note}\n\n> {passage}\n"


def sources_part(bundle: EvidenceBundle) -> list[str]:
    if not bundle.sources:
        return []
    rows = ["| source | " + " | ".join(["what", "value"]) + " |", "|---|---|---|"]
    for source in bundle.sources:
        for label, value in source_facts(source):
            shown = code(value, in_table=True) if label in ("SHA-256", "path") else md(value)
            rows.append(f"| {md(source.name)} | {label} | {shown} |")
    return ["### Sources\n", "\n".join(rows) + "\n"]


def children_part(bundle: EvidenceBundle) -> list[str]:
    """The tree of child agents: each child a list item nested under its parent's, with what
    it was asked, over what, how it ended, its answer and its located quotes."""
    views = child_views(bundle)
    if not views:
        return []
    lines = []
    for view in views:
        pad = "  " * (view.level - 1)
        over = f", over {md(view.context)}" if view.context else ""
        lines.append(f"{pad}- **{md(view.agent)}** — {md(view.ending)}{over}")
        facts = [("asked", view.prompt), ("answered", view.answer), ("error", view.error)]
        lines += [f"{pad}  - {label}: {md(text)}" for label, text in facts if text.strip()]
        lines += [
            f"{pad}  - quote: {md(quote.where)}: “{md(quote.quote.text)}”" for quote in view.quotes
        ]
    cut = [f"*{CHILDREN_CUT}*\n"] if bundle.children_cut else []
    return ["## Child agents\n", "\n".join(lines) + "\n", *cut]


def checks_part(bundle: EvidenceBundle) -> list[str]:
    reported = next(
        (it for it in bundle.iterations if it.iteration == bundle.reported_iteration), None
    )
    if reported is None:
        return []
    checks = [
        f"- {'✓' if check.ok else '✗'} {md(check.name)}"
        + (f": {md(check.message)}" if check.message else "")
        for check in reported.hard_checks
    ]
    note = judge_note(reported)
    issues = [f"- {md(note)}"] if note else [f"- {md(i.message)}" for i in reported.judge_issues]
    return [
        f"## Checks of iteration {reported.iteration}\n",
        "Hard checks:\n\n" + "\n".join(checks) + "\n",
        "Judge:\n\n" + "\n".join(issues) + "\n",
    ]


def iterations_part(bundle: EvidenceBundle) -> list[str]:
    """The timeline: each iteration's outcome, the constraints added (+) and dropped (−)
    since the one before, and what failed."""
    lines = []
    for step in timeline(bundle):
        reported = " (reported)" if step.reported else ""
        read = f", {step.read}" if step.read else ""
        constraints = counted(step.constraints, "constraint")
        lines.append(f"{step.iteration}. **{md(step.outcome)}**{reported}{read}, {constraints}")
        lines += [f"   - \\+ {md(c)}" for c in step.added]
        lines += [f"   - − {md(c)}" for c in step.dropped]
        lines += [f"   - {md(problem)}" for problem in step.problems]
    return ["\n".join(lines) + "\n"] if lines else ["No iteration ended.\n"]


def coverage_part(bundle: EvidenceBundle) -> list[str]:
    coverage = bundle.coverage
    if coverage is None:
        return ["## What was read\n", "The run did not record what it read.\n"]
    searches = ", ".join(code(s) for s in coverage.searches if s.strip()) or "none"
    lines = [
        f"Read **{percent(coverage.share)}** of the text ({coverage.read_chars:,} of "
        f"{coverage.total_chars:,} characters). Searched the whole text for: {searches}.\n"
    ]
    for doc in coverage.documents:
        cells = document_strip(bundle, doc)
        strip = "".join(STRIP_BLOCKS[round(c.share * (len(STRIP_BLOCKS) - 1))] for c in cells)
        share = percent(doc.read_chars / doc.chars if doc.chars else 0)
        lines.append(f"- {md(doc.document)}: {share} `|{strip}|` ({strip_caption(cells)})")
    return ["## What was read\n", "\n".join(lines) + "\n"]
