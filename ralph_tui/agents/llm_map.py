"""``llm_map(items, instruction, schema=None, concurrency=16)``: one sub-model call per item,
from sandbox code. Each answer is checked against the JSON Schema when one is given (a
failed check is retried once with the error), order is kept, and a failed item comes back as
``{"error": ...}``. Every call is a sub-call: it counts against the sub-call budget and the
cost cap, and its answer is kept in the sub-call cache, so a map run again (a retry, a
resumed session) never pays twice for an item it finished. The answers of an item that
failed are dropped from the cache, so it is asked anew next time."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import jsonschema

from ralph_tui.agents.sub_queries import SubAnswer, SubQueryRunner
from ralph_tui.events import OperatorCalled, TextRead
from ralph_tui.evidence import Span

LLM_MAP_DOC = (
    "`llm_map(items, instruction, schema=None, concurrency=16) -> list`: ask the sub-model "
    "`instruction` about each item (a string, or a `[start, end]` span of the document) at "
    "once; with a JSON Schema `schema` each "
    "answer is parsed and checked (one retry on a bad answer); results in the items' order, "
    "a failed item as `{'error': ...}`. Each item counts as one sub-call."
)
MAX_CONCURRENCY = 16
MAX_SPAN_CHARS = 20_000
"""A span item's text at most: what a sub-call reads."""


class LLMMap:
    """``llm_map`` over one agent's sub-query runner (and its sub-call cache)."""

    def __init__(self, runner: SubQueryRunner, document: str = "") -> None:
        self.runner = runner
        self.document = document

    async def __call__(
        self,
        items: list[Any],
        instruction: str,
        schema: dict[str, Any] | None = None,
        concurrency: int = MAX_CONCURRENCY,
    ) -> list[Any]:
        if not isinstance(items, list):
            raise TypeError("llm_map takes a list of items")
        if schema is not None:
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError as exc:
                raise ValueError(f"not a JSON Schema: {exc.message}") from None
        slots = asyncio.Semaphore(max(1, min(int(concurrency), MAX_CONCURRENCY)))
        started, before = time.perf_counter(), self.runner.spent.copy()
        saved_before = self.runner.saved.copy()

        async def one(item: Any) -> Any:
            async with slots:
                return await self._answer(self._text_of(item), instruction, schema)

        spans = [span for item in items if (span := self._span_of(item)) is not None]
        if spans:
            self.runner.emit(TextRead(agent=self.runner.agent, via="llm_map", spans=spans))
        results = list(await asyncio.gather(*(one(item) for item in items)))
        spent = self.runner.spent.since(before)
        saved = self.runner.saved.since(saved_before).calls
        failed = sum(1 for r in results if isinstance(r, dict) and "error" in r)
        cached = f", {saved} answers from the cache" if saved else ""
        self.runner.emit(
            OperatorCalled(
                agent=self.runner.agent,
                operator="llm_map",
                detail=f"{len(items)} items, {failed} failed{cached}: {instruction[:80]}",
                calls=spent.calls,
                input_tokens=spent.input_tokens,
                output_tokens=spent.output_tokens,
                cost_usd=None if spent.unknown_cost_calls else round(spent.cost_usd, 6),
                latency_ms=(time.perf_counter() - started) * 1000,
            )
        )
        return results

    def _text_of(self, item: Any) -> str:
        """An item's text: a string as it is, a ``[start, end]`` span as that part of the
        document (at most ``MAX_SPAN_CHARS``)."""
        span = self._span_of(item)
        return str(item) if span is None else self.document[span[0] : span[1]]

    def _span_of(self, item: Any) -> Span | None:
        """The part of the document a ``[start, end]`` item names (at most
        ``MAX_SPAN_CHARS``); ``None`` for any other item."""
        if (
            isinstance(item, list | tuple)
            and len(item) == 2
            and all(isinstance(n, int) for n in item)
        ):
            start = min(max(0, item[0]), len(self.document))
            return start, max(start, min(item[1], item[0] + MAX_SPAN_CHARS, len(self.document)))
        return None

    async def _answer(self, item: str, instruction: str, schema: dict[str, Any] | None) -> Any:
        prompt = instruction
        if schema is None:
            answer = await self.runner.ask(prompt, item)
            return {"error": answer.text} if answer.text.startswith("[error]") else answer.text
        prompt += "\n\nReply with JSON only, matching this JSON Schema:\n" + json.dumps(schema)
        problem = ""
        invalid: list[SubAnswer] = []
        for _attempt in range(2):
            answer = await self.runner.ask(prompt + problem, item, schema)
            if answer.text.startswith("[error]"):
                return {"error": answer.text}
            try:
                value = _json_in(answer.text)
                jsonschema.validate(value, schema)
                return value
            except (ValueError, jsonschema.ValidationError) as exc:
                invalid.append(answer)
                reason = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
                problem = f"\n\nYour last answer was not valid ({reason}). Reply again."
        for answer in invalid:  # the item failed: its answers are not worth keeping
            await self.runner.forget(answer)
        return {"error": f"no valid answer: {problem.split('(', 1)[-1].rsplit(')', 1)[0]}"}


def _json_in(answer: str) -> Any:
    """The JSON value of ``answer`` (inside a ```json fence, or the first object or array)."""
    text = answer.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        return json.loads(text)
    except ValueError:
        pass
    for opening, closing in (("{", "}"), ("[", "]")):
        start, end = text.find(opening), text.rfind(closing)
        if 0 <= start < end:
            return json.loads(text[start : end + 1])
    raise ValueError("the answer holds no JSON")
