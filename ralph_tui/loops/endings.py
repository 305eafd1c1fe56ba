"""How a run's status is decided when something stops it: one table from what stopped the
run to the status its session is recorded with."""

from __future__ import annotations

import asyncio

from ralph_tui.errors import InternalError
from ralph_tui.events import RunStatus
from ralph_tui.llm.errors import CostCapReached, LLMError
from ralph_tui.loops.context import RunCancelled


class RunTimedOut(Exception):
    """The run passed its ``--timeout``."""


STATUS_OF_STOP: dict[type[BaseException], RunStatus] = {
    RunCancelled: "cancelled",
    asyncio.CancelledError: "cancelled",
    KeyboardInterrupt: "cancelled",
    RunTimedOut: "timed_out",
    CostCapReached: "capped",
    LLMError: "error",
    BaseException: "crashed",
}
"""The status of a run stopped by each kind of exception; the most specific class wins."""

KEEPS_BEST: frozenset[RunStatus] = frozenset({"timed_out", "capped"})
"""Statuses of a run stopped early that still report the best candidate recorded so far."""


def status_of(stop: BaseException) -> RunStatus:
    """The status of a run that ``stop`` ended."""
    return next(STATUS_OF_STOP[cls] for cls in type(stop).__mro__ if cls in STATUS_OF_STOP)


def stop_message(stop: BaseException) -> str:
    """What the session records as the reason it stopped."""
    if status_of(stop) == "crashed":
        return InternalError.of(stop).one_line()
    return str(stop) or "cancelled"


def propagates(stop: BaseException) -> bool:
    """Whether the caller must see ``stop`` after the session is closed: its own task being
    cancelled, Ctrl-C, or an exit; every other stop ends the run with its status."""
    return not isinstance(stop, Exception)
