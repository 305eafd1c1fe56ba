"""``ralph-tui mcp`` end to end: the server spawned as a subprocess (``python -m ralph_tui
mcp``), driven over stdio (and once over streamable HTTP) by the MCP SDK's own client, with
the offline provider."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from ralph_tui.api import RunResult, SearchResult, SessionDetail
from tests.llm.loopback import serving
from tests.loops.test_subcall_cache_runs import Network

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "ralph_tui" / "data" / "sample_document.md"
QUESTION = "How often are the filters backwashed?"
OFFLINE = {"provider": "offline", "max_iters": 2}
TOP_2 = {"top_k": 2}


@asynccontextmanager
async def connected(
    tmp_path: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> AsyncIterator[Client]:
    """A client of a server whose one root holds a copy of the sample document; ``env``: the
    server's keys, endpoints and settings, if it has any; ``args``: more of its flags."""
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    shutil.copy(SAMPLE, docs / SAMPLE.name)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ralph_tui", "mcp", "--root", str(docs), "--out", str(tmp_path / "out"), *args],
        env={"PYTHONPATH": str(ROOT), **(env or {})},
        cwd=tmp_path,
    )
    async with Client(params) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error_of(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error and result.structured_content is None
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


async def test_the_tools_are_listed_with_the_api_models_as_their_schemas(tmp_path: Path) -> None:
    async with connected(tmp_path) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {
        "ask_documents", "run_task", "search_documents", "estimate", "list_sessions",
        "show_session",
    }  # fmt: skip
    for name in ("ask_documents", "run_task"):
        schema = tools[name].output_schema or {}
        assert set(schema["properties"]) == set(RunResult.model_fields)
        located = {"source", "page", "start", "end", "page_start", "found", "url", "fetched_at"}
        assert set(schema["$defs"]["Evidence"]["properties"]) >= located
    assert set(tools["search_documents"].output_schema["properties"]) == set(  # type: ignore[index]
        SearchResult.model_fields
    )
    assert tools["ask_documents"].input_schema["required"] == ["question", "paths"]


async def test_ask_answers_with_located_evidence_and_reports_progress(tmp_path: Path) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with connected(tmp_path) as client:
        result = await client.call_tool(
            "ask_documents",
            {"question": QUESTION, "paths": [SAMPLE.name], "settings": OFFLINE},
            progress_callback=on_progress,
        )
        assert not result.is_error, result.content
        answer = RunResult.model_validate(result.structured_content)
        shown = SessionDetail.model_validate(
            await call(client, "show_session", session_id=answer.session_id)
        )
        listed = await call(client, "list_sessions")
    assert answer.passed and answer.answer and answer.evidence
    assert answer.usage.subcall_cache_saved.calls == 0, "the offline worker asks no sub-calls"
    text = SAMPLE.read_text(encoding="utf-8")
    for quote in answer.evidence:
        assert quote.document == SAMPLE.name and text[quote.start : quote.end] == quote.quote
    assert answer.folder is not None and answer.folder.is_relative_to(tmp_path / "out")
    assert shown.status == "passed" and shown.evidence == answer.evidence
    assert [row["session_id"] for row in listed["result"]] == [answer.session_id]
    values = [value for value, _, _ in progress]
    assert values == sorted(values) and len(set(values)) == len(values), "progress only grows"
    messages = [message for _, _, message in progress]
    assert "iteration 1 of 2: worker" in messages and messages[-1] == "run finished: passed"


async def test_a_run_that_reaches_its_cap_is_a_capped_result_not_a_tool_error(
    tmp_path: Path,
) -> None:
    async with connected(tmp_path) as client:
        result = await client.call_tool(
            "ask_documents",
            {
                "question": QUESTION,
                "paths": [SAMPLE.name],
                "settings": {**OFFLINE, "token_cap": 100},
            },
        )
        assert not result.is_error, result.content
        answer = RunResult.model_validate(result.structured_content)
        shown = await call(client, "show_session", session_id=answer.session_id)
    assert answer.status == "capped" and "token cap reached" in (answer.error or "")
    assert shown["status"] == "capped"


async def test_a_run_reports_what_the_sub_call_cache_saved(tmp_path: Path) -> None:
    network = Network(rejected=1)  # the retry asks its sub-question again
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plant.txt").write_text(
        "The reservoir holds two days of supply. Filters are backwashed every 48 hours. "
        "Alarms escalate after 10 minutes."
    )
    settings = {"max_iters": 2}
    with serving(network.handle) as loopback:
        server_env = {**loopback.environment, "RALPH_SUB_MODEL": "openai:gpt-4o-mini"}
        async with connected(tmp_path, server_env) as client:
            given = await call(
                client, "ask_documents", question="What is kept?", paths=["plant.txt"],
                settings=settings,
            )  # fmt: skip
            shown = await call(client, "show_session", session_id=given["session_id"])
    assert given["status"] == "passed" and network.sub_calls == 1
    saved = given["usage"]["subcall_cache_saved"]
    assert saved["calls"] == 1 and saved["input_tokens"] > 0 and saved["cost_usd"] > 0
    assert shown["subcall_cache_saved"] == saved


async def test_run_task_and_search_documents(tmp_path: Path) -> None:
    async with connected(tmp_path) as client:
        task = RunResult.model_validate(
            await call(
                client,
                "run_task",
                task="List the filter backwash triggers.",
                paths=[str(tmp_path / "docs")],
                settings={"provider": "offline", "max_iters": 1},
            )
        )
        found = SearchResult.model_validate(
            await call(client, "search_documents", query="backwash", paths=["*.md"], settings=TOP_2)
        )
    assert task.status in ("passed", "failed") and task.output and task.iterations == 1
    text = SAMPLE.read_text(encoding="utf-8")
    assert len(found.passages) == 2
    for passage in found.passages:
        assert passage.document and Path(passage.document).name == SAMPLE.name
        assert text[passage.start : passage.end] == passage.text


async def test_bad_input_is_the_tools_error_and_the_server_goes_on(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    shutil.copy(SAMPLE, outside)
    async with connected(tmp_path) as client:
        missing = await error_of(client, "ask_documents", question=QUESTION, paths=["nope.md"])
        escaped = await error_of(client, "search_documents", query="filters", paths=[str(outside)])
        climbed = await error_of(client, "ask_documents", question=QUESTION, paths=["../*.md"])
        setting = await error_of(
            client, "ask_documents", question=QUESTION, paths=[SAMPLE.name],
            settings={"max_iter": 2, "out_dir": str(tmp_path)},
        )  # fmt: skip
        value = await error_of(
            client, "run_task", task="Summarise.", paths=[SAMPLE.name], settings={"top_k": 0}
        )
        session = await error_of(client, "show_session", session_id="2020-01-01/qa-00000000")
        still = await call(client, "list_sessions")
    assert "document not found" in missing and "nope.md" in missing
    assert "outside the folders this server may read" in escaped and "elsewhere.md" in escaped
    assert "outside the folders" in climbed
    assert "max_iter is not a setting; did you mean max_iters?" in setting
    assert "out_dir is the server's to set" in setting
    assert "top_k" in value
    assert "no session '2020-01-01/qa-00000000'" in session
    assert still == {"result": []}, "nothing ran, nothing was recorded"


async def test_cancelling_a_running_ask_records_the_session_cancelled(tmp_path: Path) -> None:
    seen: list[str | None] = []
    async with connected(tmp_path, args=("--maxIters", "50")) as client:
        with anyio.CancelScope() as scope:

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                seen.append(message)
                if message == "iteration 2 of 50 started":
                    scope.cancel()

            with anyio.fail_after(60):
                await client.call_tool(
                    "ask_documents",
                    {
                        "question": "What colour is the chief engineer's bicycle?",
                        "paths": [SAMPLE.name],
                        "settings": {"provider": "offline", "max_iters": 50},
                    },
                    progress_callback=on_progress,
                )
        assert scope.cancelled_caught, f"the call ended before it was cancelled: {seen}"
        with anyio.fail_after(30):
            while not (rows := (await call(client, "list_sessions"))["result"]):
                await anyio.sleep(0.2)
            while rows[0]["status"] == "running":
                await anyio.sleep(0.2)
                rows = (await call(client, "list_sessions"))["result"]
        detail = SessionDetail.model_validate(
            await call(client, "show_session", session_id=rows[0]["session_id"])
        )
    assert detail.status == "cancelled" and 1 <= detail.iterations < 50
    assert detail.iteration_traces, "the traces of the iterations before the cancel are kept"


async def test_the_same_tools_over_streamable_http(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    command = [sys.executable, "-m", "ralph_tui", "mcp", "--http", f"127.0.0.1:{port}",
               "--root", str(tmp_path), "--out", str(tmp_path / "out")]  # fmt: skip
    server = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    try:
        with anyio.fail_after(60):
            while not listening(port):
                assert server.poll() is None, "the server stopped before it listened"
                await anyio.sleep(0.3)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            arguments = {"query": "backwash", "paths": ["."], "settings": TOP_2}
            found = await call(client, "search_documents", **arguments)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert len(found["passages"]) == 2


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True
