"""Host-function calls from the child: each runs as a task and is answered exactly once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from ralph_tui.sandbox.process import ChildGone, ChildProcess

HostFunction = Callable[..., Awaitable[object]]


class HostCalls:
    """Runs the child's calls to host functions, several at once, and answers each one.

    ``on_busy(True)`` is called when the first call starts and ``on_busy(False)`` when the
    last one ends, so the sandbox can stop a cell's clock while the host is working for it.
    A call that fails, names no known function or returns something JSON cannot carry is
    answered with an error message, which the child raises in the cell.
    """

    def __init__(self, functions: dict[str, HostFunction], on_busy: Callable[[bool], None]) -> None:
        self._functions = functions
        self._on_busy = on_busy
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    def start(self, child: ChildProcess, message: dict[str, Any], refusal: str | None) -> None:
        """Answer ``message``: run the function, or refuse at once with ``refusal``."""
        call_id = message.get("id")
        if refusal is not None:
            answer = self._reply_error(child, call_id, refusal)
        else:
            answer = self._answer(child, call_id, message)
        task = asyncio.get_running_loop().create_task(answer)
        if not self._tasks:
            self._on_busy(True)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def cancel_all(self) -> None:
        """Cancel every running call; each still answers the child (``cancelled``)."""
        for task in self._tasks:
            task.cancel()

    async def wait_all(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not self._tasks:
            self._on_busy(False)

    async def _answer(self, child: ChildProcess, call_id: object, message: dict[str, Any]) -> None:
        name = message.get("fn")
        function = self._functions.get(name) if isinstance(name, str) else None
        if function is None:
            await self._reply_error(child, call_id, f"no host function named {name!r}")
            return
        try:
            value = await function(*message.get("args", []), **message.get("kwargs", {}))
        except asyncio.CancelledError:
            await self._reply_error(child, call_id, "cancelled because the cell ended")
            raise
        except Exception as exc:  # the failure is the model's to see, not the host's to die of
            await self._reply_error(child, call_id, f"{type(exc).__name__}: {exc}")
            return
        try:
            await child.send({"op": "result", "id": call_id, "value": value})
        except (TypeError, ValueError) as exc:
            problem = f"returned a value that is not JSON-serializable ({exc})"
            await self._reply_error(child, call_id, problem)
        except ChildGone:
            pass

    @staticmethod
    async def _reply_error(child: ChildProcess, call_id: object, error: str) -> None:
        with contextlib.suppress(ChildGone):
            await child.send({"op": "result", "id": call_id, "error": error})
