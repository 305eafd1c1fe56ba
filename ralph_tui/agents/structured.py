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
from ralph_tui.events import AgentStep, Emit, ModelTurnPartial
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
    ) -> None:
        self.agent = agent
        self.max_steps = max_steps
        self.gathered = gathered
        self.last_error = last_error
        self.invalid, self.no_call, self.explored = invalid, no_call, explored
        detail = f"; last problem: {_one_line(last_error)}" if last_error else ""
        super().__init__(
            f"{agent} used all {max_steps} steps without a valid output ({self.spent()}){detail}"
        )

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


async def agent_forward(
    client: LLMClient, spec: AgentSpec[T], inputs: dict[str, Any], emit: Emit
) -> T:
    """Run ``spec`` on ``inputs`` until a valid output or ``MaxStepsError``."""
    tool = output_tool(spec.output_model, spec.description)
    messages = [
        ChatMessage(role="system", content=spec.system),
        ChatMessage(role="user", content=render_input(inputs)),
    ]
    gathered: list[str] = []
    last_error = ""
    invalid = no_call = 0
    for step in range(1, spec.max_steps + 1):
        completion = await client.chat(
            messages,
            tools=[tool],
            tool_choice="required",
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            on_partial=partial_turns(emit, spec.name, step),
        )
        messages.append(assistant_turn(completion))
        if completion.text:
            gathered.append(completion.text)
        call = find_output_call(completion)
        if call is None:
            last_error = "no tool call"
            no_call += 1
            messages.append(ChatMessage(role="user", content=NUDGE))
            emit(AgentStep(agent=spec.name, step=step, max_steps=spec.max_steps, action="nudge"))
            continue
        gathered.append(call.arguments)
        messages.extend(answer_other_calls(completion, call))
        try:
            output = parse_arguments(call.arguments, spec.output_model)
        except ArgumentsError as exc:
            last_error = str(exc)
            invalid += 1
            messages.append(tool_feedback(call, last_error))
            emit(
                AgentStep(
                    agent=spec.name,
                    step=step,
                    max_steps=spec.max_steps,
                    action="invalid",
                    detail=last_error,
                )
            )
            continue
        emit(AgentStep(agent=spec.name, step=step, max_steps=spec.max_steps, action="output"))
        return output
    raise MaxStepsError(
        spec.name, spec.max_steps, gathered, last_error, invalid=invalid, no_call=no_call
    )
