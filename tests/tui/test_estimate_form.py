"""The run form's estimate, kept up to date as the form changes, and the question asked
before a run expected to reach its cap (Start or Cancel, by button or key)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from ralph_tui.config import Settings, load_settings
from ralph_tui.estimates import estimate_run, plan_of
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core.estimate_text import confirmation_text, form_summary
from ralph_tui.tui.core.run_handle import RunState
from ralph_tui.tui.screens.confirm_spend import ConfirmSpend
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.estimate_view import SIZING
from tests.tui.conftest import MakeApp, opened_whole, run_screen_whole, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION, scripted_runner
from tests.tui.test_snapshots import settle

SIZE = (160, 45)


def run_screen(app: RalphApp) -> RunScreen:
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


def estimate_text(screen: RunScreen) -> str:
    return str(screen.form.query_one("#estimate", Static).render())


@pytest.fixture
def capped(out_dir: Path) -> Settings:
    """Paid models under a cost cap their expected spend reaches."""
    return load_settings({"out_dir": out_dir, "cost_cap_usd": 0.01}, env_file=Path("/x/.env"))


def capped_app(settings: Settings, tmp_path: Path, **kwargs: Any) -> RalphApp:
    app = RalphApp(settings, runner=scripted_runner(), config_path=tmp_path / "config", **kwargs)
    return opened_whole(app)


async def test_the_estimate_follows_the_form(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: not screen.form.estimate_view.estimating)
        assert "choose a document" in estimate_text(screen)
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="auto")
        await wait_for(pilot, lambda: "rlm (selected)" in estimate_text(screen))
        assert "expected $" in estimate_text(screen) and "lcm" in estimate_text(screen)
        screen.form.query_one("#inner", ChoiceCycle).value = "lcm"
        await wait_for(pilot, lambda: "lcm (selected)" in estimate_text(screen))
        screen.form.query_one("#provider", ChoiceCycle).value = "offline"
        await wait_for(pilot, lambda: "expected $0.00" in estimate_text(screen))
        screen.form.set_document(Path("missing.md"))
        await wait_for(pilot, lambda: "not found" in estimate_text(screen))
        assert screen.form.estimate_view.estimate is None


async def test_a_run_past_its_cap_asks_first_and_cancel_leaves_it(
    capped: Settings, tmp_path: Path
) -> None:
    app = capped_app(capped, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="auto")
        await pilot.press("ctrl+r")  # before the form's estimate: one is made for the start
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSpend))
        modal = app.screen
        assert isinstance(modal, ConfirmSpend)
        shown = str(modal.query_one("#confirm-figures", Static).render())
        assert "the $0.01 cost cap stops it" in shown and "worst $" in shown
        assert "likely stop capped" in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.handle is None
        await wait_for(pilot, lambda: not screen.form.estimate_view.estimating)
        await pilot.press("ctrl+r")  # the form's estimate now: asked at once
        assert isinstance(app.screen, ConfirmSpend)
        await pilot.click("#cancel")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.handle is None


async def test_start_in_the_question_starts_the_run(capped: Settings, tmp_path: Path) -> None:
    app = capped_app(capped, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="auto")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSpend))
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.run_state is RunState.FINISHED)
        assert screen.monitor.progress.outcome == "passed"


@pytest.mark.parametrize("cap", [5.0, 1e6], ids=["worst-case-past-the-cap", "roomy"])
async def test_a_run_expected_within_its_cap_starts_without_asking(
    out_dir: Path, tmp_path: Path, cap: float
) -> None:
    roomy = load_settings({"out_dir": out_dir, "cost_cap_usd": cap}, env_file=Path("/x/.env"))
    app = capped_app(roomy, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="auto")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.run_state is RunState.FINISHED)
        assert not isinstance(app.screen, ConfirmSpend)


def fixed_estimate() -> Any:
    settings = Settings(_env_file=None, cost_cap_usd=5.0)
    plan = plan_of(settings, "qa", QUESTION, 34_973)
    return estimate_run(plan, inner="rlm", cost_cap_usd=5.0, token_cap=None)


def test_the_words_say_the_figures_and_the_cap() -> None:
    estimate = fixed_estimate()
    summary = form_summary(estimate)
    assert summary.splitlines()[1] == "rlm (selected): settings only"
    assert "the $5.00 cost cap stops it" in summary and "other modes: lcm $" in summary
    words = confirmation_text(estimate)
    assert "Cost cap: $5.00; token cap: none." in words and "worst $" in words


def test_confirmation_snapshot(snap_compare: Any, make_app: MakeApp) -> None:
    async def asked(pilot: Any) -> None:
        pilot.app.push_screen(ConfirmSpend(fixed_estimate()))
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(100, 30), run_before=asked)


def held_estimates(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The form's estimates made to wait, as a large document's first conversion might,
    until the event returned is set (at most 10 s)."""
    from ralph_tui.tui.core import requests

    release = threading.Event()
    real = requests.form_estimate

    def slow(*args: Any) -> Any:
        release.wait(10)
        return real(*args)

    monkeypatch.setattr(requests, "form_estimate", slow)
    return release


async def test_a_slow_estimate_never_holds_up_typing(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = held_estimates(monkeypatch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        screen.form.prefill(doc=Path(DOC_NAME), provider="offline")
        await pilot.pause(0.6)  # the estimate has started, and waits
        assert screen.form.estimate_view.estimating
        # a document is chosen: the form says it is being read, not to choose one
        assert estimate_text(screen) == SIZING
        await pilot.press(*"abc")
        assert screen.form.query_one("#query").text == "abc"  # type: ignore[attr-defined]
        release.set()
        await wait_for(pilot, lambda: not screen.form.estimate_view.estimating)
        assert "expected $0.00" in estimate_text(screen)


def test_the_form_while_its_documents_are_read_snapshot(
    snap_compare: Any, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimate's place says the documents are being read, not to choose one."""
    release = held_estimates(monkeypatch)

    async def reading(pilot: Any) -> None:
        await run_screen_whole(pilot)
        screen = run_screen(pilot.app)
        for widget in screen.query("Input, TextArea"):  # (kept from blinking before typed in)
            widget.cursor_blink = False  # type: ignore[attr-defined]
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="offline")
        await wait_for(pilot, lambda: estimate_text(screen) == SIZING)
        await pilot.pause()

    try:
        assert snap_compare(make_app(), terminal_size=(100, 30), run_before=reading)
    finally:
        release.set()
