"""Turn an anthropic or openai SDK exception into one of our typed ``LLMError``s.

Both SDKs expose the same exception names at top level (``APIStatusError`` with
``status_code``/``response``/``body``, ``APITimeoutError``, ``APIConnectionError``), so one
translation serves both; the caller passes its SDK module. Messages are one short line
that tells a person what to do, never the SDK's full ``repr`` of the response body.
"""

from __future__ import annotations

import email.utils
import math
import time
from types import ModuleType
from typing import Any

from ralph_tui.llm.errors import (
    AuthenticationError,
    BadRequestError,
    ContextTooLongError,
    LLMConnectionError,
    LLMError,
    LLMTimeoutError,
    OverloadedError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
)
from ralph_tui.llm.keys import key_env_var

CONTEXT_TOO_LONG_MARKERS = (
    "prompt is too long",
    "maximum context length",
    "context_length_exceeded",
    "context length",
    "context window",
    "exceed_context_size",
    "exceeds the available context size",
    "input is too long",
    "too many tokens",
)
"""Lower-case phrases by which Anthropic, OpenAI and common local servers (vLLM,
llama.cpp, Ollama) say that a prompt does not fit."""

MAX_DETAIL_CHARS = 300

OVERLOAD_STATUSES = (502, 503, 529)
"""Statuses that say the server is busy or restarting, not that the request was wrong: worth
a retry. Any other 5xx is a failure on this request (a local server's 500 for a request it
cannot render) and is reported, not retried."""


def translate_sdk_error(exc: Exception, sdk: ModuleType, *, provider: str, model: str) -> LLMError:
    """Our typed error for ``exc``, an exception raised by ``sdk`` (anthropic or openai)."""
    where = {"provider": provider, "model": model}
    if isinstance(exc, sdk.APITimeoutError):
        return timed_out(provider, model)
    if isinstance(exc, sdk.APIConnectionError):
        return LLMConnectionError(
            f"could not reach the {provider} API; check the network and the base URL", **where
        )
    if isinstance(exc, sdk.APIStatusError) and exc.status_code >= 400:
        return _from_status(exc.status_code, exc.response.headers, _detail(exc), provider, model)
    if _is_stream_error_event(exc, sdk):
        # An error event in the middle of a stream: the response's status was 200, so the
        # error's own type (or code) says what kind of failure it was.
        headers = exc.response.headers if isinstance(exc, sdk.APIStatusError) else {}
        status = stream_error_status(getattr(exc, "body", None))
        return _from_status(status, headers, _detail(exc), provider, model)
    return BadRequestError(_shorten(str(exc)) or type(exc).__name__, **where)


def timed_out(provider: str, model: str) -> LLMTimeoutError:
    """The error of a request (whole or streamed) that ran past its timeout."""
    return LLMTimeoutError(
        "the request timed out; the provider may be slow or overloaded",
        provider=provider,
        model=model,
    )


def stream_interrupted(received_chars: int, *, provider: str, model: str) -> StreamInterruptedError:
    """The error of a stream that stopped before its turn was complete: the connection
    dropped, or the server ended the response early."""
    return StreamInterruptedError(
        f"the response stream stopped before the turn was complete ({received_chars} "
        "characters received); the connection or the server dropped it",
        provider=provider,
        model=model,
    )


def _is_stream_error_event(exc: Exception, sdk: ModuleType) -> bool:
    """Whether ``exc`` is an error event read from a stream (Anthropic raises it with the
    stream's 200 status, OpenAI as a plain ``APIError`` with the error as its body)."""
    if isinstance(exc, sdk.APIStatusError):
        return True
    return type(exc) is sdk.APIError and getattr(exc, "body", None) is not None


STATUS_OF_ERROR_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
"""The HTTP status each provider error type stands for (Anthropic's types, OpenAI's and
OpenAI-compatible servers'), for errors that arrive inside a stream whose status was 200."""


def stream_error_status(body: object) -> int:
    """The status an error event inside a stream stands for: its type, else a numeric
    ``code`` (llama.cpp sends one), else 500: the server failed mid-answer."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return 500
    kind = error.get("type")
    if isinstance(kind, str) and kind in STATUS_OF_ERROR_TYPE:
        return STATUS_OF_ERROR_TYPE[kind]
    code = error.get("code")
    if isinstance(code, int) and 400 <= code < 600:
        return code
    if isinstance(code, str) and code in STATUS_OF_ERROR_TYPE:
        return STATUS_OF_ERROR_TYPE[code]
    return 500


def _from_status(status: int, headers: Any, detail: str, provider: str, model: str) -> LLMError:
    where = {"provider": provider, "model": model}
    if status in (401, 402, 403):
        return AuthenticationError(_auth_message(status, detail, provider), **where)
    if status == 429:
        return RateLimitError(
            f"rate limited (429): {detail}", retry_after_s=retry_after_seconds(headers), **where
        )
    if status in (408, 504):
        return LLMTimeoutError(f"the provider timed out ({status}): {detail}", **where)
    if status in OVERLOAD_STATUSES:
        return OverloadedError(f"the provider is overloaded ({status}): {detail}", **where)
    if status >= 500:
        return ServerError(
            f"the server failed on this request ({status}): {detail}. Sending it again would "
            "fail the same way; check the server's log",
            **where,
        )
    if status == 413 or (status == 400 and _says_context_too_long(detail)):
        return ContextTooLongError(
            f"the prompt does not fit the model's context window ({status}): {detail}", **where
        )
    if status == 404:
        return BadRequestError(f"not found (404), check the model name: {detail}", **where)
    return BadRequestError(f"request rejected ({status}): {detail}", **where)


def _auth_message(status: int, detail: str, provider: str) -> str:
    if status == 401:
        return (
            f"the API key was rejected (401): {detail}. Set a valid {key_env_var(provider)}, "
            "or run with --provider offline"
        )
    if status == 402:
        return f"billing problem with the {provider} account (402): {detail}"
    return f"the API key lacks permission for this model or endpoint (403): {detail}"


def _says_context_too_long(detail: str) -> bool:
    lowered = detail.lower()
    return any(marker in lowered for marker in CONTEXT_TOO_LONG_MARKERS)


def _detail(exc: Any) -> str:
    """The provider's own error message (with its code), not the SDK's dump of the body."""
    body = exc.body
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        code = error.get("code") or error.get("type")
        message = str(error["message"])
        return _shorten(f"{message} [{code}]" if isinstance(code, str) else message)
    if isinstance(body, str) and body.strip():
        return _shorten(body)
    return _shorten(str(getattr(exc, "message", "") or exc))


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 1] + "…"


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds the provider asks us to wait: ``retry-after-ms``, else ``retry-after``
    (seconds or an HTTP date). ``None`` when absent or unreadable."""
    millis = _float_or_none(headers.get("retry-after-ms"))
    if millis is not None:
        return max(millis / 1000, 0.0)
    raw = headers.get("retry-after")
    if raw is None:
        return None
    seconds = _float_or_none(raw)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _float_or_none(value: object) -> float | None:
    if not isinstance(value, str | int | float):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
