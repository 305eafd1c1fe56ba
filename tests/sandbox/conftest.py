"""Fixtures for the sandbox tests: real children, closed after each test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from ralph_tui.sandbox import Sandbox, SandboxLimits

QUICK = SandboxLimits(timeout_s=0.5, kill_grace_s=0.5)
"""Short cell time so timeout tests stay fast."""

OpenSandbox = Callable[..., Awaitable[Sandbox]]


@pytest.fixture
async def open_sandbox() -> AsyncIterator[OpenSandbox]:
    """Start sandboxes with ``Sandbox.start(**kwargs)``; all are closed after the test."""
    opened: list[Sandbox] = []

    async def start(**kwargs: Any) -> Sandbox:
        kwargs.setdefault("limits", QUICK)
        sandbox = await Sandbox.start(**kwargs)
        opened.append(sandbox)
        return sandbox

    yield start
    for sandbox in opened:
        await sandbox.close()


@pytest.fixture
async def sandbox(open_sandbox: OpenSandbox) -> Sandbox:
    return await open_sandbox(globals={"context": "The quick brown fox."})
