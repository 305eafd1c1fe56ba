"""The executor interface, and the local executor: jobs as asyncio tasks under a
concurrency limit (a session mostly waits on providers), each with its own sandbox.
Cancelling keeps every finished result; jobs not finished report nothing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from ralph_tui.batch.jobs import JobResult, SessionJob, run_job
from ralph_tui.config import Settings
from ralph_tui.errors import UsageError

OnDone = Callable[[JobResult], None]


class Executor(Protocol):
    """Runs many sessions; ``on_done`` gets each result as it finishes (in the caller's
    process), the call returns them all in the jobs' order."""

    name: str

    async def run(
        self, jobs: list[SessionJob], settings: Settings, on_done: OnDone
    ) -> list[JobResult]: ...


@dataclass
class Progress:
    """Jobs done of a batch, failures, and the time left at the pace so far."""

    total: int
    done: int = 0
    failed: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, result: JobResult) -> None:
        self.done += 1
        self.failed += result.status != "passed"

    @property
    def eta_s(self) -> float | None:
        if not self.done:
            return None
        elapsed = time.monotonic() - self.started
        return elapsed / self.done * (self.total - self.done)

    def line(self, width: int = 20) -> str:
        """``[██████░░░░░░░░] 12/32 done, 3 not passed, 0:41 left``."""
        eta = self.eta_s
        left = f", {int(eta // 60)}:{int(eta % 60):02d} left" if eta is not None else ""
        filled = round(width * self.done / self.total) if self.total else width
        bar = "█" * filled + "░" * (width - filled)
        return f"[{bar}] {self.done}/{self.total} done, {self.failed} not passed{left}"


class LocalExecutor:
    """Sessions as asyncio tasks, at most ``concurrency`` at once."""

    name = "local"

    def __init__(self, concurrency: int = 4) -> None:
        if concurrency < 1:
            raise UsageError("the concurrency is at least 1")
        self.concurrency = concurrency

    async def run(
        self, jobs: list[SessionJob], settings: Settings, on_done: OnDone
    ) -> list[JobResult]:
        return await run_bounded(
            jobs, self.concurrency, lambda job: run_job(job, settings), on_done
        )


async def run_bounded(
    jobs: list[SessionJob],
    concurrency: int,
    start: Callable[[SessionJob], Awaitable[JobResult]],
    on_done: OnDone,
) -> list[JobResult]:
    """``start`` each job, at most ``concurrency`` at once, ``on_done`` as each finishes;
    the results in the jobs' order. Cancelled (Ctrl+C), the jobs not finished are cancelled
    too, and report nothing."""
    slots = asyncio.Semaphore(concurrency)
    results: dict[str, JobResult] = {}

    async def one(job: SessionJob) -> None:
        async with slots:
            result = await start(job)
        results[job.key] = result
        on_done(result)

    tasks = [asyncio.create_task(one(job)) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return [results[job.key] for job in jobs]
