"""Where bwrap is missing or broken the sandbox falls back, loudly, and says which level it got."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from conftest import OpenSandbox


def tool_dir(tmp_path: Path, *, unshare: bool, bwrap_script: str | None = None) -> str:
    """A PATH directory holding only the tools a test wants the host to find."""
    folder = tmp_path / "bin"
    folder.mkdir()
    if unshare:
        real = shutil.which("unshare")
        assert real is not None, "the fallback tests need util-linux's unshare"
        (folder / "unshare").symlink_to(real)
    if bwrap_script is not None:
        fake = folder / "bwrap"
        fake.write_text(bwrap_script)
        fake.chmod(0o755)
    return str(folder)


async def test_missing_bwrap_falls_back_to_unshare_with_a_notice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, open_sandbox: OpenSandbox
) -> None:
    monkeypatch.setenv("PATH", tool_dir(tmp_path, unshare=True))
    notices: list[str] = []
    sandbox = await open_sandbox(globals={"context": "doc"}, emit_notice=notices.append)
    assert sandbox.isolation == "unshare-net"
    assert len(notices) == 1
    assert "degraded to unshare-net" in notices[0] and "`bwrap` not found" in notices[0]
    assert (await sandbox.execute("context.upper()")).output == "'DOC'\n"

    connections: list[str] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append("connected")
        writer.close()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)"
        result = await sandbox.execute(code)
    finally:
        server.close()
        await server.wait_closed()
    assert result.error is not None and "Network is unreachable" in result.error
    assert connections == []


async def test_broken_bwrap_is_reported_with_its_own_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, open_sandbox: OpenSandbox
) -> None:
    script = "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"
    monkeypatch.setenv("PATH", tool_dir(tmp_path, unshare=True, bwrap_script=script))
    notices: list[str] = []
    sandbox = await open_sandbox(emit_notice=notices.append)
    assert sandbox.isolation == "unshare-net"
    assert "No permissions to create a new namespace" in notices[0]


async def test_without_either_tool_only_rlimits_remain(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    open_sandbox: OpenSandbox,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("PATH", tool_dir(tmp_path, unshare=False))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback-secret")
    sandbox = await open_sandbox()
    assert sandbox.isolation == "rlimits-only"
    assert "degraded to rlimits-only" in caplog.text
    assert "reach the network" in caplog.text
    env = await sandbox.execute("import os\n'OPENAI_API_KEY' in os.environ, os.getcwd()")
    assert env.output == f"(False, {str(sandbox.work_dir)!r})\n"
    temp = await sandbox.execute(
        "import tempfile\nwith tempfile.TemporaryFile() as file:\n    file.write(b'x')\n"
        "tempfile.gettempdir()"
    )
    assert (temp.output, temp.error) == (f"{str(sandbox.work_dir.parent / 'tmp')!r}\n", None)
    bomb = await sandbox.execute("os.fork()")
    assert bomb.error is not None and "PermissionError" in bomb.error
    memory = await sandbox.execute("bytearray(8 * 1024**3)")
    assert memory.error is not None and memory.error.endswith("MemoryError")
    slow = await sandbox.execute("import time\ntime.sleep(30)")
    assert slow.timed_out and not slow.restarted
    crash = await sandbox.execute("os._exit(4)")
    assert crash.restarted and "exited with status 4" in (crash.error or "")


async def test_an_older_bwrap_without_the_newer_options_still_isolates(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, open_sandbox: OpenSandbox
) -> None:
    real = shutil.which("bwrap")
    assert real is not None
    script = (
        "#!/bin/sh\n"
        'if [ "$1" = "--help" ]; then echo "usage: bwrap [OPTIONS...] COMMAND --unshare-all"; '
        "exit 0; fi\n"
        f'case "$*" in *--disable-userns*|*--size*) exit 2;; esac\nexec {real} "$@"\n'
    )
    monkeypatch.setenv("PATH", tool_dir(tmp_path, unshare=True, bwrap_script=script))
    notices: list[str] = []
    sandbox = await open_sandbox(emit_notice=notices.append)
    assert sandbox.isolation == "bwrap" and notices == []
    project_file = Path(__file__).resolve()
    code = f"import os\nos.getcwd(), os.path.exists({str(project_file)!r})"
    assert (await sandbox.execute(code)).output == "('/sandbox', False)\n"
    network = await sandbox.execute("import socket\nsocket.create_connection(('1.1.1.1', 53), 1)")
    assert network.error is not None and "Network is unreachable" in network.error
