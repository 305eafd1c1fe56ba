"""Fixtures of the LLM-layer tests: a fake API and clients of the real SDKs wired to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.llm.openai_client import OpenAIClient
from tests.llm.llm_wire import FakeAPI


@pytest.fixture
def api() -> FakeAPI:
    return FakeAPI()


@pytest.fixture
def make_anthropic(api: FakeAPI) -> Callable[..., AnthropicClient]:
    def make(model: str = "claude-sonnet-4-6") -> AnthropicClient:
        return AnthropicClient(
            model,
            api_key="sk-ant-test",
            base_url="https://anthropic.test",
            http_client=api.http_client(),
        )

    return make


@pytest.fixture
def make_openai(api: FakeAPI) -> Callable[..., OpenAIClient]:
    def make(
        model: str = "gpt-4o-mini", base_url: str = "https://api.openai.com/v1", **kw: Any
    ) -> OpenAIClient:
        return OpenAIClient(
            model,
            api_key="sk-test",
            base_url=base_url,
            http_client=api.http_client(),
            **kw,
        )

    return make
