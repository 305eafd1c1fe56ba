"""The first frame holds only what is in sight and needed at once: the form's question box
(focused) and document field, the status line and the footer. The rest of the
form and the monitor's panes are built right after it; a hidden tab's pane when first shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widgets import Footer, TabbedContent, TextArea
from textual.widgets._footer import FooterKey

from ralph_tui.config import Settings
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.run_form import RunForm, RunFormError
from ralph_tui.tui.widgets.run_monitor import RunMonitor
from ralph_tui.tui.widgets.status_line import RunStatusLine
from tests.tui.conftest import MakeApp, run_screen_whole, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION, run_until_cancelled, scripted_runner

FIRST_FRAME = ("#query", "#doc")
REST_OF_FORM = (
    "#mode",
    "#estimate",
    "#external-docs",
    "#external-provider",
    "#inner",
    "#max-iters",
    "#decompose",
    "#provider",
    "#generate-model",
    "#validate-model",
    "#start",
)


class FormApp(App[None]):
    """The run form alone, its rest not built until the test says so."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        yield RunForm(id="form")


async def test_the_form_builds_its_rest_after_the_first_frame_keeping_what_was_set(
    settings: Settings,
) -> None:
    app = FormApp(settings)
    async with app.run_test(size=(100, 40)) as pilot:
        form = app.query_one(RunForm)
        assert all(form.query(field) for field in FIRST_FRAME)
        assert not any(form.query(field) for field in REST_OF_FORM)
        form.prefill(mode="task", query=QUESTION, doc=Path(DOC_NAME), provider="offline")
        assert form.provider == "offline"
        try:
            form.values()
        except RunFormError as exc:
            assert "still opening" in str(exc)
        else:
            raise AssertionError("values() read a form that is not whole")
        assert not form.query("#keys-warning")
        await form.compose_rest(settings, ["ANTHROPIC_API_KEY"])
        await pilot.pause()
        assert all(form.query(field) for field in REST_OF_FORM)
        assert form.query("#keys-warning")
        assert form.query_one("#provider", ChoiceCycle).value == "offline"
        values = form.values()
        assert (values.mode, values.query, values.provider) == ("task", QUESTION, "offline")


async def test_the_first_frame_of_the_run_screen(make_app: MakeApp) -> None:
    """What the run screen composes before its first paint: the form down to the document
    field with the question box focused, the status line and the footer; nothing more."""
    app = make_app()
    built: list[tuple[bool, ...]] = []
    original = RunScreen._compose_rest

    async def at_first_paint(screen: RunScreen) -> None:
        form, monitor = screen.form, screen.monitor
        built.append(
            (
                app._first_frame_waiting is None,  # Textual's Ready: the frame is written
                screen.focused is form.query_one("#query", TextArea),
                bool(form.query("#doc")),
                bool(monitor.query(RunStatusLine)),
                bool(screen.query(Footer)),
                bool(form.query("#inner")),
                bool(monitor.query("#panes")),
            )
        )
        await original(screen)

    RunScreen._compose_rest = at_first_paint  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await run_screen_whole(pilot)
    finally:
        RunScreen._compose_rest = original  # type: ignore[method-assign]
    assert built == [(True, True, True, True, True, False, False)]


async def test_the_first_screen_is_styled_without_parsing_the_stylesheets_again(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing changes the stylesheets between their first reading and the first screen,
    so they are not parsed from scratch for it; and what takes its text colour from the
    app (the status line, painted in the first frame) has that colour, not the
    transparent one of an app not yet styled."""
    reparsed: list[Stylesheet] = []
    original = Stylesheet.reparse

    def reparse(stylesheet: Stylesheet) -> None:
        reparsed.append(stylesheet)
        original(stylesheet)

    monkeypatch.setattr(Stylesheet, "reparse", reparse)
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await run_screen_whole(pilot)
        line = app.screen.query_one(RunStatusLine)
        assert line.visual_style.foreground == app.styles.color
    assert reparsed == []


async def test_the_screen_is_not_restyled_as_it_opens_but_as_it_comes_back(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its widgets were styled as they were mounted: opening does not style them all again
    (what changes, as the focus, restyles itself); coming back from another mode does."""
    restyled: list[object] = []
    original = Stylesheet.update_nodes

    def update_nodes(
        stylesheet: Stylesheet, nodes: Iterable[DOMNode], animate: bool = False
    ) -> None:
        nodes = list(nodes)
        restyled.extend(node for node in nodes if isinstance(node, RunScreen))
        original(stylesheet, nodes, animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", update_nodes)
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen) and screen.whole
        assert restyled == []
        await pilot.press("f3")
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen in restyled


async def test_the_footer_has_its_keys_as_the_screen_mounts(make_app: MakeApp) -> None:
    """Before the first paint (the screen's mount), not a frame later."""
    app = make_app()
    keys: list[set[str]] = []
    original = RunScreen.on_mount

    def on_mount(screen: RunScreen) -> None:
        keys.append({key.key for key in screen.query(FooterKey)})
        original(screen)

    RunScreen.on_mount = on_mount  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await run_screen_whole(pilot)
    finally:
        RunScreen.on_mount = original  # type: ignore[method-assign]
    assert len(keys) == 1 and {"ctrl+r", "f1"} <= keys[0]


async def test_a_start_asked_for_before_the_screen_is_whole_runs_once_it_is(
    make_app: MakeApp,
) -> None:
    app = make_app(runner=scripted_runner())
    original = RunScreen._compose_rest

    async def late(screen: RunScreen) -> None:
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="offline")
        screen.action_start_run()  # ctrl+r as the app opens
        assert screen.handle is None
        await asyncio.sleep(0.05)
        await original(screen)

    RunScreen._compose_rest = late  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            screen = app.screen
            assert isinstance(screen, RunScreen)
            await wait_for(pilot, lambda: screen.handle is not None and not screen.running)
            assert screen.monitor.progress.outcome == "passed"
    finally:
        RunScreen._compose_rest = original  # type: ignore[method-assign]


async def test_a_hidden_tab_is_built_when_first_shown(
    make_app: MakeApp,
) -> None:
    app = make_app(runner=scripted_runner())
    async with app.run_test(size=(160, 45)) as pilot:
        await run_screen_whole(pilot)
        screen = app.screen
        assert isinstance(screen, RunScreen)
        monitor: RunMonitor = screen.monitor
        assert not monitor.query("#retrieval, #context, #memory")
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="offline")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.handle is not None and not screen.running)
        monitor.query_one("#extras", TabbedContent).active = "tab-retrieval"
        await wait_for(pilot, lambda: bool(monitor.query("#retrieval")))
        assert monitor.query("#log") and not monitor.query("#context, #memory")


def footer_keys(screen: RunScreen) -> dict[str, bool]:
    """Each key the footer shows, and whether it is shown enabled."""
    return {key.key: not key.has_class("-disabled") for key in screen.query(FooterKey)}


async def test_the_footer_keeps_its_keys_until_what_they_show_changes(
    make_app: MakeApp,
) -> None:
    """It recomposes when a key is enabled or disabled (a run going), not when the bindings
    change while showing the same keys (the focus moving)."""
    app = make_app(runner=run_until_cancelled)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        first = list(screen.query(FooterKey))
        assert footer_keys(screen)["ctrl+r"] and not footer_keys(screen)["ctrl+g"]
        screen.form.query_one("#max-iters").focus()
        screen.form.query_one("#query", TextArea).focus()
        await pilot.pause()
        assert list(screen.query(FooterKey)) == first
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="offline")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: footer_keys(screen).get("ctrl+g", False))
        assert not footer_keys(screen)["ctrl+r"]
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: footer_keys(screen).get("ctrl+r", False))
