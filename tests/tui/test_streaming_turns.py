"""A model turn shown as it arrives: the code being written in the Sandbox pane, the answer
forming in Output, the time to the first token in the status line; gone once the step ends."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from textual.widgets import Static

from ralph_tui.events import (
    AgentStep,
    Emit,
    ModelTurnPartial,
    RunFinished,
    RunStarted,
    SandboxExecuted,
)
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.tui.core.partial_turn import answer_forming, code_being_written
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.status_line import status_content
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME, outcome

SESSION = "2026-01-01/qa-0c0c0c0c"


def partial(agent: str, arguments: str, text: str = "", step: int = 1) -> ModelTurnPartial:
    return ModelTurnPartial(
        session_id=SESSION,
        agent=agent,
        step=step,
        text=text,
        tool="submit_output",
        arguments=arguments,
        first_token_ms=420,
    )


def test_code_is_read_from_arguments_cut_mid_string() -> None:
    turn = partial("worker", '{"action": {"code": "import re\\nprint(len(cont')
    assert code_being_written(turn) == "import re\nprint(len(cont"
    assert answer_forming(turn) is None


def test_an_answer_forming_shows_its_fields_so_far() -> None:
    turn = partial("judge", '{"ok": false, "issues": ["The second quote is not in the doc')
    assert code_being_written(turn) is None
    assert answer_forming(turn) == "ok: False\nissues: \n- The second quote is not in the doc"
    assert answer_forming(partial("judge", "", text="Thinking it over")) == "Thinking it over"
    assert answer_forming(partial("judge", "{")) is None


def test_the_turn_is_forgotten_when_its_step_ends_and_the_first_token_time_stays() -> None:
    progress = RunProgress()
    assert progress.apply(partial("worker", '{"code": "x = 1')) >= {"turn", "status"}
    assert progress.turn is not None
    changed = progress.apply(
        AgentStep(session_id=SESSION, agent="worker", step=1, max_steps=5, action="code")
    )
    assert "turn" in changed and progress.turn is None
    progress.outcome, progress.session_id = "running", SESSION
    assert "1st token 420 ms" in status_content(progress).plain


async def test_the_app_shows_code_being_written_then_the_answer_forming(
    make_app: MakeApp,
) -> None:
    go_on = threading.Event()
    """Set by the test to let the run go on (the run has an event loop of its own)."""

    async def wait_to_go_on() -> None:
        while not go_on.is_set():
            await asyncio.sleep(0.01)
        go_on.clear()

    async def runner(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
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
        emit(partial("worker", '{"action": {"code": "hits = context.count(\'filter'))
        await wait_to_go_on()
        emit(AgentStep(session_id=SESSION, agent="worker", step=1, max_steps=5, action="code"))
        emit(partial("judge", '{"ok": true, "issues": ["none so f'))
        await wait_to_go_on()
        emit(AgentStep(session_id=SESSION, agent="judge", step=1, max_steps=1, action="output"))
        emit(RunFinished(session_id=SESSION, status="passed", iterations=1))
        return outcome("passed", SESSION)

    app = make_app(runner=runner)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query="q", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        sandbox, output = screen.monitor.sandbox, screen.monitor.output
        await wait_for(pilot, lambda: sandbox.has_class("-writing"))
        writing = sandbox.query_one("#sandbox-writing", Static)
        assert "hits = context.count('filter" in str(writing.render())
        assert "worker step 1" in str(writing.render())
        assert not output.has_class("-forming")
        status = str(screen.monitor.query_one("#status", Static).render())
        assert "1st token 420 ms" in status

        go_on.set()
        await wait_for(pilot, lambda: output.has_class("-forming"))
        assert not sandbox.has_class("-writing")
        assert "none so f" in str(output.query_one("#forming", Static).render())

        go_on.set()
        await wait_for(pilot, lambda: not screen.running)
        assert not output.has_class("-forming")


def written(lines: int, step: int = 1) -> ModelTurnPartial:
    """The worker writing ``lines`` lines of code so far."""
    code = "\\n".join(f"row_{n:04d} = context.count('filter')" for n in range(lines))
    return partial("worker", '{"action": {"code": "' + code, step=step)


async def test_code_being_written_stays_at_the_top_until_it_fills_the_pane(
    make_app: MakeApp,
) -> None:
    """A cell shorter than the pane starts at its top and does not climb up the empty pane
    as it grows; a longer one shows its newest lines below its header, both in sight; the
    next, short one starts at the top again."""
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        sandbox = screen.monitor.sandbox
        writing = sandbox.query_one("#sandbox-writing", Static)
        top, bottom = sandbox.content_region.y, sandbox.content_region.bottom
        for lines in (1, 5, 12):
            sandbox.show_writing(written(lines))
            await pilot.pause()
            assert sandbox.scroll_y == 0
            assert writing.region.y == top
        sandbox.show_writing(written(200))
        await pilot.pause()
        shown = str(writing.render())
        assert "worker step 1" in shown and "row_0199" in shown
        assert writing.region.y == top and writing.region.bottom == bottom
        sandbox.show_writing(written(3, step=2))
        await pilot.pause()
        assert sandbox.scroll_y == 0
        assert writing.region.y == top


def cell(step: int, lines: int = 1) -> SandboxExecuted:
    code = "\n".join(f"print({n})" for n in range(lines))
    return SandboxExecuted(
        session_id=SESSION, agent="worker", step=step, code=code, output="", duration_ms=3
    )


async def test_the_first_cells_start_at_the_top_of_the_pane(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        sandbox = screen.monitor.sandbox
        sandbox.add([cell(1)])
        sandbox.flush()
        await wait_for(pilot, lambda: bool(sandbox.entries))
        await pilot.pause()
        assert sandbox.scroll_y == 0
        assert sandbox.entries[0].region.y == sandbox.content_region.y


async def test_below_cells_that_fill_the_pane_the_code_being_written_is_followed(
    make_app: MakeApp,
) -> None:
    """Once the content overflows the pane, it shows the newest: the cell being written,
    its header and its last line in sight."""
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        sandbox = screen.monitor.sandbox
        writing = sandbox.query_one("#sandbox-writing", Static)
        sandbox.add([cell(step, lines=10) for step in range(1, 6)])
        sandbox.flush()
        sandbox.show_writing(written(200, step=6))
        await wait_for(pilot, lambda: sandbox.scroll_y == sandbox.max_scroll_y > 0)
        await pilot.pause()
        assert writing.region.y == sandbox.content_region.y
        assert writing.region.bottom == sandbox.content_region.bottom


def test_the_status_counts_the_step_being_written() -> None:
    """While a turn arrives the status line shows its step, not the one before it; another
    agent's step shows without the first agent's step budget."""
    progress = RunProgress()
    progress.apply(
        AgentStep(session_id=SESSION, agent="worker", step=1, max_steps=5, action="code")
    )
    progress.apply(partial("worker", '{"code": "x = 2', step=2))
    assert (progress.agent, progress.step, progress.max_steps) == ("worker", 2, 5)
    progress.apply(partial("judge", '{"lines": [', step=1))
    assert (progress.agent, progress.step, progress.max_steps) == ("judge", 1, 0)
