"""The session browser: every recorded session, filtered, searched, sorted, live.

Queries run in a thread against the trace index. The out dir's index files are
watched (``watchfiles``), so sessions written by another process appear without a
restart: a change schedules one re-query after a short debounce.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Label, OptionList, Select, Static
from textual.worker import Worker

from ralph_tui.counts import counted
from ralph_tui.events import RUN_STATUSES
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.context import app_context
from ralph_tui.tui.report_export import export_binding, start_export
from ralph_tui.tui.widgets.session_table import SessionTable, header_line
from ralph_tui.tui.worker_errors import forward_worker_error

PAGE_SIZE = 100
NO_SESSIONS = "No sessions yet: start a run (F2); runs from other processes appear here too."
RELOAD_DEBOUNCE_S = 0.3
SEARCH_DEBOUNCE_S = 0.15
STATUSES = RUN_STATUSES
SORTS = {
    "newest": ("created_at", True),
    "oldest": ("created_at", False),
    "cost": ("cost_usd", True),
    "duration": ("duration_ms", True),
    "tokens": ("input_tokens", True),
    "iterations": ("iterations", True),
    "status": ("status", False),
    "mode": ("mode", False),
    "query": ("query", False),
}


@dataclass(frozen=True)
class SessionQuery:
    """The browser's filters; ``None`` means any."""

    mode: str | None = None
    status: str | None = None
    text: str = ""
    sort: str = "newest"
    offset: int = 0


def run_query(store: TraceStore, query: SessionQuery) -> tuple[list[SessionRecord], int]:
    """One page of sessions for ``query`` and how many match in all."""
    column, descending = SORTS[query.sort]
    text = query.text.strip() or None
    index = store.index
    records = index.list_sessions(
        mode=query.mode,
        status=query.status,
        text=text,
        sort=column,
        descending=descending,
        limit=PAGE_SIZE,
        offset=query.offset,
    )
    return records, index.count_sessions(mode=query.mode, status=query.status, text=text)


def _index_file(_change: object, path: str) -> bool:
    return Path(path).name.startswith("index.sqlite")


class SessionBrowser(Screen[None]):
    """Filters above a table of sessions; enter opens one."""

    DEFAULT_CSS = """
    SessionBrowser #filters { height: auto; padding: 0 1; }
    SessionBrowser #search { width: 1fr; }
    SessionBrowser #filters Select { width: 18; }
    SessionBrowser #filters #sort { width: 22; }
    SessionBrowser #count { padding: 0 1; color: $text-muted; width: 1fr; height: 1; }
    SessionBrowser #header { padding: 0 1; text-style: bold; color: $text-primary; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "focus_search",
            "Search",
            id="sessions.search",
            tooltip="Search the questions and outputs of all sessions",
        ),
        Binding(
            "f5", "reload", "Reload", id="sessions.reload", tooltip="Read the session index again"
        ),
        export_binding("sessions"),
        Binding(
            "escape",
            "focus_table",
            "Table",
            id="sessions.table",
            tooltip="Back to the session list",
            show=False,
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.query_state = SessionQuery()
        self.total = 0
        self._store: TraceStore | None = None
        self._reload_timer: Timer | None = None
        self._search_timer: Timer | None = None
        self._stop_watch = asyncio.Event()
        self._crashed_marked = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="filters"):
            yield Input(placeholder="Search questions and outputs  (/)", id="search")
            yield Select([(m, m) for m in ("qa", "task")], prompt="any mode", id="mode")
            yield Select([(s, s) for s in STATUSES], prompt="any status", id="status")
            yield Select(
                [(f"sort: {s}", s) for s in SORTS], value="newest", allow_blank=False, id="sort"
            )
        yield Label("Loading sessions…", id="count")
        yield Static("", id="header", markup=False)
        yield SessionTable(id="sessions")
        yield Footer()

    @property
    def store(self) -> TraceStore:
        if self._store is None:
            self._store = TraceStore(app_context(self.app).out_dir)
        return self._store

    @property
    def table(self) -> SessionTable:
        return self.query_one(SessionTable)

    def on_mount(self) -> None:
        self.table.focus()
        self.reload()
        self._watch_out_dir(app_context(self.app).out_dir)

    def on_unmount(self) -> None:
        self._stop_watch.set()

    def reload(self) -> None:
        """Query the index again with the current filters (first page)."""
        self.query_state = replace(self.query_state, offset=0)
        self._query(self.query_state, keep=self.table.selected_session)

    def _query(self, query: SessionQuery, keep: str | None) -> None:
        if not self._crashed_marked:
            self._first_query(query, keep)
            return
        # The index is open: a page is a few milliseconds of SQLite here, where a worker
        # thread would wait on the GIL at every step while the screen repaints.
        records, total = run_query(self.store, query)
        self._show(query, records, total, keep)

    @work(thread=True, exclusive=True, group="query", exit_on_error=False, name="Session query")
    def _first_query(self, query: SessionQuery, keep: str | None) -> None:
        """Open (or rebuild) the index and mark dead writers' sessions, off the UI thread."""
        self.store.mark_crashed()
        records, total = run_query(self.store, query)
        self.app.call_from_thread(self._first_shown, query, records, total, keep)

    def _first_shown(
        self, query: SessionQuery, records: list[SessionRecord], total: int, keep: str | None
    ) -> None:
        self._crashed_marked = True
        self._show(query, records, total, keep)

    def _show(
        self, query: SessionQuery, records: list[SessionRecord], total: int, keep: str | None
    ) -> None:
        if query != self.query_state:
            return  # A newer query is on its way.
        self.total = total
        if query.offset == 0:
            self.query_one("#header", Static).update(header_line(self.table.line_width))
            self.table.show(records, keep)
        else:
            self.table.append(records)
        self._show_count()

    def _show_count(self) -> None:
        shown = self.table.option_count
        if self.total == 0 and self.query_state == SessionQuery():
            count = NO_SESSIONS
        else:
            count = counted(self.total, "session")
        more = f" (showing {shown}: move to the end for more)" if shown < self.total else ""
        # A fixed-size label: no layout pass needed (that would reflow the whole table).
        self.query_one("#count", Label).update(count + more, layout=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        shown = self.table.option_count
        if event.option_index >= shown - 1 and shown < self.total:
            self.query_state = replace(self.query_state, offset=shown)
            self._query(self.query_state, keep=None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.open_session(event.option.id)

    def open_session(self, session_id: str) -> None:
        from ralph_tui.tui.screens.session_screen import SessionScreen

        self.app.push_screen(SessionScreen(session_id, self.store))

    def on_select_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else str(event.value)
        before = self.query_state
        if event.select.id == "mode":
            self.query_state = replace(before, mode=value)
        elif event.select.id == "status":
            self.query_state = replace(before, status=value)
        elif event.select.id == "sort":
            self.query_state = replace(before, sort=value or "newest")
        if self.query_state != before:  # A select also says so when it first shows its value.
            self.reload()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "search":
            return
        self.query_state = replace(self.query_state, text=event.value)
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = self.set_timer(SEARCH_DEBOUNCE_S, self.reload)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "search":
            if self._search_timer is not None:
                self._search_timer.stop()
            self.reload()
            self.table.focus()

    def action_focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_focus_table(self) -> None:
        self.table.focus()

    def action_export_report(self) -> None:
        start_export(self, self.store, self.table.selected_session)

    def action_reload(self) -> None:
        self.reload()

    def schedule_reload(self) -> None:
        """Re-query once things settle: many index writes come in bursts."""
        if self._reload_timer is not None:
            self._reload_timer.stop()
        self._reload_timer = self.set_timer(RELOAD_DEBOUNCE_S, self.reload)

    @work(exclusive=True, group="watch", exit_on_error=False, name="Watching the out dir")
    async def _watch_out_dir(self, out_dir: Path) -> None:
        from watchfiles import awatch

        out_dir.mkdir(parents=True, exist_ok=True)
        async for _changes in awatch(
            out_dir,
            watch_filter=_index_file,
            recursive=False,
            debounce=400,
            step=100,
            stop_event=self._stop_watch,
        ):
            self.schedule_reload()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)
