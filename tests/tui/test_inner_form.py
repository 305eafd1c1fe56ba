"""The run form offers every inner mode, each with its one description; ``auto`` chosen
there runs in the mode it picks, and the status line says which."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from ralph_tui.config.inner_modes import INNER_MODES
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.status_line import status_content
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION


async def test_auto_from_the_form_runs_direct_and_the_status_line_says_so(
    make_app: MakeApp, out_dir: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        inner = screen.form.query_one("#inner", ChoiceCycle)
        offered = {value: label for label, value in inner.options}
        assert offered == {mode: f"{mode}: {what}" for mode, what in INNER_MODES.items()}
        screen.form.query_one("#query", TextArea).load_text(QUESTION)
        screen.form.set_document(Path(DOC_NAME))
        screen.form.query_one("#provider", ChoiceCycle).value = "offline"
        inner.value = "auto"
        await pilot.press("ctrl+r")
        progress = screen.monitor.progress
        await wait_for(pilot, lambda: progress.outcome == "passed" and not screen.running)
        assert (progress.inner, progress.inner_auto) == ("direct", True)
        assert "  direct (auto)  " in str(status_content(progress))
        record = TraceStore(out_dir).load_session(progress.session_id or "")
        assert record.settings["inner"] == "auto" and record.inner is not None
        assert record.inner.mode == "direct"
