"""The RLM agent: the model explores the document by writing code that runs in the sandbox."""

from __future__ import annotations

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
    salvage,
    sub_calls,
)
from ralph_tui.agents.agent_tree import AgentTree, nesting
from ralph_tui.agents.llm_map import LLM_MAP_DOC
from ralph_tui.agents.look import LOOK_DOC, PageLook, look_function
from ralph_tui.agents.output_tool import (
    ArgumentsError,
    parse_json_object,
    rlm_action,
    rlm_tool,
)
from ralph_tui.agents.printed import printed_spans
from ralph_tui.agents.recursion import ChildCalls, Parent, rlm_query_docs
from ralph_tui.agents.rlm_prompt import build_rlm_system
from ralph_tui.agents.structured import (
    answer_other_calls,
    assistant_turn,
    find_output_call,
    tool_feedback,
)
from ralph_tui.agents.stuck import Repeat
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.agents.sub_queries import SubQueryRunner
from ralph_tui.events import Emit, SandboxExecuted, TextRead
from ralph_tui.lcm.operators import EXPAND_DOC, GREP_DOC, Operators
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.types import LLMClient
from ralph_tui.sandbox import ExecResult, Sandbox, SandboxLimits
from ralph_tui.sandbox.calls import HostFunction

T = TypeVar("T", bound=BaseModel)

MAX_CONSECUTIVE_SANDBOX_FAILURES = 3


class SandboxFailedError(RuntimeError):
    """The sandbox kept crashing; the agent stops instead of guessing an answer."""


class _RLMRun(AgentRun[T]):
    """State of one ``rlm_agent_forward`` call."""

    def __init__(
        self,
        client: LLMClient,
        spec: RLMSpec[T],
        inputs: dict[str, Any],
        variables: dict[str, AgentVariable],
        emit: Emit,
        sub_runner: SubQueryRunner,
        function_docs: Sequence[str],
        store: MessageStore,
        document: str,
    ) -> None:
        fields = list(spec.output_model.model_fields)
        infos = [variable.info(name) for name, variable in variables.items()]
        system = build_rlm_system(
            spec.definition,
            fields,
            infos,
            max_steps=spec.max_steps,
            max_llm_calls=spec.max_llm_calls,
            max_output_chars=spec.max_output_chars,
            function_docs=function_docs,
        )
        super().__init__(client, spec, system, inputs, emit, store)
        self.sub_runner = sub_runner
        self.tool = rlm_tool(spec.output_model)
        self.failures_in_a_row = 0
        self.cells: list[tuple[str, ExecResult]] = []
        self.document = document
        """The text the cells see as ``context`` (to place what their output shows of it)."""

    async def step(self, sandbox: Sandbox, step: int) -> T | None:
        completion = await self.complete([self.tool], step)
        self.add(assistant_turn(completion))
        call = find_output_call(completion)
        if call is None:
            self.nudge(step)
            return None
        for reply in answer_other_calls(completion, call):
            self.add(reply)
        try:
            args = rlm_action(parse_json_object(call.arguments))
        except ArgumentsError as exc:
            self.refuse(call, step, str(exc), exc.key)
            return None
        if args.get("resultReady") is True:
            return self.submit(args, call, step)
        code = args.get("code")
        if not isinstance(code, str) or not code.strip():
            text = (
                'Give `action` as {"code": "..."} to run code, or as the output fields with '
                '"resultReady": true to submit.'
            )
            self.refuse(call, step, text, "rlm: no action")
            return None
        result = await sandbox.execute(code)
        self.cells.append((code, result))
        self.report_cell(step, code, result, sandbox.isolation)
        again = self.note_run(Repeat.of_run("code", code, result.output, result.error or ""))
        self.add(tool_feedback(call, self.observation(result) + again))
        self.step_event(step, "code")
        return None

    def report_cell(self, step: int, code: str, result: ExecResult, isolation: str) -> None:
        self.emit(
            SandboxExecuted(
                agent=self.spec.name,
                step=step,
                code=code,
                output=result.output,
                error=result.error,
                timed_out=result.timed_out,
                restarted=result.restarted,
                duration_ms=result.duration_ms,
                isolation=isolation,
            )
        )
        taken = list(result.reads.spans)
        spans = [*taken, *printed_spans(self.document, result.output, taken)]
        if spans or result.reads.searches:
            searches = list(result.reads.searches)
            self.emit(TextRead(agent=self.spec.name, via="cell", spans=spans, searches=searches))
        self.failures_in_a_row = self.failures_in_a_row + 1 if result.restarted else 0
        if self.failures_in_a_row >= MAX_CONSECUTIVE_SANDBOX_FAILURES:
            raise SandboxFailedError(
                f"the sandbox failed {self.failures_in_a_row} cells in a row "
                f"(last error: {(result.error or '').splitlines()[-1:] or ['none']})"
            )
        if self.sub_runner.budget.cost_cap_hit is not None:
            raise self.sub_runner.budget.cost_cap_hit

    def observation(self, result: ExecResult) -> str:
        parts = [result.output or "(no output)"]
        if result.error:
            parts.append(result.error)
        parts.append(f"[cell took {result.duration_ms:.0f} ms]")
        parts.extend(self.sub_runner.budget.drain_notes())
        return "\n".join(parts)

    def trajectory_text(self) -> str:
        """The code the model ran and what the sandbox printed: nothing the app told the model
        (error messages, nudges), so a salvage can only quote what the document gave."""
        blocks = [
            f"Code:\n{code}\nResult:\n{result.output}"
            for code, result in self.cells
            if result.output
        ]
        return "\n\n".join(blocks)


async def rlm_agent_forward(
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
    """Run the RLM loop; on step exhaustion salvage an output flagged ``fallback`` from what
    the sandbox printed, or raise ``MaxStepsError`` when it printed nothing to salvage from;
    ``AgentStuckError`` (no salvage) when its turns come out the same ``STUCK_REPEATS``
    times in a row.

    ``functions`` are host functions the sandbox gets beside ``llm_query``; the prompt lists
    ``function_docs`` (one line each) under the sandbox's functions. With ``store_path``
    every message of the conversation is also appended there (JSON lines). Sub-calls take
    the answers ``sub_cache`` holds instead of paying for them again. With ``look`` the
    sandbox gets ``look(page, question)`` over the run's PDF and image pages. With a
    ``tree`` of more than one level the sandbox gets ``rlm_query`` too (see ``recursion``):
    its children share this agent's sub-call budget."""
    text = document_of(variables)
    budget = tree.budget_for(spec.max_llm_calls) if tree is not None else None
    runner, llm_map = sub_calls(spec, sub_client, emit, text, sub_cache, budget)
    budget = runner.budget
    docs = [*function_docs, EXPAND_DOC, GREP_DOC, LLM_MAP_DOC]
    more = dict(functions or {})
    if look is not None:
        more["look"] = look_function(runner, look)
        docs.append(LOOK_DOC)
    recursive = nesting(tree)
    if recursive is not None:
        docs.extend(rlm_query_docs(recursive, spec.sub_query_concurrency))
    store = open_store(store_path)
    run = _RLMRun(client, spec, inputs, variables, emit, runner, docs, store, text)
    if recursive is not None:
        recursive.join(runner, spec.max_steps)
        options = {"on_notice": on_notice, "sub_cache": sub_cache, "look": look}
        parent = Parent(
            spec.name, client, sub_client, spec, inputs, variables, emit, runner,
            lambda: run.current_step, dict(functions or {}), list(function_docs), options,
        )  # fmt: skip
        more.update(ChildCalls(recursive, parent, rlm_agent_forward).functions())
    operators = Operators(run.context, text, emit, spec.name)
    limits = SandboxLimits(
        timeout_s=spec.cell_timeout_s,
        start_timeout_s=spec.start_timeout_s,
        max_output_chars=spec.max_output_chars,
    )
    async with await Sandbox.start(
        globals={name: var.value for name, var in variables.items()},
        functions={
            **more,
            "llm_query": runner.query,
            "llm_query_batched": runner.query_batched,
            "expand": operators.expand,
            "grep": operators.grep,
            "llm_map": llm_map,
        },
        limits=limits,
        emit_notice=on_notice,
    ) as sandbox:
        for step in range(1, spec.max_steps + 1):
            if not run.begin_step(step, tree):
                break
            output = await run.step(sandbox, step)
            if output is not None:
                return RLMResult(output, False, step, budget.used, sandbox.isolation)
            run.stop_if_stuck(step, len(run.cells))
        isolation = sandbox.isolation
    output = await salvage(run, run.trajectory_text(), len(run.cells), tree=tree)
    return RLMResult(output, True, run.current_step, budget.used, isolation)
