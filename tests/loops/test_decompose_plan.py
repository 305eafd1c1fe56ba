"""Decomposition plans: order with priority tie-break, and clear errors for bad plans."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ralph_tui.agents.structured import agent_forward
from ralph_tui.llm.anthropic_client import AnthropicClient
from ralph_tui.loops.decompose import subtask_iterations
from ralph_tui.roles.decomposer import DECOMPOSER, Plan
from tests.agents.conftest import Recorder, reply_tool
from tests.llm.llm_wire import FakeAPI


def plan(*subtasks: tuple[str, list[str], int]) -> Plan:
    return Plan.model_validate(
        {
            "subtasks": [
                {"id": i, "title": i, "description": f"do {i}", "depends_on": d, "priority": p}
                for i, d, p in subtasks
            ]
        }
    )


def test_topological_order_breaks_ties_by_priority() -> None:
    order = plan(("c", ["a"], 0), ("a", [], 5), ("b", [], 1), ("d", ["b"], 0))
    assert [s.id for s in order.execution_order()] == ["b", "d", "a", "c"]


@pytest.mark.parametrize(
    ("subtasks", "message"),
    [
        ((("a", ["b"], 0), ("b", ["a"], 0)), "cycle: a -> b -> a"),
        ((("a", ["a"], 0),), "cycle: a -> a"),
        (tuple((str(i), [], 0) for i in range(6)), "6 sub-tasks is too many: at most 5"),
        ((("a", [], 0), ("b", ["a"], 0), ("c", ["b"], 0)), "3 levels deep: at most 2"),
        ((("a", ["zz"], 0),), "unknown ids ['zz']"),
        ((("a", [], 0), ("a", [], 1)), "ids must be unique"),
    ],
)
def test_bad_plans_are_rejected_with_a_message_for_the_model(
    subtasks: tuple[tuple[str, list[str], int], ...], message: str
) -> None:
    with pytest.raises(ValidationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        plan(*subtasks)


@pytest.mark.parametrize(
    ("max_iters", "expected"), [(1, 1), (2, 2), (4, 2), (5, 2), (6, 3), (9, 4)]
)
def test_subtasks_get_half_the_iterations_at_least_two_never_past_the_runs(
    max_iters: int, expected: int
) -> None:
    assert subtask_iterations(max_iters) == expected


async def test_a_cyclic_plan_goes_back_to_the_decomposer(
    api: FakeAPI, claude: AnthropicClient, events: Recorder
) -> None:
    cyclic = [
        {"id": "a", "title": "A", "description": "A", "depends_on": ["b"]},
        {"id": "b", "title": "B", "description": "B", "depends_on": ["a"]},
    ]
    reply_tool(api, {"subtasks": cyclic})
    reply_tool(api, {"subtasks": [{"id": "a", "title": "A", "description": "A"}]})
    result = await agent_forward(claude, DECOMPOSER, {"task": "t"}, events)
    assert [s.id for s in result.subtasks] == ["a"]
    feedback = api.bodies[1]["messages"][-1]["content"][0]["content"]
    assert "cycle: a -> b -> a" in feedback
