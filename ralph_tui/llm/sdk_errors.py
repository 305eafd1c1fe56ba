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
        return LLMTimeoutError(
            "the request timed out; the provider may be slow or overloaded", **where
        )
    if isinstance(exc, sdk.APIConnectionError):
        return LLMConnectionError(
            f"could not reach the {provider} API; check the network and the base URL", **where
        )
    if isinstance(exc, sdk.APIStatusError):
        return _from_status(exc.status_code, exc.response.headers, _detail(exc), provider, model)
    return BadRequestError(_shorten(str(exc)) or type(exc).__name__, **where)


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
