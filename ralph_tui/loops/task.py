"""The task loop: DocReader (RLM) → TaskReasoner → memory → hard checks → TaskJudge → retry."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph_tui.agents.agent_run import AgentVariable
from ralph_tui.agents.structured import agent_forward
from ralph_tui.events import (
    CandidateProduced,
    HardValidation,
    IterationStarted,
    JudgeIssue,
    JudgeVerdict,
    MemoryUpdated,
)
from ralph_tui.loops.context import LoopResult, LoopState, RunContext
from ralph_tui.loops.iteration import (
    IterationRecord,
    ended_with_best,
    finish_iteration,
    merge_constraints,
)
from ralph_tui.loops.no_progress import Asked, stop_repeating
from ralph_tui.loops.phases import PHASE_ERRORS, phase_failed
from ralph_tui.memory.compaction import maybe_compact
from ralph_tui.memory.context_file import append_memory, memory_findings, read_memory
from ralph_tui.memory.episodes import EpisodeStore
from ralph_tui.roles.compactor import COMPACTOR
from ralph_tui.roles.doc_reader import Brief, doc_reader_spec
from ralph_tui.roles.task_judge import TASK_JUDGE
from ralph_tui.roles.task_reasoner import TASK_REASONER
from ralph_tui.validate.feedback import (
    constraints_from_judge,
    constraints_from_rules,
    doc_reader_hints,
)
from ralph_tui.validate.passages import RULE as PASSAGES_RULE
from ralph_tui.validate.passages import marked_passages, passage_claims
from ralph_tui.validate.qa import all_ok
from ralph_tui.validate.task import hard_validate_task


@dataclass
class TaskSetup:
    """Task-mode specifics: where memory lives, and the sub-tasks to cover when decomposing."""

    mem_path: Path
    subtasks: list[str] | None = None


async def run_task_loop(ctx: RunContext, setup: TaskSetup, state: LoopState) -> LoopResult:
    """Iterate until an output passes the hard checks and the judge, or ``maxIters``, or an
    iteration repeats the one before with nothing new in memory (see ``no_progress``)."""
    records: list[IterationRecord] = []
    asked = Asked.first(state, memory_findings(read_memory(setup.mem_path)))
    last = state.next_iteration - 1
    for iteration in range(state.next_iteration, ctx.settings.max_iters + 1):
        last = iteration
        record = await task_iteration(
            ctx, setup, iteration, list(asked.constraints), list(asked.hints), asked.previous
        )
        records.append(record)
        if record.passed:
            return LoopResult("passed", iteration, record.output)
        then = asked.after(
            record,
            merge_constraints(state.constraints, record.feedback),
            record.extra.get("docReaderHints", []),
            memory_findings(read_memory(setup.mem_path)),
        )
        if (repeating := stop_repeating(ctx, records, asked, then)) is not None:
            return repeating
        asked = then
    return ended_with_best("failed", last, records, otherwise=asked.previous)


async def task_iteration(
    ctx: RunContext,
    setup: TaskSetup,
    iteration: int,
    constraints: list[str],
    hints: list[str],
    previous: dict[str, Any] | None,
) -> IterationRecord:
    ctx.emit(
        IterationStarted(
            iteration=iteration, max_iters=ctx.settings.max_iters, constraints=constraints
        )
    )
    record = IterationRecord(iteration=iteration, query=ctx.query, constraints=constraints)
    record.extra["docReaderHintsUsed"] = hints
    memory = read_memory(setup.mem_path)
    try:
        brief = await read_document(ctx, record, memory, hints, setup.mem_path)
    except PHASE_ERRORS as exc:
        return finish_iteration(ctx, phase_failed(record, "doc_reader_error", exc))
    try:
        produced = await reason(ctx, record, brief, memory, previous)
    except PHASE_ERRORS as exc:
        return finish_iteration(ctx, phase_failed(record, "reasoner_error", exc))
    output, memory_update = produced["output"], produced["memoryUpdate"]
    try:
        memory = await remember(ctx, setup, record, brief, output, memory_update)
    except PHASE_ERRORS as exc:
        phase_failed(record, "memory_error", exc)
    except OSError as exc:
        phase_failed(record, "memory_error", exc)
    rules = hard_validate_task(
        output, memory_update, brief.brief, subtasks=setup.subtasks, passages=record.quotes
    )
    record.hard = rules
    ctx.emit(HardValidation(iteration=iteration, ok=all_ok(rules), rules=rules))
    record.feedback += constraints_from_rules(rules)
    issues: list[JudgeIssue] = []
    if all_ok(rules):
        try:
            issues = await judge_task(ctx, record, brief.brief, memory, output, brief.passages)
        except PHASE_ERRORS as exc:
            phase_failed(record, "judge_error", exc)
        record.feedback += constraints_from_judge(issues, "task")
    # A passage not in the document is the DocReader's to fix: its constraint is a hint too.
    passage_hints = constraints_from_rules(r for r in rules if r.name == PASSAGES_RULE)
    record.extra["docReaderHints"] = passage_hints + (doc_reader_hints(issues) if issues else hints)
    record.passed = record.judged_pass(rules)
    return finish_iteration(ctx, record)


async def read_document(
    ctx: RunContext, record: IterationRecord, memory: str, hints: list[str], mem_path: Path
) -> Brief:
    """The DocReader's brief; where each of its passages stands is kept in ``record.quotes``
    (a passage numbered as its ``[Pn]`` marker, ``missing`` when not in the document)."""
    inputs: dict[str, Any] = {"task": ctx.query, "docReaderHints": hints}
    variables = {
        **ctx.sandbox_documents("The document (all of them, joined)."),
        "memory": AgentVariable(memory, "Findings of earlier iterations (may be empty)."),
    }
    async with ctx.phase(record.iteration, "doc_reader") as timing:
        inputs["retrievedContext"] = await retrieve_for_reader(ctx, record, hints, mem_path)
        result = await ctx.explore(
            doc_reader_spec(ctx.settings), inputs, variables, record.iteration
        )
    record.timings["docReaderMs"] = timing["ms"]
    record.fallback = result.fallback
    record.isolation = result.isolation
    record.extra["brief"] = result.output.brief
    record.extra["briefLen"] = len(result.output.brief)
    record.quotes = ctx.quote_locations(result.output.passages)
    return result.output


async def retrieve_for_reader(
    ctx: RunContext, record: IterationRecord, hints: list[str], mem_path: Path
) -> str:
    """The retrieval pre-phase: the passages (of the document and past episodes) best
    matching the task and the last iteration's DocReader hints, each under its label."""
    started = time.perf_counter()
    retrieval = await ctx.retrieval()
    retrieval.iteration = record.iteration
    await retrieval.add_episodes(EpisodeStore(mem_path.parent).load())
    query = " ".join([ctx.query, *hints])
    result = await retrieval.search(query, "prephase")
    passages = [passage.to_json() for passage in result.passages]
    ctx.coverage_tracker(record.iteration).add_retrieved(query, passages)
    record.timings["retrievalMs"] = (time.perf_counter() - started) * 1000
    return result.context_text()


async def reason(
    ctx: RunContext,
    record: IterationRecord,
    brief: Brief,
    memory: str,
    previous: dict[str, Any] | None,
) -> dict[str, str]:
    """The reasoner's output and memory update; its statements with the passages they cite
    are kept in ``record.claims``."""
    inputs: dict[str, Any] = {
        "task": ctx.query,
        "brief": brief.brief,
        "passages": marked_passages(brief.passages),
        "memory": memory,
        "constraints": record.constraints,
    }
    if previous:
        inputs["previous_output"] = previous
    async with ctx.phase(record.iteration, "reasoner") as timing:
        produced = await agent_forward(
            ctx.clients.generate, ctx.role(TASK_REASONER), inputs, ctx.emit
        )
    record.timings["reasonerMs"] = timing["ms"]
    record.output = produced.model_dump()
    record.extra["outputLen"] = len(produced.output)
    record.claims = passage_claims(produced.output)
    ctx.emit(
        CandidateProduced(
            iteration=record.iteration,
            output=record.output,
            quotes=record.quotes,
            claims=record.claims,
        )
    )
    return {"output": produced.output, "memoryUpdate": produced.memoryUpdate}


async def remember(
    ctx: RunContext,
    setup: TaskSetup,
    record: IterationRecord,
    brief: Brief,
    output: str,
    memory_update: str,
) -> str:
    """Append to the memory file and the episode log; compact when the episodes pile up."""
    budget = ctx.settings.memory_budget_chars
    async with ctx.phase(record.iteration, "memory") as timing:
        written = append_memory(
            setup.mem_path, memory_update, record.iteration, budget_chars=budget
        )
        episodes = EpisodeStore(setup.mem_path.parent)
        episodes.append(
            {
                "iteration": record.iteration,
                "task": ctx.query,
                "brief": brief.brief,
                "output": output,
                "memoryUpdate": memory_update,
            }
        )

        async def summarize(prompt: str) -> str:
            inputs = {"episodes": prompt, "budget_chars": budget}
            return (
                await agent_forward(ctx.clients.generate, ctx.role(COMPACTOR), inputs, ctx.emit)
            ).summary

        compacted = await maybe_compact(
            episodes,
            setup.mem_path,
            threshold=ctx.settings.compact_after_episodes,
            budget_chars=budget,
            summarize=summarize,
        )
    record.timings["memoryMs"] = timing["ms"]
    memory = read_memory(setup.mem_path)
    ctx.emit(
        MemoryUpdated(
            path=str(setup.mem_path),
            chars=len(memory),
            trimmed_blocks=written.trimmed_blocks,
            compacted=compacted,
        )
    )
    return memory


async def judge_task(
    ctx: RunContext,
    record: IterationRecord,
    brief: str,
    memory: str,
    output: str,
    passages: Sequence[str] = (),
) -> list[JudgeIssue]:
    """The judge's issues with the output, given the brief and the passages it cites."""
    inputs = {
        "task": ctx.query,
        "output": output,
        "brief": brief,
        "passages": marked_passages(passages),
        "memory": memory,
    }
    async with ctx.phase(record.iteration, "judge") as timing:
        verdict = await agent_forward(ctx.clients.validate, ctx.role(TASK_JUDGE), inputs, ctx.emit)
    record.timings["judgeMs"] = timing["ms"]
    issues = [JudgeIssue(message=i.message, category=i.category) for i in verdict.issues]
    record.judge_ok = verdict.ok == "yes" and not issues
    record.judge_issues = issues
    ctx.emit(JudgeVerdict(iteration=record.iteration, ok=record.judge_ok, issues=issues))
    return issues
