"""Typed LLM failures the loops can act on. No raw SDK exception leaves the LLM layer."""

from __future__ import annotations

from ralph_tui.errors import ProviderError


class LLMError(ProviderError):
    """Base of every failure of an LLM call. ``provider`` and ``model`` say whose call."""

    retryable = False
    stops_run = False

    def __init__(
        self, message: str, *, provider: str = "", model: str = "", hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.provider = provider
        self.model = model

    def __str__(self) -> str:
        where = ":".join(part for part in (self.provider, self.model) if part)
        return f"{where}: {self.message}" if where else self.message


class AuthenticationError(LLMError):
    """The key is missing, wrong, or lacks permission. Retrying will not help."""

    title = "The provider refused the key"

    stops_run = True


class RateLimitError(LLMError):
    retryable = True

    def __init__(self, message: str, *, retry_after_s: float | None = None, **kw: str) -> None:
        super().__init__(message, **kw)
        self.retry_after_s = retry_after_s


class OverloadedError(LLMError):
    """The provider is overloaded or answered 5xx."""

    retryable = True


class ServerError(LLMError):
    """The server failed on this request (a 5xx other than overload). Not retried: the same
    request would fail again."""


class LLMTimeoutError(LLMError):
    retryable = True


class StreamInterruptedError(LLMError):
    """A streamed answer stopped before the turn was complete (the connection dropped, or
    the server died mid-answer). Sending the request again may well work."""

    retryable = True


class LLMConnectionError(LLMError):
    """The provider could not be reached (network, DNS, refused connection)."""

    title = "The provider cannot be reached"

    retryable = True
    stops_run = True


class ContextTooLongError(LLMError):
    """The prompt does not fit the model's context window."""


class BadRequestError(LLMError):
    """The provider rejected the request as malformed (unknown model, bad parameter...)."""
