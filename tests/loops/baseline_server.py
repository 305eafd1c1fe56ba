"""A fake OpenAI-compatible server for CLI tests: every role is answered by the offline
baseline, except a ``failing`` one, which never makes a tool call (as weak models do), and
submissions whose ``varies`` fields carry the attempt's number (as a model sampled at a
temperature words each attempt its own way)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

import httpx2
import pytest

from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.types import ChatMessage, ToolCall, ToolDefinition
from tests.llm.llm_wire import openai_completion
from tests.llm.loopback import serving


def role_of(tool: ToolDefinition) -> str:
    """Which role a request is for, from its output tool's fields."""
    props = set(tool.parameters.get("properties", {}))
    if props == {"action"}:
        variants = tool.parameters["properties"]["action"]["anyOf"]
        fields = {name for variant in variants for name in variant["properties"]}
        return "doc_reader" if "brief" in fields else "worker"
    names = {
        frozenset({"ok", "issues"}): "judge",
        frozenset({"lines", "issues"}): "judge",
        frozenset({"subtasks"}): "decomposer",
        frozenset({"output"}): "aggregator",
        frozenset({"output", "memoryUpdate"}): "reasoner",
    }
    return names.get(frozenset(props), "other")


class BaselineServer:
    """Chat Completions answered by the offline baseline; ``failing`` never calls a tool.

    ``varies`` names fields of the submitted output (the QA worker's ``answer``, the task
    reasoner's ``output`` or ``memoryUpdate``) to which `` (attempt N)`` is added, N counting
    the submissions: the offline baseline answers the same inputs the same way, and a run
    stops once an iteration repeats the one before, so a test that needs a long run of
    failing iterations needs answers that differ."""

    def __init__(self, failing: str = "", varies: Sequence[str] = ()) -> None:
        self.failing = failing
        self.varies = tuple(varies)
        self.attempts = 0
        self.baseline = OfflineClient()
        self.requests: list[str] = []
        self.bodies: dict[str, list[dict[str, Any]]] = {}
        self.max_tokens: dict[str, set[int]] = {}

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/embeddings"):
            self.requests.append("embeddings")
            # As many local servers: no embeddings endpoint.
            return httpx2.Response(404, json={"error": {"message": "Not Found"}})
        body = json.loads(request.content)
        tools = [ToolDefinition(**t["function"]) for t in body.get("tools", [])]
        role = role_of(tools[0]) if tools else "sub"
        self.requests.append(role)
        self.bodies.setdefault(role, []).append(body)
        self.max_tokens.setdefault(role, set()).add(body.get("max_tokens", 0))
        if role == self.failing:
            message: dict[str, Any] = {"content": "I think the answer is fine."}
            return httpx2.Response(200, json=openai_completion(message))
        completion = await self.baseline.chat(
            [_message(m) for m in body["messages"]], tools=tools or None
        )
        calls = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": self.varied(c.arguments)},
            }
            for c in completion.tool_calls
        ]
        message = {"content": completion.text or None, **({"tool_calls": calls} if calls else {})}
        return httpx2.Response(200, json=openai_completion(message))

    def varied(self, arguments: str) -> str:
        """A tool call's arguments, its ``varies`` fields (in the output or the agent's
        final ``action``) marked with the attempt's number."""
        if not self.varies:
            return arguments
        call = json.loads(arguments)
        output = call.get("action") if isinstance(call.get("action"), dict) else call
        fields = [name for name in self.varies if isinstance(output.get(name), str)]
        if not fields:
            return arguments
        self.attempts += 1
        for name in fields:
            output[name] += f" (attempt {self.attempts})"
        return json.dumps(call)

    def answer(self, request: httpx2.Request) -> httpx2.Response:
        """``handle``, for a server that answers from threads (``tests.llm.loopback``)."""
        return asyncio.run(self.handle(request))


def _message(wire: dict[str, Any]) -> ChatMessage:
    calls = [
        ToolCall(id=c["id"], name=c["function"]["name"], arguments=c["function"]["arguments"])
        for c in wire.get("tool_calls") or []
    ]
    return ChatMessage(
        role=wire["role"],
        content=wire.get("content") or "",
        tool_calls=calls,
        tool_call_id=wire.get("tool_call_id"),
    )


LOCAL_MODELS = ["--generate-model", "openai:local", "--validate-model", "openai:local"]
"""CLI flags putting every role on the OpenAI-compatible endpoint ``use_server`` sets."""


def use_server(monkeypatch: pytest.MonkeyPatch, server: BaselineServer) -> None:
    """Send the CLI's provider requests to ``server``, through the real openai SDK."""
    from ralph_tui.cli import run as cli_run
    from ralph_tui.loops import runner

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
    monkeypatch.setattr(cli_run, "execute_run", partial(runner.execute_run, http_client=client))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://local.test/v1")


@contextmanager
def serving_baseline(server: BaselineServer) -> Iterator[dict[str, str]]:
    """``server`` answering on 127.0.0.1 until the block ends, for a run in another process;
    yields the environment that sends that process's ``openai:local`` requests to it."""
    with serving(server.answer) as loopback:
        yield {
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": loopback.base_url("local.test", "/v1"),
        }
