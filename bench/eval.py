"""The eval harness and its runner; prints one JSON object.

1. ``needle`` with the offline provider at 8K, 64K, 256K and 1M tokens, 5 depths each: the
   found grid (goal: found at every size and depth) and the wall time per item (median and
   the slowest, by size).
2. The runner: 32 QA sessions against a fake LLM server answering each request after 500 ms
   (the offline baseline behind it), at concurrency 8, against the same 32 sessions one
   after another. The ideal is 4 waves of a session's sequential calls; goal: wall time
   <= 1.2 x the ideal.

    PYTHONPATH=. .venv/bin/python bench/eval.py [--sizes 8k,64k,256k,1m] [--sessions 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

from ralph_tui.batch import jobs
from ralph_tui.batch.jobs import SessionJob
from ralph_tui.batch.local import LocalExecutor
from ralph_tui.config import Settings
from ralph_tui.evals.needle import DEFAULT_DEPTHS, needle_suite, parse_size
from ralph_tui.evals.run import EvalRun, run_eval
from ralph_tui.evals.sample import sample_suite
from ralph_tui.loops import runner
from tests.loops.baseline_server import BaselineServer

LATENCY_S = 0.5


def needle_bench(out: Path, sizes: tuple[int, ...]) -> dict[str, Any]:
    settings = Settings(_env_file=None, provider="offline", out_dir=out, embedder="offline")
    items = needle_suite(out / "docs", sizes, DEFAULT_DEPTHS)
    run = EvalRun.open(out, "needle", items)
    scores = asyncio.run(run_eval(run, settings, LocalExecutor(concurrency=2)))
    by_size: dict[str, Any] = {}
    for size in sizes:
        mine = [s for s in scores if s.meta["size_tokens"] == size]
        walls = [s.wall_s for s in mine]
        by_size[str(size)] = {
            "found": f"{sum(s.found for s in mine)}/{len(mine)}",
            "passed": f"{sum(s.passed for s in mine)}/{len(mine)}",
            "wall_s_median": round(statistics.median(walls), 2),
            "wall_s_max": round(max(walls), 2),
        }
    return {"found_all": all(s.found for s in scores), "by_size": by_size}


class DelayedServer(BaselineServer):
    """The offline baseline answering every request after ``LATENCY_S``."""

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        await asyncio.sleep(LATENCY_S)
        return await super().handle(request)


def runner_bench(out: Path, sessions: int, concurrency: int) -> dict[str, Any]:
    server = DelayedServer()

    def execute_run(*args: Any, **kwargs: Any) -> Any:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
        return runner.execute_run(*args, http_client=client, **kwargs)

    jobs.execute_run = execute_run  # type: ignore[assignment]
    item = sample_suite()[0]
    settings = Settings(
        _env_file=None, out_dir=out, generate_model="openai:local", validate_model="openai:local",
        openai_api_key="sk-bench", openai_base_url="https://local.test/v1", embedder="offline",
        max_iters=1,
    )  # fmt: skip
    batch = [
        SessionJob(key=f"s{n}", mode="qa", query=item.query, docs=(str(item.doc),))
        for n in range(sessions)
    ]
    walls = {}
    for label, limit in (("concurrent", concurrency), ("one_after_another", 1)):
        before = len(server.requests)
        started = time.perf_counter()
        results = asyncio.run(LocalExecutor(limit).run(batch, settings, lambda _r: None))
        walls[label] = time.perf_counter() - started
        assert all(r.status == "passed" for r in results), [r.outcome for r in results]
        calls_per_session = (len(server.requests) - before) / sessions
    waves = -(-sessions // concurrency)
    ideal = waves * calls_per_session * LATENCY_S
    return {
        "sessions": sessions,
        "concurrency": concurrency,
        "calls_per_session": calls_per_session,
        "ideal_s": round(ideal, 2),
        "concurrent_s": round(walls["concurrent"], 2),
        "concurrent_over_ideal": round(walls["concurrent"] / ideal, 3),
        "one_after_another_s": round(walls["one_after_another"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="8k,64k,256k,1m")
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    sizes = tuple(parse_size(s) for s in args.sizes.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        report = {
            "needle": needle_bench(Path(tmp) / "needle", sizes),
            "runner": runner_bench(Path(tmp) / "runner", args.sessions, args.concurrency),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
