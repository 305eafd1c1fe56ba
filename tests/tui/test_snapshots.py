"""SVG snapshots of the main screens, from fixed sessions with fixed timestamps.

Update them with ``pytest tests/tui/test_snapshots.py --snapshot-update`` after
checking the new look by eye.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.session_screen import SessionScreen
from ralph_tui.tui.widgets.estimate_view import EstimateView
from ralph_tui.tui.widgets.session_table import SessionTable
from tests.tui.conftest import MakeApp, run_screen_whole, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION, scripted_runner

SnapCompare = Callable[..., bool]


async def settle(pilot: Pilot[Any]) -> None:
    """The run screen whole, no blinking cursors, no toasts, the run form's estimate made:
    the picture depends on the content only."""
    app = pilot.app
    await run_screen_whole(pilot)
    for widget in app.screen.query("Input, TextArea"):
        assert isinstance(widget, Input | TextArea)
        widget.cursor_blink = False
    for view in [v for screen in app.screen_stack for v in screen.query(EstimateView)]:
        await wait_for(pilot, lambda view=view: not view.estimating)
    app.clear_notifications()
    await pilot.pause()


def test_run_screen_before_a_run(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=(100, 30), run_before=settle)


def test_run_screen_after_a_run(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    async def run(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        monitor = screen.monitor
        await wait_for(pilot, lambda: not screen.running and monitor.sandbox.pending == 0)
        await wait_for(pilot, lambda: monitor.output.document is not None)
        await settle(pilot)

    app = make_app(runner=scripted_runner())
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


def test_session_browser(
    snap_compare: SnapCompare, make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    async def loaded(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: pilot.app.screen.query_one(SessionTable).option_count == 4)
        await settle(pilot)

    app = make_app(start_mode="sessions")
    assert snap_compare(app, terminal_size=(100, 30), run_before=loaded)


def test_session_screen(
    snap_compare: SnapCompare, make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    async def opened(pilot: Pilot[Any]) -> None:
        app: RalphApp = pilot.app  # type: ignore[assignment]
        await wait_for(pilot, lambda: app.screen.query_one(SessionTable).option_count == 4)
        app.screen.open_session(fixture_sessions["main"])  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.selected == 2 and screen.progress.outcome == "passed")
        await wait_for(pilot, lambda: screen.data is not None and screen.data.document is not None)
        await settle(pilot)

    app = make_app(start_mode="sessions")
    assert snap_compare(app, terminal_size=(160, 45), run_before=opened)
