"""The bound on runs at once, end to end: a server started with ``RALPH_MCP_MAX_RUNS=1``
(over stdio, driven by the MCP SDK's own client) keeps a second call waiting while a run
holds the one slot, tells it so by progress, and runs it once the slot is free."""

from __future__ import annotations

import itertools
from pathlib import Path

import anyio

from ralph_tui.api import RunResult
from tests.mcp.test_stdio_server import QUESTION, SAMPLE, connected

WAITING = "waiting for a run slot: 1 run at once is busy"


async def test_a_second_call_waits_for_the_slot_and_hears_that_it_waits(tmp_path: Path) -> None:
    first_seen: list[str | None] = []
    second_seen: list[tuple[float, str | None]] = []
    first_running = anyio.Event()
    second_waits = anyio.Event()
    second: dict[str, RunResult] = {}

    async with connected(
        tmp_path, {"RALPH_MCP_MAX_RUNS": "1"}, args=("--maxIters", "50")
    ) as client:

        async def on_first(value: float, total: float | None, message: str | None) -> None:
            first_seen.append(message)
            first_running.set()

        async def on_second(value: float, total: float | None, message: str | None) -> None:
            second_seen.append((value, message))
            if message == WAITING:
                second_waits.set()

        async def ask_second() -> None:
            result = await client.call_tool(
                "ask_documents",
                {"question": QUESTION, "paths": [SAMPLE.name],
                 "settings": {"provider": "offline", "max_iters": 2}},
                progress_callback=on_second,
            )  # fmt: skip
            assert not result.is_error, result.content
            second["result"] = RunResult.model_validate(result.structured_content)

        first = anyio.CancelScope()

        async def ask_first() -> None:
            with first:
                await client.call_tool(
                    "ask_documents",
                    {"question": "What colour is the chief engineer's bicycle?",
                     "paths": [SAMPLE.name],
                     "settings": {"provider": "offline", "max_iters": 50}},
                    progress_callback=on_first,
                )  # fmt: skip

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(ask_first)
                await first_running.wait()
                group.start_soon(ask_second)
                await second_waits.wait()
                running_when_second_waited = len(first_seen)
                first.cancel()

    assert first.cancelled_caught, f"the first run ended before the second waited: {first_seen}"
    assert running_when_second_waited >= 1
    messages = [message for _, message in second_seen]
    assert messages[0] == WAITING, messages
    assert "iteration 1 of 2 started" in messages and messages[-1] == "run finished: passed"
    values = [value for value, _ in second_seen]
    assert all(a < b for a, b in itertools.pairwise(values)), "progress only grows"
    assert second["result"].passed
