"""The Retrieval tab: the index's state, each search of the iteration with its passages,
where each comes from and its scores, and ``enter`` showing a passage in its place."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label, OptionList, Static, TabbedContent, TextArea

from ralph_tui.events import IndexProgress, RetrievalDone, RetrievedPassage
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.core.run_progress import RunProgress
from ralph_tui.tui.screens.passage_modal import PassageModal, passage_place
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.screens.session_screen import SessionScreen
from ralph_tui.tui.widgets.choice_cycle import ChoiceCycle
from ralph_tui.tui.widgets.retrieval_pane import RetrievalPane, index_line, search_heading
from ralph_tui.tui.widgets.status_line import status_content
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME

TASK = "Brief a new shift technician on chlorine dosing: the residual targets and the alarms"


async def test_a_task_run_lists_its_searches_and_opens_a_passage_in_place(
    make_app: MakeApp, tmp_path: Path
) -> None:
    document = (Path.cwd() / DOC_NAME).read_text(encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(140, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.query_one("#mode", ChoiceCycle).value = "task"
        screen.form.query_one("#query", TextArea).load_text(TASK)
        screen.form.set_document(Path(DOC_NAME))
        screen.form.query_one("#provider", ChoiceCycle).value = "offline"
        await pilot.press("ctrl+r")
        monitor = screen.monitor
        await wait_for(pilot, lambda: monitor.progress.outcome in ("passed", "failed"), 60)
        await wait_for(pilot, lambda: monitor.output.document is not None)
        monitor.query_one("#extras", TabbedContent).active = "tab-retrieval"
        await pilot.pause()
        pane = monitor.query_one(RetrievalPane)
        index = str(pane.query_one("#retrieval-index").render())
        assert "chunks" in index and "wordllama" in index and "built" in index
        [search, *_] = monitor.progress.searches[1]
        assert search.origin == "prephase" and len(search.passages) == 5
        options = pane.query_one(OptionList)
        heading = str(options.get_option_at_index(0).prompt)
        assert "Brief a new shift technician" in heading and "before the reader" in heading
        assert options.get_option_at_index(0).disabled
        second = search.passages[1]
        assert second.label in str(options.get_option_at_index(2).prompt)
        options.focus()
        options.highlighted = 2
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PassageModal))
        modal = app.screen
        assert isinstance(modal, PassageModal) and modal.place is not None
        assert second.span is not None
        start, end = second.span
        assert modal.place.quote == document[start:end]
        where = str(modal.query_one("#passage-where", Label).render())
        assert where.startswith(second.label) and "lexical #" in where
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)


def test_index_progress_shows_in_the_status_line_and_the_pane() -> None:
    progress = RunProgress(session_id="2026-01-01/task-1", outcome="running")
    changed = progress.apply(IndexProgress(stage="vectors", done=250, total=1000))
    assert {"retrieval", "status"} <= changed
    assert "indexing vectors 25%" in status_content(progress).plain
    assert "building vectors 250/1,000" in index_line(progress.index).plain
    progress.apply(
        IndexProgress(
            stage="ready",
            done=1000,
            total=1000,
            figures={"chunks": 1000, "words": 9000, "denseSkipped": "no embedder", "ms": {}},
        )
    )
    assert "indexing" not in status_content(progress).plain
    assert "1,000 chunks" in index_line(progress.index).plain
    assert "dense skipped (no embedder)" in index_line(progress.index).plain


def test_searches_are_kept_per_iteration() -> None:
    progress = RunProgress()
    for iteration, query in ((1, "first"), (2, "second"), (2, "third")):
        progress.apply(RetrievalDone(iteration=iteration, origin="sandbox", query=query))
    assert [s.query for s in progress.searches[2]] == ["second", "third"]
    assert [s.query for s in progress.searches[1]] == ["first"]


def passage(**fields: object) -> RetrievedPassage:
    base: dict[str, object] = {
        "id": "doc::1",
        "source": "doc",
        "label": "[source=doc chunk 1 chars 6-11]",
        "text": "world",
        "span": [6, 11],
    }
    return RetrievedPassage.model_validate({**base, **fields})


def test_a_passage_is_placed_only_where_the_document_still_holds_it() -> None:
    place = passage_place(passage(), "hello world, again", None)
    assert place is not None and place.before == "hello " and place.quote == "world"
    assert passage_place(passage(), "hello there, again", None) is None
    assert passage_place(passage(span=[6, 99]), "hello world", None) is None
    assert passage_place(passage(), None, None) is None
    episode = passage(source="episode", span=None, label="[source=episode 2]")
    assert passage_place(episode, "hello world", None) is None


@pytest.fixture
def task_session(out_dir: Path) -> str:
    """A finished offline task run of two iterations (each searched before the reader)."""
    from ralph_tui.cli import run_cli

    run_cli(["run", "--provider", "offline", "--mode", "task", "--query", TASK, "--doc",
             DOC_NAME, "--out", str(out_dir), "--maxIters", "2",
             "--constraint", "focus on the shift handover"])  # fmt: skip
    [record] = TraceStore(out_dir).index.list_sessions(limit=None)
    return record.session_id


async def test_a_past_session_shows_each_iterations_searches(
    make_app: MakeApp, out_dir: Path, task_session: str
) -> None:
    document = (Path.cwd() / DOC_NAME).read_text(encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(140, 48)) as pilot:
        app.push_screen(SessionScreen(task_session, TraceStore(out_dir)))
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.data is not None and screen.selected is not None)
        await pilot.press("s")
        assert screen.query_one(TabbedContent).active == "tab-retrieval"
        pane = screen.query_one(RetrievalPane)
        heading = pane.query_one("#retrieval-heading", Static)
        await wait_for(pilot, lambda: f"Iteration {screen.selected}:" in str(heading.render()))
        options = pane.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count > 1)
        assert TASK[:30] in str(options.get_option_at_index(0).prompt)
        options.focus()
        options.highlighted = 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PassageModal))
        modal = app.screen
        assert isinstance(modal, PassageModal) and modal.place is not None
        assert modal.place.quote in document


def test_a_searchs_heading_says_what_it_also_searched_for() -> None:
    search = RetrievalDone(
        iteration=1,
        origin="sandbox",
        query="What was Acme's total headcount at the end of 2023?",
        diagnostics={"readerTerms": {"headcount": ["employees", "workforce"]}},
    )
    heading = str(search_heading(search).prompt)
    assert "also searched for employees, workforce (for headcount)" in heading
    # A recorded trace from elsewhere with another shape shows nothing of it.
    odd = search.model_copy(update={"diagnostics": {"readerTerms": ["headcount"]}})
    assert "also searched" not in str(search_heading(odd).prompt)
