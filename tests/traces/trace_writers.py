"""Helpers shared by the trace tests, importable by spawned worker processes."""

from __future__ import annotations

import sqlite3
from multiprocessing.synchronize import Barrier
from pathlib import Path

from ralph_tui.atomic import append_line
from ralph_tui.events import Notice
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore


def make_trace(iteration: int, answer: str, passed: bool = False) -> IterationTrace:
    """A small but complete iteration trace whose output text is ``answer``."""
    return IterationTrace(
        iteration=iteration,
        query="q",
        constraints=[f"constraint {n}" for n in range(iteration - 1)],
        output={"answer": answer, "evidence": [f"quote {iteration}"]},
        hard_validation={"ok": passed, "rules": [{"name": "bullets", "ok": passed}]},
        judge={"ok": passed, "issues": [] if passed else [{"message": "unsupported"}]},
        passed=passed,
        timings={"workerMs": 10.0 * iteration, "judgeMs": 2.5},
        failure_tag=None if passed else "judge",
        started_at=1000.0 + iteration,
        finished_at=1000.5 + iteration,
    )


def assert_search_in_step(index_file: Path) -> None:
    """Fail unless the full-text index matches the rows it indexes, token for token."""
    with sqlite3.connect(index_file) as conn:
        conn.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")


def write_sessions(
    out_dir: Path, worker: int, barrier: Barrier, sessions: int, iterations: int, events: int
) -> None:
    """Write ``sessions`` full sessions into ``out_dir``, starting with the other workers.

    Every worker asks the same questions, so their session ids collide and must
    be told apart by ``-N`` suffixes; each output carries a ``w<worker>s<n>`` tag.
    """
    store = TraceStore(out_dir)
    barrier.wait()
    for number in range(sessions):
        handle = store.create_session(SessionRecord(mode="qa", query=f"shared question {number}"))
        for iteration in range(1, iterations + 1):
            handle.append_event(Notice(message=f"w{worker}s{number} iteration {iteration}"))
            answer = f"w{worker}s{number} answer {iteration}"
            handle.write_iteration(make_trace(iteration, answer, passed=iteration == iterations))
            for event in range(events):
                handle.append_event(Notice(message=f"w{worker}s{number} event {event}"))
        handle.finish("passed", input_tokens=worker, output_tokens=number)
    store.close()


def append_lines(path: Path, worker: int, barrier: Barrier, count: int) -> None:
    """Append ``count`` lines of varying (some large) sizes, each naming its writer."""
    barrier.wait()
    for number in range(count):
        filler = "x" * (number * 997 % 20_000)
        append_line(path, f"{worker} {number} {len(filler)} {filler}")
