"""The evidence bundle: one session's answer with everything needed to check it later,
as a versioned JSON document (its schema is published in the docs)."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from ralph_tui.events import JudgeIssue, RuleResult, RunStatus
from ralph_tui.evidence import Claim, Coverage, QuoteLocation, Span

BUNDLE_VERSION: Final = 1
"""Raised whenever a field changes meaning or goes away (a field added keeps it)."""


class BundleSource(BaseModel):
    """A document or an external page the quotes come from."""

    name: str
    """As quotes name it (``QuoteLocation.source``)."""
    kind: Literal["file", "page"]
    path: str | None = None
    """A file's absolute path when the run read it."""
    url: str | None = None
    """An external page's URL."""
    sha256: str | None = None
    """Of the file's bytes as the run read them."""
    format: str | None = None
    converter: str = ""
    """What turned it into text, with its version (``pypdfium2 4.30.0``)."""
    pages: int | None = None
    page_spans: list[Span] = Field(default_factory=list)
    """Each page's span in the document's text (a PDF), as the source reads now; empty when
    it has no pages or could not be read."""
    fetched_at: float | None = None
    """An external page's fetch time (seconds since the epoch)."""


class BundlePassage(BaseModel):
    """The text around one quote in its source, so a reader sees the quote in its place."""

    quote: int
    """The quote's number (``QuoteLocation.number``)."""
    text: str
    """The passage: the quote with the paragraphs (or a few hundred characters) around it."""
    start: int
    """The quote's span within ``text``."""
    end: int


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


class BundleUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    llm_calls: int = 0
    cost_usd: float | None = None


class EvidenceBundle(BaseModel):
    """A session's answer, its claims and quotes with their locations, its sources with
    their hashes, and how it was produced and judged."""

    bundle_version: Literal[1] = BUNDLE_VERSION
    generator: str
    """``ralph-tui <version>``."""
    created_at: float
    session_id: str
    mode: Literal["qa", "task"]
    query: str
    status: RunStatus
    answer: str
    """The QA answer's lines, or the task's output."""
    claims: list[Claim] = Field(default_factory=list)
    quotes: list[QuoteLocation] = Field(default_factory=list)
    passages: list[BundlePassage] = Field(default_factory=list)
    """Each located quote in its surrounding text, as the source read when the bundle was
    made (none for a source that is gone or changed since the run)."""
    sources: list[BundleSource] = Field(default_factory=list)
    iterations: list[BundleIteration] = Field(default_factory=list)
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
