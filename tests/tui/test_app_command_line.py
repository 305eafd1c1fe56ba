"""The app opened from a command line (``ralph-tui DOC --query ... --out DIR ...``): the run
form shows what it gave, its estimate is of those settings, and a run started from the form
writes into the ``--out`` dir, which the session browser lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, TextArea

import ralph_tui.tui.app
from ralph_tui.cli.app_start import AppStart
from ralph_tui.main import main
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core.document_line import documents_line, documents_of_line
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.session_table import SessionTable
from tests.tui.conftest import opened_whole, wait_for
from tests.tui.scripted import DOC_NAME, QUESTION

SIZE = (100, 30)


def app_of(argv: list[str], config: Path, monkeypatch: pytest.MonkeyPatch) -> RalphApp:
    """The app ``ralph-tui ARGV`` opens: ``main`` reads the command line, the app is made as
    ``run_app`` makes it."""
    starts: list[AppStart] = []

    def run_app(demo: bool = False, start: AppStart | None = None) -> int:
        assert start is not None and not demo
        starts.append(start)
        return 0

    with monkeypatch.context() as patch:
        patch.setattr(ralph_tui.tui.app, "run_app", run_app)
        assert main(argv) == 0
    (start,) = starts
    return opened_whole(RalphApp(start.settings, form_fill=start.form, config_path=config))


def run_screen(app: RalphApp) -> RunScreen:
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


async def test_the_form_is_filled_and_a_run_from_it_writes_into_the_out_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "flag-out"
    app = app_of(
        [DOC_NAME, "--query", QUESTION, "--mode", "qa", "--provider", "offline",
         "--out", str(out), "--maxIters", "2", "--inner", "lcm"],
        tmp_path / "config",
        monkeypatch,
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        form = screen.form
        await wait_for(pilot, lambda: form.query_one("#query", TextArea).text == QUESTION)
        assert form.document_text == DOC_NAME
        assert form.query_one("#mode", ChoiceCycle).value == "qa"
        assert form.query_one("#provider", ChoiceCycle).value == "offline"
        assert form.query_one("#max-iters", Input).value == "2"
        assert form.query_one("#inner", ChoiceCycle).value == "lcm"
        estimate = form.estimate_view
        await wait_for(pilot, lambda: estimate.estimate is not None and not estimate.estimating)
        assert estimate.estimate is not None
        values, _spend = estimate.estimate
        assert (values.max_iters, values.inner, values.provider) == (2, "lcm", "offline")
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: screen.monitor.progress.outcome == "passed" and not screen.running,
            timeout=30,
        )
        session_id = screen.monitor.progress.session_id
        assert session_id
        record = TraceStore(out).load_session(session_id)
        assert record.query == QUESTION and record.mode == "qa"
        assert record.settings["maxIters"] == 2 and record.settings["inner"] == "lcm"
        assert not (Path.cwd() / "out").exists()  # the default out dir was not used
        await pilot.press("f3")  # the session browser lists the --out dir's sessions
        await wait_for(pilot, lambda: bool(app.screen.query(SessionTable)))
        table = app.screen.query_one(SessionTable)
        await wait_for(pilot, lambda: table.session_ids == [session_id])


async def test_several_documents_are_all_in_the_form_and_in_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    second = Path("second notes.md")
    second.write_text("The pumps are checked every Monday.\n", encoding="utf-8")
    out = tmp_path / "out"
    app = app_of(
        [DOC_NAME, str(second), "--query", "When are the pumps checked?", "--mode", "task",
         "--decompose", "--provider", "offline", "--out", str(out), "--maxIters", "1"],
        tmp_path / "config",
        monkeypatch,
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        screen = run_screen(app)
        form = screen.form
        await wait_for(pilot, lambda: bool(form.document_text))
        assert form.document_text == f"{DOC_NAME} 'second notes.md'"
        assert form.query_one("#mode", ChoiceCycle).value == "task"
        assert form.query_one("#decompose", Checkbox).value is True
        values = form.values()
        assert [values.doc_path, *values.more_docs] == [Path(DOC_NAME), second]
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: screen.run_state is not None and not screen.running, 60)
        record = TraceStore(out).load_session(screen.monitor.progress.session_id or "")
        assert [Path(doc).name for doc in record.settings["docs"]] == [DOC_NAME, second.name]


@pytest.mark.parametrize(
    "paths",
    [
        [Path("a.md")],
        [Path("my notes.md")],
        [Path("a.md"), Path("b.md")],
        [Path("it's here.md"), Path('"quoted".md'), Path("docs/*.md")],
    ],
)
def test_the_document_line_reads_back_what_it_writes(paths: list[Path]) -> None:
    assert documents_of_line(documents_line(paths)) == paths


def test_the_document_line_as_a_person_types_it(tmp_path: Path) -> None:
    spaced = tmp_path / "my notes.md"
    spaced.write_text("x")
    assert documents_of_line(f"  {spaced} ") == [spaced]  # an existing path, spaces and all
    assert documents_of_line("a.md  b.md") == [Path("a.md"), Path("b.md")]
    assert documents_of_line("it's.md") == [Path("it's.md")]  # a quote that does not close
    assert documents_of_line("~/a.md") == [Path.home() / "a.md"]
    assert documents_of_line("   ") == []


async def test_a_provider_given_as_a_flag_is_shown_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without keys the form offers the offline provider; one asked for by name is kept,
    with the warning that says what it lacks."""
    app = app_of([DOC_NAME, "--provider", "auto"], tmp_path / "config", monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        form = run_screen(app).form
        await wait_for(pilot, lambda: form.document_text == DOC_NAME)
        assert form.provider == "auto" and form.query("#keys-warning")
    app = app_of([DOC_NAME], tmp_path / "config", monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        form = run_screen(app).form
        await wait_for(pilot, lambda: form.document_text == DOC_NAME)
        assert form.provider == "offline"


def test_an_app_opened_without_flags_still_reads_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_OUT_DIR", str(tmp_path / "env-out"))
    app = app_of(["--maxIters", "4"], tmp_path / "config", monkeypatch)
    assert Path(app.context.settings.out_dir) == tmp_path / "env-out"
    assert app.context.settings.max_iters == 4 and app.form_fill is not None
    assert app.form_fill.docs == () and app.form_fill.query is None
