"""The error modal shows every error the one way: the error's title, message and hint.

``show_error`` runs in the app (``call_later``), as it does when a screen calls it.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Label, Static

from ralph_tui.documents import InputError
from ralph_tui.tui.screens.error_modal import ErrorAction, ErrorModal, show_error
from tests.tui.conftest import MakeApp, wait_for

SIZE = (100, 30)


def shown(modal: Any, widget_id: str) -> str:
    widget = modal.query_one(f"#{widget_id}")
    assert isinstance(widget, Label | Static)
    return str(widget.render())


async def test_an_error_of_the_base_shows_its_title_message_and_hint(make_app: MakeApp) -> None:
    app = make_app()
    chosen: list[ErrorAction] = []

    async def act(action: ErrorAction) -> None:
        chosen.append(action)

    fix = ErrorAction("choose_document", "Pick another document")
    async with app.run_test(size=SIZE) as pilot:
        error = InputError("document not found: a.md", hint="pick a file that exists")
        app.call_later(show_error, app, error, [fix], act)
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
        modal = app.screen
        assert shown(modal, "error-title") == "Bad input"
        assert shown(modal, "error-message") == "document not found: a.md"
        assert shown(modal, "error-hint") == "pick a file that exists"
        await pilot.click("#choose-document")
        await wait_for(pilot, lambda: chosen == [fix])


async def test_any_other_exception_is_shown_as_an_unexpected_error_naming_its_task(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.call_later(show_error, app, KeyError("answer"), where="Loading sessions")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
        modal = app.screen
        assert shown(modal, "error-title") == "Unexpected error"
        assert shown(modal, "error-where") == "in: Loading sessions"
        assert shown(modal, "error-message") == "unexpected KeyError: 'answer'"
        assert "please report it" in shown(modal, "error-hint")


async def test_a_second_error_while_one_is_open_becomes_a_notification(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    notes: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        app.call_later(show_error, app, InputError("first"))
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
        monkeypatch.setattr(
            app, "notify", lambda message, **kw: notes.append((kw["title"], message))
        )
        show_error(app, InputError("second", hint="try again"))
        assert notes == [("Bad input", "second (try again)")]
        assert len([s for s in app.screen_stack if isinstance(s, ErrorModal)]) == 1
