"""A session to run as part of a batch, and what came of it: plain data, so a job can
travel to another process or machine (Ray) and its result come back."""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ralph_tui.config import Settings
from ralph_tui.errors import UsageError, outcome_of
from ralph_tui.events import discard
from ralph_tui.llm.errors import LLMError
from ralph_tui.loops.runner import RunRequest, execute_run


@dataclass(frozen=True)
class SessionJob:
    """One session: its key in the batch (unique), what to run, and the settings that
    differ from the batch's."""

    key: str
    mode: str
    query: str
    docs: tuple[str, ...]
    overrides: dict[str, Any] = field(default_factory=dict)

    def request(self, settings: Settings) -> RunRequest:
        first, *more = (Path(doc) for doc in self.docs)
        return RunRequest(
            mode="task" if self.mode == "task" else "qa",
            query=self.query,
            doc_path=first,
            more_docs=more,
            settings=settings.model_copy(update=self.overrides) if self.overrides else settings,
        )


@dataclass
class JobResult:
    """How a job ended: the run's outcome (``RunOutcome`` fields; when the run could not
    start, ``status`` is what ``errors.OUTCOMES`` says of what stopped it: ``rejected`` for
    bad input, ``error`` for the provider, ``crashed`` for a bug) and its wall time."""

    key: str
    outcome: dict[str, Any]
    wall_s: float

    @property
    def status(self) -> str:
        return str(self.outcome.get("status", "error"))


async def run_job(job: SessionJob, settings: Settings) -> JobResult:
    """Run ``job`` as a normal traced session; a run that cannot start is a result with the
    status its error's kind has, never an exception (one bad job does not sink the batch)."""
    started = time.perf_counter()
    try:
        outcome = asdict(await execute_run(job.request(settings), on_event=discard))
    except (UsageError, LLMError, OSError) as exc:
        outcome = {"status": outcome_of(exc).status, "session_id": "", "error": str(exc),
                   "iterations": 0}  # fmt: skip
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a crash of one session is that job's result
        outcome = {"status": outcome_of(exc).status, "session_id": "", "iterations": 0,
                   "error": f"unexpected {type(exc).__name__}: {exc}"}  # fmt: skip
    return JobResult(job.key, outcome, time.perf_counter() - started)
