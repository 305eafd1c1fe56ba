"""Agent tests talk to the real SDK clients over a fake API at the network boundary."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph_tui.events import BaseEvent
from ralph_tui.llm.anthropic_client import AnthropicClient
from tests.llm.llm_wire import FakeAPI, anthropic_message


def tool_use(arguments: dict[str, Any] | str, name: str = "submit_output") -> dict[str, Any]:
    """An Anthropic ``tool_use`` block (a string ``arguments`` is sent as given, even bad JSON)."""
    value = json.loads(arguments) if isinstance(arguments, str) else arguments
    return {
        "type": "tool_use",
        "id": f"toolu_{abs(hash(str(value))) % 10**8}",
        "name": name,
        "input": value,
    }


def reply_tool(api: FakeAPI, arguments: dict[str, Any], name: str = "submit_output") -> None:
    api.reply(200, anthropic_message([tool_use(arguments, name)], stop_reason="tool_use"))


def reply_text(api: FakeAPI, text: str) -> None:
    api.reply(200, anthropic_message([{"type": "text", "text": text}]))


@pytest.fixture
def api() -> FakeAPI:
    return FakeAPI()


@pytest.fixture
def claude(api: FakeAPI) -> AnthropicClient:
    return AnthropicClient(
        "claude-sonnet-4-6",
        api_key="sk-ant-test",
        base_url="https://anthropic.test",
        http_client=api.http_client(),
    )


class Recorder(list[BaseEvent]):
    """An ``Emit`` that keeps every event."""

    def __call__(self, event: BaseEvent) -> None:
        self.append(event)

    def of(self, kind: type[BaseEvent]) -> list[Any]:
        return [e for e in self if isinstance(e, kind)]


@pytest.fixture
def events() -> Recorder:
    return Recorder()
