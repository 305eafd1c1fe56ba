"""Benchmark the trace store at 10 000 sessions x 3 iterations; prints one JSON object.

Figures: time per ``write_iteration`` (p50/p95) against a bare ``write_atomic``
of the same JSON (the floor: one fsynced file), listing the newest page of 50,
full-text search, and a full ``reindex``. Runs in a temp dir.

    .venv/bin/python bench/trace_store.py [--sessions N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ralph_tui.atomic import write_atomic
from ralph_tui.traces.index import reindex
from ralph_tui.traces.models import IterationTrace, SessionRecord
from ralph_tui.traces.store import TraceStore

TARGETS_MS = {"write_p50": 5.0, "list_page": 20.0, "search": 50.0, "reindex": 10_000.0}
WORDS = [
    "refund",
    "policy",
    "contract",
    "clause",
    "liability",
    "payment",
    "invoice",
    "supplier",
    "delivery",
    "penalty",
    "risk",
    "warranty",
    "termination",
    "notice",
    "period",
    "currency",
    "audit",
    "compliance",
    "data",
    "privacy",
    "breach",
    "insurance",
    "indemnity",
    "renewal",
    "price",
    "schedule",
    "milestone",
    "acceptance",
    "dispute",
    "arbitration",
]
SEARCHES = ("refund", "arbitration clause", "penal*", 'what\'s "this" (x)', "zzzz")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--iterations", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ralph-bench-") as temp:
        figures = run(Path(temp), args.sessions, args.iterations)
    print(json.dumps(figures, indent=2))


def run(root: Path, sessions: int, iterations: int) -> dict[str, Any]:
    rng = random.Random(7)
    store = TraceStore(root / "out")
    baseline_dir = root / "baseline"
    baseline_dir.mkdir()
    write_ms: list[float] = []
    baseline_ms: list[float] = []
    started = time.perf_counter()
    for number in range(sessions):
        record = SessionRecord(
            mode=rng.choice(("qa", "task")),
            query=f"{_sentence(rng, 8)}? #{number}",
            created_at=1_770_000_000 + number * 60.0,
        )
        handle = store.create_session(record)
        for iteration in range(1, iterations + 1):
            trace = _trace(rng, iteration, passed=iteration == iterations)
            write_ms.append(_timed(partial(handle.write_iteration, trace)))
            text = trace.to_json()
            target = baseline_dir / f"{number % 100}-{iteration}.json"
            baseline_ms.append(_timed(partial(write_atomic, target, text)))
        handle.finish("passed", input_tokens=1000, output_tokens=200, cost_usd=0.01)
    populate_s = time.perf_counter() - started

    index = store.index
    list_ms = _median_of(lambda: index.list_sessions(limit=50), 50)
    filtered_ms = _median_of(lambda: index.list_sessions(mode="qa", status="passed"), 50)
    count_ms = _median_of(lambda: index.count_sessions(mode="task"), 20)
    search_ms = {text: _median_of(partial(index.search, text), 20) for text in SEARCHES}
    store.close()
    reindex_ms = _timed(lambda: reindex(root / "out"))

    figures: dict[str, Any] = {
        "sessions": sessions,
        "iterations_per_session": iterations,
        "populate_s": round(populate_s, 1),
        "write_iteration_ms": _percentiles(write_ms),
        "baseline_write_atomic_ms": _percentiles(baseline_ms),
        "list_newest_50_ms": round(list_ms, 2),
        "list_filtered_50_ms": round(filtered_ms, 2),
        "count_filtered_ms": round(count_ms, 2),
        "search_ms": {text: round(ms, 2) for text, ms in search_ms.items()},
        "reindex_ms": round(reindex_ms, 1),
        "index_mb": round((root / "out" / "index.sqlite").stat().st_size / 1e6, 1),
    }
    figures["targets_ms"] = TARGETS_MS
    figures["targets_met"] = {
        "write_p50": figures["write_iteration_ms"]["p50"] <= TARGETS_MS["write_p50"],
        "list_page": list_ms <= TARGETS_MS["list_page"],
        "search": max(search_ms.values()) <= TARGETS_MS["search"],
        "reindex": reindex_ms <= TARGETS_MS["reindex"],
    }
    return figures


def _trace(rng: random.Random, iteration: int, passed: bool) -> IterationTrace:
    """An iteration trace about the size of a real QA one (~2 KB of JSON)."""
    answer = "\n".join(f"- {_sentence(rng, 14)}." for _ in range(4))
    return IterationTrace(
        iteration=iteration,
        query="q",
        constraints=[_sentence(rng, 12) for _ in range(iteration - 1)],
        output={"answer": answer, "evidence": [_sentence(rng, 18) for _ in range(4)]},
        hard_validation={"ok": True, "rules": [{"name": "bullets", "ok": True}]},
        judge={"ok": passed, "issues": [] if passed else [{"message": _sentence(rng, 10)}]},
        passed=passed,
        timings={"workerMs": rng.uniform(1e3, 9e3), "judgeMs": rng.uniform(2e2, 2e3)},
        failure_tag=None if passed else "judge",
        started_at=time.time(),
        finished_at=time.time(),
    )


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def _median_of(work: Callable[[], object], repeats: int) -> float:
    work()  # warm the page cache and the statement cache
    return statistics.median(_timed(work) for _ in range(repeats))


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(len(ordered) * 0.95)], 3),
        "max": round(ordered[-1], 1),
    }


if __name__ == "__main__":
    main()
