"""One session: its iterations as a timeline, each one's trace, diff and sandbox transcript.

The trace files are read in a thread. One worker watches the session's folder
(``watchfiles``) and hands each change to a ``SessionFollower``, which says what is
new: events to replay (the whole log when the screen opens, then whatever its
writer, in this process or another, appends), and when to read the session again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option
from textual.worker import Worker

from ralph_tui.counts import counted
from ralph_tui.traces.liveness import effective_status
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.session_ids import session_dir
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.context import evidence_minimum
from ralph_tui.tui.core import formatting as fmt
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.core.session_follower import FollowUpdate, SessionFollower, is_followed_file
from ralph_tui.tui.core.transcripts import TranscriptBook
from ralph_tui.tui.report_export import export_binding, start_export
from ralph_tui.tui.screens.constraints_editor import ConstraintsEditor
from ralph_tui.tui.screens.passage_modal import PassageModal
from ralph_tui.tui.session_detail import diff_content, iteration_content, timeline_label
from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane
from ralph_tui.tui.widgets.run_monitor import read_document_text
from ralph_tui.tui.widgets.sandbox_pane import MAX_ENTRIES

if TYPE_CHECKING:
    from ralph_tui.events import RunStatus
from ralph_tui.tui.widgets.sandbox_pane import SandboxPane
from ralph_tui.tui.widgets.status_line import RunStatusLine
from ralph_tui.tui.worker_errors import forward_worker_error

WATCH_DEBOUNCE_MS = 200
"""A burst of appends is shown at most this often: one repaint per batch, not per event."""
WATCH_STEP_MS = 50
"""How long the folder must be quiet before a change is shown (the latency of a lone event)."""
QUIET_WAKE_MS = 1000
"""Without changes the watcher still wakes this often: the elapsed clock of a running
session moves on, and a writer that died (which never says so) is noticed."""


@dataclass
class SessionData:
    """What the files say about a session, read in one go."""

    record: SessionRecord
    traces: list[IterationTrace]
    children: list[SessionRecord]
    document: str | None = None
    status: RunStatus = field(init=False)

    def __post_init__(self) -> None:
        self.status = effective_status(self.record)


def load_session_data(store: TraceStore, session_id: str, with_document: bool) -> SessionData:
    record = store.load_session(session_id)
    data = SessionData(record, store.iterations(session_id), store.index.children(session_id))
    specs = [spec for spec in record.settings.get("docs") or [record.doc_path] if spec]
    if with_document and specs:
        # No spec, no document: an empty path would read the working directory as a folder.
        data.document = read_document_text(*(Path(spec) for spec in specs))
    return data


class RerunRequested(Message):
    """Re-run ``record`` as a new child session with ``constraints``."""

    def __init__(self, record: SessionRecord, constraints: list[str]) -> None:
        super().__init__()
        self.record = record
        self.constraints = constraints


class SessionScreen(Screen[None]):
    """Timeline and re-runs on the left; the selected iteration's tabs on the right."""

    DEFAULT_CSS = """
    SessionScreen #info { padding: 0 1; height: auto; max-height: 3; }
    SessionScreen #body { height: 1fr; }
    SessionScreen #left { width: 30; }
    SessionScreen #left Label { padding: 0 1; text-style: bold; color: $text-primary; }
    SessionScreen #timeline { height: 2fr; }
    SessionScreen #children { height: 1fr; }
    SessionScreen #tabs { width: 1fr; }
    SessionScreen #tabs TabPane { padding: 0; }
    SessionScreen .detail { padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="session.back", tooltip="Back to the previous screen"),
        Binding(
            "e",
            "edit_rerun",
            "Edit & re-run",
            id="session.rerun",
            tooltip="Edit the selected iteration's constraints and re-run them",
        ),
        Binding(
            "p",
            "open_parent",
            "Parent",
            id="session.parent",
            tooltip="Open the session this one re-ran",
        ),
        Binding(
            "c",
            "copy_output",
            "Copy output",
            id="session.copy",
            tooltip="Copy the selected iteration's output to the clipboard",
        ),
        export_binding("session"),
        Binding(
            "d",
            "show_tab('tab-diff')",
            "Diff",
            id="session.diff",
            tooltip="Show how the iteration differs from the one before",
        ),
        Binding(
            "t",
            "show_tab('tab-transcript')",
            "Transcript",
            id="session.transcript",
            tooltip="Show the iteration's sandbox transcript",
        ),
        Binding(
            "s",
            "show_tab('tab-retrieval')",
            "Searches",
            id="session.retrieval",
            tooltip="Show the iteration's retrieval searches and the passages they found",
        ),
        Binding(
            "i",
            "show_tab('tab-iteration')",
            "Iteration",
            id="session.iteration",
            tooltip="Show the iteration's constraints, output and checks",
        ),
    ]

    def __init__(
        self, session_id: str, store: TraceStore, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__()
        self.session_id = session_id
        self.store = store
        self.clock = clock
        """Now, in Unix seconds: what a running session's elapsed time is counted to."""
        self.data: SessionData | None = None
        self.progress = RunProgress()
        self.book = TranscriptBook(per_iteration=MAX_ENTRIES)
        self.selected: int | None = None
        self._stop_follow = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield RunStatusLine(id="status")
        yield Static(f"Loading {self.session_id}…", id="info", markup=False)
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield Label("Iterations")
                yield OptionList(id="timeline")
                yield Label("Re-runs of this session")
                yield OptionList(id="children")
            with TabbedContent(id="tabs"):
                with TabPane("Iteration", id="tab-iteration"), VerticalScroll():
                    yield Static("", id="iteration-detail", classes="detail")
                with TabPane("Diff", id="tab-diff"), VerticalScroll():
                    yield Static("", id="diff", classes="detail")
                with TabPane("Transcript", id="tab-transcript"):
                    # Not following: the timeline lists finished iterations, whose
                    # transcripts are whole (and anchoring a hidden pane scrolls it away).
                    yield SandboxPane(
                        id="transcript",
                        empty_text="No sandbox cells in this iteration.",
                        follow=False,
                    )
                with TabPane("Retrieval", id="tab-retrieval"):
                    yield RetrievalPane(id="retrieval")
        yield Footer()

    def on_mount(self) -> None:
        self.load(with_document=True)
        self._follow(session_dir(self.store.out_dir, self.session_id))

    def on_unmount(self) -> None:
        self._stop_follow.set()

    # -- loading ------------------------------------------------------------------------------

    @work(
        thread=True, exclusive=True, group="load", exit_on_error=False, name="Reading the session"
    )
    def load(self, with_document: bool = False) -> None:
        data = load_session_data(self.store, self.session_id, with_document)
        self.app.call_from_thread(self._loaded, data)

    def _loaded(self, data: SessionData) -> None:
        if data.document is None and self.data is not None:
            data.document = self.data.document
        self.data = data
        self._settle_status()
        self._show_info()
        self._learn_isolation(data.traces)
        self._show_timeline()
        self._show_children()

    @work(exclusive=True, group="follow", exit_on_error=False, name="Following the session")
    async def _follow(self, folder: Path) -> None:
        """Replay the event log, then show each change to the folder as it happens."""
        from watchfiles import awatch

        if not folder.is_dir():
            return  # The session is gone: reading it says so, once.
        follower = SessionFollower(folder)
        self._followed(await asyncio.to_thread(follower.follow))
        async for changes in awatch(
            folder,
            watch_filter=lambda _change, path: is_followed_file(path),
            recursive=False,
            debounce=WATCH_DEBOUNCE_MS,
            step=WATCH_STEP_MS,
            rust_timeout=QUIET_WAKE_MS,
            yield_on_timeout=True,
            stop_event=self._stop_follow,
        ):
            paths = [path for _change, path in changes]
            self._followed(await asyncio.to_thread(follower.follow, paths))

    def _followed(self, update: FollowUpdate) -> None:
        if update.restarted:
            self.progress = RunProgress()
            self.book = TranscriptBook(per_iteration=MAX_ENTRIES)
            self.query_one(SandboxPane).reset()
            self._learn_isolation(self.data.traces if self.data else [])
        if update.events:
            self._replay(update)
        if update.reload:
            self.load()
        if update.events or update.restarted or self.progress.running:
            self.query_one(RunStatusLine).show(self.progress, self.clock())

    def _replay(self, update: FollowUpdate) -> None:
        for event in update.events:
            self.progress.apply(event)
        self._settle_status()
        self.query_one(RetrievalPane).show(self.progress, self.selected)
        added = self.book.add(update.events)
        if self.selected is None:
            return
        # After a restart the pane is empty: it gets the iteration's whole new transcript.
        entries = self.book.entries(self.selected) if update.restarted else added.get(self.selected)
        if entries:
            self.query_one(SandboxPane).add(entries)
            self._flush_transcript()

    def _flush_transcript(self) -> None:
        """Show the transcript's queued entries a batch per repaint, so a long one never
        stalls the screen."""
        transcript = self.query_one(SandboxPane)
        transcript.flush()
        if transcript.pending:
            self.call_after_refresh(self._flush_transcript)

    def on_screen_resume(self) -> None:
        if self.data is not None:
            self.load()

    def _learn_isolation(self, traces: list[IterationTrace]) -> None:
        """Take the sandbox isolation level from the traces (events name it only if degraded)."""
        for trace in reversed(traces):
            isolation = (trace.model_extra or {}).get("isolation")
            if isinstance(isolation, str) and self.progress.isolation is None:
                self.progress.isolation = isolation
                self.query_one(RunStatusLine).show(self.progress, self.clock())
                return

    def _settle_status(self) -> None:
        """A run whose writer died never logs its end: take the end from the record."""
        if self.data is None or self.data.status == "running" or not self.progress.running:
            return
        record = self.data.record
        self.progress.outcome = self.data.status
        self.progress.finished_ts = record.finished_at or record.updated_at
        self.query_one(RunStatusLine).show(self.progress, self.clock())

    # -- showing ------------------------------------------------------------------------------

    def _show_info(self) -> None:
        assert self.data is not None
        r = self.data.record
        parent = f"   parent {r.parent_session_id} (p)" if r.parent_session_id else ""
        seconds = r.duration_ms / 1000 if r.duration_ms is not None else None
        summary = (
            f"{r.session_id} · {r.mode} · {self.data.status} · "
            f"{counted(r.iterations, 'iteration')}"
            f" · {fmt.duration(seconds)} · "
            f"{fmt.tokens_in_out(r.input_tokens, r.output_tokens, r.estimated_calls)} tok · "
            f"{fmt.cost(r.cost_usd, r.unknown_cost_calls)}{parent}"
        )
        info = Content.assemble(
            (summary, "bold"),
            "\n",
            ("Q: ", "$text-muted"),
            r.query,
            "\n",
            ("doc: ", "$text-muted"),
            r.doc_path,
        )
        self.query_one("#info", Static).update(info)

    def _show_timeline(self) -> None:
        assert self.data is not None
        timeline = self.query_one("#timeline", OptionList)
        keep = timeline.highlighted
        timeline.clear_options()
        timeline.add_options(
            [Option(timeline_label(t), id=str(t.iteration)) for t in self.data.traces]
        )
        if self.data.traces:
            index = keep if keep is not None else len(self.data.traces) - 1
            timeline.highlighted = min(index, len(self.data.traces) - 1)
        else:
            self._show_iteration(None)

    def _show_children(self) -> None:
        assert self.data is not None
        children = self.query_one("#children", OptionList)
        children.clear_options()
        for child in self.data.children:
            label = f"{fmt.short_session_id(child.session_id)}  {effective_status(child)}"
            children.add_option(Option(label, id=child.session_id))
        if not self.data.children:
            children.add_option(
                Option(Content.styled("none yet (e: edit & re-run)", "$text-muted"), disabled=True)
            )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "timeline" and event.option.id is not None:
            self._show_iteration(int(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "children" and event.option.id is not None:
            self.app.push_screen(SessionScreen(event.option.id, self.store, self.clock))

    def trace(self, iteration: int | None) -> IterationTrace | None:
        traces = self.data.traces if self.data else []
        return next((t for t in traces if t.iteration == iteration), None)

    def _show_iteration(self, iteration: int | None) -> None:
        trace = self.trace(iteration)
        detail = self.query_one("#iteration-detail", Static)
        diff = self.query_one("#diff", Static)
        if trace is None or self.data is None:
            detail.update(Content.styled("No iteration has finished yet.", "$text-muted"))
            diff.update("")
        else:
            detail.update(
                iteration_content(
                    trace,
                    self.data.document,
                    evidence_minimum(self.app),
                )
            )
            diff.update(diff_content(self.trace(trace.iteration - 1), trace))
        if iteration != self.selected:
            self.selected = iteration
            transcript = self.query_one(SandboxPane)
            transcript.reset()
            transcript.add(self.book.entries(iteration) if iteration is not None else [])
            self._flush_transcript()
            self.query_one(RetrievalPane).show(self.progress, iteration)

    # -- actions ------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.dismiss(None)

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_open_parent(self) -> None:
        parent = self.data.record.parent_session_id if self.data else None
        if parent is None:
            self.notify("This session is not a re-run of another.")
            return
        self.app.push_screen(SessionScreen(parent, self.store, self.clock))

    def action_copy_output(self) -> None:
        trace = self.trace(self.selected)
        if trace is None:
            self.notify("No iteration selected.", severity="warning")
            return
        from ralph_tui.tui.core.diffs import output_lines

        self.app.copy_to_clipboard("\n".join(output_lines(trace.output)))
        self.notify(f"Output of iteration {trace.iteration} copied to the clipboard.")

    def action_export_report(self) -> None:
        start_export(self, self.store, self.session_id)

    def action_edit_rerun(self) -> None:
        trace = self.trace(self.selected)
        if trace is None or self.data is None:
            self.notify("Select an iteration first.", severity="warning")
            return
        record = self.data.record

        def rerun(constraints: list[str] | None) -> None:
            if constraints is not None:
                self.post_message(RerunRequested(record, constraints))

        title = f"Re-run {record.session_id} with iteration {trace.iteration}'s constraints"
        self.app.push_screen(ConstraintsEditor(title, trace.constraints), rerun)

    def on_retrieval_pane_passage_chosen(self, message: RetrievalPane.PassageChosen) -> None:
        document = self.data.document if self.data else None
        self.app.push_screen(PassageModal(message.passage, document))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)
