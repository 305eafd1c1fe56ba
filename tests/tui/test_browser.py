"""The session browser: list, filter, search, sort, open; sessions from other writers appear."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from textual.content import Content
from textual.widgets import Input, OptionList, Select, Static, TabbedContent

from ralph_tui.events import Notice, SandboxExecuted
from ralph_tui.traces.models import CacheSaving, SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.core import formatting as fmt
from ralph_tui.tui.screens.browser_screen import PAGE_SIZE, SessionBrowser
from ralph_tui.tui.screens.session_screen import SessionScreen
from ralph_tui.tui.widgets.session_table import (
    COLUMNS,
    SessionTable,
    cache_saved,
    header_line,
    session_cells,
    session_line,
    shown_columns,
)
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import QUESTION, TASK_SAVED

SIZE = (100, 30)


def table_of(app: RalphApp) -> SessionTable:
    screen = app.screen
    assert isinstance(screen, SessionBrowser)
    return screen.table


def listed(app: RalphApp) -> list[str]:
    table = table_of(app)
    return table.session_ids


def cells_of(record: SessionRecord) -> dict[str, str]:
    """Each column's text for ``record``, by the column's label."""
    return dict(zip((label for label, _ in COLUMNS), session_cells(record), strict=True))


async def test_lists_every_session_newest_first_with_parent(
    make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        ids = fixture_sessions
        assert listed(app) == [ids["cancelled"], ids["task"], ids["rerun"], ids["main"]]
        table = table_of(app)
        assert cells_of(table.records[ids["rerun"]])["Parent"] == ids["main"].split("/")[1]
        assert cells_of(table.records[ids["task"]])["Status"] == "failed"
        line = table.get_option(ids["rerun"]).prompt
        assert isinstance(line, Content) and ids["main"].split("/")[1] in line.plain


async def test_filters_by_mode_and_status(
    make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        app.screen.query_one("#mode", Select).value = "task"
        await wait_for(pilot, lambda: listed(app) == [fixture_sessions["task"]])
        app.screen.query_one("#mode", Select).clear()
        app.screen.query_one("#status", Select).value = "cancelled"
        await wait_for(pilot, lambda: listed(app) == [fixture_sessions["cancelled"]])


async def test_search_and_sort(make_app: MakeApp, fixture_sessions: dict[str, str]) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"alarm")
        await wait_for(pilot, lambda: listed(app) == [fixture_sessions["task"]])
        app.screen.query_one("#search", Input).value = ""
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        app.screen.query_one("#sort", Select).value = "duration"
        await wait_for(pilot, lambda: listed(app)[0] == fixture_sessions["task"])
        assert listed(app)[-1] == fixture_sessions["cancelled"]


async def test_open_shows_timeline_detail_diff_and_transcript(
    make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        table = table_of(app)
        table.focus()
        table.highlighted = table.get_option_index(fixture_sessions["main"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.data is not None and screen.selected == 2)
        assert screen.query_one("#timeline", OptionList).option_count == 2
        children = screen.query_one("#children", OptionList)
        assert children.get_option_at_index(0).id == fixture_sessions["rerun"]
        detail = str(screen.query_one("#iteration-detail").render())
        assert "Quote the document verbatim" in detail and "quotes_verbatim" in detail
        diff = str(screen.query_one("#diff").render())
        assert (
            "+- Quote the document verbatim" in diff and "-- Filters are backwashed weekly" in diff
        )
        await pilot.press("t")
        assert screen.query_one(TabbedContent).active == "tab-transcript"
        await wait_for(pilot, lambda: len(screen.query_one("#transcript").children) > 2)
        assert screen.progress.outcome == "passed" and screen.progress.isolation == "bwrap"
        await pilot.press("escape")
        assert isinstance(app.screen, SessionBrowser)


async def test_parent_and_children_link_both_ways(
    make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        browser = app.screen
        assert isinstance(browser, SessionBrowser)
        browser.open_session(fixture_sessions["rerun"])
        await wait_for(pilot, lambda: getattr(app.screen, "data", None) is not None)
        await pilot.press("p")
        await wait_for(
            pilot,
            lambda: (
                getattr(app.screen, "session_id", "") == fixture_sessions["main"]
                and getattr(app.screen, "data", None) is not None
            ),
        )
        children = app.screen.query_one("#children", OptionList)
        assert children.get_option_at_index(0).id == fixture_sessions["rerun"]


def write_session_elsewhere(out_dir: Path, query: str) -> None:
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from ralph_tui.traces.store import TraceStore\n"
            "from ralph_tui.traces.models import SessionRecord\n"
            "record = SessionRecord(mode='qa', query=sys.argv[2])\n"
            "TraceStore(sys.argv[1]).create_session(record).finish('passed')\n",
            str(out_dir),
            query,
        ],
        check=True,
        cwd=Path(__file__).parents[2],
    )


async def test_a_session_written_by_another_process_appears(
    make_app: MakeApp, fixture_sessions: dict[str, str], out_dir: Path
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        await pilot.pause(0.3)  # Let the watcher start before the write.
        writer = threading.Thread(target=write_session_elsewhere, args=(out_dir, "from elsewhere"))
        writer.start()
        await wait_for(pilot, lambda: len(listed(app)) == 5)
        writer.join()
        record = TraceStore(out_dir).index.list_sessions(limit=1)[0]
        assert record.query == "from elsewhere" and listed(app)[0] == record.session_id


async def test_a_running_session_is_watched_live(make_app: MakeApp, out_dir: Path) -> None:
    store = TraceStore(out_dir)
    handle = store.create_session(SessionRecord(mode="qa", query=QUESTION))
    handle.append_event(Notice(message="started"))
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "data", None) is not None)
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.data is not None
        assert screen.data.status == "running"
        for step in range(1, 4):
            handle.append_event(
                SandboxExecuted(agent="worker", step=step, code="x = 1", output="", duration_ms=1)
            )
        await wait_for(pilot, lambda: screen.progress.cells == 3)
        assert len(screen.book.entries(0)) == 3
        handle.finish("passed")
        await wait_for(pilot, lambda: screen.data is not None and screen.data.status == "passed")
    store.close()


def start_session_and_die(out_dir: Path) -> None:
    """A writer process that starts a session, logs its start, and exits without finishing."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from ralph_tui.traces.store import TraceStore\n"
            "from ralph_tui.traces.models import SessionRecord\n"
            "from tests.tui.scripted import scripted_events\n"
            "handle = TraceStore(sys.argv[1]).create_session(SessionRecord(mode='qa', query='q'))\n"
            "handle.append_event(scripted_events(handle.session_id)[0])\n",
            str(out_dir),
        ],
        check=True,
        cwd=Path(__file__).parents[2],
    )


async def test_a_session_whose_writer_died_shows_as_crashed(
    make_app: MakeApp, out_dir: Path
) -> None:
    start_session_and_die(out_dir)
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 1)
        table = table_of(app)
        assert cells_of(table.records[listed(app)[0]])["Status"] == "crashed"
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "data", None) is not None)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.progress.outcome == "crashed")
        assert not screen.progress.running


async def test_more_sessions_load_at_the_end_of_the_list(make_app: MakeApp, out_dir: Path) -> None:
    store = TraceStore(out_dir)
    for number in range(PAGE_SIZE + 20):
        store.create_session(SessionRecord(mode="qa", query=f"q{number}")).finish("passed")
    store.close()
    app = make_app(start_mode="sessions")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == PAGE_SIZE)
        table = table_of(app)
        table.focus()
        await pilot.press("end")
        await wait_for(pilot, lambda: len(listed(app)) == PAGE_SIZE + 20)
        assert len(set(listed(app))) == PAGE_SIZE + 20


def test_a_narrow_line_gives_up_columns_before_the_query_wraps() -> None:
    record = SessionRecord(mode="qa", query=QUESTION, created_at=0.0, parent_session_id="d/qa-1")
    assert [label for label, _ in shown_columns(140)] == [label for label, _ in COLUMNS]
    assert [label for label, _ in shown_columns(96)] == [
        label for label, _ in COLUMNS if label != "Saved"
    ]
    assert [label for label, _ in shown_columns(78)] == [
        label for label, _ in COLUMNS if label not in ("Saved", "Parent")
    ]
    assert [label for label, _ in shown_columns(65)] == [
        label for label, _ in COLUMNS if label not in ("Saved", "Parent", "Tokens")
    ]
    wide, narrow = session_line(record, 140).plain, session_line(record, 78).plain
    assert len(wide) == 140 and "qa-1" in wide
    assert len(narrow) == 78 and "qa-1" not in narrow and QUESTION[:14] in narrow
    assert len(header_line(78)) <= 78 and "Parent" not in header_line(78)


async def test_a_session_the_sub_call_cache_saved_shows_the_saving(
    make_app: MakeApp, fixture_sessions: dict[str, str]
) -> None:
    app = make_app(start_mode="sessions")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: len(listed(app)) == 4)
        table = table_of(app)
        header = str(app.screen.query_one("#header", Static).render())
        start = header.index("Saved")
        width = dict(COLUMNS)["Saved"]
        shown = {}
        for session_id in listed(app):
            line = table.get_option(session_id).prompt
            assert isinstance(line, Content)
            shown[session_id] = line.plain[start : start + width].strip()
    assert shown.pop(fixture_sessions["task"]) == "$0.0123" == fmt.cost(TASK_SAVED.cost_usd)
    assert set(shown.values()) == {""}, "a session the cache saved nothing shows nothing there"


def test_the_saving_is_the_money_where_its_price_was_known_else_the_calls() -> None:
    assert cache_saved(CacheSaving(calls=3, input_tokens=900, cost_usd=0.0061)) == "$0.0061"
    assert cache_saved(CacheSaving(calls=3, input_tokens=900, cost_usd=None)) == "3 calls"
    assert cache_saved(CacheSaving(calls=1, input_tokens=300, cost_usd=None)) == "1 call"
    assert cache_saved(CacheSaving()) == ""
