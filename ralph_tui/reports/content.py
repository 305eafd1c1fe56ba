"""What a report says, before it is HTML or Markdown: the answer's lines with their
verdicts, each quote with its source and passage, coverage as a strip, usage as words.
Both renderers read these, so the two formats cannot tell different stories."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from ralph_tui.counts import counted
from ralph_tui.evidence import VERDICT_LABELS, Claim, DocumentCoverage, QuoteLocation, Span
from ralph_tui.llm.spend_words import cost_words, estimated_words
from ralph_tui.reports.bundle import (
    BundleIteration,
    BundlePassage,
    BundleSource,
    EvidenceBundle,
)

STRIP_CELLS = 40
"""How many cells a document's coverage strip has when its pages are not known, each an
equal stretch of its text."""
MAX_PAGE_CELLS = 120
"""Up to this many pages, a document's strip has a cell per page."""

NOT_JUDGED = "not judged"


@dataclass(frozen=True)
class AnswerLine:
    """One line of the answer with what backs it."""

    text: str
    quotes: list[int]
    verdict: str
    """``supported``, ``partly_supported``, ``unsupported``, or ``NOT_JUDGED``."""
    missing: str = ""

    @property
    def shown(self) -> str:
        """The line without its list marker (the report lists the lines itself)."""
        return re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", self.text)

    @property
    def verdict_label(self) -> str:
        return VERDICT_LABELS.get(self.verdict, self.verdict)  # type: ignore[call-overload]


def answer_lines(bundle: EvidenceBundle) -> list[AnswerLine]:
    """The claims when the run linked them, else the answer's non-blank lines unjudged."""
    if bundle.claims:
        return [claim_line(claim) for claim in bundle.claims]
    lines = [line for line in bundle.answer.splitlines() if line.strip()]
    return [AnswerLine(line, [], NOT_JUDGED) for line in lines]


def claim_line(claim: Claim) -> AnswerLine:
    return AnswerLine(claim.text, claim.quotes, claim.verdict or NOT_JUDGED, claim.missing)


@dataclass(frozen=True)
class QuoteView:
    """A quote with where it stands: its source record and passage, when known."""

    quote: QuoteLocation
    source: BundleSource | None
    passage: BundlePassage | None

    @property
    def before(self) -> str:
        return self.passage.text[: self.passage.start] if self.passage else ""

    @property
    def marked(self) -> str:
        """The text highlighted: the passage's span (the source's words), else the quote."""
        return (
            self.passage.text[self.passage.start : self.passage.end]
            if self.passage
            else self.quote.text
        )

    @property
    def after(self) -> str:
        return self.passage.text[self.passage.end :] if self.passage else ""

    @property
    def where(self) -> str:
        """``pump.pdf p. 2, characters 107–171`` or the URL fetched at a time."""
        quote = self.quote
        if quote.url:
            fetched = f", fetched {when(quote.fetched_at)}" if quote.fetched_at else ""
            return f"{quote.url}{fetched}"
        if quote.source is None:
            return "not found in any source"
        span = f", characters {quote.start}–{quote.end}" if quote.start is not None else ""
        return f"{quote.label}{span}"

    @property
    def found_note(self) -> str:
        """Said of a quote that is not verbatim in its source, or whose source text OCR
        read (what the page shows may differ from it)."""
        found = {
            "exact": "",
            "near": "found with small differences (quote marks, dashes or spacing)",
            "missing": "not found in the sources",
        }[self.quote.found]
        if not self.quote.ocr:
            return found
        ocr = "its text was read by OCR from a picture of the page: compare it with the page"
        return f"{found}; {ocr}" if found else ocr


def quote_views(bundle: EvidenceBundle) -> list[QuoteView]:
    sources = {source.name: source for source in bundle.sources}
    passages = {passage.quote: passage for passage in bundle.passages}
    return [
        QuoteView(quote, sources.get(quote.source or ""), passages.get(quote.number))
        for quote in bundle.quotes
    ]


@dataclass(frozen=True)
class StripCell:
    """One stretch of a document in its coverage strip: a page, or an equal part."""

    label: str
    share: float
    """The part of it that was read, from 0 to 1."""


def strip_cells(
    coverage: DocumentCoverage, page_spans: list[Span] | None = None, cells: int = STRIP_CELLS
) -> list[StripCell]:
    """The document's coverage strip: a cell per page when its pages are known (up to
    ``MAX_PAGE_CELLS`` of them), else ``cells`` equal stretches of its text."""
    stretches: list[tuple[str, float, float]]
    if page_spans and len(page_spans) <= MAX_PAGE_CELLS:
        stretches = [(f"p. {n}", start, end) for n, (start, end) in enumerate(page_spans, 1)]
    else:
        size = coverage.chars / cells
        stretches = [
            (f"characters {int(size * n):,}–{int(size * (n + 1)):,}", size * n, size * (n + 1))
            for n in range(cells)
        ]
    return [
        StripCell(label, read_share(coverage.spans, low, high)) for label, low, high in stretches
    ]


def document_strip(bundle: EvidenceBundle, coverage: DocumentCoverage) -> list[StripCell]:
    """The strip of one document of the bundle's coverage, by page where its source has them."""
    source = next((s for s in bundle.sources if s.name == coverage.document), None)
    return strip_cells(coverage, source.page_spans if source else None)


def strip_caption(cells: list[StripCell]) -> str:
    """What the strip's cells are: ``a cell per page, p. 1 to p. 17``, or parts of the text."""
    if cells and cells[0].label.startswith("p. "):
        return f"a cell per page, {cells[0].label} to {cells[-1].label}"
    return f"{len(cells)} equal parts of the text, from its start to its end"


def read_share(spans: list[Span], low: float, high: float) -> float:
    """The part of ``[low, high)`` that ``spans`` cover, from 0 to 1."""
    if high <= low:
        return 0.0
    read = sum(max(0.0, min(end, high) - max(start, low)) for start, end in spans)
    return min(1.0, read / (high - low))


def percent(share: float) -> str:
    """``4 %``, ``0.3 %``, ``100 %``."""
    value = share * 100
    return f"{value:.1f} %" if 0 < value < 1 else f"{value:.0f} %"


def when(timestamp: float | None) -> str:
    """A time as ``2026-11-25 14:03 UTC`` (``unknown`` for none, or for one no date can
    show: a bundle may come from someone else)."""
    if timestamp is None:
        return "unknown"
    try:
        return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, ValueError, OSError):
        return "unknown"


def usage_words(bundle: EvidenceBundle) -> str:
    usage = bundle.usage
    estimated = estimated_words(usage.estimated_calls, usage.llm_calls)
    return (
        f"{usage.input_tokens:,} tokens in, {usage.output_tokens:,} out, "
        f"{usage.llm_calls:,} model calls{f' ({estimated})' if estimated else ''}, "
        f"{cost_words(usage.cost_usd, usage.unknown_cost_calls)}"
    )


def ocr_pages_words(pages: list[int]) -> str:
    """``pages 1, 2`` (``page 3``; empty for none): the pages of a source OCR read."""
    if not pages:
        return ""
    return f"page{'s' if len(pages) > 1 else ''} {', '.join(map(str, pages))}"


def source_facts(source: BundleSource) -> list[tuple[str, str]]:
    """A source's record as label and value pairs, the unknown ones left out."""
    facts = [
        ("path", source.path or ""),
        ("URL", source.url or ""),
        ("SHA-256", source.sha256 or ""),
        ("format", source.format or ""),
        ("converter", source.converter),
        ("pages", str(source.pages) if source.pages else ""),
        ("read by OCR", ocr_pages_words(source.ocr_pages)),
        ("fetched", when(source.fetched_at) if source.fetched_at else ""),
    ]
    return [(label, value) for label, value in facts if value]


@dataclass(frozen=True)
class TimelineStep:
    """One iteration as the timeline tells it: how it ended, what it read, the constraints
    it ran under (only those new since the iteration before are listed, and those dropped),
    and what failed."""

    iteration: int
    outcome: str
    passed: bool
    reported: bool
    read: str
    """``read 12 %``, or empty when the iteration recorded no coverage."""
    constraints: int
    added: list[str]
    dropped: list[str]
    problems: list[str]


def judge_note(iteration: BundleIteration) -> str | None:
    """What to say of the judge when it lists no issue: that it found none, or that it was
    never asked (``None`` when it has issues to list)."""
    if iteration.judge_issues:
        return None
    if iteration.judge_ok is None:
        why = "it gave no verdict"
        if iteration.failure_tag:
            why = f"the iteration stopped at {iteration.failure_tag}"
        if not all(check.ok for check in iteration.hard_checks):
            why = "a hard check failed"
        return f"not asked: {why}"
    return "no issues" if iteration.judge_ok else "rejected the answer without naming an issue"


def timeline(bundle: EvidenceBundle) -> list[TimelineStep]:
    steps = []
    before: list[str] = []
    for it in bundle.iterations:
        tag = f" at {it.failure_tag}" if it.failure_tag else ""
        problems = [f"✗ {check.name}: {check.message}" for check in it.hard_checks if not check.ok]
        problems += [f"judge: {issue.message}" for issue in it.judge_issues]
        steps.append(
            TimelineStep(
                iteration=it.iteration,
                outcome="passed" if it.passed else f"failed{tag}",
                passed=it.passed,
                reported=it.iteration == bundle.reported_iteration,
                read=f"read {percent(it.coverage.share)}" if it.coverage else "",
                constraints=len(it.constraints),
                added=[c for c in it.constraints if c not in before],
                dropped=[c for c in before if c not in it.constraints],
                problems=problems,
            )
        )
        before = it.constraints
    return steps


CHILD_ENDINGS = {
    "answered": "answered",
    "salvaged": "ran out of steps (its answer salvaged)",
    "failed": "failed",
    "llm_query": "not started: at the deepest level, llm_query answered",
    "running": "never ended (the run stopped while it ran)",
    "unreadable": "its record could not be read",
}
"""How a child ended, in words."""


@dataclass(frozen=True)
class ChildView:
    """One child agent as a report tells it: who it was, how it ended, what it was asked,
    over what, what it answered, and its located quotes."""

    level: int
    agent: str
    ending: str
    prompt: str
    context: str
    answer: str
    error: str
    quotes: list[QuoteView]


CHILDREN_CUT = "Some child agents or their quotes are left out: past what a report holds."


def child_views(bundle: EvidenceBundle) -> list[ChildView]:
    """The bundle's child agents in reading order (a child, then its own children)."""
    views = []
    for child in bundle.children:
        steps = f" in {counted(child.steps, 'step')}" if child.steps else ""
        ending = CHILD_ENDINGS[child.status] + (steps if child.status != "unreadable" else "")
        if child.problem:
            ending += f" ({child.problem})"
        views.append(
            ChildView(
                level=child.level,
                agent=child.agent or f"{child.root} {child.folder}",
                ending=ending,
                prompt=child.prompt,
                context=child.context,
                answer=child.answer,
                error=child.error or "",
                quotes=[QuoteView(quote, None, None) for quote in child.quotes],
            )
        )
    return views
