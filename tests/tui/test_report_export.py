"""Exporting a session's report from the app: ``x`` (and the palette) on the session browser
and on the session screen write the HTML report under the out dir."""

from __future__ import annotations

from pathlib import Path

from lxml import html as lxml_html

from ralph_tui.reports.render import exported_report_path
from ralph_tui.tui.commands import bound_commands
from ralph_tui.tui.screens.browser_screen import SessionBrowser
from ralph_tui.tui.screens.session_screen import SessionScreen
from tests.tui.conftest import MakeApp, wait_for

SIZE = (100, 30)


def report_of(out_dir: Path, session_id: str) -> lxml_html.HtmlElement:
    path = exported_report_path(out_dir, session_id)
    return lxml_html.document_fromstring(path.read_text(encoding="utf-8"))


async def test_x_on_the_browser_exports_the_selected_sessions_report(
    make_app: MakeApp, fixture_sessions: dict[str, str], out_dir: Path
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionBrowser)
        await wait_for(pilot, lambda: len(screen.table.session_ids) == 4)
        commands = {command.binding_id: command for command in bound_commands(screen)}
        assert commands["sessions.report"].key == "x"
        selected = screen.table.selected_session
        assert selected is not None
        await pilot.press("x")
        path = exported_report_path(out_dir, selected)
        await wait_for(pilot, path.is_file)
        await pilot.pause(0.1)
        page = report_of(out_dir, selected)
        assert selected in page.xpath("string(//header)")
        messages = [notification.message for notification in app._notifications]
        assert f"Report of {selected} written to {path}" in messages


async def test_x_on_the_session_screen_exports_its_report(
    make_app: MakeApp, fixture_sessions: dict[str, str], out_dir: Path
) -> None:
    app = make_app(start_mode="sessions")
    session_id = fixture_sessions["main"]
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        await wait_for(pilot, lambda: len(browser.table.session_ids) == 4)
        browser.open_session(session_id)
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        ids = {command.binding_id for command in bound_commands(app.screen)}
        assert "session.report" in ids
        await pilot.press("x")
        await wait_for(pilot, exported_report_path(out_dir, session_id).is_file)
        page = report_of(out_dir, session_id)
        assert page.get_element_by_id("iterations") is not None
