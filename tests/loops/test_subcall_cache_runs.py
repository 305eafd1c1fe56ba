"""The sub-call cache in whole runs through both real SDKs on a fake network: its three
scopes (a retry's repeated sub-call is free within a session by default, in its resumed
legs too, across sessions when shared, never when off), and what the saving looks like on
the command line, in the session record and in ``sessions show``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx2
import pytest

from ralph_tui.cli import run_cli
from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, SubQuery
from ralph_tui.loops.requests import resume_request
from ralph_tui.loops.runner import RunOutcome, RunRequest, execute_run
from ralph_tui.progress_lines import ProgressPrinter
from ralph_tui.traces.session_ids import session_dir
from ralph_tui.traces.store import TraceStore
from tests.llm.llm_wire import openai_completion
from tests.loops.test_sdk_run import DOCUMENT, QUOTES, judge_reply, settings_for, worker_reply

CODE = "print(llm_query('What does the plant keep?', context[:80]))"
ANSWER = "- Two days of supply.\n- Filters every 48 hours.\n- Alarms escalate."


class Network:
    """One leg's providers: the worker asks one sub-question and answers, in every
    iteration; the judge rejects the answers of the first ``rejected`` iterations; the
    sub-model's answers differ every time."""

    def __init__(self, rejected: int = 1) -> None:
        self.rejected = rejected
        self.worker_turns = 0
        self.sub_calls = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if request.url.host == "anthropic.test":
            self.worker_turns += 1
            if self.worker_turns % 2:
                return httpx2.Response(200, json=worker_reply({"code": CODE}))
            done = {"answer": ANSWER, "evidence": QUOTES, "resultReady": True}
            return httpx2.Response(200, json=worker_reply(done))
        if body.get("tools"):
            passed = self.worker_turns > 2 * self.rejected
            supported = ["supported"] * 3
            verdict = judge_reply(supported, [] if passed else ["Too vague."])
            return httpx2.Response(200, json=verdict)
        self.sub_calls += 1
        reply = openai_completion({"content": f"It keeps supply (sample {self.sub_calls})."})
        return httpx2.Response(200, json=reply)


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_text(DOCUMENT)
    return path


async def one_leg(
    tmp_path: Path,
    document: Path,
    *,
    scope: str = "session",
    max_iters: int = 2,
    request: RunRequest | None = None,
    events: list[BaseEvent] | None = None,
    resume_of: str | None = None,
    rejected: int = 1,
) -> tuple[RunOutcome, Network]:
    """One leg of a session on a fresh network (the worker's turns start over)."""
    network = Network(rejected)
    settings = settings_for(
        tmp_path, max_iters=max_iters, sub_model="openai:gpt-4o-mini", subcall_cache=scope
    )
    outcome = await execute_run(
        request
        or RunRequest(mode="qa", query="What is kept?", doc_path=document, settings=settings),
        on_event=(events if events is not None else []).append,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(network.handle)),
        resume_of=resume_of,
    )
    return outcome, network


async def session(
    tmp_path: Path, document: Path, scope: str, events: list[BaseEvent]
) -> tuple[RunOutcome, Network]:
    outcome, network = await one_leg(tmp_path, document, scope=scope, events=events)
    assert outcome.status == "passed" and outcome.iterations == 2
    return outcome, network


@pytest.mark.parametrize(
    ("scope", "paid"),
    [("session", [1, 1]), ("shared", [1, 0]), ("off", [2, 2])],
)
async def test_the_scopes(tmp_path: Path, document: Path, scope: str, paid: list[int]) -> None:
    sub_calls = []
    for _session in range(2):
        events: list[BaseEvent] = []
        outcome, network = await session(tmp_path, document, scope, events)
        sub_calls.append(network.sub_calls)
        cached = [e.cached for e in events if isinstance(e, SubQuery)]
        assert cached.count(False) == network.sub_calls and len(cached) == 2
        assert outcome.usage.saved_calls == cached.count(True)
    assert sub_calls == paid
    assert (tmp_path / "out" / "cache" / "subcalls.sqlite").exists() == (scope != "off")


async def test_the_saving_is_shown_and_recorded(
    tmp_path: Path, document: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events: list[BaseEvent] = []
    outcome, _network = await session(tmp_path, document, "session", events)
    assert outcome.usage.saved_calls == 1 and outcome.usage.saved_input_tokens == 1000

    printed = io.StringIO()
    printer = ProgressPrinter(printed, verbose=True)
    for event in events:
        printer(event)
    lines = printed.getvalue().splitlines()
    assert any("(from the sub-call cache, not paid)" in line for line in lines)
    expected = "sub-call cache saved 1 call, 1,000 tokens in / 100 out, $0.0002"
    assert expected in lines[-1], "the summary line says what the cache saved"

    store = TraceStore(tmp_path / "out")
    record = store.load_session(outcome.session_id)
    saved = record.subcall_cache_saved
    assert saved.calls == 1 and saved.input_tokens == 1000
    assert saved.cost_usd == pytest.approx(outcome.usage.saved_cost_usd)
    on_disk = json.loads(
        (session_dir(store.out_dir, outcome.session_id) / "session.json").read_text()
    )
    assert on_disk["subcall_cache_saved"] == saved.model_dump()
    assert run_cli(["sessions", "show", outcome.session_id, "--out", str(tmp_path / "out")]) == 0
    [usage_line] = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("usage")
    ]
    assert usage_line.endswith(f"; {expected}")
    assert outcome.to_json()["usage"]["savedCalls"] == 1


async def test_a_resumed_session_reuses_the_answers_of_its_earlier_legs(
    tmp_path: Path, document: Path
) -> None:
    first_leg, network = await one_leg(tmp_path, document, max_iters=1)
    assert first_leg.status == "failed" and network.sub_calls == 1

    store = TraceStore(tmp_path / "out")

    def resumed_settings(recorded: dict[str, object], _source: str) -> Settings:
        return settings_for(tmp_path, **{**recorded, "max_iters": 2})

    request = resume_request(store, first_leg.session_id, resumed_settings)
    events: list[BaseEvent] = []
    second_leg, network = await one_leg(
        tmp_path,
        document,
        request=request,
        events=events,
        resume_of=first_leg.session_id,
        rejected=0,
    )
    assert second_leg.status == "passed" and network.sub_calls == 0
    assert [e.cached for e in events if isinstance(e, SubQuery)] == [True]
    assert second_leg.usage.saved_calls == 1
