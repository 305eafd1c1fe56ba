"""The sandbox's lifecycle state: what each thing that happens to a real child moves it to."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TypeVar

import pytest
from conftest import OpenSandbox
from sandbox_probes import descendants, running, zombie_children

from ralph_tui.sandbox import Sandbox, SandboxLimits, host
from ralph_tui.sandbox.clock import CellClock
from ralph_tui.sandbox.state import (
    Cell,
    CellEnded,
    CellStarted,
    ChildLost,
    Closed,
    CloseRequested,
    Event,
    Idle,
    InvalidTransition,
    Lost,
    Running,
    SandboxState,
    Spawned,
    child_of,
    next_state,
)

CRASH = "import os\nos._exit(3)"
S = TypeVar("S")


@pytest.fixture
def entered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of each state a sandbox enters from now on, in order (the real transition
    function, watched)."""
    names: list[str] = []

    def watched(state: SandboxState, event: Event) -> SandboxState:
        new = next_state(state, event)
        if new is not state:
            names.append(type(new).__name__)
        return new

    monkeypatch.setattr(host, "next_state", watched)
    return names


async def state_becomes(sandbox: Sandbox, kind: type[S]) -> S:
    for _ in range(200):
        state = sandbox.state
        if isinstance(state, kind):
            return state
        await asyncio.sleep(0.01)
    raise AssertionError(f"the sandbox stayed {sandbox.state} instead of becoming {kind}")


def a_cell() -> Cell:
    loop = asyncio.get_running_loop()
    return Cell(loop.create_future(), CellClock(1.0, lambda: None))


async def test_a_sandbox_starts_idle_and_a_cell_runs_in_that_child(
    entered: list[str], open_sandbox: OpenSandbox
) -> None:
    sandbox = await open_sandbox()
    assert entered == ["Starting", "Idle"]
    idle = sandbox.state
    assert isinstance(idle, Idle)
    cell = asyncio.create_task(sandbox.execute("import time\ntime.sleep(0.2)"))
    assert (await state_becomes(sandbox, Running)).child is idle.child
    assert (await cell).error is None
    assert sandbox.state == idle
    assert entered == ["Starting", "Idle", "Running", "Idle"]


async def test_a_child_lost_during_a_cell_is_replaced_before_the_cell_reports(
    sandbox: Sandbox, entered: list[str]
) -> None:
    lost = child_of(sandbox.state)
    result = await sandbox.execute(CRASH)
    assert result.restarted
    assert entered == ["Running", "Lost", "Starting", "Idle"]
    assert isinstance(sandbox.state, Idle) and sandbox.state.child is not lost


async def test_a_child_lost_between_cells_leaves_the_sandbox_lost_until_the_next_cell(
    sandbox: Sandbox,
) -> None:
    exit_soon = "import os, threading\nthreading.Timer(0.05, os._exit, args=(7,)).start()"
    await sandbox.execute(exit_soon)
    assert await state_becomes(sandbox, Lost) == Lost("exited with status 7")
    result = await sandbox.execute("1 + 1")
    assert result.restarted and result.output == "2\n"
    assert isinstance(sandbox.state, Idle)


async def test_close_while_a_cell_runs_ends_the_cell_and_its_child(
    open_sandbox: OpenSandbox,
) -> None:
    lasting = set(descendants(os.getpid()))  # left by earlier tests for the session
    sandbox = await open_sandbox(limits=SandboxLimits(timeout_s=30))
    cell = asyncio.create_task(sandbox.execute("import time\ntime.sleep(30)"))
    await state_becomes(sandbox, Running)
    inner = [pid for pid in descendants(os.getpid()) if pid not in lasting]
    await sandbox.close()
    result = await asyncio.wait_for(cell, 5)
    assert result.error == "While running this cell, the sandbox process was closed by the host."
    assert sandbox.state == Closed()
    assert running(inner) == [] and zombie_children() == []
    with pytest.raises(RuntimeError, match="closed"):
        await sandbox.execute("1")


async def test_a_failed_restart_leaves_the_sandbox_lost_and_the_next_cell_tries_again(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert sandbox.isolation == "bwrap"
    monkeypatch.setenv("PATH", str(tmp_path))  # bwrap can no longer be found
    crashed = await sandbox.execute(CRASH)
    assert "It could not be restarted (`bwrap` not found)" in (crashed.error or "")
    assert sandbox.state == Lost("could not be restarted (`bwrap` not found)")
    monkeypatch.undo()
    result = await sandbox.execute("context[:3]")
    assert result.restarted and result.output == "'The'\n"
    assert (result.error or "").startswith(
        "After the previous cell, the sandbox process could not be restarted (`bwrap` not found)."
    )


async def test_a_loss_reported_late_by_a_replaced_child_changes_nothing(sandbox: Sandbox) -> None:
    replaced = child_of(sandbox.state)
    assert replaced is not None
    await sandbox.execute(CRASH)
    now = sandbox.state
    assert isinstance(now, Idle) and now.child is not replaced
    assert next_state(now, ChildLost(replaced, "exited with status 3")) is now
    assert next_state(now, ChildLost(now.child, "was killed")) == Lost("was killed")


async def test_a_cell_starts_only_in_an_idle_child_and_ends_only_itself(sandbox: Sandbox) -> None:
    idle = sandbox.state
    assert isinstance(idle, Idle)
    cell, other = a_cell(), a_cell()
    busy = next_state(idle, CellStarted(cell))
    assert busy == Running(idle.child, cell)
    assert next_state(busy, CellEnded(other)) is busy
    assert next_state(busy, CellEnded(cell)) == idle
    for state in (busy, Lost("exited with status 3")):
        with pytest.raises(InvalidTransition):
            next_state(state, CellStarted(other))
    with pytest.raises(InvalidTransition):
        next_state(idle, Spawned(idle.child, asyncio.get_running_loop().create_future()))


async def test_closing_is_final(sandbox: Sandbox) -> None:
    idle = sandbox.state
    assert isinstance(idle, Idle)
    closed = next_state(idle, CloseRequested())
    assert closed == Closed()
    for event in (CellStarted(a_cell()), ChildLost(idle.child, "was closed"), CloseRequested()):
        assert next_state(closed, event) == Closed()
