"""The LCM agent: the model explores the document through operators called as native tools
(``grep``, ``read``, ``retrieve``, ``llm_map``, ``expand``) — no sandbox, no code. It is
told the document's size, headings and samples, never its whole text; its conversation is
the same bounded, compacted, cache-friendly context as the RLM agent's.

An interrupted conversation (a resumed session) goes on from its store: the model sees its
earlier turns, and a call left unanswered is answered as interrupted."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from ralph_tui.agents.agent_run import (
    AgentRun,
    AgentVariable,
    RLMResult,
    RLMSpec,
    document_of,
    open_store,
    other_inputs,
    salvage,
    sub_calls,
)
from ralph_tui.agents.agent_tree import AgentTree, nesting
from ralph_tui.agents.lcm_prompt import build_lcm_system, describe_document
from ralph_tui.agents.lcm_tools import Tool, call_tool
from ralph_tui.agents.llm_map import LLM_MAP_DOC
from ralph_tui.agents.look import LOOK_DOC, PageLook, look_function
from ralph_tui.agents.output_tool import (
    OUTPUT_TOOL_NAME,
    ArgumentsError,
    output_tool,
    parse_json_object,
)
from ralph_tui.agents.recursion import ChildCalls, Parent, rlm_query_docs
from ralph_tui.agents.structured import assistant_turn, tool_feedback
from ralph_tui.agents.stuck import Repeat
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.events import Emit, ToolExecuted
from ralph_tui.lcm.operators import EXPAND_DOC, GREP_DOC, READ_DOC, Operators
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.prompt_io import render_input
from ralph_tui.llm.types import LLMClient, ToolCall
from ralph_tui.sandbox.calls import HostFunction

T = TypeVar("T", bound=BaseModel)

NO_ISOLATION = "none (lcm: no code runs)"
RESUMED_NOTE = "(interrupted before it returned: call it again if you still need it)"


class _LCMRun(AgentRun[T]):
    """State of one ``lcm_agent_forward`` call."""

    def __init__(
        self,
        client: LLMClient,
        spec: RLMSpec[T],
        inputs: dict[str, Any],
        system: str,
        tools: dict[str, Tool],
        emit: Emit,
        store: MessageStore,
    ) -> None:
        super().__init__(client, spec, system, inputs, emit, store)
        self.tools = tools
        self.output = output_tool(spec.output_model, "Submit the final output.")
        self.results: list[tuple[ToolCall, str]] = []
        """Every call that returned, with what it returned (the salvage reads them)."""

    async def step(self, step: int) -> T | None:
        definitions = [self.output, *(t.definition for t in self.tools.values())]
        completion = await self.complete(definitions, step)
        self.add(assistant_turn(completion))
        if not completion.tool_calls:
            self.nudge(step)
            return None
        submitted = next((c for c in completion.tool_calls if c.name == OUTPUT_TOOL_NAME), None)
        others = [call for call in completion.tool_calls if call is not submitted]
        returned = [await self.run_tool(call, step) for call in others]
        if submitted is None:
            calls = [f"{call.name}({call.arguments})" for call in others]
            returned[-1] += self.note_run(Repeat.of_run("tools", *calls, *returned))
        for call, text in zip(others, returned, strict=True):
            self.add(tool_feedback(call, text))
        if submitted is None:
            names = ", ".join(call.name for call in completion.tool_calls)
            self.step_event(step, "tools", names)
            return None
        try:
            fields = parse_json_object(submitted.arguments)
        except ArgumentsError as exc:
            self.refuse(submitted, step, str(exc), exc.key, whole_turn=not others)
            return None
        return self.submit(fields, submitted, step, whole_turn=not others)

    async def run_tool(self, call: ToolCall, step: int) -> str:
        """Run one tool call; what it returned, for the model."""
        started = time.perf_counter()
        text, ok = await call_tool(self.tools, call, self.spec.max_output_chars)
        self.emit(
            ToolExecuted(
                agent=self.spec.name,
                step=step,
                tool=call.name,
                arguments=call.arguments,
                result=text,
                ok=ok,
                duration_ms=(time.perf_counter() - started) * 1000,
            )
        )
        if ok:
            self.results.append((call, text))
        return text

    def trajectory_text(self) -> str:
        """What the tools returned (nothing the app told the model), for a salvage."""
        return "\n\n".join(
            f"{call.name}({call.arguments}) returned:\n{text}" for call, text in self.results
        )


def _resumable(store: MessageStore, inputs: dict[str, Any]) -> bool:
    """Whether the stored conversation is one of these inputs (and can go on)."""
    return len(store) > 0 and store[0].content == render_input(inputs)


def _answer_dangling(run: _LCMRun[Any]) -> None:
    """Answer the calls of the last assistant turn that never got a result."""
    messages = run.context.store.messages
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if last is None:
        return
    answered = {m.tool_call_id for m in messages[last.id + 1 :] if m.role == "tool"}
    for call in last.tool_calls:
        if call.id not in answered:
            run.add(tool_feedback(call, RESUMED_NOTE))


async def lcm_agent_forward(
    client: LLMClient,
    spec: RLMSpec[T],
    inputs: dict[str, Any],
    variables: dict[str, AgentVariable],
    *,
    sub_client: LLMClient,
    emit: Emit,
    on_notice: Callable[[str], None] | None = None,
    functions: dict[str, HostFunction] | None = None,
    function_docs: Sequence[str] = (),
    store_path: Path | None = None,
    sub_cache: SubCallCache | None = None,
    look: PageLook | None = None,
    tree: AgentTree | None = None,
) -> RLMResult[T]:
    """Run the LCM loop (the same arguments and result as ``rlm_agent_forward``); on step
    exhaustion salvage an output flagged ``fallback`` from what the tools returned.

    ``functions`` (the run's ``retrieve``) become tools beside the operators, described by
    ``function_docs``. The conversation is kept at ``store_path``; one left there for the
    same inputs is taken up where it stopped; sub-calls take the answers ``sub_cache`` holds.
    With ``look`` the model gets the ``look`` tool over the run's PDF and image pages. With
    a ``tree`` of more than one level it gets ``rlm_query`` and ``rlm_query_batched`` too
    (see ``recursion``): children in the LCM mode, sharing this agent's sub-call budget."""
    del on_notice  # no sandbox: nothing to warn about
    text = document_of(variables)
    table = variables.get("documents")
    all_inputs = {**inputs, **other_inputs(variables, spec.max_output_chars)}
    store = MessageStore.load(store_path) if store_path is not None else MessageStore()
    resumed = _resumable(store, all_inputs)
    if not resumed:
        store = open_store(store_path)
    budget = tree.budget_for(spec.max_llm_calls) if tree is not None else None
    runner, llm_map = sub_calls(spec, sub_client, emit, text, sub_cache, budget)
    budget = runner.budget
    recursive = nesting(tree)
    child_docs = rlm_query_docs(recursive, spec.sub_query_concurrency) if recursive else []
    docs = [
        READ_DOC.format(limit=spec.max_output_chars),
        GREP_DOC,
        *function_docs,
        LLM_MAP_DOC,
        EXPAND_DOC,
        *([LOOK_DOC] if look is not None else []),
        *child_docs,
    ]
    system = build_lcm_system(
        spec.definition,
        list(spec.output_model.model_fields),
        describe_document(text, table.value if table and isinstance(table.value, list) else None),
        docs,
        max_steps=spec.max_steps,
        max_llm_calls=spec.max_llm_calls,
        max_output_chars=spec.max_output_chars,
    )
    run = _LCMRun(client, spec, all_inputs, system, {}, emit, store)
    operators = Operators(run.context, text, emit, spec.name, read_limit=spec.max_output_chars)
    run.tools = {
        "read": Tool.of("read", docs[0], operators.read),
        "grep": Tool.of("grep", GREP_DOC, operators.grep),
        **{
            name: Tool.of(name, _doc_of(name, function_docs), fn)
            for name, fn in (functions or {}).items()
        },
        "llm_map": Tool.of("llm_map", LLM_MAP_DOC, llm_map),
        "expand": Tool.of("expand", EXPAND_DOC, operators.expand),
    }
    if look is not None:
        run.tools["look"] = Tool.of("look", LOOK_DOC, look_function(runner, look))
    if recursive is not None:
        recursive.join(runner, spec.max_steps)
        options = {"on_notice": None, "sub_cache": sub_cache, "look": look}
        parent = Parent(
            spec.name, client, sub_client, spec, inputs, variables, emit, runner,
            lambda: run.current_step, dict(functions or {}), list(function_docs), options,
        )  # fmt: skip
        hosted = ChildCalls(recursive, parent, lcm_agent_forward).functions()
        for (name, function), doc in zip(hosted.items(), child_docs, strict=True):
            run.tools[name] = Tool.of(name, doc, function)
    if resumed:
        _answer_dangling(run)
    for step in range(1, spec.max_steps + 1):
        if not run.begin_step(step, tree):
            break
        output = await run.step(step)
        if output is not None:
            return RLMResult(output, False, step, budget.used, NO_ISOLATION)
        run.stop_if_stuck(step, len(run.results))
        if budget.cost_cap_hit is not None:
            raise budget.cost_cap_hit
    what = "tool calls and their results"
    output = await salvage(run, run.trajectory_text(), len(run.results), what, tree=tree)
    return RLMResult(output, True, run.current_step, budget.used, NO_ISOLATION)


def _doc_of(name: str, docs: Sequence[str]) -> str:
    """The line of ``docs`` that describes the function ``name``."""
    return next((doc for doc in docs if doc.startswith(f"`{name}(")), name)
