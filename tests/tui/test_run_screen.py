"""The run screen: start (real offline run and the demo), cancel, errors, evidence, copy."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual import events
from textual.binding import Binding
from textual.widgets import (
    DirectoryTree,
    Input,
    OptionList,
    Static,
    TabbedContent,
    TextArea,
)

from ralph_tui.events import Emit
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core.run_handle import RunState
from ralph_tui.tui.screens.error_modal import ErrorModal
from ralph_tui.tui.screens.evidence_modal import EvidenceModal
from ralph_tui.tui.screens.file_picker import FilePicker
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.memory_pane import MemoryPane
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import (
    DOC_NAME,
    QUESTION,
    UNVERIFIED_QUOTE,
    VERIFIED_QUOTE,
    outcome,
    run_until_cancelled,
    scripted_runner,
)

SIZE = (100, 30)


def run_screen(app: RalphApp) -> RunScreen:
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


async def fill_form(screen: RunScreen, query: str, doc: str, provider: str = "offline") -> None:
    screen.form.query_one("#query", TextArea).load_text(query)
    screen.form.set_document(Path(doc))
    screen.form.query_one("#provider", ChoiceCycle).value = provider


async def test_start_runs_the_offline_loop_and_shows_every_pane(
    make_app: MakeApp, out_dir: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(
            pilot, lambda: screen.monitor.progress.outcome == "passed" and not screen.running
        )
        await wait_for(pilot, lambda: len(screen.monitor.sandbox.entries) > 0)
        progress = screen.monitor.progress
        assert progress.session_id and progress.iteration == 1
        assert progress.input_tokens > 0 and progress.checks[1].hard is not None
        assert progress.isolation is not None
        output = screen.monitor.output
        assert output.output is not None and output.quotes
        assert all(quote.verified for quote in output.quotes)
        record = TraceStore(out_dir).load_session(progress.session_id)
        assert record.status == "passed" and record.settings["provider"] == "offline"


async def test_the_lcm_inner_mode_from_the_form_shows_its_tool_calls(
    make_app: MakeApp, out_dir: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME)
        screen.form.query_one("#inner", ChoiceCycle).value = "lcm"
        await pilot.press("ctrl+r")
        await wait_for(
            pilot, lambda: screen.monitor.progress.outcome == "passed" and not screen.running
        )
        sandbox = screen.monitor.sandbox
        await wait_for(pilot, lambda: len(sandbox.entries) >= 3)
        shown = [str(entry.render()) for entry in sandbox.entries]
        assert "worker step 1  grep" in shown[0] and '"pattern"' in shown[0]
        assert any("  read  " in text and "[context " in text for text in shown)
        record = TraceStore(out_dir).load_session(screen.monitor.progress.session_id or "")
        assert record.status == "passed" and record.settings["inner"] == "lcm"


async def test_demo_starts_a_qa_run_on_the_sample_document(make_app: MakeApp) -> None:
    app = make_app(demo=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "passed")
        assert screen.monitor.progress.mode == "qa"
        assert screen.monitor.progress.doc_path.endswith("sample_document.md")


async def test_cancel_stops_the_run_and_says_cancelled(make_app: MakeApp) -> None:
    app = make_app(runner=run_until_cancelled)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, "anything", DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.cells > 3)
        assert screen.running
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: not screen.running)
        assert screen.monitor.progress.outcome == "cancelled"


async def test_a_second_start_while_running_is_refused(make_app: MakeApp) -> None:
    app = make_app(runner=run_until_cancelled)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, "anything", DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.cells > 0)
        first = screen.handle
        assert screen.start(lambda: None) is False  # type: ignore[arg-type,return-value]
        assert screen.handle is first
        screen.action_cancel_run()
        await wait_for(pilot, lambda: not screen.running)


async def test_missing_keys_are_named_and_offline_is_offered(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        warning = screen.form.query_one("#keys-warning")
        assert "ANTHROPIC_API_KEY" in str(warning.render()) and "OPENAI_API_KEY" in str(
            warning.render()
        )
        provider = screen.form.query_one("#provider", ChoiceCycle)
        provider.value = "auto"
        await pilot.click("#use-offline")
        assert provider.value == "offline"
        await wait_for(pilot, lambda: not screen.form.query("#keys-warning, #use-offline"))


async def test_the_keys_warning_goes_once_an_offline_run_has_passed(make_app: MakeApp) -> None:
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        assert screen.form.query("#keys-warning") and screen.form.provider == "offline"
        await fill_form(screen, QUESTION, DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.run_state is RunState.FINISHED)
        assert screen.monitor.progress.outcome == "passed"
        await wait_for(pilot, lambda: not screen.form.query("#keys-warning, #use-offline"))


async def test_auth_error_opens_one_error_modal_offering_offline(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME, provider="auto")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
        modal = app.screen
        assert isinstance(modal, ErrorModal) and "API key" in modal.message
        await pilot.click("#use-offline")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen))
        assert screen.form.query_one("#provider", ChoiceCycle).value == "offline"
        assert screen.monitor.progress.outcome == "error"


async def test_bad_document_is_reported_without_a_session(make_app: MakeApp, out_dir: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, "no-such-file.md")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
        assert "not found" in app.screen.message  # type: ignore[attr-defined]
        assert not (out_dir / "sessions").exists()


async def test_form_errors_are_notified_and_nothing_starts(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(app, "notify", lambda message, **_kw: notes.append(message))
        screen = run_screen(app)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not screen.running
        assert any("question" in note for note in notes)


async def test_a_state_the_run_has_left_does_not_come_back_over_its_status(
    make_app: MakeApp,
) -> None:
    """The handle posts STARTING as it is made; a quick run's events may be drained before
    that message reaches the screen, which must then not show "starting" over "passed"."""
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "passed")
        assert screen.handle is not None
        screen.post_message(screen.RunStateChanged(screen.handle, RunState.STARTING))
        await pilot.pause(0.1)
        assert screen.monitor.progress.outcome == "passed"
        assert screen.run_state is RunState.FINISHED


async def test_evidence_marks_and_the_quote_in_place(make_app: MakeApp) -> None:
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "passed")
        output = screen.monitor.output
        output.show({"answer": "- a", "evidence": [VERIFIED_QUOTE, UNVERIFIED_QUOTE]})
        await wait_for(pilot, lambda: output.document is not None)
        assert [q.verified for q in output.quotes] == [True, False]
        options = output.query_one(OptionList)
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvidenceModal))
        modal = app.screen
        assert isinstance(modal, EvidenceModal) and modal.place is not None
        assert modal.place.quote == VERIFIED_QUOTE and modal.place.line > 1
        await pilot.press("y")
        assert app.clipboard == VERIFIED_QUOTE
        await pilot.press("escape")
        options.focus()
        await pilot.press("c")
        assert VERIFIED_QUOTE in app.clipboard and "- a" in app.clipboard


async def test_sandbox_pane_shows_cells_and_sub_queries(make_app: MakeApp) -> None:
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, QUESTION, DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(screen.monitor.sandbox.entries) == 4)
        entries = screen.monitor.sandbox.entries
        assert [e.has_class("sub-query") for e in entries] == [True, False, True, False]
        text = str(entries[1].render())
        assert "hits = [s for s in sentences" in text and "12 ms" in text


async def test_document_picker_fills_the_form(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, FilePicker))
        tree = app.screen.query_one(DirectoryTree)
        await wait_for(pilot, lambda: len(tree.root.children) > 0)
        node = next(n for n in tree.root.children if str(n.label) == DOC_NAME)
        tree.select_node(node)
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen))
        assert Path(screen.form.query_one("#doc", Input).value).name == DOC_NAME


@pytest.mark.parametrize("how", ["click", "enter"])
async def test_the_browse_button_opens_the_document_picker(make_app: MakeApp, how: str) -> None:
    """The "…" beside the document field is pressed by a click, or by Enter once focused
    (tab from the document field), as a button is."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        if how == "click":
            await pilot.click("#browse")
        else:
            screen.form.query_one("#doc", Input).focus()
            await pilot.press("tab")
            assert screen.focused is screen.form.query_one("#browse")
            await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FilePicker))


async def test_task_memory_is_shown_and_follows_the_file(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, "Summarise the alarm escalation rules", DOC_NAME)
        screen.form.query_one("#mode", ChoiceCycle).value = "task"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.monitor.progress.outcome == "passed")
        # The memory tab's pane is built when the tab is first shown, and follows the file.
        assert not screen.monitor.query(MemoryPane)
        screen.monitor.query_one("#extras", TabbedContent).active = "tab-memory"
        await wait_for(pilot, lambda: bool(screen.monitor.query(MemoryPane)))
        memory = screen.monitor.query_one(MemoryPane)
        await wait_for(pilot, lambda: memory.path is not None)
        assert memory.path is not None
        text = memory.query_one("#memory-text", Static)
        await wait_for(pilot, lambda: str(text.render()) == memory.path.read_text())  # type: ignore[union-attr]
        await pilot.pause(0.3)  # The watcher is running.
        memory.path.write_text("- a finding written by another process\n", encoding="utf-8")
        await wait_for(pilot, lambda: "written by another process" in str(text.render()))


async def test_quitting_during_a_run_stops_it(make_app: MakeApp) -> None:
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def deaf(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        try:
            await asyncio.sleep(60)  # Never looks at the cancel event.
        finally:
            loop.call_soon_threadsafe(stopped.set)
        return outcome("passed", "2026-01-01/qa-00000002")

    app = make_app(runner=deaf)
    started = time.monotonic()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await fill_form(screen, "anything", DOC_NAME)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.running)
        await pilot.press("ctrl+q")
    await asyncio.wait_for(stopped.wait(), 5)
    assert time.monotonic() - started < 10


async def test_what_is_typed_first_is_the_question(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h", "i")
        assert run_screen(app).form.query_one("#query", TextArea).text == "hi"
        assert run_screen(app).form.scroll_y == 0, "the keys warning above it stays in sight"


def test_the_screen_keys_reach_it_while_the_question_is_typed() -> None:
    """The question box (and the form's inputs) take no key of the run screen or the app:
    the screen opens with the question box focused, and a run starts from there."""
    taken = {
        key
        for widget in (TextArea, Input)
        for binding in widget.BINDINGS
        if isinstance(binding, Binding)
        for key in binding.key.split(",")
    }
    ours = {
        key
        for node in (RunScreen, RalphApp)
        for binding in node.BINDINGS
        if isinstance(binding, Binding)
        for key in binding.key.split(",")
    }
    assert ours and taken & ours == set()


async def test_keys_typed_while_the_screen_opened_reach_the_question(make_app: MakeApp) -> None:
    """Keys that reach the app before anything has the focus come to the screen itself; the
    question box takes them once it has the focus, as an input focused from the start would."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        question = screen.form.query_one("#query", TextArea)
        screen.set_focus(None)  # as the screen opens, before its question box is focused
        for character in "ok":
            app.post_message(events.Key(character, character))
        question.focus(scroll_visible=False)
        await pilot.pause()
        assert question.text == "ok"


async def test_a_long_document_path_shows_its_file_name(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        long_path = Path("/srv/shared/projects/water-treatment/2026/annual/handbook-final.md")
        screen.form.set_document(long_path)
        field = screen.form.query_one("#doc", Input)
        await wait_for(pilot, lambda: field.scroll_offset.x > 0)
        shown = "".join(segment.text for segment in field.render_line(0))
        assert "handbook-final.md" in shown
