"""The sandbox host: a persistent, isolated Python child that runs cells for the agent.

``Sandbox.start`` starts the child at the strongest isolation level that works here (saying
so loudly when it has to settle for a weaker one), writes the text globals to the scratch
directory while the child's interpreter starts, sends it the manifest, and waits until the
child has loaded them. ``execute`` runs one cell: it sends the code, answers the child's
host-function calls while the cell runs, enforces the cell's time (SIGINT, then kill), and
turns whatever happened to the child (crash, exit, garbage on the channel) into a result
the model can act on, restarting the child when it was lost. The host itself never waits on
the child without a bound. Where the sandbox is in its lifecycle is one value (``state``);
``state.next_state`` moves it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from ralph_tui.sandbox.calls import HostCalls, HostFunction
from ralph_tui.sandbox.clock import CellClock
from ralph_tui.sandbox.launch import ISOLATION_LEVELS, IsolationUnavailable, plan_launch
from ralph_tui.sandbox.limits import CellReads, ExecResult, Isolation, SandboxLimits
from ralph_tui.sandbox.process import ChildGone, ChildProcess
from ralph_tui.sandbox.scratch import (
    Manifest,
    Scratch,
    create_scratch,
    make_manifest,
    remove_abandoned,
    remove_scratch,
    write_texts,
)
from ralph_tui.sandbox.state import (
    NOT_STARTED,
    Cell,
    CellEnded,
    CellStarted,
    ChildLost,
    Closed,
    CloseRequested,
    Event,
    Idle,
    Loaded,
    Lost,
    RestartFailed,
    Running,
    SandboxState,
    Spawned,
    Starting,
    child_of,
    next_state,
)

_log = logging.getLogger(__name__)

DEGRADED = {
    "unshare-net": "cells run with no network but can read and write your files with your rights",
    "rlimits-only": (
        "cells run with resource limits only: they can read and write your files "
        "and reach the network"
    ),
}


class SandboxStartError(RuntimeError):
    """No sandbox child could be started, or it could not load its globals."""


class Sandbox:
    """An isolated, persistent Python interpreter for the model's code. See module docs."""

    isolation: Isolation

    def __init__(
        self,
        scratch: Scratch,
        functions: dict[str, HostFunction],
        limits: SandboxLimits,
        emit_notice: Callable[[str], None] | None,
        global_names: list[str],
        manifest: Manifest,
    ) -> None:
        self.isolation = "rlimits-only"
        self._scratch = scratch
        self._manifest_frame = manifest.frame
        self._unwritten_texts: dict[str, str] | None = manifest.texts
        """The text globals until their files are written (by the first start)."""
        self._calls = HostCalls(functions, self._on_calls_busy)
        self._limits = limits
        self._emit_notice = emit_notice
        self._reloaded = [*global_names, *(f"{name}()" for name in functions)]
        self._state: SandboxState = NOT_STARTED
        self._cell_lock = asyncio.Lock()
        self._remove_scratch = weakref.finalize(
            self, remove_scratch, str(scratch.root), scratch.lock_fd
        )

    @classmethod
    async def start(
        cls,
        *,
        globals: dict[str, object] | None = None,
        functions: dict[str, HostFunction] | None = None,
        limits: SandboxLimits | None = None,
        emit_notice: Callable[[str], None] | None = None,
    ) -> Sandbox:
        """Start a sandbox whose cells see ``globals`` and can call ``functions``."""
        values = dict(globals or {})
        hosted = dict(functions or {})
        limits = limits or SandboxLimits()
        manifest = make_manifest(values, list(hosted), limits)
        scratch = create_scratch()
        sandbox = cls(scratch, hosted, limits, emit_notice, list(values), manifest)
        try:
            # What killed hosts left behind is deleted while the child starts, off the way
            # to the first answer: the callback runs as soon as the start waits for the child.
            asyncio.get_running_loop().call_soon(remove_abandoned)
            await sandbox._start_strongest()
        except BaseException:
            await sandbox.close()
            raise
        return sandbox

    @property
    def state(self) -> SandboxState:
        """Where the sandbox is in its lifecycle: starting, idle, running a cell, lost, closed."""
        return self._state

    @property
    def work_dir(self) -> Path:
        """The host path of the cells' working directory (``/sandbox`` inside bwrap)."""
        return self._scratch.work

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def execute(self, code: str) -> ExecResult:
        """Run one cell and report what it printed, its error, and what happened to the child."""
        if isinstance(self._state, Closed):
            raise RuntimeError("the sandbox is closed")
        async with self._cell_lock:
            started = time.perf_counter()
            note = ""
            state = self._state
            if isinstance(state, Idle) and state.child.ending:
                await state.child.finished  # its loss is then recorded for this cell's report
                state = self._state
            if isinstance(state, Closed):
                raise RuntimeError("the sandbox was closed before the cell could run")
            if isinstance(state, Lost):
                what = f"After the previous cell, the sandbox process {state.reason}"
                restarted, consequence = await self._restart()
                if not restarted:
                    return _lost_result(started, f"{what}. {consequence}", timed_out=False)
                note = f"{what}. {consequence}\n"
            outcome, cell = await self._run_cell(code)
            if isinstance(outcome, dict):
                return self._finished_result(started, outcome, cell, note)
            what = note + self._describe_loss(outcome, cell)
            if isinstance(self._state, Closed):
                return _lost_result(started, f"{what}.", cell.timed_out)
            _, consequence = await self._restart()
            return _lost_result(started, f"{what}. {consequence}", cell.timed_out)

    async def close(self) -> None:
        """Stop the child, cancel host calls, delete the scratch directory. Idempotent."""
        if isinstance(self._state, Closed):
            return
        child = child_of(self._state)
        self._apply(CloseRequested())
        self._calls.cancel_all()
        await self._calls.wait_all()
        if child is not None:
            await child.close()
        self._remove_scratch()

    def _apply(self, event: Event) -> None:
        """Move to the state ``event`` leads to, and settle what the state left behind was
        waiting for: a start that can no longer succeed, a cell whose child is gone."""
        old = self._state
        new = self._state = next_state(old, event)
        if isinstance(old, Starting) and not old.ready.done():
            if isinstance(new, Idle):
                old.ready.set_result(None)
            elif isinstance(new, Closed):
                old.ready.set_exception(SandboxStartError("the sandbox was closed while starting"))
            elif isinstance(new, Lost) and old.child.received_any:
                old.ready.set_exception(SandboxStartError(f"the sandbox child {new.reason}"))
            elif isinstance(new, Lost):
                detail = old.child.stray_output or new.reason
                old.ready.set_exception(IsolationUnavailable(f"failed to start: {detail}"))
        if isinstance(old, Running) and not old.cell.finished.done():
            if isinstance(new, Lost):
                old.cell.finished.set_result(new.reason)
            elif isinstance(new, Closed):
                old.cell.finished.set_result("was closed by the host")

    async def _start_strongest(self) -> None:
        unavailable: list[str] = []
        for isolation in ISOLATION_LEVELS:
            try:
                await self._spawn(isolation)
            except IsolationUnavailable as exc:
                unavailable.append(f"{isolation}: {exc}")
                continue
            self.isolation = isolation
            if unavailable:
                self._notice(
                    f"Sandbox isolation degraded to {isolation} ({'; '.join(unavailable)}): "
                    f"{DEGRADED[isolation]}."
                )
            return
        raise SandboxStartError("the sandbox could not start: " + "; ".join(unavailable))

    async def _spawn(self, isolation: Isolation) -> None:
        """Start a child and wait until it has loaded its globals (the sandbox is then idle)."""
        if isinstance(self._state, Closed):
            raise SandboxStartError("the sandbox was closed while starting")
        plan = plan_launch(isolation, self._scratch, self._limits)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            child = ChildProcess(plan, self._on_message, self._on_lost)
        except (OSError, subprocess.SubprocessError) as exc:
            raise IsolationUnavailable(f"could not run {plan.argv[0]}: {exc}") from None
        self._apply(Spawned(child, ready))
        try:
            await asyncio.wait_for(self._load(child, ready), self._limits.start_timeout_s)
        except BaseException as exc:
            await child.close()  # reported lost: the sandbox is lost (or still closed)
            if isinstance(exc, TimeoutError):
                raise SandboxStartError(
                    f"the sandbox did not start within {self._limits.start_timeout_s:g} s"
                ) from None
            raise

    async def _load(self, child: ChildProcess, ready: asyncio.Future[None]) -> None:
        """Give a started child its globals: the text files (written once, while the first
        child's interpreter starts), then the manifest; wait until it has loaded them."""
        if self._unwritten_texts is not None:
            write_texts(self._scratch, self._unwritten_texts)
            self._unwritten_texts = None
        with contextlib.suppress(ChildGone):  # its loss is being reported and settles ``ready``
            await child.send_frame(self._manifest_frame)
        await ready

    async def _restart(self) -> tuple[bool, str]:
        """Start a new child at the same isolation level: did it work, and what it means."""
        try:
            await self._spawn(self.isolation)
        except (IsolationUnavailable, SandboxStartError) as exc:
            self._apply(RestartFailed(f"could not be restarted ({exc})"))
            return False, (
                f"It could not be restarted ({exc}); the next cell will try again. "
                "Everything defined in earlier cells is lost."
            )
        available = ", ".join(f"`{name}`" for name in self._reloaded) or "nothing"
        return True, (
            "A fresh sandbox process was started: every variable, import and function "
            f"defined in earlier cells is lost. Available again: {available}. Re-create "
            "anything else you need (files in the working directory are kept)."
        )

    async def _run_cell(self, code: str) -> tuple[dict[str, Any] | str, Cell]:
        """Run ``code`` in the idle child: the ``done`` message, or why the child was lost."""
        loop = asyncio.get_running_loop()
        cell = Cell(loop.create_future(), CellClock(self._limits.timeout_s, self._on_timeout))
        state = self._state
        # The child just started for this cell may be gone already, or the sandbox closed.
        if isinstance(state, Lost):
            return state.reason, cell
        if isinstance(state, Closed):
            return "was closed by the host", cell
        self._apply(CellStarted(cell))  # from any state but idle: InvalidTransition
        child = state.child
        try:
            try:
                await child.send({"op": "exec", "code": code, "timeout_s": self._limits.timeout_s})
                if not self._calls.busy:
                    cell.clock.run()
            except ChildGone:
                pass  # the child's loss is being reported and will finish the cell
            return await cell.finished, cell
        except asyncio.CancelledError:
            child.stop("was stopped because the host cancelled the cell it was running")
            raise
        finally:
            cell.clock.pause()
            if cell.grace is not None:
                cell.grace.cancel()
            self._apply(CellEnded(cell))
            self._calls.cancel_all()

    def _on_timeout(self) -> None:
        state = self._state
        if not isinstance(state, Running):
            return
        state.cell.timed_out = True
        state.child.interrupt()
        state.cell.grace = asyncio.get_running_loop().call_later(
            self._limits.kill_grace_s, self._on_grace_over
        )

    def _on_grace_over(self) -> None:
        state = self._state
        if isinstance(state, Running):
            state.cell.killed = True
            state.child.stop("was killed")

    def _on_message(self, child: ChildProcess, message: dict[str, Any]) -> None:
        state = self._state
        if child is not child_of(state):
            return
        op = message.get("op")
        if op == "ready" and isinstance(state, Starting):
            self._apply(Loaded(child))
        elif op == "failed" and isinstance(state, Starting) and not state.ready.done():
            failure = f"the sandbox child failed: {message.get('error')}"
            state.ready.set_exception(SandboxStartError(failure))
        elif op == "call":
            refusal = None
            if not isinstance(state, Running):
                refusal = "no cell is running"
            elif state.cell.timed_out:
                refusal = "the cell was interrupted"
            self._calls.start(child, message, refusal)
        elif op == "done" and isinstance(state, Running) and not state.cell.finished.done():
            state.cell.finished.set_result(message)
        else:
            child.stop(f"sent an unexpected {op!r} message, so it was stopped")

    def _on_lost(self, child: ChildProcess, reason: str) -> None:
        self._apply(ChildLost(child, reason))

    def _on_calls_busy(self, busy: bool) -> None:
        state = self._state
        if not isinstance(state, Running) or state.cell.timed_out:
            return
        if busy:
            state.cell.clock.pause()
        else:
            state.cell.clock.run()

    def _finished_result(
        self, started: float, message: dict[str, Any], cell: Cell, note: str
    ) -> ExecResult:
        error = message.get("error")
        if cell.timed_out and message.get("interrupted"):
            kept = (
                f"The cell was interrupted after {self._limits.timeout_s:g} s; "
                "variables from this and earlier cells are kept."
            )
            error = f"{error}\n{kept}" if error else kept
        return ExecResult(
            output=str(message.get("output", "")),
            error=(note + (error or "")) or None,
            timed_out=cell.timed_out,
            duration_ms=_elapsed_ms(started),
            restarted=bool(note),
            reads=CellReads.of(message.get("reads")),
        )

    def _describe_loss(self, reason: str, cell: Cell) -> str:
        if cell.killed:
            return (
                f"The cell exceeded {self._limits.timeout_s:g} s and did not stop within "
                f"{self._limits.kill_grace_s:g} s of KeyboardInterrupt, so the sandbox "
                "process was killed"
            )
        return f"While running this cell, the sandbox process {reason}"

    def _notice(self, message: str) -> None:
        if self._emit_notice is not None:
            self._emit_notice(message)
        else:
            _log.warning(message)


def _lost_result(started: float, error: str, timed_out: bool) -> ExecResult:
    duration_ms = _elapsed_ms(started)
    return ExecResult("", error, timed_out=timed_out, duration_ms=duration_ms, restarted=True)


def _elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
