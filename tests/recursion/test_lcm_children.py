"""The LCM mode's ``rlm_query`` tool: a child LCM agent over some of the documents, through
the OpenAI SDK's wire format."""

from __future__ import annotations

import json
from pathlib import Path

from ralph_tui.agents.agent_run import RLMSpec
from ralph_tui.agents.agent_tree import AgentTree
from ralph_tui.agents.lcm_agent import lcm_agent_forward
from ralph_tui.documents.corpus import Corpus
from ralph_tui.events import ChildFinished, ChildStarted, ToolExecuted
from ralph_tui.llm.offline import OfflineClient
from tests.agents.conftest import Recorder
from tests.recursion.agents_api import AgentsAPI, tool_call
from tests.recursion.test_rlm_query import TEXTS, Answer, corpus, done, variables

__all__ = ["corpus"]


async def test_an_lcm_agent_starts_a_child_that_reads_only_its_documents(
    corpus: Corpus, events: Recorder, tmp_path: Path
) -> None:
    api = AgentsAPI("openai")
    api.script(
        "ROOT-Q",
        tool_call("rlm_query", prompt="CHILD-C: what is dosed?", context=["c.md"]),
        done("chlorine, says the child"),
    )
    api.script(
        "CHILD-C",
        tool_call("read", start=0, end=200),
        done("Gamma doses chlorine."),
    )
    result = await lcm_agent_forward(
        api.client(),
        RLMSpec(name="worker", definition="Answer.", output_model=Answer),
        {"query": "ROOT-Q"},
        variables(corpus),
        sub_client=OfflineClient(role="sub"),
        emit=events,
        tree=AgentTree.root(2, folder=tmp_path / "children" / "01-worker", session=tmp_path),
    )
    assert result.output.answer == "chlorine, says the child"
    assert "rlm_query" in {tool["function"]["name"] for tool in api.bodies[0]["tools"]}
    child_read = api.observations("CHILD-C")[0]
    assert child_read == f"[context 0-53 of 53 characters]\n{TEXTS['c.md']}"
    returned = json.loads(api.observations("ROOT-Q")[0])
    assert returned["answer"] == "Gamma doses chlorine." and returned["error"] is None
    [started] = events.of(ChildStarted)
    assert (started.child, started.context) == ("worker/1.1", "1 document: c.md")
    assert [e.status for e in events.of(ChildFinished)] == ["answered"]
    tools = [(e.agent, e.tool) for e in events.of(ToolExecuted)]
    assert tools == [("worker/1.1", "read"), ("worker", "rlm_query")]
    record = json.loads((tmp_path / "children" / "01-worker" / "1.1" / "child.json").read_text())
    assert record["status"] == "answered" and record["steps"] == 2
