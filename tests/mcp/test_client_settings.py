"""What a client may set, through the MCP SDK's own client over stdio: a setting that reaches
the network or raises a limit is refused as the server's, a budget may be lowered but not
raised past the server's, and a safe setting still works."""

from __future__ import annotations

from pathlib import Path

from ralph_tui.api import RunResult, SearchResult
from tests.mcp.test_stdio_server import QUESTION, SAMPLE, call, connected, error_of

SERVERS = {
    "crawl_concurrency": 1000,
    "external_page_max_mb": 100000,
    "external_docs": "http://127.0.0.1:9/latest/meta-data/iam",
}


async def test_a_client_is_refused_the_servers_settings_and_may_lower_a_budget(
    tmp_path: Path,
) -> None:
    async with connected(tmp_path, args=("--maxIters", "3")) as client:
        refused = {
            name: await error_of(
                client,
                "ask_documents",
                question=QUESTION,
                paths=[SAMPLE.name],
                settings={"provider": "offline", name: value},
            )
            for name, value in SERVERS.items()
        }
        raised = await error_of(
            client, "search_documents", query="backwash", paths=[SAMPLE.name],
            settings={"max_iters": 4},
        )  # fmt: skip
        nothing_ran = await call(client, "list_sessions")
        lowered = await call(
            client, "ask_documents", question=QUESTION, paths=[SAMPLE.name],
            settings={"provider": "offline", "max_iters": 1, "topK": 2},
        )  # fmt: skip
        searched = await call(
            client, "search_documents", query="backwash", paths=[SAMPLE.name],
            settings={"top_k": 3, "embedder": "offline"},
        )  # fmt: skip
    for name, message in refused.items():
        assert f"{name} is the server's to set" in message and "\n" not in message
    assert "max_iters = 4 is past what a client may set: at most the server's value (3)" in raised
    assert nothing_ran == {"result": []}, "a refused call runs nothing"
    run = RunResult.model_validate(lowered)
    assert run.iterations == 1 and run.status in ("passed", "failed")
    assert len(SearchResult.model_validate(searched).passages) == 3


async def test_a_client_may_lower_the_depth_of_a_tree_of_agents_but_not_raise_it(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Alpha plant backwashes its filters every 48 hours.\n")
    (docs / "b.md").write_text("Beta plant backwashes its filters every week.\n")
    ask = {"question": QUESTION, "paths": ["a.md", "b.md"]}
    async with connected(tmp_path, args=("--max-depth", "2", "--maxIters", "1")) as client:
        raised = await error_of(
            client, "ask_documents", **ask, settings={"provider": "offline", "max_depth": 3}
        )
        servers = await call(client, "ask_documents", **ask, settings={"provider": "offline"})
        lowered = await call(
            client, "ask_documents", **ask, settings={"provider": "offline", "maxDepth": 1}
        )
    assert "max_depth = 3 is past what a client may set: at most the server's value (2)" in raised
    [tree] = RunResult.model_validate(servers).children
    assert len(tree.children) == 2, "at the server's depth the run starts a child per document"
    assert RunResult.model_validate(lowered).children == [], "at depth 1 it starts none"
