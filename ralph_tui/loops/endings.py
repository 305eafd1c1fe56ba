"""How a run's status is decided when something stops it: read from the one table of
outcomes (``errors.OUTCOMES``), which the command line, the API, the MCP tools and the app
read too."""

from __future__ import annotations

from ralph_tui.errors import InternalError, outcome_of
from ralph_tui.events import RUN_STATUSES, RunStatus

KEEPS_BEST: frozenset[RunStatus] = frozenset({"timed_out", "capped"})
"""Statuses of a run stopped early that still report the best candidate recorded so far."""


def status_of(stop: BaseException) -> RunStatus:
    """The status of a run that ``stop`` ended. Input is checked before a run starts, so an
    input error raised mid-run (``rejected``: nothing ran) is a bug: ``crashed``."""
    status = outcome_of(stop).status
    return status if status in RUN_STATUSES else "crashed"


def stop_message(stop: BaseException) -> str:
    """What the session records as the reason it stopped."""
    if status_of(stop) == "crashed":
        return InternalError.of(stop).one_line()
    return str(stop) or "cancelled"


def propagates(stop: BaseException) -> bool:
    """Whether the caller must see ``stop`` after the session is closed: its own task being
    cancelled, Ctrl-C, or an exit; every other stop ends the run with its status."""
    return not isinstance(stop, Exception)
