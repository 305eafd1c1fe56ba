"""The HTTP server's access rules and the bound on runs at once, without a client: which
Host headers a bind answers, when a token is required, that the token is never shown or
recorded, that a waiting call is told so and leaves the queue cleanly, and that freed
memory goes back to the system."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import SecretStr

from ralph_tui.cli.app import run_cli
from ralph_tui.config import SettingsError, load_settings, recorded_settings
from ralph_tui.mcp.client_settings import client_values
from ralph_tui.mcp.http import (
    Bind,
    HttpAccess,
    HttpAccessError,
    allowed_hosts,
    bind_of,
    http_access,
)
from ralph_tui.mcp.slots import RunSlots
from tests.mcp.test_stdio_server import ROOT

TOKEN = "a-team-token-of-32-characters-ok"


@pytest.mark.parametrize("spelling", ["127.1", "127.0.0.1", "localhost", "[::1]", "127.9.8.7"])
def test_every_spelling_of_loopback_is_loopback_and_answers_its_loopback_names(
    spelling: str,
) -> None:
    try:
        bind = bind_of(f"{spelling}:8765")
    except HttpAccessError:
        pytest.skip(f"{spelling} does not resolve on this machine")
    assert bind.loopback and not bind.every_interface
    hosts = allowed_hosts(bind)
    given = f"[{bind.host}]" if ":" in bind.host else bind.host
    assert f"{given}:8765" in hosts
    assert {"localhost:8765", "127.0.0.1:8765", "[::1]:8765"} <= set(hosts)
    assert not any("evil" in host or host.endswith(":*") for host in hosts)


def test_every_interface_answers_this_machines_names_and_what_is_allowed_besides() -> None:
    bind = Bind("0.0.0.0", "0.0.0.0", 8765)
    assert bind.every_interface and not bind.loopback
    hosts = allowed_hosts(bind, ["Proxy.Example", "mcp.example:8443", " "])
    assert f"{socket.gethostname().lower()}:8765" in hosts and "localhost:8765" in hosts
    assert {"proxy.example", "proxy.example:8765", "mcp.example:8443"} <= set(hosts)
    assert "mcp.example" not in hosts and "mcp.example:8443:8765" not in hosts
    assert Bind("m", "::ffff:127.0.0.1", 1).loopback and not Bind("m", "10.0.0.1", 1).loopback


def test_a_bind_that_is_not_loopback_needs_a_token_of_sixteen_characters_or_more() -> None:
    public = Bind("0.0.0.0", "0.0.0.0", 8765)
    with pytest.raises(HttpAccessError, match="every interface, so clients must send a token"):
        http_access(public, load_settings({}))
    with pytest.raises(HttpAccessError, match="not loopback"):
        http_access(Bind("10.1.2.3", "10.1.2.3", 8765), load_settings({}))
    with pytest.raises(HttpAccessError, match="at least 16 characters"):
        http_access(public, load_settings({"mcp_token": "short"}))
    loopback = http_access(Bind("127.0.0.1", "127.0.0.1", 0), load_settings({}))
    assert loopback.token is None and not loopback.generated
    generated = http_access(
        Bind("127.0.0.1", "127.0.0.1", 0), load_settings({"mcp_token": "generate"})
    )
    assert generated.generated and generated.token and len(generated.token) >= 40
    assert "https://localhost:0" in generated.allowed_origins


def test_the_token_is_never_shown_recorded_or_set_by_a_client(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RALPH_MCP_TOKEN", TOKEN)
    settings = load_settings({})
    assert settings.mcp_token == SecretStr(TOKEN)
    assert TOKEN not in json.dumps(recorded_settings(settings), default=str)
    assert run_cli(["config", "--json"]) == 0
    as_json = capsys.readouterr().out
    assert run_cli(["config"]) == 0
    assert TOKEN not in as_json + capsys.readouterr().out
    rows = {row["name"]: row for row in json.loads(as_json)["settings"]}
    assert rows["mcp_token"]["value"] == "set"
    with pytest.raises(SettingsError, match="the server's to set"):
        client_values({"mcp_max_runs": 100, "mcp_token": "x", "mcpAllowHosts": "evil"}, settings)


def test_serving_every_interface_warns_and_prints_the_generated_token_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    served: list[HttpAccess | None] = []
    monkeypatch.setattr("ralph_tui.mcp.http.check_listening", lambda bind: None)
    monkeypatch.setattr("ralph_tui.mcp.server.serve", lambda config, http: served.append(http))
    command = ["mcp", "--http", "0.0.0.0:8765", "--token", "generate", "--root", str(tmp_path)]
    assert run_cli(command) == 0
    [access] = served
    assert access is not None and access.token and not access.bind.loopback
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith(
        "serving http://0.0.0.0:8765/mcp (every interface; clients must send the token)"
    )
    assert "warning: plain HTTP" in lines[1] and "TLS" in lines[1]
    assert lines[2].endswith(f"token (shown only now): {access.token}") and len(lines) == 3


async def test_a_call_beyond_the_bound_waits_is_told_so_and_leaves_the_queue_when_cancelled() -> (
    None
):
    slots = RunSlots(1, notice_every_s=0.05)
    heard: list[str] = []

    async def waiting(message: str) -> None:
        heard.append(message)

    async def hold(release: asyncio.Event) -> None:
        async with slots.held(waiting):
            await release.wait()

    first_done = asyncio.Event()
    first = asyncio.create_task(hold(first_done))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(hold(asyncio.Event()))
    await asyncio.sleep(0.2)
    assert slots.running == 1 and slots.waiting == 1
    assert heard[0] == "waiting for a run slot: 1 run at once is busy"
    assert len(heard) >= 3, "repeated while it waits"
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert slots.waiting == 0
    first_done.set()
    await first
    third_done = asyncio.Event()
    third_done.set()
    before = len(heard)
    await asyncio.wait_for(hold(third_done), 1)
    assert len(heard) == before, "the cancelled waiter took no slot with it"
    assert slots.running == 0 and not slots._free.locked()


def test_memory_a_run_freed_goes_back_to_the_system() -> None:
    script = textwrap.dedent(
        """
        from ralph_tui.mcp.slots import release_freed_memory

        def rss():
            for line in open("/proc/self/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024

        start = rss()
        chunks = [bytearray(4000) for _ in range(60_000)]   # ~240 MB of heap, not mmap
        keep = chunks[::500]                                # a few survivors pin the heap
        del chunks
        freed = rss()
        release_freed_memory()
        print(start, freed, rss())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    start, freed, released = map(int, done.stdout.split())
    assert freed - start > 150, "the heap kept what was freed"
    assert released - start < (freed - start) / 2
