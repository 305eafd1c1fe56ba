"""Start, resume or re-run a session: the one entry point both the CLI and the TUI use.

Input is checked before anything is written, so bad input leaves the out dir untouched.
Every event goes to the session's ``events.jsonl`` and to the caller's ``on_event``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.config import Settings, check_paths, misspelled_settings
from ralph_tui.config.inner_modes import InnerPick, resolve_inner
from ralph_tui.counts import counted
from ralph_tui.documents import Corpus, InputError, Limits, read_corpus
from ralph_tui.documents.cache import ExtractionCache
from ralph_tui.documents.corpus import OnProgress
from ralph_tui.errors import RunTimedOut
from ralph_tui.events import (
    BaseEvent,
    Emit,
    Notice,
    RunFinished,
    RunStarted,
    RunStatus,
    fan_out,
    stamped,
)
from ralph_tui.evidence import Claim, Coverage, QuoteLocation
from ralph_tui.external.run import ExternalDocs, check_external, gather_external
from ralph_tui.llm.factory import LLMClients, build_clients
from ralph_tui.llm.roles import role_window
from ralph_tui.llm.tokens import document_tokens
from ralph_tui.llm.usage import ModelUsage, UsageSnapshot
from ralph_tui.loops.context import LoopResult, LoopState, RunCancelled, RunContext
from ralph_tui.loops.decompose import run_decomposed
from ralph_tui.loops.endings import KEEPS_BEST, propagates, status_of, stop_message
from ralph_tui.loops.iteration import ended_with_best, reported_iteration
from ralph_tui.loops.qa import run_qa_loop
from ralph_tui.loops.requests import RunRequest, session_settings
from ralph_tui.loops.task import TaskSetup, run_task_loop
from ralph_tui.traces.models import InnerModeUsed, SessionRecord, usage_fields
from ralph_tui.traces.store import SessionHandle, TraceStore
from ralph_tui.variants.store import UnknownVariantError, resolve_variant

T = TypeVar("T")

if TYPE_CHECKING:
    import httpx2


@dataclass
class RunOutcome:
    """How a run ended, as the CLI, the app and the API report it."""

    status: RunStatus
    session_id: str
    iterations: int
    output: dict[str, Any] | None
    usage: UsageSnapshot
    error: str | None = None
    salvaged: bool = False
    quotes: list[QuoteLocation] = field(default_factory=list)
    """Where each evidence quote of ``output`` (QA), or each passage of the brief behind it
    (task), stands in its source."""
    claims: list[Claim] = field(default_factory=list)
    """The answer's lines with their quotes and verdicts (QA), or the output's lines with the
    passages they cite (task); those of the reported iteration."""
    coverage: Coverage | None = None
    """What the reported iteration read of the documents."""
    notes: list[str] = field(default_factory=list)
    """What a person should know about the documents read (and not read)."""

    def to_json(self) -> dict[str, Any]:
        """The outcome as ``--json`` prints it."""
        usage = self.usage.to_event()
        return {
            "status": self.status,
            "sessionId": self.session_id,
            "iterations": self.iterations,
            "output": self.output,
            "usage": {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "calls": usage.calls,
                "costUsd": usage.cost_usd,
                "unknownCostCalls": usage.unknown_cost_calls,
                "failedCalls": usage.failed_calls,
                "estimatedCalls": usage.estimated_calls,
                "savedCalls": usage.saved_calls,
                "savedInputTokens": usage.saved_input_tokens,
                "savedOutputTokens": usage.saved_output_tokens,
                "savedCostUsd": usage.saved_cost_usd,
            },
            "error": self.error,
            "salvaged": self.salvaged,
            "quotes": [quote.model_dump(mode="json") for quote in self.quotes],
            "claims": [claim.model_dump() for claim in self.claims],
            "coverage": self.coverage.model_dump() if self.coverage else None,
        }


def check_request(request: RunRequest, forward: _Forwarder | None = None) -> Corpus:
    """The documents, or ``InputError`` saying what is wrong and what to do."""
    if not request.query.strip():
        raise InputError("the query is empty: pass the question or task with --query")
    settings = check_paths(request.settings)
    return read_corpus(
        request.doc_specs(),
        Limits.of(settings),
        _conversion_progress(forward) if forward else None,
        extraction_cache(settings, forward.notice if forward else None),
        request.within,
    )


def extraction_cache(
    settings: Settings, on_notice: Callable[[str], None] | None = None
) -> ExtractionCache:
    """Where converted documents are kept: ``<out>/cache/documents``."""
    return ExtractionCache(settings.out_dir / "cache" / "documents", on_notice)


PROGRESS_EVERY_PAGES = 100
PROGRESS_EVERY_S = 5.0


def _conversion_progress(forward: _Forwarder) -> OnProgress:
    """Conversion progress as notices: every ``PROGRESS_EVERY_PAGES`` pages, or
    ``PROGRESS_EVERY_S`` seconds (OCR takes seconds a page), and at the end of a document
    of more than one page."""
    last = time.monotonic()

    def report(name: str, done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        due = done % PROGRESS_EVERY_PAGES == 0 or now - last >= PROGRESS_EVERY_S
        if total > 1 and (done == total or due):
            last = now
            forward(Notice(level="info", message=f"converting {name}: {done}/{total} pages"))

    return report


async def execute_run(
    request: RunRequest,
    *,
    on_event: Emit,
    cancel: asyncio.Event | None = None,
    http_client: httpx2.AsyncClient | None = None,
    resume_of: str | None = None,
) -> RunOutcome:
    """Run ``request`` to its end (passed, failed, cancelled, error) and record it."""
    request = with_variant(request)
    forward = _Forwarder(on_event)
    corpus = check_request(request, forward)
    external_urls = check_external(request.settings)
    inner = inner_of(request.settings, corpus)
    usage_writer = _UsageWriter()

    def on_usage(snapshot: UsageSnapshot) -> None:
        forward(snapshot.to_event())
        usage_writer(snapshot)

    clients = build_clients(
        request.settings, http_client=http_client, on_notice=forward.notice, on_usage=on_usage
    )
    for warning in [*misspelled_settings(), *corpus.notices()]:
        forward.notice(warning)
    store = TraceStore(request.settings.out_dir)
    handle = _open_session(store, request, corpus, resume_of, inner)
    clients.ledger.carry(earlier_usage(handle.record))
    usage_writer.attach(handle)
    forward.attach(stamped(fan_out(handle.append_event, on_event), handle.session_id))
    try:
        outcome = await _run_session(
            request, corpus, clients, handle, forward, cancel, external_urls, inner
        )
    finally:
        await clients.aclose()
    outcome.notes = corpus.notices()
    return outcome


def inner_of(settings: Settings, corpus: Corpus) -> InnerPick:
    """The inner mode the run explores in (``auto`` resolved by its rule); before any call,
    ``DirectDoesNotFit`` when ``direct`` is asked for documents the window cannot hold."""
    return resolve_inner(settings.inner, document_tokens(corpus.text), role_window(settings))


def with_variant(request: RunRequest) -> RunRequest:
    """The request with the variant it names, or the active one, applied to its settings;
    ``InputError`` for a variant the store does not hold."""
    try:
        settings = resolve_variant(request.settings)
    except UnknownVariantError as exc:
        raise InputError(str(exc)) from None
    return dataclasses.replace(request, settings=settings)


def _open_session(
    store: TraceStore,
    request: RunRequest,
    corpus: Corpus,
    resume_of: str | None,
    inner: InnerPick,
) -> SessionHandle:
    used = InnerModeUsed(mode=inner.mode, reason=inner.reason, chosen_by=inner.chosen_by)
    if resume_of is not None:
        handle = store.reopen_session(resume_of)
        handle.update_session(inner=used)
        return handle
    record = SessionRecord(
        inner=used,
        mode=request.mode,
        query=request.query,
        doc_path=str(request.doc_path.resolve()),
        doc_sha256=hashlib.sha256(corpus.text.encode("utf-8")).hexdigest(),
        doc_chars=len(corpus.text),
        settings=session_settings(request),
        parent_session_id=request.parent_session_id,
        documents=[document.record() for document in corpus.documents],
        skipped_files=corpus.skipped,
        failed_files=corpus.failed,
    )
    return store.create_session(record)


async def _run_session(
    request: RunRequest,
    corpus: Corpus,
    clients: LLMClients,
    handle: SessionHandle,
    emit: _Forwarder,
    cancel: asyncio.Event | None,
    external_urls: list[str] | None,
    inner: InnerPick,
) -> RunOutcome:
    settings = request.settings
    ctx = RunContext(
        inner=inner,
        settings=settings,
        clients=clients,
        document=corpus.text,
        corpus=corpus,
        doc_path=request.doc_path,
        query=request.query,
        emit=emit,
        traces=handle,
        cancel=cancel or asyncio.Event(),
        sub_cache=SubCallCache.for_run(
            settings.out_dir,
            settings.subcall_cache,
            handle.session_id,
            settings.subcall_cache_mb,
            emit.notice,
        ),
    )
    emit(
        RunStarted(
            mode=request.mode,
            query=request.query,
            doc_path=str(request.doc_path),
            doc_chars=len(corpus.text),
            max_iters=settings.max_iters,
            generate_model=_describe(clients.generate),
            validate_model=_describe(clients.validate),
            parent_session_id=request.parent_session_id,
            variant=settings.variant,
            inner=inner.mode,
            inner_reason=inner.reason if inner.chosen_by == "auto" else None,
        )
    )
    start = clients.ledger.snapshot().to_event()
    if start.calls or start.cost_usd is None:
        # The totals a front end starts from, where they are not "nothing, $0": a resumed
        # session's earlier legs, or a model without a price (its cost is unknown from the
        # first call on, however long that call takes).
        emit(start)
    stop: BaseException | None = None
    try:
        result = await _run_to_end(ctx, request, handle, external_urls)
    except BaseException as exc:
        stop = exc
        result = _ended_by(exc, handle)
    finally:
        if ctx.sub_cache is not None:
            ctx.sub_cache.close()
    outcome = _close_session(handle, clients, result, emit)
    if stop is not None and propagates(stop):
        raise stop
    evidence = (outcome.output or {}).get("evidence")
    if isinstance(evidence, list):
        outcome.quotes = ctx.quote_locations([str(quote) for quote in evidence])
    reported = reported_iteration(handle.store.iterations(handle.session_id), outcome.output)
    if reported is not None:
        outcome.claims = reported.claims
        outcome.coverage = reported.coverage
        if not isinstance(evidence, list):
            outcome.quotes = reported.quotes  # a task's: where its brief's passages stand
    return outcome


async def _run_to_end(
    ctx: RunContext, request: RunRequest, handle: SessionHandle, external_urls: list[str] | None
) -> LoopResult:
    """Crawl the external docs, then run the loop, within the run's ``--timeout``."""
    timeout_s = ctx.settings.run_timeout_s
    deadline = asyncio.timeout(timeout_s)
    try:
        async with deadline:
            if external_urls:
                ctx.external = await _until_cancelled(
                    _crawl_external(ctx, handle, external_urls), ctx.cancel
                )
            return await _until_cancelled(_dispatch(ctx, request, handle), ctx.cancel)
    except TimeoutError:
        if deadline.expired():
            raise RunTimedOut(f"the run passed its --timeout of {timeout_s:g} s") from None
        raise


def _ended_by(stop: BaseException, handle: SessionHandle) -> LoopResult:
    """How the run ends when ``stop`` stopped it: its status from the one table, with the
    best candidate recorded so far where that status keeps one."""
    status = status_of(stop)
    if status in KEEPS_BEST:
        return best_recorded(handle, status, stop_message(stop))
    return LoopResult(status, handle.record.iterations, None, stop_message(stop))


async def _crawl_external(ctx: RunContext, handle: SessionHandle, urls: list[str]) -> ExternalDocs:
    """Crawl the external docs before the first iteration; what was kept and left out goes
    into the session record, and the run goes on whatever failed."""
    docs = await gather_external(ctx.settings, urls, ctx.emit, summariser=ctx.clients.generate)
    handle.update_session(external=docs.to_json())
    for note in docs.notes:
        ctx.emit(Notice(level="warning", message=note))
    for report in docs.reports:
        ctx.emit(
            Notice(
                level="info" if report.pages else "warning",
                message=f"external docs {report.source}: {counted(len(report.pages), 'page')} "
                f"({report.fetched} fetched, {report.from_cache} from the cache), "
                f"{len(report.failed)} failed, {len(report.skipped)} skipped",
            )
        )
        for url, reason in report.failed:
            ctx.emit(Notice(level="warning", message=f"external page not used: {url}: {reason}"))
    return docs


async def _until_cancelled(work: Coroutine[Any, Any, T], cancel: asyncio.Event) -> T:
    """Await ``work``, stopping it wherever it is (an LLM request, a sandbox cell, a sub-call)
    as soon as ``cancel`` is set: its task is cancelled, so every await point is a stop point,
    and the agents' ``async with`` blocks close their requests and sandboxes on the way out."""
    task = asyncio.ensure_future(work)
    cancelled = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, cancelled}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        cancelled.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        raise RunCancelled("cancelled by the user")
    return task.result()


async def _dispatch(ctx: RunContext, request: RunRequest, handle: SessionHandle) -> LoopResult:
    state = LoopState(
        next_iteration=request.start_iteration,
        constraints=list(request.constraints),
        previous_output=request.previous_output,
    )
    if request.mode == "qa":
        return await run_qa_loop(ctx, state)
    mem_path = ctx.settings.mem_file or handle.folder / "context.md"
    setup = TaskSetup(mem_path=mem_path)
    if request.decompose:
        return await run_decomposed(ctx, setup, handle.subtask)
    return await run_task_loop(ctx, setup, state)


def best_recorded(handle: SessionHandle, status: RunStatus, error: str) -> LoopResult:
    """A run stopped early (``timed_out``, ``capped``) with the best candidate its iteration
    files hold, earlier legs included."""
    traces = handle.store.iterations(handle.session_id)
    return ended_with_best(status, handle.record.iterations, traces, error)


def earlier_usage(record: SessionRecord) -> ModelUsage:
    """What the session's earlier legs used, as the ledger counts it (zero for a new one)."""
    cost_known = record.cost_usd is not None
    return dataclasses.replace(
        record.subcall_cache_saved.in_ledger(),
        input_tokens=record.input_tokens,
        output_tokens=record.output_tokens,
        calls=record.llm_calls,
        cost_usd=record.cost_usd or 0.0,
        # A record from before unknown_cost_calls was kept says only whether any was known.
        unknown_cost_calls=record.unknown_cost_calls if cost_known else record.llm_calls,
        priced_calls=record.llm_calls - record.unknown_cost_calls if cost_known else 0,
        estimated_calls=record.estimated_calls,
    )


class _UsageWriter:
    """Writes the session's usage as the run goes (at most once per ``interval_s``), so a
    crashed or killed session still shows what it spent."""

    def __init__(self, interval_s: float = 1.0) -> None:
        self.interval_s = interval_s
        self._handle: SessionHandle | None = None
        self._last = 0.0

    def attach(self, handle: SessionHandle) -> None:
        self._handle = handle

    def __call__(self, usage: UsageSnapshot) -> None:
        now = time.monotonic()
        if self._handle is None or now - self._last < self.interval_s:
            return
        self._last = now
        self._handle.update_session(**usage_fields(usage))


def _close_session(
    handle: SessionHandle,
    clients: LLMClients,
    result: LoopResult,
    emit: Emit,
) -> RunOutcome:
    usage = clients.ledger.snapshot()
    handle.finish(
        result.status,
        iterations=result.iterations,
        error=result.error,
        **usage_fields(usage),
    )
    emit(
        RunFinished(
            status=result.status,
            iterations=result.iterations,
            output=result.output,
            error=result.error,
            salvaged=result.salvaged,
        )
    )
    return RunOutcome(
        status=result.status,
        session_id=handle.session_id,
        iterations=result.iterations,
        output=result.output,
        usage=usage,
        error=result.error,
        salvaged=result.salvaged,
    )


def _describe(client: Any) -> str:
    return f"{client.provider}:{client.model}"


class _Forwarder:
    """An ``Emit`` that buffers events until the session exists, then forwards them."""

    def __init__(self, early: Emit) -> None:
        self._target: Emit | None = None
        self._early = early
        self._pending: list[BaseEvent] = []

    def attach(self, target: Emit) -> None:
        self._target = target
        for event in self._pending:
            target(event)
        self._pending.clear()

    def notice(self, message: str) -> None:
        self(Notice(level="warning", message=message))

    def __call__(self, event: BaseEvent) -> None:
        if self._target is None:
            self._pending.append(event)
        else:
            self._target(event)
