"""Typed run events: the one seam between the loops and every front end.

Loops report everything they do by calling an ``Emit`` callable with one of the
events below. The TUI turns them into widget updates, the headless CLI prints
them, and the trace store appends each as one JSON line to the session's
``events.jsonl`` (which is also how a finished or running session is replayed).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from ralph_tui.errors import OUTCOMES, ExitCode, RalphError, outcome_of
from ralph_tui.evidence import Claim, Coverage, QuoteLocation, Span
from ralph_tui.json_input import parse_json
from ralph_tui.redact import redact_urls

Said = Annotated[str, AfterValidator(redact_urls)]
"""What the product says about a run (a notice, why something failed): it may quote a URL
the user gave, with a password in it, and is shown and recorded with that hidden."""

Phase = Literal[
    "worker", "doc_reader", "reasoner", "judge", "memory", "decompose", "aggregate", "compact"
]
StepAction = Literal["output", "code", "tools", "nudge", "invalid", "stuck", "fallback"]
RunStatus = Literal[
    "running", "passed", "failed", "timed_out", "capped", "cancelled", "crashed", "error"
]
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)
"""Every status, in the order lists and filters show them. ``timed_out`` (``--timeout``) and
``capped`` (a cost or token cap) end a run early with its best candidate, like ``failed``."""

KIND_OF_STATUS: dict[RunStatus, type[RalphError]] = {}
"""The kind of error that ends a run with each status a run does not reach on its own terms
(passed, failed): the first of ``errors.OUTCOMES`` with that status."""
for _kind, _outcome in OUTCOMES.items():
    if issubclass(_kind, RalphError) and _outcome.status in RUN_STATUSES:
        KIND_OF_STATUS.setdefault(_outcome.status, _kind)

ERROR_OF_STATUS: dict[RunStatus, type[RalphError]] = {
    status: kind for status, kind in KIND_OF_STATUS.items() if outcome_of(kind).is_error
}
"""The kind of error a run that ended with each of these statuses reports (the command
line's error line, the app's error modal); every other status is an ending on the run's own
terms."""

_EXIT_CODES: dict[RunStatus, ExitCode] = {
    "passed": ExitCode.OK,
    "failed": ExitCode.FAILED,
    "running": ExitCode.INTERNAL,
    **{status: outcome_of(kind).exit_code for status, kind in KIND_OF_STATUS.items()},
}
EXIT_CODE_OF_STATUS: dict[RunStatus, ExitCode] = {s: _EXIT_CODES[s] for s in RUN_STATUSES}
"""What the command line exits with after a run that ended with each status (a run still
``running`` at its end is a bug)."""


class BaseEvent(BaseModel):
    """Fields every event carries: when it happened and which session it belongs to."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    ts: float = Field(default_factory=time.time)
    """When it happened (seconds since the epoch)."""
    session_id: str = ""
    """The session it belongs to (set as it is recorded)."""
    transient: ClassVar[bool] = False
    """Shown live only: never written to a session's ``events.jsonl`` (what it shows is
    recorded whole by the events that follow it)."""


class RunStarted(BaseEvent):
    type: Literal["run_started"] = "run_started"
    mode: Literal["qa", "task"]
    """``qa`` (an answer with evidence) or ``task``."""
    query: str
    """The question or the task."""
    doc_path: str
    """The first document given (``--doc``)."""
    doc_chars: int
    """Characters of all the run's documents together."""
    max_iters: int
    """Outer-loop iterations at most."""
    generate_model: str
    """``provider:model`` of the generate role."""
    validate_model: str
    """``provider:model`` of the validate role (the judges)."""
    parent_session_id: str | None = None
    """The session this one re-runs or continues, if any."""
    variant: str | None = None
    """The configuration variant the run uses (``None``: the baseline settings)."""
    inner: str | None = None
    """The inner mode the exploring roles run in: ``rlm``, ``lcm`` or ``direct``."""
    inner_reason: str | None = None
    """Why that mode: the setting named it, or what ``auto`` weighed."""


class IterationStarted(BaseEvent):
    type: Literal["iteration_started"] = "iteration_started"
    iteration: int
    max_iters: int
    constraints: list[str] = Field(default_factory=list)
    """The constraints in force for this iteration."""
    subtask_id: str | None = None
    """The sub-task it belongs to, in a decomposed run."""


class PhaseStarted(BaseEvent):
    type: Literal["phase_started"] = "phase_started"
    iteration: int
    phase: Phase


class PhaseFinished(BaseEvent):
    type: Literal["phase_finished"] = "phase_finished"
    iteration: int
    phase: Phase
    duration_ms: float
    """How long the phase took."""
    error: Said | None = None
    """Why the phase failed, if it did (the iteration then fails)."""


class AgentStep(BaseEvent):
    """One turn of an agent loop (structured or RLM)."""

    type: Literal["agent_step"] = "agent_step"
    agent: str
    """Which agent: ``worker``, ``doc_reader``, a judge..."""
    step: int
    max_steps: int
    action: StepAction
    """What the step did: ``code``, ``tools``, ``output``, ``nudge``, ``invalid``, ``fallback``;
    ``stuck`` when the agent stopped early, its turns the same ``STUCK_REPEATS`` times in a
    row (``detail`` says what it kept doing)."""
    detail: str = ""
    """A line on what happened."""


class ModelTurnPartial(BaseEvent):
    """A model turn still arriving: what the model has written so far. Sent while a turn
    streams, at most every ``PARTIAL_INTERVAL_S`` per request; transient (the whole turn is
    recorded as the agent step, cell or verdict it becomes)."""

    type: Literal["model_turn_partial"] = "model_turn_partial"
    transient: ClassVar[bool] = True
    agent: str
    step: int
    text: str = ""
    """The turn's text so far."""
    tool: str = ""
    """The tool being called ('' before any call)."""
    arguments: str = ""
    """That call's JSON arguments so far (incomplete JSON while it streams)."""
    first_token_ms: float
    """Time from sending the request to the turn's first piece."""


class SandboxExecuted(BaseEvent):
    type: Literal["sandbox_executed"] = "sandbox_executed"
    agent: str
    step: int
    code: str
    """The cell's code, as the model wrote it."""
    output: str
    """What the cell printed (cut to head and tail past the limit)."""
    error: str | None = None
    """The exception the cell raised, if any."""
    timed_out: bool = False
    """The cell ran past its time limit and was interrupted."""
    restarted: bool = False
    """The child was killed and restarted: its state is gone."""
    duration_ms: float
    isolation: str | None = None
    """The sandbox's isolation: ``bwrap``, ``unshare-net`` or ``rlimits-only``."""


class ToolExecuted(BaseEvent):
    """The LCM agent called one of its tools (an operator): what it asked, what came back."""

    type: Literal["tool_executed"] = "tool_executed"
    agent: str
    step: int
    tool: str
    arguments: str
    result: str
    ok: bool = True
    duration_ms: float = 0.0


class SubQuery(BaseEvent):
    """One ``llm_query`` call made from sandbox code."""

    type: Literal["sub_query"] = "sub_query"
    agent: str
    prompt_preview: str
    """The start of the prompt."""
    answer_preview: str
    """The start of the answer."""
    latency_ms: float
    input_tokens: int = 0
    output_tokens: int = 0
    error: Said | None = None
    calls_used: int = 0
    """Sub-calls used so far this iteration, against ``calls_budget``."""
    calls_budget: int = 0
    cached: bool = False
    """Answered from the sub-call cache: nothing was sent or paid; the tokens are what the
    answer took when it was first paid for."""


ChildStatus = Literal["answered", "salvaged", "failed", "llm_query"]
"""How a child agent ended: it submitted an answer, ran out of steps and had one salvaged,
failed (its error went back to its parent's code), or was not started because its parent
is at the deepest level (``--max-depth``) and ``llm_query`` answered instead."""


class ChildStarted(BaseEvent):
    """``rlm_query`` from an agent's sandbox code started a child agent (its own sandbox,
    the run's budgets, its steps taken from its tree's)."""

    type: Literal["child_started"] = "child_started"
    agent: str
    """The parent agent."""
    child: str
    """The child's agent name, the parent's with ``/<step>.<n>`` added: its events carry it."""
    step: int
    """The parent's step whose code started it."""
    depth: int
    """The child's level: the root agent is 1."""
    prompt_preview: str
    context: str
    """What the child explores, for a person: ``2 documents: a.md, b.md``."""
    folder: str = ""
    """Where its transcript is kept, relative to the session folder (empty: not kept)."""
    calls_used: int = 0
    """Sub-calls of the tree used so far, this child's start among them (as ``SubQuery``'s;
    0 at the deepest level, where its ``llm_query`` reports them)."""
    calls_budget: int = 0


class ChildFinished(BaseEvent):
    """A child agent started by ``rlm_query`` ended; what it returned went to its parent's
    code."""

    type: Literal["child_finished"] = "child_finished"
    agent: str
    child: str
    step: int
    depth: int
    status: ChildStatus
    answer_preview: str = ""
    error: Said | None = None
    steps: int = 0
    duration_ms: float = 0.0


class RuleResult(BaseModel):
    name: str
    ok: bool
    message: str = ""


class HardValidation(BaseEvent):
    type: Literal["hard_validation"] = "hard_validation"
    iteration: int
    ok: bool
    rules: list[RuleResult]
    """Each deterministic check, passed or not, with its message."""


class JudgeIssue(BaseModel):
    message: str
    category: str | None = None


class JudgeVerdict(BaseEvent):
    type: Literal["judge_verdict"] = "judge_verdict"
    iteration: int
    ok: bool
    issues: list[JudgeIssue] = Field(default_factory=list)
    """What the judge found wrong (task mode: each with its category)."""
    claims: list[Claim] = Field(default_factory=list)
    """QA: each answer line with its quotes and the judge's verdict on it."""


class CandidateProduced(BaseEvent):
    """The generate phase's candidate for this iteration (before validation)."""

    type: Literal["candidate_produced"] = "candidate_produced"
    iteration: int
    output: dict[str, object]
    """The candidate, as the output tool gave it."""
    fallback: bool = False
    """Salvaged after the worker ran out of steps: never a pass."""
    quotes: list[QuoteLocation] = Field(default_factory=list)
    """QA: where each evidence quote stands in its source."""
    claims: list[Claim] = Field(default_factory=list)
    """QA: each answer line with the quotes the candidate links to it (not judged yet)."""


class IterationFinished(BaseEvent):
    type: Literal["iteration_finished"] = "iteration_finished"
    iteration: int
    passed: bool
    failure_tag: str | None = None
    """Why it failed where a phase failed (``worker_error``, ``judge_error``...)."""
    next_constraints: list[str] = Field(default_factory=list)
    """The constraints the next iteration gets from this one's failures."""


class MemoryUpdated(BaseEvent):
    type: Literal["memory_updated"] = "memory_updated"
    path: str
    """The memory file (task mode)."""
    chars: int
    """Its size after the update."""
    trimmed_blocks: int = 0
    compacted: bool = False
    """The update compacted older episodes."""


class UsageUpdated(BaseEvent):
    type: Literal["usage_updated"] = "usage_updated"
    input_tokens: int
    output_tokens: int
    calls: int
    """Requests sent, retries and failed ones included."""
    cost_usd: float | None
    """Known cost so far (``None``: no call had a known price)."""
    cost_cap_usd: float | None = None
    unknown_cost_calls: int = 0
    """Calls whose model has no known price: ``cost_usd`` leaves them out."""
    failed_calls: int = 0
    """Requests that failed (in ``calls``; they cost nothing and say nothing of prices)."""
    estimated_calls: int = 0
    """Calls whose server reported no usage: their tokens (and cost) are a tokenizer's
    estimate, not what the provider reported."""
    cache_read_tokens: int | None = None
    """Input tokens served from the providers' prompt caches (``None``: none reported)."""
    saved_calls: int = 0
    """Sub-calls answered from the sub-call cache: not sent, not paid, not in ``calls``."""
    saved_input_tokens: int = 0
    """The input tokens those answers took when first paid for."""
    saved_output_tokens: int = 0
    saved_cost_usd: float | None = 0.0
    """What they cost when first paid for (``None``: no saved call had a known price)."""


class Heartbeat(BaseEvent):
    type: Literal["heartbeat"] = "heartbeat"
    phase: str
    elapsed_ms: float
    """How long the phase has been running."""


class Notice(BaseEvent):
    """Something a person should see: a warning, a fallback taken, a retry."""

    type: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    message: Said


class IndexProgress(BaseEvent):
    """The retrieval index of the run's documents being built: a stage and how far it is."""

    type: Literal["index_progress"] = "index_progress"
    stage: str
    """``chunks``, ``words``, ``lexical``, ``vectors``, or ``ready`` (then ``figures``)."""
    done: int
    total: int
    figures: dict[str, object] | None = None


class SummaryNode(BaseModel):
    """One summary of an agent's context, as the Context tab shows it."""

    id: str
    kind: Literal["leaf", "condensed"]
    depth: int
    first: int
    last: int
    tokens: int
    covers: list[str] = Field(default_factory=list)
    text: str = ""


class ContextCompacted(BaseEvent):
    """An agent's active context was compacted (or could not be brought under its target)."""

    type: Literal["context_compacted"] = "context_compacted"
    agent: str
    status: Literal["compacted", "exhausted"]
    before_tokens: int
    after_tokens: int
    summaries: list[str] = Field(default_factory=list)
    levels: list[int] = Field(default_factory=list)
    """The compaction level of each summary written: 1 detailed, 2 bullets, 3 truncation."""
    reason: str = ""
    dag: list[SummaryNode] = Field(default_factory=list)
    """Every summary of the context so far; ``top`` are those in the active context."""
    top: list[str] = Field(default_factory=list)
    store: str = ""
    """The file keeping every message of the conversation whole (none when not kept)."""


class OperatorCalled(BaseEvent):
    """Sandbox code called a context operator (``grep``, ``expand``, ``llm_map``)."""

    type: Literal["operator_called"] = "operator_called"
    agent: str
    operator: str
    detail: str
    """What was asked and what came back, in a line."""
    calls: int = 0
    """Sub-model calls it made."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    """Known cost of its calls (``None``: a call's price is unknown)."""
    latency_ms: float = 0.0


class ContextSize(BaseEvent):
    """The size of an agent's active context before a step, against its budget."""

    type: Literal["context_size"] = "context_size"
    agent: str
    tokens: int
    soft: int
    hard: int
    messages: int
    summaries: int


class ExternalProgress(BaseEvent):
    """An external documentation source being crawled: its pages so far."""

    type: Literal["external_progress"] = "external_progress"
    source: Said
    kept: int
    """Pages with text to search (fetched or from the cache)."""
    fetched: int
    from_cache: int
    queued: int
    failed: int
    skipped: int
    done: bool = False
    pages: list[str] = Field(default_factory=list)
    """Once done: the URLs of the pages kept (their text is in ``cache_dir``)."""
    cache_dir: str | None = None


class RetrievedPassage(BaseModel):
    id: str
    source: Literal["doc", "episode", "external"]
    label: str
    text: str
    span: list[int] | None = None
    url: str | None = None
    document: str | None = None
    page: int | None = None
    """The page it is labelled with: the one holding most of its text."""
    pages: list[int] = Field(default_factory=list)
    """Every page it spans, in order."""
    ocr: bool = False
    """Whether any of its text was read by OCR (a scanned page, an image)."""
    ranks: dict[str, int] = Field(default_factory=dict)
    scores: dict[str, float] = Field(default_factory=dict)


class RetrievalDone(BaseEvent):
    """A search ran: before the DocReader (``prephase``) or from sandbox code (``sandbox``)."""

    type: Literal["retrieval"] = "retrieval"
    iteration: int
    origin: Literal["prephase", "sandbox"]
    query: str
    passages: list[RetrievedPassage] = Field(default_factory=list)
    diagnostics: dict[str, object] = Field(default_factory=dict)


ReadVia = Literal["cell", "grep", "read", "llm_map", "retrieve", "prompt"]
"""How the text was read (``prompt``: placed whole in the prompt, the ``direct`` mode)."""


class TextRead(BaseEvent):
    """Spans of the run's joined text (``context``) an agent looked at, and what it searched
    that text for: a sandbox cell's slices, ``grep`` hits, a ``read`` window, ``llm_map``
    spans, ``retrieve`` passages. The loop folds these into ``CoverageUpdated``."""

    type: Literal["text_read"] = "text_read"
    agent: str
    via: ReadVia
    spans: list[Span] = Field(default_factory=list)
    searches: list[str] = Field(default_factory=list)


class CoverageUpdated(BaseEvent):
    """What the iteration has read of the documents so far (sent as it grows, at a bounded
    rate, and once when the generate phase ends)."""

    type: Literal["coverage_updated"] = "coverage_updated"
    iteration: int
    coverage: Coverage


class RunFinished(BaseEvent):
    type: Literal["run_finished"] = "run_finished"
    status: RunStatus
    """How the run ended; its exit code is ``EXIT_CODE_OF_STATUS[status]``."""
    iterations: int
    output: dict[str, object] | None = None
    """The best candidate, if there is one."""
    error: Said | None = None
    """What stopped the run, when something did."""
    salvaged: bool = False
    """``output`` is a salvage (see ``SALVAGE_NOTE``), not a verified candidate."""


SALVAGE_NOTE = (
    "salvage: the agent ran out of steps, and this output was extracted afterwards from what "
    "its exploration returned; it is not verified"
)
"""What every view says of a salvaged candidate (the ``fallback`` of an iteration)."""


Event = Annotated[
    RunStarted
    | IterationStarted
    | PhaseStarted
    | PhaseFinished
    | AgentStep
    | ModelTurnPartial
    | SandboxExecuted
    | ToolExecuted
    | SubQuery
    | ChildStarted
    | ChildFinished
    | HardValidation
    | JudgeVerdict
    | CandidateProduced
    | IterationFinished
    | MemoryUpdated
    | UsageUpdated
    | Heartbeat
    | Notice
    | IndexProgress
    | ExternalProgress
    | ContextCompacted
    | ContextSize
    | OperatorCalled
    | RetrievalDone
    | TextRead
    | CoverageUpdated
    | RunFinished,
    Field(discriminator="type"),
]

Emit = Callable[[BaseEvent], None]


@functools.cache
def _event_adapter() -> TypeAdapter[Event]:
    """The validator of any event, built on first use (building it costs the import time)."""
    return TypeAdapter(Event)


def event_to_json(event: BaseEvent) -> str:
    """One event as one JSON line (no trailing newline)."""
    return event.model_dump_json()


MAX_EVENT_LINE_BYTES = 16 * 2**20
"""The longest event line read back; a session's ``events.jsonl`` may come from someone else."""


def event_from_json(line: str | bytes) -> BaseEvent:
    """Parse a line written by ``event_to_json`` back into its typed event; a ``ValueError``
    (``JsonRefused`` for a line past the bounds of ``parse_json``) when it is none."""
    return _event_adapter().validate_python(
        parse_json(line, "an event line", max_bytes=MAX_EVENT_LINE_BYTES)
    )


def discard(_event: BaseEvent) -> None:
    """An ``Emit`` that drops every event, for callers that do not listen."""


def stamped(emit: Emit, session_id: str) -> Emit:
    """Wrap ``emit`` so every event carries ``session_id``."""

    def emit_with_session(event: BaseEvent) -> None:
        emit(event if event.session_id else event.model_copy(update={"session_id": session_id}))

    return emit_with_session


def fan_out(*sinks: Emit) -> Emit:
    """An ``Emit`` that forwards each event to every sink in order."""

    def emit_all(event: BaseEvent) -> None:
        for sink in sinks:
            sink(event)

    return emit_all
