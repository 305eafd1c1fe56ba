"""The child's end of the framed channel to the host.

The main loop waits here for the next cell, and cell code waits here for host-function
results, possibly from several threads at once. One waiting thread at a time reads from the
channel and routes what arrives: results to the thread that asked for them, everything else
to the main loop. Results for calls nobody waits for any more (the cell was interrupted)
are dropped.

It is built on ``_thread``'s locks, not ``threading``: importing ``threading`` (with the
``functools`` and ``collections`` it loads) costs every child start milliseconds, and the
one condition the channel needs is a few lines (``_wait`` and ``_wake_all``). Likewise a
list and a counter stand in for ``deque`` and ``itertools.count``: building the types of
``_collections`` and ``itertools`` would cost a start a tenth of a millisecond each.
"""

from __future__ import annotations

import _thread
import posix  # ``os`` without the modules it loads (see ``main``)

from .framing import FrameDecoder, encode_frame
from .interrupts import Interrupts

TYPE_CHECKING = False  # ``typing`` costs every child start milliseconds; only mypy needs it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

READ_CHUNK = 1 << 16


class ChannelClosed(Exception):
    """The host closed the channel; the child has nothing left to do."""


class Channel:
    """Framed, thread-safe messaging over one file descriptor."""

    def __init__(self, fd: int, interrupts: Interrupts) -> None:
        self._fd = fd
        self._interrupts = interrupts
        self._decoder = FrameDecoder()
        self._write_lock = _thread.allocate_lock()
        self._state = _thread.allocate_lock()
        """Guards the fields below; a thread waiting for a message parks on a lock of its own
        in ``_waiters`` until the reading thread has routed what it read."""
        self._waiters: list[_thread.LockType] = []
        self._reading = False
        self._closed = False
        self._awaited: set[int] = set()
        self._results: dict[int, dict[str, Any]] = {}
        self._controls: list[dict[str, Any]] = []
        """Rarely more than one: the host sends a cell only once the last one is done."""
        self._calls_made = 0

    def send(self, message: dict[str, Any]) -> None:
        data = encode_frame(message)
        with self._interrupts.deferred():
            self._write(data)

    def next_control(self) -> dict[str, Any]:
        """Block until the host sends a message that is not a call result."""
        with self._interrupts.deferred():
            self._pump_until(lambda: bool(self._controls))
            return self._controls.pop(0)

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Run host function ``name`` and return its result; its failure raises here."""
        with self._state:
            self._calls_made += 1
            call_id = self._calls_made
        message = {"op": "call", "id": call_id, "fn": name, "args": args, "kwargs": kwargs}
        try:
            frame = encode_frame(message)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name}() takes only JSON-serializable arguments "
                f"(str, int, float, bool, None, list, dict): {exc}"
            ) from None
        with self._interrupts.deferred():
            with self._state:
                self._awaited.add(call_id)
            try:
                self._write(frame)
                self._pump_until(lambda: call_id in self._results)
                with self._state:
                    reply = self._results.pop(call_id)
            finally:
                with self._state:
                    self._awaited.discard(call_id)
        if "error" in reply:
            raise RuntimeError(f"{name} failed: {reply['error']}")
        return reply.get("value")

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            view = memoryview(data)
            while view:
                view = view[posix.write(self._fd, view) :]

    def _pump_until(self, ready: Callable[[], bool]) -> None:
        with self._state:
            while not ready():
                if self._closed:
                    raise ChannelClosed
                if self._reading:
                    self._wait()
                    continue
                self._reading = True
                try:
                    self._state.release()
                    try:
                        data = self._read()
                    finally:
                        self._state.acquire()
                    self._route(data)
                finally:
                    self._reading = False
                    self._wake_all()

    def _wait(self) -> None:
        """Release ``_state`` until the reading thread wakes the waiters; hold it again."""
        parked = _thread.allocate_lock()
        parked.acquire()
        self._waiters.append(parked)
        self._state.release()
        try:
            parked.acquire()
        finally:
            self._state.acquire()

    def _wake_all(self) -> None:
        """Wake every waiting thread (``_state`` held)."""
        for parked in self._waiters:
            parked.release()
        self._waiters.clear()

    def _read(self) -> bytes:
        try:
            return posix.read(self._fd, READ_CHUNK)
        except OSError:
            # A reset connection (the host gone with bytes unread) ends the channel too.
            return b""

    def _route(self, data: bytes) -> None:
        if not data:
            self._closed = True
            return
        for message in self._decoder.feed(data):
            if message.get("op") != "result":
                self._controls.append(message)
            elif message.get("id") in self._awaited:
                self._results[message["id"]] = message
