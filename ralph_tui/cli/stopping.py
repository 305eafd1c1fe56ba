"""How a command stops when asked to: SIGTERM unwinds like Ctrl-C (``Terminated``), and an
async command's main task is cancelled by either, so every ``finally`` runs and a session
is recorded as cancelled rather than left running."""

from __future__ import annotations

import signal
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

from ralph_tui.errors import Terminated

T = TypeVar("T")


def raise_terminated(_signum: int, _frame: FrameType | None) -> None:
    raise Terminated()


def stop_on_sigterm() -> None:
    """From now on SIGTERM raises ``Terminated`` where the program is, as SIGINT raises
    ``KeyboardInterrupt``."""
    signal.signal(signal.SIGTERM, raise_terminated)


def run_async(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``, where SIGTERM cancels the main task as Ctrl-C does (asyncio
    cancels it on SIGINT), then raises ``Terminated``."""
    import asyncio  # here, not at the top: parsing the command line does without it

    terminated = False

    async def main() -> T:
        nonlocal terminated
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()

        def on_sigterm() -> None:
            nonlocal terminated
            terminated = True
            task.cancel()

        loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        try:
            return await work
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if terminated:
            raise Terminated() from None
        raise
