"""A scripted provider that answers a tree of agents, each by its own script.

Children run at once (``rlm_query_batched``), so their requests arrive in no fixed order: each
request is answered by the script of the agent whose first user message holds the script's
key, with the turn numbered by the assistant turns the request already holds. The real
anthropic or openai SDK talks to it over ``httpx2.MockTransport``, in its own wire format.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import httpx2

from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.openai_client import OpenAIClient
from tests.agents.conftest import tool_use
from tests.llm.llm_wire import FakeAPI, anthropic_message, openai_completion, streamed

Wire = Literal["anthropic", "openai"]


def code(source: str) -> dict[str, Any]:
    return {"code": source, "resultReady": False}


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A turn that calls the tool ``name`` (an LCM agent's tools) rather than the output
    tool."""
    return {"__tool__": name, "arguments": arguments}


def first_user_text(body: dict[str, Any]) -> str:
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            return content
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return ""


class AgentsAPI(FakeAPI):
    """See the module docstring. ``turns`` counts the requests each script answered."""

    def __init__(self, wire: Wire = "anthropic") -> None:
        super().__init__()
        self.wire = wire
        self.scripts: dict[str, list[dict[str, Any]]] = {}
        self.turns: dict[str, int] = {}

    def script(self, key: str, *turns: dict[str, Any]) -> None:
        self.scripts[key] = list(turns)
        self.turns[key] = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        body = json.loads(request.content)
        first = first_user_text(body)
        keys = [key for key in self.scripts if key in first]
        assert len(keys) == 1, f"no single script for a request whose question is {first[:200]!r}"
        [key] = keys
        step = sum(1 for message in body["messages"] if message["role"] == "assistant")
        turns = self.scripts[key]
        assert step < len(turns), f"script {key!r} has no turn {step + 1}"
        self.turns[key] += 1
        return streamed(request, httpx2.Response(200, json=self.wire_turn(turns[step])))

    def wire_turn(self, arguments: dict[str, Any]) -> dict[str, Any]:
        name = "submit_output"
        if "__tool__" in arguments:
            name, arguments = arguments["__tool__"], arguments["arguments"]
        if self.wire == "anthropic":
            return anthropic_message([tool_use(arguments, name)], stop_reason="tool_use")
        call = {
            "id": f"call_{abs(hash(json.dumps(arguments))) % 10**8}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        return openai_completion(
            {"content": None, "tool_calls": [call]}, finish_reason="tool_calls"
        )

    def client(self) -> AnthropicClient | OpenAIClient:
        if self.wire == "anthropic":
            return AnthropicClient(
                "claude-sonnet-4-6",
                api_key="sk-ant-test",
                base_url="https://anthropic.test",
                http_client=self.http_client(),
            )
        return OpenAIClient(
            "gpt-4o-mini",
            api_key="sk-test",
            base_url="https://openai.test/v1",
            http_client=self.http_client(),
        )

    def observations(self, key: str) -> list[str]:
        """The tool results the agent of ``key`` was sent, in order (from its last request)."""
        bodies = [body for body in self.bodies if key in first_user_text(body)]
        last = max(bodies, key=lambda body: len(body["messages"]))
        found = []
        for message in last["messages"]:
            content = message["content"]
            if message["role"] == "tool":
                found.append(content if isinstance(content, str) else json.dumps(content))
            elif isinstance(content, list):
                found.extend(
                    block["content"] if isinstance(block["content"], str) else json.dumps(block)
                    for block in content
                    if isinstance(block, dict) and block.get("type") == "tool_result"
                )
        return found

    def system_of(self, key: str) -> str:
        body = next(body for body in self.bodies if key in first_user_text(body))
        if self.wire == "openai":
            return str(body["messages"][0]["content"])
        system = body.get("system", [])
        return system if isinstance(system, str) else "\n".join(b["text"] for b in system)
