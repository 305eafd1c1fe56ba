"""A recorded session's sandbox transcript (or the LCM agent's tool calls), split by the
iteration each entry belongs to.

Events carry no iteration number of their own; an entry belongs to the iteration
most recently started before it. Each iteration keeps its last ``per_iteration``
entries, so replaying a huge event log stays bounded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from ralph_tui.events import (
    BaseEvent,
    ChildFinished,
    ChildStarted,
    IterationStarted,
    SandboxExecuted,
    SubQuery,
    ToolExecuted,
)

Entry = SandboxExecuted | ToolExecuted | SubQuery | ChildStarted | ChildFinished


class TranscriptBook:
    """Sandbox entries per iteration (0 holds any that came before iteration 1 started)."""

    def __init__(self, per_iteration: int) -> None:
        self.per_iteration = per_iteration
        self.current = 0
        self._entries: dict[int, deque[Entry]] = {}
        self.dropped: dict[int, int] = {}

    def add(self, events: Iterable[BaseEvent]) -> dict[int, list[Entry]]:
        """File each entry under its iteration; returns the new entries by iteration."""
        added: dict[int, list[Entry]] = {}
        for event in events:
            if isinstance(event, IterationStarted):
                self.current = event.iteration
            elif isinstance(event, Entry):
                kept = self._entries.setdefault(self.current, deque(maxlen=self.per_iteration))
                if len(kept) == kept.maxlen:
                    self.dropped[self.current] = self.dropped.get(self.current, 0) + 1
                kept.append(event)
                added.setdefault(self.current, []).append(event)
        return added

    def entries(self, iteration: int) -> list[Entry]:
        return list(self._entries.get(iteration, ()))
