"""One budget for a tree of agents, through whole runs: a child's spending is the run's, a cap
tripping inside a child stops the run, a cancel or a timeout stops every child and leaves no
sandbox process, and the sub-call cache answers children as it answers the root."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from ralph_tui.config import Settings
from ralph_tui.events import BaseEvent, ChildFinished, ChildStarted, SubQuery
from ralph_tui.loops.runner import RunOutcome, RunRequest, execute_run
from ralph_tui.sandbox.process import REAP_PATIENCE_S
from ralph_tui.traces.store import TraceStore
from tests.recursion.agents_api import AgentsAPI, code

TEXTS = {
    "a.md": "Alpha plant pumps 40 litres a second from the river intake.",
    "b.md": "Beta plant filters through sand beds renewed every spring.",
    "c.md": "Gamma plant doses chlorine to 0.5 mg/L at the outlet.",
}
QUERY = "ROOT-Q: what do the plants do?"


def qa(answer: str, *quotes: str) -> dict[str, Any]:
    return {
        "answer": answer,
        "evidence": list(quotes),
        "lineQuotes": [[n] for n in range(1, len(quotes) + 1)],
        "resultReady": True,
    }


def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "plants"
    docs.mkdir()
    for name, text in TEXTS.items():
        (docs / name).write_text(text)
    return docs


def request(tmp_path: Path, **values: Any) -> RunRequest:
    settings = Settings(
        _env_file=None,
        out_dir=tmp_path / "out",
        anthropic_api_key="sk-ant-test",
        anthropic_base_url="https://anthropic.test",
        validate_model="offline:judge",
        sub_model="offline:sub",
        max_iters=1,
        **{"max_depth": 2, **values},
    )  # type: ignore[call-arg]
    return RunRequest(mode="qa", query=QUERY, doc_path=folder(tmp_path), settings=settings)


async def run(
    api: AgentsAPI, tmp_path: Path, events: list[BaseEvent] | None = None, **values: Any
) -> RunOutcome:
    return await execute_run(
        request(tmp_path, **values),
        on_event=(events if events is not None else []).append,
        http_client=api.http_client(),
    )


def descendants() -> list[str]:
    """The processes below this one still in the process table (zombies too), as
    ``pid command``."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read()
        except OSError:
            continue
        name = fields[fields.index("(") + 1 : fields.rindex(")")]
        parents[int(entry)] = int(fields[fields.rindex(")") + 2 :].split()[1])
        names[int(entry)] = name
    below, frontier = [], [os.getpid()]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        below.extend(children)
        frontier.extend(children)
    return [f"{pid} {names[pid]}" for pid in below]


async def gone_soon() -> list[str]:
    """``descendants()`` once they are gone, or after ``REAP_PATIENCE_S`` and a second more:
    a sandbox whose close a cancel interrupted is killed and reaped by its reaper in the
    background, within that patience, rather than before the run returns."""
    deadline = asyncio.get_running_loop().time() + REAP_PATIENCE_S + 1.0
    while (left := descendants()) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    return left


async def test_a_childs_spending_is_the_runs_and_its_quotes_are_located_in_the_documents(
    tmp_path: Path,
) -> None:
    api = AgentsAPI()
    api.script(
        QUERY,
        code("r = rlm_query('CHILD-B: filters?', context=['b.md'])\nprint(r['quotes'])"),
        qa(
            "- Beta plant renews its sand beds every spring.",
            "Beta plant filters through sand beds renewed every spring.",
        ),
    )
    api.script(
        "CHILD-B",
        code("print(context)"),
        qa(
            "- The sand beds are renewed every spring.",
            "filters through sand beds renewed every spring",
        ),
    )
    outcome = await run(api, tmp_path)
    assert api.turns == {QUERY: 2, "CHILD-B": 2}
    assert outcome.usage.by_model["anthropic:claude-sonnet-4-6"].calls == 4
    assert outcome.usage.input_tokens >= 4 * 1000, "the child's requests are the run's"
    seen = api.observations(QUERY)[0]
    assert "'source': 'plants/b.md'" in seen and "'found': 'exact'" in seen
    at = TEXTS["b.md"].index("filters through")
    assert f"'start': {at}" in seen


async def test_a_cap_tripping_inside_a_child_stops_the_whole_run_as_capped(
    tmp_path: Path,
) -> None:
    api = AgentsAPI()
    api.script(
        QUERY,
        code(
            "r = rlm_query('CHILD-B: filters?', context=['b.md'])\nprint(r['error'])\n"
            "print(rlm_query('CHILD-C: chlorine?', context=['c.md'])['error'])"
        ),
    )
    api.script("CHILD-B", code("print(1)"), code("print(2)"), code("print(3)"))
    events: list[BaseEvent] = []
    # Each request is 1,100 tokens: after the root's first turn and the child's first two,
    # 3,300 are spent, past the cap of 3,000: the child's third request is refused.
    outcome = await run(api, tmp_path, events, token_cap=3000)
    assert outcome.status == "capped" and "token cap reached" in (outcome.error or "")
    assert api.turns == {QUERY: 1, "CHILD-B": 2}, "nothing was sent past the cap"
    finished = [e for e in events if isinstance(e, ChildFinished)]
    assert [(e.child, e.status) for e in finished] == [("worker/1.1", "failed")]
    assert "token cap reached" in (finished[0].error or ""), "no second child was started"
    assert TraceStore(tmp_path / "out").load_session(outcome.session_id).status == "capped"
    assert await gone_soon() == []


@pytest.mark.parametrize("how", ["cancel", "timeout"])
async def test_a_cancel_or_a_timeout_stops_every_child_and_leaves_no_process(
    how: str, tmp_path: Path
) -> None:
    api = AgentsAPI()
    api.script(
        QUERY,
        code("rs = rlm_query_batched([[f'CHILD-{n}', [n]] for n in ['a.md', 'b.md', 'c.md']])"),
    )
    for name in TEXTS:
        api.script(f"CHILD-{name}", code("import time\ntime.sleep(120)"))
    events: list[BaseEvent] = []
    cancel = asyncio.Event()
    loop = asyncio.get_running_loop()
    started: list[ChildStarted] = []

    def on_event(event: BaseEvent) -> None:
        events.append(event)
        if isinstance(event, ChildStarted):
            started.append(event)
            if len(started) == 3 and how == "cancel":
                loop.call_later(1.5, cancel.set)  # while each child's cell sleeps

    values: dict[str, Any] = {"run_timeout_s": 4.0} if how == "timeout" else {}
    began = loop.time()
    outcome = await execute_run(
        request(tmp_path, cell_timeout_s=300, **values),
        on_event=on_event,
        cancel=cancel,
        http_client=api.http_client(),
    )
    assert outcome.status == ("cancelled" if how == "cancel" else "timed_out")
    assert loop.time() - began < 30
    assert len(started) == 3 and all(turns == 1 for turns in api.turns.values())
    assert await gone_soon() == [], "every child's sandbox process is gone"


async def test_the_sub_call_cache_answers_children_as_it_answers_the_root(
    tmp_path: Path,
) -> None:
    api = AgentsAPI()
    ask = "print(llm_query('Which plant?', 'Beta plant filters through sand beds.'))"
    api.script(
        QUERY,
        code(
            ask + "\nfor n in ['CHILD-1', 'CHILD-2']:\n"
            "    print(rlm_query(n, context=['b.md'])['error'])"
        ),
        qa("- Beta filters.", "Beta plant filters through sand beds renewed every spring."),
    )
    for name in ("CHILD-1", "CHILD-2"):
        api.script(name, code(ask), qa("- Beta.", "Beta plant filters through sand beds"))
    events: list[BaseEvent] = []
    await run(api, tmp_path, events)
    subs = [e for e in events if isinstance(e, SubQuery)]
    assert [(e.agent, e.cached) for e in subs] == [
        ("worker", False), ("worker/1.1", True), ("worker/1.2", True),
    ]  # fmt: skip
    assert subs[-1].calls_used == 3, "one budget: 1 paid call and 2 children (cached: free)"


def test_the_helper_sees_a_process_it_started() -> None:
    import subprocess

    child = subprocess.Popen(["sleep", "5"])
    try:
        assert any(line.startswith(f"{child.pid} ") for line in descendants())
    finally:
        child.kill()
        child.wait()
    assert descendants() == []
