"""The QA "Ralph" loop: worker (RLM) → hard checks → judge → constraints → retry."""

from __future__ import annotations

from typing import Any

from ralph_tui.agents.structured import agent_forward
from ralph_tui.events import (
    CandidateProduced,
    HardValidation,
    IterationStarted,
    JudgeIssue,
    JudgeVerdict,
)
from ralph_tui.evidence import Claim
from ralph_tui.loops.context import LoopResult, LoopState, RunContext
from ralph_tui.loops.iteration import (
    IterationRecord,
    ended_with_best,
    finish_iteration,
    merge_constraints,
)
from ralph_tui.loops.no_progress import Asked, stop_repeating
from ralph_tui.loops.phases import PHASE_ERRORS, phase_failed
from ralph_tui.roles.judge import JUDGE, JudgeOutput
from ralph_tui.roles.worker import QAOutput, worker_spec
from ralph_tui.validate.claims import LineJudgement, judge_claims, link_claims
from ralph_tui.validate.evidence import EvidenceMinimum
from ralph_tui.validate.feedback import constraints_from_judge, constraints_from_rules
from ralph_tui.validate.qa import all_ok, evidence_windows, hard_validate_qa


async def run_qa_loop(ctx: RunContext, state: LoopState) -> LoopResult:
    """Iterate until a candidate passes both the hard checks and the judge, or ``maxIters``,
    or an iteration repeats the one before (see ``no_progress``)."""
    records: list[IterationRecord] = []
    asked = Asked.first(state)
    last = state.next_iteration - 1
    for iteration in range(state.next_iteration, ctx.settings.max_iters + 1):
        last = iteration
        record = await qa_iteration(ctx, iteration, list(asked.constraints), asked.previous)
        records.append(record)
        if record.passed:
            return LoopResult("passed", iteration, record.output)
        then = asked.after(record, merge_constraints(state.constraints, record.feedback))
        if (repeating := stop_repeating(ctx, records, asked, then)) is not None:
            return repeating
        asked = then
    return ended_with_best("failed", last, records, otherwise=asked.previous)


async def qa_iteration(
    ctx: RunContext, iteration: int, constraints: list[str], previous: dict[str, Any] | None
) -> IterationRecord:
    ctx.emit(
        IterationStarted(
            iteration=iteration, max_iters=ctx.settings.max_iters, constraints=constraints
        )
    )
    record = IterationRecord(iteration=iteration, query=ctx.query, constraints=constraints)
    inputs: dict[str, Any] = {"query": ctx.query, "constraints": constraints}
    if previous:
        inputs["previous_output"] = previous
    try:
        async with ctx.phase(iteration, "worker") as timing:
            result = await ctx.explore(
                worker_spec(ctx.settings),
                inputs,
                ctx.sandbox_documents("The document to answer from (all of them, joined)."),
                iteration,
            )
    except PHASE_ERRORS as exc:
        record.timings["workerMs"] = timing.get("ms", 0.0)
        return finish_iteration(ctx, phase_failed(record, "worker_error", exc))
    record.timings["workerMs"] = timing["ms"]
    record.output = result.output.model_dump()
    record.fallback = result.fallback
    record.isolation = result.isolation
    record.quotes = ctx.quote_locations(list(result.output.evidence))
    record.claims = link_claims(result.output.answer, result.output.lineQuotes)
    ctx.emit(
        CandidateProduced(
            iteration=iteration,
            output=record.output,
            fallback=result.fallback,
            quotes=record.quotes,
            claims=record.claims,
        )
    )
    rules = hard_validate_qa(
        result.output.answer,
        result.output.evidence,
        ctx.document,
        EvidenceMinimum.of(ctx.settings),
        ctx.external_texts(),
        result.output.lineQuotes,
    )
    record.hard = rules
    ctx.emit(HardValidation(iteration=iteration, ok=all_ok(rules), rules=rules))
    record.feedback = constraints_from_rules(rules)
    if all_ok(rules):
        try:
            issues = await judge_answer(ctx, iteration, record, result.output)
        except PHASE_ERRORS as exc:
            phase_failed(record, "judge_error", exc)
        else:
            record.feedback += constraints_from_judge(issues, "qa")
    record.passed = record.judged_pass(rules)
    return finish_iteration(ctx, record)


async def judge_answer(
    ctx: RunContext, iteration: int, record: IterationRecord, candidate: QAOutput
) -> list[JudgeIssue]:
    """Ask the judge for a verdict on each answer line, given the quotes the line names
    and the document's window around each; its ok and issues follow from those verdicts."""
    if ctx.clients.validate.provider == "offline":
        # The keyless judge weighs the question's terms by their rarity in the index.
        await ctx.retrieval()
    windows = evidence_windows(
        ctx.document,
        candidate.evidence,
        width=220,
        bounds=ctx.evidence_bounds(),
        external=ctx.external_texts(),
    )
    async with ctx.phase(iteration, "judge") as timing:
        verdict = await agent_forward(
            ctx.clients.validate,
            ctx.role(JUDGE),
            {"query": ctx.query, "lines": judge_lines(record.claims, candidate.evidence, windows)},
            ctx.emit,
        )
    record.timings["judgeMs"] = timing["ms"]
    judgement = judge_claims(record.claims, line_judgements(verdict), verdict.issues)
    issues = [JudgeIssue(message=text) for text in judgement.issues]
    record.claims = judgement.claims
    record.judge_ok = judgement.ok
    record.judge_issues = issues
    ctx.emit(
        JudgeVerdict(iteration=iteration, ok=judgement.ok, issues=issues, claims=judgement.claims)
    )
    return issues


def judge_lines(
    claims: list[Claim], evidence: list[str], windows: list[str]
) -> list[dict[str, Any]]:
    """The answer's lines as the judge reads them: each with its quotes and their windows."""
    return [
        {
            "line": claim.line,
            "text": claim.text,
            "quotes": [
                {"number": number, "quote": evidence[number - 1], "window": windows[number - 1]}
                for number in claim.quotes
                if 1 <= number <= len(evidence)
            ],
        }
        for claim in claims
    ]


def line_judgements(verdict: JudgeOutput) -> list[LineJudgement]:
    return [LineJudgement(item.line, item.verdict, item.missing) for item in verdict.lines]
