"""Edit an iteration's constraints and re-run: a new session linked to its parent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, TextArea

from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core.constraints_text import edit_in_editor, from_text
from ralph_tui.tui.screens.browser_screen import SessionBrowser
from ralph_tui.tui.screens.constraints_editor import ConstraintsEditor
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.session_screen import SessionScreen
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import FIRST_CONSTRAINTS

SIZE = (100, 30)


async def open_session(app: RalphApp, pilot: Pilot[Any], session_id: str) -> SessionScreen:
    browser = app.screen
    assert isinstance(browser, SessionBrowser)
    await wait_for(pilot, lambda: browser.table.option_count > 0)
    browser.open_session(session_id)
    await wait_for(pilot, lambda: getattr(app.screen, "data", None) is not None)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    return screen


async def test_edit_constraints_and_rerun_creates_a_linked_child(
    make_app: MakeApp, fixture_sessions: dict[str, str], out_dir: Path
) -> None:
    parent_id = fixture_sessions["main"]
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        session = await open_session(app, pilot, parent_id)
        await wait_for(pilot, lambda: session.selected == 2)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ConstraintsEditor))
        area = app.screen.query_one(TextArea)
        assert from_text(area.text) == FIRST_CONSTRAINTS
        area.load_text(
            "Quote the 48-hour rule word for word.\n\n# a comment\nName the head-loss trigger."
        )
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen))
        run = app.screen
        assert isinstance(run, RunScreen)
        await wait_for(pilot, lambda: run.monitor.progress.outcome == "passed" and not run.running)
        child_id = run.monitor.progress.session_id
        assert run.monitor.progress.parent_session_id == parent_id

        store = TraceStore(out_dir)
        child = store.load_session(child_id)
        assert child.parent_session_id == parent_id
        assert child.settings["constraints"] == [
            "Quote the 48-hour rule word for word.",
            "Name the head-loss trigger.",
        ]
        assert store.iterations(child_id)[0].constraints == child.settings["constraints"]
        store.close()

        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        children = app.screen.query_one("#children", OptionList)
        await wait_for(pilot, lambda: children.option_count == 2)
        assert {children.get_option_at_index(i).id for i in range(2)} == {
            fixture_sessions["rerun"],
            child_id,
        }


async def test_cancelling_the_editor_runs_nothing(
    make_app: MakeApp, fixture_sessions: dict[str, str], out_dir: Path
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot, fixture_sessions["main"])
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ConstraintsEditor))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
    assert TraceStore(out_dir).index.count_sessions() == 4


def test_editor_round_trip_uses_the_edited_file(tmp_path: Path) -> None:
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\nprintf "first\\n# note\\nsecond\\n" > "$1"\n', encoding="utf-8")
    script.chmod(0o755)
    edited = edit_in_editor("old one", [str(script)])
    assert edited is not None and from_text(edited) == ["first", "second"]


def test_a_failing_editor_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITOR", "false")
    monkeypatch.delenv("VISUAL", raising=False)
    assert edit_in_editor("keep") is None
    assert edit_in_editor("keep", [str(tmp_path / "no-such-editor")]) is None
