"""The evidence bundle: one session's answer with everything needed to check it later,
as a versioned JSON document (its schema is published in the docs)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ralph_tui.events import ChildStatus, JudgeIssue, RuleResult, RunStatus
from ralph_tui.evidence import Claim, Coverage, QuoteLocation
from ralph_tui.json_input import MAX_INT

BUNDLE_VERSION: Final = 1
"""Raised whenever a field changes meaning or goes away (a field added keeps it)."""

# A bundle may come from someone else: its bounds are part of its schema, so ``verify``
# refuses a malformed one in one line before reading anything, and no span or size in it can
# make it read past a text, wrap around one, or work without end.
MAX_BUNDLE_BYTES: Final = 64_000_000
"""The largest bundle file read (a session's bundle is rarely past a few MB)."""
MAX_QUOTE_CHARS: Final = 100_000
"""The longest quote a bundle may hold (a quote is a passage, not a document)."""
MAX_TEXT_CHARS: Final = 10_000_000
"""The longest answer, query or passage text."""
MAX_NAME_CHARS: Final = 4_096
"""The longest source name, path, URL or hash."""
MAX_ITEMS: Final = 10_000
"""The most quotes, claims, passages, sources or iterations a bundle may list."""

Offset = Annotated[int, Field(ge=0, le=MAX_INT)]
"""A character offset or a count: never negative, within 64 bits."""
PageNumber = Annotated[int, Field(ge=1, le=MAX_INT)]
Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]


def _ordered(start: int | None, end: int | None, what: str) -> None:
    if start is not None and end is not None and start > end:
        raise ValueError(f"{what} starts at {start}, after its end {end}")


class BundleQuote(QuoteLocation):
    """A quote as a bundle holds it: ``QuoteLocation`` within the bundle's bounds (spans
    non-negative and in order, the text of a bounded length)."""

    model_config = ConfigDict(from_attributes=True)

    number: Offset
    text: str = Field(max_length=MAX_QUOTE_CHARS)
    source: Name | None = None
    start: Offset | None = None
    end: Offset | None = None
    page: PageNumber | None = None
    page_start: Offset | None = None
    page_end: Offset | None = None
    url: Name | None = None

    @model_validator(mode="after")
    def _spans_in_order(self) -> Self:
        _ordered(self.start, self.end, "the span")
        _ordered(self.page_start, self.page_end, "the page span")
        return self


class BundleSource(BaseModel):
    """A document or an external page the quotes come from."""

    name: Name
    """As quotes name it (``QuoteLocation.source``)."""
    kind: Literal["file", "page"]
    path: Name | None = None
    """A file's absolute path when the run read it (for ``verify``, a hint of where to
    look, not an order: see ``reports.sources``)."""
    url: Name | None = None
    """An external page's URL."""
    sha256: Name | None = None
    """Of the file's bytes as the run read them."""
    format: Name | None = None
    converter: Name = ""
    """What turned it into text, with its version (``pypdfium2 4.30.0``)."""
    pages: Offset | None = None
    ocr_pages: list[PageNumber] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Its pages whose text OCR read when the run read it (a scanned page; every page of
    an image file): ``verify`` reads them by OCR again."""
    page_spans: list[tuple[Offset, Offset]] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Each page's span in the document's text (a PDF), as the source reads now; empty when
    it has no pages or could not be read."""
    fetched_at: float | None = None
    """An external page's fetch time (seconds since the epoch)."""


class BundlePassage(BaseModel):
    """The text around one quote in its source, so a reader sees the quote in its place."""

    quote: Offset
    """The quote's number (``QuoteLocation.number``)."""
    text: str = Field(max_length=MAX_TEXT_CHARS)
    """The passage: the quote with the paragraphs (or a few hundred characters) around it."""
    start: Offset
    """The quote's span within ``text``."""
    end: Offset

    @model_validator(mode="after")
    def _span_in_order(self) -> Self:
        _ordered(self.start, self.end, "the passage's span")
        return self


class BundleIteration(BaseModel):
    """One outer-loop iteration, as the timeline shows it."""

    iteration: int
    passed: bool
    constraints: list[str] = Field(default_factory=list)
    hard_checks: list[RuleResult] = Field(default_factory=list)
    judge_issues: list[JudgeIssue] = Field(default_factory=list)
    judge_ok: bool | None = None
    """The judge's verdict; ``None`` when it was not asked (a hard check or a phase failed)."""
    failure_tag: str | None = None
    coverage: Coverage | None = None


MAX_CHILD_LEVEL: Final = 16
"""The deepest a child agent of a bundle may stand below its root (``--max-depth`` allows 3
levels of children; a reading of a session folder goes down 8)."""


class BundleChild(BaseModel):
    """One child agent of the run (``rlm_query``), as its record in the session's
    ``children/`` folder tells it. The tree is a flat list in reading order (a child, then
    its own children), each with its ``level`` below its root agent, so a bundle's tree is
    bounded like its other lists and no nesting of someone else's bundle can go deep."""

    iteration: Offset
    """The iteration whose agent started the tree it belongs to."""
    root: Name
    """That agent (``worker``, ``doc_reader``)."""
    folder: Name
    """Its folder in the session (``children/01-worker/3.1``)."""
    level: int = Field(ge=1, le=MAX_CHILD_LEVEL)
    """1 for a child its root started, 2 for that child's children, ..."""
    agent: Name = ""
    """``worker/3.1``: its parent's name with the step that started it and its number."""
    prompt: str = Field(default="", max_length=MAX_TEXT_CHARS)
    """What it was asked."""
    context: str = Field(default="", max_length=MAX_NAME_CHARS)
    """What it explored (``2 documents: a.md, b.md``)."""
    status: Literal["running", "unreadable"] | ChildStatus = "unreadable"
    """How it ended; ``running`` if it never did, ``unreadable`` when its record could not
    be read (``problem`` says why)."""
    answer: str = Field(default="", max_length=MAX_TEXT_CHARS)
    error: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    steps: Offset = 0
    duration_ms: float | None = None
    quotes: list[BundleQuote] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Its quotes, located in the run's documents (as the bundle's own are)."""
    problem: str | None = Field(default=None, max_length=MAX_NAME_CHARS)


class BundleUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    llm_calls: int = 0
    cost_usd: float | None = None
    unknown_cost_calls: int = 0
    """Calls whose model had no known price, left out of ``cost_usd``."""
    estimated_calls: int = 0
    """Calls whose tokens are a tokenizer's estimate (their server reported no usage)."""


class EvidenceBundle(BaseModel):
    """A session's answer, its claims and quotes with their locations, its sources with
    their hashes, and how it was produced and judged."""

    bundle_version: Literal[1] = BUNDLE_VERSION
    generator: Name
    """``ralph-tui <version>``."""
    created_at: float
    session_id: Name
    mode: Literal["qa", "task"]
    query: str = Field(max_length=MAX_TEXT_CHARS)
    status: RunStatus
    answer: str = Field(max_length=MAX_TEXT_CHARS)
    """The QA answer's lines, or the task's output."""
    claims: list[Claim] = Field(default_factory=list, max_length=MAX_ITEMS)
    quotes: list[BundleQuote] = Field(default_factory=list, max_length=MAX_ITEMS)
    passages: list[BundlePassage] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Each located quote in its surrounding text, as the source read when the bundle was
    made (none for a source that is gone or changed since the run)."""
    sources: list[BundleSource] = Field(default_factory=list, max_length=MAX_ITEMS)
    iterations: list[BundleIteration] = Field(default_factory=list, max_length=MAX_ITEMS)
    """Oldest first; the answer is the best iteration's."""
    reported_iteration: int | None = None
    """The iteration whose answer, claims, quotes and coverage these are: the one that
    passed, else the closest to passing (``None`` before any iteration ended)."""
    coverage: Coverage | None = None
    """What the answer's iteration read."""
    models: dict[str, str] = Field(default_factory=dict)
    """Model by role (``generate``, ``validate``, ...)."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """The session's recorded settings."""
    usage: BundleUsage = Field(default_factory=BundleUsage)
    children: list[BundleChild] = Field(default_factory=list, max_length=MAX_ITEMS)
    """The child agents the run's agents started, each tree in reading order (empty for a
    run without children)."""
    children_cut: bool = False
    """Some child agents, or some of their quotes, were left out: past the bundle's bounds
    (``MAX_ITEMS``) or past what one reading of the session folder goes through."""

    @model_validator(mode="after")
    def _child_quotes_bounded(self) -> Self:
        # Each child's list is bounded; so is their sum, so verify's work stays that of one
        # list of quotes however the tree is cut up.
        total = sum(len(child.quotes) for child in self.children)
        if total > MAX_ITEMS:
            raise ValueError(f"its children hold {total} quotes, more than {MAX_ITEMS}")
        return self
