"""In the app's Sandbox pane, a child agent's cells, sub-calls and children are folded under
the ``rlm_query`` call that started it, live while it runs: the fold is open while the child
runs, folds itself when it ends, and opens again on a click or Enter."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from textual.widgets import Static

from ralph_tui.events import (
    ChildFinished,
    Emit,
    RunFinished,
    RunStarted,
    SandboxExecuted,
)
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.tui.screens.run_screen import RunScreen
from ralph_tui.tui.widgets.sandbox_pane import ChildFold, SandboxEntry
from tests.tui.conftest import MakeApp, wait_for
from tests.tui.scripted import DOC_NAME, outcome
from tests.tui.snapshot_data import child_events

SESSION = "2026-01-01/qa-0c0c0c0c"


def tree_run(halfway: threading.Event, go_on: threading.Event):  # type: ignore[no-untyped-def]
    """A run whose worker starts the snapshot's two children; it stops before the first
    child ends (``halfway``) until the test lets it go on (``go_on``)."""

    async def run(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        emit(
            RunStarted(
                session_id=SESSION, mode="qa", query="q", doc_path=str(request.doc_path),
                doc_chars=1, max_iters=1, generate_model="test", validate_model="test",
            )
        )  # fmt: skip
        events = [e.model_copy(update={"session_id": SESSION}) for e in child_events(0.0)]
        first_end = next(
            n for n, e in enumerate(events) if isinstance(e, ChildFinished) and e.depth == 2
        )
        for event in events[:first_end]:
            emit(event)
        halfway.set()
        while not go_on.is_set():  # the run has its own thread and loop
            await asyncio.sleep(0.02)
        for event in events[first_end:]:
            emit(event)
        emit(RunFinished(session_id=SESSION, status="passed", iterations=1))
        return outcome("passed", SESSION)

    return run


def body_of(fold: ChildFold) -> list[SandboxEntry | ChildFold]:
    return [w for w in fold.query_one(".fold-body").children]  # type: ignore[misc]


async def test_a_childs_entries_fold_under_the_call_that_started_it(make_app: MakeApp) -> None:
    halfway, go_on = threading.Event(), threading.Event()
    app = make_app(runner=tree_run(halfway, go_on))
    async with app.run_test(size=(110, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query="q", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        sandbox = screen.monitor.sandbox
        await wait_for(pilot, lambda: halfway.is_set() and sandbox.pending == 0)
        await pilot.pause(0.1)
        folds = sandbox.folds
        assert list(folds) == ["worker/1.1", "worker/1.2", "worker/1.1/2.1"]
        first, second, grandchild = folds.values()
        assert [fold.parent for fold in (first, second)] == [sandbox, sandbox]
        inside_first = body_of(first)
        assert inside_first[0].has_class("cell") and "worker/1.1 step 1" in str(
            inside_first[0].render()
        )
        assert inside_first[1] is grandchild, "a grandchild folds inside its parent's fold"
        assert first.open and first.query_one(".fold-body").display, "open while it runs"
        assert "running…" in str(first.query_one(".fold-title", Static).render())

        go_on.set()
        await wait_for(pilot, lambda: not screen.running and sandbox.pending == 0)
        await pilot.pause(0.1)
        assert not first.open and not first.query_one(".fold-body").display, "folded once ended"
        title = str(first.query_one(".fold-title", Static).render())
        assert "answered in 3 steps" in title and "running…" not in title
        assert second.has_class("failed")
        last = sandbox.entries[-1]
        assert "worker step 1" in str(last.render()), "the parent's cell, at its own level"
        assert last.parent is sandbox

        await pilot.click(first.query_one(".fold-title"))
        await pilot.pause(0.1)
        assert first.open and first.query_one(".fold-body").display
        first.focus()
        await pilot.press("enter")
        assert not first.open


CHILDREN = 150


async def many_children(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
    """150 children of the worker, each with one cell and a grandchild with one cell."""
    from ralph_tui.events import ChildStarted

    emit(
        RunStarted(
            session_id=SESSION, mode="qa", query="q", doc_path=str(request.doc_path),
            doc_chars=1, max_iters=1, generate_model="test", validate_model="test",
        )
    )  # fmt: skip
    for n in range(1, CHILDREN + 1):
        child, grandchild = f"worker/1.{n}", f"worker/1.{n}/1.1"
        for parent, name, depth in (("worker", child, 2), (child, grandchild, 3)):
            emit(ChildStarted(session_id=SESSION, agent=parent, child=name, step=1,
                              depth=depth, prompt_preview="q", context="a text"))  # fmt: skip
            emit(SandboxExecuted(session_id=SESSION, agent=name, step=1, code=f"x = {n}",
                                 output="", duration_ms=1))  # fmt: skip
        for parent, name, depth in ((child, grandchild, 3), ("worker", child, 2)):
            emit(ChildFinished(session_id=SESSION, agent=parent, child=name, step=1,
                               depth=depth, status="answered", steps=1))  # fmt: skip
        if n % 25 == 0:
            await asyncio.sleep(0.01)
    emit(RunFinished(session_id=SESSION, status="passed", iterations=1))
    return outcome("passed", SESSION)


async def test_folds_count_in_the_panes_bound_with_all_they_hold(make_app: MakeApp) -> None:
    from ralph_tui.tui.widgets.sandbox_pane import MAX_ENTRIES

    app = make_app(runner=many_children)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        screen.form.prefill(query="q", doc=Path(DOC_NAME))
        await pilot.press("ctrl+r")
        sandbox = screen.monitor.sandbox
        await wait_for(pilot, lambda: not screen.running and sandbox.pending == 0, 30)
        await pilot.pause(0.2)
        kept = sandbox.entries
        assert len(kept) <= MAX_ENTRIES
        assert sandbox.dropped >= 4 * CHILDREN - len(kept), "what is not kept is counted"
        in_dom = list(sandbox.query(SandboxEntry)) + list(sandbox.query(ChildFold))
        assert len(in_dom) == len(kept), "a dropped fold took what it held with it"
        assert f"worker/1.{CHILDREN}" in sandbox.folds
