"""Decomposed task mode: plan sub-tasks, run each through the task loop, merge the results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from ralph_tui.agents.structured import agent_forward
from ralph_tui.events import (
    BaseEvent,
    Emit,
    HardValidation,
    IterationStarted,
    Notice,
    RuleResult,
    RunStatus,
)
from ralph_tui.loops.context import IterationWriter, LoopResult, LoopState, RunContext
from ralph_tui.loops.iteration import IterationRecord, finish_iteration
from ralph_tui.loops.phases import PHASE_ERRORS, phase_failed, survivable
from ralph_tui.loops.task import TaskSetup, judge_task, run_task_loop
from ralph_tui.roles.aggregator import AGGREGATOR
from ralph_tui.roles.decomposer import DECOMPOSER, SubTask
from ralph_tui.traces.files import read_iterations
from ralph_tui.traces.models import IterationTrace, usage_fields
from ralph_tui.validate.feedback import constraints_from_judge, constraints_from_rules
from ralph_tui.validate.qa import all_ok
from ralph_tui.validate.task import hard_validate_task


class SubtaskWriter(IterationWriter, Protocol):
    """Where a sub-task keeps its record: its traces, and what it spent and how it ended."""

    def update_session(self, **fields: Any) -> Any: ...

    def finish(self, status: RunStatus, *, error: str | None = None, **fields: Any) -> Any: ...


SubtaskTraces = Callable[[str, str], SubtaskWriter]
"""Gives the writer of sub-task ``id`` asked ``query`` (its ``subtask-<id>/`` folder)."""


def subtask_iterations(max_iters: int) -> int:
    """A sub-task's iterations: half the run's, at least 2, never more than the run's own
    ``--maxIters`` (a bound the user set holds for every part of the run)."""
    return min(max_iters, max(2, max_iters // 2))


async def run_decomposed(
    ctx: RunContext, setup: TaskSetup, subtask_traces: SubtaskTraces
) -> LoopResult:
    """Plan, run each sub-task, merge. Without a plan the task runs whole, as without
    ``--decompose``: the decomposer's failure is reported, not fatal."""
    try:
        async with ctx.phase(0, "decompose"):
            plan = await agent_forward(
                ctx.clients.generate, ctx.role(DECOMPOSER), {"task": ctx.query}, ctx.emit
            )
    except PHASE_ERRORS as exc:
        if not survivable(exc):
            raise
        ctx.emit(
            Notice(
                level="warning",
                message=f"decomposer_error: no plan ({exc}); running the task whole",
            )
        )
        return await run_task_loop(ctx, setup, LoopState())
    order = plan.execution_order()
    ctx.emit(
        Notice(
            level="info",
            message="Plan: " + " → ".join(f"{s.id} {s.title}" for s in order),
        )
    )
    results: list[dict[str, Any]] = []
    for subtask in order:
        results.append(await run_subtask(ctx, setup, subtask, results, subtask_traces))
    return await aggregate(ctx, setup, order, results)


async def run_subtask(
    ctx: RunContext,
    setup: TaskSetup,
    subtask: SubTask,
    done: list[dict[str, Any]],
    subtask_traces: SubtaskTraces,
) -> dict[str, Any]:
    ctx.emit(Notice(level="info", message=f"Sub-task {subtask.id}: {subtask.title}"))
    upstream = [r for r in done if r["id"] in subtask.depends_on]
    constraints = [
        f"Build on sub-task {r['id']} ({r['title']}): {str(r['output'])[:600]}" for r in upstream
    ]
    settings = ctx.settings.model_copy(
        update={"max_iters": subtask_iterations(ctx.settings.max_iters)}
    )
    writer = subtask_traces(subtask.id, subtask.description)
    sub_ctx = replace(
        ctx,
        settings=settings,
        query=f"{subtask.description} (part of the task: {ctx.query})",
        traces=writer,
        emit=_tag_subtask(ctx, subtask.id),
    )
    sub_setup = TaskSetup(mem_path=setup.mem_path.parent / f"subtask-{subtask.id}" / "context.md")
    before = ctx.clients.ledger.snapshot()
    try:
        result = await run_task_loop(sub_ctx, sub_setup, LoopState(constraints=constraints))
    finally:
        # Sub-tasks run one after another, so what the ledger gained is this one's.
        spent = usage_fields(ctx.clients.ledger.snapshot().since(before))
        writer.update_session(**spent)
    writer.finish(result.status, iterations=result.iterations, error=result.error)
    output = (result.output or {}).get("output", "")
    merged = {"id": subtask.id, "title": subtask.title, "status": result.status, "output": output}
    if result.status != "passed":
        merged["why"] = why_not_passed(read_iterations(writer.folder))
    return merged


def why_not_passed(traces: list[IterationTrace]) -> str:
    """Why a sub-task did not pass, from its last iteration: the phase that failed, else the
    checks that failed and the judge's issues."""
    if not traces:
        return "no iteration finished"
    last = traces[-1]
    if last.failure_tag:
        return last.failure_tag
    reasons = [f"{rule.name}: {rule.message}" for rule in last.hard_validation.rules if not rule.ok]
    reasons += [f"judge: {issue.message}" for issue in (last.judge.issues if last.judge else [])]
    return "; ".join(reasons) or "not passed"


def check_subtasks_passed(results: list[dict[str, Any]]) -> RuleResult:
    """The merged result stands only on sub-tasks that passed: each one that did not is
    named, with why."""
    failed = [r for r in results if r["status"] != "passed"]
    if not failed:
        return RuleResult(
            name="subtasks_passed", ok=True, message=f"all {len(results)} sub-tasks passed"
        )
    named = "; ".join(f"{r['id']} {r['title']!r} {r['status']} ({r['why']})" for r in failed)
    return RuleResult(
        name="subtasks_passed",
        ok=False,
        message=f"{len(failed)} of {len(results)} sub-tasks did not pass, so what they add "
        f"is unverified: {named}",
    )


def _tag_subtask(ctx: RunContext, subtask_id: str) -> Emit:
    def emit(event: BaseEvent) -> None:
        if isinstance(event, IterationStarted):
            event = event.model_copy(update={"subtask_id": subtask_id})
        ctx.emit(event)

    return emit


async def aggregate(
    ctx: RunContext, setup: TaskSetup, order: list[SubTask], results: list[dict[str, Any]]
) -> LoopResult:
    """Merge the sub-task outputs, then check coverage and judge the merged result."""
    record = IterationRecord(iteration=1, query=ctx.query, constraints=[])
    record.extra["subtasks"] = results
    summary = "Merged sub-tasks: " + "; ".join(f"{r['id']} {r['status']}" for r in results)
    brief = "\n\n".join(str(r["output"]) for r in results)
    try:
        async with ctx.phase(1, "aggregate") as timing:
            merged = await agent_forward(
                ctx.clients.generate,
                ctx.role(AGGREGATOR),
                {"task": ctx.query, "subtask_results": results},
                ctx.emit,
            )
    except PHASE_ERRORS as exc:
        # What the iteration had: the sub-tasks' outputs, unmerged and unverified.
        record.output = {"output": brief, "memoryUpdate": summary}
        finish_iteration(ctx, phase_failed(record, "aggregator_error", exc))
        return LoopResult("failed", 1, record.output)
    record.timings["aggregateMs"] = timing["ms"]
    # Only a sub-task that passed can be covered; the others fail ``subtasks_passed``.
    passed = {r["id"] for r in results if r["status"] == "passed"}
    titles = [f"{s.title}: {s.description}" for s in order if s.id in passed]
    record.output = {"output": merged.output, "memoryUpdate": summary}
    rules = hard_validate_task(merged.output, summary, brief, subtasks=titles or None)
    rules.append(check_subtasks_passed(results))
    record.hard = rules
    ctx.emit(HardValidation(iteration=1, ok=all_ok(rules), rules=rules))
    record.feedback = constraints_from_rules(rules)
    if all_ok(rules):
        try:
            issues = await judge_task(ctx, record, brief, "", merged.output)
        except PHASE_ERRORS as exc:
            phase_failed(record, "judge_error", exc)
        else:
            record.feedback += constraints_from_judge(issues, "task")
    record.passed = record.judged_pass(rules)
    finish_iteration(ctx, record)
    return LoopResult("passed" if record.passed else "failed", 1, record.output)
