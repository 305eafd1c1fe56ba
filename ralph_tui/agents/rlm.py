"""The RLM agent: the model explores the document by writing code that runs in the sandbox."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ralph_tui.agents.llm_map import LLM_MAP_DOC, LLM_MAP_FILE, LLMMap
from ralph_tui.agents.output_tool import (
    ArgumentsError,
    describe_validation_error,
    parse_json_object,
    rlm_action,
    rlm_tool,
)
from ralph_tui.agents.rlm_prompt import (
    VariableInfo,
    build_rlm_system,
    shrink,
)
from ralph_tui.agents.structured import (
    NUDGE,
    AgentSpec,
    MaxStepsError,
    agent_forward,
    answer_other_calls,
    assistant_turn,
    find_output_call,
    tool_feedback,
)
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.events import (
    AgentStep,
    ContextCompacted,
    ContextSize,
    Emit,
    SandboxExecuted,
    StepAction,
    SummaryNode,
)
from ralph_tui.lcm.context import ActiveContext, Budget
from ralph_tui.lcm.dag import Summary
from ralph_tui.lcm.operators import EXPAND_DOC, GREP_DOC, Operators
from ralph_tui.lcm.store import MessageStore
from ralph_tui.lcm.summarise import model_summariser
from ralph_tui.llm.errors import ContextTooLongError
from ralph_tui.llm.prompt_io import render_input
from ralph_tui.llm.types import ChatMessage, Completion, LLMClient, ToolCall
from ralph_tui.sandbox import ExecResult, Sandbox, SandboxLimits
from ralph_tui.sandbox.calls import HostFunction

T = TypeVar("T", bound=BaseModel)

MAX_CONSECUTIVE_SANDBOX_FAILURES = 3
FALLBACK_TRAJECTORY_CHARS = 24_000


class SandboxFailedError(RuntimeError):
    """The sandbox kept crashing; the agent stops instead of guessing an answer."""


@dataclass
class RLMSpec(Generic[T]):
    """An RLM role: its prompt, output model and budgets."""

    name: str
    definition: str
    output_model: type[T]
    max_steps: int = 80
    max_llm_calls: int = 60
    temperature: float | None = None
    max_tokens: int = 4096
    max_output_chars: int = 4000
    cell_timeout_s: float = 30.0
    start_timeout_s: float = 30.0
    sub_query_concurrency: int = 8


@dataclass
class SandboxVariable:
    """A global handed to the sandbox, with what the model is told about it."""

    value: str | list[dict[str, Any]]
    description: str

    def info(self, name: str) -> VariableInfo:
        kind = "str" if isinstance(self.value, str) else "list"
        return VariableInfo(name, kind, len(self.value), self.description)


@dataclass
class RLMResult(Generic[T]):
    output: T
    fallback: bool
    steps: int
    llm_calls: int
    isolation: str


@dataclass
class _Turn:
    assistant: ChatMessage
    replies: list[ChatMessage] = field(default_factory=list)


class _RLMRun(Generic[T]):
    """State of one ``rlm_agent_forward`` call."""

    def __init__(
        self,
        client: LLMClient,
        spec: RLMSpec[T],
        inputs: dict[str, Any],
        variables: dict[str, SandboxVariable],
        emit: Emit,
        sub_runner: SubQueryRunner,
        function_docs: Sequence[str] = (),
        store_path: Path | None = None,
    ) -> None:
        self.client = client
        self.spec = spec
        self.inputs = inputs
        self.emit = emit
        self.sub_runner = sub_runner
        self.tool = rlm_tool(spec.output_model)
        fields = list(spec.output_model.model_fields)
        infos = [variable.info(name) for name, variable in variables.items()]
        self.system = build_rlm_system(
            spec.definition,
            fields,
            infos,
            max_steps=spec.max_steps,
            max_llm_calls=spec.max_llm_calls,
            max_output_chars=spec.max_output_chars,
            function_docs=function_docs,
        )
        self.turns: list[_Turn] = []
        self.context = ActiveContext(
            self.system,
            MessageStore(store_path),
            Budget.of_window(client.context_window_tokens, spec.max_tokens),
        )
        self.context.append(ChatMessage(role="user", content=render_input(self.inputs)))
        self.summarise = model_summariser(client)
        self.last_compaction_reason = ""
        self.failures_in_a_row = 0
        self.cells: list[tuple[str, ExecResult]] = []
        self.invalid = self.no_call = 0
        self.last_problem = ""

    async def messages(self) -> list[ChatMessage]:
        """The active context: the conversation so far, older spans summarised once it
        passes its budget (the store keeps every message whole)."""
        flat = [m for turn in self.turns for m in (turn.assistant, *turn.replies)]
        for message in flat[len(self.context.store) - 1 :]:
            self.context.append(message)
        report = await self.context.compact(self.summarise)
        repeated = not report.summaries and report.reason == self.last_compaction_reason
        self.last_compaction_reason = report.reason
        if report.status != "not_needed" and not repeated:
            self.emit(
                ContextCompacted(
                    agent=self.spec.name,
                    status="compacted" if report.status == "compacted" else "exhausted",
                    before_tokens=report.before_tokens,
                    after_tokens=report.after_tokens,
                    summaries=report.summaries,
                    levels=report.levels,
                    reason=report.reason,
                    dag=[summary_node(s) for s in self.context.summaries.values()],
                    top=list(self.context.top),
                )
            )
        budget = self.context.budget
        self.emit(
            ContextSize(
                agent=self.spec.name,
                tokens=report.after_tokens,
                soft=budget.soft,
                hard=budget.hard,
                messages=len(self.context.store),
                summaries=len(self.context.top),
            )
        )
        return self.context.render()

    async def complete(self) -> Completion:
        """The model's next turn. A server that refuses the prompt as too long for its
        window (smaller than the one believed, as a local server's may be) gets it again
        compacted to a smaller budget, until the budget cannot shrink further."""
        while True:
            try:
                return await self.client.chat(
                    await self.messages(),
                    tools=[self.tool],
                    tool_choice="required",
                    temperature=self.spec.temperature,
                    max_tokens=self.spec.max_tokens,
                )
            except ContextTooLongError:
                if not self.context.shrink_budget():
                    raise

    def step_event(self, step: int, action: StepAction, detail: str = "") -> None:
        self.emit(
            AgentStep(
                agent=self.spec.name,
                step=step,
                max_steps=self.spec.max_steps,
                action=action,
                detail=detail,
            )
        )

    async def step(self, sandbox: Sandbox, step: int) -> T | None:
        completion = await self.complete()
        turn = _Turn(assistant_turn(completion))
        self.turns.append(turn)
        call = find_output_call(completion)
        if call is None:
            turn.replies.append(ChatMessage(role="user", content=NUDGE))
            self.no_call += 1
            self.last_problem = "no tool call"
            self.step_event(step, "nudge")
            return None
        turn.replies.extend(answer_other_calls(completion, call))
        try:
            args = rlm_action(parse_json_object(call.arguments))
        except ArgumentsError as exc:
            self.refuse(turn, call, step, str(exc))
            return None
        if args.get("resultReady") is True:
            return self.submit(args, turn, call, step)
        code = args.get("code")
        if not isinstance(code, str) or not code.strip():
            text = (
                'Give `action` as {"code": "..."} to run code, or as the output fields with '
                '"resultReady": true to submit.'
            )
            self.refuse(turn, call, step, text)
            return None
        result = await sandbox.execute(code)
        self.cells.append((code, result))
        self.report_cell(step, code, result, sandbox.isolation)
        turn.replies.append(tool_feedback(call, self.observation(result)))
        self.step_event(step, "code")
        return None

    def submit(self, args: dict[str, Any], turn: _Turn, call: ToolCall, step: int) -> T | None:
        fields = {k: v for k, v in args.items() if k in self.spec.output_model.model_fields}
        try:
            output = self.spec.output_model.model_validate(fields)
        except ValidationError as exc:
            self.refuse(turn, call, step, describe_validation_error(exc))
            return None
        self.step_event(step, "output")
        return output

    def refuse(self, turn: _Turn, call: ToolCall, step: int, problem: str) -> None:
        """Tell the model what to fix about a turn that could not be used."""
        turn.replies.append(tool_feedback(call, problem))
        self.invalid += 1
        self.last_problem = problem
        self.step_event(step, "invalid", problem)

    def out_of_steps(self) -> MaxStepsError:
        """The error for a run whose steps ran out, with how they were spent."""
        return MaxStepsError(
            self.spec.name,
            self.spec.max_steps,
            [],
            self.last_problem,
            invalid=self.invalid,
            no_call=self.no_call,
            explored=len(self.cells),
        )

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
        return shrink("\n\n".join(blocks), FALLBACK_TRAJECTORY_CHARS)


def summary_node(summary: Summary) -> SummaryNode:
    return SummaryNode(
        id=summary.id,
        kind=summary.kind,
        depth=summary.depth,
        first=summary.first,
        last=summary.last,
        tokens=summary.tokens,
        covers=list(summary.covers),
        text=summary.text,
    )


async def rlm_agent_forward(
    client: LLMClient,
    spec: RLMSpec[T],
    inputs: dict[str, Any],
    variables: dict[str, SandboxVariable],
    *,
    sub_client: LLMClient,
    emit: Emit,
    on_notice: Callable[[str], None] | None = None,
    functions: dict[str, HostFunction] | None = None,
    function_docs: Sequence[str] = (),
    store_path: Path | None = None,
) -> RLMResult[T]:
    """Run the RLM loop; on step exhaustion salvage an output flagged ``fallback`` from what
    the sandbox printed, or raise ``MaxStepsError`` when it printed nothing to salvage from.

    ``functions`` are host functions the sandbox gets beside ``llm_query``; the prompt lists
    ``function_docs`` (one line each) under the sandbox's functions. With ``store_path``
    every message of the conversation is also appended there (JSON lines)."""
    budget = SubQueryBudget(limit=spec.max_llm_calls)
    runner = SubQueryRunner(
        sub_client, budget, emit, agent=spec.name, concurrency=spec.sub_query_concurrency
    )
    docs = [*function_docs, EXPAND_DOC, GREP_DOC, LLM_MAP_DOC]
    llm_map = LLMMap(runner, store_path.parent / LLM_MAP_FILE if store_path else None)
    run = _RLMRun(client, spec, inputs, variables, emit, runner, docs, store_path)
    document = variables.get("context")
    text = str(document.value) if document is not None else ""
    operators = Operators(run.context, text, emit, spec.name)
    limits = SandboxLimits(
        timeout_s=spec.cell_timeout_s,
        start_timeout_s=spec.start_timeout_s,
        max_output_chars=spec.max_output_chars,
    )
    async with await Sandbox.start(
        globals={name: var.value for name, var in variables.items()},
        functions={
            **(functions or {}),
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
            output = await run.step(sandbox, step)
            if output is not None:
                return RLMResult(output, False, step, budget.used, sandbox.isolation)
        isolation = sandbox.isolation
    if not run.trajectory_text():
        raise run.out_of_steps()
    output = await _fallback(client, spec, inputs, run, emit)
    return RLMResult(output, True, spec.max_steps, budget.used, isolation)


async def _fallback(
    client: LLMClient, spec: RLMSpec[T], inputs: dict[str, Any], run: _RLMRun[T], emit: Emit
) -> T:
    """One call over the code trajectory to salvage an output the loops will mark unverified."""
    started = time.perf_counter()
    extractor = AgentSpec(
        name=f"{spec.name}.fallback",
        system=(
            "The step budget of a document-exploration agent ran out before it submitted. "
            "From its task and its code trajectory below, extract the best output it supports. "
            "Use only text that appears in the trajectory's results."
        ),
        output_model=spec.output_model,
        max_steps=1,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
    )
    fallback_inputs = {**inputs, "trajectory": run.trajectory_text()}
    try:
        output = await agent_forward(client, extractor, fallback_inputs, emit)
    except MaxStepsError:
        raise run.out_of_steps() from None
    run.step_event(spec.max_steps, "fallback", f"{(time.perf_counter() - started) * 1000:.0f} ms")
    return output
