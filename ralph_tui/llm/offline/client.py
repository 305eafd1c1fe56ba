"""``OfflineClient``: a deterministic, keyless extractive baseline that plays every role.

It is not a language model. It reads the same messages and tool schema a real model gets,
decides which role it is playing from the output tool's fields, and answers lexically.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from ralph_tui.llm.documents_prompt import parse_documents
from ralph_tui.llm.errors import BadRequestError
from ralph_tui.llm.models import context_window_tokens
from ralph_tui.llm.offline import children, direct_worker, lcm_worker, roles, worker
from ralph_tui.llm.offline.constraints import Steering, read_constraints
from ralph_tui.llm.offline.text import DocumentsRarity, Rarity
from ralph_tui.llm.prompt_io import parse_input
from ralph_tui.llm.types import (
    ChatMessage,
    Completion,
    OnPartial,
    ToolCall,
    ToolChoice,
    ToolDefinition,
    Usage,
)

RoleFn = Callable[[dict[str, Any]], dict[str, Any]]

STRUCTURED_ROLES: list[tuple[frozenset[str], RoleFn]] = [
    (frozenset({"output", "memoryUpdate"}), roles.reasoner),
    (frozenset({"subtasks"}), roles.decomposer),
    (frozenset({"summary"}), roles.compactor),
    (frozenset({"output"}), roles.aggregator),
]


def _fallback(fields: dict[str, Any], kind: str, rarity: Rarity | None) -> dict[str, Any]:
    trajectory = str(fields.get("trajectory", "")).replace("\\n", "\n")
    passages = worker.printed_passages(trajectory)
    if kind != "answer":
        return worker.brief_output(passages, worker.printed_composed(trajectory))
    query = str(fields.get("query") or fields.get("task") or "")
    return worker.qa_output(passages, query, trajectory, _steering(fields), rarity)


def _steering(fields: dict[str, Any]) -> Steering:
    constraints = fields.get("constraints") or []
    return read_constraints([str(c) for c in constraints] if isinstance(constraints, list) else [])


class OfflineClient:
    """An ``LLMClient`` that needs no key and no network; see the module docstring."""

    provider = "offline"

    def __init__(self, role: str = "generate", context_window: int | None = None) -> None:
        self.model = f"offline-{role}"
        self.context_window_tokens = context_window or context_window_tokens("offline", self.model)
        self._calls = 0
        self.rarity: Rarity | None = None
        """How much each term says in the run's documents (their IDF in its index), once
        the run has indexed them (``know_rarity``): a model knows which words of a question
        are common; the baseline learns it from the documents. ``None``: every term weighs
        the same."""

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        tools: list[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        temperature: float | None = None,
        max_tokens: int = 4096,
        on_partial: OnPartial | None = None,
    ) -> Completion:
        """The baseline's turn, made whole at once: ``on_partial`` is never called."""
        started = time.perf_counter()
        self._calls += 1
        text, calls = "", []
        if tools and {"grep", "read"} <= {tool.name for tool in tools}:
            calls = [
                ToolCall(id=f"offline_{self._calls}_{n}", name=name, arguments=json.dumps(args))
                for n, (name, args) in enumerate(self._play_lcm(messages, tools))
            ]
        elif tools:
            arguments = self._play(messages, tools[0])
            calls = [ToolCall(id=f"offline_{self._calls}", name=tools[0].name, arguments=arguments)]
        else:
            text = roles.sub_query(messages[-1].content if messages else "")
        prompt_chars = sum(
            len(m.content) + sum(len(c.arguments) for c in m.tool_calls) for m in messages
        )
        return Completion(
            text=text,
            tool_calls=calls,
            usage=Usage(
                input_tokens=prompt_chars // 4 + 1,
                output_tokens=(len(text) + sum(len(c.arguments) for c in calls)) // 4 + 1,
            ),
            stop_reason="tool_use" if calls else "end_turn",
            model=self.model,
            provider=self.provider,
            latency_ms=(time.perf_counter() - started) * 1000,
            cost_usd=0.0,
        )

    def _play(self, messages: list[ChatMessage], tool: ToolDefinition) -> str:
        first_user = next((m.content for m in messages if m.role == "user"), "")
        fields = parse_input(first_user)
        props = frozenset(tool.parameters.get("properties", {}))
        system = next((m.content for m in messages if m.role == "system"), "")
        documents = parse_documents(system)
        if documents is not None:
            answers = "evidence" in props
            steering = _steering(fields)
            output = direct_worker.play(documents, fields, steering, answers, self.rarity)
            return json.dumps(output)
        if props == {"action"}:
            action = self._explore(messages, fields, _action_fields(tool.parameters), system)
            return json.dumps({"action": action})
        if {"lines", "issues"} <= props:
            return json.dumps(roles.qa_judge(fields, self.rarity))
        if {"ok", "issues"} <= props:
            return json.dumps(roles.task_judge(fields))
        if {"answer", "evidence"} <= props or "brief" in props:
            kind = "answer" if "evidence" in props else "brief"
            return json.dumps(_fallback(fields, kind, self.rarity))
        for needed, role in STRUCTURED_ROLES:
            if needed <= props:
                return json.dumps(role(fields))
        raise BadRequestError(
            f"the offline baseline has no role for an output tool with fields {sorted(props)}",
            provider=self.provider,
            model=self.model,
        )

    def _play_lcm(
        self, messages: list[ChatMessage], tools: list[ToolDefinition]
    ) -> list[lcm_worker.Call]:
        """The LCM agent's next calls: it greps, reads, then submits (with the first tool,
        the output tool, as for every role) from what it read."""
        fields = parse_input(next((m.content for m in messages if m.role == "user"), ""))
        system = next((m.content for m in messages if m.role == "system"), "")
        return lcm_worker.play(
            messages,
            frozenset(tool.name for tool in tools),
            tools[0],
            fields,
            _steering(fields),
            self.rarity,
            system,
        )

    def _explore(
        self,
        messages: list[ChatMessage],
        fields: dict[str, Any],
        props: frozenset[str],
        system: str = "",
    ) -> dict[str, Any]:
        """Search once (steered by the constraints), then submit from what it printed; over
        several documents, when it may start child agents, ask one per document instead
        (see ``children``)."""
        query = str(fields.get("query") or fields.get("task") or "")
        hints = fields.get("docReaderHints") or []
        steering = _steering(fields)
        steps_taken = sum(1 for m in messages if m.role == "assistant" and m.tool_calls)
        if steps_taken == 0:
            search_for = " ".join([query, *map(str, hints)])
            tables = "evidence" not in props
            if children.documents_to_split(system):
                return {"code": children.children_code(search_for, steering, tables=tables)}
            return {"code": worker.search_code(search_for, steering, tables=tables)}
        observations = "\n".join(m.content for m in messages if m.role == "tool")
        passages = worker.printed_passages(observations)
        if "evidence" in props:
            part = children.answers_a_part(system)
            output = worker.qa_output(
                passages, query, observations, steering, self.rarity, part=part
            )
            return {**output, "resultReady": True}
        composed = worker.printed_composed(observations)
        return {**worker.brief_output(passages, composed), "resultReady": True}


def _action_fields(schema: dict[str, Any]) -> frozenset[str]:
    """Every field the RLM tool's ``action`` alternatives name (code and the output fields)."""
    choices = schema["properties"]["action"].get("anyOf", [])
    return frozenset(name for choice in choices for name in choice.get("properties", {}))


def know_rarity(client: object, rarity: Rarity, documents: Iterable[str] = ()) -> None:
    """Give ``rarity`` (and what the ``documents``, by their names, are about:
    ``DocumentsRarity``) to ``client`` when it is the offline baseline (under its meter);
    any other client, a model that knows its words, is left as it is."""
    inner = getattr(client, "inner", client)
    if isinstance(inner, OfflineClient):
        inner.rarity = DocumentsRarity.of(rarity, documents)
