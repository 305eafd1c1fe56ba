"""A thread-safe hand-off of run events from the run's thread to the UI's timer.

The run pushes every event; the UI drains whatever has arrived a few dozen times a
second and repaints once per batch. Nothing here touches a widget, so pushing is
safe from any thread and costs one ``deque.append``.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ralph_tui.events import BaseEvent


class EventBuffer:
    """Events pushed by a producer thread, drained in order by the UI thread."""

    def __init__(self) -> None:
        self._events: deque[BaseEvent] = deque()

    def push(self, event: BaseEvent) -> None:
        """Queue ``event``; usable as the run's ``Emit``."""
        self._events.append(event)

    def drain(self, limit: int | None = None) -> list[BaseEvent]:
        """Take up to ``limit`` queued events (all when ``None``), oldest first."""
        taken: list[BaseEvent] = []
        pop = self._events.popleft
        while self._events and (limit is None or len(taken) < limit):
            taken.append(pop())
        return taken

    def __len__(self) -> int:
        return len(self._events)
