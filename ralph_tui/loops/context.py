"""What an outer loop needs to run: clients, settings, the document, events, traces, cancel."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ralph_tui.config import Settings
from ralph_tui.events import (
    Emit,
    Heartbeat,
    Notice,
    Phase,
    PhaseFinished,
    PhaseStarted,
    RunStatus,
)
from ralph_tui.llm.factory import LLMClients
from ralph_tui.traces.models import IterationTrace


class RunCancelled(Exception):
    """The user cancelled the run; traces so far are kept."""


class IterationWriter(Protocol):
    """Where a loop writes each iteration's trace (a session, or one of its sub-tasks)."""

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
