"""The offline baseline: deterministic, and honest in every role it plays."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ralph_tui.agents.output_tool import output_tool, rlm_tool
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.llm.prompt_io import render_input
from ralph_tui.llm.types import ChatMessage, ToolDefinition
from ralph_tui.memory.compaction import build_compaction_prompt
from ralph_tui.roles.compactor import CompactorOutput
from ralph_tui.roles.decomposer import Plan
from ralph_tui.roles.judge import JudgeOutput
from ralph_tui.roles.task_judge import TaskJudgeOutput
from ralph_tui.roles.task_reasoner import TaskOutput
from ralph_tui.roles.worker import QAOutput
from tests.offline.judging import judge_input, judgement_of

SAMPLE = Path(__file__).parents[2] / "ralph_tui" / "data" / "sample_document.md"


def conversation(fields: dict[str, Any]) -> list[ChatMessage]:
    return [
        ChatMessage(role="system", content="You are a role."),
        ChatMessage(role="user", content=render_input(fields)),
    ]


async def play(tool: ToolDefinition, messages: list[ChatMessage]) -> dict[str, Any]:
    completion = await OfflineClient().chat(messages, tools=[tool])
    assert completion.tool_calls and completion.tool_calls[0].name == tool.name
    result: dict[str, Any] = json.loads(completion.tool_calls[0].arguments)
    return result


def tool_for(model: type[BaseModel]) -> ToolDefinition:
    return output_tool(model, "Submit.")


async def run_worker(
    query: str,
    document: str,
    constraints: list[str] | None = None,
    functions: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Drive the offline worker through its code steps, running each cell in-process with
    ``context`` and the sandbox ``functions`` (``retrieve``) given."""
    messages = conversation({"query": query, "constraints": constraints or []})
    tool = rlm_tool(QAOutput)
    for _ in range(4):
        args = await play(tool, messages)
        messages.append(
            ChatMessage(
                role="assistant",
                tool_calls=[
                    {"id": f"c{len(messages)}", "name": tool.name, "arguments": json.dumps(args)}
                ],  # type: ignore[list-item]
            )
        )
        action = args["action"]
        if action.get("resultReady"):
            return dict(action)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(action["code"], {"context": document, **(functions or {})})
        messages.append(
            ChatMessage(
                role="tool", tool_call_id=f"c{len(messages) - 1}", content=printed.getvalue()
            )
        )
    raise AssertionError("the offline worker never submitted")


async def test_worker_quotes_are_verbatim_and_on_topic() -> None:
    document = SAMPLE.read_text(encoding="utf-8")
    result = await run_worker("How often are the filters backwashed?", document)
    assert 3 <= len(result["evidence"]) <= 8
    for quote in result["evidence"]:
        assert quote in document and len(quote) <= 160
    assert any("backwash" in q.lower() for q in result["evidence"])
    bullets = result["answer"].splitlines()
    assert 3 <= len(bullets) <= 7 and all(b.startswith("- ") for b in bullets)


async def test_worker_is_deterministic() -> None:
    document = SAMPLE.read_text(encoding="utf-8")
    query = "What is the chlorine residual target?"
    assert await run_worker(query, document) == await run_worker(query, document)


async def test_worker_first_step_never_contains_the_document() -> None:
    args = await play(rlm_tool(QAOutput), conversation({"query": "turbidity limit"}))
    action = args["action"]
    assert set(action) == {"code"} and "context" in action["code"]
    assert "Aldermoor" not in action["code"]


async def test_qa_judge_gives_each_line_a_verdict_from_its_own_quotes() -> None:
    window = "The filters are backwashed every 48 hours or when head loss reaches 2.1 m."
    quote = "The filters are backwashed every 48 hours"
    answer = (
        "- Filters are backwashed every 48 hours.\n"
        "- Filters are backwashed every 48 hours by outside contractors using ladders.\n"
        "- Pumps are painted green weekly."
    )
    output = {"answer": answer, "evidence": [quote], "lineQuotes": [[1], [1], [1]]}
    fields = judge_input("filters backwashed", output, windows=[window])
    assert fields["lines"][0]["quotes"] == [{"number": 1, "quote": quote, "window": window}]
    reply = JudgeOutput.model_validate(await play(tool_for(JudgeOutput), conversation(fields)))
    assert [line.verdict for line in reply.lines] == [
        "supported",
        "partly_supported",
        "unsupported",
    ]
    assert "contractor" in reply.lines[1].missing and "ladder" in reply.lines[1].missing
    assert "paint" in reply.lines[2].missing and "pump" in reply.lines[2].missing
    judgement = judgement_of(reply.model_dump(), fields)
    assert not judgement.ok
    assert judgement.issues[0].startswith("Line 2 is partly supported (the quotes do not show:")
    assert judgement.issues[1].startswith("Line 3 is unsupported")

    output = {"answer": "- Filters are backwashed every 48 hours.", "evidence": [quote]}
    fields = judge_input("filters backwashed", {**output, "lineQuotes": [[1]]}, [window])
    reply = JudgeOutput.model_validate(await play(tool_for(JudgeOutput), conversation(fields)))
    judgement = judgement_of(reply.model_dump(), fields)
    assert judgement.ok and judgement.issues == []
    assert [claim.verdict for claim in judgement.claims] == ["supported"]


async def test_task_judge_categorizes_issues() -> None:
    fields = {
        "task": "Summarize the alarm escalation and the staffing rota",
        "output": "Unicorns manage the reservoir using telepathy every morning.",
        "brief": "Alarms escalate to the duty manager after 10 minutes.",
    }
    verdict = TaskJudgeOutput.model_validate(
        await play(tool_for(TaskJudgeOutput), conversation(fields))
    )
    categories = {issue.category for issue in verdict.issues}
    assert verdict.ok == "no"
    assert {"unsupported_claim", "missing_scope", "low_specificity"} <= categories


async def test_reasoner_composes_only_from_the_brief() -> None:
    brief = (
        "Passages of the document relevant to the task:\n"
        "- Alarms escalate to the duty manager after 10 minutes.\n"
        "- The reservoir holds two days of supply.\n"
        "- Shift teams work 12-hour shifts on the alarm rota."
    )
    fields = {"task": "Describe the alarm escalation", "brief": brief}
    out = TaskOutput.model_validate(await play(tool_for(TaskOutput), conversation(fields)))
    lines = [line[2:] for line in out.output.splitlines() if line.startswith("- ")]
    assert lines and all(line in brief for line in lines)
    assert "alarm" in out.memoryUpdate.lower()


async def test_decomposer_plan_is_a_valid_dag() -> None:
    fields = {"task": "List the incidents; then summarize the maintenance schedule."}
    plan = Plan.model_validate(await play(tool_for(Plan), conversation(fields)))
    assert 2 <= len(plan.subtasks) <= 5
    assert [s.id for s in plan.execution_order()] == [s.id for s in plan.subtasks]


async def test_sub_query_answers_from_the_passed_slice_only() -> None:
    client = OfflineClient()
    prompt = "What is the backwash interval?\n\n---\nThe filters are backwashed every 48 hours."
    answer = await client.chat([ChatMessage(role="user", content=prompt)])
    assert answer.text == "The filters are backwashed every 48 hours."
    empty = await client.chat([ChatMessage(role="user", content="What is the interval?")])
    assert "No text was passed" in empty.text


async def test_compactor_reads_the_rendered_compaction_prompt() -> None:
    episodes = [
        {"iteration": 1, "memoryUpdate": "Backwash runs every 48 hours. More detail later."},
        {"iteration": 2, "memoryUpdate": "Chlorine target is 0.5 mg/L."},
    ]
    prompt = build_compaction_prompt(episodes, 1500)
    fields = {"episodes": prompt, "budget_chars": 1500}
    out = CompactorOutput.model_validate(
        await play(tool_for(CompactorOutput), conversation(fields))
    )
    assert out.summary == "Backwash runs every 48 hours. Chlorine target is 0.5 mg/L."
