"""Benchmark the TUI; prints one JSON object.

Figures, each with its target and a baseline measured in the same run:

- cold start to first paint: a subprocess that starts the app headless and exits
  right after its first refresh (median of ``--runs``); baseline ``import textual``.
- session browser over ``--sessions`` sessions written with ``TraceStore``: time from
  switching to the browser until its first page is on screen, and from submitting a
  search until the matching rows are; baseline the bare index query.
- a run emitting ``--events`` sandbox cells as fast as it can: the longest stall of the
  UI's event loop (a 5 ms ticker's lateness), against the same ticker on an idle app;
  and how many entries the sandbox pane keeps.

    .venv/bin/python bench/tui.py [--sessions N] [--events N] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import Input

from ralph_tui.config import load_settings
from ralph_tui.events import Emit, RunFinished, RunStarted, SandboxExecuted
from ralph_tui.loops.runner import RunOutcome, RunRequest
from ralph_tui.sample import sample_document
from ralph_tui.traces.models import SessionRecord
from ralph_tui.traces.store import TraceStore
from ralph_tui.tui.app import RalphApp
from ralph_tui.tui.screens.browser_screen import SessionBrowser, SessionQuery, run_query
from ralph_tui.tui.screens.run_screen import RunScreen

TARGETS_MS = {"first_paint": 1000.0, "browser_first_page": 500.0, "search": 100.0, "stall": 100.0}
ROOT = Path(__file__).resolve().parents[1]
FIRST_PAINT_PROGRAM = """
import sys
from pathlib import Path
from ralph_tui.config import load_settings
from ralph_tui.tui.app import RalphApp

class FirstPaint(RalphApp):
    def on_mount(self) -> None:
        self.call_after_refresh(self.painted)

    def painted(self) -> None:
        print("painted", flush=True)
        self.exit(0)

app = FirstPaint(load_settings({"out_dir": sys.argv[1]}), config_path=Path(sys.argv[2]))
app.run(headless=True)
"""
WORDS = ("filter", "backwash", "turbidity", "alarm", "chlorine", "pump", "reservoir", "intake")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ralph-tui-bench-") as temp:
        root = Path(temp)
        os.environ["RALPH_CONFIG_DIR"] = str(root / "config")
        figures: dict[str, Any] = {"cold_start": cold_start(root, args.runs)}
        figures["browser"] = asyncio.run(browser(root, args.sessions))
        figures["run_flood"] = asyncio.run(run_flood(root, args.events))
    figures["targets_ms"] = TARGETS_MS
    figures["targets_met"] = {
        "first_paint": figures["cold_start"]["first_paint_median_ms"] <= TARGETS_MS["first_paint"],
        "browser_first_page": figures["browser"]["first_page_ms"]
        <= TARGETS_MS["browser_first_page"],
        "search": figures["browser"]["search_ms"] <= TARGETS_MS["search"],
        "stall": figures["run_flood"]["longest_stall_ms"] <= TARGETS_MS["stall"],
    }
    print(json.dumps(figures, indent=2))


def _wall_ms(command: list[str]) -> float:
    """Milliseconds from starting ``command`` to its exit."""
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True)
    return (time.perf_counter() - started) * 1000


def _first_line_ms(command: list[str]) -> float:
    """Milliseconds from starting ``command`` to its first line of output."""
    started = time.perf_counter()
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        child.stdout.readline()
        elapsed = (time.perf_counter() - started) * 1000
        child.wait()
    return elapsed


def cold_start(root: Path, runs: int) -> dict[str, Any]:
    """Process start to first paint and exit, against ``python -c "import textual"``."""
    app = [sys.executable, "-c", FIRST_PAINT_PROGRAM, str(root / "cold-out"), str(root / "config")]
    baseline = [sys.executable, "-c", "import textual"]
    _first_line_ms(app)  # Warm the file-system cache and byte-code files once.
    app_ms = [_first_line_ms(app) for _ in range(runs)]
    baseline_ms = [_wall_ms(baseline) for _ in range(runs)]
    return {
        "runs": runs,
        "first_paint_median_ms": round(statistics.median(app_ms), 1),
        "first_paint_max_ms": round(max(app_ms), 1),
        "baseline_import_textual_median_ms": round(statistics.median(baseline_ms), 1),
    }


def populate(out_dir: Path, sessions: int) -> float:
    """Write ``sessions`` finished sessions; returns the seconds it took."""
    store = TraceStore(out_dir)
    started = time.perf_counter()
    for number in range(sessions):
        words = " ".join(WORDS[(number + k) % len(WORDS)] for k in range(3))
        record = SessionRecord(
            mode=("qa", "task")[number % 2],
            query=f"How does the {words} procedure work? #{number}",
            created_at=1_770_000_000 + number * 60.0,
            doc_path=str(sample_document()),
        )
        handle = store.create_session(record)
        handle.finish(
            ("passed", "failed", "cancelled")[number % 3],
            input_tokens=1000 + number,
            output_tokens=200,
            cost_usd=0.01,
        )
    store.close()
    return time.perf_counter() - started


async def _painted(app: RalphApp) -> None:
    """Return once the screen has been refreshed with what is in the DOM now."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    app.call_after_refresh(done.set_result, None)
    await done


async def _until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not get there in time")
        await asyncio.sleep(0.002)


async def browser(root: Path, sessions: int) -> dict[str, Any]:
    """First page and search latency of the session browser over ``sessions`` sessions."""
    out_dir = root / "browser-out"
    populate_s = populate(out_dir, sessions)
    store = TraceStore(out_dir)
    query = SessionQuery(text="turbidity alarm")
    store.index.list_sessions(limit=1)
    index_started = time.perf_counter()
    run_query(store, query)
    index_ms = (time.perf_counter() - index_started) * 1000
    store.close()
    app = RalphApp(load_settings({"out_dir": out_dir}), config_path=root / "config")
    async with app.run_test(size=(160, 45)):
        await asyncio.sleep(1.0)  # Let the run screen settle first.
        started = time.perf_counter()
        await app.switch_mode("sessions")
        screen = app.screen
        assert isinstance(screen, SessionBrowser)
        await _until(lambda: screen.table.option_count > 0)
        await _painted(app)
        first_page_ms = (time.perf_counter() - started) * 1000
        total_before = screen.total
        search = screen.query_one("#search", Input)
        search.focus()
        search.value = query.text
        await _painted(app)  # The typed text is on screen; now the user presses enter.
        started = time.perf_counter()
        await search.action_submit()
        await _until(lambda: screen.total != total_before)
        await _painted(app)
        search_ms = (time.perf_counter() - started) * 1000
        matches = screen.total
    return {
        "sessions": sessions,
        "populate_s": round(populate_s, 1),
        "first_page_ms": round(first_page_ms, 1),
        "search_ms": round(search_ms, 1),
        "search_matches": matches,
        "baseline_index_search_ms": round(index_ms, 1),
    }


def flood_runner(cells: int) -> Callable[..., Any]:
    """A stand-in run that emits ``cells`` sandbox cells back to back, then finishes."""

    async def run(request: RunRequest, emit: Emit, cancel: asyncio.Event) -> RunOutcome:
        session = "2026-01-01/qa-f100d000"
        emit(
            RunStarted(
                session_id=session,
                mode="qa",
                query=request.query,
                doc_path=str(request.doc_path),
                doc_chars=1,
                max_iters=1,
                generate_model="bench",
                validate_model="bench",
            )
        )
        code = "hits = [s for s in sentences if 'filter' in s]\nprint(len(hits))\n" * 4
        for step in range(1, cells + 1):
            emit(
                SandboxExecuted(
                    session_id=session,
                    agent="worker",
                    step=step,
                    code=code,
                    output=f"{step} hits",
                    duration_ms=1,
                )
            )
        emit(RunFinished(session_id=session, status="passed", iterations=1))
        return RunOutcome("passed", session, 1, None, {})

    return run


def _percentile(values: list[float], percent: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[percent - 1]


class Ticker:
    """Measures how late a 5 ms sleep wakes up on the running loop: the UI's stalls."""

    PERIOD_S = 0.005

    def __init__(self) -> None:
        self.lags_ms: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(self.PERIOD_S)
            self.lags_ms.append((time.perf_counter() - started - self.PERIOD_S) * 1000)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._tick())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


async def run_flood(root: Path, cells: int) -> dict[str, Any]:
    """The UI's longest stall while a run floods it with ``cells`` sandbox cells."""
    settings = load_settings({"out_dir": root / "flood-out"})
    app = RalphApp(settings, runner=flood_runner(cells), config_path=root / "config")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await asyncio.sleep(1.0)  # Past start-up work (theme, first layout).
        idle = Ticker()
        idle.start()
        await asyncio.sleep(1.0)
        idle.stop()
        screen.form.prefill(query="flood", doc=sample_document())
        busy = Ticker()
        busy.start()
        started = time.perf_counter()
        await pilot.press("ctrl+r")
        sandbox = screen.monitor.sandbox
        await _until(lambda: screen.monitor.progress.cells == cells and not screen.running)
        await _until(lambda: sandbox.pending == 0 and len(screen.buffer) == 0)
        await _painted(app)
        busy.stop()
        return {
            "cells": cells,
            "run_and_drain_s": round(time.perf_counter() - started, 2),
            "longest_stall_ms": round(max(busy.lags_ms), 1),
            "p99_stall_ms": round(_percentile(busy.lags_ms, 99), 1),
            "baseline_idle_longest_stall_ms": round(max(idle.lags_ms), 1),
            "entries_kept": len(sandbox.entries),
            "entries_dropped": sandbox.dropped,
        }


if __name__ == "__main__":
    main()
