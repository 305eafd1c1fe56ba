"""The sandbox host's lifecycle as one value, and every change to it in one function.

A sandbox is in exactly one of five states: starting a child, idle with a child, running a
cell in a child, lost (no child: the next cell starts one), or closed. Each state holds only
what exists in it, so a cell running with no child, or a start waited on after closing, cannot
be written down. ``next_state`` says how each event moves the sandbox; the host applies it and
settles what the state it left was waiting for (see ``Sandbox._apply``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ralph_tui.sandbox.clock import CellClock
from ralph_tui.sandbox.process import ChildProcess


@dataclass
class Cell:
    """The cell in flight: how it ended (a ``done`` message or why the child was lost)."""

    finished: asyncio.Future[dict[str, Any] | str]
    clock: CellClock
    timed_out: bool = False
    killed: bool = False
    grace: asyncio.TimerHandle | None = None


@dataclass(frozen=True)
class Starting:
    """A child was started and is loading the globals; ``ready`` resolves once it has."""

    child: ChildProcess
    ready: asyncio.Future[None]


@dataclass(frozen=True)
class Idle:
    """A child waits for the next cell (or, once told to stop, is being reaped)."""

    child: ChildProcess


@dataclass(frozen=True)
class Running:
    """``cell`` runs in ``child``."""

    child: ChildProcess
    cell: Cell


@dataclass(frozen=True)
class Lost:
    """No child: ``reason`` says what became of the last one ("exited with status 7"); the
    next cell is told, after a new child is started for it."""

    reason: str


@dataclass(frozen=True)
class Closed:
    """Closed for good: no child, no cell."""


SandboxState = Starting | Idle | Running | Lost | Closed

NOT_STARTED = Lost("has not been started")


@dataclass(frozen=True)
class Spawned:
    """A new child was started; ``ready`` resolves when it has loaded the globals."""

    child: ChildProcess
    ready: asyncio.Future[None]


@dataclass(frozen=True)
class Loaded:
    """``child`` said it has loaded the globals."""

    child: ChildProcess


@dataclass(frozen=True)
class CellStarted:
    cell: Cell


@dataclass(frozen=True)
class CellEnded:
    cell: Cell


@dataclass(frozen=True)
class ChildLost:
    """``child`` was reaped; ``reason`` says how it ended."""

    child: ChildProcess
    reason: str


@dataclass(frozen=True)
class RestartFailed:
    reason: str


@dataclass(frozen=True)
class CloseRequested:
    pass


Event = Spawned | Loaded | CellStarted | CellEnded | ChildLost | RestartFailed | CloseRequested


class InvalidTransition(RuntimeError):
    """An event the host must never send in this state: a bug in the host, not the child."""


def child_of(state: SandboxState) -> ChildProcess | None:
    """The child the state holds, if it holds one."""
    return state.child if isinstance(state, Starting | Idle | Running) else None


def next_state(state: SandboxState, event: Event) -> SandboxState:
    """Where ``event`` takes a sandbox in ``state``.

    Closing is final. A child's loss counts only for the child the state holds (a loss
    reported late, by a child already replaced, changes nothing); a ``Loaded`` from any
    other child, or a ``CellEnded`` for a cell no longer running, likewise.
    """
    if isinstance(state, Closed):
        return state
    match event:
        case CloseRequested():
            return Closed()
        case Spawned(child, ready) if isinstance(state, Lost):
            return Starting(child, ready)
        case CellStarted(cell) if isinstance(state, Idle):
            return Running(state.child, cell)
        case Spawned() | CellStarted():
            raise InvalidTransition(f"{type(event).__name__} while {type(state).__name__}")
        case Loaded(child) if isinstance(state, Starting) and state.child is child:
            return Idle(child)
        case CellEnded(cell) if isinstance(state, Running) and state.cell is cell:
            return Idle(state.child)
        case ChildLost(child, reason) if child_of(state) is child:
            return Lost(reason)
        case RestartFailed(reason) if isinstance(state, Lost):
            return Lost(reason)
    return state
