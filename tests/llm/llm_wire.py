"""A fake provider API behind ``httpx2.MockTransport``, and canned wire-format bodies.

The real anthropic and openai SDKs talk to it, so requests and responses go through
the SDKs' own serialization and error handling; only the network is replaced.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2

from ralph_tui.config import Settings

Reply = httpx2.Response | Callable[[httpx2.Request], httpx2.Response]


class FakeAPI:
    """Answers each request with the next queued reply and records every request."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[httpx2.Request] = []

    def reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.replies.append(httpx2.Response(status, json=body, headers=headers))

    def fail_with(self, error: type[httpx2.TransportError]) -> None:
        def raise_error(request: httpx2.Request) -> httpx2.Response:
            raise error("simulated transport failure", request=request)

        self.replies.append(raise_error)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        assert self.replies, f"unexpected request to {request.url}"
        reply = self.replies.pop(0)
        return reply(request) if callable(reply) else reply

    def http_client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle))

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(request.content) for request in self.requests]


def make_settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)


def anthropic_message(
    content: list[dict[str, Any]],
    *,
    model: str = "claude-sonnet-4-6",
    stop_reason: str = "end_turn",
    input_tokens: int = 1000,
    output_tokens: int = 100,
) -> dict[str, Any]:
    """A Messages API response body."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of a Messages API request body (sent as text blocks)."""
    system = body.get("system", [])
    return system if isinstance(system, str) else "\n".join(b["text"] for b in system)


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def openai_completion(
    message: dict[str, Any],
    *,
    model: str = "gpt-4o-mini-2024-07-18",
    finish_reason: str = "stop",
    prompt_tokens: int = 1000,
    completion_tokens: int = 100,
) -> dict[str, Any]:
    """A Chat Completions response body."""
    return {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "refusal": None, **message},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def openai_error(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
