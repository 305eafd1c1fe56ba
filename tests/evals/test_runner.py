"""The runner: the local executor's concurrency limit, cancelling keeps what finished and a
rerun skips it, and the Ray executor on a local instance. Providers are a fake server at the
network boundary, answered by the offline baseline."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.batch import jobs
from ralph_tui.batch.jobs import JobResult, SessionJob
from ralph_tui.batch.local import LocalExecutor, Progress
from ralph_tui.config import Settings
from ralph_tui.evals.run import EvalRun, run_eval
from ralph_tui.evals.sample import sample_suite
from ralph_tui.loops import runner
from tests.llm.llm_wire import make_settings
from tests.loops.baseline_server import BaselineServer


class SlowServer(BaselineServer):
    """The offline baseline behind a delay, counting requests in flight."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        self.delay_s = delay_s
        self.in_flight = self.most_in_flight = 0

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            return await super().handle(request)
        finally:
            self.in_flight -= 1


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(
        out_dir=tmp_path / "out", generate_model="openai:local", validate_model="openai:local",
        openai_api_key="sk-test", openai_base_url="https://local.test/v1", embedder="offline",
        max_iters=1,
    )  # fmt: skip


def serve(monkeypatch: pytest.MonkeyPatch, server: BaselineServer) -> None:
    """Each session's provider requests go to ``server`` (a client each: a run closes its
    own)."""

    def execute_run(*args: Any, **kwargs: Any) -> Any:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(server.handle))
        return runner.execute_run(*args, http_client=client, **kwargs)

    monkeypatch.setattr(jobs, "execute_run", execute_run)


def job(n: int) -> SessionJob:
    item = sample_suite()[n % 6]
    return SessionJob(key=f"j{n}", mode="qa", query=item.query, docs=(str(item.doc),))


async def test_the_local_executor_runs_at_most_its_concurrency_at_once(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    server = SlowServer(0.05)
    serve(monkeypatch, server)
    done: list[JobResult] = []
    results = await LocalExecutor(concurrency=2).run(
        [job(n) for n in range(5)], settings, done.append
    )
    assert [r.key for r in results] == ["j0", "j1", "j2", "j3", "j4"]
    assert sorted(r.key for r in done) == sorted(r.key for r in results)
    assert all(r.outcome["session_id"] and r.wall_s > 0 for r in results)
    assert server.most_in_flight == 2, "two sessions at once, never more"


async def test_a_job_that_cannot_start_is_a_result_with_its_errors_status(
    settings: Settings,
) -> None:
    """A missing document is bad input: ``rejected``, as ``errors.OUTCOMES`` says, the
    status the command line and the API give it."""
    bad = SessionJob(key="bad", mode="qa", query="q", docs=("/nowhere/doc.md",))
    [result] = await LocalExecutor().run([bad], settings, lambda _r: None)
    assert result.status == "rejected" and "nowhere" in result.outcome["error"]


async def test_cancelling_keeps_what_finished_and_a_rerun_skips_it(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    server = SlowServer(0.02)
    serve(monkeypatch, server)
    items = sample_suite()
    run = EvalRun.open(settings.out_dir, "e1", items)
    first_done = asyncio.Event()

    def progress(state: Progress, _score: object) -> None:
        first_done.set()

    task = asyncio.create_task(run_eval(run, settings, LocalExecutor(concurrency=1), progress))
    await first_done.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    kept = run.finished()
    assert 1 <= len(kept) < len(items)
    assert (run.folder / "summary.json").is_file()
    sessions_before = len(server.bodies.get("worker", []))
    again = EvalRun.open(settings.out_dir, "e1", items)
    scores = await run_eval(again, settings, LocalExecutor(concurrency=3))
    assert [s.id for s in scores] == [i.id for i in items]
    workers = len(server.bodies.get("worker", [])) - sessions_before
    assert workers == (len(items) - len(kept)) * 2, "only the unfinished items ran again"


def test_an_eval_id_kept_with_other_items_is_refused(settings: Settings) -> None:
    items = sample_suite()
    EvalRun.open(settings.out_dir, "e2", items)
    with pytest.raises(ValueError, match="exists with other items"):
        EvalRun.open(settings.out_dir, "e2", items[:2])


def test_the_ray_executor_runs_sessions_on_a_local_instance(
    settings: Settings, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    from ralph_tui.batch.ray_executor import RayExecutor

    offline = settings.model_copy(update={"provider": "offline"})
    executor = RayExecutor(concurrency=2, init={"num_cpus": 2})
    done: list[str] = []
    results = asyncio.run(executor.run([job(0), job(1)], offline, lambda r: done.append(r.key)))
    assert [r.key for r in results] == ["j0", "j1"] and sorted(done) == ["j0", "j1"]
    assert all(r.status == "passed" for r in results)
    for result in results:
        folder = settings.out_dir / "sessions" / result.outcome["session_id"]
        assert (folder / "events.jsonl").is_file(), "the worker wrote the session's traces"
