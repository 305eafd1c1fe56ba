"""External docs in the app: URLs and the provider in the run form, the crawl's sources in
the Retrieval tab, and the pages' text at hand for checking evidence quotes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static, TabbedContent, TextArea

from ralph_tui.config import Settings
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane
from tests.external.site import serve_site
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME

TASK = "Brief a new technician on chlorine dosing and on how API clients authenticate"


async def test_a_run_with_external_docs_from_the_form(
    make_app: MakeApp, settings: Settings
) -> None:
    settings.allow_local_docs = True  # the site runs on this machine: its user allows it
    app = make_app()
    with serve_site() as site:
        site.slow_s = 0.0
        async with app.run_test(size=(140, 48)) as pilot:
            screen = app.screen
            assert isinstance(screen, RunScreen)
            form = screen.form
            form.query_one("#mode", ChoiceCycle).value = "task"
            form.query_one("#query", TextArea).load_text(TASK)
            form.set_document(Path(DOC_NAME))
            form.query_one("#provider", ChoiceCycle).value = "offline"
            form.query_one("#external-docs", TextArea).load_text(f"{site.base}/docs/\n")
            form.query_one("#external-provider", ChoiceCycle).value = "pageindex"
            assert form.values().external_docs == (f"{site.base}/docs/",)
            await pilot.press("ctrl+r")
            monitor = screen.monitor
            await wait_for(pilot, lambda: monitor.progress.outcome in ("passed", "failed"), 60)
            page = f"{site.base}/docs/a.html"
            await wait_for(pilot, lambda: page in monitor.output.external)
            assert "bearer token" in monitor.output.external[page]
            monitor.query_one("#extras", TabbedContent).active = "tab-retrieval"
            await pilot.pause()
            pane = monitor.query_one(RetrievalPane)
            line = str(pane.query_one("#retrieval-external", Static).render())
            assert (
                line.startswith("External: ")
                and f"{site.base}/docs/: 6 pages kept (7 fetched" in line
            )
            assert "3 failed, 2 skipped" in line


async def test_a_bad_external_url_keeps_the_run_from_starting(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(140, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        form = screen.form
        form.query_one("#query", TextArea).load_text("q")
        form.set_document(Path(DOC_NAME))
        form.query_one("#external-docs", TextArea).load_text("ftp://files.example/docs")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not screen.running
        [notice] = list(app._notifications)
        assert "http(s) only" in notice.message
