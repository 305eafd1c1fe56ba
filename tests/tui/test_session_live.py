"""The session screen follows a session that another process is writing, as it writes."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import OptionList

from ralph_tui.atomic import write_atomic
from ralph_tui.traces.files import EVENTS_FILE
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.session_ids import session_dir
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.screens.session_screen import SessionScreen, load_session_data
from ralph_tui.tui.widgets.sandbox_pane import SandboxPane
from ralph_tui.tui.widgets.status_line import RunStatusLine
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import T0, scripted_events

SIZE = (120, 40)
REPO = Path(__file__).parents[2]


class Writer:
    """``tests.tui.live_writer`` in a child process; ``send`` returns once it is done."""

    def __init__(self, out_dir: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.tui.live_writer", str(out_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert self.process.stdout is not None
        self.session_id = self.process.stdout.readline().strip()

    def send(self, command: str) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        if command != "exit":
            assert self.process.stdout.readline().strip() == "ok"


@pytest.fixture
def writer(out_dir: Path) -> Iterator[Writer]:
    writer = Writer(out_dir)
    yield writer
    if writer.process.poll() is None:
        writer.process.kill()
    writer.process.wait()


def open_screen(
    app: RalphApp, writer: Writer, out_dir: Path, clock: Callable[[], float] = time.time
) -> SessionScreen:
    app.push_screen(SessionScreen(writer.session_id, TraceStore(out_dir), clock))
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    return screen


async def test_a_session_written_by_another_process_is_followed_live(
    make_app: MakeApp, out_dir: Path, writer: Writer
) -> None:
    writer.send("events 0 5")  # Run and iteration 1 started, a sub-call, a cell.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = open_screen(app, writer, out_dir)
        await wait_for(pilot, lambda: screen.progress.cells == 1 and screen.data is not None)
        assert screen.data is not None and screen.data.status == "running"
        assert screen.progress.running and screen.progress.sub_calls == 1
        status = screen.query_one(RunStatusLine)
        assert " RUNNING " in str(status.render()) and writer.session_id in str(status.render())

        writer.send("half 5")  # The agent's step, half written.
        await pilot.pause(0.6)
        assert screen.progress.step == 0
        writer.send("rest 5")
        await wait_for(pilot, lambda: screen.progress.step == 2)

        writer.send("events 6 12")  # Iteration 1 fails...
        writer.send("iteration 1")  # ...and its trace is written.
        timeline = screen.query_one("#timeline", OptionList)
        await wait_for(pilot, lambda: timeline.option_count == 1 and screen.selected == 1)
        transcript = screen.query_one(SandboxPane)
        await wait_for(pilot, lambda: len(transcript.entries) == 2)
        assert screen.progress.checks[1].passed is False
        await pilot.press("t")
        await pilot.pause()
        assert transcript.scroll_y == 0  # Not scrolled off to where no entry is.

        writer.send("events 12 24")  # Iteration 2 passes, the run ends.
        writer.send("iteration 2")
        writer.send("finish")
        await wait_for(pilot, lambda: screen.data is not None and screen.data.status == "passed")
        await wait_for(pilot, lambda: timeline.option_count == 2)
        assert screen.progress.outcome == "passed" and not screen.progress.running
        assert " PASSED " in str(status.render())
        assert not transcript.follow  # A finished session is read, not followed.


async def test_a_writer_that_dies_mid_run_shows_as_crashed(
    make_app: MakeApp, out_dir: Path, writer: Writer
) -> None:
    writer.send("events 0 5")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = open_screen(app, writer, out_dir)
        await wait_for(pilot, lambda: screen.progress.cells == 1 and screen.progress.running)
        writer.send("exit")
        writer.process.wait()
        await wait_for(pilot, lambda: screen.progress.outcome == "crashed")
        assert screen.data is not None and screen.data.status == "crashed"
        assert " CRASHED " in str(screen.query_one(RunStatusLine).render())


def test_a_session_without_a_document_reads_no_files(out_dir: Path) -> None:
    """Its document is unknown, not the working directory (whose files include the index
    itself: reading those would make SQLite drop this process's locks on it)."""
    store = TraceStore(out_dir)
    handle = store.create_session(SessionRecord(mode="qa", query="q"))
    assert Path("handbook.md").is_file()  # The working directory holds a document.
    data = load_session_data(store, handle.session_id, with_document=True)
    assert data.document is None
    store.close()


async def test_a_quiet_running_session_still_counts_its_time(
    make_app: MakeApp, out_dir: Path, writer: Writer
) -> None:
    writer.send("events 0 5")
    now = [T0 + 60]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = open_screen(app, writer, out_dir, lambda: now[0])
        await wait_for(pilot, lambda: screen.progress.cells == 1)
        status = screen.query_one(RunStatusLine)
        await wait_for(pilot, lambda: "  1:00  " in str(status.render()))
        now[0] = T0 + 125  # Nothing is written: the watcher's quiet wake-up moves the clock.
        await wait_for(pilot, lambda: "  2:05  " in str(status.render()))


async def test_a_replaced_event_log_is_replayed_from_its_start(
    make_app: MakeApp, out_dir: Path, fixture_sessions: dict[str, str]
) -> None:
    session_id = fixture_sessions["main"]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(SessionScreen(session_id, TraceStore(out_dir)))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.progress.cells == 2 and screen.selected == 2)
        first_iteration = scripted_events(session_id)[:12]  # Up to iteration 1's end.
        log = "".join(event.model_dump_json() + "\n" for event in first_iteration)
        write_atomic(session_dir(out_dir, session_id) / EVENTS_FILE, log)
        await wait_for(pilot, lambda: screen.progress.cells == 1)
        assert screen.progress.iteration == 1 and screen.book.entries(2) == []
        assert len(screen.book.entries(1)) == 2 and screen.query_one(SandboxPane).entries == []
