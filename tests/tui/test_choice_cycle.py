"""The run form's one-line choices: the keys and a click change them, each change reaches
the form (its values, its estimate), and a value that is not a choice is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TextArea

from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from tests.tui.conftest import MakeApp, wait_for


async def test_keys_and_a_click_step_through_the_choices(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await wait_for(pilot, lambda: screen.form.whole)
        inner = screen.form.query_one("#inner", ChoiceCycle)
        values = [value for _, value in inner.options]
        assert len(values) > 2 and inner.value == values[0]
        changes: list[str] = []
        estimate = screen.form.estimate_view
        soon = estimate.soon

        def seen() -> None:
            changes.append(inner.value)
            soon()

        estimate.soon = seen  # type: ignore[method-assign]
        inner.focus()
        await pilot.press("right")
        assert inner.value == values[1]
        await pilot.press("left", "left")
        assert inner.value == values[-1], "left from the first wraps to the last"
        await pilot.press("enter")
        assert inner.value == values[0]
        await pilot.click("#inner")
        assert inner.value == values[1]
        await pilot.pause()
        assert changes == [values[1], values[0], values[-1], values[0], values[1]]
        screen.form.query_one("#query", TextArea).load_text("What is it?")
        screen.form.set_document(Path("doc.md"))
        assert screen.form.draft().inner == values[1]
        assert values[1] in str(inner.render()), "the field shows the choice"
        assert all(label in str(inner.tooltip) for label, _ in inner.options)


def test_a_value_that_is_not_a_choice_is_refused() -> None:
    choice = ChoiceCycle([("QA", "qa"), ("Task", "task")], "qa")
    with pytest.raises(ValueError, match=r"'chat' is not one of the choices \(qa, task\)"):
        choice.value = "chat"
    assert choice.value == "qa"
    with pytest.raises(ValueError, match="at least one option"):
        ChoiceCycle([], "qa")
