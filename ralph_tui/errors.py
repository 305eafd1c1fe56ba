"""The one base of every error ralph-tui reports to a person, the exit codes, and the one table
that decides how a command or a run ends when an error stops it.

Each error is a subclass of one of the *kinds* below (``UsageError``, ``ProviderError``,
``CostCapReached``, ``RunTimedOut``, ``Cancelled``, ``InternalError``...). ``OUTCOMES`` says,
for each kind, the status it ends with (what ``--json``, the session's record, the API and the
MCP tools report), the exit code of the command line, and the heading a person sees (the
app's error modal). A class may give itself a narrower heading (``title``), never another
status or exit code: those are its kind's, read from the table. The command line renders any
error as one line on stderr; the app as its error modal. Neither looks at the class.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar, Literal

from ralph_tui.redact import redact_urls


class ExitCode(IntEnum):
    """What ``ralph-tui`` exits with."""

    OK = 0
    """A validated result (or a command that did what it was asked)."""
    FAILED = 1
    """The run ended without a validated result (failed, timed out, capped)."""
    USAGE = 2
    """Bad usage or input: nothing was run and nothing was written."""
    PROVIDER = 3
    """A provider, auth or network failure stopped the run."""
    INTERNAL = 4
    """An unexpected internal error (a bug): the session is recorded as crashed."""
    CANCELLED = 130
    """Cancelled by the user (Ctrl-C)."""
    CLOSED_PIPE = 141
    """The reader of the output went away (``| head``): the shell's code for SIGPIPE."""
    TERMINATED = 143
    """Stopped by SIGTERM (``timeout``, systemd, a container runtime), as Ctrl-C stops."""


EndStatus = Literal["error", "crashed", "capped", "timed_out", "cancelled", "rejected"]
"""How an error ends what it stops: a run's status (``events.RunStatus``), or ``rejected``
for input refused before anything ran."""


@dataclass(frozen=True)
class Outcome:
    """How a command or a run ends when an error of one kind stops it."""

    status: EndStatus
    """What ``--json``, the session's record, the API's and the MCP tools' results say."""
    exit_code: ExitCode
    """What the command line exits with."""
    title: str
    """The heading a person sees (the app's error modal); a class may narrow it."""
    is_error: bool
    """A run that ends so reports an error (the command line's error line, the app's error
    modal); otherwise it ended on its own terms, with its best candidate where it has one."""


class RalphError(Exception):
    """Base of every error meant for a person: ``message`` says what is wrong, ``hint``
    what to do about it. Never raised itself: every error belongs to a kind of ``OUTCOMES``
    (defining a class that does not is a ``TypeError``)."""

    title: ClassVar[str] = "Something went wrong"
    """The heading a person sees: its kind's (set from ``OUTCOMES``), or a narrower one."""
    default_hint: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for decided in ("status", "exit_code"):
            if decided in vars(cls):
                raise TypeError(f"{cls.__name__} sets {decided}: its kind's, in errors.OUTCOMES")
        kinds = (k for k in cls.__mro__ if issubclass(k, RalphError) and k is not RalphError)
        if _OUTCOMES_DECLARED and not any(kind in OUTCOMES for kind in kinds):
            raise TypeError(f"{cls.__name__} derives from no kind of errors.OUTCOMES")

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        # A message may quote a URL with a password in it (an SDK naming the endpoint it
        # could not reach): every way an error is shown reads these fields, so they are
        # redacted once, here.
        message = redact_urls(message)
        super().__init__(message)
        self.message = message
        hint = hint if hint is not None else self.default_hint
        self.hint = redact_urls(hint) if hint is not None else None

    def __str__(self) -> str:
        return self.message

    @property
    def outcome(self) -> Outcome:
        """How this error ends what it stops: its kind's row of ``OUTCOMES``."""
        return outcome_of(self)

    @property
    def status(self) -> EndStatus:
        """The status ``--json`` reports when this error ends a command."""
        return self.outcome.status

    @property
    def exit_code(self) -> ExitCode:
        return self.outcome.exit_code

    def one_line(self) -> str:
        """The message and its hint as one line, as the command line prints it."""
        text = " ".join(str(self).split())
        return f"{text} ({self.hint})" if self.hint else text

    def to_json(self) -> dict[str, object]:
        """What ``--json`` prints when this error ends a command."""
        return {
            "status": self.status,
            "error": self.one_line(),
            "errorKind": type(self).__name__,
            "exitCode": int(self.exit_code),
        }


_OUTCOMES_DECLARED = False
"""Whether ``OUTCOMES`` exists yet: the kinds themselves are declared before it."""


class UsageError(RalphError, ValueError):
    """Bad usage or input: nothing was run and nothing was written."""


class ProviderError(RalphError):
    """A model provider failed in a way that stops the run."""


class CostCapReached(RalphError):
    """The run's cost or token cap was reached: the run stops cleanly with its best candidate.
    Not a provider's failure: nothing that means "the provider failed" may catch it."""


class RunTimedOut(RalphError):
    """The run passed its ``--timeout``: it stops with its best candidate."""


class InternalError(RalphError):
    """Something unexpected broke: a bug, reported with the exception that caused it."""

    default_hint = "a bug in ralph-tui: please report it, with the session's events.jsonl"

    @classmethod
    def of(cls, exc: BaseException) -> InternalError:
        detail = " ".join(str(exc).split()) or "no detail"
        return cls(f"unexpected {type(exc).__name__}: {detail}")


class Cancelled(RalphError):
    """The user cancelled (Ctrl-C): what was done so far is kept."""


class TerminatedError(Cancelled):
    """SIGTERM stopped the command the way Ctrl-C does: what was done so far is kept."""


class Terminated(KeyboardInterrupt):
    """Raised where SIGTERM arrives, so it unwinds (and records) like Ctrl-C."""


_CANCELLED = Outcome("cancelled", ExitCode.CANCELLED, "Cancelled", is_error=False)
_TERMINATED = Outcome("cancelled", ExitCode.TERMINATED, "Terminated", is_error=False)
_CRASHED = Outcome("crashed", ExitCode.INTERNAL, "Unexpected error", is_error=True)

OUTCOMES: dict[type[BaseException], Outcome] = {
    UsageError: Outcome("rejected", ExitCode.USAGE, "Cannot start", is_error=True),
    ProviderError: Outcome(
        "error", ExitCode.PROVIDER, "The provider stopped the run", is_error=True
    ),
    CostCapReached: Outcome("capped", ExitCode.FAILED, "The run reached its cap", is_error=False),
    RunTimedOut: Outcome("timed_out", ExitCode.FAILED, "The run timed out", is_error=False),
    Cancelled: _CANCELLED,
    TerminatedError: _TERMINATED,
    KeyboardInterrupt: _CANCELLED,
    Terminated: _TERMINATED,
    asyncio.CancelledError: _CANCELLED,
    InternalError: _CRASHED,
    BaseException: _CRASHED,
}
"""How what stopped a command or a run ends it, by kind: the most specific kind wins, and
anything else (a bug) is ``crashed``; the first kind with a status is the one a run recorded
with it reports (``events.KIND_OF_STATUS``). The one place a status, an exit code and a kind's
heading are decided: ``events.EXIT_CODE_OF_STATUS``, the runner's recorded status, the
command line, the API, the MCP tools and the app all read it."""

for _kind, _outcome in OUTCOMES.items():
    if issubclass(_kind, RalphError):
        _kind.title = _outcome.title
_OUTCOMES_DECLARED = True


def outcome_of(stop: BaseException | type[BaseException]) -> Outcome:
    """How ``stop`` (an exception, or its class) ends what it stopped."""
    kind = stop if isinstance(stop, type) else type(stop)
    return next(OUTCOMES[cls] for cls in kind.__mro__ if cls in OUTCOMES)


def as_ralph_error(exc: BaseException) -> RalphError:
    """``exc`` itself when it is meant for a person, ``Cancelled`` for Ctrl-C, else an
    ``InternalError`` naming it."""
    if isinstance(exc, RalphError):
        return exc
    if isinstance(exc, Terminated):
        return TerminatedError("terminated (SIGTERM); what was done so far is kept")
    if isinstance(exc, KeyboardInterrupt):
        return Cancelled("cancelled")
    return InternalError.of(exc)
