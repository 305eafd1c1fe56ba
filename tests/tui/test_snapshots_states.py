"""SVG snapshots of the screen states a person meets: each screen empty and loaded, the
modals, a narrow terminal, a degraded sandbox, a session followed live.

Every picture comes from fixed data (fixed timestamps and figures, relative paths, a
fixed clock where a running session counts its time), so it is the same on every run
and machine. Update with ``pytest tests/tui/test_snapshots_states.py --snapshot-update``
after checking the new look by eye.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DirectoryTree, Footer, Input, OptionList, TabbedContent, TextArea

from ralph_tui.config import Settings
from ralph_tui.doctor import Check
from ralph_tui.events import ContextCompacted, ContextSize
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.screens.browser_screen import SessionBrowser
from ralph_tui.tui.screens.constraints_editor import ConstraintsEditor
from ralph_tui.tui.screens.doctor_screen import DoctorScreen
from ralph_tui.tui.screens.error_modal import ErrorModal
from ralph_tui.tui.screens.evals_screen import EvalsScreen
from ralph_tui.tui.screens.evidence_modal import EvidenceModal
from ralph_tui.tui.screens.file_picker import FilePicker
from ralph_tui.tui.screens.help_screen import HelpScreen
from ralph_tui.tui.screens.optimizer_screen import OptimizerScreen
from ralph_tui.tui.screens.passage_modal import PassageModal
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.session_screen import SessionScreen
from ralph_tui.tui.screens.summary_modal import SummaryModal
from ralph_tui.tui.widgets.context_pane import ContextPane
from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane
from ralph_tui.tui.widgets.run_monitor import read_document_text
from ralph_tui.tui.widgets.sandbox_pane import SandboxPane
from ralph_tui.tui.widgets.session_table import SessionTable
from tests.documents.fixtures import write_pdf
from tests.tui.conftest import MakeApp, run_screen_whole, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION, T0, scripted_runner
from tests.tui.snapshot_data import (
    start_running_session,
    write_degraded_session,
    write_fixture_evals,
    write_fixture_variants,
    write_recursive_session,
    write_searched_session,
)
from tests.tui.test_context_pane import CONDENSED, LEAVES, write_store
from tests.tui.test_snapshots import settle

SnapCompare = Callable[..., bool]
WIDE = (160, 45)
MEDIUM = (120, 36)
NARROW = (80, 24)
Steps = Callable[[Pilot[Any]], Any]


def session_screen(app: RalphApp) -> SessionScreen:
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    return screen


async def open_session(pilot: Pilot[Any], session_id: str, finished: bool = True) -> SessionScreen:
    """Open ``session_id`` from the browser; wait until its files and events are shown."""
    app: RalphApp = pilot.app  # type: ignore[assignment]
    browser = app.screen
    assert isinstance(browser, SessionBrowser)
    await wait_for(pilot, lambda: browser.table.option_count > 0)
    browser.open_session(session_id)
    await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
    screen = session_screen(app)
    await wait_for(pilot, lambda: screen.data is not None and screen.data.document is not None)
    if finished:
        await wait_for(pilot, lambda: not screen.progress.running)
    # Its footer shows its keys once the screen's bindings are known: a key pressed at once
    # (a modal opened over it) would otherwise leave the picture with an empty footer.
    footer = screen.query_one(Footer)
    await wait_for(pilot, lambda: bool(footer.query("FooterKey")))
    return screen


# -- the run screen -------------------------------------------------------------------------


def test_run_screen_in_a_narrow_terminal(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=NARROW, run_before=settle)


def test_error_modal_offers_the_offline_provider(
    snap_compare: SnapCompare, make_app: MakeApp
) -> None:
    async def refused(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query=QUESTION, doc=Path(DOC_NAME), provider="auto")
        # The screen under the modal is drawn as it last was: its question box's cursor is
        # kept from blinking before the modal covers it (``settle`` reaches the modal only).
        for widget in screen.query("Input, TextArea"):
            assert isinstance(widget, Input | TextArea)
            widget.cursor_blink = False
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ErrorModal))
        await settle(pilot)

    # Wide enough that starting keeps the form shown: where it hides and comes back, what
    # has the focus behind the modal depends on how fast the run fails.
    assert snap_compare(make_app(), terminal_size=WIDE, run_before=refused)


def test_evidence_modal_on_a_pdf_page(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    page_two = "The backwash pump runs for ten minutes at every backwash."
    write_pdf(
        Path("manual.pdf"),
        [["Chapter one covers the intake screens."], ["Pumps.", page_two, "Checked weekly."]],
    )

    async def opened(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query="How long does the pump run?", doc=Path("manual.pdf"))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: not screen.running and screen.monitor.sandbox.pending == 0)
        output = screen.monitor.output
        output.show({"answer": "- ten minutes", "evidence": [page_two]})
        await wait_for(pilot, lambda: output.corpus is not None)
        pilot.app.clear_notifications()  # The run's toast, before the modal covers its screen.
        options = output.query_one(OptionList)
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, EvidenceModal))
        await settle(pilot)

    app = make_app(runner=scripted_runner())
    assert snap_compare(app, terminal_size=MEDIUM, run_before=opened)


def test_summary_modal_of_a_compacted_context(
    snap_compare: SnapCompare, make_app: MakeApp, tmp_path: Path
) -> None:
    store = tmp_path / "context-01-worker.jsonl"
    write_store(store)

    async def opened(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, RunScreen)
        await run_screen_whole(pilot)
        screen.monitor.feed(
            [
                ContextCompacted(
                    ts=T0, agent="worker", status="compacted", before_tokens=25_000,
                    after_tokens=9_000, summaries=["S0003"], levels=[1],
                    dag=[*LEAVES, CONDENSED], top=["S0003"], store=str(store),
                ),
                ContextSize(ts=T0, agent="worker", tokens=9_000, soft=20_000, hard=27_000,
                            messages=42, summaries=1),
            ]
        )  # fmt: skip
        screen.monitor.query_one("#extras", TabbedContent).active = "tab-context"
        await wait_for(pilot, lambda: bool(screen.monitor.query(ContextPane)))
        tree = screen.monitor.query_one(ContextPane).query_one(OptionList)
        await wait_for(pilot, lambda: tree.option_count == 3)  # (the store is read after)
        tree.focus()
        tree.highlighted = 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SummaryModal))
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=MEDIUM, run_before=opened)


def test_file_picker_over_the_working_folder(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    Path("manuals").mkdir()
    Path("manuals", "pumps.pdf").write_bytes(b"%PDF-1.4")
    Path("notes.txt").write_text("a note", encoding="utf-8")

    async def opened(pilot: Pilot[Any]) -> None:
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, FilePicker))
        tree = pilot.app.screen.query_one(DirectoryTree)
        await wait_for(pilot, lambda: len(tree.root.children) == 3)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=MEDIUM, run_before=opened)


def test_doctor_screen_with_a_failing_check(
    snap_compare: SnapCompare, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = [
        Check("sandbox", "ok", "bubblewrap 0.8.0: namespaces, seccomp, no network"),
        Check(
            "anthropic key", "fail", "not set", "set ANTHROPIC_API_KEY, or use --provider offline"
        ),
        Check("openai key", "warn", "not set (the validate role needs it)", "set OPENAI_API_KEY"),
        Check("pdf converter", "ok", "pypdfium2 4.30.0"),
        Check("out dir", "ok", "out can be written (no sessions yet)"),
    ]

    async def fixed(settings: Settings) -> list[Check]:
        return checks

    monkeypatch.setattr("ralph_tui.tui.screens.doctor_screen.run_checks", fixed)

    async def opened(pilot: Pilot[Any]) -> None:
        app: RalphApp = pilot.app  # type: ignore[assignment]
        app.action_doctor()
        await wait_for(pilot, lambda: isinstance(app.screen, DoctorScreen))
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        await wait_for(pilot, lambda: screen.checks is not None)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=MEDIUM, run_before=opened)


# -- the session browser --------------------------------------------------------------------


def test_session_browser_with_no_sessions(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    async def empty(pilot: Pilot[Any]) -> None:
        label = pilot.app.screen.query_one("#count")
        await wait_for(pilot, lambda: "No sessions yet" in str(label.render()))
        await settle(pilot)

    assert snap_compare(make_app(start_mode="sessions"), terminal_size=MEDIUM, run_before=empty)


@pytest.mark.usefixtures("fixture_sessions")
def test_session_browser_searched(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    async def searched(pilot: Pilot[Any]) -> None:
        table = pilot.app.screen.query_one(SessionTable)
        await wait_for(pilot, lambda: table.option_count == 4)
        await pilot.press("slash", *"alarm")
        await wait_for(pilot, lambda: table.option_count == 1)
        await settle(pilot)

    app = make_app(start_mode="sessions")
    assert snap_compare(app, terminal_size=MEDIUM, run_before=searched)


@pytest.mark.usefixtures("fixture_sessions")
def test_session_browser_in_a_narrow_terminal(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    async def loaded(pilot: Pilot[Any]) -> None:
        table = pilot.app.screen.query_one(SessionTable)
        await wait_for(pilot, lambda: table.option_count == 4)
        await settle(pilot)

    app = make_app(start_mode="sessions")
    assert snap_compare(app, terminal_size=NARROW, run_before=loaded)


# -- the session screen ---------------------------------------------------------------------


def snap_session(
    snap_compare: SnapCompare, app: RalphApp, session_id: str, *keys: str, then: Steps | None = None
) -> bool:
    """Open ``session_id``, press ``keys``, run ``then``, and compare the picture."""

    async def steps(pilot: Pilot[Any]) -> None:
        await open_session(pilot, session_id)
        for key in keys:
            await pilot.press(key)
        if then is not None:
            await then(pilot)
        await settle(pilot)

    return bool(snap_compare(app, terminal_size=WIDE, run_before=steps))


def test_session_screen_with_no_iteration(
    snap_compare: SnapCompare, make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, fixture_sessions["cancelled"])


def test_session_screen_diff(
    snap_compare: SnapCompare, make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, fixture_sessions["main"], "d")


def test_session_screen_transcript(
    snap_compare: SnapCompare, make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    async def shown(pilot: Pilot[Any]) -> None:
        pane = pilot.app.screen.query_one(SandboxPane)
        await wait_for(pilot, lambda: len(pane.entries) == 2 and pane.pending == 0)

    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, fixture_sessions["main"], "t", then=shown)


def test_session_screen_degraded_sandbox(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    session_id = write_degraded_session(out_dir)
    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, session_id)


def test_session_screen_transcript_of_child_agents(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    session_id = write_recursive_session(out_dir)

    async def shown(pilot: Pilot[Any]) -> None:
        pane = pilot.app.screen.query_one(SandboxPane)
        await wait_for(pilot, lambda: len(pane.entries) == 8 and pane.pending == 0)
        # Ended children are folded; the first is opened to show its cells and its child.
        pane.folds["worker/1.1"].set_open(True)
        await pilot.pause()

    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, session_id, "t", then=shown)


@pytest.fixture
def searched_session(out_dir: Path) -> str:
    return write_searched_session(out_dir, read_document_text(Path(DOC_NAME)))


async def passages_listed(pilot: Pilot[Any]) -> None:
    options = pilot.app.screen.query_one(RetrievalPane).query_one(OptionList)
    await wait_for(pilot, lambda: options.option_count == 3)


def test_session_screen_searches(
    snap_compare: SnapCompare, make_app: MakeApp, searched_session: str
) -> None:
    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, searched_session, "s", then=passages_listed)


def test_session_screen_search_in_a_readers_words(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    """A search that also looked for the report's words for a reader's: its heading says
    which, as the CLI's ``search`` does."""
    session_id = write_searched_session(
        out_dir,
        read_document_text(Path(DOC_NAME)),
        query="What is the filter house's headcount on a night shift?",
        diagnostics={
            "ms": {"total": 21.0},
            "readerTerms": {"headcount": ["employees", "workforce"]},
        },
    )
    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, session_id, "s", then=passages_listed)


def test_passage_modal(snap_compare: SnapCompare, make_app: MakeApp, searched_session: str) -> None:
    async def opened(pilot: Pilot[Any]) -> None:
        await passages_listed(pilot)
        options = pilot.app.screen.query_one(RetrievalPane).query_one(OptionList)
        options.focus()
        options.highlighted = 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, PassageModal))

    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, searched_session, "s", then=opened)


def test_constraints_editor(
    snap_compare: SnapCompare, make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    async def editing(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConstraintsEditor))

    app = make_app(start_mode="sessions")
    assert snap_session(snap_compare, app, fixture_sessions["main"], "e", then=editing)


def test_help_on_the_session_screen(
    snap_compare: SnapCompare, settings: Settings, fixture_sessions: dict[str, str]
) -> None:
    async def helped(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))

    # The help names the config dir: a fixed one, not the test's temporary folder.
    app = RalphApp(settings, config_path=Path("~/.config/ralph-tui"), start_mode="sessions")
    assert snap_session(snap_compare, app, fixture_sessions["main"], "f1", then=helped)


def test_session_screen_following_a_live_session(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    store, handle = start_running_session(out_dir, events_written=15)

    async def following(pilot: Pilot[Any]) -> None:
        app: RalphApp = pilot.app  # type: ignore[assignment]
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        await wait_for(pilot, lambda: browser.table.option_count == 1)
        # A fixed "now": 15 s into the run, 5 s into iteration 2's worker phase.
        app.push_screen(SessionScreen(handle.session_id, TraceStore(out_dir), lambda: T0 + 15))
        screen = session_screen(app)
        await wait_for(pilot, lambda: screen.data is not None and screen.selected == 1)
        await wait_for(pilot, lambda: screen.progress.sub_calls == 2)
        assert screen.progress.running and screen.data is not None
        await settle(pilot)

    try:
        app = make_app(start_mode="sessions")
        assert snap_compare(app, terminal_size=WIDE, run_before=following)
    finally:
        store.close()


# -- evals (F4) and optimizer (F5) ----------------------------------------------------------


def snap_mode(snap_compare: SnapCompare, app: RalphApp, key: str, ready: Steps) -> bool:
    async def steps(pilot: Pilot[Any]) -> None:
        await pilot.press(key)
        await ready(pilot)
        await settle(pilot)

    return bool(snap_compare(app, terminal_size=MEDIUM, run_before=steps))


def test_evals_screen_with_no_evals(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    async def ready(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, EvalsScreen))
        await pilot.pause(0.2)

    assert snap_mode(snap_compare, make_app(), "f4", ready)


async def eval_report(pilot: Pilot[Any], text: str) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, EvalsScreen))
    report = pilot.app.screen.query_one("#eval-report")
    await wait_for(pilot, lambda: text in str(report.render()))


def test_evals_screen_with_a_qa_suite(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    write_fixture_evals(out_dir)

    async def ready(pilot: Pilot[Any]) -> None:
        await eval_report(pilot, "sample-chemicals")

    assert snap_mode(snap_compare, make_app(), "f4", ready)


def test_evals_screen_with_a_needle_suite(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    write_fixture_evals(out_dir)

    async def ready(pilot: Pilot[Any]) -> None:
        await eval_report(pilot, "sample-chemicals")
        pilot.app.screen.query_one("#evals-list", OptionList).focus()
        await pilot.press("down")
        await eval_report(pilot, "needle-16k-d100")

    assert snap_mode(snap_compare, make_app(), "f4", ready)


def test_optimizer_screen_with_no_sessions(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    async def ready(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, OptimizerScreen))
        screen = pilot.app.screen
        assert isinstance(screen, OptimizerScreen)
        await wait_for(pilot, lambda: screen.report is not None)

    assert snap_mode(snap_compare, make_app(), "f5", ready)


@pytest.mark.usefixtures("fixture_sessions")
def test_optimizer_screen_with_variants(
    snap_compare: SnapCompare, make_app: MakeApp, out_dir: Path
) -> None:
    write_fixture_variants(out_dir)

    async def ready(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, OptimizerScreen))
        variants = pilot.app.screen.query_one("#variants", OptionList)
        await wait_for(pilot, lambda: variants.option_count == 3)

    assert snap_mode(snap_compare, make_app(), "f5", ready)
