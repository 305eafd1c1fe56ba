"""The one base of every error ralph-tui reports to a person, and the exit codes.

Each error kind is declared once, as a subclass with a ``title`` (what the app's error modal
shows as its heading), an ``exit_code`` (what the command line exits with) and, where one
fits every case, a ``hint`` (what to do). The command line renders any of them as one line
on stderr; the app as its error modal. Neither looks at the class: both read these fields.
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

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


class RalphError(Exception):
    """Base of every error meant for a person: ``message`` says what is wrong, ``hint``
    what to do about it."""

    title: ClassVar[str] = "Something went wrong"
    exit_code: ClassVar[ExitCode] = ExitCode.INTERNAL
    status: ClassVar[str] = "crashed"
    """The status ``--json`` reports when this error ends a command."""
    default_hint: ClassVar[str | None] = None

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


class UsageError(RalphError, ValueError):
    """Bad usage or input: nothing was run and nothing was written."""

    title = "Cannot start"
    exit_code = ExitCode.USAGE
    status = "rejected"


class ProviderError(RalphError):
    """A model provider failed in a way that stops the run."""

    title = "The provider stopped the run"
    exit_code = ExitCode.PROVIDER
    status = "error"


class InternalError(RalphError):
    """Something unexpected broke: a bug, reported with the exception that caused it."""

    title = "Unexpected error"
    exit_code = ExitCode.INTERNAL
    default_hint = "a bug in ralph-tui: please report it, with the session's events.jsonl"

    @classmethod
    def of(cls, exc: BaseException) -> InternalError:
        detail = " ".join(str(exc).split()) or "no detail"
        return cls(f"unexpected {type(exc).__name__}: {detail}")


class Cancelled(RalphError):
    """The user cancelled (Ctrl-C): what was done so far is kept."""

    title = "Cancelled"
    exit_code = ExitCode.CANCELLED
    status = "cancelled"


class TerminatedError(Cancelled):
    """SIGTERM stopped the command the way Ctrl-C does: what was done so far is kept."""

    title = "Terminated"
    exit_code = ExitCode.TERMINATED


class Terminated(KeyboardInterrupt):
    """Raised where SIGTERM arrives, so it unwinds (and records) like Ctrl-C."""


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
