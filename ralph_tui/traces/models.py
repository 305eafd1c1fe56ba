"""What the trace files hold: a session's record and each iteration's trace.

Both models accept and keep unknown fields (``extra="allow"``) so a loop can
record more than is listed here, and both accept snake_case or camelCase keys.
``IterationTrace`` writes the seed-style camelCase keys (``hardValidation``,
``failureTag``, ``briefLen``...); ``SessionRecord`` writes snake_case.
Timestamps are Unix seconds (like ``BaseEvent.ts``).
"""

from __future__ import annotations

import os
import socket
import time
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from ralph_tui.events import RUN_STATUSES, JudgeIssue, RuleResult, RunStatus, Said
from ralph_tui.evidence import Claim, Coverage, QuoteLocation
from ralph_tui.llm.spend_words import describe_saved
from ralph_tui.llm.usage import ModelUsage, UsageSnapshot

LAST_SECOND = 253_402_300_799.0
"""9999-12-31 23:59:59 UTC, the last moment a date can show."""
Timestamp = Annotated[float, Field(ge=0, le=LAST_SECOND)]
"""A moment in seconds since the epoch that a date can show (a session folder may come from
someone else: ``1e300`` would end a listing in an OverflowError)."""

FINISHED_STATUSES: frozenset[str] = frozenset(RUN_STATUSES) - {"running"}


class CacheSaving(BaseModel):
    """What the sub-call cache saved a run: the sub-calls it answered instead of sending
    them, and the tokens and cost those answers took when they were first paid for."""

    calls: int = 0
    """Sub-calls answered from the cache: not sent, not paid."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    """The known cost of the saved calls (``None`` when none of them had a known price)."""

    @classmethod
    def of(cls, usage: UsageSnapshot) -> CacheSaving:
        """The saving the ledger's ``usage`` counts."""
        event = usage.to_event()
        return cls(
            calls=event.saved_calls,
            input_tokens=event.saved_input_tokens,
            output_tokens=event.saved_output_tokens,
            cost_usd=event.saved_cost_usd,
        )

    def in_ledger(self) -> ModelUsage:
        """The saving as the ledger counts it, for a resumed session to carry on from."""
        return ModelUsage(
            saved_calls=self.calls,
            saved_input_tokens=self.input_tokens,
            saved_output_tokens=self.output_tokens,
            saved_cost_usd=self.cost_usd or 0.0,
            saved_unknown_cost_calls=self.calls if self.cost_usd is None else 0,
        )

    def describe(self) -> str:
        """``sub-call cache saved 12 calls, 30,000 tokens in / 1,200 out, $0.0061``."""
        return describe_saved(self.calls, self.input_tokens, self.output_tokens, self.cost_usd)


class InnerModeUsed(BaseModel):
    """The inner mode a session's exploring roles ran in, and why: the setting asked for
    it, or ``auto`` chose it from the documents' size against the model's window."""

    mode: str
    """``rlm``, ``lcm`` or ``direct``."""
    reason: str
    """Why this mode, in one line."""
    chosen_by: str = "setting"
    """``setting`` (``--inner`` named it) or ``auto``."""

    def describe(self) -> str:
        """``rlm`` as the setting named it, ``direct (auto: the documents ... take 1% of
        the 200,000-token window: ...)`` as ``auto`` chose it."""
        return f"{self.mode} (auto: {self.reason})" if self.chosen_by == "auto" else self.mode


class SessionRecord(BaseModel):
    """One run: what was asked of which document, with which settings, and how it went.

    ``pid`` and ``host`` name the process currently writing the session, so a
    reader can tell a live ``running`` session from one whose writer died.
    A sub-task of a decomposed run is a session too, with ``subtask_of`` set.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    session_id: str = ""
    """``YYYY-MM-DD/<mode>-<hash8>[-N]``, and ``/subtask-<id>`` for a sub-task."""
    mode: str
    """``qa`` or ``task``."""
    query: str
    """The question or the task."""
    doc_path: str = ""
    """The (first) document's path."""
    doc_sha256: str = ""
    """The SHA-256 of the documents' text."""
    doc_chars: int = 0
    """The length of the documents' text, in characters."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Every recorded setting, by its camelCase name."""
    parent_session_id: str | None = None
    """The session this one re-runs, if it does."""
    status: RunStatus = "running"
    created_at: Timestamp = Field(default_factory=time.time)
    updated_at: Timestamp = Field(default_factory=time.time)
    finished_at: Timestamp | None = None
    iterations: int = 0
    """Iterations completed."""
    duration_ms: float | None = None
    """How long the session ran, over all its legs (a ``--resume`` starts a new leg)."""
    leg_started_at: Timestamp | None = None
    """When the current leg started (``None``: at ``created_at``, the first leg)."""
    earlier_legs_ms: float = 0.0
    """How long the legs before the current one ran."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    """Known cost in US dollars (``None`` when no call had a known price)."""
    llm_calls: int = 0
    """Requests sent, over every leg of the session (as a server's log counts them)."""
    unknown_cost_calls: int = 0
    """Calls whose model had no known price: ``cost_usd`` leaves them out. (A session
    written before this was recorded reads 0; its ``cost_usd`` is ``None`` when none had.)"""
    estimated_calls: int = 0
    """Calls whose server reported no usage: their tokens (and cost) are a tokenizer's
    estimate. (A session written before this was recorded reads 0.)"""
    subcall_cache_saved: CacheSaving = Field(default_factory=CacheSaving)
    """What the sub-call cache saved over every leg of the session: calls not sent, so not
    counted in ``llm_calls``, the tokens or the cost."""
    error: Said | None = None
    """What stopped the run, when something did."""
    pid: int = Field(default_factory=os.getpid)
    """The process writing the session."""
    host: str = Field(default_factory=socket.gethostname)
    """The machine that process runs on."""
    subtask_of: str | None = None
    """A sub-task's session: the decomposed session it belongs to."""
    subtask_id: str | None = None
    """A sub-task's id within its decomposed session (``s1``, ``s2``...)."""
    skipped_files: list[str] = Field(default_factory=list)
    """Files the ``--doc`` folders held that are not documents ralph-tui reads."""
    failed_files: list[str] = Field(default_factory=list)
    """Documents that could not be read, each with why; the run went on without them."""
    inner: InnerModeUsed | None = None
    """The inner mode the run explored in, and why (``None``: a session recorded before
    sessions said so)."""

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def duration_until(self, moment: float) -> float:
        """The session's duration in ms were its current leg to end at ``moment``."""
        leg_start = self.leg_started_at or self.created_at
        return self.earlier_legs_ms + max(moment - leg_start, 0.0) * 1000


def usage_fields(usage: UsageSnapshot) -> dict[str, Any]:
    """The session record's usage fields for ``usage``."""
    event = usage.to_event()
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": event.cost_usd,
        "llm_calls": usage.calls,
        "unknown_cost_calls": usage.unknown_cost_calls,
        "estimated_calls": usage.estimated_calls,
        "cache_read_tokens": event.cache_read_tokens,
        "subcall_cache_saved": CacheSaving.of(usage),
    }


class HardValidationResult(BaseModel):
    """The deterministic checks of one iteration, rule by rule."""

    model_config = ConfigDict(extra="allow")

    ok: bool
    rules: list[RuleResult] = Field(default_factory=list)


class JudgeResult(BaseModel):
    """The LLM judge's verdict on one iteration's candidate."""

    model_config = ConfigDict(extra="allow")

    ok: bool
    issues: list[JudgeIssue] = Field(default_factory=list)

    @field_validator("issues", mode="before")
    @classmethod
    def _plain_strings_are_issues(cls, value: Any) -> Any:
        # The seeds' judges returned bare strings; keep such traces readable.
        if isinstance(value, list):
            return [{"message": item} if isinstance(item, str) else item for item in value]
        return value


def _older_location(number: int, quote: Any, sources: list[Any]) -> QuoteLocation:
    """A quote's location as an older trace's ``evidenceSources`` entry gives it."""
    source = sources[number - 1] if number <= len(sources) else None
    if not isinstance(source, dict):
        return QuoteLocation(number=number, text=str(quote), found="missing")
    return QuoteLocation(
        number=number,
        text=str(quote),
        found="exact",
        source=source.get("document"),
        page=source.get("page"),
        url=source.get("url"),
    )


class IterationTrace(BaseModel):
    """One outer-loop iteration: the ``iter-XX.json`` file of the seed layout."""

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, alias_generator=to_camel, serialize_by_alias=True
    )

    iteration: int
    """1 for the first."""
    query: str = Field(default="", validation_alias=AliasChoices("query", "task"))
    constraints: list[str] = Field(default_factory=list)
    """The constraints this iteration ran under."""
    output: dict[str, Any] = Field(default_factory=dict)
    """The candidate: ``answer`` and ``evidence`` (QA), ``output`` and ``memoryUpdate`` (task)."""
    hard_validation: HardValidationResult = Field(
        default_factory=lambda: HardValidationResult(ok=False)
    )
    """The deterministic checks, rule by rule."""
    judge: JudgeResult | None = None
    """The judge's verdict (``None`` when the judge gave none)."""
    passed: bool = False
    fallback: bool = False
    """The output was salvaged after the worker ran out of steps: never a pass."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Milliseconds of each phase (``workerMs``, ...)."""
    failure_tag: str | None = None
    """The phase that failed the iteration (``worker_error``, ``judge_error``, ...), if one did."""
    brief_len: int | None = None
    """Task mode: the DocReader's brief, in characters."""
    output_len: int | None = None
    feedback: list[str] = Field(default_factory=list)
    """The constraints this iteration hands to the next."""
    started_at: Timestamp | None = None
    finished_at: Timestamp | None = None
    quotes: list[QuoteLocation] = Field(default_factory=list)
    """QA: where each evidence quote of ``output`` stands in its source. Task: where each
    passage of the DocReader's brief stands (numbered as its ``[Pn]`` marker)."""
    claims: list[Claim] = Field(default_factory=list)
    """QA: each answer line with the quotes that back it and the judge's verdict on it.
    Task: each output line with the passages it cites (not judged line by line)."""
    coverage: Coverage | None = None
    """What the iteration read of the documents, and the searches it made."""

    @model_validator(mode="before")
    @classmethod
    def _quotes_of_older_traces(cls, data: Any) -> Any:
        # Traces written before quote locations kept ``evidenceSources``: one dict (or
        # None) per quote with its document, page and URL. Their spans were in the run's
        # joined text, not the document's, so they are not carried over.
        if not isinstance(data, dict) or data.get("quotes") or "evidenceSources" not in data:
            return data
        evidence = (data.get("output") or {}).get("evidence") or []
        sources = data.get("evidenceSources") or []
        quotes = [_older_location(n, quote, sources) for n, quote in enumerate(evidence, 1)]
        return {**data, "quotes": quotes}

    def to_json(self) -> str:
        return self.model_dump_json(indent=2, by_alias=True)

    def problems(self) -> int:
        """How far the candidate is from passing: failed rules plus judge issues."""
        failed_rules = sum(not rule.ok for rule in self.hard_validation.rules)
        return failed_rules + (len(self.judge.issues) if self.judge else 0)
