"""What streaming a model turn shares across providers: the partial turn a front end is
shown while it arrives, the bounded rate at which it is passed on, and the check that a
stream really ended.

A streamed turn is assembled from its deltas (text pieces, pieces of a tool call's JSON
arguments) into the same ``Completion`` a whole request gives; nothing is parsed or
validated before the stream says the turn is complete.
"""

from __future__ import annotations

import asyncio
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ralph_tui.llm.sdk_errors import stream_interrupted
from ralph_tui.llm.types import Completion, OnPartial, PartialTurn

PARTIAL_INTERVAL_S = 0.1
"""At most one partial turn per this many seconds per request (after the leading ones):
enough to watch the model write, few enough that a front end never repaints per token."""

LEADING_PARTIALS = 8
"""The first pieces of a turn are passed on as they come, up to this many: they are mostly
structure (``{"action": {"code": "``) and what a person waits for is the first character
after them. A turn's partials are thus at most this many plus one per interval."""


class PartialThrottle:
    """Passes the turn so far to ``sink``: the first ``leading`` changes at once (the time
    to the first visible character is what a person notices), then at most once per
    ``interval_s``, a held change sent with the newest state when its interval ends, so
    nothing written waits longer than one interval. Call ``close`` when the turn ends: the
    whole turn supersedes what is still pending.
    """

    def __init__(
        self,
        sink: OnPartial,
        snapshot: Callable[[], PartialTurn],
        interval_s: float = PARTIAL_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        leading: int = LEADING_PARTIALS,
    ) -> None:
        self.sink = sink
        self.snapshot = snapshot
        self.interval_s = interval_s
        self.leading = leading
        self.clock = clock
        self._last_sent = -math.inf
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    def changed(self) -> None:
        """The turn grew: send it now, or when the current interval ends."""
        if self._closed or self._timer is not None:
            return
        wait = self._last_sent + self.interval_s - self.clock()
        if wait <= 0 or self.leading > 0:
            self.leading -= 1
            self._send()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self._send)

    def _send(self) -> None:
        self._timer = None
        if self._closed:
            return
        self._last_sent = self.clock()
        self.sink(self.snapshot())

    def close(self) -> None:
        """No more partial turns from this request."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class FirstToken:
    """When the first piece of a turn arrived, measured from when its request was sent."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.at: float | None = None

    def seen(self) -> None:
        if self.at is None:
            self.at = time.perf_counter()

    @property
    def seconds(self) -> float:
        return (self.at if self.at is not None else time.perf_counter()) - self.started


class ArrivingCall(Protocol):
    """A tool call as it arrives: its name and the pieces of its arguments so far."""

    name: str
    pieces: list[str]


class TurnAssembler(ABC):
    """Folds one provider's stream chunks into a turn; ``complete`` once the stream said
    the turn ended (the stop reason arrived)."""

    complete: bool = False

    @property
    def usage_reported(self) -> bool:
        """Whether the stream said how many tokens the turn used."""
        return True

    def __init__(self, requested_model: str, first_token: FirstToken) -> None:
        self.requested_model = requested_model
        self.first_token = first_token

    @abstractmethod
    def add(self, chunk: Any) -> bool:
        """Fold one chunk in; whether the visible part of the turn (text, arguments) grew."""

    def partial(self) -> PartialTurn:
        """The turn so far: its text, and the newest tool call's arguments."""
        calls = self._arriving_calls()
        newest = calls[-1] if calls else None
        return PartialTurn(
            text=self._text(),
            tool=newest.name if newest else "",
            arguments="".join(newest.pieces) if newest else "",
            first_token_s=self.first_token.seconds,
        )

    @abstractmethod
    def _text(self) -> str:
        """The turn's text so far."""

    @abstractmethod
    def _arriving_calls(self) -> Sequence[ArrivingCall]:
        """The turn's tool calls so far, in order."""

    @abstractmethod
    def completion(self, latency_ms: float) -> Completion:
        """The whole turn, once ``complete``: what a whole request would have returned."""

    @abstractmethod
    def received_chars(self) -> int:
        """Characters of text and arguments received so far."""


def ensure_complete(complete: bool, received_chars: int, *, provider: str, model: str) -> None:
    """A ``StreamInterruptedError`` unless the stream said the turn was complete: a stream
    that just stops (a dropped connection, a server that died) is not a short answer."""
    if not complete:
        raise stream_interrupted(received_chars, provider=provider, model=model)
