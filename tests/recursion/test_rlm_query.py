"""``rlm_query`` in the sandbox: child agents over slices, through the real SDKs' wire formats."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from ralph_tui.agents.agent_run import AgentVariable, RLMSpec
from ralph_tui.agents.agent_tree import AgentTree
from ralph_tui.agents.rlm import rlm_agent_forward
from ralph_tui.documents import read_corpus
from ralph_tui.documents.corpus import Corpus
from ralph_tui.events import ChildFinished, ChildStarted, SandboxExecuted, SubQuery, TextRead
from ralph_tui.llm.offline import OfflineClient
from ralph_tui.loops.context import DOCUMENTS_VARIABLE
from tests.agents.conftest import Recorder
from tests.recursion.agents_api import AgentsAPI, Wire, code

TEXTS = {
    "a.md": "Alpha plant pumps 40 litres a second from the river intake.",
    "b.md": "Beta plant filters through sand beds renewed every spring.",
    "c.md": "Gamma plant doses chlorine to 0.5 mg/L at the outlet.",
}


class Answer(BaseModel):
    answer: str


def done(answer: str) -> dict[str, Any]:
    return {"answer": answer, "resultReady": True}


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    for name, text in TEXTS.items():
        (tmp_path / name).write_text(text)
    return read_corpus([tmp_path / name for name in TEXTS])


def variables(corpus: Corpus) -> dict[str, AgentVariable]:
    return {
        "context": AgentVariable(corpus.text, "The documents."),
        "documents": AgentVariable(corpus.table, DOCUMENTS_VARIABLE),
    }


async def explore(
    api: AgentsAPI,
    corpus: Corpus,
    events: Recorder,
    *,
    depth: int,
    functions: dict[str, Any] | None = None,
    **budgets: Any,
) -> Any:
    return await rlm_agent_forward(
        api.client(),
        RLMSpec(name="worker", definition="Answer.", output_model=Answer, **budgets),
        {"query": "ROOT-Q"},
        variables(corpus),
        sub_client=OfflineClient(role="sub"),
        emit=events,
        functions=functions,
        tree=AgentTree.root(depth),
    )


async def test_at_depth_one_there_is_no_rlm_query(corpus: Corpus, events: Recorder) -> None:
    api = AgentsAPI()
    api.script("ROOT-Q", code("rlm_query('x')"), done("none"))
    await explore(api, corpus, events, depth=1)
    assert "rlm_query" not in api.system_of("ROOT-Q")
    assert "NameError: name 'rlm_query' is not defined" in api.observations("ROOT-Q")[0]
    assert not events.of(ChildStarted)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_child_explores_the_documents_it_was_handed_in_its_own_sandbox(
    wire: Wire, corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI(wire)
    api.script(
        "ROOT-Q",
        code("r = rlm_query('CHILD-B: how are filters renewed?', context=['b.md'])\nprint(r)"),
        done("renewed every spring"),
    )
    api.script(
        "CHILD-B",
        code("print(len(context), [d['name'] for d in documents], context[:10])"),
        done("Beta renews its sand beds every spring."),
    )
    result = await explore(api, corpus, events, depth=2)
    assert result.output.answer == "renewed every spring"
    seen = api.observations("ROOT-Q")[0]
    assert "'answer': 'Beta renews its sand beds every spring.'" in seen
    assert "'error': None" in seen and "'depth': 2" in seen and "'agent': 'worker/1.1'" in seen
    child_saw = api.observations("CHILD-B")[0]
    assert child_saw.startswith(f"{len(TEXTS['b.md'])} ['b.md'] Beta plant")
    child_system = api.system_of("CHILD-B")
    assert "`documents`: list, 1 entries" in child_system
    assert "the deepest level (depth 2 of --max-depth 2)" in child_system
    assert "start a child agent (depth 2 of 2)" in api.system_of("ROOT-Q")
    [started] = events.of(ChildStarted)
    assert (started.agent, started.child, started.step, started.depth) == (
        "worker", "worker/1.1", 1, 2,
    )  # fmt: skip
    assert started.context == "1 document: b.md"
    [finished] = events.of(ChildFinished)
    assert finished.status == "answered" and finished.steps == 2
    cells = [cell.agent for cell in events.of(SandboxExecuted)]
    assert cells == ["worker/1.1", "worker"], "the child's cell ran inside the parent's"


async def test_what_a_child_reads_is_placed_in_its_parents_text(
    corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI()
    api.script("ROOT-Q", code("print(rlm_query('CHILD-C', context=['c.md'])['error'])"), done("x"))
    api.script("CHILD-C", code("print(context[0:11])"), done("chlorine"))
    await explore(api, corpus, events, depth=2)
    start = corpus.table[2]["start"]
    child_reads = [read for read in events.of(TextRead) if read.agent == "worker/1.1"]
    assert [read.spans for read in child_reads] == [[(start, start + 11)]]
    assert corpus.text[start : start + 11] == "Gamma plant"


async def test_a_childs_retrieve_sees_only_its_documents_placed_in_its_text(
    corpus: Corpus, events: Recorder
) -> None:
    async def retrieve(query: str, k: int = 5, sources: Any = None) -> list[dict[str, Any]]:
        return [
            {"text": TEXTS[row["name"]], "source": "doc", "document": row["name"],
             "span": [row["start"], row["end"]]}
            for row in corpus.table
        ]  # fmt: skip

    api = AgentsAPI()
    api.script(
        "ROOT-Q",
        code("print(rlm_query('CHILD-AC', context=['a.md', 'c.md'])['error'])"),
        done("x"),
    )
    api.script(
        "CHILD-AC",
        code(
            "for p in retrieve('plant'):\n"
            "    print(p['document'], context[p['span'][0]:p['span'][1]] == p['text'])"
        ),
        done("a and c"),
    )
    await explore(api, corpus, events, depth=2, functions={"retrieve": retrieve})
    assert api.observations("CHILD-AC")[0].startswith("a.md True\nc.md True\n")
    assert "===== a.md =====" not in TEXTS["a.md"]


async def test_at_the_deepest_level_llm_query_answers_and_says_so(
    corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI()
    api.script("ROOT-Q", code("print(rlm_query('CHILD-A', context=['a.md'])['answer'])"), done("x"))
    api.script(
        "CHILD-A",
        code(
            "r = rlm_query('How many litres?', context=context[:30])\nprint(r['note'], r['error'])"
        ),
        done("40 litres"),
    )
    await explore(api, corpus, events, depth=2)
    seen = api.observations("CHILD-A")[0]
    assert "rlm_query at depth 2, the deepest level (--max-depth 2): answered by llm_query" in seen
    assert "not by a child agent None\n" in seen
    assert [e.status for e in events.of(ChildFinished)] == ["llm_query", "answered"]
    [sub_query] = events.of(SubQuery)
    [_, deepest] = events.of(ChildStarted)
    assert sub_query.agent == deepest.child == "worker/1.1/1.1", (
        "the sub-call is shown in the fold of the rlm_query it answered"
    )


async def test_a_childs_failure_comes_back_as_an_error_value(
    corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI()
    api.script(
        "ROOT-Q",
        code(
            "r = rlm_query('CHILD-BAD', context=['b.md'])\nprint('error:', r['error'])\n"
            "print('unknown:', rlm_query('CHILD-X', context=['nope.md'])['error'])"
        ),
        done("carried on"),
    )
    api.script("CHILD-BAD", {"resultReady": True}, {"resultReady": True})
    result = await explore(api, corpus, events, depth=2, max_steps=5)
    assert result.output.answer == "carried on"
    seen = api.observations("ROOT-Q")[0]
    assert "error: [error] MaxStepsError:" in seen
    assert (
        "unknown: [error] rlm_query: no document named 'nope.md' (the documents are: a.md" in seen
    )
    assert [e.status for e in events.of(ChildFinished)] == ["failed"]


async def test_batched_children_run_at_once_and_share_the_sub_call_budget(
    corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI()
    api.script(
        "ROOT-Q",
        code(
            "rs = rlm_query_batched([[f'CHILD-{n}', [n]] for n in ['a.md', 'b.md', 'c.md']])\n"
            "print([r['answer'] or r['error'][:40] for r in rs])"
        ),
        done("three"),
    )
    for name in TEXTS:
        api.script(f"CHILD-{name}", done(f"from {name}"))
    result = await explore(api, corpus, events, depth=2, max_llm_calls=2)
    seen = api.observations("ROOT-Q")[0]
    answers = ast.literal_eval(seen.splitlines()[0])
    assert sum(a.startswith("from ") for a in answers) == 2
    assert sum(a.startswith("[error] The llm_query budget (2 calls") for a in answers) == 1
    assert result.llm_calls == 2
    assert len(events.of(ChildStarted)) == 2


async def test_a_child_handed_a_string_explores_that_text_alone(
    corpus: Corpus, events: Recorder
) -> None:
    api = AgentsAPI()
    api.script(
        "ROOT-Q",
        code("d = documents[1]\nprint(rlm_query('CHILD-S', context=context[d['start']:d['end']]))"),
        done("x"),
    )
    api.script(
        "CHILD-S",
        code("print(len(context), 'documents' in globals(), 'retrieve' in globals())\ncontext[:4]"),
        done("beta"),
    )

    async def retrieve(query: str, k: int = 5, sources: Any = None) -> list[dict[str, Any]]:
        return []

    await explore(api, corpus, events, depth=2, functions={"retrieve": retrieve})
    assert api.observations("CHILD-S")[0].startswith(f"{len(TEXTS['b.md'])} False False\n")
    assert "`retrieve(" not in api.system_of("CHILD-S")
    [started] = events.of(ChildStarted)
    assert started.context == f"a text of {len(TEXTS['b.md'])} characters"
    start = corpus.table[1]["start"]
    reads = [read.spans for read in events.of(TextRead) if read.agent == "worker/1.1"]
    assert reads == [[(start, start + 4)]], "placed where the slice stands in the parent's text"


async def test_a_child_handed_a_pdf_gets_its_pages_in_its_own_text(
    events: Recorder, tmp_path: Path
) -> None:
    from tests.documents.fixtures import write_pdf

    write_pdf(tmp_path / "manual.pdf", [["Page one text."], ["Page two says hello."]])
    (tmp_path / "notes.md").write_text("Notes text.")
    pdf_corpus = read_corpus([tmp_path / "notes.md", tmp_path / "manual.pdf"])
    api = AgentsAPI()
    api.script("ROOT-Q", code("rlm_query('CHILD-P', context=['manual.pdf'])"), done("x"))
    api.script(
        "CHILD-P",
        code("p = documents[0]['pages'][1]\nprint(context[p['start']:p['end']])"),
        done("hello"),
    )
    await explore(api, pdf_corpus, events, depth=2)
    assert api.observations("CHILD-P")[0].startswith("Page two says hello.")
