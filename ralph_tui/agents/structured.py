"""The structured-output agent: loop until the model calls the output tool with valid arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from ralph_tui.agents.output_tool import (
    OUTPUT_TOOL_NAME,
    ArgumentsError,
    output_tool,
    parse_arguments,
)
from ralph_tui.agents.stuck import NO_CALL, STUCK_REPEATS, Repeat, RepeatWatch, repeat_warning
from ralph_tui.events import AgentStep, Emit, ModelTurnPartial, StepAction
from ralph_tui.llm.prompt_io import render_input
from ralph_tui.llm.types import (
    ChatMessage,
    Completion,
    LLMClient,
    OnPartial,
    PartialTurn,
    ToolCall,
)

T = TypeVar("T", bound=BaseModel)

NUDGE = (
    f"You did not call the `{OUTPUT_TOOL_NAME}` tool. Your answer only counts when you call "
    f"`{OUTPUT_TOOL_NAME}` with arguments that match its schema. Call it now."
)


class MaxStepsError(Exception):
    """The step budget ran out before a valid output.

    ``gathered`` holds what the model said; the turn counts say how the steps were spent, so
    the advice to the next attempt matches what happened.
    """

    def __init__(
        self,
        agent: str,
        max_steps: int,
        gathered: list[str],
        last_error: str,
        *,
        invalid: int = 0,
        no_call: int = 0,
        explored: int = 0,
        tree_spent_at: int | None = None,
    ) -> None:
        self.agent = agent
        self.max_steps = max_steps
        self.taken = max_steps if tree_spent_at is None else tree_spent_at
        """The steps the agent took before they ended."""
        self.gathered = gathered
        self.last_error = last_error
        self.invalid, self.no_call, self.explored = invalid, no_call, explored
        detail = f"; last problem: {_one_line(last_error)}" if last_error else ""
        ran = f"used all {max_steps} steps"
        if tree_spent_at is not None:
            ran = (
                f"took {tree_spent_at} of its {max_steps} steps before its tree of agents "
                "had spent the steps it shares"
            )
        super().__init__(f"{agent} {ran} without a valid output ({self.spent()}){detail}")

    def spent(self) -> str:
        """How the steps went, e.g. ``4 invalid calls, 2 without a tool call``."""
        parts = [
            f"{self.explored} ran code" if self.explored else "",
            f"{self.invalid} invalid calls" if self.invalid else "",
            f"{self.no_call} without a tool call" if self.no_call else "",
        ]
        return ", ".join(p for p in parts if p) or "no turns"

    def advice(self) -> str:
        """What the next attempt should do differently."""
        if self.explored and not (self.invalid or self.no_call):
            return (
                f"The previous attempt spent all {self.max_steps} steps running code without "
                "submitting. Explore less, and submit the output fields with "
                '"resultReady": true sooner.'
            )
        problem = f" The last problem: {_one_line(self.last_error)}" if self.last_error else ""
        return (
            f"The previous attempt ran out of steps ({self.spent()}).{problem} Call "
            f"`{OUTPUT_TOOL_NAME}` every turn with one JSON object that matches its schema."
        )


class AgentStuckError(MaxStepsError):
    """The agent's turn came out the same ``STUCK_REPEATS`` times in a row (the same
    problem, or the same code with the same output), so its steps ended early at ``step``:
    ``repeat`` says what it kept doing."""

    def __init__(
        self,
        agent: str,
        max_steps: int,
        step: int,
        repeat: Repeat,
        gathered: list[str],
        *,
        invalid: int = 0,
        no_call: int = 0,
        explored: int = 0,
    ) -> None:
        super().__init__(
            agent,
            max_steps,
            gathered,
            repeat.problem,
            invalid=invalid,
            no_call=no_call,
            explored=explored,
        )
        self.step, self.repeat = step, repeat
        self.taken = step
        self.args = (f"{agent} stopped at step {step} of {max_steps}, stuck: {self.kept()}",)

    def kept(self) -> str:
        """What the agent kept doing, in one line."""
        times = f"{STUCK_REPEATS} times in a row"
        if self.repeat.kind == "invalid":
            return f"the same invalid output {times} ({_one_line(self.repeat.problem)})"
        if self.repeat.kind == "no_call":
            return f"no tool call {times}"
        return f"{self.repeat.problem} {times}"

    def advice(self) -> str:
        """What the next attempt should do differently: what this one kept doing, and the
        way out of it."""
        if self.repeat.kind == "invalid":
            return (
                f"The previous attempt was stopped: it gave {self.kept()}. Call "
                f"`{OUTPUT_TOOL_NAME}` with one JSON object that has every field its schema "
                "requires, each of the type the schema gives."
            )
        if self.repeat.kind == "no_call":
            return (
                f"The previous attempt was stopped: it answered {STUCK_REPEATS} times in a row "
                f"without calling a tool. Every turn must call a tool; submit with "
                f"`{OUTPUT_TOOL_NAME}`."
            )
        return (
            f"The previous attempt was stopped: it ran {self.kept()}. Do not run again what "
            "you already have the result of: use it, look elsewhere, or submit the output."
        )


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass
class AgentSpec(Generic[T]):
    """What a role needs to run: its name, system prompt, output model and budgets."""

    name: str
    system: str
    output_model: type[T]
    description: str = "Submit the final output."
    max_steps: int = 6
    temperature: float | None = None
    max_tokens: int = 4096
    extra: dict[str, Any] = field(default_factory=dict)


def tool_feedback(call: ToolCall, text: str) -> ChatMessage:
    return ChatMessage(role="tool", tool_call_id=call.id, content=text)


def assistant_turn(completion: Completion) -> ChatMessage:
    return ChatMessage(role="assistant", content=completion.text, tool_calls=completion.tool_calls)


def answer_other_calls(completion: Completion, keep: ToolCall) -> list[ChatMessage]:
    """Every tool call but ``keep`` needs a result too (providers reject dangling calls)."""
    return [
        tool_feedback(call, f"Unknown tool `{call.name}`; only `{OUTPUT_TOOL_NAME}` exists.")
        for call in completion.tool_calls
        if call is not keep
    ]


def find_output_call(completion: Completion) -> ToolCall | None:
    for call in completion.tool_calls:
        if call.name == OUTPUT_TOOL_NAME:
            return call
    return completion.tool_calls[0] if completion.tool_calls else None


def partial_turns(emit: Emit, agent: str, step: int) -> OnPartial:
    """Where the turn of ``agent``'s ``step`` goes while it streams: ``ModelTurnPartial``
    events, at the rate the client passes them on."""

    def send(turn: PartialTurn) -> None:
        emit(
            ModelTurnPartial(
                agent=agent,
                step=step,
                text=turn.text,
                tool=turn.tool,
                arguments=turn.arguments,
                first_token_ms=turn.first_token_s * 1000,
            )
        )

    return send


def unusable_turn(
    completion: Completion, call: ToolCall | None, problem: ArgumentsError | None, count: int
) -> list[ChatMessage]:
    """A turn that gave no output, with what the model is told of it: the nudge when it
    called no tool, else the ``problem`` of its ``call`` (``count``: equal turns in a row)."""
    warning = repeat_warning(count)
    if call is None:
        return [assistant_turn(completion), ChatMessage(role="user", content=NUDGE + warning)]
    return [
        assistant_turn(completion),
        *answer_other_calls(completion, call),
        tool_feedback(call, f"{problem}{warning}"),
    ]


async def agent_forward(
    client: LLMClient, spec: AgentSpec[T], inputs: dict[str, Any], emit: Emit
) -> T:
    """Run ``spec`` on ``inputs`` until a valid output, ``MaxStepsError``, or
    ``AgentStuckError`` when its turns come out the same ``STUCK_REPEATS`` times in a row.

    The model is shown its latest unusable turn and what was wrong with it, never the
    earlier ones: each step's request is the same size, however many went before."""
    tool = output_tool(spec.output_model, spec.description)
    task = [
        ChatMessage(role="system", content=spec.system),
        ChatMessage(role="user", content=render_input(inputs)),
    ]
    latest: list[ChatMessage] = []
    gathered: list[str] = []
    watch = RepeatWatch()
    counts = {"invalid": 0, "no_call": 0}

    def step_event(step: int, action: StepAction, detail: str = "") -> None:
        emit(AgentStep(agent=spec.name, step=step, max_steps=spec.max_steps, action=action,
                       detail=detail))  # fmt: skip

    for step in range(1, spec.max_steps + 1):
        completion = await client.chat(
            [*task, *latest],
            tools=[tool],
            tool_choice="required",
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            on_partial=partial_turns(emit, spec.name, step),
        )
        if completion.text:
            gathered.append(completion.text)
        call = find_output_call(completion)
        problem: ArgumentsError | None = None
        if call is not None:
            gathered.append(call.arguments)
            try:
                output = parse_arguments(call.arguments, spec.output_model)
            except ArgumentsError as exc:
                problem = exc
            else:
                step_event(step, "output")
                return output
        repeat = Repeat("invalid", problem.key, str(problem)) if problem else NO_CALL
        counts[repeat.kind] += 1
        latest = unusable_turn(completion, call, problem, watch.see(repeat))
        step_event(step, "invalid" if problem else "nudge", str(problem or ""))
        if watch.stuck:
            stuck = AgentStuckError(
                spec.name, spec.max_steps, step, repeat, gathered,
                invalid=counts["invalid"], no_call=counts["no_call"],
            )  # fmt: skip
            step_event(step, "stuck", str(stuck))
            raise stuck
    last_error = watch.last.problem if watch.last is not None else ""
    raise MaxStepsError(
        spec.name, spec.max_steps, gathered, last_error,
        invalid=counts["invalid"], no_call=counts["no_call"],
    )  # fmt: skip
