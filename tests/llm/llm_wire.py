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
    """Answers each request with the next queued reply and records every request.

    A request that asks to stream gets its reply as the provider's server-sent events
    (``streamed``), unless ``streams`` is off: then it is answered whole, as a server that
    ignores ``stream`` answers."""

    def __init__(self, *, streams: bool = True) -> None:
        self.replies: list[Reply] = []
        self.requests: list[httpx2.Request] = []
        self.streams = streams

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
        response = reply(request) if callable(reply) else reply
        return streamed(request, response) if self.streams else response

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


def asks_to_stream(request: httpx2.Request) -> bool:
    try:
        body = json.loads(request.content)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("stream") is True


def streamed(request: httpx2.Request, response: httpx2.Response) -> httpx2.Response:
    """``response`` as the provider streams it when ``request`` asks to stream: a whole
    answer (status 200, JSON) becomes its server-sent events; anything else is unchanged,
    as the real APIs answer a failed request before any stream starts."""
    if not asks_to_stream(request) or response.status_code != 200:
        return response
    if not response.headers.get("content-type", "").startswith("application/json"):
        return response
    body = json.loads(response.read())
    if request.url.path.endswith("/messages"):
        events = anthropic_events(body)
    else:
        usage = json.loads(request.content).get("stream_options", {}).get("include_usage")
        events = openai_events(body, with_usage=bool(usage))
    return sse_response(events)


def sse_response(events: list[tuple[str | None, Any]]) -> httpx2.Response:
    return httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=sse_bytes(events)
    )


def sse_bytes(events: list[tuple[str | None, Any]]) -> bytes:
    """Server-sent events: each ``(event name or None, data)``; data other than a string is
    written as JSON."""
    frames = []
    for name, data in events:
        line = data if isinstance(data, str) else json.dumps(data)
        frames.append((f"event: {name}\n" if name else "") + f"data: {line}\n\n")
    return "".join(frames).encode()


PIECE_CHARS = 7
"""How many characters each canned delta carries: small, so turns arrive in many pieces."""


def pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def anthropic_events(message: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The Messages API stream of ``message`` (a whole response body), as the API sends it:
    input usage first, text and tool input as deltas, the stop reason and output usage last."""
    usage = message["usage"]
    start_usage = {k: v for k, v in usage.items() if k != "output_tokens"} | {"output_tokens": 1}
    start = {**message, "content": [], "stop_reason": None, "usage": start_usage}
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opened, deltas = (
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])],
            )
        else:
            opened = {**block, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": piece}
                for piece in pieces(json.dumps(block["input"]))
            ]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def openai_events(completion: dict[str, Any], *, with_usage: bool) -> list[tuple[str | None, Any]]:
    """The Chat Completions stream of ``completion`` (a whole response body): the role, the
    content or refusal in pieces, each tool call's id and name then its arguments in pieces,
    the finish reason, the usage chunk when asked for, then ``[DONE]``."""
    head = {k: completion[k] for k in ("id", "created", "model")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return None, {**head, "object": "chat.completion.chunk", "choices": [choice]}

    [choice] = completion["choices"]
    message = choice["message"]
    events = [chunk({"role": "assistant", "content": ""})]
    for field_name in ("content", "refusal"):
        events += [chunk({field_name: piece}) for piece in pieces(message.get(field_name) or "")]
    for index, call in enumerate(message.get("tool_calls") or []):
        named = {"index": index, "id": call["id"], "type": "function"}
        named["function"] = {"name": call["function"]["name"], "arguments": ""}
        events.append(chunk({"tool_calls": [named]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in pieces(call["function"]["arguments"])
        ]
    events.append(chunk({}, choice["finish_reason"]))
    if with_usage:
        usage_chunk = {**head, "object": "chat.completion.chunk", "choices": []}
        events.append((None, usage_chunk | {"usage": completion.get("usage")}))
    events.append((None, "[DONE]"))
    return events
