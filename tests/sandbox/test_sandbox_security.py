"""Escapes that must fail inside the sandbox, reported as ordinary cell errors.

These run at the isolation level the machine gives; the first test insists it is bwrap,
so a weaker level fails loudly here instead of letting the other tests pass vacuously.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import OpenSandbox

from ralph_tui.sandbox import Sandbox, SandboxLimits


@pytest.fixture
def home_secret() -> Iterator[Path]:
    path = Path.home() / f".ralph-sandbox-test-{uuid.uuid4().hex}"
    path.write_text("home secret")
    try:
        yield path
    finally:
        path.unlink()


async def test_isolation_is_bwrap(sandbox: Sandbox) -> None:
    assert sandbox.isolation == "bwrap"


async def test_api_keys_in_the_environment_do_not_reach_the_child(
    monkeypatch: pytest.MonkeyPatch, open_sandbox: OpenSandbox
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    sandbox = await open_sandbox()
    result = await sandbox.execute("import os\nsorted(os.environ)")
    assert "OPENAI_API_KEY" not in result.output
    assert "sk-test-secret" not in result.output
    parent = await sandbox.execute("open(f'/proc/{os.getppid()}/environ', 'rb').read()")
    assert "sk-test-secret" not in parent.output + (parent.error or "")


async def test_dotenv_in_the_callers_cwd_is_unreadable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, open_sandbox: OpenSandbox
) -> None:
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-dotenv-secret\n")
    monkeypatch.chdir(tmp_path)
    sandbox = await open_sandbox()
    for path in (".env", str(tmp_path / ".env")):
        result = await sandbox.execute(f"open({path!r}).read()")
        assert result.error is not None and "FileNotFoundError" in result.error
        assert "sk-dotenv-secret" not in result.output


async def test_project_and_home_files_are_unreadable(
    home_secret: Path, open_sandbox: OpenSandbox
) -> None:
    sandbox = await open_sandbox()
    secret = await sandbox.execute(f"open({str(home_secret)!r}).read()")
    assert secret.error is not None and "FileNotFoundError" in secret.error
    listing = await sandbox.execute(
        f"import os\nos.path.exists({str(Path.home())!r}) and os.listdir({str(Path.home())!r})"
    )
    assert home_secret.name not in listing.output
    project = Path(__file__).resolve().parents[2]
    for path in (project / "pyproject.toml", project / "ralph_tui" / "config.py"):
        result = await sandbox.execute(f"open({str(path)!r}).read()")
        assert result.error is not None and "FileNotFoundError" in result.error
    package = await sandbox.execute("import ralph_tui")
    assert package.error is not None and "ModuleNotFoundError" in package.error


async def test_no_network_not_even_to_the_hosts_loopback(open_sandbox: OpenSandbox) -> None:
    connections: list[str] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append("connected")
        writer.close()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        sandbox = await open_sandbox()
        code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)"
        result = await sandbox.execute(code)
        assert result.error is not None
        assert "ConnectionRefusedError" in result.error or "Network is unreachable" in result.error
        dns = await sandbox.execute("socket.getaddrinfo('example.com', 443)")
        assert dns.error is not None and "gaierror" in dns.error
    finally:
        server.close()
        await server.wait_closed()
    assert connections == []


async def test_writes_outside_the_scratch_dir_fail(
    tmp_path: Path, open_sandbox: OpenSandbox
) -> None:
    sandbox = await open_sandbox()
    targets = [tmp_path / "escaped.txt", Path("/usr/escaped.txt"), Path("/escaped.txt")]
    targets.append(Path("/opt/ralph-sandbox/init/global-0.txt"))
    for target in targets:
        result = await sandbox.execute(f"open({str(target)!r}, 'w').write('x')")
        assert result.error is not None
        assert any(e in result.error for e in ("Read-only file system", "No such file"))
    assert not (tmp_path / "escaped.txt").exists()
    assert not Path("/usr/escaped.txt").exists() and not Path("/escaped.txt").exists()
    inside = await sandbox.execute("open('/sandbox/ok.txt', 'w').write('ok')")
    assert inside.error is None and (sandbox.work_dir / "ok.txt").read_text() == "ok"


async def test_fork_bomb_fails_on_the_first_fork(sandbox: Sandbox) -> None:
    # Bounded even if forking worked: every child exits at once, nothing multiplies.
    code = "import os\nfor _ in range(50):\n    if os.fork() == 0:\n        os._exit(0)"
    result = await sandbox.execute(code)
    assert result.error is not None
    assert "PermissionError: [Errno 1] Operation not permitted" in result.error
    spawn = await sandbox.execute("import subprocess\nsubprocess.run(['true'])")
    assert spawn.error is not None and "PermissionError" in spawn.error
    threads = "import threading\nt = threading.Thread(target=print, args=('thread',))\n"
    threads += "t.start(); t.join()"
    assert (await sandbox.execute(threads)).output == "thread\n"


async def test_allocating_eight_gigabytes_is_a_memory_error(sandbox: Sandbox) -> None:
    for code in ("b = bytearray(8 * 1024**3)", "s = 'x' * (8 * 1024**3)"):
        result = await sandbox.execute(code)
        assert result.error is not None and result.error.endswith("MemoryError")
        assert not result.restarted
    assert (await sandbox.execute("len(context)")).output == "20\n"


async def test_printing_half_a_gigabyte_is_cut_without_holding_it(
    open_sandbox: OpenSandbox,
) -> None:
    limits = SandboxLimits(memory_bytes=400 * 1024**2, max_output_chars=1000, timeout_s=20)
    sandbox = await open_sandbox(limits=limits)
    code = "chunk = 'y' * 1_000_000\nfor _ in range(500):\n    print(chunk)"
    result = await sandbox.execute(code)
    assert result.error is None
    total = 500 * 1_000_001
    assert (
        result.output
        == "y" * 500 + f"\n[... {total - 1000} characters omitted ...]\n" + "y" * 499 + "\n"
    )
    raw = await sandbox.execute("import os\nfor _ in range(20):\n    os.write(1, b'z' * 1_000_000)")
    assert f"[... {20_000_000 - 1000} characters omitted ...]" in raw.output


async def test_killing_the_parent_leaves_the_host_alive(sandbox: Sandbox) -> None:
    seen = await sandbox.execute(
        "import os, signal\nos.getppid(), [p for p in os.listdir('/proc') if p.isdigit()]"
    )
    assert seen.output == "(1, ['1', '2'])\n"  # the sandbox's own init; host pids are not visible
    result = await sandbox.execute("os.kill(os.getppid(), signal.SIGKILL)")
    assert result.error is None and not result.restarted
    assert (await sandbox.execute("'alive'")).output == "'alive'\n"
