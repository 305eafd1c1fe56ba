"""The sub-call cache: a repeated question answered from it (free, marked, counted as saved),
a miss on any change of what decides the answer, least-recently-used eviction, a damaged
answer or file, and two processes writing one file at once."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ralph_tui.agents.sub_cache import SHARED_SCOPE, SubCallCache
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.events import BaseEvent, SubQuery
from ralph_tui.llm.openai_client import OpenAIClient
from ralph_tui.llm.types import Completion, Usage
from ralph_tui.llm.usage import MeteredClient, UsageLedger, UsageSnapshot
from tests.llm.llm_wire import openai_completion

ROOT = Path(__file__).parents[2]
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}


class SubModel:
    """A sub-model on a fake network: every answer differs (as a sampling model's do), and
    its usage grows with the prompt."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        prompt = json.loads(request.content)["messages"][-1]["content"]
        self.prompts.append(prompt)
        answer = openai_completion(
            {"content": f"answer {len(self.prompts)}"},
            prompt_tokens=len(prompt) + 100,
            completion_tokens=7,
        )
        return httpx2.Response(200, json=answer)

    def client(self, model: str = "gpt-4o-mini") -> OpenAIClient:
        return OpenAIClient(
            model,
            api_key="sk-test",
            base_url="https://openai.test/v1",
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(self.handle)),
        )


def runner_over(
    client: Any,
    cache: SubCallCache | None,
    events: list[BaseEvent] | None = None,
    max_tokens: int = 2048,
) -> SubQueryRunner:
    emit = events.append if events is not None else (lambda _e: None)
    budget = SubQueryBudget(limit=20)
    return SubQueryRunner(client, budget, emit, agent="worker", cache=cache, max_tokens=max_tokens)


def completion(text: str) -> Completion:
    return Completion(
        text=text, usage=Usage(input_tokens=10, output_tokens=2), provider="openai", model="m"
    )


async def test_a_repeated_question_is_free_marked_and_counted_as_saved(tmp_path: Path) -> None:
    model = SubModel()
    ledger = UsageLedger()
    reported: list[UsageSnapshot] = []
    client = MeteredClient(model.client(), ledger, reported.append)
    events: list[BaseEvent] = []
    cache = SubCallCache(tmp_path / "subcalls.sqlite", "session:s1", 1 << 20)
    runner = runner_over(client, cache, events)

    first = await runner.query("Which year?", "The plant opened in 1998.")
    again = await runner.query("Which year?", "The plant opened in 1998.")
    assert first == again == "answer 1" and len(model.prompts) == 1
    paid, hit = [e for e in events if isinstance(e, SubQuery)]
    assert not paid.cached and hit.cached and hit.answer_preview == "answer 1"
    assert (hit.input_tokens, hit.output_tokens) == (paid.input_tokens, paid.output_tokens)
    assert runner.budget.used == 1, "an answer from the cache uses none of the budget"

    totals = ledger.snapshot()
    assert totals.calls == 1 and totals.saved_calls == 1
    assert totals.saved_input_tokens == paid.input_tokens and totals.saved_output_tokens == 7
    paid_cost = totals.cost_usd
    assert paid_cost > 0 and totals.saved_cost_usd == pytest.approx(paid_cost)
    assert reported[-1].saved_calls == 1, "a saved call is reported like a paid one"
    event = totals.to_event()
    assert event.saved_calls == 1 and event.saved_cost_usd == pytest.approx(paid_cost)

    await runner.query("Another question")
    assert ledger.snapshot().saved_calls == 1, "a paid call keeps the savings counted"
    assert ledger.snapshot().calls == 2


async def test_the_same_question_asked_twice_at_once_is_paid_once(tmp_path: Path) -> None:
    model = SubModel()
    events: list[BaseEvent] = []
    cache = SubCallCache(tmp_path / "subcalls.sqlite", "session:s1", 1 << 20)
    runner = runner_over(model.client(), cache, events)
    answers = await runner.query_batched(["Which year?", ["Which year?", "1998"], "Which year?"])
    assert answers == ["answer 1", "answer 2", "answer 1"] or answers == [
        "answer 2",
        "answer 1",
        "answer 2",
    ]
    assert len(model.prompts) == 2
    assert sum(e.cached for e in events if isinstance(e, SubQuery)) == 1


@pytest.mark.parametrize("change", ["model", "sampling", "prompt", "slice", "schema"])
async def test_any_change_of_what_decides_the_answer_is_a_miss(tmp_path: Path, change: str) -> None:
    model = SubModel()
    path = tmp_path / "subcalls.sqlite"
    asked = {"prompt": "Count the pumps.", "context_slice": "Pumps: 3.", "schema": SCHEMA}
    first = runner_over(model.client(), SubCallCache(path, "session:s1", 1 << 20))
    assert not (await first.ask(**asked)).cached

    changed = {
        "prompt": {**asked, "prompt": "Count the pumps!"},
        "slice": {**asked, "context_slice": "Pumps: 4."},
        "schema": {**asked, "schema": {"type": "object"}},
    }.get(change, asked)
    client = model.client("gpt-4.1-mini" if change == "model" else "gpt-4o-mini")
    max_tokens = 1024 if change == "sampling" else 2048
    second = runner_over(client, SubCallCache(path, "session:s1", 1 << 20), max_tokens=max_tokens)
    assert not (await second.ask(**changed)).cached
    assert len(model.prompts) == 2

    same = runner_over(model.client(), SubCallCache(path, "session:s1", 1 << 20))
    assert (await same.ask(**asked)).cached, "the unchanged question is still a hit"


async def test_least_recently_used_answers_go_past_the_size_bound(tmp_path: Path) -> None:
    path = tmp_path / "subcalls.sqlite"
    probe = SubCallCache(path, SHARED_SCOPE, 1 << 20)
    await probe.put("k0", completion("x" * 1000))
    [(one,)] = sqlite3.connect(path).execute("SELECT size FROM answers").fetchall()
    await probe.forget("k0")

    cache = SubCallCache(path, SHARED_SCOPE, int(3.5 * one))
    for key in ("k1", "k2", "k3"):
        await cache.put(key, completion("x" * 1000))
    assert await cache.get("k1") is not None  # k1 is now used more recently than k2
    await cache.put("k4", completion("x" * 1000))
    kept = {key: await cache.get(key) is not None for key in ("k1", "k2", "k3", "k4")}
    assert kept == {"k1": True, "k2": False, "k3": True, "k4": True}
    db = sqlite3.connect(path)
    assert db.execute("SELECT bytes FROM total").fetchone()[0] == 3 * one <= cache.max_bytes


async def test_a_damaged_answer_is_dropped_with_a_notice_and_asked_again(tmp_path: Path) -> None:
    model = SubModel()
    notices: list[str] = []

    def notice(message: str) -> None:
        assert threading.current_thread() is threading.main_thread(), "said on the event loop"
        notices.append(message)

    path = tmp_path / "subcalls.sqlite"
    runner = runner_over(model.client(), SubCallCache(path, "session:s1", 1 << 20, notice))
    await runner.query("Which year?")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE answers SET value = replace(value, 'answer 1', 'answer 9')")

    answer = await runner.ask("Which year?")
    assert not answer.cached and answer.text == "answer 2" and len(model.prompts) == 2
    [notice] = notices
    assert "damaged answer was dropped" in notice and "checksum" in notice
    assert (await runner.ask("Which year?")).cached, "the new answer is kept in its place"


async def test_a_file_that_is_not_a_database_is_started_afresh(tmp_path: Path) -> None:
    path = tmp_path / "subcalls.sqlite"
    path.write_bytes(b"this is not a database, it is junk" * 200)
    notices: list[str] = []
    cache = SubCallCache(path, SHARED_SCOPE, 1 << 20, notices.append)
    await cache.put("k", completion("kept"))
    kept = await cache.get("k")
    assert kept is not None and kept.text == "kept"
    assert len(notices) == 1 and "is damaged" in notices[0] and "afresh" in notices[0]


def test_the_scopes_keep_sessions_apart_unless_shared(tmp_path: Path) -> None:
    def opened(mode: str, session: str) -> SubCallCache | None:
        return SubCallCache.for_run(tmp_path, mode, session, 1.0, lambda _m: None)

    assert opened("off", "s1") is None
    one, two = opened("session", "s1"), opened("session", "s2")
    shared_a, shared_b = opened("shared", "s1"), opened("shared", "s2")
    assert one and two and shared_a and shared_b
    assert one.scope != two.scope and shared_a.scope == shared_b.scope == SHARED_SCOPE
    assert one.path == shared_a.path == tmp_path / "cache" / "subcalls.sqlite"


WRITER = """
import asyncio, sys
from pathlib import Path
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.llm.types import Completion, Usage

async def main(path: str, me: str, other: str, max_bytes: int) -> None:
    cache = SubCallCache(Path(path), "shared", max_bytes, lambda m: print(m, file=sys.stderr))
    seen = 0
    for n in range(150):
        usage = Usage(input_tokens=n, output_tokens=1)
        kept = Completion(text=f"{me} {n}", usage=usage, provider="openai", model="m")
        await cache.put(f"{me}-{n}", kept)
        await cache.put("contended", kept)
        seen += await cache.get(f"{other}-{n}") is not None
    cache.close()
    print(seen)

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
"""


@pytest.mark.parametrize("max_bytes", [1 << 30, 12_000])
def test_two_processes_write_and_read_one_file_at_once(tmp_path: Path, max_bytes: int) -> None:
    path = tmp_path / "subcalls.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), me, other, str(max_bytes)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me, other in (("a", "b"), ("b", "a"))
    ]
    results = [writer.communicate(timeout=120) for writer in writers]
    for writer, (_out, err) in zip(writers, results, strict=True):
        assert writer.returncode == 0 and err == "", err

    db = sqlite3.connect(path)
    rows = dict(db.execute("SELECT key, value FROM answers").fetchall())
    total = db.execute("SELECT bytes FROM total").fetchone()[0]
    assert total == db.execute("SELECT total(size) FROM answers").fetchone()[0]
    assert json.loads(rows["contended"])["text"] in ("a 149", "b 149")
    if max_bytes == 1 << 30:
        assert len(rows) == 301, "every answer of both writers is kept"
        assert {json.loads(rows[f"a-{n}"])["text"] for n in range(150)} == {
            f"a {n}" for n in range(150)
        }
    else:
        assert total <= max_bytes and 0 < len(rows) < 301
