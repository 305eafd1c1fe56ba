"""``ralph-tui mcp --http`` as an attacker meets it: the server spawned as a subprocess
(``python -m ralph_tui mcp``) on loopback, sent raw HTTP requests with hostile ``Host`` and
``Origin`` headers and without or with a wrong token, and driven by the MCP SDK's own
streamable-HTTP client with the right one."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.test_stdio_server import OFFLINE, ROOT, SAMPLE, call, listening

SECRET_LINE = "backwash"
"""A word of the sample document: a response that carries it has leaked document text."""
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def initialize(request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0", "id": request_id, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "1"}},
    }  # fmt: skip


def search_call(request_id: int = 2) -> dict[str, Any]:
    arguments = {"query": SECRET_LINE, "paths": ["."], "settings": {"top_k": 2}}
    return {
        "jsonrpc": "2.0", "id": request_id, "method": "tools/call",
        "params": {"name": "search_documents", "arguments": arguments},
    }  # fmt: skip


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def http_server(
    tmp_path: Path, host: str, *flags: str, env: dict[str, str] | None = None
) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """The server at ``host`` on a free port, one root holding the sample document; its
    stderr is read by the caller after it stops."""
    port = free_port()
    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    command = [sys.executable, "-m", "ralph_tui", "mcp", "--http", f"{host}:{port}",
               "--root", str(tmp_path), "--out", str(tmp_path / "out"), *flags]  # fmt: skip
    server = subprocess.Popen(
        command,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(200):
            if listening(port):
                break
            assert server.poll() is None, f"the server stopped: {server.communicate()[1]}"
            anyio.run(anyio.sleep, 0.3)
        yield port, server
    finally:
        server.terminate()
        server.wait(timeout=30)


def post(port: int, body: dict[str, Any], **headers: str) -> httpx2.Response:
    with httpx2.Client(timeout=30) as client:
        return client.post(
            f"http://127.0.0.1:{port}/mcp", json=body, headers={**JSON_HEADERS, **headers}
        )


def test_a_loopback_bind_of_any_spelling_refuses_a_hostile_host_or_origin(
    tmp_path: Path,
) -> None:
    with http_server(tmp_path, "127.1") as (port, _):
        hostile_host = post(port, initialize(), Host="evil.example", Origin="http://evil.example")
        hostile_origin = post(port, initialize(), Origin="http://evil.example")
        opened = post(port, initialize(), Host=f"localhost:{port}")
        session = opened.headers["mcp-session-id"]
        rebound = post(
            port, search_call(), Host=f"evil.example:{port}", **{"Mcp-Session-Id": session}
        )
        proper = post(port, search_call(), **{"Mcp-Session-Id": session})
        sessionless = post(
            port, search_call(), Host="evil.example", **{"MCP-Protocol-Version": "2026-07-28"}
        )
    assert hostile_host.status_code == 421 and hostile_origin.status_code == 403
    assert sessionless.status_code == 421 and SECRET_LINE not in sessionless.text
    assert opened.status_code == 200
    assert rebound.status_code == 421 and SECRET_LINE not in rebound.text
    assert proper.status_code == 200 and SECRET_LINE in proper.text, "the same call, allowed"


def test_a_bind_that_is_not_loopback_is_refused_without_a_token(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "ralph_tui", "mcp", "--http", f"0.0.0.0:{free_port()}",
               "--root", str(tmp_path)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RALPH_MCP_TOKEN", None)
    done = subprocess.run(
        command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert "every interface" in line and "--token generate" in line and "RALPH_MCP_TOKEN" in line


async def search_with(port: int, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
        async with Client(transport) as client:
            found = await call(
                client, "search_documents", query=SECRET_LINE, paths=["."], settings={"top_k": 2}
            )
            asked = await call(
                client, "ask_documents", question="How often are the filters backwashed?",
                paths=[SAMPLE.name], settings=OFFLINE,
            )  # fmt: skip
    return {"found": found, "asked": asked}


def test_a_generated_token_is_printed_once_and_required_and_the_sdk_client_uses_it(
    tmp_path: Path,
) -> None:
    with http_server(tmp_path, "127.0.0.1", "--token", "generate") as (port, server):
        shown = [server.stderr.readline() for _ in range(2)]  # type: ignore[union-attr]
        assert "serving http://127.0.0.1:" in shown[0] and "clients must send the token" in shown[0]
        token = shown[1].split("token (shown only now): ")[1].split()[0]
        missing = post(port, initialize())
        wrong = post(port, initialize(), Authorization=f"Bearer {token[:-1]}x")
        other_scheme = post(port, initialize(), Authorization=f"Basic {token}")
        results = anyio.run(search_with, port, token)
        server.terminate()
        rest = server.communicate(timeout=30)[1]
    for refused in (missing, wrong, other_scheme):
        assert refused.status_code == 401 and SECRET_LINE not in refused.text
        assert refused.headers["www-authenticate"].startswith('Bearer realm="ralph-tui"')
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert len(results["found"]["passages"]) == 2
    assert results["asked"]["status"] == "passed"
    assert token not in rest, "printed once"
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert list((tmp_path / "out").rglob("session.json")), "the run was recorded"
    assert token.encode() not in written, "the token is never recorded"


@pytest.mark.parametrize("given", ["env", "flag"])
def test_a_token_given_on_loopback_is_required_there(tmp_path: Path, given: str) -> None:
    token = "a-team-token-of-32-characters-ok"
    flags = ("--token", token) if given == "flag" else ()
    env = {"RALPH_MCP_TOKEN": token} if given == "env" else {}
    with http_server(tmp_path, "127.0.0.1", *flags, env=env) as (port, _):
        missing = post(port, initialize())
        results = anyio.run(search_with, port, token)
    assert missing.status_code == 401 and SECRET_LINE not in missing.text
    assert len(results["found"]["passages"]) == 2
