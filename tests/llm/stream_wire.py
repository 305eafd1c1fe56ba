"""Streams a test server sends at its own pace: frames of server-sent events that can be
delayed, cut, broken or held open, and that record whether the client closed them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from tests.llm.llm_wire import sse_bytes


class ScriptedStream(httpx2.AsyncByteStream):
    """The frames of one streamed response, one event each, ``delay_s`` apart.

    ``hang_after``: after that many frames, wait until the client goes away (a server still
    generating); ``fail_after``: after that many frames, the connection breaks."""

    def __init__(
        self,
        events: list[tuple[str | None, Any]],
        *,
        delay_s: float = 0.0,
        hang_after: int | None = None,
        fail_after: int | None = None,
    ) -> None:
        self.frames = [sse_bytes([event]) for event in events]
        self.delay_s = delay_s
        self.hang_after = hang_after
        self.fail_after = fail_after
        self.sent = 0
        self.closed = False
        self.sent_at: list[float] = []
        """When each frame was handed to the client (``time.perf_counter``)."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for index, frame in enumerate(self.frames):
            if index == self.hang_after:
                await asyncio.Event().wait()
            if index == self.fail_after:
                raise httpx2.ReadError("connection reset by peer")
            if self.delay_s and index:
                await asyncio.sleep(self.delay_s)
            self.sent_at.append(time.perf_counter())
            self.sent += 1
            yield frame

    async def aclose(self) -> None:
        self.closed = True


def stream_response(stream: ScriptedStream) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)
