"""A bounded, plain-text log of the run: the same lines ``ralph-tui run`` prints
(``ralph_tui.progress_lines``)."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.widgets import Log

if TYPE_CHECKING:
    from ralph_tui.events import BaseEvent
    from ralph_tui.progress_lines import ProgressPrinter

MAX_LOG_LINES = 2000


class EventLog(Log):
    """Appends the headless progress lines of each batch of events in one write."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(max_lines=MAX_LOG_LINES, id=id)
        self._buffer = io.StringIO()
        self._printer: ProgressPrinter | None = None

    def add(self, events: Iterable[BaseEvent]) -> None:
        printer = self._printer or self._new_printer()
        for event in events:
            printer(event)
        text = self._buffer.getvalue()
        if text:
            self._buffer.seek(0)
            self._buffer.truncate()
            self.write(text)

    def reset(self) -> None:
        self.clear()
        self._printer = None

    def _new_printer(self) -> ProgressPrinter:
        # Imported on the first event: it loads the events' models, which the first
        # frame can do without.
        from ralph_tui.progress_lines import ProgressPrinter

        self._printer = ProgressPrinter(self._buffer)
        return self._printer
