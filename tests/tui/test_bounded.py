"""A run emitting 10 000 sandbox events keeps the UI's memory bounded."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ralph_tui.events import Emit, RunFinished, RunStarted, SandboxExecuted
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.sandbox_pane import MAX_ENTRIES
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME, outcome

CELLS = 10_000
SESSION = "2026-01-01/qa-0b0b0b0b"


async def flood(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    """10 000 cells as fast as the run can emit them (a pause every 1 000)."""
    emit(
        RunStarted(
            session_id=SESSION,
            mode="qa",
            query="q",
            doc_path=str(request.doc_path),
            doc_chars=1,
            max_iters=1,
            generate_model="test",
            validate_model="test",
        )
    )
    for step in range(1, CELLS + 1):
        code = f"print({step})\n" * 3
        emit(
            SandboxExecuted(
                session_id=SESSION,
                agent="worker",
                step=step,
                code=code,
                output=str(step),
                duration_ms=1,
            )
        )
        if step % 1000 == 0:
            await asyncio.sleep(0.01)
    emit(RunFinished(session_id=SESSION, status="passed", iterations=1))
    return outcome("passed", SESSION)


async def test_ten_thousand_cells_keep_widgets_and_lines_bounded(make_app: MakeApp) -> None:
    app = make_app(runner=flood)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query="q", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: not screen.running and screen.monitor.progress.cells == CELLS)
        sandbox = screen.monitor.sandbox
        await wait_for(pilot, lambda: sandbox.pending == 0)
        entries = sandbox.entries
        assert len(entries) <= MAX_ENTRIES
        assert sandbox.dropped == CELLS - len(entries)
        assert f"step {CELLS}" in str(entries[-1].render())
        assert len(screen.buffer) == 0
