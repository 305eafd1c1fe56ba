"""What an outer loop needs to run: clients, settings, the document, events, traces, cancel."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from ralph_tui.agents.agent_run import AgentVariable, RLMResult, RLMSpec
from ralph_tui.agents.agent_tree import AgentTree
from ralph_tui.agents.direct import direct_agent_forward
from ralph_tui.agents.lcm_agent import lcm_agent_forward
from ralph_tui.agents.look import PageLook, no_images
from ralph_tui.agents.rlm import rlm_agent_forward
from ralph_tui.agents.structured import AgentSpec
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.config import Settings
from ralph_tui.config.inner_modes import InnerPick, resolve_inner
from ralph_tui.documents import Corpus
from ralph_tui.documents.corpus import Limits
from ralph_tui.documents.page_images import DocumentPages
from ralph_tui.errors import Cancelled
from ralph_tui.events import (
    Emit,
    Heartbeat,
    Notice,
    Phase,
    PhaseFinished,
    PhaseStarted,
    RunStatus,
)
from ralph_tui.evidence import Coverage, QuoteLocation
from ralph_tui.external.run import ExternalDocs
from ralph_tui.llm.factory import LLMClients
from ralph_tui.llm.offline import know_rarity
from ralph_tui.llm.tokens import document_tokens
from ralph_tui.loops.coverage import CoverageTracker, DocumentPlace, document_places
from ralph_tui.retrieval.run import SANDBOX_RETRIEVE_DOC, RunRetrieval
from ralph_tui.roles.budgets import prompted
from ralph_tui.traces.models import IterationTrace
from ralph_tui.validate.locate import QuotableText, corpus_texts, locate_quotes
from ralph_tui.validate.qa import Bounds

DOCUMENTS_VARIABLE = (
    "The documents `context` joins, in order: one dict per document with `name`, `path`, "
    "`format` (text, markdown, pdf, html, docx), `start` and `end` (its text is "
    "`context[d['start']:d['end']]`) and `pages` (for a PDF: one dict per page with `page`, "
    "`start`, `end` into `context`; empty otherwise) and `headings` (one dict per heading with "
    "`level`, `title`, `start` into `context`). Page 12 of the first document: "
    "`p = documents[0]['pages'][11]; context[p['start']:p['end']]`."
)


T = TypeVar("T", bound=BaseModel)

FORWARDS = {"rlm": rlm_agent_forward, "lcm": lcm_agent_forward, "direct": direct_agent_forward}
"""The agent loop of each inner mode."""


class RunCancelled(Cancelled):
    """The user cancelled the run; traces so far are kept."""


class IterationWriter(Protocol):
    """Where a loop writes each iteration's trace (a session, or one of its sub-tasks)."""

    folder: Path
    """Where the session (or sub-task) keeps its files."""

    def write_iteration(self, trace: IterationTrace) -> None: ...


@dataclass
class LoopResult:
    """How an outer loop ended: ``passed``, ``failed`` (best candidate kept), or stopped."""

    status: RunStatus
    iterations: int
    output: dict[str, Any] | None
    error: str | None = None
    salvaged: bool = False


@dataclass
class LoopState:
    """Where a loop starts: iteration 1 normally, later when resuming or re-running."""

    next_iteration: int = 1
    constraints: list[str] = field(default_factory=list)
    previous_output: dict[str, Any] | None = None
    doc_reader_hints: list[str] = field(default_factory=list)


@dataclass
class RunContext:
    settings: Settings
    clients: LLMClients
    document: str
    doc_path: Path
    query: str
    emit: Emit
    traces: IterationWriter
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    corpus: Corpus | None = None
    """The documents ``document`` joins, with where each (and each page) sits in it."""
    external: ExternalDocs = field(default_factory=ExternalDocs)
    """The external documentation crawled for the run (none unless asked for)."""
    sub_cache: SubCallCache | None = None
    """Where sub-calls find the answers already paid for (``None``: ``--subcall-cache off``)."""
    inner: InnerPick | None = None
    """The inner mode the exploring roles run in, and why (``None``: resolved from the
    settings on first use)."""
    _retrieval: RunRetrieval | None = field(default=None, init=False, repr=False)
    _retrieval_opening: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)
    _coverage: dict[int, CoverageTracker] = field(default_factory=dict, init=False, repr=False)
    _places: list[DocumentPlace] | None = field(default=None, init=False, repr=False)
    _look: PageLook | None = field(default=None, init=False, repr=False)
    _said_flat: bool = field(default=False, init=False, repr=False)
    """Whether the run said that its inner mode does not nest agents (said once)."""

    async def retrieval(self) -> RunRetrieval:
        """The run's retrieval, its index built (or loaded from the cache) on first use."""
        async with self._retrieval_opening:
            if self._retrieval is None:
                self._retrieval = await RunRetrieval.open(
                    self.document,
                    self.settings,
                    self.clients.embed,
                    table=self.corpus.table if self.corpus is not None else None,
                    emit=self.emit,
                    on_notice=self.notice,
                    external=self.external.passages,
                )
                table = self.corpus.table if self.corpus is not None else []
                names = [str(entry["name"]) for entry in table] or [self.doc_path.name]
                for client in (self.clients.generate, self.clients.validate):
                    know_rarity(client, self._retrieval.rarity, names)
        return self._retrieval

    async def explore(
        self,
        spec: RLMSpec[T],
        inputs: dict[str, Any],
        variables: dict[str, AgentVariable],
        iteration: int,
    ) -> RLMResult[T]:
        """Run a document-exploring role in the run's inner mode (``rlm``: code in the
        sandbox; ``lcm``: operators as tools; ``direct``: the documents in the prompt), its
        conversation kept in the session."""
        mode = self.inner_pick().mode
        forward = FORWARDS[mode]
        tracker = self.coverage_tracker(iteration)
        # The direct mode has no code or tools to start a child from: it explores at one level.
        nests = mode in ("rlm", "lcm")
        tree: dict[str, Any] = {"tree": self.agent_tree(iteration, spec.name)} if nests else {}
        if not nests and self.settings.max_depth > 1 and not self._said_flat:
            self._said_flat = True
            self.notice(
                f"--max-depth {self.settings.max_depth} changes nothing in the {mode} inner "
                "mode: only the rlm and lcm modes start child agents (rlm_query)"
            )
        try:
            return await forward(
                self.clients.generate,
                spec,
                inputs,
                variables,
                sub_client=self.clients.sub,
                emit=tracker.observe,
                on_notice=self.notice,
                **self.sandbox_functions(iteration),
                store_path=self.context_store(iteration, spec.name),
                sub_cache=self.sub_cache,
                **tree,
            )
        finally:
            tracker.finish()

    def agent_tree(self, iteration: int, agent: str) -> AgentTree:
        """The tree an exploring role's agent roots (``--max-depth`` levels): its children's
        transcripts kept in the session under ``children/<iteration>-<agent>/``, their quotes
        located in the run's documents."""
        folder = self.traces.folder
        return AgentTree.root(
            self.settings.max_depth,
            folder=folder / "children" / f"{iteration:02d}-{agent}",
            session=folder,
            locate=self.quote_locations,
        )

    def inner_pick(self) -> InnerPick:
        """The run's inner mode: the one given, else the setting's (``auto`` resolved)."""
        if self.inner is None:
            window = self.clients.generate.context_window_tokens
            self.inner = resolve_inner(self.settings.inner, document_tokens(self.document), window)
        return self.inner

    def coverage_tracker(self, iteration: int) -> CoverageTracker:
        """What ``iteration`` has read of the documents so far (the tracker, made on first
        use)."""
        if iteration not in self._coverage:
            if self._places is None:
                self._places = document_places(self.corpus, self.document, self.doc_path.name)
            self._coverage[iteration] = CoverageTracker(iteration, self._places, self.emit)
        return self._coverage[iteration]

    def take_coverage(self, iteration: int) -> Coverage | None:
        """What ``iteration`` read (``None`` if it explored nothing), for its trace."""
        tracker = self._coverage.pop(iteration, None)
        return tracker.coverage() if tracker is not None else None

    def role(self, spec: AgentSpec[T]) -> AgentSpec[T]:
        """A structured role as this run's settings (its variant) word it."""
        return prompted(spec, self.settings)

    def sandbox_functions(self, iteration: int) -> dict[str, Any]:
        """The agent's ``retrieve()`` (a sandbox function, or a tool in the LCM mode), and
        what its ``look()`` needs when the documents hold a PDF or an image. The index is
        opened by the first call (a cell's clock stops while the host works), so a model
        that never searches costs no indexing."""

        async def retrieve(
            query: str, k: int = 5, sources: list[str] | str | None = None
        ) -> list[dict[str, Any]]:
            retrieval = await self.retrieval()
            retrieval.iteration = iteration
            passages = await retrieval.sandbox_retrieve(query, k, sources)
            self.coverage_tracker(iteration).add_retrieved(str(query), passages)
            return passages

        return {
            "functions": {"retrieve": retrieve},
            "function_docs": [SANDBOX_RETRIEVE_DOC],
            "look": self.page_look(),
        }

    def page_look(self) -> PageLook | None:
        """The run's PDF and image pages for ``look()``, and whether the sub-model is sent
        their pictures (decided once, from ``--sub-images`` and its model); ``None`` when no
        document is a PDF or an image."""
        if self._look is None and self.corpus is not None:
            pages = DocumentPages(self.corpus.documents, Limits.of(self.settings).file_bytes)
            if pages.has_pages:
                sub = self.clients.sub
                why_not = no_images(self.settings.sub_images, sub.provider, sub.model)
                self._look = PageLook(pages, why_not)
        return self._look

    def retrieval_diagnostics(self) -> list[dict[str, Any]]:
        """The searches since the last call (for the iteration trace)."""
        return self._retrieval.take_diagnostics() if self._retrieval is not None else []

    def sandbox_documents(self, description: str) -> dict[str, AgentVariable]:
        """The sandbox globals for the documents: ``context`` and the ``documents`` table."""
        variables = {"context": AgentVariable(self.document, description)}
        if self.corpus is not None:
            variables["documents"] = AgentVariable(self.corpus.table, DOCUMENTS_VARIABLE)
        return variables

    def context_store(self, iteration: int, agent: str) -> Path:
        """Where an agent's whole conversation of ``iteration`` is kept (the LCM store)."""
        return self.traces.folder / f"context-{iteration:02d}-{agent}.jsonl"

    def external_texts(self) -> dict[str, str]:
        """The cached text of every external page of the run, by URL."""
        return {page.url: page.text for page in self.external.pages}

    def quote_locations(self, quotes: list[str]) -> list[QuoteLocation]:
        """Where each quote stands: its document, page and spans, or its external page (URL
        and fetch time); ``missing`` when found nowhere."""
        if self.corpus is not None:
            documents = corpus_texts(self.corpus)
        else:
            documents = [QuotableText(self.doc_path.name, self.document)]
        external = [
            QuotableText(page.url, page.text, page.pages, page.url, page.fetched_at)
            for page in self.external.pages
            if page.text
        ]
        return locate_quotes(quotes, documents, external)

    def evidence_bounds(self) -> Bounds | None:
        return self.corpus.bounds_of if self.corpus is not None else None

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise RunCancelled("cancelled by the user")

    def notice(self, message: str) -> None:
        self.emit(Notice(level="warning", message=message))

    @contextlib.asynccontextmanager
    async def phase(self, iteration: int, phase: Phase) -> AsyncIterator[dict[str, float]]:
        """Report a phase's start, heartbeats while it runs, its end and duration.

        Yields a dict whose ``ms`` key holds the duration once the phase is over.
        """
        self.check_cancelled()
        timing: dict[str, float] = {}
        started = time.perf_counter()
        self.emit(PhaseStarted(iteration=iteration, phase=phase))
        beat = asyncio.create_task(self._heartbeat(phase, started))
        error: str | None = None
        try:
            yield timing
        except (asyncio.CancelledError, RunCancelled):
            error = "cancelled"
            raise
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            beat.cancel()
            timing["ms"] = (time.perf_counter() - started) * 1000
            self.emit(
                PhaseFinished(
                    iteration=iteration, phase=phase, duration_ms=timing["ms"], error=error
                )
            )

    async def _heartbeat(self, phase: str, started: float) -> None:
        interval = self.settings.progress_heartbeat_ms / 1000
        while True:
            await asyncio.sleep(interval)
            self.emit(Heartbeat(phase=phase, elapsed_ms=(time.perf_counter() - started) * 1000))
