"""``llm_map(items, instruction, schema=None, concurrency=16)``: one sub-model call per item,
from sandbox code. Each answer is checked against the JSON Schema when one is given (a
failed check is retried once with the error), order is kept, a failed item comes back as
``{"error": ...}``, and each finished item is recorded once — a map run again (a retry, a
resumed session) never pays twice for it. Every call counts against the sub-call budget and
the cost cap, as ``llm_query`` does."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import jsonschema

from ralph_tui.agents.sub_queries import SubQueryRunner
from ralph_tui.events import OperatorCalled, TextRead
from ralph_tui.evidence import Span
from ralph_tui.traces.atomic import append_line

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
LLM_MAP_FILE = "llm_map.jsonl"
"""Finished items of a session's maps, beside its traces."""


class LLMMap:
    """``llm_map`` over one agent's sub-query runner, with a record of finished items
    (kept in ``path`` too, so a resumed session finds them)."""

    def __init__(
        self, runner: SubQueryRunner, path: Path | None = None, document: str = ""
    ) -> None:
        self.runner = runner
        self.path = path
        self.document = document
        self.done: dict[str, Any] = {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                    self.done[entry["key"]] = entry["result"]
                except (ValueError, KeyError, TypeError):
                    continue

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

        async def one(item: Any) -> Any:
            key = _key(instruction, schema, item)
            if key in self.done:
                return self.done[key]
            async with slots:
                result = await self._answer(self._text_of(item), instruction, schema)
            if not (isinstance(result, dict) and "error" in result):
                self._record(key, result)
            return result

        spans = [span for item in items if (span := self._span_of(item)) is not None]
        if spans:
            self.runner.emit(TextRead(agent=self.runner.agent, via="llm_map", spans=spans))
        results = list(await asyncio.gather(*(one(item) for item in items)))
        spent = self.runner.spent.since(before)
        failed = sum(1 for r in results if isinstance(r, dict) and "error" in r)
        self.runner.emit(
            OperatorCalled(
                agent=self.runner.agent,
                operator="llm_map",
                detail=f"{len(items)} items, {failed} failed: {instruction[:80]}",
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
            answer = await self.runner.query(prompt, item)
            return {"error": answer} if answer.startswith("[error]") else answer
        prompt += "\n\nReply with JSON only, matching this JSON Schema:\n" + json.dumps(schema)
        problem = ""
        for _attempt in range(2):
            answer = await self.runner.query(prompt + problem, item)
            if answer.startswith("[error]"):
                return {"error": answer}
            try:
                value = _json_in(answer)
                jsonschema.validate(value, schema)
                return value
            except (ValueError, jsonschema.ValidationError) as exc:
                reason = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
                problem = f"\n\nYour last answer was not valid ({reason}). Reply again."
        return {"error": f"no valid answer: {problem.split('(', 1)[-1].rsplit(')', 1)[0]}"}

    def _record(self, key: str, result: Any) -> None:
        self.done[key] = result
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_line(self.path, json.dumps({"key": key, "result": result}))


def _key(instruction: str, schema: dict[str, Any] | None, item: Any) -> str:
    text = json.dumps([instruction, schema, str(item)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


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
