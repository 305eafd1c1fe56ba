"""What the Anthropic and OpenAI clients share: one chat call through an official SDK,
streamed (the turn assembled from its deltas) or as a whole request."""

from __future__ import annotations

import asyncio
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from ralph_tui.llm.errors import AuthenticationError, BadRequestError, LLMError
from ralph_tui.llm.keys import missing_key
from ralph_tui.llm.sdk_errors import stream_interrupted, timed_out, translate_sdk_error
from ralph_tui.llm.streaming import (
    FirstToken,
    OnPartial,
    PartialThrottle,
    TurnAssembler,
    ensure_complete,
)
from ralph_tui.llm.types import ChatMessage, Completion, ToolChoice, ToolDefinition

OnNotice = Callable[[str], None]


class SDKClient(ABC):
    """An ``LLMClient`` on an official async SDK; subclasses shape requests and responses.

    ``_sdk`` is the SDK module and ``_client`` its async client; every SDK failure becomes
    one of our typed errors. Requests are streamed while ``streams`` is on: off with
    ``--no-stream``, and turned off (said once through ``on_notice``) when the server
    answers a streamed request whole or rejects it for streaming, or when its streams do
    not report token usage (whole requests do, on every server met so far). A turn whose
    server reported no usage at all is said once too; ``MeteredClient`` counts its tokens
    with a tokenizer instead (``ralph_tui.llm.tokens``), never as 0.
    """

    provider: str
    model: str
    context_window_tokens: int
    timeout_s: float
    streams: bool
    on_notice: OnNotice | None
    _sdk: Any
    _client: Any

    def _set_up_requests(
        self, *, timeout_s: float, stream: bool, on_notice: OnNotice | None
    ) -> None:
        """What every SDK client's constructor sets: the timeout of one turn, whether to
        stream, and who hears about the server."""
        self.timeout_s = timeout_s
        self.streams = stream
        self.on_notice = on_notice
        self._said: set[str] = set()

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
        """Send the request through the SDK, for a whole answer."""

    @abstractmethod
    async def _open_stream(self, params: dict[str, Any]) -> Any:
        """Send the request through the SDK for a streamed answer: the SDK's stream."""

    @abstractmethod
    def _assembler(self, first_token: FirstToken) -> TurnAssembler:
        """A fresh assembler of this provider's stream chunks."""

    @abstractmethod
    def _whole_response(self, data: Any) -> Any:
        """The SDK's response object for a whole answer's JSON body."""

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
        on_partial: OnPartial | None = None,
    ) -> Completion:
        params = self.request_params(
            messages,
            tools=tools,
            tool_choice=tool_choice,
            temperature=temperature,
            max_tokens=max_tokens,
        )
        if self.streams:
            try:
                return await self._chat_streamed(params, on_partial)
            except BadRequestError as error:
                if "stream" not in error.message.lower():
                    raise
                self._stop_streaming(
                    f"the server does not stream (it rejected a streamed request: {error.message})"
                )
        completion = await self._chat_whole(params)
        if completion.usage.input_tokens <= 0:
            self._say_once(
                "the server reports no token usage; its calls are counted with tokens "
                "estimated by a tokenizer"
            )
        return completion

    async def _chat_whole(self, params: dict[str, Any]) -> Completion:
        started = time.perf_counter()
        try:
            response = await self._create(params)
        except self._sdk_error as exc:
            raise self._translated(exc) from exc
        return self._completion(response, _ms_since(started))

    async def _chat_streamed(
        self, params: dict[str, Any], on_partial: OnPartial | None
    ) -> Completion:
        """One streamed request: the turn assembled from its chunks, checked complete.

        The whole turn gets the time a whole request gets (``timeout_s``), not that much
        per chunk. Cancelling the awaiting task closes the response, which ends the
        server's request."""
        started = time.perf_counter()
        assembler = self._assembler(FirstToken(started))
        throttle = PartialThrottle(on_partial, assembler.partial) if on_partial else None
        try:
            async with asyncio.timeout(self.timeout_s):
                try:
                    stream = await self._open_stream(params)
                except self._sdk_error as exc:
                    raise self._translated(exc) from exc
                async with stream:
                    if _answered_whole(stream.response):
                        self._stop_streaming(
                            "the server does not stream (it answered a streamed request whole)"
                        )
                        return await self._whole_answer(stream.response, started)
                    await self._read(stream, assembler, throttle)
        except TimeoutError as exc:
            raise timed_out(self.provider, self.model) from exc
        finally:
            if throttle is not None:
                throttle.close()
        if not assembler.usage_reported:
            # Counted as 0, its turns would slip past token caps: this turn's tokens are
            # estimated (by MeteredClient), then whole requests, which report their usage.
            self._stop_streaming(
                "the server's streams do not report token usage, so this turn's tokens are "
                "estimated by a tokenizer"
            )
        return assembler.completion(_ms_since(started))

    async def _read(
        self, stream: Any, assembler: TurnAssembler, throttle: PartialThrottle | None
    ) -> None:
        """Fold every chunk of ``stream`` in; a stream that fails or just stops before the
        turn is complete is an error, never a short answer."""
        import httpx2

        try:
            async for chunk in stream:
                if assembler.add(chunk) and throttle is not None:
                    throttle.changed()
        except (self._sdk.APITimeoutError, httpx2.TimeoutException) as exc:
            raise timed_out(self.provider, self.model) from exc
        except (self._sdk.APIConnectionError, httpx2.TransportError) as exc:
            raise stream_interrupted(
                assembler.received_chars(), provider=self.provider, model=self.model
            ) from exc
        except self._sdk_error as exc:
            raise self._translated(exc) from exc
        ensure_complete(
            assembler.complete,
            assembler.received_chars(),
            provider=self.provider,
            model=self.model,
        )

    async def _whole_answer(self, response: Any, started: float) -> Completion:
        """The completion of a server that answered a streamed request with a whole one."""
        try:
            data = json.loads(await response.aread())
            whole = self._whole_response(data)
        except ValueError as exc:  # JSONDecodeError and pydantic's ValidationError alike
            raise BadRequestError(
                "the server answered a streamed request with something that is neither a "
                f"stream nor a response ({type(exc).__name__})",
                provider=self.provider,
                model=self.model,
            ) from exc
        return self._completion(whole, _ms_since(started))

    def _stop_streaming(self, reason: str) -> None:
        """Whole requests from now on, said once with ``reason``."""
        self.streams = False
        self._say_once(f"{reason}; sending whole requests from now on")

    def _say_once(self, message: str) -> None:
        """Tell ``on_notice`` about this client's server, once per kind of message."""
        if message in self._said:
            return
        self._said.add(message)
        if self.on_notice is not None:
            self.on_notice(f"{self.provider}:{self.model}: {message}")

    def _translated(self, exc: Exception) -> LLMError:
        return translate_sdk_error(exc, self._sdk, provider=self.provider, model=self.model)

    def _no_key(self) -> AuthenticationError:
        """The error for a client the SDK cannot authenticate: names the variable to set."""
        return missing_key(self.provider, self.model)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()


def _answered_whole(response: Any) -> bool:
    """Whether a streamed request was answered with a whole JSON response: a server that
    ignores ``stream``."""
    return str(response.headers.get("content-type", "")).startswith("application/json")


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
