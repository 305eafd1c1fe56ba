"""One count of steps for a tree of agents: the root's step limit is the tree's, children take
their steps from it (each no more than its level leaves), and a parent keeps the steps it
needs to read its children's answers and submit."""

from __future__ import annotations

from typing import Any

import pytest

from ralph_tui.agents.agent_run import RLMSpec
from ralph_tui.agents.agent_tree import KEPT_FOR_EACH_LEVEL, AgentTree, TreeSteps
from ralph_tui.agents.lcm_agent import lcm_agent_forward
from ralph_tui.documents.corpus import Corpus
from ralph_tui.events import AgentStep, ChildFinished, ChildStarted
from ralph_tui.llm.offline import OfflineClient
from tests.agents.conftest import Recorder
from tests.recursion.agents_api import AgentsAPI, code, tool_call
from tests.recursion.test_rlm_query import Answer, corpus, done, explore, variables

__all__ = ["corpus"]


def reading(turns: int) -> list[dict[str, Any]]:
    """Turns that run a new cell each time and never submit; each also holds an answer, which
    the salvage at the end takes."""
    return [
        {**code(f"print('reading part {n}')"), "answer": "what the child read"}
        for n in range(1, turns + 1)
    ]


def steps_by_agent(events: Recorder) -> dict[str, int]:
    """The steps each agent took (a salvage's one call at the end is not a step)."""
    taken: dict[str, int] = {}
    for event in events.of(AgentStep):
        if event.action != "fallback" and not event.agent.endswith(".fallback"):
            taken[event.agent] = max(taken.get(event.agent, 0), event.step)
    return taken


def test_a_level_leaves_steps_for_the_levels_above_it() -> None:
    steps = TreeSteps(limit=10, used=3)
    assert steps.left_for(1) == 7
    assert steps.left_for(2) == 7 - KEPT_FOR_EACH_LEVEL
    assert steps.left_for(3) == 7 - 2 * KEPT_FOR_EACH_LEVEL
    assert steps.take(3) and steps.used == 4
    steps.used = 10 - 2 * KEPT_FOR_EACH_LEVEL - 1
    assert not steps.take(3, keep=1) and steps.take(3) and steps.used == 6
    assert not steps.take(3) and steps.take(2) and steps.take(1)


async def test_a_child_takes_its_steps_from_the_roots(corpus: Corpus, events: Recorder) -> None:
    api = AgentsAPI()
    api.script(
        "ROOT-Q",
        code(
            "r = rlm_query('CHILD-LONG: read b', context=['b.md'])\n"
            "print('steps:', r['steps'], '|', r['note'], '| left:', r['steps_left'])\n"
            "print('second:', rlm_query('CHILD-TWO', context=['a.md'])['error'])"
        ),
        done("carried on"),
    )
    api.script("CHILD-LONG", *reading(20))
    result = await explore(api, corpus, events, depth=2, max_steps=8)
    assert result.output.answer == "carried on"
    seen = api.observations("ROOT-Q")[0]
    # 8 in all: the root's first step; 8 - 1 - 2 left for the child, one of them kept for
    # its salvage; 2 kept for the root.
    assert "steps: 4 | salvaged: the child used all its 4 turns | left: 2" in seen
    assert "second: [error] The turns of this tree of agents (8 in all" in seen
    assert "- 4 turns in all" in api.system_of("CHILD-LONG")
    [started] = events.of(ChildStarted)
    assert started.calls_used == 1, "the refused second child took no sub-call"
    assert steps_by_agent(events) == {"worker/1.1": 4, "worker": 2}
    assert len(api.requests) == 4 + 1 + 2, "the child's turns and salvage, the root's turns"
    assert [e.status for e in events.of(ChildFinished)] == ["salvaged"]


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_children_at_once_share_one_count_of_steps(
    wire: str, corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI(wire)  # type: ignore[arg-type]
    api.script(
        "ROOT-Q",
        code(
            "rs = rlm_query_batched([[f'CHILD-{n}', [n]] for n in ['a.md', 'b.md', 'c.md']])\n"
            "print(sum(r['steps'] for r in rs), [r['error'] for r in rs])"
        ),
        done("three read"),
    )
    for name in ("a.md", "b.md", "c.md"):
        api.script(f"CHILD-{name}", *reading(20))
    result = await explore(api, corpus, events, depth=2, max_steps=12)
    assert result.output.answer == "three read"
    taken = steps_by_agent(events)
    assert taken.pop("worker") == 2
    # The root's first step, then the children's 12 - 1 - 2 less one for a salvage, however
    # they fell among them; no more requests than the root's steps and one salvage.
    assert sum(taken.values()) == 8, taken
    assert api.observations("ROOT-Q")[0].startswith("8 [")
    assert len(api.requests) <= 12 + 1
    for finished in events.of(ChildFinished):
        if finished.steps == 0:
            assert finished.error and "before its tree of agents had spent the steps" in (
                finished.error
            )


async def test_a_grandchild_leaves_steps_for_both_levels_above_it(
    corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI()
    api.script(
        "ROOT-Q",
        code("print(rlm_query('CHILD-MID', context=['b.md'])['answer'])"),
        done("deep"),
    )
    api.script(
        "CHILD-MID",
        code("print(rlm_query('GRANDCHILD')['steps'])"),
        done("from below"),
    )
    api.script("GRANDCHILD", *reading(20))
    result = await explore(api, corpus, events, depth=3, max_steps=10)
    assert result.output.answer == "deep"
    taken = steps_by_agent(events)
    # root 1, child 1, then the grandchild: what the two levels above keep (2 each) and one
    # for its salvage left out.
    assert taken == {"worker": 2, "worker/1.1": 2, "worker/1.1/1.1": 10 - 2 - 4 - 1}


async def test_lcm_children_share_the_trees_steps(corpus: Corpus, events: Recorder) -> None:
    api = AgentsAPI("openai")
    api.script(
        "ROOT-Q",
        tool_call("rlm_query", prompt="CHILD-LCM", context=["c.md"]),
        done("lcm done"),
    )
    api.script("CHILD-LCM", *[tool_call("grep", pattern=f"part{n}") for n in range(20)])
    result = await lcm_agent_forward(
        api.client(),
        RLMSpec(name="worker", definition="Answer.", output_model=Answer, max_steps=7),
        {"query": "ROOT-Q"},
        variables(corpus),
        sub_client=OfflineClient(role="sub"),
        emit=events,
        tree=AgentTree.root(2),
    )
    assert result.output.answer == "lcm done"
    assert steps_by_agent(events) == {"worker": 2, "worker/1.1": 7 - 1 - 2 - 1}
