"""The direct agent: the model answers from the documents placed whole in its prompt — no
sandbox, no code, no tool but the output.

The prompt is built so a provider's cache serves the documents after the first request:
the system prompt opens with them and holds nothing that changes (the role's instructions
follow them), and what changes from one iteration to the next — the query, the
constraints, an earlier output, the memory — comes after, in the user message. Anthropic's
breakpoint on the system prompt (``mark_cache_breakpoint``) and OpenAI's automatic prefix
caching both read it from the cache at every later step and iteration.

Both exploring roles run this way. The QA worker answers from the documents. A task's
DocReader reads them whole too and still writes the brief: the reasoner, which never sees the
documents, writes from it, and its passages are checked against the documents as in every
mode; it still gets the retrieval pre-phase's passages, which hold earlier iterations'
findings as well as pointers into the documents.

Its turns go through the same machinery as the other modes (``AgentRun``): the same output
schema and refusals, the latest unusable turn alone shown to the model, the stop after
``STUCK_REPEATS`` equal turns, and the conversation kept in the session's context store."""

from __future__ import annotations

import dataclasses
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
)
from ralph_tui.agents.look import PageLook
from ralph_tui.agents.output_tool import (
    OUTPUT_TOOL_NAME,
    ArgumentsError,
    output_tool,
    parse_json_object,
)
from ralph_tui.agents.structured import answer_other_calls, assistant_turn, find_output_call
from ralph_tui.agents.sub_cache import SubCallCache
from ralph_tui.events import Emit, TextRead
from ralph_tui.lcm.store import MessageStore
from ralph_tui.llm.documents_prompt import PromptDocument, render_documents
from ralph_tui.llm.errors import ContextTooLongError
from ralph_tui.llm.types import LLMClient
from ralph_tui.sandbox.calls import HostFunction

T = TypeVar("T", bound=BaseModel)

DIRECT_ISOLATION = "none (direct: no code runs)"
DIRECT_MAX_STEPS = 6
"""Turns of a direct agent at most (fewer when the role's step budget is smaller): each
turn is an attempt at the output, so more would only pay for the same prompt again."""

DIRECT_TEMPLATE = """{definition}

## How you work
The documents are given whole above, between <documents> and </documents>: read them and
answer from them. Where the task above speaks of `context`, a sandbox, `memory` or functions
such as `retrieve()`, it means these documents and the inputs you are given: in this mode no
code runs and you have one tool, `{tool}`. Call it with the output fields ({fields}); they
are validated, and you are told what to fix if they do not pass. Copy every quote from the
documents exactly, character for character (same spaces, punctuation and quote marks),
never from the framing lines.

## Budget
{max_steps} turns in all, each a call to `{tool}`.
"""


def prompt_documents(variables: dict[str, AgentVariable]) -> list[PromptDocument]:
    """The run's documents, each whole under its name (one document when there is no
    table of them)."""
    text = document_of(variables)
    table = variables.get("documents")
    if table is None or not isinstance(table.value, list) or not table.value:
        return [PromptDocument("document", text)]
    return [
        PromptDocument(str(doc.get("name", "")), text[int(doc["start"]) : int(doc["end"])])
        for doc in table.value
    ]


def build_direct_system(spec: RLMSpec[Any], documents: list[PromptDocument]) -> str:
    """The system prompt: the documents first, then the role's instructions (both the same
    at every step and iteration)."""
    return render_documents(documents) + DIRECT_TEMPLATE.format(
        definition=spec.definition.strip(),
        tool=OUTPUT_TOOL_NAME,
        fields=", ".join(f"`{name}`" for name in spec.output_model.model_fields),
        max_steps=spec.max_steps,
    )


class DirectPromptTooLong(ContextTooLongError):
    """The server refused the documents in the prompt as too long: its window is smaller
    than the run took it to be. Every later step and iteration would send them again, so
    the run stops."""

    title = "The documents do not fit the model's window"
    stops_run = True


class _DirectRun(AgentRun[T]):
    """State of one ``direct_agent_forward`` call."""

    compacts = False

    def __init__(
        self,
        client: LLMClient,
        spec: RLMSpec[T],
        system: str,
        inputs: dict[str, Any],
        emit: Emit,
        store: MessageStore,
    ) -> None:
        super().__init__(client, spec, system, inputs, emit, store)
        self.output = output_tool(spec.output_model, "Submit the final output.")

    async def step(self, step: int) -> T | None:
        completion = await self.complete([self.output], step)
        self.add(assistant_turn(completion))
        call = find_output_call(completion)
        if call is None:
            self.nudge(step)
            return None
        for reply in answer_other_calls(completion, call):
            self.add(reply)
        try:
            fields = parse_json_object(call.arguments)
        except ArgumentsError as exc:
            self.refuse(call, step, str(exc), exc.key)
            return None
        return self.submit(fields, call, step)


async def direct_agent_forward(
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
) -> RLMResult[T]:
    """Answer from the documents in the prompt (the same arguments and result as
    ``rlm_agent_forward``; there are no sub-calls, functions or sandbox to use them).

    ``MaxStepsError`` when ``DIRECT_MAX_STEPS`` turns give no valid output (nothing was
    explored, so nothing is salvaged), ``AgentStuckError`` when ``STUCK_REPEATS`` in a row
    come out the same. The conversation is kept at ``store_path``."""
    del sub_client, on_notice, functions, function_docs, sub_cache, look
    spec = dataclasses.replace(spec, max_steps=min(spec.max_steps, DIRECT_MAX_STEPS))
    text = document_of(variables)
    system = build_direct_system(spec, prompt_documents(variables))
    all_inputs = {**inputs, **other_inputs(variables, spec.max_output_chars)}
    run = _DirectRun(client, spec, system, all_inputs, emit, open_store(store_path))
    if text:
        emit(TextRead(agent=spec.name, via="prompt", spans=[(0, len(text))]))
    for step in range(1, spec.max_steps + 1):
        try:
            output = await run.step(step)
        except ContextTooLongError as exc:
            raise DirectPromptTooLong(
                f"the server refused the documents ({len(text):,} characters) as too long "
                f"for the model's window, taken to be {client.context_window_tokens:,} tokens",
                provider=exc.provider,
                model=exc.model,
                hint="use --inner rlm, lcm or auto, or give the server's real window with "
                "--context-window",
            ) from exc
        if output is not None:
            return RLMResult(output, False, step, 0, DIRECT_ISOLATION)
        run.stop_if_stuck(step, 0)
    raise run.out_of_steps(0)
