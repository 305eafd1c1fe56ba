"""``rlm_query`` / ``rlm_query_batched``: sandbox code starting child agents.

A child is the same RLM loop as its parent — the same role, output model and output
conventions — with its own sandbox over the part of the parent's text it was handed
(``slices``), its own sandbox, and the parent's budgets (``agent_tree``): every agent of one
tree takes its steps from one ``TreeSteps`` (the root's step limit is the tree's), its
sub-calls from one ``SubQueryBudget`` (a child costs one call to start), sends its requests
through the run's metered clients (one ledger, one cost and token cap), answers from the run's
sub-call cache, and runs inside its parent's cell, so a cancel or the run's timeout reaches
it wherever it is and closes its sandbox on the way out. What a child returns to its parent's
code is a plain dict; a child that fails returns its error there, never raises into the
parent, except a cap, which stops the whole tree: the parent stops after its cell as for a cap
its own call tripped. At the deepest level (``--max-depth``) ``rlm_query`` is answered by
``llm_query`` and says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph_tui.agents.agent_run import AgentVariable, RLMResult, RLMSpec
from ralph_tui.agents.agent_tree import AgentTree, TreeSteps
from ralph_tui.agents.slices import Slice, SliceRefused, slice_of
from ralph_tui.agents.structured import MaxStepsError
from ralph_tui.agents.sub_queries import SubQueryBudget, SubQueryRunner, preview
from ralph_tui.errors import CostCapReached
from ralph_tui.events import BaseEvent, ChildFinished, ChildStarted, ChildStatus, Emit, TextRead
from ralph_tui.evidence import QuoteLocation
from ralph_tui.sandbox.calls import HostFunction
from ralph_tui.traces.children import ChildRecord, write_child

CHILD_CONTEXT = "The text your parent agent handed you ({described}). Answer from it alone."
CHILD_DOCUMENTS = (
    "The documents your `context` joins (those your parent agent handed you), with the same "
    "keys as the run's table: `name`, `path`, `format`, `start`, `end`, `pages`, `headings`; "
    "spans index into your `context`."
)
QUOTE_FIELDS = ("evidence", "passages")
"""The output fields that hold quotes of the documents (QA's evidence, a brief's passages):
a child's are located in the run's documents for its parent."""
MAX_PROMPT_CHARS = 20_000
"""A child's question at most (the text it explores goes in ``context``, not the prompt)."""
MAX_BATCH = 256
"""Items one ``rlm_query_batched`` call may hold (the sub-call budget refuses most sooner)."""

Forward = Callable[..., Awaitable[RLMResult[Any]]]
"""The RLM loop, as a child runs it (``rlm.rlm_agent_forward``)."""


def rlm_query_docs(tree: AgentTree, concurrency: int) -> list[str]:
    """The prompt's lines for ``rlm_query`` and ``rlm_query_batched`` at ``tree``'s level."""
    shape = (
        "It returns a dict: `answer` (its answer), `output` (all its output fields), `quotes` "
        "(where each of its quotes stands in the documents), `error` (None, or why it failed), "
        "`note`, `steps_left` (the steps you and all your children still have together)."
    )
    if tree.deepest:
        query = (
            "`rlm_query(prompt, context=None) -> dict`: you are at the deepest level (depth "
            f"{tree.depth} of --max-depth {tree.shared.max_depth}), so no child agent starts: "
            "`llm_query` answers over `context` (a string, or a list of document names whose "
            f"text is passed) and `note` says so. {shape}"
        )
    else:
        query = (
            "`rlm_query(prompt, context=None) -> dict`: start a child agent (depth "
            f"{tree.depth + 1} of {tree.shared.max_depth}) that explores `context` as you "
            "explore yours, with its own sandbox: a string (a slice of text), or a list of "
            "document names (its `documents`, `grep` and `retrieve` then see only those); "
            f"None gives it your whole `context`. {shape} A child costs one `llm_query` call; "
            "its steps come out of your turns (one count of turns for the whole tree), and "
            "its calls, tokens and cost count in the same budgets. Use it for a part too "
            "large or too involved for one `llm_query`."
        )
    batched = (
        "`rlm_query_batched(items) -> list[dict]`: several `rlm_query` calls at once (each "
        f"item a prompt string or a `[prompt, context]` pair), at most {concurrency} running "
        "at a time; a failed item has its `error` set."
    )
    return [query, batched]


@dataclass
class Parent:
    """What a child takes from the agent that starts it."""

    name: str
    client: Any
    sub_client: Any
    spec: RLMSpec[Any]
    inputs: dict[str, Any]
    variables: dict[str, AgentVariable]
    emit: Emit
    runner: SubQueryRunner
    step: Callable[[], int]
    """The parent's current step (the one whose cell is calling)."""
    functions: dict[str, HostFunction] = field(default_factory=dict)
    """Host functions the parent was given beside its own (``retrieve``)."""
    function_docs: Sequence[str] = ()
    options: dict[str, Any] = field(default_factory=dict)
    """What else the parent's loop was called with (``on_notice``, ``sub_cache``, ``look``)."""


class ChildCalls:
    """The host side of ``rlm_query`` and ``rlm_query_batched`` for one agent."""

    def __init__(self, tree: AgentTree, parent: Parent, forward: Forward) -> None:
        self.tree = tree
        self.parent = parent
        self.forward = forward
        self.started: dict[int, int] = {}
        """Children started so far at each of the parent's steps."""

    def functions(self) -> dict[str, HostFunction]:
        return {"rlm_query": self.query, "rlm_query_batched": self.query_batched}

    @property
    def budget(self) -> SubQueryBudget:
        return self.parent.runner.budget

    async def query(self, prompt: object, context: object = None) -> dict[str, Any]:
        """One child (or, at the deepest level, one ``llm_query``); failures come back as
        the dict's ``error``, never as exceptions."""
        answered = await self._query(prompt, context)
        return {**answered, "steps_left": self._steps_left()}

    async def _query(self, prompt: object, context: object) -> dict[str, Any]:
        if not isinstance(prompt, str) or not prompt.strip():
            return failed("[error] rlm_query takes a prompt string")
        if len(prompt) > MAX_PROMPT_CHARS:
            return failed(
                f"[error] rlm_query's prompt is {len(prompt):,} characters, past "
                f"{MAX_PROMPT_CHARS:,}: ask a short question and pass the text as `context`"
            )
        try:
            part = slice_of(context, self._text(), self._table())
        except SliceRefused as exc:
            return failed(f"[error] rlm_query: {exc}")
        if self.tree.deepest:
            return await self._answered_by_llm_query(prompt, part)
        if self.budget.cost_cap_hit is not None:
            return failed("[error] The run's cost cap was reached. Finish now with what you have.")
        steps = self._steps_for_child()
        if steps < 1:
            return failed(
                f"[error] The turns of this tree of agents ({self._steps().limit} in all, "
                "children's included) are spent: no child can start. Finish with what you have "
                "and set resultReady."
            )
        if not self.budget.take():
            return failed(
                f"[error] The llm_query budget ({self.budget.limit} calls, each rlm_query "
                "counting one) is exhausted. Finish with what you have and set resultReady."
            )
        return await self._child(prompt, part, steps)

    async def query_batched(self, items: object) -> list[dict[str, Any]]:
        """Several ``rlm_query`` calls at once; one failing does not sink the others."""
        if not isinstance(items, list) or len(items) > MAX_BATCH:
            return [failed(f"[error] rlm_query_batched takes a list of at most {MAX_BATCH} items")]
        return list(await asyncio.gather(*(self._item(item) for item in items)))

    async def _item(self, item: object) -> dict[str, Any]:
        if isinstance(item, str):
            return await self.query(item)
        if isinstance(item, list | tuple) and len(item) == 2:
            return await self.query(item[0], item[1])
        return failed("[error] each item must be a prompt string or a [prompt, context] pair")

    def _text(self) -> str:
        context = self.parent.variables.get("context")
        return str(context.value) if context is not None else ""

    def _table(self) -> object:
        table = self.parent.variables.get("documents")
        return table.value if table is not None else None

    async def _answered_by_llm_query(self, prompt: str, part: Slice) -> dict[str, Any]:
        note = (
            f"rlm_query at depth {self.tree.depth}, the deepest level (--max-depth "
            f"{self.tree.shared.max_depth}): answered by llm_query over {part.described}, "
            "not by a child agent"
        )
        step = self.parent.step()
        name = self._name(step)
        self._emit_started(name, step, prompt, part, "")
        started = time.perf_counter()
        # Reported as the rlm_query's own, so the app shows the sub-call in its fold.
        answer = await self.parent.runner.speaking_for(name).query(prompt, part.text)
        error = answer if answer.startswith("[error]") else None
        self._emit_finished(
            name, step, "failed" if error else "llm_query", answer, error, 0, started
        )
        if error:
            return {**failed(error), "note": note}
        return {**_empty(), "answer": answer, "note": note}

    def _steps(self) -> TreeSteps:
        return self.tree.steps_for(self.parent.spec.max_steps)

    def _steps_for_child(self) -> int:
        return self.tree.child_steps(self.parent.spec.max_steps)

    async def _child(self, prompt: str, part: Slice, steps: int) -> dict[str, Any]:
        step = self.parent.step()
        name = self._name(step)
        folder = self.tree.folder / name.rsplit("/", 1)[1] if self.tree.folder else None
        session = self.tree.shared.session
        relative = str(folder.relative_to(session)) if folder and session else ""
        self._emit_started(name, step, prompt, part, relative)
        record = ChildRecord(
            agent=name,
            parent=self.parent.name,
            step=step,
            depth=self.tree.depth + 1,
            prompt=prompt,
            context=part.described,
            started_at=time.time(),
        )
        trace = ChildTrace(folder, record)
        started = time.perf_counter()
        slot = self.tree.shared.slot(self.tree.depth + 1, self.parent.spec.sub_query_concurrency)
        try:
            async with slot:
                result = await self._run_child(name, prompt, part, folder, steps)
        except CostCapReached as exc:
            if self.budget.cost_cap_hit is None:
                self.budget.cost_cap_hit = exc
            return self._failed(trace, started, f"[error] {exc.message}")
        except MaxStepsError as exc:
            error = f"[error] {type(exc).__name__}: {exc}"
            return self._failed(trace, started, error, exc.taken)
        except Exception as exc:  # a child's failure is its parent's to read, not to die of
            return self._failed(trace, started, f"[error] {type(exc).__name__}: {exc}")
        output = result.output.model_dump()
        answer = answer_of(output)
        status: ChildStatus = "salvaged" if result.fallback else "answered"
        quotes = self._located(output)
        self._emit_finished(name, step, status, answer, None, result.steps, started)
        trace.finish(
            status, started, answer=answer, output=output, quotes=quotes, steps=result.steps
        )
        return {
            **_empty(),
            "answer": answer,
            "output": output,
            "quotes": [quote.model_dump(mode="json") for quote in quotes],
            "agent": name,
            "depth": self.tree.depth + 1,
            "steps": result.steps,
            "salvaged": result.fallback,
            "note": _salvage_note(result, steps) if result.fallback else "",
        }

    def _steps_left(self) -> int:
        """The steps this agent and its children still have together."""
        return self._steps().left_for(self.tree.depth)

    async def _run_child(
        self, name: str, prompt: str, part: Slice, folder: Path | None, steps: int
    ) -> RLMResult[Any]:
        parent = self.parent
        described = CHILD_CONTEXT.format(described=part.described)
        variables = {"context": AgentVariable(part.text, described)}
        functions: dict[str, HostFunction] = {}
        if part.table is not None:
            variables["documents"] = AgentVariable(part.table, CHILD_DOCUMENTS)
            retrieve = parent.functions.get("retrieve")
            if retrieve is not None:
                functions["retrieve"] = part.retrieve(retrieve)
        docs = [doc for doc in parent.function_docs if _names_one_of(doc, functions)]
        key = "task" if "task" in parent.inputs and "query" not in parent.inputs else "query"
        return await self.forward(
            parent.client,
            dataclasses.replace(parent.spec, name=name, max_steps=steps),
            {key: prompt},
            variables,
            sub_client=parent.sub_client,
            emit=child_emit(parent.emit, part),
            functions=functions,
            function_docs=docs,
            store_path=folder / "context.jsonl" if folder else None,
            tree=self.tree.child(folder),
            **parent.options,
        )

    def _located(self, output: dict[str, Any]) -> list[QuoteLocation]:
        """Where each quote of a child's output stands in the run's documents."""
        locate = self.tree.shared.locate
        quotes = [
            str(quote)
            for name in QUOTE_FIELDS
            if isinstance(output.get(name), list)
            for quote in output[name]
        ]
        if locate is None or not quotes:
            return []
        return locate(quotes)

    def _name(self, step: int) -> str:
        number = self.started[step] = self.started.get(step, 0) + 1
        return f"{self.parent.name}/{step}.{number}"

    def _failed(
        self, trace: ChildTrace, started: float, error: str, steps: int = 0
    ) -> dict[str, Any]:
        record = trace.record
        self._emit_finished(record.agent, record.step, "failed", "", error, steps, started)
        trace.finish("failed", started, error=error, steps=steps)
        return {**failed(error), "agent": record.agent, "depth": record.depth, "steps": steps}

    def _emit_started(self, name: str, step: int, prompt: str, part: Slice, folder: str) -> None:
        self.parent.emit(
            ChildStarted(
                agent=self.parent.name,
                child=name,
                step=step,
                depth=self.tree.depth + 1,
                prompt_preview=preview(prompt),
                context=part.described,
                folder=folder,
                calls_used=0 if self.tree.deepest else self.budget.used,
                calls_budget=0 if self.tree.deepest else self.budget.limit,
            )
        )

    def _emit_finished(
        self,
        name: str,
        step: int,
        status: ChildStatus,
        answer: str,
        error: str | None,
        steps: int,
        started: float,
    ) -> None:
        self.parent.emit(
            ChildFinished(
                agent=self.parent.name,
                child=name,
                step=step,
                depth=self.tree.depth + 1,
                status=status,
                answer_preview=preview(answer),
                error=error,
                steps=steps,
                duration_ms=(time.perf_counter() - started) * 1000,
            )
        )


class ChildTrace:
    """A child's ``child.json`` (see ``traces.children``): written as it starts and again as
    it ends; nothing when its transcript is not kept (no folder)."""

    def __init__(self, folder: Path | None, record: ChildRecord) -> None:
        self.folder = folder
        self.record = record
        self._write()

    def finish(self, status: ChildStatus, started: float, **fields: Any) -> None:
        duration_ms = (time.perf_counter() - started) * 1000
        self.record = self.record.model_copy(
            update={"status": status, "duration_ms": duration_ms, **fields}
        )
        self._write()

    def _write(self) -> None:
        if self.folder is not None:
            write_child(self.folder, self.record)


def _salvage_note(result: RLMResult[Any], allowed: int) -> str:
    """Why a child's output was salvaged: its own turns ran out, or the tree's."""
    if result.steps < allowed:
        return (
            f"salvaged: the tree's turns ran out after the child's {result.steps} of "
            f"{allowed} (its answer was drawn from what it had read)"
        )
    return f"salvaged: the child used all its {allowed} turns"


def _empty() -> dict[str, Any]:
    return {
        "answer": "",
        "output": None,
        "quotes": [],
        "error": None,
        "agent": "",
        "depth": 0,
        "steps": 0,
        "salvaged": False,
        "note": "",
    }


def failed(error: str) -> dict[str, Any]:
    """What ``rlm_query`` returns for a child that could not answer."""
    return {**_empty(), "error": error}


def answer_of(output: dict[str, Any]) -> str:
    """The text a child answered with: its ``answer`` (QA), else its first text field."""
    if isinstance(output.get("answer"), str):
        return str(output["answer"])
    return next((value for value in output.values() if isinstance(value, str)), "")


def _names_one_of(doc: str, functions: dict[str, HostFunction]) -> bool:
    """Whether a function's prompt line (`` `name(...` ``) is about one of ``functions``."""
    return any(doc.startswith(f"`{name}(") for name in functions)


def child_emit(emit: Emit, part: Slice) -> Emit:
    """The child's events, sent on as its parent's: what it read placed in the parent's text
    (a read of what stands nowhere in it, such as a header, left out)."""

    def send(event: BaseEvent) -> None:
        if isinstance(event, TextRead):
            spans = part.to_parent(event.spans)
            if not spans and not event.searches:
                return
            event = event.model_copy(update={"spans": spans})
        emit(event)

    return send
