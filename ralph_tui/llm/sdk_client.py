"""What the Anthropic and OpenAI clients share: one chat call through an official SDK."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any

from ralph_tui.llm.errors import AuthenticationError
from ralph_tui.llm.keys import missing_key
from ralph_tui.llm.sdk_errors import translate_sdk_error
from ralph_tui.llm.types import ChatMessage, Completion, ToolChoice, ToolDefinition


class SDKClient(ABC):
    """An ``LLMClient`` on an official async SDK; subclasses shape requests and responses.

    ``_sdk`` is the SDK module and ``_client`` its async client; every SDK failure becomes
    one of our typed errors.
    """

    provider: str
    model: str
    context_window_tokens: int
    _sdk: Any
    _client: Any

    @abstractmethod
    def request_params(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK's create call for one chat call."""

    @abstractmethod
    async def _create(self, params: dict[str, Any]) -> Any:
        """Send the request through the SDK."""

    @abstractmethod
    def _completion(self, response: Any, latency_ms: float) -> Completion:
        """The SDK's response as a provider-neutral completion."""

    @property
    @abstractmethod
    def _sdk_error(self) -> type[Exception]:
        """The SDK's base exception class."""

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
    ) -> Completion:
        params = self.request_params(
            messages,
            tools=tools,
            tool_choice=tool_choice,
            temperature=temperature,
            max_tokens=max_tokens,
        )
        started = time.perf_counter()
        try:
            response = await self._create(params)
        except self._sdk_error as exc:
            raise translate_sdk_error(
                exc, self._sdk, provider=self.provider, model=self.model
            ) from exc
        return self._completion(response, (time.perf_counter() - started) * 1000)

    def _no_key(self) -> AuthenticationError:
        """The error for a client the SDK cannot authenticate: names the variable to set."""
        return missing_key(self.provider, self.model)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()
