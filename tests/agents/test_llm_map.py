"""``llm_map``: answers checked against a JSON Schema with one retry, order kept, failed
items as error entries, every call a sub-call, and finished items never paid twice (a map
run again, or in another process, finds their answers in the sub-call cache; a failed item's
answers are dropped from it, so that item is asked anew)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from ralph_tui.agents.llm_map import LLMMap
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.events import BaseEvent, OperatorCalled
from ralph_tui.llm.openai_client import OpenAIClient
from tests.llm.llm_wire import openai_completion

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


class Answers:
    """A sub-model on a fake network: item a answers well, b badly then well, c never."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        prompt = json.loads(request.content)["messages"][-1]["content"]
        self.prompts.append(prompt)
        item = prompt.rsplit("\n---\n", 1)[1]
        retry = "was not valid" in prompt
        text = {"a": '{"n": 1}', "b": '```json\n{"n": 2}\n```' if retry else "no idea"}.get(
            item, '{"n": "many"}'
        )
        return httpx2.Response(200, json=openai_completion({"content": text}))


def llm_map(
    answers: Answers, cache: Path | None = None, events: list[BaseEvent] | None = None
) -> tuple[LLMMap, SubQueryBudget]:
    client = OpenAIClient(
        "gpt-4o-mini", api_key="sk-test", base_url="https://openai.test/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(answers.handle)),
    )  # fmt: skip
    budget = SubQueryBudget(limit=50)
    emit = events.append if events is not None else (lambda _e: None)
    kept = SubCallCache(cache, "session:s1", 1 << 20) if cache is not None else None
    return LLMMap(SubQueryRunner(client, budget, emit, agent="worker", cache=kept)), budget


async def test_schema_checks_retries_order_and_errors(tmp_path: Path) -> None:
    answers = Answers()
    events: list[BaseEvent] = []
    mapped, budget = llm_map(answers, tmp_path / "subcalls.sqlite", events)
    results = await mapped(["a", "b", "c"], "Count the item.", SCHEMA)
    [called] = [e for e in events if isinstance(e, OperatorCalled)]
    assert (
        called.operator == "llm_map" and called.calls == 5 and "3 items, 1 failed" in called.detail
    )
    assert called.cost_usd == pytest.approx(5 * (1000 * 0.15 + 100 * 0.60) / 1e6)
    assert results[:2] == [{"n": 1}, {"n": 2}]
    assert "error" in results[2] and "'many' is not of type 'integer'" in results[2]["error"]
    assert len(answers.prompts) == 5 and budget.used == 5

    events.clear()
    again, again_budget = llm_map(answers, tmp_path / "subcalls.sqlite", events)
    before = len(answers.prompts)
    assert (await again(["a", "b", "c"], "Count the item.", SCHEMA))[:2] == results[:2]
    asked = [p.rsplit("\n---\n", 1)[1] for p in answers.prompts[before:]]
    assert asked == ["c", "c"], "finished items are not asked again; the failed one is"
    [called] = [e for e in events if isinstance(e, OperatorCalled)]
    assert called.calls == 2 and "3 answers from the cache" in called.detail
    assert again_budget.used == 2, "answers from the cache use none of the budget"


async def test_plain_answers_and_bad_input() -> None:
    answers = Answers()
    mapped, _ = llm_map(answers)
    assert await mapped(["a"], "Say it.") == ['{"n": 1}']
    with pytest.raises(ValueError, match="not a JSON Schema"):
        await mapped(["a"], "x", {"type": "nonsense"})
    with pytest.raises(TypeError, match="a list of items"):
        await mapped("a", "x")  # type: ignore[arg-type]
