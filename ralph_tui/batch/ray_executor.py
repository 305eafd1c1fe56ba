"""The Ray executor: the same sessions as tasks on a Ray cluster (``pip install
ralph-tui[ray]``), at most ``concurrency`` in flight. Each task runs its session in the
worker and writes its traces to the out dir, which must therefore be a filesystem every
node shares; only the small result travels back."""

from __future__ import annotations

import asyncio
from typing import Any

from ralph_tui.batch.jobs import JobResult, SessionJob, run_job
from ralph_tui.batch.local import OnDone, run_bounded
from ralph_tui.config import Settings
from ralph_tui.errors import UsageError
from ralph_tui.installed import add_extra_command

CPUS_PER_SESSION = 0.25
"""A session mostly waits on providers: four share a CPU."""


class RayUnavailableError(UsageError):
    """Ray is not installed (or not reachable): say how to get it."""

    title = "Ray is not available"


def run_job_in_worker(job: SessionJob, settings: Settings) -> JobResult:
    """The task a Ray worker runs: one session, to its end."""
    return asyncio.run(run_job(job, settings))


class RayExecutor:
    """Sessions as Ray tasks; ``address`` names a cluster (``None``: a local instance)."""

    name = "ray"

    def __init__(
        self, address: str | None = None, concurrency: int = 4, init: dict[str, Any] | None = None
    ) -> None:
        try:
            import ray
        except ImportError:
            raise RayUnavailableError(
                f"the ray executor needs Ray: {add_extra_command('ray')}"
            ) from None
        if concurrency < 1:
            raise UsageError("the concurrency is at least 1")
        self.ray = ray
        self.address = address
        self.concurrency = concurrency
        self.init = init or {}

    async def run(
        self, jobs: list[SessionJob], settings: Settings, on_done: OnDone
    ) -> list[JobResult]:
        ray = self.ray
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(
                address=self.address,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
                **self.init,
            )
        task = ray.remote(num_cpus=CPUS_PER_SESSION, max_retries=0)(run_job_in_worker)
        in_flight: list[Any] = []

        async def start(job: SessionJob) -> JobResult:
            ref = task.remote(job, settings)
            in_flight.append(ref)
            result: JobResult = await ref
            return result

        try:
            return await run_bounded(jobs, self.concurrency, start, on_done)
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()
