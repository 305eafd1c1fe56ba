"""Every live pane of a run in one widget, fed with batches of events.

The run screen feeds it from the running loop. Each batch is folded into a ``RunProgress``
and only the panes it changed are repainted, once.

Only the status line is in the first frame, saying no run has started (without the
progress model, made when a run or a pane first needs it): ``compose_panes`` builds the
panes right after it (their modules and the tabbed pane's are imported then too), and a
hidden tab's pane is built when the tab is first shown, from the progress so far.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.worker import Worker

from ralph_tui.tui.widgets.status_line import RunStatusLine
from ralph_tui.tui.worker_errors import forward_worker_error

if TYPE_CHECKING:
    from textual.widgets import TabbedContent

    from ralph_tui.documents import Corpus
    from ralph_tui.events import BaseEvent, ExternalProgress, RunStatus
    from ralph_tui.tui.core.run_handle import RunState
    from ralph_tui.tui.core.run_progress import Part, RunProgress
    from ralph_tui.tui.widgets.event_log import EventLog
    from ralph_tui.tui.widgets.output_pane import OutputPane
    from ralph_tui.tui.widgets.sandbox_pane import SandboxPane

TABS = {
    "tab-constraints": "Constraints",
    "tab-memory": "Memory",
    "tab-retrieval": "Retrieval",
    "tab-context": "Context",
    "tab-log": "Log",
}
"""The tabs of the monitor's tabbed pane, by id, in order; the first is shown first."""


def read_documents(*specs: Path) -> Corpus | None:
    """The documents the run read from ``specs`` (files, folders, globs), as the sandbox had
    them, for checking quotes and saying where each is from; ``None`` if unreadable."""
    from ralph_tui.documents import InputError, read_corpus

    try:
        return read_corpus(list(specs))
    except InputError:
        return None


def read_document_text(*specs: Path) -> str | None:
    corpus = read_documents(*specs)
    return corpus.text if corpus is not None else None


PaneWidget = TypeVar("PaneWidget", bound=Widget)


def framed(pane: PaneWidget, title: str) -> PaneWidget:
    """``pane`` as one of the monitor's bordered panes, titled ``title``. The class is set
    before it mounts: added later, it restyled the pane and all it holds a second time."""
    pane.add_class("pane", update=False)
    pane.border_title = title
    return pane


class MonitorPanes(Horizontal):
    """The monitor's panes: the sandbox, coverage, output, validation and the tabbed pane,
    whose first tab (constraints) and log are built with it, the other tabs when first
    shown (the log keeps every line, so it is there from the start)."""

    def compose(self) -> ComposeResult:
        from textual.widgets import TabbedContent, TabPane

        from ralph_tui.tui.widgets.constraints_pane import ConstraintsPane
        from ralph_tui.tui.widgets.coverage_strip import CoverageStrip
        from ralph_tui.tui.widgets.event_log import EventLog
        from ralph_tui.tui.widgets.output_pane import OutputPane
        from ralph_tui.tui.widgets.sandbox_pane import SandboxPane
        from ralph_tui.tui.widgets.validation_pane import ValidationPane

        yield framed(SandboxPane(id="sandbox", empty_text="No sandbox cells yet."), "Sandbox")
        with Vertical(id="side"):
            yield CoverageStrip(id="coverage")
            yield framed(OutputPane(id="output"), "Output")
            yield framed(ValidationPane(id="validation"), "Validation")
            with TabbedContent(id="extras", classes="pane"):
                for tab, title in TABS.items():
                    with TabPane(title, id=tab):
                        if tab == "tab-constraints":
                            yield ConstraintsPane(id="constraints")
                        elif tab == "tab-log":
                            yield EventLog(id="log")


class RunMonitor(Vertical):
    """Status line, sandbox transcript, output, validation, constraints, memory, retrieval
    and log."""

    DEFAULT_CSS = """
    RunMonitor { height: 1fr; }
    RunMonitor #panes { height: 1fr; }
    RunMonitor #sandbox { width: 1fr; }
    RunMonitor #side { width: 1fr; }
    RunMonitor #output { height: 5fr; }
    RunMonitor #validation { height: 3fr; }
    RunMonitor #extras { height: 3fr; }
    RunMonitor #extras TabPane { padding: 0; }
    RunMonitor .pane {
        border: round $foreground 25%;
        border-title-color: $text-primary;
        border-title-style: bold;
        &:focus-within { border: round $primary; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._progress: RunProgress | None = None
        self.document_path: Path | None = None
        self.whole = False
        """Whether the panes are built (``compose_panes`` has run)."""

    @property
    def progress(self) -> RunProgress:
        """The current (or last) run's progress; made when first asked for, which the first
        frame does not (its status line says no run has started)."""
        if self._progress is None:
            from ralph_tui.tui.core.run_progress import RunProgress

            self._progress = RunProgress()
        return self._progress

    def compose(self) -> ComposeResult:
        yield RunStatusLine(id="status")

    def on_mount(self) -> None:
        self.query_one(RunStatusLine).show_idle()

    async def compose_panes(self) -> None:
        """Build the panes below the status line (see ``MonitorPanes``)."""
        await self.mount(MonitorPanes(id="panes"))
        self.whole = True

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Build a tab's pane the first time it is shown, from the progress so far. (By name,
        not with ``@on``: the tabbed pane's class loads with the panes.)"""
        pane = event.pane
        if pane.children or pane.id is None:
            return
        p = self.progress
        if pane.id == "tab-memory":
            from ralph_tui.tui.widgets.memory_pane import MemoryPane

            memory = MemoryPane(id="memory")
            await pane.mount(memory)
            if p.memory_path:
                memory.follow_file(Path(p.memory_path))
        elif pane.id == "tab-retrieval":
            from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane

            retrieval = RetrievalPane(id="retrieval")
            await pane.mount(retrieval)
            retrieval.show(p)
        elif pane.id == "tab-context":
            from ralph_tui.tui.widgets.context_pane import ContextPane

            context = ContextPane(id="context")
            await pane.mount(context)
            context.show(p)

    @property
    def sandbox(self) -> SandboxPane:
        from ralph_tui.tui.widgets.sandbox_pane import SandboxPane

        return self.query_one(SandboxPane)

    @property
    def output(self) -> OutputPane:
        from ralph_tui.tui.widgets.output_pane import OutputPane

        return self.query_one(OutputPane)

    @property
    def event_log(self) -> EventLog:
        from ralph_tui.tui.widgets.event_log import EventLog

        return self.query_one(EventLog)

    def reset(self) -> None:
        """Forget the previous run."""
        from ralph_tui.tui.core.run_progress import RunProgress

        self._progress = RunProgress()
        self.document_path = None
        self.sandbox.reset()
        self.output.show(None)
        self.output.set_document(None)
        self.output.set_external({})
        from ralph_tui.tui.widgets.memory_pane import MemoryPane

        self.event_log.reset()
        for memory in self.query(MemoryPane):
            memory.forget()
        self._repaint({"status", "validation", "constraints", "retrieval", "context", "coverage"})

    def show_lifecycle(self, state: RunState, note: str) -> None:
        """Show where the run is when its events cannot say: starting or cancelling;
        ``note`` stands in for a session id until the run has one."""
        self.progress.lifecycle, self.progress.error = state, note
        self._repaint({"status"})

    def show_outcome(self, status: RunStatus, message: str) -> None:
        """Show an end no session recorded (nothing ran, or it stopped before its session
        existed); ``message`` says why, in place of a session id."""
        self.progress.outcome, self.progress.lifecycle, self.progress.error = status, None, message
        self._repaint({"status"})

    def feed(self, events: Sequence[BaseEvent]) -> None:
        """Fold a batch of events in and repaint what changed (once per pane)."""
        from ralph_tui.events import RunStarted

        changed: set[Part] = set()
        for event in events:
            changed |= self.progress.apply(event)
            if isinstance(event, RunStarted) and self.document_path is None:
                self.use_document(Path(event.doc_path))
        self.sandbox.add(events)
        self.event_log.add(events)
        self._repaint(changed)

    def flush(self) -> None:
        """Show queued sandbox entries (a bounded number per call)."""
        self.sandbox.flush()

    def tick(self, now: float | None = None) -> None:
        """Advance the elapsed clock and heartbeat indicator of a running run."""
        if self._progress is not None and self._progress.running:
            self.query_one(RunStatusLine).show(self.progress, now)

    def use_document(self, path: Path) -> None:
        """Check evidence quotes against ``path`` (read in a thread)."""
        self.document_path = path
        self._load_document(path)

    def _repaint(self, changed: Iterable[Part]) -> None:
        from ralph_tui.tui.widgets.constraints_pane import ConstraintsPane
        from ralph_tui.tui.widgets.context_pane import ContextPane
        from ralph_tui.tui.widgets.coverage_strip import CoverageStrip
        from ralph_tui.tui.widgets.memory_pane import MemoryPane
        from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane
        from ralph_tui.tui.widgets.validation_pane import ValidationPane

        p = self.progress
        parts = set(changed)
        if "status" in parts:
            self.query_one(RunStatusLine).show(p, time.time())
        if not self.whole:
            return
        if "output" in parts:
            self.output.show(
                p.candidate,
                salvaged=p.candidate_salvaged,
                quotes=p.candidate_quotes,
                claims=p.candidate_claims,
            )
        if "output" in parts or "coverage" in parts:
            coverage = p.coverage.coverage if p.coverage else None
            from ralph_tui.evidence import answers_absence

            absent = p.mode == "qa" and answers_absence(p.candidate)
            self.query_one(CoverageStrip).show(coverage, absent=absent)
        if "turn" in parts:
            self.sandbox.show_writing(p.turn)
            self.output.show_forming(p.turn)
        if "validation" in parts:
            self.query_one(ValidationPane).show(p.checks.values())
        if "constraints" in parts:
            self.query_one(ConstraintsPane).show(p)
        # A tab not shown yet has no pane: it is built from the progress when first shown.
        if "retrieval" in parts:
            for retrieval in self.query(RetrievalPane):
                retrieval.show(p)
        if "context" in parts:
            for context in self.query(ContextPane):
                context.show(p)
        if "external" in parts:
            self._load_external(list(p.external.values()))
        if "memory" in parts and p.memory_path:
            for memory in self.query(MemoryPane):
                memory.follow_file(Path(p.memory_path))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)

    @work(thread=True, exclusive=True, group="document", exit_on_error=False)
    def _load_document(self, path: Path) -> None:
        corpus = read_documents(path)
        self.app.call_from_thread(self._document_loaded, path, corpus)

    @work(thread=True, exclusive=True, group="external", exit_on_error=False)
    def _load_external(self, crawls: list[ExternalProgress]) -> None:
        from ralph_tui.external.cache import external_texts

        pages: dict[str, str] = {}
        for crawl in crawls:
            if crawl.done and crawl.cache_dir:
                pages |= external_texts(Path(crawl.cache_dir), crawl.pages)
        self.app.call_from_thread(self.output.set_external, pages)

    def _document_loaded(self, path: Path, corpus: Corpus | None) -> None:
        if path == self.document_path:
            self.output.set_document(corpus.text if corpus else None, corpus)
