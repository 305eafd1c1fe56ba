"""The task-mode memory file, shown as it is on disk and refreshed whenever it changes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from textual import work
from textual.containers import VerticalScroll
from textual.widgets import Static
from textual.worker import Worker

from ralph_tui.tui.worker_errors import forward_worker_error

MAX_SHOWN_BYTES = 64_000
WATCH_DEBOUNCE_MS = 200
NO_MEMORY = "No memory file: task-mode runs keep one."


def read_memory(path: Path) -> str:
    """The file's text (its tail if very long), or a note saying why there is none."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - MAX_SHOWN_BYTES))
            data = file.read()
    except FileNotFoundError:
        return f"({path} does not exist yet)"
    except OSError as exc:
        return f"(cannot read {path}: {exc.strerror or exc})"
    text = data.decode("utf-8", errors="replace")
    return text if size <= MAX_SHOWN_BYTES else "…\n" + text


class MemoryPane(VerticalScroll):
    """Shows one memory file; ``follow_file(path)`` follows changes made by any process."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path: Path | None = None
        self._stop: asyncio.Event | None = None

    def compose(self) -> Iterable[Static]:
        yield Static(NO_MEMORY, id="memory-text", markup=False)

    def follow_file(self, path: Path) -> None:
        """Show ``path`` now and again after every change on disk."""
        if path == self.path:
            self.refresh_text()
            return
        self.path = path
        self.refresh_text()
        self._follow(path)

    def forget(self) -> None:
        """Stop following the file (a new run starts)."""
        if self._stop is not None:
            self._stop.set()
        self.path = None
        self.query_one("#memory-text", Static).update(NO_MEMORY)

    def refresh_text(self) -> None:
        if self.path is not None:
            self.query_one("#memory-text", Static).update(read_memory(self.path))

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_worker_error(self.app, event)

    @work(exclusive=True, group="memory-watch", exit_on_error=False, name="Watching memory")
    async def _follow(self, path: Path) -> None:
        from watchfiles import awatch

        if self._stop is not None:
            self._stop.set()
        stop = self._stop = asyncio.Event()
        folder = path.parent
        if not folder.is_dir():
            return
        async for _changes in awatch(
            folder,
            watch_filter=lambda _change, changed: Path(changed).name == path.name,
            recursive=False,
            debounce=WATCH_DEBOUNCE_MS,
            stop_event=stop,
        ):
            self.refresh_text()
