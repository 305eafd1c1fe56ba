"""What both document-exploring agents share (the RLM agent in its sandbox, the LCM agent
with its tools): the conversation kept in the LCM store and sent as a bounded active
context, the model's turns, the refusals of unusable ones, the stop of an agent whose turns
keep coming out the same, and the salvage of an output when the steps run out."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ralph_tui.agents.agent_tree import AgentTree, takes_step
from ralph_tui.agents.llm_map import LLMMap
from ralph_tui.agents.output_tool import describe_validation_error, validation_key
from ralph_tui.agents.rlm_prompt import VariableInfo, shrink
from ralph_tui.agents.structured import (
    NUDGE,
    AgentSpec,
    AgentStuckError,
    MaxStepsError,
    agent_forward,
    partial_turns,
    tool_feedback,
)
from ralph_tui.agents.stuck import NO_CALL, Repeat, RepeatWatch, repeat_warning
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner
from ralph_tui.events import (
    AgentStep,
    ContextCompacted,
    ContextSize,
    Emit,
    StepAction,
    SummaryNode,
)
from ralph_tui.lcm.context import ActiveContext, Budget
from ralph_tui.lcm.dag import Summary
from ralph_tui.lcm.store import MessageStore
from ralph_tui.lcm.summarise import model_summariser
from ralph_tui.llm.errors import ContextTooLongError
from ralph_tui.llm.prompt_io import render_input
from ralph_tui.llm.types import ChatMessage, Completion, LLMClient, ToolCall, ToolDefinition

T = TypeVar("T", bound=BaseModel)

FALLBACK_TRAJECTORY_CHARS = 24_000


@dataclass
class RLMSpec(Generic[T]):
    """A document-exploring role: its prompt, output model and budgets (the same in both
    inner modes)."""

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
class AgentVariable:
    """A value the agent explores (the document, its table, the memory), with what the
    model is told about it."""

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
    """How the agent's code was isolated; ``none (lcm: no code runs)`` in the LCM mode."""


class AgentRun(Generic[T]):
    """One exploring agent's conversation: every message goes to the store, the prompt of
    each step is the active context (older spans summarised past the budget)."""

    compacts = True
    """Whether older spans are summarised past the budget. The ``direct`` agent's prompt is
    the documents and a few short turns (the unusable ones left out), so it never is: a
    summary would cost a call and change nothing the documents do not already hold."""

    def __init__(
        self,
        client: LLMClient,
        spec: RLMSpec[T],
        system: str,
        inputs: dict[str, Any],
        emit: Emit,
        store: MessageStore,
    ) -> None:
        self.client = client
        self.spec = spec
        self.inputs = inputs
        self.emit = emit
        self.context = ActiveContext(
            system, store, Budget.of_window(client.context_window_tokens, spec.max_tokens)
        )
        if not len(store):
            self.add(ChatMessage(role="user", content=render_input(inputs)))
        self.summarise = model_summariser(client)
        self.last_compaction_reason = ""
        self.invalid = self.no_call = 0
        self.last_problem = ""
        self.repeats = RepeatWatch()
        self.current_step = 0
        """The step running now (the one whose code or tool call starts any child agent)."""
        self.tree_spent = False
        """Whether the steps ended because the agent's tree of agents had spent its own."""

    def begin_salvage(self, tree: AgentTree) -> bool:
        """Take one of ``tree``'s steps for a salvage call, if one is left for this agent."""
        if tree.take_step(salvage=True):
            return True
        self.tree_spent = True
        return False

    def begin_step(self, step: int, tree: AgentTree | None) -> bool:
        """Make ``step`` the current one, unless ``tree`` has no step left for this agent."""
        if not takes_step(tree):
            self.tree_spent = True
            return False
        self.current_step = step
        return True

    def add(self, message: ChatMessage, *, closes_unusable_turn: bool = False) -> None:
        """A message of the conversation, kept whole in the store; one that
        ``closes_unusable_turn`` leaves the turn out of the context once a later one does."""
        self.context.append(message, closes_unusable_turn=closes_unusable_turn)

    async def messages(self) -> list[ChatMessage]:
        """The active context: the conversation so far, older spans summarised once it
        passes its budget (the store keeps every message whole)."""
        if not self.compacts:
            return self._sized(self.context.render())
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
                    store=str(self.context.store.path or ""),
                )
            )
        return self._sized(self.context.render(), report.after_tokens)

    def _sized(self, messages: list[ChatMessage], tokens: int | None = None) -> list[ChatMessage]:
        """``messages``, once their size is reported (a ``ContextSize`` event)."""
        budget = self.context.budget
        self.emit(
            ContextSize(
                agent=self.spec.name,
                tokens=self.context.tokens() if tokens is None else tokens,
                soft=budget.soft,
                hard=budget.hard,
                messages=len(self.context.store),
                summaries=len(self.context.top),
            )
        )
        return messages

    async def complete(self, tools: list[ToolDefinition], step: int) -> Completion:
        """The model's turn of ``step`` (shown as it streams). A server that refuses the
        prompt as too long for its window (smaller than the one believed, as a local
        server's may be) gets it again compacted to a smaller budget, until the budget
        cannot shrink further; never again as large as the prompt it refused (compaction
        that frees nothing ends the turn with the server's refusal)."""
        refused: ContextTooLongError | None = None
        refused_tokens = 0
        while True:
            messages = await self.messages()
            if refused is not None and self.context.tokens() >= refused_tokens:
                raise refused
            try:
                return await self.client.chat(
                    messages,
                    tools=tools,
                    tool_choice="required",
                    temperature=self.spec.temperature,
                    max_tokens=self.spec.max_tokens,
                    on_partial=partial_turns(self.emit, self.spec.name, step),
                )
            except ContextTooLongError as exc:
                refused, refused_tokens = exc, self.context.tokens()  # what was just sent
                if not self.compacts or not self.context.shrink_budget():
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

    def submit(
        self, fields: dict[str, Any], call: ToolCall, step: int, *, whole_turn: bool = True
    ) -> T | None:
        """The output, when ``fields`` hold a valid one; otherwise the model is told why
        (``whole_turn`` as for ``refuse``)."""
        known = {k: v for k, v in fields.items() if k in self.spec.output_model.model_fields}
        try:
            output = self.spec.output_model.model_validate(known)
        except ValidationError as exc:
            problem, key = describe_validation_error(exc), validation_key(exc)
            self.refuse(call, step, problem, key, whole_turn=whole_turn)
            return None
        self.step_event(step, "output")
        return output

    def refuse(
        self, call: ToolCall, step: int, problem: str, key: str, *, whole_turn: bool = True
    ) -> None:
        """Tell the model what to fix about a turn that could not be used (``key``: the
        problem normalised). Unless other calls of the turn did something (not
        ``whole_turn``), the turn is left out of the context once a later one is refused."""
        count = self.repeats.see(Repeat("invalid", key, problem))
        self.add(
            tool_feedback(call, problem + repeat_warning(count)), closes_unusable_turn=whole_turn
        )
        self.invalid += 1
        self.last_problem = problem
        self.step_event(step, "invalid", problem)

    def nudge(self, step: int) -> None:
        """Remind the model, after a turn without a tool call, that only a call counts."""
        count = self.repeats.see(NO_CALL)
        self.add(
            ChatMessage(role="user", content=NUDGE + repeat_warning(count)),
            closes_unusable_turn=True,
        )
        self.no_call += 1
        self.last_problem = NO_CALL.problem
        self.step_event(step, "nudge")

    def note_run(self, repeat: Repeat) -> str:
        """Note a turn that ran code or tools (``repeat``: what it ran and got back); what
        to tell the model beside its result when it did the same as before."""
        return repeat_warning(self.repeats.see(repeat))

    def stop_if_stuck(self, step: int, explored: int) -> None:
        """End the steps with ``AgentStuckError`` when the last ``STUCK_REPEATS`` turns
        came out the same: nothing new can come of the next one."""
        last = self.repeats.last
        if not self.repeats.stuck or last is None:
            return
        stuck = AgentStuckError(
            self.spec.name, self.spec.max_steps, step, last, [],
            invalid=self.invalid, no_call=self.no_call, explored=explored,
        )  # fmt: skip
        self.step_event(step, "stuck", str(stuck))
        raise stuck

    def out_of_steps(self, explored: int) -> MaxStepsError:
        """The error for a run whose steps ran out, with how they were spent."""
        return MaxStepsError(
            self.spec.name,
            self.spec.max_steps,
            [],
            self.last_problem,
            invalid=self.invalid,
            no_call=self.no_call,
            explored=explored,
            tree_spent_at=self.current_step if self.tree_spent else None,
        )


def document_of(variables: dict[str, AgentVariable]) -> str:
    """The text the agent explores (the ``context`` variable; empty without one)."""
    document = variables.get("context")
    return str(document.value) if document is not None else ""


def other_inputs(variables: dict[str, AgentVariable], limit: int) -> dict[str, Any]:
    """Text variables beside the documents (the memory) as inputs, shrunk to ``limit``: for
    the modes that give the model no sandbox to read them in."""
    return {
        name: shrink(var.value, limit)
        for name, var in variables.items()
        if name not in ("context", "documents") and isinstance(var.value, str)
    }


def sub_calls(
    spec: RLMSpec[Any],
    sub_client: LLMClient,
    emit: Emit,
    document: str,
    cache: SubCallCache | None = None,
    budget: SubQueryBudget | None = None,
) -> tuple[SubQueryRunner, LLMMap]:
    """The sub-calls of one agent run under the role's budget (``llm_query``), or under the
    ``budget`` of its tree of agents, and ``llm_map`` over them, answered from ``cache``
    where it holds the answer."""
    budget = budget or SubQueryBudget(limit=spec.max_llm_calls)
    runner = SubQueryRunner(
        sub_client,
        budget,
        emit,
        agent=spec.name,
        concurrency=spec.sub_query_concurrency,
        cache=cache,
    )
    return runner, LLMMap(runner, document)


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


async def salvage(
    run: AgentRun[T],
    trajectory: str,
    explored: int,
    what: str = "code trajectory",
    *,
    tree: AgentTree | None = None,
) -> T:
    """One call over what the agent's exploration returned, to salvage an output the loops
    will mark unverified; ``MaxStepsError`` when there is nothing to salvage from, or when
    even that fails. A child agent's salvage is one of its ``tree``'s steps (none left: no
    salvage), so a tree makes no more calls than its root's steps and one salvage."""
    if not trajectory or (tree is not None and tree.depth > 1 and not run.begin_salvage(tree)):
        raise run.out_of_steps(explored)
    spec = run.spec
    started = time.perf_counter()
    extractor = AgentSpec(
        name=f"{spec.name}.fallback",
        system=(
            "The step budget of a document-exploration agent ran out before it submitted. "
            f"From its task and its {what} below, extract the best output it supports. "
            "Use only text that appears in the trajectory's results."
        ),
        output_model=spec.output_model,
        max_steps=1,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
    )
    inputs = {**run.inputs, "trajectory": shrink(trajectory, FALLBACK_TRAJECTORY_CHARS)}
    try:
        output = await agent_forward(run.client, extractor, inputs, run.emit)
    except MaxStepsError:
        raise run.out_of_steps(explored) from None
    run.step_event(spec.max_steps, "fallback", f"{(time.perf_counter() - started) * 1000:.0f} ms")
    return output


def open_store(path: Path | None) -> MessageStore:
    """The conversation store at ``path``: a fresh one (an earlier conversation there, from
    an interrupted run, is kept beside it as ``.interrupted-N``)."""
    if path is not None and path.is_file():
        number = 1
        while (aside := path.with_suffix(f".interrupted-{number}.jsonl")).exists():
            number += 1
        path.rename(aside)
    return MessageStore(path)
