"""The doctor's checks in the app: offered in the command palette, run off the app's loop,
shown one row each with what to do."""

from __future__ import annotations

import inspect

from textual.widgets import Static

from ralph_tui.llm.keys import missing_key_hint
from ralph_tui.tui.commands import screen_commands
from ralph_tui.tui.screens.doctor_screen import DoctorScreen
from tests.tui.conftest import MakeApp, wait_for


async def test_the_palette_opens_the_doctors_checks(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        [entry] = [c for c in screen_commands(app) if c.title.startswith("Doctor")]
        opened = entry.run()  # the palette awaits what an entry returns; so does this
        if inspect.isawaitable(opened):
            await opened
        await wait_for(pilot, lambda: isinstance(app.screen, DoctorScreen))
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        await wait_for(pilot, lambda: screen.checks is not None, timeout=60)
        names = [check.name for check in screen.checks or []]
        assert {"sandbox", "html converter", "out dir"} <= set(names)
        assert "anthropic key" in names, "the app's settings have no keys: that check fails"
        shown = str(screen.query_one("#doctor-checks", Static).render())
        assert all(name in shown for name in names)
        fix = missing_key_hint("anthropic", None)
        assert "ANTHROPIC_API_KEY" in fix
        assert f"-> {fix}" in shown.replace("\n", " "), "the whole fix"
        assert "failed" in str(screen.query_one("#doctor-title").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DoctorScreen))
